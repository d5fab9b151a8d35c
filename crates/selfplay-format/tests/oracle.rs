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
