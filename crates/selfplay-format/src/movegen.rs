//! Legal moves as move codes, generated directly in ascending code order (no sorting, no
//! shakmaty `Move` per legal move): the order the visit bytes are stored in.
//!
//! A code is `flag | to << 4 | from << 10`, so ascending code order is: origin square
//! ascending, then target square ascending, then flag ascending. Iterating our pieces and
//! their targets as bitboards (lowest square first) gives that order for free; castling and
//! en passant, which are rare, are taken from shakmaty and inserted at their place.

use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Role, Square, attacks};

use crate::raw::{MoveCode, flags};

/// The most legal moves any chess position has is 218; the n byte allows 255.
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of move codes in ascending order (no allocation).
#[derive(Clone)]
pub struct CodeList {
    codes: [u16; MAX_MOVES],
    len: usize,
}

impl Default for CodeList {
    fn default() -> Self {
        CodeList {
            codes: [0; MAX_MOVES],
            len: 0,
        }
    }
}

impl std::fmt::Debug for CodeList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl CodeList {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// The codes, ascending.
    pub fn as_slice(&self) -> &[u16] {
        &self.codes[..self.len.min(MAX_MOVES)]
    }

    /// Number of codes.
    pub fn len(&self) -> usize {
        self.len.min(MAX_MOVES)
    }

    /// True when there are no legal moves.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Position of `code` in the list.
    pub fn index_of(&self, code: MoveCode) -> Option<usize> {
        self.as_slice().binary_search(&code.0).ok()
    }

    /// True when `code` is in the list (a branch-free, vectorisable scan).
    pub fn contains(&self, code: MoveCode) -> bool {
        self.as_slice().iter().filter(|&&c| c == code.0).count() != 0
    }

    /// Inserts a code at its sorted place (for the rare castling and en-passant moves).
    fn insert_sorted(&mut self, code: u16) {
        if self.len >= MAX_MOVES - 1 {
            return;
        }
        let at = self.as_slice().partition_point(|&c| c < code);
        self.codes.copy_within(at..self.len, at + 1);
        self.codes[at] = code;
        self.len += 1;
    }
}

/// Fills `out` with the legal moves of `pos` as codes in ascending order.
///
/// Targets are computed per kind of piece into a per-square table, then emitted in one pass
/// over our pieces in square order, with the flag bits computed without branches.
pub fn legal_codes(pos: &Chess, out: &mut CodeList) {
    out.len = 0;
    let board = pos.board();
    let us = pos.turn();
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    let occ = board.occupied();
    let Some(king) = board.king_of(us) else {
        return;
    };
    let checkers = board.attacks_to(king, !us, occ);

    // Our pieces pinned to our king, each restricted to the line through the king.
    let snipers = ((attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens()))
        & theirs;
    let mut pinned = Bitboard::EMPTY;
    for s in snipers {
        let b = attacks::between(king, s) & occ;
        if b.any() && !b.more_than_one() && (b & ours).any() {
            pinned |= b;
        }
    }

    // Where a non-king move may go: anywhere not ours, or, in check, onto the checker or the
    // line between it and the king; in double check nowhere.
    let target = if checkers.is_empty() {
        !ours
    } else if checkers.more_than_one() {
        Bitboard::EMPTY
    } else {
        let c = checkers.first().expect("one checker");
        attacks::between(king, c) | Bitboard::from(c)
    };

    // tgt[from] = legal targets of our piece on `from` (only read for our squares).
    let mut tgt = [0u64; 64];
    let mut double_push = 0u64;
    if target.any() {
        for sq in board.knights() & ours & !pinned {
            tgt[usize::from(sq)] = (attacks::knight_attacks(sq) & target).0;
        }
        for sq in board.bishops() & ours {
            tgt[usize::from(sq)] = (attacks::bishop_attacks(sq, occ) & target).0;
        }
        for sq in board.rooks() & ours {
            tgt[usize::from(sq)] = (attacks::rook_attacks(sq, occ) & target).0;
        }
        for sq in board.queens() & ours {
            tgt[usize::from(sq)] = (attacks::queen_attacks(sq, occ) & target).0;
        }
        let empty = !occ.0;
        let our_pawns = (board.pawns() & ours).0;
        let (single, double) = match us {
            Color::White => {
                let single = (our_pawns << 8) & empty;
                (single, ((single & 0x0000_0000_00ff_0000) << 8) & empty)
            }
            Color::Black => {
                let single = (our_pawns >> 8) & empty;
                (single, ((single & 0x0000_ff00_0000_0000) >> 8) & empty)
            }
        };
        double_push = double & target.0;
        for sq in Bitboard(our_pawns) {
            let i = u32::from(sq);
            let (one, two) = match us {
                Color::White => (i + 8, i + 16),
                Color::Black => (i.wrapping_sub(8), i.wrapping_sub(16)),
            };
            let pushes = (single & (1u64 << (one & 63))) | (double & (1u64 << (two & 63)));
            tgt[i as usize] = ((attacks::pawn_attacks(us, sq) & theirs).0 | pushes) & target.0;
        }
        for sq in pinned {
            tgt[usize::from(sq)] &= attacks::ray(king, sq).0;
        }
    }
    let no_king = occ ^ Bitboard::from(king);
    let mut king_tgt = 0u64;
    for to in attacks::king_attacks(king) & !ours {
        if board.attacks_to(to, !us, no_king).is_empty() {
            king_tgt |= 1u64 << u32::from(to);
        }
    }
    tgt[usize::from(king)] = king_tgt;

    let promoting =
        (board.pawns() & ours & Bitboard::from_rank(us.relative_rank(shakmaty::Rank::Seventh))).0;
    let pawns = (board.pawns() & ours).0;
    let theirs = theirs.0;
    let codes = &mut out.codes;
    let mut n = 0usize;
    if promoting == 0 {
        // The common case, without a branch per target: each piece's first four targets are
        // written unconditionally (slots past its count are overwritten by the next piece or
        // lie beyond the list's length); only pieces with more targets loop. Four measured
        // faster than eight (BENCHMARKS.md history, up to 10b845e).
        for from in ours {
            let f = u32::from(from);
            let mut t = tgt[f as usize];
            let count = t.count_ones() as usize;
            let base = (f as u16) << 10;
            let dp = double_push & 0u64.wrapping_sub((pawns >> f) & 1);
            for j in 0..4 {
                let to = t.trailing_zeros() & 63;
                let flag = ((((theirs >> to) & 1) << 2) | ((dp >> to) & 1)) as u16;
                codes[(n + j) & (MAX_MOVES - 1)] = base | (to as u16) << 4 | flag;
                t &= t.wrapping_sub(1);
            }
            let mut k = n + 4;
            while t != 0 {
                let to = t.trailing_zeros();
                let flag = (((theirs >> to) & 1) << 2) as u16;
                codes[k & (MAX_MOVES - 1)] = base | (to as u16) << 4 | flag;
                t &= t - 1;
                k += 1;
            }
            n += count;
        }
    } else {
        for from in ours {
            let f = u32::from(from);
            let t = tgt[f as usize];
            let bit = 1u64 << f;
            let base = (f as u16) << 10;
            let promo = promoting & bit != 0;
            let dp = if pawns & bit != 0 { double_push } else { 0 };
            for to in Bitboard(t) {
                let to = u32::from(to);
                let cap = (((theirs >> to) & 1) as u16) << 2;
                let c = base | (to as u16) << 4;
                if promo {
                    for p in 0..4 {
                        codes[n & (MAX_MOVES - 1)] = c | flags::PROMOTION | cap | p;
                        n += 1;
                    }
                } else {
                    codes[n & (MAX_MOVES - 1)] = c | cap | ((dp >> to) & 1) as u16;
                    n += 1;
                }
            }
        }
    }
    out.len = n.min(MAX_MOVES);

    // Castling (as the king moving to the c- or g-file) and en passant: rare, inserted at
    // their place. Written out here because shakmaty's per-kind generators return a whole
    // move list by value, which costs more than the rest of the generation.
    let castles = pos.castles();
    if checkers.is_empty() && castles.has_color(us) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let Some(rook) = castles.rook(us, side) else {
                continue;
            };
            if (castles.path(us, side) & occ).any() {
                continue;
            }
            let king_to = side.king_to(us);
            let after = occ
                ^ Bitboard::from(king)
                ^ Bitboard::from(rook)
                ^ Bitboard::from(side.rook_to(us));
            if board.attacks_to(king_to, !us, after).any() {
                continue;
            }
            if attacks::between(king, king_to)
                .into_iter()
                .any(|sq| board.attacks_to(sq, !us, no_king).any())
            {
                continue;
            }
            let flag = match side {
                CastlingSide::KingSide => flags::KING_CASTLE,
                CastlingSide::QueenSide => flags::QUEEN_CASTLE,
            };
            out.insert_sorted(u16::from(king) << 10 | u16::from(king_to) << 4 | flag);
        }
    }
    if let Some(ep) = pos.maybe_ep_square() {
        let captured = match us {
            Color::White => ep.offset(-8),
            Color::Black => ep.offset(8),
        };
        if let Some(captured) = captured {
            let cb = Bitboard::from(captured);
            for from in attacks::pawn_attacks(!us, ep) & board.pawns() & ours {
                let after = (occ ^ Bitboard::from(from) ^ cb) | Bitboard::from(ep);
                // Our king must not be attacked once the move is made (the captured pawn
                // no longer attacks; sliders see the new occupancy).
                let attackers = board.attacks_to(king, !us, after) & !cb;
                if attackers.is_empty() {
                    out.insert_sorted(
                        u16::from(from) << 10 | u16::from(ep) << 4 | flags::EN_PASSANT,
                    );
                }
            }
        }
    }
}

/// The shakmaty move of a code that [`legal_codes`] produced for `pos`.
///
/// For other codes the result is some move that may not be legal: check membership first.
pub fn code_to_move(pos: &Chess, code: MoveCode) -> Move {
    let board = pos.board();
    make_move(pos, code, |sq| board.role_at(sq))
}

/// The shakmaty moves of many codes of one position (a visit list): the board's roles are
/// read once into a table by square, where [`code_to_move`] tests the role bitboards for
/// both squares of every code (a third of a full decode's time).
pub(crate) struct CodeMoves<'a> {
    pos: &'a Chess,
    roles: [Option<Role>; 64],
}

impl<'a> CodeMoves<'a> {
    pub(crate) fn new(pos: &'a Chess) -> Self {
        let board = pos.board();
        let mut roles = [None; 64];
        for role in Role::ALL {
            for sq in board.by_role(role) {
                roles[usize::from(sq)] = Some(role);
            }
        }
        CodeMoves { pos, roles }
    }

    /// [`code_to_move`] of `code`.
    pub(crate) fn get(&self, code: MoveCode) -> Move {
        make_move(self.pos, code, |sq| self.roles[usize::from(sq)])
    }
}

/// The move of `code` in `pos`, `role_at` giving the role on a square.
#[inline(always)]
fn make_move(pos: &Chess, code: MoveCode, role_at: impl Fn(Square) -> Option<Role>) -> Move {
    let from = Square::new(u32::from(code.from()));
    let to = Square::new(u32::from(code.to()));
    match code.flag() {
        flags::KING_CASTLE | flags::QUEEN_CASTLE => {
            let side = if code.flag() == flags::KING_CASTLE {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            match pos.castles().rook(pos.turn(), side) {
                Some(rook) => Move::Castle { king: from, rook },
                None => Move::Normal {
                    role: Role::King,
                    from,
                    capture: None,
                    to,
                    promotion: None,
                },
            }
        }
        flags::EN_PASSANT => Move::EnPassant { from, to },
        f => Move::Normal {
            role: role_at(from).unwrap_or(Role::Pawn),
            from,
            capture: role_at(to),
            to,
            promotion: (f & flags::PROMOTION != 0).then_some(match f & 3 {
                0 => Role::Knight,
                1 => Role::Bishop,
                2 => Role::Rook,
                _ => Role::Queen,
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::encode_move;
    use crate::synth::XorShift;
    use shakmaty::{CastlingMode, fen::Fen};

    fn by_shakmaty(pos: &Chess) -> Vec<u16> {
        let mut v: Vec<u16> = pos
            .legal_moves()
            .iter()
            .map(|&m| encode_move(m).0)
            .collect();
        v.sort_unstable();
        v
    }

    fn check_playouts(start: Chess, games: usize, rng: &mut XorShift) -> usize {
        let mut list = CodeList::new();
        let mut n = 0;
        for _ in 0..games {
            let mut pos = start.clone();
            for _ in 0..300 {
                legal_codes(&pos, &mut list);
                let expected = by_shakmaty(&pos);
                assert_eq!(
                    list.as_slice(),
                    &expected[..],
                    "{}",
                    Fen::from_position(&pos, shakmaty::EnPassantMode::Always)
                );
                n += 1;
                // Every legal code's move, from the table of roles: shakmaty's own move.
                let moves = CodeMoves::new(&pos);
                let mut made: Vec<Move> = list
                    .as_slice()
                    .iter()
                    .map(|&c| moves.get(MoveCode(c)))
                    .collect();
                let mut legal: Vec<Move> = pos.legal_moves().into_iter().collect();
                let order = |m: &Move| encode_move(*m).0;
                made.sort_by_key(order);
                legal.sort_by_key(order);
                assert_eq!(made, legal);
                if list.is_empty() {
                    break;
                }
                let c = list.as_slice()[rng.below(list.len() as u64) as usize];
                let mv = code_to_move(&pos, MoveCode(c));
                assert!(pos.is_legal(mv), "{mv:?}");
                assert_eq!(encode_move(mv).0, c);
                pos.play_unchecked(mv);
            }
        }
        n
    }

    #[test]
    fn same_moves_as_shakmaty_in_code_order() {
        let mut rng = XorShift(99);
        let mut n = 0;
        for (fen, mode) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
                CastlingMode::Standard,
            ),
            (
                "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w FDfd - 0 1",
                CastlingMode::Chess960,
            ),
            (
                "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
                CastlingMode::Chess960,
            ),
            (
                "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1",
                CastlingMode::Chess960,
            ),
            ("rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1", CastlingMode::Chess960),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                CastlingMode::Standard,
            ),
        ] {
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            n += check_playouts(start, 150, &mut rng);
        }
        assert!(n > 50_000, "{n}");
    }
}
