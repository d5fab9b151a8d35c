//! The CLI's output promises (issue 29): `-o -` is standard output for every single-file
//! output and a usage error (exit 2) for multi-file sets, never a file named `-`; `--force`
//! never replaces an input (exit 1 naming it, nothing written).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{chessfmt, testdata};

/// Runs in `dir`: (exit code, stdout bytes, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A folder with `small.pgn`, `a.bin` (built from it), a CTG and a Kvetka book of it.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(testdata("kvetka/small.pgn"), d.join("small.pgn")).unwrap();
    for args in [
        &["polyglot", "build", "small.pgn", "-o", "a.bin"][..],
        &["ctg", "build", "small.pgn", "-o", "book.ctg"],
        &["kvetka", "build", "small.pgn", "-o", "book.kob"],
    ] {
        let (code, _, err) = run_in(d, args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    dir
}

#[test]
fn dash_is_standard_output_for_every_single_file_output() {
    let dir = fixture();
    let d = dir.path();
    let book = std::fs::read(d.join("a.bin")).unwrap();
    let cases: [(&[&str], Option<&[u8]>); 6] = [
        (&["polyglot", "build", "small.pgn", "-o", "-"], Some(&book)),
        (
            &[
                "polyglot",
                "merge",
                "a.bin",
                "a.bin",
                "-o",
                "-",
                "--strategy",
                "first",
            ],
            Some(&book),
        ),
        (
            &[
                "polyglot",
                "merge",
                "a.bin",
                "a.bin",
                "-o",
                "-",
                "--strategy",
                "reference",
            ],
            None,
        ),
        (
            &["polyglot", "dump", "a.bin", "--color", "white", "-o", "-"],
            None,
        ),
        (&["ctg", "to-polyglot", "book.ctg", "-o", "-"], None),
        (&["kvetka", "to-polyglot", "book", "-o", "-"], None),
    ];
    for (args, want) in cases {
        let (code, out, err) = run_in(d, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.is_empty(), "{args:?}: nothing on standard output");
        if let Some(want) = want {
            assert_eq!(out, want, "{args:?}");
        }
        assert!(!d.join("-").exists(), "{args:?} wrote a file named -");
    }
    // The Polyglot conversions are books: whole 16-byte entries.
    let (_, out, _) = run_in(d, &["ctg", "to-polyglot", "book.ctg", "-o", "-"]);
    assert_eq!(out.len() % 16, 0);
    // --json prints the summary on standard output: not with -o - (a usage error).
    let (code, _, err) = run_in(d, &["polyglot", "build", "small.pgn", "-o", "-", "--json"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn dash_is_refused_for_multi_file_outputs() {
    let dir = fixture();
    let d = dir.path();
    for args in [
        &["ctg", "build", "small.pgn", "-o", "-"][..],
        &["kvetka", "build", "small.pgn", "-o", "-"],
        &["kvetka", "from-polyglot", "a.bin", "-o", "-"],
        &["cbh", "import", "small.pgn", "-o", "-"],
    ] {
        let (code, _, err) = run_in(d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("standard output"), "{args:?}: {err}");
        assert!(!d.join("-").exists(), "{args:?} wrote a file named -");
    }
}

#[test]
fn force_never_replaces_an_input() {
    let dir = fixture();
    let d = dir.path();
    std::fs::copy(d.join("a.bin"), d.join("b.bin")).unwrap();
    std::fs::copy(d.join("small.pgn"), d.join("x.ctg")).unwrap();
    let before = |p: &str| std::fs::read(d.join(p)).unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "polyglot", "dump", "a.bin", "--color", "white", "-o", "a.bin", "--force",
            ],
            "a.bin",
        ),
        (
            &[
                "polyglot", "merge", "a.bin", "b.bin", "-o", "a.bin", "--force",
            ],
            "a.bin",
        ),
        (
            &[
                "polyglot", "merge", "a.bin", "b.bin", "-o", "./b.bin", "--force",
            ],
            "b.bin",
        ),
        (
            &[
                "polyglot",
                "build",
                "small.pgn",
                "-o",
                "small.pgn",
                "--force",
            ],
            "small.pgn",
        ),
        (
            &["ctg", "build", "x.ctg", "-o", "x.ctg", "--force"],
            "x.ctg",
        ),
        (
            &[
                "ctg",
                "to-polyglot",
                "book.ctg",
                "-o",
                "book.ctb",
                "--force",
            ],
            "book.ctb",
        ),
    ];
    for (args, input) in cases {
        let was = before(input);
        let (code, out, err) = run_in(d, args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(
            err.contains(input) && err.contains("input"),
            "{args:?}: {err}"
        );
        assert_eq!(before(input), was, "{args:?} changed its input");
    }
}

/// Every writer's help says so; the promise is the test above.
#[test]
fn the_help_makes_the_promise() {
    let (code, out, _) = chessfmt(&["polyglot", "build", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("an input is never"), "{out}");
}
