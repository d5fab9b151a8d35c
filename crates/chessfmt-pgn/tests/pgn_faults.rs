//! Bulk PGN input keeps going: oversized games are skipped, a cut-off last game and a cut
//! compressed stream end the input cleanly, each reported with its game number and offset.

use chessfmt_pgn::Limits;
#[cfg(all(feature = "gzip", feature = "zstd", feature = "xz"))]
use chessfmt_pgn::fuzzing::compressed;
use chessfmt_pgn::{PgnReader, SkipReason, SkipStats};

const MAX_TAG_LINE: usize = Limits::DEFAULT.pgn_tag_line;

/// Game `i` of the synthetic inputs: four plies, a comment, a result.
fn game(i: usize) -> String {
    format!("[Event \"game {i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 {{a comment}} Nc6 1-0\n\n")
}

fn games(n: usize) -> String {
    (0..n).map(game).collect()
}

/// (events of the games read, the skip tally).
fn read(bytes: &[u8]) -> (Vec<String>, SkipStats) {
    let mut it = PgnReader::new(bytes).games();
    let events = it
        .by_ref()
        .map(|g| g.unwrap().header("Event").unwrap().to_owned())
        .collect();
    (events, it.skipped().clone())
}

fn events(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("game {i}")).collect()
}

#[test]
fn an_oversized_tag_skips_one_game() {
    for len in [
        11_118,
        MAX_TAG_LINE - 100,
        3 * MAX_TAG_LINE,
        40 * MAX_TAG_LINE,
    ] {
        let mut text = games(2);
        let long = "x".repeat(len);
        text +=
            &format!("[Event \"long\"]\n[Annotator \"{long}\"]\n[Result \"0-1\"]\n\n1. d4 0-1\n\n");
        text += &(2..5).map(game).collect::<String>();
        let (read_events, skipped) = read(text.as_bytes());
        if len < MAX_TAG_LINE {
            assert_eq!(read_events.len(), 6, "a {len}-byte tag is within the limit");
            assert_eq!(skipped.total(), 0);
        } else {
            let mut want = events(0..2);
            want.extend(events(2..5));
            assert_eq!(read_events, want, "{len}");
            assert_eq!(skipped.total(), 1);
            let e = &skipped.examples[0];
            assert_eq!((e.index, e.offset), (2, 2 * game(0).len() as u64));
            assert!(
                matches!(&e.reason, SkipReason::OverLimit(l) if l.field == "pgn_tag_line"),
                "{e}"
            );
            assert!(!skipped.truncated());
        }
    }
}

#[test]
fn too_many_plies_tags_or_tag_bytes_skip_one_game_each() {
    let mut text = games(1);
    text += "[Result \"*\"]\n\n";
    for _ in 0..20_000 {
        text += "Nf3 Nf6 Ng1 Ng8 ";
    }
    text += "*\n\n";
    text += "[Result \"*\"]\n";
    for i in 0..5000 {
        text += &format!("[T{i} \"v\"]\n");
    }
    text += "\n1. e4 *\n\n";
    // 40 tags of 30 KB: each line within the limit, 1.2 MB in all.
    text += "[Result \"*\"]\n";
    for i in 0..40 {
        text += &format!("[T{i} \"{}\"]\n", "v".repeat(30_000));
    }
    text += "\n1. e4 *\n\n";
    text += &game(4);
    let (read_events, skipped) = read(text.as_bytes());
    assert_eq!(read_events, ["game 0", "game 4"]);
    assert_eq!(skipped.total(), 3);
    assert_eq!(skipped.by_kind["over a limit"], 3);
    assert_eq!(
        skipped.examples.iter().map(|e| e.index).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert!(
        skipped.examples[2]
            .to_string()
            .contains("tag bytes over the limit of 1048576 (Limits::pgn_tag_bytes)"),
        "{:?}",
        skipped.examples[2]
    );
}

#[test]
fn a_last_game_cut_inside_a_comment_or_a_tag_is_left_out() {
    let text = games(4);
    let last = 3 * game(0).len();
    let cases = [
        (text.find("game 3").unwrap() + 3, "inside a tag"),
        (
            last + game(0).find("a comm").unwrap() + 3,
            "inside a comment",
        ),
        (last + game(0).find("Nf3").unwrap() + 1, "mid-line"),
    ];
    for (cut, what) in cases {
        let (read_events, skipped) = read(&text.as_bytes()[..cut]);
        assert_eq!(read_events, events(0..3), "cut {what}");
        assert_eq!(skipped.total(), 1, "cut {what}");
        let e = &skipped.examples[0];
        assert_eq!((e.index, e.offset), (3, last as u64));
        assert!(matches!(e.reason, SkipReason::Truncated(_)), "{e}");
        assert!(e.to_string().contains(what) || what == "mid-line", "{e}");
        assert!(skipped.truncated());
    }
    // Cut after a whole line: the moves so far are a game (no way to tell).
    let cut = last + game(0).find("1. e4").unwrap();
    let (read_events, skipped) = read(&text.as_bytes()[..cut]);
    assert_eq!(read_events, events(0..4));
    assert_eq!(skipped.total(), 0);
}

#[cfg(all(feature = "gzip", feature = "zstd", feature = "xz"))]
#[test]
fn a_cut_compressed_stream_ends_the_input_cleanly() {
    // Pseudo-random comments so that the stream does not compress to nothing.
    let text: String = chessfmt_pgn::fuzzing::noise(3000)
        .iter()
        .enumerate()
        .map(|(i, noise)| game(i).replace("a comment", noise))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    for kind in ["gz", "zst", "xz"] {
        let whole = compressed(kind, text.as_bytes());
        let cut = &whole[..whole.len() * 9 / 10];
        let path = dir.path().join(format!("cut.pgn.{kind}"));
        std::fs::write(&path, cut).unwrap();
        let mut it = PgnReader::open(&path).unwrap().games();
        let got: Vec<_> = it.by_ref().map(|g| g.unwrap()).collect();
        let skipped = it.skipped();
        eprintln!(
            "{kind}: {} games, {skipped}, {:?}",
            got.len(),
            skipped.examples
        );
        assert!(
            got.len() > 1500 && got.len() < 3000,
            "{kind}: {}",
            got.len()
        );
        for (i, g) in got.iter().enumerate() {
            assert_eq!(g.header("Event"), Some(format!("game {i}").as_str()));
        }
        assert_eq!(skipped.total(), 1, "{kind}");
        let e = &skipped.examples[0];
        assert!(
            matches!(e.reason, SkipReason::DamagedStream(_)),
            "{kind}: {e}"
        );
        assert_eq!(e.index, got.len() as u64, "{kind}: the game in progress");
        assert!(skipped.truncated());
    }
}

#[cfg(all(feature = "gzip", feature = "zstd", feature = "xz"))]
#[test]
fn every_game_before_the_damage_is_read() {
    // A complete first frame (member, stream) of 1000 games, then the first bytes of a second:
    // exactly the 1000 games, and one "truncated input" at the end of the first frame.
    let first = games(1000);
    let dir = tempfile::tempdir().unwrap();
    for kind in ["gz", "zst", "xz"] {
        let mut bytes = compressed(kind, first.as_bytes());
        bytes.extend_from_slice(&compressed(kind, games(5).as_bytes())[..12]);
        let path = dir.path().join(format!("two.pgn.{kind}"));
        std::fs::write(&path, &bytes).unwrap();
        let mut it = PgnReader::open(&path).unwrap().games();
        assert_eq!(
            it.by_ref().map(Result::unwrap).collect::<Vec<_>>().len(),
            1000,
            "{kind}"
        );
        let skipped = it.skipped();
        assert_eq!(skipped.total(), 1, "{kind}: {skipped}");
        let e = &skipped.examples[0];
        assert_eq!((e.index, e.offset), (1000, first.len() as u64), "{kind}");
        assert!(
            matches!(e.reason, SkipReason::DamagedStream(_)),
            "{kind}: {e}"
        );
    }
}

/// Limits set by the library user apply: a game over them is skipped, the others read.
#[test]
fn limits_set_by_the_user_apply() {
    let mut limits = Limits::default();
    limits.pgn_plies = 3;
    let text = games(2);
    let mut it = PgnReader::with_limits(text.as_bytes(), limits).games();
    assert_eq!(it.by_ref().count(), 0, "every game has 4 plies");
    let skipped = it.skipped();
    assert_eq!(skipped.by_kind["over a limit"], 2);
    assert_eq!(
        skipped.examples[0].reason.to_string(),
        "game over a limit: main-line plies over the limit of 3 (Limits::pgn_plies)"
    );
    limits.pgn_plies = 4;
    assert_eq!(
        PgnReader::with_limits(text.as_bytes(), limits)
            .games()
            .count(),
        2
    );
}

/// A game with several tag lines over the limit is one skipped game: reading goes on after
/// it (found by the structure-aware fuzz target: the second long line ended the input with
/// an error).
#[test]
fn several_oversized_tags_in_one_game_skip_only_that_game() {
    let long = "x".repeat(3 * MAX_TAG_LINE);
    let mut text = games(2);
    text +=
        &format!("[A \"{long}\"]\n[B \"{long}\"]\n[C \"{long}\"]\n[Result \"*\"]\n\n1. e4 *\n\n");
    text += &(2..4).map(game).collect::<String>();
    let (read_events, skipped) = read(text.as_bytes());
    assert_eq!(read_events, events(0..4));
    assert_eq!(skipped.total(), 1);
    assert_eq!(skipped.examples[0].index, 2);
}

/// A tag line just under, at and over the limit, and far over it (70 KB, which a reader may
/// hold whole when the input comes in large reads): the same games and skipped games
/// whether the text comes whole or a few bytes at a time.
#[test]
fn a_tag_line_over_the_limit_is_over_it_however_the_input_arrives() {
    let limit = Limits::DEFAULT.pgn_tag_line;
    let mut text = String::new();
    for (i, len) in [
        limit - 8,
        limit - 5,
        limit - 1,
        limit,
        limit + 1,
        limit + 3,
        70_000,
    ]
    .into_iter()
    .enumerate()
    {
        // `[Note "…"]`: the value fills the line to `len` bytes.
        text += &format!(
            "[Event \"game {i}\"]\n[Note \"{}\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n",
            "v".repeat(len - 9)
        );
    }
    let read = |source: &mut dyn std::io::Read| {
        let mut reader = PgnReader::new(source);
        let mut games = Vec::new();
        while let Some(g) = reader.next_raw().unwrap() {
            games.push((g.index, g.offset, g.length));
        }
        (games, reader.skipped().clone())
    };
    let (whole, skipped) = read(&mut text.as_bytes());
    // Lines of up to the limit (before the closing bracket) are read, longer ones are over it.
    assert_eq!(
        whole.iter().map(|g| g.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(skipped.by_kind.get("over a limit"), Some(&2));
    for piece in [1, 7, 4096, 1 << 17] {
        let mut trickle = chessfmt_pgn::fuzzing::Trickle::new(text.as_bytes(), piece);
        assert_eq!(
            read(&mut trickle),
            (whole.clone(), skipped.clone()),
            "reads of {piece}"
        );
    }
}
