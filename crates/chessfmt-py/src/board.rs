//! python-chess boards and moves on the Rust side.
//!
//! A `chess.Board` is read through its bitboard attributes (a dozen integer reads, no FEN
//! text) into a shakmaty position. Boards that are not standard chess (variants) or that
//! shakmaty finds invalid give `None`: the Python side then does the work the way
//! python-chess does, so every answer stays python-chess's.

use std::num::NonZeroU32;

use pyo3::{intern, prelude::*};
use shakmaty::{
    Bitboard, ByColor, ByRole, CastlingMode, Chess, Color, FromSetup, Move, Setup, Square,
    board::Board,
};

/// A python-chess board as a shakmaty position, and whether python-chess writes its castling
/// moves king-takes-rook (`board.chess960`).
pub struct Converted {
    pub pos: Chess,
    pub chess960: bool,
}

fn bits(board: &Bound<'_, PyAny>, name: &Bound<'_, pyo3::types::PyString>) -> PyResult<u64> {
    to_u64(&board.getattr(name)?)
}

/// A Python int as `u64`. pyo3's conversion takes a slow byte-array path in the stable ABI;
/// a bitboard is read many times per probe.
fn to_u64(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    // SAFETY: `value` is a live object (the GIL is held through `Bound`);
    // `PyLong_AsUnsignedLongLong` accepts any object and reports failure through the error
    // indicator, which `PyErr::take` reads.
    let v = unsafe { pyo3::ffi::PyLong_AsUnsignedLongLong(value.as_ptr()) };
    if v == u64::MAX
        && let Some(err) = PyErr::take(value.py())
    {
        return Err(err);
    }
    Ok(v)
}

/// The position of a standard `chess.Board`, or `None` (a variant, or a position shakmaty
/// rejects).
pub fn convert(board: &Bound<'_, PyAny>) -> PyResult<Option<Converted>> {
    let py = board.py();
    // Variant boards (chess.variant.*) have their own rules: python-chess answers for them.
    if !board.get_type().is(crate::pychess::board_type(py)?) {
        let variant: String = board.getattr(intern!(py, "uci_variant"))?.extract()?;
        if variant != "chess" {
            return Ok(None);
        }
    }
    let occupied_co = board.getattr(intern!(py, "occupied_co"))?;
    let black = to_u64(&occupied_co.get_item(0)?)?;
    let white = to_u64(&occupied_co.get_item(1)?)?;
    let by_role = ByRole {
        pawn: Bitboard(bits(board, intern!(py, "pawns"))?),
        knight: Bitboard(bits(board, intern!(py, "knights"))?),
        bishop: Bitboard(bits(board, intern!(py, "bishops"))?),
        rook: Bitboard(bits(board, intern!(py, "rooks"))?),
        queen: Bitboard(bits(board, intern!(py, "queens"))?),
        king: Bitboard(bits(board, intern!(py, "kings"))?),
    };
    let Ok(b) = Board::try_from_bitboards(
        by_role,
        ByColor {
            white: Bitboard(white),
            black: Bitboard(black),
        },
    ) else {
        return Ok(None);
    };
    let turn: bool = board.getattr(intern!(py, "turn"))?.extract()?;
    let castling: u64 = bits(board, intern!(py, "castling_rights"))?;
    let ep: Option<u32> = board.getattr(intern!(py, "ep_square"))?.extract()?;
    let chess960: bool = board.getattr(intern!(py, "chess960"))?.extract()?;
    let mut setup = Setup::empty();
    setup.board = b;
    setup.turn = if turn { Color::White } else { Color::Black };
    setup.castling_rights = Bitboard(castling);
    setup.ep_square = match ep {
        Some(sq) => match Square::try_from(sq) {
            Ok(sq) => Some(sq),
            Err(_) => return Ok(None),
        },
        None => None,
    };
    // The move counters change neither the key nor the legal moves: not read.
    setup.halfmoves = 0;
    setup.fullmoves = NonZeroU32::MIN;
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    // Any disagreement (castling rights python-chess would clean, an impossible en-passant
    // square) leaves the answer to python-chess.
    Ok(Chess::from_setup(setup, mode)
        .ok()
        .map(|pos| Converted { pos, chess960 }))
}

/// A move as python-chess writes it on a board: `(from, to, promotion)` with squares 0–63,
/// promotion as python-chess's piece type (2 knight … 5 queen) or 0, castling as the king's
/// two-square move unless `chess960`.
pub fn py_move(m: Move, chess960: bool) -> (u8, u8, u8) {
    let promotion = m.promotion().map_or(0, |r| r as u8);
    match m {
        Move::Castle { king, rook } => {
            let to = if chess960 {
                rook
            } else {
                let file = if rook.file() > king.file() {
                    shakmaty::File::G
                } else {
                    shakmaty::File::C
                };
                Square::from_coords(file, king.rank())
            };
            (king as u8, to as u8, 0)
        }
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => {
            (from as u8, to as u8, promotion)
        }
        Move::Put { to, .. } => (to as u8, to as u8, 0),
    }
}

/// The legal move that python-chess's move `(from, to, promotion)` denotes on `pos`.
pub fn find_legal(legal: &[Move], chess960: bool, mv: (u8, u8, u8)) -> Option<Move> {
    legal.iter().copied().find(|&m| py_move(m, chess960) == mv)
}

/// [`convert`] for a book that holds standard chess only (CTG, Kvetka): a variant board is a
/// `ValueError`; `None` is a position shakmaty finds invalid (in no book).
pub fn standard(board: &Bound<'_, PyAny>, format: &str) -> PyResult<Option<Converted>> {
    let conv = convert(board)?;
    if conv.is_none() {
        let variant: String = board.getattr("uci_variant")?.extract()?;
        if variant != "chess" {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{format} books hold standard chess positions, not {variant}"
            )));
        }
    }
    Ok(conv)
}
