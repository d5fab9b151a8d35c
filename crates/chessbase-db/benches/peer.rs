//! ChessBase → PGN and main-line decoding beside the fastest public reader, cbvault 0.1.6
//! (MIT, a dev-dependency), in one run (issue 18): on twic1134 (6,117 games) and on a
//! database of 611,700 games made from it (`support/repeat.rs`: its records repeated 100 times
//! with shifted offsets, written once into `target/bench-data`). Set `CHESSFMT_BENCH_SMALL=1`
//! to skip the large database. PGN goes to a sink that counts bytes.

// criterion_group! makes public functions with no place for documentation.
#![allow(missing_docs)]

#[path = "support/repeat.rs"]
mod repeat;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use cbvault::bridge::{self, GameRef, GameSink};
use chessbase_db::Database;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

struct Count(u64);

impl Write for Count {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct Plies(u64);

impl GameSink for Plies {
    fn game(&mut self, game: GameRef<'_>) {
        self.0 += game.moves.len() as u64;
    }
}

fn databases() -> Vec<(&'static str, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let twic = root.join("../../../shared/corpus/chessbase/uncbv-tests/twic1134/twic1134.cbh");
    if !twic.exists() {
        eprintln!("skipping: {} not found", twic.display());
        return Vec::new();
    }
    let mut dbs = vec![("twic1134", twic.clone())];
    if std::env::var_os("CHESSFMT_BENCH_SMALL").is_none() {
        let dir = root.join("../../target/bench-data");
        match repeat::repeated_database(&twic, 100, &dir) {
            Ok(p) => dbs.push(("twic1134x100", p)),
            Err(e) => eprintln!("skipping the large database: {e}"),
        }
    }
    dbs
}

fn ours_export(db: &Database, threads: usize) -> u64 {
    let mut out = Count(0);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            chessbase_db::pgn::export(
                db,
                &chessbase_db::ExportOptions::default().records(1..=db.len()),
                &mut out,
                |_| {},
            )
        })
        .unwrap();
    out.0
}

fn cbvault_export(path: &Path, threads: usize) -> u64 {
    let mut out = Count(0);
    cbvault::pgn::export_parallel(&path.with_extension(""), &mut out, threads, 2048, 100).unwrap();
    out.0
}

fn benches(c: &mut Criterion) {
    for (name, path) in databases() {
        let db = Database::open(&path).unwrap();
        let peer = bridge::Database::open(&path).unwrap();
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        g.throughput(Throughput::Elements(u64::from(db.len())));
        for threads in [1, 2] {
            g.bench_function(BenchmarkId::new("export/chessfmt", threads), |b| {
                b.iter(|| ours_export(&db, threads));
            });
            g.bench_function(BenchmarkId::new("export/cbvault", threads), |b| {
                b.iter(|| cbvault_export(&path, threads));
            });
        }
        g.bench_function("main_line/chessfmt", |b| {
            b.iter(|| {
                let mut plies = 0;
                for n in 1..=db.len() {
                    plies += db.main_line(n).map_or(0, |l| l.moves.len());
                }
                plies
            });
        });
        g.bench_function("main_line/cbvault", |b| {
            b.iter(|| {
                let mut sink = Plies(0);
                bridge::for_each_game(&peer, &mut sink).unwrap();
                sink.0
            });
        });
        g.finish();
    }
}

criterion_group!(peer, benches);
criterion_main!(peer);
