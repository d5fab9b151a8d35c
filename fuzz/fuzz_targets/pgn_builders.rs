#![no_main]
//! Fuzz target: PGN bytes tokenised once and replayed into every builder —
//! `polyglot_book::fuzzing::build_from_games`, `ctg::fuzzing::build_from_games`,
//! `kvetka_book::fuzzing::build_from_games` (its corpus in fuzz/corpus/pgn_builders is
//! replayed by `cargo test` of the three crates through their `build_from_pgn`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let games = chessfmt_pgn::fuzzing::pgn_games(data);
    polyglot_book::fuzzing::build_from_games(&games);
    ctg::fuzzing::build_from_games(&games);
    kvetka_book::fuzzing::build_from_games(&games);
});
