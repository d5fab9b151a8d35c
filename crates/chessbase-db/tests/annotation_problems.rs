//! Annotations are never dropped silently: a record that names another game is attached and
//! reported; a damaged record and annotations past the moves are reported by the export.

use chessbase_db::pgn::{PgnOptions, export};
use chessbase_db::{Database, GameErrorKind, fuzzing};

fn one_game() -> Vec<u8> {
    std::fs::read(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/corpus/cbh_database/one_game"),
    )
    .unwrap()
}

#[test]
fn a_record_naming_another_game_is_attached_and_reported() {
    let mut files = fuzzing::database_files(&one_game()).unwrap();
    let db = Database::from_files(files.clone()).unwrap();
    let before = db.game(1).unwrap();
    assert_eq!(before.annotation_error, None);
    let at = db.game_annotation_offset(1).unwrap() as usize;
    // The record's head starts with the game it names (u24, big-endian).
    files.cba.as_mut().unwrap()[at..at + 3].copy_from_slice(&[0, 0, 5]);
    let db = Database::from_files(files).unwrap();
    let g = db.game(1).unwrap();
    assert_eq!(
        g.annotation_error.as_ref().map(|e| &e.kind),
        Some(&GameErrorKind::ForeignAnnotations(5))
    );
    assert_eq!(
        g.game_annotations, before.game_annotations,
        "attached all the same"
    );
    let mut out = Vec::new();
    let s = export(
        &db,
        1..=1,
        &PgnOptions::default(),
        false,
        1,
        &mut out,
        |_| {},
    )
    .unwrap();
    assert_eq!(s.exported, 1);
    assert_eq!(s.annotation_problems.len(), 1);
    assert!(
        s.annotation_problems[0]
            .to_string()
            .contains("names game 5"),
        "{}",
        s.annotation_problems[0]
    );
}
