//! The database writer, read back: every corpus database copied game by game through
//! `DatabaseWriter` exports the same PGN as the original (moves, variations, annotations,
//! headers), and its files are well formed (entity trees sorted and balanced, headers
//! holding the file lengths).

#![cfg(feature = "std")]

mod common;

use chessbase_db::writer::{DatabaseWriter, NewHeader, file_list};
use chessbase_db::{Database, Files, Header};
use common::{corpus, export_pgn};

/// Copies every game record of `db` that decodes whole; returns the copy and the numbers
/// of the records copied.
fn copy(db: &Database) -> (Database, Vec<u32>) {
    let (files, copied) = copy_files(db);
    (Database::from_files(files).unwrap(), copied)
}

/// [`copy`]'s files, as the writer made them.
fn copy_files(db: &Database) -> (Files, Vec<u32>) {
    let mut w = DatabaseWriter::with_code_page(db.code_page());
    let mut copied = Vec::new();
    for n in 1..=db.len() {
        let Ok(Header::Game(h)) = db.header(n) else {
            continue;
        };
        if h.deleted() {
            continue;
        }
        let Ok(game) = db.game(n) else { continue };
        if game.truncated.is_some()
            || game.annotation_error.is_some()
            || !game.unattached.is_empty()
        {
            continue;
        }
        let header = NewHeader::from_header(&h);
        w.add_game(&header, &game)
            .unwrap_or_else(|e| panic!("game {n}: {e}"));
        copied.push(n);
    }
    (w.finish(), copied)
}

/// The PGN of the given records of `db`, one string per game.
fn games_pgn(db: &Database, numbers: impl IntoIterator<Item = u32>) -> Vec<String> {
    numbers
        .into_iter()
        .map(|n| {
            chessbase_db::pgn::game_to_pgn(db, n, &chessbase_db::PgnOptions::default())
                .unwrap_or_else(|e| panic!("game {n}: {e}"))
        })
        .collect()
}

/// The files present, with their extensions, as owned bytes.
fn owned(files: &Files) -> Vec<(&'static str, Vec<u8>)> {
    file_list(files)
        .into_iter()
        .map(|(ext, bytes)| (ext, bytes.to_vec()))
        .collect()
}

fn round_trip(rel: &str, min_games: usize) {
    let Some(path) = corpus(rel) else { return };
    let db = Database::open(&path).unwrap();
    let (files, copied) = copy_files(&db);
    let first = owned(&files);
    let copy = Database::from_files(files).unwrap();
    // Write → read → write: the copy of the copy is the same bytes, file for file.
    let (again, all) = copy_files(&copy);
    assert_eq!(all.len() as u32, copy.len(), "{rel}: the copy copies whole");
    let second = owned(&again);
    assert_eq!(
        first.iter().map(|f| f.0).collect::<Vec<_>>(),
        second.iter().map(|f| f.0).collect::<Vec<_>>(),
        "{rel}"
    );
    for ((ext, a), (_, b)) in first.iter().zip(&second) {
        assert!(a == b, "{rel}: .{ext} differs when written a second time");
    }
    assert!(
        copied.len() >= min_games,
        "{rel}: {} games copied",
        copied.len()
    );
    assert_eq!(copy.len() as usize, copied.len());
    let before = games_pgn(&db, copied.iter().copied());
    let after = games_pgn(&copy, 1..=copy.len());
    for (i, (a, b)) in before.iter().zip(&after).enumerate() {
        assert_eq!(a, b, "{rel}: game {} (copy {})", copied[i], i + 1);
    }
    // The whole export (parallel path) agrees too, and reports nothing.
    let (summary, _) = export_pgn(&copy, 2);
    assert_eq!(summary.exported as usize, copied.len());
    assert!(
        summary.truncated.is_empty()
            && summary.skipped.is_empty()
            && summary.annotation_problems.is_empty(),
        "{rel}: {summary:?}"
    );
}

#[test]
fn normal_games() {
    round_trip("libcbh-gtest/NormalGames/BielMTO.cbh", 540);
}

#[test]
fn with_variations() {
    round_trip("libcbh-gtest/WithVariations/WithVariations.cbh", 1);
}

#[test]
fn annotation() {
    round_trip("libcbh-gtest/Annotation/TestBase.cbh", 1);
}

#[test]
fn chess960() {
    round_trip("libcbh-gtest/Chess960Biel/Chess960Biel.cbh", 1);
    round_trip(
        "libcbh-gtest/Chess960NonStandard/Chess960NonStandard.cbh",
        1,
    );
}

#[test]
fn set_up_positions_and_promotions() {
    round_trip("libcbh-gtest/NonStandard/NonStandardStart.cbh", 1);
    round_trip("libcbh-gtest/ManyPromotions/ManyPromotions.cbh", 1);
}

#[test]
fn twic1134() {
    round_trip("uncbv-tests/twic1134/twic1134.cbh", 6000);
}

#[test]
fn old_format_and_capablanca() {
    round_trip("chesscore-test/Capa/Capa.cbh", 1);
}

/// The corpus databases whose games the writer must reproduce byte for byte.
const DATABASES: &[&str] = &[
    "uncbv-tests/twic1134/twic1134.cbh",
    "libcbh-gtest/WithVariations/WithVariations.cbh",
    "libcbh-gtest/Annotation/TestBase.cbh",
    "libcbh-gtest/NormalGames/BielMTO.cbh",
    "libcbh-gtest/Chess960Biel/Chess960Biel.cbh",
    "libcbh-gtest/Chess960NonStandard/Chess960NonStandard.cbh",
    "libcbh-gtest/NonStandard/NonStandardStart.cbh",
    "libcbh-gtest/ManyPromotions/ManyPromotions.cbh",
];

/// The `.cbh` fields the writer computes from the game (moves, content flags, magnitudes,
/// ECO) equal ChessBase's own on every game copied from the corpus's databases.
#[test]
fn computed_record_fields_match_chessbase() {
    for &rel in DATABASES.iter().chain(&["chesscore-test/Capa/Capa.cbh"]) {
        let Some(path) = corpus(rel) else { return };
        let db = Database::open(&path).unwrap();
        let (copy, copied) = copy(&db);
        for (i, &n) in copied.iter().enumerate() {
            let (Ok(Header::Game(a)), Ok(Header::Game(b))) =
                (db.header(n), copy.header(i as u32 + 1))
            else {
                panic!("{rel}: game {n} is not a game")
            };
            let fields =
                |r: &chessbase_db::raw::GameRecord| (r.moves, r.flags, r.magnitudes, r.eco);
            assert_eq!(fields(&a.record), fields(&b.record), "{rel}: game {n}");
        }
    }
}

/// Every game record the writer encodes is byte for byte ChessBase's own: the `.cbg` record
/// (head, set-up position, move stream through the piece slots, promotions by squares) and
/// the `.cba` record (head and items), for every game of every corpus database that decodes
/// whole.
#[test]
fn game_and_annotation_records_are_chessbases_bytes() {
    for &rel in DATABASES {
        let Some(path) = corpus(rel) else { return };
        let db = Database::open(&path).unwrap();
        let cbg = std::fs::read(path.with_extension("cbg")).unwrap();
        let cba = std::fs::read(path.with_extension("cba")).unwrap();
        let mut compared = (0, 0);
        for n in 1..=db.len() {
            let Ok(Header::Game(h)) = db.header(n) else {
                continue;
            };
            let Ok(g) = db.game(n) else { continue };
            if g.truncated.is_some() {
                continue;
            }
            let e = chessbase_db::encode::encode_game(&g, db.code_page()).unwrap();
            let o = h.record.cbg_offset as usize;
            assert_eq!(
                &cbg[o..o + e.cbg.len()],
                &e.cbg[..],
                "{rel}: game {n}, .cbg record"
            );
            assert_eq!(cbg[o + 1..o + 4], e.cbg[1..4], "{rel}: game {n}, length");
            compared.0 += 1;
            if h.record.cba_offset != 0 {
                let ours = chessbase_db::encode::cba_record(n, &e);
                let o = h.record.cba_offset as usize;
                assert_eq!(
                    &cba[o..o + ours.len()],
                    &ours[..],
                    "{rel}: game {n}, .cba record"
                );
                compared.1 += 1;
            }
        }
        eprintln!(
            "{rel}: {} games, {} annotation records identical",
            compared.0, compared.1
        );
        assert!(compared.0 > 0, "{rel}");
    }
}
