//! The error skeleton shared by every chessfmt crate.
//!
//! Each format crate has one `Error` enum (`#[non_exhaustive]`) whose variants are built from
//! the same parts:
//!
//! * [`IoError`]: a file could not be read or written. Its message is the path; the
//!   [`std::io::Error`] is its [`source`](std::error::Error::source), not repeated in the
//!   message (print the chain to show both).
//! * [`ParseError`]: bytes that are not what the format allows: the file (when known), the
//!   byte offset, and what was expected and found there.
//! * typed, matchable kinds for what is specific to the format.
//!
//! Every crate's `Error` implements [`Located`]: the file and byte offset, where known, of any
//! error. Game and record numbers in errors are 1-based everywhere.

use std::{borrow::Cow, fmt, io, path::Path, path::PathBuf};

/// A file could not be read or written.
///
/// Displays as the path alone; the I/O error is the [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
#[non_exhaustive]
pub struct IoError {
    /// The file.
    pub path: PathBuf,
    /// What the operating system said.
    #[source]
    pub source: io::Error,
}

impl IoError {
    /// An I/O error on `path`.
    pub fn new(path: impl Into<PathBuf>, source: io::Error) -> IoError {
        IoError {
            path: path.into(),
            source,
        }
    }

    /// The kind of the underlying I/O error.
    pub fn kind(&self) -> io::ErrorKind {
        self.source.kind()
    }
}

/// Where an error happened, for any error of the chessfmt crates.
pub trait Located {
    /// The file, when known.
    fn path(&self) -> Option<&Path>;
    /// The byte offset in that file, when known.
    fn offset(&self) -> Option<u64>;
}

impl Located for IoError {
    fn path(&self) -> Option<&Path> {
        Some(&self.path)
    }
    fn offset(&self) -> Option<u64> {
        None
    }
}

impl Located for ParseError {
    fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }
    fn offset(&self) -> Option<u64> {
        Some(self.offset)
    }
}

/// How a truncation is written in [`ParseError::found`].
const END_OF_DATA: &str = "end of data";

/// A malformed or truncated input: where it happened and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct ParseError {
    /// The file the bytes came from, when known.
    pub file: Option<PathBuf>,
    /// Byte offset from the start of the file (or of the buffer) where the problem was found.
    pub offset: u64,
    /// What the parser expected at that offset.
    pub expected: Cow<'static, str>,
    /// What it found instead.
    pub found: String,
}

impl ParseError {
    /// Whether the input simply ended too early (as opposed to holding a wrong value).
    pub fn is_truncated(&self) -> bool {
        self.found.starts_with(END_OF_DATA)
    }
}

impl ParseError {
    /// A new error at `offset`: `expected` something, `found` something else.
    pub fn new(
        offset: u64,
        expected: impl Into<Cow<'static, str>>,
        found: impl Into<String>,
    ) -> Self {
        ParseError {
            file: None,
            offset,
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// The input ended at `offset + available` while `needed` bytes were expected at `offset`.
    pub fn truncated(offset: u64, needed: u64, available: u64) -> Self {
        ParseError::cut_short(offset, format!("{needed} more bytes"), available)
    }

    /// The input ended at `offset + available` while `expected` was being read at `offset`
    /// ([`ParseError::is_truncated`] holds).
    pub fn cut_short(offset: u64, expected: impl Into<Cow<'static, str>>, available: u64) -> Self {
        ParseError::new(
            offset,
            expected,
            format!("{END_OF_DATA} after {available} bytes"),
        )
    }

    /// Attaches the file name (keeps an existing one).
    #[must_use]
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }

    /// Moves the offset by `base` (for errors found in a sub-slice that starts at `base`).
    #[must_use]
    pub fn shifted(mut self, base: u64) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        write!(
            f,
            "byte {}: expected {}, found {}",
            self.offset, self.expected, self.found
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_offset_and_expectation() {
        let e = ParseError::new(16, "a sorted key", "0x00").in_file("book.bin");
        assert_eq!(
            e.to_string(),
            "book.bin: byte 16: expected a sorted key, found 0x00"
        );
        let e = ParseError::truncated(4, 16, 3).shifted(100);
        assert_eq!(
            e.to_string(),
            "byte 104: expected 16 more bytes, found end of data after 3 bytes"
        );
    }
}
