//! Replays the structure-aware corpus (fuzz/corpus/pgn_structured) through the generator the
//! fuzz target `pgn_structured` uses, plus mutations and pseudo-random inputs.

mod structured;

use std::path::PathBuf;

#[test]
fn replay_structured_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/pgn_structured");
    let seeds = chess_core::fuzzing::replay_corpus(&dir, 10, structured::pgn_structured);
    assert!(seeds >= 2);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x5eed, 2000, 41) {
        structured::pgn_structured(&data);
    }
}
