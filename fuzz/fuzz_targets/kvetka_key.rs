#![no_main]
//! Fuzz target: see `kvetka_book::fuzzing::key` (its corpus in fuzz/corpus/kvetka_key is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| kvetka_book::fuzzing::key(data));
