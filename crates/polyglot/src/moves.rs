//! The 16-bit move field in board context.
//!
//! Castling is stored king-takes-rook (e1h1, e1a1, e8h8, e8a8). Such a field means castling
//! only if the side to move's king stands on the from-square, its own rook on the to-square,
//! and castling that way is legal; otherwise it is the plain move it says (a rook or queen
//! moving from e1, say) — python-chess issue 398 was exactly this bug.
//!
//! Some real books (the sturddle engine's, Ember's) store castling king-to-target instead
//! (`e1g1`, raw 262). Such a field is read as castling where the king stands on its square
//! and castling to that target is legal, as python-chess reads it; writers always store the
//! standard king-takes-rook form ([`encode_move`]).

use shakmaty::{Chess, Move, Position, Role, Square};

/// The fields of a raw move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawMove {
    /// Origin square.
    pub from: Square,
    /// Destination square (the rook's square for castling).
    pub to: Square,
    /// Promotion piece, if any (field values 1..4 = N, B, R, Q).
    pub promotion: Option<Role>,
}

impl RawMove {
    /// Splits a 16-bit field; `None` when the promotion field is 5..7.
    pub fn from_u16(raw: u16) -> Option<RawMove> {
        let to = Square::new(u32::from(raw & 0x3f));
        let from = Square::new(u32::from(raw >> 6 & 0x3f));
        let promotion = match raw >> 12 & 0x7 {
            0 => None,
            1 => Some(Role::Knight),
            2 => Some(Role::Bishop),
            3 => Some(Role::Rook),
            4 => Some(Role::Queen),
            _ => return None,
        };
        Some(RawMove {
            from,
            to,
            promotion,
        })
    }

    /// The 16-bit field.
    pub fn to_u16(self) -> u16 {
        let promo = match self.promotion {
            None | Some(Role::Pawn | Role::King) => 0,
            Some(Role::Knight) => 1,
            Some(Role::Bishop) => 2,
            Some(Role::Rook) => 3,
            Some(Role::Queen) => 4,
        };
        promo << 12 | (self.from as u16) << 6 | self.to as u16
    }

    /// The UCI text of the raw fields (castling shown king-takes-rook, as stored).
    pub fn uci(self) -> String {
        let mut s = format!("{}{}", self.from, self.to);
        if let Some(r) = self.promotion {
            s.push(r.char());
        }
        s
    }
}

/// Encodes a move (castling as king-takes-rook).
pub fn encode_move(m: Move) -> u16 {
    let (from, to) = match m {
        Move::Castle { king, rook } => (king, rook),
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Put { to, .. } => (to, to),
    };
    RawMove {
        from,
        to,
        promotion: m.promotion(),
    }
    .to_u16()
}

/// Decodes a move field in `pos`: the legal move it denotes, or `None` (null move, illegal move,
/// malformed field).
pub fn decode_move(pos: &Chess, raw: u16) -> Option<Move> {
    if raw == 0 {
        return None;
    }
    decode_move_among(pos, &pos.legal_moves(), raw)
}

/// [`decode_move`] with the legal moves of `pos` already generated (for decoding several
/// entries of one position).
pub fn decode_move_among(pos: &Chess, legal: &[Move], raw: u16) -> Option<Move> {
    if raw == 0 {
        return None;
    }
    let rm = RawMove::from_u16(raw)?;
    let board = pos.board();
    let us = pos.turn();
    let is_castle = board.piece_at(rm.from) == Some(Role::King.of(us))
        && board.piece_at(rm.to) == Some(Role::Rook.of(us))
        && rm.promotion.is_none();
    let found = legal.iter().copied().find(|m| match *m {
        Move::Castle { king, rook } => is_castle && king == rm.from && rook == rm.to,
        _ => {
            !is_castle
                && m.from() == Some(rm.from)
                && m.to() == rm.to
                && m.promotion() == rm.promotion
        }
    });
    found.or_else(|| king_to_target(pos, legal, rm))
}

/// Castling stored the other way some books do (sturddle's and Ember's): king to its target
/// square (`e1g1`, `e8c8`). Read as castling where the side to move's king stands on the
/// from-square of the back rank and castling to that target is legal; no king moves two
/// squares otherwise, so the field cannot mean anything else.
fn king_to_target(pos: &Chess, legal: &[Move], rm: RawMove) -> Option<Move> {
    let us = pos.turn();
    if rm.promotion.is_some()
        || pos.board().piece_at(rm.from) != Some(Role::King.of(us))
        || rm.from.rank() != us.backrank()
        || rm.to.rank() != rm.from.rank()
    {
        return None;
    }
    legal.iter().copied().find(|m| match *m {
        Move::Castle { king, .. } => {
            king == rm.from && m.castling_side().map(|side| side.king_to(us)) == Some(rm.to)
        }
        _ => false,
    })
}

/// How a field decoded as castling stores it: `Some(true)` for king-to-target (`e1g1`, the
/// non-standard form [`decode_move`] also reads), `Some(false)` for the standard
/// king-takes-rook, `None` when `mv` is not castling.
pub fn castling_is_king_to_target(mv: Move, raw: u16) -> Option<bool> {
    match mv {
        Move::Castle { rook, .. } => Some(RawMove::from_u16(raw).is_some_and(|rm| rm.to != rook)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn vectors() {
        // corpus/polyglot/vectors/move-encoding.tsv
        for (uci, raw) in [
            ("e2e4", 0x031c),
            ("g1f3", 0x0195),
            ("e1h1", 0x0107),
            ("e1a1", 0x0100),
            ("e8h8", 0x0f3f),
            ("e8a8", 0x0f38),
            ("e7e8q", 0x4d3c),
            ("e7e8r", 0x3d3c),
            ("e7e8b", 0x2d3c),
            ("e7e8n", 0x1d3c),
            ("a2a1q", 0x4200),
            ("h7h8n", 0x1dff),
        ] {
            let rm = RawMove::from_u16(raw).unwrap();
            assert_eq!(rm.uci(), uci);
            assert_eq!(rm.to_u16(), raw);
        }
    }

    #[test]
    fn king_to_target_castling_is_read_as_castling() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let short = Move::Castle {
            king: Square::E1,
            rook: Square::H1,
        };
        // e1g1 = 262 (sturddle's book stores its most played move so).
        assert_eq!(decode_move(&p, 262), Some(short));
        assert_eq!(castling_is_king_to_target(short, 262), Some(true));
        assert_eq!(castling_is_king_to_target(short, 0x0107), Some(false));
        assert_eq!(encode_move(short), 0x0107, "written in the standard form");
        let long = decode_move(
            &p,
            RawMove::from_u16(0).map_or(0, |_| {
                RawMove {
                    from: Square::E1,
                    to: Square::C1,
                    promotion: None,
                }
                .to_u16()
            }),
        );
        assert_eq!(
            long,
            Some(Move::Castle {
                king: Square::E1,
                rook: Square::A1
            })
        );
        let black = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        let e8g8 = RawMove {
            from: Square::E8,
            to: Square::G8,
            promotion: None,
        }
        .to_u16();
        assert_eq!(
            decode_move(&black, e8g8),
            Some(Move::Castle {
                king: Square::E8,
                rook: Square::H8
            })
        );
        // Not castling where castling is not legal (no right, or the king not on e1).
        let no_right = pos("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
        assert_eq!(decode_move(&no_right, 262), None);
        let moved = pos("4k3/8/8/8/8/8/8/R4K1R w - - 0 1");
        assert_eq!(decode_move(&moved, 262), None);
    }

    #[test]
    fn castling_only_when_king_on_e1_and_legal() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let m = decode_move(&p, 0x0107).unwrap();
        assert_eq!(
            m,
            Move::Castle {
                king: Square::E1,
                rook: Square::H1
            }
        );
        assert_eq!(encode_move(m), 0x0107);
        // A rook on e1 moving to h1 is a plain rook move (python-chess issue 398).
        let p = pos("3k4/8/8/8/8/8/8/K3R3 w - - 0 1");
        let m = decode_move(&p, 0x0107).unwrap();
        assert_eq!(m.role(), Role::Rook);
        assert_eq!(m.to(), Square::H1);
        // e1a1 with a queen on e1 and a rook on a1 is... not a legal queen move (own rook).
        let p = pos("3k4/8/8/8/8/8/8/R3Q1K1 w - - 0 1");
        assert_eq!(decode_move(&p, 0x0100), None);
        // No castling right: not castling, and a king cannot take its own rook.
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1");
        assert_eq!(decode_move(&p, 0x0107), None);
        assert_eq!(decode_move(&p, 0), None);
    }

    #[test]
    fn every_legal_move_round_trips() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
            "r3k2r/1P4P1/8/8/3pP3/8/1p4p1/R3K2R b KQkq e3 0 1",
        ] {
            let p = pos(fen);
            for m in p.legal_moves() {
                assert_eq!(
                    decode_move(&p, encode_move(m)),
                    Some(m),
                    "{fen} {}",
                    UciMove::from_standard(m)
                );
            }
        }
    }
}
