//! Errors of the Polyglot crate.

use std::{io, path::Path, path::PathBuf};

use chess_core::{IoError, Located, ParseError};

/// An error reading or writing a Polyglot book.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written (the I/O error is the `source()`).
    #[error(transparent)]
    Io(#[from] IoError),
    /// The bytes are not a valid book.
    #[error(transparent)]
    Parse(#[from] ParseError),
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
        }
    }
    fn offset(&self) -> Option<u64> {
        match self {
            Error::Io(e) => e.offset(),
            Error::Parse(e) => e.offset(),
        }
    }
}
