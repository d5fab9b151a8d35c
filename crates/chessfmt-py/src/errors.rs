//! Errors of the format crates as Python exceptions: `OSError` (with `errno` and the file
//! name, so Python raises `FileNotFoundError` and its kin) when the operating system failed,
//! `chessfmt.FormatError` (a `ValueError` with `path` and `offset`) when the bytes are wrong.

use std::{error::Error, io, path::Path};

use chess_core::Located;
use pyo3::{create_exception, exceptions::PyOSError, exceptions::PyValueError, prelude::*};

create_exception!(
    chessfmt,
    FormatError,
    PyValueError,
    "A file is not valid in its format: `path` names it and `offset` the byte where reading \
     stopped (either may be None)."
);

/// The first I/O error in `e`'s chain of causes.
fn io_cause<'a>(e: &'a (dyn Error + 'static)) -> Option<&'a io::Error> {
    let mut cur: Option<&(dyn Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<io::Error>() {
            return Some(io);
        }
        cur = err.source();
    }
    None
}

/// `OSError(errno, text, filename)` (Python picks the subclass by errno).
pub fn os_error(e: &io::Error, path: Option<&Path>) -> PyErr {
    let text = e.to_string();
    let name = path.map(|p| p.display().to_string());
    match e.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, text, name)),
        None => match name {
            Some(name) => PyOSError::new_err(format!("{name}: {text}")),
            None => PyOSError::new_err(text),
        },
    }
}

/// A `FormatError` with the given message and location.
pub fn format_error(message: String, path: Option<&Path>, offset: Option<u64>) -> PyErr {
    Python::attach(|py| {
        let err = FormatError::new_err(message);
        let value = err.value(py);
        let path = path.map(|p| p.display().to_string());
        // Setting attributes on a fresh exception instance cannot fail.
        let _ = value.setattr("path", path);
        let _ = value.setattr("offset", offset);
        err
    })
}

/// Any located error of the family as a Python exception.
pub fn to_py<E: Error + Located + 'static>(e: E) -> PyErr {
    if let Some(io) = io_cause(&e) {
        return os_error(io, e.path());
    }
    let mut message = e.to_string();
    if let Some(path) = e.path() {
        let shown = path.display().to_string();
        if !message.contains(&shown) {
            message = format!("{shown}: {message}");
        }
    }
    format_error(message, e.path(), e.offset())
}

/// An error without a location (a plain message) as a `FormatError`.
pub fn plain<E: std::fmt::Display>(path: &Path, e: E) -> PyErr {
    format_error(format!("{}: {e}", path.display()), Some(path), None)
}

/// An I/O error on `path`.
pub fn io(path: &Path, e: &io::Error) -> PyErr {
    os_error(e, Some(path))
}
