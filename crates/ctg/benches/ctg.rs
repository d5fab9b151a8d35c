//! CTG throughput on Perfect2021 (from ../shared/corpus; skipped when absent): probe with
//! child statistics, full record scan, lookup alone, conversion to Polyglot, and writing.

// criterion_group! makes public functions with no place for documentation.
#![allow(missing_docs)]

use std::{hint::black_box, path::PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctg::{Book, policy::Policy, write};
use shakmaty::Chess;

fn bench(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/ctg/perfect2021/Perfect2021.ctg");
    if !path.exists() {
        eprintln!("skipping the CTG benchmarks: {} is absent", path.display());
        return;
    }
    let book = Book::open(&path).expect("book");
    let positions: Vec<Chess> = book
        .walk(Chess::default(), None)
        .map(|n| n.position)
        .collect();
    let records = book.records().count() as u64;
    let mut g = c.benchmark_group("ctg");
    g.sample_size(20);
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("probe_with_child_stats", |b| {
        b.iter(|| {
            let mut moves = 0usize;
            for p in &positions {
                moves += book
                    .probe(black_box(p))
                    .unwrap()
                    .map_or(0, |p| p.moves.len());
            }
            moves
        });
    });
    g.bench_function("find_position", |b| {
        b.iter(|| {
            positions
                .iter()
                .filter(|p| book.find_position(black_box(p)).is_some())
                .count()
        });
    });
    g.throughput(Throughput::Elements(records));
    g.bench_function("scan_records", |b| {
        b.iter(|| {
            book.records()
                .filter_map(Result::ok)
                .map(|r| r.raw.stats().games as u64)
                .sum::<u64>()
        });
    });
    let all: Vec<write::RecordData> = book
        .records()
        .map(|r| write::RecordData::from_raw(&r.unwrap().raw))
        .collect();
    g.bench_function("write_in_memory", |b| {
        b.iter(|| write::to_bytes(black_box(&all), 1).unwrap()[0].len());
    });
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("to_polyglot", |b| {
        b.iter(|| {
            ctg::convert::to_polyglot(&book, Chess::default(), None, Policy::DroidFish)
                .0
                .len()
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
