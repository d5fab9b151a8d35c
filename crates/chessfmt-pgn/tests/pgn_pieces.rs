//! PGN bytes in memory are cut at game boundaries and tokenised in parallel
//! (`PgnBytes`): the games, their numbers, offsets and lengths, the skipped games and their
//! reasons are exactly what one `PgnReader` gives on the same bytes, whatever the piece size.

#![cfg(feature = "parallel")]

use std::{ops::ControlFlow, path::PathBuf};

use chessfmt_pgn::Limits;
use chessfmt_pgn::{PgnBytes, PgnReader, SkipStats, replay_in_order};

type Seen = (u64, u64, u64, usize, usize, String);

fn seen(raw: &chessfmt_pgn::RawGame) -> Seen {
    (
        raw.index,
        raw.offset,
        raw.length,
        raw.headers.len(),
        raw.sans.len(),
        format!("{:?}", raw.result()),
    )
}

fn run(input: impl Into<chessfmt_pgn::PgnInput<'static, &'static [u8]>>) -> (Vec<Seen>, SkipStats) {
    let mut all = Vec::new();
    let skipped = replay_in_order(
        input,
        7,
        seen,
        |b| {
            all.extend(b);
            ControlFlow::Continue(())
        },
        |_| {},
    )
    .unwrap();
    (all, skipped)
}

fn assert_same(name: &str, text: &'static [u8], limits: Limits) {
    let (want, want_skipped) = run(PgnReader::with_limits(text, limits));
    for piece in [1, 100, 4096, 1 << 20] {
        let (got, got_skipped) = run(PgnBytes::new(text)
            .with_limits(limits)
            .with_piece_size(piece));
        assert_eq!(got, want, "{name}: piece size {piece}");
        assert_eq!(got_skipped, want_skipped, "{name}: piece size {piece}");
    }
}

fn leak(v: Vec<u8>) -> &'static [u8] {
    Box::leak(v.into_boxed_slice())
}

#[test]
fn pieces_read_as_one_stream() {
    // Games separated by empty lines, without them, with CRLF, a BOM, an illegal game, an
    // oversized one, one with a 2 KB tag line, comments holding "[Event", and a cut-off last
    // game.
    let text = chessfmt_pgn::fuzzing::varied_pgn(300);
    let text = leak(text.into_bytes());
    assert_same("synthetic", text, Limits::default());
    let mut tight = Limits::default();
    tight.pgn_plies = 3;
    tight.pgn_tags = 1;
    assert_same("synthetic, tight limits", text, tight);
}

#[test]
fn corpus_files_read_as_one_stream() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/polyglot/pgn");
    for name in [
        "gnuchess-book_1.02-first10000.pgn",
        "lichess-2017-09-sample1000.pgn",
    ] {
        let Ok(bytes) = std::fs::read(dir.join(name)) else {
            // Missing data fails while ../shared is present: a test never passes by skipping.
            assert!(
                !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"))
                    .is_dir(),
                "test data missing while ../shared is present",
            );
            eprintln!("skipping {name}: ../shared/corpus is absent");
            continue;
        };
        assert_same(name, leak(bytes), Limits::default());
    }
}

#[test]
fn released_ranges_follow_the_reading_and_cover_the_input() {
    let mut text = String::new();
    for i in 0..2000 {
        text += &format!("[Event \"g{i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n");
    }
    let text = leak(text.into_bytes());
    static RELEASED: std::sync::Mutex<Vec<std::ops::Range<usize>>> =
        std::sync::Mutex::new(Vec::new());
    fn release(r: std::ops::Range<usize>) {
        RELEASED.lock().unwrap().push(r);
    }
    let (want, _) = run(PgnReader::new(text));
    let (got, _) = run(PgnBytes::new(text)
        .with_piece_size(1000)
        .with_release(&release));
    assert_eq!(got, want, "releasing changes nothing read");
    let mut released = RELEASED.lock().unwrap().clone();
    // First what cutting the pieces read, piece by piece, then the whole input (it looks
    // behind every cut).
    let whole = released.iter().position(|r| *r == (0..text.len())).unwrap();
    let cutting: Vec<_> = released.drain(..=whole).collect();
    assert!(
        cutting.len() > 2,
        "released as the cutting goes: {cutting:?}"
    );
    assert!(
        released.len() > 1,
        "released a group at a time: {released:?}"
    );
    // Then in order, each range from the start of the group before it (a release keeps the
    // blocks a range only partly covers: the next one covers them again), the whole input in
    // the end.
    assert_eq!((released[0].start, released[1].start), (0, 0));
    for w in released.windows(2) {
        assert!(w[0].end < w[1].end, "{w:?}");
    }
    for w in released.windows(3) {
        assert_eq!(w[2].start, w[0].end, "{w:?}");
    }
    assert_eq!(released.last().unwrap().end, text.len());
    // Cutting likewise: each range from the previous piece's start.
    for w in cutting[..cutting.len() - 1].windows(3) {
        assert_eq!(w[2].start, w[0].end, "{w:?}");
    }
}

#[test]
fn runs_see_the_games_of_one_stream_in_order() {
    let mut text = String::new();
    for i in 0..1000 {
        text += &format!("[Event \"g{i}\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n\n");
        if i % 97 == 0 {
            text += "[Event \"bad\"]\n\n1. e5 *\n\n";
        }
    }
    let text = leak(text.into_bytes());
    let (want, want_skipped) = run(PgnReader::new(text));
    for (input, name) in [
        (
            chessfmt_pgn::PgnInput::Bytes(PgnBytes::new(text).with_piece_size(3000)),
            "bytes",
        ),
        (
            chessfmt_pgn::PgnInput::Reader(PgnReader::new(text)),
            "stream",
        ),
    ] {
        let mut runs: Vec<Vec<Seen>> = Vec::new();
        let skipped = chessfmt_pgn::replay_runs_in_order(
            input,
            50,
            7,
            |games| games.iter().map(seen).collect::<Vec<_>>(),
            |batch| {
                runs.extend(batch);
                ControlFlow::Continue(())
            },
            |_| {},
        )
        .unwrap();
        assert!(runs.iter().all(|r| !r.is_empty() && r.len() <= 7), "{name}");
        assert_eq!(runs.concat(), want, "{name}");
        assert_eq!(skipped, want_skipped, "{name}");
    }
}
