//! Two processes at once (issue 30): readers during `--force` rewrites never fail on a
//! commit that completed and never see a mix of two books; two `kvetka add` on one book
//! serialise (no update lost). The sets are ordered by their lock (chessfmt_files::set_lock).

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn chessfmt_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// The first `n` games of the lichess sample, or of the testdata PGN repeated.
fn games(n: usize, seed: usize) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/kvetka/small.pgn"),
    )
    .unwrap();
    // Each copy gets its own Event so that the books differ by input.
    (0..n)
        .map(|i| text.replace("[Event \"", &format!("[Event \"{seed}-{i} ")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn readers_during_rewrites_see_one_whole_book() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    std::fs::write(d.join("a.pgn"), games(1, 1)).unwrap();
    std::fs::write(d.join("b.pgn"), games(4, 2)).unwrap();
    let out = chessfmt_in(&d, &["ctg", "build", "a.pgn", "-o", "book.ctg"]);
    assert!(out.status.success());
    // The two answers a reader may get: the book of a.pgn or of b.pgn.
    let info = |d: &Path| {
        let o = chessfmt_in(d, &["ctg", "info", "book.ctg", "--json"]);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let old = info(&d).1;
    let out = chessfmt_in(&d, &["ctg", "build", "b.pgn", "-o", "book.ctg", "--force"]);
    assert!(out.status.success());
    let new = info(&d).1;
    assert_ne!(old, new);
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (d, stop, old, new) = (d.clone(), stop.clone(), old.clone(), new.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let (code, out, err) = info(&d);
                    assert_eq!(code, Some(0), "a reader failed: {err}");
                    assert!(out == old || out == new, "a mixed answer: {out}");
                    n += 1;
                }
                n
            })
        })
        .collect();
    for i in 0..12 {
        let pgn = if i % 2 == 0 { "a.pgn" } else { "b.pgn" };
        let out = chessfmt_in(&d, &["ctg", "build", pgn, "-o", "book.ctg", "--force"]);
        assert!(
            out.status.success(),
            "writer {i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stop.store(true, Ordering::Relaxed);
    let reads: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(reads > 0);
}

#[test]
fn concurrent_kvetka_adds_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    std::fs::write(d.join("a.pgn"), games(1, 1)).unwrap();
    // Adds long enough (a few hundred games each) to overlap when started together.
    for i in 0..4 {
        std::fs::write(d.join(format!("add{i}.pgn")), games(60, 10 + i)).unwrap();
    }
    let out = chessfmt_in(
        &d,
        &["kvetka", "build", "a.pgn", "-o", "book", "--with-games"],
    );
    assert!(out.status.success());
    let games_in = |d: &Path| -> u64 {
        let o = chessfmt_in(d, &["kvetka", "info", "book", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["games"].as_u64().unwrap()
    };
    let before = games_in(&d);
    let start = Arc::new(std::sync::Barrier::new(4));
    let adders: Vec<_> = (0..4)
        .map(|i| {
            let (d, start) = (d.clone(), start.clone());
            std::thread::spawn(move || {
                let pgn = format!("add{i}.pgn");
                start.wait();
                chessfmt_in(&d, &["kvetka", "add", "book", &pgn])
            })
        })
        .collect();
    for a in adders {
        let out = a.join().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Every add's games are in the book: 4 adds of 60 times the first book's games each.
    assert_eq!(games_in(&d), before + 4 * 60 * before);
    let o = chessfmt_in(&d, &["kvetka", "info", "book", "--check"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
