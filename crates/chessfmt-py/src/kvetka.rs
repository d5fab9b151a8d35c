//! Kvetka books: the reader behind `chessfmt.kvetka`, the builder and the Polyglot conversion.

use std::{path::PathBuf, sync::Arc};

use chess_core::book::WeightPolicy;
use kvetka_book::{
    Book,
    read::{BookPaths, Comment, FileBook, Probe},
};
use pyo3::{prelude::*, types::PyDict};

use crate::{
    board, errors, inputs,
    walk::{PositionIter, Probed, Row, Value, probed, spawn_walk},
};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<KvetkaBook>()?;
    m.add_function(wrap_pyfunction!(kvetka_build, m)?)?;
    m.add_function(wrap_pyfunction!(kvetka_to_polyglot, m)?)?;
    Ok(())
}

/// A Kvetka book (its `.kob` files, `.kin` and `.ksf`) read into memory.
#[pyclass(frozen, module = "chessfmt._native")]
pub struct KvetkaBook {
    book: Arc<FileBook>,
    policy: WeightPolicy,
}

/// The weight policy `policy=` names (`"score"`, `"games"`, `"uniform"`): Kvetka's
/// conversions and the Polyglot builds take the same names.
pub(crate) fn policy(name: &str) -> PyResult<WeightPolicy> {
    match name {
        "score" => Ok(WeightPolicy::Score),
        "games" => Ok(WeightPolicy::Games),
        "uniform" => Ok(WeightPolicy::Uniform),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "policy={other:?}: expected \"score\", \"games\" or \"uniform\""
        ))),
    }
}

/// A move's fields: code, from, to, promotion (python-chess's), weight, games, wins, draws,
/// losses (the mover's; 0 when the position after it is not in the book), in_book.
fn move_rows(p: &Probe, policy: WeightPolicy, chess960: bool) -> Vec<Row> {
    p.moves
        .iter()
        .map(|m| {
            let (from, to, promotion) = board::py_move(m.mv, chess960);
            let s = m.stats.unwrap_or_default();
            vec![
                Value::Int(u64::from(m.code)),
                Value::Int(u64::from(from)),
                Value::Int(u64::from(to)),
                Value::Int(u64::from(promotion)),
                Value::Int(policy.weight(m.stats)),
                Value::Int(s.games()),
                Value::Int(s.wins),
                Value::Int(s.draws),
                Value::Int(s.losses),
                Value::Int(u64::from(m.stats.is_some())),
            ]
        })
        .collect()
}

/// The position's fields: games, wins, draws, losses (side to move), comment, ECO, opening,
/// variation.
fn position_row(p: &Probe) -> Row {
    let text = |s: Option<&String>| s.map_or(Value::None, |s| Value::Text(s.clone()));
    let (eco, opening, variation) = match &p.comment {
        Some(Comment::Eco {
            eco,
            opening,
            variation,
        }) => (Some(eco), Some(opening), variation.as_ref()),
        _ => (None, None, None),
    };
    vec![
        Value::Int(p.stats.games()),
        Value::Int(p.stats.wins),
        Value::Int(p.stats.draws),
        Value::Int(p.stats.losses),
        p.comment
            .as_ref()
            .map_or(Value::None, |c| Value::Text(c.to_text())),
        text(eco),
        text(opening),
        text(variation),
    ]
}

#[pymethods]
impl KvetkaBook {
    #[new]
    fn new(py: Python<'_>, path: PathBuf, policy_name: &str) -> PyResult<Self> {
        let policy = policy(policy_name)?;
        let book = py
            .detach(|| Book::open(&path))
            .map_err(|e| errors::to_py(e.in_file(&path)))?;
        Ok(KvetkaBook {
            book: Arc::new(book),
            policy,
        })
    }

    /// The header's caption and block count.
    fn header(&self) -> (String, usize) {
        (self.book.header().caption.clone(), self.book.block_count())
    }

    /// The moves and the position's row, or `None` when the position is not in the book.
    fn probe(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Option<Probed>> {
        let Some(conv) = board::standard(board, "Kvetka")? else {
            return Ok(None);
        };
        let Some(p) = self.book.probe(&conv.pos).map_err(errors::to_py)? else {
            return Ok(None);
        };
        let moves = move_rows(&p, self.policy, conv.chess960);
        Ok(Some(probed(py, &moves, &position_row(&p))?))
    }

    /// Every position reachable from the start, breadth first: `make(fen, moves, position)`
    /// for each.
    fn positions(&self, make: Py<PyAny>, max_ply: Option<usize>) -> PositionIter {
        let policy = self.policy;
        spawn_walk(Arc::clone(&self.book), max_ply, make, move |p| {
            (move_rows(p, policy, false), position_row(p))
        })
    }
}

/// `chessfmt.kvetka.build`: a Kvetka book from PGN files, as `chessfmt kvetka build`.
#[pyfunction]
#[pyo3(signature = (pgn_paths, out, *, memory_limit_mib, overwrite))]
fn kvetka_build<'py>(
    py: Python<'py>,
    pgn_paths: Vec<PathBuf>,
    out: PathBuf,
    memory_limit_mib: usize,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let paths = BookPaths::from_any(&out);
    let members = [paths.kob(0), paths.kin(), paths.ksf()];
    for m in &members {
        inputs::check_output(m, &pgn_paths, overwrite)?;
    }
    let dir = inputs::scratch_dir(&out);
    let (stats, w) = py.detach(|| -> PyResult<_> {
        let mut builder = kvetka_book::build::Builder::new(
            kvetka_book::build::BuildOptions::default().with_memory_limit(Some(
                kvetka_book::build::MemoryLimit::new(memory_limit_mib.saturating_mul(1 << 20), dir),
            )),
        );
        for path in &pgn_paths {
            builder.begin_source(kvetka_book::build::source_address(path));
            inputs::with_pgn(path, |input| builder.add_pgn(input, |_| {}))?
                .map_err(errors::to_py)?;
        }
        builder
            .save(paths.base(), overwrite)
            .map_err(|e| errors::to_py(e.in_file(paths.base())))
    })?;
    let d = PyDict::new(py);
    d.set_item("positions", w.elements)?;
    d.set_item("games_read", stats.games_read)?;
    d.set_item("games_added", stats.games_added)?;
    d.set_item("games_skipped", stats.skipped.total())?;
    d.set_item("uncodable_moves", stats.uncodable_moves)?;
    Ok(d)
}

/// `chessfmt.kvetka.to_polyglot`: the book as a Polyglot book, weights by `policy`.
#[pyfunction]
#[pyo3(signature = (book, out, *, policy_name, overwrite))]
fn kvetka_to_polyglot(
    py: Python<'_>,
    book: PathBuf,
    out: PathBuf,
    policy_name: &str,
    overwrite: bool,
) -> PyResult<(u64, u64)> {
    let policy = policy(policy_name)?;
    crate::polyglot::write_book(py, std::slice::from_ref(&book), &out, overwrite, || {
        let b = Book::open(&book).map_err(|e| errors::to_py(e.in_file(&book)))?;
        let (entries, stats) =
            kvetka_book::convert::to_polyglot(&b, policy).map_err(errors::to_py)?;
        Ok((entries, (stats.positions, stats.moves)))
    })
}
