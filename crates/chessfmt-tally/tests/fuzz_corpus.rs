//! Replays the committed fuzz corpus (fuzz/corpus/tally_table) through the fuzz target's
//! table checks, plus pseudo-random inputs and mutations of the corpus.

use std::path::PathBuf;

#[test]
fn tally_table_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/tally_table");
    let mut n = 0;
    let mut rows = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        rows += chessfmt_tally::fuzzing::table(&data).len();
        // Every byte changed in turn (cheap mutations of real tables).
        for i in (0..data.len()).step_by(7) {
            let mut m = data.clone();
            m[i] = m[i].wrapping_add(17);
            chessfmt_tally::fuzzing::table(&m);
            m.truncate(i);
            chessfmt_tally::fuzzing::table(&m);
        }
        n += 1;
    }
    assert!(n >= 5);
    assert!(rows >= 90, "{rows} rows read from the corpus");
    for data in chess_core::fuzzing::pseudo_random_inputs(0x9e37_79b9_7f4a_7c15, 500, 7) {
        chessfmt_tally::fuzzing::table(&data);
    }
}
