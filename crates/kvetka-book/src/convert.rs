//! Conversions between Kvetka and Polyglot books, through the `polyglot-book` crate.
//!
//! **Kvetka → Polyglot.** Every element is decoded to its (White-to-move) position; the book
//! answers for all real positions that normalise to it, so each is written: the position itself,
//! its colour-swapped twin with Black to move and, without castling rights, their mirror
//! images — each only if it normalises back to the element's key. A move's weight comes from
//! an explicit [`WeightPolicy`] over the results **of the mover**, read from the element of
//! the position after the move (mover's wins = that element's losses); the default,
//! [`WeightPolicy::Score`], is 2·wins + draws as `polyglot make-book` weighs moves. Entries
//! are written by `polyglot_book::convert` with the family's one scaling rule (weights kept
//! when a position's largest fits 16 bits, else scaled down proportionally; weight-0 moves
//! left out, as Polyglot tools skip them).
//!
//! **Polyglot → Kvetka.** A Polyglot book has no results, only weights, and its keys cannot be
//! decoded, so positions are found by the family's breadth-first walk
//! ([`chess_core::book::walk`]) from the start position. Each visited
//! position gets an element with its book moves (codable ones); the weight of a move is stored
//! as **draws** of the position after it (summed over the moves that reach it), so converting
//! back gives the same weights (2·0 + draws).

use std::collections::{HashMap, HashSet};

use chess_core::{book::WeightPolicy, normalize::Transform};
use polyglot_book::{Entry, convert::EntryCollector};
use shakmaty::{Chess, Position};

use crate::{
    Book, Error,
    accumulate::{Acc, element_of},
    moves, position,
    raw::{Element, Key},
};

/// Counts of a conversion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConvertStats {
    /// Positions (elements or Polyglot positions) converted.
    pub positions: u64,
    /// Entries or element moves written.
    pub moves: u64,
    /// Moves left out with weight 0 (to Polyglot).
    pub zero_weight: u64,
    /// Moves that could not be decoded or coded.
    pub skipped_moves: u64,
    /// Elements whose key is not a legal position (to Polyglot).
    pub skipped_positions: u64,
}

const MIRRORS: [Transform; 4] = [
    Transform {
        flip_colors: false,
        mirror_files: false,
    },
    Transform {
        flip_colors: true,
        mirror_files: false,
    },
    Transform {
        flip_colors: false,
        mirror_files: true,
    },
    Transform {
        flip_colors: true,
        mirror_files: true,
    },
];

/// The Polyglot entries of a Kvetka book with move weights by `policy`, sorted the canonical
/// way (see the module notes). With the feature `parallel` (a default), the blocks are
/// converted on the current rayon pool, 256 at a time, and collected in block order: the same
/// entries, and the same first error of a damaged book.
pub fn to_polyglot<D: AsRef<[u8]> + Sync>(
    book: &Book<D>,
    policy: WeightPolicy,
) -> Result<(Vec<Entry>, ConvertStats), Error> {
    let mut stats = ConvertStats::default();
    let mut collector = EntryCollector::new();
    let blocks = book.block_count();
    for first in (0..blocks).step_by(BLOCKS_AT_ONCE) {
        let range = first..(first + BLOCKS_AT_ONCE).min(blocks);
        let convert = |b| block_to_polyglot(book, b, policy);
        #[cfg(feature = "parallel")]
        let parts: Vec<_> = {
            use rayon::prelude::*;
            range.into_par_iter().map(convert).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let parts: Vec<_> = range.map(convert).collect();
        for part in parts {
            let (part, s) = part?;
            collector.append(part);
            stats.positions += s.positions;
            stats.skipped_moves += s.skipped_moves;
            stats.skipped_positions += s.skipped_positions;
        }
    }
    let (entries, zero_weight) = collector.finish();
    stats.zero_weight = zero_weight;
    stats.moves = entries.len() as u64;
    Ok((entries, stats))
}

/// Blocks [`to_polyglot`] converts at once (a few MB of entries): the pool's share of work
/// between two collections in order.
const BLOCKS_AT_ONCE: usize = 256;

/// The entries of the elements of block `b` (see [`to_polyglot`]), with their counts.
fn block_to_polyglot<D: AsRef<[u8]>>(
    book: &Book<D>,
    b: usize,
    policy: WeightPolicy,
) -> Result<(EntryCollector, ConvertStats), Error> {
    let mut stats = ConvertStats::default();
    let mut collector = EntryCollector::new();
    for (_, e) in book.block_elements(b)? {
        let Some(pos) = position::position_of(&e.key) else {
            stats.skipped_positions += 1;
            continue;
        };
        stats.positions += 1;
        let legal = pos.legal_moves();
        let mut weighted = Vec::with_capacity(e.moves.len());
        for &code in &e.moves {
            let Some(m) = moves::decode_among(&pos, &legal, code) else {
                stats.skipped_moves += 1;
                continue;
            };
            let mut child = pos.clone();
            child.play_unchecked(m);
            let mover = match position::key_of(&child) {
                Some(k) => book.stats(&k)?.map(|s| s.flipped()),
                None => None,
            };
            weighted.push((m, policy.weight(mover)));
        }
        for t in MIRRORS {
            if t.mirror_files && pos.castles().any() {
                continue;
            }
            let Some(real) = t.apply(&pos) else { continue };
            if position::key_of(&real) != Some(e.key) {
                continue;
            }
            collector.add(&real, weighted.iter().map(|&(m, w)| (t.apply_move(m), w)));
        }
    }
    Ok((collector, stats))
}

/// The elements (sorted by key) of a Polyglot book walked from `root` (see the module notes).
pub fn from_polyglot<D: AsRef<[u8]>>(
    book: &polyglot_book::Book<D>,
    root: Chess,
) -> (Vec<Element>, ConvertStats) {
    let mut stats = ConvertStats::default();
    let mut accs: HashMap<Key, Acc> = HashMap::new();
    let mut expanded: HashSet<Key> = HashSet::new();
    if let Some(key) = position::key_of(&root) {
        // The root has an element even when the book does not know it.
        accs.entry(key).or_default();
    }
    for node in chess_core::book::walk(book, root, None) {
        let pos = node.position;
        // Colour-mirrored twins share an element: the first one reached fills it.
        let Some(key) = position::key_of(&pos) else {
            continue;
        };
        if !expanded.insert(key) {
            continue;
        }
        stats.positions += 1;
        accs.entry(key).or_default();
        for bm in node.probe.moves {
            let Some(code) = moves::encode_real(&pos, bm.mv) else {
                stats.skipped_moves += 1;
                continue;
            };
            let mut child = pos.clone();
            child.play_unchecked(bm.mv);
            let Some(child_key) = position::key_of(&child) else {
                stats.skipped_moves += 1;
                continue;
            };
            let acc = accs.entry(key).or_default();
            if acc.moves.add_new(code) {
                stats.moves += 1;
            }
            accs.entry(child_key).or_default().draws += u64::from(bm.weight);
        }
    }
    let mut elements: Vec<Element> = accs.into_iter().map(|(k, a)| element_of(k, a)).collect();
    elements.sort_unstable_by_key(|e| e.key);
    (elements, stats)
}
