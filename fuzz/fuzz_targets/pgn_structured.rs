#![no_main]
//! Structure-aware fuzz target: PGN built from choices (huge tag sections, long tag lines, deep variations) read under default or tight limits. The generator is
//! crates/chessfmt-pgn/tests/structured/mod.rs, shared with that crate's replay test
//! (`tests/fuzz_structured.rs`), which replays fuzz/corpus/pgn_structured under `cargo test`.

#[path = "../../crates/chessfmt-pgn/tests/structured/mod.rs"]
mod structured;

libfuzzer_sys::fuzz_target!(|data: &[u8]| structured::pgn_structured(data));
