//! Replays the structure-aware corpus (fuzz/corpus/kvetka_ksf) through the generator the fuzz
//! target `kvetka_ksf` uses, plus mutations and pseudo-random inputs.

mod structured;

use std::path::PathBuf;

#[test]
fn replay_structured_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/kvetka_ksf");
    let seeds = chess_core::fuzzing::replay_corpus(&dir, 10, structured::kvetka_ksf);
    assert!(seeds >= 2);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x5eed, 3000, 61) {
        structured::kvetka_ksf(&data);
    }
}
