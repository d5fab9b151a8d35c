//! ChessBase databases (`.cbh` + `.cbg` + `.cba` + entity files).
//!
//! **Status: scaffold.** Header records, game decoding, annotations and PGN export are being
//! built. The format's facts are in the repository's `specs/NOTES.md` (section "ChessBase
//! database") and `specs/cbg-mode-tables.md`.
//!
//! ```
//! assert_eq!(chessbase_db::CBH_RECORD_SIZE, 46);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Size of one `.cbh` game-header record in bytes.
pub const CBH_RECORD_SIZE: usize = 46;
