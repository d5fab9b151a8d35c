//! The export of a database: records in order, decoded in parallel on the caller's pool with
//! bounded memory; long games written while decoded.

#[allow(clippy::wildcard_imports)]
use super::*;

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
pub(super) enum Piece {
    /// The text, whether the game is marked deleted, its truncation and annotation problems.
    Pgn(String, bool, Option<GameError>, Vec<GameError>),
    /// A game stored in more than [`STREAM_ABOVE`] bytes (its number, whether it is marked
    /// deleted): written when its turn comes, straight to the output ([`write_game_to`]), not
    /// held as text.
    Stream(u32, bool),
    Text,
    Deleted,
    Skipped(Error),
}

pub(super) fn export_one(
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
    let deleted = header.deleted();
    if deleted && !include_deleted {
        return Piece::Deleted;
    }
    if db.game_size(number) > STREAM_ABOVE {
        return Piece::Stream(number, deleted);
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
            return Piece::Pgn(s, deleted, line.truncated, Vec::new());
        }
        Ok(None) => {}
        Err(e) => return Piece::Skipped(e),
    }
    match tree_pgn(db, number, &header, opts) {
        Ok((s, written)) => Piece::Pgn(s, deleted, written.truncated, written.annotation_problems),
        Err(e) => Piece::Skipped(e),
    }
}

/// Game `number` (its header `header`) decoded as a tree and written as PGN text, with what
/// was wrong in it.
pub(super) fn tree_pgn(
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
pub(super) const STREAM_ABOVE: u64 = 1 << 20;

/// Movetext bytes gathered before they are written out, for a game written as it is decoded.
pub(super) const STREAM_BUFFER: usize = 1 << 16;

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
        if text.text.len() >= STREAM_BUFFER && failed.is_none() {
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
    progress: impl FnMut(u64),
) -> io::Result<ExportSummary> {
    export_to(db, options, &mut PgnSink(out), progress)
}

/// Where an export's games go: PGN text ([`export`]) or a table (`export_parquet`).
pub(super) trait GameSink {
    /// Record `number`'s game as PGN text (`deleted`: marked deleted).
    fn pgn(&mut self, number: u32, deleted: bool, text: &str) -> io::Result<()>;
    /// Record `number`'s game, stored in more than [`STREAM_ABOVE`] bytes: written as it is
    /// decoded where the sink can (the outer error is the sink failing).
    fn long_game(
        &mut self,
        db: &Database,
        number: u32,
        deleted: bool,
        opts: &PgnOptions,
    ) -> io::Result<Result<Written, Error>>;
}

/// The PGN text sink of [`export`].
struct PgnSink<'a, W: Write>(&'a mut W);

impl<W: Write> GameSink for PgnSink<'_, W> {
    fn pgn(&mut self, _: u32, _: bool, text: &str) -> io::Result<()> {
        self.0.write_all(text.as_bytes())
    }
    fn long_game(
        &mut self,
        db: &Database,
        number: u32,
        _: bool,
        opts: &PgnOptions,
    ) -> io::Result<Result<Written, Error>> {
        write_game_to(db, number, opts, self.0)
    }
}

/// The export's driver: records in order, decoded in parallel in bounded chunks, each game
/// handed to `sink`.
pub(super) fn export_to(
    db: &Database,
    options: &ExportOptions,
    out: &mut dyn GameSink,
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
        for (number, p) in (start..=end).zip(pieces) {
            match p {
                Piece::Pgn(s, deleted, t, problems) => {
                    out.pgn(number, deleted, &s)?;
                    summary.exported += 1;
                    if let Some(t) = t {
                        summary.truncated.push(t);
                    }
                    summary.annotation_problems.extend(problems);
                }
                Piece::Stream(number, deleted) => match out.long_game(db, number, deleted, opts)? {
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

/// The header of record `number`, an error when it is not a game.
pub(super) fn game_header(db: &Database, number: u32) -> Result<GameHeader<'_>, Error> {
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
