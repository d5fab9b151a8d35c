//! Regression tests for the ChessBase crafted inputs of ../shared/fuzz-findings (issue 20,
//! F2 and F3), in their own test binary so that the memory bound of `fuzz_findings.rs` (read
//! from `RUSAGE_CHILDREN`) sees only its own children.

mod common;
#[cfg(unix)]
use common::{children_max_rss_kib, findings};

use std::{process::Command, time::Instant};

/// F2 and F3: ChessBase games with variations nested 5,000–100,000 deep (the PGN writer and
/// the JSON builder recursed per level: SIGABRT, the whole export lost), and a 200 KB game
/// whose variations all hang off one node (adding one walked all its siblings: 30–120 s).
/// Now nesting stops at `Limits::variation_depth` (256) with the game reported as truncated
/// and exported up to there, and adding a variation is constant time.
#[cfg(unix)]
#[test]
fn f2_f3_chessbase_deep_and_wide_variations() {
    let Some(dir) = findings() else { return };
    let out = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    for case in [
        "hand/cbh-deep5000",
        "hand/cbh-deep10000",
        "hand/cbh-deep100000",
        "cbh_moves-1.cli",
    ] {
        let db = dir.join(case).join("db.cbh");
        if !db.exists() {
            // Missing data fails while ../shared is present: a test never passes by skipping.
            assert!(
                !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"))
                    .is_dir(),
                "test data missing while ../shared is present",
            );
            eprintln!("skipping {case}: absent");
            continue;
        }
        let db = db.to_str().unwrap();
        let pgn = out.path().join("x.pgn");
        let start = Instant::now();
        let run = |args: &[&str]| {
            let o = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
                .args(args)
                .output()
                .unwrap();
            (
                o.status.code(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
                o.stdout.len(),
            )
        };
        let (code, err, _) = run(&["cbh", "export", db, "-o", pgn.to_str().unwrap(), "--force"]);
        assert_eq!(code, Some(0), "{case}: {err}");
        assert!(err.contains("exported 1 games"), "{case}: {err}");
        if case.contains("deep") {
            assert!(
                err.contains("variations nested deeper than 256"),
                "{case}: {err}"
            );
            let opened = common::count_byte(&pgn, b'(');
            assert_eq!(opened, common::count_byte(&pgn, b')'), "{case}");
            assert!(opened >= 256, "{case}: exported up to the limit");
        }
        for json in [false, true] {
            let mut args = vec!["cbh", "show", db, "1"];
            if json {
                args.push("--json");
            }
            let (code, err, len) = run(&args);
            assert_eq!(code, Some(0), "{case} {args:?}: {err}");
            assert!(len > 0);
        }
        assert!(
            start.elapsed().as_secs() < 20,
            "{case}: {:?}",
            start.elapsed()
        );
    }
}

/// F5: 2,048 `.cbh` records that all point at one 200 KB game. `cbh export` held 2,048
/// finished games before writing (3.0 GB, 294 s). Now a chunk holds at most
/// `Limits::bytes_in_flight` of stored games, and records whose game data overlaps an earlier
/// record's are reported instead of decoded again (ChessBase stores each game once): one game
/// exported, 2,047 records reported, in well under a second.
#[cfg(unix)]
#[test]
fn f5_chessbase_records_sharing_one_large_game() {
    let Some(dir) = findings() else { return };
    let db = dir.join("hand/cbh-copies2048/db.cbh");
    if !db.exists() {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!("skipping: {} is absent", db.display());
        return;
    }
    let out = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let pgn = out.path().join("x.pgn");
    let start = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .args([
            "cbh",
            "export",
            db.to_str().unwrap(),
            "-o",
            pgn.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("exported 1 games (0 truncated), skipped 2047"),
        "{err}"
    );
    assert!(
        err.contains("skipped: game 2: cbh byte 92: its game data overlaps that of record 1"),
        "{err}"
    );
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    let peak_kib = children_max_rss_kib();
    assert!(peak_kib < 100 * 1024, "peak {peak_kib} KiB");
}
