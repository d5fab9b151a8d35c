//! A small error vocabulary shared by the format crates.
//!
//! Every parse error names the byte offset where it happened and what was expected there;
//! [`ParseError::in_file`] attaches the file once the caller knows it. Format crates wrap
//! [`ParseError`] in their own error enums (see `thiserror`'s `#[from]`).

use std::{borrow::Cow, fmt, path::PathBuf};

/// A malformed or truncated input: where it happened and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
        ParseError::new(
            offset,
            format!("{needed} more bytes"),
            format!("end of data after {available} bytes"),
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
