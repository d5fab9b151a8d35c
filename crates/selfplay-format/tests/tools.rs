//! The data tools and the position iterator: values checked against independent computations
//! over the same synthetic data.

use std::collections::HashSet;

use selfplay_format::{
    decode::decode_game,
    frame::frames,
    positions::{Mode, Positions},
    synth,
    tools::{self, Filter, SplitBy},
    value::{policy_to_value, value_frames},
    write::GameWriter,
};
use shakmaty::{Chess, EnPassantMode, Position, fen::Fen, zobrist::Zobrist64};

fn data() -> Vec<u8> {
    synth::games(11, 40, 60)
}

fn game_spans(data: &[u8]) -> Vec<&[u8]> {
    frames(data).map(|v| v.unwrap().bytes).collect()
}

/// Every position of the data, with the same iteration the tools use, as (fen, uci, score).
fn all_positions(data: &[u8]) -> Vec<(String, String, u16, Vec<u8>)> {
    let mut it = Positions::from_slice(data, Mode::Strict);
    let mut v = Vec::new();
    while let Some(s) = it.next() {
        let s = s.unwrap();
        v.push((
            Fen::from_position(s.position, EnPassantMode::Legal).to_string(),
            s.mv.to_uci(shakmaty::CastlingMode::Chess960).to_string(),
            s.raw_score,
            s.visit_bytes().to_vec(),
        ));
    }
    v
}

#[test]
fn positions_agree_with_full_decode() {
    let data = data();
    let mut it = Positions::from_slice(&data, Mode::Strict);
    let mut views = frames(&data);
    let mut game = None;
    let mut ply = 0;
    let mut count = 0;
    while let Some(s) = it.next() {
        let s = s.unwrap();
        if s.ply == 0 {
            let view = views.next().unwrap().unwrap();
            assert_eq!(
                view.index + 1,
                s.game,
                "framing and decoding agree on game boundaries"
            );
            game = Some(decode_game(&view).unwrap());
            ply = 0;
        }
        let g = game.as_ref().unwrap();
        let m = &g.moves[ply];
        assert_eq!(s.ply, ply);
        assert_eq!(s.mv, m.mv);
        assert_eq!(s.raw_score, m.score);
        let white = f32::from(g.result()) / 2.0;
        let expected = if s.position.turn() == shakmaty::Color::White {
            white
        } else {
            1.0 - white
        };
        assert_eq!(s.result, expected);
        let policy: Vec<_> = s.policy().collect();
        assert_eq!(Some(policy), m.visits.clone());
        ply += 1;
        count += 1;
    }
    assert!(views.next().is_none());
    assert_eq!(count, tools::stats(&data).positions);
    // The io::Read path yields the same positions.
    let mut it = Positions::from_reader(std::io::Cursor::new(&data), Mode::Strict);
    let mut n = 0;
    while let Some(s) = it.next() {
        s.unwrap();
        n += 1;
    }
    assert_eq!(n, count);
}

#[test]
fn stats_count_and_histograms_add_up() {
    let data = data();
    let s = tools::stats(&data);
    let spans = game_spans(&data);
    assert_eq!(s.games, spans.len() as u64);
    assert_eq!(s.bytes, data.len() as u64);
    assert_eq!(s.results.iter().sum::<u64>(), s.games);
    assert_eq!(s.game_lengths.values().sum::<u64>(), s.games);
    assert_eq!(
        s.game_lengths
            .iter()
            .map(|(&len, &n)| len as u64 * n)
            .sum::<u64>(),
        s.positions
    );
    // synth writes a distribution on every move.
    assert_eq!(s.positions_with_policy, s.positions);
    assert_eq!(s.legal_moves.values().sum::<u64>(), s.positions);
    assert!(s.legal_moves.contains_key(&20), "start position: 20 moves");
    assert!(s.truncated.is_none());
    let cut = tools::stats(&data[..data.len() - 3]);
    assert_eq!(cut.games, s.games - 1);
    assert!(cut.truncated.is_some());
}

#[test]
fn filter_keeps_exactly_the_matching_positions() {
    let data = data();
    let mut f = Filter::default();
    f.ply = Some(4..=30);
    f.score = Some(0.2..=0.8);
    let mut out = Vec::new();
    let sum = tools::filter(&data, &f, Mode::Strict, &mut out).unwrap();
    let mut expected = Vec::new();
    let mut it = Positions::from_slice(&data, Mode::Strict);
    while let Some(s) = it.next() {
        let s = s.unwrap();
        if (4..=30).contains(&s.ply) && (0.2..=0.8).contains(&s.score()) {
            expected.push((
                Fen::from_position(s.position, EnPassantMode::Legal).to_string(),
                s.mv.to_uci(shakmaty::CastlingMode::Chess960).to_string(),
                s.raw_score,
                s.visit_bytes().to_vec(),
            ));
        }
    }
    assert!(!expected.is_empty());
    assert_eq!(sum.written, expected.len() as u64);
    // The output is valid policy data: one one-move game per kept position.
    assert_eq!(all_positions(&out), expected);
    for view in frames(&out) {
        assert_eq!(view.unwrap().plies, 1);
    }
    // Other conditions.
    let mut checks = Filter::default();
    checks.in_check = Some(true);
    let mut out = Vec::new();
    tools::filter(&data, &checks, Mode::Strict, &mut out).unwrap();
    let mut it = Positions::from_slice(&out, Mode::Strict);
    let mut n = 0;
    while let Some(s) = it.next() {
        assert!(s.unwrap().position.is_check());
        n += 1;
    }
    assert!(n > 0);
    let mut none = Filter::default();
    none.has_policy = Some(false);
    let mut out = Vec::new();
    assert_eq!(
        tools::filter(&data, &none, Mode::Strict, &mut out)
            .unwrap()
            .written,
        0
    );
}

#[test]
fn dedup_keeps_first_occurrences() {
    // Every game starts at the start position: it is kept once.
    let data = data();
    let mut out = Vec::new();
    let sum = tools::dedup(&data, Mode::Strict, &mut out).unwrap();
    let mut keys = HashSet::new();
    let mut it = Positions::from_slice(&data, Mode::Strict);
    while let Some(s) = it.next() {
        let k: Zobrist64 = s.unwrap().position.zobrist_hash(EnPassantMode::Legal);
        keys.insert(k.0);
    }
    assert_eq!(sum.written, keys.len() as u64);
    assert!(sum.written < sum.positions);
    let mut it = Positions::from_slice(&out, Mode::Strict);
    let mut seen = HashSet::new();
    while let Some(s) = it.next() {
        let k: Zobrist64 = s.unwrap().position.zobrist_hash(EnPassantMode::Legal);
        assert!(seen.insert(k.0), "duplicate in the output");
    }
}

#[test]
fn split_parts_concatenate_to_the_input() {
    let data = data();
    for by in [
        SplitBy::Parts(1),
        SplitBy::Parts(3),
        SplitBy::Parts(7),
        SplitBy::Games(5),
        SplitBy::Games(1000),
    ] {
        let ranges = tools::split_ranges(&data, by, Mode::Strict).unwrap();
        let joined: Vec<u8> = ranges
            .iter()
            .flat_map(|r| data[r.clone()].to_vec())
            .collect();
        assert_eq!(joined, data, "{by:?}");
        for r in &ranges {
            assert!(frames(&data[r.clone()]).all(|v| v.is_ok()), "{by:?}");
        }
        match by {
            SplitBy::Parts(n) => assert_eq!(ranges.len(), n, "{by:?}"),
            SplitBy::Games(n) => {
                assert_eq!(ranges.len(), 40usize.div_ceil(n));
                assert_eq!(frames(&data[ranges[0].clone()]).count(), n.min(40));
            }
            _ => unreachable!(),
        }
    }
    assert!(tools::split_ranges(&data[..data.len() - 1], SplitBy::Parts(2), Mode::Strict).is_err());
    let lenient =
        tools::split_ranges(&data[..data.len() - 1], SplitBy::Games(100), Mode::Lenient).unwrap();
    assert_eq!(frames(&data[lenient[0].clone()]).count(), 39);
}

#[test]
fn interleave_keeps_every_game_and_each_input_order() {
    let a = synth::games(1, 30, 20);
    let b = synth::games(2, 10, 80);
    let c = synth::games(3, 5, 10);
    let mut out = Vec::new();
    let sum = tools::interleave(&[&a, &b, &c], 42, Mode::Strict, &mut out).unwrap();
    assert_eq!(sum.games, 45);
    assert_eq!(out.len(), a.len() + b.len() + c.len());
    let got = game_spans(&out);
    for input in [&a, &b, &c] {
        let games = game_spans(input);
        let order: Vec<_> = got.iter().filter(|g| games.contains(g)).copied().collect();
        assert_eq!(order, games, "each input keeps its order");
    }
    let mut again = Vec::new();
    tools::interleave(&[&a, &b, &c], 42, Mode::Strict, &mut again).unwrap();
    assert_eq!(again, out, "same seed, same output");
    let mut other = Vec::new();
    tools::interleave(&[&a, &b, &c], 43, Mode::Strict, &mut other).unwrap();
    assert_ne!(other, out);
    // Proportional to remaining bytes: the first game comes from `b` (most bytes) more often.
    let mut from_b = 0;
    for seed in 1..=200 {
        let mut o = Vec::new();
        tools::interleave(&[&a, &b], seed, Mode::Strict, &mut o).unwrap();
        if game_spans(&b).contains(&game_spans(&o)[0]) {
            from_b += 1;
        }
    }
    let share = b.len() as f64 / (a.len() + b.len()) as f64;
    assert!(
        (from_b as f64 / 200.0 - share).abs() < 0.12,
        "{from_b} of 200, expected share {share}"
    );
}

#[test]
fn shuffle_is_a_seeded_permutation_of_games() {
    let data = data();
    let mut out = Vec::new();
    tools::shuffle(&data, 9, Mode::Strict, &mut out).unwrap();
    let mut a = game_spans(&data);
    let mut b = game_spans(&out);
    assert_ne!(a, b);
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let mut again = Vec::new();
    tools::shuffle(&data, 9, Mode::Strict, &mut again).unwrap();
    assert_eq!(again, out);
}

#[test]
fn to_value_converts_every_game_and_skips_bad_ones() {
    let data = data();
    let mut out = Vec::new();
    tools::to_value(&data, Mode::Strict, &mut out).unwrap();
    let mut expected = Vec::new();
    for v in frames(&data) {
        policy_to_value(&v.unwrap(), &mut expected);
    }
    assert_eq!(out, expected);
    assert_eq!(value_frames(&out).count(), 40);
    // A game with an illegal move in the middle: strict stops, lenient skips that game only.
    let mut bad = data.clone();
    let third = frames(&data).nth(2).unwrap().unwrap();
    let at = third.offset as usize + 43;
    bad[at] ^= 0xff;
    bad[at + 1] ^= 0x3f;
    assert!(tools::to_value(&bad, Mode::Strict, &mut Vec::new()).is_err());
    let mut out = Vec::new();
    let sum = tools::to_value(&bad, Mode::Lenient, &mut out).unwrap();
    assert_eq!(sum.skipped, 1);
    assert_eq!(sum.games, 39);
    assert_eq!(value_frames(&out).count(), 39);
}

#[test]
fn pgn_export_reads_back_to_the_same_moves() {
    let data = synth::games(5, 6, 40);
    let mut pgn = Vec::new();
    tools::to_pgn(&data, Mode::Strict, &mut pgn).unwrap();
    let text = String::from_utf8(pgn).unwrap();
    assert!(text.contains("[Result \""));
    assert!(text.contains("{score "));
    assert!(text.contains(", top "));
    let mut reader = chessfmt_pgn::PgnReader::new(text.as_bytes());
    let mut n = 0;
    for view in frames(&data) {
        let raw = reader.next_raw().unwrap().expect("a game per game");
        let game = raw.resolve().unwrap();
        let ours = decode_game(&view.unwrap()).unwrap();
        let expected: Vec<_> = ours.moves.iter().map(|m| m.mv).collect();
        assert_eq!(game.moves, expected);
        assert_eq!(game.start, ours.start);
        n += 1;
    }
    assert!(reader.next_raw().unwrap().is_none());
    assert_eq!(n, 6);
}

#[test]
fn fen_lines_parse_back() {
    let data = synth::games(5, 3, 30);
    let mut out = Vec::new();
    let sum = tools::to_fen(&data, false, Mode::Strict, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let expected = all_positions(&data);
    assert_eq!(text.lines().count() as u64, sum.positions);
    for (line, (fen, ..)) in text.lines().zip(&expected) {
        let mut parts = line.split(" | ");
        assert_eq!(parts.next().unwrap(), fen);
        let score: f32 = parts.next().unwrap().parse().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert!(["1.0", "0.5", "0.0"].contains(&parts.next().unwrap()));
    }
    let mut out = Vec::new();
    tools::to_fen(&data, true, Mode::Strict, &mut out).unwrap();
    let first = String::from_utf8(out)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert!(first.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm "));
}

/// Lenient reading recovers every good game around damage: garbage between games, an
/// illegal move, a visit count that does not match, a damaged n byte.
#[test]
fn lenient_mode_resynchronises() {
    let data = data();
    let spans = game_spans(&data);
    let count = |d: &[u8]| {
        let mut it = Positions::from_slice(d, Mode::Lenient);
        let mut games = HashSet::new();
        while let Some(s) = it.next() {
            games.insert(s.unwrap().game);
        }
        (games.len(), it.skipped())
    };
    // Garbage between games 10 and 11.
    let mut d = Vec::new();
    for (i, g) in spans.iter().enumerate() {
        d.extend_from_slice(g);
        if i == 10 {
            d.extend_from_slice(&[0x55; 37]);
        }
    }
    let (games, skipped) = count(&d);
    assert_eq!(games, 40, "every real game recovered");
    assert!(skipped >= 1);
    // Strict mode names the game and the offset.
    let mut it = Positions::from_slice(&d, Mode::Strict);
    let err = loop {
        match it.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => break e,
            None => panic!("no error"),
        }
    };
    assert_eq!(err.game, 12, "1-based: the game at index 11");
    let after_ten: usize = spans[..11].iter().map(|g| g.len()).sum();
    assert!(err.offset >= after_ten as u64);

    // A damaged n byte in game 5 (the framing goes astray inside it).
    let mut d = data.clone();
    let g5 = frames(&data).nth(5).unwrap().unwrap();
    d[g5.offset as usize + 43 + 4] = 3;
    let (games, skipped) = count(&d);
    assert_eq!(games, 39);
    assert_eq!(skipped, 1);

    // An illegal move in game 0: framing intact, the next boundary is the framed end.
    let mut d = data.clone();
    d[43] = 0xff;
    d[44] = 0xff;
    let (games, skipped) = count(&d);
    assert_eq!((games, skipped), (39, 1));
}

#[test]
fn writer_output_round_trips_through_positions() {
    let start = Chess::default();
    let mut w = GameWriter::new(&start);
    let mut pos = start.clone();
    for _ in 0..10 {
        let mv = pos.legal_moves()[0];
        w.push(mv, 0.25, None).unwrap();
        pos.play_unchecked(mv);
    }
    let bytes = w.finish(0).unwrap();
    let mut it = Positions::from_slice(&bytes, Mode::Strict);
    let mut n = 0;
    while let Some(s) = it.next() {
        let s = s.unwrap();
        assert!(!s.has_policy());
        assert_eq!(s.policy().count(), 0);
        assert_eq!(s.white_result, 0);
        n += 1;
    }
    assert_eq!(n, 10);
}

#[test]
fn chunks_give_the_same_positions_with_whole_buffer_numbers() {
    let data = data();
    let whole = all_positions(&data);
    for parts in [1, 2, 3, 8, 100] {
        let chunks = selfplay_format::frame::chunks(&data, parts);
        assert!(chunks.len() <= parts);
        let joined: Vec<u8> = chunks.iter().flat_map(|c| c.bytes.to_vec()).collect();
        assert_eq!(joined, data);
        let results: Vec<Vec<(u64, usize)>> = std::thread::scope(|s| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|c| {
                    s.spawn(move || {
                        let mut it = Positions::from_chunk(c, Mode::Strict);
                        let mut v = Vec::new();
                        while let Some(p) = it.next() {
                            let p = p.unwrap();
                            v.push((p.game, p.ply));
                        }
                        v
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let flat: Vec<_> = results.into_iter().flatten().collect();
        assert_eq!(flat.len(), whole.len());
        let mut it = Positions::from_slice(&data, Mode::Strict);
        let mut expected = Vec::new();
        while let Some(p) = it.next() {
            let p = p.unwrap();
            expected.push((p.game, p.ply));
        }
        assert_eq!(flat, expected, "{parts} parts");
    }
    // Errors in a later chunk name whole-buffer games and offsets; lenient resync works there.
    let mut bad = data.clone();
    let g30 = frames(&data).nth(30).unwrap().unwrap();
    bad[g30.offset as usize + 43] ^= 0xff;
    let chunks = selfplay_format::frame::chunks(&bad, 2);
    let mut it = Positions::from_chunk(&chunks[1], Mode::Strict);
    let err = loop {
        match it.next().unwrap() {
            Ok(_) => {}
            Err(e) => break e,
        }
    };
    assert_eq!((err.game, err.offset), (31, g30.offset + 43), "1-based");
    let mut it = Positions::from_chunk(&chunks[1], Mode::Lenient);
    let mut last = 0;
    while let Some(p) = it.next() {
        last = p.unwrap().game;
    }
    assert_eq!(
        (it.skipped(), last),
        (1, 40),
        "1-based: the last game is at index 39"
    );
}

/// Framing must not take zero bytes inside a record for the terminator: scores of 0, visit
/// bytes all 0 (all counts 0) and records without a distribution, back to back, agree with
/// full decoding on every boundary (a reference reader once shipped a framing bug).
#[test]
fn zero_bytes_inside_records_are_not_terminators() {
    let mut data = Vec::new();
    let mut expected = Vec::new();
    for g in 0..4u8 {
        let start = Chess::default();
        let mut w = GameWriter::new(&start);
        let mut pos = start.clone();
        for ply in 0..12 {
            let legal = pos.legal_moves();
            let mv = legal[(ply * 7 + usize::from(g)) % legal.len()];
            let zeros: Vec<_> = legal.iter().map(|&m| (m, 0u32)).collect();
            let visits = (ply % 3 != 2).then_some(&zeros[..]);
            w.push(mv, 0.0, visits).unwrap();
            pos.play_unchecked(mv);
        }
        let bytes = w.finish(g % 3).unwrap();
        assert!(bytes[43..].windows(4).any(|w| w == [0, 0, 0, 0]));
        expected.push(bytes.len());
        data.extend(bytes);
    }
    let lens: Vec<_> = frames(&data).map(|v| v.unwrap().bytes.len()).collect();
    assert_eq!(lens, expected);
    for v in frames(&data) {
        let v = v.unwrap();
        let g = decode_game(&v).unwrap();
        assert_eq!(g.moves.len(), 12);
        assert_eq!(g.to_bytes(), v.bytes);
    }
    let mut it = Positions::from_slice(&data, Mode::Strict);
    let mut n = 0;
    while let Some(s) = it.next() {
        let s = s.unwrap();
        assert_eq!(s.raw_score, 0);
        n += 1;
    }
    assert_eq!(n, 48);
    let mut it = Positions::from_reader(std::io::Cursor::new(&data), Mode::Strict);
    let mut n = 0;
    while let Some(s) = it.next() {
        s.unwrap();
        n += 1;
    }
    assert_eq!(n, 48);
}

/// Validation on several threads gives what one thread gives: every game counted on good
/// data; on data with a bad game, the games before it and its error (strict), the lenient
/// run unchanged.
/// A rayon pool of `threads` threads: `validate_parallel` runs on the caller's pool.
fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn parallel_validation_is_sequential_validation() {
    let data = data();
    let one = tools::validate(&data, Mode::Strict);
    assert_eq!((one.valid, one.bad), (40, 0));
    for threads in [2, 3, 8, 64] {
        let many = pool(threads).install(|| tools::validate_parallel(&data, Mode::Strict));
        assert_eq!(
            (many.valid, many.positions, many.bad),
            (one.valid, one.positions, 0),
            "{threads} threads"
        );
    }
    let mut bad = data.clone();
    for game in [30, 33] {
        let g = frames(&data).nth(game).unwrap().unwrap();
        bad[g.offset as usize + 43] ^= 0xff;
    }
    for mode in [Mode::Strict, Mode::Lenient] {
        let one = tools::validate(&bad, mode);
        assert!(one.bad > 0);
        for threads in [2, 3, 8] {
            let many = pool(threads).install(|| tools::validate_parallel(&bad, mode));
            assert_eq!(
                (many.valid, many.positions, many.bad),
                (one.valid, one.positions, one.bad),
                "{mode:?}, {threads} threads"
            );
            assert_eq!(many.errors, one.errors, "{mode:?}, {threads} threads");
        }
    }
}
