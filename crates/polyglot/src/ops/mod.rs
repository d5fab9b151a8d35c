//! Higher-level operations on books: building from PGN.

pub mod build;
