//! Polyglot books: the reader behind `chessfmt.polyglot`, the builder, the merger, the writer.

use std::path::{Path, PathBuf};

use polyglot_book::{
    Book, Entry, OpenMode,
    ops::build::{BuildOptions, Builder},
    ops::merge::{MergeStrategy, merge_sorted},
};
use pyo3::{
    prelude::*,
    types::{PyDict, PyList},
};
use shakmaty::{Color, Position, Square};

use crate::{board, errors, inputs, pychess};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PolyglotBook>()?;
    m.add_function(wrap_pyfunction!(polyglot_build, m)?)?;
    m.add_function(wrap_pyfunction!(polyglot_merge, m)?)?;
    m.add_function(wrap_pyfunction!(polyglot_write, m)?)?;
    Ok(())
}

/// A Polyglot book read into memory.
#[pyclass(frozen, module = "chessfmt._native")]
pub struct PolyglotBook {
    book: Book<Vec<u8>>,
}

/// One matching entry: raw move, weight, learn, and the move as python-chess writes it.
type Found = (u16, u16, u32, u8, u8, u8);

#[pymethods]
impl PolyglotBook {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let data = py
            .detach(|| std::fs::read(&path))
            .map_err(|e| errors::io(&path, &e))?;
        if data.len() % polyglot_book::ENTRY_SIZE != 0 {
            return Err(errors::format_error(
                format!(
                    "{}: invalid file size {} (not a multiple of 16): not a Polyglot book",
                    path.display(),
                    data.len()
                ),
                Some(&path),
                Some((data.len() - data.len() % 16) as u64),
            ));
        }
        // python-chess reads unsorted books too (finding what its search finds).
        let book =
            Book::new(data, OpenMode::Lenient).map_err(|e| errors::to_py(e.in_file(&path)))?;
        Ok(PolyglotBook { book })
    }

    fn __len__(&self) -> usize {
        self.book.len()
    }

    /// Entries `start..stop` as `(key, raw_move, weight, learn)`.
    fn entries(&self, start: usize, stop: usize) -> Vec<(u64, u16, u16, u32)> {
        let stop = stop.min(self.book.len());
        (start.min(stop)..stop)
            .map(|i| {
                let e = self.book.entry(i);
                (e.key, e.raw_move, e.weight, e.learn)
            })
            .collect()
    }

    /// The index range of the entries of `key` (`bisect_key_left` is its start).
    fn key_range(&self, key: u64) -> (usize, usize) {
        let r = self.book.key_range(key);
        (r.start, r.end)
    }

    /// `(raw_move, weight, learn)` of the entries of `key` with at least `minimum_weight`.
    fn find_key(&self, key: u64, minimum_weight: u32) -> Vec<(u16, u16, u32)> {
        self.book
            .entries_for_key(key)
            .filter(|e| u32::from(e.weight) >= minimum_weight)
            .map(|e| (e.raw_move, e.weight, e.learn))
            .collect()
    }

    /// The key of `board` and its legal entries with at least `minimum_weight`, each with
    /// its move as python-chess gives it (`find_all` with a board); `None` for a board only
    /// python-chess can answer for (a variant, or a position shakmaty finds invalid).
    fn probe(
        &self,
        board: &Bound<'_, PyAny>,
        minimum_weight: u32,
    ) -> PyResult<Option<(u64, Vec<Found>)>> {
        let Some(conv) = board::convert(board)? else {
            return Ok(None);
        };
        let key = polyglot_book::polyglot_key(&conv.pos);
        let range = self.book.key_range(key);
        if range.is_empty() {
            return Ok(Some((key, Vec::new())));
        }
        let legal = conv.pos.legal_moves();
        let kings = conv.pos.board().kings();
        let mut found = Vec::with_capacity(range.len());
        // The range found above: the key is not searched for again.
        for e in range.map(|i| self.book.entry(i)) {
            if u32::from(e.weight) < minimum_weight {
                continue;
            }
            let Some(mv) = python_chess_move(e.raw_move, conv.chess960, kings) else {
                continue;
            };
            if board::find_legal(&legal, conv.chess960, mv).is_some() {
                found.push((e.raw_move, e.weight, e.learn, mv.0, mv.1, mv.2));
            }
        }
        Ok(Some((key, found)))
    }

    /// `probe` with the entries made as python-chess's `Entry` tuples (with `chess.Move`s).
    fn find_all<'py>(
        &self,
        board: &Bound<'py, PyAny>,
        minimum_weight: u32,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        let py = board.py();
        let Some((key, found)) = self.probe(board, minimum_weight)? else {
            return Ok(None);
        };
        let list = PyList::empty(py);
        for (raw, weight, learn, from, to, promotion) in found {
            let mv = pychess::new_move(py, from, to, promotion)?;
            list.append(pychess::new_entry(py, key, raw, weight, learn, mv)?)?;
        }
        Ok(Some(list))
    }

    /// The Polyglot key of `board` (`None` as for `probe`).
    fn key(&self, board: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        Ok(board::convert(board)?.map(|c| polyglot_book::polyglot_key(&c.pos)))
    }
}

/// The move python-chess makes of a raw move on a board (`Entry.move` in `find_all`): the
/// fields as they are, castling king-takes-rook turned into the king's two-square move on a
/// standard board; `None` for a drop (from = to), which is never legal.
fn python_chess_move(raw: u16, chess960: bool, kings: shakmaty::Bitboard) -> Option<(u8, u8, u8)> {
    let to = (raw & 0x3f) as u8;
    let from = ((raw >> 6) & 0x3f) as u8;
    let part = ((raw >> 12) & 0x7) as u8;
    let promotion = if part == 0 { 0 } else { part + 1 };
    if from == to {
        return None;
    }
    if !chess960 && promotion == 0 {
        for (king, rook_h, rook_a, g, c) in [
            (Square::E1, Square::H1, Square::A1, Square::G1, Square::C1),
            (Square::E8, Square::H8, Square::A8, Square::G8, Square::C8),
        ] {
            if from == king as u8 && kings.contains(king) {
                if to == rook_h as u8 {
                    return Some((from, g as u8, 0));
                }
                if to == rook_a as u8 {
                    return Some((from, c as u8, 0));
                }
            }
        }
    }
    Some((from, to, promotion))
}

/// `chessfmt.polyglot.build`: a book from PGN files, as `chessfmt polyglot build`.
#[pyfunction]
#[pyo3(signature = (pgn_paths, out, *, max_ply, min_game, min_score, only, uniform, policy, memory_limit_mib, threads, overwrite))]
#[allow(clippy::too_many_arguments)]
fn polyglot_build<'py>(
    py: Python<'py>,
    pgn_paths: Vec<PathBuf>,
    out: PathBuf,
    max_ply: usize,
    min_game: u32,
    min_score: f64,
    only: Option<String>,
    uniform: bool,
    policy: &str,
    memory_limit_mib: Option<usize>,
    threads: Option<usize>,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let policy = crate::kvetka::policy(policy)?;
    inputs::check_output(&out, &pgn_paths, overwrite)?;
    let only = only_color(only.as_deref())?;
    let limit = memory_limit_mib.map(|mib| {
        polyglot_book::ops::build::MemoryLimit::new(
            mib.saturating_mul(1 << 20),
            inputs::scratch_dir(&out),
        )
    });
    let options = BuildOptions::default()
        .with_max_ply(max_ply)
        .with_min_game(min_game)
        .with_min_score(min_score)
        .with_only(only)
        .with_uniform(uniform)
        .with_weight(policy)
        .with_memory_limit(limit);
    let pool = inputs::pool(threads)?;
    let stats = py.detach(|| -> PyResult<_> {
        let mut builder = Builder::new(options);
        let mut skipped = 0u64;
        for path in &pgn_paths {
            let s = inputs::with_pgn(path, |input| {
                pool.install(|| builder.add_pgn(input, |_| {}))
            })?
            .map_err(|e| errors::io(path, &e))?;
            skipped += s.total();
        }
        // Sorted and written on the same pool: `threads` is every worker the build starts.
        let stats = pool
            .install(|| builder.save(&out, overwrite))
            .map_err(|e| errors::to_py(e.in_file(&out)))?;
        Ok((stats, skipped))
    })?;
    let (stats, skipped) = stats;
    let d = PyDict::new(py);
    d.set_item("games_read", stats.games_read)?;
    d.set_item("games_skipped", skipped)?;
    d.set_item("entries", stats.entries)?;
    d.set_item("pairs", stats.pairs)?;
    Ok(d)
}

/// Writes the Polyglot book `out` from the entries `make` gives, off the GIL: `out` is checked
/// first (not one of `inputs`; not existing unless `overwrite`), then written atomically.
/// Returns what `make` reports beside its entries.
pub fn write_book<T: Send>(
    py: Python<'_>,
    inputs: &[PathBuf],
    out: &Path,
    overwrite: bool,
    make: impl FnOnce() -> PyResult<(Vec<Entry>, T)> + Send,
) -> PyResult<T> {
    inputs::check_output(out, inputs, overwrite)?;
    py.detach(|| {
        let (entries, report) = make()?;
        polyglot_book::write::save(out, &entries, overwrite)
            .map_err(|e| errors::to_py(e.in_file(out)))?;
        Ok(report)
    })
}

/// The colour of `only=` (`None`, `"white"`, `"black"`).
pub fn only_color(only: Option<&str>) -> PyResult<Option<Color>> {
    match only {
        None => Ok(None),
        Some("white") => Ok(Some(Color::White)),
        Some("black") => Ok(Some(Color::Black)),
        Some(other) => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "only={other:?}: expected None, \"white\" or \"black\""
        ))),
    }
}

/// `chessfmt.polyglot.merge`: books merged into one, as `chessfmt polyglot merge`.
#[pyfunction]
#[pyo3(signature = (books, out, *, strategy, overwrite))]
fn polyglot_merge(
    py: Python<'_>,
    books: Vec<PathBuf>,
    out: PathBuf,
    strategy: &str,
    overwrite: bool,
) -> PyResult<(u64, u64)> {
    let strategy = match strategy {
        "sum" => MergeStrategy::Sum,
        "max" => MergeStrategy::Max,
        "first" => MergeStrategy::First,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "strategy={other:?}: expected \"sum\", \"max\" or \"first\""
            )));
        }
    };
    write_book(py, &books, &out, overwrite, || {
        let opened = books
            .iter()
            .map(|p| Book::open(p, OpenMode::Strict).map_err(|e| errors::to_py(e.in_file(p))))
            .collect::<PyResult<Vec<_>>>()?;
        let iters: Vec<Box<dyn Iterator<Item = Entry> + '_>> = opened
            .iter()
            .map(|b| Box::new(b.entries()) as Box<dyn Iterator<Item = Entry>>)
            .collect();
        let mut merged = Vec::new();
        let counts = merge_sorted(iters, strategy, |e| {
            merged.push(*e);
            Ok::<(), std::io::Error>(())
        })
        .map_err(|e| errors::io(&out, &e))?;
        Ok((merged, (counts.input, counts.output)))
    })
}

/// `chessfmt.polyglot.write`: entries `(key, raw_move, weight, learn)` sorted the canonical
/// way and written atomically.
#[pyfunction]
#[pyo3(signature = (entries, out, *, overwrite))]
fn polyglot_write(
    py: Python<'_>,
    entries: Vec<(u64, u16, u16, u32)>,
    out: PathBuf,
    overwrite: bool,
) -> PyResult<usize> {
    write_book(py, &[], &out, overwrite, || {
        let mut entries: Vec<Entry> = entries
            .into_iter()
            .map(|(key, raw_move, weight, learn)| Entry {
                key,
                raw_move,
                weight,
                learn,
            })
            .collect();
        // The canonical order (key, then weight, heaviest first) with ties broken by move and
        // learn value: the same bytes whatever the order given.
        entries.sort_unstable_by_key(|e| (e.raw_move, e.learn));
        polyglot_book::write::sort_entries(&mut entries);
        let n = entries.len();
        Ok((entries, n))
    })
}
