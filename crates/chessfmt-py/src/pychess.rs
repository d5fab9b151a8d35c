//! python-chess's types, made from Rust without running their Python constructors.
//!
//! `find_all` answers in a few microseconds, and most of that is making result objects:
//! a `chess.Move` made by its dataclass `__init__` costs more than the search. Here a move is
//! `object.__new__(Move)` with its four fields set in its `__dict__` (exactly what `__init__`
//! leaves), and an entry `tuple.__new__(Entry, fields)` (what the named tuple's `__new__`
//! does).

use pyo3::{
    intern,
    prelude::*,
    sync::PyOnceLock,
    types::{PyDict, PyTuple, PyType},
};

static MOVE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ENTRY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static BOARD: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TUPLE_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `chess.Board` (its exact type: subclasses are checked by their variant name).
pub fn board_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    BOARD.import(py, "chess", "Board")
}

/// A `chess.Move` (`promotion` 0 for none).
pub fn new_move<'py>(
    py: Python<'py>,
    from: u8,
    to: u8,
    promotion: u8,
) -> PyResult<Bound<'py, PyAny>> {
    let ty = MOVE.import(py, "chess", "Move")?;
    let object_new = OBJECT_NEW.get_or_try_init(py, || {
        py.import("builtins")?
            .getattr("object")?
            .getattr("__new__")
            .map(Bound::unbind)
    })?;
    let m = object_new.bind(py).call1((ty,))?;
    let fields = PyDict::new(py);
    fields.set_item(intern!(py, "from_square"), from)?;
    fields.set_item(intern!(py, "to_square"), to)?;
    fields.set_item(
        intern!(py, "promotion"),
        if promotion == 0 {
            None
        } else {
            Some(promotion)
        },
    )?;
    fields.set_item(intern!(py, "drop"), py.None())?;
    m.setattr(intern!(py, "__dict__"), fields)?;
    Ok(m)
}

/// A `chess.polyglot.Entry`.
pub fn new_entry<'py>(
    py: Python<'py>,
    key: u64,
    raw_move: u16,
    weight: u16,
    learn: u32,
    mv: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let ty = ENTRY.import(py, "chess.polyglot", "Entry")?;
    let tuple_new = TUPLE_NEW.get_or_try_init(py, || {
        py.import("builtins")?
            .getattr("tuple")?
            .getattr("__new__")
            .map(Bound::unbind)
    })?;
    let fields = PyTuple::new(
        py,
        [
            key.into_pyobject(py)?.into_any(),
            raw_move.into_pyobject(py)?.into_any(),
            weight.into_pyobject(py)?.into_any(),
            learn.into_pyobject(py)?.into_any(),
            mv,
        ],
    )?;
    tuple_new.bind(py).call1((ty, fields))
}
