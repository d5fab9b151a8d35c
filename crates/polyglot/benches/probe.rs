//! Probe throughput on positions sampled from book lines (gnuchess-book_1.02.bin from the
//! corpus, or the bundled testdata/polyglot/small.bin when the corpus is absent).

// criterion_group! makes public functions with no place for documentation.
#![allow(missing_docs)]

use std::{hint::black_box, path::PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use polyglot_book::{Book, OpenMode};
use shakmaty::{Chess, Position};

/// Positions reached by following book moves breadth-first from the start (at most `limit`).
pub fn book_positions<D: AsRef<[u8]>>(book: &Book<D>, limit: usize) -> Vec<Chess> {
    let mut out = vec![Chess::default()];
    let mut i = 0;
    while i < out.len() && out.len() < limit {
        let pos = out[i].clone();
        for m in book.moves(&pos) {
            if out.len() >= limit {
                break;
            }
            out.push(pos.clone().play(m.mv).expect("legal"));
        }
        i += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = root.join("../shared/corpus/polyglot/books/gnuchess-book_1.02.bin");
    let path = if corpus.exists() {
        corpus
    } else {
        root.join("testdata/polyglot/small.bin")
    };
    let book = Book::open(&path, OpenMode::Strict).expect("book");
    let positions = book_positions(&book, 10_000);
    let mut g = c.benchmark_group("polyglot");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("probe", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &positions {
                n += book.moves(black_box(p)).len();
            }
            n
        });
    });
    g.bench_function("key", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| chess_core::polyglot_key(black_box(p)))
                .fold(0, |a, k| a ^ k)
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
