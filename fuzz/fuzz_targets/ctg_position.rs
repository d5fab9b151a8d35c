#![no_main]
//! Fuzz target: see `chess_core::fuzzing::ctg_position` (its corpus in fuzz/corpus/ctg_position is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chess_core::fuzzing::ctg_position(data));
