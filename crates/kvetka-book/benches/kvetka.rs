//! Kvetka throughput: building from the 10,000-game gnuchess PGN (../shared/corpus; skipped when
//! absent), probing real positions with child statistics, key lookups, and growing synthetic
//! books of 100,000 and 1,000,000 positions by 1,000 games.

// criterion_group! makes public functions with no place for documentation.
#![allow(missing_docs)]

use std::{fmt::Write as _, hint::black_box, path::Path};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use kvetka_book::{
    Book, Header,
    build::Builder,
    read::BookPaths,
    write::{BookFiles, DEFAULT_SPLIT_SIZE},
};
use rand::{Rng, SeedableRng, rngs::StdRng};
use shakmaty::{Chess, Position, san::SanPlus};

// The tests' helpers: corpus paths and building a book into a directory.
#[path = "../tests/common/mod.rs"]
mod common;

use common::gnuchess;

/// `n` random games of up to `plies` plies as PGN text (random legal moves, random results).
fn random_pgn(n: usize, plies: usize, seed: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = String::new();
    for _ in 0..n {
        let result = ["1-0", "0-1", "1/2-1/2"][rng.random_range(0..3)];
        let _ = write!(out, "[Result \"{result}\"]\n\n");
        let mut pos = Chess::default();
        for ply in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            if ply % 2 == 0 {
                let _ = write!(out, "{}. ", ply / 2 + 1);
            }
            let _ = write!(
                out,
                "{} ",
                SanPlus::from_move_and_play_unchecked(&mut pos, m)
            );
        }
        let _ = write!(out, "{result}\n\n");
    }
    out
}

fn copy_book(from: &BookPaths, to_dir: &Path) -> BookPaths {
    let to = BookPaths::from_any(to_dir.join("book"));
    for i in 0.. {
        let p = from.kob(i);
        if !p.exists() {
            break;
        }
        std::fs::copy(&p, to.kob(i)).unwrap();
    }
    std::fs::copy(from.kin(), to.kin()).unwrap();
    to
}

fn bench_gnuchess(c: &mut Criterion) {
    let Some(pgn) = gnuchess() else {
        eprintln!("skipping the gnuchess benchmarks: the corpus is absent");
        return;
    };
    let mut g = c.benchmark_group("kvetka");
    g.sample_size(10);
    g.throughput(Throughput::Elements(10_000));
    let header = Header {
        max_move: 0xff,
        element_type: 1,
        ..Header::default()
    };
    g.bench_function("build_10k_games_in_memory", |b| {
        b.iter(|| {
            let mut builder = Builder::new(
                kvetka_book::build::BuildOptions::default().with_header(header.clone()),
            );
            builder.add_pgn_file(&pgn, |_| {}).unwrap();
            let (built, _) = builder.finish().unwrap();
            let (h, mut elements, sources) = (built.header, built.elements, built.sources);
            let (files, _) =
                BookFiles::build(&h, &mut elements, sources.as_ref(), DEFAULT_SPLIT_SIZE).unwrap();
            files.kobs.len()
        });
    });

    // Probe: every position of the first 2,000 games (both sides to move), in a whole-game book.
    let dir = tempfile::tempdir().unwrap();
    let paths = common::build_default(&[&pgn], header, dir.path(), "g");
    let book = Book::open(paths.base()).unwrap();
    let mut positions = Vec::new();
    for g in chessfmt_pgn::PgnReader::open(&pgn)
        .unwrap()
        .games()
        .take(2000)
    {
        let Ok(g) = g else { continue };
        positions.extend(g.positions().map(|(p, _)| p));
    }
    let keys: Vec<[u8; 22]> = positions
        .iter()
        .filter_map(kvetka_book::position::key_of)
        .collect();
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
    g.bench_function("position_stats", |b| {
        b.iter(|| {
            positions
                .iter()
                .filter_map(|p| kvetka_book::position::key_of(black_box(p)))
                .filter(|k| book.stats(k).unwrap().is_some())
                .count()
        });
    });
    g.bench_function("stats_by_key", |b| {
        b.iter(|| {
            keys.iter()
                .filter(|k| book.stats(black_box(k)).unwrap().is_some())
                .count()
        });
    });
    g.bench_function("key_of_position", |b| {
        b.iter(|| {
            positions
                .iter()
                .filter_map(|p| kvetka_book::position::key_of(black_box(p)))
                .count()
        });
    });
    g.finish();
}

fn bench_grow(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let header = Header {
        max_move: 40,
        ..Header::default()
    };
    // Random games: ~41 new positions each.
    let small = dir.path().join("small.pgn");
    std::fs::write(&small, random_pgn(2_500, 40, 1)).unwrap();
    let large = dir.path().join("large.pgn");
    std::fs::write(&large, random_pgn(25_000, 40, 2)).unwrap();
    let add = dir.path().join("add.pgn");
    std::fs::write(&add, random_pgn(1_000, 40, 3)).unwrap();
    let add_real = gnuchess().map(|g| {
        let text = std::fs::read(g).unwrap();
        let cut = text
            .windows(7)
            .enumerate()
            .filter(|(_, w)| w == b"[Event ")
            .nth(1000)
            .map_or(text.len(), |(i, _)| i);
        let p = dir.path().join("add_real.pgn");
        std::fs::write(&p, &text[..cut]).unwrap();
        p
    });
    let mut g = c.benchmark_group("kvetka_grow");
    g.sample_size(10);
    for (name, pgn) in [("100k", &small), ("1m", &large)] {
        let book = common::build_default(&[pgn], header.clone(), dir.path(), name);
        let n = Book::open(book.base()).unwrap().elements().count();
        eprintln!("book {name}: {n} positions");
        let mut inputs = vec![("random", add.clone())];
        if let Some(p) = &add_real {
            inputs.push(("gnuchess", p.clone()));
        }
        for (what, input) in inputs {
            g.bench_function(format!("add_1000_{what}_games_to_{name}"), |b| {
                b.iter_batched(
                    || {
                        let d = tempfile::tempdir_in(dir.path()).unwrap();
                        let p = copy_book(&book, d.path());
                        (d, p)
                    },
                    |(d, p)| {
                        let s = kvetka_book::grow::add_pgn(
                            &p,
                            std::slice::from_ref(&input),
                            DEFAULT_SPLIT_SIZE,
                            |_| {},
                        )
                        .unwrap();
                        drop(d);
                        s.elements_added
                    },
                    BatchSize::PerIteration,
                );
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench_gnuchess, bench_grow);
criterion_main!(benches);
