//! Errors of the Kvetka crate.

use std::{io, path::Path, path::PathBuf};

use chess_core::{IoError, Located, ParseError};

/// An error reading or writing a Kvetka book.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written (the I/O error is the `source()`).
    #[error(transparent)]
    Io(#[from] IoError),
    /// The bytes are not a valid book.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The header's `type` byte is not 0x01, the only type the description defines.
    #[error("{}: unsupported book type 0x{book_type:02x} (only type 0x01 is defined)", path.display())]
    UnsupportedType {
        /// The `_0.kob` file.
        path: PathBuf,
        /// The type byte found.
        book_type: u8,
    },
    /// No `.kob` file of the book was found.
    #[error("{}: no book found (expected {}_0.kob)", path.display(), path.display())]
    NotFound {
        /// The book's base name.
        path: PathBuf,
    },
    /// A book cannot be written as asked.
    #[error("cannot write the book")]
    Write(#[from] WriteError),
    /// Games of the input were left out and strict mode asked for all or nothing: nothing
    /// was written.
    #[cfg(feature = "pgn")]
    #[error("{0}; nothing written (strict)")]
    InputSkipped(chessfmt_pgn::SkipStats),
}

/// Why a book cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The elements given to the writer are not sorted by key, or a key repeats.
    #[error("elements are not sorted by key without duplicates")]
    Unsorted,
    /// An element is larger than a block can hold.
    #[error("an element of {size} bytes (at most {max})")]
    ElementTooLarge {
        /// Its encoded size.
        size: usize,
        /// The most an element may take.
        max: usize,
    },
    /// More blocks than the header can count.
    #[error("more than 2^32 blocks")]
    TooManyBlocks,
    /// The `.ksf` would exceed its 32-bit offsets.
    #[error("the .ksf file would exceed 4 GiB")]
    SourcesTooLarge,
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
            Error::UnsupportedType { path, .. } | Error::NotFound { path } => Some(path),
            Error::Write(_) => None,
            #[cfg(feature = "pgn")]
            Error::InputSkipped(_) => None,
        }
    }
    fn offset(&self) -> Option<u64> {
        match self {
            Error::Io(e) => e.offset(),
            Error::Parse(e) => e.offset(),
            Error::UnsupportedType { .. } => Some(0),
            Error::NotFound { .. } | Error::Write(_) => None,
            #[cfg(feature = "pgn")]
            Error::InputSkipped(_) => None,
        }
    }
}
