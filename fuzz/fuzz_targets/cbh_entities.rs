#![no_main]
//! Fuzz target: see `chessbase_db::fuzzing::entity_file` (an entity file read as each of the five entity kinds, with its sorted walk; its corpus in fuzz/corpus/cbh_entities is
//! replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessbase_db::fuzzing::entity_file(data));
