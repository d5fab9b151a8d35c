//! Errors: which game, which byte, what was expected.

use std::path::{Path, PathBuf};

use chess_core::Located;

/// What went wrong with a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The data ends inside a game.
    #[error("truncated game: expected {expected}, found the end of the data")]
    Truncated {
        /// What was being read.
        expected: &'static str,
    },
    /// The header does not describe a legal starting position.
    #[error("bad header: {0}")]
    BadHeader(HeaderProblem),
    /// A move code that is not a legal move of the position.
    #[error("move code {code:#06x} is not a legal move in {fen}")]
    IllegalMove {
        /// The code.
        code: u16,
        /// The position.
        fen: String,
    },
    /// Reading the data failed.
    #[error("read error: {0}")]
    Io(std::io::ErrorKind),
    /// The visit count byte does not equal the number of legal moves.
    #[error("{n} visit bytes, but the position has {legal} legal moves")]
    VisitCount {
        /// The n byte.
        n: u8,
        /// Legal moves.
        legal: usize,
    },
}

/// Why a game header describes no legal starting position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderProblem {
    /// Black-piece bits on squares with no piece.
    #[error("Black pieces on empty squares")]
    BlackOnEmpty,
    /// The piece bitboards overlap or disagree.
    #[error("inconsistent bitboards")]
    InconsistentBitboards,
    /// The side-to-move byte is neither 0 nor 1.
    #[error("side to move {0} (expected 0 or 1)")]
    SideToMove(u8),
    /// The result byte is not 0, 1 or 2.
    #[error("result {0} (expected 0, 1 or 2)")]
    Result(u8),
    /// A castling rook file beyond h.
    #[error("rook file {0} (expected 0..=7)")]
    RookFile(u8),
    /// The position is not legal (shakmaty's reason).
    #[error("illegal position: {0:?}")]
    Illegal(shakmaty::PositionErrorKinds),
}

/// An error in game `game` (1-based) at byte `offset` of the data, and the file when the
/// caller knows it ([`Error::in_file`]): the family's error design (as `chess_core`'s
/// `ParseError`: file, byte offset, what was expected; [`Located`]). Data errors are all this
/// crate reports, since its readers work on bytes; opening a file is [`crate::file`]'s
/// `io::Error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}game {game} at byte {offset}: {kind}", file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
#[non_exhaustive]
pub struct Error {
    /// The file, when known.
    pub file: Option<PathBuf>,
    /// 1-based number of the game.
    pub game: u64,
    /// Byte offset of the problem in the data.
    pub offset: u64,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl Error {
    /// An error in game `game` (1-based) at byte `offset`, in data of no known file.
    pub fn new(game: u64, offset: u64, kind: ErrorKind) -> Error {
        Error {
            file: None,
            game,
            offset,
            kind,
        }
    }

    /// The same error, said to be in `path`.
    pub fn in_file(mut self, path: impl Into<PathBuf>) -> Error {
        self.file = Some(path.into());
        self
    }
}

impl Located for Error {
    fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }
    fn offset(&self) -> Option<u64> {
        Some(self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_leads_the_message_when_known() {
        let e = Error::new(3, 120, ErrorKind::Truncated { expected: "a move" });
        assert_eq!(
            e.to_string(),
            "game 3 at byte 120: truncated game: expected a move, found the end of the data"
        );
        assert_eq!((e.path(), e.offset()), (None, Some(120)));
        let e = e.in_file("sp.bin");
        assert!(
            e.to_string().starts_with("sp.bin: game 3 at byte 120: "),
            "{e}"
        );
        assert_eq!(e.path(), Some(Path::new("sp.bin")));
    }
}
