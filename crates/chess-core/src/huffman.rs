//! The Huffman board code shared by CTG and Kvetka books.
//!
//! Squares are visited file-major (a1, a2, …, a8, b1, …, h8). Each square is written MSB-first
//! as `0` (empty), `11c` (pawn), `1011c` (rook), `1010c` (bishop), `1001c` (knight),
//! `10001c` (queen) or `10000c` (king), where `c` is 0 for White and 1 for Black.
//!
//! One bit codec ([`encode_board`], [`decode_board`]) carries two small framings:
//!
//! * **CTG** ([`encode_ctg`], [`decode_ctg`]): a header byte (bits 0–4 = total length in bytes
//!   including the header, `0x20` = en-passant bits present, `0x40` = castling bits present),
//!   the board bits, zero padding, then the flag bits flush at the end of the last byte
//!   (en-passant file in 3 bits, then 4 castling bits). Without flags at least one padding bit
//!   is added.
//! * **Kvetka** ([`encode_kvetka`], [`decode_kvetka`]): exactly 22 bytes: the board bits,
//!   4 en-passant bits (0 = none, 1..8 = files a..h), 4 castling bits, zero padding. A board
//!   that does not fit is an error.
//!
//! See `specs/NOTES.md`, "Shared by several formats" and "CTG".

use bitvec::prelude::*;
use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Setup, Square};

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
    /// castling flags, and the en-passant file only when an en-passant capture is legal.
    pub fn from_position(pos: &shakmaty::Chess) -> Self {
        use shakmaty::{EnPassantMode, Position};
        HuffmanPosition {
            board: pos.board().clone(),
            ep_file: pos.ep_square(EnPassantMode::Legal).map(Square::file),
            castling: CastlingFlags::from_setup(&pos.to_setup(EnPassantMode::Legal)),
        }
    }

    /// The stored form of a normalised (White-to-move) position by Kvetka's rule: the
    /// en-passant file is stored whenever an enemy pawn stands beside the pawn that just moved
    /// two squares, whether or not the capture is legal (`specs/kvetka.ru.txt`, "Кодирование";
    /// shakmaty's [`EnPassantMode::PseudoLegal`](shakmaty::EnPassantMode::PseudoLegal)).
    pub fn from_position_kvetka(pos: &shakmaty::Chess) -> Self {
        use shakmaty::{EnPassantMode, Position};
        HuffmanPosition {
            ep_file: pos.ep_square(EnPassantMode::PseudoLegal).map(Square::file),
            ..HuffmanPosition::from_position(pos)
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

fn push_bits(out: &mut Bits, value: u8, n: usize) {
    for i in (0..n).rev() {
        out.push(value >> i & 1 == 1);
    }
}

fn read_bits(bits: &BitSlice<u8, Msb0>, start: usize, n: usize) -> u8 {
    bits[start..start + n]
        .iter()
        .fold(0, |acc, b| acc << 1 | u8::from(*b))
}

/// CTG header-byte flag: en-passant bits present.
pub const CTG_EP_FLAG: u8 = 0x20;
/// CTG header-byte flag: castling bits present.
pub const CTG_CASTLING_FLAG: u8 = 0x40;

/// Encodes a position in the CTG framing (header byte included).
pub fn encode_ctg(pos: &HuffmanPosition) -> Vec<u8> {
    let mut bits = Bits::with_capacity(256);
    bits.resize(8, false); // header byte, filled in below
    encode_board(&pos.board, &mut bits);
    let flag_bits = pos.ep_file.map_or(0, |_| 3) + if pos.castling.any() { 4 } else { 0 };
    // With no flags at least one padding bit.
    let used = bits.len() + flag_bits.max(1);
    let total = used.div_ceil(8) * 8;
    bits.resize(total - flag_bits, false);
    let mut header = 0u8;
    if let Some(file) = pos.ep_file {
        push_bits(&mut bits, file as u8, 3);
        header |= CTG_EP_FLAG;
    }
    if pos.castling.any() {
        push_bits(&mut bits, pos.castling.to_nibble(), 4);
        header |= CTG_CASTLING_FLAG;
    }
    let mut bytes = bits.into_vec();
    bytes[0] = header | bytes.len() as u8;
    bytes
}

/// Decodes a CTG-framed position from the start of `bytes`; returns it and its length in bytes
/// (the header's length field).
pub fn decode_ctg(bytes: &[u8]) -> Result<(HuffmanPosition, usize), ParseError> {
    let header = *bytes
        .first()
        .ok_or_else(|| ParseError::truncated(0, 1, 0))?;
    let len = usize::from(header & 0x1f);
    if len < 2 {
        return Err(ParseError::new(
            0,
            "a position length of at least 2 bytes",
            format!("header byte 0x{header:02x}"),
        ));
    }
    let body = bytes
        .get(1..len)
        .ok_or_else(|| ParseError::truncated(0, len as u64, bytes.len() as u64))?;
    let bits = body.view_bits::<Msb0>();
    let has_ep = header & CTG_EP_FLAG != 0;
    let has_castling = header & CTG_CASTLING_FLAG != 0;
    let flag_bits = if has_ep { 3 } else { 0 } + if has_castling { 4 } else { 0 };
    let board_end = bits.len() - flag_bits.min(bits.len());
    let (board, used) = decode_board(&bits[..board_end]).map_err(|e| e.shifted(1))?;
    debug_assert!(used <= board_end);
    let mut at = board_end;
    let ep_file = if has_ep {
        let f = read_bits(bits, at, 3);
        at += 3;
        Some(File::new(u32::from(f)))
    } else {
        None
    };
    let castling = if has_castling {
        CastlingFlags::from_nibble(read_bits(bits, at, 4))
    } else {
        CastlingFlags::NONE
    };
    Ok((
        HuffmanPosition {
            board,
            ep_file,
            castling,
        },
        len,
    ))
}

/// A CTG-encoded position in a fixed buffer (no allocation): header byte included.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CtgKey {
    bytes: [u8; 32],
    len: u8,
}

impl CtgKey {
    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl std::fmt::Debug for CtgKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The normalised board code of any position written into `out` from bit `bit` on, with the
/// normalised en-passant file (by `ep_mode`) and castling flags: the shared fast path of
/// [`ctg_key`] and [`kvetka_key`]. Returns the bit after the board.
fn normalised_code(
    pos: &shakmaty::Chess,
    ep_mode: shakmaty::EnPassantMode,
    out: &mut [u8; 32],
    mut bit: usize,
) -> (usize, Option<File>, CastlingFlags) {
    use shakmaty::Position;
    let board = pos.board();
    let flip = pos.turn() == Color::Black;
    let rights = pos.castles().castling_rights();
    let mirror = rights.is_empty()
        && board
            .king_of(pos.turn())
            .is_some_and(|k| k.file() <= File::D);
    // The code of each normalised square (file-major index), built from the occupied squares
    // only: (bits, length), length 1 = empty.
    let mut codes = [(0u8, 1u8); 64];
    for color in Color::ALL {
        let black = (color == Color::Black) != flip;
        for role in Role::ALL {
            let (code, n) = code_of(role);
            let entry = (code << 1 | u8::from(black), n as u8 + 1);
            for sq in board.by_piece(Piece { color, role }) {
                let rank = sq.rank().to_u32() ^ if flip { 7 } else { 0 };
                let file = sq.file().to_u32() ^ if mirror { 7 } else { 0 };
                codes[(file * 8 + rank) as usize] = entry;
            }
        }
    }
    // Codes are collected in a 64-bit accumulator and flushed a byte at a time; both framings
    // start the board on a byte boundary.
    debug_assert_eq!(bit % 8, 0);
    let mut acc: u64 = 0;
    let mut pending = 0u32;
    let mut byte = bit / 8;
    for (code, n) in codes {
        acc = acc << n | u64::from(code);
        pending += u32::from(n);
        while pending >= 8 {
            pending -= 8;
            out[byte] = (acc >> pending) as u8;
            byte += 1;
        }
    }
    if pending > 0 {
        out[byte] = (acc << (8 - pending)) as u8;
    }
    bit = byte * 8 + pending as usize;
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
    (bit, ep_file, castling)
}

/// Writes the low `n` bits of `value`, MSB first, at bit `*bit` of `out` (which is zeroed).
fn put_bits(value: u32, n: usize, out: &mut [u8; 32], bit: &mut usize) {
    for i in (0..n).rev() {
        if value >> i & 1 == 1 {
            out[*bit / 8] |= 0x80 >> (*bit % 8);
        }
        *bit += 1;
    }
}

/// The CTG encoding of any position, normalised on the fly: the same bytes as
/// [`encode_ctg`] of [`HuffmanPosition::from_position`] of the normalised position, without
/// building the normalised position or allocating (the probe path of CTG readers).
///
/// `None` when the board does not fit the 31 bytes a CTG position may have (more than 32
/// pieces, only possible for positions built while ignoring material limits).
pub fn ctg_key(pos: &shakmaty::Chess) -> Option<CtgKey> {
    use shakmaty::Position;
    if 8 + board_bit_len(pos.board()) + 7 > CTG_MAX_LEN * 8 {
        return None;
    }
    let mut out = [0u8; 32];
    // The board starts after the header byte.
    let (bit, ep_file, castling) =
        normalised_code(pos, shakmaty::EnPassantMode::Legal, &mut out, 8);
    let flag_bits = ep_file.map_or(0, |_| 3) + if castling.any() { 4 } else { 0 };
    let total = (bit + flag_bits.max(1)).div_ceil(8) * 8;
    let mut bit = total - flag_bits;
    let mut header = 0u8;
    if let Some(f) = ep_file {
        put_bits(f as u32, 3, &mut out, &mut bit);
        header |= CTG_EP_FLAG;
    }
    if castling.any() {
        put_bits(u32::from(castling.to_nibble()), 4, &mut out, &mut bit);
        header |= CTG_CASTLING_FLAG;
    }
    let len = (total / 8) as u8;
    out[0] = header | len;
    Some(CtgKey { bytes: out, len })
}

/// The Kvetka key of any position, normalised on the fly: the same bytes as
/// [`encode_kvetka`] of the normalised position (with the en-passant file stored by Kvetka's
/// rule, see [`HuffmanPosition::from_position_kvetka`]), without allocating.
///
/// `None` when the board code does not fit the key (more than 168 board bits, only possible
/// with many promoted pieces).
pub fn kvetka_key(pos: &shakmaty::Chess) -> Option<[u8; KVETKA_KEY_LEN]> {
    use shakmaty::Position;
    if board_bit_len(pos.board()) + 8 > KVETKA_KEY_LEN * 8 {
        return None;
    }
    let mut out = [0u8; 32];
    let (mut bit, ep_file, castling) =
        normalised_code(pos, shakmaty::EnPassantMode::PseudoLegal, &mut out, 0);
    put_bits(ep_file.map_or(0, |f| f as u32 + 1), 4, &mut out, &mut bit);
    put_bits(u32::from(castling.to_nibble()), 4, &mut out, &mut bit);
    let mut key = [0; KVETKA_KEY_LEN];
    key.copy_from_slice(&out[..KVETKA_KEY_LEN]);
    Some(key)
}

/// Longest CTG position encoding: the header byte's 5-bit length field.
pub const CTG_MAX_LEN: usize = 31;

/// Length of a Kvetka position key in bytes.
pub const KVETKA_KEY_LEN: usize = 22;

/// Encodes a position as a 22-byte Kvetka key; errors when the board code is too long.
pub fn encode_kvetka(pos: &HuffmanPosition) -> Result<[u8; KVETKA_KEY_LEN], ParseError> {
    let mut bits = Bits::with_capacity(KVETKA_KEY_LEN * 8);
    encode_board(&pos.board, &mut bits);
    if bits.len() + 8 > KVETKA_KEY_LEN * 8 {
        return Err(ParseError::new(
            0,
            "a board code of at most 168 bits",
            format!("{} bits", bits.len()),
        ));
    }
    push_bits(&mut bits, pos.ep_file.map_or(0, |f| f as u8 + 1), 4);
    push_bits(&mut bits, pos.castling.to_nibble(), 4);
    bits.resize(KVETKA_KEY_LEN * 8, false);
    let mut key = [0; KVETKA_KEY_LEN];
    key.copy_from_slice(bits.as_raw_slice());
    Ok(key)
}

/// Decodes a 22-byte Kvetka key.
pub fn decode_kvetka(key: &[u8; KVETKA_KEY_LEN]) -> Result<HuffmanPosition, ParseError> {
    let bits = key.view_bits::<Msb0>();
    let (board, used) = decode_board(&bits[..KVETKA_KEY_LEN * 8 - 8])?;
    let ep = read_bits(bits, used, 4);
    let castling = CastlingFlags::from_nibble(read_bits(bits, used + 4, 4));
    let ep_file = match ep {
        0 => None,
        1..=8 => Some(File::new(u32::from(ep - 1))),
        _ => {
            return Err(ParseError::new(
                (used / 8) as u64,
                "an en-passant nibble 0..8",
                ep.to_string(),
            ));
        }
    };
    Ok(HuffmanPosition {
        board,
        ep_file,
        castling,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_ctg_and_kvetka() {
        let pos = HuffmanPosition {
            board: Board::new(),
            ep_file: None,
            castling: CastlingFlags::from_nibble(0xf),
        };
        assert_eq!(board_bit_len(&pos.board), 164);
        let ctg = encode_ctg(&pos);
        assert_eq!(
            ctg,
            [
                0x56, 0xb6, 0x0f, 0x79, 0x60, 0xf3, 0xa6, 0x0f, 0x58, 0xb0, 0x78, 0xe0, 0xc1, 0xe1,
                0xa6, 0x0f, 0x59, 0x60, 0xf3, 0xb6, 0x0f, 0x7f
            ]
        );
        assert_eq!(decode_ctg(&ctg).unwrap(), (pos.clone(), 22));
        let key = encode_kvetka(&pos).unwrap();
        assert_eq!(&key[..20], &ctg[1..21]);
        assert_eq!(key[20], 0x70); // last board nibble 0111, ep 0000
        assert_eq!(key[21], 0xf0); // castling 1111, padding
        assert_eq!(decode_kvetka(&key).unwrap(), pos);
    }

    #[test]
    fn fast_key_equals_normalise_then_encode() {
        use crate::normalize::normalize;
        use shakmaty::{Chess, Position};
        // Random playouts: every position's fast key equals the two-step encoding.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _game in 0..60 {
            let mut pos = Chess::default();
            for _ply in 0..120 {
                let n = normalize(&pos);
                let slow = encode_ctg(&HuffmanPosition::from_position(&n.position));
                assert_eq!(ctg_key(&pos).unwrap().as_bytes(), &slow[..], "{pos:?}");
                let slow = encode_kvetka(&HuffmanPosition::from_position_kvetka(&n.position));
                assert_eq!(kvetka_key(&pos).unwrap(), slow.unwrap(), "{pos:?}");
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
    fn ctg_board_on_byte_boundary_gets_a_pad_byte() {
        // 8 kings-free squares? Build a board of exactly 72 bits: two kings (12) + 60 empty... =
        // 62 empty + 2 kings = 74; add a pawn: 61 + 12 + 3 = 76; use a rook: 61 + 12 + 5 = 78;
        // two pawns: 60 + 12 + 6 = 78; pawn + rook: 60 + 12 + 8 = 80 = 10 bytes.
        let mut board = Board::empty();
        board.set_piece_at(Square::E1, Color::White.king());
        board.set_piece_at(Square::E8, Color::Black.king());
        board.set_piece_at(Square::A2, Color::White.pawn());
        board.set_piece_at(Square::H8, Color::Black.rook());
        assert_eq!(board_bit_len(&board), 80);
        let pos = HuffmanPosition {
            board,
            ep_file: None,
            castling: CastlingFlags::NONE,
        };
        let ctg = encode_ctg(&pos);
        assert_eq!(ctg.len(), 12);
        assert_eq!(ctg[0], 12);
        assert_eq!(ctg[11], 0);
        assert_eq!(decode_ctg(&ctg).unwrap().0, pos);
    }

    #[test]
    fn ctg_decode_rejects_bad_lengths() {
        assert!(decode_ctg(&[]).is_err());
        assert!(decode_ctg(&[0x01]).is_err());
        assert!(decode_ctg(&[0x16, 0, 0]).is_err());
        // A body too short to hold 64 squares.
        assert!(decode_ctg(&[0x03, 0xff, 0xff]).is_err());
    }

    #[test]
    fn kvetka_rejects_overlong_boards() {
        // 16 queens of each colour cannot fit in 168 bits.
        let mut board = Board::empty();
        for (i, sq) in Square::ALL.iter().enumerate().take(40) {
            board.set_piece_at(
                *sq,
                Piece {
                    color: Color::from_white(i % 2 == 0),
                    role: Role::Queen,
                },
            );
        }
        let pos = HuffmanPosition {
            board,
            ep_file: None,
            castling: CastlingFlags::NONE,
        };
        assert!(encode_kvetka(&pos).is_err());
    }
}
