//! Shared chess mechanisms for the chessfmt format crates.
//!
//! One implementation of each mechanism that several chess file formats need:
//!
//! * [`huffman`]: the Huffman board code of CTG and Kvetka books (their framings live in
//!   their crates) and the one rule that turns a stored position back into a `Chess`;
//! * [`normalize`]: positions normalised to White to move, with the transform to map moves
//!   and squares back;
//! * [`relative_move`]: "n-th piece of a kind moves by (dx, dy)" move bytes, with format
//!   tables as data;
//! * [`polyglot_key()`]: the Polyglot Zobrist key;
//! * [`pgn`]: streaming, parallel-friendly PGN game input (plain, gzip, zstd, xz);
//! * [`parts`]: a hash table in parts counted into in parallel (the builders' position
//!   tables);
//! * [`bytes`] and [`error`]: panic-free endian readers and the error vocabulary;
//! * [`parse`]: nom glue for the format crates' record layouts;
//! * [`files`]: byte sources (read, or mapped as an `unsafe` opt-in) and companion-file sets;
//! * [`Wdl`]: wins, draws and losses from one side's view;
//! * [`book`]: the opening-book probe as a trait, the breadth-first book walk and the weight
//!   policy of conversions;
//! * [`atomic`]: atomic file replacement for writers.
//!
//! Public types are shakmaty's ([`shakmaty::Chess`], [`shakmaty::Move`], …).
//!
//! # Example
//!
//! ```
//! use chess_core::{huffman, normalize::normalize, polyglot_key};
//! use shakmaty::{Chess, Position};
//!
//! let pos = Chess::default();
//! assert_eq!(polyglot_key(&pos), 0x463b96181691fc9c);
//!
//! // The Huffman board code (shared by CTG and Kvetka) of the normalised start position.
//! let n = normalize(&pos);
//! let mut bits = huffman::Bits::new();
//! huffman::encode_board(n.position.board(), &mut bits);
//! assert_eq!(bits.len(), 164);
//! ```

// One `unsafe` block in the project: memory-mapping a file (`files::map`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "std")]
pub mod atomic;
pub mod book;
pub mod bytes;
pub mod choice;
pub mod error;
pub mod files;
#[doc(hidden)]
pub mod fuzzing;
pub mod huffman;
pub mod limits;
pub mod normalize;
pub mod parse;
#[cfg(feature = "parallel")]
pub mod parts;
#[cfg(feature = "pgn")]
pub mod pgn;
pub mod polyglot_key;
pub mod relative_move;
pub mod san_fast;
#[cfg(feature = "std")]
pub mod set_lock;
pub mod wdl;

pub use error::{IoError, Located, ParseError};
pub use polyglot_key::polyglot_key;
pub use shakmaty;
pub use wdl::Wdl;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
