//! The libcbh-gtest databases against the PGN of the same games, and the other corpus
//! databases. Skipped (with a message) when `../shared/corpus` is absent.

mod common;

use chessbase_db::Database;
use chessbase_db::pgn::{PgnOptions, game_to_pgn};
use common::{Parsed, corpus, parse_pgn};

fn export_all(db: &Database) -> (Vec<Option<Parsed>>, Vec<String>) {
    let mut games = Vec::new();
    let mut errors = Vec::new();
    for n in 1..=db.len() {
        match game_to_pgn(db, n, &PgnOptions::default()) {
            Ok(s) => {
                let mut p = parse_pgn(s.as_bytes());
                assert_eq!(p.len(), 1, "game {n} exports to one PGN game:\n{s}");
                games.push(p.pop());
            }
            Err(e) => {
                errors.push(e.to_string());
                games.push(None);
            }
        }
    }
    (games, errors)
}

/// Compares one database with its PGN; returns a list of differences.
fn compare(db_rel: &str, pgn_rel: &str) -> Option<Vec<String>> {
    let db = Database::open(corpus(db_rel)?).unwrap();
    let expected = parse_pgn(&std::fs::read(corpus(pgn_rel)?).unwrap());
    assert_eq!(expected.len() as u32, db.len(), "{db_rel}: record count");
    let (ours, _) = export_all(&db);
    let mut diffs = Vec::new();
    for (i, (e, o)) in expected.iter().zip(&ours).enumerate() {
        let n = i + 1;
        let Some(o) = o else {
            diffs.push(format!("game {n}: not exported"));
            continue;
        };
        for t in [
            "White", "Black", "Event", "Date", "Round", "WhiteElo", "BlackElo", "ECO",
        ] {
            let norm = |v: &str| -> String {
                match t {
                    // Titles in the source PGN ("Hornung, Hans, Dr.") are not in the database.
                    "White" | "Black" => v.trim_end_matches(", Dr.").to_string(),
                    // The source PGN has the board in a tag of its own; the database keeps
                    // it as the subround, exported as "round.subround".
                    "Round" => v.split('.').next().unwrap_or(v).to_string(),
                    _ => v.to_string(),
                }
            };
            let unset = |v: &&str| !v.is_empty() && *v != "?" && *v != "????.??.??";
            let ev = e.tag(t).filter(unset).map(norm);
            let ov = o.tag(t).filter(unset).map(norm);
            if ev != ov {
                diffs.push(format!("game {n}: tag {t}: expected {ev:?}, got {ov:?}"));
            }
        }
        let er = e.tag("Result").unwrap_or("*");
        if ["1-0", "0-1", "1/2-1/2", "*"].contains(&er) && Some(er) != o.tag("Result") {
            diffs.push(format!("game {n}: Result {er:?} vs {:?}", o.tag("Result")));
        }
        if common::start_setup(e) != common::start_setup(o) {
            diffs.push(format!(
                "game {n}: FEN {:?} vs {:?}",
                common::start_setup(e),
                common::start_setup(o)
            ));
        }
        if e.tokens != o.tokens {
            let k = e
                .tokens
                .iter()
                .zip(&o.tokens)
                .take_while(|(a, b)| a == b)
                .count();
            diffs.push(format!(
                "game {n}: movetext differs at token {k}: expected {:?}, got {:?}",
                &e.tokens[k..(k + 4).min(e.tokens.len())],
                &o.tokens[k..(k + 4).min(o.tokens.len())]
            ));
        }
    }
    Some(diffs)
}

fn assert_same(db_rel: &str, pgn_rel: &str) {
    if let Some(diffs) = compare(db_rel, pgn_rel) {
        assert!(
            diffs.is_empty(),
            "{db_rel}: {} differences:\n{}",
            diffs.len(),
            diffs.join("\n")
        );
    }
}

#[test]
fn normal_games() {
    assert_same(
        "libcbh-gtest/NormalGames/BielMTO.cbh",
        "libcbh-gtest/NormalGames/BielMTO.pgn",
    );
}

#[test]
fn with_variations() {
    assert_same(
        "libcbh-gtest/WithVariations/WithVariations.cbh",
        "libcbh-gtest/WithVariations/GamesWithVariations.pgn",
    );
}

#[test]
fn annotation() {
    assert_same(
        "libcbh-gtest/Annotation/TestBase.cbh",
        "libcbh-gtest/Annotation/TestBaseExport.pgn",
    );
}

#[test]
fn chess960_biel() {
    assert_same(
        "libcbh-gtest/Chess960Biel/Chess960Biel.cbh",
        "libcbh-gtest/Chess960Biel/Chess960.pgn",
    );
}

#[test]
fn chess960_non_standard() {
    assert_same(
        "libcbh-gtest/Chess960NonStandard/Chess960NonStandard.cbh",
        "libcbh-gtest/Chess960NonStandard/Chess960NonStandardStart.pgn",
    );
}

#[test]
fn many_promotions() {
    assert_same(
        "libcbh-gtest/ManyPromotions/ManyPromotions.cbh",
        "libcbh-gtest/ManyPromotions/Promotions.pgn",
    );
}

#[test]
fn non_standard_start() {
    assert_same(
        "libcbh-gtest/NonStandard/NonStandardStart.cbh",
        "libcbh-gtest/NonStandard/NonStandardStart.pgn",
    );
}
