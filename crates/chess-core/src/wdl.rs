//! Game counts by result, from one side's point of view.

use std::ops::{Add, AddAssign};

/// Wins, draws and losses, counted from one side's point of view.
///
/// The opening-book crates report statistics with this type, always **from the view of the
/// side that plays the move** (for a position: the side to move), whatever the file stores.
///
/// ```
/// use chess_core::Wdl;
/// let w = Wdl { wins: 3, draws: 2, losses: 1 };
/// assert_eq!(w.games(), 6);
/// assert_eq!(w.flipped(), Wdl { wins: 1, draws: 2, losses: 3 });
/// assert_eq!(w.score(), Some(4.0 / 6.0)); // (wins + draws / 2) / games
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// All games with a result.
    pub fn games(self) -> u64 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// The same counts from the other side's point of view.
    #[must_use]
    pub fn flipped(self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// `(wins + draws / 2) / games`, `None` without games.
    pub fn score(self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / games as f64)
    }
}

impl Add for Wdl {
    type Output = Wdl;
    fn add(self, o: Wdl) -> Wdl {
        Wdl {
            wins: self.wins.saturating_add(o.wins),
            draws: self.draws.saturating_add(o.draws),
            losses: self.losses.saturating_add(o.losses),
        }
    }
}

impl AddAssign for Wdl {
    fn add_assign(&mut self, o: Wdl) {
        *self = *self + o;
    }
}
