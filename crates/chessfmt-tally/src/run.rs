//! Games replayed a run at a time on the pool: their plies split by shard of the table, in
//! input order, ready to count.

use std::ops::ControlFlow;

use chess_core::polyglot_key::KeyWalk;
use chessfmt_pgn::{GameError, GameResult, RawGame};
use shakmaty::Move;

use crate::{
    counting::{SHARDS, shard_of},
    position::Planes,
    row::{GameFacts, Outcome, move_code, pack_uci},
};

/// No position: the run holds the ply's board at an earlier ply of the same key.
pub(crate) const NO_POSITION: u32 = u32::MAX;

/// One ply of a replayed game.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ply {
    pub(crate) key: u64,
    /// The board in [`ReplayedRun::positions`], or [`NO_POSITION`] where an earlier ply of the
    /// run with the same key (in the same shard's list, so counted first) carries it.
    pub(crate) position: u32,
    /// The game in [`ReplayedRun::games`].
    pub(crate) game: u16,
    /// The ply in its game (saturating).
    pub(crate) ply: u16,
    pub(crate) uci: u16,
}

/// A game as the table counts it (its plies are in its run).
#[derive(Debug, Clone)]
pub(crate) struct GameInfo {
    pub(crate) facts: GameFacts,
    /// The game's number (0-based, in input order, across inputs).
    pub(crate) number: u64,
}

/// Games replayed a run at a time on the pool (see [`chessfmt_pgn::replay_runs_in_order`]):
/// the plies of all the run's games in one list per shard, so that nothing is allocated per
/// game (a game's plies, freed on another thread than the one that made them, had the system
/// allocator's locks stall the other threads) and each shard reads only its own plies.
#[derive(Debug)]
pub(crate) struct ReplayedRun {
    /// The plies by shard, each list in input order.
    pub(crate) parts: Vec<Vec<Ply>>,
    /// The boards of the plies that carry one (packed by the table if it has not seen them).
    pub(crate) positions: Vec<Planes>,
    /// The good games, in order.
    pub(crate) games: Vec<GameInfo>,
    /// The errors of the games left out, in order.
    pub(crate) errors: Vec<GameError>,
}

/// Games a run replays.
pub(crate) const RUN_GAMES: usize = 256;

/// Slots of a run's memory of the keys whose board it already holds (a key's board is packed
/// once per run where the slot still remembers it: the positions of the opening, repeated
/// from game to game, are packed once).
const SEEN_SLOTS: usize = 4096;

fn elo(game: &RawGame, tag: &str) -> Option<u32> {
    game.header(tag)
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|&e| e > 0 && e < 10_000)
}

fn year(game: &RawGame) -> Option<u16> {
    let date = game.header("Date").or_else(|| game.header("UTCDate"))?;
    date.get(..4)?
        .parse::<u16>()
        .ok()
        .filter(|&y| (1..=9999).contains(&y))
}

/// The table's code of a move that is not castling ([`pack_uci`] of its UCI, without making
/// it).
fn uci_code(m: &Move) -> u16 {
    move_code(
        m.from().unwrap_or(shakmaty::Square::A1),
        m.to(),
        m.promotion(),
    )
}

impl ReplayedRun {
    /// Replays `games`, numbered by `number`.
    pub(crate) fn of(
        games: &[RawGame],
        max_ply: usize,
        number: impl Fn(&RawGame) -> u64,
    ) -> ReplayedRun {
        let plies: usize = games.iter().map(|g| g.sans.len().min(max_ply)).sum();
        let mut run = ReplayedRun {
            parts: (0..SHARDS)
                .map(|_| Vec::with_capacity(plies / SHARDS * 5 / 4 + 8))
                .collect(),
            positions: Vec::with_capacity(plies / 2),
            games: Vec::with_capacity(games.len()),
            errors: Vec::new(),
        };
        let mut seen = vec![0u64; SEEN_SLOTS];
        for raw in games {
            let before: [usize; SHARDS] = std::array::from_fn(|s| run.parts[s].len());
            let positions = run.positions.len();
            match run.replay(raw, max_ply, &mut seen) {
                Ok(()) => run.games.push(GameInfo {
                    facts: GameFacts {
                        outcome: match raw.result() {
                            GameResult::WhiteWins => Outcome::White,
                            GameResult::BlackWins => Outcome::Black,
                            GameResult::Draw => Outcome::Draw,
                            _ => Outcome::Unknown,
                        },
                        white_elo: elo(raw, "WhiteElo"),
                        black_elo: elo(raw, "BlackElo"),
                        year: year(raw),
                    },
                    number: number(raw),
                }),
                Err(e) => {
                    for (part, len) in run.parts.iter_mut().zip(before) {
                        part.truncate(len);
                    }
                    run.positions.truncate(positions);
                    // The boards of the game left out are gone: forget every key.
                    seen.fill(0);
                    run.errors.push(e);
                }
            }
        }
        run
    }

    /// Appends the plies of `raw` as the run's next game.
    fn replay(&mut self, raw: &RawGame, max_ply: usize, seen: &mut [u64]) -> Result<(), GameError> {
        let game = u16::try_from(self.games.len()).unwrap_or(u16::MAX);
        // Castling moves, whose UCI depends on the game's castling mode (known at the end).
        let mut castles: Vec<(usize, usize, Move)> = Vec::new();
        let mut keys = KeyWalk::default();
        let mut ply = 0u16;
        let (parts, positions) = (&mut self.parts, &mut self.positions);
        let replay = raw.replay(max_ply, |pos, m| {
            let key = keys.key_before(pos, m);
            let slot = (key ^ key >> 32) as usize % SEEN_SLOTS;
            let position = if key != 0 && seen[slot] == key {
                NO_POSITION
            } else {
                seen[slot] = key;
                positions.push(Planes::of(pos));
                u32::try_from(positions.len() - 1).unwrap_or(NO_POSITION)
            };
            let shard = shard_of(key);
            let uci = if let Move::Castle { .. } = m {
                castles.push((shard, parts[shard].len(), m));
                0
            } else {
                uci_code(&m)
            };
            parts[shard].push(Ply {
                key,
                position,
                game,
                ply,
                uci,
            });
            ply = ply.saturating_add(1);
            ControlFlow::Continue(())
        })?;
        for (shard, i, m) in castles {
            self.parts[shard][i].uci = pack_uci(&m.to_uci(replay.castling_mode));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Position};

    /// The code made without UCI text is [`pack_uci`]'s, for every move of random playouts.
    #[test]
    fn codes_are_pack_uci_s() {
        use shakmaty::Chess;
        let mut pos = Chess::default();
        for i in 0..400usize {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = Chess::default();
                continue;
            }
            for m in &moves {
                if !matches!(m, Move::Castle { .. }) {
                    assert_eq!(uci_code(m), pack_uci(&m.to_uci(CastlingMode::Standard)));
                }
            }
            let m = moves[(i * 7919) % moves.len()];
            pos.play_unchecked(m);
        }
    }
}
