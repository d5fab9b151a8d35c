//! Replays the committed fuzz corpus (fuzz/corpus/kvetka_book) through the fuzz target's entry
//! point, plus mutations of it and pseudo-random inputs: no input panics.

use std::path::PathBuf;

#[test]
fn replay_corpus_and_mutations() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/kvetka_book");
    let mut seeds = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        kvetka_book::fuzzing::book(&data);
        seeds.push(data);
    }
    assert!(seeds.len() >= 3);
    // Byte mutations at pseudo-random places (header, blocks, index and sources alike).
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for seed in &seeds {
        for _ in 0..150 {
            let mut d = seed.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() as usize) % d.len();
                d[i] = next() as u8;
            }
            kvetka_book::fuzzing::book(&d);
            let cut = (next() as usize) % d.len();
            kvetka_book::fuzzing::book(&d[..cut]);
        }
    }
    for data in chess_core::fuzzing::pseudo_random_inputs(0x5bd1_e995, 3000, 11) {
        kvetka_book::fuzzing::book(&data);
    }
}
