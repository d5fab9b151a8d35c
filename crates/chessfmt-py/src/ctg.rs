//! CTG books: the reader behind `chessfmt.ctg`, the builder and the Polyglot conversion.

use std::{path::PathBuf, sync::Arc};

use ctg::{
    Book,
    policy::Policy,
    read::{BookMove, FileBook, Probe},
};
use pyo3::{prelude::*, types::PyDict};
use shakmaty::Chess;

use crate::{
    board, errors, inputs,
    walk::{PositionIter, Probed, Row, Value, probed, spawn_walk},
};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CtgBook>()?;
    m.add_function(wrap_pyfunction!(ctg_build, m)?)?;
    m.add_function(wrap_pyfunction!(ctg_to_polyglot, m)?)?;
    Ok(())
}

/// A CTG book (its `.ctg`, `.cto` and `.ctb`) read into memory.
#[pyclass(frozen, module = "chessfmt._native")]
pub struct CtgBook {
    book: Arc<FileBook>,
    policy: Policy,
}

fn policy(name: &str) -> PyResult<Policy> {
    Policy::from_name(name).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "policy={name:?}: expected one of {:?}",
            Policy::NAMES
        ))
    })
}

/// A move's fields: code, from, to, promotion (python-chess's), weight, games, wins, draws,
/// losses (the mover's), NAG, annotation byte, recommendation, commentary, the two rating
/// pairs (games, average).
fn move_row(m: &BookMove, weight: u64, chess960: bool) -> Row {
    let (from, to, promotion) = board::py_move(m.mv, chess960);
    let r = m.results();
    let c = m.child.unwrap_or_default();
    vec![
        Value::Int(u64::from(m.code)),
        Value::Int(u64::from(from)),
        Value::Int(u64::from(to)),
        Value::Int(u64::from(promotion)),
        Value::Int(weight),
        Value::Int(u64::from(r.games)),
        Value::Int(u64::from(r.wins)),
        Value::Int(u64::from(r.draws)),
        Value::Int(u64::from(r.losses)),
        Value::Int(u64::from(m.nag())),
        Value::Int(u64::from(m.annotation)),
        Value::Text(m.recommendation().name().to_owned()),
        Value::Int(u64::from(m.commentary())),
        Value::Int(u64::from(c.rating1.games)),
        Value::Int(u64::from(c.rating1.average())),
        Value::Int(u64::from(c.rating2.games)),
        Value::Int(u64::from(c.rating2.average())),
    ]
}

/// The position's fields: games, wins, draws, losses (side to move), the rating pairs,
/// recommendation, commentary.
fn position_row(p: &Probe) -> Row {
    let r = p.results();
    let s = &p.stats;
    vec![
        Value::Int(u64::from(r.games)),
        Value::Int(u64::from(r.wins)),
        Value::Int(u64::from(r.draws)),
        Value::Int(u64::from(r.losses)),
        Value::Int(u64::from(s.rating1.games)),
        Value::Int(u64::from(s.rating1.average())),
        Value::Int(u64::from(s.rating2.games)),
        Value::Int(u64::from(s.rating2.average())),
        Value::Text(s.recommendation().name().to_owned()),
        Value::Int(u64::from(s.commentary)),
    ]
}

fn rows(p: &Probe, policy: Policy, chess960: bool) -> Vec<Row> {
    let weights = policy.weights(p);
    p.moves
        .iter()
        .zip(weights)
        .map(|(m, w)| move_row(m, w, chess960))
        .collect()
}

#[pymethods]
impl CtgBook {
    #[new]
    fn new(py: Python<'_>, path: PathBuf, policy_name: &str) -> PyResult<Self> {
        let policy = policy(policy_name)?;
        let book = py
            .detach(|| Book::open(&path))
            .map_err(|e| errors::to_py(e.in_file(&path)))?;
        Ok(CtgBook {
            book: Arc::new(book),
            policy,
        })
    }

    /// (pages, positions, games) of the header.
    fn header(&self) -> (u32, u32, u32) {
        let h = self.book.header();
        (h.pages, h.positions, h.games)
    }

    /// The moves (rows as `move_row`) and the position's row, or `None` when the position is
    /// not in the book.
    fn probe(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Option<Probed>> {
        let Some(conv) = board::standard(board, "CTG")? else {
            return Ok(None);
        };
        let Some(p) = self.book.probe(&conv.pos).map_err(errors::to_py)? else {
            return Ok(None);
        };
        let moves = rows(&p, self.policy, conv.chess960);
        let position = position_row(&p);
        Ok(Some(probed(py, &moves, &position)?))
    }

    /// Every position reachable from the start, breadth first: `make(fen, moves, position)`
    /// for each.
    fn positions(&self, make: Py<PyAny>, max_ply: Option<usize>) -> PositionIter {
        let policy = self.policy;
        spawn_walk(Arc::clone(&self.book), max_ply, make, move |p| {
            (rows(p, policy, false), position_row(p))
        })
    }
}

/// `chessfmt.ctg.build`: a CTG book from PGN files, as `chessfmt ctg build`.
#[pyfunction]
#[pyo3(signature = (pgn_paths, out, *, max_ply, memory_limit_mib, threads, overwrite))]
fn ctg_build<'py>(
    py: Python<'py>,
    pgn_paths: Vec<PathBuf>,
    out: PathBuf,
    max_ply: usize,
    memory_limit_mib: Option<usize>,
    threads: Option<usize>,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    inputs::check_output(&out, &pgn_paths, overwrite)?;
    let pool = inputs::pool(threads)?;
    let limit = memory_limit_mib.map(|mib| {
        ctg::build::MemoryLimit::new(mib.saturating_mul(1 << 20), inputs::scratch_dir(&out))
    });
    let options = ctg::build::BuildOptions::default()
        .with_max_ply(max_ply)
        .with_memory_limit(limit);
    let (stats, written) = py.detach(|| -> PyResult<_> {
        let mut builder = ctg::build::Builder::new(options);
        for path in &pgn_paths {
            inputs::with_pgn(path, |input| {
                pool.install(|| builder.add_pgn(input, |_| {}))
            })?
            .map_err(|e| errors::io(path, &e))?;
        }
        // The counts after the save: positions over 127 moves are counted as it writes.
        // Merged and written on the same pool: `threads` is every worker the build starts.
        let (written, stats) = pool
            .install(|| builder.save(&out, overwrite))
            .map_err(|e| errors::to_py(e.in_file(&out)))?;
        Ok((stats, written))
    })?;
    let d = PyDict::new(py);
    d.set_item("positions", written.records)?;
    d.set_item("games", stats.games)?;
    d.set_item("games_skipped", stats.skipped.total())?;
    d.set_item("uncodable_moves", stats.uncodable_moves)?;
    d.set_item("truncated_positions", stats.truncated_positions)?;
    Ok(d)
}

/// `chessfmt.ctg.to_polyglot`: the book as a Polyglot book, weights by `policy`.
#[pyfunction]
#[pyo3(signature = (book, out, *, policy_name, overwrite))]
fn ctg_to_polyglot(
    py: Python<'_>,
    book: PathBuf,
    out: PathBuf,
    policy_name: &str,
    overwrite: bool,
) -> PyResult<(u64, u64)> {
    let policy = policy(policy_name)?;
    crate::polyglot::write_book(py, std::slice::from_ref(&book), &out, overwrite, || {
        let b = Book::open(&book).map_err(|e| errors::to_py(e.in_file(&book)))?;
        let (entries, stats) = ctg::convert::to_polyglot(&b, Chess::default(), None, policy);
        Ok((entries, (stats.positions, stats.entries)))
    })
}
