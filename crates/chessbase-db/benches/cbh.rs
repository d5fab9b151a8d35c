//! Throughput on twic1134 (6,117 games, 502,402 plies) from ../shared/corpus: main-line decoding
//! with replay on one core, PGN export on all cores, header listing without `.cbg`.

// criterion_group! makes public functions with no place for documentation.
#![allow(missing_docs)]

use std::path::PathBuf;

use chessbase_db::{Database, Header};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn twic() -> Option<Database> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/chessbase/uncbv-tests/twic1134/twic1134.cbh");
    if !p.exists() {
        eprintln!("skipping: {} not found", p.display());
        return None;
    }
    Some(Database::open(p).unwrap())
}

fn benches(c: &mut Criterion) {
    let Some(db) = twic() else { return };
    let n = db.len();
    let mut g = c.benchmark_group("twic1134");
    g.sample_size(20);
    g.throughput(Throughput::Elements(u64::from(n)));
    g.bench_function("main_line_decode_one_core", |b| {
        b.iter(|| {
            let mut plies = 0;
            for i in 1..=n {
                plies += db.main_line(i).unwrap().moves.len();
            }
            plies
        });
    });
    g.bench_function("full_tree_decode_one_core", |b| {
        b.iter(|| {
            let mut nodes = 0;
            for i in 1..=n {
                nodes += db.game(i).unwrap().tree.len();
            }
            nodes
        });
    });
    // The export runs on the caller's rayon pool: the global one (all cores), and a pool of
    // one thread (the caller's thread alone), each built once.
    g.bench_function("pgn_export_all_cores", |b| {
        let mut out = Vec::with_capacity(16 << 20);
        b.iter(|| {
            out.clear();
            chessbase_db::pgn::export(
                &db,
                &chessbase_db::ExportOptions::default().records(1..=n),
                &mut out,
                |_| {},
            )
            .unwrap()
            .exported
        });
    });
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    g.bench_function("pgn_export_one_core", |b| {
        let mut out = Vec::with_capacity(16 << 20);
        b.iter(|| {
            out.clear();
            one.install(|| {
                chessbase_db::pgn::export(
                    &db,
                    &chessbase_db::ExportOptions::default().records(1..=n),
                    &mut out,
                    |_| {},
                )
            })
            .unwrap()
            .exported
        });
    });
    g.bench_function("header_listing", |b| {
        b.iter(|| {
            let mut elo = 0u64;
            for h in db.headers() {
                if let Header::Game(h) = h {
                    elo += u64::from(h.record.white_elo)
                        + h.white.last.len() as u64
                        + h.tournament.title.len() as u64
                        + u64::from(h.date().year);
                }
            }
            elo
        });
    });
    g.finish();
}

criterion_group!(cbh, benches);
criterion_main!(cbh);
