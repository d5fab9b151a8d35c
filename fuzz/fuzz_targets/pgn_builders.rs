#![no_main]
//! Fuzz target: PGN bytes replayed into every builder — `polyglot_book::fuzzing::build_from_pgn`,
//! `ctg::fuzzing::build_from_pgn`, `kvetka_book::fuzzing::build_from_pgn` (its corpus in
//! fuzz/corpus/pgn_builders is replayed by `cargo test` of the three crates).

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    polyglot_book::fuzzing::build_from_pgn(data);
    ctg::fuzzing::build_from_pgn(data);
    kvetka_book::fuzzing::build_from_pgn(data);
});
