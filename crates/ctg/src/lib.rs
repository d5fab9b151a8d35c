//! ChessBase CTG opening books (`.ctg` + `.cto` + `.ctb`): probe, scan, convert and write.
//!
//! A CTG book is Unix ndbm in disguise: position records live in 4096-byte pages of the
//! `.ctg`, the `.cto` maps split-tree nodes to pages and the `.ctb` holds the split bitmap
//! ([`hash`]). Positions are stored normalised to White to move and Huffman-coded
//! (`chess_core::huffman`); moves are relative-move bytes ([`moves`]); each record ends with
//! 33 statistics bytes whose results are those of the stored side to move ([`raw::Stats`]).
//! A move's own statistics live in the record of the position after it, which
//! [`Book::probe`] looks up.
//!
//! Modules: [`raw`] (on-disk layout), [`hash`] (ndbm hash and directory walk), [`moves`] (the
//! move table), [`read`] (open, lookup, scan, probe), [`walk`] (tree walk), [`policy`] (move
//! choice), [`convert`] (to Polyglot), [`write`](mod@write) (page bucketing and the three files) and
//! [`build`] (records from games).
//!
//! The format's facts and the decisions taken are in the chessfmt format notes (kept beside the
//! repository, not in it; each decision is also stated where it applies in these docs) (section
//! "CTG").
//!
//! # Example
//!
//! ```no_run
//! # #[cfg(feature = "std")]
//! # fn main() -> Result<(), ctg::Error> {
//! use ctg::shakmaty::{CastlingMode, Chess};
//!
//! // Any of the three files (or their common name) opens the book; any letter case.
//! let book = ctg::Book::open("Perfect2021.ctg")?;
//! match book.probe(&Chess::default())? {
//!     None => println!("position not in the book"),
//!     Some(probe) => {
//!         for m in &probe.moves {
//!             // Wins, draws and losses of the side playing the move.
//!             let wdl = m.wdl().unwrap_or_default();
//!             println!("{} {} games, +{} ={} -{}", m.mv.to_uci(CastlingMode::Standard),
//!                 wdl.games(), wdl.wins, wdl.draws, wdl.losses);
//!         }
//!     }
//! }
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "std"))]
//! # fn main() {}
//! ```
//!
//! # Features
//!
//! `std` (files), `mmap` ([`Book::open_mapped`], an `unsafe` opt-in), `pgn` (building books
//! from games; implies `parallel`), `parallel` (a book's pages laid out and made on every
//! core with rayon; the bytes are the same without it), `polyglot` (conversion to
//! Polyglot, pulls in `polyglot-book`), all on by default. `default-features = false` leaves reading and probing books over byte slices
//! ([`Book::new`]): no C code, no threads, no `rand` (move choice takes any
//! `FnMut() -> u64`).
//!
//! The probe shape (`probe(&Chess) -> Result<Option<Probe>, Error>`; a damaged page is an
//! error, never "not in the book"), statistics as [`Wdl`] from the mover's view, the error
//! design ([`Located`]) and the shakmaty types are those of every crate of the chessfmt
//! family.

#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[cfg(feature = "pgn")]
pub mod build;
#[cfg(feature = "polyglot")]
pub mod convert;
mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod hash;
pub mod moves;
pub mod policy;
pub mod position;
pub mod raw;
pub mod read;
#[cfg(any(feature = "pgn", feature = "tally"))]
mod runs;
#[cfg(feature = "tally")]
pub mod tally;
pub mod walk;
pub mod write;

pub use chess_core::{Located, Wdl};
pub use error::{Error, WriteError};
pub use raw::{Recommendation, Stats};
#[cfg(feature = "std")]
pub use read::FileBook;
pub use read::{Book, BookMove, Probe, Results};
pub use shakmaty;

/// The file extensions of a CTG book: records, page directory, split bitmap.
pub const EXTENSIONS: [&str; 3] = ["ctg", "cto", "ctb"];

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
