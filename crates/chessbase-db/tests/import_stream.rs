//! A stream imported in windows of whole games (`DatabaseImport::add_pgn_stream`), each
//! window's pieces read in parallel, makes the database one reader makes (`add_pgn`): the
//! same files byte for byte, the same games left out with the same numbers, whatever the
//! window size and the threads, a damaged compressed stream included.

#![cfg(all(feature = "pgn", feature = "parallel"))]

use chessbase_db::{Files, TextEncoding, import::DatabaseImport};
use chessfmt_pgn::fuzzing::{Trickle, compressed};

/// The files, the messages of the games left out, the games read and failed, and whether
/// reading stopped.
type Imported = (Vec<Option<Vec<u8>>>, Vec<String>, u64, u64, bool);

fn files(f: Files) -> Vec<Option<Vec<u8>>> {
    vec![Some(f.cbh), f.cbg, f.cba, f.cbj, f.cbp, f.cbt]
}

/// One reader's import of `text` as it arrives from `source`.
fn whole(source: impl std::io::Read) -> Imported {
    let mut import = DatabaseImport::new(TextEncoding::Detect, false);
    let mut messages = Vec::new();
    let stats = import.add_pgn(source, |m| messages.push(m), || {}).unwrap();
    let (f, summary) = import.finish();
    assert_eq!(summary.games_read, stats.games);
    (
        files(f),
        messages,
        stats.games,
        stats.failed,
        stats.stopped.is_some(),
    )
}

/// The import of `source` in windows of four pieces of `piece` bytes a thread, and the games
/// counted as read.
fn windowed(source: impl std::io::Read + Send, piece: usize) -> Imported {
    let mut import = DatabaseImport::new(TextEncoding::Detect, false);
    let mut messages = Vec::new();
    let mut read = 0u64;
    let stats = import
        .add_pgn_windows(source, piece, |m| messages.push(m), || read += 1)
        .unwrap();
    let (f, summary) = import.finish();
    assert_eq!((summary.games_read, read), (stats.games, stats.games));
    (
        files(f),
        messages,
        stats.games,
        stats.failed,
        stats.stopped.is_some(),
    )
}

/// Games with comments, variations and NAGs, some illegal, one without an empty line
/// before the next, a comment holding an empty line and "[Event", and a game of 200 KB of
/// comments (no window is cut in it: one reader reads on from there).
fn text(long_game: bool) -> String {
    let mut out = String::new();
    for i in 0..600 {
        out += &match i % 5 {
            0 => format!(
                "[Event \"g{i}\"]\n[White \"A, B\"]\n[Black \"C\"]\n[Result \"1-0\"]\n\n{{before}} 1. e4 {{a comment}} e5 $1 2. Nf3 Nc6 (2... d6 3. d4) 3. Bb5 1-0\n\n"
            ),
            1 => format!("[Event \"g{i}\"]\n[Result \"0-1\"]\n\n1. e5 0-1\n\n"),
            2 => format!(
                "[Event \"g{i}\"]\n[Result \"*\"]\n\n1. d4 {{a\n\n[Event \"no\"]\n}} d5 *\n\n"
            ),
            3 => format!("[Event \"g{i}\"]\n1. Nf3 *\n[Event \"h{i}\"]\n\n1. g3 *\n\n"),
            _ => {
                format!("[Event \"g{i}\"]\n[Result \"1/2-1/2\"]\n\n1. c4 c5 2. Nc3 Nc6 1/2-1/2\n\n")
            }
        };
        if long_game && i == 300 {
            out += &format!(
                "[Event \"long\"]\n[Result \"1-0\"]\n\n1. e4 {{{}}} e5 1-0\n\n",
                "words ".repeat(35_000)
            );
        }
    }
    out
}

#[test]
fn windows_import_what_one_reader_imports() {
    for long_game in [false, true] {
        let text = text(long_game);
        let want = whole(text.as_bytes());
        assert!(
            want.2 > 600 && want.3 > 100,
            "{} read, {} failed",
            want.2,
            want.3
        );
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            // Windows of 64 bytes to 4 MiB a thread.
            for piece in [16, 1_250, 1 << 14, 1 << 20] {
                let got = pool.install(|| windowed(Trickle::new(text.as_bytes(), 7), piece));
                assert!(
                    got == want,
                    "{threads} threads, pieces of {piece}, long game {long_game}: {} games, {:?}",
                    got.2,
                    got.1.iter().zip(&want.1).find(|(a, b)| a != b)
                );
            }
        }
    }
}

/// A compressed stream cut short: the games before the damage and the game it breaks
/// reported as one reader reports them.
#[test]
fn a_damaged_stream_imports_as_for_one_reader() {
    let text = text(false);
    for kind in ["gz", "zst", "xz"] {
        let packed = compressed(kind, text.as_bytes());
        let cut = &packed[..packed.len() * 2 / 3];
        let open = || chessfmt_pgn::decompressed(std::io::Cursor::new(cut.to_vec())).unwrap();
        let want = whole(open());
        assert!(want.4, "{kind}: reading stopped");
        for piece in [1_250, 1 << 14] {
            let got = windowed(open(), piece);
            assert!(
                got == want,
                "{kind}, pieces of {piece}: {:?} vs {:?}",
                (got.2, got.3, got.4, got.1.last()),
                (want.2, want.3, want.4, want.1.last())
            );
        }
    }
}
