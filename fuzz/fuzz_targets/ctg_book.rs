#![no_main]
//! Fuzz target: see `ctg::fuzzing::book` (the three files of a book packed in one input; its
//! corpus in fuzz/corpus/ctg_book is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| ctg::fuzzing::book(data));
