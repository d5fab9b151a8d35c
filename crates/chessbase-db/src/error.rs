//! Errors of the ChessBase crate.

use std::{io, path::PathBuf};

use chess_core::ParseError;

/// An error opening or reading a database (a whole file is unusable).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The bytes of a file are not what the format allows.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A file the database cannot be read without (`.cbh`, `.cbg`) is missing.
    #[error("{}: not found", path.display())]
    Missing {
        /// The file that was looked for.
        path: PathBuf,
    },
    /// A record number outside the database.
    #[error("record {number} does not exist (the database has {count} records)")]
    NoSuchRecord {
        /// The 1-based record number asked for.
        number: u32,
        /// How many records the database has.
        count: u32,
    },
    /// One game could not be decoded; the rest of the database is unaffected.
    #[error(transparent)]
    Game(#[from] GameError),
}

impl Error {
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
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

/// Why one game could not be decoded (or was decoded only in part).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game}: {file} byte {offset}: {kind}")]
pub struct GameError {
    /// The 1-based record number of the game.
    pub game: u32,
    /// The file the problem is in (`cbg` or `cba`).
    pub file: &'static str,
    /// Absolute byte offset in that file.
    pub offset: u64,
    /// What went wrong.
    pub kind: GameErrorKind,
}

/// The kinds of per-game errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameErrorKind {
    /// The game's encoding mode has no known decoding table.
    #[error("unsupported encoding mode {0}")]
    UnsupportedMode(u8),
    /// The record is a guiding text, not a game.
    #[error("the record is a guiding text, not a game")]
    Text,
    /// The record head or length does not fit the file.
    #[error("bad record: {0}")]
    BadRecord(String),
    /// The set-up position is not a valid chess position.
    #[error("invalid set-up position: {0}")]
    BadSetup(String),
    /// A move byte decodes to no legal move.
    #[error("move {ply} of the stream: {reason}")]
    BadMove {
        /// 0-based index of the move in stream order.
        ply: u32,
        /// What was wrong.
        reason: String,
    },
    /// Variations nested deeper than the decoder allows.
    #[error("variations nested deeper than {0}")]
    TooDeep(usize),
    /// The annotation record is malformed.
    #[error("bad annotations: {0}")]
    BadAnnotations(String),
}
