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
//! use chess_core::pgn::PgnReader;
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
    io::{self, BufRead, BufReader, Read},
    ops::ControlFlow,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Visitor};
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
}

impl SkipReason {
    /// A short stable name of the reason's kind (for counting).
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::InvalidFen { .. } => "invalid FEN",
            SkipReason::IllegalMove { .. } => "illegal move",
            SkipReason::UnsupportedVariant(_) => "unsupported variant",
        }
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

    /// Adds another tally (for per-worker stats).
    pub fn merge(&mut self, other: SkipStats) {
        for (k, n) in other.by_kind {
            *self.by_kind.entry(k).or_default() += n;
        }
        for e in other.examples {
            if self.examples.len() < Self::MAX_EXAMPLES {
                self.examples.push(e);
            }
        }
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

/// A reader wrapper that counts the bytes it hands out.
#[derive(Debug)]
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

struct Collect {
    keep_header: fn(&[u8]) -> bool,
}

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = (Vec<(String, String)>, Vec<SanPlus>, Option<Outcome>);
    type Output = Self::Movetext;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
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
        m.1.push(san_plus);
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, m: &mut Self::Movetext, outcome: Outcome) -> ControlFlow<Self::Output> {
        m.2 = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext
    }
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
    let mut file = BufReader::with_capacity(1 << 16, File::open(path)?);
    let magic = file.fill_buf()?;
    Ok(match Compression::detect(magic) {
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
pub struct PgnReader<R> {
    reader: Reader<Counting<R>>,
    count: Arc<AtomicU64>,
    next_index: u64,
    keep_header: fn(&[u8]) -> bool,
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
    /// A reader over uncompressed PGN text.
    pub fn new(inner: R) -> Self {
        let count = Arc::new(AtomicU64::new(0));
        let reader = Reader::build(Counting {
            inner,
            count: Arc::clone(&count),
        })
        .set_supported_comment_length(1 << 12)
        .finish();
        PgnReader {
            reader,
            count,
            next_index: 0,
            keep_header: |_| true,
        }
    }

    /// Keeps only the headers `keep` accepts (by tag name), saving their allocation when
    /// most are not needed, e.g. [`essential_header`].
    #[must_use]
    pub fn with_header_filter(mut self, keep: fn(&[u8]) -> bool) -> Self {
        self.keep_header = keep;
        self
    }

    fn position(&self) -> u64 {
        self.count.load(Ordering::Relaxed) - self.reader.buffer().len() as u64
    }

    /// Tokenises the next game; `Ok(None)` at the end of the input.
    pub fn next_raw(&mut self) -> io::Result<Option<RawGame>> {
        if !self.reader.has_more()? {
            return Ok(None);
        }
        let offset = self.position();
        let Some((headers, sans, outcome)) = self.reader.read_game(&mut Collect {
            keep_header: self.keep_header,
        })?
        else {
            return Ok(None);
        };
        // Include the whitespace up to the next game in this game's span.
        self.reader.has_more()?;
        let index = self.next_index;
        self.next_index += 1;
        Ok(Some(RawGame {
            index,
            offset,
            length: self.position() - offset,
            headers,
            sans,
            outcome,
        }))
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
        Games {
            reader: self,
            skipped: SkipStats::default(),
        }
    }
}

/// Iterator of legal games; see [`PgnReader::games`].
#[derive(Debug)]
pub struct Games<R> {
    reader: PgnReader<R>,
    skipped: SkipStats,
}

impl<R> Games<R> {
    /// The games skipped so far.
    pub fn skipped(&self) -> &SkipStats {
        &self.skipped
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
                Err(e) => self.skipped.record(e),
            }
        }
    }
}
