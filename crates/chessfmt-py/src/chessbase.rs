//! ChessBase databases: the sequence of games behind `chessfmt.chessbase`, and the export.

use std::path::PathBuf;

use chessbase_db::{
    Database, ExportOptions,
    header::Header,
    pgn::{PgnOptions, export, game_to_pgn},
};
use pyo3::{prelude::*, types::PyDict};
use rayon::prelude::*;

use crate::{errors, inputs};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ChessBaseDb>()?;
    m.add_function(wrap_pyfunction!(chessbase_import, m)?)?;
    Ok(())
}

/// A game of `pgn_batch`: its text, or the error's message and offset; whether it is deleted.
type BatchGame = (Option<String>, Option<String>, Option<u64>, bool);

/// A database (`.cbh` and its files, or a `.cbv`/`.cbz` archive) and the record numbers of
/// its games with their deleted marks (text records left out; deleted games unless asked
/// for), read from the headers once at opening.
#[pyclass(frozen, module = "chessfmt._native")]
pub struct ChessBaseDb {
    db: Database,
    path: PathBuf,
    games: Vec<(u32, bool)>,
    pool: rayon::ThreadPool,
}

fn open(path: &std::path::Path, password: Option<&str>) -> PyResult<Database> {
    if chessbase_db::archive::is_archive(path) {
        let archive =
            chessbase_db::archive::Archive::open(path, password).map_err(errors::to_py)?;
        return archive.database().map_err(errors::to_py);
    }
    Database::open(path).map_err(errors::to_py)
}

fn options(annotations: bool) -> PgnOptions {
    let mut o = PgnOptions::default();
    o.annotations = annotations;
    o
}

#[pymethods]
impl ChessBaseDb {
    #[new]
    #[pyo3(signature = (path, password, include_deleted, threads))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        password: Option<String>,
        include_deleted: bool,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let (db, games) = py.detach(|| -> PyResult<_> {
            let db = open(&path, password.as_deref())?;
            let games = db
                .headers()
                .filter(|h| matches!(h, Header::Game(_)) && (include_deleted || !h.deleted()))
                .map(|h| (h.number(), h.deleted()))
                .collect();
            Ok((db, games))
        })?;
        Ok(ChessBaseDb {
            db,
            path,
            games,
            pool: inputs::pool(threads)?,
        })
    }

    fn __len__(&self) -> usize {
        self.games.len()
    }

    /// The record number (from 1) of game `index`.
    fn record(&self, index: usize) -> Option<u32> {
        self.games.get(index).map(|&(number, _)| number)
    }

    /// The PGN of games `start..stop` (indices), decoded on the reader's threads: each
    /// `(text, None, None, deleted)`, or `(None, message, offset, deleted)` for a game that
    /// cannot be read.
    fn pgn_batch(
        &self,
        py: Python<'_>,
        start: usize,
        stop: usize,
        annotations: bool,
    ) -> Vec<BatchGame> {
        let stop = stop.min(self.games.len());
        let numbers = &self.games[start.min(stop)..stop];
        let opts = options(annotations);
        py.detach(|| {
            self.pool.install(|| {
                numbers
                    .par_iter()
                    .map(|&(n, deleted)| match game_to_pgn(&self.db, n, &opts) {
                        Ok(text) => (Some(text), None, None, deleted),
                        Err(e) => (
                            None,
                            Some(format!("{}: game {n}: {e}", self.path.display())),
                            chess_core::Located::offset(&e),
                            deleted,
                        ),
                    })
                    .collect()
            })
        })
    }

    /// Exports the database as `chessfmt cbh export` does (written atomically).
    #[pyo3(signature = (out, *, annotations, include_deleted, overwrite))]
    fn export_pgn<'py>(
        &self,
        py: Python<'py>,
        out: PathBuf,
        annotations: bool,
        include_deleted: bool,
        overwrite: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut members: Vec<PathBuf> = self.db.files().iter().map(|f| f.path.clone()).collect();
        members.push(self.path.clone());
        inputs::check_output(&out, &members, overwrite)?;
        let summary = py
            .detach(|| {
                let last = self.db.len();
                let options = ExportOptions::default()
                    .records(1..=last.max(1))
                    .pgn(options(annotations))
                    .include_deleted(include_deleted);
                self.pool.install(|| {
                    chessfmt_files::atomic::write_atomically(&out, overwrite, |w| {
                        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
                        let s = export(&self.db, &options, &mut w, |_| {})?;
                        std::io::Write::flush(&mut w)?;
                        Ok(s)
                    })
                })
            })
            .map_err(|e| errors::io(&out, &e))?;
        let d = PyDict::new(py);
        d.set_item("exported", summary.exported)?;
        d.set_item("truncated", summary.truncated.len())?;
        d.set_item("skipped", summary.skipped.len())?;
        d.set_item("texts", summary.texts)?;
        d.set_item("deleted", summary.deleted)?;
        Ok(d)
    }
}

/// `chessfmt.chessbase.import_pgn`: a new database from PGN files, as `chessfmt cbh import`.
#[pyfunction]
#[pyo3(signature = (pgn_paths, out, *, encoding, keep_tags, threads, overwrite))]
#[allow(clippy::too_many_arguments)]
fn chessbase_import<'py>(
    py: Python<'py>,
    pgn_paths: Vec<PathBuf>,
    out: PathBuf,
    encoding: Option<String>,
    keep_tags: bool,
    threads: Option<usize>,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    use chessbase_db::{
        TextEncoding,
        import::{DatabaseImport, ImportFailure},
        writer::{DATABASE_EXTENSIONS, write_database},
    };
    if !out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cbh"))
    {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{}: the output must be a .cbh file (the database's other files go beside it)",
            out.display()
        )));
    }
    let encoding = match encoding.as_deref() {
        None => TextEncoding::Detect,
        Some(label) => TextEncoding::Fixed(
            encoding_rs::Encoding::for_label(label.as_bytes()).ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!("encoding={label:?}: unknown"))
            })?,
        ),
    };
    for ext in DATABASE_EXTENSIONS {
        inputs::check_output(&out.with_extension(ext), &pgn_paths, true)?;
    }
    inputs::check_output(&out, &[], overwrite)?;
    let pool = inputs::pool(threads)?;
    let (summary, skipped) = py.detach(|| -> PyResult<_> {
        let mut import = DatabaseImport::new(encoding, keep_tags);
        let mut skipped = Vec::new();
        for path in &pgn_paths {
            let mut why = |why: String| skipped.push(format!("{}: {why}", path.display()));
            // A plain file is read whole and its games read in parallel pieces; a compressed
            // one is streamed in windows of whole games, read in parallel pieces too.
            let added = match inputs::plain_pgn(path)? {
                Some(data) => pool.install(|| import.add_pgn_bytes(&data, &mut why, || {})),
                None => {
                    let stream =
                        chessfmt_pgn::open_decompressed(path).map_err(|e| errors::io(path, &e))?;
                    pool.install(|| import.add_pgn_stream(stream, &mut why, || {}))
                }
            };
            added.map_err(|e| match e {
                ImportFailure::Read(e) => errors::io(path, &e),
                e => errors::plain(&out, e),
            })?;
        }
        let (files, summary) = import.finish();
        write_database(&out, &files, overwrite).map_err(|e| errors::io(&out, &e))?;
        Ok((summary, skipped))
    })?;
    let d = PyDict::new(py);
    d.set_item("games_read", summary.games_read)?;
    d.set_item("games_added", summary.games_added)?;
    d.set_item("games_skipped", summary.games_skipped)?;
    d.set_item("variations_dropped", summary.variations_dropped)?;
    d.set_item("skipped", skipped)?;
    let losses = PyDict::new(py);
    for (loss, count) in summary.losses.iter() {
        losses.set_item(loss.to_string(), count.count)?;
    }
    d.set_item("losses", losses)?;
    Ok(d)
}
