//! Replays the committed fuzz corpus (fuzz/corpus/ctg_book) through the fuzz target's entry
//! point, plus mutations of it (headers, directory, bitmap and records alike) and pseudo-random
//! inputs: no input panics.

use std::path::PathBuf;

#[test]
fn replay_corpus_and_mutations() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/ctg_book");
    let seeds = chess_core::fuzzing::replay_corpus(&dir, 150, ctg::fuzzing::book);
    assert!(seeds >= 3);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x5bd1_e995, 3000, 11) {
        ctg::fuzzing::book(&data);
    }
}

/// PGN replayed into this crate's builder (fuzz/corpus/pgn_builders, target pgn_builders).
#[test]
fn replay_pgn_builders_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/pgn_builders");
    let seeds = chess_core::fuzzing::replay_corpus(&dir, 20, ctg::fuzzing::build_from_pgn);
    assert!(seeds >= 3);
}

/// The position codec's corpus (fuzz/corpus/ctg_position) and pseudo-random inputs.
#[test]
fn replay_ctg_position_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/ctg_position");
    let seeds = chess_core::fuzzing::replay_corpus(&dir, 100, ctg::fuzzing::position);
    assert!(seeds >= 1);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x9e37_79b9_7f4a_7c15, 400, 1) {
        ctg::fuzzing::position(&data);
    }
}

/// Tables of the tally_table target made into CTG records (`tally::from_tally`): any rows,
/// never a panic; the records are sorted and unique.
#[cfg(feature = "tally")]
#[test]
fn replay_tally_table_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/tally_table");
    let mut records = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        let rows = chessfmt_tally::sort_and_sum(chessfmt_tally::fuzzing::table(&data));
        let (recs, stats) = ctg::tally::from_tally(rows.into_iter().map(Ok)).unwrap();
        assert!(recs.windows(2).all(|w| w[0].position < w[1].position));
        assert_eq!(recs.len(), stats.records);
        records += recs.len();
    }
    assert!(records > 50);
}
