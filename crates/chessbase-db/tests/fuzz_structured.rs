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
