//! Monty self-play training data (policy format and the sister value format).
//!
//! **Status: scaffold.** Framing, lazy views, full decode, the position iterator, the writer
//! and the data tools are being built. The format's facts are in the repository's
//! `specs/NOTES.md` (section "Self-play policy data").
//!
//! ```
//! assert_eq!(selfplay_format::GAME_HEADER_LEN, 43);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Length of a game header in bytes.
pub const GAME_HEADER_LEN: usize = 43;
