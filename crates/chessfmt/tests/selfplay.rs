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

/// `selfplay to-parquet`: one row per position, the same positions, moves, scores, results
/// and visit distributions as `selfplay positions --json`, across row groups (a synthetic
/// file of more positions than a row group holds) and on the bundled file (Chess960 castling).
#[test]
fn positions_as_a_parquet_table() {
    use parquet::{
        file::reader::{FileReader, SerializedFileReader},
        record::{Field, RowAccessor},
    };
    let dir = tempfile::tempdir().unwrap();
    let synthetic = dir.path().join("synth.bin");
    std::fs::write(&synthetic, selfplay_format::synth::games(7, 2500, 160)).unwrap();
    // The bundled file in every codec (`--compression`): the same rows.
    let (small, synthetic) = (
        testdata("selfplay/small.bin"),
        synthetic.display().to_string(),
    );
    for (input, codec) in [
        (&small, "snappy"),
        (&small, "zstd"),
        (&small, "none"),
        (&synthetic, "snappy"),
    ] {
        let table = dir.path().join("positions.parquet");
        let (code, out, err) = chessfmt(&[
            "selfplay",
            "to-parquet",
            input,
            "-o",
            table.to_str().unwrap(),
            "--force",
            "--json",
            "--compression",
            codec,
        ]);
        assert_eq!(code, 0, "{err}");
        let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
        let (code, lines, _) = chessfmt(&["selfplay", "positions", input, "--json"]);
        assert_eq!(code, 0);
        let want: Vec<serde_json::Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(summary["written"].as_u64(), Some(want.len() as u64));
        let reader = SerializedFileReader::new(std::fs::File::open(&table).unwrap()).unwrap();
        if want.len() > selfplay_format::tools::PARQUET_ROW_GROUP {
            assert!(reader.num_row_groups() > 1);
        }
        let mut n = 0;
        for (row, w) in reader.get_row_iter(None).unwrap().zip(&want) {
            let row = row.unwrap();
            assert_eq!(row.get_long(0).unwrap() as u64, w["game"].as_u64().unwrap());
            assert_eq!(row.get_int(1).unwrap() as u64, w["ply"].as_u64().unwrap());
            assert_eq!(row.get_string(2).unwrap(), w["fen"].as_str().unwrap());
            let stm = w["fen"].as_str().unwrap().split(' ').nth(1).unwrap();
            assert_eq!(row.get_string(3).unwrap(), stm);
            assert_eq!(row.get_string(4).unwrap(), w["uci"].as_str().unwrap());
            // The JSON has the f32 as its shortest f64 text: compared as f32.
            assert_eq!(
                row.get_float(5).unwrap(),
                w["score"].as_f64().unwrap() as f32
            );
            assert_eq!(
                row.get_float(7).unwrap(),
                w["result"].as_f64().unwrap() as f32
            );
            let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
            match (&w["policy"], fields[9], fields[10]) {
                (serde_json::Value::Null, Field::Null, Field::Null) => {}
                (serde_json::Value::Array(policy), Field::Str(best), Field::ListInternal(list)) => {
                    let got: Vec<(String, i64)> = list
                        .elements()
                        .iter()
                        .map(|e| match e {
                            Field::Group(g) => (
                                g.get_string(0).unwrap().clone(),
                                i64::from(g.get_int(1).unwrap()),
                            ),
                            other => panic!("a list element {other:?}"),
                        })
                        .collect();
                    let expected: Vec<(String, i64)> = policy
                        .iter()
                        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_i64().unwrap()))
                        .collect();
                    assert_eq!(got, expected);
                    let most = expected.iter().map(|e| e.1).max().unwrap();
                    assert_eq!(best, &expected.iter().find(|e| e.1 == most).unwrap().0);
                }
                other => panic!("policy and columns disagree: {other:?}"),
            }
            n += 1;
        }
        assert_eq!(n, want.len());
    }
}
