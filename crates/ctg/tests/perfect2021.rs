//! Perfect2021 (a real 8.4 MB ChessBase book; read from ../shared/corpus, never copied).

mod common;

use std::collections::BTreeMap;

use common::corpus;
use ctg::{Book, FileBook, Recommendation, read::decode_record, write};
use shakmaty::{CastlingMode, Chess, Position};

fn open() -> Option<FileBook> {
    Some(Book::open(corpus("perfect2021/Perfect2021.ctg")?).unwrap())
}

#[test]
fn counts_and_every_record_found_again() {
    let Some(book) = open() else { return };
    assert_eq!(book.header().pages, 2061);
    assert_eq!(book.header().games, 72_827);
    let records: Vec<_> = book.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(records.len(), 104_224);
    let mut codes: BTreeMap<u8, u64> = BTreeMap::new();
    for r in &records {
        assert_eq!(book.find(r.raw.position).unwrap().offset, r.offset);
        let d = decode_record(&r.raw).unwrap();
        assert!(d.undecodable.is_empty());
        for (_, code, _) in d.moves {
            *codes.entry(code).or_default() += 1;
        }
    }
    // Per-code usage equals the table of vectors/move-codes.csv (every move decodes legally).
    let rows = common::csv(&corpus("vectors/move-codes.csv").unwrap());
    for row in rows {
        let code = u8::from_str_radix(row[0].trim_start_matches("0x"), 16).unwrap();
        let uses: u64 = row[5].parse().unwrap();
        assert_eq!(
            codes.get(&code).copied().unwrap_or(0),
            uses,
            "code {code:#04x}"
        );
    }
    // The root record agrees with the header on games.
    assert_eq!(
        book.probe(&Chess::default()).unwrap().unwrap().stats.games,
        72_827
    );
}

#[test]
fn walk_from_the_start_position() {
    let Some(book) = open() else { return };
    let mut walk = book.walk(Chess::default(), None);
    let mut nodes = 0;
    for node in walk.by_ref() {
        nodes += 1;
        for m in &node.probe.moves {
            assert!(node.position.is_legal(m.mv));
        }
    }
    let s = walk.stats();
    assert_eq!(nodes, 162_215);
    assert_eq!(s.reached, 162_215);
    assert_eq!(s.moves, 174_719);
    assert_eq!(s.undecodable, 0);
}

#[test]
fn root_probe_moves_annotations_and_colours() {
    let Some(book) = open() else { return };
    let probe = book.probe(&Chess::default()).unwrap().unwrap();
    let find = |uci: &str| {
        probe
            .moves
            .iter()
            .find(|m| m.mv.to_uci(CastlingMode::Standard).to_string() == uci)
            .unwrap_or_else(|| panic!("{uci} missing"))
    };
    assert_eq!(find("d2d4").nag(), 1); // !
    assert_eq!(find("e2e4").nag(), 3); // !!
    for uci in ["d2d4", "e2e4", "g1f3", "c2c4"] {
        assert_eq!(find(uci).recommendation(), Recommendation::Green, "{uci}");
    }
    // 1.e4: White's results. Its child record (Black to move, stored colour-flipped) holds
    // Black's wins first: the mover's wins are the child's losses.
    let e4 = find("e2e4");
    let child = e4.child.unwrap();
    let r = e4.results();
    assert_eq!(
        (r.games, r.wins, r.draws, r.losses),
        (32_765, 5_679, 24_152, 2_207)
    );
    assert_eq!((child.wins, child.losses), (2_207, 5_679));
    assert_eq!(probe.stats.wins, 12_048); // White's wins at the root
}

#[test]
fn black_to_move_stats_are_the_movers() {
    // Regression: readers reading the child's first result field as the mover's wins, or using
    // White's results for Black's moves.
    let Some(book) = open() else { return };
    let mut pos = Chess::default();
    pos.play_unchecked(
        shakmaty::uci::UciMove::from_ascii(b"d2d4")
            .unwrap()
            .to_move(&pos)
            .unwrap(),
    );
    let probe = book.probe(&pos).unwrap().unwrap();
    let d5 = probe
        .moves
        .iter()
        .find(|m| m.mv.to_uci(CastlingMode::Standard).to_string() == "d7d5")
        .unwrap();
    // After 1.d4 d5 (White to move) the stored record is not flipped: its wins are White's.
    let mut after = pos.clone();
    after.play_unchecked(d5.mv);
    let stored = book.find_position(&after).unwrap().raw.stats();
    let r = d5.results();
    assert_eq!(r.wins, stored.losses, "Black's wins = White's losses");
    assert_eq!(r.losses, stored.wins);
    assert!(
        r.losses > r.wins,
        "Black scores worse than White in this book"
    );
}

#[test]
fn rewrite_gives_identical_probes() {
    let Some(book) = open() else { return };
    let records: Vec<_> = book
        .records()
        .map(|r| write::RecordData::from_raw(&r.unwrap().raw))
        .collect();
    let [ctg, cto, ctb] = write::to_bytes(&records, book.header().games).unwrap();
    let again = Book::new(ctg, cto, &ctb).unwrap();
    assert_eq!(again.records().count(), 104_224);
    // Same bounds as ChessBase's, one page fewer (ChessBase split one node whose final
    // payload fits a page, an artefact of its incremental build).
    assert_eq!(again.bounds(), book.bounds());
    assert_eq!(again.header().pages, 2060);
    for node in book.walk(Chess::default(), None) {
        assert_eq!(again.probe(&node.position).unwrap(), Some(node.probe));
    }
    for r in book.records() {
        let r = r.unwrap();
        assert_eq!(again.find(r.raw.position).unwrap().raw, r.raw);
    }
}

#[test]
fn to_polyglot_main_moves() {
    let Some(book) = open() else { return };
    let (entries, stats) = ctg::convert::to_polyglot(
        &book,
        Chess::default(),
        None,
        ctg::policy::Policy::Score {
            exclude_red: true,
            prefer_green: false,
        },
    );
    assert_eq!(stats.positions, 162_215);
    let pg = polyglot_book::Book::new(
        entries
            .iter()
            .flat_map(|e| e.to_bytes())
            .collect::<Vec<u8>>(),
        polyglot_book::OpenMode::Strict,
    )
    .unwrap();
    let root = pg.probe(&Chess::default()).unwrap().unwrap().moves;
    // Most-scoring move first. Its weight is its score (2·wins + draws of White) as the book
    // stores it: it fits 16 bits, so the family's scaling rule keeps it (it used to be scaled
    // up to 65535).
    assert_eq!(
        root[0].mv.to_uci(CastlingMode::Standard).to_string(),
        "e2e4"
    );
    let probe = book.probe(&Chess::default()).unwrap().unwrap();
    let e4 = probe.moves.iter().find(|m| m.mv == root[0].mv).unwrap();
    let score = chess_core::book::WeightPolicy::Score.weight(e4.wdl());
    assert_eq!((u64::from(root[0].weight), score), (35_510, 35_510));
}

/// A real ChessBase book through the statistics table (`to_tally`, then `from_tally`): every
/// record the walk reaches comes back with its statistics, the order of its moves, their
/// annotations, its colour and comment — but for what is counted: the start's own record
/// (its games are one fewer than its moves' and it is green), and the 2,446 records whose
/// points give nothing for a game without result (a book made from a table gives 5). The
/// 255 records no walk reaches are counted too.
#[cfg(feature = "tally")]
#[test]
fn through_the_statistics_table() {
    let Some(book) = open() else { return };
    let (rows, stats) = ctg::tally::to_tally(&book);
    assert_eq!(
        (
            stats.unreached_records,
            stats.start_not_kept,
            stats.records_changed,
            stats.annotations
        ),
        (255, true, 2446, 46_117)
    );
    // As a PGN tree: the book's order (1. d4 first, as the book has it, though 1. e4 has
    // more games) and its annotations as NAGs.
    let mut pgn = Vec::new();
    let options = chessfmt_tally::tree::TreeOptions::default().with_max_ply(1);
    chessfmt_tally::tree::write_tree(rows.iter().cloned().map(Ok), options, &mut pgn).unwrap();
    let pgn = String::from_utf8(pgn).unwrap();
    assert!(pgn.contains("\n\n1. d4 $1 {"), "{pgn}");
    assert!(pgn.contains("(1. e4 $3"), "{pgn}");
    let (made, _) = ctg::tally::from_tally(rows.into_iter().map(Ok)).unwrap();
    assert_eq!(made.len(), 104_224 - 255);
    let start = ctg::position::key_of(&Chess::default()).unwrap();
    let mut points_only = 0;
    for m in &made {
        let own = book.find(&m.position).unwrap();
        let own = write::RecordData::from_raw(&own.raw);
        if m.position == start.as_bytes() {
            assert_eq!(m.moves, own.moves);
            assert_eq!((m.stats.games, own.stats.games), (72_828, 72_827));
            continue;
        }
        assert_eq!(m.moves, own.moves, "moves and annotations");
        let mut s = m.stats;
        s.points = own.stats.points;
        assert_eq!(s, own.stats);
        points_only += u64::from(m.stats.points != own.stats.points);
    }
    assert_eq!(points_only, 2446);
}
