//! The book as a tree: the family's breadth-first walk ([`chess_core::book::walk`]) from a
//! root position over book moves, yielding real positions (not the normalised ones) with
//! their probes. Each position is visited once (transpositions and colour-mirrored twins are
//! distinct positions and visited on their own; a transposition is visited at the smallest
//! ply it is reached at). A damaged page met on a lookup is counted
//! ([`WalkStats::damaged`]; [`Book::probe`] names the offset) and the walk goes on.

use chess_core::book::{BookProbe, OpeningBook};
use shakmaty::{Chess, Move};

pub use chess_core::book::WalkStats;

use crate::{
    Error,
    read::{Book, Probe},
};

/// A position reached by the walk.
pub type Node = chess_core::book::Node<Probe>;

/// Breadth-first walk: see [`Book::walk`].
pub type Walk<'a, D> = chess_core::book::Walk<'a, Book<D>>;

impl BookProbe for Probe {
    fn book_moves(&self) -> Vec<Move> {
        self.moves.iter().map(|m| m.mv).collect()
    }

    fn undecodable(&self) -> usize {
        self.undecodable.len()
    }
}

impl<D: AsRef<[u8]>> OpeningBook for Book<D> {
    type Probe = Probe;
    type Error = Error;

    fn probe(&self, pos: &Chess) -> Result<Option<Probe>, Error> {
        Book::probe(self, pos)
    }
}

impl<D: AsRef<[u8]>> Book<D> {
    /// Walks the book from `root` breadth-first, following book moves up to `max_ply` plies
    /// (unlimited with `None`).
    pub fn walk(&self, root: Chess, max_ply: Option<usize>) -> Walk<'_, D> {
        chess_core::book::walk(self, root, max_ply)
    }
}
