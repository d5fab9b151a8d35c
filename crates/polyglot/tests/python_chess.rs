//! Probing the real books gives python-chess's answers: testdata/polyglot/python-chess-expectations.tsv
//! holds `find_all(board, minimum_weight=0)` for the positions python-chess's own tests use
//! (castling in performance.bin, the e1a1 rook move, the f2g1n under-promotion in
//! lasker-trap.bin) and a breadth-first sample of each book. Skips when the corpus is absent.

use std::path::PathBuf;

use polyglot_book::{Book, OpenMode};
use shakmaty::{CastlingMode, Chess, fen::Fen, uci::UciMove};

#[test]
fn probes_match_python_chess() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let books = root.join("../shared/corpus/polyglot/books");
    if !books.is_dir() {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!("skipping: ../shared/corpus/polyglot/books not found");
        return;
    }
    let tsv = std::fs::read_to_string(root.join("testdata/polyglot/python-chess-expectations.tsv"))
        .unwrap();
    let mut rows = 0;
    let mut open: Option<(String, polyglot_book::FileBook)> = None;
    for line in tsv.lines().skip(1) {
        let mut cols = line.split('\t');
        let (name, fen, expected) = (
            cols.next().unwrap(),
            cols.next().unwrap(),
            cols.next().unwrap_or(""),
        );
        if open.as_ref().is_none_or(|(n, _)| n != name) {
            open = Some((
                name.to_owned(),
                Book::open(books.join(name), OpenMode::Lenient).unwrap(),
            ));
        }
        let book = &open.as_ref().unwrap().1;
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let got: Vec<String> = book
            .moves(&pos)
            .iter()
            .map(|m| {
                format!(
                    "{}:{}:{}:{}",
                    UciMove::from_standard(m.mv),
                    m.weight,
                    m.learn,
                    m.entry.raw_move
                )
            })
            .collect();
        assert_eq!(got.join(" "), expected, "{name} {fen}");
        rows += 1;
    }
    assert!(rows > 500, "{rows}");
}

#[test]
fn e1a1_is_a_rook_move_and_lasker_trap_underpromotes() {
    let books =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/polyglot/books");
    if !books.is_dir() {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!("skipping: ../shared/corpus/polyglot/books not found");
        return;
    }
    let pos = |fen: &str| -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    };
    let perf = Book::open(books.join("python-chess-performance.bin"), OpenMode::Strict).unwrap();
    let m = perf.moves(&pos(
        "1r1qr1k1/1b2bp1n/p2p2pB/1pnPp2p/P1p1P3/R1P2NNP/1PBQ1PP1/4R1K1 w - - 0 1",
    ));
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].mv.role(), shakmaty::Role::Rook);
    assert!(!m[0].mv.is_castle());
    let lasker = Book::open(books.join("python-chess-lasker-trap.bin"), OpenMode::Strict).unwrap();
    let m = lasker.moves(&pos(
        "rnbqk1nr/ppp2ppp/8/4P3/1BP5/8/PP2KpPP/RN1Q1BNR b kq - 1 7",
    ));
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].entry.raw_move, 0x1346);
    assert_eq!(m[0].mv.promotion(), Some(shakmaty::Role::Knight));
    // The gnuchess small book has one stray byte: strict refuses, lenient reports it.
    let small = books.join("gnuchess-6.2.7-smallbook.bin");
    assert!(Book::open(&small, OpenMode::Strict).is_err());
    let b = Book::open(&small, OpenMode::Lenient).unwrap();
    assert_eq!((b.len(), b.trailing_bytes()), (2417, 1));
}
