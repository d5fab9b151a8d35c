//! Polyglot opening books (`.bin`).
//!
//! A Polyglot book is a sorted array of 16-byte big-endian entries (key, move, weight, learn);
//! see [`raw`]. This crate reads books over any byte slice or a memory-mapped file ([`read`]),
//! decodes moves in board context ([`moves`]: castling is stored king-takes-rook), and writes
//! books atomically in canonical order ([`write`](mod@write)); [`ops`] builds books from PGN
//! byte-for-byte like `polyglot make-book`, merges books, and prints the book tree as
//! `polyglot dump-book` / `info-book` do ([`ops::tree`]).
//!
//! # Examples
//!
//! Read a book from its bytes (what works without default features, on any target):
//!
//! ```
//! use polyglot_book::shakmaty::{Chess, Move, Role, Square};
//! use polyglot_book::{Book, Entry, OpenMode, moves::encode_move, polyglot_key};
//!
//! let start = Chess::default();
//! let e4 = Move::Normal { role: Role::Pawn, from: Square::E2, capture: None, to: Square::E4, promotion: None };
//! let bytes = Entry { key: polyglot_key(&start), raw_move: encode_move(e4), weight: 10, learn: 0 }.to_bytes();
//!
//! let book = Book::new(&bytes[..], OpenMode::Strict)?;
//! let probe = book.probe(&start)?.expect("the start position is in the book");
//! assert_eq!((probe.moves[0].mv, probe.moves[0].weight), (e4, 10));
//! # Ok::<(), polyglot_book::Error>(())
//! ```
//!
//! With the feature `std` (on by default), write a book atomically and open it as a file:
//!
//! ```
//! # #[cfg(feature = "std")]
//! # fn main() -> Result<(), polyglot_book::Error> {
//! use polyglot_book::shakmaty::{Chess, Move, Role, Square};
//! use polyglot_book::{Book, Entry, OpenMode, moves::encode_move, polyglot_key, write};
//!
//! let start = Chess::default();
//! let e4 = Move::Normal { role: Role::Pawn, from: Square::E2, capture: None, to: Square::E4, promotion: None };
//! let entry = Entry { key: polyglot_key(&start), raw_move: encode_move(e4), weight: 10, learn: 0 };
//! let path = std::env::temp_dir().join(format!("polyglot-book-doc-{}.bin", std::process::id()));
//! write::save(&path, &[entry], true)?;
//!
//! let book = Book::open(&path, OpenMode::Strict)?;
//! assert_eq!(book.probe(&start)?.expect("in the book").moves[0].mv, e4);
//! # std::fs::remove_file(&path).ok();
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "std"))]
//! # fn main() {}
//! ```
//!
//! # Features
//!
//! `std` (files), `mmap` ([`Book::open_mapped`], an `unsafe` opt-in), `pgn` (building books
//! from PGN, parallel), `gzip`/`zstd`/`xz` (compressed PGN; zstd and xz are C libraries), all
//! on by default; `tally` (off by default: books from and to the statistics table of
//! `chessfmt-tally`, [`ops::tally`](crate::ops)). `default-features = false` leaves reading and probing books over byte
//! slices: no C code, no threads, no `rand` (choose moves with any `FnMut() -> u64`).
//!
//! The probe shape (`probe(&Chess) -> Result<Option<Probe>, Error>`), the error design
//! (`Error::Io` with the path, `Error::Parse` with the byte offset, [`Located`]) and the
//! shakmaty types are those of every crate of the chessfmt family.

#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod convert;
mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod moves;
pub mod ops;
pub mod raw;
pub mod read;
pub mod write;

pub use chess_core::{Located, polyglot_key};
pub use error::Error;
pub use raw::{ENTRY_SIZE, Entry};
#[cfg(feature = "std")]
pub use read::FileBook;
pub use read::{Book, BookMove, OpenMode, Probe, ProbeFilter, looks_like_book};
pub use shakmaty;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
