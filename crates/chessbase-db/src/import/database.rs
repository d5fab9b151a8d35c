//! A new database from PGN inputs: the whole import as `chessfmt cbh import` and the Python
//! package's `import_pgn` run it (games read, added, skipped with a reason, what the database
//! could not keep counted by kind).

use std::io::Read;

use super::{ImportError, ImportOptions, ImportStats, ImportedGame, Loss, Losses, read_games_with};
use crate::{
    Files, Limits, TextEncoding,
    encode::{EncodedGame, encode_game},
    writer::{AddError, DatabaseWriter},
};

/// Why an import stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportFailure {
    /// An input could not be read.
    #[error(transparent)]
    Read(#[from] std::io::Error),
    /// The database is full (a file would pass 4 GiB, or a record number 16 million).
    #[error(transparent)]
    Full(AddError),
}

/// The counts of a finished import.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ImportSummary {
    /// Games read from the inputs (added or not).
    pub games_read: u64,
    /// Games added to the database.
    pub games_added: u32,
    /// Games left out (each reported when it happened).
    pub games_skipped: u64,
    /// Variations nested deeper than [`Limits::variation_depth`], left out.
    pub variations_dropped: u64,
    /// What the added games lost or had changed, by kind, with the games (numbers in the new
    /// database).
    pub losses: Losses,
}

/// A piece's read: its counts, and its games in order (read and encoded, or why not).
type PieceRead = (
    ImportStats,
    Vec<
        Result<
            (
                ImportedGame,
                Result<EncodedGame, crate::encode::EncodeProblem>,
            ),
            ImportError,
        >,
    >,
);

/// The threads a piece window is sized for.
fn threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    1
}

/// Runs `a` and `b`, side by side on the rayon pool where the `parallel` feature is on.
fn both<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    (a(), b())
}

/// A reader that fails once with the error it holds, then ends: a damaged stream's error
/// met again where its text ends.
struct Failing(Option<std::io::Error>);

impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

/// What reading a piece needs of the import (a copy, so pieces are read while games are
/// added).
#[derive(Clone, Copy)]
struct PieceReading {
    limits: Limits,
    options: ImportOptions,
    code_page: &'static encoding_rs::Encoding,
}

impl PieceReading {
    /// Reads the pieces `ranges` of `data` and encodes their games, in parallel where the
    /// feature is on; in order.
    fn read(self, data: &[u8], ranges: &[std::ops::Range<usize>]) -> Vec<PieceRead> {
        let one = |r: &std::ops::Range<usize>| -> PieceRead {
            let mut games = Vec::new();
            let stats = read_games_with(&data[r.clone()], self.limits, self.options, |g| {
                games.push(g.map(|g| {
                    let encoded = encode_game(&g.game, self.code_page);
                    (g, encoded)
                }));
            })
            // Reading from memory fails only as pgn-reader stops on damaged text, which
            // `stopped` reports; nothing else can fail.
            .unwrap_or_default();
            (stats, games)
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            ranges.par_iter().map(one).collect()
        }
        #[cfg(not(feature = "parallel"))]
        ranges.iter().map(one).collect()
    }
}

/// An import into a new database, one PGN input after another.
///
/// ```
/// use chessbase_db::{Database, TextEncoding, import::DatabaseImport};
///
/// let pgn = "[White \"Ann\"]\n[Black \"Bob\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
/// let mut import = DatabaseImport::new(TextEncoding::Detect, false);
/// import.add_pgn(pgn.as_bytes(), |skipped| panic!("{skipped}"), || {})?;
/// let (files, summary) = import.finish();
/// assert_eq!(summary.games_added, 1);
/// let db = Database::from_files(files)?;
/// assert_eq!(db.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DatabaseImport {
    writer: DatabaseWriter,
    options: ImportOptions,
    limits: Limits,
    summary: ImportSummary,
}

impl DatabaseImport {
    /// An empty import. `encoding` is the code page of the database's texts (and of input
    /// texts that are not UTF-8; `Detect`: Windows-1252); `keep_tags` keeps the tags the
    /// header has no field for in the game text ([`ImportOptions::keep_tags`]).
    pub fn new(encoding: TextEncoding, keep_tags: bool) -> Self {
        let mut options = ImportOptions {
            keep_tags,
            ..ImportOptions::default()
        };
        let writer = match encoding {
            TextEncoding::Fixed(e) => {
                options.legacy = Some(e);
                DatabaseWriter::with_code_page(e)
            }
            TextEncoding::Detect => DatabaseWriter::new(),
        };
        DatabaseImport {
            writer,
            options,
            limits: Limits::default(),
            summary: ImportSummary::default(),
        }
    }

    /// Games added so far.
    pub fn len(&self) -> u32 {
        self.writer.len()
    }

    /// Whether no game has been added.
    pub fn is_empty(&self) -> bool {
        self.writer.is_empty()
    }

    /// Adds every game of one PGN stream (decompressed already). `skipped` is called with
    /// the reason for each game left out (`game N: …`, N counted in this input), `read` once
    /// per game read. A full database ends the import with [`ImportFailure::Full`].
    pub fn add_pgn<R: Read>(
        &mut self,
        input: R,
        skipped: impl FnMut(String),
        read: impl FnMut(),
    ) -> Result<ImportStats, ImportFailure> {
        let stats = self.add_games(input, 0, skipped, read)?;
        self.summary.games_read += stats.games;
        Ok(stats)
    }

    /// The games of `input` read by one reader and added, numbered after `before` games of
    /// the same input (the games read are counted by the caller).
    fn add_games<R: Read>(
        &mut self,
        input: R,
        before: u64,
        mut skipped: impl FnMut(String),
        mut read: impl FnMut(),
    ) -> Result<ImportStats, ImportFailure> {
        let (limits, options, code_page) = (self.limits, self.options, self.writer.code_page());
        let mut full = None;
        let stats = read_games_with(input, limits, options, |g| {
            read();
            if full.is_some() {
                return;
            }
            match g {
                Ok(g) => {
                    let encoded = encode_game(&g.game, code_page);
                    if let Err(e) = self.add_read(&g, encoded, &mut skipped) {
                        full = Some(e);
                    }
                }
                Err(mut e) => {
                    e.index += before;
                    self.summary.games_skipped += 1;
                    skipped(format!("{e}; left out"));
                }
            }
        })?;
        if let Some(e) = full {
            return Err(ImportFailure::Full(e));
        }
        Ok(stats)
    }

    /// [`add_pgn`](Self::add_pgn) of a stream (a compressed file, standard input) read in
    /// windows of whole games ([`chessfmt_pgn::PgnWindows`], four pieces of 512 KiB a thread):
    /// each window's pieces read and encoded in parallel (with the `parallel` feature) while
    /// the window before is added, as [`add_pgn_pieces`](Self::add_pgn_pieces) does bytes in
    /// memory: the same database as [`add_pgn`](Self::add_pgn) (what one thread runs)
    /// gives, at every thread count, unless a window is cut inside a comment of more than
    /// 64 KiB holding an empty line and `[Event` (as pieces of bytes in memory can be). The
    /// last window of a compressed stream cut short or damaged is read by one reader that
    /// meets the damage where [`add_pgn`](Self::add_pgn) meets it, and so is the rest of
    /// text where no window can be cut (a game of megabytes, no `[Event` lines).
    pub fn add_pgn_stream<R: Read + Send>(
        &mut self,
        input: R,
        skipped: impl FnMut(String),
        read: impl FnMut(),
    ) -> Result<ImportStats, ImportFailure> {
        // One thread gains nothing from windows: one reader reads and adds in one pass (the
        // same database; 8 % faster than windows on one core).
        if threads() <= 1 {
            return self.add_pgn(input, skipped, read);
        }
        self.add_pgn_windows(input, 1 << 19, skipped, read)
    }

    /// [`add_pgn_stream`](Self::add_pgn_stream) in windows of four pieces of `piece` bytes a
    /// thread (tests use small ones).
    #[doc(hidden)]
    pub fn add_pgn_windows<R: Read + Send>(
        &mut self,
        input: R,
        piece: usize,
        mut skipped: impl FnMut(String),
        mut read: impl FnMut(),
    ) -> Result<ImportStats, ImportFailure> {
        let mut windows = chessfmt_pgn::PgnWindows::of_pieces(input, piece, threads());
        let reading = PieceReading {
            limits: self.limits,
            options: self.options,
            code_page: self.writer.code_page(),
        };
        // A window's pieces read, or the bytes one reader reads on from.
        enum Window {
            Pieces(Vec<PieceRead>),
            OnFrom(Vec<u8>),
        }
        let next = |windows: &mut chessfmt_pgn::PgnWindows<R>| -> std::io::Result<Option<Window>> {
            Ok(match windows.next_window()? {
                chessfmt_pgn::NextWindow::End if windows.damage().is_none() => None,
                chessfmt_pgn::NextWindow::End => Some(Window::OnFrom(Vec::new())),
                chessfmt_pgn::NextWindow::Window(w) if !(w.last && windows.damage().is_some()) => {
                    let pieces = chessfmt_pgn::PgnBytes::new(&w.data).pieces();
                    let read = reading.read(&w.data, &pieces);
                    windows.recycle(w.data);
                    Some(Window::Pieces(read))
                }
                chessfmt_pgn::NextWindow::Window(w) | chessfmt_pgn::NextWindow::TooLong(w) => {
                    Some(Window::OnFrom(w.data))
                }
            })
        };
        let mut total = ImportStats::default();
        let mut pending = next(&mut windows)?;
        while let Some(window) = pending.take() {
            match window {
                Window::Pieces(pieces) => {
                    // Window k is added (in order, on this side) while window k + 1 is read.
                    let ((games, messages, full), after) = both(
                        || self.add_window(pieces, &mut total),
                        || next(&mut windows),
                    );
                    for _ in 0..games {
                        read();
                    }
                    messages.into_iter().for_each(&mut skipped);
                    if let Some(e) = full {
                        return Err(ImportFailure::Full(e));
                    }
                    pending = after?;
                }
                Window::OnFrom(bytes) => {
                    // The damage where the stream had it: one reader meets it as `add_pgn`'s.
                    let damage = windows
                        .damage()
                        .map(|e| std::io::Error::new(e.kind(), e.to_string()));
                    let rest = std::io::Cursor::new(bytes).chain(windows.into_rest());
                    let source: Box<dyn Read> = match damage {
                        Some(e) => Box::new(rest.chain(Failing(Some(e)))),
                        None => Box::new(rest),
                    };
                    let more = self.add_games(source, total.games, &mut skipped, &mut read)?;
                    total.games += more.games;
                    total.failed += more.failed;
                    if total.stopped.is_none() {
                        total.stopped = more.stopped;
                    }
                    break;
                }
            }
        }
        self.summary.games_read += total.games;
        Ok(total)
    }

    /// [`add_pgn`](Self::add_pgn) for PGN text in memory (a plain file read or mapped): cut
    /// at game boundaries ([`chessfmt_pgn::PgnBytes::pieces`]), the pieces read and their
    /// games encoded on the caller's rayon pool (with the `parallel` feature) while the games
    /// of the pieces before are added, in input order — the same database at every thread
    /// count, and the same as [`add_pgn`](Self::add_pgn) gives on well-formed text. Where a
    /// piece cannot be read on (damaged text), its games before are kept and reading goes on
    /// at the next piece ([`ImportStats::stopped`] says where it first happened). Memory: two
    /// windows of a few pieces (512 KiB of text each) per thread, besides the database.
    /// `skipped` and `read` are called on the caller's thread, a window at a time.
    pub fn add_pgn_bytes(
        &mut self,
        data: &[u8],
        skipped: impl FnMut(String),
        read: impl FnMut(),
    ) -> Result<ImportStats, ImportFailure> {
        self.add_pgn_pieces(chessfmt_pgn::PgnBytes::new(data), skipped, read)
    }

    /// [`add_pgn_bytes`](Self::add_pgn_bytes) of [`chessfmt_pgn::PgnBytes`], whose release
    /// hook ([`chessfmt_pgn::PgnBytes::with_release`]) is called with each window's bytes once
    /// they are read: a mapped file's pages leave memory as the import goes.
    pub fn add_pgn_pieces(
        &mut self,
        bytes: chessfmt_pgn::PgnBytes<'_>,
        mut skipped: impl FnMut(String),
        mut read: impl FnMut(),
    ) -> Result<ImportStats, ImportFailure> {
        let data = bytes.data();
        let pieces = bytes.pieces();
        let reading = PieceReading {
            limits: self.limits,
            options: self.options,
            code_page: self.writer.code_page(),
        };
        let mut windows = pieces.chunks(4 * threads());
        let read_window = |window: Option<&[std::ops::Range<usize>]>| {
            let window = window?;
            let pieces = reading.read(data, window);
            bytes.release(window[0].start..window[window.len() - 1].end);
            Some(pieces)
        };
        let mut total = ImportStats::default();
        let mut pending = read_window(windows.next());
        while let Some(window) = pending.take() {
            let next = windows.next();
            // Window k is added (in order, on this side) while window k + 1 is read.
            let ((games, messages, full), next) =
                both(|| self.add_window(window, &mut total), || read_window(next));
            for _ in 0..games {
                read();
            }
            messages.into_iter().for_each(&mut skipped);
            if let Some(e) = full {
                return Err(ImportFailure::Full(e));
            }
            pending = next;
        }
        self.summary.games_read += total.games;
        Ok(total)
    }

    /// Adds the games of a window's pieces in order: the games read, the messages of the games
    /// left out, and the error that ended it when the database is full.
    fn add_window(
        &mut self,
        window: Vec<PieceRead>,
        total: &mut ImportStats,
    ) -> (u64, Vec<String>, Option<AddError>) {
        let mut messages = Vec::new();
        let mut games_read = 0;
        for (stats, games) in window {
            let before = total.games;
            total.games += stats.games;
            total.failed += stats.failed;
            if total.stopped.is_none() {
                total.stopped = stats.stopped;
            }
            for game in games {
                games_read += 1;
                match game {
                    Ok((g, encoded)) => {
                        if let Err(e) = self.add_read(&g, encoded, &mut |m| messages.push(m)) {
                            return (games_read, messages, Some(e));
                        }
                    }
                    Err(mut e) => {
                        e.index += before;
                        self.summary.games_skipped += 1;
                        messages.push(format!("{e}; left out"));
                    }
                }
            }
        }
        (games_read, messages, None)
    }

    /// Adds one game read (and encoded) before, recording what it lost; a game that cannot be
    /// encoded is skipped (reported); `Err` only when the database is full.
    fn add_read(
        &mut self,
        g: &ImportedGame,
        encoded: Result<EncodedGame, crate::encode::EncodeProblem>,
        skipped: &mut impl FnMut(String),
    ) -> Result<(), AddError> {
        self.summary.variations_dropped += u64::from(g.variations_dropped);
        let number = u64::from(self.writer.len()) + 1;
        let added = encoded.map_err(AddError::from).and_then(|e| {
            let cut = self.writer.cut_fields(&g.header);
            self.writer.add_encoded(&g.header, &e).map(|_| cut)
        });
        match added {
            Ok(cut) => {
                for (field, bytes) in cut {
                    self.summary
                        .losses
                        .record(Loss::Cut { field, bytes }, number);
                }
                for l in &g.losses {
                    self.summary.losses.record(l.clone(), number);
                }
                Ok(())
            }
            Err(e @ AddError::Full(_)) => Err(e),
            Err(e) => {
                self.summary.games_skipped += 1;
                skipped(format!("game {}: {e}; left out", self.writer.len() + 1));
                Ok(())
            }
        }
    }

    /// The database's files (for [`crate::writer::write_database`]) and the counts.
    pub fn finish(self) -> (Files, ImportSummary) {
        let mut summary = self.summary;
        summary.games_added = self.writer.len();
        (self.writer.finish(), summary)
    }
}
