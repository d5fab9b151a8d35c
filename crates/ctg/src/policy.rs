//! Move choice: explicit policies that weight the book moves of a probe, and a weighted pick.

use crate::{
    raw::Recommendation,
    read::{BookMove, Probe},
};

/// How book moves are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Policy {
    /// `2·wins + draws` of the side playing the move (the Polyglot convention,
    /// [`chess_core::book::WeightPolicy::Score`], which Kvetka conversions use too).
    /// With `exclude_red`, red moves weigh 0; with `prefer_green`, when any move is green only
    /// green moves keep their weight.
    Score {
        /// Red moves weigh 0.
        exclude_red: bool,
        /// Only green moves count when there is one.
        prefer_green: bool,
    },
    /// After DroidFish's CTG reader: red moves are avoided (weight 0); the weight is the
    /// mover's score fraction `(wins + draws/2) / games` (as a per-mille integer, at least 1
    /// for a move with games), multiplied by 4 for green moves and by `games` weighted
    /// sub-linearly (√games), so both quality and popularity count.
    #[default]
    DroidFish,
    /// Number of games the move was played in (the record's stored game count).
    Games,
    /// Every decodable move weighs 1.
    Uniform,
}

impl Policy {
    /// Parses a policy name: `score`, `score-no-red`, `score-green`, `droidfish`, `games`,
    /// `uniform`.
    pub fn from_name(name: &str) -> Option<Policy> {
        Some(match name {
            "score" => Policy::Score {
                exclude_red: false,
                prefer_green: false,
            },
            "score-no-red" => Policy::Score {
                exclude_red: true,
                prefer_green: false,
            },
            "score-green" => Policy::Score {
                exclude_red: true,
                prefer_green: true,
            },
            "droidfish" => Policy::DroidFish,
            "games" => Policy::Games,
            "uniform" => Policy::Uniform,
            _ => return None,
        })
    }

    /// The names [`Policy::from_name`] accepts.
    pub const NAMES: [&'static str; 6] = [
        "score",
        "score-no-red",
        "score-green",
        "droidfish",
        "games",
        "uniform",
    ];

    /// The weight of each move of a probe, in the probe's order.
    pub fn weights(self, probe: &Probe) -> Vec<u64> {
        let any_green = probe
            .moves
            .iter()
            .any(|m| m.recommendation() == Recommendation::Green);
        probe
            .moves
            .iter()
            .map(|m| self.weight(m, any_green))
            .collect()
    }

    fn weight(self, m: &BookMove, any_green: bool) -> u64 {
        let r = m.results();
        let colour = m.recommendation();
        match self {
            Policy::Score {
                exclude_red,
                prefer_green,
            } => {
                if (exclude_red && colour == Recommendation::Red)
                    || (prefer_green && any_green && colour != Recommendation::Green)
                {
                    0
                } else {
                    chess_core::book::WeightPolicy::Score.weight(m.wdl())
                }
            }
            Policy::DroidFish => {
                if colour == Recommendation::Red || r.games == 0 {
                    return 0;
                }
                let score = (2 * u64::from(r.wins) + u64::from(r.draws)) * 500 / u64::from(r.games);
                let popularity = (f64::from(r.games).sqrt() * 16.0) as u64;
                let green = if colour == Recommendation::Green {
                    4
                } else {
                    1
                };
                score.max(1) * popularity.max(1) * green
            }
            Policy::Games => u64::from(r.games),
            Policy::Uniform => 1,
        }
    }

    /// Picks a move at random with probability proportional to its weight; `None` when all
    /// weights are 0. `random` gives uniformly distributed `u64`s (with the `rand` crate:
    /// `|| rng.random()`).
    pub fn pick(self, probe: &Probe, random: impl FnMut() -> u64) -> Option<&BookMove> {
        let weights = self.weights(probe);
        chess_core::choice::weighted_index(weights.iter().copied(), random).map(|i| &probe.moves[i])
    }
}
