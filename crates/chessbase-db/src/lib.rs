//! ChessBase databases (`.cbh` + `.cbg` + `.cba` + `.cbp .cbt .cbc .cbs .cbe` + `.cbj`):
//! header records, games with variations and annotations, and faithful PGN export.
//!
//! * [`raw`]: the on-disk records field for field, each with `parse` and `to_bytes`;
//! * [`entities`]: entity files as arrays and in sorted (AVL in-order) order;
//! * [`header`]: game headers resolved against the entities (names, tournament, result, ECO);
//! * [`moves`] and [`game`]: the move stream of encoding modes 0, 4, 5 and 10 (piece slots,
//!   two-byte moves, null moves, set-up and Chess960 positions, variations) into a
//!   [`MoveTree`];
//! * [`annotations`]: `.cba` texts, symbols, squares, arrows, clocks and the rest;
//! * [`pgn`]: PGN export, sequential or parallel in record order;
//! * [`Database`]: opening by the `.cbh` path, memory-mapped, any letter case.
//!
//! One damaged game is a [`GameError`] naming the game and byte offset; the rest of the
//! database reads normally. The format's facts are in the chessfmt format notes (kept beside the
//! repository, not in it; each decision is also stated where it applies in these docs) (section
//! "ChessBase database") and `specs/cbg-mode-tables.md`.
//!
//! # Example
//!
//! ```no_run
//! # #[cfg(feature = "std")]
//! # fn main() -> Result<(), chessbase_db::Error> {
//! use chessbase_db::{Database, PgnOptions, pgn::game_to_pgn};
//!
//! // Opened by its .cbh; the .cbg, .cba and entity files are found beside it (any case).
//! let db = Database::open("twic1134.cbh")?;
//! println!("{} records", db.len());
//! print!("{}", game_to_pgn(&db, 1, &PgnOptions::default())?);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "std"))]
//! # fn main() {}
//! ```
//!
//! A database can also come from bytes in memory ([`Database::from_files`]):
//!
//! ```
//! use chessbase_db::{Database, Files, raw::CbhHeader};
//!
//! // An empty database: a .cbh header (signature 00 00 2C 00 2E 01) with no records.
//! let header = CbhHeader {
//!     used: 44,
//!     record_size: 46,
//!     version: 1,
//!     next_game: 1,
//!     next_sound: 0,
//!     next_picture: 0,
//!     next_video: 0,
//!     next_game_again: 1,
//! };
//! let cbh = header.to_bytes().to_vec();
//! assert_eq!(cbh[..6], [0x00, 0x00, 0x2c, 0x00, 0x2e, 0x01]);
//! let db = Database::from_files(Files { cbh, ..Files::default() }).unwrap();
//! assert_eq!(db.len(), 0);
//! assert!(!db.is_old_format());
//! ```

//! # Features
//!
//! `std` (files), `mmap` ([`Database::open_mapped`], an `unsafe` opt-in), `parallel` (parallel
//! PGN export with rayon), `archive` (`.cbv`/`.cbz` archives, [`archive`]), `pgn` (importing
//! PGN, [`import`]), all on by default. `default-features = false` reads databases
//! from bytes in memory: no C code, no threads. Errors follow the family's design
//! ([`Located`]: file and byte offset; typed, `#[non_exhaustive]` kinds).

#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod annotations;
#[cfg(feature = "archive")]
pub mod archive;
pub mod db;
pub mod encode;
pub mod entities;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod game;
pub mod header;
#[cfg(feature = "pgn")]
pub mod import;
pub mod kept_tags;
mod limits;
pub mod moves;
pub mod pgn;
pub mod raw;
mod tables;
pub mod text;
pub mod writer;

pub use annotations::{Annotation, Colour, Item};
pub use chess_core::Located;
pub use chess_core::limits::LimitExceeded;
pub use db::{Counts, Database, Files, OpenOptions};
pub use error::{
    ArchiveError, ArchiveProblem, Error, GameError, GameErrorKind, MoveProblem, RecordProblem,
    SetupProblem,
};
pub use game::{Game, MainLine, MoveTree, Node, NodeId, PlainGame, Start};
pub use header::{Eco, GameHeader, Header, Outcome, TextHeader};
pub use limits::Limits;
pub use pgn::{ExportOptions, ExportSummary, PgnOptions};
pub use raw::CBH_RECORD_SIZE;
pub use shakmaty;
pub use text::Date;
pub use text::TextEncoding;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
