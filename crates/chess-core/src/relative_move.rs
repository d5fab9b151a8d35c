//! Relative moves: "the n-th piece of a kind moves by (dx, dy)", the move byte of CTG and
//! Kvetka books.
//!
//! Pieces of the side to move are numbered per kind in file-major order (a1, a2, …, a8, b1, …);
//! `dx`/`dy` are file and rank deltas modulo 8, so a move of −2 files is stored as 6. Castling is
//! its own kind. A format's move table is data ([`RelativeMoveTable`]) on top of this engine.
//!
//! Promotions are always to a queen: both formats have no under-promotion codes, so
//! [`RelativeMove::from_move`] refuses under-promotions.

use shakmaty::{CastlingSide, Chess, Move, Position, Role, Square};

use crate::huffman::{file_major_index, file_major_squares};

/// A move relative to the pieces on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RelativeMove {
    /// The `index`-th (0-based, file-major) piece of kind `role` moves `dx` files and `dy`
    /// ranks, both modulo 8.
    Piece {
        /// The kind of the moving piece.
        role: Role,
        /// Which piece of that kind, 0-based, in file-major order.
        index: u8,
        /// File delta modulo 8 (0..8).
        dx: u8,
        /// Rank delta modulo 8 (0..8).
        dy: u8,
    },
    /// Castling to the given side.
    Castle(CastlingSide),
}

/// The `index`-th square of `role` pieces of the side to move in file-major order.
fn nth_piece(pos: &Chess, role: Role, index: u8) -> Option<Square> {
    let ours = pos.board().by_piece(role.of(pos.turn()));
    file_major_squares()
        .filter(|sq| ours.contains(*sq))
        .nth(usize::from(index))
}

impl RelativeMove {
    /// A piece move with signed deltas (wrapped modulo 8).
    pub fn piece(role: Role, index: u8, dx: i32, dy: i32) -> RelativeMove {
        RelativeMove::Piece {
            role,
            index,
            dx: dx.rem_euclid(8) as u8,
            dy: dy.rem_euclid(8) as u8,
        }
    }

    /// The legal move this denotes in `pos`, if any. A pawn reaching the last rank promotes to
    /// a queen.
    pub fn to_move(self, pos: &Chess) -> Option<Move> {
        self.find_in(pos, &pos.legal_moves())
    }

    /// Like [`RelativeMove::to_move`], choosing among `legal`, the legal moves of `pos`
    /// (computed once by a caller that decodes several codes in one position).
    pub fn find_in(self, pos: &Chess, legal: &[Move]) -> Option<Move> {
        match self {
            RelativeMove::Castle(side) => legal
                .iter()
                .find(|m| matches!(m, Move::Castle { .. }) && m.castling_side() == Some(side))
                .copied(),
            RelativeMove::Piece {
                role,
                index,
                dx,
                dy,
            } => {
                let from = nth_piece(pos, role, index)?;
                let file = (from.file().to_u32() + u32::from(dx)) % 8;
                let rank = (from.rank().to_u32() + u32::from(dy)) % 8;
                let to = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
                legal
                    .iter()
                    .find(|m| {
                        m.from() == Some(from)
                            && m.to() == to
                            && !matches!(m, Move::Castle { .. })
                            && matches!(m.promotion(), None | Some(Role::Queen))
                    })
                    .copied()
            }
        }
    }

    /// The relative form of a legal move `m` in `pos`; `None` for under-promotions, drops and
    /// moves of pieces not on the board.
    pub fn from_move(pos: &Chess, m: Move) -> Option<RelativeMove> {
        if let Move::Castle { .. } = m {
            return m.castling_side().map(RelativeMove::Castle);
        }
        if matches!(m.promotion(), Some(r) if r != Role::Queen) {
            return None;
        }
        let from = m.from()?;
        let role = m.role();
        let ours = pos.board().by_piece(role.of(pos.turn()));
        if !ours.contains(from) {
            return None;
        }
        let key = file_major_index(from);
        let index = ours
            .into_iter()
            .filter(|sq| file_major_index(*sq) < key)
            .count();
        let dx = m.to().file().to_u32() as i32 - from.file().to_u32() as i32;
        let dy = m.to().rank().to_u32() as i32 - from.rank().to_u32() as i32;
        Some(RelativeMove::piece(role, u8::try_from(index).ok()?, dx, dy))
    }
}

/// A format's move-byte table: a partial map between byte codes and relative moves.
///
/// Several codes may denote the same relative move (CTG's 0x1A/0xF9); [`RelativeMoveTable::code`]
/// then returns the first. Codes whose meaning is illegal in a position can carry an alternative
/// meaning, tried by [`RelativeMoveTable::decode`] when the first is illegal.
#[derive(Debug, Clone)]
pub struct RelativeMoveTable {
    by_code: [Option<RelativeMove>; 256],
    alternative: [Option<RelativeMove>; 256],
    by_move: std::collections::HashMap<RelativeMove, u8>,
}

impl RelativeMoveTable {
    /// Builds a table from `(code, move)` pairs; for a repeated move, the first code wins
    /// when encoding.
    pub fn new(entries: &[(u8, RelativeMove)]) -> Self {
        let mut by_code = [None; 256];
        let mut by_move = std::collections::HashMap::new();
        for &(code, m) in entries {
            by_code[usize::from(code)] = Some(m);
            by_move.entry(m).or_insert(code);
        }
        RelativeMoveTable {
            by_code,
            alternative: [None; 256],
            by_move,
        }
    }

    /// Gives `code` a second meaning, used by [`RelativeMoveTable::decode`] when the first is
    /// not legal. Never used for encoding.
    #[must_use]
    pub fn with_alternative(mut self, code: u8, m: RelativeMove) -> Self {
        self.alternative[usize::from(code)] = Some(m);
        self
    }

    /// The relative move of a code.
    pub fn relative(&self, code: u8) -> Option<RelativeMove> {
        self.by_code[usize::from(code)]
    }

    /// The code of a relative move.
    pub fn code(&self, m: RelativeMove) -> Option<u8> {
        self.by_move.get(&m).copied()
    }

    /// Decodes a code to a legal move of `pos` (trying the alternative meaning second).
    pub fn decode(&self, pos: &Chess, code: u8) -> Option<Move> {
        self.decode_among(pos, &pos.legal_moves(), code)
    }

    /// Like [`RelativeMoveTable::decode`], choosing among `legal`, the legal moves of `pos`.
    pub fn decode_among(&self, pos: &Chess, legal: &[Move], code: u8) -> Option<Move> {
        self.relative(code)
            .and_then(|r| r.find_in(pos, legal))
            .or_else(|| self.alternative[usize::from(code)]?.find_in(pos, legal))
    }

    /// The alternative meaning of a code, if it has one.
    pub fn alternative(&self, code: u8) -> Option<RelativeMove> {
        self.alternative[usize::from(code)]
    }

    /// Encodes a legal move of `pos`; `None` when the table has no code for it.
    pub fn encode(&self, pos: &Chess, m: Move) -> Option<u8> {
        self.code(RelativeMove::from_move(pos, m)?)
    }

    /// Number of codes with a meaning.
    pub fn len(&self) -> usize {
        self.by_code.iter().flatten().count()
    }

    /// Whether no code has a meaning.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    #[test]
    fn start_position_round_trip() {
        let pos = Chess::default();
        for m in pos.legal_moves() {
            let r = RelativeMove::from_move(&pos, m).unwrap();
            assert_eq!(r.to_move(&pos), Some(m));
        }
        // e2e4: the 5th pawn in file-major order (a2, b2, c2, d2, e2), 0-based 4.
        let e4 = RelativeMove::piece(Role::Pawn, 4, 0, 2);
        assert_eq!(e4.to_move(&pos).unwrap().to(), Square::E4);
        // Ng1-f3: the 2nd knight (b1, g1), dx −1 = 7.
        let nf3 = RelativeMove::Piece {
            role: Role::Knight,
            index: 1,
            dx: 7,
            dy: 2,
        };
        assert_eq!(nf3.to_move(&pos).unwrap().to(), Square::F3);
    }

    #[test]
    fn castling_and_promotion() {
        let pos: Chess = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        for m in pos.legal_moves() {
            match RelativeMove::from_move(&pos, m) {
                Some(r) => assert_eq!(r.to_move(&pos), Some(m)),
                None => assert!(matches!(m.promotion(), Some(r) if r != Role::Queen)),
            }
        }
        assert!(
            RelativeMove::Castle(CastlingSide::KingSide)
                .to_move(&pos)
                .is_some()
        );
    }

    #[test]
    fn table_alternative_meaning() {
        let q6 = RelativeMove::piece(Role::Queen, 1, 0, 6);
        let alt = RelativeMove::piece(Role::Queen, 1, 6, 0);
        let t = RelativeMoveTable::new(&[(0x1a, q6), (0xf9, q6)]).with_alternative(0xf9, alt);
        assert_eq!(t.code(q6), Some(0x1a));
        assert_eq!(t.len(), 2);
        // Queens on a1 and h1: the second (h1) goes +6 ranks to h7.
        let pos: Chess = "4k3/8/8/8/8/8/8/Q3K2Q w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(t.decode(&pos, 0x1a).map(|m| m.to()), Some(Square::H7));
        // With h2 blocked, +6 ranks is illegal and 0xf9's alternative (+6 files: f1) is used.
        let pos: Chess = "4k3/8/8/8/8/8/7P/Q3K2Q w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(t.decode(&pos, 0xf9).map(|m| m.to()), Some(Square::F1));
        assert_eq!(t.decode(&pos, 0x1a), None);
    }
}
