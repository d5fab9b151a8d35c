//! Kvetka opening books: `.kob` blocks, the `.kin` index and the `.ksf` sources file.
//!
//! Kvetka's books are the richest of the opening-book formats: win/draw/loss statistics per
//! position, opening names (`ECO|opening|variation` comments) and references back to the
//! games. This crate reads, writes, builds and grows them; the format's facts are in its
//! description (in Russian) and the decisions where it is silent in the chessfmt format notes
//! (section "Kvetka"), both kept beside the repository; each decision lives in one place in
//! the code, with a comment that states it.
//!
//! * [`raw`]: on-disk layout (header, elements, game references); [`codec`]: `CompactInt` and
//!   strings; [`ksf`]: the sources file; [`moves`]: the move table.
//! * [`read`]: [`Book`] — open, look up, [`Book::probe`], scan, [`validate`](validate::validate).
//! * [`write`](mod@write): a complete book from sorted elements; [`build`]: elements from PGN games;
//!   [`grow`]: adding games to an existing book the way Kvetka does; [`convert`]: to and from
//!   Polyglot.
//!
//! ```
//! # #[cfg(feature = "pgn")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use kvetka_book::{Book, build::{BuildOptions, Builder}};
//! use shakmaty::Chess;
//!
//! let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n";
//! let mut builder = Builder::new(BuildOptions::default());
//! builder.add_pgn(chessfmt_pgn::PgnReader::new(&pgn[..]), |_| {})?;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("demo");
//! builder.save(&path, false)?;
//!
//! let book = Book::open(&path)?;
//! let probe = book.probe(&Chess::default())?.expect("the start position is in the book");
//! assert_eq!((probe.stats.wins, probe.stats.draws, probe.stats.losses), (1, 1, 0));
//! let e4 = &probe.moves[0];
//! assert_eq!(e4.mv.to_string(), "e2-e4");
//! // The mover's view: White won one game and drew one after 1. e4.
//! assert_eq!(e4.stats.map(|s| (s.wins, s.draws, s.losses)), Some((1, 1, 0)));
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "pgn"))]
//! # fn main() {}
//! ```

#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[cfg(any(feature = "pgn", feature = "polyglot", feature = "tally"))]
mod accumulate;
#[cfg(feature = "pgn")]
pub mod build;
pub mod codec;
#[cfg(feature = "polyglot")]
pub mod convert;
mod error;
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "pgn")]
pub mod grow;
pub mod ksf;
pub mod moves;
pub mod position;
pub mod raw;
pub mod read;
#[cfg(feature = "tally")]
pub mod tally;
pub mod validate;
pub mod write;

pub use error::{Error, WriteError};
pub use raw::{BLOCK_SIZE, Element, Header, Key, SourceRef};
#[cfg(feature = "std")]
pub use read::FileBook;
pub use read::{Book, BookMove, Comment, Probe, Stats};
pub use shakmaty;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
