//! Walking the book tree from the start position: `dump` and `info`, equal to the text of
//! `polyglot dump-book` and `polyglot info-book` (PolyGlot 2.0.4).
//!
//! The walk is the reference tool's: a depth-first search from the start position in which the
//! dumped side plays its **book** moves (file order, weight > 0, legal) and the other side plays
//! **every** legal move after which the dumped side has a book move. Each position is expanded
//! once: a second visit ends the line with `{trans: line=L, ply=P}` (the line and ply of the
//! first visit), a position already on the current path with `{cycle: ply=P}`. A line is printed
//! when it ends; lines ending in a transposition or a cycle count as lines too.
//!
//! The reference tool generates the other side's moves in its own order (piece list order,
//! then direction, then distance; castling last), and that order decides which of two
//! transposing lines is printed in full. [`RefBoard`] reproduces that order exactly — the piece
//! list starts king-first then a1..h8, captures remove by swapping the last piece in, every other
//! move keeps its slot — so our text is byte-identical.
//!
//! Differences from the reference, all on inputs it mishandles: entries whose move field is 0
//! are ignored (the reference treats them as its own visit markers, printing uninitialised line
//! numbers); there is no limit of 1024 plies or 256 moves per position (the reference
//! overflows fixed arrays); the walk uses an explicit stack, so a book with very long lines
//! cannot overflow the call stack.

use std::{
    collections::HashMap,
    io::{self, Write},
    ops::Range,
};

use chess_core::polyglot_key;
use shakmaty::{Chess, Color, Move, Position, Role, Square, san::SanPlus};

use crate::{Book, moves::decode_move_among};

/// The result of a tree walk for one colour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Lines printed (leaves, transpositions and cycles).
    pub lines: u64,
    /// Distinct book positions where the walked colour chose a book move.
    pub positions: u64,
}

/// What `polyglot info-book` reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BookInfo {
    /// Lines of the White tree walk.
    pub lines_white: u64,
    /// Lines of the Black tree walk.
    pub lines_black: u64,
    /// Book positions on White's lines (White to move, reached by the walk).
    pub positions_white: u64,
    /// Book positions on Black's lines.
    pub positions_black: u64,
    /// Book positions on neither (counted as the reference does: runs of equal keys in file
    /// order, minus the positions on lines).
    pub isolated_positions: u64,
    /// Runs of equal keys in file order (the number of positions of a sorted book).
    pub positions: u64,
}

impl BookInfo {
    /// The text of `polyglot info-book`, line for line (without its `PolyGlot 2.0.4 by Fabien
    /// Letouzey.` banner, see [`REFERENCE_BANNER`]).
    pub fn reference_text(&self) -> String {
        format!(
            "Lines for white                : {:8}\n\
             Lines for black                : {:8}\n\
             Positions on lines for white   : {:8}\n\
             Positions on lines for black   : {:8}\n\
             Isolated positions             : {:8}\n",
            self.lines_white,
            self.lines_black,
            self.positions_white,
            self.positions_black,
            self.isolated_positions
        )
    }
}

/// The first line the reference tool prints before any command's output.
pub const REFERENCE_BANNER: &str = "PolyGlot 2.0.4 by Fabien Letouzey.";

/// Computes `polyglot info-book`'s statistics: both tree walks, then the positions counted.
pub fn info<D: AsRef<[u8]>>(book: &Book<D>) -> BookInfo {
    let index = KeyIndex::new(book);
    let white = Walker::new(book, &index, Color::White, None).run();
    let black = Walker::new(book, &index, Color::Black, None).run();
    let positions = index.runs;
    BookInfo {
        lines_white: white.lines,
        lines_black: black.lines,
        positions_white: white.positions,
        positions_black: black.positions,
        isolated_positions: positions.saturating_sub(white.positions + black.positions),
        positions,
    }
}

/// One line of a dump, handed to a [`DumpSink`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineEnd {
    /// The line ends because the position has no further book continuation.
    Leaf,
    /// The position was expanded before, on line `line` at ply `ply`.
    Trans {
        /// The line where the position was first expanded.
        line: u64,
        /// Its ply there.
        ply: usize,
    },
    /// The position is already on this line at ply `ply`.
    Cycle {
        /// The ply of its first occurrence.
        ply: usize,
    },
}

/// A move of a dumped line.
#[derive(Debug, Clone, PartialEq)]
pub struct LineMove {
    /// The move.
    pub mv: Move,
    /// SAN with check marks, as the reference prints it.
    pub san: String,
    /// UCI (standard castling notation, `e1g1`).
    pub uci: String,
    /// For the dumped side's moves: the move's share of the position's book weight (0..=1).
    pub share: Option<f64>,
}

/// Receives the lines of a dump in order.
pub trait DumpSink {
    /// Called once per line: its 1-based number, its moves from the start position and how it
    /// ends.
    fn line(&mut self, number: u64, moves: &[LineMove], end: LineEnd) -> io::Result<()>;
}

/// Writes lines as the reference tool's text (`1: 1. e4{42%} b6 2. …`).
pub struct TextDump<W> {
    out: W,
    color: Color,
}

impl<W: Write> TextDump<W> {
    /// Writes the header line `Dump of "NAME" for white.` and returns the sink. `name` is the
    /// book's name as the user gave it (the reference prints its `-bin` argument).
    pub fn new(mut out: W, name: &str, color: Color) -> io::Result<Self> {
        writeln!(out, "Dump of \"{name}\" for {}.", color_name(color))?;
        Ok(TextDump { out, color })
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl<W: Write> DumpSink for TextDump<W> {
    fn line(&mut self, number: u64, moves: &[LineMove], end: LineEnd) -> io::Result<()> {
        write!(self.out, "{number}: ")?;
        for (i, m) in moves.iter().enumerate() {
            if i % 2 == 0 {
                write!(self.out, "{}. ", i / 2 + 1)?;
            }
            let mover = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            match m.share {
                // `%.0f` of the C library and Rust's `{:.0}` both round half to even on the
                // exact binary value.
                Some(p) if mover == self.color => {
                    write!(self.out, "{}{{{:.0}%}} ", m.san, 100.0 * p)?;
                }
                _ => write!(self.out, "{} ", m.san)?,
            }
        }
        match end {
            LineEnd::Leaf => writeln!(self.out),
            LineEnd::Trans { line, ply } => writeln!(self.out, "{{trans: line={line}, ply={ply}}}"),
            LineEnd::Cycle { ply } => writeln!(self.out, "{{cycle: ply={ply}}}"),
        }
    }
}

/// Walks the tree for `color` and hands every line to `sink` (`polyglot dump-book`).
pub fn dump<D: AsRef<[u8]>>(
    book: &Book<D>,
    color: Color,
    sink: &mut dyn DumpSink,
) -> io::Result<WalkStats> {
    let index = KeyIndex::new(book);
    let mut walker = Walker::new(book, &index, color, Some(sink));
    let stats = walker.run();
    match walker.error.take() {
        Some(e) => Err(e),
        None => Ok(stats),
    }
}

/// The first run of entries of each key, in file order (as the reference's hash lookup finds
/// them), and the number of runs.
struct KeyIndex {
    first_run: HashMap<u64, Range<usize>>,
    runs: u64,
}

impl KeyIndex {
    fn new<D: AsRef<[u8]>>(book: &Book<D>) -> Self {
        let mut first_run: HashMap<u64, Range<usize>> = HashMap::new();
        // The reference counts runs starting from `last_key = 0`, so a leading run of key 0
        // is not counted; we follow it.
        let mut runs = 0;
        let mut last_key = 0u64;
        let n = book.len();
        let mut i = 0;
        while i < n {
            let key = book.entry(i).key;
            let start = i;
            while i < n && book.entry(i).key == key {
                i += 1;
            }
            first_run.entry(key).or_insert(start..i);
            if key != last_key {
                runs += 1;
                last_key = key;
            }
        }
        KeyIndex { first_run, runs }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Search {
    /// The walked colour to move: its book moves.
    Book,
    /// The other colour: every legal move leading to a book position.
    All,
}

struct Frame {
    board: RefBoard,
    /// The position's key (for leaving the path).
    key: u64,
    search: Search,
    moves: Vec<(Move, Option<f64>)>,
    next: usize,
    count: u64,
}

struct Walker<'a, D> {
    book: &'a Book<D>,
    index: &'a KeyIndex,
    color: Color,
    sink: Option<&'a mut dyn DumpSink>,
    error: Option<io::Error>,
    line: u64,
    path: Vec<LineMove>,
    on_path: HashMap<u64, usize>,
    visited: HashMap<u64, (u64, usize)>,
    positions: u64,
}

impl<'a, D: AsRef<[u8]>> Walker<'a, D> {
    fn new(
        book: &'a Book<D>,
        index: &'a KeyIndex,
        color: Color,
        sink: Option<&'a mut dyn DumpSink>,
    ) -> Self {
        Walker {
            book,
            index,
            color,
            sink,
            error: None,
            line: 1,
            path: Vec::new(),
            on_path: HashMap::new(),
            visited: HashMap::new(),
            positions: 0,
        }
    }

    fn run(&mut self) -> WalkStats {
        let first = match self.color {
            Color::White => Search::Book,
            Color::Black => Search::All,
        };
        let mut stack: Vec<Frame> = Vec::new();
        if let Some(frame) = self.enter(RefBoard::start(), first) {
            stack.push(frame);
        }
        while let Some(top) = stack.last_mut() {
            if self.error.is_some() {
                break;
            }
            if top.next < top.moves.len() {
                let (mv, share) = top.moves[top.next];
                top.next += 1;
                let san = SanPlus::from_move(top.board.pos.clone(), mv).to_string();
                let uci = mv.to_uci(shakmaty::CastlingMode::Standard).to_string();
                let child = top.board.play(mv);
                let search = match top.search {
                    Search::Book => Search::All,
                    Search::All => Search::Book,
                };
                self.path.push(LineMove {
                    mv,
                    san,
                    uci,
                    share,
                });
                match self.enter(child, search) {
                    Some(frame) => stack.push(frame),
                    None => {
                        // A transposition or cycle: the child returned 1.
                        self.child_returned(stack.last_mut().expect("parent"), 1);
                    }
                }
            } else {
                let frame = stack.pop().expect("top");
                self.on_path.remove(&frame.key);
                if let Some(parent) = stack.last_mut() {
                    self.child_returned(parent, frame.count);
                }
            }
        }
        WalkStats {
            lines: self.line - 1,
            positions: self.positions,
        }
    }

    fn child_returned(&mut self, parent: &mut Frame, mut ret: u64) {
        if ret == 0 && parent.search == Search::Book {
            self.emit(LineEnd::Leaf);
            ret = 1;
        }
        self.path.pop();
        parent.count += ret;
    }

    fn emit(&mut self, end: LineEnd) {
        if let Some(sink) = self.sink.as_mut()
            && self.error.is_none()
            && let Err(e) = sink.line(self.line, &self.path, end)
        {
            self.error = Some(e);
        }
        self.line += 1;
    }

    /// Starts the search of a position: `None` when it ends the line at once (cycle or
    /// transposition, already reported).
    fn enter(&mut self, board: RefBoard, search: Search) -> Option<Frame> {
        let key = polyglot_key(&board.pos);
        let height = self.path.len();
        if let Some(&ply) = self.on_path.get(&key) {
            self.emit(LineEnd::Cycle { ply });
            return None;
        }
        if let Some(&(line, ply)) = self.visited.get(&key) {
            self.emit(LineEnd::Trans { line, ply });
            return None;
        }
        self.visited.insert(key, (self.line, height));
        self.on_path.insert(key, height);
        let moves = match search {
            Search::Book => {
                let (found, moves) = self.book_moves(&board.pos, key);
                if found {
                    self.positions += 1;
                }
                let sum: u32 = moves.iter().map(|&(_, w)| u32::from(w)).sum();
                moves
                    .into_iter()
                    .map(|(m, w)| (m, Some(f64::from(w) / f64::from(sum))))
                    .collect()
            }
            Search::All => board
                .legal_moves_in_reference_order()
                .into_iter()
                .filter(|&m| {
                    let mut child = board.pos.clone();
                    child.play_unchecked(m);
                    let key = polyglot_key(&child);
                    !self.book_moves(&child, key).1.is_empty()
                })
                .map(|m| (m, None))
                .collect(),
        };
        Some(Frame {
            board,
            key,
            search,
            moves,
            next: 0,
            count: 0,
        })
    }

    /// Whether the position has entries, and its legal book moves with weight > 0 in file order.
    fn book_moves(&self, pos: &Chess, key: u64) -> (bool, Vec<(Move, u16)>) {
        let Some(range) = self.index.first_run.get(&key) else {
            return (false, Vec::new());
        };
        // Entries with move 0 are ignored (see the module documentation).
        let found = range.clone().any(|i| self.book.entry(i).raw_move != 0);
        let legal = pos.legal_moves();
        let moves = range
            .clone()
            .map(|i| self.book.entry(i))
            .filter(|e| e.weight > 0)
            .filter_map(|e| decode_move_among(pos, &legal, e.raw_move).map(|m| (m, e.weight)))
            .collect();
        (found, moves)
    }
}

/// A position with the reference tool's piece lists, which fix its move generation order.
#[derive(Debug, Clone)]
pub struct RefBoard {
    /// The position.
    pub pos: Chess,
    lists: [Vec<Square>; 2],
}

impl RefBoard {
    /// The start position.
    pub fn start() -> Self {
        Self::new(Chess::default())
    }

    /// A position with freshly built piece lists (king first, then a1, b1, …, h8).
    pub fn new(pos: Chess) -> Self {
        let board = pos.board();
        let list = |c: Color| {
            let mut v: Vec<Square> = board.king_of(c).into_iter().collect();
            v.extend(Square::ALL.into_iter().filter(|&sq| {
                board.color_at(sq) == Some(c) && board.role_at(sq) != Some(Role::King)
            }));
            v
        };
        let lists = [list(Color::Black), list(Color::White)];
        RefBoard { pos, lists }
    }

    fn list(&self, c: Color) -> &Vec<Square> {
        &self.lists[usize::from(c.is_white())]
    }

    fn list_mut(&mut self, c: Color) -> &mut Vec<Square> {
        &mut self.lists[usize::from(c.is_white())]
    }

    /// Plays a legal move, updating the piece lists as the reference's `move_do` does.
    pub fn play(&self, m: Move) -> RefBoard {
        let mut next = self.clone();
        let us = self.pos.turn();
        let them = !us;
        let captured = match m {
            Move::Normal {
                capture: Some(_),
                to,
                ..
            } => Some(to),
            Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
            _ => None,
        };
        if let Some(sq) = captured {
            let list = next.list_mut(them);
            if let Some(i) = list.iter().position(|&s| s == sq) {
                list.swap_remove(i);
            }
        }
        let list = next.list_mut(us);
        let mut relocate = |from: Square, to: Square| {
            if let Some(slot) = list.iter_mut().find(|s| **s == from) {
                *slot = to;
            }
        };
        match m {
            Move::Castle { king, rook } => {
                let side = shakmaty::CastlingSide::from_queen_side(rook < king);
                relocate(king, side.king_to(us));
                relocate(rook, side.rook_to(us));
            }
            Move::Normal { from, to, .. } | Move::EnPassant { from, to } => relocate(from, to),
            Move::Put { .. } => {}
        }
        next.pos.play_unchecked(m);
        next
    }

    /// The legal moves in the order the reference generates them.
    pub fn legal_moves_in_reference_order(&self) -> Vec<Move> {
        let us = self.pos.turn();
        let list = self.list(us);
        let mut moves: Vec<(u32, Move)> = self
            .pos
            .legal_moves()
            .into_iter()
            .map(|m| (order_key(list, us, m), m))
            .collect();
        moves.sort_unstable_by_key(|&(k, _)| k);
        moves.into_iter().map(|(_, m)| m).collect()
    }
}

const KNIGHT: [(i32, i32); 8] = [
    (-1, -2),
    (1, -2),
    (-2, -1),
    (2, -1),
    (-2, 1),
    (2, 1),
    (-1, 2),
    (1, 2),
];
const BISHOP: [(i32, i32); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];
const ROOK: [(i32, i32); 4] = [(0, -1), (-1, 0), (1, 0), (0, 1)];
const QUEEN: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// Sort key of a move in the reference's generation order: the mover's slot in the piece list,
/// the direction's index in the reference's tables, the distance, the promotion (N, B, R, Q).
/// Castling comes after all other moves, h-side first.
fn order_key(list: &[Square], us: Color, m: Move) -> u32 {
    let (from, to) = match m {
        Move::Castle { king, rook } => return 1 << 20 | u32::from(rook < king),
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Put { .. } => return u32::MAX,
    };
    let slot = list.iter().position(|&s| s == from).unwrap_or(16) as u32;
    let df = i32::from(to.file()) - i32::from(from.file());
    let dr = i32::from(to.rank()) - i32::from(from.rank());
    let (dir, dist) = match m.role() {
        Role::Pawn => {
            let forward = if us.is_white() { dr } else { -dr };
            // White: +15 (up-left), +17, +16, +32; Black: -17 (down-left), -15, -16, -32.
            let dir = match (df, forward) {
                (-1, 1) => 0,
                (1, 1) => 1,
                (0, 1) => 2,
                _ => 3,
            };
            (dir, 0)
        }
        Role::Knight => (KNIGHT.iter().position(|&d| d == (df, dr)).unwrap_or(0), 0),
        Role::King => (QUEEN.iter().position(|&d| d == (df, dr)).unwrap_or(0), 0),
        role => {
            let unit = (df.signum(), dr.signum());
            let table: &[(i32, i32)] = match role {
                Role::Bishop => &BISHOP,
                Role::Rook => &ROOK,
                _ => &QUEEN,
            };
            (
                table.iter().position(|&d| d == unit).unwrap_or(0),
                df.abs().max(dr.abs()),
            )
        }
    };
    let promo = match m.promotion() {
        Some(Role::Knight) => 0,
        Some(Role::Bishop) => 1,
        Some(Role::Rook) => 2,
        Some(_) => 3,
        None => 0,
    };
    slot << 12 | (dir as u32) << 6 | (dist as u32) << 2 | promo
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ucis(b: &RefBoard) -> Vec<String> {
        b.legal_moves_in_reference_order()
            .into_iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect()
    }

    #[test]
    fn start_position_order() {
        // King first (no moves), then a1..h8: the knights (a3 before c3: +31 before +33), then
        // the pawns a2..h2, each with its single push before its double push.
        let b = RefBoard::start();
        let got = ucis(&b);
        assert_eq!(
            got,
            [
                "b1a3", "b1c3", "g1f3", "g1h3", "a2a3", "a2a4", "b2b3", "b2b4", "c2c3", "c2c4",
                "d2d3", "d2d4", "e2e3", "e2e4", "f2f3", "f2f4", "g2g3", "g2g4", "h2h3", "h2h4"
            ]
        );
        // Black: king e8 first, then a7.. pawns (rank 7 before rank 8), knights last.
        let b = b.play(b.legal_moves_in_reference_order()[13]);
        let got = ucis(&b);
        assert_eq!(&got[..4], ["a7a6", "a7a5", "b7b6", "b7b5"]);
        assert_eq!(&got[16..], ["b8a6", "b8c6", "g8f6", "g8h6"]);
    }

    #[test]
    fn captures_swap_the_last_piece_in() {
        // 1. e4 d5 2. exd5: Black's d5 pawn (slot 4: e8, a7, b7, c7, d7…) is replaced by Black's
        // last piece, the h8 rook.
        let mut b = RefBoard::start();
        for uci in ["e2e4", "d7d5", "e4d5"] {
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&b.pos)
                .unwrap();
            b = b.play(m);
        }
        let black = b.list(Color::Black);
        assert_eq!(black[0], Square::E8);
        assert_eq!(black.len(), 15);
        assert_eq!(black[4], Square::H8, "{black:?}");
    }
}
