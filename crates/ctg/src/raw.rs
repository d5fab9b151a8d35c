//! On-disk layout of the three files: header page, data pages, position records, statistics,
//! `.cto` directory and `.ctb` bitmap header. All integers are big-endian.
//!
//! ```text
//! .ctg  page 0 (header): u32 @16 data pages, u32 @24 positions, u32 @28 games
//!       page p+1 (data page p): u16 records, u16 bytes used (incl. these 4), records…, garbage
//!       record: [position: L bytes, L = byte0 & 0x1f][moves: M = 1 + 2n bytes][33 stats bytes]
//! .cto  u16 16, u16 1, u32 entries, u32 0, u32 lower; then u32 page per split-tree node
//!       (0xffffffff = none)
//! .ctb  u16 12, u16 1, u32 lower, u32 upper; then the split bitmap (LSB first)
//! ```

use chess_core::{
    ParseError,
    parse::{
        NomResult, Parser, array_ref, be_u8, be_u16 as nom_u16, be_u24, be_u32 as nom_u32,
        expected, run, take,
    },
};

/// The statistics layout (33 bytes).
#[inline(always)]
fn stats(i: &[u8]) -> NomResult<'_, Stats> {
    let (i, games) = be_u24(i)?;
    let (i, wins) = be_u24(i)?;
    let (i, losses) = be_u24(i)?;
    let (i, draws) = be_u24(i)?;
    let (i, points) = nom_u32(i)?;
    let (i, games1) = be_u24(i)?;
    let (i, sum1) = nom_u32(i)?;
    let (i, games2) = be_u24(i)?;
    let (i, sum2) = nom_u32(i)?;
    let (i, recommendation) = be_u8(i)?;
    let (i, unknown) = be_u8(i)?;
    let (i, commentary) = be_u8(i)?;
    let stats = Stats {
        games,
        wins,
        losses,
        draws,
        points,
        rating1: RatingPair {
            games: games1,
            sum: sum1,
        },
        rating2: RatingPair {
            games: games2,
            sum: sum2,
        },
        recommendation,
        unknown,
        commentary,
    };
    Ok((i, stats))
}

/// The record layout: `[position: L = byte0 & 0x1f bytes][M = 1 + 2n][moves: M − 1][stats]`.
#[inline(always)]
fn record(data: &[u8]) -> NomResult<'_, RawRecord<'_>> {
    let (_, header) = be_u8(data)?;
    let l = usize::from(header & 0x1f);
    if l < 2 {
        return expected(data, "a position length of at least 2 bytes");
    }
    let (rest, position) = take(l).parse(data)?;
    let (after_m, m) = be_u8(rest)?;
    if m % 2 == 0 {
        return expected(rest, "a moves length byte 1 + 2n");
    }
    let (rest, (moves, stats)) =
        (take(usize::from(m) - 1), array_ref::<STATS_LEN>).parse(after_m)?;
    Ok((
        rest,
        RawRecord {
            position,
            moves,
            stats,
        },
    ))
}

/// Size of a `.ctg` page.
pub const PAGE_SIZE: usize = 4096;
/// Size of a page header (record count, bytes used).
pub const PAGE_HEADER: usize = 4;
/// Most record bytes a page holds.
pub const PAGE_PAYLOAD: usize = PAGE_SIZE - PAGE_HEADER;
/// Size of a record's statistics block.
pub const STATS_LEN: usize = 33;
/// Size of the `.cto` header.
pub const CTO_HEADER: usize = 16;
/// Size of the `.ctb` header.
pub const CTB_HEADER: usize = 12;
/// `.cto` entry of a node without a page.
pub const NO_PAGE: u32 = 0xffff_ffff;
/// Most moves a record holds (the moves length byte is `1 + 2n`).
pub const MAX_MOVES: usize = 127;

/// Byte offset of data page `page` in the `.ctg` (64-bit: books may exceed 4 GiB).
pub fn page_offset(page: u32) -> u64 {
    (u64::from(page) + 1) * PAGE_SIZE as u64
}

/// The fields of the `.ctg` header page that are understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// Number of data pages (u32 at offset 16).
    pub pages: u32,
    /// Number of positions (u32 at offset 24; approximately the number of records).
    pub positions: u32,
    /// Number of games the book was made from (u32 at offset 28).
    pub games: u32,
}

/// The first 16 bytes of the header page, as in every ChessBase-made book seen.
const HEADER_PREFIX: [u8; 16] = [
    0x00, 0x20, 0x10, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00, 0x7f, 0xff, 0x7f, 0xff,
];
/// The block at offset 1024 of the header page, as in every ChessBase-made book seen.
const HEADER_BLOCK_1024: [u8; 24] = [
    0x00, 0x01, 0x00, 0x05, 0x00, 0x01, 0x7f, 0xff, 0x00, 0x03, 0x7f, 0xff, 0x00, 0x05, 0x00, 0x1e,
    0x00, 0x06, 0x00, 0x02, 0x00, 0x07, 0x00, 0x01,
];
/// The block at offset 2048 of the header page, as in every ChessBase-made book seen.
const HEADER_BLOCK_2048: [u8; 8] = [0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x00];

impl Header {
    /// Reads the header page (the first 4096 bytes of the `.ctg`).
    pub fn parse(data: &[u8]) -> Result<Header, ParseError> {
        // The whole page first (a short file fails at offset 0), then its fields.
        let page = take(PAGE_SIZE)
            .and_then((take(16usize), nom_u32, take(4usize), nom_u32, nom_u32))
            .map(|(_, pages, _, positions, games)| Header {
                pages,
                positions,
                games,
            });
        run(data, 0, "a 4096-byte header page", page).map(|(h, _)| h)
    }

    /// The header page as written: the understood fields plus the constant blocks that
    /// ChessBase-made books carry.
    pub fn to_page(&self) -> Vec<u8> {
        let mut page = vec![0u8; PAGE_SIZE];
        page[..16].copy_from_slice(&HEADER_PREFIX);
        page[16..20].copy_from_slice(&self.pages.to_be_bytes());
        page[20..24].copy_from_slice(&[0xff; 4]);
        page[24..28].copy_from_slice(&self.positions.to_be_bytes());
        page[28..32].copy_from_slice(&self.games.to_be_bytes());
        page[1024..1024 + HEADER_BLOCK_1024.len()].copy_from_slice(&HEADER_BLOCK_1024);
        page[2048..2048 + HEADER_BLOCK_2048.len()].copy_from_slice(&HEADER_BLOCK_2048);
        page
    }
}

/// A data page's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageHeader {
    /// Number of records on the page.
    pub records: u16,
    /// Bytes in use, including the 4 header bytes; what follows is garbage.
    pub used: u16,
}

impl PageHeader {
    /// Reads a page header from the start of a page.
    #[inline]
    pub fn parse(page: &[u8]) -> Option<PageHeader> {
        let (_, (records, used)) = (nom_u16, nom_u16).parse(page).ok()?;
        Some(PageHeader { records, used })
    }

    /// The header's bytes.
    pub fn to_bytes(self) -> [u8; 4] {
        let [a, b] = self.records.to_be_bytes();
        let [c, d] = self.used.to_be_bytes();
        [a, b, c, d]
    }
}

/// One rating pair: number of games with a rating, and the sum of those ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct RatingPair {
    /// Games with a rating (u24).
    pub games: u32,
    /// Sum of their ratings (u32).
    pub sum: u32,
}

impl RatingPair {
    /// The average rating, or 0 without rated games.
    pub fn average(self) -> u32 {
        self.sum.checked_div(self.games).unwrap_or(0)
    }
}

/// The colour ChessBase gives a move (stored in the record of the position after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Recommendation {
    /// Bit 0x80: recommended, main line (shown green).
    Green,
    /// Bit 0x40: to avoid (shown red).
    Red,
    /// Neither bit.
    None,
}

impl Recommendation {
    /// Classifies the raw byte (0x80 wins when both bits are set; other bits are ignored).
    pub fn from_byte(b: u8) -> Recommendation {
        if b & 0x80 != 0 {
            Recommendation::Green
        } else if b & 0x40 != 0 {
            Recommendation::Red
        } else {
            Recommendation::None
        }
    }

    /// The name used in JSON output: `"green"`, `"red"` or `"none"`.
    pub fn name(self) -> &'static str {
        match self {
            Recommendation::Green => "green",
            Recommendation::Red => "red",
            Recommendation::None => "none",
        }
    }
}

/// The 33 statistics bytes of a record, as stored: results are those of the **side to move
/// in the stored (normalised) position**.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Stats {
    /// Games through the position (u24).
    pub games: u32,
    /// Games won by the side to move in the stored position (u24 at 3).
    pub wins: u32,
    /// Games lost by the side to move in the stored position (u24 at 6).
    pub losses: u32,
    /// Drawn games (u24 at 9).
    pub draws: u32,
    /// Points × 10: 10 per win, 5 per draw (some books add 5 per game without result).
    pub points: u32,
    /// First rating pair.
    pub rating1: RatingPair,
    /// Second rating pair.
    pub rating2: RatingPair,
    /// Recommendation byte (0x80 green, 0x40 red; other bits kept as read).
    pub recommendation: u8,
    /// The byte after the recommendation (unknown; 0 in books seen).
    pub unknown: u8,
    /// Commentary on the position: a position NAG (0 = none).
    pub commentary: u8,
}

impl Stats {
    /// Reads the 33 bytes.
    pub fn from_bytes(b: &[u8; STATS_LEN]) -> Stats {
        // Called directly, not through nom's `Parser` trait (see `record`).
        stats(b).map_or_else(|_| Stats::default(), |(_, s)| s)
    }

    /// The 33 bytes. 24-bit fields keep their low 24 bits: see [`Stats::saturated`].
    pub fn to_bytes(&self) -> [u8; STATS_LEN] {
        let mut b = [0u8; STATS_LEN];
        let mut put24 = |o: usize, v: u32| b[o..o + 3].copy_from_slice(&v.to_be_bytes()[1..]);
        put24(0, self.games);
        put24(3, self.wins);
        put24(6, self.losses);
        put24(9, self.draws);
        put24(16, self.rating1.games);
        put24(23, self.rating2.games);
        b[12..16].copy_from_slice(&self.points.to_be_bytes());
        b[19..23].copy_from_slice(&self.rating1.sum.to_be_bytes());
        b[26..30].copy_from_slice(&self.rating2.sum.to_be_bytes());
        b[30] = self.recommendation;
        b[31] = self.unknown;
        b[32] = self.commentary;
        b
    }

    /// The statistics with every 24-bit count clamped to 2²⁴ − 1 (what a writer stores when a
    /// count overflows the field).
    pub fn saturated(mut self) -> Stats {
        const MAX: u32 = 0xff_ffff;
        for v in [
            &mut self.games,
            &mut self.wins,
            &mut self.losses,
            &mut self.draws,
            &mut self.rating1.games,
            &mut self.rating2.games,
        ] {
            *v = (*v).min(MAX);
        }
        self
    }

    /// The recommendation colour.
    pub fn recommendation(&self) -> Recommendation {
        Recommendation::from_byte(self.recommendation)
    }
}

/// A record's bytes split into its three parts (no chess decoding yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawRecord<'a> {
    /// The encoded position, header byte included (the lookup key).
    pub position: &'a [u8],
    /// The move pairs (code, annotation), without the length byte.
    pub moves: &'a [u8],
    /// The statistics bytes.
    pub stats: &'a [u8; STATS_LEN],
}

impl<'a> RawRecord<'a> {
    /// Splits the record at the start of `data`; returns it and its length. `data` must end
    /// where the page's used bytes end: a record running past it is an error (offsets are
    /// relative to `data`).
    #[inline]
    pub fn split(data: &'a [u8]) -> Result<(RawRecord<'a>, usize), ParseError> {
        // The layout is called directly on the hot path (nom's `Parser` trait's generic
        // `process` is not inlined and returns the record through memory); `run` only turns a
        // failure into the family error.
        match record(data) {
            Ok((rest, r)) => Ok((r, data.len() - rest.len())),
            Err(_) => run(data, 0, "a position record", record),
        }
    }

    /// The (code, annotation) pairs as stored.
    pub fn move_pairs(&self) -> impl ExactSizeIterator<Item = (u8, u8)> + 'a {
        self.moves.chunks_exact(2).map(|c| (c[0], c[1]))
    }

    /// The parsed statistics.
    pub fn stats(&self) -> Stats {
        Stats::from_bytes(self.stats)
    }

    /// The record's length in bytes.
    pub fn len(&self) -> usize {
        self.position.len() + 1 + self.moves.len() + STATS_LEN
    }

    /// Always false: a record has at least its position, moves byte and statistics.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Appends the record's bytes (position, moves length, moves, statistics) to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.position);
        out.push((self.moves.len() + 1) as u8);
        out.extend_from_slice(self.moves);
        out.extend_from_slice(self.stats);
    }
}

/// The `.cto` header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CtoHeader {
    /// Number of directory entries (u32 at 4).
    pub entries: u32,
    /// Lower bound of node numbers in use (u32 at 12; the `.ctb` holds the same value).
    pub lower: u32,
}

impl CtoHeader {
    /// The 16 header bytes.
    pub fn to_bytes(self) -> [u8; CTO_HEADER] {
        let mut b = [0u8; CTO_HEADER];
        b[..4].copy_from_slice(&[0x00, 0x10, 0x00, 0x01]);
        b[4..8].copy_from_slice(&self.entries.to_be_bytes());
        b[12..16].copy_from_slice(&self.lower.to_be_bytes());
        b
    }
}

/// The `.ctb` header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CtbHeader {
    /// Smallest leaf node number, rounded down to a multiple of 8 (u32 at 4).
    pub lower: u32,
    /// Number of bits in the split bitmap (u32 at 8): nodes at or above it are leaves.
    pub upper: u32,
}

impl CtbHeader {
    /// Reads the header (first 12 bytes of the `.ctb`).
    pub fn parse(data: &[u8]) -> Result<CtbHeader, ParseError> {
        let header =
            (take(4usize), nom_u32, nom_u32).map(|(_, lower, upper)| CtbHeader { lower, upper });
        run(data, 0, "the 12-byte .ctb header", header).map(|(h, _)| h)
    }

    /// The 12 header bytes.
    pub fn to_bytes(self) -> [u8; CTB_HEADER] {
        let mut b = [0u8; CTB_HEADER];
        b[..4].copy_from_slice(&[0x00, 0x0c, 0x00, 0x01]);
        b[4..8].copy_from_slice(&self.lower.to_be_bytes());
        b[8..12].copy_from_slice(&self.upper.to_be_bytes());
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_round_trip_and_saturation() {
        let s = Stats {
            games: 0x12_3456,
            wins: 1,
            losses: 2,
            draws: 3,
            points: 0xdead_beef,
            rating1: RatingPair {
                games: 4,
                sum: 9000,
            },
            rating2: RatingPair {
                games: 0xff_ffff,
                sum: u32::MAX,
            },
            recommendation: 0xc1,
            unknown: 7,
            commentary: 0x92,
        };
        assert_eq!(Stats::from_bytes(&s.to_bytes()), s);
        assert_eq!(s.rating1.average(), 2250);
        assert_eq!(RatingPair::default().average(), 0);
        let big = Stats {
            games: 1 << 25,
            ..Stats::default()
        };
        assert_eq!(
            Stats::from_bytes(&big.saturated().to_bytes()).games,
            0xff_ffff
        );
        assert_eq!(s.recommendation(), Recommendation::Green);
        assert_eq!(Recommendation::from_byte(0x40), Recommendation::Red);
        assert_eq!(Recommendation::from_byte(0x3f), Recommendation::None);
    }

    #[test]
    fn record_split_checks_every_length() {
        let mut rec = vec![0x03, 0xaa, 0xbb, 0x03, 0x34, 0x01];
        rec.extend([0u8; STATS_LEN]);
        let (r, len) = RawRecord::split(&rec).unwrap();
        assert_eq!(len, rec.len());
        assert_eq!(r.move_pairs().collect::<Vec<_>>(), [(0x34, 0x01)]);
        let mut back = Vec::new();
        r.write_to(&mut back);
        assert_eq!(back, rec);
        for cut in 0..rec.len() {
            assert!(RawRecord::split(&rec[..cut]).is_err(), "{cut}");
        }
        assert!(RawRecord::split(&[0x01, 0, 0]).is_err());
        let mut even = rec.clone();
        even[3] = 2;
        assert!(RawRecord::split(&even).is_err());
    }

    #[test]
    fn offsets_are_64_bit() {
        assert_eq!(page_offset(0), 4096);
        assert_eq!(page_offset(0x0010_0000), 0x1_0000_1000);
        assert_eq!(page_offset(u32::MAX), (1u64 << 32) * 4096);
    }
}
