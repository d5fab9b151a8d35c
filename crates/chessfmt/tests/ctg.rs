//! `chessfmt ctg …`: output, JSON, exit codes, snapshots.

mod common;
use common::{chessfmt, testdata};

fn ctg_corpus(rel: &str) -> Option<String> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/ctg")
        .join(rel);
    if p.exists() {
        Some(p.display().to_string())
    } else {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
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
    assert_eq!(
        (&summary["games_added"], &summary["games_read"]),
        (&2.into(), &2.into())
    );
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

/// Snapshots of a book built from the bundled games: probe (text and JSON), info, dump.
#[test]
fn snapshots_of_a_built_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("s.ctg").display().to_string();
    let (code, _, err) = chessfmt(&["ctg", "build", &testdata("kvetka/small.pgn"), "-o", &book]);
    assert_eq!(code, 0, "{err}");
    for (name, args) in [
        ("ctg_probe_text", vec!["ctg", "probe", &book]),
        ("ctg_probe_json", vec!["ctg", "probe", &book, "--json"]),
        ("ctg_info_json", vec!["ctg", "info", &book, "--json"]),
        (
            "ctg_walk_text",
            vec!["ctg", "walk", &book, "--max-ply", "2"],
        ),
    ] {
        let (code, out, err) = chessfmt(&args);
        assert_eq!(code, 0, "{name}: {err}");
        insta::assert_snapshot!(name, out);
    }
}

/// `ctg build --memory-limit` (`--help`'s promise): the table spilled to runs beside the book
/// and merged as the book streams gives the book of an unlimited build, byte for byte, and
/// leaves no run or spool behind.
#[test]
fn build_under_a_memory_limit_is_the_same_book() {
    let Some(pgn) = ctg_corpus("../polyglot/pgn/lichess-2017-09-sample1000.pgn") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut books = Vec::new();
    for limit in [None, Some("1"), Some("1024")] {
        let folder = dir.path().join(limit.unwrap_or("none"));
        std::fs::create_dir(&folder).unwrap();
        let book = folder.join("book.ctg").display().to_string();
        let mut args = vec!["ctg", "build", &pgn, "-o", &book, "--json"];
        if let Some(l) = limit {
            args.extend(["--memory-limit", l]);
        }
        let (code, out, err) = chessfmt(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["positions"].as_u64().unwrap() > 30_000, "{out}");
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| !e.file_name().to_string_lossy().ends_with(".chessfmt-lock"))
            .map(|e| {
                let name = e.file_name().into_string().unwrap();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect();
        files.sort();
        let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["book.ctb", "book.ctg", "book.cto"], "{limit:?}");
        books.push(files);
    }
    assert!(books[0] == books[1], "--memory-limit 1 changed the book");
    assert!(books[0] == books[2], "--memory-limit 1024 changed the book");
}
