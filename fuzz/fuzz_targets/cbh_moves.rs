#![no_main]
//! Fuzz target: see `chessbase_db::fuzzing::moves` (a `.cbg` move stream in modes 0, 4, 5 and 10, from the start or a random set-up position; its corpus in fuzz/corpus/cbh_moves is
//! replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessbase_db::fuzzing::moves(data));
