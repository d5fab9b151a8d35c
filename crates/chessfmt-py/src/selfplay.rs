//! Monty self-play data: games for `chessfmt.selfplay.open`, numpy batches for
//! `chessfmt.selfplay.positions`.

use std::{
    path::PathBuf,
    sync::{Mutex, mpsc},
};

use pyo3::{prelude::*, types::PyBytes};
use selfplay_format::{
    decode::decode_game,
    frame::frames,
    positions::{Mode, Positions},
    raw::{MoveCode, flags},
    tools::Filter,
};
use shakmaty::{Color, EnPassantMode, Position, Role, fen::Fen, uci::UciMove};

use crate::{board, errors};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SelfplayGames>()?;
    m.add_class::<SelfplayPositions>()?;
    Ok(())
}

fn read(py: Python<'_>, path: &PathBuf) -> PyResult<Vec<u8>> {
    py.detach(|| std::fs::read(path))
        .map_err(|e| errors::io(path, &e))
}

fn uci(m: shakmaty::Move, chess960: bool) -> String {
    let mode = if chess960 {
        shakmaty::CastlingMode::Chess960
    } else {
        shakmaty::CastlingMode::Standard
    };
    UciMove::from_move(m, mode).to_string()
}

/// One decoded game: start FEN, whether castling is Chess960's, White's result (0, 1, 2 for
/// loss, draw, win), and per move `(uci, score, visits)` with `visits` `[(uci, count)]` or
/// `None`.
type GameTuple = (
    String,
    bool,
    u8,
    Vec<(String, u16, Option<Vec<(String, u8)>>)>,
);

/// The games of a file, decoded one at a time.
#[pyclass(module = "chessfmt._native")]
pub struct SelfplayGames {
    data: Vec<u8>,
    path: PathBuf,
    /// Offset of the next game; `None` after the end or an error.
    next: Mutex<Option<(usize, u64)>>,
}

#[pymethods]
impl SelfplayGames {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let data = read(py, &path)?;
        Ok(SelfplayGames {
            data,
            path,
            next: Mutex::new(Some((0, 0))),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> PyResult<Option<GameTuple>> {
        let mut next = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some((offset, index)) = *next else {
            return Ok(None);
        };
        let mut it = frames(&self.data);
        it.seek(offset, index);
        let Some(view) = it.next() else {
            *next = None;
            return Ok(None);
        };
        let view = match view {
            Ok(v) => v,
            Err(e) => {
                *next = None;
                return Err(errors::to_py(e.in_file(&self.path)));
            }
        };
        *next = Some((it.offset(), index + 1));
        let game = decode_game(&view).map_err(|e| {
            *next = None;
            errors::to_py(e.in_file(&self.path))
        })?;
        let chess960 = game.castling_mode == shakmaty::CastlingMode::Chess960;
        let fen = Fen::from_position(&game.start, EnPassantMode::Legal).to_string();
        let moves = game
            .moves
            .iter()
            .map(|m| {
                let visits = m.visits.as_ref().map(|v| {
                    v.iter()
                        .map(|&(mv, n)| (uci(mv, chess960), n))
                        .collect::<Vec<_>>()
                });
                (uci(m.mv, chess960), m.score, visits)
            })
            .collect();
        Ok(Some((fen, chess960, game.result(), moves)))
    }
}

/// Positions of a file in batches of columns (bytes for numpy). A thread decodes the file
/// and fills batches while Python consumes the last (two batches in flight at most).
#[pyclass(module = "chessfmt._native")]
pub struct SelfplayPositions {
    rx: Mutex<mpsc::Receiver<(Batch, usize, u64)>>,
}

/// The columns of one batch.
#[derive(Default)]
struct Batch {
    boards: Vec<u64>,
    turn: Vec<u8>,
    castling: Vec<u64>,
    ep_square: Vec<i8>,
    halfmove: Vec<u16>,
    score: Vec<f32>,
    result: Vec<f32>,
    best_move: Vec<u16>,
    game: Vec<u64>,
    ply: Vec<u16>,
    visit_offsets: Vec<u64>,
    visit_moves: Vec<u16>,
    visit_counts: Vec<u8>,
}

/// A move in 16 bits: from | to << 6 | promotion << 12 | castling << 15, with python-chess's
/// piece types for the promotion, and castling as king-takes-rook (`to` the rook's square;
/// `decode_moves` in selfplay.py writes it in a board's notation).
fn packed(m: shakmaty::Move) -> u16 {
    match m {
        shakmaty::Move::Castle { king, rook } => king as u16 | (rook as u16) << 6 | 1 << 15,
        _ => {
            let (from, to, promotion) = board::py_move(m, false);
            u16::from(from) | u16::from(to) << 6 | u16::from(promotion) << 12
        }
    }
}

/// [`packed`] straight from a stored move code (no move generation: the policy's moves are
/// legal by the format's contract; castling takes its rook from the position's rights).
fn packed_code(code: MoveCode, pos: &shakmaty::Chess) -> u16 {
    let from = u16::from(code.from());
    let to = u16::from(code.to());
    let flag = code.flag();
    if flag == flags::KING_CASTLE || flag == flags::QUEEN_CASTLE {
        let side = if flag == flags::KING_CASTLE {
            shakmaty::CastlingSide::KingSide
        } else {
            shakmaty::CastlingSide::QueenSide
        };
        return match pos.castles().rook(pos.turn(), side) {
            Some(rook) => from | (rook as u16) << 6 | 1 << 15,
            // No such right: the code is the king's plain move (as the decoder reads it).
            None => from | to << 6,
        };
    }
    let promotion = if flag & flags::PROMOTION != 0 {
        (flag & 3) + 2
    } else {
        0
    };
    from | to << 6 | promotion << 12
}

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

#[pymethods]
impl SelfplayPositions {
    #[new]
    #[pyo3(signature = (path, batch_size, visits, ply=None, score=None, in_check=None, capture=None, pieces=None, has_policy=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        batch_size: usize,
        visits: bool,
        ply: Option<(usize, usize)>,
        score: Option<(f32, f32)>,
        in_check: Option<bool>,
        capture: Option<bool>,
        pieces: Option<(u32, u32)>,
        has_policy: Option<bool>,
    ) -> PyResult<Self> {
        let data = read(py, &path)?;
        let mut filter = Filter::default();
        filter.ply = ply.map(|(a, b)| a..=b);
        filter.score = score.map(|(a, b)| a..=b);
        filter.in_check = in_check;
        filter.capture = capture;
        filter.pieces = pieces.map(|(a, b)| a..=b);
        filter.has_policy = has_policy;
        let (tx, rx) = mpsc::sync_channel(1);
        let batch_size = batch_size.max(1);
        std::thread::spawn(move || produce(&data, &filter, batch_size, visits, &tx));
        Ok(SelfplayPositions { rx: Mutex::new(rx) })
    }

    /// The next batch: `None` at the end, else the columns as bytes (in the order of
    /// `COLUMNS` in selfplay.py), the number of positions, and the games skipped as
    /// unreadable so far.
    #[allow(clippy::type_complexity)]
    fn next_batch<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Vec<Bound<'py, PyBytes>>, usize, u64)>> {
        let got = py.detach(|| {
            let rx = self
                .rx
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            rx.recv().ok()
        });
        let Some((batch, n, skipped)) = got else {
            return Ok(None);
        };
        fn bytes<'py, T: Copy>(py: Python<'py>, v: &[T]) -> Bound<'py, PyBytes> {
            // SAFETY: `T` is a plain number type (u8, i8, u16, u64, f32): every byte of the
            // slice is initialised, and the length in bytes is its length times the size.
            let raw =
                unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), size_of_val(v)) };
            PyBytes::new(py, raw)
        }
        let cols = vec![
            bytes(py, &batch.boards),
            bytes(py, &batch.turn),
            bytes(py, &batch.castling),
            bytes(py, &batch.ep_square),
            bytes(py, &batch.halfmove),
            bytes(py, &batch.score),
            bytes(py, &batch.result),
            bytes(py, &batch.best_move),
            bytes(py, &batch.game),
            bytes(py, &batch.ply),
            bytes(py, &batch.visit_offsets),
            bytes(py, &batch.visit_moves),
            bytes(py, &batch.visit_counts),
        ];
        Ok(Some((cols, n, skipped)))
    }
}

/// Decodes every position of `data` that `filter` keeps, sending batches of `batch_size`
/// (the last may be smaller) with the count of unreadable games skipped so far; stops when
/// the receiver is gone.
fn produce(
    data: &[u8],
    filter: &Filter,
    batch_size: usize,
    visits: bool,
    tx: &mpsc::SyncSender<(Batch, usize, u64)>,
) {
    let mut positions = Positions::from_slice(data, Mode::Lenient);
    let mut b = Batch::new(batch_size, visits);
    let mut n = 0usize;
    while let Some(item) = positions.next() {
        let Ok(s) = item else { continue };
        if !filter.matches(&s) {
            continue;
        }
        b.push(&s, visits);
        n += 1;
        if n == batch_size {
            let full = std::mem::replace(&mut b, Batch::new(batch_size, visits));
            if tx.send((full, n, positions.skipped())).is_err() {
                return;
            }
            n = 0;
        }
    }
    if n > 0 {
        let _ = tx.send((b, n, positions.skipped()));
    }
}

impl Batch {
    /// An empty batch with room for `n` positions (and their visits: about 32 each).
    fn new(n: usize, visits: bool) -> Batch {
        let mut visit_offsets = Vec::with_capacity(n + 1);
        visit_offsets.push(0);
        let v = if visits { n * 32 } else { 0 };
        Batch {
            boards: Vec::with_capacity(n * 12),
            turn: Vec::with_capacity(n),
            castling: Vec::with_capacity(n),
            ep_square: Vec::with_capacity(n),
            halfmove: Vec::with_capacity(n),
            score: Vec::with_capacity(n),
            result: Vec::with_capacity(n),
            best_move: Vec::with_capacity(n),
            game: Vec::with_capacity(n),
            ply: Vec::with_capacity(n),
            visit_offsets,
            visit_moves: Vec::with_capacity(v),
            visit_counts: Vec::with_capacity(v),
        }
    }

    fn push(&mut self, s: &selfplay_format::positions::Sample<'_>, visits: bool) {
        let b = self;
        let pos = s.position;
        let board = pos.board();
        for color in [Color::White, Color::Black] {
            let side = board.by_color(color);
            for role in ROLES {
                b.boards.push((board.by_role(role) & side).0);
            }
        }
        b.turn.push(u8::from(pos.turn() == Color::White));
        b.castling.push(pos.castles().castling_rights().0);
        b.ep_square.push(
            pos.ep_square(EnPassantMode::Legal)
                .map_or(-1, |sq| sq as i8),
        );
        b.halfmove
            .push(u16::try_from(pos.halfmoves()).unwrap_or(u16::MAX));
        b.score.push(s.score());
        b.result.push(s.result);
        b.best_move.push(packed(s.mv));
        b.game.push(s.game);
        b.ply.push(u16::try_from(s.ply).unwrap_or(u16::MAX));
        if visits {
            for (code, count) in s.policy_codes() {
                b.visit_moves.push(packed_code(code, pos));
                b.visit_counts.push(count);
            }
        }
        b.visit_offsets.push(b.visit_moves.len() as u64);
    }
}
