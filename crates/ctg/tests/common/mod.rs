//! Shared helpers of the CTG tests: corpus paths (skipping when absent) and a CSV reader.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/corpus/ctg/<rel>`, or `None` (with a message) when the corpus is absent.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/ctg")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!(
            "skipping: {} is absent (../shared corpus not beside the repository)",
            p.display()
        );
        None
    }
}

/// Rows of a CSV file with a header line (double-quoted fields may hold commas).
pub fn csv(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut fields = vec![String::new()];
            let mut quoted = false;
            for ch in line.chars() {
                match ch {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(String::new()),
                    c => fields.last_mut().unwrap().push(c),
                }
            }
            fields
        })
        .collect()
}

/// Bytes of a hex string.
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A position from a FEN.
pub fn fen(s: &str) -> shakmaty::Chess {
    s.parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap()
}
