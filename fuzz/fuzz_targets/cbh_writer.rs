#![no_main]
//! Structure-aware fuzz target for the ChessBase writer: legal games with variations and
//! every kind of annotation, names and comments in one of four code pages, written, read back
//! and compared. The generator is crates/chessbase-db/tests/structured/writer.rs, shared with
//! that crate's replay test (`tests/fuzz_structured.rs`), which replays fuzz/corpus/cbh_writer
//! under `cargo test`.

#[path = "../../crates/chessbase-db/tests/structured/writer.rs"]
mod structured_writer;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    structured_writer::cbh_writer(data);
});
