#![no_main]
//! Structure-aware fuzz target: a ChessBase game built from choices (deep and wide variations, many records sharing it). The generator is
//! crates/chessbase-db/tests/structured/mod.rs, shared with that crate's replay test
//! (`tests/fuzz_structured.rs`), which replays fuzz/corpus/cbh_structured under `cargo test`.

#[path = "../../crates/chessbase-db/tests/structured/mod.rs"]
mod structured;

libfuzzer_sys::fuzz_target!(|data: &[u8]| structured::cbh_structured(data));
