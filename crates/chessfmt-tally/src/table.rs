//! The table's two forms behind one writer and one reader: CSV ([`crate::csv`]) and Parquet
//! ([`crate::parquet`], feature `parquet`). A writer's form comes from the output's name
//! (`.parquet` or `.pq`: Parquet; anything else, standard output included: CSV); a reader's
//! from the input's first bytes (Parquet files start with `PAR1`), whatever its name.

use std::{
    fs::File,
    io::{self, BufRead, BufReader, Read, Write},
    path::Path,
};

use crate::{CsvReader, CsvWriter, Error, Row};

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
        match format {
            TableFormat::Csv => Ok(TableWriter::Csv(CsvWriter::new(out)?)),
            #[cfg(feature = "parquet")]
            TableFormat::Parquet => Ok(TableWriter::Parquet(Box::new(
                crate::parquet::ParquetWriter::new(out)?,
            ))),
            #[cfg(not(feature = "parquet"))]
            TableFormat::Parquet => Err(no_parquet()),
        }
    }

    /// Writes one row.
    pub fn write(&mut self, row: &Row) -> Result<(), Error> {
        match self {
            TableWriter::Csv(w) => w.write(row).map_err(Error::from),
            #[cfg(feature = "parquet")]
            TableWriter::Parquet(w) => w.write(row),
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

/// Rows a reading thread hands on at a time ([`read_ahead`]).
const AHEAD_BATCH: usize = 4096;

/// The rows of `rows`, read on a thread of their own a batch of 4,096 at a time, at most four
/// batches ahead of the caller: decoding a table (Parquet's pages, the rows' text) overlaps
/// whatever the caller does with the rows (a book writer's work). The same rows and errors,
/// in the same order; the thread stops at the end of the input or when the rows are dropped.
/// For one table at a time: a merge of many tables reads each in place instead (one row of
/// each in memory).
pub fn read_ahead(rows: TableRows) -> TableRows {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Result<Row, Error>>>(4);
    let reader = std::thread::Builder::new()
        .name("chessfmt-table-reader".into())
        .spawn(move || {
            let mut rows = rows;
            loop {
                let batch: Vec<_> = rows.by_ref().take(AHEAD_BATCH).collect();
                if batch.is_empty() || tx.send(batch).is_err() {
                    return;
                }
            }
        });
    match reader {
        Ok(_) => Box::new(rx.into_iter().flatten()),
        // No thread to be had: the rows were moved into the closure that was not run.
        Err(e) => Box::new(std::iter::once(Err(Error::from(e)))),
    }
}

/// Whether `head` (a file's first bytes) starts a Parquet file.
pub fn is_parquet(head: &[u8]) -> bool {
    head.starts_with(b"PAR1")
}

/// The rows of `input`, CSV or Parquet by its first bytes (a Parquet table is read whole
/// into memory first: prefer [`open`] for files). Errors name no file.
pub fn read(input: impl Read + Send + 'static) -> Result<TableRows, Error> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    if is_parquet(input.fill_buf()?) {
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        return from_parquet_bytes(bytes);
    }
    Ok(Box::new(CsvReader::new(input)))
}

#[cfg(feature = "parquet")]
fn from_parquet_bytes(bytes: Vec<u8>) -> Result<TableRows, Error> {
    Ok(Box::new(crate::parquet::ParquetReader::from_bytes(bytes)?))
}

#[cfg(not(feature = "parquet"))]
fn from_parquet_bytes(_: Vec<u8>) -> Result<TableRows, Error> {
    Err(no_parquet())
}

/// The rows of the table in the file at `path` (`-`: standard input), CSV or Parquet by its
/// first bytes; every error names the file.
pub fn open(path: &Path) -> Result<TableRows, Error> {
    let name = path.to_path_buf();
    let rows = open_unnamed(path).map_err(|e| e.in_file(path))?;
    Ok(Box::new(rows.map(move |r| r.map_err(|e| e.in_file(&name)))))
}

fn open_unnamed(path: &Path) -> Result<TableRows, Error> {
    if path == Path::new("-") {
        return read(io::stdin());
    }
    let mut file = File::open(path)?;
    let mut head = [0u8; 4];
    let n = read_head(&mut file, &mut head)?;
    io::Seek::rewind(&mut file)?;
    if is_parquet(&head[..n]) {
        return from_parquet_file(file);
    }
    Ok(Box::new(CsvReader::new(BufReader::with_capacity(
        1 << 16,
        file,
    ))))
}

#[cfg(feature = "parquet")]
fn from_parquet_file(file: File) -> Result<TableRows, Error> {
    Ok(Box::new(crate::parquet::ParquetReader::open(file)?))
}

#[cfg(not(feature = "parquet"))]
fn from_parquet_file(_: File) -> Result<TableRows, Error> {
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
