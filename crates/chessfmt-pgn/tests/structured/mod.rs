//! Structure-aware generation of PGN (issue 20): the input bytes are choices (through
//! `arbitrary::Unstructured`) that build games whose tag sections, main lines, comments and
//! variations may be huge — repeat counts let a few bytes make megabytes (thousands of tags,
//! tag lines near and over the limit, 100,000 nested variations) — read under the default or
//! tight `Limits`. Shared by the fuzz target `pgn_structured` (fuzz/) and the replay test
//! `fuzz_structured.rs`; it asserts that every game is read or counted as skipped, and that no
//! game read exceeds the limits.

use arbitrary::{Result, Unstructured};
use chessfmt_pgn::Limits;
use chessfmt_pgn::PgnReader;

/// The most bytes of PGN one input may build.
const MAX_TEXT: usize = 1 << 20;

/// Builds PGN from `data` and reads it back.
pub fn pgn_structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok((text, games, limits)) = generate(&mut u) else {
        return;
    };
    let mut reader = PgnReader::with_limits(text.as_bytes(), limits);
    let mut read = 0u64;
    while let Some(g) = reader.next_raw().expect("in-memory input never fails") {
        assert!(
            g.headers.len() <= limits.pgn_tags,
            "{} tags",
            g.headers.len()
        );
        assert!(g.sans.len() <= limits.pgn_plies, "{} plies", g.sans.len());
        read += 1;
    }
    let skipped = reader.skipped().total();
    assert_eq!(
        read + skipped,
        games,
        "every game is read or counted as skipped ({:?})",
        reader.skipped().by_kind
    );
}

/// A tag value of choice (escapes included), sometimes long.
fn value(u: &mut Unstructured<'_>, limits: &Limits) -> Result<String> {
    let len = match u.choose_index(8)? {
        0 => limits.pgn_tag_line.saturating_sub(u.int_in_range(0..=16)?),
        1 => limits.pgn_tag_line + u.int_in_range(0..=16)?,
        2 => u.int_in_range(0..=4096)?,
        _ => u.int_in_range(0..=8)?,
    };
    let unit = ["a", "\\\"", "\\\\", "é", " ", "]", "["][u.choose_index(7)?];
    Ok(unit.repeat(len.min(MAX_TEXT) / unit.len()))
}

fn generate(u: &mut Unstructured<'_>) -> Result<(String, u64, Limits)> {
    let mut limits = Limits::default();
    if u.ratio(1, 3)? {
        limits.pgn_tags = u.int_in_range(0..=16)?;
        limits.pgn_tag_bytes = u.int_in_range(0..=256)?;
        limits.pgn_plies = u.int_in_range(0..=16)?;
        limits.pgn_tag_line = u.int_in_range(64..=512)?;
    }
    let mut text = String::new();
    let mut games = 0;
    while !u.is_empty() && text.len() < MAX_TEXT {
        games += 1;
        // Tags: a few, or one repeated many times.
        let tags = if u.ratio(1, 4)? {
            u.int_in_range(0..=10_000)?
        } else {
            u.int_in_range(0..=6)?
        };
        let v = value(u, &limits)?;
        for i in 0..tags {
            if text.len() > MAX_TEXT {
                break;
            }
            text.push_str(&format!("[T{i} \"{v}\"]\n"));
        }
        text.push_str("[Result \"*\"]\n\n");
        // Movetext: knight shuffles, a comment, nested variations.
        for i in 0..u.int_in_range(0..=200)? {
            text.push_str(["Nf3 ", "Nf6 ", "Ng1 ", "Ng8 "][i % 4]);
        }
        if u.ratio(1, 4)? {
            let depth = u.int_in_range(0..=100_000usize)?.min(MAX_TEXT / 16);
            text.push_str(&"( Nc3 ".repeat(depth));
            text.push_str(&")".repeat(depth));
        }
        if u.ratio(1, 4)? {
            text.push_str(&format!("{{{}}} ", "c".repeat(u.int_in_range(0..=10_000)?)));
        }
        text.push_str("*\n\n");
    }
    Ok((text, games, limits))
}
