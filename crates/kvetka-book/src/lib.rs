//! Kvetka opening books (`.kob` blocks, `.kin` index, `.ksf` sources).
//!
//! **Status: scaffold.** Reading, writing, building and growing are being built. The format's
//! facts and the project's decisions are in the repository's `specs/NOTES.md` (section
//! "Kvetka"); the 22-byte key is [`chess_core::huffman::encode_kvetka`].
//!
//! ```
//! assert_eq!(kvetka_book::BLOCK_SIZE, 2048);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Size of a `.kob` block in bytes.
pub const BLOCK_SIZE: usize = 2048;
