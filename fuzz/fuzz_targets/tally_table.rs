#![no_main]
//! Fuzz target: a statistics table (CSV) read, written back, merged
//! (`chessfmt_tally::fuzzing::table`), then made into Polyglot and CTG books; its corpus in
//! fuzz/corpus/tally_table is replayed by `cargo test`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let rows = chessfmt_tally::fuzzing::table(data);
    let sorted = chessfmt_tally::sort_and_sum(rows);
    let options = polyglot_book::ops::build::BuildOptions::default().with_min_game(1);
    let _ = polyglot_book::ops::tally::from_tally(sorted.iter().cloned().map(Ok), &options);
    let _ = ctg::tally::from_tally(sorted.into_iter().map(Ok));
});
