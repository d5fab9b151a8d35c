//! The big golden: building the whole gnuchess-book_1.02.pgn.xz (145,716 games) gives a file
//! byte-identical to the Debian package's book.bin (books/gnuchess-book_1.02.bin), which
//! `polyglot make-book` built with default options. Ignored by default (it wants a release
//! build); `cargo xtask test` runs it with `--release -- --ignored` when the corpus is present.

use std::path::PathBuf;

use chessfmt_pgn::PgnReader;
use polyglot_book::ops::build::{BuildOptions, Builder};

#[test]
#[ignore = "release-mode corpus test, run by `cargo xtask test`"]
fn full_gnuchess_book_is_byte_identical() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/polyglot");
    if !dir.is_dir() {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!("skipping: ../shared/corpus/polyglot not found");
        return;
    }
    let start = std::time::Instant::now();
    let mut b = Builder::new(BuildOptions::default());
    b.add_pgn(
        PgnReader::open(dir.join("pgn/gnuchess-book_1.02.pgn.xz")).unwrap(),
        |_| {},
    )
    .unwrap();
    let (entries, stats) = b.finish().unwrap();
    eprintln!(
        "built {} entries from {} games in {:.1?}",
        entries.len(),
        stats.games_read,
        start.elapsed()
    );
    assert_eq!(stats.games_read, 145_716);
    assert_eq!(stats.skipped.total(), 0, "{}", stats.skipped);
    let expected = std::fs::read(dir.join("books/gnuchess-book_1.02.bin")).unwrap();
    let got: Vec<u8> = entries.iter().flat_map(|e| e.to_bytes()).collect();
    assert_eq!(got.len(), expected.len());
    assert!(got == expected, "contents differ");
}
