//! The sister value format: the same 43-byte game header, then per ply a u16 move code and an
//! i16 score (White's point of view, in centipawn-like units), then a 4-byte zero terminator.
//!
//! Reading in the same tiers as the policy format: [`value_frames`] (spans, no move
//! generation), [`ValueGameView::records`], and [`decode_value_game`] (moves checked for
//! legality). [`ValueWriter`] writes games; [`policy_to_value`] converts a policy game the way
//! Monty's data generation fills the value format.

use shakmaty::{Chess, Color, Move, Position};

use crate::{
    decode::{check_record, start_position},
    error::{Error, ErrorKind},
    frame::GameView,
    movegen::CodeList,
    raw::{GAME_HEADER_LEN, Header, MoveCode},
    write::{WriteError, header_of},
};

/// Length of a value record (u16 move + i16 score) and of the terminator.
pub const VALUE_RECORD_LEN: usize = 4;

/// One value-format game's bytes within the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueGameView<'a> {
    /// 0-based index of the game.
    pub index: u64,
    /// Byte offset of the game in the data.
    pub offset: u64,
    /// The game's bytes, header to terminator included.
    pub bytes: &'a [u8],
}

/// A value record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueRecord {
    /// The move code.
    pub code: MoveCode,
    /// The score, White's point of view.
    pub score: i16,
}

impl ValueRecord {
    /// Reads a record from its 4 bytes (code u16 LE, score i16 LE; the layout as a nom
    /// parser). Fewer bytes read as the null record.
    #[inline]
    pub fn from_bytes(b: &[u8]) -> ValueRecord {
        use chess_core::parse::{le_i16, le_u16};
        let record = |i| -> chess_core::parse::NomResult<'_, ValueRecord> {
            let (i, code) = le_u16(i)?;
            let (i, score) = le_i16(i)?;
            Ok((
                i,
                ValueRecord {
                    code: MoveCode(code),
                    score,
                },
            ))
        };
        record(b).map_or(
            ValueRecord {
                code: MoveCode(0),
                score: 0,
            },
            |(_, r)| r,
        )
    }
}

impl<'a> ValueGameView<'a> {
    /// The header.
    pub fn header(&self) -> Header {
        Header::from_prefix(self.bytes)
    }

    /// Number of plies.
    pub fn plies(&self) -> usize {
        (self
            .bytes
            .len()
            .saturating_sub(GAME_HEADER_LEN + VALUE_RECORD_LEN))
            / VALUE_RECORD_LEN
    }

    /// The records, in order (without the terminator).
    pub fn records(&self) -> impl ExactSizeIterator<Item = ValueRecord> + 'a {
        let end = self
            .bytes
            .len()
            .saturating_sub(VALUE_RECORD_LEN)
            .max(GAME_HEADER_LEN.min(self.bytes.len()));
        self.bytes[GAME_HEADER_LEN.min(self.bytes.len())..end]
            .chunks_exact(VALUE_RECORD_LEN)
            .map(ValueRecord::from_bytes)
    }
}

/// Measures the value game at `data[0]`: its length, or where and why it is cut short.
pub fn frame_value_game(data: &[u8]) -> Result<usize, (usize, ErrorKind)> {
    if data.len() < GAME_HEADER_LEN {
        return Err((
            data.len(),
            ErrorKind::Truncated {
                expected: "a 43-byte game header",
            },
        ));
    }
    let body = &data[GAME_HEADER_LEN..];
    for (i, r) in body.chunks_exact(VALUE_RECORD_LEN).enumerate() {
        if r == [0; 4] {
            return Ok(GAME_HEADER_LEN + (i + 1) * VALUE_RECORD_LEN);
        }
    }
    Err((
        data.len(),
        ErrorKind::Truncated {
            expected: "a value record or the 4-byte zero terminator",
        },
    ))
}

/// Iterator over the games of a value-format buffer.
#[derive(Debug, Clone)]
pub struct ValueFrames<'a> {
    data: &'a [u8],
    pos: usize,
    index: u64,
    done: bool,
}

/// Frames the games of value-format `data`.
pub fn value_frames(data: &[u8]) -> ValueFrames<'_> {
    ValueFrames {
        data,
        pos: 0,
        index: 0,
        done: false,
    }
}

impl<'a> Iterator for ValueFrames<'a> {
    type Item = Result<ValueGameView<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let span = crate::frame::next_span(
            self.data,
            &mut self.pos,
            &mut self.index,
            &mut self.done,
            0,
            |rest| frame_value_game(rest).map(|len| (len, 0)),
        )?;
        Some(span.map(|v| ValueGameView {
            index: v.index,
            offset: v.offset,
            bytes: v.bytes,
        }))
    }
}

/// A decoded value game.
#[derive(Debug, Clone)]
pub struct ValueGame {
    /// The header as stored.
    pub header: Header,
    /// The start position.
    pub start: Chess,
    /// The moves with their scores.
    pub moves: Vec<(Move, ValueRecord)>,
}

impl ValueGame {
    /// The game's bytes, identical to what was read.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(GAME_HEADER_LEN + (self.moves.len() + 1) * 4);
        out.extend_from_slice(&self.header.to_bytes());
        for (_, r) in &self.moves {
            out.extend_from_slice(&r.code.0.to_le_bytes());
            out.extend_from_slice(&r.score.to_le_bytes());
        }
        out.extend_from_slice(&[0; 4]);
        out
    }
}

/// Decodes a value game, checking every move's legality.
pub fn decode_value_game(view: &ValueGameView<'_>) -> Result<ValueGame, Error> {
    let header = view.header();
    let err = |offset: usize, kind| Error::new(view.index + 1, view.offset + offset as u64, kind);
    let (start, _) = start_position(&header).map_err(|k| err(0, k))?;
    let mut pos = start.clone();
    let mut list = CodeList::new();
    let mut moves = Vec::with_capacity(view.plies());
    for (i, r) in view.records().enumerate() {
        let mv = check_record(&pos, &mut list, r.code, 0)
            .map_err(|(at, kind)| err(GAME_HEADER_LEN + i * VALUE_RECORD_LEN + at, kind))?;
        moves.push((mv, r));
        pos.play_unchecked(mv);
    }
    Ok(ValueGame {
        header,
        start,
        moves,
    })
}

/// The value score of a side-to-move score in 0..=1, as Monty computes it: turned to White's
/// view, then `-(400 · ln(1/s − 1))` in f32, saturated to i16.
pub fn value_score(stm_score: f32, stm: Color) -> i16 {
    let s = if stm == Color::Black {
        1.0 - stm_score
    } else {
        stm_score
    };
    -(400.0 * (1.0 / s - 1.0).ln()) as i16
}

/// Converts one policy game (framed) to a value game: the header is kept byte for byte, each
/// record becomes its move and [`value_score`] of its score. No move generation: validate
/// with the policy decoder first when the input is not trusted.
pub fn policy_to_value(view: &GameView<'_>, out: &mut Vec<u8>) {
    let header = view.header();
    out.extend_from_slice(&view.bytes[..GAME_HEADER_LEN.min(view.bytes.len())]);
    let mut stm = if header.stm == 1 {
        Color::Black
    } else {
        Color::White
    };
    for r in view.records() {
        let s = f32::from(r.score) / f32::from(u16::MAX);
        out.extend_from_slice(&r.code.0.to_le_bytes());
        out.extend_from_slice(&value_score(s, stm).to_le_bytes());
        stm = !stm;
    }
    out.extend_from_slice(&[0; 4]);
}

/// Builds one value game move by move, checking legality.
#[derive(Debug, Clone)]
pub struct ValueWriter {
    pos: Chess,
    bytes: Vec<u8>,
    plies: usize,
}

impl ValueWriter {
    /// Starts a game at `start`.
    pub fn new(start: &Chess) -> Self {
        let mut bytes = Vec::with_capacity(GAME_HEADER_LEN + 512);
        bytes.extend_from_slice(&header_of(start, 1).to_bytes());
        ValueWriter {
            pos: start.clone(),
            bytes,
            plies: 0,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// Adds a move with its score (White's view).
    pub fn push(&mut self, mv: Move, score: i16) -> Result<(), WriteError> {
        if !self.pos.is_legal(mv) {
            return Err(WriteError::IllegalMove(
                mv.to_uci(shakmaty::CastlingMode::Chess960),
                self.plies,
            ));
        }
        let code = crate::decode::encode_move(mv);
        self.bytes.extend_from_slice(&code.0.to_le_bytes());
        self.bytes.extend_from_slice(&score.to_le_bytes());
        self.pos.play_unchecked(mv);
        self.plies += 1;
        Ok(())
    }

    /// Adds a move with the side to move's score in 0..=1, converted by [`value_score`].
    pub fn push_stm_score(&mut self, mv: Move, stm_score: f32) -> Result<(), WriteError> {
        if !(0.0..=1.0).contains(&stm_score) {
            return Err(WriteError::Score(stm_score, self.plies));
        }
        let score = value_score(stm_score, self.pos.turn());
        self.push(mv, score)
    }

    /// Ends the game with `result` (White's view: 0 loss, 1 draw, 2 win) and returns its bytes.
    pub fn finish(mut self, result: u8) -> Result<Vec<u8>, WriteError> {
        if result > 2 {
            return Err(WriteError::Result(result));
        }
        self.bytes[GAME_HEADER_LEN - 1] = result;
        self.bytes.extend_from_slice(&[0; 4]);
        Ok(self.bytes)
    }
}
