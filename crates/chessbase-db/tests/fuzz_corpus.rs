//! Replays the committed fuzz corpora (fuzz/corpus/cbh_*) through the fuzz targets' entry
//! points, plus mutations and pseudo-random inputs: no input panics. Also checks that the
//! hand-made seeds mean what they were made to mean.

use std::path::PathBuf;

use chessbase_db::fuzzing;

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(name)
}

type Target = fn(&[u8]);

#[test]
fn replay_corpora_and_mutations() {
    let targets: [(&str, Target); 4] = [
        ("cbh_database", fuzzing::database),
        ("cbh_moves", fuzzing::moves),
        ("cbh_entities", fuzzing::entity_file),
        ("cbh_annotations", fuzzing::annotations),
    ];
    for (name, target) in targets {
        let seeds = chess_core::fuzzing::replay_corpus(&dir(name), 400, target);
        assert!(seeds >= 1, "{name}");
        for data in chess_core::fuzzing::pseudo_random_inputs(0x9e37_79b9, 1500, 7) {
            target(&data);
        }
    }
}

/// The PGN import target (writer included): the committed corpus, mutations and
/// pseudo-random inputs never panic, and the seeds import.
#[cfg(feature = "pgn")]
#[test]
fn replay_pgn_import_corpus() {
    let seeds =
        chess_core::fuzzing::replay_corpus(&dir("cbh_pgn_import"), 400, fuzzing::pgn_import);
    assert!(seeds >= 2);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x51f1_5eed, 1500, 7) {
        fuzzing::pgn_import(&data);
    }
}

/// The archive target: the committed synthetic archive, its mutations and pseudo-random
/// inputs never panic (and never allocate what a member merely claims).
#[cfg(feature = "archive")]
#[test]
fn replay_archive_corpus() {
    let seeds = chess_core::fuzzing::replay_corpus(&dir("cbh_archive"), 300, fuzzing::archive);
    assert!(seeds >= 1);
    for data in chess_core::fuzzing::pseudo_random_inputs(0xa7c4_1be5, 500, 7) {
        fuzzing::archive(&data);
    }
}

#[test]
fn seeds_decode_as_made() {
    use chessbase_db::{Database, Header};
    // cbh_database/one_game, written with the mode-0 table by hand:
    // 1.e4 e5 2.Nf3 Nc6 3.d4 (3.g3), a clock for the game, a text after 1.e4.
    let data = std::fs::read(dir("cbh_database").join("one_game")).unwrap();
    let db = Database::from_files(fuzzing::database_files(&data).unwrap()).unwrap();
    let Header::Game(h) = db.header(1).unwrap() else {
        panic!("a game")
    };
    assert_eq!(h.date().to_string(), "2002.07.11");
    assert_eq!(h.eco().code().as_deref(), Some("B00"));
    let g = db.game(1).unwrap();
    let uci: Vec<String> = g
        .main_line()
        .iter()
        .map(|m| {
            m.unwrap()
                .to_uci(shakmaty::CastlingMode::Standard)
                .to_string()
        })
        .collect();
    assert_eq!(uci, ["e2e4", "e7e5", "g1f3", "b8c6", "d2d4"]);
    assert_eq!(g.truncated, None);
    assert_eq!(g.tree.len() - 1, 6);
    assert_eq!(
        g.game_annotations,
        [chessbase_db::Annotation::WhiteClock(90_000)]
    );
    let first = g.tree.main_line().next().unwrap();
    assert!(matches!(
        g.tree.annotations(first)[0],
        chessbase_db::Annotation::Text { .. }
    ));
}
