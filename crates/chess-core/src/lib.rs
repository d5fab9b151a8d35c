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
//! * [`bytes`] and [`error`]: panic-free endian readers and the error vocabulary;
//! * [`Wdl`]: wins, draws and losses from one side's view;
//! * [`book`]: the opening-book probe as a trait, the breadth-first book walk and the weight
//!   policy of conversions;
//! * [`limits`]: the error at a reader's resource limit, and the family's memory bounds;
//! * [`movetext`]: PGN movetext with line wrapping, the one writer of the PGN exporters.
//!
//! Two sibling crates hold what not every user needs: `chessfmt-pgn` (PGN game input: reading,
//! decompression, parallel replay) and `chessfmt-files` (byte sources, companion-file sets and
//! the journaled commit of multi-file sets). This crate has no C code and no I/O of its
//! own (it builds for `wasm32-unknown-unknown`), and no threads but with its one feature,
//! `parallel` (off by default): `book::Walk::in_parallel` probes a walk's positions on the
//! caller's rayon pool.
//!
//! # Stability
//!
//! The encodings are data that files on disk depend on, so they are promised more than the
//! API: within 0.x, the bytes of the Huffman board code ([`huffman`]), the Polyglot key
//! ([`polyglot_key()`]), the normalisation ([`normalize`]) and the relative-move tables
//! ([`relative_move`]) never change for the same input; a change would be a new function,
//! not a new meaning. Each is pinned by tests against the reference files. The API itself
//! follows SemVer (before 1.0, a minor version may break it, said in the CHANGELOG); the nom
//! glue of the format crates (`parse`) is hidden and outside the promise.
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

// The one `unsafe` block: the processor's prefetch hint (`prefetch`), with its reason.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod book;
pub mod bytes;
pub mod choice;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod huffman;
pub mod limits;
pub mod movetext;
pub mod normalize;
// nom glue of the format crates' raw layers: outside the stable API (it shows nom's types).
#[doc(hidden)]
pub mod parse;
pub mod polyglot_key;
pub mod prefetch;
pub mod relative_move;
pub mod wdl;

pub use error::{IoError, Located, ParseError};
pub use polyglot_key::polyglot_key;
pub use shakmaty;
pub use wdl::Wdl;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
