//! Writer round trips, property tests and regression tests for the bugs of other readers.

mod common;

use std::collections::{BTreeSet, HashMap};

use chess_core::normalize::normalize;
use chessfmt_pgn::{Game, GameResult};
use common::{corpus, csv, fen, hex};
use ctg::{
    Book, Stats,
    build::Builder,
    raw::{PAGE_SIZE, RatingPair},
    write::{self, RecordData},
};
use proptest::prelude::*;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, fen::Fen};

fn book_of(records: &[RecordData]) -> Book<Vec<u8>> {
    let [ctg, cto, ctb] = write::to_bytes(records, 1).unwrap();
    Book::new(ctg, cto, &ctb).unwrap()
}

/// A random game from a seed.
fn random_game(seed: u64, plies: usize, index: u64) -> Game {
    let mut s = seed | 1;
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let m = legal[(s % legal.len() as u64) as usize];
        pos.play_unchecked(m);
        moves.push(m);
    }
    let result = match s % 4 {
        0 => GameResult::WhiteWins,
        1 => GameResult::BlackWins,
        2 => GameResult::Draw,
        _ => GameResult::Unknown,
    };
    Game {
        index,
        offset: 0,
        length: 0,
        headers: vec![
            ("WhiteElo".into(), (2000 + s % 700).to_string()),
            ("BlackElo".into(), "2400".into()),
        ],
        castling_mode: CastlingMode::Standard,
        start: Chess::default(),
        moves,
        null_move_at: None,
        result,
    }
}

/// Normalised FEN (board, castling, legal ep square): the straightforward, independent key.
fn norm_key(pos: &Chess) -> String {
    let n = normalize(pos);
    Fen::from_position(&n.position, EnPassantMode::Legal)
        .to_string()
        .rsplitn(3, ' ')
        .nth(2)
        .unwrap()
        .to_string()
}

#[derive(Default, Debug)]
struct Count {
    games: u32,
    wins: u32,
    losses: u32,
    draws: u32,
    moves: BTreeSet<String>,
}

/// Checks a book built from `games` against a plain in-memory count.
fn check_against_count(games: &[Game], max_ply: usize) {
    let mut b = Builder::new(ctg::build::BuildOptions::default().with_max_ply(max_ply));
    for g in games {
        b.add_replayed(g);
    }
    let stats = b.stats().clone();
    let (records, _) = b.finish().unwrap();
    let book = book_of(&records);
    let mut counts: HashMap<String, Count> = HashMap::new();
    let mut probes = Vec::new();
    for g in games {
        let mut seen = BTreeSet::new();
        let mut pos = g.start.clone();
        for ply in 0..=g.moves.len().min(max_ply) {
            let key = norm_key(&pos);
            let next = g.moves.get(ply).filter(|_| ply < max_ply);
            if seen.insert(key.clone()) {
                let c = counts.entry(key.clone()).or_default();
                c.games += 1;
                match g.result.winner() {
                    _ if g.result == GameResult::Unknown => {}
                    Some(w) if w == pos.turn() => c.wins += 1,
                    Some(_) => c.losses += 1,
                    None => c.draws += 1,
                }
            }
            // Every move played counts, from a repeated position too (issue 29: the CTG
            // builder kept only the first).
            if let Some(&m) = next {
                let n = normalize(&pos);
                let nm = n.transform.apply_move(m);
                // Moves CTG cannot code are skipped by the builder.
                if ctg::moves::encode(&n.position, nm).is_some() {
                    counts
                        .entry(key.clone())
                        .or_default()
                        .moves
                        .insert(nm.to_uci(CastlingMode::Standard).to_string());
                }
            }
            probes.push((pos.clone(), key));
            let Some(&m) = next else { break };
            pos.play_unchecked(m);
        }
    }
    for (pos, key) in probes {
        let c = &counts[&key];
        let probe = book
            .probe(&pos)
            .unwrap()
            .expect("every position of the games is in the book");
        assert_eq!(
            (
                probe.stats.games,
                probe.stats.wins,
                probe.stats.losses,
                probe.stats.draws
            ),
            (c.games, c.wins, c.losses, c.draws),
            "{key}"
        );
        let n = normalize(&pos);
        let got: BTreeSet<String> = probe
            .moves
            .iter()
            .map(|m| {
                assert!(pos.is_legal(m.mv));
                n.transform
                    .apply_move(m.mv)
                    .to_uci(CastlingMode::Standard)
                    .to_string()
            })
            .collect();
        assert_eq!(got, c.moves, "{key}");
        // Each move's statistics are the child's count seen from the mover.
        for m in &probe.moves {
            let mut child = pos.clone();
            child.play_unchecked(m.mv);
            let cc = &counts[&norm_key(&child)];
            let r = m.results();
            assert_eq!((r.games, r.wins, r.losses), (cc.games, cc.losses, cc.wins));
        }
    }
    assert_eq!(stats.games, games.len() as u64);
}

/// Games that come back to positions they left (knights out and back, then on): a move
/// played later from a repeated position is in the book beside the first.
#[test]
fn moves_from_repeated_positions_are_all_kept() {
    use shakmaty::uci::UciMove;
    let mut games = Vec::new();
    for i in 0..60u64 {
        let mut g = random_game(i * 104_729 + 3, 20, i);
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        // Then the random game from the start position again (a different first move,
        // mostly).
        moves.extend(g.moves.iter().copied());
        g.moves = moves;
        games.push(g);
    }
    check_against_count(&games, 30);
    // The start position has Nf3 and the later first moves.
    let mut b = Builder::new(ctg::build::BuildOptions::default().with_max_ply(30));
    for g in &games {
        b.add_replayed(g);
    }
    let (records, _) = b.finish().unwrap();
    let book = book_of(&records);
    let probe = book.probe(&Chess::default()).unwrap().unwrap();
    assert_eq!(probe.stats.games, 60, "the position counts once per game");
    assert!(probe.moves.len() > 5, "{:?}", probe.moves.len());
}

#[test]
fn built_from_random_games_equals_a_plain_count() {
    let games: Vec<Game> = (0..300).map(|i| random_game(i * 7919 + 1, 30, i)).collect();
    check_against_count(&games, 24);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_books_write_read(seeds in proptest::collection::vec(any::<u64>(), 1..40), max_ply in 1usize..40) {
        let games: Vec<Game> = seeds.iter().enumerate().map(|(i, s)| random_game(*s, 60, i as u64)).collect();
        check_against_count(&games, max_ply);
    }
}

#[test]
fn many_records_round_trip() {
    // Several thousand distinct positions: deep splits, every record found unchanged.
    let mut records: HashMap<Vec<u8>, RecordData> = HashMap::new();
    for i in 0..2000u64 {
        let g = random_game(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1, 40, i);
        let mut pos = g.start.clone();
        for m in g.moves {
            pos.play_unchecked(m);
            let key = ctg::position::key_of(&pos).unwrap().as_bytes().to_vec();
            let stats = Stats {
                games: i as u32,
                wins: (i % 7) as u32,
                rating1: RatingPair {
                    games: 1,
                    sum: 2500,
                },
                recommendation: if i % 3 == 0 { 0x80 } else { 0x40 },
                ..Stats::default()
            };
            records.insert(
                key.clone(),
                RecordData {
                    position: key,
                    moves: vec![(0x34, (i % 8) as u8)],
                    stats,
                },
            );
        }
    }
    let records: Vec<RecordData> = records.into_values().collect();
    let book = book_of(&records);
    assert!(book.header().pages > 100);
    assert_eq!(book.records().count(), records.len());
    for r in &records {
        let found = book.find(&r.position).unwrap();
        assert_eq!(RecordData::from_raw(&found.raw), *r);
    }
    // Written again from what was read: byte-identical files.
    let read: Vec<RecordData> = book
        .records()
        .map(|r| RecordData::from_raw(&r.unwrap().raw))
        .collect();
    let a = write::to_bytes(&records, 1).unwrap();
    let b = write::to_bytes(&read, 1).unwrap();
    assert_eq!(a, b);
}

#[test]
fn vector_positions_are_found_from_their_real_positions() {
    // Records keyed by the hand-derived bytes of encoding-vectors.csv; probing the FEN (colour
    // flip, mirror by the side-to-move king, mirrored en-passant file) must find each.
    let Some(path) = corpus("vectors/encoding-vectors.csv") else {
        return;
    };
    let rows = csv(&path);
    let records: Vec<RecordData> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 7) // rows 6 and 7 are the same stored position
        .map(|(i, row)| RecordData {
            position: hex(&row[1]),
            moves: vec![],
            stats: Stats {
                games: 100 + i as u32,
                ..Stats::default()
            },
        })
        .collect();
    let book = book_of(&records);
    for (i, row) in rows.iter().enumerate() {
        let probe = book
            .probe(&fen(&row[0]))
            .unwrap()
            .unwrap_or_else(|| panic!("{}", row[0]));
        let expect = if i == 7 { 106 } else { 100 + i as u32 };
        assert_eq!(probe.stats.games, expect, "{}", row[0]);
    }
}

#[test]
fn probes_past_the_end_of_the_directory() {
    let game = random_game(42, 10, 0);
    let mut b = Builder::new(ctg::build::BuildOptions::default().with_max_ply(10));
    b.add_replayed(&game);
    let (records, _) = b.finish().unwrap();
    let [ctg, mut cto, mut ctb] = write::to_bytes(&records, 1).unwrap();
    // One page; make the walk go through every level and cut the directory after entry 0.
    cto.truncate(20);
    ctb[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
    let book = Book::new(ctg, cto, &ctb).unwrap();
    assert!(book.probe(&Chess::default()).unwrap().is_some());
    let absent = fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    assert!(book.probe(&absent).unwrap().is_none());
    // A directory entry naming a page the book does not have is no page, not a crash.
    let [ctg, mut cto, ctb] = write::to_bytes(&records, 1).unwrap();
    cto[16..20].copy_from_slice(&7u32.to_be_bytes());
    let book = Book::new(ctg, cto, &ctb).unwrap();
    assert!(book.probe(&Chess::default()).unwrap().is_none());
}

#[test]
fn garbage_after_the_used_bytes_is_never_read() {
    let mut b = Builder::new(ctg::build::BuildOptions::default().with_max_ply(4));
    b.add_replayed(&random_game(7, 4, 0));
    let (records, _) = b.finish().unwrap();
    let [mut ctg, cto, ctb] = write::to_bytes(&records, 1).unwrap();
    let used = u16::from_be_bytes([ctg[PAGE_SIZE + 2], ctg[PAGE_SIZE + 3]]) as usize;
    // A stale record of a position not in the book right after the used bytes.
    let stale_pos = fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    let stale = RecordData {
        position: ctg::position::key_of(&stale_pos)
            .unwrap()
            .as_bytes()
            .to_vec(),
        moves: vec![],
        stats: Stats::default(),
    };
    let [stale_page, _, _] = write::to_bytes(&[stale], 1).unwrap();
    let stale_bytes = &stale_page[PAGE_SIZE + 4..PAGE_SIZE + 4 + 56];
    ctg[PAGE_SIZE + used..PAGE_SIZE + used + stale_bytes.len()].copy_from_slice(stale_bytes);
    let book = Book::new(ctg, cto, &ctb).unwrap();
    assert!(book.probe(&stale_pos).unwrap().is_none());
    assert_eq!(book.records().count(), records.len());
    assert!(book.records().all(|r| r.is_ok()));
}

#[test]
fn corrupt_pages_are_reported_and_skipped() {
    let mut b = Builder::new(ctg::build::BuildOptions::default().with_max_ply(30));
    for i in 0..200 {
        b.add_replayed(&random_game(i * 31 + 5, 30, i));
    }
    let (records, _) = b.finish().unwrap();
    let [mut ctg, cto, ctb] = write::to_bytes(&records, 1).unwrap();
    // Break the first record of page 0: an even moves length byte.
    let l = usize::from(ctg[PAGE_SIZE + 4] & 0x1f);
    ctg[PAGE_SIZE + 4 + l] = 0x02;
    let book = Book::new(ctg, cto, &ctb).unwrap();
    let results: Vec<_> = book.records().collect();
    let errors: Vec<_> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].offset, (PAGE_SIZE + 4 + l) as u64);
    assert!(results.iter().filter(|r| r.is_ok()).count() > records.len() / 2);
}

/// The first `n` games of the 10,000-game gnuchess PGN (`None` where the corpus is absent).
fn first_gnuchess_games(n: usize) -> Option<Vec<Game>> {
    let pgn = corpus("../polyglot/pgn/gnuchess-book_1.02-first10000.pgn")?;
    let games = chessfmt_pgn::PgnReader::open(&pgn)
        .unwrap()
        .games()
        .take(n)
        .map(Result::unwrap)
        .collect();
    Some(games)
}

#[test]
fn build_from_the_gnuchess_pgn_and_write_to_disk() {
    let Some(games) = first_gnuchess_games(1500) else {
        return;
    };
    check_against_count(&games, 16);
    let mut b = Builder::new(ctg::build::BuildOptions::default().with_max_ply(16));
    games.iter().for_each(|g| b.add_replayed(g));
    let (records, _) = b.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.ctg");
    let summary = write::write_book(&path, &records, games.len() as u32, false).unwrap();
    assert!(
        write::write_book(&path, &records, 1, false).is_err(),
        "no overwrite without force"
    );
    let book = Book::open(&path).unwrap();
    assert_eq!(book.header().pages, summary.pages);
    assert_eq!(book.header().games, games.len() as u32);
    assert_eq!(
        book.probe(&Chess::default()).unwrap().unwrap().stats.games,
        games.len() as u32
    );
}

/// A build under a memory limit (runs of a few hundred positions, merged at the end) gives
/// the records and counts of an unlimited build, in memory (`finish`) and on disk (`save`,
/// streamed), byte for byte; its runs and spool leave nothing behind.
#[test]
fn a_build_under_a_memory_limit_is_the_same_book() {
    let Some(games) = first_gnuchess_games(1500) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let build = |limit: Option<usize>| {
        let options = ctg::build::BuildOptions::default()
            .with_max_ply(16)
            .with_memory_limit(limit.map(|b| ctg::build::MemoryLimit::new(b, dir.path())));
        let mut b = Builder::new(options);
        games.iter().for_each(|g| b.add_replayed(g));
        b
    };
    let (whole, stats) = build(None).finish().unwrap();
    assert!(whole.len() > 8_000, "{} records", whole.len());
    // 320 bytes a position: runs of 250 positions.
    let (limited, limited_stats) = build(Some(80_000)).finish().unwrap();
    assert!(limited == whole, "the limit changed the records");
    assert_eq!(limited_stats, stats);
    let expected = write::to_bytes(&whole, games.len() as u32).unwrap();
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("b.ctg");
    build(Some(80_000)).save(&path, false).unwrap();
    for (p, bytes) in write::book_paths(&path).iter().zip(&expected) {
        assert!(&std::fs::read(p).unwrap() == bytes, "{p:?} differs");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "runs left"
    );
}
