//! Higher-level operations on books: building from PGN, merging, walking the book tree (dump
//! and info).

#[cfg(feature = "pgn")]
pub mod build;
pub mod merge;
#[cfg(feature = "pgn")]
mod spill;
#[cfg(feature = "tally")]
pub mod tally;
pub mod tree;
