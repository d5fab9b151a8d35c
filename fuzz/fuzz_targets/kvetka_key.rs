#![no_main]
//! Fuzz target: see `chess_core::fuzzing::kvetka_key` (its corpus in fuzz/corpus/kvetka_key is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chess_core::fuzzing::kvetka_key(data));
