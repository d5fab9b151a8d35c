//! Conversion to Polyglot: the family's breadth-first walk from a root position; each
//! position's book moves are weighted by an explicit [`Policy`] and written by
//! `polyglot_book::convert` (its one scaling rule: weights kept when the largest fits 16 bits,
//! else scaled down proportionally; weight-0 moves left out).

use polyglot_book::{Entry, convert::EntryCollector};
use shakmaty::Chess;

use crate::{policy::Policy, read::Book};

/// Counts of a conversion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConvertStats {
    /// Positions visited.
    pub positions: u64,
    /// Entries written.
    pub entries: u64,
    /// Moves left out with weight 0.
    pub zero_weight: u64,
}

/// The Polyglot entries of a book walked from `root` up to `max_ply` plies, sorted the
/// canonical way. With the feature `parallel` (a default), the positions are probed on the
/// current rayon pool; the entries are the same.
pub fn to_polyglot<D: AsRef<[u8]> + Sync>(
    book: &Book<D>,
    root: Chess,
    max_ply: Option<usize>,
    policy: Policy,
) -> (Vec<Entry>, ConvertStats) {
    let mut collector = EntryCollector::new();
    let mut stats = ConvertStats::default();
    // With the feature `parallel`, the probes are made on the current rayon pool.
    for node in chess_core::book::conversion_walk(book, root, max_ply) {
        stats.positions += 1;
        let weights = policy.weights(&node.probe);
        let moves = node.probe.moves.iter().map(|m| m.mv);
        collector.add(&node.position, moves.zip(weights));
    }
    let (entries, zero_weight) = collector.finish();
    stats.entries = entries.len() as u64;
    stats.zero_weight = zero_weight;
    (entries, stats)
}
