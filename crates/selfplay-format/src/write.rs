//! Writing games: from a start position and moves with scores and visit counts.

use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role};

use crate::{
    decode::{encode_move, legal_moves_by_code},
    raw::{GAME_HEADER_LEN, Header, castling_bits},
};

/// How visit counts become bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum VisitQuantisation {
    /// `round(v · 255 / max)` (the current format).
    #[default]
    Round,
    /// `min(255, v · 256 / max)` (older files).
    Legacy,
}

/// Why a game cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The move is not legal in the position.
    #[error("illegal move {0} at ply {1}")]
    IllegalMove(shakmaty::uci::UciMove, usize),
    /// A score outside 0..=1.
    #[error("score {0} at ply {1} is outside 0..=1")]
    Score(f32, usize),
    /// The visit counts do not cover exactly the legal moves.
    #[error("visit counts at ply {0} do not match the {1} legal moves")]
    Visits(usize, usize),
    /// More than 255 legal moves cannot be described by the n byte.
    #[error("too many legal moves ({0})")]
    TooManyMoves(usize),
    /// A result outside 0, 1, 2.
    #[error("result {0} (expected 0, 1 or 2 from White's view)")]
    Result(u8),
}

/// The header of a start position (raw ep square when the position has one after a double
/// push, rook files from the castling rights or a/h).
pub fn header_of(pos: &Chess, result: u8) -> Header {
    let b = pos.board();
    let bb = |r: Role| b.by_role(r).0;
    let castles = pos.castles();
    let file = |c: Color, side: CastlingSide, default: u8| {
        castles
            .rook(c, side)
            .map_or(default, |sq| u8::from(sq.file()))
    };
    let mut castling = 0;
    for (c, side, bit) in [
        (
            Color::White,
            CastlingSide::QueenSide,
            castling_bits::WHITE_Q,
        ),
        (Color::White, CastlingSide::KingSide, castling_bits::WHITE_K),
        (
            Color::Black,
            CastlingSide::QueenSide,
            castling_bits::BLACK_Q,
        ),
        (Color::Black, CastlingSide::KingSide, castling_bits::BLACK_K),
    ] {
        if castles.has(c, side) {
            castling |= bit;
        }
    }
    Header {
        bitboards: Header::pack(
            [
                bb(Role::Pawn),
                bb(Role::Knight),
                bb(Role::Bishop),
                bb(Role::Rook),
                bb(Role::Queen),
                bb(Role::King),
            ],
            b.by_color(Color::Black).0,
        ),
        stm: u8::from(pos.turn() == Color::Black),
        ep: pos.ep_square(EnPassantMode::Always).map_or(0, u8::from),
        castling,
        halfmove: pos.halfmoves().min(255) as u8,
        fullmove: pos.fullmoves().get().min(u32::from(u16::MAX)) as u16,
        rook_files: [
            file(Color::White, CastlingSide::QueenSide, 0),
            file(Color::White, CastlingSide::KingSide, 7),
            file(Color::Black, CastlingSide::QueenSide, 0),
            file(Color::Black, CastlingSide::KingSide, 7),
        ],
        result,
    }
}

/// Builds one game's bytes move by move, validating as it goes.
#[derive(Debug, Clone)]
pub struct GameWriter {
    pos: Chess,
    bytes: Vec<u8>,
    quantisation: VisitQuantisation,
    plies: usize,
}

impl GameWriter {
    /// Starts a game at `start`.
    pub fn new(start: &Chess) -> Self {
        let mut bytes = Vec::with_capacity(GAME_HEADER_LEN + 512);
        bytes.extend_from_slice(&header_of(start, 1).to_bytes());
        GameWriter {
            pos: start.clone(),
            bytes,
            quantisation: VisitQuantisation::Round,
            plies: 0,
        }
    }

    /// Chooses how visit counts are quantised.
    pub fn with_quantisation(mut self, q: VisitQuantisation) -> Self {
        self.quantisation = q;
        self
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// Adds a move with the side to move's score in 0..=1 and, optionally, the visit counts of
    /// legal moves (every legal move exactly once, in any order).
    pub fn push(
        &mut self,
        mv: Move,
        score: f32,
        visits: Option<&[(Move, u32)]>,
    ) -> Result<(), WriteError> {
        let ply = self.plies;
        if !self.pos.is_legal(mv) {
            return Err(WriteError::IllegalMove(
                mv.to_uci(shakmaty::CastlingMode::Chess960),
                ply,
            ));
        }
        if !(0.0..=1.0).contains(&score) {
            return Err(WriteError::Score(score, ply));
        }
        let mut record = Vec::new();
        record.extend_from_slice(&encode_move(mv).0.to_le_bytes());
        // The reference computes in f32 and truncates.
        record.extend_from_slice(&((score * f32::from(u16::MAX)) as u16).to_le_bytes());
        match visits {
            None => record.push(0),
            Some(v) => {
                let legal = legal_moves_by_code(&self.pos);
                if legal.len() > 255 {
                    return Err(WriteError::TooManyMoves(legal.len()));
                }
                if v.len() != legal.len() {
                    return Err(WriteError::Visits(ply, legal.len()));
                }
                let mut counts = Vec::with_capacity(legal.len());
                for &(_, m) in &legal {
                    let mut found = v.iter().filter(|(vm, _)| *vm == m);
                    match (found.next(), found.next()) {
                        (Some(&(_, c)), None) => counts.push(c),
                        _ => return Err(WriteError::Visits(ply, legal.len())),
                    }
                }
                let max = counts.iter().copied().max().unwrap_or(0);
                record.push(legal.len() as u8);
                record.extend(counts.iter().map(|&c| quantise(c, max, self.quantisation)));
            }
        }
        self.bytes.extend_from_slice(&record);
        self.pos.play_unchecked(mv);
        self.plies += 1;
        Ok(())
    }

    /// Ends the game with `result` (White's view: 0 loss, 1 draw, 2 win) and returns its bytes.
    pub fn finish(mut self, result: u8) -> Result<Vec<u8>, WriteError> {
        if result > 2 {
            return Err(WriteError::Result(result));
        }
        self.bytes[GAME_HEADER_LEN - 1] = result;
        self.bytes.extend_from_slice(&[0, 0]);
        Ok(self.bytes)
    }
}

/// Quantises a visit count against the largest.
pub fn quantise(v: u32, max: u32, q: VisitQuantisation) -> u8 {
    if max == 0 {
        return 0;
    }
    match q {
        // f32 as the reference computes it.
        VisitQuantisation::Round => (v as f32 * 255.0 / max as f32).round() as u8,
        VisitQuantisation::Legacy => (u64::from(v) * 256 / u64::from(max)).min(255) as u8,
    }
}
