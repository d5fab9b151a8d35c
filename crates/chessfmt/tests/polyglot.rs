//! `chessfmt polyglot …` (and `chessfmt info` on a book): output, JSON, exit codes, snapshots.

use std::{path::PathBuf, process::Command};

mod common;
use common::{chessfmt, testdata};

#[test]
fn key() {
    let (code, out, _) = chessfmt(&["polyglot", "key"]);
    assert_eq!((code, out.as_str()), (0, "463b96181691fc9c\n"));
    let fen = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2";
    let (_, out, _) = chessfmt(&["polyglot", "key", "--fen", fen]);
    assert_eq!(out, "3d665cc1f5da1059\n");
}

#[test]
fn probe_json_on_the_bundled_book() {
    let (code, out, _) = chessfmt(&[
        "polyglot",
        "probe",
        &testdata("polyglot/small.bin"),
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v[0],
        serde_json::json!({"uci": "e2e4", "weight": 4702, "learn": 0, "raw": 796})
    );
    assert_eq!(v.as_array().unwrap().len(), 9);
    // After 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6: castling is printed e1g1.
    let fen = "r1bqkb1r/1ppp1ppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 5";
    let (_, out, _) = chessfmt(&[
        "polyglot",
        "probe",
        &testdata("polyglot/small.bin"),
        "--fen",
        fen,
        "--json",
    ]);
    assert!(out.contains("\"uci\":\"e1g1\""), "{out}");
}

#[test]
fn exit_codes() {
    // A --fen that is not a FEN, or an incomplete one (board only: it would silently stand
    // for another position), is a usage error.
    let (code, _, err) = chessfmt(&["polyglot", "key", "--fen", "not a fen"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: invalid value"), "{err}");
    let board_only = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
    for verb in [
        &["polyglot", "key"][..],
        &["polyglot", "probe", "x.bin"],
        &["ctg", "probe", "x.ctg"],
        &["kvetka", "probe", "x.kob"],
    ] {
        let mut args = verb.to_vec();
        args.extend(["--fen", board_only]);
        let (code, _, err) = chessfmt(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("FEN fields"), "{err}");
    }
    let (code, _, err) = chessfmt(&["polyglot", "probe", "/nonexistent/book.bin"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/book.bin"), "{err}");
    let (code, _, _) = chessfmt(&["polyglot", "frobnicate"]);
    assert_eq!(code, 2);
    let (code, out, _) = chessfmt(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("chessfmt "));
}

#[test]
fn info_recognises_formats() {
    let (code, out, _) = chessfmt(&["info", &testdata("polyglot/small.bin"), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "polyglot");
    assert_eq!(v["entries"], 3670);
    assert_eq!(v["positions"], 2384);
}

#[test]
fn build_and_merge_refuse_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    std::fs::write(
        &pgn,
        "1. e4 e5 1-0\n\n1. e4 c5 0-1\n\n1. e4 e5 1/2-1/2\n\n1. d4 ?? *\n",
    )
    .unwrap();
    let out = dir.path().join("b.bin");
    let (p, o) = (pgn.to_str().unwrap(), out.to_str().unwrap());
    let (code, text, _) = chessfmt(&["polyglot", "build", p, "-o", o, "--min-game", "1", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (v["games_read"].as_u64(), v["entries"].as_u64()),
        (Some(4), Some(4))
    );
    let before = std::fs::read(&out).unwrap();
    let (code, _, err) = chessfmt(&["polyglot", "build", p, "-o", o]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let merged = dir.path().join("m.bin");
    let (code, _, _) = chessfmt(&["polyglot", "merge", o, o, "-o", merged.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(&merged).unwrap().len(), before.len());
    let (code, _, err) = chessfmt(&["polyglot", "merge", o, o, "-o", merged.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--force"), "{err}");
}

#[test]
fn dump_and_info_print_the_reference_text() {
    // Run from testdata/polyglot so the header names the book as the reference run did.
    let dir = PathBuf::from(testdata("polyglot"));
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
            .current_dir(&dir)
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, text) = run(&["polyglot", "dump", "small.bin", "--color", "black"]);
    assert_eq!(code, Some(0));
    assert!(text == std::fs::read_to_string(dir.join("small-dump-black.txt")).unwrap());
    let (code, text) = run(&["polyglot", "info", "small.bin"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        text,
        std::fs::read_to_string(dir.join("small-info.txt")).unwrap()
    );
    let (_, text) = run(&["polyglot", "info", "small.bin", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["lines_white"], 1218);
    assert_eq!(v["isolated_positions"], 27);
    let (_, text) = run(&[
        "polyglot",
        "dump",
        "small.bin",
        "--color",
        "white",
        "--json",
    ]);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["line"], 1);
    assert_eq!(first["moves"][0]["uci"], "e2e4");
    assert!(first["moves"][0]["share"].as_f64().unwrap() > 0.0);
    assert_eq!(text.lines().count(), 1218);

    // -o writes atomically and refuses to overwrite without --force.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("white.txt");
    let o = out.to_str().unwrap();
    let (code, _) = run(&["polyglot", "dump", "small.bin", "--color", "white", "-o", o]);
    assert_eq!(code, Some(0));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(dir.join("small-dump-white.txt")).unwrap()
    );
    let (code, _) = run(&["polyglot", "dump", "small.bin", "--color", "black", "-o", o]);
    assert_eq!(code, Some(1));
    let (code, _) = run(&[
        "polyglot",
        "dump",
        "small.bin",
        "--color",
        "black",
        "-o",
        o,
        "--force",
    ]);
    assert_eq!(code, Some(0));
    let (code, _) = run(&["polyglot", "dump", "small.bin"]);
    assert_eq!(code, Some(2), "--color is required");
}

/// Snapshots of the bundled book's probe (text and JSON) and info.
#[test]
fn snapshots_of_probe_and_info() {
    let book = testdata("polyglot/small.bin");
    for (name, args) in [
        ("polyglot_probe_text", vec!["polyglot", "probe", &book]),
        (
            "polyglot_probe_json",
            vec!["polyglot", "probe", &book, "--json"],
        ),
        (
            "polyglot_probe_after_e4_json",
            vec![
                "polyglot",
                "probe",
                &book,
                "--fen",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                "--json",
            ],
        ),
        (
            "polyglot_info_json",
            vec!["polyglot", "info", &book, "--json"],
        ),
    ] {
        let (code, out, err) = chessfmt(&args);
        assert_eq!(code, 0, "{name}: {err}");
        insta::assert_snapshot!(name, out);
    }
}
