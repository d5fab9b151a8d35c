#![no_main]
//! Fuzz target: see `chessbase_db::fuzzing::pgn_import` (PGN imported into a new database by
//! the writer, read back and exported; its corpus in fuzz/corpus/cbh_pgn_import is replayed
//! by `cargo test`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessbase_db::fuzzing::pgn_import(data));
