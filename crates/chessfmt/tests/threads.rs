//! The README's promise: every book and table built from PGN is the same, byte for byte, at
//! every thread count (the games are cut into pieces, replayed and counted in parallel, and
//! the output never depends on how). jja's books, for one, differ between 1 and 2 threads.

use std::{path::PathBuf, process::Command};

/// The 10,000-game gnuchess PGN (5.8 MB: a dozen pieces, so several groups in flight).
fn pgn() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot/pgn/gnuchess-book_1.02-first10000.pgn");
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

/// Runs the binary on `threads` worker threads (the pool's size, for the verbs without
/// `--threads`, and `--threads` where `flag`).
fn build(args: &[&str], threads: usize, flag: bool) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chessfmt"));
    command
        .args(args)
        .env("RAYON_NUM_THREADS", threads.to_string());
    if flag {
        command.args(["--threads", &threads.to_string()]);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} on {threads} threads: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The bytes of every file in `dir` whose name starts with `stem`, by name.
fn files(dir: &std::path::Path, stem: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with(stem))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn builds_are_the_same_at_every_thread_count() {
    let pgn = pgn();
    let pgn = pgn.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // (verb, output name, whether the verb takes --threads)
    let jobs: [(&[&str], &str, bool); 4] = [
        (&["polyglot", "build"], "book.bin", true),
        (&["ctg", "build"], "book.ctg", false),
        (&["kvetka", "build"], "book.kob", false),
        (&["tally"], "table.parquet", true),
    ];
    for (verb, name, flag) in jobs {
        let mut seen: Option<Vec<(String, Vec<u8>)>> = None;
        for threads in [1, 2, 3] {
            let sub = dir.path().join(format!("{}-{threads}", verb[0]));
            std::fs::create_dir(&sub).unwrap();
            let out = sub.join(name);
            let mut args: Vec<&str> = verb.to_vec();
            args.extend([pgn, "-o", out.to_str().unwrap()]);
            build(&args, threads, flag);
            let stem = name.split('.').next().unwrap();
            let got = files(&sub, stem);
            assert!(!got.is_empty() && got.iter().all(|(_, b)| !b.is_empty()));
            match &seen {
                None => seen = Some(got),
                Some(want) => assert!(*want == got, "{verb:?}: {threads} threads differ from 1"),
            }
        }
    }
}

/// `--threads N` is every worker a verb starts: no phase (a book's sort and write, say) runs
/// on rayon's global pool of one thread a core beside the N. Each verb writes to a pipe read
/// only once the output has begun, so it is held in its writing, the threads counted there
/// (`/proc/PID/task`): the main thread, the signal thread and N workers. `RAYON_NUM_THREADS`
/// is set high so that any use of the global pool would show.
#[cfg(target_os = "linux")]
#[test]
fn threads_flag_bounds_every_phase() {
    use std::io::Read;
    let pgn = pgn();
    let db = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/chessbase/uncbv-tests/twic1134/twic1134.cbh");
    assert!(db.is_file(), "{} is missing", db.display());
    let jobs: [&[&str]; 3] = [
        &["polyglot", "build", pgn.to_str().unwrap(), "-o", "-"],
        &["tally", pgn.to_str().unwrap(), "-o", "-", "--max-ply", "12"],
        &["cbh", "export", db.to_str().unwrap(), "-o", "-"],
    ];
    for args in jobs {
        for threads in [1, 2] {
            let mut child = Command::new(env!("CARGO_BIN_EXE_chessfmt"))
                .args(args)
                .args(["--threads", &threads.to_string()])
                .env("RAYON_NUM_THREADS", "12")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let mut stdout = child.stdout.take().unwrap();
            let mut first = [0u8; 1];
            stdout.read_exact(&mut first).unwrap();
            // The pipe fills again and the writer waits on it.
            std::thread::sleep(std::time::Duration::from_millis(300));
            let tasks = std::fs::read_dir(format!("/proc/{}/task", child.id()))
                .unwrap()
                .count();
            let mut rest = Vec::new();
            stdout.read_to_end(&mut rest).unwrap();
            assert!(child.wait().unwrap().success(), "{args:?}");
            assert!(
                rest.len() > 1 << 17,
                "{args:?}: {} bytes, not enough to fill the pipe",
                rest.len() + 1
            );
            assert!(
                tasks <= 2 + threads,
                "{args:?} --threads {threads}: {tasks} threads while writing"
            );
        }
    }
}
