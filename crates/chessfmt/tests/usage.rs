//! Usage errors exit 2 with clap's message, before any file is read or written; bad input
//! (a file that does not exist) exits 1.

mod common;

use common::{chessfmt, testdata};

#[test]
fn bad_option_values_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name).display().to_string();
    let pgn = testdata("kvetka/small.pgn");
    let book = testdata("polyglot/small.bin");
    let selfplay = testdata("selfplay/small.bin");
    let ctg = out("s.ctg");
    assert_eq!(chessfmt(&["ctg", "build", &pgn, "-o", &ctg]).0, 0);
    let cases: Vec<Vec<String>> = [
        vec!["cbh", "list", "x.cbh", "--range", "5-2"],
        vec!["cbh", "list", "x.cbh", "--range", "0-3"],
        vec!["cbh", "export", "x.cbh", "--json"],
        vec![
            "polyglot",
            "build",
            &pgn,
            "-o",
            &out("a.bin"),
            "--min-score",
            "101",
        ],
        vec![
            "polyglot",
            "build",
            &pgn,
            "-o",
            &out("a.bin"),
            "--min-score",
            "nan",
        ],
        vec![
            "ctg",
            "to-polyglot",
            &ctg,
            "-o",
            &out("b.bin"),
            "--policy",
            "bogus",
        ],
        vec![
            "selfplay",
            "split",
            &selfplay,
            "--parts",
            "0",
            "-o",
            &out("sp"),
        ],
        vec![
            "selfplay",
            "filter",
            &selfplay,
            "--min-score",
            "2",
            "-o",
            &out("f.bin"),
        ],
        vec![
            "polyglot",
            "merge",
            &book,
            &book,
            &book,
            "-o",
            &out("m.bin"),
            "--strategy",
            "reference",
        ],
    ]
    .iter()
    .map(|c| c.iter().map(|s| s.to_string()).collect())
    .collect();
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = chessfmt(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(stderr.starts_with("error:"), "{args:?}: {stderr}");
    }
    // Nothing was written by any of them.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // The book's lock file, made when it was built (chessfmt_files::set_lock).
        .filter(|n| !n.ends_with(".chessfmt-lock"))
        .collect();
    names.sort();
    assert_eq!(names, ["s.ctb", "s.ctg", "s.cto"]);
    // The same verbs with good values run.
    let (code, _, err) = chessfmt(&[
        "polyglot",
        "build",
        &pgn,
        "-o",
        &out("a.bin"),
        "--min-score",
        "50",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        chessfmt(&[
            "polyglot",
            "merge",
            &book,
            &book,
            "-o",
            &out("m.bin"),
            "--strategy",
            "reference"
        ])
        .0,
        0
    );
}

#[test]
fn thread_counts_are_capped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.bin").display().to_string();
    let pgn = testdata("kvetka/small.pgn");
    let start = std::time::Instant::now();
    let (code, _, err) = chessfmt(&["polyglot", "build", &pgn, "-o", &out, "--threads", "100000"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("--threads 100000 capped at"), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}
