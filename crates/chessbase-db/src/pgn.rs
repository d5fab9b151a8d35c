//! PGN export: tags, SAN movetext with variations, NAGs, comments and the `[%csl]`, `[%cal]`,
//! `[%clk]` and `[%emt]` commands; sequential or parallel, always in record order.

use std::fmt::Write as _;
use std::io::{self, Write};

#[cfg(feature = "parallel")]
use rayon::prelude::*;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, EnPassantMode, Position, fen::Fen};

use crate::annotations::Annotation;
use crate::db::Database;
use crate::error::{Error, GameError};
use crate::game::{Game, MoveTree, NodeId, PlainLine, Start};
use crate::header::{GameHeader, Header};
use chess_core::movetext::Movetext;

mod export;
mod movetext;
#[cfg(feature = "parquet")]
mod table;
mod tags;

use export::game_header;
pub use export::{ExportOptions, ExportSummary, Written, export, write_game_to};
use movetext::*;
#[cfg(feature = "parquet")]
pub use table::{Compression, export_parquet, export_parquet_with};
use tags::*;

/// Export options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PgnOptions {
    /// Write comments, NAGs and graphical commands.
    pub annotations: bool,
    /// Wrap movetext lines at this many characters.
    pub line_width: usize,
}

impl Default for PgnOptions {
    fn default() -> Self {
        PgnOptions {
            annotations: true,
            line_width: 80,
        }
    }
}

/// The SAN of `m` in `pos`, with its check or mate suffix, and `pos` after it: the same as
/// shakmaty's `SanPlus::from_move_and_play_unchecked` (tested), without generating every legal
/// move of every position: disambiguation and mate are worked out as the decoder works out its
/// SAN flags (the other pieces of the kind that reach the square; a king step before any move
/// generation), where shakmaty asks for the game's outcome after every move.
pub fn san_plus(pos: &mut Chess, m: shakmaty::Move) -> SanPlus {
    use crate::moves::san;
    use shakmaty::san::{San, Suffix};
    use shakmaty::{Move, Role};
    let san = match m {
        Move::Castle { .. } => m
            .castling_side()
            .map_or_else(|| San::from_move(pos, m), San::Castle),
        Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion,
        } => San::Normal {
            role: Role::Pawn,
            file: capture.is_some().then(|| from.file()),
            rank: None,
            capture: capture.is_some(),
            to,
            promotion,
        },
        Move::EnPassant { from, to } => San::Normal {
            role: Role::Pawn,
            file: Some(from.file()),
            rank: None,
            capture: true,
            to,
            promotion: None,
        },
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let flags = crate::moves::disambiguation(pos, m);
            San::Normal {
                role,
                file: (flags & san::FILE != 0).then(|| from.file()),
                rank: (flags & san::RANK != 0).then(|| from.rank()),
                capture: capture.is_some(),
                to,
                promotion,
            }
        }
        Move::Put { .. } => San::from_move(pos, m),
    };
    pos.play_unchecked(m);
    let suffix = if pos.checkers().is_empty() {
        None
    } else if crate::moves::has_legal_move(pos) {
        Some(Suffix::Check)
    } else {
        Some(Suffix::Checkmate)
    };
    SanPlus { san, suffix }
}

/// Appends one game as PGN to `out`.
pub fn write_game(out: &mut String, header: &GameHeader<'_>, game: &Game, opts: &PgnOptions) {
    let outcome = write_tags(out, header, &game.start, &game.game_annotations);
    write_movetext(out, game, outcome.pgn(), opts);
    out.push_str("\n\n");
}

/// Game `number` as PGN text.
pub fn game_to_pgn(db: &Database, number: u32, opts: &PgnOptions) -> Result<String, Error> {
    let header = game_header(db, number)?;
    let game = db.game_with(number, opts.annotations)?;
    let mut s = String::new();
    write_game(&mut s, &header, &game, opts);
    Ok(s)
}

#[cfg(test)]
mod san_tests {
    use super::*;

    /// `san_plus` writes exactly what shakmaty writes, on random playouts from positions
    /// with promotions, en passant, castling both ways and ambiguous knights, rooks and queens.
    #[test]
    fn fast_san_is_shakmatys() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
            "1k6/8/8/3N1N2/8/Q1Q5/8/R3K2R w KQ - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        ];
        let mut x = chess_core::fuzzing::XorShift::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || x.next_u64();
        let mut checked = 0;
        for fen in fens {
            let start: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .unwrap();
            for _ in 0..300 {
                let mut pos = start.clone();
                for _ in 0..120 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let m = moves[(next() % moves.len() as u64) as usize];
                    let mut theirs = pos.clone();
                    let want = SanPlus::from_move_and_play_unchecked(&mut theirs, m);
                    let got = san_plus(&mut pos, m);
                    assert_eq!(
                        got,
                        want,
                        "{} {m:?}",
                        Fen::from_position(&theirs, EnPassantMode::Legal)
                    );
                    assert_eq!(pos, theirs);
                    checked += 1;
                }
            }
        }
        assert!(checked > 50_000, "{checked}");
    }

    /// The movetext written from the decoder's SAN flags (no replay), and for games without
    /// variations without a tree, is the movetext written by replaying the moves, on random games with variations, null moves, promotions, en
    /// passant, castling both ways (Chess960 too), checks, mates and ambiguous pieces.
    #[test]
    fn san_flags_write_what_a_replay_writes() {
        use crate::game::{MoveTree, NodeId, Start, decode_game};
        use shakmaty::CastlingMode;
        let fens = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                false,
            ),
            ("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1", false),
            ("1k6/8/8/3N1N2/8/Q1Q5/8/R3K2R w KQ - 0 1", false),
            ("4k3/8/8/8/8/8/8/R3K2R b KQ - 0 7", false),
            ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", false),
            (
                "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1",
                true,
            ),
        ];
        let mut x = chess_core::fuzzing::XorShift::new(0x2545_f491_4f6c_dd1d);
        let mut next = move |n: usize| x.below(n);
        let (mut games, mut plain_games) = (0, 0);
        for (fen, c960) in fens {
            let mode = if c960 {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for _ in 0..150 {
                let mut tree = MoveTree::new();
                // Lines to extend: (node, position there); a variation branches off a node
                // that already has a continuation.
                let mut open: Vec<(NodeId, Chess)> = vec![(MoveTree::ROOT, start.clone())];
                for _ in 0..90 {
                    let k = next(open.len());
                    let (node, pos) = open[k].clone();
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        open.swap_remove(k);
                        if open.is_empty() {
                            break;
                        }
                        continue;
                    }
                    let (mv, after) = if next(25) == 0 && !pos.is_check() {
                        (None, pos.clone().swap_turn().ok())
                    } else {
                        let m = moves[next(moves.len())];
                        let mut p = pos.clone();
                        p.play_unchecked(m);
                        (Some(m), Some(p))
                    };
                    let Some(after) = after else { continue };
                    if tree.child_nesting(node) > 3 {
                        continue;
                    }
                    let child = tree.add(node, mv);
                    open[k] = (child, after);
                    if next(8) == 0 {
                        open.push((node, pos));
                    }
                }
                let game = Game::new(
                    Start {
                        position: start.clone(),
                        castling_mode: mode,
                        setup: true,
                        chess960: c960.then_some(518),
                        chess960_rooks: None,
                    },
                    tree,
                );
                let encoded = crate::encode::encode_game(&game, encoding_rs::WINDOWS_1252).unwrap();
                let decoded = decode_game(&encoded.cbg, 0, 1).unwrap();
                assert!(decoded.truncated.is_none(), "{:?}", decoded.truncated);
                assert!(decoded.tree.san_flags(MoveTree::ROOT).is_some());
                let mut replayed = decoded.clone();
                replayed.tree.forget_san();
                let opts = PgnOptions::default();
                let (mut fast, mut slow) = (String::new(), String::new());
                write_movetext(&mut fast, &decoded, "*", &opts);
                write_movetext(&mut slow, &replayed, "*", &opts);
                assert_eq!(fast, slow, "{fen}");
                // Without variations, the tree-less writer writes the same.
                let mut text = None;
                let line = crate::game::decode_plain(&encoded.cbg, 0, 1, |start| {
                    plain_sink(&mut text, opts.line_width, start)
                });
                match line.unwrap() {
                    Some(_) => {
                        let mut plain = String::new();
                        let mut text = text.unwrap().text;
                        text.token("*");
                        text.finish(&mut plain);
                        assert_eq!(plain, slow, "{fen}");
                        plain_games += 1;
                    }
                    None => assert!(decoded.tree.len() > decoded.tree.main_line().count() + 1),
                }
                games += 1;
            }
        }
        assert_eq!(games, 900);
        assert!(plain_games > 50, "{plain_games}");
    }
}
