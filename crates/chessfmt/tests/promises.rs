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
    let cases: [(&[&str], Option<&[u8]>); 7] = [
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
        (&["polyglot", "entries", "a.bin", "-o", "-"], None),
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

/// An existing output is refused before any work (exit 1 naming it, nothing changed): before
/// the input is even opened, so the inputs here do not exist. A book is refused for any of
/// its files. (A refusal at the commit only, after the whole conversion, cost `kvetka
/// to-polyglot` 27 s on the gnuchess book.)
#[test]
fn an_existing_output_is_refused_before_the_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: [(&[&str], &str); 16] = [
        (&["polyglot", "build", "no.pgn", "-o", "o.bin"], "o.bin"),
        (
            &["polyglot", "merge", "no.bin", "no2.bin", "-o", "o.bin"],
            "o.bin",
        ),
        (
            &["polyglot", "from-tally", "no.parquet", "-o", "o.bin"],
            "o.bin",
        ),
        (&["ctg", "build", "no.pgn", "-o", "o.ctg"], "o.cto"),
        (&["ctg", "to-polyglot", "no.ctg", "-o", "o.bin"], "o.bin"),
        (&["ctg", "from-tally", "no.parquet", "-o", "o.ctg"], "o.ctb"),
        (&["kvetka", "build", "no.pgn", "-o", "o.kob"], "o.ksf"),
        (&["kvetka", "to-polyglot", "no.kob", "-o", "o.bin"], "o.bin"),
        (
            &["kvetka", "from-polyglot", "no.bin", "-o", "o.kob"],
            "o.kin",
        ),
        (&["cbh", "export", "no.cbh", "-o", "o.pgn"], "o.pgn"),
        (&["cbh", "import", "no.pgn", "-o", "o.cbh"], "o.cbh"),
        (&["tally", "no.pgn", "-o", "o.parquet"], "o.parquet"),
        (&["selfplay", "to-pgn", "no.bin", "-o", "o.pgn"], "o.pgn"),
        (&["convert", "no.ctg", "o.parquet"], "o.parquet"),
        (&["convert", "no.ctg", "o.ctg"], "o.ctb"),
        (&["convert", "no.ctg", "o.kob"], "o.kin"),
    ];
    for (args, existing) in cases {
        std::fs::write(d.join(existing), b"mine").unwrap();
        let (code, out, err) = run_in(d, args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(
            err.contains(existing) && err.contains("exists (use --force"),
            "{args:?}: {err}"
        );
        assert_eq!(
            std::fs::read(d.join(existing)).unwrap(),
            b"mine",
            "{args:?}"
        );
        std::fs::remove_file(d.join(existing)).unwrap();
        let left: Vec<_> = std::fs::read_dir(d).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

/// Every writer's help says so; the promise is the test above.
#[test]
fn the_help_makes_the_promise() {
    let (code, out, _) = chessfmt(&["polyglot", "build", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("an input is never"), "{out}");
}

/// `info` agrees with the format verbs (issue 29): a Kvetka book by its base name, the CTG
/// position count `ctg info` counts, a `.cbz` with `--password` accepted, a Polyglot book with
/// a partial last entry recognised.
#[test]
fn info_agrees_with_the_format_verbs() {
    let dir = fixture();
    let d = dir.path();
    let json = |args: &[&str]| -> serde_json::Value {
        let (code, out, err) = run_in(d, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        serde_json::from_slice(&out).unwrap()
    };
    let base = json(&["info", "book", "--json"]);
    assert_eq!(base["format"], "kvetka");
    assert_eq!(json(&["info", "book.kob", "--json"])["format"], "kvetka");
    let info = json(&["info", "book.ctg", "--json"]);
    let verb = json(&["ctg", "info", "book.ctg", "--json"]);
    assert_eq!(info["positions"], verb["positions"]);
    // A book with one byte after its last entry (as gnuchess 6.2.7's smallbook.bin).
    let mut bytes = std::fs::read(d.join("a.bin")).unwrap();
    bytes.push(0);
    std::fs::write(d.join("odd.bin"), &bytes).unwrap();
    let info = json(&["info", "odd.bin", "--json"]);
    assert_eq!(info["format"], "polyglot");
    assert_eq!(info["trailing_bytes"], 1);
    // --password is an option of info (a usage error before).
    let (code, _, err) = run_in(d, &["info", "book.ctg", "--password", "x"]);
    assert_eq!(code, 0, "{err}");
}

/// A CTG verb given a Polyglot book names what it is, never a missing `BOOK.bin.ctg`.
#[test]
fn a_ctg_verb_names_the_kind_it_was_given() {
    let dir = fixture();
    let (code, _, err) = run_in(dir.path(), &["ctg", "probe", "a.bin"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("is not a CTG book") && err.contains("Polyglot"),
        "{err}"
    );
    assert!(!err.contains("a.bin.ctg"), "{err}");
}

/// The selfplay verbs refuse a value-format file by name (before, `stats` called its games
/// cut).
#[test]
fn value_format_files_are_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(testdata("selfplay/small.bin"), d.join("p.bin")).unwrap();
    let (code, _, err) = run_in(d, &["selfplay", "to-value", "p.bin", "-o", "v.bin"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run_in(d, &["info", "v.bin", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["format"], "selfplay-value", "{v}");
    for verb in ["stats", "head"] {
        let (code, _, err) = run_in(d, &["selfplay", verb, "v.bin"]);
        assert_eq!(code, 1, "{verb}: {err}");
        assert!(err.contains("value-format"), "{verb}: {err}");
    }
}

/// `polyglot probe` reads castling stored king-to-target (`e1g1`) as castling and says so.
#[test]
fn king_to_target_castling_is_probed_as_castling() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // After 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5: White may castle short; e1g1 = 262.
    let fen = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let (code, key, _) = run_in(d, &["polyglot", "key", "--fen", fen]);
    assert_eq!(code, 0);
    let key = u64::from_str_radix(String::from_utf8(key).unwrap().trim(), 16).unwrap();
    let mut entry = Vec::new();
    entry.extend_from_slice(&key.to_be_bytes());
    entry.extend_from_slice(&262u16.to_be_bytes());
    entry.extend_from_slice(&100u16.to_be_bytes());
    entry.extend_from_slice(&0u32.to_be_bytes());
    std::fs::write(d.join("k.bin"), &entry).unwrap();
    let (code, out, err) = run_in(d, &["polyglot", "probe", "k.bin", "--fen", fen, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v[0]["uci"], "e1g1", "{v}");
    assert_eq!(v[0]["encoding"], "king-to-target", "{v}");
}

/// Issue 30: a journal planted beside a book (naming a foreign file to remove) is never
/// executed, by a reader or by a writer into the folder; it is reported as not ours.
#[test]
fn a_planted_journal_is_reported_and_never_executed() {
    let dir = fixture();
    let d = dir.path();
    std::fs::write(d.join("notes.txt"), "mine").unwrap();
    let hex: String = "notes.txt".bytes().map(|b| format!("{b:02x}")).collect();
    for text in [
        format!("chessfmt-commit 1\nremove {hex}\nend\n"),
        format!("chessfmt-commit 2\nset 626f6f6b2e637467\nremove {hex}\nend 00000000\n"),
    ] {
        std::fs::write(d.join(".book.ctg.chessfmt-commit"), &text).unwrap();
        let (code, _, err) = run_in(d, &["ctg", "probe", "book.ctg"]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("not ours"), "{err}");
        let (code, _, err) = run_in(
            d,
            &[
                "polyglot", "merge", "a.bin", "a.bin", "-o", "u.bin", "--force",
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            std::fs::read_to_string(d.join("notes.txt")).unwrap(),
            "mine"
        );
    }
}

/// Issue 30: a multi-file output on a device is a usage error, and the device is left as it
/// is (as root, `ctg build -o /dev/null` replaced the device node with a file).
#[cfg(unix)]
#[test]
fn a_set_is_never_written_over_a_device() {
    let dir = fixture();
    for args in [
        &["ctg", "build", "small.pgn", "-o", "/dev/null", "--force"][..],
        &["kvetka", "build", "small.pgn", "-o", "/dev/null", "--force"],
        &["cbh", "import", "small.pgn", "-o", "/dev/null", "--force"],
    ] {
        let (code, _, err) = run_in(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(!m.is_file(), "/dev/null is still a device");
    }
}

/// Issue 30: a Latin-1 PGN is PGN (before: "it looks like binary data"), its names come back
/// right (not U+FFFD), and a cut last game or a cut compressed stream ends `cbh import` with
/// the games before it kept and reported, as the book builders do.
#[test]
fn latin1_and_cut_inputs_are_imported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = |white: &[u8]| {
        let mut g = b"[Event \"E\"]\n[White \"".to_vec();
        g.extend_from_slice(white);
        g.extend_from_slice(b"\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n");
        g
    };
    let mut latin1 = game(b"M\xfcller, Hans");
    latin1.extend(game("Müller, Jörg".as_bytes()));
    std::fs::write(d.join("latin1.pgn"), &latin1).unwrap();
    for args in [
        &["polyglot", "build", "latin1.pgn", "-o", "l.bin"][..],
        &["cbh", "import", "latin1.pgn", "-o", "l.cbh"],
    ] {
        let (code, _, err) = run_in(d, args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    let (code, out, _) = run_in(d, &["cbh", "export", "l.cbh"]);
    assert_eq!(code, 0);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("Müller, Hans") && out.contains("Müller, Jörg"),
        "{out}"
    );
    // A last game cut inside a comment: the games before it are imported, the cut one
    // reported.
    let mut cut = game(b"A");
    cut.extend(game(b"C"));
    cut.extend_from_slice(b"[Event \"E\"]\n[Result \"1-0\"]\n\n1. e4 {a comment that never ends");
    std::fs::write(d.join("cut.pgn"), &cut).unwrap();
    let (code, _, err) = run_in(d, &["cbh", "import", "cut.pgn", "-o", "cut.cbh"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 added, 1 skipped"), "{err}");
    assert!(
        err.contains("chessfmt: warning:") && err.contains("reading stopped"),
        "{err}"
    );
    // A gzip stream cut at 90 %.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for i in 0..200 {
        std::io::Write::write_all(&mut gz, &game(format!("P{i}").as_bytes())).unwrap();
    }
    let gz = gz.finish().unwrap();
    std::fs::write(d.join("cut.pgn.gz"), &gz[..gz.len() * 9 / 10]).unwrap();
    let (code, _, err) = run_in(d, &["cbh", "import", "cut.pgn.gz", "-o", "gz.cbh"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("reading stopped"), "{err}");
}
