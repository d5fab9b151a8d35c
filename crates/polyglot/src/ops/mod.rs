//! Higher-level operations on books: building from PGN, merging.

pub mod build;
pub mod merge;
