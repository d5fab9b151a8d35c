//! Structure-aware generation of Kvetka `.ksf` sources files (issue 20): the input bytes are
//! choices (through `arbitrary::Unstructured`) that build valid sources — names of any length,
//! up to thousands of games — written by the crate's writer, and then edits to the table of
//! contents of the kinds a crafted file uses: entries repeated (every entry at one source:
//! ../shared/fuzz-findings F1), pointing into the middle of a source, past the end, or a
//! source count larger than the table. Shared by the fuzz target `kvetka_ksf` (fuzz/) and the
//! replay test `fuzz_structured.rs`; it asserts what the reader promises.

use arbitrary::{Result, Unstructured};
use kvetka_book::ksf::{GameInfo, KsfResult, SOURCE_PGN, Source, Sources};

/// Builds a `.ksf` from `data`, edits its table, parses it: an unedited file reads back
/// equal; an edited one reads or is refused, never with more sources than the table names or
/// more games than its bytes can hold.
pub fn kvetka_ksf(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(sources) = generate(&mut u) else {
        return;
    };
    let Ok(mut bytes) = sources.to_bytes() else {
        return;
    };
    assert!(
        Sources::parse(&bytes).as_ref() == Ok(&sources),
        "a written file reads back ({} sources)",
        sources.sources.len()
    );
    let Ok(edited) = edit(&mut u, &mut bytes, sources.sources.len()) else {
        return;
    };
    match Sources::parse(&bytes) {
        Ok(read) => {
            assert!(read.sources.len() <= sources.sources.len().max(1) + 1);
            let games: usize = read.sources.iter().map(|s| s.games.len()).sum();
            assert!(
                games <= bytes.len() / 20,
                "{games} games in {} bytes",
                bytes.len()
            );
            if !edited {
                assert!(read == sources, "an unedited file reads back");
            }
        }
        Err(e) => assert!(edited, "an unedited file is refused: {e}"),
    }
}

/// Letters the `.ksf` code page (Windows-1251) holds: Latin and Cyrillic.
const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ,.-'0123456789\
                       абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ";

fn name(u: &mut Unstructured<'_>) -> Result<String> {
    // Mostly short names, sometimes a long one.
    let len = if u.ratio(1, 8)? {
        u.int_in_range(0..=300)?
    } else {
        u.int_in_range(0..=12)?
    };
    let letters: Vec<char> = LETTERS.chars().collect();
    let mut s = String::with_capacity(len);
    for _ in 0..len {
        s.push(letters[u.choose_index(letters.len())?]);
    }
    Ok(s)
}

fn generate(u: &mut Unstructured<'_>) -> Result<Sources> {
    let mut sources = Vec::new();
    for _ in 0..u.int_in_range(0..=64)? {
        let mut games = Vec::new();
        let template = GameInfo {
            address: u.arbitrary()?,
            length: u.arbitrary()?,
            white: name(u)?,
            black: name(u)?,
            white_elo: u.arbitrary()?,
            black_elo: u.arbitrary()?,
            result: KsfResult::from_byte(u.int_in_range(0..=4)?),
        };
        // Many games from few bytes: copies of one with shifted addresses.
        for i in 0..u.int_in_range(0..=1000u32)? {
            let mut g = template.clone();
            g.address = g.address.wrapping_add(i);
            games.push(g);
        }
        sources.push(Source {
            source_type: if u.ratio(7, 8)? {
                SOURCE_PGN
            } else {
                u.int_in_range(0..=3)?
            },
            is_bad: u.int_in_range(0..=1)?,
            address: name(u)?,
            games,
        });
    }
    Ok(Sources { sources })
}

/// Edits the table of contents (u32 count, then one u32 offset per source, big-endian);
/// returns whether anything changed.
fn edit(u: &mut Unstructured<'_>, bytes: &mut [u8], count: usize) -> Result<bool> {
    let offset_at = |i: usize| 4 + 4 * i;
    let read = |b: &[u8], i: usize| {
        u32::from_be_bytes(b[offset_at(i)..offset_at(i) + 4].try_into().unwrap())
    };
    let mut edited = false;
    for _ in 0..u.int_in_range(0..=4)? {
        let table_room = (bytes.len().min(4 + 4 * 4096) - 4) / 4;
        match u.choose_index(4)? {
            // Every entry (or one) at the same source.
            0 if count > 1 => {
                let target = read(bytes, u.choose_index(count)?);
                let all = u.arbitrary::<bool>()?;
                for i in 0..count {
                    if all || u.arbitrary::<bool>()? {
                        bytes[offset_at(i)..offset_at(i) + 4]
                            .copy_from_slice(&target.to_be_bytes());
                    }
                }
                edited = true;
            }
            // An entry moved by a few bytes (into the middle of a source, or before it).
            1 if count > 0 => {
                let i = u.choose_index(count)?;
                let delta = u.int_in_range(-64i32..=64)?;
                let v = read(bytes, i).wrapping_add_signed(delta);
                bytes[offset_at(i)..offset_at(i) + 4].copy_from_slice(&v.to_be_bytes());
                edited = true;
            }
            // An entry past the end of the file.
            2 if count > 0 => {
                let i = u.choose_index(count)?;
                let v = bytes.len() as u32 + u.int_in_range(0..=1000)?;
                bytes[offset_at(i)..offset_at(i) + 4].copy_from_slice(&v.to_be_bytes());
                edited = true;
            }
            // A count larger than the sources (up to what the table can hold, or past it).
            _ => {
                let c = u.int_in_range(0..=table_room as u32 + 2)?;
                bytes[..4].copy_from_slice(&c.to_be_bytes());
                edited |= c as usize != count;
            }
        }
    }
    Ok(edited)
}
