//! Probe lists are ordered by games (CTG, Kvetka) or weight (Polyglot) unless `--sort stored`
//! asks for the book's order; a position that is not in the book says so in every format.

mod common;

use common::{chessfmt, testdata};

#[test]
fn ctg_probe_lists_the_most_played_move_first() {
    let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/ctg/perfect2021/Perfect2021.ctg");
    if !book.exists() {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!("skipping: ../shared/corpus/ctg/perfect2021 is absent");
        return;
    }
    let book = book.to_str().unwrap();
    let first = |args: &[&str]| {
        let (code, out, err) = chessfmt(args);
        assert_eq!(code, 0, "{err}");
        let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
        (
            rows[0]["uci"].clone(),
            rows[0]["games"].as_u64().unwrap(),
            rows[1]["games"].as_u64().unwrap(),
        )
    };
    // Stored order: d4 (22,009 games) before e4 (32,765).
    let (uci, a, b) = first(&["ctg", "probe", book, "--json", "--sort", "stored"]);
    assert_eq!((uci.as_str(), a < b), (Some("d2d4"), true));
    let (uci, a, b) = first(&["ctg", "probe", book, "--json"]);
    assert_eq!((uci.as_str(), a >= b), (Some("e2e4"), true));
}

#[test]
fn every_format_says_when_a_position_is_not_in_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = testdata("kvetka/small.pgn");
    let kob = dir.path().join("k.kob").display().to_string();
    let ctg = dir.path().join("c.ctg").display().to_string();
    assert_eq!(chessfmt(&["kvetka", "build", &pgn, "-o", &kob]).0, 0);
    assert_eq!(chessfmt(&["ctg", "build", &pgn, "-o", &ctg]).0, 0);
    let bare_kings = "8/8/8/8/8/8/8/K6k w - -";
    for verb in [
        vec!["polyglot", "probe", &testdata("polyglot/small.bin")],
        vec!["ctg", "probe", &ctg],
        vec!["kvetka", "probe", &kob],
    ] {
        let mut args: Vec<&str> = verb.iter().map(|s| s.as_ref()).collect();
        args.extend(["--fen", bare_kings]);
        let (code, out, err) = chessfmt(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(out.contains("position not in the book"), "{args:?}: {out}");
    }
}
