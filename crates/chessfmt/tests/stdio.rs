//! `-` is standard input or output wherever a verb reads PGN or a Polyglot book or writes a
//! file, and the text exports write to standard output by default (their summary then goes
//! to stderr).

mod common;

use std::{
    io::Write,
    process::{Command, Stdio},
};

use common::testdata;

fn run_with_stdin(args: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn builders_read_pgn_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = std::fs::read(testdata("kvetka/small.pgn")).unwrap();
    let from_file = dir.path().join("f.bin").display().to_string();
    let from_stdin = dir.path().join("s.bin").display().to_string();
    let (code, _, err) = run_with_stdin(
        &[
            "polyglot",
            "build",
            &testdata("kvetka/small.pgn"),
            "-o",
            &from_file,
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run_with_stdin(&["polyglot", "build", "-", "-o", &from_stdin], &pgn);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&from_file).unwrap(),
        std::fs::read(&from_stdin).unwrap()
    );
    // Compressed standard input is recognised by its first bytes.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&pgn).unwrap();
    let ctg = dir.path().join("g.ctg").display().to_string();
    let (code, _, err) = run_with_stdin(&["ctg", "build", "-", "-o", &ctg], &gz.finish().unwrap());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("from 6 games"), "{err}");
}

#[test]
fn text_exports_write_to_standard_output_by_default() {
    let sp = testdata("selfplay/small.bin");
    let (code, out, err) = run_with_stdin(&["selfplay", "to-pgn", &sp], b"");
    assert_eq!(code, 0, "{err}");
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.matches("[Event ").count(), 3, "{text}");
    assert!(err.contains("to-pgn: read 3 games"), "{err}");
    let (code, out, err) = run_with_stdin(&["selfplay", "to-fen", &sp, "-o", "-"], b"");
    assert_eq!(code, 0, "{err}");
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 12);
    // And from standard input to standard output.
    let data = std::fs::read(&sp).unwrap();
    let (code, out, err) = run_with_stdin(&["selfplay", "to-fen", "-"], &data);
    assert_eq!(code, 0, "{err}");
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 12);
}

/// A Polyglot book (one file) is read from standard input as `-`, as a file is; the wrong
/// kind of data there is refused like a wrong file. `cbh export -o -` writes to standard
/// output (and then refuses `--json`, whose summary would mix with the PGN).
#[test]
fn a_polyglot_book_from_standard_input_and_export_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.bin");
    let (code, _, err) = common::chessfmt(&[
        "polyglot",
        "build",
        &testdata("kvetka/small.pgn"),
        "-o",
        book.to_str().unwrap(),
        "--min-game",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&book).unwrap();
    let (code, from_file, _) = common::chessfmt(&["polyglot", "probe", book.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, from_stdin, err) = run_with_stdin(&["polyglot", "probe", "-"], &bytes);
    assert_eq!(code, 0, "{err}");
    assert!(!from_file.is_empty());
    assert_eq!(String::from_utf8(from_stdin).unwrap(), from_file);

    let sp = std::fs::read(testdata("selfplay/small.bin")).unwrap();
    let (code, _, err) = run_with_stdin(&["polyglot", "probe", "-"], &sp);
    assert_eq!(code, 1);
    assert!(err.contains("is not a Polyglot opening book"), "{err}");
}
