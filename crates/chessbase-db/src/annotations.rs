//! Annotations from `.cba`: texts, symbols, coloured squares and arrows, clocks and more.
//!
//! A game's record: 14-byte head (game number, 4 bytes, item count + 1, size), then items:
//! signed 24-bit move index (0 = the first move in stream order, −1 = the whole game), type,
//! 16-bit length including the 6-byte item head, data. All big-endian. Unknown types are kept
//! as raw bytes: training (0x09), sound (0x10), picture (0x11), game quotation (0x13),
//! correspondence move and header (0x19, 0x61), video (0x20) have no described layout and no
//! example in any file we have; they are kept and written back byte for byte.

use chess_core::ParseError;
use chess_core::huffman::{file_major_index, file_major_square};
use shakmaty::Square;

use crate::raw::{CBA_HEAD_SIZE, CBA_ITEM_HEAD_SIZE, CbaHead, CbaItemHead};
use crate::text::decode_text;

/// A colour of a marked square or arrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Colour {
    /// Green (stored 2).
    Green,
    /// Yellow (stored 3).
    Yellow,
    /// Red (stored 4).
    Red,
    /// Another stored value.
    Other(u8),
}

impl Colour {
    /// From the stored byte.
    pub fn from_byte(b: u8) -> Colour {
        match b {
            2 => Colour::Green,
            3 => Colour::Yellow,
            4 => Colour::Red,
            o => Colour::Other(o),
        }
    }

    /// The stored byte.
    pub fn to_byte(self) -> u8 {
        match self {
            Colour::Green => 2,
            Colour::Yellow => 3,
            Colour::Red => 4,
            Colour::Other(o) => o,
        }
    }

    /// The letter of the PGN `[%csl]`/`[%cal]` commands (`G`, `Y`, `R`), `None` for others.
    pub fn pgn_letter(self) -> Option<char> {
        match self {
            Colour::Green => Some('G'),
            Colour::Yellow => Some('Y'),
            Colour::Red => Some('R'),
            Colour::Other(_) => None,
        }
    }
}

/// A square in ChessBase's 1-based file-major numbering (1 = a1, 2 = a2, 9 = b1, 64 = h8).
fn square(b: u8) -> Option<Square> {
    let i = b.checked_sub(1).filter(|&i| i < 64)?;
    Some(file_major_square(u32::from(i)))
}

fn square_byte(sq: Square) -> u8 {
    (file_major_index(sq) + 1) as u8
}

/// One annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Annotation {
    /// Text after the move (type 0x02) or before it (0x82).
    Text {
        /// Whether the text comes before the move.
        before: bool,
        /// Data byte 0 (0 in known files).
        flags: u8,
        /// Language code (0 all, 0x2A English, 0x35 German, 0x31 French, 0x2B Spanish,
        /// 0x46 Italian, 0x67 Dutch, 0x75 Portuguese).
        language: u8,
        /// The text.
        text: String,
    },
    /// Symbols (0x03): move NAG, position NAG, prefix NAG (0 = none).
    Symbols {
        /// Move assessment (`!`, `?`, …) as a PGN NAG.
        move_nag: u8,
        /// Position evaluation as a PGN NAG.
        position_nag: u8,
        /// Prefix (with the idea, better is, …) as a PGN NAG.
        prefix_nag: u8,
    },
    /// Coloured squares (0x04).
    Squares(Vec<(Colour, Square)>),
    /// Coloured arrows (0x05): colour, from, to.
    Arrows(Vec<(Colour, Square, Square)>),
    /// Time spent on the move (0x07): the stored hours, minutes, seconds and a fourth byte.
    TimeSpent {
        /// Hours.
        hours: u8,
        /// Minutes.
        minutes: u8,
        /// Seconds.
        seconds: u8,
        /// The fourth byte (meaning unknown).
        extra: u8,
    },
    /// White's clock (0x16), hundredths of a second.
    WhiteClock(u32),
    /// Black's clock (0x17), hundredths of a second.
    BlackClock(u32),
    /// Critical position (0x18): 1 opening, 2 middlegame, 3 endgame.
    Critical(u8),
    /// Medals (0x22), the same bits as the game header's.
    Medals(u32),
    /// Colour of the variation's text (0x23).
    VariationColour {
        /// Red.
        red: u8,
        /// Green.
        green: u8,
        /// Blue.
        blue: u8,
        /// The byte stored before the colour: bit 0 "main line only", bit 1 "moves only"
        /// (as morphy reads them; 0 in the corpus). Kept so that a copy writes it back.
        flags: u8,
    },
    /// Pawn structure (0x14): one byte (3 in every file described; its meaning is unknown).
    PawnStructure(u8),
    /// Piece path (0x15): a byte (3 in every file described) and the square the path shows.
    PiecePath {
        /// The first byte.
        kind: u8,
        /// The square.
        square: Square,
    },
    /// Computer evaluation (0x21): three little-endian 16-bit words (the only little-endian
    /// item of the format).
    Evaluation {
        /// Centipawns from White's view (kind 0) or moves to mate (kind 1).
        score: i16,
        /// 0 centipawns, 1 mate in `score` moves; other values (3 is seen) are not shown by
        /// ChessBase and are kept as stored.
        kind: i16,
        /// Search depth in plies (0 = not given).
        depth: i16,
    },
    /// Any other type, kept as stored.
    Unknown {
        /// The type byte.
        kind: u8,
        /// The data after the item head.
        data: Vec<u8>,
    },
}

impl Annotation {
    /// Parses an item's data, texts that are not UTF-8 in `code_page` (the database's); types
    /// whose data does not fit their layout are kept raw.
    pub fn parse(kind: u8, d: &[u8], code_page: &'static encoding_rs::Encoding) -> Annotation {
        let raw = || Annotation::Unknown {
            kind,
            data: d.to_vec(),
        };
        match kind {
            0x02 | 0x82 if d.len() >= 2 => Annotation::Text {
                before: kind == 0x82,
                flags: d[0],
                language: d[1],
                text: decode_text(&d[2..], code_page),
            },
            0x03 if !d.is_empty() && d.len() <= 3 => Annotation::Symbols {
                move_nag: d[0],
                position_nag: d.get(1).copied().unwrap_or(0),
                prefix_nag: d.get(2).copied().unwrap_or(0),
            },
            0x04 if d.len().is_multiple_of(2) => {
                let v: Option<Vec<_>> = d
                    .chunks_exact(2)
                    .map(|c| Some((Colour::from_byte(c[0]), square(c[1])?)))
                    .collect();
                v.map_or_else(raw, Annotation::Squares)
            }
            0x05 if d.len().is_multiple_of(3) => {
                let v: Option<Vec<_>> = d
                    .chunks_exact(3)
                    .map(|c| Some((Colour::from_byte(c[0]), square(c[1])?, square(c[2])?)))
                    .collect();
                v.map_or_else(raw, Annotation::Arrows)
            }
            0x07 if d.len() == 4 => Annotation::TimeSpent {
                hours: d[0],
                minutes: d[1],
                seconds: d[2],
                extra: d[3],
            },
            0x16 | 0x17 if d.len() == 4 => {
                let v = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
                if kind == 0x16 {
                    Annotation::WhiteClock(v)
                } else {
                    Annotation::BlackClock(v)
                }
            }
            0x18 if d.len() == 1 => Annotation::Critical(d[0]),
            0x22 if d.len() == 4 => {
                Annotation::Medals(u32::from_be_bytes([d[0], d[1], d[2], d[3]]))
            }
            0x23 if d.len() == 4 => Annotation::VariationColour {
                flags: d[0],
                blue: d[1],
                green: d[2],
                red: d[3],
            },
            0x14 if d.len() == 1 => Annotation::PawnStructure(d[0]),
            0x15 if d.len() == 2 => match square(d[1]) {
                Some(square) => Annotation::PiecePath { kind: d[0], square },
                None => raw(),
            },
            0x21 if d.len() == 6 => {
                let word = |i: usize| i16::from_le_bytes([d[i], d[i + 1]]);
                Annotation::Evaluation {
                    score: word(0),
                    kind: word(2),
                    depth: word(4),
                }
            }
            _ => raw(),
        }
    }

    /// The type byte and data bytes, as stored (text as UTF-8).
    pub fn to_bytes(&self) -> (u8, Vec<u8>) {
        self.bytes_with(|s| s.as_bytes().to_vec())
    }

    /// Like [`Annotation::to_bytes`], text in `code_page` where it can hold it (UTF-8 else;
    /// see [`crate::text::encode_text`]).
    pub fn to_bytes_in(&self, code_page: &'static encoding_rs::Encoding) -> (u8, Vec<u8>) {
        self.bytes_with(|s| crate::text::encode_text(s, code_page))
    }

    fn bytes_with(&self, encode: impl Fn(&str) -> Vec<u8>) -> (u8, Vec<u8>) {
        match self {
            Annotation::Text {
                before,
                flags,
                language,
                text,
            } => {
                let mut d = vec![*flags, *language];
                d.extend_from_slice(&encode(text));
                (if *before { 0x82 } else { 0x02 }, d)
            }
            Annotation::Symbols {
                move_nag,
                position_nag,
                prefix_nag,
            } => {
                // As ChessBase stores them: trailing zero NAGs left out (at least one byte).
                let mut d = vec![*move_nag, *position_nag, *prefix_nag];
                while d.len() > 1 && d.last() == Some(&0) {
                    d.pop();
                }
                (0x03, d)
            }
            Annotation::Squares(v) => (
                0x04,
                v.iter()
                    .flat_map(|(c, s)| [c.to_byte(), square_byte(*s)])
                    .collect(),
            ),
            Annotation::Arrows(v) => (
                0x05,
                v.iter()
                    .flat_map(|(c, a, b)| [c.to_byte(), square_byte(*a), square_byte(*b)])
                    .collect(),
            ),
            Annotation::TimeSpent {
                hours,
                minutes,
                seconds,
                extra,
            } => (0x07, vec![*hours, *minutes, *seconds, *extra]),
            Annotation::WhiteClock(v) => (0x16, v.to_be_bytes().to_vec()),
            Annotation::BlackClock(v) => (0x17, v.to_be_bytes().to_vec()),
            Annotation::Critical(v) => (0x18, vec![*v]),
            Annotation::Medals(v) => (0x22, v.to_be_bytes().to_vec()),
            Annotation::VariationColour {
                red,
                green,
                blue,
                flags,
            } => (0x23, vec![*flags, *blue, *green, *red]),
            Annotation::PawnStructure(k) => (0x14, vec![*k]),
            Annotation::PiecePath { kind, square } => (0x15, vec![*kind, square_byte(*square)]),
            Annotation::Evaluation { score, kind, depth } => {
                let mut d = score.to_le_bytes().to_vec();
                d.extend_from_slice(&kind.to_le_bytes());
                d.extend_from_slice(&depth.to_le_bytes());
                (0x21, d)
            }
            Annotation::Unknown { kind, data } => (*kind, data.clone()),
        }
    }
}

/// An annotation with the move it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// 0 = the first move in stream order, −1 = the whole game.
    pub index: i32,
    /// The annotation.
    pub annotation: Annotation,
}

/// Reads the annotation record of game `game` at absolute `offset` of the `.cba` bytes.
///
/// The record must lie inside the file; items are read up to the record's size, and an item
/// whose length runs past it is an error (the items before it are lost too, since the caller
/// cannot tell where the damage started).
///
/// A record that names another game than `game` is read all the same (databases written by
/// other tools do this; the record is the one the game points to): the name it carries is
/// returned beside the items, for the caller to report.
pub fn parse_record(
    cba: &[u8],
    offset: u32,
    game: u32,
    code_page: &'static encoding_rs::Encoding,
) -> Result<Vec<Item>, ParseError> {
    parse_record_named(cba, offset, code_page)
        .map(|(_, items)| items)
        .and_then(|items| {
            let named = record_game(cba, offset);
            if named.is_some_and(|n| n != game) {
                Err(ParseError::new(
                    u64::from(offset),
                    format!("annotations of game {game}"),
                    format!("annotations of game {}", named.unwrap_or(0)),
                ))
            } else {
                Ok(items)
            }
        })
}

/// The game a record at `offset` names in its head, if the head is inside the file.
fn record_game(cba: &[u8], offset: u32) -> Option<u32> {
    let start = offset as usize;
    let head: &[u8; CBA_HEAD_SIZE] = cba
        .get(start..start.checked_add(CBA_HEAD_SIZE)?)?
        .try_into()
        .ok()?;
    Some(CbaHead::parse(head).game)
}

/// Reads the annotation record at `offset`: the game its head names, and its items (see
/// [`parse_record`], which also requires the name to match).
pub fn parse_record_named(
    cba: &[u8],
    offset: u32,
    code_page: &'static encoding_rs::Encoding,
) -> Result<(u32, Vec<Item>), ParseError> {
    let start = offset as usize;
    let head: &[u8; CBA_HEAD_SIZE] = cba
        .get(start..start.saturating_add(CBA_HEAD_SIZE))
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            ParseError::truncated(
                u64::from(offset),
                CBA_HEAD_SIZE as u64,
                cba.len().saturating_sub(start) as u64,
            )
        })?;
    let head = CbaHead::parse(head);
    let size = head.size as usize;
    let record = cba
        .get(start..start.saturating_add(size))
        .filter(|_| size >= CBA_HEAD_SIZE)
        .ok_or_else(|| {
            ParseError::new(
                u64::from(offset) + 10,
                "a record size that fits the file",
                head.size.to_string(),
            )
        })?;
    let mut items = Vec::new();
    let mut pos = CBA_HEAD_SIZE;
    while pos < record.len() {
        let at = (start + pos) as u64;
        let ih: &[u8; CBA_ITEM_HEAD_SIZE] = record
            .get(pos..pos + CBA_ITEM_HEAD_SIZE)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                ParseError::truncated(at, CBA_ITEM_HEAD_SIZE as u64, (record.len() - pos) as u64)
            })?;
        let ih = CbaItemHead::parse(ih);
        let len = usize::from(ih.length);
        let data = record
            .get(pos + CBA_ITEM_HEAD_SIZE..pos + len)
            .filter(|_| len >= CBA_ITEM_HEAD_SIZE)
            .ok_or_else(|| {
                ParseError::new(
                    at + 4,
                    "an item length inside the record",
                    ih.length.to_string(),
                )
            })?;
        items.push(Item {
            index: ih.index,
            annotation: Annotation::parse(ih.kind, data, code_page),
        });
        pos += len;
    }
    Ok((head.game, items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip() {
        let samples = [
            Annotation::Text {
                before: true,
                flags: 0,
                language: 0x2a,
                text: "Hello".into(),
            },
            Annotation::Symbols {
                move_nag: 1,
                position_nag: 14,
                prefix_nag: 0,
            },
            Annotation::Squares(vec![(Colour::Green, Square::D4), (Colour::Red, Square::H8)]),
            Annotation::Arrows(vec![(Colour::Yellow, Square::E2, Square::E4)]),
            Annotation::WhiteClock(90_000),
            Annotation::Critical(2),
            Annotation::VariationColour {
                red: 1,
                green: 2,
                blue: 3,
                flags: 1,
            },
            Annotation::PawnStructure(3),
            Annotation::PiecePath {
                kind: 3,
                square: Square::C7,
            },
            Annotation::Evaluation {
                score: -250,
                kind: 0,
                depth: 18,
            },
            Annotation::Unknown {
                kind: 0x21,
                data: vec![1, 2, 3],
            },
        ];
        for a in samples {
            let (kind, data) = a.to_bytes();
            assert_eq!(Annotation::parse(kind, &data, encoding_rs::WINDOWS_1252), a);
        }
        assert_eq!(square(1), Some(Square::A1));
        assert_eq!(square(9), Some(Square::B1));
        assert_eq!(square(64), Some(Square::H8));
        assert_eq!(square(0), None);
        assert_eq!(square(65), None);
    }

    #[test]
    fn record_bounds_are_checked() {
        let mut rec = CbaHead {
            game: 7,
            unknown: [0, 0, 0x0e, 0x0e],
            items_plus_one: 2,
            size: 14 + 9,
        }
        .to_bytes()
        .to_vec();
        rec.extend_from_slice(
            &CbaItemHead {
                index: -1,
                kind: 0x03,
                length: 9,
            }
            .to_bytes(),
        );
        rec.extend_from_slice(&[1, 0, 0]);
        let items = parse_record(&rec, 0, 7, encoding_rs::WINDOWS_1252).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].index, -1);
        assert!(parse_record(&rec, 0, 8, encoding_rs::WINDOWS_1252).is_err());
        assert!(parse_record(&rec[..20], 0, 7, encoding_rs::WINDOWS_1252).is_err());
        let mut bad = rec.clone();
        bad[14 + 5] = 200; // item length past the record
        let e = parse_record(&bad, 0, 7, encoding_rs::WINDOWS_1252).unwrap_err();
        assert_eq!(e.offset, 14 + 4);
    }
}
