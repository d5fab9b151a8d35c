//! A position packed into 28 bytes: what the table keeps of each position it counts, turned
//! into EPD when the table is written.

use shakmaty::{Bitboard, Board, Color, Piece, Position, Role, Setup, Square, fen::Epd};

/// A position packed for the table: the occupied squares (8 bytes), a nibble per piece in
/// square order (16 bytes), the side to move, the castling rooks of the first and the eighth
/// rank, and the en passant square (`0xff`: none). Written out as EPD ([`PackedPosition::epd`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedPosition([u8; 28]);

impl PackedPosition {
    /// Packs the position of `pos` (the en passant square only where a capture is legal,
    /// as Polyglot keys and EPD written by this crate have it).
    pub fn of(pos: &impl Position) -> PackedPosition {
        let mut b = [0u8; 28];
        let board = pos.board();
        b[..8].copy_from_slice(&board.occupied().0.to_le_bytes());
        for (i, sq) in board.occupied().into_iter().take(32).enumerate() {
            let nibble = board.piece_at(sq).map_or(0, |p| {
                u8::from(p.role) | if p.color == Color::Black { 8 } else { 0 }
            });
            b[8 + i / 2] |= nibble << (4 * (i % 2));
        }
        b[24] = u8::from(pos.turn() == Color::Black);
        let rooks = pos.castles().castling_rights();
        b[25] = (rooks.0 & 0xff) as u8;
        b[26] = (rooks.0 >> 56) as u8;
        b[27] = pos.legal_ep_square().map_or(0xff, u8::from);
        PackedPosition(b)
    }

    /// The position as a [`Setup`] (halfmove clock 0, fullmove 1).
    pub fn setup(&self) -> Setup {
        let b = &self.0;
        let occupied = Bitboard(u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])));
        let mut board = Board::empty();
        for (i, sq) in occupied.into_iter().take(32).enumerate() {
            let nibble = (b[8 + i / 2] >> (4 * (i % 2))) & 0xf;
            if let Ok(role) = Role::try_from(nibble & 7) {
                let color = if nibble & 8 != 0 {
                    Color::Black
                } else {
                    Color::White
                };
                board.set_piece_at(sq, Piece { color, role });
            }
        }
        let castling_rights = Bitboard(u64::from(b[25]) | u64::from(b[26]) << 56);
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = if b[24] == 1 {
            Color::Black
        } else {
            Color::White
        };
        setup.castling_rights = castling_rights;
        setup.ep_square = Square::try_from(b[27]).ok();
        setup
    }

    /// The position as EPD (FEN's first four fields).
    pub fn epd(&self) -> String {
        Epd::try_from(self.setup()).map_or_else(|e| e.ignore().to_string(), |e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, EnPassantMode, fen::Fen};

    #[test]
    fn packs_and_unpacks_epd() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let want = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
            assert_eq!(PackedPosition::of(&pos).epd(), want, "{fen}");
        }
    }
}
