//! The game model: a tokenised game ([`RawGame`]), a replayed one ([`Game`]), why a game is
//! left out ([`GameError`], [`SkipReason`]) and the tally of left-out games ([`SkipStats`]).

use std::{collections::BTreeMap, fmt, ops::ControlFlow};

use pgn_reader::{KnownOutcome, Outcome, SanPlus};

use chess_core::limits::LimitExceeded;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::san_fast;
use crate::{FenError, position_from_fen};

/// The result of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*` or missing.
    Unknown,
}

impl GameResult {
    /// Parses a `[Result]` value or termination marker.
    pub fn parse(s: &str) -> GameResult {
        match s.trim() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" | "½-½" => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }

    /// The winner, `None` for draws and unknown results.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            _ => None,
        }
    }

    fn from_outcome(o: Outcome) -> GameResult {
        match o {
            Outcome::Known(KnownOutcome::Decisive { winner }) => {
                winner.fold_wb(GameResult::WhiteWins, GameResult::BlackWins)
            }
            Outcome::Known(KnownOutcome::Draw) => GameResult::Draw,
            Outcome::Unknown => GameResult::Unknown,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        })
    }
}

/// One tokenised game: nothing validated yet.
#[derive(Debug, Clone)]
pub struct RawGame {
    /// 0-based index of the game in the input.
    pub index: u64,
    /// Byte offset of the game text in the (decompressed) input.
    pub offset: u64,
    /// Byte length of the game text (up to the start of the next game).
    pub length: u64,
    /// Tag pairs in file order (values decoded as UTF-8, invalid bytes replaced).
    pub headers: Vec<(String, String)>,
    /// Main-line moves as written (variations are skipped).
    pub sans: Vec<SanPlus>,
    /// The termination marker, if present.
    pub outcome: Option<Outcome>,
}

/// A game whose moves are legal.
#[derive(Debug, Clone)]
pub struct Game {
    /// 0-based index of the game in the input.
    pub index: u64,
    /// Byte offset of the game text in the (decompressed) input.
    pub offset: u64,
    /// Byte length of the game text.
    pub length: u64,
    /// Tag pairs in file order.
    pub headers: Vec<(String, String)>,
    /// Castling mode of the game (Chess960 from `[Variant]` or from the FEN).
    pub castling_mode: CastlingMode,
    /// The start position.
    pub start: Chess,
    /// Main-line moves, all legal. A null move (`--`, `Z0`) ends them: the positions after it
    /// did not occur in the game.
    pub moves: Vec<Move>,
    /// The ply of a null move that cut the main line short, if any.
    pub null_move_at: Option<usize>,
    /// The `[Result]` tag, or the termination marker when the tag is absent or `*`.
    pub result: GameResult,
}

pub(crate) fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

impl Game {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// Iterates over (position before the move, move), following the main line.
    pub fn positions(&self) -> impl Iterator<Item = (Chess, Move)> + '_ {
        let mut pos = self.start.clone();
        self.moves.iter().map(move |&m| {
            let before = pos.clone();
            pos.play_unchecked(m);
            (before, m)
        })
    }
}

/// Why a game was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkipReason {
    /// The `[FEN]` tag does not parse or is not a legal position.
    #[error("invalid FEN {fen:?}: {error}")]
    InvalidFen {
        /// The tag value.
        fen: String,
        /// Why it was refused.
        error: FenError,
    },
    /// A move is not legal (or does not parse) in its position.
    #[error("illegal move {san} at ply {ply}")]
    IllegalMove {
        /// 0-based ply of the move.
        ply: usize,
        /// The move as written.
        san: String,
    },
    /// A `[Variant]` other than standard chess or Chess960.
    #[error("unsupported variant {0:?}")]
    UnsupportedVariant(String),
    /// The game is larger than one of the reader's [`Limits`](crate::Limits) (a tag
    /// line, the number or bytes of its tags, its main line); the reader skipped to the next game.
    #[error("game over a limit: {0}")]
    OverLimit(LimitExceeded),
    /// The input ends inside this game (a cut-off download): the game is incomplete and was
    /// left out. Only the last game of an input can have this problem.
    #[error("the input ends inside this game ({0})")]
    Truncated(&'static str),
    /// The compressed stream is cut short or damaged before this game ended: reading stopped
    /// here, and the game in progress was left out. The offset is in the decompressed text.
    #[error("the compressed stream is cut short or damaged ({0}); reading stopped")]
    DamagedStream(String),
}

impl SkipReason {
    /// A short stable name of the reason's kind (for counting).
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::InvalidFen { .. } => "invalid FEN",
            SkipReason::IllegalMove { .. } => "illegal move",
            SkipReason::UnsupportedVariant(_) => "unsupported variant",
            SkipReason::OverLimit(_) => "over a limit",
            SkipReason::Truncated(_) | SkipReason::DamagedStream(_) => "truncated input",
        }
    }

    /// Whether the input ended early at this game (a truncated last game or a damaged
    /// compressed stream), rather than one game being bad.
    pub fn is_truncation(&self) -> bool {
        matches!(
            self,
            SkipReason::Truncated(_) | SkipReason::DamagedStream(_)
        )
    }
}

/// A game that could not be used, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {} (byte {offset}): {reason}", index + 1)]
pub struct GameError {
    /// 0-based index of the game.
    pub index: u64,
    /// Byte offset of the game text.
    pub offset: u64,
    /// What is wrong.
    pub reason: SkipReason,
}

impl RawGame {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// The `[Result]` tag, or the termination marker when the tag is absent or `*`.
    pub fn result(&self) -> GameResult {
        match self.header("Result").map(GameResult::parse) {
            Some(r) if r != GameResult::Unknown => r,
            _ => self
                .outcome
                .map_or(GameResult::Unknown, GameResult::from_outcome),
        }
    }

    fn error(&self, reason: SkipReason) -> GameError {
        GameError {
            index: self.index,
            offset: self.offset,
            reason,
        }
    }

    /// The castling mode and start position from `[Variant]` and `[FEN]`.
    pub fn start_position(&self) -> Result<(CastlingMode, Chess), GameError> {
        let variant = self.header("Variant").unwrap_or("").to_ascii_lowercase();
        let chess960 = variant.contains("960") || variant.contains("fischer");
        if !(chess960
            || variant.is_empty()
            || variant == "standard"
            || variant == "from position"
            || variant == "normal")
        {
            return Err(self.error(SkipReason::UnsupportedVariant(variant)));
        }
        let Some(fen) = self.header("FEN") else {
            return Ok((CastlingMode::from_chess960(chess960), Chess::default()));
        };
        let invalid = |error: FenError| {
            self.error(SkipReason::InvalidFen {
                fen: fen.to_owned(),
                error,
            })
        };
        position_from_fen(fen, chess960).map_err(invalid)
    }

    /// Plays the main line from the start position, calling `visit(position before the move,
    /// move)` for each of the first `max_plies` moves, without building a [`Game`]. Stops at a
    /// null move (returning its ply) or when `visit` breaks; moves after that are not parsed.
    pub fn replay(
        &self,
        max_plies: usize,
        mut visit: impl FnMut(&Chess, Move) -> ControlFlow<()>,
    ) -> Result<Replay, GameError> {
        let (castling_mode, start) = self.start_position()?;
        let mut pos = start.clone();
        let mut null_move_at = None;
        for (ply, san) in self.sans.iter().enumerate().take(max_plies) {
            if matches!(san.san, shakmaty::san::San::Null) {
                null_move_at = Some(ply);
                break;
            }
            let fast = san_fast::san_to_move_fast(&pos, &san.san);
            let m = match fast.map_or_else(|| san.san.to_move(&pos), Ok) {
                Ok(m) => m,
                // Some tools write UCI moves (g1f3) in the movetext; they parse as SAN of an
                // impossible pawn move.
                Err(_) => shakmaty::uci::UciMove::from_ascii(san.san.to_string().as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                    .ok_or_else(|| {
                        self.error(SkipReason::IllegalMove {
                            ply,
                            san: san.to_string(),
                        })
                    })?,
            };
            if visit(&pos, m).is_break() {
                break;
            }
            pos.play_unchecked(m);
        }
        Ok(Replay {
            castling_mode,
            start,
            null_move_at,
            end: pos,
        })
    }

    /// Plays the moves: a [`Game`] when every move is legal.
    pub fn resolve(&self) -> Result<Game, GameError> {
        let mut moves = Vec::with_capacity(self.sans.len());
        let replay = self.replay(usize::MAX, |_, m| {
            moves.push(m);
            ControlFlow::Continue(())
        })?;
        Ok(Game {
            index: self.index,
            offset: self.offset,
            length: self.length,
            headers: self.headers.clone(),
            castling_mode: replay.castling_mode,
            start: replay.start,
            moves,
            null_move_at: replay.null_move_at,
            result: self.result(),
        })
    }
}

/// What [`RawGame::replay`] found besides the moves.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Castling mode of the game.
    pub castling_mode: CastlingMode,
    /// The start position.
    pub start: Chess,
    /// The ply of a null move that ended the main line, if any.
    pub null_move_at: Option<usize>,
    /// The position where the replay stopped: after the last move played (the start when
    /// none was; a move for which `visit` broke is not played).
    pub end: Chess,
}

/// Counts of skipped games by reason, with the first few errors kept as examples.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkipStats {
    /// Skipped games per reason kind ([`SkipReason::kind`]).
    pub by_kind: BTreeMap<&'static str, u64>,
    /// The first [`SkipStats::MAX_EXAMPLES`] errors.
    pub examples: Vec<GameError>,
}

impl SkipStats {
    /// How many errors are kept in [`SkipStats::examples`].
    pub const MAX_EXAMPLES: usize = 10;

    /// Counts one skipped game.
    pub fn record(&mut self, e: GameError) {
        *self.by_kind.entry(e.reason.kind()).or_default() += 1;
        if self.examples.len() < Self::MAX_EXAMPLES {
            self.examples.push(e);
        }
    }

    /// Adds another tally (for per-worker stats). The examples kept are the first ones in
    /// input order.
    pub fn merge(&mut self, other: SkipStats) {
        for (k, n) in other.by_kind {
            *self.by_kind.entry(k).or_default() += n;
        }
        self.examples.extend(other.examples);
        self.examples.sort_by_key(|e| e.index);
        self.examples.truncate(Self::MAX_EXAMPLES);
    }

    /// Whether the input ended early (a truncated last game or a damaged compressed stream).
    pub fn truncated(&self) -> bool {
        self.by_kind.contains_key("truncated input")
    }

    /// Total number of skipped games.
    pub fn total(&self) -> u64 {
        self.by_kind.values().sum()
    }
}

impl fmt::Display for SkipStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} games skipped", self.total())?;
        for (i, (k, n)) in self.by_kind.iter().enumerate() {
            write!(f, "{}{n} {k}", if i == 0 { ": " } else { ", " })?;
        }
        Ok(())
    }
}
