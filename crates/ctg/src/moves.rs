//! CTG move bytes: "the n-th piece of a kind moves by (dx, dy)" through chess-core's relative
//! moves, with CTG's table as data.
//!
//! Codes 0x1A and 0xF9 both mean "2nd queen, +6 ranks" in every known table (the description's
//! "+6 files" for 0xF9 is a typo there, and "+6 files" has no code). A reader tries the other
//! meaning when the first is illegal; the writer never emits "+6 files"
//! (the chessfmt format notes, CTG).

use std::sync::LazyLock;

use chess_core::relative_move::{RelativeMove as C, RelativeMoveTable};
use shakmaty::{CastlingSide, Chess, Move, Role};

fn p(role: Role, index: u8, dx: i32, dy: i32) -> C {
    C::piece(role, index, dx, dy)
}

/// The table of the description (`specs/ctg.ru.txt`), code → (piece kind, 0-based n-th piece
/// in file-major order, dx, dy), with 0xF9 corrected as the chessfmt format notes say.
fn entries() -> Vec<(u8, C)> {
    use Role::*;
    vec![
        (0xec, p(Pawn, 0, 0, 1)),
        (0xdb, p(Pawn, 0, 0, 2)),
        (0x8b, p(Pawn, 0, 1, 1)),
        (0x0c, p(Pawn, 0, 7, 1)),
        (0x04, p(Pawn, 1, 0, 1)),
        (0x62, p(Pawn, 1, 0, 2)),
        (0x96, p(Pawn, 1, 1, 1)),
        (0xd1, p(Pawn, 1, 7, 1)),
        (0x55, p(Pawn, 2, 0, 1)),
        (0x9b, p(Pawn, 2, 0, 2)),
        (0x7c, p(Pawn, 2, 1, 1)),
        (0x27, p(Pawn, 2, 7, 1)),
        (0xcf, p(Pawn, 3, 0, 1)),
        (0xe6, p(Pawn, 3, 0, 2)),
        (0xeb, p(Pawn, 3, 1, 1)),
        (0x06, p(Pawn, 3, 7, 1)),
        (0xbb, p(Pawn, 4, 0, 1)),
        (0x5f, p(Pawn, 4, 0, 2)),
        (0x00, p(Pawn, 4, 1, 1)),
        (0xde, p(Pawn, 4, 7, 1)),
        (0xcb, p(Pawn, 5, 0, 1)),
        (0xb1, p(Pawn, 5, 0, 2)),
        (0x2d, p(Pawn, 5, 1, 1)),
        (0x82, p(Pawn, 5, 7, 1)),
        (0x18, p(Pawn, 6, 0, 1)),
        (0xc8, p(Pawn, 6, 0, 2)),
        (0x5c, p(Pawn, 6, 1, 1)),
        (0xc7, p(Pawn, 6, 7, 1)),
        (0xa3, p(Pawn, 7, 0, 1)),
        (0x4a, p(Pawn, 7, 0, 2)),
        (0x14, p(Pawn, 7, 1, 1)),
        (0x24, p(Pawn, 7, 7, 1)),
        (0x34, p(Knight, 0, 1, 2)),
        (0x85, p(Knight, 0, 7, 2)),
        (0x36, p(Knight, 0, 2, 1)),
        (0xf7, p(Knight, 0, 6, 1)),
        (0xe9, p(Knight, 0, 2, 7)),
        (0x0f, p(Knight, 0, 6, 7)),
        (0x8a, p(Knight, 0, 1, 6)),
        (0xda, p(Knight, 0, 7, 6)),
        (0x4c, p(Knight, 1, 1, 2)),
        (0xf3, p(Knight, 1, 7, 2)),
        (0xd2, p(Knight, 1, 2, 1)),
        (0xd3, p(Knight, 1, 6, 1)),
        (0xe0, p(Knight, 1, 2, 7)),
        (0x01, p(Knight, 1, 6, 7)),
        (0x2a, p(Knight, 1, 1, 6)),
        (0x30, p(Knight, 1, 7, 6)),
        (0x2e, p(Bishop, 0, 1, 1)),
        (0xc1, p(Bishop, 0, 2, 2)),
        (0x0d, p(Bishop, 0, 3, 3)),
        (0x6a, p(Bishop, 0, 4, 4)),
        (0x15, p(Bishop, 0, 5, 5)),
        (0x3a, p(Bishop, 0, 6, 6)),
        (0x12, p(Bishop, 0, 7, 7)),
        (0x1b, p(Bishop, 0, 7, 1)),
        (0xc3, p(Bishop, 0, 6, 2)),
        (0x66, p(Bishop, 0, 5, 3)),
        (0x3c, p(Bishop, 0, 3, 5)),
        (0xb2, p(Bishop, 0, 2, 6)),
        (0x26, p(Bishop, 0, 1, 7)),
        (0xf5, p(Bishop, 1, 1, 1)),
        (0xc2, p(Bishop, 1, 2, 2)),
        (0xb9, p(Bishop, 1, 3, 3)),
        (0x9f, p(Bishop, 1, 4, 4)),
        (0x32, p(Bishop, 1, 5, 5)),
        (0x09, p(Bishop, 1, 6, 6)),
        (0x1d, p(Bishop, 1, 7, 7)),
        (0x54, p(Bishop, 1, 7, 1)),
        (0x22, p(Bishop, 1, 6, 2)),
        (0xca, p(Bishop, 1, 5, 3)),
        (0xcc, p(Bishop, 1, 3, 5)),
        (0x79, p(Bishop, 1, 2, 6)),
        (0x72, p(Bishop, 1, 1, 7)),
        (0x81, p(Rook, 0, 0, 1)),
        (0xe8, p(Rook, 0, 0, 2)),
        (0x7a, p(Rook, 0, 0, 3)),
        (0x99, p(Rook, 0, 0, 4)),
        (0x87, p(Rook, 0, 0, 5)),
        (0x50, p(Rook, 0, 0, 6)),
        (0xe1, p(Rook, 0, 0, 7)),
        (0x7f, p(Rook, 0, 1, 0)),
        (0xcd, p(Rook, 0, 2, 0)),
        (0x98, p(Rook, 0, 3, 0)),
        (0xef, p(Rook, 0, 4, 0)),
        (0x6e, p(Rook, 0, 5, 0)),
        (0x52, p(Rook, 0, 6, 0)),
        (0x86, p(Rook, 0, 7, 0)),
        (0x7d, p(Rook, 1, 0, 1)),
        (0xf4, p(Rook, 1, 0, 2)),
        (0xe3, p(Rook, 1, 0, 3)),
        (0xc5, p(Rook, 1, 0, 4)),
        (0xa5, p(Rook, 1, 0, 5)),
        (0x7b, p(Rook, 1, 0, 6)),
        (0x69, p(Rook, 1, 0, 7)),
        (0xc4, p(Rook, 1, 1, 0)),
        (0xa9, p(Rook, 1, 2, 0)),
        (0x0e, p(Rook, 1, 3, 0)),
        (0xad, p(Rook, 1, 4, 0)),
        (0xb5, p(Rook, 1, 5, 0)),
        (0xd8, p(Rook, 1, 6, 0)),
        (0x21, p(Rook, 1, 7, 0)),
        (0x05, p(Queen, 0, 0, 1)),
        (0x9d, p(Queen, 0, 0, 2)),
        (0x94, p(Queen, 0, 0, 3)),
        (0x37, p(Queen, 0, 0, 4)),
        (0xb7, p(Queen, 0, 0, 5)),
        (0x9a, p(Queen, 0, 0, 6)),
        (0xfd, p(Queen, 0, 0, 7)),
        (0x2f, p(Queen, 0, 1, 0)),
        (0x74, p(Queen, 0, 2, 0)),
        (0x31, p(Queen, 0, 3, 0)),
        (0xe5, p(Queen, 0, 4, 0)),
        (0x39, p(Queen, 0, 5, 0)),
        (0x29, p(Queen, 0, 6, 0)),
        (0x8f, p(Queen, 0, 7, 0)),
        (0xf1, p(Queen, 0, 1, 1)),
        (0xa2, p(Queen, 0, 2, 2)),
        (0x45, p(Queen, 0, 3, 3)),
        (0xe7, p(Queen, 0, 4, 4)),
        (0x28, p(Queen, 0, 5, 5)),
        (0x61, p(Queen, 0, 6, 6)),
        (0xed, p(Queen, 0, 7, 7)),
        (0xd7, p(Queen, 0, 7, 1)),
        (0xd9, p(Queen, 0, 6, 2)),
        (0x7e, p(Queen, 0, 5, 3)),
        (0x4b, p(Queen, 0, 3, 5)),
        (0x80, p(Queen, 0, 2, 6)),
        (0x42, p(Queen, 0, 1, 7)),
        (0x4d, p(Queen, 1, 0, 1)),
        (0xbd, p(Queen, 1, 0, 2)),
        (0xa0, p(Queen, 1, 0, 3)),
        (0xb0, p(Queen, 1, 0, 4)),
        (0xc6, p(Queen, 1, 0, 5)),
        (0x1a, p(Queen, 1, 0, 6)),
        (0xc9, p(Queen, 1, 0, 7)),
        (0xf8, p(Queen, 1, 1, 0)),
        (0x03, p(Queen, 1, 2, 0)),
        (0xfa, p(Queen, 1, 3, 0)),
        (0x08, p(Queen, 1, 4, 0)),
        (0xbc, p(Queen, 1, 5, 0)),
        (0xf9, p(Queen, 1, 0, 6)),
        (0xf0, p(Queen, 1, 7, 0)),
        (0x92, p(Queen, 1, 1, 1)),
        (0xfb, p(Queen, 1, 2, 2)),
        (0xae, p(Queen, 1, 3, 3)),
        (0x38, p(Queen, 1, 4, 4)),
        (0x41, p(Queen, 1, 5, 5)),
        (0x23, p(Queen, 1, 6, 6)),
        (0x6f, p(Queen, 1, 7, 7)),
        (0xee, p(Queen, 1, 7, 1)),
        (0x8e, p(Queen, 1, 6, 2)),
        (0xfe, p(Queen, 1, 5, 3)),
        (0x3b, p(Queen, 1, 3, 5)),
        (0xab, p(Queen, 1, 2, 6)),
        (0x63, p(Queen, 1, 1, 7)),
        (0x13, p(King, 0, 0, 1)),
        (0x67, p(King, 0, 1, 1)),
        (0xdf, p(King, 0, 7, 1)),
        (0xbe, p(King, 0, 1, 0)),
        (0x97, p(King, 0, 7, 0)),
        (0x0a, p(King, 0, 0, 7)),
        (0x44, p(King, 0, 1, 7)),
        (0x8c, p(King, 0, 7, 7)),
        (0x6b, C::Castle(CastlingSide::KingSide)),
        (0xf6, C::Castle(CastlingSide::QueenSide)),
    ]
}

/// CTG's move table.
pub static TABLE: LazyLock<RelativeMoveTable> = LazyLock::new(|| {
    let alt = p(Role::Queen, 1, 6, 0);
    RelativeMoveTable::new(&entries())
        .with_alternative(0x1a, alt)
        .with_alternative(0xf9, alt)
});

/// Decodes a move code in a normalised position (White to move), choosing among its legal
/// moves `legal`. `None` when the code has no meaning or its meaning is illegal.
pub fn decode(pos: &Chess, legal: &[Move], code: u8) -> Option<Move> {
    TABLE.decode_among(pos, legal, code)
}

/// Encodes a legal move of a normalised position; `None` when CTG has no code for it
/// (a third knight, an under-promotion, the second queen moving six files…).
pub fn encode(pos: &Chess, m: Move) -> Option<u8> {
    TABLE.encode(pos, m)
}

/// The meaning of a code, if it has one (its primary meaning for 0x1A/0xF9).
pub fn meaning(code: u8) -> Option<C> {
    TABLE.relative(code)
}

/// The annotation NAG of an annotation byte: its low 5 bits (books set the top bits).
pub fn nag(annotation: u8) -> u8 {
    annotation & 0x1f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_shape() {
        assert_eq!(TABLE.len(), 166);
        assert_eq!(meaning(0x1a), meaning(0xf9));
        assert_eq!(meaning(0x6b), Some(C::Castle(CastlingSide::KingSide)));
        // Encoding picks 0x1a for "2nd queen +6 ranks".
        assert_eq!(TABLE.code(p(Role::Queen, 1, 0, 6)), Some(0x1a));
        assert_eq!(TABLE.code(p(Role::Queen, 1, 6, 0)), None);
        assert_eq!(nag(0xe3), 3);
    }
}
