//! The builder counts every move of every game (issue 29): a book built from random games that come
//! back to positions they left ([`returning_game`]) equals a naive count of every (position, move)
//! pair of every game, repetitions included.

use std::collections::BTreeMap;

use chessfmt_pgn::fuzzing::returning_game;
use polyglot_book::moves::encode_move;
use polyglot_book::ops::build::{BuildOptions, Builder};
use proptest::prelude::*;
use shakmaty::{Color, Position};

fn check(seeds: &[u64]) {
    let mut pgn = String::new();
    let mut want: BTreeMap<(u64, u16), (u32, u32)> = BTreeMap::new();
    for &seed in seeds {
        let (moves, played) = returning_game(seed, 60);
        let result = ["1-0", "0-1", "1/2-1/2"][(seed % 3) as usize];
        pgn.push_str(&format!("[Result \"{result}\"]\n\n{moves}{result}\n\n"));
        for (pos, m) in played {
            let points = match (result, pos.turn()) {
                ("1/2-1/2", _) => 1,
                ("1-0", Color::White) | ("0-1", Color::Black) => 2,
                _ => 0,
            };
            let e = want
                .entry((chess_core::polyglot_key(&pos), encode_move(m)))
                .or_default();
            e.0 += 1;
            e.1 += points;
        }
    }
    let mut b = Builder::new(BuildOptions::default().with_min_game(1));
    b.add_pgn(chessfmt_pgn::PgnReader::new(pgn.as_bytes()), |_| {})
        .unwrap();
    let (entries, _) = b.finish().unwrap();
    let got: BTreeMap<(u64, u16), u32> = entries
        .iter()
        .map(|e| ((e.key, e.raw_move), u32::from(e.weight)))
        .collect();
    assert_eq!(got.len(), entries.len(), "one entry per pair");
    // Pairs of weight 0 (only lost) are left out, as `polyglot make-book` does.
    let want: BTreeMap<(u64, u16), u32> = want
        .into_iter()
        .filter(|(_, (_, sum))| *sum > 0)
        .map(|(k, (_, sum))| (k, sum))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn repeated_positions_count_every_move() {
    let seeds: Vec<u64> = (1..=200).collect();
    // The games do come back: positions repeat within games, with another move after them.
    let returns = seeds
        .iter()
        .filter(|&&s| {
            let (_, played) = returning_game(s, 60);
            let mut seen = std::collections::HashMap::new();
            played.iter().any(|(pos, m)| {
                let first = *seen.entry(chess_core::polyglot_key(pos)).or_insert(*m);
                first != *m
            })
        })
        .count();
    assert!(
        returns > 20,
        "{returns} of 200 games play a new move from a repeated position"
    );
    check(&seeds);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn builds_equal_a_naive_count(seeds in proptest::collection::vec(any::<u64>(), 1..30)) {
        check(&seeds);
    }
}
