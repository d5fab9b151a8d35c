//! Structure-aware generation of ChessBase databases (issue 20): the input bytes are choices
//! (through `arbitrary::Unstructured`) that build a legal mode-5 game — runs of moves,
//! variations opened and closed, and repeated shapes (deep nesting, many siblings) whose
//! repeat counts let a few bytes make a game of megabytes — and a number of `.cbh` records
//! that all point at it. Shared by the fuzz target `cbh_structured` (fuzz/) and the replay
//! test `fuzz_structured.rs`; it asserts the bounds the decoder promises.

use arbitrary::{Result, Unstructured};
use chessbase_db::fuzzing::{exercise, pairs_stream, pairs_word, shared_game_database};
use chessbase_db::{Database, Header, Limits};
use shakmaty::{CastlingMode, Chess, Move, Position};

/// The most move words one input may build (a 128 KiB game record: larger games only cost
/// the fuzzer time, the decoder is linear; the regression tests cover the large sizes).
const MAX_WORDS: usize = 1 << 16;

/// The most repetitions of a shape: past the nesting limit (256) and enough siblings that a
/// quadratic insertion would time out.
const MAX_REPEAT: u16 = 4096;

/// Builds a database from `data`, decodes and exports every record, and checks the bounds.
pub fn cbh_structured(data: &[u8]) {
    let Ok((words, records)) = generate(&mut Unstructured::new(data)) else {
        return;
    };
    let Some(files) = shared_game_database(5, &pairs_stream(words.iter().copied()), records) else {
        return;
    };
    let db = Database::from_files(files).expect("a generated database opens");
    let Header::Game(h) = db.header(1).expect("record 1") else {
        panic!("record 1 is a game")
    };
    let g = db.game(1).expect("the generated game decodes");
    let depth = Limits::default().variation_depth() as u32;
    assert!(
        (0..g.tree.len() as u32).all(|n| g.tree.nesting(n) <= depth + 1),
        "nesting stays within the limit"
    );
    assert!(g.tree.len() <= words.len() + 1, "one node per move at most");
    let mut pgn = String::new();
    chessbase_db::pgn::write_game(&mut pgn, &h, &g, &Default::default());
    assert_eq!(pgn.matches('(').count(), pgn.matches(')').count());
    // Every record, as the export does: the records sharing the game are reported, the game
    // is decoded once.
    let mut sink = std::io::sink();
    // On the caller's pool (the fuzz target's and the test's: rayon's global one).
    let summary = chessbase_db::pgn::export(
        &db,
        &chessbase_db::ExportOptions::default().records(1..=records),
        &mut sink,
        |_| {},
    )
    .expect("a sink does not fail");
    assert_eq!(summary.exported, 1);
    assert_eq!(summary.skipped.len() as u32, records - 1);
    exercise(&db);
}

/// A legal move of `pos` by choice, as a mode-5 word's squares (castling as the king's
/// two-square move; promotions are left out: the word has no room for the piece here).
fn pick(u: &mut Unstructured<'_>, pos: &Chess) -> Result<Option<Move>> {
    let moves: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.promotion().is_none())
        .collect();
    if moves.is_empty() {
        return Ok(None);
    }
    Ok(Some(moves[u.choose_index(moves.len())?]))
}

fn word(m: Move, variation: bool, end: bool) -> u16 {
    let uci = m.to_uci(CastlingMode::Standard);
    let shakmaty::uci::UciMove::Normal { from, to, .. } = uci else {
        unreachable!("a legal move of standard chess")
    };
    pairs_word(from, to, variation, end)
}

/// The words of a game and the number of records pointing at it.
fn generate(u: &mut Unstructured<'_>) -> Result<(Vec<u16>, u32)> {
    let records = u.int_in_range(1..=64)?;
    let mut words = Vec::new();
    let mut pos = Chess::default();
    // Positions to return to at the end of each open variation (the decoder's stack).
    let mut stack: Vec<Chess> = Vec::new();
    while !u.is_empty() && words.len() < MAX_WORDS {
        match u.choose_index(5)? {
            // A run of main-line moves.
            0 => {
                for _ in 0..u.int_in_range(1..=8)? {
                    let Some(m) = pick(u, &pos)? else { break };
                    words.push(word(m, false, false));
                    pos.play_unchecked(m);
                }
            }
            // Open a variation with a move.
            1 => {
                if let Some(m) = pick(u, &pos)? {
                    stack.push(pos.clone());
                    words.push(word(m, true, false));
                    pos.play_unchecked(m);
                }
            }
            // End the current variation after its last move.
            2 => {
                if let (Some(last), Some(back)) = (words.last_mut(), stack.last())
                    && *last & 0x4000 == 0
                {
                    *last |= 0x4000;
                    pos = back.clone();
                    stack.pop();
                }
            }
            // Deep: n times a one-move variation then a move (each variation one level
            // deeper in the tree: ../shared/fuzz-findings F2).
            3 => {
                let n = u.int_in_range(1..=MAX_REPEAT)?;
                for _ in 0..n {
                    if words.len() + 2 > MAX_WORDS {
                        break;
                    }
                    let (Some(a), Some(b)) = (pick(u, &pos)?, pick(u, &pos)?) else {
                        break;
                    };
                    words.push(word(a, true, true));
                    words.push(word(b, false, false));
                    pos.play_unchecked(b);
                }
            }
            // Wide: n one-move variations hanging off one node (F3).
            _ => {
                let n = u.int_in_range(1..=MAX_REPEAT)?;
                let Some(a) = pick(u, &pos)? else { continue };
                for _ in 0..n.min((MAX_WORDS - words.len()) as u16) {
                    words.push(word(a, true, true));
                }
            }
        }
    }
    Ok((words, records))
}
