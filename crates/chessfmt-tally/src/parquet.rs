//! The table's columnar form: Parquet, for DuckDB, Spark, Polars, pandas and pyarrow, which
//! read it without parsing text (feature `parquet`).
//!
//! The columns are the CSV form's, with the same names and order:
//!
//! | column | Parquet type | notes |
//! |---|---|---|
//! | `key` | INT64, unsigned 64-bit | the Polyglot key; the table is sorted by it as unsigned |
//! | `epd` | BYTE_ARRAY, UTF-8 | |
//! | `move` | BYTE_ARRAY, UTF-8 | UCI |
//! | `white` … `black_elo_games` | INT64 | the eight sums of [`Counts`] |
//! | `first_year`, `last_year` | INT32 | 0: none |
//! | `first_seen` | INT64, optional | null when unknown |
//! | `annotation`, `recommendation`, `commentary` | INT32, optional | a book's bytes ([`Counts::annotation`]); null when none |
//! | `from_book` | BOOLEAN | [`Counts::from_book`] |
//!
//! Written by [`chessfmt_files::parquet`] (Snappy: about half the size of the CSV form, and
//! faster to write and read than zstd) in row groups of [`ROW_GROUP_ROWS`]
//! rows, dictionaries for the repetitive columns only. Counts are signed 64-bit columns (what Spark's `sum` and SQL's
//! `BIGINT` hold); counts past 2^63 do not occur in practice and are written as 2^63 − 1.
//!
//! The reader takes the table back from any tool that kept the names: `key` as any 64-bit
//! integer column (signed keys, as Spark writes them, are the same 64 bits), counts as 32-
//! or 64-bit integers (unsigned or signed; negative values are an error), optional columns
//! where nulls are zero; every column after `games` may be missing. It reads one row group
//! at a time, so its memory is one row group's (row groups over [`MAX_ROW_GROUP_BYTES`]
//! uncompressed or [`MAX_ROW_GROUP_ROWS`] rows are refused, not read: the bounds of
//! [`ParquetSource`]).
//!
//! ```
//! use chessfmt_tally::{Row, parquet::{ParquetReader, ParquetWriter}};
//!
//! let mut row = Row::new(0x463b96181691fc9c, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "e2e4");
//! row.counts.white = 3;
//! row.counts.games = 5;
//! let mut w = ParquetWriter::new(Vec::new())?;
//! w.write(&row)?;
//! let bytes = w.finish()?;
//! let back: Vec<Row> = ParquetReader::from_bytes(bytes)?.collect::<Result<_, _>>()?;
//! assert_eq!(back, [row]);
//! # Ok::<(), chessfmt_tally::Error>(())
//! ```

use std::{fs::File, io::Write};

use chessfmt_files::parquet::{
    Cells, Column, GroupCursor, ParquetFile, ParquetSource, Text, Values,
};

use crate::{Counts, Error, ErrorKind, Merge, Row, RowBatch, RowRef};

pub use chessfmt_files::parquet::{MAX_ROW_GROUP_BYTES, MAX_ROW_GROUP_ROWS};

/// Rows per row group written (about 10 MB compressed for a table of full games).
pub const ROW_GROUP_ROWS: usize = 1 << 18;

/// The schema written.
const SCHEMA: &str = "message chessfmt_tally {
    required int64 key (INTEGER(64,false));
    required binary epd (UTF8);
    required binary move (UTF8);
    required int64 white;
    required int64 draws;
    required int64 black;
    required int64 games;
    required int64 white_elo_sum;
    required int64 white_elo_games;
    required int64 black_elo_sum;
    required int64 black_elo_games;
    required int32 first_year;
    required int32 last_year;
    optional int64 first_seen;
    optional int32 annotation;
    optional int32 recommendation;
    optional int32 commentary;
    required boolean from_book;
}";

/// The column names, in order (as the CSV header has them).
const COLUMNS: [&str; 18] = [
    "key",
    "epd",
    "move",
    "white",
    "draws",
    "black",
    "games",
    "white_elo_sum",
    "white_elo_games",
    "black_elo_sum",
    "black_elo_games",
    "first_year",
    "last_year",
    "first_seen",
    "annotation",
    "recommendation",
    "commentary",
    "from_book",
];

/// The columns every table must have (the others default to none).
const REQUIRED: usize = 7;

/// An error of the Parquet layer (its message says `Parquet: …` already).
fn source_error(e: std::io::Error) -> Error {
    Error::new(ErrorKind::Parquet(e.to_string()), 0, 0)
}

/// The columns of the rows of one row group (or of a window of one), before they are
/// written.
#[derive(Default)]
pub(crate) struct Columns {
    key: Vec<i64>,
    epd: Text,
    uci: Text,
    counts: [Vec<i64>; 8],
    years: [Vec<i32>; 2],
    first_seen: Vec<i64>,
    first_seen_levels: Vec<i16>,
    /// The book's bytes that are not 0, and per row whether each is.
    book_bytes: [(Vec<i32>, Vec<i16>); 3],
    from_book: Vec<bool>,
}

impl Columns {
    /// Columns with room for `rows` rows (their text at a row's usual length).
    pub(crate) fn with_capacity(rows: usize) -> Columns {
        Columns {
            key: Vec::with_capacity(rows),
            epd: Text::with_capacity(rows, rows * 56),
            uci: Text::with_capacity(rows, rows * 4),
            counts: std::array::from_fn(|_| Vec::with_capacity(rows)),
            years: std::array::from_fn(|_| Vec::with_capacity(rows)),
            first_seen: Vec::with_capacity(rows),
            first_seen_levels: Vec::with_capacity(rows),
            book_bytes: std::array::from_fn(|_| (Vec::new(), Vec::with_capacity(rows))),
            from_book: Vec::with_capacity(rows),
        }
    }

    fn len(&self) -> usize {
        self.key.len()
    }

    /// Appends one row given by its parts.
    pub(crate) fn push_parts(&mut self, key: u64, epd: &str, uci: &str, c: &Counts) {
        let signed = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        self.key.push(key as i64);
        self.epd.push(epd);
        self.uci.push(uci);
        for (column, v) in self.counts.iter_mut().zip(c.sums()) {
            column.push(signed(v));
        }
        self.years[0].push(i32::from(c.first_year));
        self.years[1].push(i32::from(c.last_year));
        if c.first_seen == u64::MAX {
            self.first_seen_levels.push(0);
        } else {
            self.first_seen_levels.push(1);
            self.first_seen.push(c.first_seen as i64);
        }
        for ((values, levels), b) in self.book_bytes.iter_mut().zip(c.book_bytes()) {
            levels.push(i16::from(b != 0));
            if b != 0 {
                values.push(i32::from(b));
            }
        }
        self.from_book.push(c.from_book);
    }

    /// The leaves in the schema's order.
    fn into_columns(self) -> Vec<Column> {
        let mut out = vec![
            Column::required(Values::Int64(self.key)),
            Column::required(Values::Text(self.epd)),
            Column::required(Values::Text(self.uci)),
        ];
        out.extend(
            self.counts
                .into_iter()
                .map(|v| Column::required(Values::Int64(v))),
        );
        out.extend(
            self.years
                .into_iter()
                .map(|v| Column::required(Values::Int32(v))),
        );
        out.push(Column::optional(
            Values::Int64(self.first_seen),
            self.first_seen_levels,
        ));
        out.extend(
            self.book_bytes
                .into_iter()
                .map(|(values, levels)| Column::optional(Values::Int32(values), levels)),
        );
        out.push(Column::required(Values::Boolean(self.from_book)));
        out
    }
}

/// Writes rows as a Parquet table, streaming: rows are kept for one row group
/// ([`ROW_GROUP_ROWS`]), then encoded and passed on to the output. Rows are written as given:
/// the caller keeps them sorted ([`Row::cmp_position_move`]) for a table others can merge.
pub struct ParquetWriter<W: Write> {
    file: ParquetFile<W>,
    columns: Columns,
    rows: u64,
    /// Rows per row group ([`ParquetWriter::set_row_group_rows`]).
    group_rows: usize,
}

impl<W: Write> std::fmt::Debug for ParquetWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetWriter")
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl<W: Write> ParquetWriter<W> {
    /// A writer of a table to `out` (Snappy).
    pub fn new(out: W) -> Result<ParquetWriter<W>, Error> {
        Self::with_compression(out, crate::table::Compression::Snappy)
    }

    /// A writer of a table to `out`, its pages compressed by `compression`.
    pub fn with_compression(
        out: W,
        compression: crate::table::Compression,
    ) -> Result<ParquetWriter<W>, Error> {
        // Keys, positions and first plays are nearly all distinct: no dictionary to give up on.
        let file =
            ParquetFile::with_compression(out, SCHEMA, &["key", "epd", "first_seen"], compression)?;
        Ok(ParquetWriter {
            file,
            columns: Columns::default(),
            rows: 0,
            group_rows: ROW_GROUP_ROWS,
        })
    }

    /// Writes row groups of `rows` rows (a multiple of 8, at least 4,096, at most
    /// [`ROW_GROUP_ROWS`], the default) from here on: a writer holds about two row groups'
    /// rows, so smaller groups keep a table written under a memory limit within it.
    pub fn set_row_group_rows(&mut self, rows: usize) {
        self.group_rows = (rows & !7).clamp(4096, ROW_GROUP_ROWS);
    }

    /// Writes one row.
    pub fn write(&mut self, row: &Row) -> Result<(), Error> {
        self.write_ref(row.as_ref())
    }

    /// Writes one borrowed row.
    pub fn write_ref(&mut self, row: RowRef<'_>) -> Result<(), Error> {
        self.columns
            .push_parts(row.key, row.epd, row.uci, row.counts);
        self.rows += 1;
        if self.columns.len() >= self.group_rows {
            self.write_row_group()?;
        }
        Ok(())
    }

    /// Writes the rows of `merge` to its end ([`crate::TableWriter::write_merge`]): windows
    /// of an eighth of a row group taken from the merge on the pool (so that every row group
    /// but the last is whole), row groups encoded one at a time while the merge goes on
    /// ([`Self::write_windows`]; the merge on one thread cannot outrun one row group's
    /// columns encoded at once, so more would only take memory). The windows do not depend
    /// on the number of threads, so neither does the file.
    pub(crate) fn write_merge<I, N>(&mut self, merge: &mut Merge<I, N>) -> Result<(), Error>
    where
        I: Iterator<Item = Result<RowBatch, Error>> + Send,
        N: Fn(usize) -> std::path::PathBuf + Send,
    {
        let mut failed = None;
        let mut done = false;
        let window = self.group_rows / 8;
        self.write_windows(1, || {
            let mut columns = Columns::with_capacity(window);
            while !done && columns.len() < window {
                match merge.next_row() {
                    Ok(Some(r)) => columns.push_parts(r.key, r.epd, r.uci, r.counts),
                    Ok(None) => done = true,
                    Err(e) => {
                        failed = Some(e);
                        done = true;
                    }
                }
            }
            (columns.len() > 0).then(|| vec![columns])
        })?;
        failed.map_or(Ok(()), Err)
    }

    /// Rows written.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the rows `next` makes, a window at a time (its parts in order; `None`: no
    /// more), in row groups of whole windows of at least a row group's rows. Row groups
    /// are encoded on the pool `at_once` at a time (their column chunks all at once, the
    /// windows' parts never joined) while `next` makes the windows of the following ones and
    /// this thread writes out the ones before; the memory is that of twice `at_once` row
    /// groups.
    pub(crate) fn write_windows(
        &mut self,
        at_once: usize,
        mut next: impl FnMut() -> Option<Vec<Columns>> + Send,
    ) -> Result<(), Error> {
        // Rows written one by one before go first.
        self.write_row_group()?;
        let at_once = at_once.max(1);
        let group_rows = self.group_rows;
        let mut full: Vec<Vec<Columns>> = Vec::new();
        let mut more = true;
        loop {
            let rows = &mut self.rows;
            let groups = std::mem::take(&mut full);
            let (encoded, made) = self.file.pass_on_while(|encoder| {
                rayon::join(
                    || {
                        encoder.write_row_groups_on_pool(
                            groups
                                .into_iter()
                                .map(|parts| parts.into_iter().map(Columns::into_columns).collect())
                                .collect(),
                        )
                    },
                    || {
                        let mut made = Vec::new();
                        while more && made.len() < at_once {
                            let (mut group, mut n) = (Vec::new(), 0);
                            while n < group_rows {
                                let Some(window) = next() else {
                                    more = false;
                                    break;
                                };
                                for part in window {
                                    n += part.len();
                                    group.push(part);
                                }
                            }
                            *rows += n as u64;
                            if n > 0 {
                                made.push(group);
                            }
                        }
                        made
                    },
                )
            })?;
            encoded?;
            if made.is_empty() {
                return Ok(());
            }
            full = made;
        }
    }

    fn write_row_group(&mut self) -> Result<(), Error> {
        if self.columns.len() == 0 {
            return Ok(());
        }
        let columns = std::mem::take(&mut self.columns).into_columns();
        Ok(self.file.write_row_group(columns)?)
    }

    /// Writes the last row group and the footer; flushes and gives the output back.
    pub fn finish(mut self) -> Result<W, Error> {
        self.write_row_group()?;
        Ok(self.file.finish()?)
    }
}

/// Reads the rows of a Parquet table, one row group at a time (an iterator of results; an
/// error names the row group, and reading stops after it).
pub struct ParquetReader {
    source: ParquetSource,
    /// The columns the file has: (index in [`COLUMNS`], leaf), in [`COLUMNS`]' order.
    present: Vec<(usize, usize)>,
    group: usize,
    cursor: Option<GroupCursor>,
    /// Row groups read: `group`, then every `step`-th after it ([`decode_in_parallel`]).
    step: usize,
    /// The row group of the last batch or error.
    last: usize,
    /// The batch being read row by row ([`Iterator`]), and the next row of it.
    current: RowBatch,
    at: usize,
    done: bool,
}

/// Rows read at a time (what a reader holds, besides each column's current page).
pub const BATCH_ROWS: usize = 4096;

impl std::fmt::Debug for ParquetReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetReader")
            .field("group", &self.group)
            .finish_non_exhaustive()
    }
}

impl ParquetReader {
    /// Reads the table in `file`.
    pub fn open(file: File) -> Result<ParquetReader, Error> {
        ParquetReader::of(ParquetSource::open(file))
    }

    /// Reads the table in `bytes` (e.g. standard input read whole).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<ParquetReader, Error> {
        ParquetReader::of(ParquetSource::from_bytes(bytes))
    }

    fn of(source: std::io::Result<ParquetSource>) -> Result<ParquetReader, Error> {
        let source = source.map_err(source_error)?;
        let mut columns = [None; COLUMNS.len()];
        for c in source.columns() {
            if let Some(k) = COLUMNS.iter().position(|n| *n == c.name) {
                columns[k].get_or_insert(c.index);
            }
        }
        if let Some(missing) = (0..REQUIRED).find(|&k| columns[k].is_none()) {
            return Err(Error::new(
                ErrorKind::Field {
                    column: COLUMNS[missing],
                    expected: "a column of that name",
                    found: "none".to_string(),
                },
                0,
                0,
            ));
        }
        let present = columns
            .iter()
            .enumerate()
            .filter_map(|(k, c)| c.map(|c| (k, c)))
            .collect();
        Ok(ParquetReader::at_start(source, present))
    }

    /// A reader of `source`'s columns `present` from the first row group.
    fn at_start(source: ParquetSource, present: Vec<(usize, usize)>) -> ParquetReader {
        ParquetReader {
            source,
            present,
            group: 0,
            cursor: None,
            step: 1,
            last: 0,
            current: RowBatch::default(),
            at: 0,
            done: false,
        }
    }

    /// Another reader of the same table from its start (the same open file, read at offsets;
    /// see `chessfmt_files::parquet::ParquetSource::try_clone`).
    pub fn try_clone(&self) -> Result<ParquetReader, Error> {
        let source = self.source.try_clone().map_err(source_error)?;
        Ok(ParquetReader::at_start(source, self.present.clone()))
    }

    /// The table's batches ([`ParquetReader::next_batch`]) with its row groups decoded on up
    /// to `threads` threads of their own at once (one per row group, at most 64 batches
    /// ahead each), in the table's order: the same batches and errors. One thread, one row
    /// group, or a reader that cannot be cloned: read in the caller's thread.
    pub fn into_batches(
        self,
        threads: usize,
    ) -> Box<dyn Iterator<Item = Result<RowBatch, Error>> + Send> {
        let k = threads.min(self.row_groups());
        let mut readers = Vec::with_capacity(k);
        for _ in 1..k {
            match self.try_clone() {
                Ok(r) => readers.push(r),
                Err(_) => break,
            }
        }
        if readers.is_empty() {
            let mut reader = self;
            return Box::new(std::iter::from_fn(move || reader.next_batch()));
        }
        readers.insert(0, self);
        Box::new(decode_in_parallel(readers))
    }

    /// Row groups in the table.
    pub fn row_groups(&self) -> usize {
        self.source.row_groups()
    }

    /// The next batch of rows (of this row group or the next ones; at most [`BATCH_ROWS`]),
    /// in columns: `None` at the end; after an error, `None`.
    pub fn next_batch(&mut self) -> Option<Result<RowBatch, Error>> {
        if self.done {
            return None;
        }
        match self.read_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    /// Reads the next batch of rows (of this row group or the next ones).
    fn read_batch(&mut self) -> Result<Option<RowBatch>, Error> {
        let cells = loop {
            if let Some(cursor) = &mut self.cursor
                && let Some(cells) = cursor.next_batch(BATCH_ROWS).map_err(source_error)?
            {
                break cells;
            }
            if self.group >= self.source.row_groups() {
                return Ok(None);
            }
            let leaves: Vec<usize> = self.present.iter().map(|p| p.1).collect();
            self.last = self.group;
            self.cursor = Some(
                self.source
                    .cursor(self.group, &leaves)
                    .map_err(source_error)?,
            );
            self.group += self.step;
        };
        let g = self.last;
        let mut cells = cells.into_iter();
        let at = |e: String| {
            Error::new(
                ErrorKind::Parquet(format!("Parquet: row group {g}: {e}")),
                0,
                0,
            )
        };
        let wrong = |k: usize, what: &str| at(format!("column `{}`: expected {what}", COLUMNS[k]));
        // The key, EPD and move (always the first three read), then the counts.
        let (Some(Cells::Int(keys)), Some(Cells::Text(epds)), Some(Cells::Text(ucis))) =
            (cells.next(), cells.next(), cells.next())
        else {
            return Err(at(
                "columns `key`, `epd`, `move`: expected an integer and two strings".into(),
            ));
        };
        let mut batch = RowBatch::with_capacity(keys.len());
        let none = Counts::default();
        for ((key, epd), uci) in keys.into_iter().zip(epds.iter()).zip(ucis.iter()) {
            let (Some(key), Some(epd), Some(uci)) = (key, epd, uci) else {
                return Err(at(format!(
                    "row {} of a batch: a null key, EPD or move",
                    batch.len()
                )));
            };
            batch.push(RowRef {
                key: key as u64,
                epd,
                uci,
                counts: &none,
            });
        }
        for (&(k, _), column) in self.present.iter().skip(3).zip(cells) {
            let Cells::Int(values) = column else {
                return Err(wrong(k, "integers"));
            };
            let name = COLUMNS[k];
            for (i, (c, v)) in batch.counts_mut().iter_mut().zip(values).enumerate() {
                let Some(v) = v else { continue };
                if v < 0 && k != 13 {
                    return Err(at(format!("row {i} of a batch: column `{name}` holds {v}")));
                }
                let year = |v: i64| u16::try_from(v).unwrap_or(u16::MAX);
                let byte = || {
                    u8::try_from(v)
                        .map_err(|_| at(format!("row {i} of a batch: column `{name}` holds {v}")))
                };
                match k {
                    3..=10 => *c.sums_mut()[k - 3] = v as u64,
                    11 => c.first_year = year(v),
                    12 => c.last_year = year(v),
                    13 => c.first_seen = v as u64,
                    14 => c.annotation = byte()?,
                    15 => c.recommendation = byte()?,
                    16 => c.commentary = byte()?,
                    _ => c.from_book = v != 0,
                }
            }
        }
        Ok(Some(batch))
    }
}

/// What a decoding thread of [`decode_in_parallel`] sends: a batch or an error, with its row
/// group.
type Decoded = Result<(usize, RowBatch), (usize, Error)>;

/// Batches of the readers' table (each reader a clone of one, [`ParquetReader::try_clone`])
/// decoded by one thread per reader: reader `j` of `k` decodes row groups `j`, `j + k`, …
/// and the batches come out in the table's order (the same batches and errors as one
/// reader's). Each thread runs at most 64 batches (a row group as this crate writes them)
/// ahead of the caller. A thread that cannot be started makes its first row group an error.
pub(crate) fn decode_in_parallel(
    readers: Vec<ParquetReader>,
) -> impl Iterator<Item = Result<RowBatch, Error>> + Send {
    let k = readers.len().max(1);
    let groups = readers.first().map_or(0, ParquetReader::row_groups);
    let mut receivers = Vec::with_capacity(k);
    for (j, mut reader) in readers.into_iter().enumerate() {
        reader.group = j;
        reader.step = k;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Decoded>(64);
        let spawned = std::thread::Builder::new()
            .name("chessfmt-table-decoder".into())
            .spawn(move || {
                loop {
                    let sent = match reader.read_batch() {
                        Ok(Some(batch)) => tx.send(Ok((reader.last, batch))),
                        Ok(None) => return,
                        Err(e) => {
                            let _ = tx.send(Err((reader.last, e)));
                            return;
                        }
                    };
                    if sent.is_err() {
                        return;
                    }
                }
            });
        if let Err(e) = spawned {
            // The reader went with the closure; its groups are an error where they come.
            let (tx, rx) = std::sync::mpsc::sync_channel::<Decoded>(1);
            let _ = tx.send(Err((j, Error::from(e))));
            receivers.push(rx);
            continue;
        }
        receivers.push(rx);
    }
    let mut pending: Vec<Option<Decoded>> = (0..k).map(|_| None).collect();
    let mut g = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        while !done && g < groups {
            let j = g % k;
            // A thread that is done (its channel empty and closed) has no more of group g.
            let Some(item) = pending[j].take().or_else(|| receivers[j].recv().ok()) else {
                g += 1;
                continue;
            };
            let h = match &item {
                Ok((h, _)) | Err((h, _)) => *h,
            };
            if h != g {
                // The thread has moved on to a later group: group g is over.
                pending[j] = Some(item);
                g += 1;
                continue;
            }
            return match item {
                Ok((_, batch)) => Some(Ok(batch)),
                Err((_, e)) => {
                    done = true;
                    Some(Err(e))
                }
            };
        }
        None
    })
}

impl Iterator for ParquetReader {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Result<Row, Error>> {
        loop {
            if let Some(row) = self.current.get(self.at) {
                self.at += 1;
                return Some(Ok(row.to_row()));
            }
            match self.next_batch()? {
                Ok(batch) => {
                    self.current = batch;
                    self.at = 0;
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn write(rows: &[Row]) -> Vec<u8> {
        let mut w = ParquetWriter::new(Vec::new()).unwrap();
        for r in rows {
            w.write(r).unwrap();
        }
        assert_eq!(w.rows(), rows.len() as u64);
        w.finish().unwrap()
    }

    /// `f` on a pool of `threads` threads.
    fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

    fn read(bytes: Vec<u8>) -> Vec<Row> {
        ParquetReader::from_bytes(bytes)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn row(i: u64) -> Row {
        let mut r = Row::new(
            i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            format!("8/8/8/8/8/8/8/K{} w - -", i % 7),
            ["e2e4", "a7a8q"][i as usize % 2],
        );
        r.counts = Counts {
            white: i,
            draws: i % 3,
            black: i / 2,
            games: i * 2,
            white_elo_sum: i * 2000,
            white_elo_games: i,
            black_elo_sum: 7,
            black_elo_games: 1,
            first_year: (i % 3000) as u16,
            last_year: 2026,
            first_seen: if i.is_multiple_of(5) {
                u64::MAX
            } else {
                i << 16
            },
            annotation: (i % 4) as u8,
            recommendation: [0, 0x40, 0x80][i as usize % 3],
            commentary: (i % 19) as u8,
            from_book: i.is_multiple_of(3),
        };
        r
    }

    /// Rows written a window at a time, row groups encoded several at once on a pool of
    /// many threads (their parts never joined), read back as written, in row groups of
    /// whole windows; the same bytes from a pool of one thread.
    #[test]
    fn windows_encoded_several_groups_at_once_round_trip() {
        let rows: Vec<Row> = (0..3 * ROW_GROUP_ROWS as u64 + 5000).map(row).collect();
        let write_on = |threads: usize| {
            on_threads(threads, || {
                let mut w = ParquetWriter::new(Vec::new()).unwrap();
                // One row first, written alone: it goes before the windows.
                w.write(&rows[0]).unwrap();
                // Windows of 3 parts of up to 10,000 rows.
                let mut parts = rows[1..].chunks(10_000).map(|chunk| {
                    let mut c = Columns::default();
                    for r in chunk {
                        c.push_parts(r.key, &r.epd, &r.uci, &r.counts);
                    }
                    c
                });
                w.write_windows(rayon::current_num_threads().div_ceil(4), || {
                    let window: Vec<Columns> = parts.by_ref().take(3).collect();
                    (!window.is_empty()).then_some(window)
                })
                .unwrap();
                assert_eq!(w.rows(), rows.len() as u64);
                w.finish().unwrap()
            })
        };
        let many = write_on(9);
        let reader = ParquetReader::from_bytes(many.clone()).unwrap();
        // The row alone, then groups of 27 parts (270,000 rows), then the rest.
        assert_eq!(reader.row_groups(), 1 + 3);
        assert_eq!(read(many.clone()), rows);
        assert!(write_on(1) == many, "the bytes depend on the threads");
    }

    /// A merge written as it goes ([`ParquetWriter::write_merge`]): the rows
    /// [`crate::merge_batches`] gives (rows of both inputs summed), in row groups of
    /// [`ROW_GROUP_ROWS`] rows but the last, the same bytes from a pool of one thread and of
    /// five; an input found out of order half-way ends the writing with the merge's error.
    #[test]
    fn merges_written_on_the_pool() {
        let n = ROW_GROUP_ROWS as u64 + 3000;
        // Every third row in both inputs: summed.
        let a = crate::sort_and_sum(
            (0..n)
                .filter(|i| i % 2 == 0 || i % 3 == 0)
                .map(row)
                .collect(),
        );
        let b = crate::sort_and_sum(
            (0..n)
                .filter(|i| i % 2 == 1 || i % 3 == 0)
                .map(row)
                .collect(),
        );
        let want = crate::sort_and_sum([a.clone(), b.clone()].concat());
        assert!(want.len() < a.len() + b.len() && want.len() > ROW_GROUP_ROWS);
        let inputs = |b: &[Row]| {
            [a.clone(), b.to_vec()]
                .into_iter()
                .map(|rows| crate::table::batches_of(rows.into_iter().map(Ok), 1000))
                .collect::<Vec<_>>()
        };
        let write_on = |threads: usize, b: &[Row]| {
            on_threads(threads, || {
                let mut w = ParquetWriter::new(Vec::new()).unwrap();
                let mut merge = Merge::new(inputs(b), |i| format!("part {i}").into()).unwrap();
                w.write_merge(&mut merge)?;
                assert_eq!(merge.stats().rows_written, want.len() as u64);
                assert_eq!(w.rows(), want.len() as u64);
                w.finish()
            })
        };
        let one = write_on(1, &b).unwrap();
        assert_eq!(
            ParquetReader::from_bytes(one.clone()).unwrap().row_groups(),
            2
        );
        let mut reader = ParquetReader::from_bytes(one.clone()).unwrap();
        let first = reader.next_batch().unwrap().unwrap();
        assert_eq!(first.len(), BATCH_ROWS);
        assert!(read(one.clone()) == want);
        assert!(
            write_on(5, &b).unwrap() == one,
            "the bytes depend on the threads"
        );
        let mut unsorted = b.clone();
        unsorted.insert(ROW_GROUP_ROWS / 2, row(1));
        for threads in [1, 5] {
            let e = write_on(threads, &unsorted).unwrap_err();
            assert!(matches!(e.kind(), ErrorKind::Unsorted), "{e}");
            assert!(e.to_string().contains("part 1"), "{e}");
        }
    }

    /// More rows than a row group: every row back as written, in order.
    #[test]
    fn rows_round_trip_across_row_groups() {
        let rows: Vec<Row> = (0..ROW_GROUP_ROWS as u64 + 1000).map(row).collect();
        let bytes = write(&rows);
        let reader = ParquetReader::from_bytes(bytes.clone()).unwrap();
        assert_eq!(reader.row_groups(), 2);
        assert!(read(bytes.clone()) == rows);
        assert!(read(write(&[])).is_empty());
        // In batches: the same rows, no batch over BATCH_ROWS nor across a row group.
        let mut reader = ParquetReader::from_bytes(bytes).unwrap();
        let mut batched = Vec::new();
        let mut sizes = Vec::new();
        while let Some(batch) = reader.next_batch() {
            let batch = batch.unwrap();
            sizes.push(batch.len());
            batched.extend(batch.iter().map(|r| r.to_row()));
        }
        assert!(batched == rows);
        assert!(sizes.iter().all(|&n| n > 0 && n <= BATCH_ROWS));
        assert_eq!(sizes.iter().sum::<usize>(), rows.len());
        assert_eq!(sizes[ROW_GROUP_ROWS / BATCH_ROWS], 1000.min(BATCH_ROWS));
    }

    /// Row groups decoded on several threads come out in order: the same batches as one
    /// reader's, from memory and from a file (read at offsets by every thread).
    #[test]
    fn row_groups_decoded_at_once_keep_their_order() {
        let mut w = ParquetWriter::new(Vec::new()).unwrap();
        let mut rows = Vec::new();
        for size in [5000u64, 1, 4096, 7, 9000, 2, 300] {
            for _ in 0..size {
                let r = row(rows.len() as u64);
                w.write(&r).unwrap();
                rows.push(r);
            }
            w.write_row_group().unwrap();
        }
        let bytes = w.finish().unwrap();
        let batches = |reader: ParquetReader, threads: usize| -> Vec<RowBatch> {
            reader.into_batches(threads).map(Result::unwrap).collect()
        };
        let one = batches(ParquetReader::from_bytes(bytes.clone()).unwrap(), 1);
        assert_eq!(one.iter().map(RowBatch::len).sum::<usize>(), rows.len());
        assert!(
            one.iter()
                .flat_map(|b| b.iter().map(|r| r.to_row()))
                .eq(rows.iter().cloned())
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        std::fs::write(&path, &bytes).unwrap();
        for threads in [2, 3, 16] {
            let reader = ParquetReader::from_bytes(bytes.clone()).unwrap();
            assert_eq!(reader.row_groups(), 7);
            assert!(
                batches(reader, threads) == one,
                "{threads} threads, in memory"
            );
            let reader = ParquetReader::open(File::open(&path).unwrap()).unwrap();
            assert!(batches(reader, threads) == one, "{threads} threads, a file");
        }
    }

    fn text(values: &[&str]) -> Values {
        let mut t = Text::default();
        for v in values {
            t.push(v);
        }
        Values::Text(t)
    }

    /// A one-row-group file of `schema` and `columns`.
    fn custom(schema: &str, columns: Vec<Column>) -> Vec<u8> {
        let mut f = ParquetFile::new(Vec::new(), schema, &[]).unwrap();
        f.write_row_group(columns).unwrap();
        f.finish().unwrap()
    }

    /// A table from another tool: signed key, 32-bit optional counts with nulls, the
    /// optional columns missing, an extra column; then wrong types and a missing column.
    #[test]
    fn tables_other_tools_write() {
        let schema = "message t {
            required int64 key;
            optional binary epd (UTF8);
            required binary move (UTF8);
            optional int32 white;
            required int64 draws;
            required int64 black;
            required int64 games;
            optional float extra;
        }";
        let ints = || Column::required(Values::Int64(vec![1, 2]));
        let bytes = custom(
            schema,
            vec![
                Column::required(Values::Int64(vec![-1, 5])),
                Column::optional(text(&["a w - -", "b w - -"]), vec![1, 1]),
                Column::required(text(&["e2e4", "d2d4"])),
                Column::optional(Values::Int32(vec![9]), vec![1, 0]),
                ints(),
                ints(),
                ints(),
                Column::optional(Values::Float(vec![0.5]), vec![1, 0]),
            ],
        );
        let rows = read(bytes);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].key, rows[1].key), (u64::MAX, 5));
        assert_eq!((rows[0].counts.white, rows[1].counts.white), (9, 0));
        assert_eq!(
            (rows[1].counts.games, rows[1].counts.first_seen),
            (2, u64::MAX)
        );
        assert_eq!(rows[1].epd, "b w - -");

        // A negative count and a missing column are errors naming the column.
        let one = || Column::required(Values::Int64(vec![1]));
        let negative = custom(
            &schema.replace("optional float extra;", ""),
            vec![
                one(),
                Column::optional(text(&["x"]), vec![1]),
                Column::required(text(&["x"])),
                Column::optional(Values::Int32(vec![-4]), vec![1]),
                one(),
                one(),
                one(),
            ],
        );
        let e = ParquetReader::from_bytes(negative)
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("`white` holds -4"), "{e}");
        let missing = custom(
            "message t { required int64 key; required binary epd; }",
            vec![one(), Column::required(text(&["x"]))],
        );
        let e = ParquetReader::from_bytes(missing).unwrap_err();
        assert!(e.to_string().contains("column `move`"), "{e}");
        // Not Parquet at all, and a Parquet file cut short.
        assert!(ParquetReader::from_bytes(b"PAR1 nothing".to_vec()).is_err());
        let whole = write(&[row(1), row(2)]);
        for cut in [4, 20, whole.len() / 2, whole.len() - 9] {
            let _ = ParquetReader::from_bytes(whole[..cut].to_vec()).map(|r| r.count());
        }
    }

    proptest! {
        /// Any rows write and read back as themselves (counts below 2^63).
        #[test]
        fn any_rows_round_trip(
            rows in proptest::collection::vec(
                (any::<u64>(), "[ -~]{0,90}", "[a-h][1-8][a-h][1-8][qrbn]?",
                 proptest::array::uniform8(0u64..=i64::MAX as u64), any::<u16>(), any::<u16>(),
                 any::<u64>(), any::<[u8; 3]>(), any::<bool>()),
                0..50,
            )
        ) {
            let rows: Vec<Row> = rows
                .into_iter()
                .map(|(key, epd, uci, c, y0, y1, seen, bytes, from_book)| Row {
                    key,
                    epd,
                    uci,
                    counts: Counts {
                        white: c[0], draws: c[1], black: c[2], games: c[3],
                        white_elo_sum: c[4], white_elo_games: c[5],
                        black_elo_sum: c[6], black_elo_games: c[7],
                        first_year: y0, last_year: y1, first_seen: seen,
                        annotation: bytes[0], recommendation: bytes[1], commentary: bytes[2],
                        from_book,
                    },
                })
                .collect();
            prop_assert_eq!(read(write(&rows)), rows);
        }
    }
}
