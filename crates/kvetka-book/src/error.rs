//! Errors of the Kvetka crate.

use std::{io, path::PathBuf};

use chess_core::ParseError;

/// An error reading or writing a Kvetka book.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
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
    #[error("cannot write the book: {0}")]
    Write(String),
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
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
