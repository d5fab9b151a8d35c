//! Errors of the CTG crate.

use std::{io, path::Path, path::PathBuf};

use chess_core::{IoError, Located, ParseError};

/// An error reading or writing a CTG book.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written (the I/O error is the `source()`).
    #[error(transparent)]
    Io(#[from] IoError),
    /// The bytes are not a valid book.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A book cannot be written as asked.
    #[error("cannot write the book")]
    Write(#[from] WriteError),
}

/// Why a book cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A record's encoded position is not 2–31 bytes with a matching header byte.
    #[error("record {record}: position of {len} bytes with header byte {header:#04x}")]
    BadPosition {
        /// 1-based record number.
        record: usize,
        /// Length of the encoded position.
        len: usize,
        /// Its first byte.
        header: u8,
    },
    /// A record has more moves than a record can hold.
    #[error("record {record}: {moves} moves (at most {max})")]
    TooManyMoves {
        /// 1-based record number.
        record: usize,
        /// Moves in the record.
        moves: usize,
        /// The most a record holds.
        max: usize,
    },
    /// Records sharing one 32-bit hash do not fit in a page.
    #[error("{records} records share one 32-bit hash and exceed a page")]
    HashCollision {
        /// How many records share the hash.
        records: usize,
    },
    /// A record given to [`crate::write::StreamWriter`] out of its order.
    #[error("record {record}: out of hash order (or a position given twice)")]
    OutOfOrder {
        /// 1-based record number.
        record: usize,
    },
    /// More pages than the page directory can address.
    #[error("{pages} pages (at most 2^32 - 2)")]
    TooManyPages {
        /// Pages needed.
        pages: usize,
    },
}

impl Error {
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io(IoError::new(path, source))
    }

    /// Attaches a file name to a parse error.
    #[must_use]
    pub fn in_file(self, path: impl Into<PathBuf>) -> Self {
        match self {
            Error::Parse(e) => Error::Parse(e.in_file(path)),
            other => other,
        }
    }
}

impl Located for Error {
    fn path(&self) -> Option<&Path> {
        match self {
            Error::Io(e) => e.path(),
            Error::Parse(e) => e.path(),
            Error::Write(_) => None,
        }
    }
    fn offset(&self) -> Option<u64> {
        match self {
            Error::Io(e) => e.offset(),
            Error::Parse(e) => e.offset(),
            Error::Write(_) => None,
        }
    }
}
