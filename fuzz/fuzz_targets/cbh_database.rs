#![no_main]
//! Fuzz target: see `chessbase_db::fuzzing::database` (a `.cbh`, `.cbg` and `.cba` packed in one input; every record listed, decoded and exported; its corpus in fuzz/corpus/cbh_database is
//! replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessbase_db::fuzzing::database(data));
