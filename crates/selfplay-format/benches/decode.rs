//! Reading throughput side by side with montyformat 0.10.0 on the same synthetic data.

// criterion_group! makes public functions with no place for documentation.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use selfplay_format::{
    decode::decode_game,
    frame::frames,
    positions::{Mode, Positions},
    synth,
};

fn bench(c: &mut Criterion) {
    let data = synth::games(7, 2000, 160);
    let positions: usize = frames(&data).map(|v| v.unwrap().plies).sum();
    let mut g = c.benchmark_group("selfplay");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("frame", |b| {
        b.iter(|| {
            frames(black_box(&data))
                .map(|v| v.unwrap().plies)
                .sum::<usize>()
        });
    });
    g.throughput(Throughput::Elements(positions as u64));
    g.bench_function("decode_game", |b| {
        b.iter(|| {
            frames(black_box(&data))
                .map(|v| decode_game(&v.unwrap()).unwrap().moves.len())
                .sum::<usize>()
        });
    });
    g.bench_function("positions", |b| {
        b.iter(|| {
            let mut it = Positions::from_slice(black_box(&data), Mode::Strict);
            let mut n = 0usize;
            while let Some(s) = it.next() {
                let s = s.unwrap();
                n += s.policy_codes().map(|(_, v)| usize::from(v)).sum::<usize>();
            }
            n
        });
    });
    let mut g2 = Vec::new();
    g.bench_function("movegen_only", |b| {
        let mut list = selfplay_format::movegen::CodeList::new();
        let mut all = Vec::new();
        for v in frames(&data).take(200) {
            let v = v.unwrap();
            let (mut pos, _) = selfplay_format::decode::start_position(&v.header()).unwrap();
            for r in v.records() {
                all.push(pos.clone());
                let m = selfplay_format::movegen::code_to_move(&pos, r.code);
                shakmaty::Position::play_unchecked(&mut pos, m);
            }
        }
        g2.push(all.clone());
        b.iter(|| {
            let mut n = 0;
            for p in &all {
                selfplay_format::movegen::legal_codes(black_box(p), &mut list);
                n += list.len();
            }
            n
        });
    });
    g.bench_function("shakmaty_legal_only", |b| {
        let all = &g2[0];
        b.iter(|| {
            let mut n = 0;
            for p in all {
                n += shakmaty::Position::legal_moves(black_box(p)).len();
            }
            n
        });
    });
    for threads in [1usize, 2] {
        let chunks = selfplay_format::frame::chunks(&data, threads);
        g.bench_function(format!("positions_{threads}_threads"), |b| {
            b.iter(|| {
                std::thread::scope(|s| {
                    let handles: Vec<_> = chunks
                        .iter()
                        .map(|c| {
                            s.spawn(move || {
                                let mut it = Positions::from_chunk(c, Mode::Strict);
                                let mut n = 0usize;
                                while let Some(s) = it.next() {
                                    let s = s.unwrap();
                                    n += s
                                        .policy_codes()
                                        .map(|(_, v)| usize::from(v))
                                        .sum::<usize>();
                                }
                                n
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().unwrap())
                        .sum::<usize>()
                })
            });
        });
    }
    g.bench_function("montyformat_deserialise_from", |b| {
        b.iter(|| {
            let mut r = std::io::Cursor::new(black_box(&data[..]));
            let mut n = 0;
            while (r.position() as usize) < data.len() {
                n += montyformat::MontyFormat::deserialise_from(&mut r)
                    .unwrap()
                    .moves
                    .len();
            }
            n
        });
    });
    let mut value = Vec::new();
    for v in frames(&data) {
        selfplay_format::value::policy_to_value(&v.unwrap(), &mut value);
    }
    g.bench_function("value_records", |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for v in selfplay_format::value::value_frames(black_box(&value)) {
                for r in v.unwrap().records() {
                    sum += i64::from(r.score) + i64::from(r.code.0);
                }
            }
            sum
        });
    });
    g.bench_function("montyformat_value_deserialise_from", |b| {
        b.iter(|| {
            let mut r = std::io::Cursor::new(black_box(&value[..]));
            let mut n = 0;
            let mut buf = Vec::new();
            while (r.position() as usize) < value.len() {
                let g = montyformat::MontyValueFormat::deserialise_from(&mut r, buf).unwrap();
                n += g.moves.len();
                buf = g.moves;
            }
            n
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
