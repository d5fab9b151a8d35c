//! Errors of the ChessBase crate.

use std::{io, path::Path, path::PathBuf};

use chess_core::{IoError, Located, ParseError};
use shakmaty::{CastlingMode, CastlingSide, Move, PositionErrorKinds, Role, Square};

/// An error opening or reading a database (a whole file is unusable).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read (the I/O error is the `source()`).
    #[error(transparent)]
    Io(#[from] IoError),
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
    /// A `.cbv`/`.cbz` archive could not be read.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
}

/// A `.cbv`/`.cbz` archive could not be read: which archive, which member (when one), the
/// byte offset (when known) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}{}: {problem}", path.display(), member.as_deref().map(|m| format!(", member {m}")).unwrap_or_default(), offset.map(|o| format!(", byte {o}")).unwrap_or_default())]
pub struct ArchiveError {
    /// The archive.
    pub path: PathBuf,
    /// The member being read, when the problem is in one.
    pub member: Option<String>,
    /// The byte offset of the problem, when known (in the archive, or in the member's
    /// stream for a damaged member).
    pub offset: Option<u64>,
    /// What was wrong.
    pub problem: ArchiveProblem,
}

/// What was wrong with an archive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveProblem {
    /// A `.cbz` needs a password and none was given.
    #[error("the archive is password-protected (.cbz): give its password")]
    NeedsPassword,
    /// The password does not decrypt the archive.
    #[error("the password does not decrypt the archive")]
    WrongPassword,
    /// The archive holds no `.cbh` file.
    #[error("the archive holds no ChessBase database (.cbh)")]
    NoDatabase,
    /// A member's name would leave the destination directory.
    #[error("the member's name leads outside the destination directory")]
    UnsafeName,
    /// A member's name is reserved for the commit machinery (a journal or a staged file).
    #[error("the member's name is reserved (a commit journal or a staged file)")]
    ReservedName,
    /// Two members have the same name (letter case aside): one would overwrite the other.
    #[error("two members have this name")]
    DuplicateName,
    /// The container or a member's stream is damaged.
    #[error("damaged: {0}")]
    Damaged(String),
}

impl Error {
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io(IoError::new(path, source))
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

impl Located for Error {
    fn path(&self) -> Option<&Path> {
        match self {
            Error::Io(e) => e.path(),
            Error::Parse(e) => e.path(),
            Error::Missing { path } => Some(path),
            Error::Archive(e) => Some(&e.path),
            Error::NoSuchRecord { .. } | Error::Game(_) => None,
        }
    }
    fn offset(&self) -> Option<u64> {
        match self {
            Error::Io(e) => e.offset(),
            Error::Parse(e) => e.offset(),
            Error::Game(e) => Some(e.offset),
            Error::Archive(e) => e.offset,
            Error::Missing { .. } | Error::NoSuchRecord { .. } => None,
        }
    }
}

/// Why one game could not be decoded (or was decoded only in part).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
#[non_exhaustive]
pub enum GameErrorKind {
    /// The game's encoding mode has no known decoding table.
    #[error("unsupported encoding mode {0}")]
    UnsupportedMode(u8),
    /// The record is a guiding text, not a game.
    #[error("the record is a guiding text, not a game")]
    Text,
    /// The record head or length does not fit the file.
    #[error("bad record: {0}")]
    BadRecord(RecordProblem),
    /// The set-up position is not a valid chess position.
    #[error("invalid set-up position: {0}")]
    BadSetup(SetupProblem),
    /// A move byte decodes to no legal move.
    #[error("move {ply} of the stream: {reason}")]
    BadMove {
        /// 0-based index of the move in stream order.
        ply: u32,
        /// What was wrong.
        reason: MoveProblem,
    },
    /// Variations nested deeper than the decoder's [`crate::Limits`] allow
    /// (`variation_depth`).
    #[error("variations nested deeper than {} (Limits::{})", .0.limit, .0.field)]
    TooDeep(chess_core::limits::LimitExceeded),
    /// The game's annotation record names another game in its head (databases written by
    /// other tools do this): its annotations are attached all the same.
    #[error("the annotation record names game {0} (attached to this game all the same)")]
    ForeignAnnotations(u32),
    /// Annotations whose move index is past the game's moves (kept in [`crate::Game`]'s
    /// `unattached`, not written to PGN).
    #[error("{0} annotations point past the game's moves (not written)")]
    UnattachedAnnotations(usize),
    /// The annotation record is malformed (offset and expectation inside).
    #[error("bad annotations: expected {}, found {}", .0.expected, .0.found)]
    BadAnnotations(ParseError),
    /// The record's stored game overlaps the stored game of an earlier record (ChessBase
    /// stores each game once: the `.cbh` is damaged or crafted). A bulk export writes the
    /// shared data once, for the earlier record.
    #[error("its game data overlaps that of record {0} (written once, for that record)")]
    SharedData(u32),
}

/// Why a game record does not fit its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordProblem {
    /// The 4-byte record head lies past the end of the `.cbg`.
    #[error("record head past the end of the file ({file_len} bytes)")]
    HeadPastEnd {
        /// Size of the `.cbg`.
        file_len: u64,
    },
    /// The record's length runs past the end of the `.cbg` (or is below 4).
    #[error("record length {0} past the end of the file")]
    LengthPastEnd(u32),
    /// The `.cbh` record is not in use.
    #[error("record not in use")]
    NotInUse,
    /// The 28-byte set-up position is cut short.
    #[error("set-up position cut short")]
    SetupCutShort,
    /// The 8-byte Chess960 block is cut short.
    #[error("Chess960 block cut short")]
    Chess960CutShort,
}

/// Why a set-up position is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupProblem {
    /// The board stream ends inside a piece.
    #[error("board stream ends inside a piece")]
    BoardCutShort,
    /// A piece code without a piece.
    #[error("piece code {0}")]
    PieceCode(u8),
    /// Not a legal position (shakmaty's reasons).
    #[error("illegal position ({0:?})")]
    Illegal(PositionErrorKinds),
}

/// Why a move of the stream was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoveProblem {
    /// A two-byte move whose second byte is missing.
    #[error("two-byte move cut short")]
    TwoByteCutShort,
    /// An opcode the encoding does not use.
    #[error("unused opcode {0}")]
    UnusedOpcode(u8),
    /// An opcode with no meaning in the table.
    #[error("no such opcode")]
    NoSuchOpcode,
    /// The side to move has no king.
    #[error("no king")]
    NoKing,
    /// Castling without the castling right.
    #[error("castling {0:?} without the right")]
    NoCastlingRight(CastlingSide),
    /// A pawn slot that holds no pawn.
    #[error("pawn {0} is gone")]
    PawnGone(u8),
    /// A pawn move that leaves the board.
    #[error("pawn move off the board")]
    OffBoard,
    /// A piece slot that holds no piece.
    #[error("no {role:?} number {number}")]
    NoSuchPiece {
        /// The piece kind.
        role: Role,
        /// 1-based slot number.
        number: u8,
    },
    /// A piece slot whose piece is elsewhere.
    #[error("{role:?} number {number} is not on {square}")]
    PieceNotOnSquare {
        /// The piece kind.
        role: Role,
        /// 1-based slot number.
        number: u8,
        /// Where the slot says it is.
        square: Square,
    },
    /// A two-byte move from a square to itself (or otherwise empty).
    #[error("null two-byte move {from}{to}")]
    NullTwoByte {
        /// From square.
        from: Square,
        /// To square.
        to: Square,
    },
    /// A two-byte move from a square without a piece of the side to move.
    #[error("no piece of the side to move on {0}")]
    NoPieceOn(Square),
    /// A null move while in check.
    #[error("null move while in check")]
    NullInCheck,
    /// A null move that leaves an impossible position.
    #[error("null move not possible")]
    NullImpossible,
    /// A move that is not legal in the position.
    #[error("illegal move {}", .0.to_uci(CastlingMode::Chess960))]
    Illegal(Move),
    /// A variation or end marker where a move was expected.
    #[error("not a move")]
    NotAMove,
}
