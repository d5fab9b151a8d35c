//! `.cbv`/`.cbz` archives (../shared/corpus/chessbase/uncbv-tests): every member extracted
//! byte-identical to the corpus's extracted files, the database inside exports exactly as the
//! extracted one, and damaged archives give typed errors naming the member and offset.
//! Skipped (saying so) without ../shared.

#![cfg(feature = "archive")]

mod common;

use chessbase_db::archive::Archive;
use chessbase_db::{ArchiveProblem, Database, Error};
use common::{corpus, export_pgn};

/// Extracts `archive` and compares every file with `expected_dir`'s file of the same name.
fn unpack_matches(archive: &str, password: Option<&str>, expected_dir: &str) {
    let (Some(path), Some(expected)) = (corpus(archive), corpus(expected_dir)) else {
        return;
    };
    let a = Archive::open(&path, password).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = a.unpack(dir.path(), false).unwrap();
    assert!(!written.is_empty(), "{archive}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = std::fs::read_dir(&expected)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    want.sort();
    assert_eq!(names, want, "{archive}: the same files, no leftovers");
    for n in &names {
        assert_eq!(
            std::fs::read(dir.path().join(n)).unwrap(),
            std::fs::read(expected.join(n)).unwrap(),
            "{archive}: {n}"
        );
    }
    // Unpacking again refuses to overwrite, and writes nothing.
    assert!(a.unpack(dir.path(), false).is_err());
    a.unpack(dir.path(), true).unwrap();
}

#[test]
fn every_corpus_archive_extracts_byte_identical() {
    unpack_matches("uncbv-tests/twic1134.cbv", None, "uncbv-tests/twic1134");
    unpack_matches("uncbv-tests/small.cbv", None, "uncbv-tests/small");
    unpack_matches("uncbv-tests/decrypted_small.cbv", None, "uncbv-tests/small");
    // The three key-derivation cases: exactly 8 bytes, shorter, longer.
    unpack_matches(
        "uncbv-tests/small.cbz",
        Some("password"),
        "uncbv-tests/small",
    );
    unpack_matches("uncbv-tests/small2.cbz", Some("pass"), "uncbv-tests/small");
    unpack_matches(
        "uncbv-tests/small3.cbz",
        Some("my long password"),
        "uncbv-tests/small",
    );
}

#[test]
fn the_database_in_an_archive_exports_as_the_extracted_one() {
    let (Some(cbv), Some(cbh)) = (
        corpus("uncbv-tests/twic1134.cbv"),
        corpus("uncbv-tests/twic1134/twic1134.cbh"),
    ) else {
        return;
    };
    let pgn = |db: &Database| {
        let (s, out) = export_pgn(db, 2);
        (s.exported, out)
    };
    let from_archive = Database::open(&cbv).unwrap();
    let extracted = Database::open(&cbh).unwrap();
    let (n, a) = pgn(&from_archive);
    assert_eq!(n, 6117);
    assert_eq!(a, pgn(&extracted).1);
    // Errors inside name the member of the archive.
    assert!(from_archive.path().ends_with("twic1134.cbv/twic1134.cbh"));
}

#[test]
fn passwords_and_damage_are_typed_errors() {
    let (Some(cbz), Some(cbv)) = (
        corpus("uncbv-tests/small.cbz"),
        corpus("uncbv-tests/twic1134.cbv"),
    ) else {
        return;
    };
    let problem = |r: Result<Archive, Error>| match r {
        Err(Error::Archive(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        problem(Archive::open(&cbz, None)).problem,
        ArchiveProblem::NeedsPassword
    );
    assert_eq!(
        problem(Archive::open(&cbz, Some("wrong"))).problem,
        ArchiveProblem::WrongPassword
    );
    // A member's stream damaged in the middle of the archive: opening works (the table is
    // intact), extracting that member names it and an offset; nothing is written.
    let mut bytes = std::fs::read(&cbv).unwrap();
    let a = Archive::open(&cbv, None).unwrap();
    let cbg = a
        .members()
        .find(|m| m.name.to_ascii_lowercase().ends_with(".cbg"))
        .unwrap();
    let at = cbg.offset as usize + 64;
    for b in &mut bytes[at..at + 4096] {
        *b = 0xff;
    }
    let dir = tempfile::tempdir().unwrap();
    let damaged = dir.path().join("damaged.cbv");
    std::fs::write(&damaged, &bytes).unwrap();
    let a = Archive::open(&damaged, None).unwrap();
    let out = dir.path().join("out");
    match a.unpack(&out, false) {
        Err(Error::Archive(e)) => {
            assert!(
                e.member.as_deref().is_some_and(|m| m.ends_with(".cbg")),
                "{e}"
            );
            assert!(e.offset.is_some(), "{e}");
            assert!(matches!(e.problem, ArchiveProblem::Damaged(_)), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let left: Vec<_> = std::fs::read_dir(&out)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing written: {left:?}");
    // Cut short: the table no longer tiles the file.
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();
    assert!(
        Archive::open(&damaged, None).is_err()
            || Archive::open(&damaged, None).unwrap().database().is_err()
    );
}
