#![no_main]
//! Fuzz target: see `ctg::fuzzing::position` (its corpus in fuzz/corpus/ctg_position is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| ctg::fuzzing::position(data));
