//! PGN import: a database exported to PGN, imported into a new database and exported again
//! gives the same PGN, game for game (moves, variations, comments before and after moves,
//! NAGs, squares, arrows, clocks, medals, set-up and Chess960 positions, headers with the
//! special results and teams).

#![cfg(feature = "pgn")]

mod common;

use chess_core::limits::Limits;
use chessbase_db::Database;
use chessbase_db::import::read_games;
use chessbase_db::writer::DatabaseWriter;
use common::{corpus, export_pgn};

fn split_games(pgn: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(pgn);
    let mut games: Vec<String> = Vec::new();
    for part in text.split("\n\n[Event ") {
        if games.is_empty() {
            games.push(part.to_string());
        } else {
            games.push(format!("[Event {part}"));
        }
    }
    games
}

fn round_trip(rel: &str) {
    let Some(path) = corpus(rel) else { return };
    let db = Database::open(&path).unwrap();
    let (summary, first) = export_pgn(&db, 1);
    let mut w = DatabaseWriter::with_code_page(db.code_page());
    let mut failed = Vec::new();
    let stats = read_games(&first[..], Limits::default(), |g| match g {
        Ok(g) => {
            w.add_game(&g.header, &g.game).unwrap();
        }
        Err(e) => failed.push(e),
    })
    .unwrap();
    assert!(failed.is_empty(), "{rel}: {failed:?}");
    assert_eq!(stats.games, summary.exported, "{rel}");
    let copy = Database::from_files(w.finish()).unwrap();
    let (_, second) = export_pgn(&copy, 1);
    let (a, b) = (split_games(&first), split_games(&second));
    assert_eq!(a.len(), b.len(), "{rel}");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "{rel}: game {}", i + 1);
    }
}

#[test]
fn twic1134() {
    round_trip("uncbv-tests/twic1134/twic1134.cbh");
}

#[test]
fn normal_games_with_clocks() {
    round_trip("libcbh-gtest/NormalGames/BielMTO.cbh");
}

#[test]
fn variations_and_comments() {
    round_trip("libcbh-gtest/WithVariations/WithVariations.cbh");
}

#[test]
fn annotations() {
    round_trip("libcbh-gtest/Annotation/TestBase.cbh");
    round_trip("chesscore-test/Capa/Capa.cbh");
}

#[test]
fn chess960_and_set_up_positions() {
    round_trip("libcbh-gtest/Chess960Biel/Chess960Biel.cbh");
    round_trip("libcbh-gtest/Chess960NonStandard/Chess960NonStandard.cbh");
    round_trip("libcbh-gtest/NonStandard/NonStandardStart.cbh");
    round_trip("libcbh-gtest/ManyPromotions/ManyPromotions.cbh");
}
