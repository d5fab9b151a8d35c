//! PGN input on python-chess's edge cases (../shared/corpus/polyglot/pgn/python-chess-edgecases/)
//! and on small inline inputs. Corpus tests skip, saying so, when the corpus is absent.

use std::path::PathBuf;

use chessfmt_pgn::{GameResult, PgnReader, SkipReason};
use shakmaty::{CastlingMode, Position};

fn corpus(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot/pgn/python-chess-edgecases")
        .join(name);
    if p.exists() {
        Some(p)
    } else {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!(
            "skipping: {} not found (../shared/corpus absent)",
            p.display()
        );
        None
    }
}

/// (file, games, skipped, plies of the first game (0: not checked), result of the first game).
/// anastasian-lewis has a null move (`--`) at ply 81, which ends the usable main line.
const EXPECTED: &[(&str, u64, u64, usize, GameResult)] = &[
    ("anastasian-lewis.pgn", 1, 0, 81, GameResult::WhiteWins),
    (
        "kasparov-deep-blue-1997.pgn",
        6,
        0,
        89,
        GameResult::WhiteWins,
    ),
    ("molinari-bordais-1979.pgn", 1, 0, 10, GameResult::BlackWins),
    ("nepomniachtchi-liren-game1.pgn", 1, 0, 97, GameResult::Draw),
    ("stockfish-learning.pgn", 1, 0, 154, GameResult::WhiteWins),
    ("uci-moves.pgn", 1, 0, 113, GameResult::Draw),
    ("utf8-bom.pgn", 2, 0, 0, GameResult::Unknown),
    (
        "cutechess-fischerrandom.pgn",
        4,
        0,
        120,
        GameResult::BlackWins,
    ),
    ("chessbase-empty-line.pgn", 1, 0, 134, GameResult::BlackWins),
];

#[test]
fn python_chess_edge_cases() {
    for &(name, games, skipped, plies, result) in EXPECTED {
        let Some(path) = corpus(name) else { return };
        let mut it = PgnReader::open(&path).unwrap().games();
        let all: Vec<_> = it.by_ref().map(Result::unwrap).collect();
        eprintln!(
            "{name}: {} games, {} skipped, first: {} plies {:?} {:?}",
            all.len(),
            it.skipped().total(),
            all.first().map_or(0, |g| g.moves.len()),
            all.first().map(|g| g.result),
            it.skipped().examples
        );
        assert_eq!(all.len() as u64, games, "{name}");
        assert_eq!(it.skipped().total(), skipped, "{name}");
        if plies > 0 {
            assert_eq!(all[0].moves.len(), plies, "{name}");
        }
        assert_eq!(all[0].result, result, "{name}");
    }
}

#[test]
fn chess960_start_from_fen() {
    let Some(path) = corpus("cutechess-fischerrandom.pgn") else {
        return;
    };
    let game = PgnReader::open(&path)
        .unwrap()
        .games()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(game.castling_mode, CastlingMode::Chess960);
    assert_eq!(game.header("Variant"), Some("fischerandom"));
    // The game castles (9... O-O) and ends legally.
    assert!(game.moves.iter().any(|m| m.is_castle()));
}

#[test]
fn byte_spans_cover_the_games() {
    let text = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
    let mut r = PgnReader::new(text.as_bytes());
    let a = r.next_raw().unwrap().unwrap();
    let b = r.next_raw().unwrap().unwrap();
    assert!(r.next_raw().unwrap().is_none());
    assert_eq!(
        (a.offset, b.offset),
        (0, text.find("[Event \"b\"]").unwrap() as u64)
    );
    assert_eq!(a.offset + a.length, b.offset);
    assert_eq!(b.offset + b.length, text.len() as u64);
    assert_eq!(a.result(), GameResult::WhiteWins);
    assert_eq!(b.result(), GameResult::Unknown);
}

#[test]
fn bad_games_are_counted_and_skipped() {
    let text = "[FEN \"not a fen\"]\n\n1. e4 *\n\n\
                [Variant \"Atomic\"]\n\n1. e4 *\n\n\
                1. e4 e5 2. Ke3 *\n\n\
                [FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 Kd7 1/2-1/2\n";
    let mut it = PgnReader::new(text.as_bytes()).games();
    let good: Vec<_> = it.by_ref().map(Result::unwrap).collect();
    assert_eq!(good.len(), 1);
    assert_eq!(good[0].index, 3);
    assert_eq!(good[0].start.board().occupied().count(), 3);
    assert_eq!(good[0].result, GameResult::Draw);
    let s = it.skipped();
    assert_eq!(s.total(), 3);
    assert_eq!(s.by_kind.get("invalid FEN"), Some(&1));
    assert_eq!(s.by_kind.get("unsupported variant"), Some(&1));
    assert_eq!(s.by_kind.get("illegal move"), Some(&1));
    assert!(matches!(
        &s.examples[2].reason,
        SkipReason::IllegalMove { ply: 2, san } if san == "Ke3"
    ));
    assert_eq!(
        s.examples[2].to_string(),
        format!(
            "game 3 (byte {}): illegal move Ke3 at ply 2",
            text.find("1. e4 e5 2. Ke3").unwrap()
        )
    );
}

#[test]
fn compressed_inputs_give_the_same_games() {
    use std::io::Write;
    let text = b"[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let dir = std::env::temp_dir().join(format!("chess-core-pgn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gz = dir.join("g.pgn.gz");
    let mut e =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    e.write_all(text).unwrap();
    e.finish().unwrap();
    let zst = dir.join("g.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    let xz = dir.join("g.pgn.xz");
    let mut e = xz2::write::XzEncoder::new(std::fs::File::create(&xz).unwrap(), 6);
    e.write_all(text).unwrap();
    e.finish().unwrap();
    for p in [&gz, &zst, &xz] {
        let games: Vec<_> = PgnReader::open(p)
            .unwrap()
            .games()
            .map(Result::unwrap)
            .collect();
        assert_eq!(games.len(), 1, "{}", p.display());
        assert_eq!(games[0].moves.len(), 4);
        assert_eq!(games[0].result, GameResult::BlackWins);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
