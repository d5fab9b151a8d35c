//! Errors of the CTG crate.

use std::{io, path::PathBuf};

use chess_core::ParseError;

/// An error reading or writing a CTG book.
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
    /// A book cannot be written as asked (too many pages, a record that fits no page…).
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
