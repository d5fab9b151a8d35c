//! `chessfmt cbh …` on the corpus databases: snapshots of `list` and of exported games, JSON,
//! exit codes. Skipped (with a message) when `../shared/corpus` is absent.

use std::path::PathBuf;

mod common;
use common::chessfmt;

fn corpus(rel: &str) -> Option<String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/chessbase")
        .join(rel);
    if p.exists() {
        Some(p.display().to_string())
    } else {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!(
            "skipping: {} not found (../shared/corpus absent)",
            p.display()
        );
        None
    }
}

#[test]
fn list_snapshots() {
    for (name, rel) in [
        (
            "list_with_variations",
            "libcbh-gtest/WithVariations/WithVariations.cbh",
        ),
        ("list_annotation", "libcbh-gtest/Annotation/TestBase.cbh"),
        (
            "list_unusual_start",
            "libcbh-gtest/UnusualStart/UnusualStartBytes.cbh",
        ),
    ] {
        let Some(db) = corpus(rel) else { return };
        let (code, out, err) = chessfmt(&["cbh", "list", &db]);
        assert_eq!((code, err.as_str()), (0, ""));
        insta::assert_snapshot!(name, out);
    }
    let Some(db) = corpus("chesscore-test/Capa/Capa.cbh") else {
        return;
    };
    let (code, out, _) = chessfmt(&["cbh", "list", &db, "--json", "--range", "1-3"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("list_capa_json", out);
}

#[test]
fn exported_game_snapshots() {
    for (name, rel, range) in [
        (
            "export_annotation",
            "libcbh-gtest/Annotation/TestBase.cbh",
            "1-4",
        ),
        (
            "export_with_variations_1",
            "libcbh-gtest/WithVariations/WithVariations.cbh",
            "1",
        ),
        (
            "export_chess960_1",
            "libcbh-gtest/Chess960Biel/Chess960Biel.cbh",
            "1",
        ),
        (
            "export_setup",
            "libcbh-gtest/NonStandard/NonStandardStart.cbh",
            "1",
        ),
        (
            "export_promotions_2",
            "libcbh-gtest/ManyPromotions/ManyPromotions.cbh",
            "2",
        ),
    ] {
        let Some(db) = corpus(rel) else { return };
        let (code, out, err) = chessfmt(&["cbh", "export", &db, "--range", range]);
        assert_eq!(code, 0, "{err}");
        insta::assert_snapshot!(name, out);
    }
}

#[test]
fn info_show_and_errors() {
    let Some(db) = corpus("libcbh-gtest/UnusualStart/UnusualStartBytes.cbh") else {
        return;
    };
    let (code, out, _) = chessfmt(&["cbh", "info", &db, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            v["games"].as_u64(),
            v["texts"].as_u64(),
            v["deleted"].as_u64()
        ),
        (Some(9), Some(0), Some(0))
    );
    assert_eq!(v["generation"], "current");
    assert!(
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["extension"] == "cbg")
    );

    // Mode 1 is unsupported: `show` fails with one line, `export` skips it and goes on.
    let (code, out, err) = chessfmt(&["cbh", "show", &db, "1"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err.lines().count(), 1);
    assert!(err.contains("unsupported encoding mode 1"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("out.pgn");
    let pgn = pgn.to_str().unwrap();
    let (code, out, _) = chessfmt(&["cbh", "export", &db, "-o", pgn, "--json", "--threads", "2"]);
    assert_eq!(code, 0);
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["exported"], 7);
    assert_eq!(s["skipped"].as_array().unwrap().len(), 2);
    assert_eq!(
        std::fs::read_to_string(pgn)
            .unwrap()
            .matches("[Event ")
            .count(),
        7
    );
    // The output exists: refuse without --force.
    let (code, _, err) = chessfmt(&["cbh", "export", &db, "-o", pgn]);
    assert_eq!(code, 1, "{err}");
    let (code, _, _) = chessfmt(&[
        "cbh",
        "export",
        &db,
        "-o",
        pgn,
        "--force",
        "--no-annotations",
    ]);
    assert_eq!(code, 0);

    // show --json: the tree with variations and annotations.
    let Some(wv) = corpus("libcbh-gtest/WithVariations/WithVariations.cbh") else {
        return;
    };
    let (code, out, _) = chessfmt(&["cbh", "show", &wv, "1", "--json"]);
    assert_eq!(code, 0);
    let g: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(g["white"], "Shirov, Alexei");
    let moves = g["moves"].as_array().unwrap();
    assert_eq!(moves[0]["san"], "e4");
    assert_eq!(moves[1]["annotations"][0]["type"], "text");
    assert_eq!(moves[5]["variations"].as_array().unwrap().len(), 2);
    assert_eq!(moves[5]["variations"][0][0]["san"], "Qc7");

    // Castling in standard chess is written king-to-target-square (e1g1), as every other
    // verb writes it; king-takes-rook (e1h1) only in Chess960 games.
    let (code, out, _) = chessfmt(&["cbh", "show", &wv, "1", "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains(r#""uci":"e1g1""#), "{out}");
    assert!(
        !out.contains(r#""uci":"e1h1""#) && !out.contains(r#""uci":"e8h8""#),
        "{out}"
    );

    // `-o -` is standard output; `--json` then has nowhere to go but there: a usage error.
    let (code, out, _) = chessfmt(&["cbh", "export", &wv, "-o", "-"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("[Event \"Sparkassen Gp 1\"]"), "{out}");
    assert_eq!(chessfmt(&["cbh", "export", &wv, "-o", "-", "--json"]).0, 2);
    // The code page: shown by info, set by --encoding (an unknown one is a usage error).
    let (code, out, _) = chessfmt(&["cbh", "info", &wv, "--encoding", "cp1251", "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains(r#""code_page":"windows-1251""#), "{out}");
    assert_eq!(
        chessfmt(&["cbh", "info", &wv, "--encoding", "klingon"]).0,
        2
    );

    // Usage and input errors.
    // A reversed range is a usage error (exit 2); a range past the records is bad input.
    assert_eq!(chessfmt(&["cbh", "list", &wv, "--range", "5-2"]).0, 2);
    assert_eq!(chessfmt(&["cbh", "list", &wv, "--range", "100000-"]).0, 1);
    assert_eq!(chessfmt(&["cbh", "show", &wv, "999"]).0, 1);
    assert_eq!(chessfmt(&["cbh", "list"]).0, 2);
    assert_eq!(chessfmt(&["cbh", "info", "/nonexistent/x.cbh"]).0, 1);
}

/// `.cbv`/`.cbz` archives are databases for every verb (`--password` for a `.cbz`), and
/// `cbh unpack` writes their files as a set, refusing to overwrite without `--force`.
#[test]
fn archives() {
    let (Some(cbv), Some(cbh), Some(cbz)) = (
        corpus("uncbv-tests/twic1134.cbv"),
        corpus("uncbv-tests/twic1134/twic1134.cbh"),
        corpus("uncbv-tests/small2.cbz"),
    ) else {
        return;
    };
    let (code, from_archive, err) = chessfmt(&["cbh", "export", &cbv]);
    assert_eq!(code, 0, "{err}");
    let (_, extracted, _) = chessfmt(&["cbh", "export", &cbh]);
    assert_eq!(from_archive, extracted);
    assert_eq!(from_archive.matches("[Event ").count(), 6117);
    let (code, out, _) = chessfmt(&["info", &cbv, "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains(r#""games":6117"#), "{out}");

    let (code, _, err) = chessfmt(&["cbh", "info", &cbz]);
    assert_eq!(code, 1);
    assert!(err.contains("password-protected"), "{err}");
    let (code, _, err) = chessfmt(&["cbh", "info", &cbz, "--password", "pass"]);
    assert_eq!(code, 0, "{err}");

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    let o = out.to_str().unwrap();
    let (code, json, err) = chessfmt(&["cbh", "unpack", &cbv, "-o", o, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 13);
    assert_eq!(
        std::fs::read(out.join("twic1134.cbg")).unwrap(),
        std::fs::read(std::path::Path::new(&cbh).with_extension("cbg")).unwrap()
    );
    let (code, _, err) = chessfmt(&["cbh", "unpack", &cbv, "-o", o]);
    assert_eq!(code, 1, "refuses to overwrite: {err}");
    assert!(err.contains("exists"), "{err}");
    assert_eq!(chessfmt(&["cbh", "unpack", &cbv, "-o", o, "--force"]).0, 0);
}

/// `cbh import`: TWIC 1134 exported, imported and exported again is the same PGN; its
/// `.cbg` and `.cba` are byte for byte ChessBase's; an existing database is refused without
/// `--force` (nothing written), replaced with it; the output must be a `.cbh`; a game that
/// cannot be read is reported and left out, the rest imported.
#[test]
fn import_round_trip_and_refusals() {
    let Some(db) = corpus("uncbv-tests/twic1134/twic1134.cbh") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let (code, _, err) = chessfmt(&["cbh", "export", &db, "-o", &p("a.pgn")]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = chessfmt(&["cbh", "import", &p("a.pgn"), "-o", &p("new.cbh"), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["games_read"], 6117);
    assert_eq!(v["games_added"], 6117);
    assert_eq!(v["games_skipped"], 0);
    for ext in ["cbg", "cba"] {
        assert_eq!(
            std::fs::read(dir.path().join(format!("new.{ext}"))).unwrap(),
            std::fs::read(PathBuf::from(&db).with_extension(ext)).unwrap(),
            ".{ext}"
        );
    }
    let (code, _, err) = chessfmt(&["cbh", "export", &p("new.cbh"), "-o", &p("b.pgn")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(p("a.pgn")).unwrap(),
        std::fs::read(p("b.pgn")).unwrap()
    );

    // Refused without --force, replaced with it.
    let before = std::fs::read(p("new.cbh")).unwrap();
    std::fs::write(
        p("one.pgn"),
        "[Event \"x\"]\n\n1. e4 *\n\n[Event \"bad\"]\n\n1. e5 *\n",
    )
    .unwrap();
    let (code, _, err) = chessfmt(&["cbh", "import", &p("one.pgn"), "-o", &p("new.cbh")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(p("new.cbh")).unwrap(), before);
    let (code, _, err) = chessfmt(&[
        "cbh",
        "import",
        &p("one.pgn"),
        "-o",
        &p("new.cbh"),
        "--force",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("game 2") && err.contains("left out"), "{err}");
    assert!(err.contains("2 games read, 1 added, 1 skipped"), "{err}");
    // The old database's team files went with it.
    assert!(!dir.path().join("new.cbj").exists());
    let (code, _, err) = chessfmt(&["cbh", "import", &p("one.pgn"), "-o", &p("x.pgn")]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("must be a .cbh"), "{err}");
}

/// `cbh import --threads`: a plain PGN is read in parallel pieces (issue 34) and the database
/// is byte for byte the same at 1 and 2 threads, and the same as from the same games streamed
/// (gzip); a game left out in one piece is numbered as in its input and the pieces after it
/// are read.
#[test]
fn import_is_the_same_at_every_thread_count() {
    let Some(db) = corpus("uncbv-tests/twic1134/twic1134.cbh") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let (code, _, err) = chessfmt(&["cbh", "export", &db, "-o", &p("a.pgn")]);
    assert_eq!(code, 0, "{err}");
    // A bad game in the middle (an illegal move), in a piece of its own.
    let text = std::fs::read_to_string(p("a.pgn")).unwrap();
    let cut = text[text.len() / 2..].find("\n[Event ").unwrap() + text.len() / 2 + 1;
    let pgn = format!(
        "{}[Event \"bad\"]\n[White \"x\"]\n[Black \"y\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n{}",
        &text[..cut],
        &text[cut..]
    );
    std::fs::write(p("m.pgn"), &pgn).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, pgn.as_bytes()).unwrap();
    std::fs::write(p("m.pgn.gz"), gz.finish().unwrap()).unwrap();
    let games_before = text[..cut].matches("[Event ").count();
    for (input, name, threads) in [
        ("m.pgn", "t1", "1"),
        ("m.pgn", "t2", "2"),
        ("m.pgn.gz", "gz", "2"),
    ] {
        let out = p(&format!("{name}.cbh"));
        let (code, _, err) =
            chessfmt(&["cbh", "import", &p(input), "-o", &out, "--threads", threads]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains(&format!("game {}: ", games_before + 1)) && err.contains("left out"),
            "{err}"
        );
        assert!(
            err.contains("6118 games read, 6117 added, 1 skipped"),
            "{err}"
        );
    }
    for ext in chessbase_db_extensions() {
        let read = |name: &str| std::fs::read(dir.path().join(format!("{name}.{ext}"))).ok();
        assert_eq!(read("t1"), read("t2"), ".{ext}");
        assert_eq!(read("t1"), read("gz"), ".{ext}");
    }
}

fn chessbase_db_extensions() -> [&'static str; 9] {
    [
        "cbh", "cbg", "cba", "cbp", "cbt", "cbc", "cbs", "cbe", "cbj",
    ]
}
