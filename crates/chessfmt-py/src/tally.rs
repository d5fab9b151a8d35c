//! The statistics table (chessfmt-tally): `chessfmt.tally` and the Polyglot book's way in
//! and out of it.

use std::path::{Path, PathBuf};

use chessfmt_tally::{Row, TableFormat, TableWriter, Tally, TallyOptions, table::TableRows};
use polyglot_book::{
    Book, OpenMode,
    ops::build::BuildOptions,
    ops::tally::{from_tally, to_tally},
};
use pyo3::{prelude::*, types::PyDict};

use crate::{errors, inputs};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tally_map, m)?)?;
    m.add_function(wrap_pyfunction!(tally_merge, m)?)?;
    m.add_function(wrap_pyfunction!(tally_to_pgn, m)?)?;
    m.add_function(wrap_pyfunction!(polyglot_from_tally, m)?)?;
    m.add_function(wrap_pyfunction!(polyglot_to_tally, m)?)?;
    m.add_function(wrap_pyfunction!(ctg_from_tally, m)?)?;
    m.add_function(wrap_pyfunction!(ctg_to_tally, m)?)?;
    m.add_function(wrap_pyfunction!(kvetka_from_tally, m)?)?;
    m.add_function(wrap_pyfunction!(kvetka_to_tally, m)?)?;
    Ok(())
}

fn table_error(e: chessfmt_tally::Error) -> PyErr {
    errors::to_py(e)
}

/// The rows of a table file (CSV or Parquet by its first bytes), errors naming it.
fn open_table(path: &Path) -> PyResult<TableRows> {
    chessfmt_tally::table::open(path).map_err(table_error)
}

/// Writes `out` atomically with `write` (buffered); a table error `write` gives comes back as
/// itself (with its file and line), an I/O error as `OSError`.
fn write_file<T>(
    out: &Path,
    overwrite: bool,
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<T, chessfmt_tally::Error>,
) -> PyResult<T> {
    let mut failure = None;
    let written = chessfmt_files::atomic::write_atomically(out, overwrite, |w| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        match write(&mut w) {
            Ok(v) => {
                std::io::Write::flush(&mut w)?;
                Ok(v)
            }
            Err(e) => {
                let message = e.to_string();
                failure = Some(e);
                Err(std::io::Error::other(message))
            }
        }
    });
    match (written, failure) {
        (_, Some(e)) => Err(table_error(e)),
        (Err(e), None) => Err(errors::io(out, &e)),
        (Ok(v), None) => Ok(v),
    }
}

/// Writes rows as a table, atomically (Parquet for a `.parquet` name, CSV otherwise).
fn write_table(out: &Path, overwrite: bool, rows: &[Row]) -> PyResult<()> {
    write_file(out, overwrite, |w| {
        let mut table = TableWriter::new(TableFormat::of_path(out), w)?;
        for r in rows {
            table.write(r)?;
        }
        table.finish()?;
        Ok(())
    })
}

/// A book's rows written as the table `out`: `read` opens the book and makes its rows, with
/// the counts to report (off the GIL).
fn book_to_table<'py>(
    py: Python<'py>,
    book: &Path,
    out: &Path,
    overwrite: bool,
    read: impl FnOnce() -> PyResult<(Vec<Row>, Vec<(&'static str, u64)>)> + Send,
) -> PyResult<Bound<'py, PyDict>> {
    inputs::check_output(out, &[book.to_path_buf()], overwrite)?;
    let counts = py.detach(|| -> PyResult<_> {
        let (rows, counts) = read()?;
        write_table(out, overwrite, &rows)?;
        Ok(counts)
    })?;
    let d = PyDict::new(py);
    for (name, n) in counts {
        d.set_item(name, n)?;
    }
    Ok(d)
}

/// The codec `compression` names for the table `out` (`None`: Snappy): a `ValueError` for
/// another name, or for a CSV table, which has none.
fn table_compression(
    compression: Option<&str>,
    out: &Path,
) -> PyResult<chessfmt_tally::Compression> {
    use chessfmt_tally::Compression;
    let Some(name) = compression else {
        return Ok(Compression::default());
    };
    if TableFormat::of_path(out) != TableFormat::Parquet {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "compression: {} is written as CSV (name it .parquet for a Parquet table)",
            out.display()
        )));
    }
    match name {
        "snappy" => Ok(Compression::Snappy),
        "zstd" => Ok(Compression::Zstd),
        "none" => Ok(Compression::Uncompressed),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "compression: {name:?} is not one of \"snappy\", \"zstd\", \"none\""
        ))),
    }
}

/// `chessfmt.tally.tally`: the table of PGN files, as `chessfmt tally`.
#[pyfunction]
#[pyo3(signature = (pgn_paths, out, *, max_ply, part, threads, memory_limit_mib, compression, overwrite))]
#[allow(clippy::too_many_arguments)]
fn tally_map<'py>(
    py: Python<'py>,
    pgn_paths: Vec<PathBuf>,
    out: PathBuf,
    max_ply: usize,
    part: u16,
    threads: Option<usize>,
    memory_limit_mib: Option<usize>,
    compression: Option<String>,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let compression = table_compression(compression.as_deref(), &out)?;
    inputs::check_output(&out, &pgn_paths, overwrite)?;
    let pool = inputs::pool(threads)?;
    let dir = inputs::scratch_dir(&out);
    let limit = memory_limit_mib
        .map(|mib| chess_core::book::MemoryLimit::new(mib.saturating_mul(1 << 20), dir));
    let stats = py.detach(|| -> PyResult<_> {
        let mut tally = Tally::new(
            TallyOptions::default()
                .with_max_ply(max_ply)
                .with_part(part)
                .with_memory_limit(limit)
                .with_compression(compression),
        );
        for path in &pgn_paths {
            inputs::with_pgn(path, |input| pool.install(|| tally.add_pgn(input, |_| {})))?
                .map_err(|e| errors::io(path, &e))?;
        }
        pool.install(|| tally.save(&out, overwrite))
            .map_err(table_error)
    })?;
    let d = PyDict::new(py);
    d.set_item("games_read", stats.games_read)?;
    d.set_item("games_skipped", stats.skipped.total())?;
    d.set_item("plies", stats.plies)?;
    d.set_item("rows", stats.rows)?;
    Ok(d)
}

/// `chessfmt.tally.merge`: tables summed into one, as `chessfmt tally merge`.
#[pyfunction]
#[pyo3(signature = (parts, out, *, compression, overwrite))]
fn tally_merge(
    py: Python<'_>,
    parts: Vec<PathBuf>,
    out: PathBuf,
    compression: Option<String>,
    overwrite: bool,
) -> PyResult<(u64, u64)> {
    let compression = table_compression(compression.as_deref(), &out)?;
    inputs::check_output(&out, &parts, overwrite)?;
    py.detach(|| {
        let mut merge = chessfmt_tally::table::open_merge(&parts).map_err(table_error)?;
        write_file(&out, overwrite, |w| {
            let mut table =
                TableWriter::with_compression(TableFormat::of_path(&out), w, compression)?;
            table.write_merge(&mut merge)?;
            table.finish()?;
            let stats = merge.stats();
            Ok((stats.rows_read, stats.rows_written))
        })
    })
}

/// `chessfmt.polyglot.from_tally`: a Polyglot book from a table, as `chessfmt polyglot
/// from-tally`.
#[pyfunction]
#[pyo3(signature = (tables, out, *, min_game, min_score, only, uniform, policy, overwrite))]
#[allow(clippy::too_many_arguments)]
fn polyglot_from_tally<'py>(
    py: Python<'py>,
    tables: Vec<PathBuf>,
    out: PathBuf,
    min_game: u32,
    min_score: f64,
    only: Option<String>,
    uniform: bool,
    policy: &str,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let options = BuildOptions::default()
        .with_weight(crate::kvetka::policy(policy)?)
        .with_min_game(min_game)
        .with_min_score(min_score)
        .with_only(crate::polyglot::only_color(only.as_deref())?)
        .with_uniform(uniform);
    let stats = crate::polyglot::write_book(py, &tables, &out, overwrite, || {
        from_tally(
            chessfmt_tally::table::open_tables_rows(&tables).map_err(table_error)?,
            &options,
        )
        .map_err(errors::to_py)
    })?;
    let d = PyDict::new(py);
    d.set_item("rows", stats.rows)?;
    d.set_item("bad_rows", stats.bad_rows.count)?;
    d.set_item("halved", stats.halved)?;
    d.set_item("annotations_dropped", stats.annotations_dropped)?;
    d.set_item("entries", stats.entries)?;
    d.set_item("left_out", stats.bad_rows.examples.clone())?;
    Ok(d)
}

/// `chessfmt.polyglot.to_tally`: a book's entries as a table (weights as drawn games), as
/// `chessfmt polyglot to-tally`.
#[pyfunction]
#[pyo3(signature = (book, out, *, overwrite))]
fn polyglot_to_tally<'py>(
    py: Python<'py>,
    book: PathBuf,
    out: PathBuf,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    book_to_table(py, &book, &out, overwrite, || {
        let b =
            Book::open(&book, OpenMode::Lenient).map_err(|e| errors::to_py(e.in_file(&book)))?;
        let (rows, stats) = to_tally(&b);
        Ok((
            rows,
            vec![
                ("positions", stats.positions),
                ("rows", stats.rows),
                ("unreachable_entries", stats.unreachable_entries),
                ("illegal_entries", stats.illegal_entries),
                ("learn_dropped", stats.learn_dropped),
            ],
        ))
    })
}

/// The counts every `from_tally` reports.
fn from_counts<'py>(
    py: Python<'py>,
    rows: u64,
    bad_rows: &chessfmt_tally::BadRows,
    uncodable_moves: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("rows", rows)?;
    d.set_item("bad_rows", bad_rows.count)?;
    d.set_item("uncodable_moves", uncodable_moves)?;
    d.set_item("left_out", bad_rows.examples.clone())?;
    Ok(d)
}

/// Memory the positions of a Kvetka book from a table are gathered in, in MiB (as `chessfmt
/// kvetka from-tally`'s default): the book streams to its files.
const KVETKA_GATHERING_MIB: usize = 64;

/// The same for a CTG book (as `chessfmt ctg from-tally`'s default): it streams too.
const CTG_GATHERING_MIB: usize = 64;

/// A gathering limit of `mib` MiB, its runs in temporary files beside `out`.
fn gathering_limit(out: &Path, mib: usize) -> chess_core::book::MemoryLimit {
    chess_core::book::MemoryLimit::new(mib << 20, inputs::scratch_dir(out))
}

/// `chessfmt.ctg.from_tally`: a CTG book from a table, as `chessfmt ctg from-tally`.
#[pyfunction]
#[pyo3(signature = (tables, out, *, overwrite))]
fn ctg_from_tally<'py>(
    py: Python<'py>,
    tables: Vec<PathBuf>,
    out: PathBuf,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    for ext in ["ctg", "cto", "ctb"] {
        inputs::check_output(&out.with_extension(ext), &tables, overwrite)?;
    }
    let (written, stats) = py.detach(|| -> PyResult<_> {
        let limit = gathering_limit(&out, CTG_GATHERING_MIB);
        let mut writer = ctg::write::StreamWriter::new(&out, overwrite, &limit.dir)
            .map_err(|e| errors::to_py(e.in_file(&out)))?;
        let stats = ctg::tally::write_from_tally(
            chessfmt_tally::table::open_tables_rows(&tables).map_err(table_error)?,
            &mut writer,
            Some(&limit),
        )
        .map_err(|e| match e {
            ctg::tally::FromTallyError::Table(e) => table_error(e),
            ctg::tally::FromTallyError::Runs { dir, source } => {
                errors::os_error(&source, Some(&dir))
            }
            ctg::tally::FromTallyError::Book(e) => errors::to_py(e.in_file(&out)),
            e => errors::plain(&out, e),
        })?;
        let written = writer
            .finish(stats.games)
            .map_err(|e| errors::to_py(e.in_file(&out)))?;
        Ok((written, stats))
    })?;
    let d = from_counts(py, stats.rows, &stats.bad_rows, stats.uncodable_moves)?;
    d.set_item("truncated_positions", stats.truncated_positions)?;
    d.set_item("positions", written.records)?;
    Ok(d)
}

/// `chessfmt.ctg.to_tally`: a CTG book as a table, as `chessfmt ctg to-tally`.
#[pyfunction]
#[pyo3(signature = (book, out, *, overwrite))]
fn ctg_to_tally<'py>(
    py: Python<'py>,
    book: PathBuf,
    out: PathBuf,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    book_to_table(py, &book, &out, overwrite, || {
        let b = ctg::Book::open(&book).map_err(|e| errors::to_py(e.in_file(&book)))?;
        let (rows, stats) = ctg::tally::to_tally(&b);
        Ok((
            rows,
            vec![
                ("positions", stats.positions),
                ("rows", stats.rows),
                ("moves_without_statistics", stats.moves_without_statistics),
                ("annotations", stats.annotations),
                ("unreached_records", stats.unreached_records),
                ("start_not_kept", u64::from(stats.start_not_kept)),
                ("records_changed", stats.records_changed),
                ("undecodable_moves", stats.undecodable_moves),
            ],
        ))
    })
}

/// `chessfmt.kvetka.from_tally`: a Kvetka book from a table, as `chessfmt kvetka
/// from-tally`.
#[pyfunction]
#[pyo3(signature = (tables, out, *, caption, overwrite, header_of=None))]
fn kvetka_from_tally<'py>(
    py: Python<'py>,
    tables: Vec<PathBuf>,
    out: PathBuf,
    caption: String,
    overwrite: bool,
    header_of: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    // The header of the Kvetka book `header_of` (what its elements keep of it: `convert`
    // from Kvetka to Kvetka), or a converted book's with `caption`.
    let header = match &header_of {
        Some(book) => kvetka_book::Book::open(book)
            .map_err(|e| errors::to_py(e.in_file(book)))?
            .header()
            .of_statistics(),
        None => kvetka_book::raw::Header::converted(&caption),
    };
    let paths = kvetka_book::read::BookPaths::from_any(&out);
    for member in [paths.kob(0), paths.kin(), paths.ksf()] {
        inputs::check_output(&member, &tables, overwrite)?;
    }
    let (written, stats) = py.detach(|| -> PyResult<_> {
        let mut writer = kvetka_book::write::StreamWriter::new(
            &paths,
            &header,
            kvetka_book::write::DEFAULT_SPLIT_SIZE,
            overwrite,
        )
        .map_err(errors::to_py)?;
        let limit = gathering_limit(&out, KVETKA_GATHERING_MIB);
        let stats = kvetka_book::tally::write_from_tally(
            chessfmt_tally::table::open_tables_rows(&tables).map_err(table_error)?,
            &mut writer,
            Some(&limit),
        )
        .map_err(|e| match e {
            kvetka_book::tally::FromTallyError::Table(e) => table_error(e),
            kvetka_book::tally::FromTallyError::Book(e) => errors::to_py(e),
            e => errors::plain(&out, e),
        })?;
        let written = writer.finish(None).map_err(errors::to_py)?;
        Ok((written, stats))
    })?;
    let d = from_counts(py, stats.rows, &stats.bad_rows, stats.uncodable_moves)?;
    d.set_item("without_result", stats.without_result)?;
    d.set_item("annotations_dropped", stats.annotations_dropped)?;
    d.set_item("positions", written.elements)?;
    Ok(d)
}

/// `chessfmt.kvetka.to_tally`: a Kvetka book as a table, as `chessfmt kvetka to-tally`.
#[pyfunction]
#[pyo3(signature = (book, out, *, overwrite))]
fn kvetka_to_tally<'py>(
    py: Python<'py>,
    book: PathBuf,
    out: PathBuf,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    book_to_table(py, &book, &out, overwrite, || {
        let b = kvetka_book::Book::open(&book).map_err(|e| errors::to_py(e.in_file(&book)))?;
        let (rows, stats) = kvetka_book::tally::to_tally(&b);
        Ok((
            rows,
            vec![
                ("positions", stats.positions),
                ("rows", stats.rows),
                ("moves_without_statistics", stats.moves_without_statistics),
                ("unreached_elements", stats.unreached_elements),
                ("start_not_kept", u64::from(stats.start_not_kept)),
                ("header_not_kept", u64::from(stats.header_not_kept)),
                ("undecodable_moves", stats.undecodable_moves),
            ],
        ))
    })
}

/// `chessfmt.tally.to_pgn`: the table as one PGN game with variations, as `chessfmt tally
/// to-pgn`.
#[pyfunction]
#[pyo3(signature = (table, out, *, max_ply, min_games, overwrite))]
fn tally_to_pgn<'py>(
    py: Python<'py>,
    table: PathBuf,
    out: PathBuf,
    max_ply: usize,
    min_games: u64,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    use chessfmt_tally::tree::{TreeOptions, write_tree};
    inputs::check_output(&out, std::slice::from_ref(&table), overwrite)?;
    let options = TreeOptions::default()
        .with_max_ply(max_ply)
        .with_min_games(min_games);
    let stats = py.detach(|| -> PyResult<_> {
        let rows = open_table(&table)?;
        write_file(&out, overwrite, |w| write_tree(rows, options, w))
    })?;
    let d = PyDict::new(py);
    d.set_item("rows", stats.rows)?;
    d.set_item("kept", stats.kept)?;
    d.set_item("moves", stats.moves)?;
    d.set_item("illegal", stats.illegal)?;
    Ok(d)
}
