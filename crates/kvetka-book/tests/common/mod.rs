//! Shared helpers of the Kvetka tests: corpus paths (skipping when absent), building books into
//! temporary directories, and PGN slices.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use chessfmt_pgn::PgnReader;
use kvetka_book::{
    Header,
    build::Builder,
    read::BookPaths,
    write::{DEFAULT_SPLIT_SIZE, write_book},
};

/// `../shared/corpus/<rel>`, or `None` (with a message) when the corpus is absent.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!(
            "skipping: {} is absent (../shared corpus not beside the repository)",
            p.display()
        );
        None
    }
}

/// The gnuchess PGN of the corpus (10,000 games).
pub fn gnuchess() -> Option<PathBuf> {
    corpus("polyglot/pgn/gnuchess-book_1.02-first10000.pgn")
}

/// Writes games `range` of a PGN file into `dir/name` (byte-exact slices of the file).
pub fn pgn_slice(src: &Path, range: std::ops::Range<usize>, dir: &Path, name: &str) -> PathBuf {
    let bytes = std::fs::read(src).unwrap();
    let mut reader = PgnReader::new(&bytes[..]);
    let games = reader.next_batch(range.end + 1).unwrap();
    let start = games[range.start].offset as usize;
    let end = games
        .get(range.end)
        .map_or(bytes.len(), |g| g.offset as usize);
    let out = dir.join(name);
    std::fs::write(&out, &bytes[start..end]).unwrap();
    out
}

/// A header for tests.
pub fn header(max_move: u8, with_games: bool, links: bool) -> Header {
    Header {
        caption: "test".into(),
        max_move,
        element_type: u8::from(with_games),
        links: u8::from(links),
        ..Header::default()
    }
}

/// Builds a book from PGN files into `dir/name`; returns its paths.
pub fn build(pgns: &[&Path], header: Header, dir: &Path, name: &str, split: u64) -> BookPaths {
    let mut b = Builder::new(kvetka_book::build::BuildOptions::default().with_header(header));
    for p in pgns {
        b.add_pgn_file(p, |_| {}).unwrap();
    }
    let (built, _) = b.finish().unwrap();
    let (header, mut elements, sources) = (built.header, built.elements, built.sources);
    let paths = BookPaths::from_any(dir.join(name));
    write_book(
        &paths,
        &header,
        &mut elements,
        sources.as_ref(),
        split,
        false,
    )
    .unwrap();
    paths
}

/// [`build`] with the default split size.
pub fn build_default(pgns: &[&Path], header: Header, dir: &Path, name: &str) -> BookPaths {
    build(pgns, header, dir, name, DEFAULT_SPLIT_SIZE)
}
