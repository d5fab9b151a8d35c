//! Conversions between Kvetka and Polyglot books, through the `polyglot-book` crate.
//!
//! **Kvetka → Polyglot.** Every element is decoded to its (White-to-move) position; the book
//! answers for all real positions that normalise to it, so each is written: the position itself,
//! its colour-swapped twin with Black to move and, without castling rights, their mirror
//! images — each only if it normalises back to the element's key. A move's weight is
//! 2·wins + draws **of the mover**, read from the element of the position after the move
//! (mover's wins = that element's losses), as `polyglot make-book` weighs moves; when a
//! position's largest weight exceeds 65535 its weights are scaled down proportionally. Moves of
//! weight 0 are left out, as Polyglot tools skip them.
//!
//! **Polyglot → Kvetka.** A Polyglot book has no results, only weights, and its keys cannot be
//! decoded, so positions are found by walking the book from the start position. Each visited
//! position gets an element with its book moves (codable ones); the weight of a move is stored
//! as **draws** of the position after it (summed over the moves that reach it), so converting
//! back gives the same weights (2·0 + draws).

use std::collections::{HashMap, VecDeque};

use chess_core::normalize::Transform;
use polyglot_book::{Entry, moves::encode_move, write::sort_entries};
use shakmaty::{Chess, Position};

use crate::{
    Book, Error,
    build::{Acc, element_of},
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

/// The Polyglot entries of a Kvetka book, sorted the canonical way (see the module notes).
pub fn to_polyglot<D: AsRef<[u8]>>(book: &Book<D>) -> Result<(Vec<Entry>, ConvertStats), Error> {
    let mut stats = ConvertStats::default();
    let mut entries = Vec::new();
    for e in book.elements() {
        let (_, e) = e?;
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
            let w = match position::key_of(&child) {
                Some(k) => book
                    .stats(&k)?
                    .map_or(0, |s| 2u64.saturating_mul(s.losses).saturating_add(s.draws)),
                None => 0,
            };
            weighted.push((m, w));
        }
        let top = weighted.iter().map(|&(_, w)| w).max().unwrap_or(0);
        let scale = |w: u64| {
            if top <= u64::from(u16::MAX) || w == 0 {
                w
            } else {
                ((u128::from(w) * u128::from(u16::MAX) / u128::from(top)) as u64).max(1)
            }
        };
        for t in MIRRORS {
            if t.mirror_files && pos.castles().any() {
                continue;
            }
            let Some(real) = t.apply(&pos) else { continue };
            if position::key_of(&real) != Some(e.key) {
                continue;
            }
            let key = chess_core::polyglot_key(&real);
            for &(m, w) in &weighted {
                if w == 0 {
                    stats.zero_weight += 1;
                    continue;
                }
                entries.push(Entry {
                    key,
                    raw_move: encode_move(t.apply_move(m)),
                    weight: scale(w) as u16,
                    learn: 0,
                });
            }
        }
    }
    sort_entries(&mut entries);
    entries.dedup();
    stats.moves = entries.len() as u64;
    Ok((entries, stats))
}

/// The elements (sorted by key) of a Polyglot book walked from `root` (see the module notes).
pub fn from_polyglot<D: AsRef<[u8]>>(
    book: &polyglot_book::Book<D>,
    root: Chess,
) -> (Vec<Element>, ConvertStats) {
    let mut stats = ConvertStats::default();
    let mut accs: HashMap<Key, Acc> = HashMap::new();
    let mut expanded: std::collections::HashSet<Key> = std::collections::HashSet::new();
    let mut queue = VecDeque::from([root]);
    while let Some(pos) = queue.pop_front() {
        let Some(key) = position::key_of(&pos) else {
            continue;
        };
        if !expanded.insert(key) {
            continue;
        }
        let book_moves = book.moves(&pos);
        if book_moves.is_empty() && accs.contains_key(&key) {
            continue;
        }
        stats.positions += 1;
        accs.entry(key).or_default();
        for bm in book_moves {
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
            let acc = accs.get_mut(&key).expect("inserted above");
            if !acc.moves.contains(&code) {
                acc.moves.push(code);
                stats.moves += 1;
            }
            accs.entry(child_key).or_default().draws += u64::from(bm.weight);
            queue.push_back(child);
        }
    }
    let mut elements: Vec<Element> = accs.into_iter().map(|(k, a)| element_of(k, a)).collect();
    elements.sort_unstable_by_key(|e| e.key);
    (elements, stats)
}
