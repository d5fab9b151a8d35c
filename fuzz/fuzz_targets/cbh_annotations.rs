#![no_main]
//! Fuzz target: see `chessbase_db::fuzzing::annotations` (a `.cba` annotation record; its corpus in fuzz/corpus/cbh_annotations is
//! replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessbase_db::fuzzing::annotations(data));
