//! Structural rules and hostile input: `validate` catches each broken invariant; truncated or
//! inconsistent files give errors naming the file and the offset; a stale `.kin` is ignored.

mod common;

use chessfmt_pgn::PgnReader;
use kvetka_book::{
    Book, Element, Error, Header, SourceRef,
    build::Builder,
    codec::write_compact,
    raw::{BLOCK_SIZE, KEY_LEN, MAX_ELEMENT_SIZE},
    read::{BookPaths, KinStatus, from_bytes},
    validate::validate,
    write::BookFiles,
};
use proptest::prelude::*;
use shakmaty::Chess;

const GAMES: &[u8] = b"[White \"A\"]\n[Black \"B\"]\n[WhiteElo \"2500\"]\n[BlackElo \"2100\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n\
[White \"C\"]\n[Black \"D\"]\n[WhiteElo \"1900\"]\n[BlackElo \"2300\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4 e6 0-1\n\n\
[White \"E\"]\n[Black \"F\"]\n[Result \"1/2-1/2\"]\n\n1. e4 c5 2. Nf3 d6 1/2-1/2\n\n\
[White \"G\"]\n[Black \"H\"]\n[Result \"*\"]\n\n1. e4 e5 *\n";

fn small_book(header: Header) -> BookFiles {
    let games = PgnReader::new(GAMES).next_batch(100).unwrap();
    let mut b = Builder::new(kvetka_book::build::BuildOptions::default().with_header(header));
    b.begin_source("games.pgn");
    b.add_games(&games);
    let (built, _) = b.finish().unwrap();
    let (header, mut elements, sources) = (built.header, built.elements, built.sources);
    BookFiles::build(&header, &mut elements, sources.as_ref(), 1 << 20)
        .unwrap()
        .0
}

fn with_games() -> Header {
    Header {
        max_move: 0xff,
        element_type: 1,
        ..Header::default()
    }
}

fn open(files: &BookFiles) -> Result<Book<Vec<u8>>, Error> {
    from_bytes(
        files.kobs.clone(),
        Some(files.kin.clone()),
        files.ksf.clone(),
    )
}

#[test]
fn elo_filters_and_unknown_results() {
    let count = |header: Header| {
        let games = PgnReader::new(GAMES).next_batch(100).unwrap();
        let mut b = Builder::new(kvetka_book::build::BuildOptions::default().with_header(header));
        b.add_games(&games);
        let s = b.stats().clone();
        (s.games_added, s.games_filtered, s.games_without_result)
    };
    let h = |w, b, s, k| Header {
        min_elo_white: w,
        min_elo_black: b,
        min_elo_strong: s,
        min_elo_weak: k,
        max_move: 0xff,
        ..Header::default()
    };
    assert_eq!(count(h(0, 0, 0, 0)), (3, 0, 1));
    // White ≥ 2000: only game 1 (game 3 has no Elo, i.e. 0).
    assert_eq!(count(h(2000, 0, 0, 0)), (1, 2, 1));
    assert_eq!(count(h(0, 2200, 0, 0)), (1, 2, 1));
    // Stronger ≥ 2400: game 1 (2500); weaker ≥ 2000: games 1 (2100).
    assert_eq!(count(h(0, 0, 2400, 0)), (1, 2, 1));
    assert_eq!(count(h(0, 0, 2300, 1900)), (2, 1, 1));
}

#[test]
fn small_book_probe_values() {
    let files = small_book(with_games());
    let book = open(&files).unwrap();
    assert!(validate(&book).is_ok());
    let p = book.probe(&Chess::default()).unwrap().unwrap();
    // Three games with results: White won one, lost one, drew one.
    assert_eq!((p.stats.wins, p.stats.draws, p.stats.losses), (1, 1, 1));
    let ucis: Vec<String> = p
        .moves
        .iter()
        .map(|m| shakmaty::uci::UciMove::from_standard(m.mv).to_string())
        .collect();
    assert_eq!(ucis, ["e2e4", "d2d4"]);
    let e4 = p.moves[0].stats.unwrap();
    assert_eq!((e4.wins, e4.draws, e4.losses), (1, 1, 0));
    let d4 = p.moves[1].stats.unwrap();
    assert_eq!((d4.wins, d4.draws, d4.losses), (0, 0, 1));
    // Games through the position after 1. d4: game 1 of source 0 (C–D).
    assert_eq!(p.moves[1].games, [SourceRef { source: 0, game: 1 }]);
    let (_, g) = book.game(p.moves[1].games[0]).unwrap();
    assert_eq!(
        (g.white.as_str(), g.black.as_str(), g.black_elo),
        ("C", "D", 2300)
    );
}

#[test]
fn validate_finds_each_broken_rule() {
    let files = small_book(with_games());
    let head = Header::parse(&files.kobs[0]).unwrap().1;
    // A stale .kin is ignored and reported.
    let mut kin = files.kin.clone();
    kin[3] ^= 1;
    let book = from_bytes(files.kobs.clone(), Some(kin), None).unwrap();
    assert!(matches!(book.kin_status(), KinStatus::Stale(_)));
    assert!(!validate(&book).is_ok());
    // Lookups still work: the index comes from the blocks.
    assert!(book.probe(&Chess::default()).unwrap().is_some());
    let book = from_bytes(files.kobs.clone(), Some(vec![0; 5]), None).unwrap();
    assert!(matches!(book.kin_status(), KinStatus::Stale(_)));

    // Unsorted keys: swap the first two elements of the block.
    let book = open(&files).unwrap();
    let mut elements: Vec<Element> = book.elements().map(|e| e.unwrap().1).collect();
    elements.swap(0, 1);
    let bytes: Vec<Vec<u8>> = elements.iter().map(|e| e.to_bytes(true)).collect();
    let mut kob = files.kobs[0][..head].to_vec();
    kob.extend(kvetka_book::write::encode_block(
        bytes.iter().map(Vec::as_slice),
    ));
    let book = from_bytes(vec![kob], None, files.ksf.clone()).unwrap();
    let report = validate(&book);
    assert_eq!(report.problem_count, 1, "{:?}", report.problems);
    assert!(report.problems[0].message.contains("key not greater"));
    assert_eq!(report.problems[0].file.to_str(), Some("book_0.kob"));

    // An element over 682 bytes (a long links list written without fitting).
    let mut big = elements[1].clone();
    big.links = Some(vec![SourceRef { source: 0, game: 0 }; 120]);
    assert!(big.encoded_len(true) > MAX_ELEMENT_SIZE);
    let mut kob = files.kobs[0][..head].to_vec();
    kob.extend(kvetka_book::write::encode_block([big
        .to_bytes(true)
        .as_slice()]));
    let book = from_bytes(vec![kob], None, files.ksf.clone()).unwrap();
    let report = validate(&book);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.message.contains("at most 682"))
    );

    // A game reference outside the .ksf.
    let mut lost = elements[1].clone();
    lost.source = Some(SourceRef { source: 9, game: 0 });
    let mut kob = files.kobs[0][..head].to_vec();
    kob.extend(kvetka_book::write::encode_block([lost
        .to_bytes(true)
        .as_slice()]));
    let book = from_bytes(vec![kob], None, files.ksf.clone()).unwrap();
    assert!(
        validate(&book)
            .problems
            .iter()
            .any(|p| p.message.contains("not in the .ksf"))
    );

    // Non-zero padding bits in a key.
    let mut padded = elements[1].clone();
    padded.key[KEY_LEN - 1] |= 1;
    let mut kob = files.kobs[0][..head].to_vec();
    kob.extend(kvetka_book::write::encode_block([padded
        .to_bytes(true)
        .as_slice()]));
    let book = from_bytes(vec![kob], None, None).unwrap();
    assert!(
        validate(&book)
            .problems
            .iter()
            .any(|p| p.message.contains("padding"))
    );
}

#[test]
fn inconsistent_files_name_file_and_offset() {
    let files = small_book(with_games());
    let head = Header::parse(&files.kobs[0]).unwrap().1;
    // Truncated inside a block.
    let cut = files.kobs[0][..head + 100].to_vec();
    let e = from_bytes(vec![cut], None, None).unwrap_err().to_string();
    assert!(e.starts_with("book_0.kob: byte "), "{e}");
    assert!(e.contains(&format!("byte {head}:")), "{e}");
    // A missing .kob file: the header announces more blocks.
    let mut kob = files.kobs[0].clone();
    kob[head - 1] += 1;
    let e = from_bytes(vec![kob], None, None).unwrap_err().to_string();
    assert!(e.contains("book_0.kob") && e.contains("blocks"), "{e}");
    // A used length beyond the block.
    let mut kob = files.kobs[0].clone();
    kob[head] = 0x09;
    let e = from_bytes(vec![kob], None, None).unwrap_err().to_string();
    assert!(e.contains(&format!("byte {head}:")), "{e}");
    // An element length running past the used bytes.
    let mut kob = files.kobs[0].clone();
    kob[head + 2] = 0x7f;
    let book = from_bytes(vec![kob], None, None);
    let e = match book {
        Err(e) => e.to_string(),
        Ok(b) => b.elements().find_map(Result::err).unwrap().to_string(),
    };
    assert!(e.contains("book_0.kob: byte"), "{e}");
    // An unsupported type.
    let mut kob = files.kobs[0].clone();
    kob[0] = 2;
    let e = from_bytes(vec![kob], None, None).unwrap_err();
    assert!(matches!(e, Error::UnsupportedType { book_type: 2, .. }));
    assert!(e.to_string().contains("unsupported book type 0x02"));
    // A damaged .ksf is an error of the .ksf only.
    let book = from_bytes(files.kobs.clone(), None, Some(vec![0, 0, 0, 9])).unwrap();
    let e = book.sources().unwrap().unwrap_err().to_string();
    assert!(e.starts_with("book.ksf: byte 0"), "{e}");
    assert!(book.probe(&Chess::default()).unwrap().is_some());
}

#[test]
fn open_from_any_member_and_missing_book() {
    let dir = tempfile::tempdir().unwrap();
    let files = small_book(with_games());
    let paths = BookPaths::from_any(dir.path().join("Small"));
    files.save(&paths, false).unwrap();
    for p in [
        paths.kob(0),
        paths.kin(),
        paths.ksf(),
        paths.base().to_path_buf(),
    ] {
        let b = Book::open(&p).unwrap();
        assert_eq!(b.kin_status(), &KinStatus::Valid);
    }
    // Refuses to overwrite; with overwrite, removes .kob files the new book no longer has.
    assert!(files.save(&paths, false).is_err());
    std::fs::write(paths.kob(1), vec![0u8; BLOCK_SIZE]).unwrap();
    files.save(&paths, true).unwrap();
    assert!(!paths.kob(1).exists());
    let e = Book::open(dir.path().join("nothing")).unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }));
}

fn arb_element() -> impl Strategy<Value = Element> {
    (
        any::<[u8; KEY_LEN]>(),
        any::<u64>(),
        0u64..1000,
        any::<u32>(),
        proptest::collection::vec(any::<u8>(), 0..40),
        proptest::option::of((any::<u16>(), any::<u32>())),
        proptest::option::of(".{0,320}"),
        proptest::option::of(proptest::collection::vec(
            (any::<u16>(), any::<u32>()),
            0..150,
        )),
    )
        .prop_map(
            |(key, wins, draws, losses, moves, source, comment, links)| Element {
                key,
                wins,
                draws,
                losses: u64::from(losses),
                moves,
                source: source.map(|(source, game)| SourceRef { source, game }),
                comment,
                links: links.map(|l| {
                    l.into_iter()
                        .map(|(source, game)| SourceRef { source, game })
                        .collect()
                }),
                unknown_flags: 0,
                extra: vec![],
            },
        )
}

proptest! {
    #[test]
    fn element_encode_decode(mut e in arb_element(), games in any::<bool>()) {
        e.fit(games);
        prop_assert!(e.encoded_len(games) <= MAX_ELEMENT_SIZE);
        let bytes = e.to_bytes(games);
        prop_assert_eq!(bytes.len(), e.encoded_len(games));
        let (back, n) = Element::parse(&bytes, 0, games).unwrap();
        prop_assert_eq!(n, bytes.len());
        if games {
            prop_assert_eq!(back, e);
        } else {
            prop_assert_eq!(back.comment, e.comment);
            prop_assert_eq!(back.moves, e.moves);
            prop_assert_eq!(back.source, None);
        }
    }

    #[test]
    fn compact_ints_in_sequence(values in proptest::collection::vec(any::<u64>(), 0..20)) {
        let mut out = Vec::new();
        for &v in &values {
            write_compact(&mut out, v);
        }
        let mut at = 0;
        for &v in &values {
            let (got, n) = kvetka_book::codec::read_compact(&out[at..], at as u64).unwrap();
            prop_assert_eq!(got, v);
            at += n;
        }
        prop_assert_eq!(at, out.len());
    }
}
