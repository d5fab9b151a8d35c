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
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for len in (0..2000).step_by(7) {
        let data: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        polyglot_book::fuzzing::book(&data);
    }
}
