//! The Huffman board code shared by CTG and Kvetka books.
//!
//! Squares are visited file-major (a1, a2, …, a8, b1, …, h8). Each square is written MSB-first
//! as `0` (empty), `11c` (pawn), `1011c` (rook), `1010c` (bishop), `1001c` (knight),
//! `10001c` (queen) or `10000c` (king), where `c` is 0 for White and 1 for Black.
//!
//! This module holds what both formats use: the bit codec ([`encode_board`], [`decode_board`]),
//! the stored form of a position ([`HuffmanPosition`]) with the one rule that turns it back into
//! a [`Chess`] ([`HuffmanPosition::to_position`]), and the allocation-free
//! writer of a position's normalised code ([`write_normalised_code`], [`put_bits`]) that the
//! formats' fast key functions build on. The two framings around the board bits live in their
//! crates: `ctg::position` (a header byte, flags at the end of the last byte) and
//! `kvetka_book::position` (exactly 22 bytes).
//!
//! See the chessfmt format notes, "Shared by several formats".

use bitvec::prelude::*;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Piece,
    PositionError, PositionErrorKinds, Rank, Role, Setup, Square,
};

use crate::error::ParseError;

/// An MSB-first bit vector, the bit order of both framings.
pub type Bits = BitVec<u8, Msb0>;

/// The 4 castling flags of the Huffman framings, in stream order: black O-O, black O-O-O,
/// white O-O, white O-O-O.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CastlingFlags {
    /// Black may castle king-side.
    pub black_king: bool,
    /// Black may castle queen-side.
    pub black_queen: bool,
    /// White may castle king-side.
    pub white_king: bool,
    /// White may castle queen-side.
    pub white_queen: bool,
}

impl CastlingFlags {
    /// No castling rights.
    pub const NONE: CastlingFlags = CastlingFlags {
        black_king: false,
        black_queen: false,
        white_king: false,
        white_queen: false,
    };

    /// The flags as a 4-bit number in stream order (black O-O is the most significant bit).
    pub fn to_nibble(self) -> u8 {
        u8::from(self.black_king) << 3
            | u8::from(self.black_queen) << 2
            | u8::from(self.white_king) << 1
            | u8::from(self.white_queen)
    }

    /// The flags from a 4-bit number in stream order (higher bits ignored).
    pub fn from_nibble(n: u8) -> Self {
        CastlingFlags {
            black_king: n & 8 != 0,
            black_queen: n & 4 != 0,
            white_king: n & 2 != 0,
            white_queen: n & 1 != 0,
        }
    }

    /// Whether any right is set.
    pub fn any(self) -> bool {
        self.to_nibble() != 0
    }

    /// The flags of a setup: a castling rook on the king's right is a king-side right
    /// (this also covers Chess960 rook files).
    pub fn from_setup(setup: &Setup) -> Self {
        let mut flags = CastlingFlags::NONE;
        for color in Color::ALL {
            let back = Bitboard::from_rank(color.fold_wb(Rank::First, Rank::Eighth));
            let Some(king) = setup.board.king_of(color) else {
                continue;
            };
            for rook in setup.castling_rights & back {
                let king_side = rook.file() > king.file();
                match (color, king_side) {
                    (Color::White, true) => flags.white_king = true,
                    (Color::White, false) => flags.white_queen = true,
                    (Color::Black, true) => flags.black_king = true,
                    (Color::Black, false) => flags.black_queen = true,
                }
            }
        }
        flags
    }

    /// The standard-chess castling rights bitboard (rooks on the corners) of these flags.
    pub fn to_standard_rights(self) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for (on, sq) in [
            (self.white_king, Square::H1),
            (self.white_queen, Square::A1),
            (self.black_king, Square::H8),
            (self.black_queen, Square::A8),
        ] {
            if on {
                bb.add(sq);
            }
        }
        bb
    }
}

/// What the Huffman framings store: pieces, en-passant file and castling flags (no side to move:
/// both formats store positions normalised to White to move).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HuffmanPosition {
    /// The pieces.
    pub board: Board,
    /// The en-passant file, when stored.
    pub ep_file: Option<File>,
    /// The castling flags.
    pub castling: CastlingFlags,
}

impl HuffmanPosition {
    /// The stored form of a position that is already normalised (White to move): its board,
    /// castling flags, and the en-passant file only when an en-passant capture is legal (CTG's
    /// rule).
    pub fn from_position(pos: &Chess) -> Self {
        HuffmanPosition::from_position_with(pos, EnPassantMode::Legal)
    }

    /// [`HuffmanPosition::from_position`] with the en-passant file stored by `ep_mode`: Kvetka
    /// stores it whenever an enemy pawn stands beside the pawn that just moved two squares,
    /// whether or not the capture is legal ([`EnPassantMode::PseudoLegal`]).
    pub fn from_position_with(pos: &Chess, ep_mode: EnPassantMode) -> Self {
        use shakmaty::Position;
        HuffmanPosition {
            board: pos.board().clone(),
            ep_file: pos.ep_square(ep_mode).map(Square::file),
            castling: CastlingFlags::from_setup(&pos.to_setup(EnPassantMode::Legal)),
        }
    }

    /// A White-to-move [`Setup`] with standard castling rights and the en-passant square on the
    /// sixth rank.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            castling_rights: self.castling.to_standard_rights(),
            ep_square: self.ep_file.map(|f| Square::from_coords(f, Rank::Sixth)),
            ..Setup::empty()
        }
    }

    /// The White-to-move position this stands for, by the one rule of the family (CTG and
    /// Kvetka readers alike): standard chess; castling flags whose king or rook is not on its
    /// home square, and an en-passant file with no pawn that can just have moved two squares,
    /// are dropped (both formats store flags the board may not support: Kvetka records an
    /// en-passant file by the pseudo-legal rule, and hand-made books set flags freely); any
    /// other illegality (missing king, side not to move in check, …) is an error, given as
    /// shakmaty's reasons.
    pub fn to_position(&self) -> Result<Chess, PositionErrorKinds> {
        Chess::from_setup(self.to_setup(), CastlingMode::Standard)
            .or_else(PositionError::ignore_invalid_castling_rights)
            .or_else(PositionError::ignore_invalid_ep_square)
            .map_err(|e| e.kinds())
    }
}

/// The square with file-major index `i` (a1 = 0, a2 = 1, …, b1 = 8, …, h8 = 63), the square
/// numbering of CTG, Kvetka and ChessBase; only the low six bits of `i` count.
pub fn file_major_square(i: u32) -> Square {
    Square::from_coords(File::new(i >> 3 & 7), Rank::new(i & 7))
}

/// The file-major index of a square (a1 = 0, a2 = 1, …, b1 = 8, …, h8 = 63).
pub fn file_major_index(sq: Square) -> u32 {
    sq.file().to_u32() * 8 + sq.rank().to_u32()
}

/// Squares in the file-major order of the code: a1, a2, …, a8, b1, …, h8.
pub fn file_major_squares() -> impl Iterator<Item = Square> {
    File::ALL.into_iter().flat_map(|f| {
        Rank::ALL
            .into_iter()
            .map(move |r| Square::from_coords(f, r))
    })
}

fn code_of(role: Role) -> (u8, usize) {
    // (code bits without the colour bit, number of those bits)
    match role {
        Role::Pawn => (0b11, 2),
        Role::Rook => (0b1011, 4),
        Role::Bishop => (0b1010, 4),
        Role::Knight => (0b1001, 4),
        Role::Queen => (0b10001, 5),
        Role::King => (0b10000, 5),
    }
}

/// The number of bits [`encode_board`] writes for `board`.
pub fn board_bit_len(board: &Board) -> usize {
    let empty = 64 - board.occupied().count();
    let sizes = [
        (board.pawns(), 3),
        (board.rooks() | board.bishops() | board.knights(), 5),
        (board.queens() | board.kings(), 6),
    ];
    empty + sizes.iter().map(|(bb, n)| bb.count() * n).sum::<usize>()
}

/// Appends the code of `board` to `out`.
pub fn encode_board(board: &Board, out: &mut Bits) {
    for sq in file_major_squares() {
        match board.piece_at(sq) {
            None => out.push(false),
            Some(Piece { color, role }) => {
                let (code, n) = code_of(role);
                for i in (0..n).rev() {
                    out.push(code >> i & 1 == 1);
                }
                out.push(color == Color::Black);
            }
        }
    }
}

/// Decodes a board from the start of `bits`; returns it and the number of bits read.
///
/// Errors when the bits end before all 64 squares are decoded (the error's offset is the byte
/// holding the missing bit). The code is complete, so every bit string decodes; whether the
/// board is a legal chess position is for the caller to check.
pub fn decode_board(bits: &BitSlice<u8, Msb0>) -> Result<(Board, usize), ParseError> {
    let mut board = Board::empty();
    let mut i = 0;
    let next = |i: &mut usize| -> Result<bool, ParseError> {
        let b = bits.get(*i).map(|b| *b).ok_or_else(|| {
            ParseError::new(
                (*i / 8) as u64,
                "more board bits",
                "end of the encoded board",
            )
        })?;
        *i += 1;
        Ok(b)
    };
    for sq in file_major_squares() {
        if !next(&mut i)? {
            continue;
        }
        let role = if next(&mut i)? {
            Role::Pawn
        } else if !next(&mut i)? {
            // 100…
            if next(&mut i)? {
                Role::Knight // 1001
            } else if next(&mut i)? {
                Role::Queen // 10001
            } else {
                Role::King // 10000
            }
        } else if next(&mut i)? {
            Role::Rook // 1011
        } else {
            Role::Bishop // 1010
        };
        let color = Color::from_white(!next(&mut i)?);
        board.set_piece_at(sq, Piece { color, role });
    }
    Ok((board, i))
}

/// Appends the low `n` (≤ 8) bits of `value` to `out`, MSB first.
pub fn push_bits(out: &mut Bits, value: u8, n: usize) {
    for i in (0..n.min(8)).rev() {
        out.push(value >> i & 1 == 1);
    }
}

/// Reads `n` (≤ 8) bits MSB first from bit `start` of `bits`; bits past the end read as 0.
pub fn read_bits(bits: &BitSlice<u8, Msb0>, start: usize, n: usize) -> u8 {
    (start..start + n.min(8)).fold(0, |acc, i| {
        acc << 1 | u8::from(bits.get(i).is_some_and(|b| *b))
    })
}

/// Size of the buffer [`write_normalised_code`] writes into: 512 bits, room for the longest
/// board code (64 squares of 6 bits = 384 bits) after a start of up to 64 bits, so the writer
/// needs no length check (a legal position's code is at most 192 bits).
pub const CODE_BUFFER_LEN: usize = 64;

/// The latest bit [`write_normalised_code`] may start at.
pub const MAX_CODE_START: usize = 64;

/// What [`write_normalised_code`] wrote and found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct NormalisedCode {
    /// The bit after the board code.
    pub end_bit: usize,
    /// The en-passant file of the normalised position (by the `ep_mode` asked for).
    pub ep_file: Option<File>,
    /// The castling flags of the normalised position.
    pub castling: CastlingFlags,
}

/// Writes the board code of `pos` normalised to White to move (colours swapped when Black is
/// to move, files mirrored when there are no castling rights and the mover's king is on files
/// a–d, as [`normalize`](crate::normalize::normalize) does) into the zeroed buffer `out` from
/// bit `bit` on, without building the normalised position or allocating: the fast path of the
/// CTG and Kvetka key functions, which add their framing around it.
///
/// `None` when `bit` is not on a byte boundary or is past [`MAX_CODE_START`]; the framing
/// checks its own length limit against [`NormalisedCode::end_bit`].
pub fn write_normalised_code(
    pos: &Chess,
    ep_mode: EnPassantMode,
    out: &mut [u8; CODE_BUFFER_LEN],
    mut bit: usize,
) -> Option<NormalisedCode> {
    use shakmaty::Position;
    let board = pos.board();
    if !bit.is_multiple_of(8) || bit > MAX_CODE_START {
        return None;
    }
    let flip = pos.turn() == Color::Black;
    let rights = pos.castles().castling_rights();
    let mirror = rights.is_empty()
        && board
            .king_of(pos.turn())
            .is_some_and(|k| k.file() <= File::D);
    // The occupied squares by normalised (file-major) index, with their codes (the colour
    // bit last). An empty square is one 0 bit, so a piece's code starts at `bit` + its index +
    // the bits the codes of the pieces before it take beyond one: only the pieces are visited,
    // their codes ORed into the zeroed buffer (at most 6 bits, so two bytes).
    let mut codes = [0u8; 64];
    let mut lens = [0u8; 64];
    let mut occupied = 0u64;
    for color in Color::ALL {
        let black = (color == Color::Black) != flip;
        for role in Role::ALL {
            let (code, n) = code_of(role);
            let (entry, len) = (code << 1 | u8::from(black), n as u8 + 1);
            for sq in board.by_piece(Piece { color, role }) {
                let rank = sq.rank().to_u32() ^ if flip { 7 } else { 0 };
                let file = sq.file().to_u32() ^ if mirror { 7 } else { 0 };
                let at = (file * 8 + rank) as usize;
                codes[at] = entry;
                lens[at] = len;
                occupied |= 1 << at;
            }
        }
    }
    let mut extra = 0usize;
    for at in Bitboard(occupied) {
        let at = usize::from(at);
        let (code, len) = (u16::from(codes[at]), usize::from(lens[at]));
        let from = bit + at + extra;
        let bits = code << (16 - len) >> (from % 8);
        out[from / 8] |= (bits >> 8) as u8;
        out[from / 8 + 1] |= bits as u8;
        extra += len - 1;
    }
    bit += 64 + extra;
    let ep_file = pos.ep_square(ep_mode).map(|sq| {
        if mirror {
            sq.file().flip_horizontal()
        } else {
            sq.file()
        }
    });
    let mut castling = CastlingFlags::NONE;
    for color in Color::ALL {
        let Some(king) = board.king_of(color) else {
            continue;
        };
        let back = Bitboard::from_rank(color.fold_wb(Rank::First, Rank::Eighth));
        for rook in rights & back {
            let king_side = rook.file() > king.file();
            let white = (color == Color::White) != flip;
            match (white, king_side) {
                (true, true) => castling.white_king = true,
                (true, false) => castling.white_queen = true,
                (false, true) => castling.black_king = true,
                (false, false) => castling.black_queen = true,
            }
        }
    }
    Some(NormalisedCode {
        end_bit: bit,
        ep_file,
        castling,
    })
}

/// Writes the low `n` bits of `value`, MSB first, at bit `*bit` of the zeroed buffer `out`
/// and advances `*bit`; bits past the buffer's end are dropped.
pub fn put_bits(value: u32, n: usize, out: &mut [u8; CODE_BUFFER_LEN], bit: &mut usize) {
    for i in (0..n.min(32)).rev() {
        if value >> i & 1 == 1
            && let Some(byte) = out.get_mut(*bit / 8)
        {
            *byte |= 0x80 >> (*bit % 8);
        }
        *bit += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_board_code() {
        let mut bits = Bits::new();
        encode_board(&Board::new(), &mut bits);
        assert_eq!(bits.len(), 164);
        assert_eq!(board_bit_len(&Board::new()), 164);
        // a1 = white rook 10110, a2 = white pawn 110.
        assert_eq!(read_bits(&bits, 0, 8), 0b1011_0110);
        assert_eq!(decode_board(&bits).unwrap(), (Board::new(), 164));
        // Too few bits: an error naming the byte, never a panic.
        assert!(decode_board(&bits[..100]).is_err());
    }

    #[test]
    fn fast_code_equals_normalise_then_encode() {
        use crate::normalize::normalize;
        use shakmaty::Position;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _game in 0..40 {
            let mut pos = Chess::default();
            for _ply in 0..120 {
                let n = normalize(&pos);
                let mut slow = Bits::new();
                encode_board(n.position.board(), &mut slow);
                let mut out = [0; CODE_BUFFER_LEN];
                let code = write_normalised_code(&pos, EnPassantMode::Legal, &mut out, 8).unwrap();
                assert_eq!(code.end_bit, 8 + slow.len());
                let fast = &out.view_bits::<Msb0>()[8..code.end_bit];
                assert_eq!(fast, &slow[..], "{pos:?}");
                let hp = HuffmanPosition::from_position(&n.position);
                assert_eq!((code.ep_file, code.castling), (hp.ep_file, hp.castling));
                assert_eq!(hp.to_position().unwrap(), n.position);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
            }
        }
    }

    #[test]
    fn to_position_drops_flags_the_board_does_not_support() {
        let mut board = Board::empty();
        board.set_piece_at(Square::E1, Color::White.king());
        board.set_piece_at(Square::E8, Color::Black.king());
        let hp = HuffmanPosition {
            board: board.clone(),
            ep_file: Some(File::C),
            castling: CastlingFlags::from_nibble(0xf),
        };
        let pos = hp.to_position().unwrap();
        assert_eq!(pos.board(), &board);
        use shakmaty::Position;
        assert!(pos.castles().is_empty());
        assert_eq!(pos.ep_square(EnPassantMode::Always), None);
        // A missing king stays an error.
        let no_king = HuffmanPosition {
            board: Board::empty(),
            ep_file: None,
            castling: CastlingFlags::NONE,
        };
        assert!(no_king.to_position().is_err());
    }

    #[test]
    fn write_normalised_code_refuses_what_does_not_fit() {
        let mut out = [0; CODE_BUFFER_LEN];
        assert!(
            write_normalised_code(&Chess::default(), EnPassantMode::Legal, &mut out, 3).is_none()
        );
        assert!(
            write_normalised_code(&Chess::default(), EnPassantMode::Legal, &mut out, 96).is_none()
        );
        let mut bit = 250;
        put_bits(0xff, 8, &mut out, &mut bit);
        assert_eq!((bit, out[31]), (258, 0x3f));
    }
}
