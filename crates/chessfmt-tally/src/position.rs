//! A position packed into 28 bytes: what the table keeps of each position it counts, turned
//! into EPD when the table is written.

use shakmaty::{Bitboard, Board, Color, Piece, Position, Role, Setup, Square, fen::Epd};

/// The EPD of one rank whose occupied files are the bits of its index: the text with a zero
/// byte where each piece's letter goes, the text's length, and where the letters go (in file
/// order).
struct RankPattern {
    text: [u8; 8],
    len: u8,
    slots: [u8; 8],
}

/// [`RankPattern`] of every occupancy of a rank: a rank's EPD without a branch per square.
static RANK_PATTERNS: [RankPattern; 256] = {
    let mut patterns = [const {
        RankPattern {
            text: [0; 8],
            len: 0,
            slots: [0; 8],
        }
    }; 256];
    let mut row = 0;
    while row < 256 {
        let p = &mut patterns[row];
        let (mut file, mut empty, mut pieces) = (0, 0u8, 0);
        while file < 8 {
            if row >> file & 1 == 1 {
                if empty > 0 {
                    p.text[p.len as usize] = b'0' + empty;
                    p.len += 1;
                    empty = 0;
                }
                p.slots[pieces] = p.len;
                pieces += 1;
                p.len += 1;
            } else {
                empty += 1;
            }
            file += 1;
        }
        if empty > 0 {
            p.text[p.len as usize] = b'0' + empty;
            p.len += 1;
        }
        row += 1;
    }
    patterns
};

/// A position packed for the table: the occupied squares (8 bytes), a nibble per piece in
/// square order (16 bytes), the side to move, the castling rooks of the first and the eighth
/// rank, and the en passant square (`0xff`: none). Written out as EPD ([`PackedPosition::epd`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedPosition([u8; 28]);

/// What a [`PackedPosition`] is packed from, read off a position in a few instructions: the
/// nibble's bits as planes (roles are 1 to 6: pawn 001 … king 110, every role has a bit in
/// the first three, so they are the occupied squares too; and black), the castling rooks of
/// the first and the eighth rank, the side to move and the en passant square: 40 bytes. A
/// replay keeps these for each ply, and the table packs them only for a position it has not
/// seen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Planes {
    planes: [u64; 4],
    castling: [u8; 2],
    black_to_move: bool,
    ep: u8,
}

impl Planes {
    /// The planes of `pos` (the en passant square only where a capture is legal, as Polyglot
    /// keys and EPD written by this crate have it).
    pub(crate) fn of(pos: &impl Position) -> Planes {
        let board = pos.board();
        let rooks = pos.castles().castling_rights().0;
        Planes {
            planes: [
                (board.pawns() | board.bishops() | board.queens()).0,
                (board.knights() | board.bishops() | board.kings()).0,
                (board.rooks() | board.queens() | board.kings()).0,
                board.black().0,
            ],
            castling: [(rooks & 0xff) as u8, (rooks >> 56) as u8],
            black_to_move: pos.turn() == Color::Black,
            ep: pos.legal_ep_square().map_or(0xff, u8::from),
        }
    }
}

impl PackedPosition {
    /// Packs the position of `pos` (the en passant square only where a capture is legal,
    /// as Polyglot keys and EPD written by this crate have it).
    pub fn of(pos: &impl Position) -> PackedPosition {
        PackedPosition::from_planes(&Planes::of(pos))
    }

    /// Packs `planes`: the pieces' nibbles read per occupied square with shifts (a lookup
    /// table is slower here: the table's random accesses evict it).
    pub(crate) fn from_planes(p: &Planes) -> PackedPosition {
        let mut b = [0u8; 28];
        let planes = p.planes;
        let occupied = planes[0] | planes[1] | planes[2];
        b[..8].copy_from_slice(&occupied.to_le_bytes());
        let mut rest = occupied;
        let mut i = 0;
        while rest != 0 && i < 32 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let nibble = (planes[0] >> sq & 1
                | (planes[1] >> sq & 1) << 1
                | (planes[2] >> sq & 1) << 2
                | (planes[3] >> sq & 1) << 3) as u8;
            b[8 + i / 2] |= nibble << (4 * (i % 2));
            i += 1;
        }
        b[24] = u8::from(p.black_to_move);
        b[25] = p.castling[0];
        b[26] = p.castling[1];
        b[27] = p.ep;
        PackedPosition(b)
    }

    /// The start position: what a table would show for a position whose board it was never
    /// given (never happens: see [`crate::counting::Shard::count`]).
    pub(crate) fn placeholder() -> PackedPosition {
        PackedPosition::of(&shakmaty::Chess::default())
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
        let mut out = Vec::with_capacity(80);
        self.write_epd(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Appends the EPD to `out`: written here from the packed bytes for standard castling
    /// rights (shakmaty's text, faster), through shakmaty otherwise (Chess960 rights).
    pub fn write_epd(&self, out: &mut Vec<u8>) {
        const LETTERS: [u8; 16] = *b"?PNBRQK??pnbrqk?";
        let b = &self.0;
        let occupied = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
        // Castling: K, Q, k, q for rooks in the corners with the king on its e-square.
        let rights = u64::from(b[25]) | u64::from(b[26]) << 56;
        let count = occupied.count_ones() as usize;
        if count > 32 || rights & !(1 | 1 << 7 | 1 << 56 | 1 << 63) != 0 {
            return self.write_epd_shakmaty(out);
        }
        // The pieces' letters in square order (a nibble each, the count of pieces below a
        // square its index); a nibble that is no piece goes through shakmaty.
        let mut letters = [0u8; 32];
        for (pair, &byte) in letters.chunks_exact_mut(2).zip(&b[8..24]) {
            pair[0] = LETTERS[usize::from(byte & 0xf)];
            pair[1] = LETTERS[usize::from(byte >> 4)];
        }
        if letters[..count].contains(&b'?') {
            return self.write_epd_shakmaty(out);
        }
        let letter_at = |sq: u32| {
            let i = (occupied & ((1u64 << sq) - 1)).count_ones() as usize;
            if occupied >> sq & 1 == 1 {
                letters[i]
            } else {
                0
            }
        };
        let mut text = [0u8; 96];
        let mut n = 0;
        // Ranks from the eighth down; the pieces of a rank come after those of the ranks below.
        // A rank's digits come from its pattern; its letters go into the pattern's slots.
        let mut above = count;
        for rank in (0..8u32).rev() {
            let row = (occupied >> (8 * rank)) as u8;
            let pattern = &RANK_PATTERNS[usize::from(row)];
            let pieces = row.count_ones() as usize;
            above -= pieces;
            text[n..n + 8].copy_from_slice(&pattern.text);
            for (&slot, &letter) in pattern.slots[..pieces].iter().zip(&letters[above..]) {
                text[n + usize::from(slot)] = letter;
            }
            n += usize::from(pattern.len);
            text[n] = b'/';
            n += 1;
        }
        // The last '/' becomes the space before the side to move.
        text[n - 1] = b' ';
        text[n] = if b[24] == 1 { b'b' } else { b'w' };
        text[n + 1] = b' ';
        n += 2;
        let castling = n;
        for (rook, king, letter, king_letter) in [
            (7, 4, b'K', b'K'),
            (0, 4, b'Q', b'K'),
            (63, 60, b'k', b'k'),
            (56, 60, b'q', b'k'),
        ] {
            if rights >> rook & 1 == 1 {
                if letter_at(king) != king_letter {
                    return self.write_epd_shakmaty(out);
                }
                text[n] = letter;
                n += 1;
            }
        }
        if n == castling {
            text[n] = b'-';
            n += 1;
        }
        text[n] = b' ';
        n += 1;
        match b[27] {
            sq @ 0..64 => {
                text[n] = b'a' + sq % 8;
                text[n + 1] = b'1' + sq / 8;
                n += 2;
            }
            _ => {
                text[n] = b'-';
                n += 1;
            }
        }
        out.extend_from_slice(&text[..n]);
    }

    fn write_epd_shakmaty(&self, out: &mut Vec<u8>) {
        let text =
            Epd::try_from(self.setup()).map_or_else(|e| e.ignore().to_string(), |e| e.to_string());
        out.extend_from_slice(text.as_bytes());
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

    proptest::proptest! {
        /// The EPD written from the packed bytes is shakmaty's, on random playouts.
        #[test]
        fn epd_is_shakmaty_s(choices in proptest::collection::vec(0u16..400, 0..120)) {
            let pos = chess_core::fuzzing::playout(&choices);
            let want = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
            let packed = PackedPosition::of(&pos);
            proptest::prop_assert_eq!(packed.epd(), want.clone());
            let mut slow = Vec::new();
            packed.write_epd_shakmaty(&mut slow);
            proptest::prop_assert_eq!(String::from_utf8(slow).unwrap(), want);
        }
    }

    /// Every occupancy of a rank (here the fourth and the eighth, beside kings elsewhere) is
    /// written as shakmaty writes it: the rank patterns' digits and slots.
    #[test]
    fn every_rank_pattern() {
        for rank in [3u32, 7] {
            for row in 0..256u64 {
                // White rooks on the rank's occupied files, the kings on a1 and h2 (or h3).
                let king_rank = if rank == 7 { 1 } else { 2 };
                let occupied = row << (8 * rank) | 1 | 1 << (8 * king_rank + 7);
                let mut b = [0u8; 28];
                b[..8].copy_from_slice(&occupied.to_le_bytes());
                // In square order: the white king on a1, the black king, the rank's rooks.
                let mut nibbles = vec![6u8, 14];
                nibbles.extend(vec![4u8; row.count_ones() as usize]);
                for (i, n) in nibbles.iter().enumerate() {
                    b[8 + i / 2] |= n << (4 * (i % 2));
                }
                b[27] = 0xff;
                let packed = PackedPosition(b);
                let mut fast = Vec::new();
                packed.write_epd(&mut fast);
                let mut slow = Vec::new();
                packed.write_epd_shakmaty(&mut slow);
                assert_eq!(
                    String::from_utf8(fast).unwrap(),
                    String::from_utf8(slow).unwrap(),
                    "rank {rank}, row {row:08b}"
                );
            }
        }
    }

    /// A ply's board in a replay takes 40 bytes (what a tally in bounded memory counts on).
    #[test]
    fn planes_are_40_bytes() {
        assert_eq!(size_of::<Planes>(), 40);
    }

    /// Chess960 castling rights (rooks off the corners) go through shakmaty.
    #[test]
    fn chess960_rights() {
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        let want = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
        assert_eq!(PackedPosition::of(&pos).epd(), want);
    }
}
