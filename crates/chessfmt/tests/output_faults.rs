//! Standard output that cannot take the output: a full device (`> /dev/full`) and a closed
//! descriptor (`>&-`) end every printing verb with exit 1 and one line on standard error,
//! never a panic (exit 101) and never a silent success; a full standard error does not panic
//! either. Summaries of writing verbs go to standard error, so those verbs do not need
//! standard output at all.

mod common;

use std::{
    fs::File,
    process::{Command, Stdio},
};

use common::{chessfmt, testdata};

fn run(args: &[&str], stdout: Stdio, stderr: Stdio) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .args(args)
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Printing verbs over the repository's fixtures (the ones that need no corpus).
fn printing_verbs(dir: &std::path::Path) -> Vec<Vec<String>> {
    let book = testdata("polyglot/small.bin");
    let selfplay = testdata("selfplay/small.bin");
    let pgn = testdata("kvetka/small.pgn");
    let kob = dir.join("s.kob").display().to_string();
    let ctg = dir.join("s.ctg").display().to_string();
    assert_eq!(chessfmt(&["kvetka", "build", &pgn, "-o", &kob]).0, 0);
    assert_eq!(chessfmt(&["ctg", "build", &pgn, "-o", &ctg]).0, 0);
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["info", &book]),
        v(&["polyglot", "probe", &book]),
        v(&["polyglot", "probe", &book, "--json"]),
        v(&["polyglot", "info", &book]),
        v(&["polyglot", "entries", &book]),
        v(&["ctg", "probe", &ctg]),
        v(&["ctg", "dump", &ctg, "--json"]),
        v(&["ctg", "walk", &ctg]),
        v(&["kvetka", "probe", &kob]),
        v(&["kvetka", "info", &kob]),
        v(&["kvetka", "dump", &kob]),
        v(&["selfplay", "stats", &selfplay]),
        v(&["selfplay", "head", &selfplay]),
        v(&["selfplay", "positions", &selfplay, "--json"]),
        v(&["selfplay", "validate", &selfplay]),
    ]
}

#[test]
fn full_standard_output_is_an_error_for_every_printing_verb() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipping: no /dev/full here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for args in printing_verbs(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let full = File::options().write(true).open("/dev/full").unwrap();
        let (code, err) = run(&args, full.into(), Stdio::piped());
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
        // A full standard error as well: still no panic.
        let full = File::options().write(true).open("/dev/full").unwrap();
        let full_err = File::options().write(true).open("/dev/full").unwrap();
        let (code, _) = run(&args, full.into(), full_err.into());
        assert_eq!(code, 1, "{args:?} with stderr full too");
    }
}

#[cfg(unix)]
#[test]
fn closed_standard_output_is_an_error_not_a_silent_success() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    for args in printing_verbs(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_chessfmt"));
        cmd.args(&args).stderr(Stdio::piped());
        // SAFETY: only closes descriptor 1 in the child between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::close(1);
                Ok(())
            });
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("standard output: it is closed"),
            "{args:?}: {err}"
        );
    }
    // `> /dev/null` is not a closed output.
    let devnull = File::options().write(true).open("/dev/null").unwrap();
    let book = testdata("polyglot/small.bin");
    let (code, err) = run(
        &["polyglot", "probe", &book],
        devnull.into(),
        Stdio::piped(),
    );
    assert_eq!(code, 0, "{err}");
    // A writing verb with its summary on standard error does not need standard output.
    let out = dir.path().join("b.bin").display().to_string();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_chessfmt"));
    cmd.args([
        "polyglot",
        "build",
        &testdata("kvetka/small.pgn"),
        "-o",
        &out,
    ]);
    // SAFETY: as above.
    unsafe {
        cmd.pre_exec(|| {
            libc::close(1);
            Ok(())
        });
    }
    let status = cmd.status().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(std::path::Path::new(&out).exists());
}

#[test]
fn chessbase_is_an_alias_of_cbh() {
    let (code, out, _) = chessfmt(&["chessbase", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("export"), "{out}");
}

/// Issue 30: a read-write `/dev/null` (Python's `subprocess.DEVNULL`, `1<>/dev/null`) is a
/// normal sink, not a closed standard output.
#[cfg(target_os = "linux")]
#[test]
fn read_write_dev_null_is_a_sink() {
    let devnull = File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
        .unwrap();
    let book = testdata("polyglot/small.bin");
    let (code, err) = run(&["polyglot", "info", &book], devnull.into(), Stdio::piped());
    assert_eq!(code, 0, "{err}");
}
