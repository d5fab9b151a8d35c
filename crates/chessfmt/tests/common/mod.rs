//! Helpers shared by the CLI test files (each file uses some of them).
#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    process::Command,
};

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
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
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

/// Whether two files hold the same bytes, read a piece at a time. The test binaries that
/// measure memory hold no large data: what a test holds when another test's child forks
/// counts in that child's peak (see `measured`).
pub fn same_bytes(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (mut a, mut b) = (
        std::io::BufReader::new(std::fs::File::open(a).unwrap()),
        std::io::BufReader::new(std::fs::File::open(b).unwrap()),
    );
    let (mut x, mut y) = (vec![0; 1 << 16], vec![0; 1 << 16]);
    loop {
        let n = a.read(&mut x).unwrap();
        if n == 0 {
            return b.read(&mut y[..1]).unwrap() == 0;
        }
        if b.read_exact(&mut y[..n]).is_err() || x[..n] != y[..n] {
            return false;
        }
    }
}

/// The lines of a text file, read one at a time ([`same_bytes`] says why), lossily decoded.
pub fn lines_of(path: &Path) -> impl Iterator<Item = String> {
    use std::io::BufRead;
    std::io::BufReader::new(std::fs::File::open(path).unwrap())
        .split(b'\n')
        .map(|l| String::from_utf8_lossy(&l.unwrap()).into_owned())
}

/// Calls `each` with the bytes of a file, a piece at a time ([`same_bytes`] says why).
fn each_piece(path: &Path, mut each: impl FnMut(&[u8])) {
    use std::io::Read;
    let mut f = std::fs::File::open(path).unwrap();
    let mut buf = vec![0; 1 << 16];
    loop {
        match f.read(&mut buf).unwrap() {
            0 => return,
            n => each(&buf[..n]),
        }
    }
}

/// How many times `needle` (not empty, and which cannot overlap itself) occurs in a file,
/// read a piece at a time ([`same_bytes`] says why).
pub fn count_text(path: &Path, needle: &str) -> usize {
    let needle = needle.as_bytes();
    let (mut window, mut count) = (Vec::new(), 0);
    each_piece(path, |piece| {
        // The last bytes of the piece before (too few for a match of their own) and this one.
        window.extend_from_slice(piece);
        count += window
            .windows(needle.len())
            .filter(|w| *w == needle)
            .count();
        window.drain(..window.len() - window.len().min(needle.len() - 1));
    });
    count
}

/// How many times `byte` occurs in a file, read a piece at a time ([`same_bytes`] says why).
pub fn count_byte(path: &Path, byte: u8) -> usize {
    let mut count = 0;
    each_piece(path, |piece| {
        count += piece.iter().filter(|&&b| b == byte).count()
    });
    count
}

/// Writes `copies` copies of `from` to a new file `to`, a piece at a time ([`same_bytes`]
/// says why); `from` must exist.
pub fn write_copies(from: &Path, to: &Path, copies: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(to).unwrap());
    for _ in 0..copies {
        let mut f = std::fs::File::open(from)
            .unwrap_or_else(|e| panic!("{}: {e} (is ../shared/corpus there?)", from.display()));
        std::io::copy(&mut f, &mut out).unwrap();
    }
    std::io::Write::flush(&mut out).unwrap();
}

/// What one run of the binary cost.
#[cfg(unix)]
#[derive(Debug)]
pub struct Measured {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Peak resident memory of this child alone, in KiB (`wait4`).
    pub peak_kib: i64,
    /// Wall time.
    pub secs: f64,
    /// Bytes written to standard output (discarded).
    pub stdout_bytes: u64,
    /// Standard error.
    pub stderr: String,
}

/// Runs the binary with standard output counted and discarded, and measures its own peak
/// memory through `wait4` (so several measured runs may share a test binary).
///
/// Linux counts in a process's peak the memory of the process it was before `exec`: a child
/// made by `vfork` (what `Command` uses) inherits the test process's *peak*, one made by
/// `fork` its *current* size. So the child is forked (a `pre_exec` hook forces that), and
/// spawns are serialised. The test process's memory at the fork is in the copy, whichever
/// test holds it: the tests that measure keep their data on disk and read it a piece at a
/// time ([`same_bytes`], [`lines_of`], [`count_byte`], [`write_copies`]), so that the copy
/// stays small (two tables compared in memory by another test once added 60 MB to a
/// child's peak: session 28).
#[cfg(unix)]
pub fn measured(args: &[&str]) -> Measured {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    static SPAWN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let start = std::time::Instant::now();
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessfmt"));
    command
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the hook does nothing (it only makes std fork instead of vfork).
    unsafe {
        command.pre_exec(|| Ok(()));
    }
    let guard = SPAWN.lock().unwrap_or_else(|e| e.into_inner());
    let mut child = command.spawn().unwrap();
    drop(guard);
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let counter = std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    // SAFETY: wait4 fills the zeroed status and rusage of our own child, which std has not
    // waited for (and never will: `child` is forgotten below).
    let (status, usage) = unsafe {
        let mut status = 0;
        let mut usage: libc::rusage = std::mem::zeroed();
        let pid = child.id() as libc::pid_t;
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut usage), pid);
        (status, usage)
    };
    std::mem::forget(child);
    let stdout_bytes = counter.join().unwrap().unwrap_or(0);
    let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    Measured {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
        peak_kib: usage.ru_maxrss,
        secs: start.elapsed().as_secs_f64(),
        stdout_bytes,
        stderr,
    }
}

/// The binary alone (runtime, mapped code, thread stacks) stays under this many KiB (the
/// memory bounds of `resource_bounds.rs` and `tally_bounds.rs`).
pub const BASE_KIB: i64 = 32 * 1024;

/// A scratch directory beside the build (`CARGO_TARGET_TMPDIR`), not in `/tmp`: the full
/// sizes write hundreds of megabytes, more than a small `/tmp` holds.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}
