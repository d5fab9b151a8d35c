//! Self-play games as PGN: the tags, the moves with their scores and the top of each visit
//! distribution as comments, a long game written in one pass without holding its text.

#[allow(clippy::wildcard_imports)]
use super::*;
use chess_core::movetext::Movetext;

/// How many of the most visited moves a PGN comment lists.
pub const PGN_TOP_MOVES: usize = 3;

/// Games of at most this many stored bytes are written as PGN from one decoding pass into a
/// buffer (dropped when the game turns out bad); a larger game is checked in a first pass and
/// then streamed, so a game's text is never held whole (issue 20, F7: one 100 MB game took
/// 1.32 GB). Either way a bad game writes nothing.
pub const PGN_BUFFERED_GAME: usize = 1 << 20;

/// The PGN result token of a header's result byte (White's view).
pub(super) fn pgn_result(result: u8) -> &'static str {
    match result {
        0 => "0-1",
        1 => "1/2-1/2",
        2 => "1-0",
        _ => "*",
    }
}

/// The tag section of a game written as PGN, with the empty line after it.
pub(super) fn pgn_tags(
    out: &mut String,
    index: u64,
    result: u8,
    castling_mode: CastlingMode,
    start: &Chess,
) {
    use std::fmt::Write as _;
    let result = pgn_result(result);
    let _ = writeln!(out, "[Event \"selfplay\"]");
    let _ = writeln!(out, "[Site \"?\"]");
    let _ = writeln!(out, "[Date \"????.??.??\"]");
    let _ = writeln!(out, "[Round \"{}\"]", index + 1);
    let _ = writeln!(out, "[White \"?\"]");
    let _ = writeln!(out, "[Black \"?\"]");
    let _ = writeln!(out, "[Result \"{result}\"]");
    if castling_mode == CastlingMode::Chess960 {
        let _ = writeln!(out, "[Variant \"Chess960\"]");
    }
    if *start != Chess::default() {
        let fen = shakmaty::fen::Fen::from_position(start, EnPassantMode::Legal);
        let _ = writeln!(out, "[SetUp \"1\"]");
        let _ = writeln!(out, "[FEN \"{fen}\"]");
    }
    out.push('\n');
}

/// The [`PGN_TOP_MOVES`] most visited of `visits`, most visited first, ties in the given
/// order (that of a stable sort), without allocating.
pub(super) fn top_visits<T: Copy>(
    visits: impl Iterator<Item = (T, u8)>,
) -> ([Option<(T, u8)>; PGN_TOP_MOVES], usize) {
    let mut top = [None; PGN_TOP_MOVES];
    let mut len = 0;
    for (m, v) in visits {
        // The first slot whose entry has fewer visits (equal ones stay ahead).
        let at = top[..len]
            .iter()
            .position(|e| e.is_some_and(|(_, w)| w < v))
            .unwrap_or(len);
        if at < PGN_TOP_MOVES {
            top.copy_within(at..PGN_TOP_MOVES - 1, at + 1);
            top[at] = Some((m, v));
            len = (len + 1).min(PGN_TOP_MOVES);
        }
    }
    (top, len)
}

/// Lines of the movetext are at most this long (a move and its comment are one token, never
/// broken; a longer one has a line of its own).
const PGN_WIDTH: usize = 79;

/// Movetext being written ([`chess_core::movetext::Movetext`], the family's PGN writer).
struct Text {
    text: Movetext,
    /// No move written yet (a game starting with Black numbers its first move `N...`).
    first: bool,
}

impl Text {
    fn new() -> Self {
        Text {
            text: Movetext::new(PGN_WIDTH),
            first: true,
        }
    }

    /// Writes one move with its comment, as one token: the number where PGN wants one, the
    /// SAN, the mover's score and the most visited moves (`top`, already chosen) with their
    /// visit bytes.
    fn push_move(
        &mut self,
        pos: &Chess,
        mv: shakmaty::Move,
        score: u16,
        top: Option<&[Option<(shakmaty::Move, u8)>]>,
    ) {
        use std::io::Write as _;
        let number = pos.fullmoves().get();
        let start = self.text.begin_token();
        let token = self.text.buffer();
        if pos.turn() == Color::White || self.first {
            chess_core::movetext::push_move_number(token, number);
            if pos.turn() == Color::Black {
                token.extend_from_slice(b"..");
            }
            token.push(b' ');
        }
        self.first = false;
        let score = f32::from(score) / f32::from(u16::MAX);
        let san = SanPlus::from_move(pos.clone(), mv);
        let _ = write!(token, "{san} {{score {score:.3}");
        if let Some(top) = top {
            token.extend_from_slice(b", top");
            for &(m, visits) in top.iter().flatten() {
                let s = shakmaty::san::San::from_move(pos, m);
                let _ = write!(token, " {s} {visits}");
            }
        }
        token.push(b'}');
        self.text.end_token(start);
    }

    /// Writes the result token and ends the game.
    fn finish(mut self, out: &mut String, result: u8) {
        self.text.token(pgn_result(result));
        self.text.finish(out);
        out.push_str("\n\n");
    }
}

/// Appends a game as PGN: the seven-tag roster (Event "selfplay", Round = game number from
/// 1), `SetUp`/`FEN` when it does not start from the standard position, `Variant
/// "Chess960"` for Chess960 castling; after each move a comment with the side to move's score
/// and the most visited moves with their visit bytes.
pub fn write_pgn(game: &Game, index: u64, out: &mut String) {
    pgn_tags(
        out,
        index,
        game.header.result,
        game.castling_mode,
        &game.start,
    );
    let mut pos = game.start.clone();
    let mut text = Text::new();
    for m in &game.moves {
        let top = m.visits.as_ref().map(|v| top_visits(v.iter().copied()).0);
        text.push_move(&pos, m.mv, m.score, top.as_ref().map(|t| &t[..]));
        pos.play_unchecked(m.mv);
    }
    text.finish(out, game.header.result);
}

/// Writes one framed game as PGN (see [`write_pgn`]) straight from its records: no `Game` is
/// built, and the text goes to `out` every 64 KiB when `stream` (the game must then have been
/// checked: an error would leave part of it written), else it is kept in `buf` for the
/// caller.
pub(super) fn write_pgn_view(
    view: &GameView<'_>,
    buf: &mut String,
    mut stream: Option<&mut dyn Write>,
) -> Result<(), ToolError> {
    let (header, start, castling_mode) = crate::decode::game_start(view)?;
    pgn_tags(buf, view.index, header.result, castling_mode, &start);
    let mut text = Text::new();
    crate::decode::replay(
        view,
        &start,
        |pos, mv, rec, legal| -> Result<(), ToolError> {
            let top = (!rec.visits.is_empty()).then(|| {
                let (codes, _) = top_visits(legal.iter().copied().zip(rec.visits.iter().copied()));
                codes.map(|e| {
                    e.map(|(c, v)| {
                        (
                            crate::movegen::code_to_move(pos, crate::raw::MoveCode(c)),
                            v,
                        )
                    })
                })
            });
            text.push_move(pos, mv, rec.score, top.as_ref().map(|t| &t[..]));
            if let Some(out) = stream.as_deref_mut().filter(|_| text.text.len() >= 1 << 16) {
                out.write_all(buf.as_bytes())?;
                buf.clear();
                text.text.drain(out)?;
            }
            Ok(())
        },
    )?;
    text.finish(buf, header.result);
    Ok(())
}

/// Writes every game as PGN (see [`write_pgn`]), without decoding a game into memory: a
/// game's text is buffered up to [`PGN_BUFFERED_GAME`] stored bytes and streamed past it.
pub fn to_pgn(data: &[u8], mode: Mode, out: &mut dyn Write) -> Result<Summary, ToolError> {
    let mut sum = Summary::default();
    let mut text = String::new();
    for_each_view(data, mode, &mut sum, |view| {
        text.clear();
        if view.bytes.len() > PGN_BUFFERED_GAME {
            // Checked first, then streamed: a bad game still writes nothing.
            crate::decode::check_game(view)?;
            write_pgn_view(view, &mut text, Some(&mut *out))?;
        } else {
            write_pgn_view(view, &mut text, None)?;
        }
        out.write_all(text.as_bytes())?;
        Ok(view.plies as u64)
    })?;
    Ok(sum)
}
