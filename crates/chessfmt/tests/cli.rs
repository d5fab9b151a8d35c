//! The command line as users see it: output, JSON, exit codes.

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

fn ctg_corpus(rel: &str) -> Option<String> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/ctg")
        .join(rel);
    if p.exists() {
        Some(p.display().to_string())
    } else {
        eprintln!("skipping: {} is absent", p.display());
        None
    }
}

#[test]
fn ctg_probe_json_fields_and_orientation() {
    let Some(book) = ctg_corpus("perfect2021/Perfect2021.ctg") else {
        return;
    };
    let (code, out, _) = chessfmt(&["ctg", "probe", &book, "--json"]);
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let e4 = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uci"] == "e2e4")
        .unwrap();
    assert_eq!(e4["nag"], 3);
    assert_eq!(e4["annotation"], 3);
    assert_eq!(e4["games"], 32765);
    assert_eq!(e4["wins"], 5679);
    assert_eq!(e4["draws"], 24152);
    assert_eq!(e4["losses"], 2207);
    assert_eq!(e4["recommendation"], "green");
    assert_eq!(e4["commentary"], 0);
    for k in [
        "rating1_games",
        "rating1_avg",
        "rating2_games",
        "rating2_avg",
    ] {
        assert!(e4[k].as_u64().unwrap() > 0, "{k}");
    }
    // Black to move: results are Black's.
    let (code, out, _) = chessfmt(&[
        "ctg",
        "probe",
        &book,
        "--json",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
    ]);
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d5 = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uci"] == "d7d5")
        .unwrap();
    assert_eq!(
        (d5["wins"].as_u64(), d5["losses"].as_u64()),
        (Some(560), Some(1298))
    );
}

#[test]
fn ctg_verbs_build_convert_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n[Result \"0-1\"]\n\n1. e4 c5 0-1\n",
    )
    .unwrap();
    let out = dir.path().join("b.ctg");
    let (code, json, _) = chessfmt(&[
        "ctg",
        "build",
        pgn.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    let summary: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(summary["games"], 2);
    assert_eq!(summary["positions"], 6);
    // Refuses to overwrite without --force.
    let (code, _, err) = chessfmt(&[
        "ctg",
        "build",
        pgn.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("exists"), "{err}");
    let b = out.to_str().unwrap();
    let (code, json, _) = chessfmt(&["ctg", "probe", b, "--json"]);
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(rows[0]["uci"], "e2e4");
    assert_eq!(rows[0]["games"], 2);
    assert_eq!(
        (rows[0]["wins"].as_u64(), rows[0]["losses"].as_u64()),
        (Some(1), Some(1))
    );
    let (code, json, _) = chessfmt(&[
        "ctg",
        "probe",
        b,
        "--json",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    ]);
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let c5 = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uci"] == "c7c5")
        .unwrap();
    assert_eq!(
        (c5["wins"].as_u64(), c5["losses"].as_u64()),
        (Some(1), Some(0))
    );
    // info, dump, walk.
    let (code, json, _) = chessfmt(&["ctg", "info", b, "--json"]);
    assert_eq!(code, 0);
    let info: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (
            info["pages"].as_u64(),
            info["positions"].as_u64(),
            info["games"].as_u64()
        ),
        (Some(1), Some(6), Some(2))
    );
    let (code, lines, _) = chessfmt(&["ctg", "dump", b, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(lines.lines().count(), 6);
    let (code, lines, _) = chessfmt(&["ctg", "walk", b, "--json", "--max-ply", "1"]);
    assert_eq!(code, 0);
    assert_eq!(lines.lines().count(), 2, "{lines}"); // start and 1.e4
    // to-polyglot.
    let bin = dir.path().join("b.bin");
    let (code, _, _) = chessfmt(&[
        "ctg",
        "to-polyglot",
        b,
        "-o",
        bin.to_str().unwrap(),
        "--policy",
        "games",
    ]);
    assert_eq!(code, 0);
    let (code, json, _) = chessfmt(&["polyglot", "probe", bin.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(rows[0]["uci"], "e2e4");
    // The family's scaling rule keeps weights that fit 16 bits: 2 games, weight 2.
    assert_eq!(rows[0]["weight"], 2);
    // Usage and input errors.
    let (code, _, _) = chessfmt(&["ctg", "to-polyglot", b, "-o", "x.bin", "--policy", "nope"]);
    assert_eq!(code, 2, "an unknown policy is a usage error");
    let (code, _, _) = chessfmt(&["ctg", "probe"]);
    assert_eq!(code, 2);
    let (code, _, err) = chessfmt(&["ctg", "probe", pgn.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1);
    // Rewriting a CTG book gives the same probe.
    let again = dir.path().join("again.ctg");
    let (code, _, _) = chessfmt(&["ctg", "build", b, "-o", again.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (_, p1, _) = chessfmt(&["ctg", "probe", b, "--json"]);
    let (_, p2, _) = chessfmt(&["ctg", "probe", again.to_str().unwrap(), "--json"]);
    assert_eq!(p1, p2);
}

#[test]
fn kvetka_verbs() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("small");
    let b = base.display().to_string();
    let pgn = testdata("kvetka/small.pgn");
    let (code, out, err) = chessfmt(&[
        "kvetka",
        "build",
        &pgn,
        "-o",
        &b,
        "--with-games",
        "--caption",
        "Тест",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["games_added"], 5);
    assert_eq!(v["games_without_result"], 1);
    // Refuses to overwrite without --force.
    let (code, _, err) = chessfmt(&["kvetka", "build", &pgn, "-o", &b]);
    assert_eq!(code, 1);
    assert!(err.contains("--force"), "{err}");

    let kin = format!("{b}.kin");
    let (code, out, err) = chessfmt(&["kvetka", "info", &kin, "--check", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["caption"], "Тест");
    assert_eq!(v["kin"], "valid");
    assert_eq!(v["check"]["ok"], true);
    assert_eq!(v["games"], 5);

    let (code, out, err) = chessfmt(&["kvetka", "probe", &b, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["position"]["wins"], 2);
    assert_eq!(v["position"]["draws"], 2);
    assert_eq!(v["position"]["losses"], 1);
    assert_eq!(v["moves"][0]["uci"], "e2e4");
    assert_eq!(v["moves"][0]["wins"], 2);
    assert_eq!(v["moves"][0]["draws"], 1);
    assert_eq!(v["moves"][0]["games"][0]["white"], "Белый, А.");
    // Black to move: the mover's statistics.
    let fen = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
    let (code, out, _) = chessfmt(&["kvetka", "probe", &b, "--fen", fen, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["moves"][0]["uci"], "d7d5");
    assert_eq!(v["moves"][0]["wins"], 1);
    assert_eq!(v["moves"][0]["losses"], 0);

    let more = dir.path().join("more.pgn");
    std::fs::write(&more, "[Result \"1-0\"]\n\n1. c4 e5 1-0\n").unwrap();
    let (code, out, err) = chessfmt(&["kvetka", "add", &b, &more.display().to_string(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["games_added"], 1);
    assert_eq!(v["positions_added"], 2);
    let (_, out, _) = chessfmt(&["kvetka", "probe", &b, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["position"]["wins"], 3);

    let (code, out, _) = chessfmt(&["kvetka", "dump", &b, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 59);
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert!(first["fen"].as_str().unwrap().contains(" w "));

    let bin = dir.path().join("small.bin").display().to_string();
    let (code, _, err) = chessfmt(&["kvetka", "to-polyglot", &b, "-o", &bin]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = chessfmt(&["polyglot", "probe", &bin, "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains("e2e4"));
    let back = dir.path().join("back").display().to_string();
    let (code, _, err) = chessfmt(&["kvetka", "from-polyglot", &bin, "-o", &back]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = chessfmt(&["kvetka", "info", &back, "--check"]);
    assert_eq!(code, 0, "{err}");

    // Bad input: exit 1 with one line; usage: exit 2.
    let junk = dir.path().join("junk_0.kob");
    std::fs::write(&junk, [2u8, 0, 0]).unwrap();
    let (code, _, err) = chessfmt(&["kvetka", "info", &junk.display().to_string()]);
    assert_eq!(code, 1);
    assert!(err.contains("unsupported book type 0x02"), "{err}");
    assert_eq!(err.lines().count(), 1);
    let (code, _, _) = chessfmt(&["kvetka", "probe"]);
    assert_eq!(code, 2);
}

/// A mapped input that shrinks while it is read (another process truncating it) ends the
/// command with a one-line error naming the file and exit status 1, never a SIGBUS. The
/// failpoint truncates the file right after it is mapped.
#[test]
fn mapped_input_that_shrinks_is_an_error_not_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 3] = [
        ("selfplay/small.bin", &["selfplay", "validate"]),
        ("selfplay/small.bin", &["selfplay", "positions"]),
        (
            "polyglot/small.bin",
            &["polyglot", "dump", "--color", "white"],
        ),
    ];
    for (i, (data, verb)) in cases.iter().enumerate() {
        let copy = dir.path().join(format!("copy{i}.bin"));
        std::fs::copy(testdata(data), &copy).unwrap();
        let copy = copy.to_str().unwrap();
        let mut args: Vec<&str> = verb.to_vec();
        args.push(copy);
        let out = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
            .args(&args)
            .env("CHESSFMT_FAILPOINT_SHRINK", copy)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{verb:?}: {err}");
        assert!(
            err.contains(&format!("{copy} changed while it was being read")),
            "{verb:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
