//! The Polyglot position key.
//!
//! shakmaty's [`Zobrist64`] uses Polyglot's random numbers; it equals the Polyglot key only with
//! [`EnPassantMode::PseudoLegal`]: the en-passant file is hashed when an enemy pawn stands
//! beside the pawn that just moved two squares, even if that pawn is pinned (see
//! the chessfmt format notes).

use shakmaty::{EnPassantMode, Position, zobrist::Zobrist64};

/// The Polyglot key of a position.
///
/// ```
/// use chess_core::polyglot_key;
/// use shakmaty::Chess;
/// assert_eq!(polyglot_key(&Chess::default()), 0x463b96181691fc9c);
/// ```
pub fn polyglot_key<P: Position>(pos: &P) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// The Polyglot keys of a game's positions, one after another: each from the one before by
/// shakmaty's incremental update where it can (most moves; not king moves, castling-right
/// changes, double pushes or en passant situations), computed afresh otherwise — what the
/// builders from PGN hash millions of times a second.
///
/// ```
/// use chess_core::polyglot_key::{KeyWalk, polyglot_key};
/// use shakmaty::{Chess, Position, san::San};
///
/// let mut pos = Chess::default();
/// let mut walk = KeyWalk::default();
/// for san in ["e4", "d5", "exd5", "Qxd5"] {
///     let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
///     assert_eq!(walk.key_before(&pos, m), polyglot_key(&pos));
///     pos.play_unchecked(m);
/// }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyWalk {
    next: Option<u64>,
}

impl KeyWalk {
    /// The key of `pos`, whose next move is `m`: `pos` must be the position after the
    /// previous call's move (or the game's first position, on a new walk).
    pub fn key_before<P: Position>(&mut self, pos: &P, m: shakmaty::Move) -> u64 {
        let key = self.next.take().unwrap_or_else(|| polyglot_key(pos));
        self.next = pos
            .update_zobrist_hash(Zobrist64(key), m, EnPassantMode::PseudoLegal)
            .map(|z| z.0);
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    /// A walk's keys are the keys computed afresh, on random playouts (castling, en passant
    /// and promotions included).
    #[test]
    fn walks_give_the_keys() {
        let mut x = crate::fuzzing::XorShift::new(0x6b65_7973);
        for _ in 0..200 {
            let mut pos = Chess::default();
            let mut walk = KeyWalk::default();
            for _ in 0..150 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[(x.next_u64() % moves.len() as u64) as usize];
                assert_eq!(walk.key_before(&pos, m), polyglot_key(&pos));
                pos.play_unchecked(m);
            }
        }
    }

    fn key(fen: &str) -> u64 {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        polyglot_key(&pos)
    }

    /// The nine keys published with the format (specs/polyglot.ru.txt) and the pinned
    /// en-passant case of NOTES.md.
    #[test]
    fn published_keys() {
        for (fen, k) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                0x463b96181691fc9c,
            ),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                0x823c9b50fd114196,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
                0x0756b94461c50fb0,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
                0x662fafb965db29d4,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                0x22a48b5a8e47ff78,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3",
                0x652a607ca3f242c1,
            ),
            (
                "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4",
                0x00fdd303c946bdd9,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
                0x3c8123ea7b067637,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4",
                0x5c3f9b829b279560,
            ),
            ("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2", 0x3d665cc1f5da1059),
            ("8/8/8/KPp4r/8/8/8/4k3 w - - 0 2", 0x3d5ccf19475a793b),
            ("4k3/8/8/8/Pp6/8/8/4K3 b - a3 0 1", 0xdc916218d4682c51),
            ("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", 0xa9b9ef726b8f1263),
        ] {
            assert_eq!(key(fen), k, "{fen}");
        }
    }
}
