#![no_main]
//! Fuzz target: see `kvetka_book::fuzzing::book` (the `.kob`, `.kin` and `.ksf` of a book packed
//! in one input; its corpus in fuzz/corpus/kvetka_book is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| kvetka_book::fuzzing::book(data));
