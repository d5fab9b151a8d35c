//! Kvetka move bytes: "the n-th piece of a kind moves by (dx, dy)" (wrap-around mod 8) through
//! chess-core's relative moves, with Kvetka's table as data.
//!
//! The table of `specs/kvetka.ru.txt` is regular, so it is written below as the description
//! lists it: per piece, its steps in the listed order. Codes 0x3A, 0x48, 0x80, 0x9C and 0xB8 are
//! absent on purpose: a bishop or queen step (+4, +4) equals (+4, −4) mod 8, so the second
//! diagonal skips it (the chessfmt format notes, Kvetka). A pawn reaching the last rank always
//! becomes a queen; under-promotions, a fourth queen and a third knight, bishop or rook have no
//! code (such moves are skipped and counted by the builders).

use std::sync::LazyLock;

use chess_core::relative_move::{RelativeMove, RelativeMoveTable};
use shakmaty::{CastlingSide, Chess, Move, Role};

/// Pawn steps, in table order.
const PAWN: [(i32, i32); 4] = [(0, 1), (0, 2), (1, 1), (7, 1)];
/// Knight steps, in table order.
const KNIGHT: [(i32, i32); 8] = [
    (1, 2),
    (7, 2),
    (2, 1),
    (6, 1),
    (2, 7),
    (6, 7),
    (1, 6),
    (7, 6),
];
/// Rook steps: up 1..7, then right 1..7.
const ROOK: [(i32, i32); 14] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (0, 5),
    (0, 6),
    (0, 7),
    (1, 0),
    (2, 0),
    (3, 0),
    (4, 0),
    (5, 0),
    (6, 0),
    (7, 0),
];
/// Bishop steps: the main diagonal 1..7, then the other one (+7, +1) … (+1, +7), where the
/// (+4, +4) slot has no code.
const BISHOP: [Option<(i32, i32)>; 14] = [
    Some((1, 1)),
    Some((2, 2)),
    Some((3, 3)),
    Some((4, 4)),
    Some((5, 5)),
    Some((6, 6)),
    Some((7, 7)),
    Some((7, 1)),
    Some((6, 2)),
    Some((5, 3)),
    None, // 0x3A, 0x48, and the queens' 0x80, 0x9C, 0xB8
    Some((3, 5)),
    Some((2, 6)),
    Some((1, 7)),
];
/// King steps, in table order (0xBC…0xC3); castling follows (0xC4 O-O, 0xC5 O-O-O).
const KING: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (7, 1),
    (1, 0),
    (7, 0),
    (0, 7),
    (1, 7),
    (7, 7),
];

/// The table's entries: code → relative move, in code order.
pub fn entries() -> Vec<(u8, RelativeMove)> {
    let mut out = Vec::with_capacity(198);
    let mut code = 0u8;
    let mut push = |m: Option<RelativeMove>| {
        if let Some(m) = m {
            out.push((code, m));
        }
        code = code.wrapping_add(1);
    };
    let p = |role, index, (dx, dy): (i32, i32)| Some(RelativeMove::piece(role, index, dx, dy));
    for index in 0..8 {
        PAWN.iter().for_each(|&d| push(p(Role::Pawn, index, d)));
    }
    for index in 0..2 {
        KNIGHT.iter().for_each(|&d| push(p(Role::Knight, index, d)));
    }
    for index in 0..2 {
        BISHOP
            .iter()
            .for_each(|d| push(d.and_then(|d| p(Role::Bishop, index, d))));
    }
    for index in 0..2 {
        ROOK.iter().for_each(|&d| push(p(Role::Rook, index, d)));
    }
    for index in 0..3 {
        ROOK.iter().for_each(|&d| push(p(Role::Queen, index, d)));
        BISHOP
            .iter()
            .for_each(|d| push(d.and_then(|d| p(Role::Queen, index, d))));
    }
    KING.iter().for_each(|&d| push(p(Role::King, 0, d)));
    push(Some(RelativeMove::Castle(CastlingSide::KingSide)));
    push(Some(RelativeMove::Castle(CastlingSide::QueenSide)));
    out
}

/// Kvetka's move table.
pub static TABLE: LazyLock<RelativeMoveTable> =
    LazyLock::new(|| RelativeMoveTable::new(&entries()));

/// The move a code stands for in a normalised (White-to-move) position, if the code exists and
/// the move is legal.
pub fn decode(pos: &Chess, code: u8) -> Option<Move> {
    TABLE.decode(pos, code)
}

/// Like [`decode`], with the legal moves already generated.
pub fn decode_among(pos: &Chess, legal: &[Move], code: u8) -> Option<Move> {
    TABLE.decode_among(pos, legal, code)
}

/// The code of a legal move of a normalised position, if the table has one (promotions count as
/// queen promotions only).
pub fn encode(pos: &Chess, m: Move) -> Option<u8> {
    TABLE.encode(pos, m)
}

/// The code of a legal move of **any** position (either side to move), as it is stored in
/// the element of the normalised position: the same as [`encode`] on the normalised position
/// and move, computed without building the normalised position (the builders' fast path).
pub fn encode_real(pos: &Chess, m: Move) -> Option<u8> {
    use chess_core::normalize::Transform;
    use shakmaty::Position;
    if let Move::Castle { .. } = m {
        // Castling implies rights, so the files are never mirrored; the side is kept.
        return TABLE.code(RelativeMove::Castle(m.castling_side()?));
    }
    if matches!(m.promotion(), Some(r) if r != Role::Queen) {
        return None;
    }
    let t = Transform::for_position(pos);
    let from = t.square(m.from()?);
    let to = t.square(m.to());
    let ours = t.bitboard(pos.board().by_piece(m.role().of(pos.turn())));
    let file_major = chess_core::huffman::file_major_index;
    let key = file_major(from);
    let index = ours.into_iter().filter(|&sq| file_major(sq) < key).count();
    let dx = to.file().to_u32() as i32 - from.file().to_u32() as i32;
    let dy = to.rank().to_u32() as i32 - from.rank().to_u32() as i32;
    TABLE.code(RelativeMove::piece(
        m.role(),
        u8::try_from(index).ok()?,
        dx,
        dy,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_encoding_equals_normalise_then_encode() {
        use chess_core::normalize::normalize;
        use shakmaty::Position;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _game in 0..80 {
            let mut pos = Chess::default();
            for _ply in 0..150 {
                let n = normalize(&pos);
                let legal = pos.legal_moves();
                for &m in &legal {
                    let slow = encode(&n.position, n.transform.apply_move(m));
                    assert_eq!(encode_real(&pos, m), slow, "{m:?} in {pos:?}");
                    if let Some(code) = slow {
                        assert_eq!(
                            decode(&n.position, code).map(|x| n.transform.apply_move(x)),
                            Some(m)
                        );
                    }
                }
                if legal.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.play_unchecked(legal[(seed % legal.len() as u64) as usize]);
            }
        }
    }

    #[test]
    fn table_matches_the_description() {
        let t = &*TABLE;
        // 0x00..=0xC5 minus the five missing codes.
        assert_eq!(t.len(), 0xc6 - 5);
        for code in [0x3a, 0x48, 0x80, 0x9c, 0xb8] {
            assert_eq!(t.relative(code), None, "{code:#x}");
        }
        for code in 0xc6..=0xff {
            assert_eq!(t.relative(code), None);
        }
        // Rows copied from the description.
        let rows: [(u8, Role, u8, i32, i32); 24] = [
            (0x00, Role::Pawn, 0, 0, 1),
            (0x07, Role::Pawn, 1, 7, 1),
            (0x1d, Role::Pawn, 7, 0, 2),
            (0x20, Role::Knight, 0, 1, 2),
            (0x25, Role::Knight, 0, 6, 7),
            (0x2f, Role::Knight, 1, 7, 6),
            (0x30, Role::Bishop, 0, 1, 1),
            (0x39, Role::Bishop, 0, 5, 3),
            (0x3b, Role::Bishop, 0, 3, 5),
            (0x3e, Role::Bishop, 1, 1, 1),
            (0x47, Role::Bishop, 1, 5, 3),
            (0x49, Role::Bishop, 1, 3, 5),
            (0x4b, Role::Bishop, 1, 1, 7),
            (0x4c, Role::Rook, 0, 0, 1),
            (0x59, Role::Rook, 0, 7, 0),
            (0x67, Role::Rook, 1, 7, 0),
            (0x68, Role::Queen, 0, 0, 1),
            (0x7f, Role::Queen, 0, 5, 3),
            (0x81, Role::Queen, 0, 3, 5),
            (0x84, Role::Queen, 1, 0, 1),
            (0x9f, Role::Queen, 1, 1, 7),
            (0xa0, Role::Queen, 2, 0, 1),
            (0xbb, Role::Queen, 2, 1, 7),
            (0xc3, Role::King, 0, 7, 7),
        ];
        for (code, role, index, dx, dy) in rows {
            assert_eq!(
                t.relative(code),
                Some(RelativeMove::piece(role, index, dx, dy)),
                "{code:#x}"
            );
        }
        assert_eq!(
            t.relative(0xbc),
            Some(RelativeMove::piece(Role::King, 0, 0, 1))
        );
        assert_eq!(
            t.relative(0xc4),
            Some(RelativeMove::Castle(CastlingSide::KingSide))
        );
        assert_eq!(
            t.relative(0xc5),
            Some(RelativeMove::Castle(CastlingSide::QueenSide))
        );
    }
}
