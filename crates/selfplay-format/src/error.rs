//! Errors: which game, which byte, what was expected.

/// What went wrong with a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The data ends inside a game.
    #[error("truncated game: expected {expected}, found the end of the data")]
    Truncated {
        /// What was being read.
        expected: &'static str,
    },
    /// The header does not describe a legal starting position.
    #[error("bad header: {0}")]
    BadHeader(String),
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
    Io(String),
    /// The visit count byte does not equal the number of legal moves.
    #[error("{n} visit bytes, but the position has {legal} legal moves")]
    VisitCount {
        /// The n byte.
        n: u8,
        /// Legal moves.
        legal: usize,
    },
}

/// An error in game `game` (0-based) at byte `offset` of the data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game} at byte {offset}: {kind}")]
pub struct Error {
    /// 0-based index of the game.
    pub game: u64,
    /// Byte offset of the problem in the data.
    pub offset: u64,
    /// What went wrong.
    pub kind: ErrorKind,
}
