//! Games to `.cbg` and `.cba` records: the inverse of [`crate::game`] and
//! [`crate::annotations`], used by [`crate::writer`].
//!
//! A game is written in mode 0 (one-byte opcodes through ChessBase's piece slots, two-byte
//! moves where a piece has no slot or a pawn under-promotes), or in mode 10 when it is a
//! Chess960 game (castling as the king's target square to itself). A start other than the
//! standard position is stored as a set-up record. Variations follow the stream layout of
//! the chessfmt format notes: at a position with several continuations, each but the last is
//! written between `FE` and `FF`, in order (the main continuation first), and the last continues
//! the enclosing line. The walk is iterative: the stack does not grow with the nesting.

use encoding_rs::Encoding;
use shakmaty::{CastlingSide, Chess, Color, Position, Role, Square};

use chess_core::huffman::file_major_index;

use crate::annotations::Annotation;
use crate::error::MoveProblem;
use crate::game::{Game, MoveTree, NodeId};
use crate::moves::{Encoder, Replay, Token};
use crate::raw::{
    CBA_HEAD_SIZE, CBA_ITEM_HEAD_SIZE, CbaHead, CbaItemHead, CbgHead, RawChess960, RawSetup,
};

/// Largest `.cbg` record: its length is a 24-bit field.
pub const MAX_GAME_BYTES: usize = (1 << 24) - 1;

/// Why a game cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeProblem {
    /// A move of the tree is not legal in its position.
    #[error("move {index} (in stream order) cannot be written: {reason}")]
    Move {
        /// The move's index in stream order.
        index: u32,
        /// Why.
        reason: MoveProblem,
    },
    /// The encoded game is longer than a record can be (16 MiB).
    #[error("the game takes {0} bytes, more than a record's 16 MiB")]
    TooLong(usize),
    /// An annotation's data is longer than an item can hold (65,529 bytes).
    #[error("an annotation of {0} bytes is longer than an item can hold")]
    AnnotationTooLong(usize),
}

/// A game encoded for the database.
#[derive(Debug, Clone, Default)]
pub struct EncodedGame {
    /// The `.cbg` record (head, set-up position, move stream).
    pub cbg: Vec<u8>,
    /// The items of the `.cba` record (without its head), empty when the game has no
    /// annotations.
    pub cba_items: Vec<u8>,
    /// Number of annotation items.
    pub items: u32,
    /// The `.cbh` content flags (set-up, variations, commentary, symbols, squares, arrows,
    /// time, critical position).
    pub flags: u32,
    /// The `.cbh` magnitude bits (size of the variations, ten or more squares or arrows).
    pub magnitudes: u16,
    /// Full moves of the main line, as the `.cbh` stores them (255 = 255 or more).
    pub moves: u8,
    /// The Chess960 start-position number of a Chess960 game.
    pub chess960: Option<u16>,
}

/// `.cbh` content flag: the game starts from a set-up position.
pub const FLAG_SETUP: u32 = 1;
/// `.cbh` content flag: variations.
pub const FLAG_VARIATIONS: u32 = 1 << 1;
/// `.cbh` content flag: commentary.
pub const FLAG_COMMENTARY: u32 = 1 << 2;
/// `.cbh` content flag: symbols.
pub const FLAG_SYMBOLS: u32 = 1 << 3;
/// `.cbh` content flag: coloured squares.
pub const FLAG_SQUARES: u32 = 1 << 4;
/// `.cbh` content flag: arrows.
pub const FLAG_ARROWS: u32 = 1 << 5;
/// `.cbh` content flag: time spent on moves.
pub const FLAG_TIME: u32 = 1 << 7;
/// `.cbh` content flag: White's clock times (fitted to the corpus's databases).
pub const FLAG_WHITE_CLOCK: u32 = 1 << 22;
/// `.cbh` content flag: Black's clock times.
pub const FLAG_BLACK_CLOCK: u32 = 1 << 23;
/// `.cbh` content flag: a Chess960 game (fitted to the corpus's databases).
pub const FLAG_CHESS960: u32 = 1 << 27;
/// `.cbh` content flag: a critical position.
pub const FLAG_CRITICAL: u32 = 1 << 24;

/// One pending step of the stream walk.
enum Work {
    /// Write this node's move and its continuation, from this position.
    Line(NodeId, Box<Replay>),
    /// Write a control code.
    Code(Token),
}

/// The move stream of `tree` from `start`: the bytes, and the nodes in stream order.
fn encode_stream(
    start: &Chess,
    tree: &MoveTree,
    mode: u8,
    squares_castling: bool,
) -> Result<(Vec<u8>, Vec<NodeId>), EncodeProblem> {
    let mut enc = Encoder::new(mode).expect("a one-byte-opcode mode");
    let mut order = Vec::with_capacity(tree.len().saturating_sub(1));
    let mut work = Vec::new();
    let branch = |work: &mut Vec<Work>, parent: NodeId, replay: &Replay| {
        let kids: Vec<NodeId> = tree.children(parent).collect();
        if let Some((&last, others)) = kids.split_last() {
            work.push(Work::Line(last, Box::new(replay.clone())));
            for &kid in others.iter().rev() {
                work.push(Work::Code(Token::End));
                work.push(Work::Line(kid, Box::new(replay.clone())));
                work.push(Work::Code(Token::Variation));
            }
        }
    };
    branch(&mut work, MoveTree::ROOT, &Replay::new(start.clone()));
    while let Some(w) = work.pop() {
        let (mut node, mut replay) = match w {
            Work::Code(t) => {
                enc.token(t);
                continue;
            }
            Work::Line(node, replay) => (node, replay),
        };
        loop {
            let index = order.len() as u32;
            let bad = |reason| EncodeProblem::Move { index, reason };
            match tree.node(node).mv {
                None => {
                    replay.null_move().map_err(bad)?;
                    enc.token(Token::Null);
                }
                Some(m) => {
                    if !replay.pos.is_legal(m) {
                        return Err(bad(MoveProblem::Illegal(m)));
                    }
                    let token = replay.token_for(m, squares_castling);
                    // Replayed as a reader would: the token must give back the same move.
                    if replay.step(token).map_err(bad)? != Some(m) {
                        return Err(bad(MoveProblem::Illegal(m)));
                    }
                    enc.token(token);
                }
            }
            order.push(node);
            if enc.out.len() > MAX_GAME_BYTES {
                return Err(EncodeProblem::TooLong(enc.out.len()));
            }
            match tree.children(node).nth(1) {
                None => match tree.main_child(node) {
                    Some(next) => node = next,
                    None => break,
                },
                Some(_) => {
                    branch(&mut work, node, &replay);
                    break;
                }
            }
        }
    }
    enc.token(Token::End);
    Ok((enc.out, order))
}

/// The set-up record of a position (and the Chess960 block for Chess960 games).
fn setup_record(
    pos: &Chess,
    chess960: Option<u16>,
    stored_rooks: Option<[u8; 4]>,
) -> (RawSetup, Option<RawChess960>) {
    let board = pos.board();
    let mut bits = [0u8; 24];
    let mut at = 0usize;
    let mut put = |bit: u8| {
        bits[at / 8] |= bit << (7 - at % 8);
        at += 1;
    };
    for i in 0..64u32 {
        let sq = chess_core::huffman::file_major_square(i);
        match board.piece_at(sq) {
            None => put(0),
            Some(p) => {
                put(1);
                put(u8::from(p.color == Color::Black));
                let code = match p.role {
                    Role::King => 1,
                    Role::Queen => 2,
                    Role::Knight => 3,
                    Role::Bishop => 4,
                    Role::Rook => 5,
                    Role::Pawn => 6,
                };
                for shift in (0..3).rev() {
                    put(code >> shift & 1);
                }
            }
        }
    }
    let turn = pos.turn();
    let ep = pos
        .maybe_ep_square()
        .map_or(0, |sq| sq.file().to_u32() as u8 + 1);
    let castles = pos.castles();
    // Castling bits: 0 White O-O-O, 1 White O-O, 2 Black O-O-O, 3 Black O-O.
    let sides = [
        (Color::White, CastlingSide::QueenSide),
        (Color::White, CastlingSide::KingSide),
        (Color::Black, CastlingSide::QueenSide),
        (Color::Black, CastlingSide::KingSide),
    ];
    let mut castling = 0u8;
    for (i, (c, side)) in sides.into_iter().enumerate() {
        if castles.has(c, side) {
            castling |= 1 << i;
        }
    }
    let setup = RawSetup {
        marker: 1,
        side_ep: ep | if turn == Color::Black { 0x10 } else { 0 },
        castling,
        move_number: u8::try_from(pos.fullmoves().get()).unwrap_or(u8::MAX),
        board: bits,
    };
    let c960 = chess960.map(|number| {
        let fm = |sq: Option<Square>| sq.map_or(0, |s| file_major_index(s) as u8);
        // The castling rook of a side: from the castling rights (which keep a right shakmaty's
        // castling table may not, in an odd set-up position), else the table.
        let rights = castles.castling_rights();
        let rook = |c: Color, side: CastlingSide| {
            let king = board.king_of(c);
            let on_side = (rights & c.backrank()).into_iter().find(|sq| {
                king.is_some_and(|k| (sq.file() > k.file()) == (side == CastlingSide::KingSide))
            });
            fm(on_side.or_else(|| castles.rook(c, side)))
        };
        RawChess960 {
            kings: [
                fm(board.king_of(Color::White)),
                fm(board.king_of(Color::Black)),
            ],
            rooks: stored_rooks.unwrap_or_else(|| {
                [
                    rook(Color::White, CastlingSide::KingSide),
                    rook(Color::White, CastlingSide::QueenSide),
                    rook(Color::Black, CastlingSide::KingSide),
                    rook(Color::Black, CastlingSide::QueenSide),
                ]
            }),
            number,
        }
    });
    (setup, c960)
}

/// How many of `anns` are of one kind.
fn count_kind(anns: &[&Annotation], f: impl Fn(&Annotation) -> bool) -> usize {
    anns.iter().filter(|a| f(a)).count()
}

/// Encodes a game: its `.cbg` record, its annotation items, and the `.cbh` fields that
/// describe its content. Texts are written in `code_page` where they can be (UTF-8 else).
pub fn encode_game(
    game: &Game,
    code_page: &'static Encoding,
) -> Result<EncodedGame, EncodeProblem> {
    let start = &game.start;
    let chess960 = (start.castling_mode == shakmaty::CastlingMode::Chess960)
        .then(|| start.chess960.unwrap_or(0));
    let setup = chess960.is_some() || start.setup || start.position != Chess::default();
    let mode = if chess960.is_some() { 10 } else { 0 };
    let (stream, order) = encode_stream(&start.position, &game.tree, mode, chess960.is_some())?;
    let mut body = Vec::with_capacity(stream.len() + 40);
    if setup {
        let (raw, c960) = setup_record(&start.position, chess960, start.chess960_rooks);
        body.extend_from_slice(&raw.to_bytes());
        if let Some(c) = c960 {
            body.extend_from_slice(&c.to_bytes());
        }
    }
    body.extend_from_slice(&stream);
    let length = body.len() + 4;
    if length > MAX_GAME_BYTES {
        return Err(EncodeProblem::TooLong(length));
    }
    let head = CbgHead {
        flags: mode | if setup { 0x40 } else { 0 },
        length: length as u32,
    };
    let mut cbg = head.to_bytes().to_vec();
    cbg.extend_from_slice(&body);

    // Annotations: the whole game's (index −1), then each node's in stream order.
    let mut out = EncodedGame::default();
    let mut items = Vec::new();
    let mut put = |index: i32, a: &Annotation| -> Result<(), EncodeProblem> {
        let (kind, data) = a.to_bytes_in(code_page);
        let length = CBA_ITEM_HEAD_SIZE + data.len();
        let length = u16::try_from(length).map_err(|_| EncodeProblem::AnnotationTooLong(length))?;
        let head = CbaItemHead {
            index,
            kind,
            length,
        };
        items.extend_from_slice(&head.to_bytes());
        items.extend_from_slice(&data);
        out.items += 1;
        Ok(())
    };
    let mut all: Vec<&Annotation> = Vec::new();
    for a in &game.game_annotations {
        put(-1, a)?;
        all.push(a);
    }
    for (index, &node) in order.iter().enumerate() {
        for a in game.tree.annotations(node) {
            put(index as i32, a)?;
            all.push(a);
        }
    }
    let main_line = game.tree.main_line().count();
    let variation_moves = order.len() - main_line;
    let mut flags = 0;
    let mut set = |flag: u32, on: bool| {
        if on {
            flags |= flag;
        }
    };
    set(FLAG_SETUP, setup);
    set(FLAG_CHESS960, chess960.is_some());
    set(FLAG_VARIATIONS, variation_moves > 0);
    set(
        FLAG_COMMENTARY,
        count_kind(&all, |a| matches!(a, Annotation::Text { .. })) > 0,
    );
    set(
        FLAG_SYMBOLS,
        count_kind(&all, |a| matches!(a, Annotation::Symbols { .. })) > 0,
    );
    let squares = count_kind(&all, |a| matches!(a, Annotation::Squares(_)));
    let arrows = count_kind(&all, |a| matches!(a, Annotation::Arrows(_)));
    set(FLAG_SQUARES, squares > 0);
    set(FLAG_ARROWS, arrows > 0);
    set(
        FLAG_TIME,
        count_kind(&all, |a| matches!(a, Annotation::TimeSpent { .. })) > 0,
    );
    set(
        FLAG_WHITE_CLOCK,
        count_kind(&all, |a| matches!(a, Annotation::WhiteClock(_))) > 0,
    );
    set(
        FLAG_BLACK_CLOCK,
        count_kind(&all, |a| matches!(a, Annotation::BlackClock(_))) > 0,
    );
    set(
        FLAG_CRITICAL,
        count_kind(&all, |a| matches!(a, Annotation::Critical(_))) > 0,
    );
    let size_class = match variation_moves {
        0..=50 => 0,
        51..=300 => 1,
        301..=1000 => 2,
        _ => 3,
    };
    let mut magnitudes = if variation_moves > 0 { size_class } else { 0 };
    // "Many" comments and symbols: thresholds fitted to the corpus's databases (six or more
    // commented moves, ten or more moves with symbols).
    let moves_with = |f: fn(&Annotation) -> bool| {
        order
            .iter()
            .filter(|&&n| game.tree.annotations(n).iter().any(f))
            .count()
    };
    if moves_with(|a| matches!(a, Annotation::Text { .. })) >= 6 {
        magnitudes |= 1 << 2;
    }
    if moves_with(|a| matches!(a, Annotation::Symbols { .. })) >= 10 {
        magnitudes |= 1 << 3;
    }
    if squares >= 10 {
        magnitudes |= 1 << 4;
    }
    if arrows >= 10 {
        magnitudes |= 1 << 5;
    }
    let plies = main_line + usize::from(start.position.turn() == Color::Black);
    out.cbg = cbg;
    out.cba_items = items;
    out.flags = flags;
    out.magnitudes = magnitudes;
    out.moves = u8::try_from(plies.div_ceil(2)).unwrap_or(u8::MAX);
    out.chess960 = chess960;
    Ok(out)
}

/// The `.cba` record of game `number`: head and items.
pub fn cba_record(number: u32, encoded: &EncodedGame) -> Vec<u8> {
    let head = CbaHead {
        game: number,
        unknown: [1, 0, 0x0e, 0x0e],
        items_plus_one: encoded.items + 1,
        size: (CBA_HEAD_SIZE + encoded.cba_items.len()) as u32,
    };
    let mut v = head.to_bytes().to_vec();
    v.extend_from_slice(&encoded.cba_items);
    v
}
