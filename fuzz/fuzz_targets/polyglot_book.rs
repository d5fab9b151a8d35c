#![no_main]
//! Fuzz target: see `polyglot_book::fuzzing::book` (its corpus in fuzz/corpus/polyglot_book is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| polyglot_book::fuzzing::book(data));
