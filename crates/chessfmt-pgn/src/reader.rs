//! The streaming reader: games tokenised one by one from any `Read` ([`PgnReader`],
//! [`Games`]), bounded by the limits, counting what it leaves out.

use std::{
    fmt,
    io::{self, Read},
    ops::ControlFlow,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicU8, AtomicU64, Ordering},
    },
};

use pgn_reader::{Outcome, RawTag, Reader, SanPlus, Visitor};

use crate::Limits;
use chess_core::limits::LimitExceeded;

use crate::{Game, GameError, RawGame, SkipReason, SkipStats, open_decompressed};

/// What the byte-counting wrapper knows about the input, shared with the reader.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Bytes handed out.
    count: AtomicU64,
    /// The last byte handed out (`\n` tells a game cut at a line break from one cut inside a
    /// line).
    last: AtomicU8,
    /// The decoding error that ended a damaged compressed stream (the wrapper reports the
    /// end of the input instead, so that every game before the damage is read).
    damage: std::sync::Mutex<Option<String>>,
}

impl Tally {
    /// Bytes handed out so far.
    pub(crate) fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The decoding error that ended a damaged compressed stream, if any.
    pub(crate) fn damage(&self) -> Option<String> {
        self.damage.lock().map_or(None, |d| d.clone())
    }
}

/// A reader wrapper that counts the bytes it hands out and turns the damage of a compressed
/// stream into the end of the input.
#[derive(Debug)]
pub(crate) struct Counting<R> {
    inner: R,
    tally: Arc<Tally>,
    damaged: bool,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.damaged {
            return Ok(0);
        }
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) if is_stream_damage(&e) => {
                self.damaged = true;
                if let Ok(mut d) = self.tally.damage.lock() {
                    *d = Some(e.to_string());
                }
                return Ok(0);
            }
            Err(e) => return Err(e),
        };
        self.tally.count.fetch_add(n as u64, Ordering::Relaxed);
        if let Some(&b) = buf[..n].last() {
            self.tally.last.store(b, Ordering::Relaxed);
        }
        Ok(n)
    }
}

/// Errors of a decompressor on a cut or damaged stream (gzip, xz and zstd report these kinds);
/// other kinds are I/O errors of the file itself.
pub(crate) fn is_stream_damage(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidInput
    ) || e.to_string().contains("incomplete frame")
}

/// A tag line over [`Limits::pgn_tag_line`]: whether pgn-reader could not hold it or
/// [`Collect`] refused it.
fn tag_line_over(limits: &Limits) -> LimitExceeded {
    LimitExceeded::new("pgn_tag_line", "tag-line bytes", limits.pgn_tag_line)
}

/// A game [`Collect`] gave up on: over a limit.
type Collected = Result<(Vec<(String, String)>, Vec<SanPlus>, Option<Outcome>), LimitExceeded>;

struct Collect {
    keep_header: fn(&[u8]) -> bool,
    limits: Limits,
    tags: usize,
    tag_bytes: usize,
    /// Main-line moves read at most where the game's result is known from its headers
    /// ([`PgnReader::with_ply_limit`]).
    ply_limit: usize,
    /// Whether the kept headers give the game's result (a `Result` of `1-0`, `0-1` or a
    /// draw): its termination marker is then not needed.
    result_known: bool,
    /// Whether the movetext was left after `ply_limit` moves (skipped, not read).
    stopped: bool,
}

impl Collect {
    fn new(reader: &PgnReader<impl Read>) -> Collect {
        Collect {
            keep_header: reader.keep_header,
            limits: reader.limits,
            tags: 0,
            tag_bytes: 0,
            ply_limit: reader.ply_limit,
            result_known: false,
            stopped: false,
        }
    }
}

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = (Vec<(String, String)>, Vec<SanPlus>, Option<Outcome>);
    type Output = Collected;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.tags = 0;
        self.tag_bytes = 0;
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        // A tag line longer than the limit is over it whether or not pgn-reader's buffer
        // happened to hold it whole (it holds the limit's bytes, and more when the input
        // came in larger reads): the same games however the input arrives. Counted from the
        // "[" to the closing quote, with the space before the value (what pgn-reader always
        // holds whole).
        if name.len() + value.as_bytes().len() + 4 > self.limits.pgn_tag_line {
            return ControlFlow::Break(Err(tag_line_over(&self.limits)));
        }
        self.tags += 1;
        self.tag_bytes += name.len() + value.as_bytes().len();
        if self.tags > self.limits.pgn_tags {
            return ControlFlow::Break(Err(LimitExceeded::new(
                "pgn_tags",
                "tag pairs",
                self.limits.pgn_tags,
            )));
        }
        if self.tag_bytes > self.limits.pgn_tag_bytes {
            return ControlFlow::Break(Err(LimitExceeded::new(
                "pgn_tag_bytes",
                "tag bytes",
                self.limits.pgn_tag_bytes,
            )));
        }
        if !(self.keep_header)(name) {
            return ControlFlow::Continue(());
        }
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            String::from_utf8_lossy(&value.decode()).into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        self.result_known = crate::game::find_header(&tags, "Result")
            .is_some_and(|r| crate::GameResult::parse(r) != crate::GameResult::Unknown);
        ControlFlow::Continue((tags, Vec::new(), None))
    }

    fn san(&mut self, m: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if m.1.len() >= self.limits.pgn_plies {
            return ControlFlow::Break(Err(LimitExceeded::new(
                "pgn_plies",
                "main-line plies",
                self.limits.pgn_plies,
            )));
        }
        m.1.push(san_plus);
        if m.1.len() >= self.ply_limit && self.result_known {
            // pgn-reader skips the rest of the movetext without reading its moves.
            self.stopped = true;
            return ControlFlow::Break(Ok(std::mem::take(m)));
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, m: &mut Self::Movetext, outcome: Outcome) -> ControlFlow<Self::Output> {
        m.2 = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        Ok(movetext)
    }
}

/// Skips the rest of a game whose text could not be tokenised.
struct SkipRest;

impl Visitor for SkipRest {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Break(())
    }

    fn begin_movetext(&mut self, (): ()) -> ControlFlow<(), ()> {
        ControlFlow::Break(())
    }

    fn end_game(&mut self, (): ()) {}
}

/// A streaming PGN reader.
///
/// Bulk input keeps going: a game over the reader's [`Limits`](crate::Limits) (tag
/// line, tags, tag bytes, main-line plies) is skipped; a last game cut off by the end of the input
/// (inside a tag, a comment or a variation, or in mid-line without a termination marker) is left
/// out; a compressed stream that is cut short or damaged ends the input cleanly after the last
/// complete game. Each of these is recorded with the game's number and byte offset in
/// [`PgnReader::skipped`]; only errors of the underlying file end reading with an error.
pub struct PgnReader<R> {
    reader: Reader<Counting<R>>,
    tally: Arc<Tally>,
    pub(crate) next_index: u64,
    keep_header: fn(&[u8]) -> bool,
    limits: Limits,
    skipped: SkipStats,
    done: bool,
    /// [`PgnReader::with_ply_limit`].
    ply_limit: usize,
    /// The last game read was the input's last and its movetext was left after
    /// `ply_limit` moves: whether it was cut off is not known.
    pub(crate) last_read_in_part: bool,
    /// The size of the pieces a replay tokenises in parallel ([`crate::PgnInput::with_piece_size`]).
    pub(crate) piece: usize,
}

/// A [`PgnReader`] that has read nothing yet, taken apart for a replay that reads its stream
/// in windows of whole games ([`PgnReader::into_unread`]).
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) struct Unread<R> {
    /// The stream, its bytes counted and a damaged compressed stream's error kept in `tally`.
    pub(crate) source: Counting<R>,
    pub(crate) tally: Arc<Tally>,
    pub(crate) limits: Limits,
    pub(crate) keep_header: fn(&[u8]) -> bool,
    pub(crate) ply_limit: usize,
    pub(crate) piece: usize,
}

/// The headers a game needs to be replayed and scored: `Result`, `FEN`, `SetUp`, `Variant`.
pub fn essential_header(name: &[u8]) -> bool {
    [&b"Result"[..], b"FEN", b"SetUp", b"Variant"]
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
}

impl<R> fmt::Debug for PgnReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgnReader")
            .field("next_index", &self.next_index)
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

impl PgnReader<Box<dyn Read + Send>> {
    /// Opens a `.pgn`, `.pgn.gz`, `.pgn.zst` or `.pgn.xz` file (compression recognised by
    /// content).
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        Ok(PgnReader::new(open_decompressed(path.as_ref())?))
    }
}

impl<R: Read> PgnReader<R> {
    /// A reader over uncompressed PGN text, under the default
    /// [`Limits`](crate::Limits).
    pub fn new(inner: R) -> Self {
        Self::with_limits(inner, Limits::default())
    }

    /// A reader over uncompressed PGN text under `limits` (its `pgn_*` fields).
    pub fn with_limits(inner: R, limits: Limits) -> Self {
        let tally = Arc::new(Tally::default());
        let reader = Reader::build(Counting {
            inner,
            tally: Arc::clone(&tally),
            damaged: false,
        })
        .set_supported_tag_line_length(limits.pgn_tag_line)
        .set_supported_comment_length(1 << 12)
        .finish();
        PgnReader {
            reader,
            tally,
            next_index: 0,
            keep_header: |_| true,
            limits,
            skipped: SkipStats::default(),
            done: false,
            ply_limit: usize::MAX,
            last_read_in_part: false,
            piece: 1 << 19,
        }
    }

    /// The stream and the reader's settings, when nothing has been read yet; the reader
    /// itself otherwise.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) fn into_unread(self) -> Result<Unread<R>, Box<Self>> {
        if self.next_index != 0 || self.done || self.tally.count() != 0 || self.skipped.total() != 0
        {
            return Err(Box::new(self));
        }
        Ok(Unread {
            tally: self.tally,
            limits: self.limits,
            keep_header: self.keep_header,
            ply_limit: self.ply_limit,
            piece: self.piece,
            source: self.reader.into_inner(),
        })
    }

    /// The limits the reader works under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Keeps only the headers `keep` accepts (by tag name), saving their allocation when
    /// most are not needed, e.g. [`essential_header`].
    #[must_use]
    pub fn with_header_filter(mut self, keep: fn(&[u8]) -> bool) -> Self {
        self.keep_header = keep;
        self
    }

    /// Reads at most the first `plies` main-line moves of each game whose headers give its
    /// result, skipping the rest of its movetext without reading its moves (for a reader of
    /// bytes in memory, [`crate::PgnBytes::with_ply_limit`], which reads the input's last game
    /// whole: whether a game left early was cut off by the end of the input is not known
    /// here, [`PgnReader::last_read_in_part`]).
    #[must_use]
    pub(crate) fn with_ply_limit(mut self, plies: usize) -> Self {
        self.ply_limit = plies;
        self
    }

    /// The games the reader itself skipped so far (unreadable, truncated), with offsets.
    /// [`Games`] adds the games it could not replay.
    pub fn skipped(&self) -> &SkipStats {
        &self.skipped
    }

    /// Takes the tally of skipped games, leaving an empty one (for builders that merge it
    /// with their own).
    pub fn take_skipped(&mut self) -> SkipStats {
        std::mem::take(&mut self.skipped)
    }

    fn position(&self) -> u64 {
        self.tally.count.load(Ordering::Relaxed) - self.reader.buffer().len() as u64
    }

    fn skip(&mut self, index: u64, offset: u64, reason: SkipReason) {
        self.skipped.record(GameError {
            index,
            offset,
            reason,
        });
    }

    /// The end of the input: records the damage of a compressed stream, if any, once.
    fn end(&mut self, index: u64, offset: u64) {
        if !self.done {
            self.done = true;
            if let Some(e) = self.tally.damage() {
                self.skip(index, offset, SkipReason::DamagedStream(e));
            }
        }
    }

    /// A last game cut off by the end of the input: a damaged stream says why.
    fn truncated(&mut self, index: u64, offset: u64, inside: &'static str) {
        if self.tally.damage().is_none() {
            self.skip(index, offset, SkipReason::Truncated(inside));
        }
        self.end(index, offset);
    }

    /// Skips the rest of a game that was over a limit (its other tags and its movetext).
    fn skip_rest(&mut self) -> io::Result<()> {
        // Arms pgn-reader's lazy skip of the game; `has_more` runs it.
        self.reader.read_game(&mut SkipRest)?;
        self.has_more().map(|_| ())
    }

    /// Whether another game follows. pgn-reader skips the rest of a game left early (over a
    /// limit) lazily, here; a further tag line over the limit in that game makes the skip
    /// fail part-way: skipping goes on past it, as long as the reader moves forward, so that
    /// one game with several such lines is one skipped game and never ends the input (found
    /// by the structure-aware fuzz target).
    fn has_more(&mut self) -> io::Result<bool> {
        loop {
            let before = self.position();
            match self.reader.has_more() {
                Err(e) if e.kind() == io::ErrorKind::InvalidData && self.position() != before => {
                    self.reader.read_game(&mut SkipRest)?;
                }
                other => return other,
            }
        }
    }

    /// Tokenises the next game; `Ok(None)` at the end of the input. Games that cannot be
    /// tokenised are skipped and recorded in [`PgnReader::skipped`].
    pub fn next_raw(&mut self) -> io::Result<Option<RawGame>> {
        loop {
            let index = self.next_index;
            if self.done {
                return Ok(None);
            }
            if !self.has_more()? {
                let offset = self.position();
                self.end(index, offset);
                return Ok(None);
            }
            let offset = self.position();
            self.next_index += 1;
            let mut collect = Collect::new(self);
            let read = self.reader.read_game(&mut collect);
            let collected = match read {
                Ok(Some(c)) => c,
                Ok(None) => {
                    self.next_index -= 1;
                    self.end(index, offset);
                    return Ok(None);
                }
                Err(e) if e.kind() != io::ErrorKind::InvalidData => return Err(e),
                Err(e) => {
                    // pgn-reader's parse errors: "unterminated tag" (a tag line longer than
                    // its buffer, or cut by the end of the input) and "unterminated comment"
                    // (only at the end of the input).
                    if !self.has_more()? {
                        let inside = if e.to_string().contains("comment") {
                            "inside a comment"
                        } else {
                            "inside a tag"
                        };
                        self.truncated(index, offset, inside);
                        return Ok(None);
                    }
                    let limit = tag_line_over(&self.limits);
                    self.skip(index, offset, SkipReason::OverLimit(limit));
                    self.skip_rest()?;
                    continue;
                }
            };
            let (headers, sans, outcome) = match collected {
                Ok(c) => c,
                Err(limit) => {
                    self.skip(index, offset, SkipReason::OverLimit(limit));
                    continue;
                }
            };
            // Include the whitespace up to the next game in this game's span.
            let more = self.has_more()?;
            self.last_read_in_part = collect.stopped && !more;
            if !more
                && !collect.stopped
                && outcome.is_none()
                && self.tally.count.load(Ordering::Relaxed) > 0
                && self.tally.last.load(Ordering::Relaxed) != b'\n'
            {
                self.truncated(index, offset, "in mid-line, without a termination marker");
                return Ok(None);
            }
            return Ok(Some(RawGame {
                index,
                offset,
                length: self.position() - offset,
                headers,
                sans,
                outcome,
            }));
        }
    }

    /// An iterator of raw games (stops at the first I/O error, which it yields).
    pub fn raw_games(&mut self) -> impl Iterator<Item = io::Result<RawGame>> + '_ {
        std::iter::from_fn(move || self.next_raw().transpose())
    }

    /// Reads up to `n` raw games (fewer at the end of the input).
    pub fn next_batch(&mut self, n: usize) -> io::Result<Vec<RawGame>> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match self.next_raw()? {
                Some(g) => out.push(g),
                None => break,
            }
        }
        Ok(out)
    }

    /// An iterator of legal games that skips and counts the others.
    pub fn games(self) -> Games<R> {
        Games { reader: self }
    }
}

/// Iterator of legal games; see [`PgnReader::games`].
#[derive(Debug)]
pub struct Games<R> {
    reader: PgnReader<R>,
}

impl<R> Games<R> {
    /// The games skipped so far: those the reader could not tokenise or that were cut off,
    /// and those that could not be replayed.
    pub fn skipped(&self) -> &SkipStats {
        &self.reader.skipped
    }
}

impl<R: Read> Iterator for Games<R> {
    type Item = io::Result<Game>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let raw = match self.reader.next_raw() {
                Ok(Some(raw)) => raw,
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            };
            match raw.resolve() {
                Ok(g) => return Some(Ok(g)),
                Err(e) => self.reader.skipped.record(e),
            }
        }
    }
}
