//! A new database from PGN inputs: the whole import as `chessfmt cbh import` and the Python
//! package's `import_pgn` run it (games read, added, skipped with a reason, what the database
//! could not keep counted by kind).

use std::io::Read;

use super::{ImportOptions, ImportStats, Loss, Losses, read_games_with};
use crate::{
    Files, Limits, TextEncoding,
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
        let mut full = None;
        let writer = &mut self.writer;
        let summary = &mut self.summary;
        let stats = read_games_with(input, self.limits, self.options, |g| match g {
            Ok(g) => {
                read();
                if full.is_some() {
                    return;
                }
                summary.variations_dropped += u64::from(g.variations_dropped);
                let number = u64::from(writer.len()) + 1;
                let cut = writer.cut_fields(&g.header);
                match writer.add_game(&g.header, &g.game) {
                    Ok(_) => {
                        for (field, bytes) in cut {
                            summary.losses.record(Loss::Cut { field, bytes }, number);
                        }
                        for l in g.losses {
                            summary.losses.record(l, number);
                        }
                    }
                    Err(e @ AddError::Full(_)) => full = Some(e),
                    Err(e) => {
                        summary.games_skipped += 1;
                        skipped(format!("game {}: {e}; left out", writer.len() + 1));
                    }
                }
            }
            Err(e) => {
                read();
                summary.games_skipped += 1;
                skipped(format!("{e}; left out"));
            }
        })?;
        if let Some(e) = full {
            return Err(ImportFailure::Full(e));
        }
        self.summary.games_read += stats.games;
        Ok(stats)
    }

    /// The database's files (for [`crate::writer::write_database`]) and the counts.
    pub fn finish(self) -> (Files, ImportSummary) {
        let mut summary = self.summary;
        summary.games_added = self.writer.len();
        (self.writer.finish(), summary)
    }
}
