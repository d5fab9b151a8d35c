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
    Ok(())
}

/// A game of `pgn_batch`: its text, or the error's message and offset; whether it is deleted.
type BatchGame = (Option<String>, Option<String>, Option<u64>, bool);

/// A database (`.cbh` and its files, or a `.cbv`/`.cbz` archive) and the record numbers of
/// its games (text records left out; deleted games unless asked for).
#[pyclass(frozen, module = "chessfmt._native")]
pub struct ChessBaseDb {
    db: Database,
    path: PathBuf,
    games: Vec<u32>,
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
                .map(|h| h.number())
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
        self.games.get(index).copied()
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
                    .map(|&n| {
                        let deleted = self.db.header(n).is_ok_and(|h| h.deleted());
                        match game_to_pgn(&self.db, n, &opts) {
                            Ok(text) => (Some(text), None, None, deleted),
                            Err(e) => (
                                None,
                                Some(format!("{}: game {n}: {e}", self.path.display())),
                                chess_core::Located::offset(&e),
                                deleted,
                            ),
                        }
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
