//! Polyglot opening books (`.bin`).
//!
//! A Polyglot book is a sorted array of 16-byte big-endian entries (key, move, weight, learn);
//! see [`raw`]. This crate reads books over any byte slice or a memory-mapped file ([`read`]),
//! decodes moves in board context ([`moves`]: castling is stored king-takes-rook), and writes
//! books atomically in canonical order ([`write`](mod@write)); [`ops`] builds books from PGN
//! byte-for-byte like `polyglot make-book`, merges books, and prints the book tree as
//! `polyglot dump-book` / `info-book` do ([`ops::tree`]).
//!
//! # Example
//!
//! ```
//! use polyglot_book::{Book, Entry, OpenMode, moves::encode_move};
//! use shakmaty::{Chess, Position, Square, Move, Role};
//!
//! let start = Chess::default();
//! let e4 = Move::Normal { role: Role::Pawn, from: Square::E2, capture: None, to: Square::E4, promotion: None };
//! let entry = Entry { key: chess_core::polyglot_key(&start), raw_move: encode_move(e4), weight: 1, learn: 0 };
//! let book = Book::new(entry.to_bytes().to_vec(), OpenMode::Strict)?;
//! let moves = book.probe(&start);
//! assert_eq!(moves[0].mv, e4);
//! # Ok::<(), polyglot_book::Error>(())
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod moves;
pub mod ops;
pub mod raw;
pub mod read;
pub mod write;

pub use error::Error;
pub use raw::{ENTRY_SIZE, Entry};
pub use read::{Book, BookMove, MappedBook, OpenMode, ProbeFilter};
