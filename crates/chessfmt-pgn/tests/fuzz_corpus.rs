//! Replays the committed fuzz corpus (fuzz/corpus/pgn) through the
//! same checks as the fuzz targets.

use std::path::PathBuf;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        check(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n > 0, "empty corpus {}", dir.display());
}

#[test]
fn pgn_corpus() {
    replay("pgn", chessfmt_pgn::fuzzing::pgn);
}

#[test]
fn arbitrary_bytes_do_not_panic() {
    // A cheap stand-in for fuzzing on machines without nightly: pseudo-random inputs.
    for data in chess_core::fuzzing::pseudo_random_inputs(0x9e37_79b9_7f4a_7c15, 400, 1) {
        chessfmt_pgn::fuzzing::pgn(&data);
    }
}
