#![no_main]
//! Fuzz target: see `chessbase_db::fuzzing::archive` (a `.cbv`, or a `.cbz` opened with the
//! password `fuzz`, every member extracted and the database in it exported). Its corpus in
//! fuzz/corpus/cbh_archive (a synthetic archive of every block mode, made by
//! crates/chessbase-db/tests/archives.rs) is replayed by `cargo test`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| chessbase_db::fuzzing::archive(data));
