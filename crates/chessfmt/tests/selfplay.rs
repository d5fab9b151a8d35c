//! `chessfmt selfplay …`: output, JSON, exit codes, snapshots.

mod common;
use common::{chessfmt, testdata};

#[test]
fn selfplay_stats_head_validate() {
    let f = testdata("selfplay/small.bin");
    let (code, out, _) = chessfmt(&["selfplay", "stats", &f, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["games"].as_u64(), v["positions"].as_u64()),
        (Some(3), Some(12))
    );
    let (code, out, _) = chessfmt(&["selfplay", "head", &f, "-n", "2", "--json"]);
    assert_eq!(code, 0);
    let games: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["moves"][0]["uci"], "e2e4");
    assert_eq!(
        games[1]["moves"][4]["uci"], "d1b1",
        "Chess960 castling, king takes rook"
    );
    let (code, _, _) = chessfmt(&["selfplay", "validate", &f]);
    assert_eq!(code, 0);
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.bin");
    std::fs::write(&cut, &std::fs::read(&f).unwrap()[..300]).unwrap();
    let (code, _, err) = chessfmt(&["selfplay", "validate", cut.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("game 2 at byte 300"), "{err}");
}

#[test]
fn selfplay_positions_and_data_tools() {
    let f = testdata("selfplay/small.bin");
    let (code, out, _) = chessfmt(&["selfplay", "positions", &f, "--json"]);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 12);
    assert_eq!(
        lines[0]["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(lines[0]["uci"], "e2e4");
    assert_eq!(lines[0]["result"], 1.0, "White won: 1 for White to move");
    assert_eq!(lines[1]["result"], 0.0);
    let policy = lines[0]["policy"].as_array().unwrap();
    assert_eq!(policy.len(), 20);
    assert_eq!(policy[0], serde_json::json!(["b1a3", 49]));
    assert!(lines[2]["policy"].is_null(), "no distribution on that move");

    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    // to-value, then refuse to overwrite, then --force.
    let (code, out, _) = chessfmt(&["selfplay", "to-value", &f, "-o", &p("v.bin"), "--json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["games"].as_u64(), v["written"].as_u64()),
        (Some(3), Some(3))
    );
    let value = std::fs::read(p("v.bin")).unwrap();
    assert_eq!(value.len(), 3 * 43 + 12 * 4 + 3 * 4);
    let (code, _, err) = chessfmt(&["selfplay", "to-value", &f, "-o", &p("v.bin")]);
    assert_eq!(code, 1);
    assert!(err.contains("--force"), "{err}");
    let (code, _, _) = chessfmt(&["selfplay", "to-value", &f, "-o", &p("v.bin"), "--force"]);
    assert_eq!(code, 0);

    // split into two parts and interleave them back: same games.
    let (code, out, _) = chessfmt(&[
        "selfplay",
        "split",
        &f,
        "-o",
        &p("part"),
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["parts"].as_array().unwrap().len(), 2);
    let (code, _, _) = chessfmt(&[
        "selfplay",
        "interleave",
        &p("part.000"),
        &p("part.001"),
        "-o",
        &p("i.bin"),
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0);
    let original = std::fs::read(&f).unwrap();
    assert_eq!(std::fs::read(p("i.bin")).unwrap().len(), original.len());
    let (code, _, _) = chessfmt(&["selfplay", "shuffle", &f, "-o", &p("s.bin")]);
    assert_eq!(code, 0);
    let (code, _, _) = chessfmt(&["selfplay", "validate", &p("s.bin")]);
    assert_eq!(code, 0);

    // filter and dedup write valid data.
    let (code, out, _) = chessfmt(&[
        "selfplay",
        "filter",
        &f,
        "-o",
        &p("f.bin"),
        "--has-policy",
        "--min-ply",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kept = v["written"].as_u64().unwrap();
    assert!(kept > 0 && kept < 12);
    let (code, out, _) = chessfmt(&["selfplay", "stats", &p("f.bin"), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["positions"].as_u64(), Some(kept));
    assert_eq!(v["positions_with_policy"].as_u64(), Some(kept));
    let (code, _, _) = chessfmt(&["selfplay", "dedup", &f, "-o", &p("d.bin")]);
    assert_eq!(code, 0);

    // PGN and FEN lines.
    let (code, _, _) = chessfmt(&["selfplay", "to-pgn", &f, "-o", &p("g.pgn")]);
    assert_eq!(code, 0);
    let pgn = std::fs::read_to_string(p("g.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event \"selfplay\"]").count(), 3);
    assert!(pgn.contains("1. e4 {score 0.500, top e4 255"), "{pgn}");
    let (code, _, _) = chessfmt(&["selfplay", "to-fen", &f, "-o", &p("f.txt")]);
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(p("f.txt")).unwrap().lines().count(),
        12
    );

    // Bad input: exit 1 with the game and offset; --lenient goes on.
    let mut bad = original.clone();
    bad[43] ^= 0xff;
    std::fs::write(p("bad.bin"), &bad).unwrap();
    let (code, _, err) = chessfmt(&["selfplay", "to-value", &p("bad.bin"), "-o", &p("bv.bin")]);
    assert_eq!(code, 1);
    assert!(err.contains("game 1 at byte 43"), "{err}");
    assert!(
        !std::path::Path::new(&p("bv.bin")).exists(),
        "no partial output"
    );
    let (code, out, _) = chessfmt(&[
        "selfplay",
        "to-value",
        &p("bad.bin"),
        "-o",
        &p("bv.bin"),
        "--lenient",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["skipped_games"].as_u64(), Some(1));
    let (code, out, _) = chessfmt(&["selfplay", "validate", &p("bad.bin"), "--lenient", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["bad_games"].as_u64(), Some(1));
    assert_eq!(v["valid_games"].as_u64(), Some(2));
    // Usage errors exit 2.
    let (code, _, _) = chessfmt(&["selfplay", "split", &f, "-o", &p("x")]);
    assert_eq!(code, 2);
}

/// Snapshots of the bundled self-play file: head (text), positions and stats (JSON), to-fen.
#[test]
fn snapshots_of_the_bundled_file() {
    let f = testdata("selfplay/small.bin");
    for (name, args) in [
        (
            "selfplay_head_text",
            vec!["selfplay", "head", &f, "-n", "1"],
        ),
        (
            "selfplay_positions_json",
            vec!["selfplay", "positions", &f, "--json"],
        ),
        (
            "selfplay_stats_json",
            vec!["selfplay", "stats", &f, "--json"],
        ),
        ("selfplay_to_fen", vec!["selfplay", "to-fen", &f]),
    ] {
        let (code, out, err) = chessfmt(&args);
        assert_eq!(code, 0, "{name}: {err}");
        insta::assert_snapshot!(name, out);
    }
}
