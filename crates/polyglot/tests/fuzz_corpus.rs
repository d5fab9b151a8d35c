//! Replays the committed fuzz corpus (fuzz/corpus/polyglot_book) through the fuzz target's
//! checks, plus pseudo-random inputs.

use std::path::PathBuf;

#[test]
fn polyglot_book_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/polyglot_book");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        polyglot_book::fuzzing::book(&std::fs::read(entry.unwrap().path()).unwrap());
        n += 1;
    }
    assert!(n >= 5);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x2545_f491_4f6c_dd1d, 2000, 7) {
        polyglot_book::fuzzing::book(&data);
    }
}

/// PGN replayed into this crate's builder (fuzz/corpus/pgn_builders, target pgn_builders).
#[test]
fn replay_pgn_builders_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/pgn_builders");
    let seeds =
        chess_core::fuzzing::replay_corpus(&dir, 20, polyglot_book::fuzzing::build_from_pgn);
    assert!(seeds >= 3);
}

/// Tables of the tally_table target made into books (`ops::tally::from_tally`): any rows,
/// never a panic; every entry's move decodes in its position when the rows are good.
#[cfg(feature = "tally")]
#[test]
fn replay_tally_table_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/tally_table");
    let options = polyglot_book::ops::build::BuildOptions::default().with_min_game(1);
    let mut entries = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        let rows = chessfmt_tally::sort_and_sum(chessfmt_tally::fuzzing::table(&data));
        let (book, stats) =
            polyglot_book::ops::tally::from_tally(rows.into_iter().map(Ok), &options).unwrap();
        assert_eq!(book.len(), stats.entries);
        entries += book.len();
    }
    assert!(entries > 50);
}
