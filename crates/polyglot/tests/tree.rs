//! `dump` and `info` against the reference tool's text (`polyglot dump-book` / `info-book`
//! 2.0.4), on books in testdata/ (always run) — the corpus books are compared in golden.rs.

use polyglot_book::{
    Book, Entry, OpenMode,
    moves::encode_move,
    ops::tree::{LineEnd, REFERENCE_BANNER, TextDump, dump, info},
    write::sort_entries,
};
use shakmaty::{Chess, Color, Position, uci::UciMove};

fn testdata(p: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/polyglot")
        .join(p)
}

fn dump_text(book: &Book<Vec<u8>>, name: &str, color: Color) -> String {
    let mut sink = TextDump::new(Vec::new(), name, color).unwrap();
    dump(book, color, &mut sink).unwrap();
    String::from_utf8(sink.into_inner()).unwrap()
}

/// A book from (moves from the start, move, weight) rows.
fn book(rows: &[(&[&str], &str, u16)]) -> Book<Vec<u8>> {
    let mut entries: Vec<Entry> = rows
        .iter()
        .map(|(line, mv, weight)| {
            let mut pos = Chess::default();
            for m in *line {
                let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
            }
            let m = mv.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            Entry {
                key: chess_core::polyglot_key(&pos),
                raw_move: encode_move(m),
                weight: *weight,
                learn: 0,
            }
        })
        .collect();
    sort_entries(&mut entries);
    let bytes = entries.iter().flat_map(|e| e.to_bytes()).collect();
    Book::new(bytes, OpenMode::Strict).unwrap()
}

#[test]
fn small_book_dumps_equal_the_reference() {
    // small-dump-*.txt and small-info.txt: `polyglot dump-book -bin small.bin -color …` and
    // `polyglot info-book -bin small.bin`, run in testdata/polyglot.
    let bytes = std::fs::read(testdata("small.bin")).unwrap();
    let book = Book::new(bytes, OpenMode::Strict).unwrap();
    for (color, file) in [
        (Color::White, "small-dump-white.txt"),
        (Color::Black, "small-dump-black.txt"),
    ] {
        let expected = std::fs::read_to_string(testdata(file)).unwrap();
        let got = dump_text(&book, "small.bin", color);
        assert!(got == expected, "{file} differs");
    }
    let expected = std::fs::read_to_string(testdata("small-info.txt")).unwrap();
    let i = info(&book);
    assert_eq!(
        format!("{REFERENCE_BANNER}\n{}", i.reference_text()),
        expected
    );
    assert_eq!((i.lines_white, i.lines_black), (1218, 1370));
    assert_eq!(i.positions, 1078 + 1279 + 27);
}

#[test]
fn a_repetition_ends_the_line_with_a_cycle() {
    let b = book(&[
        (&[], "g1f3", 7),
        (&["g1f3"], "g8f6", 7),
        (&["g1f3", "g8f6"], "f3g1", 7),
        (&["g1f3", "g8f6", "f3g1"], "f6g8", 7),
    ]);
    // Both texts as `polyglot dump-book` prints them for this book.
    assert_eq!(
        dump_text(&b, "cycle.bin", Color::White),
        "Dump of \"cycle.bin\" for white.\n1: 1. Nf3{100%} Nf6 2. Ng1{100%} Ng8 {cycle: ply=0}\n"
    );
    assert_eq!(
        dump_text(&b, "cycle.bin", Color::Black),
        "Dump of \"cycle.bin\" for black.\n1: 1. Nf3 Nf6{100%} 2. Ng1 Ng8{100%} {cycle: ply=0}\n"
    );
    let i = info(&b);
    assert_eq!(
        (
            i.lines_white,
            i.lines_black,
            i.positions_white,
            i.positions_black,
            i.isolated_positions
        ),
        (1, 1, 2, 2, 0)
    );
}

#[test]
fn shares_round_half_to_even_and_zero_weights_are_skipped() {
    // As the reference prints them: 1/8 = 12.5% -> "12%", 7/8 = 87.5% -> "88%"; Nc3 (weight 0)
    // is not a book move. Books are sorted by weight, so d4 comes first.
    let b = book(&[(&[], "e2e4", 1), (&[], "d2d4", 7), (&[], "b1c3", 0)]);
    assert_eq!(
        dump_text(&b, "round.bin", Color::White),
        "Dump of \"round.bin\" for white.\n1: 1. d4{88%} \n2: 1. e4{12%} \n"
    );
}

#[test]
fn transpositions_name_the_first_line() {
    // 1. e4 e5 2. Nf3 and 1. Nf3 e5 2. e4 reach the same position; the second is cut short.
    // (…Nc6 is a Black entry: White's walk ends the first line after 2. Nf3.)
    let b = book(&[
        (&[], "e2e4", 1),
        (&[], "g1f3", 1),
        (&["e2e4", "e7e5"], "g1f3", 1),
        (&["g1f3", "e7e5"], "e2e4", 1),
        (&["e2e4", "e7e5", "g1f3"], "b8c6", 1),
    ]);
    struct Ends(Vec<(u64, usize, LineEnd)>);
    impl polyglot_book::ops::tree::DumpSink for Ends {
        fn line(
            &mut self,
            n: u64,
            moves: &[polyglot_book::ops::tree::LineMove],
            end: LineEnd,
        ) -> std::io::Result<()> {
            self.0.push((n, moves.len(), end));
            Ok(())
        }
    }
    let mut ends = Ends(Vec::new());
    let stats = dump(&b, Color::White, &mut ends).unwrap();
    assert_eq!(
        ends.0,
        [
            (1, 3, LineEnd::Leaf),
            (2, 3, LineEnd::Trans { line: 1, ply: 3 }),
        ]
    );
    assert_eq!(stats.lines, 2);
}

#[test]
fn hostile_books_do_not_panic() {
    // Entries of the start position with null, malformed and illegal moves, unsorted keys.
    let start = chess_core::polyglot_key(&Chess::default());
    let mut bytes = Vec::new();
    for (key, mv, w) in [
        (start, 0u16, 5u16),
        (start, 0xffff, 5),
        (start, 0x0107, 5),
        (1, 0x031c, 1),
        (start, 0x031c, 0),
    ] {
        bytes.extend(
            Entry {
                key,
                raw_move: mv,
                weight: w,
                learn: 0,
            }
            .to_bytes(),
        );
    }
    let b = Book::new(bytes, OpenMode::Lenient).unwrap();
    assert!(!b.is_sorted());
    let i = info(&b);
    assert_eq!((i.lines_white, i.positions_white), (0, 1));
    assert_eq!(
        dump_text(&b, "x", Color::Black),
        "Dump of \"x\" for black.\n"
    );
}
