//! The peer of `chessfmt selfplay validate` in BENCHMARKS.md: reads every game of a file with
//! montyformat (`MontyFormat::deserialise_from`, which replays the moves and attaches each
//! visit distribution to the legal moves) and checks each played move against its
//! distribution. `monty_read FILE`; prints games and positions.

use std::io::{BufRead, Cursor};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: monty_read FILE");
        std::process::exit(2);
    };
    let data = std::fs::read(&path).expect("read FILE");
    let mut r = Cursor::new(&data[..]);
    let (mut games, mut positions, mut bad) = (0u64, 0u64, 0u64);
    while !r.fill_buf().expect("in memory").is_empty() {
        let g = montyformat::MontyFormat::deserialise_from(&mut r).expect("a montyformat game");
        for m in &g.moves {
            if let Some(d) = &m.visit_distribution
                && !d.iter().any(|&(mv, _)| mv == m.best_move)
            {
                bad += 1;
            }
        }
        games += 1;
        positions += g.moves.len() as u64;
    }
    println!("{games} games ({positions} positions), {bad} moves outside their distribution");
}
