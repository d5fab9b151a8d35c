//! The `.cbg` move stream: opcodes, piece slots and move replay.
//!
//! A stream is a sequence of bytes translated through the mode's table with the move counter
//! (see `specs/cbg-mode-tables.md`): one-byte opcodes (modes 0, 4, 10) or pairs of bytes
//! (mode 5). Opcodes name "the k-th queen/rook/bishop/knight, the n-th pawn or the king moves
//! by (dx, dy)"; which piece is the k-th follows ChessBase's piece slots:
//!
//! * slots are assigned by scanning the start position in file-major order (a1, a2, …, h8);
//! * pawns keep their slot for the whole game;
//! * for queens, rooks, bishops and knights, capturing slot k shifts the slots above it down;
//! * a promoted piece takes the next slot of its kind while fewer than three are tracked,
//!   otherwise it has none and can only move by two-byte moves.

use std::sync::OnceLock;

use chess_core::relative_move::{RelativeMove, RelativeMoveTable};
use shakmaty::{Bitboard, CastlingSide, Chess, Color, File, Move, Position, Rank, Role, Square};

use chess_core::huffman::{file_major_index, file_major_square, file_major_squares};

use crate::error::MoveProblem;
use crate::tables;

/// Opcode: a null move.
pub const OP_NULL: u8 = 0;
/// Opcode: a two-byte move follows.
pub const OP_TWO_BYTE: u8 = 235;
/// Opcode: padding, skipped.
pub const OP_SKIP: u8 = 236;
/// Opcode: a variation starts.
pub const OP_VARIATION: u8 = 254;
/// Opcode: the current line ends.
pub const OP_END: u8 = 255;

/// How a mode translates stored bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    /// One-byte opcodes; `post` = subtract the counter after the lookup.
    Compact {
        table: &'static [u8; 256],
        post: bool,
    },
    /// Every move is two translated bytes (mode 5), counter subtracted after the lookup.
    Pairs { table: &'static [u8; 256] },
}

impl Mode {
    /// The decoding of an encoding mode, `None` for modes without a known table.
    pub(crate) fn of(mode: u8) -> Option<Mode> {
        Some(match mode {
            0 => Mode::Compact {
                table: &tables::MODE_0,
                post: false,
            },
            4 => Mode::Compact {
                table: &tables::MODE_4,
                post: true,
            },
            10 => Mode::Compact {
                table: &tables::MODE_10,
                post: true,
            },
            5 => Mode::Pairs {
                table: &tables::MODE_5,
            },
            _ => return None,
        })
    }
}

/// One element of a move stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// A one-byte move opcode (1–234).
    Code(u8),
    /// A move by squares: bits 0–5 from, 6–11 to (file-major), 12–13 promotion.
    Squares(u16),
    /// A null move.
    Null,
    /// A variation starts.
    Variation,
    /// The current line ends.
    End,
}

/// The opcode reader: bytes → tokens, with the move counter.
#[derive(Debug, Clone)]
pub(crate) struct Stream<'a> {
    data: &'a [u8],
    pos: usize,
    mode: Mode,
    counter: u8,
    /// Moves read so far (the counter without wrapping).
    moves: u32,
    pending: [Option<Token>; 2],
}

impl<'a> Stream<'a> {
    pub(crate) fn new(data: &'a [u8], mode: Mode) -> Self {
        Stream {
            data,
            pos: 0,
            mode,
            counter: 0,
            moves: 0,
            pending: [None; 2],
        }
    }

    /// Byte position of the next token in the stream.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Moves read so far: the index of the next move in stream order.
    pub(crate) fn moves(&self) -> u32 {
        self.moves
    }

    #[inline]
    fn translate(&self, b: u8, table: &[u8; 256], post: bool) -> u8 {
        if post {
            table[usize::from(b)].wrapping_sub(self.counter)
        } else {
            table[usize::from(b.wrapping_sub(self.counter))]
        }
    }

    #[inline(always)]
    fn count(&mut self) {
        self.counter = self.counter.wrapping_add(1);
        self.moves += 1;
    }

    /// The next token; `Ok(None)` at the end of the data; `Err(offset)` for an unused opcode
    /// or a two-byte move cut short. A one-byte move opcode (most tokens) is read inline; the
    /// rest out of line.
    #[inline(always)]
    pub(crate) fn next_token(&mut self) -> Result<Option<Token>, (usize, MoveProblem)> {
        if let (None, Mode::Compact { table, post }) = (self.pending[0], self.mode)
            && let Some(&b) = self.data.get(self.pos)
        {
            let op = self.translate(b, table, post);
            if (1..=234).contains(&op) {
                self.pos += 1;
                self.count();
                return Ok(Some(Token::Code(op)));
            }
        }
        self.next_token_other()
    }

    /// [`Stream::next_token`] of anything but a one-byte move opcode.
    #[inline(never)]
    fn next_token_other(&mut self) -> Result<Option<Token>, (usize, MoveProblem)> {
        if let Some(t) = self.pending[0].take() {
            self.pending = [self.pending[1].take(), None];
            return Ok(Some(t));
        }
        match self.mode {
            Mode::Compact { table, post } => loop {
                let Some(&b) = self.data.get(self.pos) else {
                    return Ok(None);
                };
                let at = self.pos;
                self.pos += 1;
                let op = self.translate(b, table, post);
                return Ok(Some(match op {
                    OP_NULL => {
                        self.count();
                        Token::Null
                    }
                    1..=234 => {
                        self.count();
                        Token::Code(op)
                    }
                    OP_TWO_BYTE => {
                        let Some(&[b1, b2]) = self.data.get(self.pos..self.pos + 2) else {
                            return Err((at, MoveProblem::TwoByteCutShort));
                        };
                        self.pos += 2;
                        let w = u16::from(self.translate(b1, table, post)) << 8
                            | u16::from(self.translate(b2, table, post));
                        self.count();
                        Token::Squares(w)
                    }
                    OP_SKIP => continue,
                    OP_VARIATION => Token::Variation,
                    OP_END => Token::End,
                    _ => return Err((at, MoveProblem::UnusedOpcode(op))),
                }));
            },
            Mode::Pairs { table } => {
                let at = self.pos;
                let Some(&[b1, b2]) = self.data.get(self.pos..self.pos + 2) else {
                    if self.pos < self.data.len() {
                        return Err((at, MoveProblem::TwoByteCutShort));
                    }
                    return Ok(None);
                };
                self.pos += 2;
                let w = u16::from(self.translate(b1, table, true)) << 8
                    | u16::from(self.translate(b2, table, true));
                self.count();
                let mv = Token::Squares(w & 0x3fff);
                let end = (w & 0x4000 != 0).then_some(Token::End);
                if w & 0x8000 != 0 {
                    self.pending = [Some(mv), end];
                    Ok(Some(Token::Variation))
                } else {
                    self.pending = [end, None];
                    Ok(Some(mv))
                }
            }
        }
    }
}

/// What a one-byte opcode means, built once from the description's layout.
fn opcode_table() -> &'static RelativeMoveTable {
    static TABLE: OnceLock<RelativeMoveTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut entries: Vec<(u8, RelativeMove)> = Vec::new();
        let mut code = 1u8;
        let mut push = |m: RelativeMove, entries: &mut Vec<(u8, RelativeMove)>| {
            entries.push((code, m));
            code += 1;
        };
        let king = [
            (0, 1),
            (1, 1),
            (1, 0),
            (1, -1),
            (0, -1),
            (-1, -1),
            (-1, 0),
            (-1, 1),
        ];
        for (dx, dy) in king {
            push(RelativeMove::piece(Role::King, 0, dx, dy), &mut entries);
        }
        push(RelativeMove::Castle(CastlingSide::KingSide), &mut entries);
        push(RelativeMove::Castle(CastlingSide::QueenSide), &mut entries);
        let rook: Vec<(i32, i32)> = (1..8)
            .map(|i| (0, i))
            .chain((1..8).map(|i| (i, 0)))
            .collect();
        let bishop: Vec<(i32, i32)> = (1..8)
            .map(|i| (i, i))
            .chain((1..8).map(|i| (i, 8 - i)))
            .collect();
        let queen: Vec<(i32, i32)> = rook.iter().chain(&bishop).copied().collect();
        let knight = [
            (2, 1),
            (1, 2),
            (-1, 2),
            (-2, 1),
            (-2, -1),
            (-1, -2),
            (1, -2),
            (2, -1),
        ];
        let mut pieces = |role: Role, index: u8, deltas: &[(i32, i32)], entries: &mut Vec<_>| {
            for &(dx, dy) in deltas {
                push(RelativeMove::piece(role, index, dx, dy), entries);
            }
        };
        pieces(Role::Queen, 0, &queen, &mut entries);
        pieces(Role::Rook, 0, &rook, &mut entries);
        pieces(Role::Rook, 1, &rook, &mut entries);
        pieces(Role::Bishop, 0, &bishop, &mut entries);
        pieces(Role::Bishop, 1, &bishop, &mut entries);
        pieces(Role::Knight, 0, &knight, &mut entries);
        pieces(Role::Knight, 1, &knight, &mut entries);
        for pawn in 0..8 {
            // Forward one, forward two, capture to the mover's right, to the mover's left;
            // dy counts in the mover's direction, dx to the mover's right.
            pieces(
                Role::Pawn,
                pawn,
                &[(0, 1), (0, 2), (1, 1), (-1, 1)],
                &mut entries,
            );
        }
        pieces(Role::Queen, 1, &queen, &mut entries);
        pieces(Role::Queen, 2, &queen, &mut entries);
        pieces(Role::Rook, 2, &rook, &mut entries);
        pieces(Role::Bishop, 2, &bishop, &mut entries);
        pieces(Role::Knight, 2, &knight, &mut entries);
        debug_assert_eq!(entries.len(), 234);
        RelativeMoveTable::new(&entries)
    })
}

/// The relative move of a one-byte opcode (1–234), as the description's table defines it.
pub fn opcode_meaning(op: u8) -> Option<RelativeMove> {
    opcode_table().relative(op)
}

const NONE: u8 = 0xff;

/// Where each kind's slots lie in a colour's [`Slots`] list, indexed by `Role as usize`
/// (pawns 1 … king 6): first byte and number of slots. The king has none.
const SLOT_RANGE: [(u8, u8); 7] = [(20, 0), (0, 8), (17, 3), (14, 3), (11, 3), (8, 3), (20, 0)];

/// ChessBase's piece numbering for both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slots {
    /// Per colour (White first) the square (shakmaty numbering) in each slot, NONE when
    /// empty: pawns in bytes 0–7, then three slots each for queens, rooks, bishops and
    /// knights (8–19).
    lists: [[u8; 20]; 2],
    /// Per square, the place in its colour's list of the piece on it; NONE for an empty
    /// square and for a piece without a slot (a king, a fourth queen). Moving or removing a
    /// piece finds its slot here, without searching the list.
    at: [u8; 64],
}

fn ci(c: Color) -> usize {
    usize::from(c == Color::Black)
}

impl Slots {
    /// Numbers the pieces of a position in file-major order.
    pub(crate) fn new(pos: &Chess) -> Slots {
        // Nearly every game starts from the standard position: numbered once.
        static STANDARD: OnceLock<Slots> = OnceLock::new();
        if *pos.board() == shakmaty::Board::new() {
            return STANDARD
                .get_or_init(|| Slots::number(&shakmaty::Board::new()))
                .clone();
        }
        Slots::number(pos.board())
    }

    fn number(board: &shakmaty::Board) -> Slots {
        let mut s = Slots {
            lists: [[NONE; 20]; 2],
            at: [NONE; 64],
        };
        for sq in file_major_squares() {
            if let Some(p) = board.piece_at(sq) {
                s.add(p.color, p.role, sq);
            }
        }
        s
    }

    /// The slot (0-based, within its kind) of the kind's piece of colour `c` on `sq`.
    pub(crate) fn index_of(&self, c: Color, role: Role, sq: Square) -> Option<u8> {
        let (start, len) = SLOT_RANGE[role as usize];
        let i = self.at[sq as usize];
        (i != NONE
            && (start..start + len).contains(&i)
            && self.lists[ci(c)][usize::from(i)] == sq as u8)
            .then(|| i - start)
    }

    fn piece(&self, c: Color, role: Role, index: u8) -> Option<Square> {
        let (start, len) = SLOT_RANGE[role as usize];
        if index >= len {
            return None;
        }
        let sq = self.lists[ci(c)][usize::from(start + index)];
        (sq != NONE).then(|| Square::new(u32::from(sq)))
    }

    /// A captured piece leaves its slot: a pawn's slot stays empty, the slots of a piece
    /// kind above it shift down.
    fn remove(&mut self, c: Color, role: Role, sq: Square) {
        let i = self.at[sq as usize];
        if i == NONE {
            return;
        }
        self.at[sq as usize] = NONE;
        let i = usize::from(i);
        let list = &mut self.lists[ci(c)];
        if role == Role::Pawn {
            list[i] = NONE;
            return;
        }
        let (start, len) = SLOT_RANGE[role as usize];
        let end = usize::from(start + len);
        for k in i..end - 1 {
            let next = list[k + 1];
            list[k] = next;
            if next != NONE {
                self.at[usize::from(next)] = k as u8;
            }
        }
        list[end - 1] = NONE;
    }

    /// The piece on `from` (if it has a slot) moves to `to`.
    #[inline]
    fn relocate(&mut self, c: Color, from: Square, to: Square) {
        let i = self.at[from as usize];
        if i == NONE {
            return;
        }
        self.at[from as usize] = NONE;
        self.lists[ci(c)][usize::from(i)] = to as u8;
        self.at[to as usize] = i;
    }

    /// A new piece takes the kind's first empty slot, if any.
    fn add(&mut self, c: Color, role: Role, sq: Square) {
        let (start, len) = SLOT_RANGE[role as usize];
        let (start, len) = (usize::from(start), usize::from(len));
        let list = &mut self.lists[ci(c)];
        if let Some(k) = list[start..start + len].iter().position(|x| *x == NONE) {
            list[start + k] = sq as u8;
            self.at[sq as usize] = (start + k) as u8;
        }
    }

    /// Updates the numbering for `m`, played by `turn` in `pos` (before the move). A quiet
    /// piece move (most moves) only relocates its piece, inlined; the rest out of line.
    #[inline(always)]
    fn apply(&mut self, pos: &Chess, m: Move) {
        if let Move::Normal {
            from,
            capture: None,
            to,
            promotion: None,
            ..
        } = m
        {
            self.relocate(pos.turn(), from, to);
        } else {
            self.apply_other(pos, m);
        }
    }

    /// [`Slots::apply`] of a capture, a promotion, en passant or castling.
    #[inline(never)]
    fn apply_other(&mut self, pos: &Chess, m: Move) {
        let turn = pos.turn();
        match m {
            Move::Normal {
                role: _,
                from,
                capture,
                to,
                promotion,
            } => {
                if let Some(c) = capture {
                    self.remove(!turn, c, to);
                }
                match promotion {
                    Some(p) => {
                        self.remove(turn, Role::Pawn, from);
                        self.add(turn, p, to);
                    }
                    None => self.relocate(turn, from, to),
                }
            }
            Move::EnPassant { from, to } => {
                self.remove(
                    !turn,
                    Role::Pawn,
                    Square::from_coords(to.file(), from.rank()),
                );
                self.relocate(turn, from, to);
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(king < rook);
                self.relocate(turn, rook, side.rook_to(turn));
            }
            Move::Put { .. } => {}
        }
    }

    /// Whether `at` agrees with the lists (for tests).
    #[cfg(test)]
    fn consistent(&self) -> bool {
        let mut at = [NONE; 64];
        for list in &self.lists {
            for (i, &sq) in list.iter().enumerate() {
                if sq != NONE {
                    at[usize::from(sq)] = i as u8;
                }
            }
        }
        at == self.at
    }
}

/// A position being replayed: the board and ChessBase's piece numbering.
#[derive(Debug, Clone)]
pub(crate) struct Replay {
    pub(crate) pos: Chess,
    slots: Slots,
    /// Whether the side to move is in check, kept up to date by the moves that need it for
    /// SAN (`play_with::<true>`; then the legality test skips the king-attack lookup for a
    /// piece off its king's lines). Without SAN, it is not needed and not kept.
    in_check: Option<bool>,
}

pub(crate) mod san;
pub(crate) use san::{disambiguation, has_legal_move};

/// The squares a piece of kind `role` (not a pawn) on `sq` attacks: shakmaty's `attacks`
/// without its colour dispatch, inlined into the hot paths.
#[inline(always)]
fn piece_attacks(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    use shakmaty::attacks;
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// The squares each piece kind (indexed by `Role as usize`; pawns none) reaches from each
/// square on an empty board: the pseudo-legality test of a piece move (with nothing in
/// between) and a cheap first test for [`disambiguation`] (a king's other kings: none).
static REACH: [[u64; 64]; 7] = reach_table();

const fn reach_table() -> [[u64; 64]; 7] {
    let mut t = [[0u64; 64]; 7];
    let mut from = 0;
    while from < 64 {
        let (ff, fr) = ((from % 8) as i32, (from / 8) as i32);
        let mut to = 0;
        while to < 64 {
            let (tf, tr) = ((to % 8) as i32, (to / 8) as i32);
            let (df, dr) = ((tf - ff).abs(), (tr - fr).abs());
            if to != from {
                let bit = 1u64 << to;
                let line = df == 0 || dr == 0;
                let diagonal = df == dr;
                if (df == 1 && dr == 2) || (df == 2 && dr == 1) {
                    t[Role::Knight as usize][from] |= bit;
                }
                if df <= 1 && dr <= 1 {
                    t[Role::King as usize][from] |= bit;
                }
                if diagonal {
                    t[Role::Bishop as usize][from] |= bit;
                }
                if line {
                    t[Role::Rook as usize][from] |= bit;
                }
                if line || diagonal {
                    t[Role::Queen as usize][from] |= bit;
                }
            }
            to += 1;
        }
        from += 1;
    }
    t
}

/// Whether `a` and `b` share a rank, a file or a diagonal (by arithmetic: no table to load).
#[inline(always)]
fn aligned(a: Square, b: Square) -> bool {
    let (fa, ra) = (a.file().to_u32() as i32, a.rank().to_u32() as i32);
    let (fb, rb) = (b.file().to_u32() as i32, b.rank().to_u32() as i32);
    fa == fb || ra == rb || fa - ra == fb - rb || fa + ra == fb + rb
}

fn offset_square(sq: Square, dx: u8, dy: u8) -> Square {
    let file = (sq.file().to_u32() + u32::from(dx)) & 7;
    let rank = (sq.rank().to_u32() + u32::from(dy)) & 7;
    // Both below 8: the index is below 64 (no check left to make).
    Square::new(rank << 3 | file)
}

impl Replay {
    pub(crate) fn new(pos: Chess) -> Self {
        let slots = Slots::new(&pos);
        Replay {
            pos,
            slots,
            in_check: None,
        }
    }

    fn castle(&self, side: CastlingSide) -> Result<Move, MoveProblem> {
        let turn = self.pos.turn();
        let king = self.pos.board().king_of(turn).ok_or(MoveProblem::NoKing)?;
        let rook = self
            .pos
            .castles()
            .rook(turn, side)
            .ok_or(MoveProblem::NoCastlingRight(side))?;
        Ok(Move::Castle { king, rook })
    }

    /// The move an opcode (1–234) denotes (not yet checked for legality).
    #[inline(always)]
    pub(crate) fn code_move(&self, op: u8) -> Result<Move, MoveProblem> {
        let turn = self.pos.turn();
        let board = self.pos.board();
        let m = match opcode_meaning(op).ok_or(MoveProblem::NoSuchOpcode)? {
            RelativeMove::Castle(side) => self.castle(side)?,
            RelativeMove::Piece {
                role: Role::Pawn,
                index,
                dx,
                dy,
            } => {
                let from = self
                    .slots
                    .piece(turn, Role::Pawn, index)
                    .ok_or(MoveProblem::PawnGone(index + 1))?;
                let forward: i32 = if turn == Color::White { 1 } else { -1 };
                let side = if dx == 1 {
                    1
                } else if dx == 7 {
                    -1
                } else {
                    0
                };
                let file = from.file().to_u32() as i32 + side * forward;
                let rank = from.rank().to_u32() as i32 + i32::from(dy) * forward;
                if !(0..8).contains(&file) || !(0..8).contains(&rank) {
                    return Err(MoveProblem::OffBoard);
                }
                let to = Square::new((rank as u32) << 3 | file as u32);
                if side != 0 && board.piece_at(to).is_none() {
                    Move::EnPassant { from, to }
                } else {
                    Move::Normal {
                        role: Role::Pawn,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion: (to.rank() == Rank::Eighth || to.rank() == Rank::First)
                            .then_some(Role::Queen),
                    }
                }
            }
            RelativeMove::Piece {
                role,
                index,
                dx,
                dy,
            } => {
                let from = if role == Role::King {
                    board.king_of(turn).ok_or(MoveProblem::NoKing)?
                } else {
                    self.slots
                        .piece(turn, role, index)
                        .ok_or(MoveProblem::NoSuchPiece {
                            role,
                            number: index + 1,
                        })?
                };
                if !board.by_piece(role.of(turn)).contains(from) {
                    return Err(MoveProblem::PieceNotOnSquare {
                        role,
                        number: index + 1,
                        square: from,
                    });
                }
                let to = offset_square(from, dx, dy);
                Move::Normal {
                    role,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                }
            }
            _ => return Err(MoveProblem::NoSuchOpcode),
        };
        Ok(m)
    }

    /// The move of a two-byte word (not yet checked for legality).
    pub(crate) fn squares_move(&self, w: u16) -> Result<Move, MoveProblem> {
        let (from, to) = (
            file_major_square(u32::from(w)),
            file_major_square(u32::from(w >> 6)),
        );
        let promotion =
            [Role::Queen, Role::Rook, Role::Bishop, Role::Knight][usize::from(w >> 12 & 3)];
        let turn = self.pos.turn();
        let board = self.pos.board();
        let back = turn.backrank();
        let m = if from == to {
            // Chess960 castling: the king's target square to itself.
            if to.rank() != back {
                return Err(MoveProblem::NullTwoByte { from, to });
            }
            match to.file() {
                File::G => self.castle(CastlingSide::KingSide)?,
                File::C => self.castle(CastlingSide::QueenSide)?,
                _ => return Err(MoveProblem::NullTwoByte { from, to }),
            }
        } else {
            let piece = board
                .piece_at(from)
                .filter(|p| p.color == turn)
                .ok_or(MoveProblem::NoPieceOn(from))?;
            match piece.role {
                Role::King
                    if board.piece_at(to) == Some(Role::Rook.of(turn))
                        || (from.rank() == back
                            && to.rank() == back
                            && from.file().distance(to.file()) == 2
                            && !self.pos.is_legal(Move::Normal {
                                role: Role::King,
                                from,
                                capture: None,
                                to,
                                promotion: None,
                            })) =>
                {
                    self.castle(CastlingSide::from_king_side(to.file() > from.file()))?
                }
                Role::Pawn if from.file() != to.file() && board.piece_at(to).is_none() => {
                    Move::EnPassant { from, to }
                }
                role => Move::Normal {
                    role,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: (role == Role::Pawn
                        && (to.rank() == Rank::Eighth || to.rank() == Rank::First))
                        .then_some(promotion),
                },
            }
        };
        Ok(m)
    }

    /// The null move, allowed when the side to move is not in check.
    pub(crate) fn null_move(&mut self) -> Result<(), MoveProblem> {
        if self.pos.is_check() {
            return Err(MoveProblem::NullInCheck);
        }
        let pos = std::mem::take(&mut self.pos);
        self.pos = pos.swap_turn().map_err(|_| MoveProblem::NullImpossible)?;
        self.in_check = None;
        Ok(())
    }

    /// Whether a normal move is pseudo-legal: the piece can reach the square, which holds no
    /// piece of its own side and no king; pawns push onto empty squares and capture diagonally;
    /// promotion exactly on the last rank.
    #[inline(always)]
    fn pseudo_legal(
        &self,
        role: Role,
        from: Square,
        to: Square,
        capture: Option<Role>,
        promotion: Option<Role>,
    ) -> bool {
        let turn = self.pos.turn();
        let board = self.pos.board();
        if board.by_color(turn).contains(to) || capture == Some(Role::King) {
            return false;
        }
        if role != Role::Pawn {
            // The kind's empty-board reach, and no piece between (none for knight and king
            // steps): two table loads, no branch on the kind.
            return promotion.is_none()
                && Bitboard(REACH[role as usize][from as usize]).contains(to)
                && (shakmaty::attacks::between(from, to) & board.occupied()).is_empty();
        }
        let last = turn.fold_wb(Rank::Eighth, Rank::First);
        if (to.rank() == last) != promotion.is_some()
            || matches!(promotion, Some(Role::King | Role::Pawn))
        {
            return false;
        }
        if from.file() != to.file() {
            return capture.is_some() && shakmaty::attacks::pawn_attacks(turn, from).contains(to);
        }
        let forward: i32 = turn.fold_wb(1, -1);
        let rank = from.rank().to_u32() as i32;
        let step = to.rank().to_u32() as i32 - rank;
        let between =
            Square::from_coords(from.file(), Rank::new((rank + forward).clamp(0, 7) as u32));
        capture.is_none()
            && (step == forward
                || (step == 2 * forward
                    && from.rank() == turn.fold_wb(Rank::Second, Rank::Seventh)
                    && board.piece_at(between).is_none()))
    }

    /// Checks a move for legality and plays it; with `TRACK`, whether the side to move is in check afterwards is
    /// worked out and kept (SAN needs it), which lets the next move's legality test skip the
    /// king-attack lookup for a piece off its king's lines while the king is not in check.
    #[inline(always)]
    fn play_with<const TRACK: bool>(&mut self, m: Move) -> Result<(), MoveProblem> {
        let illegal = || MoveProblem::Illegal(m);
        if let Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } = m
        {
            // Fast path: pseudo-legal, and the mover's king is not attacked afterwards.
            if !self.pseudo_legal(role, from, to, capture, promotion) {
                return Err(illegal());
            }
            let turn = self.pos.turn();
            let board = self.pos.board();
            let king = if role == Role::King {
                to
            } else {
                board.king_of(turn).ok_or(MoveProblem::NoKing)?
            };
            // A piece that is not on a line through its king, moved while the king is known
            // not to be in check, cannot expose the king (a captured piece's square stays
            // occupied). Otherwise the king (or its target square) must not be attacked with
            // the piece moved and the captured piece gone.
            let safe =
                TRACK && role != Role::King && self.in_check == Some(false) && !aligned(king, from);
            if !safe {
                let occupied = board.occupied().without(from).with(to);
                if (board.attacks_to(king, !turn, occupied) & !Bitboard::from(to)).any() {
                    return Err(illegal());
                }
            }
        } else if !self.pos.is_legal(m) {
            return Err(illegal());
        }
        self.slots.apply(&self.pos, m);
        self.pos.play_unchecked(m);
        self.in_check = TRACK.then(|| self.pos.is_check());
        Ok(())
    }

    /// Resolves and plays one move token; returns the move (`None` for a null move).
    pub(crate) fn step(&mut self, t: Token) -> Result<Option<Move>, MoveProblem> {
        Ok(self.step_with::<false>(t)?.0)
    }

    /// [`Replay::step`], and with `SAN` the move's [`san`] flags (0 without).
    #[inline(always)]
    pub(crate) fn step_with<const SAN: bool>(
        &mut self,
        t: Token,
    ) -> Result<(Option<Move>, u8), MoveProblem> {
        let m = match t {
            Token::Code(op) => self.code_move(op)?,
            Token::Squares(w) => self.squares_move(w)?,
            Token::Null => {
                self.null_move()?;
                return Ok((None, 0));
            }
            Token::Variation | Token::End => return Err(MoveProblem::NotAMove),
        };
        if !SAN {
            self.play_with::<false>(m)?;
            return Ok((Some(m), 0));
        }
        // Disambiguation is decided on the position before the move (for an illegal move it
        // is worked out and dropped with the error).
        let mut flags = disambiguation(&self.pos, m);
        self.play_with::<true>(m)?;
        if self.in_check == Some(true) {
            flags |= if has_legal_move(&self.pos) {
                san::CHECK
            } else {
                san::CHECK | san::MATE
            };
        }
        Ok((Some(m), flags))
    }
}

// The encoder: moves to tokens and stored bytes.
mod encode;
pub(crate) use encode::Encoder;

#[cfg(test)]
mod tests {
    use super::*;

    /// The square-to-slot table agrees with the slot lists, and every slotted piece stands on
    /// its square, over random games (captures, promotions, en passant, castling, Chess960).
    #[test]
    fn slot_squares_follow_the_lists() {
        use shakmaty::CastlingMode;
        use shakmaty::fen::Fen;
        let fens = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
                CastlingMode::Standard,
            ),
            (
                "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
                CastlingMode::Chess960,
            ),
            (
                "rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w AEae - 0 1",
                CastlingMode::Chess960,
            ),
        ];
        let mut x = chess_core::fuzzing::XorShift::new(0x2545_f491_4f6c_dd1d);
        let mut moves = 0;
        for (fen, mode) in fens {
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for _ in 0..100 {
                let mut pos = start.clone();
                let mut slots = Slots::new(&pos);
                for _ in 0..200 {
                    assert!(slots.consistent());
                    // Every piece with a slot is where its slot says, numbered as a fresh
                    // numbering of a position would not (slots survive captures), so only
                    // the squares are checked against the board.
                    for c in [Color::White, Color::Black] {
                        for &sq in &slots.lists[ci(c)] {
                            if sq != NONE {
                                let piece = pos.board().piece_at(Square::new(u32::from(sq)));
                                assert_eq!(piece.map(|p| p.color), Some(c));
                            }
                        }
                    }
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let m = legal[x.below(legal.len())];
                    slots.apply(&pos, m);
                    pos.play_unchecked(m);
                    moves += 1;
                }
            }
        }
        assert!(moves > 30_000, "{moves} moves");
    }
}
