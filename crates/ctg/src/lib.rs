//! ChessBase CTG opening books (`.ctg` + `.cto` + `.ctb`).
//!
//! **Status: scaffold.** The reader, tree walk, Polyglot conversion and writer are being built.
//! The format's facts are in the repository's `specs/NOTES.md` (section "CTG"); the position
//! code is [`chess_core::huffman::encode_ctg`].
//!
//! ```
//! // The three files of a book.
//! assert_eq!(ctg::EXTENSIONS, ["ctg", "cto", "ctb"]);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// The file extensions of a CTG book: records, page directory, split bitmap.
pub const EXTENSIONS: [&str; 3] = ["ctg", "cto", "ctb"];
