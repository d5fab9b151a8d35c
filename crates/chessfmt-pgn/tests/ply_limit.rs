//! A ply limit ([`PgnBytes::with_ply_limit`]) reads fewer moves and nothing else differs:
//! the same games, offsets, lengths, headers, results and skipped games as a whole reading,
//! on crafted endings and on the corpus, in pieces of every size.

use chessfmt_pgn::{PgnBytes, fuzzing::same_games_with_ply_limit};

/// Endings where the termination marker or the end of the input decides: a last game
/// without a final newline, one cut in mid-line, one cut in a comment, results given only
/// by the marker, a comment holding what looks like the next game.
const ENDINGS: &[&str] = &[
    "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0",
    "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n",
    "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb",
    "[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 Nc6 { cut off here",
    "[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n",
    "\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 0-1\n",
    "[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n",
    "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 0-1\n\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n",
    "[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 { a comment\n\n[Event \"not a game\"]\n\n} Nc6 3. Bb5 1/2-1/2\n\n[Event \"next\"]\n[Result \"1-0\"]\n\n1. d4 d5 2. c4 1-0",
    "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 (2... d6 3. d4) 3. Bb5 a6 1-0\n\n[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 ; a line comment\nNf6 0-1\n\n[Event \"c\"]\n[Result \"1-0\"]\n\n1. e4 c5 2. Nf3",
    "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 1-0\n\n[Event \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 { unterminated",
];

#[test]
fn crafted_endings_read_alike() {
    for text in ENDINGS {
        same_games_with_ply_limit(
            text.as_bytes(),
            &[0, 1, 2, 3, 4, 6, 100],
            &[1, 7, 40, 1 << 19],
        );
    }
}

/// The corpus's PGN (real games, python-chess's edge cases), in pieces as a parallel
/// reading cuts them.
#[test]
fn corpus_reads_alike() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/polyglot/pgn"
    );
    if !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir() {
        return;
    }
    let mut files = 0;
    for name in [
        "gnuchess-book_1.02-first10000.pgn",
        "lichess-2017-09-sample1000.pgn",
    ] {
        let data = std::fs::read(format!("{dir}/{name}")).expect("a corpus PGN");
        same_games_with_ply_limit(&data, &[0, 20, 40], &[1 << 16, 1 << 19]);
        files += 1;
    }
    let edge = format!("{dir}/python-chess-edgecases");
    for entry in std::fs::read_dir(&edge).expect("python-chess's edge cases") {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        same_games_with_ply_limit(&data, &[0, 1, 5, 20], &[64, 1 << 19]);
        files += 1;
    }
    assert!(files > 3, "{files} files");
}

/// The limit reads fewer moves: a game of 8 plies read to 3 keeps 3 of them; a game whose
/// result only its termination marker gives is read whole, and so is the input's last game
/// (was it cut off?).
#[test]
fn fewer_moves_are_read() {
    let text = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 1-0\n\n\
                [Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 1-0\n\n\
                [Result \"0-1\"]\n\n1. d4 d5 2. c4 e6 0-1\n";
    let bytes = PgnBytes::new(text.as_bytes()).with_ply_limit(3);
    let mut games = Vec::new();
    for range in bytes.pieces() {
        games.extend(chessfmt_pgn::fuzzing::tokenise(&bytes, range).0);
    }
    let plies: Vec<usize> = games.iter().map(|g| g.sans.len()).collect();
    assert_eq!(plies, [3, 8, 4]);
    assert!(games[0].outcome.is_none() && games[1].outcome.is_some());
}
