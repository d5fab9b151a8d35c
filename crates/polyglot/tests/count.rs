//! The builder counts every move of every game (issue 29): a book built from random games,
//! which often come back to positions they left, equals a naive count of every (position,
//! move) pair of every game, repetitions included.

use std::collections::BTreeMap;

use chess_core::fuzzing::XorShift;
use polyglot_book::moves::encode_move;
use polyglot_book::ops::build::{BookBuilder, BuildOptions};
use proptest::prelude::*;
use shakmaty::{Chess, Color, Position, san::SanPlus};

/// A random game as PGN text, with its moves; knights go out and back now and then, so that
/// positions repeat with other moves after them.
fn game(seed: u64, plies: usize) -> (String, Vec<(Chess, shakmaty::Move)>, &'static str) {
    let mut rng = XorShift::new(seed);
    let mut pos = Chess::default();
    let mut played = Vec::new();
    let mut text = String::new();
    let mut back: Option<shakmaty::Move> = None;
    for ply in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        // Undo the last knight move two plies later sometimes (the position comes back).
        let m = match back.take() {
            Some(m) if legal.contains(&m) && ply % 2 == 0 => m,
            _ => legal[rng.below(legal.len())],
        };
        if m.role() == shakmaty::Role::Knight
            && rng.below(2) == 0
            && let (Some(from), to) = (m.from(), m.to())
        {
            back = Some(shakmaty::Move::Normal {
                role: shakmaty::Role::Knight,
                from: to,
                capture: None,
                to: from,
                promotion: None,
            });
        }
        if pos.turn() == Color::White {
            text.push_str(&format!("{}. ", pos.fullmoves()));
        }
        text.push_str(&SanPlus::from_move(pos.clone(), m).to_string());
        text.push(' ');
        played.push((pos.clone(), m));
        pos.play_unchecked(m);
    }
    let result = ["1-0", "0-1", "1/2-1/2"][rng.below(3)];
    (text, played, result)
}

fn check(seeds: &[u64]) {
    let mut pgn = String::new();
    let mut want: BTreeMap<(u64, u16), (u32, u32)> = BTreeMap::new();
    for &seed in seeds {
        let (moves, played, result) = game(seed, 60);
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
    let mut b = BookBuilder::new(BuildOptions::default().with_min_game(1));
    b.add_pgn(chess_core::pgn::PgnReader::new(pgn.as_bytes()), |_| {})
        .unwrap();
    let (entries, _) = b.finish();
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
    check(&(1..=200).collect::<Vec<_>>());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn builds_equal_a_naive_count(seeds in proptest::collection::vec(any::<u64>(), 1..30)) {
        check(&seeds);
    }
}
