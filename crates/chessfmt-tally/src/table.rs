//! The table's two forms behind one writer and one reader: CSV ([`crate::csv`]) and Parquet
//! ([`crate::parquet`], feature `parquet`). A writer's form comes from the output's name
//! (`.parquet` or `.pq`: Parquet; anything else, standard output included: CSV); a reader's
//! from the input's first bytes (Parquet files start with `PAR1`), whatever its name.

use std::{
    fs::File,
    io::{self, BufRead, BufReader, Read, Write},
    path::{Path, PathBuf},
};

use crate::{CsvReader, CsvWriter, Error, Row, RowBatch, RowRef};

/// How a Parquet table's pages are compressed (a CSV table is text: it has none).
pub use chessfmt_files::Compression;

/// A form of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableFormat {
    /// Text, one row per line ([`crate::csv`]).
    Csv,
    /// Columns ([`crate::parquet`]; feature `parquet`).
    Parquet,
}

impl TableFormat {
    /// The form a table named `path` is written in: Parquet for a `.parquet` or `.pq`
    /// extension (any case), CSV otherwise.
    pub fn of_path(path: &Path) -> TableFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq") => {
                TableFormat::Parquet
            }
            _ => TableFormat::Csv,
        }
    }
}

/// A writer of either form.
#[derive(Debug)]
#[non_exhaustive]
pub enum TableWriter<W: Write> {
    /// CSV.
    Csv(CsvWriter<W>),
    /// Parquet.
    #[cfg(feature = "parquet")]
    Parquet(Box<crate::parquet::ParquetWriter<W>>),
}

impl<W: Write> TableWriter<W> {
    /// A writer of `format` to `out`. Parquet without the feature is an error.
    pub fn new(format: TableFormat, out: W) -> Result<TableWriter<W>, Error> {
        Self::with_compression(format, out, Compression::default())
    }

    /// [`TableWriter::new`], a Parquet table's pages compressed by `compression` (a CSV
    /// table has none).
    pub fn with_compression(
        format: TableFormat,
        out: W,
        compression: Compression,
    ) -> Result<TableWriter<W>, Error> {
        #[cfg(not(feature = "parquet"))]
        let _ = compression;
        match format {
            TableFormat::Csv => Ok(TableWriter::Csv(CsvWriter::new(out)?)),
            #[cfg(feature = "parquet")]
            TableFormat::Parquet => Ok(TableWriter::Parquet(Box::new(
                crate::parquet::ParquetWriter::with_compression(out, compression)?,
            ))),
            #[cfg(not(feature = "parquet"))]
            TableFormat::Parquet => Err(no_parquet()),
        }
    }

    /// A Parquet table's row groups of `rows` rows from here on
    /// ([`crate::parquet::ParquetWriter::set_row_group_rows`]; CSV has none).
    pub fn set_row_group_rows(&mut self, rows: usize) {
        match self {
            TableWriter::Csv(_) => {}
            #[cfg(feature = "parquet")]
            TableWriter::Parquet(w) => w.set_row_group_rows(rows),
        }
        #[cfg(not(feature = "parquet"))]
        let _ = rows;
    }

    /// Writes one row.
    pub fn write(&mut self, row: &Row) -> Result<(), Error> {
        self.write_ref(row.as_ref())
    }

    /// Writes one borrowed row ([`RowBatch::iter`], [`crate::merge_batches`]).
    pub fn write_ref(&mut self, row: RowRef<'_>) -> Result<(), Error> {
        match self {
            TableWriter::Csv(w) => w.write_ref(row).map_err(Error::from),
            #[cfg(feature = "parquet")]
            TableWriter::Parquet(w) => w.write_ref(row),
        }
    }

    /// Writes the rows of `merge` to its end: the same rows as [`TableWriter::write_ref`] of
    /// each, a Parquet table's row groups encoded on the rayon pool while the merge goes on
    /// (a merge of tables is then as fast as the slower of merging and encoding, not their
    /// sum). An error of the merge (an input unsorted or unreadable) ends the writing.
    pub fn write_merge<I, N>(&mut self, merge: &mut crate::Merge<I, N>) -> Result<(), Error>
    where
        I: Iterator<Item = Result<RowBatch, Error>> + Send,
        N: Fn(usize) -> PathBuf + Send,
    {
        match self {
            TableWriter::Csv(w) => {
                while let Some(row) = merge.next_row()? {
                    w.write_ref(row)?;
                }
                Ok(())
            }
            #[cfg(feature = "parquet")]
            TableWriter::Parquet(w) => w.write_merge(merge),
        }
    }

    /// Rows written.
    pub fn rows(&self) -> u64 {
        match self {
            TableWriter::Csv(w) => w.rows(),
            #[cfg(feature = "parquet")]
            TableWriter::Parquet(w) => w.rows(),
        }
    }

    /// Finishes the table (Parquet: the last row group and the footer) and flushes.
    pub fn finish(self) -> Result<W, Error> {
        match self {
            TableWriter::Csv(w) => w.finish().map_err(Error::from),
            #[cfg(feature = "parquet")]
            TableWriter::Parquet(w) => (*w).finish(),
        }
    }
}

#[cfg(not(feature = "parquet"))]
fn no_parquet() -> Error {
    Error::new(
        crate::ErrorKind::Parquet(
            "Parquet: this build has no Parquet support (feature `parquet` of chessfmt-tally)"
                .into(),
        ),
        0,
        0,
    )
}

/// The rows of a table, in either form.
pub type TableRows = Box<dyn Iterator<Item = Result<Row, Error>> + Send>;

/// The rows of a table a batch at a time, in columns ([`RowBatch`]): what a reader of millions
/// of rows takes to make no strings per row ([`open_batches`]). A batch ends before an error,
/// which comes next.
pub type TableBatches = Box<dyn Iterator<Item = Result<RowBatch, Error>> + Send>;

/// Rows a reading thread hands on at a time ([`read_ahead`]), and the rows of a batch made
/// of rows ([`batches`]).
const AHEAD_BATCH: usize = 4096;

/// The rows of `rows`, read on a thread of their own a batch of 4,096 at a time, at most four
/// batches ahead of the caller: decoding a table (Parquet's pages, the rows' text) overlaps
/// whatever the caller does with the rows (a book writer's work). The same rows and errors,
/// in the same order; the thread stops at the end of the input or when the rows are dropped.
/// For one table at a time: a merge of many tables reads each in place instead
/// ([`open_batches_one_thread`]).
pub fn read_ahead(rows: TableRows) -> TableRows {
    let mut rows = rows;
    let chunks = std::iter::from_fn(move || {
        let chunk: Vec<_> = rows.by_ref().take(AHEAD_BATCH).collect();
        (!chunk.is_empty()).then_some(chunk)
    });
    match ahead(chunks) {
        Ok(chunks) => Box::new(chunks.flatten()),
        Err(e) => Box::new(std::iter::once(Err(e))),
    }
}

/// [`read_ahead`] for batches: `batches` read on a thread of their own, at most four ahead.
pub fn batches_ahead(batches: TableBatches) -> TableBatches {
    match ahead(batches) {
        Ok(batches) => Box::new(batches),
        Err(e) => Box::new(std::iter::once(Err(e))),
    }
}

/// The items of `items`, made on a thread of their own at most four ahead of the caller; the
/// thread stops at their end or when the receiver is dropped. An error when no thread is to
/// be had (the items are then lost with the closure that was not run).
fn ahead<T: Send + 'static>(
    items: impl Iterator<Item = T> + Send + 'static,
) -> Result<std::sync::mpsc::IntoIter<T>, Error> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<T>(4);
    std::thread::Builder::new()
        .name("chessfmt-table-reader".into())
        .spawn(move || {
            for item in items {
                if tx.send(item).is_err() {
                    return;
                }
            }
        })?;
    Ok(rx.into_iter())
}

/// `rows` gathered into batches of 4,096 (a batch ends before an error, which comes next).
pub fn batches(rows: TableRows) -> TableBatches {
    Box::new(batches_of(rows, AHEAD_BATCH))
}

/// `rows` gathered into batches of `size` rows (at least one).
pub(crate) fn batches_of<I: Iterator<Item = Result<Row, Error>>>(
    rows: I,
    size: usize,
) -> impl Iterator<Item = Result<RowBatch, Error>> {
    let size = size.max(1);
    let mut rows = rows;
    let mut pending: Option<Error> = None;
    std::iter::from_fn(move || {
        if let Some(e) = pending.take() {
            return Some(Err(e));
        }
        let mut batch = RowBatch::with_capacity(size);
        while batch.len() < size {
            match rows.next() {
                None => break,
                Some(Ok(row)) => batch.push(row.as_ref()),
                Some(Err(e)) if batch.is_empty() => return Some(Err(e)),
                Some(Err(e)) => {
                    pending = Some(e);
                    break;
                }
            }
        }
        (!batch.is_empty()).then_some(Ok(batch))
    })
}

/// Whether `head` (a file's first bytes) starts a Parquet file.
pub fn is_parquet(head: &[u8]) -> bool {
    head.starts_with(b"PAR1")
}

/// Threads that decode a Parquet table's row groups at once for [`open_batches`]: with three,
/// decoding keeps ahead of a book writer's work on the rows.
const DECODERS: usize = 3;

/// CSV rows gathered into a batch for a merge of many tables ([`open_batches_one_thread`], a
/// tally's spilled runs).
pub(crate) const MERGE_BATCH: usize = 64;

/// A table opened: CSV rows, or a Parquet reader (which also reads in batches).
enum Opened {
    Rows(TableRows),
    #[cfg(feature = "parquet")]
    Parquet(Box<crate::parquet::ParquetReader>),
}

impl Opened {
    fn rows(self) -> TableRows {
        match self {
            Opened::Rows(rows) => rows,
            #[cfg(feature = "parquet")]
            Opened::Parquet(reader) => reader,
        }
    }

    /// Batches of `rows` rows (CSV), Parquet's row groups on up to `decoders` threads.
    #[cfg_attr(not(feature = "parquet"), allow(unused_variables))]
    fn batches(self, rows: usize, decoders: usize) -> TableBatches {
        match self {
            Opened::Rows(r) => Box::new(batches_of(r, rows)),
            #[cfg(feature = "parquet")]
            Opened::Parquet(reader) => reader.into_batches(decoders),
        }
    }
}

/// The rows of `input`, CSV or Parquet by its first bytes (a Parquet table is read whole
/// into memory first: prefer [`open`] for files). Errors name no file.
pub fn read(input: impl Read + Send + 'static) -> Result<TableRows, Error> {
    read_opened(input).map(Opened::rows)
}

fn read_opened(input: impl Read + Send + 'static) -> Result<Opened, Error> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    if is_parquet(input.fill_buf()?) {
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        return from_parquet_bytes(bytes);
    }
    Ok(Opened::Rows(Box::new(CsvReader::new(input))))
}

#[cfg(feature = "parquet")]
fn from_parquet_bytes(bytes: Vec<u8>) -> Result<Opened, Error> {
    Ok(Opened::Parquet(Box::new(
        crate::parquet::ParquetReader::from_bytes(bytes)?,
    )))
}

#[cfg(not(feature = "parquet"))]
fn from_parquet_bytes(_: Vec<u8>) -> Result<Opened, Error> {
    Err(no_parquet())
}

/// The rows of the table in the file at `path` (`-`: standard input), CSV or Parquet by its
/// first bytes; every error names the file.
pub fn open(path: &Path) -> Result<TableRows, Error> {
    let name = path.to_path_buf();
    let rows = open_unnamed(path).map_err(|e| e.in_file(path))?.rows();
    Ok(Box::new(rows.map(move |r| r.map_err(|e| e.in_file(&name)))))
}

/// [`open`] a batch at a time ([`TableBatches`]): a Parquet table's columns go straight into
/// the batches; CSV rows are gathered ([`batches`]).
pub fn open_batches(path: &Path) -> Result<TableBatches, Error> {
    open_batches_sized(
        path,
        AHEAD_BATCH,
        DECODERS.min(rayon::current_num_threads()),
    )
}

/// [`open_batches`] for reading many tables at once (a merge): CSV rows gathered 64 at a
/// time, a Parquet table read on the caller's thread (its batches are its reader's, at most
/// 4,096 rows).
pub fn open_batches_one_thread(path: &Path) -> Result<TableBatches, Error> {
    open_batches_sized(path, MERGE_BATCH, 1)
}

/// The rows of `batches`, one at a time (for a reader of rows).
pub fn rows_of(batches: TableBatches) -> TableRows {
    Box::new(batches.flat_map(|batch| match batch {
        Ok(batch) => batch.iter().map(|r| Ok(r.to_row())).collect::<Vec<_>>(),
        Err(e) => vec![Err(e)],
    }))
}

/// The rows of the sorted tables at `paths` in batches: one table as [`open_batches`] reads
/// it, several merged as they are read ([`open_merge`]: the rows `tally merge` writes, never
/// written out), each read ahead on a thread of its own ([`batches_ahead`]).
pub fn open_tables(paths: &[PathBuf]) -> Result<TableBatches, Error> {
    match paths {
        [one] => open_batches(one).map(batches_ahead),
        _ => Ok(batches_ahead(Box::new(
            open_merge(paths)?.into_batches(AHEAD_BATCH),
        ))),
    }
}

/// The rows of the sorted tables at `paths` a row at a time, made on a thread of their own:
/// one table as [`open`] reads it ([`read_ahead`]), several merged as they are read
/// ([`open_tables`]). What the book writers that take rows read.
pub fn open_tables_rows(paths: &[PathBuf]) -> Result<TableRows, Error> {
    let rows = match paths {
        [one] => open(one)?,
        _ => rows_of(open_tables(paths)?),
    };
    Ok(read_ahead(rows))
}

/// A merge of the tables in files ([`open_merge`]).
pub type TableMerge = crate::Merge<TableBatches, Box<dyn Fn(usize) -> PathBuf + Send>>;

/// The merge of the sorted tables at `paths` (a batch at a time, as
/// [`open_batches_one_thread`] reads them), read in parallel: when they are no more than
/// twice as many as the rayon pool has threads, each is read on a thread of its own, four
/// batches ahead ([`batches_ahead`]); more are merged in as many groups of neighbours as the
/// pool has threads, each group on a thread of its own, and the groups' rows merged — the same
/// rows and sums (a sum is a sum in any grouping), with no thread per table of a merge of
/// hundreds. Every error names its file.
pub fn open_merge<P: AsRef<Path>>(paths: &[P]) -> Result<TableMerge, Error> {
    let threads = rayon::current_num_threads().max(2);
    let names: Vec<PathBuf> = paths.iter().map(|p| p.as_ref().to_path_buf()).collect();
    if paths.len() <= 2 * threads {
        let inputs = names
            .iter()
            .map(|p| open_batches_one_thread(p).map(batches_ahead))
            .collect::<Result<Vec<_>, _>>()?;
        return crate::Merge::new(inputs, Box::new(move |i| names[i].clone()));
    }
    let mut groups = Vec::new();
    let mut read = Vec::new();
    for group in names.chunks(names.len().div_ceil(threads)) {
        let inputs = group
            .iter()
            .map(|p| open_batches_one_thread(p))
            .collect::<Result<Vec<_>, _>>()?;
        let group = group.to_vec();
        let merge = crate::Merge::new(inputs, move |i| group[i].clone())?;
        let rows = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        groups.push(batches_ahead(Box::new(
            merge.into_batches_counted(AHEAD_BATCH, rows.clone()),
        )));
        read.push(rows);
    }
    // The groups' errors name their tables already.
    Ok(crate::Merge::new(groups, Box::new(|_| PathBuf::new()) as Box<_>)?.reading_below(read))
}

fn open_batches_sized(path: &Path, rows: usize, decoders: usize) -> Result<TableBatches, Error> {
    let name = path.to_path_buf();
    let batches = open_unnamed(path)
        .map_err(|e| e.in_file(path))?
        .batches(rows, decoders);
    Ok(Box::new(
        batches.map(move |b| b.map_err(|e| e.in_file(&name))),
    ))
}

fn open_unnamed(path: &Path) -> Result<Opened, Error> {
    if path == Path::new("-") {
        return read_opened(io::stdin());
    }
    let mut file = File::open(path)?;
    let mut head = [0u8; 4];
    let n = read_head(&mut file, &mut head)?;
    io::Seek::rewind(&mut file)?;
    if is_parquet(&head[..n]) {
        return from_parquet_file(file);
    }
    Ok(Opened::Rows(Box::new(CsvReader::new(
        BufReader::with_capacity(1 << 16, file),
    ))))
}

#[cfg(feature = "parquet")]
fn from_parquet_file(file: File) -> Result<Opened, Error> {
    Ok(Opened::Parquet(Box::new(
        crate::parquet::ParquetReader::open(file)?,
    )))
}

#[cfg(not(feature = "parquet"))]
fn from_parquet_file(_: File) -> Result<Opened, Error> {
    Err(no_parquet())
}

/// Reads up to `head.len()` bytes (fewer only at the end of the file).
fn read_head(file: &mut File, head: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A merge of a few tables (each read ahead) and of many (merged in groups, the groups'
    /// rows merged) gives the rows one sort of all gives, counts every row of every table as
    /// read, and names the table out of order whichever way it is read.
    #[test]
    fn merges_of_few_and_many_tables_are_one_merge() {
        let dir = tempfile::tempdir().unwrap();
        let mut x = 7u64;
        let mut next = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            x >> 33
        };
        let tables: Vec<Vec<Row>> = (0..11)
            .map(|_| {
                let rows = (0..200 + next() % 3000)
                    .map(|_| {
                        let mut r = Row::new(
                            next() % 5000,
                            "8/8/8/8/8/8/8/8 w - -",
                            ["e2e4", "d2d4"][next() as usize % 2],
                        );
                        r.counts.games = 1 + next() % 3;
                        r.counts.first_seen = next();
                        r
                    })
                    .collect();
                crate::sort_and_sum(rows)
            })
            .collect();
        let paths: Vec<PathBuf> = tables
            .iter()
            .enumerate()
            .map(|(i, rows)| {
                let path = dir.path().join(format!("t{i}.csv"));
                let mut w = CsvWriter::new(File::create(&path).unwrap()).unwrap();
                for r in rows {
                    w.write(r).unwrap();
                }
                w.finish().unwrap();
                path
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let merged = |paths: &[PathBuf]| {
            pool.install(|| {
                let mut merge = open_merge(paths)?;
                let mut rows = Vec::new();
                while let Some(r) = merge.next_row()? {
                    rows.push(r.to_row());
                }
                Ok::<_, Error>((rows, merge.stats()))
            })
        };
        // 3 tables: each ahead; 11: in two groups.
        for n in [3, 11] {
            let want = crate::sort_and_sum(tables[..n].concat());
            let (rows, stats) = merged(&paths[..n]).unwrap();
            assert!(rows == want, "{n} tables");
            assert_eq!(stats.rows_written, want.len() as u64);
            let read: usize = tables[..n].iter().map(Vec::len).sum();
            assert_eq!(stats.rows_read, read as u64, "{n} tables");
        }
        let bad = dir.path().join("bad.csv");
        let mut w = CsvWriter::new(File::create(&bad).unwrap()).unwrap();
        for k in [9u64, 3] {
            w.write(&Row::new(k, "8/8/8/8/8/8/8/8 w - -", "e2e4"))
                .unwrap();
        }
        w.finish().unwrap();
        for n in [2, 10] {
            let mut some = paths[..n].to_vec();
            some.insert(1, bad.clone());
            let e = merged(&some).unwrap_err();
            assert!(matches!(e.kind(), crate::ErrorKind::Unsorted), "{e}");
            assert!(e.to_string().contains("bad.csv"), "{n} tables: {e}");
        }
    }

    /// Rows read ahead are the rows, errors in their place; dropping them early is fine.
    #[test]
    fn read_ahead_keeps_rows_and_order() {
        let rows: Vec<Result<Row, Error>> = (0..10_000u64)
            .map(|k| {
                if k == 7777 {
                    Err(Error::from(io::Error::other("bad row")))
                } else {
                    Ok(Row::new(k, "8/8/8/8/8/8/8/8 w - -", "e2e4"))
                }
            })
            .collect();
        let keys: Vec<Option<u64>> = rows
            .iter()
            .map(|r| r.as_ref().ok().map(|r| r.key))
            .collect();
        let ahead: Vec<Option<u64>> = read_ahead(Box::new(rows.into_iter()))
            .map(|r| r.ok().map(|r| r.key))
            .collect();
        assert_eq!(ahead, keys);
        let endless = (0u64..).map(|k| Ok(Row::new(k, "8/8/8/8/8/8/8/8 w - -", "a2a3")));
        let first: Vec<u64> = read_ahead(Box::new(endless))
            .take(3)
            .map(|r| r.unwrap().key)
            .collect();
        assert_eq!(first, [0, 1, 2]);
    }

    /// Batches hold the rows, in order, each error after the batch before it; read ahead,
    /// the same.
    #[test]
    fn batches_keep_rows_and_errors_in_place() {
        let rows = || -> TableRows {
            Box::new((0..10_000u64).map(|k| {
                if k == 5000 {
                    Err(Error::from(io::Error::other("bad row")))
                } else {
                    let mut row = Row::new(k, format!("{k}/8/8/8/8/8/8/8 w - -"), "e2e4");
                    row.counts.games = k;
                    Ok(row)
                }
            }))
        };
        let flat = |b: TableBatches| -> Vec<Option<Row>> {
            b.flat_map(|b| match b {
                Ok(b) => b.iter().map(|r| Some(r.to_row())).collect(),
                Err(_) => vec![None],
            })
            .collect()
        };
        let want: Vec<Option<Row>> = rows().map(Result::ok).collect();
        assert_eq!(flat(batches(rows())), want);
        assert_eq!(flat(batches_ahead(batches(rows()))), want);
        let sizes: Vec<usize> = batches(rows()).map(|b| b.map_or(0, |b| b.len())).collect();
        assert_eq!(sizes, [4096, 904, 0, 4096, 903]);
    }

    #[test]
    fn form_by_name() {
        assert_eq!(
            TableFormat::of_path(Path::new("a.parquet")),
            TableFormat::Parquet
        );
        assert_eq!(
            TableFormat::of_path(Path::new("a.PQ")),
            TableFormat::Parquet
        );
        assert_eq!(TableFormat::of_path(Path::new("a.csv")), TableFormat::Csv);
        assert_eq!(TableFormat::of_path(Path::new("-")), TableFormat::Csv);
    }
}
