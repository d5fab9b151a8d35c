//! Monty self-play training data: the policy format and the sister value format.
//!
//! A file is a sequence of games: a 43-byte header (packed bitboards, side to move, raw ep
//! byte, castling bits, clocks, four rook files, result), then per move a 16-bit move code, a
//! 16-bit score of the side to move, a count byte n and n visit bytes (in ascending move-code
//! order over the legal moves), then a zero terminator. Reading comes in tiers:
//!
//! 1. [`frame::frames`]: game byte spans without move generation (a truncated last game is
//!    reported);
//! 2. [`frame::GameView`]: header fields and move records, still without move generation;
//! 3. [`decode::decode_game`]: shakmaty positions and moves, visits attached to legal moves and
//!    checked against n;
//! 4. [`positions::Positions`]: training positions (position, move, score, result, policy)
//!    with no allocation per position, strict or lenient.
//!
//! [`movegen`] generates legal moves as codes in the stored order; [`value`] reads, writes and
//! converts the value format; [`tools`] has the data tools (stats, filter, dedup, split,
//! interleave, shuffle, PGN/FEN export).
//!
//! [`write::GameWriter`] writes games, validating legality, scores and visits; a decoded
//! [`decode::Game`] re-serialises byte for byte. Format facts and decisions: the repository's
//! the chessfmt format notes, section "Self-play policy data".
//!
//! ```
//! use selfplay_format::shakmaty::{Chess, Position, Square};
//! use selfplay_format::{decode::decode_game, frame::frames, write::GameWriter};
//!
//! let start = Chess::default();
//! let mut w = GameWriter::new(&start);
//! let e4 = start.legal_moves().into_iter().find(|m| m.to() == Square::E4).unwrap();
//! w.push(e4, 0.55, None)?;
//! let bytes = w.finish(1)?;
//!
//! let view = frames(&bytes).next().unwrap()?;
//! let game = decode_game(&view)?;
//! assert_eq!(game.moves[0].mv, e4);
//! assert_eq!(game.to_bytes(), bytes);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

//! # Features
//!
//! `std` (files through [`file::FileData`]) and `mmap` (`FileData::map`, an `unsafe` opt-in),
//! both on by default; without them every reader works on byte slices (wasm32 included).
//! Error numbers of games are 1-based.

#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod decode;
pub mod error;
pub mod file;
pub mod frame;
#[doc(hidden)]
pub mod fuzzing;
pub mod movegen;
pub mod positions;
pub mod raw;
pub mod sniff;
#[doc(hidden)]
pub mod synth;
pub mod tools;
pub mod value;
pub mod write;

pub use error::{Error, ErrorKind, HeaderProblem};
pub use raw::GAME_HEADER_LEN;
pub use shakmaty;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
