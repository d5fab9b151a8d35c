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
                Err(e) => {
                    self.summary.games_skipped += 1;
                    skipped(format!("{e}; left out"));
                }
            }
        })?;
        if let Some(e) = full {
            return Err(ImportFailure::Full(e));
        }
        self.summary.games_read += stats.games;
        Ok(stats)
    }

    /// [`add_pgn`](Self::add_pgn) for PGN text in memory (a plain file read or mapped): cut
    /// at game boundaries ([`chessfmt_pgn::PgnBytes::pieces`]), the pieces read and their
    /// games encoded on the caller's rayon pool (with the `parallel` feature), the games added
    /// in input order — the same database at every thread count, and the same as
    /// [`add_pgn`](Self::add_pgn) gives on well-formed text. Where a piece cannot be read on
    /// (damaged text), its games before are kept and reading goes on at the next piece
    /// ([`ImportStats::stopped`] says where it first happened). Memory: a few pieces (1 MiB
    /// of text each) per thread at a time, besides the database.
    pub fn add_pgn_bytes(
        &mut self,
        data: &[u8],
        mut skipped: impl FnMut(String),
        mut read: impl FnMut(),
    ) -> Result<ImportStats, ImportFailure> {
        let pieces = chessfmt_pgn::PgnBytes::new(data).pieces();
        let window = 4 * threads();
        let mut total = ImportStats::default();
        for group in pieces.chunks(window) {
            let read_pieces = self.read_pieces(data, group);
            for (stats, games) in read_pieces {
                let before = total.games;
                total.games += stats.games;
                total.failed += stats.failed;
                if total.stopped.is_none() {
                    total.stopped = stats.stopped;
                }
                for game in games {
                    read();
                    match game {
                        Ok((g, encoded)) => {
                            if let Err(e) = self.add_read(&g, encoded, &mut skipped) {
                                return Err(ImportFailure::Full(e));
                            }
                        }
                        Err(mut e) => {
                            e.index += before;
                            self.summary.games_skipped += 1;
                            skipped(format!("{e}; left out"));
                        }
                    }
                }
            }
        }
        self.summary.games_read += total.games;
        Ok(total)
    }

    /// Reads the pieces `ranges` of `data` and encodes their games, in parallel where the
    /// feature is on; in order.
    fn read_pieces(&self, data: &[u8], ranges: &[std::ops::Range<usize>]) -> Vec<PieceRead> {
        let (limits, options, code_page) = (self.limits, self.options, self.writer.code_page());
        let one = |r: &std::ops::Range<usize>| -> PieceRead {
            let mut games = Vec::new();
            let stats = read_games_with(&data[r.clone()], limits, options, |g| {
                games.push(g.map(|g| {
                    let encoded = encode_game(&g.game, code_page);
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
