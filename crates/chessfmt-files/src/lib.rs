//! Files for the chessfmt format crates: byte sources and multi-file sets committed as one.
//!
//! * [`FileData`] and [`Loader`]: a file's bytes, read into memory, or memory-mapped as an
//!   `unsafe` opt-in (feature `mmap`); the mapped files are tracked so that a program can
//!   name the file behind a `SIGBUS` ([`track_mapped_files`], [`mapped_file_at`]);
//! * [`CompanionSet`], [`find_any_case`], [`with_added_extension`], [`same_file`]: the
//!   files of a set (a CTG book's `.ctg/.ctb/.cto`, a ChessBase database's `.cbh/.cbg/…`)
//!   found beside one another, whatever the case of their extensions;
//! * [`atomic`] (feature `commit`): single files written through a temporary file and a
//!   rename, and multi-file sets committed through a validated journal under a lock, with
//!   the protocol stated in the module's documentation (SQLite's discipline);
//! * [`set_lock`] (feature `commit`): the advisory lock between processes that orders a
//!   set's readers and writers;
//! * [`parquet`] (feature `parquet`): Parquet files written a row group at a time from
//!   plain column vectors (the tables for data tools);
//! * [`runs`] (feature `runs`): sorted runs of records in temporary files and their k-way
//!   merge (reductions bounded in memory);
//! * [`failpoint`]: test hooks, compiled only with the feature `failpoints` (off by default).
//!
//! ```
//! use chessfmt_files::{FileData, with_added_extension};
//! use std::path::Path;
//!
//! let dir = std::env::temp_dir().join(format!("chessfmt-files-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let book = with_added_extension(&dir.join("book"), "ctg");
//! std::fs::write(&book, b"bytes").unwrap();
//! assert_eq!(&*FileData::read(&book).unwrap(), b"bytes");
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

// The `unsafe` of this crate: memory-mapping a file and reading the mapped-file table
// (`files`), each block with its reason.
#![deny(unsafe_code)]
#![warn(missing_docs)]

/// How the pages of a Parquet file are compressed ([`parquet`], feature `parquet`; outside
/// it, by crates whose tables may be Parquet or text, such as the statistics table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Compression {
    /// Snappy: the default of Spark, DuckDB and pyarrow.
    #[default]
    Snappy,
    /// Zstandard at its default level: smaller files (about two thirds of Snappy's for a
    /// statistics table), as fast to write, read by every current Parquet reader.
    Zstd,
    /// None.
    Uncompressed,
}

#[cfg(feature = "commit")]
pub mod atomic;
pub mod failpoint;
mod files;
#[cfg(feature = "parquet")]
pub mod parquet;
#[cfg(feature = "runs")]
pub mod runs;
#[cfg(feature = "commit")]
pub mod set_lock;

pub use files::*;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
