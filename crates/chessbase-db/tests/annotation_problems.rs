//! Annotations are never dropped silently: a record that names another game is attached and
//! reported; a damaged record and annotations past the moves are reported by the export.

mod common;

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
    let (s, _) = common::export_pgn(&db, 1);
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

/// A comment written in code page 1251 reads as Cyrillic when the database says so (or the
/// user does), as mojibake under Windows-1252.
#[test]
fn comments_are_decoded_in_the_databases_code_page() {
    use chessbase_db::{Annotation, TextEncoding};
    let files = fuzzing::database_files(&one_game()).unwrap();
    let db = Database::from_files(files.clone()).unwrap();
    let first = |db: &Database| {
        let g = db.game(1).unwrap();
        let id = g.tree.main_line().next().unwrap();
        match &g.tree.annotations(id)[0] {
            Annotation::Text { text, .. } => text.clone(),
            other => panic!("{other:?}"),
        }
    };
    let ascii = first(&db);
    // The same number of bytes in Cyrillic, code page 1251, in place of the comment.
    let cyrillic: String = "ЖЁЛТЫЙ ферзь атакует короля"
        .chars()
        .take(ascii.len())
        .collect();
    let bytes = encoding_rs::WINDOWS_1251.encode(&cyrillic).0.into_owned();
    assert_eq!(bytes.len(), ascii.len());
    let mut files = files;
    let cba = files.cba.as_mut().unwrap();
    let at = cba
        .windows(ascii.len())
        .position(|w| w == ascii.as_bytes())
        .unwrap();
    cba[at..at + bytes.len()].copy_from_slice(&bytes);
    let forced = Database::options()
        .encoding(TextEncoding::Fixed(encoding_rs::WINDOWS_1251))
        .name("x.cbh")
        .from_files(files.clone())
        .unwrap();
    assert_eq!(first(&forced), cyrillic);
    let latin = Database::options()
        .encoding(TextEncoding::Fixed(encoding_rs::WINDOWS_1252))
        .name("x.cbh")
        .from_files(files)
        .unwrap();
    assert_ne!(first(&latin), cyrillic);
}
