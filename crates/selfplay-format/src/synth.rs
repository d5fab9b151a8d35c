//! Synthetic games for benchmarks, tests and fuzz seeds: random playouts with a visit
//! distribution on every move, like self-play data.

use shakmaty::{Chess, Position};

use crate::write::GameWriter;

/// A small xorshift generator (deterministic, no dependency).
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// `games` random games from the start position, each at most `max_plies` long, with visit
/// counts on every move (a one-in-`policy_gap` chance of none when `policy_gap` > 0).
pub fn games(seed: u64, games: usize, max_plies: usize) -> Vec<u8> {
    let mut rng = XorShift(seed | 1);
    let mut out = Vec::new();
    for _ in 0..games {
        let start = Chess::default();
        let mut w = GameWriter::new(&start);
        let mut pos = start;
        let len = max_plies / 2 + rng.below(max_plies as u64 / 2 + 1) as usize;
        let mut visits = Vec::new();
        for _ in 0..len {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            visits.clear();
            visits.extend(legal.iter().map(|&m| (m, rng.below(2000) as u32)));
            // Play the most visited move half of the time, like a search would.
            let mv = if rng.below(2) == 0 {
                visits
                    .iter()
                    .max_by_key(|v| v.1)
                    .map(|v| v.0)
                    .expect("moves")
            } else {
                legal[rng.below(legal.len() as u64) as usize]
            };
            let score = rng.below(1001) as f32 / 1000.0;
            w.push(mv, score, Some(&visits))
                .expect("legal by construction");
            pos.play_unchecked(mv);
        }
        out.extend(w.finish(rng.below(3) as u8).expect("result in range"));
    }
    out
}
