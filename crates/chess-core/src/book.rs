//! What the opening-book crates of the family share: the probe shape as a trait, the
//! breadth-first walk over book moves, and the weight policy of conversions.
//!
//! Every book crate (`polyglot-book`, `ctg`, `kvetka-book`) implements [`OpeningBook`] for its
//! `Book`: `probe(&Chess) -> Result<Option<Probe>, Error>` (`None` = the position is not in the
//! book; a damaged record is an error, never "not in the book"), and its `Probe` lists the book
//! moves on the real board ([`BookProbe`]). On that, [`walk`] visits a book breadth-first from
//! any root, once per position, and conversions weigh moves with one [`WeightPolicy`].
//!
//! # The builder contract
//!
//! Each book crate builds books from games the same way, in its `build::Builder`:
//!
//! * `Builder::new(BuildOptions)`: the options are a `#[non_exhaustive]` struct with
//!   `Default` and `with_*` methods (a memory ceiling, where the builder can spill, is one of
//!   them: [`MemoryLimit`]);
//! * `add_game(&RawGame)` counts one game (replayed there; an illegal game is skipped and
//!   counted in the statistics), `add_pgn(input, progress)` every game of a PGN input (a
//!   stream or bytes, plain or compressed), returning the games it left out;
//! * `stats()` says what was counted; `finish()` gives the book in memory, `save(path,
//!   overwrite)` writes it (atomically, refusing to replace a file unless `overwrite`).
//!
//! Threads: a builder works on the caller's rayon pool (`pool.install(|| builder.add_pgn(…))`
//! bounds it; without one, rayon's global pool). The same contract holds for the other
//! parallel jobs of the family (the ChessBase export): the caller's pool, never one the
//! library builds behind its back.
//!
//! ```
//! use chess_core::book::{BookProbe, OpeningBook, walk};
//! use shakmaty::{Chess, Move, Position};
//!
//! /// A toy book: every position before ply 2 has all its legal moves.
//! struct Everything;
//! struct Moves(Vec<Move>);
//! impl BookProbe for Moves {
//!     fn book_moves(&self) -> Vec<Move> {
//!         self.0.clone()
//!     }
//! }
//! impl OpeningBook for Everything {
//!     type Probe = Moves;
//!     type Error = std::convert::Infallible;
//!     fn probe(&self, pos: &Chess) -> Result<Option<Moves>, Self::Error> {
//!         Ok(Some(Moves(pos.legal_moves().to_vec())))
//!     }
//! }
//!
//! let mut w = walk(&Everything, Chess::default(), Some(2));
//! let nodes = w.by_ref().count();
//! assert_eq!(nodes, 1 + 20 + 400);
//! assert_eq!(w.stats().in_book, 421);
//! ```

use std::collections::{HashSet, VecDeque};

use shakmaty::{Chess, EnPassantMode, Move, Position, zobrist::Zobrist128};

use crate::Wdl;

/// What a probe answers that the family's shared operations need.
pub trait BookProbe {
    /// The book moves on the real board, in the book's order.
    fn book_moves(&self) -> Vec<Move>;

    /// Stored moves that decode to no legal move (0 for formats without codes).
    fn undecodable(&self) -> usize {
        0
    }
}

/// An opening book: the one probe shape of the family.
pub trait OpeningBook {
    /// The crate's probe answer.
    type Probe: BookProbe;
    /// The crate's error.
    type Error;

    /// The book's answer for `pos`: `Ok(None)` when the position is not in the book.
    fn probe(&self, pos: &Chess) -> Result<Option<Self::Probe>, Self::Error>;
}

/// A position reached by [`walk`].
#[derive(Debug, Clone)]
pub struct Node<P> {
    /// The real position.
    pub position: Chess,
    /// Plies from the root.
    pub ply: usize,
    /// What the book says about it.
    pub probe: P,
}

/// Counts of a finished or running walk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WalkStats {
    /// Distinct positions reached (the root and every position a book move leads to, in the
    /// book or not, within the ply limit).
    pub reached: u64,
    /// Positions found in the book (the nodes yielded).
    pub in_book: u64,
    /// Book moves of the yielded nodes.
    pub moves: u64,
    /// Stored moves that decode to no legal move.
    pub undecodable: u64,
    /// Positions whose probe failed (a damaged record; skipped, the walk goes on).
    pub damaged: u64,
}

/// The breadth-first walk of [`walk`].
#[derive(Debug)]
pub struct Walk<'a, B> {
    book: &'a B,
    queue: VecDeque<(Chess, usize)>,
    seen: HashSet<u128>,
    max_ply: Option<usize>,
    stats: WalkStats,
}

fn identity(pos: &Chess) -> u128 {
    pos.zobrist_hash::<Zobrist128>(EnPassantMode::Legal).0
}

/// Walks `book` from `root` breadth-first over book moves, up to `max_ply` plies (unlimited
/// with `None`), yielding each position found in the book once: transpositions are visited at
/// the smallest ply they are reached at; colour-mirrored twins are distinct positions. A probe
/// that fails is counted in [`WalkStats::damaged`] and its position skipped.
pub fn walk<B: OpeningBook>(book: &B, root: Chess, max_ply: Option<usize>) -> Walk<'_, B> {
    let mut seen = HashSet::new();
    seen.insert(identity(&root));
    Walk {
        book,
        queue: VecDeque::from([(root, 0)]),
        seen,
        max_ply,
        stats: WalkStats {
            reached: 1,
            ..WalkStats::default()
        },
    }
}

impl<B> Walk<'_, B> {
    /// The counts so far (final once the iterator is exhausted).
    pub fn stats(&self) -> WalkStats {
        self.stats
    }
}

impl<B: OpeningBook> Walk<'_, B> {
    /// Takes in the answer for a queued position: counts it, queues its children within the
    /// ply limit (each position once) and gives its node, or `None` where the position is not
    /// in the book or its probe failed.
    fn visit(
        &mut self,
        position: Chess,
        ply: usize,
        probe: Result<Option<B::Probe>, B::Error>,
    ) -> Option<Node<B::Probe>> {
        let probe = match probe {
            Ok(Some(p)) => p,
            Ok(None) => return None,
            Err(_) => {
                self.stats.damaged += 1;
                return None;
            }
        };
        let moves = probe.book_moves();
        self.stats.in_book += 1;
        self.stats.moves += moves.len() as u64;
        self.stats.undecodable += probe.undecodable() as u64;
        if self.max_ply.is_none_or(|m| ply < m) {
            for m in moves {
                let mut child = position.clone();
                child.play_unchecked(m);
                if self.seen.insert(identity(&child)) {
                    self.stats.reached += 1;
                    self.queue.push_back((child, ply + 1));
                }
            }
        }
        Some(Node {
            position,
            ply,
            probe,
        })
    }
}

impl<B: OpeningBook> Iterator for Walk<'_, B> {
    type Item = Node<B::Probe>;

    fn next(&mut self) -> Option<Self::Item> {
        while let Some((position, ply)) = self.queue.pop_front() {
            let probe = self.book.probe(&position);
            if let Some(node) = self.visit(position, ply, probe) {
                return Some(node);
            }
        }
        None
    }
}

#[cfg(feature = "parallel")]
impl<'a, B> Walk<'a, B>
where
    B: OpeningBook + Sync,
    B::Probe: Send,
    B::Error: Send,
{
    /// The same walk with the probes made on the current rayon pool, up to `batch` queued
    /// positions at a time: the same nodes in the same order, and the same counts (a
    /// position's probe does not depend on the walk, and the answers are taken in in queue
    /// order, as [`Walk::next`] takes them).
    pub fn in_parallel(self, batch: usize) -> ParallelWalk<'a, B> {
        ParallelWalk {
            walk: self,
            batch: batch.max(1),
            ready: VecDeque::new(),
        }
    }
}

/// The walk of a book's conversion ([`conversion_walk`]): the walk with its probes on the
/// rayon pool (`ParallelWalk`) with the feature `parallel`, else [`Walk`].
#[cfg(feature = "parallel")]
pub type ConversionWalk<'a, B> = ParallelWalk<'a, B>;
/// The walk of a book's conversion ([`conversion_walk`]): the walk with its probes on the
/// rayon pool (`ParallelWalk`) with the feature `parallel`, else [`Walk`].
#[cfg(not(feature = "parallel"))]
pub type ConversionWalk<'a, B> = Walk<'a, B>;

/// Positions whose probes a conversion's walk makes at once on the rayon pool (feature
/// `parallel`): a few milliseconds of probing a batch, against the pool's microseconds to
/// fork and join.
pub const CONVERSION_BATCH: usize = 1024;

/// [`walk`] for a conversion of a whole book (to another format, to a table): with the
/// feature `parallel`, its probes made on the current rayon pool, [`CONVERSION_BATCH`]
/// positions at a time (`Walk::in_parallel`) — the same nodes in the same order, the same
/// counts.
pub fn conversion_walk<B>(book: &B, root: Chess, max_ply: Option<usize>) -> ConversionWalk<'_, B>
where
    B: OpeningBook + Sync,
    B::Probe: Send,
    B::Error: Send,
{
    let walk = walk(book, root, max_ply);
    #[cfg(feature = "parallel")]
    let walk = walk.in_parallel(CONVERSION_BATCH);
    walk
}

/// [`Walk::in_parallel`]: the walk's probes a batch at a time on the rayon pool.
#[cfg(feature = "parallel")]
#[derive(Debug)]
pub struct ParallelWalk<'a, B: OpeningBook> {
    walk: Walk<'a, B>,
    batch: usize,
    ready: VecDeque<Node<B::Probe>>,
}

#[cfg(feature = "parallel")]
impl<B: OpeningBook> ParallelWalk<'_, B> {
    /// The counts so far (final once the iterator is exhausted).
    pub fn stats(&self) -> WalkStats {
        self.walk.stats
    }
}

#[cfg(feature = "parallel")]
impl<B> Iterator for ParallelWalk<'_, B>
where
    B: OpeningBook + Sync,
    B::Probe: Send,
    B::Error: Send,
{
    type Item = Node<B::Probe>;

    fn next(&mut self) -> Option<Self::Item> {
        use rayon::prelude::*;
        while self.ready.is_empty() && !self.walk.queue.is_empty() {
            let n = self.batch.min(self.walk.queue.len());
            let queued: Vec<(Chess, usize)> = self.walk.queue.drain(..n).collect();
            let book = self.walk.book;
            let probes: Vec<_> = queued.par_iter().map(|(p, _)| book.probe(p)).collect();
            for ((position, ply), probe) in queued.into_iter().zip(probes) {
                if let Some(node) = self.walk.visit(position, ply, probe) {
                    self.ready.push_back(node);
                }
            }
        }
        self.ready.pop_front()
    }
}

/// How a conversion weighs a book move from the results of the games that played it, seen
/// from the mover's side (`None` when the book has no results for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[non_exhaustive]
pub enum WeightPolicy {
    /// `2·wins + draws` of the mover: the convention of `polyglot make-book`.
    #[default]
    Score,
    /// Games played with the move.
    Games,
    /// Every move weighs 1 (results ignored).
    Uniform,
}

impl WeightPolicy {
    /// The weight of a move whose games ended `mover` for the side that played it.
    pub fn weight(self, mover: Option<Wdl>) -> u64 {
        match self {
            WeightPolicy::Score => {
                mover.map_or(0, |w| w.wins.saturating_mul(2).saturating_add(w.draws))
            }
            WeightPolicy::Games => mover.map_or(0, Wdl::games),
            WeightPolicy::Uniform => 1,
        }
    }
}

/// One stored move of a normalised book (CTG, Kvetka) decoded by [`normalised_moves`].
#[derive(Debug, Clone)]
pub struct NormalisedMove<C> {
    /// The stored code.
    pub code: C,
    /// The move on the real (probed) board.
    pub real: Move,
    /// The position after the move on the normalised board (whose own key the book looks up
    /// for the move's statistics).
    pub child: Chess,
}

/// The probe of a book that stores positions normalised to White to move, written once for
/// CTG and Kvetka: each stored code is decoded by `decode` among the legal moves of the
/// normalised `position`, played there (the child whose statistics the book holds), and
/// mapped back to the real board by `transform` (from
/// [`normalize`](crate::normalize::normalize)). A code that decodes to no legal move is
/// yielded as `Err(code)`, in stored order with the others.
pub fn normalised_moves<'a, C: Copy + 'a>(
    position: &'a Chess,
    transform: crate::normalize::Transform,
    codes: impl IntoIterator<Item = C> + 'a,
    decode: impl Fn(&Chess, &[Move], C) -> Option<Move> + 'a,
) -> impl Iterator<Item = Result<NormalisedMove<C>, C>> + 'a {
    let legal = position.legal_moves();
    codes.into_iter().map(move |code| {
        let m = decode(position, &legal, code).ok_or(code)?;
        let mut child = position.clone();
        child.play_unchecked(m);
        Ok(NormalisedMove {
            code,
            real: transform.apply_move(m),
            child,
        })
    })
}

/// A memory ceiling for a book build: the builder keeps its tables near `bytes` and spills
/// sorted runs to temporary files in `dir` beyond it (put them on a disk, not a RAM-backed
/// `/tmp`). The book is the one an unlimited build gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryLimit {
    /// The ceiling, in bytes.
    pub bytes: usize,
    /// Where the temporary runs go.
    pub dir: std::path::PathBuf,
}

impl MemoryLimit {
    /// A ceiling of `bytes`, spilling to `dir`.
    pub fn new(bytes: usize, dir: impl Into<std::path::PathBuf>) -> MemoryLimit {
        MemoryLimit {
            bytes,
            dir: dir.into(),
        }
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::*;

    /// A book of every legal move, but for positions it does not hold (a sixth of them by
    /// key) and positions whose probe fails (another sixth).
    struct Patchy;
    struct Moves(Vec<Move>);
    impl BookProbe for Moves {
        fn book_moves(&self) -> Vec<Move> {
            self.0.clone()
        }
        fn undecodable(&self) -> usize {
            self.0.len() % 2
        }
    }
    impl OpeningBook for Patchy {
        type Probe = Moves;
        type Error = ();
        fn probe(&self, pos: &Chess) -> Result<Option<Moves>, ()> {
            match identity(pos) % 6 {
                0 => Ok(None),
                1 => Err(()),
                _ => Ok(Some(Moves(pos.legal_moves().to_vec()))),
            }
        }
    }

    /// The parallel walk gives the sequential walk's nodes, in its order, and its counts,
    /// whatever the batch.
    #[test]
    fn the_parallel_walk_is_the_walk() {
        let nodes = |w: &mut dyn Iterator<Item = Node<Moves>>| {
            w.map(|n| (identity(&n.position), n.ply, n.probe.0))
                .collect::<Vec<_>>()
        };
        let mut sequential = walk(&Patchy, Chess::default(), Some(3));
        let expected = nodes(&mut sequential);
        let stats = sequential.stats();
        assert!(expected.len() > 1_000, "{}", expected.len());
        assert!(stats.damaged > 100 && stats.reached > stats.in_book + stats.damaged);
        for batch in [0, 1, 7, 64, 100_000] {
            let mut parallel = walk(&Patchy, Chess::default(), Some(3)).in_parallel(batch);
            assert!(nodes(&mut parallel) == expected, "batch {batch}");
            assert_eq!(parallel.stats(), stats, "batch {batch}");
        }
    }
}
