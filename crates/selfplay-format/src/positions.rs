//! Tier 4: training positions — each position with its played move, the side to move's score
//! and game result, and the visit distribution when there is one. Buffers are reused from game
//! to game: no allocation per position.
//!
//! [`Mode::Strict`] decodes ply by ply as positions are yielded (no copies at all); an
//! inconsistency is an error that ends the reading, after the bad game's earlier positions.
//! [`Mode::Lenient`] decodes and checks each game whole before yielding its first position
//! (into buffers reused from game to game), so a bad game is skipped entirely, never
//! half-used.

use std::io::Read;

use shakmaty::{Chess, Move, Position};

use crate::{
    decode::{check_record, start_position, stm_result},
    error::{Error, ErrorKind},
    frame::{GameView, frame_game, frames, read_record},
    movegen::{CodeList, CodeMoves},
    raw::{GAME_HEADER_LEN, Header, MoveCode},
};

/// What to do with a game that is inconsistent (bad header, illegal move, wrong visit count,
/// truncated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Mode {
    /// Report the error and stop.
    #[default]
    Strict,
    /// Skip the game, count it, and go on at the next game that decodes.
    Lenient,
}

/// A source of framed games: [`frames`] over a buffer, or [`StreamFrames`] over a reader.
pub trait GameSource {
    /// The next game, or the error that ends the framing.
    fn next_game(&mut self) -> Option<Result<GameView<'_>, Error>>;

    /// In lenient mode, after a game failed to decode: move to the next place a game can
    /// start. `bad` is the failed game's index, byte offset and framed length. The default
    /// goes on after the bad game's framed end.
    fn resync(&mut self, _bad: BadGame) {}
}

impl<'a> GameSource for crate::frame::Frames<'a> {
    fn next_game(&mut self) -> Option<Result<GameView<'_>, Error>> {
        self.next()
    }

    fn resync(&mut self, bad: BadGame) {
        // The next game starts at the bad game's framed end, unless the damage is in the
        // framing itself (garbage between games, a damaged n byte): then the framed end may
        // lie inside or beyond the next game. So take the first offset after the bad game's
        // start where a whole game decodes; the framed end is one such offset when the
        // damage was elsewhere.
        let data = self.data();
        let start = bad.offset.saturating_sub(self.base()) as usize;
        let end = start.saturating_add(bad.len).min(data.len());
        let from = start + 1;
        let last = data.len().saturating_sub(GAME_HEADER_LEN + 2);
        for p in from..=last {
            if (p == end || plausible_header(&data[p..])) && decodes_at(data, p) {
                self.seek(p, bad.index + 1);
                return;
            }
        }
        self.seek(data.len(), bad.index + 1);
    }
}

/// Where a game that failed to decode lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadGame {
    /// Its index.
    pub index: u64,
    /// Its byte offset.
    pub offset: u64,
    /// Its framed length in bytes.
    pub len: usize,
}

impl BadGame {
    /// The coordinates of a framed game.
    pub fn of(view: &GameView<'_>) -> BadGame {
        BadGame {
            index: view.index,
            offset: view.offset,
            len: view.bytes.len(),
        }
    }
}

/// A cheap filter for "a game header could start here": consistent bitboards, one king each,
/// no pawns on the first or last rank, side to move, result and rook files in range.
pub fn plausible_header(b: &[u8]) -> bool {
    let Some(h) = b.get(..GAME_HEADER_LEN) else {
        return false;
    };
    let h = Header::from_bytes(h.try_into().expect("43 bytes"));
    let [black, a, b2, c] = h.bitboards;
    let occ = a | b2 | c;
    let ([pawns, _, _, _, _, kings], _) = h.unpack();
    black & !occ == 0
        && h.stm <= 1
        && h.result <= 2
        && h.rook_files.iter().all(|&f| f <= 7)
        && (kings & black).count_ones() == 1
        && (kings & !black).count_ones() == 1
        && pawns & 0xff00_0000_0000_00ff == 0
}

fn decodes_at(data: &[u8], at: usize) -> bool {
    let rest = &data[at..];
    let Ok((len, plies)) = frame_game(rest) else {
        return false;
    };
    let view = GameView {
        index: 0,
        offset: at as u64,
        bytes: &rest[..len],
        plies,
    };
    GameBuf::default().decode(&view).is_ok()
}

/// Framing over an `io::Read` stream (one game buffered at a time).
#[derive(Debug)]
pub struct StreamFrames<R> {
    reader: std::io::BufReader<R>,
    buf: Vec<u8>,
    offset: u64,
    index: u64,
    done: bool,
}

impl<R: Read> StreamFrames<R> {
    /// Frames the games of `reader`.
    pub fn new(reader: R) -> Self {
        StreamFrames {
            reader: std::io::BufReader::with_capacity(1 << 16, reader),
            buf: Vec::with_capacity(4096),
            offset: 0,
            index: 0,
            done: false,
        }
    }

    /// Reads exactly `n` more bytes into the buffer; Ok(false) at a clean end of data before
    /// any byte.
    fn fill(&mut self, n: usize, expected: &'static str) -> Result<bool, Error> {
        let start = self.buf.len();
        self.buf.resize(start + n, 0);
        let mut got = 0;
        while got < n {
            match self.reader.read(&mut self.buf[start + got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(Error::new(
                        self.index + 1,
                        self.offset + (start + got) as u64,
                        ErrorKind::Io(e.kind()),
                    ));
                }
            }
        }
        if got == n {
            return Ok(true);
        }
        if got == 0 && start == 0 {
            return Ok(false);
        }
        Err(Error::new(
            self.index + 1,
            self.offset + (start + got) as u64,
            ErrorKind::Truncated { expected },
        ))
    }

    fn read_game(&mut self) -> Result<Option<usize>, Error> {
        self.buf.clear();
        if !self.fill(GAME_HEADER_LEN, "a 43-byte game header")? {
            return Ok(None);
        }
        let mut plies = 0;
        loop {
            self.fill(2, "a move code or the zero terminator")?;
            let l = self.buf.len();
            if self.buf[l - 2..] == [0, 0] {
                return Ok(Some(plies));
            }
            self.fill(3, "a score and the visit count byte")?;
            let n = usize::from(self.buf[self.buf.len() - 1]);
            self.fill(n, "the visit bytes")?;
            plies += 1;
        }
    }
}

impl<R: Read> GameSource for StreamFrames<R> {
    fn next_game(&mut self) -> Option<Result<GameView<'_>, Error>> {
        if self.done {
            return None;
        }
        match self.read_game() {
            Ok(None) => {
                self.done = true;
                None
            }
            Ok(Some(plies)) => {
                let view = GameView {
                    index: self.index,
                    offset: self.offset,
                    bytes: &self.buf,
                    plies,
                };
                self.index += 1;
                self.offset += self.buf.len() as u64;
                Some(Ok(view))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// One game decoded into reusable buffers.
#[derive(Debug, Default)]
pub(crate) struct GameBuf {
    pub(crate) header: Option<Header>,
    pub(crate) index: u64,
    /// The position before each ply (a copy costs less than replaying the move).
    pub(crate) positions: Vec<Chess>,
    pub(crate) moves: Vec<Move>,
    pub(crate) codes: Vec<u16>,
    pub(crate) scores: Vec<u16>,
    /// Per ply: start in `legal`/`visits` and count (0 = no distribution).
    pub(crate) policy: Vec<(u32, u16)>,
    pub(crate) legal: Vec<u16>,
    pub(crate) visits: Vec<u8>,
    list: CodeList,
}

impl GameBuf {
    pub(crate) fn decode(&mut self, view: &GameView<'_>) -> Result<(), Error> {
        self.moves.clear();
        self.codes.clear();
        self.scores.clear();
        self.positions.clear();
        self.policy.clear();
        self.legal.clear();
        self.visits.clear();
        self.index = view.index;
        let err =
            |offset: usize, kind| Error::new(view.index + 1, view.offset + offset as u64, kind);
        let header = view.header();
        self.header = Some(header);
        let (mut pos, _) = start_position(&header).map_err(|k| err(0, k))?;
        for rec in view.records() {
            let n = rec.visits.len();
            let mv = check_record(&pos, &mut self.list, rec.code, n)
                .map_err(|(at, kind)| err(rec.offset + at, kind))?;
            self.policy.push((self.legal.len() as u32, n as u16));
            if n != 0 {
                self.legal.extend_from_slice(self.list.as_slice());
                self.visits.extend_from_slice(rec.visits);
            }
            self.codes.push(rec.code.0);
            self.scores.push(rec.score);
            self.moves.push(mv);
            self.positions.push(pos.clone());
            pos.play_unchecked(mv);
        }
        Ok(())
    }

    pub(crate) fn plies(&self) -> usize {
        self.moves.len()
    }

    pub(crate) fn sample(&self, ply: usize) -> Sample<'_> {
        let header = self.header.expect("decoded");
        let position = &self.positions[ply];
        let (start, len) = self.policy[ply];
        let (start, len) = (start as usize, usize::from(len));
        Sample {
            game: self.index + 1,
            ply,
            position,
            mv: self.moves[ply],
            code: MoveCode(self.codes[ply]),
            raw_score: self.scores[ply],
            white_result: header.result,
            result: stm_result(header.result, position.turn()),
            legal: &self.legal[start..start + len],
            visits: &self.visits[start..start + len],
        }
    }
}

/// One training position.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'p> {
    /// 1-based number of the game in the file (as in errors).
    pub game: u64,
    /// 0-based ply within the game.
    pub ply: usize,
    /// The position (before the move).
    pub position: &'p Chess,
    /// The move played.
    pub mv: Move,
    /// Its code.
    pub code: MoveCode,
    /// The score as stored (0..=65535 for 0..1, side to move's view).
    pub raw_score: u16,
    /// The game result from the side to move's view: 0, 0.5 or 1.
    pub result: f32,
    /// The game result byte as stored (White's view: 0 loss, 1 draw, 2 win).
    pub white_result: u8,
    legal: &'p [u16],
    visits: &'p [u8],
}

impl<'p> Sample<'p> {
    /// The side to move's expected score in 0..=1 (as the reference computes it, in f32).
    pub fn score(&self) -> f32 {
        f32::from(self.raw_score) / f32::from(u16::MAX)
    }

    /// The visit bytes in ascending move-code order (empty when there is none).
    pub fn visit_bytes(&self) -> &'p [u8] {
        self.visits
    }

    /// True when the position has a visit distribution.
    pub fn has_policy(&self) -> bool {
        !self.visits.is_empty()
    }

    /// The visit distribution by move code (ascending), empty when there is none.
    pub fn policy_codes(&self) -> impl ExactSizeIterator<Item = (MoveCode, u8)> + 'p {
        self.legal
            .iter()
            .zip(self.visits)
            .map(|(&c, &v)| (MoveCode(c), v))
    }

    /// The visit distribution as shakmaty moves, empty when there is none.
    pub fn policy(&self) -> impl ExactSizeIterator<Item = (Move, u8)> + 'p {
        let moves = CodeMoves::new(self.position);
        self.policy_codes().map(move |(c, v)| (moves.get(c), v))
    }
}

/// Positions of a policy-format source, game after game (a lending iterator: call
/// [`Positions::next`] in a `while let` loop).
///
/// ```
/// use selfplay_format::positions::{Mode, Positions};
/// # let data = selfplay_format::synth::games(1, 3, 20);
/// let mut it = Positions::from_slice(&data, Mode::Strict);
/// let mut n = 0;
/// while let Some(sample) = it.next() {
///     let s = sample?;
///     assert!((0.0..=1.0).contains(&s.score()));
///     n += 1;
/// }
/// assert!(n > 0);
/// # Ok::<(), selfplay_format::Error>(())
/// ```
#[derive(Debug)]
pub struct Positions<S> {
    source: S,
    mode: Mode,
    game: GameBuf,
    ply: usize,
    have_game: bool,
    games: u64,
    skipped: u64,
    errors: Vec<Error>,
    done: bool,
    stream: Stream,
}

/// Strict mode's state: one game at a time, decoded ply by ply as it is yielded (an error
/// ends the reading anyway, so nothing needs buffering).
#[derive(Debug, Default)]
struct Stream {
    /// The current game's bytes.
    bytes: Vec<u8>,
    header: Option<Header>,
    index: u64,
    offset: u64,
    /// Offset of the next record in `bytes`.
    cursor: usize,
    /// The record last yielded: code, score and the range of its visit bytes in `bytes`.
    record: (MoveCode, u16, std::ops::Range<usize>),
    ply: usize,
    pos: Chess,
    list: CodeList,
    /// The move of the position last yielded, played on the next call.
    pending: Option<Move>,
    in_game: bool,
}

impl<'a> Positions<crate::frame::Frames<'a>> {
    /// Positions of a buffer (e.g. a memory-mapped file).
    pub fn from_slice(data: &'a [u8], mode: Mode) -> Self {
        Positions::new(frames(data), mode)
    }

    /// Positions of one chunk of a buffer (see [`crate::frame::chunks`]), with the whole
    /// buffer's game numbers and offsets: run one per thread.
    pub fn from_chunk(chunk: &crate::frame::Chunk<'a>, mode: Mode) -> Self {
        Positions::new(chunk.frames(), mode)
    }
}

impl<R: Read> Positions<StreamFrames<R>> {
    /// Positions of a stream.
    pub fn from_reader(reader: R, mode: Mode) -> Self {
        Positions::new(StreamFrames::new(reader), mode)
    }
}

/// How many errors lenient readers keep (the count is always exact).
pub(crate) const KEPT_ERRORS: usize = 100;

impl<S: GameSource> Positions<S> {
    /// Positions of any game source.
    pub fn new(source: S, mode: Mode) -> Self {
        Positions {
            source,
            mode,
            game: GameBuf::default(),
            ply: 0,
            have_game: false,
            games: 0,
            skipped: 0,
            errors: Vec::new(),
            done: false,
            stream: Stream::default(),
        }
    }

    /// Games decoded so far (including games without moves).
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Games skipped so far (lenient mode).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The errors of the skipped games (the first 100).
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// Decodes the next good game into the buffer; false at the end.
    fn advance_game(&mut self) -> Result<bool, Error> {
        loop {
            let bad = match self.source.next_game() {
                None => return Ok(false),
                Some(Err(e)) => {
                    if self.mode == Mode::Strict {
                        return Err(e);
                    }
                    self.note(e);
                    return Ok(false);
                }
                Some(Ok(view)) => match self.game.decode(&view) {
                    Ok(()) => {
                        self.games += 1;
                        return Ok(true);
                    }
                    Err(e) if self.mode == Mode::Strict => return Err(e),
                    Err(e) => (e, BadGame::of(&view)),
                },
            };
            self.note(bad.0);
            self.source.resync(bad.1);
        }
    }

    fn note(&mut self, e: Error) {
        self.skipped += 1;
        if self.errors.len() < KEPT_ERRORS {
            self.errors.push(e);
        }
    }

    /// The next position, or the error that stops a strict read.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Result<Sample<'_>, Error>> {
        if self.done {
            return None;
        }
        if self.mode == Mode::Strict {
            return self.next_strict();
        }
        if self.have_game {
            self.ply += 1;
        }
        while !self.have_game || self.ply >= self.game.plies() {
            match self.advance_game() {
                Ok(true) => {
                    self.have_game = true;
                    self.ply = 0;
                }
                Ok(false) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        Some(Ok(self.game.sample(self.ply)))
    }

    fn next_strict(&mut self) -> Option<Result<Sample<'_>, Error>> {
        match self.step_strict() {
            Ok(true) => {
                let st = &self.stream;
                let header = st.header.expect("in a game");
                let (code, score, visits) = st.record.clone();
                let visits = &st.bytes[visits];
                let legal = if visits.is_empty() {
                    &[][..]
                } else {
                    st.list.as_slice()
                };
                Some(Ok(Sample {
                    game: st.index + 1,
                    ply: st.ply,
                    position: &st.pos,
                    mv: st.pending.expect("set by step_strict"),
                    code,
                    raw_score: score,
                    white_result: header.result,
                    result: stm_result(header.result, st.pos.turn()),
                    legal,
                    visits,
                }))
            }
            Ok(false) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    /// Moves to the next position; false at the end.
    fn step_strict(&mut self) -> Result<bool, Error> {
        let st = &mut self.stream;
        if let Some(mv) = st.pending.take() {
            st.pos.play_unchecked(mv);
            st.ply += 1;
        }
        loop {
            if st.in_game {
                let err =
                    |offset: usize, kind| Error::new(st.index + 1, st.offset + offset as u64, kind);
                let rec = read_record(&st.bytes, st.cursor)
                    .map_err(|expected| err(st.bytes.len(), ErrorKind::Truncated { expected }))?;
                let Some(rec) = rec else {
                    st.in_game = false;
                    continue;
                };
                let mv = check_record(&st.pos, &mut st.list, rec.code, rec.visits.len())
                    .map_err(|(at, kind)| err(rec.offset + at, kind))?;
                st.pending = Some(mv);
                st.cursor = rec.end();
                st.record = (rec.code, rec.score, rec.offset + 5..rec.end());
                return Ok(true);
            }
            let view = match self.source.next_game() {
                None => return Ok(false),
                Some(Err(e)) => return Err(e),
                Some(Ok(view)) => view,
            };
            st.bytes.clear();
            st.bytes.extend_from_slice(view.bytes);
            st.index = view.index;
            st.offset = view.offset;
            let header = view.header();
            st.header = Some(header);
            let (pos, _) = start_position(&header)
                .map_err(|kind| Error::new(view.index + 1, view.offset, kind))?;
            st.pos = pos;
            st.cursor = GAME_HEADER_LEN;
            st.ply = 0;
            st.in_game = true;
            self.games += 1;
        }
    }
}
