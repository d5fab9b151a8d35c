//! Streaming PGN game input for the chessfmt builders.
//!
//! * [`PgnReader`]: games from any `Read` (plain, or gzip/zstd/xz detected by their magic
//!   bytes, [`decompressed`], [`open_decompressed`]), each replayed into legal moves with
//!   shakmaty; an illegal or malformed game is skipped and counted ([`SkipStats`]), never the
//!   end of the input; every game is bounded by [`chess_core::limits::Limits`];
//! * [`replay_in_order`] (feature `parallel`): games cut into pieces and replayed on rayon's
//!   threads, handed over in input order;
//! * [`parts`] (feature `parallel`): a hash table in parts counted into in parallel (the
//!   builders' position tables);
//! * [`san_fast`]: the SAN-to-move fast path of the replay.
//!
//! ```
//! use chessfmt_pgn::PgnReader;
//!
//! let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n1. e4 Ke7?? *\n";
//! let mut games = PgnReader::new(&pgn[..]).games();
//! assert_eq!(games.next().unwrap().unwrap().moves.len(), 7);
//! assert!(games.next().is_none()); // the second game has an illegal move: skipped
//! assert_eq!(games.skipped().total(), 1);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "parallel")]
pub mod parts;
mod pgn;
pub mod san_fast;

pub use pgn::*;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
