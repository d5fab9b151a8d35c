//! PGN game input on top of `pgn-reader`.
//!
//! [`PgnReader`] streams games from any [`Read`] (or a path: `.pgn`, `.pgn.gz`, `.pgn.zst`,
//! `.pgn.xz`, recognised by their magic bytes). Reading is split in two steps so that the
//! expensive one can run in parallel:
//!
//! 1. [`PgnReader::next_raw`] tokenises one game into a [`RawGame`] (headers, SAN tokens,
//!    termination marker, byte span): cheap, sequential.
//! 2. [`RawGame::resolve`] plays the moves on the start position (`[FEN]`/`[SetUp]`, Chess960
//!    from `[Variant]`) and yields a [`Game`] with shakmaty [`Move`]s, or a [`GameError`]
//!    saying why the game is unusable. `RawGame` is `Send`: hand batches to rayon workers and
//!    collect in order.
//!
//! [`PgnReader::games`] does both in one iterator that skips bad games and counts them by
//! reason in [`SkipStats`]; only I/O errors end it.
//!
//! ```
//! use chessfmt_pgn::PgnReader;
//! let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n1. e4 Ke7?? 2. Kxe7 *\n";
//! let mut games = PgnReader::new(&pgn[..]).games();
//! let game = games.next().unwrap().unwrap();
//! assert_eq!(game.moves.len(), 7);
//! assert!(games.next().is_none()); // the second game has an illegal move: skipped
//! assert_eq!(games.skipped().total(), 1);
//! ```

use std::{
    collections::BTreeMap,
    fmt,
    fs::File,
    io::{self, BufReader, Read},
    ops::ControlFlow,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicU8, AtomicU64, Ordering},
    },
};

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Visitor};

use chess_core::limits::{LimitExceeded, Limits};
use shakmaty::{CastlingMode, Chess, Color, Move, Position, fen::Fen};

/// Why a FEN was refused by [`position_from_fen`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FenError {
    /// The text is not a FEN.
    #[error("{0}")]
    Syntax(#[from] shakmaty::fen::ParseFenError),
    /// The FEN describes no legal position (shakmaty's reasons).
    #[error("illegal position ({0:?})")]
    Illegal(shakmaty::PositionErrorKinds),
}

/// Parses a FEN (or X-FEN / Shredder-FEN) into a legal position: standard castling first,
/// Chess960 castling when `chess960` is set or the standard reading fails. The error says why
/// the FEN was refused.
pub fn position_from_fen(fen: &str, chess960: bool) -> Result<(CastlingMode, Chess), FenError> {
    let parsed: Fen = fen.trim().parse()?;
    let modes: &[CastlingMode] = if chess960 {
        &[CastlingMode::Chess960]
    } else {
        &[CastlingMode::Standard, CastlingMode::Chess960]
    };
    let mut last = shakmaty::PositionErrorKinds::empty();
    for &mode in modes {
        match parsed.clone().into_position::<Chess>(mode) {
            Ok(pos) => return Ok((mode, pos)),
            Err(e) => last = e.kinds(),
        }
    }
    Err(FenError::Illegal(last))
}

/// The result of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*` or missing.
    Unknown,
}

impl GameResult {
    /// Parses a `[Result]` value or termination marker.
    pub fn parse(s: &str) -> GameResult {
        match s.trim() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" | "½-½" => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }

    /// The winner, `None` for draws and unknown results.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            _ => None,
        }
    }

    fn from_outcome(o: Outcome) -> GameResult {
        match o {
            Outcome::Known(KnownOutcome::Decisive { winner }) => {
                winner.fold_wb(GameResult::WhiteWins, GameResult::BlackWins)
            }
            Outcome::Known(KnownOutcome::Draw) => GameResult::Draw,
            Outcome::Unknown => GameResult::Unknown,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        })
    }
}

/// One tokenised game: nothing validated yet.
#[derive(Debug, Clone)]
pub struct RawGame {
    /// 0-based index of the game in the input.
    pub index: u64,
    /// Byte offset of the game text in the (decompressed) input.
    pub offset: u64,
    /// Byte length of the game text (up to the start of the next game).
    pub length: u64,
    /// Tag pairs in file order (values decoded as UTF-8, invalid bytes replaced).
    pub headers: Vec<(String, String)>,
    /// Main-line moves as written (variations are skipped).
    pub sans: Vec<SanPlus>,
    /// The termination marker, if present.
    pub outcome: Option<Outcome>,
}

/// A game whose moves are legal.
#[derive(Debug, Clone)]
pub struct Game {
    /// 0-based index of the game in the input.
    pub index: u64,
    /// Byte offset of the game text in the (decompressed) input.
    pub offset: u64,
    /// Byte length of the game text.
    pub length: u64,
    /// Tag pairs in file order.
    pub headers: Vec<(String, String)>,
    /// Castling mode of the game (Chess960 from `[Variant]` or from the FEN).
    pub castling_mode: CastlingMode,
    /// The start position.
    pub start: Chess,
    /// Main-line moves, all legal. A null move (`--`, `Z0`) ends them: the positions after it
    /// did not occur in the game.
    pub moves: Vec<Move>,
    /// The ply of a null move that cut the main line short, if any.
    pub null_move_at: Option<usize>,
    /// The `[Result]` tag, or the termination marker when the tag is absent or `*`.
    pub result: GameResult,
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

impl Game {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// Iterates over (position before the move, move), following the main line.
    pub fn positions(&self) -> impl Iterator<Item = (Chess, Move)> + '_ {
        let mut pos = self.start.clone();
        self.moves.iter().map(move |&m| {
            let before = pos.clone();
            pos.play_unchecked(m);
            (before, m)
        })
    }
}

/// Why a game was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkipReason {
    /// The `[FEN]` tag does not parse or is not a legal position.
    #[error("invalid FEN {fen:?}: {error}")]
    InvalidFen {
        /// The tag value.
        fen: String,
        /// Why it was refused.
        error: FenError,
    },
    /// A move is not legal (or does not parse) in its position.
    #[error("illegal move {san} at ply {ply}")]
    IllegalMove {
        /// 0-based ply of the move.
        ply: usize,
        /// The move as written.
        san: String,
    },
    /// A `[Variant]` other than standard chess or Chess960.
    #[error("unsupported variant {0:?}")]
    UnsupportedVariant(String),
    /// The game is larger than one of the reader's [`Limits`] (a tag line, the number or
    /// bytes of its tags, its main line); the reader skipped to the next game.
    #[error("game over a limit: {0}")]
    OverLimit(LimitExceeded),
    /// The input ends inside this game (a cut-off download): the game is incomplete and was
    /// left out. Only the last game of an input can have this problem.
    #[error("the input ends inside this game ({0})")]
    Truncated(&'static str),
    /// The compressed stream is cut short or damaged before this game ended: reading stopped
    /// here, and the game in progress was left out. The offset is in the decompressed text.
    #[error("the compressed stream is cut short or damaged ({0}); reading stopped")]
    DamagedStream(String),
}

impl SkipReason {
    /// A short stable name of the reason's kind (for counting).
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::InvalidFen { .. } => "invalid FEN",
            SkipReason::IllegalMove { .. } => "illegal move",
            SkipReason::UnsupportedVariant(_) => "unsupported variant",
            SkipReason::OverLimit(_) => "over a limit",
            SkipReason::Truncated(_) | SkipReason::DamagedStream(_) => "truncated input",
        }
    }

    /// Whether the input ended early at this game (a truncated last game or a damaged
    /// compressed stream), rather than one game being bad.
    pub fn is_truncation(&self) -> bool {
        matches!(
            self,
            SkipReason::Truncated(_) | SkipReason::DamagedStream(_)
        )
    }
}

/// A game that could not be used, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {} (byte {offset}): {reason}", index + 1)]
pub struct GameError {
    /// 0-based index of the game.
    pub index: u64,
    /// Byte offset of the game text.
    pub offset: u64,
    /// What is wrong.
    pub reason: SkipReason,
}

impl RawGame {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// The `[Result]` tag, or the termination marker when the tag is absent or `*`.
    pub fn result(&self) -> GameResult {
        match self.header("Result").map(GameResult::parse) {
            Some(r) if r != GameResult::Unknown => r,
            _ => self
                .outcome
                .map_or(GameResult::Unknown, GameResult::from_outcome),
        }
    }

    fn error(&self, reason: SkipReason) -> GameError {
        GameError {
            index: self.index,
            offset: self.offset,
            reason,
        }
    }

    /// The castling mode and start position from `[Variant]` and `[FEN]`.
    pub fn start_position(&self) -> Result<(CastlingMode, Chess), GameError> {
        let variant = self.header("Variant").unwrap_or("").to_ascii_lowercase();
        let chess960 = variant.contains("960") || variant.contains("fischer");
        if !(chess960
            || variant.is_empty()
            || variant == "standard"
            || variant == "from position"
            || variant == "normal")
        {
            return Err(self.error(SkipReason::UnsupportedVariant(variant)));
        }
        let Some(fen) = self.header("FEN") else {
            return Ok((CastlingMode::from_chess960(chess960), Chess::default()));
        };
        let invalid = |error: FenError| {
            self.error(SkipReason::InvalidFen {
                fen: fen.to_owned(),
                error,
            })
        };
        position_from_fen(fen, chess960).map_err(invalid)
    }

    /// Plays the main line from the start position, calling `visit(position before the move,
    /// move)` for each of the first `max_plies` moves, without building a [`Game`]. Stops at a
    /// null move (returning its ply) or when `visit` breaks; moves after that are not parsed.
    pub fn replay(
        &self,
        max_plies: usize,
        mut visit: impl FnMut(&Chess, Move) -> ControlFlow<()>,
    ) -> Result<Replay, GameError> {
        let (castling_mode, start) = self.start_position()?;
        let mut pos = start.clone();
        let mut null_move_at = None;
        for (ply, san) in self.sans.iter().enumerate().take(max_plies) {
            if matches!(san.san, shakmaty::san::San::Null) {
                null_move_at = Some(ply);
                break;
            }
            let fast = crate::san_fast::san_to_move_fast(&pos, &san.san);
            let m = match fast.map_or_else(|| san.san.to_move(&pos), Ok) {
                Ok(m) => m,
                // Some tools write UCI moves (g1f3) in the movetext; they parse as SAN of an
                // impossible pawn move.
                Err(_) => shakmaty::uci::UciMove::from_ascii(san.san.to_string().as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                    .ok_or_else(|| {
                        self.error(SkipReason::IllegalMove {
                            ply,
                            san: san.to_string(),
                        })
                    })?,
            };
            if visit(&pos, m).is_break() {
                break;
            }
            pos.play_unchecked(m);
        }
        Ok(Replay {
            castling_mode,
            start,
            null_move_at,
            end: pos,
        })
    }

    /// Plays the moves: a [`Game`] when every move is legal.
    pub fn resolve(&self) -> Result<Game, GameError> {
        let mut moves = Vec::with_capacity(self.sans.len());
        let replay = self.replay(usize::MAX, |_, m| {
            moves.push(m);
            ControlFlow::Continue(())
        })?;
        Ok(Game {
            index: self.index,
            offset: self.offset,
            length: self.length,
            headers: self.headers.clone(),
            castling_mode: replay.castling_mode,
            start: replay.start,
            moves,
            null_move_at: replay.null_move_at,
            result: self.result(),
        })
    }
}

/// What [`RawGame::replay`] found besides the moves.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Castling mode of the game.
    pub castling_mode: CastlingMode,
    /// The start position.
    pub start: Chess,
    /// The ply of a null move that ended the main line, if any.
    pub null_move_at: Option<usize>,
    /// The position where the replay stopped: after the last move played (the start when
    /// none was; a move for which `visit` broke is not played).
    pub end: Chess,
}

/// Counts of skipped games by reason, with the first few errors kept as examples.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkipStats {
    /// Skipped games per reason kind ([`SkipReason::kind`]).
    pub by_kind: BTreeMap<&'static str, u64>,
    /// The first [`SkipStats::MAX_EXAMPLES`] errors.
    pub examples: Vec<GameError>,
}

impl SkipStats {
    /// How many errors are kept in [`SkipStats::examples`].
    pub const MAX_EXAMPLES: usize = 10;

    /// Counts one skipped game.
    pub fn record(&mut self, e: GameError) {
        *self.by_kind.entry(e.reason.kind()).or_default() += 1;
        if self.examples.len() < Self::MAX_EXAMPLES {
            self.examples.push(e);
        }
    }

    /// Adds another tally (for per-worker stats). The examples kept are the first ones in
    /// input order.
    pub fn merge(&mut self, other: SkipStats) {
        for (k, n) in other.by_kind {
            *self.by_kind.entry(k).or_default() += n;
        }
        self.examples.extend(other.examples);
        self.examples.sort_by_key(|e| e.index);
        self.examples.truncate(Self::MAX_EXAMPLES);
    }

    /// Whether the input ended early (a truncated last game or a damaged compressed stream).
    pub fn truncated(&self) -> bool {
        self.by_kind.contains_key("truncated input")
    }

    /// Total number of skipped games.
    pub fn total(&self) -> u64 {
        self.by_kind.values().sum()
    }
}

impl fmt::Display for SkipStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} games skipped", self.total())?;
        for (i, (k, n)) in self.by_kind.iter().enumerate() {
            write!(f, "{}{n} {k}", if i == 0 { ": " } else { ", " })?;
        }
        Ok(())
    }
}

/// What the byte-counting wrapper knows about the input, shared with the reader.
#[derive(Debug, Default)]
struct Tally {
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
    fn damage(&self) -> Option<String> {
        self.damage.lock().map_or(None, |d| d.clone())
    }
}

/// A reader wrapper that counts the bytes it hands out and turns the damage of a compressed
/// stream into the end of the input.
#[derive(Debug)]
struct Counting<R> {
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
fn is_stream_damage(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidInput
    ) || e.to_string().contains("incomplete frame")
}

/// A game [`Collect`] gave up on: over a limit.
type Collected = Result<(Vec<(String, String)>, Vec<SanPlus>, Option<Outcome>), LimitExceeded>;

struct Collect {
    keep_header: fn(&[u8]) -> bool,
    limits: Limits,
    tags: usize,
    tag_bytes: usize,
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

/// Compression of a PGN input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`, lichess dumps).
    Zstd,
    /// xz (`.xz`).
    Xz,
}

impl Compression {
    /// Recognises the compression from the first bytes of a file.
    pub fn detect(magic: &[u8]) -> Compression {
        if magic.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if magic.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

/// Opens a possibly compressed file as a stream of decompressed bytes.
pub fn open_decompressed(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    decompressed(File::open(path)?)
}

/// A possibly compressed stream (standard input, a socket, …) as decompressed bytes: the
/// compression is recognised from the first bytes, as for files.
pub fn decompressed(mut source: impl Read + Send + 'static) -> io::Result<Box<dyn Read + Send>> {
    // The longest magic (xz's 6 bytes) read whole first: a pipe may hand out fewer bytes
    // per read, and one byte of a gzip header must not make the stream "plain text".
    let mut head = [0u8; 6];
    let mut got = 0;
    while got < head.len() {
        match source.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let magic = head[..got].to_vec();
    let file = BufReader::with_capacity(1 << 16, io::Cursor::new(magic).chain(source));
    Ok(match Compression::detect(&head[..got]) {
        Compression::None => Box::new(file),
        #[cfg(feature = "gzip")]
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(file)),
        #[cfg(feature = "zstd")]
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(file)?),
        #[cfg(feature = "xz")]
        Compression::Xz => Box::new(xz2::bufread::XzDecoder::new_multi_decoder(file)),
        #[allow(unreachable_patterns)]
        other => return Err(unsupported(other)),
    })
}

#[allow(dead_code)]
fn unsupported(c: Compression) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{c:?}-compressed input needs chess-core's `{c:?}` feature (not enabled in this build)"
        )
        .to_lowercase(),
    )
}

/// A streaming PGN reader.
///
/// Bulk input keeps going: a game over the reader's [`Limits`] (tag line, tags, tag bytes,
/// main-line plies) is skipped; a last game cut off by the
/// end of the input (inside a tag, a comment or a variation, or in mid-line without a
/// termination marker) is left out; a compressed stream that is cut short or damaged ends the
/// input cleanly after the last complete game. Each of these is recorded with the game's
/// number and byte offset in [`PgnReader::skipped`]; only errors of the underlying file end
/// reading with an error.
pub struct PgnReader<R> {
    reader: Reader<Counting<R>>,
    tally: Arc<Tally>,
    next_index: u64,
    keep_header: fn(&[u8]) -> bool,
    limits: Limits,
    skipped: SkipStats,
    done: bool,
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
    /// A reader over uncompressed PGN text, under the default [`Limits`].
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
        }
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
            let read = self.reader.read_game(&mut Collect {
                keep_header: self.keep_header,
                limits: self.limits,
                tags: 0,
                tag_bytes: 0,
            });
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
                    let limit = LimitExceeded::new(
                        "pgn_tag_line",
                        "tag-line bytes",
                        self.limits.pgn_tag_line,
                    );
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
            if !more
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
/// PGN bytes in memory (an uncompressed file, mapped): [`replay_in_order`] cuts them at game
/// boundaries and tokenises the pieces in parallel, where a stream is tokenised on one
/// thread. The games, their numbers and byte offsets, and the skipped games are the same as
/// [`PgnReader`] gives on the same bytes.
#[derive(Debug, Clone, Copy)]
pub struct PgnBytes<'a> {
    // Read only by the parallel tokeniser.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    data: &'a [u8],
    limits: Limits,
    keep_header: fn(&[u8]) -> bool,
    piece: usize,
}

impl<'a> PgnBytes<'a> {
    /// PGN text in memory, under the default [`Limits`].
    pub fn new(data: &'a [u8]) -> Self {
        PgnBytes {
            data,
            limits: Limits::default(),
            keep_header: |_| true,
            piece: 1 << 20,
        }
    }

    /// Under `limits` (see [`PgnReader::with_limits`]).
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Keeps only the headers `keep` accepts (see [`PgnReader::with_header_filter`]).
    #[must_use]
    pub fn with_header_filter(mut self, keep: fn(&[u8]) -> bool) -> Self {
        self.keep_header = keep;
        self
    }

    /// The size of the pieces tokenised in parallel (1 MiB by default; tests use small ones).
    #[doc(hidden)]
    #[must_use]
    pub fn with_piece_size(mut self, bytes: usize) -> Self {
        self.piece = bytes.max(1);
        self
    }

    /// The pieces: byte ranges cut just before a line `[Event ` that follows an empty line
    /// outside a comment (where one game ends and the next begins), each at least the piece
    /// size long (the last excepted). Text without such lines stays one piece.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) fn pieces(&self) -> Vec<std::ops::Range<usize>> {
        let finder = memchr::memmem::Finder::new(b"\n[Event ");
        let mut out = Vec::new();
        let mut start = 0;
        while start < self.data.len() {
            let mut from = (start + self.piece).min(self.data.len());
            let cut = loop {
                match finder.find(&self.data[from..]) {
                    None => break self.data.len(),
                    Some(i) => {
                        let nl = from + i;
                        // An empty line before ("\n\n" or "\n\r\n"), and not inside a brace
                        // comment: the nearest brace before is not an opening one (a comment
                        // holds no "}"). A "{" in a tag value or a ";" comment only costs a
                        // larger piece; a comment holding an empty line and "[Event" more
                        // than 64 KiB long is caught when its piece reads a cut-off game.
                        let before = &self.data[..nl];
                        let window = &before[before.len().saturating_sub(1 << 16)..];
                        let in_comment =
                            memchr::memrchr2(b'{', b'}', window).is_some_and(|i| window[i] == b'{');
                        if (before.ends_with(b"\n") || before.ends_with(b"\n\r")) && !in_comment {
                            break nl + 1;
                        }
                        from = nl + 1;
                    }
                }
            };
            out.push(start..cut);
            start = cut;
        }
        out
    }

    /// Tokenises one piece: its games and skipped games numbered from 0 at its start, and how
    /// many game numbers it used.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn tokenise(&self, range: std::ops::Range<usize>) -> (Vec<RawGame>, SkipStats, u64) {
        let mut reader = PgnReader::with_limits(&self.data[range], self.limits)
            .with_header_filter(self.keep_header);
        let mut games = Vec::new();
        // In-memory input: the only errors are pgn-reader's own, which end the piece as they
        // end a stream (the games before are kept).
        while let Ok(Some(g)) = reader.next_raw() {
            games.push(g);
        }
        let used = reader.next_index;
        (games, reader.take_skipped(), used)
    }
}

/// The PGN input of [`replay_in_order`]: a stream or bytes in memory.
#[derive(Debug)]
pub enum PgnInput<'a, R> {
    /// A stream (a file, standard input, a decompressor), tokenised on one thread.
    Reader(PgnReader<R>),
    /// Bytes in memory, tokenised in parallel.
    Bytes(PgnBytes<'a>),
}

impl<R> From<PgnReader<R>> for PgnInput<'_, R> {
    fn from(r: PgnReader<R>) -> Self {
        PgnInput::Reader(r)
    }
}

impl<'a> From<PgnBytes<'a>> for PgnInput<'a, &'a [u8]> {
    fn from(b: PgnBytes<'a>) -> Self {
        PgnInput::Bytes(b)
    }
}

impl<'a, R: Read> PgnInput<'a, R> {
    /// Keeps only the headers `keep` accepts, whichever the input.
    #[must_use]
    pub fn with_header_filter(self, keep: fn(&[u8]) -> bool) -> Self {
        match self {
            PgnInput::Reader(r) => PgnInput::Reader(r.with_header_filter(keep)),
            PgnInput::Bytes(b) => PgnInput::Bytes(b.with_header_filter(keep)),
        }
    }
}

/// Reads `input` in batches of `batch` games, maps every game with `map` in parallel on the
/// current rayon pool, and hands each mapped batch to `sink` **in input order** (batch k is
/// sunk on this thread while batch k + 1 is mapped by the pool): the ordered parallel replay
/// that every PGN-driven builder of the family uses. A stream ([`PgnReader`]) is tokenised on
/// a thread of its own; bytes in memory ([`PgnBytes`]) are cut at game boundaries and
/// tokenised in parallel too, with the same games, numbers and offsets.
///
/// `sink` may stop the run early with `ControlFlow::Break` (a builder whose spill failed, for
/// instance). Returns the games the reader itself left out (unreadable, cut off by the end of
/// the input); only an I/O error of the reader ends the call with an error. `progress` is
/// called after every batch with the number of games read so far.
///
/// ```
/// use chessfmt_pgn::{PgnReader, replay_in_order};
/// use std::ops::ControlFlow;
///
/// let pgn = "1. e4 e5 2. Nf3 *\n\n1. d4 d5 *\n\n1. e4 c5 *\n";
/// let mut plies = Vec::new();
/// let skipped = replay_in_order(
///     PgnReader::new(pgn.as_bytes()),
///     2,
///     |raw| raw.resolve().map(|g| g.moves.len()),
///     |batch| {
///         plies.extend(batch.into_iter().map(Result::unwrap));
///         ControlFlow::Continue(())
///     },
///     |_| {},
/// )?;
/// assert_eq!((plies, skipped.total()), (vec![3, 2, 2], 0));
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(feature = "parallel")]
pub fn replay_in_order<'a, R, T>(
    input: impl Into<PgnInput<'a, R>>,
    batch: usize,
    map: impl Fn(&RawGame) -> T + Sync,
    sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    progress: impl FnMut(u64),
) -> io::Result<SkipStats>
where
    R: Read + Send,
    T: Send,
{
    match input.into() {
        PgnInput::Reader(reader) => replay_stream(reader, batch, map, sink, progress),
        PgnInput::Bytes(bytes) => Ok(replay_bytes(bytes, batch, map, sink, progress)),
    }
}

/// [`replay_in_order`] of bytes in memory: pieces cut at game boundaries are tokenised and
/// replayed in parallel, a group of pieces (one per worker) at a time, while the previous
/// group is sunk; the games are renumbered as one input before they are mapped.
#[cfg(feature = "parallel")]
fn replay_bytes<T: Send>(
    bytes: PgnBytes<'_>,
    batch: usize,
    map: impl Fn(&RawGame) -> T + Sync,
    mut sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    mut progress: impl FnMut(u64),
) -> SkipStats {
    use rayon::prelude::*;
    use std::ops::ControlFlow;
    let pieces = bytes.pieces();
    // Four pieces a worker: work stealing evens out pieces of unequal cost.
    let group_size = 4 * rayon::current_num_threads().max(1);
    let mut skipped = SkipStats::default();
    let (mut next_index, mut read) = (0u64, 0u64);
    let mut pending: Option<Vec<T>> = None;
    // A group's games go to the sink in one batch (a group is a few MiB of text a worker):
    // fewer, larger batches let a sink that works in parallel itself fork and join less.
    let _ = batch;
    let mut sink_all = |mapped: Vec<T>| -> ControlFlow<()> {
        if mapped.is_empty() {
            ControlFlow::Continue(())
        } else {
            sink(mapped)
        }
    };
    let mut at = 0;
    while at < pieces.len() {
        let base = next_index;
        let group_end = (at + group_size).min(pieces.len());
        let mut next_piece = group_end;
        let (flow, (mapped, group_skipped, used)) = rayon::join(
            || {
                pending
                    .take()
                    .map_or(ControlFlow::Continue(()), &mut sink_all)
            },
            || {
                let mut tokenised: std::collections::VecDeque<_> = pieces[at..group_end]
                    .par_iter()
                    .map(|r| (r.clone(), bytes.tokenise(r.clone())))
                    .collect();
                let (mut games, mut skipped, mut index) = (Vec::new(), SkipStats::default(), base);
                while let Some((mut range, mut piece)) = tokenised.pop_front() {
                    // A piece whose last game is cut off was cut inside a comment holding an
                    // empty line and "[Event": join the next piece and read both again.
                    while piece.1.truncated() && range.end < bytes.data.len() {
                        let next = match tokenised.pop_front() {
                            Some((r, _)) => r,
                            None => {
                                next_piece += 1;
                                pieces[next_piece - 1].clone()
                            }
                        };
                        range = range.start..next.end;
                        piece = bytes.tokenise(range.clone());
                    }
                    let (g, mut s, used) = piece;
                    let start = range.start as u64;
                    games.extend(g.into_iter().map(|mut g| {
                        g.index += index;
                        g.offset += start;
                        g
                    }));
                    for e in &mut s.examples {
                        e.index += index;
                        e.offset += start;
                    }
                    skipped.merge(s);
                    index += used;
                }
                let mapped: Vec<T> = games.par_iter().map(&map).collect();
                (mapped, skipped, index)
            },
        );
        at = next_piece;
        read += mapped.len() as u64;
        next_index = used;
        skipped.merge(group_skipped);
        progress(read);
        if flow.is_break() {
            return skipped;
        }
        pending = Some(mapped);
    }
    if let Some(p) = pending {
        let _ = sink_all(p);
    }
    skipped
}

/// [`replay_in_order`] of a stream: tokenised on a thread of its own.
#[cfg(feature = "parallel")]
fn replay_stream<R, T>(
    reader: PgnReader<R>,
    batch: usize,
    map: impl Fn(&RawGame) -> T + Sync,
    mut sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    mut progress: impl FnMut(u64),
) -> io::Result<SkipStats>
where
    R: Read + Send,
    T: Send,
{
    use rayon::prelude::*;
    use std::ops::ControlFlow;
    let batch = batch.max(1);
    let mut reader = reader;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<RawGame>>>(8);
        let tokeniser = scope.spawn(move || {
            loop {
                let games = reader.next_batch(batch);
                let done = matches!(&games, Ok(b) if b.len() < batch) || games.is_err();
                if tx.send(games).is_err() || done {
                    break;
                }
            }
            reader.take_skipped()
        });
        let mut read = 0u64;
        let mut pending: Option<Vec<T>> = None;
        let mut stopped = false;
        for games in &rx {
            let games = games?;
            read += games.len() as u64;
            let (flow, mapped) = rayon::join(
                || match pending.take() {
                    Some(p) => sink(p),
                    None => ControlFlow::Continue(()),
                },
                || games.par_iter().map(&map).collect::<Vec<T>>(),
            );
            progress(read);
            if flow.is_break() {
                stopped = true;
                break;
            }
            pending = Some(mapped);
        }
        // Dropping the receiver stops the tokeniser at its next send.
        drop(rx);
        if !stopped && let Some(p) = pending {
            let _ = sink(p);
        }
        Ok(tokeniser.join().unwrap_or_default())
    })
}
