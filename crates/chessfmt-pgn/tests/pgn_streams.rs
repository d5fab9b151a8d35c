//! A stream (a compressed file, standard input) is replayed in windows of whole games that are
//! tokenised in parallel: the games, their numbers, offsets, lengths, headers and moves (cut
//! at a ply limit), and the skipped games with their reasons are exactly what one
//! `PgnReader` gives reading it game by game, whatever the window and the threads — on
//! crafted text, the corpus, text no window can be cut in, and damaged compressed streams.

#![cfg(feature = "parallel")]

use std::ops::ControlFlow;

use chessfmt_pgn::{
    PgnInput, PgnReader, SkipStats,
    fuzzing::{read_whole, same_games_streamed},
    replay_in_order,
};

/// `check` on pools of 1, 2 and 3 threads (windows are four pieces a thread).
fn on_pools(check: impl Fn() + Sync) {
    for threads in [1, 2, 3] {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(&check);
    }
}

fn crafted() -> String {
    chessfmt_pgn::fuzzing::varied_pgn(400)
}

#[test]
fn crafted_text_reads_as_one_reader_reads_it() {
    let text = crafted();
    on_pools(|| {
        same_games_streamed(
            text.as_bytes(),
            &[0, 2, 5, usize::MAX],
            &[1, 100, 1000, 1 << 19],
        );
    });
    // The endings of the ply-limit tests: a game cut in mid-line, in a comment, results only
    // in the marker.
    for ending in [
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0",
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb",
        "[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 Nc6 { cut off here",
        "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Event \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 { unterminated\n\n[Event \"c\"]\n\n1. d4 *\n",
    ] {
        let text = format!(
            "{}{ending}",
            crafted().rsplit_once("[Event \"cut\"]").unwrap().0
        );
        same_games_streamed(text.as_bytes(), &[1, usize::MAX], &[64, 4096]);
    }
}

#[test]
fn corpus_reads_as_one_reader_reads_it() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/polyglot/pgn"
    );
    if !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir() {
        eprintln!("skipping: ../shared is absent");
        return;
    }
    let mut files = 0;
    for name in [
        "gnuchess-book_1.02-first10000.pgn",
        "lichess-2017-09-sample1000.pgn",
    ] {
        let data = std::fs::read(format!("{dir}/{name}")).expect("a corpus PGN");
        on_pools(|| same_games_streamed(&data, &[20, usize::MAX], &[1 << 14, 1 << 19]));
        files += 1;
    }
    for entry in std::fs::read_dir(format!("{dir}/python-chess-edgecases")).expect("edge cases") {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        same_games_streamed(&data, &[0, 5, usize::MAX], &[1, 64, 1 << 19]);
        files += 1;
    }
    assert!(files > 3, "{files} files");
}

/// Text where no window can be cut (no "[Event" line; a game of a megabyte of comments) is
/// read on past the windows by one reader, its games numbered on.
#[test]
fn text_without_a_place_to_cut_reads_on() {
    let plain = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n".repeat(3000);
    let mut huge = String::new();
    for i in 0..300 {
        huge += &format!("[Event \"g{i}\"]\n\n1. e4 e5 *\n\n");
        if i == 150 {
            huge += &format!(
                "[Event \"big\"]\n[Result \"1-0\"]\n\n1. e4 {{ {} }} e5 1-0\n\n",
                "a comment\n\n[Event \"x\"]\n".repeat(50_000)
            );
        }
    }
    huge += "[Event \"last\"]\n\n1. d4 d5 2.";
    for text in [plain, huge] {
        // Windows of 4 pieces a thread, the limit two windows: pieces of 1 KiB find no place
        // to cut in the big game (or anywhere in the plain text), so one reader reads on;
        // 1 MiB pieces take the text in one window.
        on_pools(|| same_games_streamed(text.as_bytes(), &[1, usize::MAX], &[1 << 10, 1 << 20]));
    }
}

/// A window cut inside a comment longer than the 64 KiB a cut looks back (it holds empty
/// lines and "[Event" lines): its last piece is read again with the next window.
#[test]
fn a_window_cut_inside_a_long_comment_reads_on_with_the_next() {
    let mut text = String::new();
    for i in 0..40 {
        text += &format!("[Event \"g{i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n");
        if i % 10 == 3 {
            text += &format!(
                "[Event \"long {i}\"]\n[Result \"0-1\"]\n\n1. d4 {{ {} }} d5 0-1\n\n",
                "words\n\n[Event \"inside\"]\n".repeat(5_000)
            );
        }
    }
    // Windows of 64 KiB and more (at most twice that): cut inside the 120 KiB comments.
    on_pools(|| same_games_streamed(text.as_bytes(), &[2, usize::MAX], &[1 << 14, 1 << 15]));
}

/// A reader that has already read games is replayed on from where it is, numbering on.
#[test]
fn a_reader_that_has_read_goes_on() {
    let text = crafted();
    let (whole, whole_skipped, _) = read_whole(text.as_bytes(), usize::MAX);
    let mut reader = PgnReader::new(text.as_bytes());
    let first = reader.next_batch(10).unwrap();
    assert_eq!(first.len(), 10);
    let (games, skipped) = replayed(PgnInput::Reader(reader));
    let want: Vec<_> = whole[10..].iter().map(|g| (g.0, g.1, g.2)).collect();
    assert_eq!(games, want);
    assert_eq!(skipped.by_kind, whole_skipped.0);
}

/// The games (number, offset, length) and skipped games of a replay of `input`.
fn replayed<R: std::io::Read + Send>(input: PgnInput<'_, R>) -> (Vec<(u64, u64, u64)>, SkipStats) {
    let mut games = Vec::new();
    let skipped = replay_in_order(
        input,
        7,
        |g| (g.index, g.offset, g.length),
        |batch| {
            games.extend(batch);
            ControlFlow::Continue(())
        },
        |_| {},
    )
    .unwrap();
    (games, skipped)
}

/// A compressed stream cut short or damaged ends the input as for one reader: every game
/// before the damage, and one "truncated input" saying the stream is damaged, at the game it
/// cut off or after the last.
#[cfg(all(feature = "gzip", feature = "zstd", feature = "xz"))]
#[test]
fn a_damaged_compressed_stream_ends_as_for_one_reader() {
    let text: String = chessfmt_pgn::fuzzing::noise(3000)
        .iter()
        .enumerate()
        .map(|(i, noise)| {
            format!(
                "[Event \"game {i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 {{{noise}}} Nc6 1-0\n\n"
            )
        })
        .collect();
    let first: String = text.split_inclusive("1-0\n\n").take(1000).collect();
    for kind in ["gz", "zst", "xz"] {
        let compressed = chessfmt_pgn::fuzzing::compressed;
        let whole = compressed(kind, text.as_bytes());
        // Cut inside the text, and after a whole first frame (the second one's first bytes).
        let mut two = compressed(kind, first.as_bytes());
        two.extend_from_slice(&compressed(kind, b"[Event \"more\"]\n\n1. e4 *\n\n")[..12]);
        for bytes in [whole[..whole.len() * 9 / 10].to_vec(), two] {
            let open = || {
                PgnReader::new(
                    chessfmt_pgn::decompressed(std::io::Cursor::new(bytes.clone())).unwrap(),
                )
            };
            let mut one = open();
            let mut want = Vec::new();
            while let Some(g) = one.next_raw().unwrap() {
                want.push((g.index, g.offset, g.length));
            }
            let want_skipped = one.skipped().clone();
            assert_eq!(want_skipped.total(), 1, "{kind}");
            assert!(matches!(
                want_skipped.examples[0].reason,
                chessfmt_pgn::SkipReason::DamagedStream(_)
            ));
            for piece in [100, 1 << 12, 1 << 19] {
                let (games, skipped) = replayed(PgnInput::Reader(open()).with_piece_size(piece));
                assert_eq!(games, want, "{kind}, pieces of {piece}");
                assert_eq!(skipped, want_skipped, "{kind}, pieces of {piece}");
            }
        }
    }
}
