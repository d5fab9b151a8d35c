//! Tier 3: full decode — the start position as shakmaty's `Chess` (Chess960 from the rook
//! files), every move as a `Move`, the visit bytes attached to the legal moves in ascending
//! move-code order, checked against the n byte.

use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, CastlingSide, Chess, Color, Move, Position,
    Role, Setup, Square,
};

use crate::{
    error::{Error, ErrorKind, HeaderProblem},
    frame::{GameView, MoveRecord},
    movegen::{CodeList, CodeMoves, code_to_move, legal_codes},
    raw::{Header, MoveCode, castling_bits, flags},
};

/// The move code of a legal move (castling as the king moving to the c- or g-file).
pub fn encode_move(m: Move) -> MoveCode {
    match m {
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            let to = Square::from_coords(side.king_to_file(), king.rank());
            let flag = match side {
                CastlingSide::KingSide => flags::KING_CASTLE,
                CastlingSide::QueenSide => flags::QUEEN_CASTLE,
            };
            MoveCode::new(u8::from(king), u8::from(to), flag)
        }
        Move::EnPassant { from, to } => {
            MoveCode::new(u8::from(from), u8::from(to), flags::EN_PASSANT)
        }
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let cap = if capture.is_some() { flags::CAPTURE } else { 0 };
            let flag = match promotion {
                Some(p) => {
                    flags::PROMOTION
                        | cap
                        | match p {
                            Role::Knight => 0,
                            Role::Bishop => 1,
                            Role::Rook => 2,
                            _ => 3,
                        }
                }
                None if role == Role::Pawn
                    && from.distance(to) == 2
                    && from.file() == to.file() =>
                {
                    flags::DOUBLE_PUSH
                }
                None => cap,
            };
            MoveCode::new(u8::from(from), u8::from(to), flag)
        }
        Move::Put { to, .. } => MoveCode::new(u8::from(to), u8::from(to), 0),
    }
}

/// The legal moves of `pos` in ascending move-code order, with their codes.
pub fn legal_moves_by_code(pos: &Chess) -> Vec<(MoveCode, Move)> {
    let mut list = CodeList::new();
    legal_codes(pos, &mut list);
    let moves = CodeMoves::new(pos);
    list.as_slice()
        .iter()
        .map(|&c| (MoveCode(c), moves.get(MoveCode(c))))
        .collect()
}

/// A fully decoded game.
#[derive(Debug, Clone)]
pub struct Game {
    /// The header as stored.
    pub header: Header,
    /// The start position.
    pub start: Chess,
    /// Standard or Chess960 (from the king and rook files).
    pub castling_mode: CastlingMode,
    /// The moves.
    pub moves: Vec<PlayedMove>,
}

/// A move of a game with its search data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    /// The move.
    pub mv: Move,
    /// Its code as stored.
    pub code: MoveCode,
    /// Score of the side to move (0..=65535 for 0..1).
    pub score: u16,
    /// The visit distribution: every legal move in ascending code order with its visit byte;
    /// `None` when the record has none (n = 0).
    pub visits: Option<Vec<(Move, u8)>>,
}

impl Game {
    /// The result from White's point of view: 0 loss, 1 draw, 2 win.
    pub fn result(&self) -> u8 {
        self.header.result
    }

    /// The game's bytes (header, records, terminator), identical to what was read.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(45 + self.moves.len() * 8);
        out.extend_from_slice(&self.header.to_bytes());
        for m in &self.moves {
            out.extend_from_slice(&m.code.0.to_le_bytes());
            out.extend_from_slice(&m.score.to_le_bytes());
            match &m.visits {
                Some(v) => {
                    out.push(v.len() as u8);
                    out.extend(v.iter().map(|&(_, b)| b));
                }
                None => out.push(0),
            }
        }
        out.extend_from_slice(&[0, 0]);
        out
    }
}

/// Rook files of the header, with all zeros meaning the standard a/h files (as the reference
/// reads them).
pub fn effective_rook_files(h: &Header) -> [u8; 4] {
    if h.rook_files == [0; 4] {
        [0, 7, 0, 7]
    } else {
        h.rook_files
    }
}

/// The start position described by a header.
pub fn start_position(h: &Header) -> Result<(Chess, CastlingMode), ErrorKind> {
    let bad = ErrorKind::BadHeader;
    let (roles, colors) = h.unpack();
    let [pawns, knights, bishops, rooks, queens, kings] = roles.map(Bitboard);
    let [white, black] = colors.map(Bitboard);
    if h.bitboards[0] & !(h.bitboards[1] | h.bitboards[2] | h.bitboards[3]) != 0 {
        return Err(bad(HeaderProblem::BlackOnEmpty));
    }
    let board = Board::try_from_bitboards(
        ByRole {
            pawn: pawns,
            knight: knights,
            bishop: bishops,
            rook: rooks,
            queen: queens,
            king: kings,
        },
        ByColor { black, white },
    )
    .map_err(|_| bad(HeaderProblem::InconsistentBitboards))?;
    let turn = match h.stm {
        0 => Color::White,
        1 => Color::Black,
        s => return Err(bad(HeaderProblem::SideToMove(s))),
    };
    if h.result > 2 {
        return Err(bad(HeaderProblem::Result(h.result)));
    }
    let files = effective_rook_files(h);
    if let Some(f) = files.iter().find(|&&f| f > 7) {
        return Err(bad(HeaderProblem::RookFile(*f)));
    }
    let mut castling_rights = Bitboard::EMPTY;
    for (bit, file, rank) in [
        (castling_bits::WHITE_Q, files[0], 0),
        (castling_bits::WHITE_K, files[1], 0),
        (castling_bits::BLACK_Q, files[2], 7),
        (castling_bits::BLACK_K, files[3], 7),
    ] {
        if h.castling & bit != 0 {
            castling_rights |= Square::from_coords(
                shakmaty::File::new(u32::from(file)),
                shakmaty::Rank::new(rank),
            );
        }
    }
    let standard = (castling_rights & !Bitboard::CORNERS).is_empty()
        && (castling_rights.is_empty()
            || [Color::White, Color::Black].iter().all(|&c| {
                (castling_rights & Bitboard::from_rank(c.backrank())).is_empty()
                    || board
                        .king_of(c)
                        .is_some_and(|k| k.file() == shakmaty::File::E)
            }));
    let mode = if standard {
        CastlingMode::Standard
    } else {
        CastlingMode::Chess960
    };
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights,
        ep_square: (h.ep != 0).then(|| Square::new(u32::from(h.ep & 63))),
        remaining_checks: None,
        halfmoves: u32::from(h.halfmove),
        fullmoves: NonZeroU32::new(u32::from(h.fullmove)).unwrap_or(NonZeroU32::MIN),
    };
    // The ep byte may be set after any double push: an unusable ep square is ignored (the raw
    // byte is kept in the header).
    let pos = match <Chess as shakmaty::FromSetup>::from_setup(setup, mode) {
        Ok(pos) => pos,
        Err(e) => e
            .ignore_invalid_ep_square()
            .map_err(|e| bad(HeaderProblem::Illegal(e.kinds())))?,
    };
    Ok((pos, mode))
}

/// Checks one record against its position: fills `legal` with the position's legal codes,
/// and requires the record's code to be one of them and its visit count `n` to be 0 or their
/// number. Returns the move, or the error with its offset within the record. The one check
/// shared by every decoder (policy games, positions, value games).
pub(crate) fn check_record(
    pos: &Chess,
    legal: &mut CodeList,
    code: MoveCode,
    n: usize,
) -> Result<Move, (usize, ErrorKind)> {
    legal_codes(pos, legal);
    if legal.index_of(code).is_none() {
        return Err((
            0,
            ErrorKind::IllegalMove {
                code: code.0,
                fen: shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                    .to_string(),
            },
        ));
    }
    if n != 0 && n != legal.len() {
        return Err((
            4,
            ErrorKind::VisitCount {
                n: n as u8,
                legal: legal.len(),
            },
        ));
    }
    Ok(code_to_move(pos, code))
}

/// The game result from the side to move's view (0, 0.5 or 1), from the header's result
/// byte (White's view: 0, 1, 2).
pub fn stm_result(white_result: u8, turn: Color) -> f32 {
    let white = f32::from(white_result) / 2.0;
    if turn == Color::White {
        white
    } else {
        1.0 - white
    }
}

/// The header of a framed game and its start position (an error for a bad header).
pub(crate) fn game_start(view: &GameView<'_>) -> Result<(Header, Chess, CastlingMode), Error> {
    let header = view.header();
    let (start, castling_mode) =
        start_position(&header).map_err(|kind| Error::new(view.index + 1, view.offset, kind))?;
    Ok((header, start, castling_mode))
}

/// Replays a framed game from `start` without allocating: calls `f(position, move, record,
/// legal codes)` for each record, the position being the one before the move and the legal
/// codes ascending (the order of the visit bytes). Stops at the first bad record (its error)
/// or at the first error of `f`. The one replay under [`decode_game`] and the streaming
/// writers.
pub(crate) fn replay<E: From<Error>>(
    view: &GameView<'_>,
    start: &Chess,
    mut f: impl FnMut(&Chess, Move, &MoveRecord<'_>, &[u16]) -> Result<(), E>,
) -> Result<(), E> {
    let mut pos = start.clone();
    let mut legal = CodeList::new();
    for rec in view.records() {
        let mv =
            check_record(&pos, &mut legal, rec.code, rec.visits.len()).map_err(|(at, kind)| {
                Error::new(view.index + 1, view.offset + (rec.offset + at) as u64, kind)
            })?;
        f(&pos, mv, &rec, legal.as_slice())?;
        pos.play_unchecked(mv);
    }
    Ok(())
}

/// Checks a framed game as [`decode_game`] does (the start position, every move legal, every
/// visit count 0 or the number of legal moves) without building it: no allocation. Returns
/// its number of moves.
pub fn check_game(view: &GameView<'_>) -> Result<usize, Error> {
    let (_, start, _) = game_start(view)?;
    let mut plies = 0;
    replay(view, &start, |_, _, _, _| -> Result<(), Error> {
        plies += 1;
        Ok(())
    })?;
    Ok(plies)
}

/// Decodes a framed game fully.
pub fn decode_game(view: &GameView<'_>) -> Result<Game, Error> {
    let (header, start, castling_mode) = game_start(view)?;
    // A record takes at least 5 bytes: the capacity is bounded by the data, whatever `plies` says.
    let mut moves = Vec::with_capacity(view.plies.min(view.bytes.len() / 5));
    replay(view, &start, |pos, mv, rec, legal| -> Result<(), Error> {
        let visits = (!rec.visits.is_empty()).then(|| {
            let moves = CodeMoves::new(pos);
            legal
                .iter()
                .zip(rec.visits)
                .map(|(&c, &b)| (moves.get(MoveCode(c)), b))
                .collect()
        });
        moves.push(PlayedMove {
            mv,
            code: rec.code,
            score: rec.score,
            visits,
        });
        Ok(())
    })?;
    Ok(Game {
        header,
        start,
        castling_mode,
        moves,
    })
}
