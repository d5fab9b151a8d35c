//! The extension module of the `chessfmt` Python package (`chessfmt._native`).
//!
//! The Python modules under `python/chessfmt/` are the package's public face (python-chess
//! types in and out, the reader classes python-chess users know); this module is what they
//! call: each function does its work in the format crates, with the GIL released where the
//! work is long (builds, exports, imports, whole-file reads). Nothing here is public Python
//! API: its names begin the package's private `_native` module.

// The `#[pyfunction]`/`#[pymethods]` items are documented in the Python stubs
// (`python/chessfmt/_native.pyi`), which is what Python users read.
#![allow(missing_docs)]
// PyO3's signatures take their arguments by value.
#![allow(clippy::needless_pass_by_value)]

use pyo3::prelude::*;

mod board;
mod chessbase;
mod ctg;
mod errors;
mod inputs;
mod kvetka;
mod polyglot;
mod pychess;
mod selfplay;
mod tally;
mod walk;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FormatError", py.get_type::<errors::FormatError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    polyglot::register(m)?;
    ctg::register(m)?;
    kvetka::register(m)?;
    chessbase::register(m)?;
    selfplay::register(m)?;
    tally::register(m)?;
    Ok(())
}
