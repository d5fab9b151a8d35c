//! The movetext of an exported game: SAN (from the decoder's flags or replayed), move numbers,
//! variations, NAGs and comments with the `[%…]` commands, wrapped into lines.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Text and commands of a comment, from annotations of one kind of placement.
pub(super) fn comment_text(anns: &[Annotation], before: bool) -> String {
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

pub(super) fn nags(anns: &[Annotation]) -> Vec<u8> {
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

/// A move of a line: its number where PGN wants one (before White's moves; before Black's
/// when `need_number`: at the start of a line, after a comment or a variation), then the SAN
/// `san` writes (it plays the move on the cursor), or `--` for a null move.
#[inline(always)]
pub(super) fn numbered_move<C: Cursor>(
    text: &mut Movetext,
    cursor: &mut C,
    need_number: bool,
    mv: Option<shakmaty::Move>,
    san: impl FnOnce(&mut C, shakmaty::Move, &mut Vec<u8>),
) {
    if cursor.side() == Color::White {
        text.move_number(cursor.number(), false);
    } else if need_number {
        text.move_number(cursor.number(), true);
    }
    match mv {
        Some(m) => {
            let start = text.begin_token();
            san(cursor, m, text.buffer());
            text.end_token(start);
        }
        None => {
            text.token("--");
            cursor.null();
        }
    }
}

/// Where the writer is in a line: what it needs to number moves and write their SAN.
pub(super) trait Cursor: Clone {
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
pub(super) struct Counter {
    pub(super) turn: Color,
    pub(super) fullmoves: u32,
}

impl Counter {
    /// Writes the SAN of `m` from its flags and counts the move.
    #[inline(always)]
    pub(super) fn play_san(&mut self, m: shakmaty::Move, flags: u8, t: &mut Vec<u8>) {
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
pub(super) fn square_letters(sq: shakmaty::Square) -> [u8; 2] {
    let i = sq as u8;
    [b'a' + (i & 7), b'1' + (i >> 3)]
}

pub(super) fn square(t: &mut Vec<u8>, sq: shakmaty::Square) {
    t.extend_from_slice(&square_letters(sq));
}

/// SAN's letter of each piece kind, indexed by `Role as usize` (a pawn's is never written;
/// index 0, no kind, is the placeholder stored where a move has no promotion).
pub(super) const ROLE_LETTERS: [u8; 7] = *b"QPNBRQK";

/// SAN of a legal move from its [`san`](crate::moves::san) flags, as shakmaty writes it.
#[inline(always)]
pub(super) fn append_san(t: &mut Vec<u8>, m: shakmaty::Move, flags: u8) {
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

pub(super) struct Writer<'a> {
    pub(super) tree: &'a MoveTree,
    pub(super) text: Movetext,
    pub(super) annotations: bool,
}

impl Writer<'_> {
    /// Writes the line from `node` (at `pos`), starting with `first` instead of the main child
    /// when given (a variation).
    pub(super) fn line<C: Cursor>(
        &mut self,
        mut node: NodeId,
        mut pos: C,
        mut first: Option<NodeId>,
    ) {
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
            numbered_move(
                &mut self.text,
                &mut pos,
                need_number,
                n.mv,
                |pos, m, out| {
                    pos.san(tree, child, m, out);
                },
            );
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

    pub(super) fn line_in_parens<C: Cursor>(&mut self, node: NodeId, pos: C, first: NodeId) {
        // "(" is followed directly by the first move: remove the separator the next token adds.
        let mark = self.text.len();
        self.line(node, pos, Some(first));
        self.text.close_variation(mark);
    }
}

/// The movetext of a game without variations, written as its moves are decoded (no tree):
/// numbers from the game's start, SAN from the decoder's flags.
pub(super) struct PlainText {
    pub(super) text: Movetext,
    pub(super) counter: Counter,
    pub(super) first: bool,
}

impl PlainText {
    pub(super) fn new(width: usize, start: &Start) -> PlainText {
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
    pub(super) fn push(&mut self, (mv, flags): (Option<shakmaty::Move>, u8)) {
        numbered_move(
            &mut self.text,
            &mut self.counter,
            self.first,
            mv,
            |counter, m, out| counter.play_san(m, flags, out),
        );
        self.first = false;
    }
}

/// A sink for [`crate::game::decode_plain`] made from the game's start, writing into `text`
/// (the result token is added by [`write_plain`]).
pub(super) fn plain_sink<'a>(
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
pub(super) fn write_plain(
    out: &mut String,
    header: &GameHeader<'_>,
    line: &PlainLine,
    mut text: Movetext,
) {
    let outcome = write_tags(out, header, &line.start, &[]);
    text.token(outcome.pgn());
    text.finish(out);
    out.push_str("\n\n");
}

/// The movetext of `game` (its opening comment, moves, variations and annotations, then
/// `result`), wrapped at the options' width.
pub(super) fn write_movetext(out: &mut String, game: &Game, result: &str, opts: &PgnOptions) {
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
