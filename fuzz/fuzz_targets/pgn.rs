#![no_main]
//! Fuzz target: see `chessfmt_pgn::fuzzing::pgn` (its corpus in fuzz/corpus/pgn is replayed by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessfmt_pgn::fuzzing::pgn(data));
