//! The writer's side of the move streams: opcodes and tokens for moves (the inverse of
//! [`Stream`] and [`Replay::step`]).

#[allow(clippy::wildcard_imports)]
use super::*;

/// The writer's side of [`Stream`]: opcodes to stored bytes for a one-byte-opcode mode
/// (0, 4, 10), with the move counter.
#[derive(Debug, Clone)]
pub(crate) struct Encoder {
    /// Stored byte of each translated value (the inverse of the mode's table).
    inverse: [u8; 256],
    post: bool,
    counter: u8,
    /// The stream written so far.
    pub(crate) out: Vec<u8>,
}

impl Encoder {
    /// The encoder of a one-byte-opcode mode; `None` for the pair mode and unknown modes.
    pub(crate) fn new(mode: u8) -> Option<Encoder> {
        let Mode::Compact { table, post } = Mode::of(mode)? else {
            return None;
        };
        let mut inverse = [0u8; 256];
        for (stored, &value) in table.iter().enumerate() {
            inverse[usize::from(value)] = stored as u8;
        }
        Some(Encoder {
            inverse,
            post,
            counter: 0,
            out: Vec::new(),
        })
    }

    fn byte(&mut self, value: u8) {
        let b = if self.post {
            self.inverse[usize::from(value.wrapping_add(self.counter))]
        } else {
            self.inverse[usize::from(value)].wrapping_add(self.counter)
        };
        self.out.push(b);
    }

    /// Writes a token (moves advance the counter, control codes do not).
    pub(crate) fn token(&mut self, t: Token) {
        match t {
            Token::Code(op) => self.byte(op),
            Token::Null => self.byte(OP_NULL),
            Token::Squares(w) => {
                self.byte(OP_TWO_BYTE);
                self.byte((w >> 8) as u8);
                self.byte(w as u8);
            }
            Token::Variation => return self.byte(OP_VARIATION),
            Token::End => return self.byte(OP_END),
        }
        self.counter = self.counter.wrapping_add(1);
    }
}

impl Replay {
    /// The token that writes `m` (a legal move of the position), by opcode where the piece
    /// has a slot and the table a code, else by squares. `squares_castling`: castling as the
    /// king's target square to itself (the Chess960 modes).
    pub(crate) fn token_for(&self, m: Move, squares_castling: bool) -> Token {
        let turn = self.pos.turn();
        let by_squares = |from: Square, to: Square, promotion: Option<Role>| {
            let promotion = match promotion {
                Some(Role::Rook) => 1,
                Some(Role::Bishop) => 2,
                Some(Role::Knight) => 3,
                _ => 0,
            };
            Token::Squares(
                file_major_index(from) as u16
                    | (file_major_index(to) as u16) << 6
                    | promotion << 12,
            )
        };
        if let Move::Castle { king, rook } = m {
            let side = CastlingSide::from_king_side(king < rook);
            if squares_castling {
                let to = side.king_to(turn);
                return by_squares(to, to, None);
            }
            return Token::Code(if side == CastlingSide::KingSide {
                9
            } else {
                10
            });
        }
        let (role, from, to, promotion) = match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => (role, from, to, promotion),
            Move::EnPassant { from, to } => (Role::Pawn, from, to, None),
            _ => return by_squares(m.to(), m.to(), None),
        };
        let dx = to.file().to_u32() as i32 - from.file().to_u32() as i32;
        let dy = to.rank().to_u32() as i32 - from.rank().to_u32() as i32;
        let relative = match role {
            Role::King => Some(RelativeMove::piece(Role::King, 0, dx, dy)),
            // ChessBase writes every promotion by squares, even to a queen (which an opcode
            // could express): so does the writer, byte for byte.
            Role::Pawn if promotion.is_none() => {
                let forward = turn.fold_wb(1, -1);
                self.slots
                    .index_of(turn, Role::Pawn, from)
                    .map(|i| RelativeMove::piece(Role::Pawn, i, dx * forward, dy * forward))
            }
            Role::Pawn => None,
            _ => self
                .slots
                .index_of(turn, role, from)
                .map(|i| RelativeMove::piece(role, i, dx, dy)),
        };
        match relative.and_then(|r| opcode_table().code(r)) {
            Some(op) => Token::Code(op),
            None => by_squares(from, to, promotion),
        }
    }
}
