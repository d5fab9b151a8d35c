//! Data tools over policy-format buffers: statistics, filtering, splitting, interleaving,
//! shuffling, de-duplication and export (PGN, FEN lines, the value format).
//!
//! Tools that select single positions ([`filter`], [`dedup`]) write each kept position as a
//! one-move game: the position as the header (with its game's result), the played move with
//! its score and visit bytes, and the terminator. That keeps the output a valid policy file
//! that every reader, ours and the reference, takes as it is.

use std::{
    collections::{BTreeMap, HashSet},
    io::{self, Write},
    ops::{Range, RangeInclusive},
};

use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, Position, san::SanPlus, zobrist::Zobrist64,
};

use crate::{
    decode::Game,
    error::Error,
    frame::{GameView, frames},
    positions::{BadGame, GameSource, KEPT_ERRORS, Mode, Positions, Sample},
    synth::XorShift,
    value::policy_to_value,
    write::header_of,
};

/// Why a tool stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// Bad data (strict mode), with game index and byte offset.
    #[error(transparent)]
    Data(#[from] Error),
    /// Writing the output failed.
    #[error("write error")]
    Io(#[from] io::Error),
}

/// Counts of a run over the data.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Positions read.
    pub positions: u64,
    /// Games (or positions) written.
    pub written: u64,
    /// Bad games skipped (lenient mode).
    pub skipped: u64,
}

/// Statistics of policy data, from framing alone (no move generation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Games.
    pub games: u64,
    /// Positions (move records).
    pub positions: u64,
    /// Positions with a visit distribution.
    pub positions_with_policy: u64,
    /// Bytes.
    pub bytes: u64,
    /// Games by result byte: `[black wins, draws, white wins]`.
    pub results: [u64; 3],
    /// Games with a result byte outside 0..=2.
    pub bad_results: u64,
    /// Game length in plies → games.
    pub game_lengths: BTreeMap<usize, u64>,
    /// Legal-move count (the n byte of positions with a distribution) → positions.
    pub legal_moves: BTreeMap<u8, u64>,
    /// The framing error that ended the data early (a truncated last game), if any.
    pub truncated: Option<Error>,
}

impl Stats {
    /// Bytes per position (0 without positions).
    pub fn bytes_per_position(&self) -> f64 {
        if self.positions == 0 {
            0.0
        } else {
            self.bytes as f64 / self.positions as f64
        }
    }

    /// Adds another file's statistics.
    pub fn merge(&mut self, other: &Stats) {
        self.games += other.games;
        self.positions += other.positions;
        self.positions_with_policy += other.positions_with_policy;
        self.bytes += other.bytes;
        for (a, b) in self.results.iter_mut().zip(other.results) {
            *a += b;
        }
        self.bad_results += other.bad_results;
        for (&k, &v) in &other.game_lengths {
            *self.game_lengths.entry(k).or_default() += v;
        }
        for (&k, &v) in &other.legal_moves {
            *self.legal_moves.entry(k).or_default() += v;
        }
        if self.truncated.is_none() {
            self.truncated.clone_from(&other.truncated);
        }
    }
}

/// Statistics of a buffer. A truncated last game is recorded in [`Stats::truncated`].
pub fn stats(data: &[u8]) -> Stats {
    let mut s = Stats {
        bytes: data.len() as u64,
        ..Stats::default()
    };
    for view in frames(data) {
        let view = match view {
            Ok(v) => v,
            Err(e) => {
                s.truncated = Some(e);
                break;
            }
        };
        s.games += 1;
        s.positions += view.plies as u64;
        *s.game_lengths.entry(view.plies).or_default() += 1;
        for r in view.records() {
            if !r.visits.is_empty() {
                s.positions_with_policy += 1;
                *s.legal_moves.entry(r.visits.len() as u8).or_default() += 1;
            }
        }
        match s.results.get_mut(usize::from(view.header().result)) {
            Some(slot) => *slot += 1,
            None => s.bad_results += 1,
        }
    }
    s
}

/// Which positions to keep. Every condition that is set must hold.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Filter {
    /// Ply within the game (0 = the first move).
    pub ply: Option<RangeInclusive<usize>>,
    /// Side to move's score in 0..=1.
    pub score: Option<RangeInclusive<f32>>,
    /// The side to move is (`true`) or is not (`false`) in check.
    pub in_check: Option<bool>,
    /// The played move is (`true`) or is not (`false`) a capture.
    pub capture: Option<bool>,
    /// Number of pieces on the board, kings and pawns included.
    pub pieces: Option<RangeInclusive<u32>>,
    /// The position has (`true`) or has not (`false`) a visit distribution.
    pub has_policy: Option<bool>,
}

impl Filter {
    /// True when `s` passes every condition.
    pub fn matches(&self, s: &Sample<'_>) -> bool {
        self.ply.as_ref().is_none_or(|r| r.contains(&s.ply))
            && self.score.as_ref().is_none_or(|r| r.contains(&s.score()))
            && self.in_check.is_none_or(|c| s.position.is_check() == c)
            && self.capture.is_none_or(|c| s.mv.is_capture() == c)
            && self
                .pieces
                .as_ref()
                .is_none_or(|r| r.contains(&(s.position.board().occupied().count() as u32)))
            && self.has_policy.is_none_or(|p| s.has_policy() == p)
    }
}

/// Appends the one-move game of a position (see the module documentation).
pub fn write_position_game(s: &Sample<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(&header_of(s.position, s.white_result).to_bytes());
    out.extend_from_slice(&s.code.0.to_le_bytes());
    out.extend_from_slice(&s.raw_score.to_le_bytes());
    let v = s.visit_bytes();
    out.push(v.len() as u8);
    out.extend_from_slice(v);
    out.extend_from_slice(&[0, 0]);
}

/// Runs `emit` over every position; it appends what to write (if anything) to the buffer
/// and says whether it wrote.
fn each_position(
    data: &[u8],
    mode: Mode,
    out: &mut dyn Write,
    mut emit: impl FnMut(&Sample<'_>, &mut Vec<u8>) -> bool,
) -> Result<Summary, ToolError> {
    let mut it = Positions::from_slice(data, mode);
    let mut sum = Summary::default();
    let mut buf = Vec::with_capacity(1 << 16);
    while let Some(s) = it.next() {
        let s = s?;
        sum.positions += 1;
        if emit(&s, &mut buf) {
            sum.written += 1;
        }
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    sum.skipped = it.skipped();
    sum.games = it.games();
    Ok(sum)
}

/// Writes the positions `keep` accepts as one-move games.
fn select_positions(
    data: &[u8],
    mode: Mode,
    out: &mut dyn Write,
    mut keep: impl FnMut(&Sample<'_>) -> bool,
) -> Result<Summary, ToolError> {
    each_position(data, mode, out, |s, buf| {
        let k = keep(s);
        if k {
            write_position_game(s, buf);
        }
        k
    })
}

/// Writes the positions that pass `filter`, each as a one-move game.
pub fn filter(
    data: &[u8],
    filter: &Filter,
    mode: Mode,
    out: &mut dyn Write,
) -> Result<Summary, ToolError> {
    select_positions(data, mode, out, |s| filter.matches(s))
}

/// Writes the first occurrence of every position (by Zobrist key of the position: board,
/// side to move, castling rights and a capturable en-passant square), each as a one-move
/// game. Memory: one 8-byte key per distinct position.
pub fn dedup(data: &[u8], mode: Mode, out: &mut dyn Write) -> Result<Summary, ToolError> {
    let mut seen = HashSet::new();
    select_positions(data, mode, out, |s| {
        let key: Zobrist64 = s.position.zobrist_hash(EnPassantMode::Legal);
        seen.insert(key.0)
    })
}

/// How to split a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SplitBy {
    /// Into this many parts of about equal size (in bytes, on game boundaries).
    Parts(usize),
    /// Into files of this many games each (the last may have fewer).
    Games(usize),
}

/// The byte ranges of the parts of a split, on game boundaries (framing only). In strict
/// mode a truncated last game is an error; in lenient mode it is left out.
pub fn split_ranges(data: &[u8], by: SplitBy, mode: Mode) -> Result<Vec<Range<usize>>, Error> {
    let mut ends = Vec::new();
    for view in frames(data) {
        match view {
            Ok(v) => ends.push(v.offset as usize + v.bytes.len()),
            Err(e) if mode == Mode::Strict => return Err(e),
            Err(_) => break,
        }
    }
    let mut ranges = Vec::new();
    let mut start = 0;
    match by {
        SplitBy::Games(n) => {
            for chunk in ends.chunks(n.max(1)) {
                let end = *chunk.last().expect("non-empty chunk");
                ranges.push(start..end);
                start = end;
            }
        }
        SplitBy::Parts(parts) => {
            let parts = parts.max(1);
            let total = ends.last().copied().unwrap_or(0);
            let mut next = 1;
            for &end in &ends {
                // Close a part once it reaches its share of the bytes.
                if end * parts >= total * next && next < parts {
                    ranges.push(start..end);
                    start = end;
                    next += 1;
                }
            }
            if start < total || ranges.is_empty() {
                ranges.push(start..total);
            }
        }
    }
    Ok(ranges)
}

/// Interleaves whole games of several inputs into one output: each next game is taken from
/// an input chosen at random with probability proportional to its remaining bytes (seeded,
/// so the same seed gives the same output). Every input game is written exactly once and
/// each input's games keep their order.
pub fn interleave(
    inputs: &[&[u8]],
    seed: u64,
    mode: Mode,
    out: &mut dyn Write,
) -> Result<Summary, ToolError> {
    let mut streams: Vec<(crate::frame::Frames<'_>, u64)> = inputs
        .iter()
        .map(|d| (frames(d), d.len() as u64))
        .filter(|(_, len)| *len > 0)
        .collect();
    let mut remaining: u64 = streams.iter().map(|s| s.1).sum();
    let mut rng = XorShift(seed.max(1));
    let mut sum = Summary::default();
    while remaining > 0 {
        let mut spot = rng.next_u64() % remaining;
        let mut i = 0;
        while spot >= streams[i].1 {
            spot -= streams[i].1;
            i += 1;
        }
        let (frames, left) = &mut streams[i];
        let taken = match frames.next() {
            Some(Ok(view)) => {
                out.write_all(view.bytes)?;
                sum.games += 1;
                sum.positions += view.plies as u64;
                sum.written += 1;
                view.bytes.len() as u64
            }
            Some(Err(e)) if mode == Mode::Strict => return Err(e.into()),
            // A truncated end: drop the rest of this input.
            Some(Err(_)) | None => {
                sum.skipped += u64::from(*left > 0);
                *left
            }
        };
        *left -= taken;
        remaining -= taken;
        if *left == 0 {
            streams.swap_remove(i);
        }
    }
    Ok(sum)
}

/// Writes the games in a random order (seeded; a Fisher–Yates shuffle of the game spans).
pub fn shuffle(
    data: &[u8],
    seed: u64,
    mode: Mode,
    out: &mut dyn Write,
) -> Result<Summary, ToolError> {
    let mut spans = Vec::new();
    let mut sum = Summary::default();
    for view in frames(data) {
        match view {
            Ok(v) => {
                sum.positions += v.plies as u64;
                spans.push(v.offset as usize..v.offset as usize + v.bytes.len());
            }
            Err(e) if mode == Mode::Strict => return Err(e.into()),
            Err(_) => sum.skipped += 1,
        }
    }
    let mut rng = XorShift(seed.max(1));
    for i in (1..spans.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        spans.swap(i, j);
    }
    for r in &spans {
        out.write_all(&data[r.clone()])?;
    }
    sum.games = spans.len() as u64;
    sum.written = sum.games;
    Ok(sum)
}

/// Converts every game to the value format (each game checked as by full decoding first; bad
/// games are errors or skipped by `mode`).
pub fn to_value(data: &[u8], mode: Mode, out: &mut dyn Write) -> Result<Summary, ToolError> {
    let mut sum = Summary::default();
    let mut buf = Vec::with_capacity(1 << 16);
    for_each_view(data, mode, &mut sum, |view| {
        let positions = crate::decode::check_game(view)?;
        policy_to_value(view, &mut buf);
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
        Ok(positions as u64)
    })?;
    out.write_all(&buf)?;
    Ok(sum)
}

/// Hands every framed game to `f`, which returns the positions it read, and every bad game
/// (framing, or a data error from `f`) to `on_bad`; after a bad game strict mode stops,
/// lenient mode resynchronises. A write error from `f` ends the run.
fn each_view(
    data: &[u8],
    mode: Mode,
    f: impl FnMut(&GameView<'_>) -> Result<u64, ToolError>,
    on_bad: impl FnMut(Error),
) -> io::Result<()> {
    each_framed(frames(data), mode, f, on_bad)
}

/// [`each_view`] of the games `it` frames.
fn each_framed(
    mut it: crate::frame::Frames<'_>,
    mode: Mode,
    mut f: impl FnMut(&GameView<'_>) -> Result<u64, ToolError>,
    mut on_bad: impl FnMut(Error),
) -> io::Result<()> {
    while let Some(view) = it.next() {
        let view = match view {
            Ok(v) => v,
            Err(e) => {
                on_bad(e);
                break;
            }
        };
        match f(&view) {
            Ok(_) => {}
            Err(ToolError::Data(e)) => {
                on_bad(e);
                if mode == Mode::Strict {
                    break;
                }
                GameSource::resync(&mut it, BadGame::of(&view));
            }
            Err(ToolError::Io(e)) => return Err(e),
        }
    }
    Ok(())
}

/// [`each_view`] counting into `sum`; a bad game is the error in strict mode and counted in
/// lenient mode.
fn for_each_view(
    data: &[u8],
    mode: Mode,
    sum: &mut Summary,
    mut f: impl FnMut(&GameView<'_>) -> Result<u64, ToolError>,
) -> Result<(), ToolError> {
    let (mut skipped, mut first_error) = (0, None);
    each_view(
        data,
        mode,
        |view| {
            let positions = f(view)?;
            sum.games += 1;
            sum.positions += positions;
            sum.written += 1;
            Ok(positions)
        },
        |e| {
            skipped += 1;
            first_error.get_or_insert(e);
        },
    )?;
    match first_error {
        Some(e) if mode == Mode::Strict => Err(e.into()),
        _ => {
            sum.skipped += skipped;
            Ok(())
        }
    }
}

/// The result of checking every game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validation {
    /// Games that decode.
    pub valid: u64,
    /// Positions in them.
    pub positions: u64,
    /// Bad games (lenient mode goes on after each, resynchronising).
    pub bad: u64,
    /// The first 100 errors.
    pub errors: Vec<Error>,
}

/// Checks every game as fully as [`crate::decode::decode_game`] does (start position, every
/// move legal, every visit count right), without building the games
/// ([`crate::decode::check_game`]). Strict mode stops at the first bad game (its error is the only
/// one); lenient mode skips each bad game and goes on at the next game that decodes.
pub fn validate(data: &[u8], mode: Mode) -> Validation {
    validate_framed(frames(data), mode)
}

/// [`validate`] on the caller's rayon pool (feature `parallel`; the family's threading
/// contract, `chess_core::book`): the data is cut into one part per thread of the pool on game
/// boundaries ([`crate::frame::chunks`], a framing pass) and the parts are checked at once;
/// the result is the one [`validate`] gives (strict mode: the games before the first bad one,
/// and that one's error). Lenient mode, a pool of one thread and builds without the feature
/// run on the caller's thread: after a bad game, lenient mode resynchronises at the next
/// offset where a game decodes, which may lie past a part's end.
pub fn validate_parallel(data: &[u8], mode: Mode) -> Validation {
    #[cfg(feature = "parallel")]
    let threads = rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    let threads = 1;
    if mode == Mode::Lenient || threads <= 1 {
        return validate(data, mode);
    }
    #[cfg(feature = "parallel")]
    let results: Vec<Validation> = {
        use rayon::prelude::*;
        crate::frame::chunks(data, threads)
            .par_iter()
            .map(|part| validate_framed(part.frames(), mode))
            .collect()
    };
    #[cfg(not(feature = "parallel"))]
    let results: Vec<Validation> = Vec::new();
    let mut all = Validation {
        valid: 0,
        positions: 0,
        bad: 0,
        errors: Vec::new(),
    };
    for part in results {
        all.valid += part.valid;
        all.positions += part.positions;
        if part.bad > 0 {
            // Strict: the first bad game ends the run; later parts do not count.
            all.bad = part.bad;
            all.errors = part.errors;
            break;
        }
    }
    all
}

/// [`validate`] of the games `it` frames.
fn validate_framed(it: crate::frame::Frames<'_>, mode: Mode) -> Validation {
    let (mut valid, mut positions) = (0, 0);
    let (mut bad, mut errors) = (0, Vec::new());
    // Writes nothing, so it cannot fail.
    let _ = each_framed(
        it,
        mode,
        |view| {
            let n = crate::decode::check_game(view)? as u64;
            valid += 1;
            positions += n;
            Ok(n)
        },
        |e| {
            bad += 1;
            if errors.len() < KEPT_ERRORS {
                errors.push(e);
            }
        },
    );
    Validation {
        valid,
        positions,
        bad,
        errors,
    }
}

mod pgn;
pub use pgn::{PGN_BUFFERED_GAME, PGN_TOP_MOVES, to_pgn, write_pgn};
#[cfg(feature = "parquet")]
mod parquet;
#[cfg(feature = "parquet")]
pub use parquet::{Compression, PARQUET_ROW_GROUP, to_parquet, to_parquet_with};

/// A position as a text line: `FEN | score | result`, with the side to move's score in 0..=1
/// and the result from White's view (1.0, 0.5, 0.0) — the layout of common text training
/// formats. With `epd`, an EPD line instead: the four position fields, `bm` the played move
/// in SAN, and the score and result as `c0`/`c1` comments.
pub fn position_line(s: &Sample<'_>, epd: bool) -> String {
    let white = f32::from(s.white_result) / 2.0;
    if epd {
        let fen = shakmaty::fen::Epd::from_position(s.position, EnPassantMode::Legal);
        let san = shakmaty::san::San::from_move(s.position, s.mv);
        format!(
            "{fen} bm {san}; c0 \"score {:.4}\"; c1 \"result {white:.1}\";",
            s.score()
        )
    } else {
        let fen = shakmaty::fen::Fen::from_position(s.position, EnPassantMode::Legal);
        format!("{fen} | {:.4} | {white:.1}", s.score())
    }
}

/// Writes every position as a line (see [`position_line`]).
pub fn to_fen(
    data: &[u8],
    epd: bool,
    mode: Mode,
    out: &mut dyn Write,
) -> Result<Summary, ToolError> {
    each_position(data, mode, out, |s, buf| {
        buf.extend_from_slice(position_line(s, epd).as_bytes());
        buf.push(b'\n');
        true
    })
}
