//! The libcbh-gtest databases against the PGN of the same games, and the other corpus
//! databases. Skipped (with a message) when `../shared/corpus` is absent.

mod common;

use chessbase_db::pgn::{PgnOptions, game_to_pgn};
use chessbase_db::{Annotation, Database, Error, GameError, GameErrorKind, Header};
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
fn compare(db_rel: &str, pgn_rel: &str, check_fen: bool) -> Option<Vec<String>> {
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
        if check_fen && common::start_setup(e) != common::start_setup(o) {
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
    assert_same_with(db_rel, pgn_rel, true);
}

fn assert_same_with(db_rel: &str, pgn_rel: &str, check_fen: bool) {
    if let Some(diffs) = compare(db_rel, pgn_rel, check_fen) {
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

#[test]
fn damaged_games_stop_where_the_data_breaks() {
    // NormalNoPop: game 1 has 107 good plies, then undecodable bytes and no final 0xFF.
    if let Some(db) = corpus("libcbh-gtest/NormalNoPop/StandardMissingPop.cbh") {
        let db = Database::open(db).unwrap();
        let g1 = db.game(1).unwrap();
        assert_eq!(g1.main_line().len(), 107);
        let e = g1.truncated.expect("game 1 is damaged");
        assert_eq!((e.game, e.offset), (1, 137));
        assert!(
            matches!(e.kind, GameErrorKind::BadMove { ply: 107, .. }),
            "{e}"
        );
        let g2 = db.game(2).unwrap();
        assert_eq!((g2.main_line().len(), g2.truncated), (62, None));
    }
    assert_same(
        "libcbh-gtest/NormalNoPop/StandardMissingPop.cbh",
        "libcbh-gtest/NormalNoPop/StandardNoPop.pgn",
    );
    // Chess960Corrupt: every game's moves break early; the moves before the damage are kept
    // and agree with the PGN, and each game reports where its data broke.
    if let Some(db) = corpus("libcbh-gtest/Chess960Corrupt/Corrupt.cbh") {
        let db = Database::open(db).unwrap();
        let found: Vec<(usize, u64, u32)> = (1..=db.len())
            .map(|n| {
                let g = db.game(n).unwrap();
                let e = g.truncated.clone().expect("corrupt");
                let GameErrorKind::BadMove { ply, .. } = e.kind else {
                    panic!("{e}")
                };
                (g.main_line().len(), e.offset, ply)
            })
            .collect();
        assert_eq!(found, [(2, 68, 2), (0, 145, 0), (0, 279, 0), (1, 429, 1)]);
    }
    // Its PGN gives no castling rights where the (corrupt) records keep all four.
    assert_same_with(
        "libcbh-gtest/Chess960Corrupt/Corrupt.cbh",
        "libcbh-gtest/Chess960Corrupt/Corrupt960.pgn",
        false,
    );
}

#[test]
fn unusual_start_modes() {
    let Some(path) = corpus("libcbh-gtest/UnusualStart/UnusualStartBytes.cbh") else {
        return;
    };
    let db = Database::open(path).unwrap();
    let expected = parse_pgn(
        &std::fs::read(corpus("libcbh-gtest/UnusualStart/UnusualStart.pgn").unwrap()).unwrap(),
    );
    let mut modes = Vec::new();
    for n in 1..=db.len() {
        match db.game(n) {
            Err(Error::Game(GameError {
                kind: GameErrorKind::UnsupportedMode(m),
                ..
            })) => modes.push(format!("unsupported {m}")),
            Ok(g) => {
                assert_eq!(g.truncated, None);
                let ours = parse_pgn(
                    game_to_pgn(&db, n, &PgnOptions::default())
                        .unwrap()
                        .as_bytes(),
                );
                assert_eq!(ours[0].tokens, expected[n as usize - 1].tokens, "game {n}");
                assert_eq!(ours[0].moves(), g.main_line().len());
                modes.push(format!("mode {}", g.mode));
            }
            Err(e) => panic!("game {n}: {e}"),
        }
    }
    assert_eq!(
        modes,
        [
            "unsupported 1",
            "unsupported 1",
            "mode 4",
            "mode 4",
            "mode 4",
            "mode 5",
            "mode 5",
            "mode 5",
            "mode 5"
        ]
    );
}

#[test]
fn with_variations_annotation_counts() {
    let Some(path) = corpus("libcbh-gtest/WithVariations/WithVariations.cbh") else {
        return;
    };
    let db = Database::open(path).unwrap();
    let (mut after, mut before, mut symbols, mut variations) = (0, 0, 0, 0);
    for n in 1..=db.len() {
        let g = db.game(n).unwrap();
        assert_eq!(
            (
                g.truncated.clone(),
                g.annotation_error.clone(),
                g.unattached.len()
            ),
            (None, None, 0)
        );
        let all = (0..g.tree.len() as u32)
            .flat_map(|id| g.tree.annotations(id).iter())
            .chain(&g.game_annotations);
        for a in all {
            match a {
                Annotation::Text { before: false, .. } => after += 1,
                Annotation::Text { before: true, .. } => before += 1,
                Annotation::Symbols { .. } => symbols += 1,
                _ => {}
            }
        }
        variations += (0..g.tree.len() as u32)
            .map(|id| g.tree.children(id).count().saturating_sub(1))
            .sum::<usize>();
    }
    assert_eq!((after, before, symbols), (653, 28, 208));
    assert!(variations > 100, "{variations}");
}

#[test]
fn twic1134_all_games_legal() {
    let Some(path) = corpus("uncbv-tests/twic1134/twic1134.cbh") else {
        return;
    };
    let db = Database::open(path).unwrap();
    assert_eq!(db.len(), 6117);
    assert_eq!(db.cbh_header().next_game, 6118);
    let c = db.counts();
    assert_eq!((c.games, c.texts, c.deleted), (6117, 0, 0));
    assert!(!db.is_old_format());
    let mut plies = 0;
    for n in 1..=db.len() {
        let g = db.game(n).unwrap();
        assert_eq!(g.truncated, None, "game {n}");
        let main = g.main_line().len();
        let Header::Game(h) = db.header(n).unwrap() else {
            panic!("record {n} is a game")
        };
        assert_eq!(
            usize::from(h.moves()),
            main.div_ceil(2).min(255),
            "game {n}: header moves"
        );
        let fast = db.main_line(n).unwrap();
        assert_eq!(fast.moves, g.main_line(), "game {n}: main-line decoder");
        plies += g.tree.len() - 1;
    }
    assert_eq!(plies, 502_402);
    // Every entity referenced exists.
    assert_eq!(db.players.len() as u32, db.players.header().unwrap().count);
    let sorted = db.players.sorted_ids();
    assert_eq!(sorted.len() as u32, db.players.header().unwrap().live);
    // In-order is sorted by last name, then first name (byte order; non-ASCII names may
    // differ between Windows-1252 bytes and our decoded UTF-8, so allow a few).
    let names: Vec<(String, String)> = sorted
        .iter()
        .map(|&i| {
            let p = db.players.get(i).unwrap();
            (p.last.clone(), p.first.clone())
        })
        .collect();
    let inversions = names.windows(2).filter(|w| w[0] > w[1]).count();
    assert!(
        inversions < names.len() / 100,
        "{inversions} of {}",
        names.len()
    );
}

#[test]
fn chesscore_old_format_list_and_export() {
    for (rel, games) in [
        ("chesscore-test/Capa/Capa.cbh", 113),
        ("chesscore-test/fob/fob.cbh", 111),
    ] {
        let Some(path) = corpus(rel) else {
            return;
        };
        let db = Database::open(path).unwrap();
        assert!(db.is_old_format(), "{rel}");
        assert_eq!(db.len(), games);
        assert!(db.warnings().is_empty(), "{:?}", db.warnings());
        let (summary, out) = common::export_pgn(&db, 2);
        assert_eq!(
            summary.exported,
            u64::from(games),
            "{rel}: {:?}",
            summary.skipped
        );
        assert!(summary.truncated.is_empty() && summary.skipped.is_empty());
        let parsed = parse_pgn(&out);
        assert_eq!(parsed.len(), games as usize);
        for (i, p) in parsed.iter().enumerate() {
            assert!(
                !p.tokens.iter().any(|t| matches!(t, common::Tok::Bad(_))),
                "{rel} game {}",
                i + 1
            );
            assert_ne!(p.tag("White"), Some("?"), "{rel} game {}", i + 1);
        }
    }
}

/// No real database stores a game twice: the sharing check finds nothing in any corpus
/// database (issue 20: records sharing `.cbg` bytes are treated as damage).
#[test]
fn no_corpus_database_shares_game_data() {
    for rel in [
        "uncbv-tests/twic1134/twic1134.cbh",
        "libcbh-gtest/NormalGames/BielMTO.cbh",
        "libcbh-gtest/WithVariations/WithVariations.cbh",
        "libcbh-gtest/Chess960Biel/Chess960Biel.cbh",
        "chesscore-test/Capa/Capa.cbh",
        "chesscore-test/fob/fob.cbh",
    ] {
        let Some(path) = corpus(rel) else { return };
        let db = Database::open(path).unwrap();
        assert!(!db.is_empty(), "{rel}");
        assert_eq!(db.shared_games(1..=db.len()).len(), 0, "{rel}");
    }
}

/// Annotations without a PGN command of their own are exported, never dropped: medals as
/// ChessBase's `[%mdl N]`, critical positions (and variation colours, unknown types) in the
/// documented `[%cb …]` form.
#[test]
fn medals_and_critical_positions_reach_the_pgn() {
    let Some(path) = corpus("chesscore-test/Capa/Capa.cbh") else {
        return;
    };
    let db = Database::open(path).unwrap();
    let (_, out) = common::export_pgn(&db, 1);
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.matches("[%cb critical middlegame]").count(), 89);
    assert_eq!(text.matches("[%cb critical endgame]").count(), 1);
    assert_eq!(text.matches("[%mdl ").count(), 8);
    assert!(text.contains("[%mdl 2048]"));
}
