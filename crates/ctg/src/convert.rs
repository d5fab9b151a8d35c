//! Conversion to Polyglot: a tree walk from the start position; each position's book moves
//! are weighted by a [`Policy`] and scaled so the position's largest weight is 65535; moves of
//! weight 0 are left out. Entries are written with the `polyglot-book` crate.

use polyglot_book::{Entry, moves::encode_move, write::sort_entries};
use shakmaty::Chess;

use crate::{
    policy::{Policy, scale},
    read::Book,
};

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
/// canonical way.
pub fn to_polyglot<D: AsRef<[u8]>>(
    book: &Book<D>,
    root: Chess,
    max_ply: Option<usize>,
    policy: Policy,
) -> (Vec<Entry>, ConvertStats) {
    let mut entries = Vec::new();
    let mut stats = ConvertStats::default();
    for node in book.walk(root, max_ply) {
        stats.positions += 1;
        let key = chess_core::polyglot_key(&node.position);
        let weights = scale(&policy.weights(&node.probe), u64::from(u16::MAX));
        for (m, w) in node.probe.moves.iter().zip(weights) {
            if w == 0 {
                stats.zero_weight += 1;
                continue;
            }
            entries.push(Entry {
                key,
                raw_move: encode_move(m.mv),
                weight: w as u16,
                learn: 0,
            });
        }
    }
    sort_entries(&mut entries);
    stats.entries = entries.len() as u64;
    (entries, stats)
}
