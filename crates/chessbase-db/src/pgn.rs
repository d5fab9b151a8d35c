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

/// What [`export`] writes: which records, the PGN options, deleted games. Start from
/// [`ExportOptions::default`] (every record, annotations, no deleted games) and change what
/// differs with the builder methods. Threads are the caller's: see [`export`].
///
/// ```
/// use chessbase_db::pgn::ExportOptions;
///
/// let opts = ExportOptions::default().records(1..=100).include_deleted(true);
/// assert_eq!((opts.records, opts.include_deleted), (1..=100, true));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportOptions {
    /// How each game is written.
    pub pgn: PgnOptions,
    /// The records exported (1-based, inclusive; records past the database's end are not
    /// there to export). Default: all.
    pub records: std::ops::RangeInclusive<u32>,
    /// Export games marked deleted too (default: they are counted and left out).
    pub include_deleted: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            pgn: PgnOptions::default(),
            records: 1..=u32::MAX,
            include_deleted: false,
        }
    }
}

impl ExportOptions {
    /// How each game is written.
    pub fn pgn(mut self, pgn: PgnOptions) -> Self {
        self.pgn = pgn;
        self
    }

    /// The records exported (1-based, inclusive).
    pub fn records(mut self, records: std::ops::RangeInclusive<u32>) -> Self {
        self.records = records;
        self
    }

    /// Whether games marked deleted are exported.
    pub fn include_deleted(mut self, yes: bool) -> Self {
        self.include_deleted = yes;
        self
    }
}

fn tag(out: &mut String, name: &str, value: &str) {
    let value = if value.is_empty() { "?" } else { value };
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    // Most values need no escaping: copied whole.
    if !value
        .bytes()
        .any(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\r' | b'\t'))
    {
        out.push_str(value);
        out.push_str("\"]\n");
        return;
    }
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

fn clock(hundredths: u32) -> String {
    let s = hundredths / 100;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
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

/// Text and commands of a comment, from annotations of one kind of placement.
fn comment_text(anns: &[Annotation], before: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut commands = String::new();
    for a in anns {
        match a {
            Annotation::Text {
                before: b, text, ..
            } if *b == before => {
                let t = text.trim();
                if !t.is_empty() {
                    parts.push(t.replace('}', ")"));
                }
            }
            _ if before => {}
            Annotation::Squares(v) => {
                let list: Vec<String> = v
                    .iter()
                    .filter_map(|(c, s)| Some(format!("{}{}", c.pgn_letter()?, s)))
                    .collect();
                if !list.is_empty() {
                    let _ = write!(commands, "[%csl {}]", list.join(","));
                }
            }
            Annotation::Arrows(v) => {
                let list: Vec<String> = v
                    .iter()
                    .filter_map(|(c, a, b)| Some(format!("{}{}{}", c.pgn_letter()?, a, b)))
                    .collect();
                if !list.is_empty() {
                    let _ = write!(commands, "[%cal {}]", list.join(","));
                }
            }
            Annotation::WhiteClock(v) | Annotation::BlackClock(v) => {
                let _ = write!(commands, "[%clk {}]", clock(*v));
            }
            Annotation::TimeSpent {
                hours,
                minutes,
                seconds,
                ..
            } => {
                let _ = write!(commands, "[%emt {hours}:{minutes:02}:{seconds:02}]");
            }
            // Medals as ChessBase writes them in PGN: the bit set.
            Annotation::Medals(bits) => {
                let _ = write!(commands, "[%mdl {bits}]");
            }
            // Annotations without a PGN convention: the documented `[%cb …]` form (see the
            // crate's README), so that nothing is dropped on the way to PGN.
            Annotation::Critical(phase) => {
                let what = match phase {
                    1 => "opening",
                    2 => "middlegame",
                    3 => "endgame",
                    _ => "unknown",
                };
                let _ = write!(commands, "[%cb critical {what}]");
            }
            Annotation::VariationColour {
                red,
                green,
                blue,
                flags,
            } => {
                let _ = write!(commands, "[%cb colour #{red:02x}{green:02x}{blue:02x}");
                if *flags != 0 {
                    let _ = write!(commands, " {flags}");
                }
                commands.push(']');
            }
            Annotation::PawnStructure(k) => {
                let _ = write!(commands, "[%cb pawn-structure {k}]");
            }
            Annotation::PiecePath { kind, square } => {
                let _ = write!(commands, "[%cb piece-path {square} {kind}]");
            }
            // The lichess/python-chess convention, depth after a comma.
            Annotation::Evaluation { score, kind, depth } if *kind == 0 || *kind == 1 => {
                if *kind == 0 {
                    let sign = if *score < 0 { "-" } else { "" };
                    let abs = score.unsigned_abs();
                    let _ = write!(commands, "[%eval {sign}{}.{:02}", abs / 100, abs % 100);
                } else {
                    let _ = write!(commands, "[%eval #{score}");
                }
                if *depth > 0 {
                    let _ = write!(commands, ",{depth}");
                }
                commands.push(']');
            }
            Annotation::Evaluation { score, kind, depth } => {
                let _ = write!(commands, "[%cb eval {kind} {score} {depth}]");
            }
            Annotation::Unknown { kind, data } => {
                let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
                let _ = write!(commands, "[%cb {kind:02x} {hex}]");
            }
            _ => {}
        }
    }
    if !commands.is_empty() {
        parts.insert(0, commands);
    }
    parts.join(" ")
}

fn nags(anns: &[Annotation]) -> Vec<u8> {
    let mut v = Vec::new();
    for a in anns {
        if let Annotation::Symbols {
            move_nag,
            position_nag,
            prefix_nag,
        } = a
        {
            for n in [*move_nag, *position_nag, *prefix_nag] {
                if n != 0 {
                    v.push(n);
                }
            }
        }
    }
    v
}

/// `N.` for the move numbers below 1,000: the bytes (padded) and their length.
static MOVE_NUMBERS: [([u8; 4], u8); 1000] = move_numbers();

const fn move_numbers() -> [([u8; 4], u8); 1000] {
    let mut t = [([0u8; 4], 0u8); 1000];
    let mut n = 0;
    while n < 1000 {
        let (h, d, u) = ((n / 100) as u8, (n / 10 % 10) as u8, (n % 10) as u8);
        t[n] = if n >= 100 {
            ([b'0' + h, b'0' + d, b'0' + u, b'.'], 4)
        } else if n >= 10 {
            ([b'0' + d, b'0' + u, b'.', 0], 3)
        } else {
            ([b'0' + u, b'.', 0, 0], 2)
        };
        n += 1;
    }
    t
}

/// Movetext with line wrapping, written as bytes (cheaper to append than `char`s) and
/// appended to the game's text at the end ([`Movetext::finish`]).
struct Movetext {
    out: Vec<u8>,
    width: usize,
    col: usize,
    scratch: String,
}

impl Movetext {
    /// Empty movetext wrapped at `width` columns (at least 20).
    fn new(width: usize) -> Movetext {
        Movetext {
            out: Vec::with_capacity(1024),
            width: width.max(20),
            col: 0,
            scratch: String::new(),
        }
    }

    /// Appends the text to `dest`. Every byte came from a `&str` or is ASCII, so the text is
    /// UTF-8 (checked all the same, which costs little next to writing it).
    fn finish(self, dest: &mut String) {
        match std::str::from_utf8(&self.out) {
            Ok(text) => dest.push_str(text),
            Err(_) => dest.push_str(&String::from_utf8_lossy(&self.out)),
        }
    }

    /// Writes the text so far to `w` and empties the buffer (the column is kept, so the
    /// wrapping goes on as if nothing had been written): only between tokens, which is where
    /// every caller is.
    fn drain(&mut self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&self.out)?;
        self.out.clear();
        Ok(())
    }

    /// A token made by formatting, without allocating.
    fn token_fmt(&mut self, args: std::fmt::Arguments<'_>) {
        let mut t = std::mem::take(&mut self.scratch);
        t.clear();
        let _ = t.write_fmt(args);
        self.token(&t);
        self.scratch = t;
    }

    /// Starts a token written straight into the text (no copy through a buffer): the
    /// separator goes first as a space; [`Movetext::end_token`] turns it into a line break when
    /// the token does not fit. Returns where the token starts.
    fn begin_token(&mut self) -> usize {
        if self.col > 0 {
            self.out.push(b' ');
        }
        self.out.len()
    }

    /// Ends the token begun at `start`: wraps the line before it when it is too long, as
    /// [`Movetext::token`] does.
    fn end_token(&mut self, start: usize) {
        let len = self.out.len() - start;
        if self.col == 0 {
            self.col = len;
        } else if self.col + 1 + len > self.width {
            self.out[start - 1] = b'\n';
            self.col = len;
        } else {
            self.col += 1 + len;
        }
    }

    /// A move of a line: its number where PGN wants one (before White's moves; before
    /// Black's when `need_number`: at the start of a line, after a comment or a variation),
    /// then the SAN `san` writes (it plays the move on the cursor), or `--` for a null move.
    #[inline(always)]
    fn numbered_move<C: Cursor>(
        &mut self,
        cursor: &mut C,
        need_number: bool,
        mv: Option<shakmaty::Move>,
        san: impl FnOnce(&mut C, shakmaty::Move, &mut Vec<u8>),
    ) {
        if cursor.side() == Color::White {
            self.move_number(cursor.number(), false);
        } else if need_number {
            self.move_number(cursor.number(), true);
        }
        match mv {
            Some(m) => {
                let start = self.begin_token();
                san(cursor, m, &mut self.out);
                self.end_token(start);
            }
            None => {
                self.token("--");
                cursor.null();
            }
        }
    }

    /// A move number token, `N.` or `N...`, without the formatting machinery (numbers
    /// below 1,000 copied from a table).
    #[inline(always)]
    fn move_number(&mut self, n: u32, black: bool) {
        let start = self.begin_token();
        match MOVE_NUMBERS.get(n as usize) {
            Some(&(bytes, len)) => {
                self.out.extend_from_slice(&bytes);
                self.out.truncate(start + usize::from(len));
            }
            None => {
                crate::text::push_decimal_bytes(&mut self.out, n, 1);
                self.out.push(b'.');
            }
        }
        if black {
            self.out.extend_from_slice(b"..");
        }
        self.end_token(start);
    }

    fn token(&mut self, t: &str) {
        if self.col > 0 && self.col + 1 + t.len() > self.width {
            self.out.push(b'\n');
            self.col = 0;
        } else if self.col > 0 {
            self.out.push(b' ');
            self.col += 1;
        }
        self.out.extend_from_slice(t.as_bytes());
        self.col += t.len();
    }

    fn comment(&mut self, text: &str) {
        let mut first = true;
        for word in text.split_whitespace() {
            let w = if first {
                format!("{{{word}")
            } else {
                word.to_string()
            };
            first = false;
            self.token(&w);
        }
        if first {
            return;
        }
        self.out.push(b'}');
        self.col += 1;
    }
}

/// Where the writer is in a line: what it needs to number moves and write their SAN.
trait Cursor: Clone {
    /// The side to move.
    fn side(&self) -> Color;
    /// The fullmove number.
    fn number(&self) -> u32;
    /// Writes the SAN of `m` (the move of `node`) into `t` and plays it.
    fn san(&mut self, tree: &MoveTree, node: NodeId, m: shakmaty::Move, t: &mut Vec<u8>);
    /// Plays a null move.
    fn null(&mut self);
}

/// The position itself, replayed move by move: for trees without SAN flags.
impl Cursor for Chess {
    fn side(&self) -> Color {
        self.turn()
    }

    fn number(&self) -> u32 {
        self.fullmoves().get()
    }

    fn san(&mut self, _: &MoveTree, _: NodeId, m: shakmaty::Move, t: &mut Vec<u8>) {
        san_plus(self, m).append_ascii_to(t);
    }

    /// A null move counts like a move: one by Black starts the next move number (`6. Bg5 --
    /// 7. Qd2`).
    fn null(&mut self) {
        let pos = std::mem::take(self);
        let mode = pos.castles().mode();
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        if setup.turn == Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        setup.swap_turn();
        *self = <Chess as shakmaty::FromSetup>::from_setup(setup, mode)
            .unwrap_or_else(|p| p.ignore_impossible_check().unwrap_or_default());
    }
}

/// Only the side to move and the move number: the SAN comes from the flags the decoder
/// stored in the tree (no replay). Numbers as the position would count them: a move by Black
/// starts the next move, a null move does not.
#[derive(Debug, Clone, Copy)]
struct Counter {
    turn: Color,
    fullmoves: u32,
}

impl Counter {
    /// Writes the SAN of `m` from its flags and counts the move.
    #[inline(always)]
    fn play_san(&mut self, m: shakmaty::Move, flags: u8, t: &mut Vec<u8>) {
        append_san(t, m, flags);
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
    }
}

impl Cursor for Counter {
    fn side(&self) -> Color {
        self.turn
    }

    fn number(&self) -> u32 {
        self.fullmoves
    }

    fn san(&mut self, tree: &MoveTree, node: NodeId, m: shakmaty::Move, t: &mut Vec<u8>) {
        self.play_san(m, tree.san_flags(node).unwrap_or(0), t);
    }

    fn null(&mut self) {
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
    }
}

/// A square's file and rank letters, by arithmetic on its index (shakmaty's `file()` and
/// `rank()` check their range again).
#[inline(always)]
fn square_letters(sq: shakmaty::Square) -> [u8; 2] {
    let i = sq as u8;
    [b'a' + (i & 7), b'1' + (i >> 3)]
}

fn square(t: &mut Vec<u8>, sq: shakmaty::Square) {
    t.extend_from_slice(&square_letters(sq));
}

/// SAN's letter of each piece kind, indexed by `Role as usize` (a pawn's is never written;
/// index 0, no kind, is the placeholder stored where a move has no promotion).
const ROLE_LETTERS: [u8; 7] = *b"QPNBRQK";

/// SAN of a legal move from its [`san`](crate::moves::san) flags, as shakmaty writes it.
#[inline(always)]
fn append_san(t: &mut Vec<u8>, m: shakmaty::Move, flags: u8) {
    use crate::moves::san;
    use shakmaty::{CastlingSide, Move, Role};
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            // Without a branch on the move's parts (they are unpredictable): every byte is
            // stored, and the length advances by the bytes that belong to the SAN.
            let (pawn, takes) = (role == Role::Pawn, capture.is_some());
            let ([from_file, from_rank], [to_file, to_rank]) =
                (square_letters(from), square_letters(to));
            let mut b = [0u8; 10];
            let mut n = 0;
            b[n] = [ROLE_LETTERS[role as usize], from_file][usize::from(pawn)];
            n += usize::from(!pawn || takes);
            // Pawns have no disambiguation flags (their file comes with the capture).
            b[n] = from_file;
            n += usize::from(flags & san::FILE != 0);
            b[n] = from_rank;
            n += usize::from(flags & san::RANK != 0);
            b[n] = b'x';
            n += usize::from(takes);
            b[n] = to_file;
            b[n + 1] = to_rank;
            n += 2;
            b[n] = b'=';
            b[n + 1] = ROLE_LETTERS[promotion.map_or(0, |p| p as usize)];
            n += 2 * usize::from(promotion.is_some());
            b[n] = [b'+', b'+', b'#', b'#'][usize::from(flags >> 2 & 3)];
            n += usize::from(flags & (san::CHECK | san::MATE) != 0);
            // At most 7 bytes (`Qh4xe1+`, `exd8=Q#`): 8 appended, the rest cut.
            let end = t.len() + n;
            t.extend_from_slice(&b[..8]);
            t.truncate(end);
            return;
        }
        Move::EnPassant { from, to } => {
            t.extend_from_slice(&[square_letters(from)[0], b'x']);
            square(t, to);
        }
        Move::Castle { .. } => t.extend_from_slice(match m.castling_side() {
            Some(CastlingSide::QueenSide) => b"O-O-O",
            _ => b"O-O",
        }),
        Move::Put { role, to } => {
            if role != Role::Pawn {
                t.push(ROLE_LETTERS[role as usize]);
            }
            t.push(b'@');
            square(t, to);
        }
    }
    if flags & san::MATE != 0 {
        t.push(b'#');
    } else if flags & san::CHECK != 0 {
        t.push(b'+');
    }
}

struct Writer<'a> {
    tree: &'a MoveTree,
    text: Movetext,
    annotations: bool,
}

impl Writer<'_> {
    /// Writes the line from `node` (at `pos`), starting with `first` instead of the main child
    /// when given (a variation).
    fn line<C: Cursor>(&mut self, mut node: NodeId, mut pos: C, mut first: Option<NodeId>) {
        let mut need_number = true;
        loop {
            let variation_start = first.is_some();
            let Some(child) = first.take().or_else(|| self.tree.main_child(node)) else {
                break;
            };
            let n = self.tree.node(child);
            let anns = self.tree.annotations(child);
            // Most moves have no annotations: nothing to build for them.
            let annotated = self.annotations && !anns.is_empty();
            if annotated {
                let before = comment_text(anns, true);
                if !before.is_empty() {
                    self.text.comment(&before);
                    need_number = true;
                }
            }
            let has_variations = !variation_start && self.tree.children(node).nth(1).is_some();
            let before_move = has_variations.then(|| pos.clone());
            let tree = self.tree;
            self.text
                .numbered_move(&mut pos, need_number, n.mv, |pos, m, out| {
                    pos.san(tree, child, m, out);
                });
            need_number = false;
            if annotated {
                for nag in nags(anns) {
                    self.text.token_fmt(format_args!("${nag}"));
                }
                let after = comment_text(anns, false);
                if !after.is_empty() {
                    self.text.comment(&after);
                    need_number = true;
                }
            }
            if let Some(before_move) = before_move {
                let siblings: Vec<NodeId> = self.tree.children(node).skip(1).collect();
                for s in siblings {
                    self.text.token("(");
                    self.line_in_parens(node, before_move.clone(), s);
                    need_number = true;
                }
            }
            node = child;
        }
    }

    fn line_in_parens<C: Cursor>(&mut self, node: NodeId, pos: C, first: NodeId) {
        // "(" is followed directly by the first move: remove the separator the next token adds.
        let mark = self.text.out.len();
        self.line(node, pos, Some(first));
        if self.text.out.get(mark) == Some(&b' ') {
            self.text.out.remove(mark);
            self.text.col = self.text.col.saturating_sub(1);
        }
        self.text.out.push(b')');
        self.text.col += 1;
    }
}

/// Appends one game as PGN to `out`.
pub fn write_game(out: &mut String, header: &GameHeader<'_>, game: &Game, opts: &PgnOptions) {
    let outcome = write_tags(out, header, &game.start, &game.game_annotations);
    write_movetext(out, game, outcome.pgn(), opts);
    out.push_str("\n\n");
}

/// The movetext of a game without variations, written as its moves are decoded (no tree):
/// numbers from the game's start, SAN from the decoder's flags.
struct PlainText {
    text: Movetext,
    counter: Counter,
    first: bool,
}

impl PlainText {
    fn new(width: usize, start: &Start) -> PlainText {
        let pos = &start.position;
        PlainText {
            text: Movetext::new(width),
            counter: Counter {
                turn: pos.turn(),
                fullmoves: pos.fullmoves().get(),
            },
            first: true,
        }
    }

    /// Appends a move (`None`: a null move) with its SAN flags.
    #[inline(always)]
    fn push(&mut self, (mv, flags): (Option<shakmaty::Move>, u8)) {
        self.text
            .numbered_move(&mut self.counter, self.first, mv, |counter, m, out| {
                counter.play_san(m, flags, out);
            });
        self.first = false;
    }
}

/// A sink for [`crate::game::decode_plain`] made from the game's start, writing into `text`
/// (the result token is added by [`write_plain`]).
fn plain_sink<'a>(
    text: &'a mut Option<PlainText>,
    width: usize,
    start: &Start,
) -> impl FnMut((Option<shakmaty::Move>, u8)) + use<'a> {
    let text = text.insert(PlainText::new(width, start));
    move |m| text.push(m)
}

/// Appends a game without variations or annotations ([`PlainLine`]) as PGN, its movetext
/// `text` (from [`plain_sink`]): what [`write_game`] writes for the same game, without a move
/// tree.
fn write_plain(out: &mut String, header: &GameHeader<'_>, line: &PlainLine, mut text: Movetext) {
    let outcome = write_tags(out, header, &line.start, &[]);
    text.token(outcome.pgn());
    text.finish(out);
    out.push_str("\n\n");
}

/// The tag pairs and the empty line after them; returns the game's outcome (for the result
/// token).
fn write_tags(
    out: &mut String,
    header: &GameHeader<'_>,
    start: &Start,
    game_annotations: &[Annotation],
) -> crate::header::Outcome {
    let t = header.tournament;
    tag(out, "Event", &t.title);
    tag(out, "Site", &t.place);
    // Values are formatted into one reused buffer, without the formatting machinery.
    let mut v = String::with_capacity(64);
    let mut with = |out: &mut String, name: &str, fill: &dyn Fn(&mut String) -> bool| {
        v.clear();
        if fill(&mut v) {
            tag(out, name, &v);
        }
    };
    with(out, "Date", &|v| {
        header.date().push_pgn(v);
        true
    });
    with(out, "Round", &|v| {
        header.push_round(v);
        true
    });
    with(out, "White", &|v| {
        header.white.push_full_name(v);
        true
    });
    with(out, "Black", &|v| {
        header.black.push_full_name(v);
        true
    });
    let outcome = header.outcome();
    tag(out, "Result", outcome.pgn());
    for (name, elo) in [
        ("WhiteElo", header.record.white_elo),
        ("BlackElo", header.record.black_elo),
    ] {
        with(out, name, &|v| {
            crate::text::push_decimal(v, u32::from(elo), 1);
            elo != 0
        });
    }
    with(out, "ECO", &|v| header.eco().push_code(v));
    if !header.annotator.name.is_empty() {
        tag(out, "Annotator", &header.annotator.name);
    }
    if let Some(team) = header.white_team {
        tag(out, "WhiteTeam", &team.title);
    }
    if let Some(team) = header.black_team {
        tag(out, "BlackTeam", &team.title);
    }
    with(out, "EventDate", &|v| {
        t.start_date().push_pgn(v);
        !t.start_date().is_unknown()
    });
    if let Some(term) = outcome.termination() {
        tag(out, "Termination", term);
    }
    for a in game_annotations {
        match a {
            Annotation::WhiteClock(v) => tag(out, "WhiteClock", &clock(*v)),
            Annotation::BlackClock(v) => tag(out, "BlackClock", &clock(*v)),
            // Tags kept as text by an import (crate::kept_tags).
            Annotation::Text { text, .. } if text.contains("[%tag ") => {
                for (name, value) in crate::kept_tags::split(text).0 {
                    tag(out, &name, &value);
                }
            }
            _ => {}
        }
    }
    if start.chess960.is_some() {
        tag(out, "Variant", "Chess960");
    }
    if start.setup {
        tag(out, "SetUp", "1");
        let fen = Fen::from_position(&start.position, EnPassantMode::Legal);
        tag(out, "FEN", &fen.to_string());
    }
    out.push('\n');
    outcome
}

/// The movetext of `game` (its opening comment, moves, variations and annotations, then
/// `result`), wrapped at the options' width.
fn write_movetext(out: &mut String, game: &Game, result: &str, opts: &PgnOptions) {
    let mut w = Writer {
        tree: &game.tree,
        text: Movetext::new(opts.line_width),
        annotations: opts.annotations,
    };
    if opts.annotations {
        let mut anns: Vec<Annotation> = game
            .game_annotations
            .iter()
            .filter(|a| !matches!(a, Annotation::WhiteClock(_) | Annotation::BlackClock(_)))
            .cloned()
            .collect();
        // The game's texts and commands (squares, arrows, medals, …) make its opening
        // comment: all of them, whatever placement a text has (written as the "after"
        // placement, the one that carries commands).
        // Tags kept as text were written as tags.
        for a in &mut anns {
            if let Annotation::Text { before, text, .. } = a {
                *before = false;
                if text.contains("[%tag ") {
                    *text = crate::kept_tags::split(text).1;
                }
            }
        }
        let c = comment_text(&anns, false);
        if !c.is_empty() {
            w.text.comment(&c);
        }
    }
    if game.tree.san_flags(MoveTree::ROOT).is_some() {
        let start = &game.start.position;
        let counter = Counter {
            turn: start.turn(),
            fullmoves: start.fullmoves().get(),
        };
        w.line(MoveTree::ROOT, counter, None);
    } else {
        w.line(MoveTree::ROOT, game.start.position.clone(), None);
    }
    w.text.token(result);
    w.text.finish(out);
}

/// What an export did.
#[derive(Debug, Default)]
pub struct ExportSummary {
    /// Games written (truncated ones included).
    pub exported: u64,
    /// Games written only up to damaged data.
    pub truncated: Vec<GameError>,
    /// Games not written, with the reason.
    pub skipped: Vec<Error>,
    /// Games written without some of their annotations, with the reason: a damaged or
    /// foreign annotation record, annotations past the game's moves. Never dropped silently.
    pub annotation_problems: Vec<GameError>,
    /// Guiding texts passed over.
    pub texts: u64,
    /// Deleted records passed over.
    pub deleted: u64,
}

/// One record's export: PGN text, or why there is none.
enum Piece {
    Pgn(String, Option<GameError>, Vec<GameError>),
    /// A game stored in more than [`STREAM_ABOVE`] bytes: written when its turn comes,
    /// straight to the output ([`write_game_to`]), not held as text.
    Stream(u32),
    Text,
    Deleted,
    Skipped(Error),
}

fn export_one(
    db: &Database,
    number: u32,
    opts: &PgnOptions,
    include_deleted: bool,
    shared: &std::collections::HashMap<u32, u32>,
) -> Piece {
    if let Some(&first) = shared.get(&number) {
        return Piece::Skipped(
            GameError {
                game: number,
                file: "cbh",
                offset: u64::from(number) * crate::raw::CBH_RECORD_SIZE as u64,
                kind: crate::error::GameErrorKind::SharedData(first),
            }
            .into(),
        );
    }
    let header = match db.header(number) {
        Ok(Header::Game(h)) => h,
        Ok(Header::Text(t)) if t.record.kind & crate::raw::KIND_DELETED == 0 || include_deleted => {
            return Piece::Text;
        }
        Ok(Header::Text(_)) => return Piece::Deleted,
        Ok(Header::Unused(_)) => return Piece::Deleted,
        Err(e) => return Piece::Skipped(e),
    };
    if header.deleted() && !include_deleted {
        return Piece::Deleted;
    }
    if db.game_size(number) > STREAM_ABOVE {
        return Piece::Stream(number);
    }
    // Most games have neither variations nor annotations: written without a move tree.
    let mut text = None;
    match db.plain_game_into(number, opts.annotations, |start| {
        plain_sink(&mut text, opts.line_width, start)
    }) {
        Ok(Some(line)) => {
            let mut s = String::with_capacity(1024);
            let text = text.map_or_else(|| Movetext::new(opts.line_width), |t| t.text);
            write_plain(&mut s, &header, &line, text);
            return Piece::Pgn(s, line.truncated, Vec::new());
        }
        Ok(None) => {}
        Err(e) => return Piece::Skipped(e),
    }
    match tree_pgn(db, number, &header, opts) {
        Ok((s, written)) => Piece::Pgn(s, written.truncated, written.annotation_problems),
        Err(e) => Piece::Skipped(e),
    }
}

/// Game `number` (its header `header`) decoded as a tree and written as PGN text, with what
/// was wrong in it.
fn tree_pgn(
    db: &Database,
    number: u32,
    header: &GameHeader<'_>,
    opts: &PgnOptions,
) -> Result<(String, Written), Error> {
    let game = db.game_with(number, opts.annotations)?;
    let mut s = String::with_capacity(1024);
    write_game(&mut s, header, &game, opts);
    let mut problems: Vec<GameError> = game.annotation_error.into_iter().collect();
    if opts.annotations && !game.unattached.is_empty() {
        problems.push(GameError {
            game: number,
            file: "cba",
            offset: u64::from(db.game_annotation_offset(number).unwrap_or_default()),
            kind: crate::error::GameErrorKind::UnattachedAnnotations(game.unattached.len()),
        });
    }
    Ok((
        s,
        Written {
            truncated: game.truncated,
            annotation_problems: problems,
        },
    ))
}

/// Games stored in more bytes than this are written by [`write_game_to`] when the export
/// reaches them, not held as text among the games in flight.
const STREAM_ABOVE: u64 = 1 << 20;

/// Movetext bytes gathered before they are written out, for a game written as it is decoded.
const STREAM_BUFFER: usize = 1 << 16;

/// What [`write_game_to`] found wrong in a game it wrote.
#[derive(Debug, Default)]
pub struct Written {
    /// Set when the moves stop early (as [`Game::truncated`]).
    pub truncated: Option<GameError>,
    /// The annotation record could not be read, or some of its annotations point past the
    /// game's moves (as [`ExportSummary::annotation_problems`]).
    pub annotation_problems: Vec<GameError>,
}

/// Writes game `number` as PGN to `out` (what [`game_to_pgn`] returns). A game without
/// variations (and, with `opts.annotations`, without annotation record) is written while its
/// moves are decoded, in pieces of 64 KiB: memory does not grow with its length (issue 30,
/// F6: a 16 MB game took 340 MB as a tree and a text); other games go through the move tree.
///
/// The outer error is `out` failing; the inner one a game that cannot be read (nothing is
/// written then).
pub fn write_game_to<W: Write>(
    db: &Database,
    number: u32,
    opts: &PgnOptions,
    out: &mut W,
) -> io::Result<Result<Written, Error>> {
    let header = match game_header(db, number) {
        Ok(h) => h,
        Err(e) => return Ok(Err(e)),
    };
    let plain = match db.plain_game(number, opts.annotations) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    let Some(game) = plain else {
        return match tree_pgn(db, number, &header, opts) {
            Ok((s, written)) => {
                out.write_all(s.as_bytes())?;
                Ok(Ok(written))
            }
            Err(e) => Ok(Err(e)),
        };
    };
    let mut tags = String::with_capacity(1024);
    let outcome = write_tags(&mut tags, &header, game.start(), &[]);
    out.write_all(tags.as_bytes())?;
    let mut text = PlainText::new(opts.line_width, game.start());
    let mut failed = None;
    let truncated = game.moves_with_san(|m| {
        text.push(m);
        if text.text.out.len() >= STREAM_BUFFER && failed.is_none() {
            failed = text.text.drain(out).err();
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    text.text.token(outcome.pgn());
    text.text.drain(out)?;
    out.write_all(b"\n\n")?;
    Ok(Ok(Written {
        truncated,
        annotation_problems: Vec::new(),
    }))
}

/// Exports the records `options` names to `out` as PGN, in record order. `progress` is
/// called with the number of records done.
///
/// Threads (the family's contract, `chess_core::book`): the games are decoded on the
/// caller's rayon pool — `pool.install(|| export(…))` with a pool of the size wanted, rayon's
/// global pool otherwise; in a pool of one thread (or without the `parallel` feature), on the
/// caller's thread alone.
pub fn export<W: Write>(
    db: &Database,
    options: &ExportOptions,
    out: &mut W,
    mut progress: impl FnMut(u64),
) -> io::Result<ExportSummary> {
    let (range, opts, include_deleted) = (
        options.records.clone(),
        &options.pgn,
        options.include_deleted,
    );
    #[cfg(feature = "parallel")]
    let parallel = rayon::current_num_threads() > 1;
    let mut summary = ExportSummary::default();
    let (lo, hi) = (*range.start(), *range.end());
    // Games in flight at once: at most CHUNK records and at most the database's
    // `Limits::bytes_in_flight` of stored games (a game's PGN text is a small multiple of its
    // stored size), whatever the game sizes — records that all point at one large game no
    // longer hold thousands of its copies (issue 20, F5). At least one record per chunk.
    const CHUNK: u32 = 2048;
    let budget = db.limits().bytes_in_flight as u64;
    // Records whose stored game overlaps an earlier record's are reported, not decoded
    // again: records sharing one game cost one decode, not one per record (issue 20, F5;
    // ChessBase stores each game once, so a real database has none).
    let shared = db.shared_games(range.clone());
    let mut start = lo.max(1);
    let mut done = 0u64;
    while start <= hi && start <= db.len() {
        let last = hi.min(db.len());
        let mut end = start;
        let mut bytes = db.game_size(start);
        while end < last && end - start + 1 < CHUNK {
            let next = db.game_size(end + 1);
            if bytes.saturating_add(next) > budget {
                break;
            }
            bytes += next;
            end += 1;
        }
        let one = |n| export_one(db, n, opts, include_deleted, &shared);
        #[cfg(feature = "parallel")]
        let pieces: Vec<Piece> = if parallel {
            (start..=end).into_par_iter().map(one).collect()
        } else {
            (start..=end).map(one).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let pieces: Vec<Piece> = (start..=end).map(one).collect();
        for p in pieces {
            match p {
                Piece::Pgn(s, t, problems) => {
                    out.write_all(s.as_bytes())?;
                    summary.exported += 1;
                    if let Some(t) = t {
                        summary.truncated.push(t);
                    }
                    summary.annotation_problems.extend(problems);
                }
                Piece::Stream(number) => match write_game_to(db, number, opts, out)? {
                    Ok(written) => {
                        summary.exported += 1;
                        summary.truncated.extend(written.truncated);
                        summary
                            .annotation_problems
                            .extend(written.annotation_problems);
                    }
                    Err(e) => summary.skipped.push(e),
                },
                Piece::Text => summary.texts += 1,
                Piece::Deleted => summary.deleted += 1,
                Piece::Skipped(e) => summary.skipped.push(e),
            }
        }
        done += u64::from(end - start + 1);
        progress(done);
        if end == u32::MAX {
            break;
        }
        start = end + 1;
    }
    Ok(summary)
}

/// Game `number` as PGN text.
pub fn game_to_pgn(db: &Database, number: u32, opts: &PgnOptions) -> Result<String, Error> {
    let header = game_header(db, number)?;
    let game = db.game_with(number, opts.annotations)?;
    let mut s = String::new();
    write_game(&mut s, &header, &game, opts);
    Ok(s)
}

/// The header of record `number`, an error when it is not a game.
fn game_header(db: &Database, number: u32) -> Result<GameHeader<'_>, Error> {
    match db.header(number)? {
        Header::Game(h) => Ok(h),
        _ => Err(GameError {
            game: number,
            file: "cbh",
            offset: u64::from(number) * crate::raw::CBH_RECORD_SIZE as u64,
            kind: crate::error::GameErrorKind::Text,
        }
        .into()),
    }
}

#[cfg(test)]
mod san_tests {
    use super::*;

    /// The move number table writes what `format!` writes.
    #[test]
    fn move_number_table_is_format() {
        for (n, &(bytes, len)) in MOVE_NUMBERS.iter().enumerate() {
            assert_eq!(&bytes[..usize::from(len)], format!("{n}.").as_bytes());
        }
        let mut text = Movetext::new(80);
        for n in [7, 99, 999, 1000, 12345] {
            text.move_number(n, n % 2 == 0);
        }
        assert_eq!(text.out, b"7. 99. 999. 1000... 12345.");
    }

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
