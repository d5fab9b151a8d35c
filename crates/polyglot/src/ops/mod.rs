//! Higher-level operations on books: building from PGN, merging, walking the book tree (dump
//! and info).

pub mod build;
pub mod merge;
mod spill;
pub mod tree;
