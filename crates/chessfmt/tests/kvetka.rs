//! `chessfmt kvetka …`: output, JSON, exit codes, snapshots.

mod common;
use common::{chessfmt, testdata};

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

/// Snapshots of a book built from the bundled games: probe (text and JSON) and dump.
#[test]
fn snapshots_of_a_built_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("s.kob").display().to_string();
    let (code, _, err) = chessfmt(&[
        "kvetka",
        "build",
        &testdata("kvetka/small.pgn"),
        "-o",
        &book,
    ]);
    assert_eq!(code, 0, "{err}");
    for (name, args) in [
        ("kvetka_probe_text", vec!["kvetka", "probe", &book]),
        (
            "kvetka_probe_json",
            vec!["kvetka", "probe", &book, "--json"],
        ),
        ("kvetka_dump_json", vec!["kvetka", "dump", &book, "--json"]),
    ] {
        let (code, out, err) = chessfmt(&args);
        assert_eq!(code, 0, "{name}: {err}");
        insta::assert_snapshot!(name, out);
    }
}
