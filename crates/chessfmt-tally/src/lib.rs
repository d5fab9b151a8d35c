//! The statistics table of the chessfmt family: one row per (position, move) with the sums a
//! book needs — results in White's view, games, rating sums, first and last year — between
//! every game collection and every book format.
//!
//! A book build is a map (game → plays of (position, move)) and an associative reduce (sums
//! per position and move), then a format's writer. This crate is the middle:
//!
//! * [`Tally`]: the map, from PGN (plain or compressed), replayed on the caller's rayon pool,
//!   counted in input order, in bounded memory (sorted runs on disk past a limit);
//! * [`merge()`]: the reduce, a k-way merge of sorted tables in memory for one row (or one
//!   batch, [`merge_batches`]) per input;
//!   deterministic, the sums Spark's `groupBy(key, epd, move).sum()` gives;
//! * [`CsvWriter`] and [`CsvReader`]: the text form, streaming (see [`csv`]).
//!
//! The book crates write their formats from the rows and walk books into rows (feature
//! `tally` of `polyglot-book`, `ctg` and `kvetka-book`).
//!
//! # The position
//!
//! A row names its position twice: by its Polyglot key (what Polyglot books store, and the
//! sort order of the table) and by its EPD (FEN without the move counters), which every other
//! writer needs (CTG and Kvetka store the board, a tree as PGN replays it) and every tool can
//! read: DuckDB, pandas or Spark group and filter on a string column as easily as on a
//! binary one, and a diff of two tables is readable. In memory the table keeps a 28-byte
//! packed position per position instead, turned into EPD when the table is written.
//!
//! ```
//! use chessfmt_tally::{CsvReader, CsvWriter, Tally, TallyOptions, merge};
//!
//! // Two parts counted separately (two files, two machines), then reduced.
//! let mut parts = Vec::new();
//! for pgn in ["1. e4 e5 1-0\n", "1. e4 c5 0-1\n\n1. d4 d5 1/2-1/2\n"] {
//!     let mut tally = Tally::new(TallyOptions::default());
//!     tally.add_pgn(chessfmt_pgn::PgnReader::new(pgn.as_bytes()), |_| {})?;
//!     let mut csv = Vec::new();
//!     tally.write_csv(&mut csv)?;
//!     parts.push(csv);
//! }
//! let inputs = parts.iter().map(|p| CsvReader::new(&p[..])).collect();
//! let mut rows = Vec::new();
//! merge(inputs, |r| Ok(rows.push(r)), |i| format!("part {i}").into())?;
//! let e4 = rows.iter().find(|r| r.uci == "e2e4").unwrap();
//! assert_eq!((e4.counts.white, e4.counts.black, e4.counts.games), (1, 1, 2));
//! assert_eq!(rows.len(), 5);
//! # Ok::<(), chessfmt_tally::Error>(())
//! ```

#![forbid(unsafe_code)]

mod chunks;
mod counting;
pub mod csv;
mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod gather;
mod merge;
#[cfg(feature = "parquet")]
pub mod parquet;
mod position;
mod resolve;
mod row;
mod run;
mod shards;
pub mod table;
mod tally;
pub mod tree;

pub use chunks::map_chunks;
pub use csv::{CsvReader, CsvWriter};
pub use error::{Error, ErrorKind};
pub use gather::BadRows;
pub use merge::{Merge, MergeStats, merge, merge_batches, sort_and_sum};
pub use position::PackedPosition;
pub use resolve::RowResolver;
pub use row::{Counts, Row, RowBatch, RowRef};
pub use shards::ShardedMap;
pub use table::{Compression, TableFormat, TableWriter};
pub use tally::{Tally, TallyOptions, TallyStats};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
