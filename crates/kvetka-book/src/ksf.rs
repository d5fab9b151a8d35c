//! The `.ksf` sources file: where the games of a book come from.
//!
//! Layout: a table of contents whose size is a multiple of 512 bytes (u32 source count, then one
//! u32 file offset per source, then unused bytes), then the sources. A source: u8 type, u8
//! is-bad, Unicode address, u32 game count, then per game: u32 address, u32 length, ANSI White
//! and Black names, u16 Elo of each (0 = unknown), u8 result.

use chess_core::{
    ParseError,
    parse::{NomResult, Parser, be_u8, be_u16, be_u32, expected, run},
};

use crate::codec::{ansi, unicode, write_ansi, write_unicode};

/// Granularity of the table of contents.
pub const TOC_UNIT: usize = 512;

/// Source type: an empty source, to be ignored.
pub const SOURCE_EMPTY: u8 = 0;
/// Source type: a PGN file (game address = byte offset of the game).
pub const SOURCE_PGN: u8 = 1;
/// Source type: a web page.
pub const SOURCE_WEB: u8 = 2;
/// Source type: a ChessBase `.cbh` database (game address = offset of its `.cbh` record).
pub const SOURCE_CBH: u8 = 3;

/// Smallest encoded game description (two empty names).
const MIN_GAME_LEN: usize = 4 + 4 + 4 + 4 + 2 + 2 + 1;

/// The result byte of a game description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KsfResult {
    /// 0: 0-1.
    BlackWins,
    /// 1: 1-0.
    WhiteWins,
    /// 2: ½-½.
    Draw,
    /// 3: unknown or undecided.
    Unknown,
    /// Any other byte, kept.
    Other(u8),
}

impl KsfResult {
    /// From the stored byte.
    pub fn from_byte(b: u8) -> KsfResult {
        match b {
            0 => KsfResult::BlackWins,
            1 => KsfResult::WhiteWins,
            2 => KsfResult::Draw,
            3 => KsfResult::Unknown,
            other => KsfResult::Other(other),
        }
    }

    /// The stored byte.
    pub fn to_byte(self) -> u8 {
        match self {
            KsfResult::BlackWins => 0,
            KsfResult::WhiteWins => 1,
            KsfResult::Draw => 2,
            KsfResult::Unknown => 3,
            KsfResult::Other(b) => b,
        }
    }

    /// PGN notation (`*` for unknown and unrecognised values).
    pub fn as_pgn(self) -> &'static str {
        match self {
            KsfResult::BlackWins => "0-1",
            KsfResult::WhiteWins => "1-0",
            KsfResult::Draw => "1/2-1/2",
            _ => "*",
        }
    }
}

/// One game of a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    /// Where the game is in the source (for PGN: byte offset of the game text).
    pub address: u32,
    /// Length of the game's record in the source (for PGN: bytes of the game text).
    pub length: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// White's Elo, 0 when unknown.
    pub white_elo: u16,
    /// Black's Elo, 0 when unknown.
    pub black_elo: u16,
    /// The result.
    pub result: KsfResult,
}

/// A source of games (a PGN file, a web page, a database).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// [`SOURCE_PGN`], [`SOURCE_WEB`], [`SOURCE_CBH`] or [`SOURCE_EMPTY`].
    pub source_type: u8,
    /// Non-zero when the source is known to be unavailable.
    pub is_bad: u8,
    /// Path or URL (`%currentdir` may stand for Kvetka's folder).
    pub address: String,
    /// The games.
    pub games: Vec<GameInfo>,
}

/// The contents of a `.ksf` file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sources {
    /// The sources, numbered from 0 as game references use them.
    pub sources: Vec<Source>,
}

fn game(input: &[u8]) -> NomResult<'_, GameInfo> {
    let layout = (be_u32, be_u32, ansi, ansi, be_u16, be_u16, be_u8);
    layout
        .map(
            |(address, length, white, black, white_elo, black_elo, result)| GameInfo {
                address,
                length,
                white,
                black,
                white_elo,
                black_elo,
                result: KsfResult::from_byte(result),
            },
        )
        .parse(input)
}

/// A source: type, flag, address, a game count (checked against the bytes left before any
/// allocation) and the games.
fn source(input: &[u8]) -> NomResult<'_, Source> {
    let (i, (source_type, is_bad, address)) = (be_u8, be_u8, unicode).parse(input)?;
    let (mut i, count) = be_u32(i).map(|(rest, c)| (rest, (c, i)))?;
    let (count, count_at) = count;
    let Some(count) = usize::try_from(count)
        .ok()
        .filter(|&c| c.saturating_mul(MIN_GAME_LEN) <= i.len())
    else {
        return expected(count_at, "a game count that fits the file");
    };
    let mut games = Vec::with_capacity(count);
    for _ in 0..count {
        let (rest, g) = game(i)?;
        games.push(g);
        i = rest;
    }
    Ok((
        i,
        Source {
            source_type,
            is_bad,
            address,
            games,
        },
    ))
}

/// The whole file: a source count, the table of contents (one absolute address per source,
/// each checked to lie inside the file) and the sources it points at.
///
/// **Decision** (issue 20, F1): sources may not share or overlap bytes. Kvetka and our writer
/// lay them out one after another; a table whose entries all point at one source would make a
/// reader parse it once per entry (memory and time growing with the square of the file). The
/// sources are therefore parsed in address order and each must start at or after the end of
/// the one before, so the whole file is parsed at most once; a repeated or overlapping
/// address is an error naming the table entry.
fn sources(data: &[u8]) -> NomResult<'_, Sources> {
    let (mut toc, count) = be_u32(data)?;
    let Some(count) = usize::try_from(count)
        .ok()
        .filter(|&c| c.saturating_mul(4) <= toc.len())
    else {
        return expected(data, "a source count that fits the file");
    };
    // (address, table entry, the entry's bytes for errors)
    let mut entries = Vec::with_capacity(count);
    for i in 0..count {
        let (rest, at) = be_u32(toc)?;
        match usize::try_from(at) {
            Ok(a) if a < data.len() => entries.push((a, i, toc)),
            _ => return expected(toc, "a source address inside the file"),
        }
        toc = rest;
    }
    entries.sort_unstable_by_key(|&(a, i, _)| (a, i));
    let mut parsed: Vec<Option<Source>> = vec![None; count];
    let mut end = 0usize;
    for (at, i, field) in entries {
        if at < end {
            return expected(
                field,
                "a source that does not share bytes with another source",
            );
        }
        let (rest, source) = source(&data[at..])?;
        end = data.len() - rest.len();
        parsed[i] = Some(source);
    }
    // Every entry was parsed above (each table entry once).
    let list = parsed.into_iter().flatten().collect();
    Ok((toc, Sources { sources: list }))
}

impl Sources {
    /// Parses a `.ksf` file.
    pub fn parse(data: &[u8]) -> Result<Sources, ParseError> {
        run(data, 0, "a .ksf file", sources).map(|(s, _)| s)
    }

    /// The game a reference points to, if the file has it.
    pub fn game(&self, source: u16, game: u32) -> Option<(&Source, &GameInfo)> {
        let s = self.sources.get(usize::from(source))?;
        Some((s, s.games.get(usize::try_from(game).ok()?)?))
    }

    /// The file's bytes. Errors when offsets would exceed 4 GiB.
    pub fn to_bytes(&self) -> Result<Vec<u8>, crate::WriteError> {
        let toc = (4 + 4 * self.sources.len()).div_ceil(TOC_UNIT) * TOC_UNIT;
        let mut body = Vec::new();
        let mut offsets = Vec::with_capacity(self.sources.len());
        for s in &self.sources {
            offsets.push(toc + body.len());
            body.push(s.source_type);
            body.push(s.is_bad);
            write_unicode(&mut body, &s.address);
            body.extend_from_slice(&(s.games.len() as u32).to_be_bytes());
            for g in &s.games {
                body.extend_from_slice(&g.address.to_be_bytes());
                body.extend_from_slice(&g.length.to_be_bytes());
                write_ansi(&mut body, &g.white);
                write_ansi(&mut body, &g.black);
                body.extend_from_slice(&g.white_elo.to_be_bytes());
                body.extend_from_slice(&g.black_elo.to_be_bytes());
                body.push(g.result.to_byte());
            }
        }
        if toc + body.len() > u32::MAX as usize {
            return Err(crate::WriteError::SourcesTooLarge);
        }
        let mut out = Vec::with_capacity(toc + body.len());
        out.extend_from_slice(&(self.sources.len() as u32).to_be_bytes());
        for o in offsets {
            out.extend_from_slice(&(o as u32).to_be_bytes());
        }
        out.resize(toc, 0);
        out.extend_from_slice(&body);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Sources {
        Sources {
            sources: vec![
                Source {
                    source_type: SOURCE_PGN,
                    is_bad: 0,
                    address: "/data/games.pgn".into(),
                    games: vec![GameInfo {
                        address: 0,
                        length: 812,
                        white: "Таль, М.".into(),
                        black: "Botvinnik".into(),
                        white_elo: 2700,
                        black_elo: 0,
                        result: KsfResult::WhiteWins,
                    }],
                },
                Source {
                    source_type: SOURCE_WEB,
                    is_bad: 1,
                    address: "https://example.org/".into(),
                    games: vec![],
                },
            ],
        }
    }

    #[test]
    fn layout_by_hand() {
        let s = sample();
        let bytes = s.to_bytes().unwrap();
        // Table of contents: count 2, offsets 512 and after the first source; padded to 512.
        assert_eq!(&bytes[..4], &[0, 0, 0, 2]);
        assert_eq!(&bytes[4..8], &[0, 0, 2, 0]);
        assert_eq!(bytes[512], SOURCE_PGN);
        assert_eq!(bytes[513], 0);
        assert_eq!(&bytes[514..518], &[0, 0, 0, 15]);
        let first_len = 2 + 4 + 30 + 4 + (4 + 4 + 4 + 8 + 4 + 9 + 2 + 2 + 1);
        assert_eq!(
            u32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize,
            512 + first_len
        );
        assert_eq!(Sources::parse(&bytes).unwrap(), s);
        assert_eq!(s.game(0, 0).unwrap().1.white, "Таль, М.");
        assert!(s.game(0, 1).is_none());
        assert!(s.game(2, 0).is_none());
    }

    #[test]
    fn sources_may_be_listed_out_of_order_but_not_share_bytes() {
        let s = sample();
        let bytes = s.to_bytes().unwrap();
        // Swap the two table entries: the sources are found by address, in table order.
        let mut swapped = bytes.clone();
        swapped[4..8].copy_from_slice(&bytes[8..12]);
        swapped[8..12].copy_from_slice(&bytes[4..8]);
        let back = Sources::parse(&swapped).unwrap();
        assert_eq!(back.sources[0], s.sources[1]);
        assert_eq!(back.sources[1], s.sources[0]);
        // Both entries at the first source: refused at the second entry, not parsed twice.
        let mut shared = bytes.clone();
        shared[8..12].copy_from_slice(&bytes[4..8]);
        let e = Sources::parse(&shared).unwrap_err();
        assert_eq!(e.offset, 8, "{e}");
        assert!(e.to_string().contains("does not share bytes"), "{e}");
        // An entry pointing inside the first source overlaps it too.
        let mut inside = bytes.clone();
        inside[8..12].copy_from_slice(&(512u32 + 2).to_be_bytes());
        assert_eq!(Sources::parse(&inside).unwrap_err().offset, 8);
    }

    #[test]
    fn toc_grows_in_512_byte_units() {
        let mut s = Sources::default();
        assert_eq!(s.to_bytes().unwrap().len(), 512);
        s.sources = vec![
            Source {
                source_type: SOURCE_EMPTY,
                is_bad: 0,
                address: String::new(),
                games: vec![],
            };
            127
        ];
        // 4 + 4·127 = 512 bytes: no unused bytes.
        let bytes = s.to_bytes().unwrap();
        assert_eq!(u32::from_be_bytes(bytes[4..8].try_into().unwrap()), 512);
        s.sources.push(s.sources[0].clone());
        let bytes = s.to_bytes().unwrap();
        assert_eq!(u32::from_be_bytes(bytes[4..8].try_into().unwrap()), 1024);
        assert_eq!(Sources::parse(&bytes).unwrap(), s);
    }

    #[test]
    fn hostile_counts_are_errors() {
        let mut bytes = sample().to_bytes().unwrap();
        // A huge game count.
        bytes[512 + 2 + 4 + 30..512 + 2 + 4 + 30 + 4].copy_from_slice(&[0xff; 4]);
        let e = Sources::parse(&bytes).unwrap_err();
        assert_eq!(e.offset, 512 + 36);
        assert!(Sources::parse(&[0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(Sources::parse(&[0, 0, 0, 1, 0, 0, 9, 0]).is_err());
    }
}
