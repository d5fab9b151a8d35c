#![no_main]
//! Structure-aware fuzz target: a Kvetka .ksf built from choices, its table of contents edited (repeated, shifted, out-of-range entries). The generator is
//! crates/kvetka-book/tests/structured/mod.rs, shared with that crate's replay test
//! (`tests/fuzz_structured.rs`), which replays fuzz/corpus/kvetka_ksf under `cargo test`.

#[path = "../../crates/kvetka-book/tests/structured/mod.rs"]
mod structured;

libfuzzer_sys::fuzz_target!(|data: &[u8]| structured::kvetka_ksf(data));
