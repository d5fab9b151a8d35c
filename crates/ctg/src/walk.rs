//! The book as a tree: a breadth-first walk from a root position over book moves, yielding
//! real positions (not the normalised ones) with their probes. Each position is visited once
//! (transpositions and colour-mirrored twins are distinct positions and visited on their own;
//! a transposition is visited at the smallest ply it is reached at).

use std::collections::{HashSet, VecDeque};

use shakmaty::{Chess, EnPassantMode, Position, zobrist::Zobrist128};

use crate::read::{Book, Probe};

/// A position reached by the walk.
#[derive(Debug, Clone)]
pub struct Node {
    /// The real position.
    pub position: Chess,
    /// Plies from the root.
    pub ply: usize,
    /// What the book says about it.
    pub probe: Probe,
}

/// Counts of a finished or running walk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Distinct positions reached (the root and every position a book move leads to, in the
    /// book or not, within the ply limit).
    pub reached: u64,
    /// Positions found in the book (the nodes yielded).
    pub in_book: u64,
    /// Book moves of the yielded nodes.
    pub moves: u64,
    /// Stored move codes that decode to no legal move.
    pub undecodable: u64,
    /// Positions whose lookup met a damaged page (skipped; [`Book::probe`] names the offset).
    pub damaged: u64,
}

/// Breadth-first walk: see [`Book::walk`].
#[derive(Debug)]
pub struct Walk<'a, D> {
    book: &'a Book<D>,
    queue: VecDeque<(Chess, usize)>,
    seen: HashSet<u128>,
    max_ply: Option<usize>,
    stats: WalkStats,
}

fn key(pos: &Chess) -> u128 {
    pos.zobrist_hash::<Zobrist128>(EnPassantMode::Legal).0
}

impl<D: AsRef<[u8]>> Book<D> {
    /// Walks the book from `root` breadth-first, following book moves up to `max_ply` plies
    /// (unlimited with `None`).
    pub fn walk(&self, root: Chess, max_ply: Option<usize>) -> Walk<'_, D> {
        let mut seen = HashSet::new();
        seen.insert(key(&root));
        let mut queue = VecDeque::new();
        queue.push_back((root, 0));
        Walk {
            book: self,
            queue,
            seen,
            max_ply,
            stats: WalkStats {
                reached: 1,
                ..WalkStats::default()
            },
        }
    }
}

impl<D> Walk<'_, D> {
    /// The counts so far (final once the iterator is exhausted).
    pub fn stats(&self) -> WalkStats {
        self.stats
    }
}

impl<D: AsRef<[u8]>> Iterator for Walk<'_, D> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        while let Some((position, ply)) = self.queue.pop_front() {
            let probe = match self.book.probe(&position) {
                Ok(Some(p)) => p,
                Ok(None) => continue,
                Err(_) => {
                    self.stats.damaged += 1;
                    continue;
                }
            };
            self.stats.in_book += 1;
            self.stats.moves += probe.moves.len() as u64;
            self.stats.undecodable += probe.undecodable.len() as u64;
            if self.max_ply.is_none_or(|m| ply < m) {
                for m in &probe.moves {
                    let mut child = position.clone();
                    child.play_unchecked(m.mv);
                    if self.seen.insert(key(&child)) {
                        self.stats.reached += 1;
                        self.queue.push_back((child, ply + 1));
                    }
                }
            }
            return Some(Node {
                position,
                ply,
                probe,
            });
        }
        None
    }
}
