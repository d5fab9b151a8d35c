//! Kvetka ↔ Polyglot through the polyglot-book crate: the Polyglot book answers like the Kvetka
//! book (weights 2·wins + draws of the mover), and Polyglot → Kvetka → Polyglot keeps the moves
//! and weights.

mod common;

use std::collections::{HashMap, HashSet};

use kvetka_book::{
    Book,
    convert::{from_polyglot, to_polyglot},
    read::from_bytes,
    write::BookFiles,
};
use polyglot_book::OpenMode;
use shakmaty::{Chess, Move, Position};

fn polyglot(entries: &[polyglot_book::Entry]) -> polyglot_book::Book<Vec<u8>> {
    let bytes: Vec<u8> = entries.iter().flat_map(|e| e.to_bytes()).collect();
    polyglot_book::Book::new(bytes, OpenMode::Strict).unwrap()
}

/// Positions reached from the start along Polyglot book moves, up to `plies`.
fn walk(book: &polyglot_book::Book<Vec<u8>>, plies: usize) -> Vec<Chess> {
    let mut out = vec![Chess::default()];
    let mut frontier = vec![Chess::default()];
    let mut seen = HashSet::new();
    for _ in 0..plies {
        let mut next = Vec::new();
        for p in frontier {
            for m in book.moves(&p) {
                let mut c = p.clone();
                c.play_unchecked(m.mv);
                if seen.insert(chess_core::polyglot_key(&c)) {
                    next.push(c.clone());
                    out.push(c);
                }
            }
        }
        frontier = next;
    }
    out
}

#[test]
fn polyglot_answers_like_the_kvetka_book() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let slice = common::pgn_slice(&pgn, 0..3000, dir.path(), "s.pgn");
    let paths = common::build_default(&[&slice], common::header(24, false, false), dir.path(), "k");
    let book = Book::open(paths.base()).unwrap();
    let (entries, stats) = to_polyglot(&book, chess_core::book::WeightPolicy::Score).unwrap();
    assert!(stats.positions > 10_000 && stats.zero_weight > 0);
    let pg = polyglot(&entries);
    let positions = walk(&pg, 8);
    assert!(positions.len() > 1000);
    for pos in &positions {
        let probe = book.probe(pos).unwrap().unwrap();
        let want: HashMap<Move, u16> = probe
            .moves
            .iter()
            .filter_map(|m| {
                let s = m.stats?;
                let w = 2 * s.wins + s.draws;
                (w > 0).then_some((m.mv, u16::try_from(w).unwrap()))
            })
            .collect();
        let got: HashMap<Move, u16> = pg.moves(pos).iter().map(|m| (m.mv, m.weight)).collect();
        assert_eq!(got, want, "{pos:?}");
    }
    // Black-to-move twins are answered too: the position after 1. e4 from Black's side
    // (the colour-swapped element) holds Black's replies.
    let mut after_e4 = Chess::default();
    after_e4.play_unchecked(
        "e4".parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&after_e4)
            .unwrap(),
    );
    assert!(!pg.moves(&after_e4).is_empty());
}

#[test]
fn polyglot_to_kvetka_and_back_keeps_moves_and_weights() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let slice = common::pgn_slice(&pgn, 0..1500, dir.path(), "s.pgn");
    let paths = common::build_default(&[&slice], common::header(16, false, false), dir.path(), "k");
    let (p1, _) = to_polyglot(
        &Book::open(paths.base()).unwrap(),
        chess_core::book::WeightPolicy::Score,
    )
    .unwrap();
    let pg1 = polyglot(&p1);
    let (mut elements, stats) = from_polyglot(&pg1, Chess::default());
    assert!(stats.positions > 1000);
    let header = kvetka_book::Header {
        max_move: 0xff,
        ..Default::default()
    };
    let (files, _) = BookFiles::build(&header, &mut elements, None, 1 << 22).unwrap();
    let k2 = from_bytes(files.kobs, Some(files.kin), None).unwrap();
    let (p2, _) = to_polyglot(&k2, chess_core::book::WeightPolicy::Score).unwrap();
    let pg2 = polyglot(&p2);
    for (i, pos) in walk(&pg1, 6).iter().enumerate() {
        let a: HashMap<Move, u16> = pg1.moves(pos).iter().map(|m| (m.mv, m.weight)).collect();
        let b: HashMap<Move, u16> = pg2.moves(pos).iter().map(|m| (m.mv, m.weight)).collect();
        assert_eq!(
            a.keys().collect::<HashSet<_>>(),
            b.keys().collect::<HashSet<_>>(),
            "{pos:?}"
        );
        for (m, w) in &a {
            // A child reached by several moves sums their weights.
            assert!(b[m] >= *w);
            if i == 0 {
                assert_eq!(b[m], *w, "first moves have one parent");
            }
        }
    }
}

/// The conversion on a pool of three threads gives what it gives on one: the same entries and
/// counts, from a book of more blocks than the 256 converted at once.
#[test]
fn polyglot_conversion_is_the_same_on_every_pool() {
    let Some(pgn) = common::gnuchess() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let slice = common::pgn_slice(&pgn, 0..12_000, dir.path(), "s.pgn");
    let paths = common::build_default(&[&slice], common::header(40, false, false), dir.path(), "k");
    let book = Book::open(paths.base()).unwrap();
    assert!(
        book.block_count() > 2 * 256,
        "{} blocks",
        book.block_count()
    );
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| to_polyglot(&book, chess_core::book::WeightPolicy::Score).unwrap())
    };
    let (one, one_stats) = on(1);
    let (three, three_stats) = on(3);
    assert!(one.len() > 100_000, "{}", one.len());
    assert_eq!(one_stats, three_stats);
    assert!(one == three, "the entries differ");
}
