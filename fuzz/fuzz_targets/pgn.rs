#![no_main]
//! Fuzz target: see `chess_core::fuzzing::pgn` (its corpus in fuzz/corpus/pgn is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chess_core::fuzzing::pgn(data));
