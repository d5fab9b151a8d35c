//! Input files of the builders and the threads they run on.

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use chessfmt_pgn::{Compression, PgnBytes, PgnInput, PgnReader};
use pyo3::prelude::*;

use crate::errors;

/// Plain PGN files up to this size are read whole (their games are then split among the
/// threads); larger ones, and compressed ones, are streamed.
const READ_WHOLE: u64 = 1 << 30;

/// Runs `f` on the PGN file at `path` (plain, gzip, zstd or xz).
pub fn with_pgn<T>(
    path: &Path,
    f: impl FnOnce(PgnInput<'_, Box<dyn Read + Send>>) -> T,
) -> PyResult<T> {
    if let Some(data) = plain_pgn(path)? {
        return Ok(f(PgnInput::Bytes(PgnBytes::new(&data))));
    }
    let reader = chessfmt_pgn::open_decompressed(path).map_err(|e| errors::io(path, &e))?;
    Ok(f(PgnInput::Reader(PgnReader::new(reader))))
}

/// The bytes of a plain PGN file of at most [`READ_WHOLE`] bytes (read whole, to be cut and
/// read in parallel); `None` for a compressed or larger one (streamed instead).
pub fn plain_pgn(path: &Path) -> PyResult<Option<Vec<u8>>> {
    let meta = std::fs::metadata(path).map_err(|e| errors::io(path, &e))?;
    if meta.is_dir() {
        return Err(errors::plain(path, "is a directory, not a PGN file"));
    }
    let mut head = [0u8; 8];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| errors::io(path, &e))?;
    if Compression::detect(&head[..n]) == Compression::None && meta.len() <= READ_WHOLE {
        return std::fs::read(path)
            .map(Some)
            .map_err(|e| errors::io(path, &e));
    }
    Ok(None)
}

/// A rayon pool of `threads` threads (all cores when `None` or 0).
pub fn pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
}

/// The folder of `out`, where a writer's temporary runs and spools go.
pub fn scratch_dir(out: &Path) -> PathBuf {
    out.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Refuses an output that exists (unless `overwrite`) or that is one of the inputs.
pub fn check_output(out: &Path, inputs: &[PathBuf], overwrite: bool) -> PyResult<()> {
    for input in inputs {
        if same_file(out, input) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{}: the output is one of the inputs",
                out.display()
            )));
        }
    }
    if !overwrite && out.exists() {
        return Err(pyo3::exceptions::PyFileExistsError::new_err((
            17,
            "the output exists (pass overwrite=True to replace it)",
            out.display().to_string(),
        )));
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
