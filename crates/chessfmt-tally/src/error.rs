//! Errors of the table's readers and writers: the file, the line and byte offset, and what
//! was expected.

use std::{fmt, io, path::Path, path::PathBuf};

/// What went wrong (see [`Error`] for where).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The first line is not the table's header.
    #[error("expected the header line `{expected}`, found `{found}`")]
    Header {
        /// The header of this version of the table.
        expected: &'static str,
        /// What the file has (cut to 100 bytes).
        found: String,
    },
    /// A field of a row cannot be read.
    #[error("column `{column}`: expected {expected}, found `{found}`")]
    Field {
        /// The column.
        column: &'static str,
        /// What it should hold.
        expected: &'static str,
        /// What it holds (cut to 100 bytes).
        found: String,
    },
    /// A Parquet table cannot be read or written: what the Parquet layer says (starting
    /// `Parquet:`), with the row group.
    #[error("{0}")]
    Parquet(String),
    /// A row comes before the one above it: merging needs tables sorted as the table is
    /// written (key, EPD, move).
    #[error("rows out of order: expected the table sorted by key, EPD and move")]
    Unsorted,
}

/// An error of a table reader or writer, with the file (when known), the line (1-based; 0
/// when none) and the byte offset of that line.
#[derive(Debug)]
pub struct Error {
    file: Option<PathBuf>,
    line: u64,
    offset: u64,
    kind: ErrorKind,
}

impl Error {
    /// An error at `line` (starting at byte `offset`).
    pub fn new(kind: ErrorKind, line: u64, offset: u64) -> Error {
        Error {
            file: None,
            line,
            offset,
            kind,
        }
    }

    /// The same error naming `file`.
    #[must_use]
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Error {
        self.file = Some(file.into());
        self
    }

    /// The same error naming `file` unless it names one already (an error that comes through
    /// a merge of merges names the table it is in, not the merge).
    pub(crate) fn or_in_file(self, file: impl Into<PathBuf>) -> Error {
        match self.file {
            Some(_) => self,
            None => self.in_file(file),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The line (1-based; 0 when the error is not in a line).
    pub fn line(&self) -> u64 {
        self.line
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::new(ErrorKind::Io(e), 0, 0)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        if self.line > 0 {
            write!(f, "line {} (byte {}): ", self.line, self.offset)?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl chess_core::Located for Error {
    fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }
    fn offset(&self) -> Option<u64> {
        (self.line > 0).then_some(self.offset)
    }
}

/// `s` cut to 100 bytes (at a character boundary), for messages.
pub(crate) fn cut(s: &str) -> String {
    let mut end = s.len().min(100);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}
