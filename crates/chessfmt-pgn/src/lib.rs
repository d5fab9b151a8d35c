//! Streaming PGN game input for the chessfmt builders.
//!
//! * [`PgnReader`]: games from any `Read` (plain, or gzip/zstd/xz detected by their magic
//!   bytes, [`decompressed`], [`open_decompressed`]), each replayed into legal moves with
//!   shakmaty; an illegal or malformed game is skipped and counted ([`SkipStats`]), never the
//!   end of the input; every game is bounded by [`Limits`];
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
//!
//! # How reading works
//!
//! [`PgnReader`] streams games from any [`Read`](std::io::Read) (or a path: `.pgn`, `.pgn.gz`,
//! `.pgn.zst`, `.pgn.xz`, recognised by their magic bytes). Reading is split in two steps so that
//! the expensive one can run in parallel:
//!
//! 1. [`PgnReader::next_raw`] tokenises one game into a [`RawGame`] (headers, SAN tokens,
//!    termination marker, byte span): cheap, sequential.
//! 2. [`RawGame::resolve`] plays the moves on the start position (`[FEN]`/`[SetUp]`, Chess960
//!    from `[Variant]`) and yields a [`Game`] with shakmaty [`Move`](shakmaty::Move)s, or a
//!    [`GameError`] saying why the game is unusable. `RawGame` is `Send`: hand batches to rayon
//!    workers and collect in order.
//!
//! [`PgnReader::games`] does both in one iterator that skips bad games and counts them by
//! reason in [`SkipStats`]; only I/O errors end it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cut;
mod decompress;
mod fen;
#[doc(hidden)]
pub mod fuzzing;
mod game;
mod limits;
#[cfg(feature = "parquet")]
mod parquet_games;
#[cfg(feature = "parallel")]
pub mod parts;
mod reader;
mod replay;
pub mod san_fast;
mod window;

pub use cut::*;
pub use decompress::*;
pub use fen::*;
pub use game::*;
pub use limits::Limits;
#[cfg(feature = "parquet")]
pub use parquet_games::ParquetGames;
pub use reader::*;
pub use replay::*;
pub use window::{NextWindow, PgnWindow, PgnWindows};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
