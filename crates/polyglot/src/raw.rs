//! On-disk layout: 16-byte big-endian entries.
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | key (Polyglot Zobrist hash) |
//! | 8..10 | move: to file (bits 0–2), to row (3–5), from file (6–8), from row (9–11), promotion (12–14: 1 N, 2 B, 3 R, 4 Q) |
//! | 10..12 | weight |
//! | 12..16 | learn (free-form: kept bit for bit) |

use chess_core::ParseError;
use chess_core::parse::{NomError, Parser, be_u16, be_u32, be_u64, fixed, run};

/// Size of one entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// The entry layout as a nom parser (the one declaration of it).
fn entry<'a>() -> impl Parser<&'a [u8], Output = Entry, Error = NomError<'a>> {
    (be_u64, be_u16, be_u16, be_u32).map(|(key, raw_move, weight, learn)| Entry {
        key,
        raw_move,
        weight,
        learn,
    })
}

/// One book entry as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Entry {
    /// Polyglot key of the position.
    pub key: u64,
    /// The raw 16-bit move field.
    pub raw_move: u16,
    /// Weight (relative frequency or quality).
    pub weight: u16,
    /// The learn field, preserved bit for bit.
    pub learn: u32,
}

impl Entry {
    /// Parses an entry from 16 bytes.
    #[inline]
    pub fn from_bytes(b: &[u8; ENTRY_SIZE]) -> Entry {
        fixed(b, entry())
    }

    /// Parses the entry at the start of `data`, which starts at byte `base` of its file.
    pub fn parse(data: &[u8], base: u64) -> Result<Entry, ParseError> {
        run(data, base, "a 16-byte book entry", entry()).map(|(e, _)| e)
    }

    /// The 16 bytes of an entry.
    pub fn to_bytes(&self) -> [u8; ENTRY_SIZE] {
        let mut b = [0; ENTRY_SIZE];
        b[0..8].copy_from_slice(&self.key.to_be_bytes());
        b[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        b[10..12].copy_from_slice(&self.weight.to_be_bytes());
        b[12..16].copy_from_slice(&self.learn.to_be_bytes());
        b
    }

    /// Whether the move field is the null move 0 (readers ignore such entries).
    pub fn is_null_move(&self) -> bool {
        self.raw_move == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn bytes_round_trip(key: u64, raw_move: u16, weight: u16, learn: u32) {
            let e = Entry { key, raw_move, weight, learn };
            prop_assert_eq!(Entry::from_bytes(&e.to_bytes()), e);
        }
    }
}
