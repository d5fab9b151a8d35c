//! On-disk layout: the 43-byte game header and the 16-bit move code. All little-endian.

use chess_core::parse::{NomError, Parser, le_u8, le_u16, le_u64};

/// Length of a game header in bytes.
pub const GAME_HEADER_LEN: usize = 43;

/// The game header as stored, every byte kept (files round-trip byte for byte).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Header {
    /// `[black, rooks|queens|kings, knights|bishops|kings, pawns|bishops|queens]`.
    pub bitboards: [u64; 4],
    /// 0 White, 1 Black.
    pub stm: u8,
    /// En-passant target square (rank-major, a1 = 0), 0 = none. May be set after any double
    /// push, capture possible or not.
    pub ep: u8,
    /// `0b0000QKqk`.
    pub castling: u8,
    /// Half-move clock.
    pub halfmove: u8,
    /// Full-move number.
    pub fullmove: u16,
    /// Rook files: White queen side, White king side, Black queen side, Black king side.
    pub rook_files: [u8; 4],
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
}

/// The 43-byte game header as a nom parser: four little-endian bitboards, side to move, ep
/// byte, castling bits, half-move clock, full-move number (u16 LE), four rook files, result.
fn header<'a>() -> impl Parser<&'a [u8], Output = Header, Error = NomError<'a>> {
    (
        (le_u64, le_u64, le_u64, le_u64),
        (le_u8, le_u8, le_u8, le_u8),
        le_u16,
        (le_u8, le_u8, le_u8, le_u8),
        le_u8,
    )
        .map(
            |(
                (b0, b1, b2, b3),
                (stm, ep, castling, halfmove),
                fullmove,
                (r0, r1, r2, r3),
                result,
            )| {
                Header {
                    bitboards: [b0, b1, b2, b3],
                    stm,
                    ep,
                    castling,
                    halfmove,
                    fullmove,
                    rook_files: [r0, r1, r2, r3],
                    result,
                }
            },
        )
}

/// Castling bits of [`Header::castling`].
pub mod castling_bits {
    /// White, queen side.
    pub const WHITE_Q: u8 = 8;
    /// White, king side.
    pub const WHITE_K: u8 = 4;
    /// Black, queen side.
    pub const BLACK_Q: u8 = 2;
    /// Black, king side.
    pub const BLACK_K: u8 = 1;
}

impl Header {
    /// Reads a header from its 43 bytes (the layout is declared once, as a nom parser).
    #[inline]
    pub fn from_bytes(b: &[u8; GAME_HEADER_LEN]) -> Header {
        chess_core::parse::fixed(b, header())
    }

    /// Parses the header at the start of `data` (which starts at byte `base` of its file).
    pub fn parse(data: &[u8], base: u64) -> Result<Header, chess_core::ParseError> {
        chess_core::parse::run(data, base, "a 43-byte game header", header()).map(|(h, _)| h)
    }

    /// Reads the header at the start of `bytes`, zero-filled where `bytes` is shorter (framing
    /// never yields such a game; views built by hand may).
    pub fn from_prefix(bytes: &[u8]) -> Header {
        let mut h = [0u8; GAME_HEADER_LEN];
        let n = bytes.len().min(GAME_HEADER_LEN);
        h[..n].copy_from_slice(&bytes[..n]);
        Header::from_bytes(&h)
    }

    /// The 43 bytes of the header.
    pub fn to_bytes(&self) -> [u8; GAME_HEADER_LEN] {
        let mut b = [0u8; GAME_HEADER_LEN];
        for (i, bb) in self.bitboards.iter().enumerate() {
            b[i * 8..i * 8 + 8].copy_from_slice(&bb.to_le_bytes());
        }
        b[32] = self.stm;
        b[33] = self.ep;
        b[34] = self.castling;
        b[35] = self.halfmove;
        b[36..38].copy_from_slice(&self.fullmove.to_le_bytes());
        b[38..42].copy_from_slice(&self.rook_files);
        b[42] = self.result;
        b
    }

    /// Unpacks the overlapping bitboards: `[pawns, knights, bishops, rooks, queens, kings]` and
    /// `[white, black]`.
    pub fn unpack(&self) -> ([u64; 6], [u64; 2]) {
        let [black, rqk, nbk, pbq] = self.bitboards;
        let occupied = rqk | nbk | pbq;
        let kings = rqk & nbk;
        let queens = rqk & pbq;
        let rooks = rqk ^ kings ^ queens;
        let bishops = nbk & pbq;
        let knights = nbk ^ bishops ^ kings;
        let pawns = pbq ^ bishops ^ queens;
        (
            [pawns, knights, bishops, rooks, queens, kings],
            [occupied ^ black, black],
        )
    }

    /// Packs piece bitboards (`[pawns, knights, bishops, rooks, queens, kings]`) and Black's.
    pub fn pack(roles: [u64; 6], black: u64) -> [u64; 4] {
        let [p, n, b, r, q, k] = roles;
        [black, r | q | k, n | b | k, p | b | q]
    }
}

/// Move flags (the low 4 bits of a move code).
pub mod flags {
    /// A quiet move.
    pub const QUIET: u16 = 0;
    /// A pawn's double push.
    pub const DOUBLE_PUSH: u16 = 1;
    /// Castling king side (the king moves to the g-file).
    pub const KING_CASTLE: u16 = 2;
    /// Castling queen side (the king moves to the c-file).
    pub const QUEEN_CASTLE: u16 = 3;
    /// A capture.
    pub const CAPTURE: u16 = 4;
    /// En passant.
    pub const EN_PASSANT: u16 = 5;
    /// Promotion bit; the low two bits say N, B, R, Q; `CAPTURE` may be added.
    pub const PROMOTION: u16 = 8;
}

/// A move code: `flag | to << 4 | from << 10`, squares rank-major (a1 = 0, b1 = 1, …).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MoveCode(pub u16);

impl MoveCode {
    /// Builds a code.
    pub fn new(from: u8, to: u8, flag: u16) -> MoveCode {
        MoveCode(u16::from(from) << 10 | u16::from(to) << 4 | flag)
    }

    /// The origin square index.
    pub fn from(self) -> u8 {
        (self.0 >> 10) as u8
    }

    /// The target square index (for castling the king's target, c- or g-file).
    pub fn to(self) -> u8 {
        ((self.0 >> 4) & 63) as u8
    }

    /// The flag.
    pub fn flag(self) -> u16 {
        self.0 & 15
    }
}
