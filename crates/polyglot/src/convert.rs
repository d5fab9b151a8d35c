//! Conversion into Polyglot from any book of the family: the one place where book moves with
//! weights become entries, with one scaling rule.
//!
//! **Scaling rule.** A position's weights are written as they are when the largest fits the
//! 16-bit field; otherwise all of them are scaled by `65535 / largest` (rounding down), and a
//! non-zero weight never becomes 0. Moves of weight 0 are left out, as Polyglot tools skip
//! them. Weights come from an explicit policy in the source crate
//! ([`chess_core::book::WeightPolicy`] or a richer one of its own).
//!
//! ```
//! use polyglot_book::convert::{EntryCollector, scale_weights};
//! use shakmaty::{Chess, Position, uci::UciMove};
//!
//! assert_eq!(scale_weights(&[3, 0, 1]), [3, 0, 1]);
//! assert_eq!(scale_weights(&[131_070, 1]), [65_535, 1]);
//!
//! let pos = Chess::default();
//! let e4 = "e2e4".parse::<UciMove>()?.to_move(&pos)?;
//! let mut entries = EntryCollector::new();
//! entries.add(&pos, [(e4, 7)]);
//! let (entries, zero_weight) = entries.finish();
//! assert_eq!((entries.len(), entries[0].weight, zero_weight), (1, 7, 0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use shakmaty::{Chess, Move};

use crate::{Entry, moves::encode_move, write::sort_entries};

/// The largest weight an entry holds.
pub const MAX_WEIGHT: u64 = u16::MAX as u64;

/// The weights of one position's moves under the scaling rule (see the module notes).
pub fn scale_weights(weights: &[u64]) -> Vec<u16> {
    let top = weights.iter().copied().max().unwrap_or(0);
    weights
        .iter()
        .map(|&w| {
            if top <= MAX_WEIGHT || w == 0 {
                w.min(MAX_WEIGHT) as u16
            } else {
                ((u128::from(w) * u128::from(MAX_WEIGHT) / u128::from(top)) as u16).max(1)
            }
        })
        .collect()
}

/// Collects the entries of a conversion position by position.
#[derive(Debug, Default)]
pub struct EntryCollector {
    entries: Vec<Entry>,
    zero_weight: u64,
}

impl EntryCollector {
    /// An empty collection.
    pub fn new() -> Self {
        EntryCollector::default()
    }

    /// Adds the moves of the real position `pos` with their weights, scaled by the module's
    /// rule; weight-0 moves are counted and left out.
    pub fn add(&mut self, pos: &Chess, moves: impl IntoIterator<Item = (Move, u64)>) {
        let (moves, weights): (Vec<Move>, Vec<u64>) = moves.into_iter().unzip();
        let key = chess_core::polyglot_key(pos);
        for (m, w) in moves.into_iter().zip(scale_weights(&weights)) {
            if w == 0 {
                self.zero_weight += 1;
                continue;
            }
            self.entries.push(Entry {
                key,
                raw_move: encode_move(m),
                weight: w,
                learn: 0,
            });
        }
    }

    /// Appends what `other` collected, as if its positions had been added here in turn: a
    /// conversion's parts collected on several threads, appended in their order, give the
    /// same entries as one collection.
    pub fn append(&mut self, mut other: EntryCollector) {
        self.entries.append(&mut other.entries);
        self.zero_weight += other.zero_weight;
    }

    /// The entries sorted the canonical way without duplicates, and the number of moves left
    /// out with weight 0.
    pub fn finish(mut self) -> (Vec<Entry>, u64) {
        sort_entries(&mut self.entries);
        self.entries.dedup();
        (self.entries, self.zero_weight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_rule() {
        assert_eq!(scale_weights(&[]), Vec::<u16>::new());
        assert_eq!(scale_weights(&[0, 0]), [0, 0]);
        assert_eq!(scale_weights(&[65_535, 2]), [65_535, 2]);
        assert_eq!(
            scale_weights(&[200_000, 100_000, 1, 0]),
            [65_535, 32_767, 1, 0]
        );
    }
}
