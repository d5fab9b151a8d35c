//! Replays the structure-aware corpus (fuzz/corpus/cbh_structured) through the generator the
//! fuzz target `cbh_structured` uses, plus mutations and pseudo-random inputs: every input
//! builds a legal game, which decodes, exports and stays within the bounds.

mod structured;

use std::path::PathBuf;

#[test]
fn replay_structured_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/cbh_structured");
    let seeds = chess_core::fuzzing::replay_corpus(&dir, 8, structured::cbh_structured);
    assert!(seeds >= 3);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x5eed, 2000, 97) {
        structured::cbh_structured(&data);
    }
}

#[cfg(feature = "pgn")]
#[path = "structured/writer.rs"]
mod structured_writer;

/// Replays the writer's structure-aware corpus (fuzz/corpus/cbh_writer) and pseudo-random
/// inputs: every generated set of games is written, read back and found equal.
#[cfg(feature = "pgn")]
#[test]
fn replay_writer_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/cbh_writer");
    let reached = std::cell::Cell::new((0, 0));
    let seeds = chess_core::fuzzing::replay_corpus(&dir, 8, |d| {
        let (m, a) = structured_writer::cbh_writer(d);
        let r = reached.get();
        reached.set((r.0 + m, r.1 + a));
    });
    let reached = reached.get();
    assert!(seeds >= 2);
    assert!(
        reached.0 >= 200 && reached.1 >= 50,
        "the seeds reach {reached:?}"
    );
    for data in chess_core::fuzzing::pseudo_random_inputs(0x0037_17e5, 400, 4096) {
        structured_writer::cbh_writer(&data);
    }
}
