//! Differential tests against montyformat 0.10.0, the reference implementation: games it
//! writes (random playouts from standard and Chess960 starts, with and without visit
//! distributions) are read by us identically and re-written byte for byte; games we write are
//! read by it identically.

use montyformat::{
    MontyFormat, SearchData,
    chess::{Castling, Move as MMove, Position as MPosition},
};
use selfplay_format::{
    decode::{decode_game, encode_move, legal_moves_by_code},
    frame::frames,
    write::GameWriter,
};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Start positions: standard, Chess960 (Shredder-FEN castling, as montyformat parses it; the
/// rooks next to the king so castling comes early), promotions and en passant, a stalemate
/// (0 legal moves).
const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w FDfd - 0 1",
    "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
    "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
    "8/P6k/8/8/8/8/6Kp/8 b - - 3 40",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

fn monty_start(fen: &str) -> (MPosition, Castling) {
    let mut castling = Castling::default();
    let pos = MPosition::parse_fen(fen, &mut castling);
    (pos, castling)
}

fn monty_legal(pos: &MPosition, castling: &Castling) -> Vec<MMove> {
    let mut v = Vec::new();
    pos.map_legal_moves(castling, |m| v.push(m));
    v.sort_by_key(|&m| u16::from(m));
    v
}

/// A random game written by montyformat, and the visit counts it was given.
fn monty_game(fen: &str, rng: &mut Rng, max_plies: usize) -> Vec<u8> {
    let (start, castling) = monty_start(fen);
    let mut game = MontyFormat::new(start, castling);
    let mut pos = start;
    for _ in 0..max_plies {
        let legal = monty_legal(&pos, &castling);
        if legal.is_empty() {
            break;
        }
        let mv = legal[(rng.next() % legal.len() as u64) as usize];
        let score = (rng.next() % 1001) as f32 / 1000.0;
        let dist = (!rng.next().is_multiple_of(4)).then(|| {
            legal
                .iter()
                .map(|&m| (m, (rng.next() % 5000) as u32))
                .collect::<Vec<_>>()
        });
        game.push(SearchData::new(mv, score, dist));
        pos.make(mv, &castling);
    }
    game.result = (rng.next() % 3) as f32 / 2.0;
    let mut out = Vec::new();
    game.serialise_into_buffer(&mut out).unwrap();
    out
}

#[test]
fn monty_games_read_identically_and_round_trip() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut data = Vec::new();
    let mut expected = Vec::new();
    for round in 0..40 {
        for fen in FENS {
            let plies = [0, 1, 30, 200][round % 4];
            let g = monty_game(fen, &mut rng, plies);
            expected.push(g.clone());
            data.extend(g);
        }
    }
    let mut reader = std::io::Cursor::new(&data);
    let mut n = 0;
    let mut flags_seen = [0u32; 16];
    let mut legal_counts_seen = [0u32; 3];
    for (view, bytes) in frames(&data).zip(&expected) {
        let view = view.unwrap();
        assert_eq!(view.bytes, &bytes[..], "framing of game {n}");
        let ours = decode_game(&view).unwrap();
        let theirs = MontyFormat::deserialise_from(&mut reader).unwrap();
        assert_eq!(ours.moves.len(), theirs.moves.len());
        assert_eq!(f32::from(ours.result()) / 2.0, theirs.result);
        // Same positions (FEN of the start), same moves and scores, visits on the same moves.
        let mut mpos = theirs.startpos;
        let mut pos = ours.start.clone();
        for (m, t) in ours.moves.iter().zip(&theirs.moves) {
            let our_codes: Vec<u16> = legal_moves_by_code(&pos).iter().map(|(c, _)| c.0).collect();
            let their_codes: Vec<u16> = monty_legal(&mpos, &theirs.castling)
                .iter()
                .map(|&m| u16::from(m))
                .collect();
            assert_eq!(our_codes, their_codes, "legal moves of {}", mpos.as_fen());
            legal_counts_seen[our_codes.len().min(2)] += 1;
            assert_eq!(encode_move(m.mv).0, u16::from(t.best_move));
            assert_eq!(f32::from(m.score) / 65535.0, t.score);
            match (&m.visits, &t.visit_distribution) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    assert_eq!(a.len(), b.len());
                    for ((am, av), (bm, bv)) in a.iter().zip(b) {
                        assert_eq!(encode_move(*am).0, u16::from(*bm));
                        assert_eq!(u32::from(*av), *bv);
                    }
                }
                _ => panic!("visit presence differs"),
            }
            flags_seen[usize::from(m.code.flag())] += 1;
            pos.play_unchecked(m.mv);
            mpos.make(t.best_move, &theirs.castling);
        }
        assert_eq!(
            ours.to_bytes(),
            bytes.as_slice(),
            "re-serialisation of game {n}"
        );
        n += 1;
    }
    assert_eq!(n, expected.len());
    // Positions with exactly one legal move were played through (0 legal moves: the
    // stalemate start, which has no records).
    assert!(legal_counts_seen[1] > 0, "{legal_counts_seen:?}");
    // Every kind of move occurred: quiet, double push, both castlings, capture, en passant,
    // the four promotions with and without capture.
    for flag in [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15] {
        assert!(
            flags_seen[flag] > 0,
            "no move with flag {flag}: {flags_seen:?}"
        );
    }
}

#[test]
fn our_games_are_read_by_monty() {
    let mut rng = Rng(42);
    for fen in FENS {
        let (mode, start) = {
            let f: Fen = fen.parse().unwrap();
            match f.clone().into_position::<Chess>(CastlingMode::Standard) {
                Ok(p) => (CastlingMode::Standard, p),
                Err(_) => (
                    CastlingMode::Chess960,
                    f.into_position(CastlingMode::Chess960).unwrap(),
                ),
            }
        };
        let _ = mode;
        let mut w = GameWriter::new(&start);
        let mut pos = start.clone();
        let mut played = Vec::new();
        for _ in 0..60 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[(rng.next() % legal.len() as u64) as usize];
            let visits: Vec<_> = legal
                .iter()
                .map(|&m| (m, (rng.next() % 900) as u32))
                .collect();
            let score = (rng.next() % 101) as f32 / 100.0;
            w.push(mv, score, Some(&visits)).unwrap();
            played.push((mv, score, visits));
            pos.play_unchecked(mv);
        }
        let bytes = w.finish(2).unwrap();
        let theirs = MontyFormat::deserialise_from(&mut std::io::Cursor::new(&bytes)).unwrap();
        assert_eq!(theirs.result, 1.0);
        assert_eq!(theirs.moves.len(), played.len());
        for ((mv, score, _), t) in played.iter().zip(&theirs.moves) {
            assert_eq!(encode_move(*mv).0, u16::from(t.best_move));
            assert_eq!(t.score, ((score * 65535.0) as u16) as f32 / 65535.0);
        }
        // And montyformat writes the same bytes for the same game.
        let mut again = Vec::new();
        theirs.serialise_into_buffer(&mut again).unwrap();
        let ours = decode_game(&frames(&bytes).next().unwrap().unwrap()).unwrap();
        assert_eq!(ours.to_bytes(), bytes);
        assert_eq!(again.len(), bytes.len());
    }
}

/// Policy games converted to the value format: byte-identical to montyformat filling a
/// `MontyValueFormat` with `push(stm, move, score)` from the decoded policy game.
#[test]
fn policy_to_value_matches_monty() {
    use montyformat::MontyValueFormat;
    use selfplay_format::value::{decode_value_game, policy_to_value, value_frames};
    let mut rng = Rng(0xfeed_beef);
    let mut policy = Vec::new();
    for round in 0..12 {
        for fen in FENS {
            policy.extend(monty_game(fen, &mut rng, [0, 1, 40, 150][round % 4]));
        }
    }
    let mut reader = std::io::Cursor::new(&policy);
    let mut theirs_all = Vec::new();
    let mut ours_all = Vec::new();
    for view in frames(&policy) {
        let view = view.unwrap();
        let g = MontyFormat::deserialise_from(&mut reader).unwrap();
        let mut v = MontyValueFormat {
            startpos: g.startpos,
            castling: g.castling,
            result: g.result,
            moves: Vec::new(),
        };
        let mut pos = g.startpos;
        for m in &g.moves {
            v.push(pos.stm(), m.best_move, m.score);
            pos.make(m.best_move, &g.castling);
        }
        let mut theirs = Vec::new();
        v.serialise_into(&mut theirs).unwrap();
        let mut ours = Vec::new();
        policy_to_value(&view, &mut ours);
        assert_eq!(ours, theirs, "game {}", view.index);
        theirs_all.extend(theirs);
        ours_all.extend(ours);
    }
    // The value data reads back identically on both sides, and re-serialises exactly.
    let mut reader = std::io::Cursor::new(&ours_all);
    let mut n = 0;
    for view in value_frames(&ours_all) {
        let view = view.unwrap();
        let ours = decode_value_game(&view).unwrap();
        let theirs = MontyValueFormat::deserialise_from(&mut reader, Vec::new()).unwrap();
        assert_eq!(ours.moves.len(), theirs.moves.len());
        for ((mv, rec), t) in ours.moves.iter().zip(&theirs.moves) {
            assert_eq!(encode_move(*mv).0, u16::from(t.best_move));
            assert_eq!(rec.score, t.score);
        }
        assert_eq!(f32::from(ours.header.result) / 2.0, theirs.result);
        assert_eq!(ours.to_bytes(), view.bytes);
        n += 1;
    }
    assert_eq!(n, 12 * FENS.len());
}

/// Value games we write are read by montyformat with the same moves and scores, and it
/// writes them back byte for byte.
#[test]
fn our_value_games_are_read_by_monty() {
    use montyformat::MontyValueFormat;
    use selfplay_format::value::ValueWriter;
    let mut rng = Rng(7);
    for fen in FENS {
        let f: Fen = fen.parse().unwrap();
        let start: Chess = match f.clone().into_position(CastlingMode::Standard) {
            Ok(p) => p,
            Err(_) => f.into_position(CastlingMode::Chess960).unwrap(),
        };
        let mut w = ValueWriter::new(&start);
        let mut pos = start.clone();
        let mut played = Vec::new();
        for _ in 0..80 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[(rng.next() % legal.len() as u64) as usize];
            let score = (rng.next() % 2001) as i16 - 1000;
            w.push(mv, score).unwrap();
            played.push((mv, score));
            pos.play_unchecked(mv);
        }
        let bytes = w.finish(0).unwrap();
        let theirs =
            MontyValueFormat::deserialise_from(&mut std::io::Cursor::new(&bytes), Vec::new())
                .unwrap();
        assert_eq!(theirs.result, 0.0);
        assert_eq!(theirs.moves.len(), played.len());
        for ((mv, score), t) in played.iter().zip(&theirs.moves) {
            assert_eq!(encode_move(*mv).0, u16::from(t.best_move));
            assert_eq!(*score, t.score);
        }
        let mut again = Vec::new();
        theirs.serialise_into(&mut again).unwrap();
        assert_eq!(again, bytes, "{fen}");
    }
}
