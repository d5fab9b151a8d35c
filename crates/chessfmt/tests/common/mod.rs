//! Helpers shared by the CLI test files (each file uses some of them).
#![allow(dead_code)]

use std::{path::PathBuf, process::Command};

/// Runs the binary: (exit code, -1 when killed by a signal; stdout; stderr).
pub fn chessfmt(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A file of the repository's `testdata/`.
pub fn testdata_path(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(p)
}

/// [`testdata_path`] as an argument.
pub fn testdata(p: &str) -> String {
    testdata_path(p).display().to_string()
}

/// `../shared/fuzz-findings`, or `None` (saying so) when it is absent.
pub fn findings() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fuzz-findings");
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} is absent", p.display());
        None
    }
}

/// Peak resident memory of the waited-for children of this test process so far, in KiB.
#[cfg(unix)]
pub fn children_max_rss_kib() -> i64 {
    // SAFETY: getrusage fills the zeroed struct given.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut u);
        u.ru_maxrss
    }
}
