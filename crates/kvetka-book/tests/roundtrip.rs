//! Round trips on real games: build → read equals a plain in-memory count; write → read →
//! write is byte-identical; growing equals building at once; a book split into several `.kob`
//! files reads the same as one file.

mod common;

use std::collections::{HashMap, HashSet};

use chess_core::normalize::normalize;
use chessfmt_pgn::{GameResult, PgnReader};
use kvetka_book::{
    Book, Element, Stats,
    ksf::KsfResult,
    position,
    read::{KinStatus, from_bytes},
    validate::validate,
    write::BookFiles,
};
use shakmaty::{Chess, Color, Move, Position};

/// What a plain count expects of one position: statistics of the side to move and the
/// normalised moves.
#[derive(Default, Debug)]
struct Expected {
    stats: Stats,
    moves: HashSet<Move>,
}

/// Counts the games the straightforward way: normalise each position, encode its key the slow
/// way, count each position once per game.
fn count(pgn: &std::path::Path, max_move: usize) -> (HashMap<[u8; 22], Expected>, u64) {
    let mut map: HashMap<[u8; 22], Expected> = HashMap::new();
    let mut games_added = 0;
    for g in PgnReader::open(pgn).unwrap().games() {
        let Ok(g) = g else { continue };
        let winner = match g.result {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
            _ => continue,
        };
        games_added += 1;
        let mut seen = HashSet::new();
        let mut pos = g.start.clone();
        let n = g.moves.len().min(max_move);
        for i in 0..=n {
            let norm = normalize(&pos);
            let key = position::encode(&position::huffman_position(&norm.position)).unwrap();
            let e = map.entry(key).or_default();
            if seen.insert(key) {
                match winner {
                    None => e.stats.draws += 1,
                    Some(w) if w == pos.turn() => e.stats.wins += 1,
                    Some(_) => e.stats.losses += 1,
                }
            }
            if i < n {
                let m = g.moves[i];
                let nm = norm.transform.apply_move(m);
                // Moves the table has no code for (under-promotions, a third knight, …) are
                // left out and counted by the builder.
                if kvetka_book::moves::encode_real(&pos, m).is_some() {
                    e.moves.insert(nm);
                }
                pos.play_unchecked(m);
            }
        }
    }
    (map, games_added)
}

fn check_against_count<D: AsRef<[u8]>>(book: &Book<D>, expected: &HashMap<[u8; 22], Expected>) {
    let mut n = 0;
    for e in book.elements() {
        let (_, e) = e.unwrap();
        n += 1;
        let want = expected
            .get(&e.key)
            .unwrap_or_else(|| panic!("unexpected element {:?}", e.key));
        let got = Stats {
            wins: e.wins,
            draws: e.draws,
            losses: e.losses,
        };
        assert_eq!(got, want.stats);
        let pos = position::position_of(&e.key).unwrap();
        let moves: HashSet<Move> = e
            .moves
            .iter()
            .map(|&c| kvetka_book::moves::decode(&pos, c).unwrap())
            .collect();
        assert_eq!(moves.len(), e.moves.len(), "no duplicate codes");
        assert_eq!(moves, want.moves);
    }
    assert_eq!(n, expected.len());
}

/// Games that come back to positions they left (issue 29: every move counts, those from a
/// repeated position too) build the book a plain count expects.
#[test]
fn returning_games_build_equals_in_memory_count() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("returning.pgn");
    let mut text = String::new();
    for seed in 1..=300u64 {
        let (moves, _) = chessfmt_pgn::fuzzing::returning_game(seed * 7_919, 50);
        let result = ["1-0", "0-1", "1/2-1/2"][(seed % 3) as usize];
        text.push_str(&format!("[Result \"{result}\"]\n\n{moves}{result}\n\n"));
    }
    std::fs::write(&pgn, text).unwrap();
    let paths = common::build_default(&[&pgn], common::header(0xff, false, false), dir.path(), "r");
    let book = Book::open(paths.base()).unwrap();
    let (expected, games) = count(&pgn, usize::MAX);
    assert_eq!(games, 300);
    check_against_count(&book, &expected);
}

#[test]
fn gnuchess_build_equals_in_memory_count() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let paths = common::build_default(&[&pgn], common::header(0xff, true, false), dir.path(), "g");
    let book = Book::open(paths.base()).unwrap();
    assert_eq!(book.kin_status(), &KinStatus::Valid);
    let report = validate(&book);
    assert!(report.is_ok(), "{:?}", report.problems);
    let (expected, games) = count(&pgn, usize::MAX);
    check_against_count(&book, &expected);
    assert_eq!(report.elements as usize, expected.len());

    // The .ksf lists every added game with its byte range, names, Elo and result.
    let sources = book.sources().unwrap().unwrap();
    assert_eq!(sources.sources.len(), 1);
    let s = &sources.sources[0];
    assert_eq!(s.source_type, kvetka_book::ksf::SOURCE_PGN);
    assert!(s.address.ends_with("gnuchess-book_1.02-first10000.pgn"));
    assert_eq!(s.games.len() as u64, games);
    let text = std::fs::read(&pgn).unwrap();
    for g in &s.games {
        let slice = &text[g.address as usize..(g.address + g.length) as usize];
        let slice = String::from_utf8_lossy(slice);
        assert!(slice.starts_with('['), "a game starts at its address");
        assert!(slice.contains(&format!("[White \"{}\"]", g.white)));
        let result = match g.result {
            KsfResult::WhiteWins => "1-0",
            KsfResult::BlackWins => "0-1",
            KsfResult::Draw => "1/2-1/2",
            other => panic!("{other:?}"),
        };
        assert!(slice.contains(&format!("[Result \"{result}\"]")));
    }
    // Every element's game contains its position; the start position's first game is game 0.
    let start = book.probe(&Chess::default()).unwrap().unwrap();
    assert_eq!(
        start.games.first().map(|r| (r.source, r.game)),
        Some((0, 0))
    );
    assert_eq!(start.stats.games(), games);
}

#[test]
fn max_move_cuts_the_games() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let paths = common::build_default(&[&pgn], common::header(12, false, false), dir.path(), "g");
    let book = Book::open(paths.base()).unwrap();
    let (expected, _) = count(&pgn, 12);
    check_against_count(&book, &expected);
    assert!(book.sources().is_none(), "no .ksf without game references");
}

#[test]
fn write_read_write_is_byte_identical() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let paths = common::build(
        &[&pgn],
        common::header(0xff, true, false),
        dir.path(),
        "g",
        1 << 20,
    );
    let kobs: Vec<Vec<u8>> = (0..)
        .map(|i| paths.kob(i))
        .take_while(|p| p.exists())
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(kobs.len() > 1, "the 1 MiB split gives several files");
    let kin = std::fs::read(paths.kin()).unwrap();
    let ksf = std::fs::read(paths.ksf()).unwrap();
    let book = from_bytes(kobs.clone(), Some(kin.clone()), Some(ksf.clone())).unwrap();
    let mut elements: Vec<Element> = book.elements().map(|e| e.unwrap().1).collect();
    let sources = book.sources().unwrap().unwrap().clone();
    let (files, _) =
        BookFiles::build(book.header(), &mut elements, Some(&sources), 1 << 20).unwrap();
    assert_eq!(files.kobs, kobs);
    assert_eq!(files.kin, kin);
    assert_eq!(files.ksf, Some(ksf));
}

fn all_elements(paths: &kvetka_book::read::BookPaths) -> Vec<Element> {
    let book = Book::open(paths.base()).unwrap();
    let report = validate(&book);
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(book.kin_status(), &KinStatus::Valid);
    book.elements().map(|e| e.unwrap().1).collect()
}

#[test]
fn grow_equals_build() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let a = common::pgn_slice(&pgn, 0..1500, dir.path(), "a.pgn");
    let b = common::pgn_slice(&pgn, 1500..2500, dir.path(), "b.pgn");
    let header = common::header(0xff, true, false);
    // A small split size makes growing split files too.
    let split = 96 * 1024;
    let grown = common::build(&[&a], header.clone(), dir.path(), "grown", split);
    let before = Book::open(grown.base()).unwrap().file_count();
    let stats =
        kvetka_book::grow::add_pgn(&grown, std::slice::from_ref(&b), split, |_| {}).unwrap();
    assert!(stats.blocks_added > 0 && stats.elements_added > 0 && stats.elements_updated > 0);
    assert!(stats.files as usize > before, "{stats:?}");
    let at_once = common::build(&[&a, &b], header, dir.path(), "once", split);
    let g = all_elements(&grown);
    let o = all_elements(&at_once);
    assert_eq!(g.len(), o.len());
    for (x, y) in g.iter().zip(&o) {
        assert_eq!(x, y);
    }
    // The sources too: the added file is the second source.
    let gs = Book::open(grown.base()).unwrap();
    let os = Book::open(at_once.base()).unwrap();
    assert_eq!(
        gs.sources().unwrap().unwrap(),
        os.sources().unwrap().unwrap()
    );
    // And the probes, along the main lines.
    let mut pos = Chess::default();
    for _ in 0..10 {
        let p = gs.probe(&pos).unwrap().unwrap();
        assert_eq!(Some(p.clone()), os.probe(&pos).unwrap());
        pos.play_unchecked(p.moves[0].mv);
    }
}

#[test]
fn grow_with_links_equals_build() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let a = common::pgn_slice(&pgn, 0..300, dir.path(), "a.pgn");
    let b = common::pgn_slice(&pgn, 300..450, dir.path(), "b.pgn");
    let header = common::header(16, false, true);
    let grown = common::build_default(&[&a], header.clone(), dir.path(), "grown");
    let stats = kvetka_book::grow::add_pgn(
        &grown,
        std::slice::from_ref(&b),
        kvetka_book::write::DEFAULT_SPLIT_SIZE,
        |_| {},
    )
    .unwrap();
    assert!(stats.build.linked_moves > 0);
    let at_once = common::build_default(&[&a, &b], header, dir.path(), "once");
    let g = all_elements(&grown);
    let o = all_elements(&at_once);
    assert_eq!(g.len(), o.len());
    let mut linked = 0;
    for (x, y) in g.iter().zip(&o) {
        assert_eq!(
            (x.key, x.wins, x.draws, x.losses),
            (y.key, y.wins, y.draws, y.losses)
        );
        // Same moves; their order may differ (links are appended after each growth).
        let mut xm = x.moves.clone();
        let mut ym = y.moves.clone();
        xm.sort_unstable();
        ym.sort_unstable();
        assert_eq!(xm, ym);
        linked += x.moves.len();
    }
    assert!(linked > 0);
}

#[test]
fn several_kob_files_read_like_one() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let slice = common::pgn_slice(&pgn, 0..2000, dir.path(), "s.pgn");
    let header = common::header(30, true, false);
    let one = common::build_default(&[&slice], header.clone(), dir.path(), "one");
    let many = common::build(&[&slice], header, dir.path(), "many", 20 * 2048);
    let one_book = Book::open(one.base()).unwrap();
    let many_book = Book::open(many.kob(3)).unwrap();
    assert_eq!(one_book.file_count(), 1);
    assert!(many_book.file_count() > 5, "{}", many_book.file_count());
    assert!(validate(&many_book).is_ok());
    let a: Vec<Element> = one_book.elements().map(|e| e.unwrap().1).collect();
    let b: Vec<Element> = many_book.elements().map(|e| e.unwrap().1).collect();
    assert_eq!(a, b);
    for e in a.iter().step_by(7) {
        let pos = position::position_of(&e.key).unwrap();
        assert_eq!(
            one_book.probe(&pos).unwrap(),
            many_book.probe(&pos).unwrap()
        );
    }
    // Concatenating the files gives the same book (the header is in file 0 only).
    let joined: Vec<u8> = many_book
        .files()
        .flat_map(|(p, _)| std::fs::read(p).unwrap())
        .collect();
    let joined = from_bytes(vec![joined], None, None).unwrap();
    let c: Vec<Element> = joined.elements().map(|e| e.unwrap().1).collect();
    assert_eq!(a, c);
}
