//! PGN import: a database exported to PGN, imported into a new database and exported again
//! gives the same PGN, game for game (moves, variations, comments before and after moves,
//! NAGs, squares, arrows, clocks, medals, set-up and Chess960 positions, headers with the
//! special results and teams).

#![cfg(feature = "pgn")]

mod common;

use chessbase_db::Database;
use chessbase_db::Limits;
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

/// Names and comments in a script that needs a Windows code page, written by a writer in
/// that code page, read back without being told the code page (detection), and exported.
fn written_in(code_page: &'static encoding_rs::Encoding, pgn: &str) -> String {
    let mut w = DatabaseWriter::with_code_page(code_page);
    read_games(pgn.as_bytes(), Limits::default(), |g| {
        let g = g.unwrap();
        w.add_game(&g.header, &g.game).unwrap();
    })
    .unwrap();
    let files = w.finish();
    // The texts are stored in the code page (not UTF-8): the player file holds its bytes.
    let white = pgn
        .lines()
        .find_map(|l| l.strip_prefix("[White \""))
        .and_then(|l| l.strip_suffix("\"]"))
        .and_then(|l| l.split(',').next())
        .unwrap();
    let (stored, _, unmappable) = code_page.encode(white);
    assert!(!unmappable, "{white} fits {}", code_page.name());
    let cbp = files.cbp.as_deref().unwrap();
    assert!(
        cbp.windows(stored.len()).any(|w| w == &stored[..]),
        "{white} stored in {}",
        code_page.name()
    );
    let db = Database::from_files(files).unwrap();
    assert_eq!(db.code_page(), code_page, "detected code page");
    let (_, out) = export_pgn(&db, 1);
    String::from_utf8(out).unwrap()
}

/// The export with its line breaks as spaces (comments wrap at 80 columns).
fn one_line(pgn: &str) -> String {
    pgn.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn cyrillic_written_in_windows_1251_reads_back() {
    let pgn = "[Event \"Чемпионат России\"]\n[Site \"Москва\"]\n[Date \"2023.10.05\"]\n\
        [Round \"3\"]\n[White \"Непомнящий, Ян\"]\n[Black \"Грищук, Александр\"]\n\
        [Result \"1/2-1/2\"]\n\n1. e4 {Самый популярный ход.} e5 2. Nf3 Nc6 \
        {Защищая пешку и развивая коня.} 3. Bb5 a6 1/2-1/2\n";
    let out = written_in(encoding_rs::WINDOWS_1251, pgn);
    assert!(out.contains("[White \"Непомнящий, Ян\"]"), "{out}");
    assert!(
        one_line(&out).contains("{Защищая пешку и развивая коня.}"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn greek_written_in_windows_1253_reads_back() {
    let pgn = "[Event \"Πανελλήνιο Πρωτάθλημα\"]\n[Site \"Αθήνα\"]\n[Date \"2022.07.14\"]\n\
        [Round \"5\"]\n[White \"Κοτρώνιας, Βασίλειος\"]\n[Black \"Μαστροκούκος, Γεώργιος\"]\n\
        [Result \"1-0\"]\n\n1. d4 {Η πιο σταθερή αρχή.} d5 2. c4 e6 3. Nc3 Nf6 \
        {Οι μαύροι επιλέγουν την άμυνα.} 4. Bg5 1-0\n";
    let out = written_in(encoding_rs::WINDOWS_1253, pgn);
    assert!(out.contains("[White \"Κοτρώνιας, Βασίλειος\"]"), "{out}");
    assert!(
        one_line(&out).contains("{Οι μαύροι επιλέγουν την άμυνα.}"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn central_european_written_in_windows_1250_reads_back() {
    let pgn = "[Event \"Mistrzostwa Polski\"]\n[Site \"Łódź\"]\n[Date \"2021.03.02\"]\n\
        [Round \"1\"]\n[White \"Wojtaszek, Radosław\"]\n[Black \"Navara, Dávid\"]\n\
        [Result \"0-1\"]\n\n1. c4 {Angielskie otwarcie, żadnych niespodzianek.} e5 \
        2. Nc3 Nf6 {Černý hraje obvyklý tah, přesně podle teorie.} 3. g3 d5 0-1\n";
    let out = written_in(encoding_rs::WINDOWS_1250, pgn);
    assert!(out.contains("[Site \"Łódź\"]"), "{out}");
    assert!(
        one_line(&out).contains("{Černý hraje obvyklý tah, přesně podle teorie.}"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

/// A digest of what a game's header and move tree hold (names, event, site, date, result,
/// ratings, round, ECO; every node's move in tree order).
fn digest(h: &chessbase_db::writer::NewHeader, g: &chessbase_db::Game) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut s = std::collections::hash_map::DefaultHasher::new();
    for p in [&h.white, &h.black] {
        (&p.last, &p.first).hash(&mut s);
    }
    (&h.tournament.title, &h.tournament.place).hash(&mut s);
    format!("{:?} {:?}", h.date, h.result).hash(&mut s);
    (h.white_elo, h.black_elo, h.round, h.subround, h.eco).hash(&mut s);
    for id in 0..g.tree.len() as u32 {
        g.tree.node(id).mv.hash(&mut s);
        g.tree.parent(id).hash(&mut s);
    }
    s.finish()
}

/// An entity as its fixed-size record holds it.
fn stored<T: chessbase_db::raw::EntityData>(t: &T) -> T {
    let mut b = vec![0; T::DATA_SIZE];
    t.write(&mut b, encoding_rs::WINDOWS_1252);
    T::parse(&b, encoding_rs::WINDOWS_1252)
}

/// The 145,716-game gnuchess PGN (../shared/corpus/polyglot) imported into one database and
/// read back game for game: every game's header and moves as imported.
#[test]
fn gnuchess_pgn_reads_back_game_for_game() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot/pgn/gnuchess-book_1.02.pgn.xz");
    if !path.exists() {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!("skipping: {} not found", path.display());
        return;
    }
    let input = chessfmt_pgn::open_decompressed(&path).unwrap();
    let mut w = DatabaseWriter::new();
    let mut digests = Vec::new();
    let mut failed = Vec::new();
    read_games(
        std::io::BufReader::new(input),
        Limits::default(),
        |g| match g {
            Ok(g) => {
                // Names longer than their field are cut by the format (ChessBase cuts them too):
                // compare with what the fields can hold.
                let mut h = g.header.clone();
                h.white = stored(&h.white);
                h.black = stored(&h.black);
                h.tournament = stored(&h.tournament);
                digests.push(digest(&h, &g.game));
                w.add_game(&g.header, &g.game).unwrap();
            }
            Err(e) => failed.push(e),
        },
    )
    .unwrap();
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(digests.len(), 145_716);
    let db = Database::from_files(w.finish()).unwrap();
    assert_eq!(db.len() as usize, digests.len());
    for (i, want) in digests.iter().enumerate() {
        let n = i as u32 + 1;
        let Ok(chessbase_db::Header::Game(h)) = db.header(n) else {
            panic!("record {n} is not a game")
        };
        let g = db.game(n).unwrap();
        assert!(g.truncated.is_none(), "game {n}");
        let header = chessbase_db::writer::NewHeader::from_header(&h);
        assert_eq!(digest(&header, &g), *want, "game {n}: {header:?}");
    }
}

/// The annotation kinds with a layout but no corpus example (evaluation, pawn structure,
/// piece path, variation colour with its flags byte): stored bytes read back as stored,
/// exported in the conventions the crate README names, and imported back to the same items.
#[test]
fn evaluation_pawn_structure_piece_path_and_colour_round_trip() {
    use chessbase_db::Annotation;
    let cases: [(u8, &[u8], &str); 7] = [
        (0x21, &[0x11, 0x00, 0, 0, 23, 0], "[%eval 0.17,23]"),
        (0x21, &[0x97, 0xff, 0, 0, 0, 0], "[%eval -1.05]"),
        (0x21, &[0xfd, 0xff, 1, 0, 30, 0], "[%eval #-3,30]"),
        (0x21, &[5, 0, 3, 0, 0, 0], "[%cb eval 3 5 0]"),
        (0x14, &[3], "[%cb pawn-structure 3]"),
        (0x15, &[3, 29], "[%cb piece-path d5 3]"),
        (0x23, &[2, 0x10, 0x20, 0x30], "[%cb colour #302010 2]"),
    ];
    let mut w = DatabaseWriter::new();
    let mut tree = chessbase_db::MoveTree::new();
    let e4 = tree.add(
        0,
        Some(
            shakmaty::uci::UciMove::from_ascii(b"e2e4")
                .unwrap()
                .to_move(&shakmaty::Chess::default())
                .unwrap(),
        ),
    );
    let mut items = Vec::new();
    for (kind, data, _) in cases {
        let a = Annotation::parse(kind, data, encoding_rs::WINDOWS_1252);
        assert!(
            !matches!(a, Annotation::Unknown { .. }),
            "{kind:#x} is read"
        );
        assert_eq!(
            a.to_bytes(),
            (kind, data.to_vec()),
            "{a:?} written as stored"
        );
        items.push((e4, a));
    }
    tree.annotate(items.clone());
    let game = chessbase_db::Game::new(chessbase_db::Start::default(), tree);
    w.add_game(&Default::default(), &game).unwrap();
    let db = Database::from_files(w.finish()).unwrap();
    let (_, pgn) = export_pgn(&db, 1);
    let pgn = String::from_utf8(pgn).unwrap();
    for (_, _, form) in cases {
        assert!(one_line(&pgn).contains(form), "{form} in {pgn}");
    }
    let mut back = Vec::new();
    read_games(pgn.as_bytes(), Limits::default(), |g| back.push(g.unwrap())).unwrap();
    let got: Vec<_> = back[0].game.tree.annotations(1).to_vec();
    let want: Vec<_> = items.into_iter().map(|(_, a)| a).collect();
    assert_eq!(got, want);
}

/// PGN text imported into a new database (options as given) and exported again: the PGN,
/// and every loss the import reported.
fn through_database(
    pgn: &str,
    options: chessbase_db::import::ImportOptions,
    code_page: &'static encoding_rs::Encoding,
) -> (String, Vec<chessbase_db::import::Loss>) {
    let mut w = DatabaseWriter::with_code_page(code_page);
    let mut losses = Vec::new();
    chessbase_db::import::read_games_with(pgn.as_bytes(), Limits::default(), options, |g| {
        let g = g.unwrap();
        losses.extend(
            w.cut_fields(&g.header)
                .into_iter()
                .map(|(field, bytes)| chessbase_db::import::Loss::Cut { field, bytes }),
        );
        losses.extend(g.losses);
        w.add_game(&g.header, &g.game).unwrap();
    })
    .unwrap();
    let db = Database::from_files(w.finish()).unwrap();
    let (_, out) = export_pgn(&db, 1);
    (String::from_utf8(out).unwrap(), losses)
}

/// Issue 29: what ChessBase cannot hold is reported, never changed silently: a second NAG
/// of a kind, an Event over its 40 bytes, a result with no code, tags with no field.
#[test]
fn what_a_database_cannot_hold_is_reported() {
    use chessbase_db::import::{ImportOptions, Loss};
    let long = "Rated Blitz game https://lichess.org/abcdefgh";
    let pgn = format!(
        "[Event \"{long}\"]\n[Site \"?\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1/2-0\"]\n\
         [TimeControl \"180+0\"]\n[UTCDate \"2017.09.01\"]\n[WhiteElo \"abc\"]\n\n\
         1. e4 $22 $32 e5 $1 $2 2. Nf3 *\n\n"
    );
    let (out, losses) = through_database(&pgn, ImportOptions::default(), encoding_rs::WINDOWS_1252);
    let mut kinds: Vec<String> = losses.iter().map(ToString::to_string).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "Event values cut to 40 bytes",
            "NAGs left out (a move holds one of each kind)",
            "NAGs left out (a move holds one of each kind)",
            "TimeControl tags left out (no field for them)",
            "UTCDate tags left out (no field for them)",
            "WhiteElo values not understood, left out",
            "results with no ChessBase code stored as *",
        ]
    );
    assert!(losses.contains(&Loss::Cut {
        field: "Event",
        bytes: 40
    }));
    // The first NAG of a kind is kept.
    assert!(out.contains("1. e4 $22 e5 $1 2. Nf3"), "{out}");
}

/// With `keep_tags`, tags without a field come back as tags from the export.
#[test]
fn kept_tags_come_back_as_tags() {
    let mut options = chessbase_db::import::ImportOptions::default();
    options.keep_tags = true;
    let pgn = "[Event \"Rated\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\
               [TimeControl \"180+0\"]\n[Opening \"Sicilian \\\"Dragon\\\"\"]\n\
               [WhiteRatingDiff \"+6\"]\n[Termination \"Normal\"]\n\n\
               {A comment} 1. e4 c5 1-0\n\n";
    let (out, losses) = through_database(pgn, options, encoding_rs::WINDOWS_1252);
    assert!(losses.is_empty(), "{losses:?}");
    for tag in [
        "[TimeControl \"180+0\"]",
        "[Opening \"Sicilian \\\"Dragon\\\"\"]",
        "[WhiteRatingDiff \"+6\"]",
        "[Termination \"Normal\"]",
    ] {
        assert!(out.contains(tag), "{tag} in {out}");
    }
    assert!(!out.contains("%tag"), "{out}");
    assert!(out.contains("{A comment} 1. e4 c5 1-0"), "{out}");
}

/// Issue 29: the export keeps game-level squares and arrows, numbers the move after a null
/// move by Black as the next move, and writes a sub-round of an unknown round as `?.2`.
#[test]
fn export_keeps_game_squares_null_move_numbers_and_sub_rounds() {
    let pgn = "[Event \"E\"]\n[Round \"?.2\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
               {[%csl Ge4][%cal Re2e4]} 1. e4 e5 2. Nf3 -- 3. Bc4 Nf6 *\n\n";
    let (out, losses) = through_database(
        pgn,
        chessbase_db::import::ImportOptions::default(),
        encoding_rs::WINDOWS_1252,
    );
    assert!(losses.is_empty(), "{losses:?}");
    assert!(out.contains("[Round \"?.2\"]"), "{out}");
    assert!(
        out.contains("[%csl Ge4]") && out.contains("[%cal Re2e4]"),
        "{out}"
    );
    assert!(out.contains("2. Nf3 -- 3. Bc4 Nf6"), "{out}");
}

/// A database with Latin names and Windows-1251 comments (like the real Hedgehog database)
/// reads its comments as Cyrillic without being told the code page.
#[test]
fn the_code_page_is_guessed_from_comments_too() {
    let comments = [
        "Белые стоят лучше после хода конём",
        "Чёрные должны защищаться от угрозы мата",
        "Интересная жертва пешки в центре доски",
        "После размена ферзей эндшпиль равный",
    ];
    let mut pgn = String::new();
    for (i, c) in comments.iter().cycle().take(40).enumerate() {
        pgn.push_str(&format!(
            "[Event \"Open {i}\"]\n[White \"Smith, John\"]\n[Black \"Brown, Tom\"]\n\
             [Result \"1-0\"]\n\n1. e4 {{{c}}} e5 2. Nf3 {{{c}}} 1-0\n\n"
        ));
    }
    let mut w = DatabaseWriter::with_code_page(encoding_rs::WINDOWS_1251);
    read_games(pgn.as_bytes(), Limits::default(), |g| {
        let g = g.unwrap();
        w.add_game(&g.header, &g.game).unwrap();
    })
    .unwrap();
    let files = w.finish();
    // Stored as single bytes, not UTF-8.
    let cba = files.cba.as_deref().unwrap();
    assert!(!cba.windows(10).any(|b| b == "Белые".as_bytes()));
    let db = Database::from_files(files).unwrap();
    assert_eq!(db.code_page(), encoding_rs::WINDOWS_1251);
    let (_, out) = export_pgn(&db, 1);
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains(comments[0]), "{out}");
}

/// PGN → database → PGN over every PGN of `../shared/corpus` (issue 29): each game comes back
/// with the same moves and variations, comments and NAGs, and with every tag (kept with
/// `keep_tags`), except what the import reported as lost.
#[test]
fn corpus_pgns_come_back_except_what_was_reported() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if !root.is_dir() {
        eprintln!("skipping: ../shared/corpus absent");
        return;
    }
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "pgn") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    let mut options = chessbase_db::import::ImportOptions::default();
    options.keep_tags = true;
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read(file).unwrap();
        let mut w = DatabaseWriter::new();
        let mut reports: Vec<Option<Vec<chessbase_db::import::Loss>>> = Vec::new();
        chessbase_db::import::read_games_with(&text[..], Limits::default(), options, |g| {
            // Games that cannot be imported (illegal moves) are reported and left out; the
            // comparison below pairs games by their order, so keep a placeholder.
            match g {
                Ok(g) => {
                    let mut l = g.losses.clone();
                    l.extend(
                        w.cut_fields(&g.header)
                            .into_iter()
                            .map(|(field, bytes)| chessbase_db::import::Loss::Cut { field, bytes }),
                    );
                    w.add_game(&g.header, &g.game).unwrap();
                    reports.push(Some(l));
                }
                Err(_) => reports.push(None),
            }
        })
        .unwrap();
        let db = Database::from_files(w.finish()).unwrap();
        let (_, out) = export_pgn(&db, 1);
        let before = common::parse_pgn(&text);
        let after = common::parse_pgn(&out);
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        assert_eq!(before.len(), reports.len(), "{rel}: games read");
        let mut j = 0;
        for (i, b) in before.iter().enumerate() {
            let Some(Some(lost)) = reports.get(i) else {
                continue; // not imported (reported as such)
            };
            let a = &after[j];
            j += 1;
            compare_game(&rel, i + 1, b, a, lost);
            compared += 1;
        }
    }
    assert!(compared > 10_000, "{compared} games compared");
}

fn compare_game(
    rel: &str,
    n: usize,
    before: &common::Parsed,
    after: &common::Parsed,
    lost: &[chessbase_db::import::Loss],
) {
    use chessbase_db::import::Loss;
    use common::Tok;
    let moves = |p: &common::Parsed| -> Vec<Tok> {
        p.tokens
            .iter()
            .filter(|t| matches!(t, Tok::Move(_) | Tok::Open | Tok::Close))
            .cloned()
            .collect()
    };
    assert_eq!(moves(before), moves(after), "{rel} game {n}: moves");
    if !lost.contains(&Loss::Nag) {
        let nags = |p: &common::Parsed| -> Vec<u8> {
            let mut v: Vec<u8> = p
                .tokens
                .iter()
                .filter_map(|t| match t {
                    Tok::Nag(n) => Some(*n),
                    _ => None,
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(nags(before), nags(after), "{rel} game {n}: NAGs");
    }
    let comments = |p: &common::Parsed| -> String {
        p.tokens
            .iter()
            .filter_map(|t| match t {
                Tok::Comment(c) => Some(c.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ")
            .replace('}', ")")
    };
    assert_eq!(
        comments(before),
        comments(after),
        "{rel} game {n}: comments"
    );
    for (name, value) in &before.tags {
        let reported = lost.iter().any(|l| match l {
            Loss::Cut { field, .. } => field.starts_with(name.as_str()),
            Loss::Tag(t) => t == name,
            Loss::Unreadable(t) => t == name,
            Loss::Result => name == "Result",
            _ => false,
        });
        // A value that is not UTF-8 (a single-byte code page) reads as U+FFFD here; the import
        // decodes it in its code page instead: nothing to compare it with.
        let ignored = matches!(name.as_str(), "SetUp" | "FEN" | "Variant" | "PlyCount")
            || value.contains('\u{fffd}')
            || value.is_empty()
            || value == "?"
            || value.starts_with("????");
        if reported || ignored {
            continue;
        }
        // Numbers are stored as numbers: `08` comes back as `8`.
        let number = |v: &str| -> String {
            v.split('.')
                .map(|p| {
                    p.trim()
                        .parse::<u32>()
                        .map_or(p.to_string(), |n| n.to_string())
                })
                .collect::<Vec<_>>()
                .join(".")
        };
        let (want, got) = match name.as_str() {
            "Round" | "WhiteElo" | "BlackElo" => (number(value), after.tag(name).map(number)),
            _ => (value.clone(), after.tag(name).map(str::to_string)),
        };
        assert_eq!(got, Some(want), "{rel} game {n}: tag {name}");
    }
}

/// Issue 30: a comment longer than an annotation can hold is cut (at a character) and
/// reported, never the game refused for it, and a huge one costs no more memory than that.
#[test]
fn a_comment_too_long_for_the_format_is_cut_and_reported() {
    use chessbase_db::import::{Loss, MAX_COMMENT_BYTES};
    // 200,000 bytes of UTF-8, French (the database's code page, guessed from it, is
    // Windows-1252).
    let long = "Le fou a été déplacé très tôt, à côté du roi. ".repeat(3_500);
    let pgn = format!("[Event \"E\"]\n[Result \"*\"]\n\n1. e4 {{{long}}} e5 *\n\n");
    let (out, losses) = through_database(
        &pgn,
        chessbase_db::import::ImportOptions::default(),
        encoding_rs::WINDOWS_1252,
    );
    assert!(
        losses.contains(&Loss::Cut {
            field: "comment",
            bytes: MAX_COMMENT_BYTES
        }),
        "{losses:?}"
    );
    let kept = out.matches("déplacé").count();
    assert!(kept > 1_000 && kept <= MAX_COMMENT_BYTES / 40, "{kept}");
    assert!(out.contains("e5 *"), "the game goes on after the comment");
}
