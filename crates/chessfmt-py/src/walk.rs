//! Iterating a normalised book (CTG, Kvetka) position by position from Python.
//!
//! The family's breadth-first walk borrows its book, which a Python iterator cannot hold; the
//! walk runs on a thread of its own that owns a reference to the book and hands its positions
//! over a bounded channel (memory stays a few hundred positions whatever the book's size).
//! Dropping the iterator ends the thread at its next position.

use std::sync::{Arc, Mutex, mpsc};

use chess_core::book::OpeningBook;
use pyo3::{IntoPyObjectExt, prelude::*, types::PyList};
use shakmaty::{Chess, EnPassantMode, fen::Fen};

/// A field of a row, made a Python object on the Python side of the channel.
pub enum Value {
    Int(u64),
    Text(String),
    None,
}

impl Value {
    /// The value as a Python object.
    pub fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Value::Int(v) => v.into_py_any(py),
            Value::Text(s) => s.into_py_any(py),
            Value::None => Ok(py.None()),
        }
    }
}

/// Fields in the order the Python types take them.
pub type Row = Vec<Value>;

/// A probe's answer as Python objects: the moves' rows and the position's row.
pub type Probed = (Vec<Vec<Py<PyAny>>>, Vec<Py<PyAny>>);

/// The rows of a probe as Python objects.
pub fn probed(py: Python<'_>, moves: &[Row], position: &Row) -> PyResult<Probed> {
    let one = |r: &Row| r.iter().map(|v| v.to_py(py)).collect::<PyResult<Vec<_>>>();
    Ok((
        moves.iter().map(one).collect::<PyResult<_>>()?,
        one(position)?,
    ))
}

/// What the walk's thread sends: a position's FEN, its moves' rows and its own row, or an
/// error that ends the walk.
pub type Sent = Result<(String, Vec<Row>, Row), String>;

/// A Python iterator over the positions a thread produces.
#[pyclass(module = "chessfmt._native")]
pub struct PositionIter {
    rx: Mutex<mpsc::Receiver<Sent>>,
    make: Py<PyAny>,
}

impl PositionIter {
    /// An iterator over what `produce` sends; `make(fen, moves, position)` turns each into
    /// the Python object yielded (`moves` a list of lists, `position` a list).
    pub fn spawn(
        make: Py<PyAny>,
        produce: impl FnOnce(mpsc::SyncSender<Sent>) + Send + 'static,
    ) -> PositionIter {
        let (tx, rx) = mpsc::sync_channel(256);
        std::thread::spawn(move || produce(tx));
        PositionIter {
            rx: Mutex::new(rx),
            make,
        }
    }
}

/// The breadth-first walk of `book` from the start position (to `max_ply`) as a Python
/// iterator: `rows` makes each position's moves' rows and its own row.
pub fn spawn_walk<B>(
    book: Arc<B>,
    max_ply: Option<usize>,
    make: Py<PyAny>,
    rows: impl Fn(&B::Probe) -> (Vec<Row>, Row) + Send + 'static,
) -> PositionIter
where
    B: OpeningBook + Send + Sync + 'static,
{
    PositionIter::spawn(make, move |tx| {
        for node in chess_core::book::walk(&*book, Chess::default(), max_ply) {
            let fen = Fen::from_position(&node.position, EnPassantMode::Legal).to_string();
            let (moves, position) = rows(&node.probe);
            if tx.send(Ok((fen, moves, position))).is_err() {
                return;
            }
        }
    })
}

fn row<'py>(py: Python<'py>, r: &Row) -> PyResult<Bound<'py, PyList>> {
    let values = r
        .iter()
        .map(|v| v.to_py(py))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, values)
}

#[pymethods]
impl PositionIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let got = py.detach(|| {
            let rx = self
                .rx
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            rx.recv().ok()
        });
        match got {
            None => Ok(None),
            Some(Err(message)) => Err(crate::errors::format_error(message, None, None)),
            Some(Ok((fen, moves, position))) => {
                let moves = moves
                    .iter()
                    .map(|m| row(py, m))
                    .collect::<PyResult<Vec<_>>>()?;
                let made = self
                    .make
                    .bind(py)
                    .call1((fen, moves, row(py, &position)?))?;
                Ok(Some(made.unbind()))
            }
        }
    }
}
