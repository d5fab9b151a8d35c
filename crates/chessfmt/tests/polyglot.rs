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

/// `polyglot entries` prints every entry in file order, as the bytes hold it: the text and
/// the JSON lines agree with each other and with the book's own bytes; `-o` refuses to
/// overwrite without `--force`; bytes after the last entry are warned of.
#[test]
fn entries_print_every_entry_as_stored() {
    let book = testdata("polyglot/small.bin");
    let bytes = std::fs::read(&book).unwrap();
    let (code, text, _) = chessfmt(&["polyglot", "entries", &book]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), bytes.len() / 16);
    let (code, json, _) = chessfmt(&["polyglot", "entries", &book, "--json"]);
    assert_eq!(code, 0);
    let rows: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), lines.len());
    for (i, (line, row)) in lines.iter().zip(&rows).enumerate() {
        let e = &bytes[i * 16..i * 16 + 16];
        let key = u64::from_be_bytes(e[..8].try_into().unwrap());
        let raw = u16::from_be_bytes([e[8], e[9]]);
        let weight = u16::from_be_bytes([e[10], e[11]]);
        let learn = u32::from_be_bytes(e[12..].try_into().unwrap());
        assert_eq!(row["key"], format!("{key:016x}"));
        assert_eq!(
            (row["raw"].as_u64(), row["weight"].as_u64()),
            (Some(u64::from(raw)), Some(u64::from(weight)))
        );
        assert_eq!(row["learn"].as_u64(), Some(u64::from(learn)));
        let uci = row["uci"].as_str().unwrap();
        assert_eq!(*line, format!("{key:016x} {uci} {weight} {learn}"));
    }
    assert_eq!(lines[0], "0001ba752bfb0b80 a2a3 3 0");
    // The start position's moves, among them 1. e4 as stored (e2e4), in key order.
    let start: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("463b96181691fc9c "))
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert!(start.contains(&"e2e4"), "{start:?}");

    // -o writes the same text, refuses to overwrite without --force, never the book.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("entries.txt");
    let o = out.to_str().unwrap();
    assert_eq!(chessfmt(&["polyglot", "entries", &book, "-o", o]).0, 0);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    let (code, _, err) = chessfmt(&["polyglot", "entries", &book, "-o", o]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        chessfmt(&["polyglot", "entries", &book, "-o", o, "--force"]).0,
        0
    );
    assert_eq!(
        chessfmt(&["polyglot", "entries", &book, "-o", &book, "--force"]).0,
        1,
        "the book itself is never replaced"
    );
    assert_eq!(std::fs::read(&book).unwrap(), bytes);

    // A book with a torn last entry: the whole entries, and a warning naming the bytes.
    let torn = tmp.path().join("torn.bin");
    std::fs::write(&torn, &bytes[..bytes.len() - 5]).unwrap();
    let (code, out, err) = chessfmt(&["polyglot", "entries", torn.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), bytes.len() / 16 - 1);
    assert!(err.contains("11 bytes after the last whole entry"), "{err}");
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
