//! Parquet files written a row group at a time from plain column vectors (feature `parquet`):
//! the one writer behind the family's tables for data tools — the statistics table, games,
//! self-play positions — so that each says only its schema and its columns.
//!
//! Snappy compression (the default of Spark, DuckDB and pyarrow), dictionaries except for the
//! columns named, and no `Send` bound on the output (a `&mut dyn Write` will do): the encoded
//! bytes pass to it after each row group.
//!
//! ```
//! use chessfmt_files::parquet::{Column, ParquetFile, Text, Values};
//!
//! let mut names = Text::default();
//! names.push("Carlsen");
//! names.push("Caruana");
//! let schema = "message players { required binary name (UTF8); optional int32 elo; }";
//! let mut file = ParquetFile::new(Vec::new(), schema, &[])?;
//! file.write_row_group(vec![
//!     Column::required(Values::Text(names)),
//!     // The second player has no rating: a definition level of 0 (null).
//!     Column::optional(Values::Int32(vec![2830]), vec![1, 0]),
//! ])?;
//! let bytes = file.finish()?;
//! assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::{
    io::{self, Write},
    sync::{Arc, Mutex},
};

use parquet::{
    data_type::ByteArray,
    file::{properties::WriterProperties, writer::SerializedFileWriter},
    schema::{parser::parse_message_type, types::ColumnPath},
};

/// Strings (or bytes) of one column, in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Text {
    /// Room for `values` values of `bytes` bytes in all.
    pub fn with_capacity(values: usize, bytes: usize) -> Text {
        Text {
            data: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(values),
        }
    }

    /// Appends a value.
    pub fn push(&mut self, s: &str) {
        self.push_bytes(s.as_bytes());
    }

    /// Appends a value of raw bytes.
    pub fn push_bytes(&mut self, b: &[u8]) {
        self.data.extend_from_slice(b);
        self.ends.push(self.data.len());
    }

    /// Values pushed.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether none was pushed.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends the values of `other`, in order.
    pub fn append(&mut self, other: &Text) {
        let base = self.data.len();
        self.data.extend_from_slice(&other.data);
        self.ends.extend(other.ends.iter().map(|e| e + base));
    }

    /// The values as the Parquet library takes them: slices of one shared buffer.
    fn byte_arrays(self) -> Vec<ByteArray> {
        let data = bytes::Bytes::from(self.data);
        let mut start = 0;
        self.ends
            .into_iter()
            .map(|end| {
                let v = ByteArray::from(data.slice(start..end));
                start = end;
                v
            })
            .collect()
    }
}

/// The values of one leaf column (nulls left out: the definition levels say where they are).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Values {
    /// INT64.
    Int64(Vec<i64>),
    /// INT32.
    Int32(Vec<i32>),
    /// FLOAT.
    Float(Vec<f32>),
    /// BOOLEAN.
    Boolean(Vec<bool>),
    /// BYTE_ARRAY (strings).
    Text(Text),
}

/// One leaf column of a row group: its values and, for optional or repeated columns, its
/// definition and repetition levels (Parquet's Dremel encoding).
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The non-null values.
    pub values: Values,
    /// Definition levels, one per entry (optional and nested columns).
    pub def_levels: Option<Vec<i16>>,
    /// Repetition levels, one per entry (repeated columns).
    pub rep_levels: Option<Vec<i16>>,
}

impl Column {
    /// A required, unrepeated column.
    pub fn required(values: Values) -> Column {
        Column {
            values,
            def_levels: None,
            rep_levels: None,
        }
    }

    /// An optional column: `levels` has one entry per row, 1 where the row has a value.
    pub fn optional(values: Values, levels: Vec<i16>) -> Column {
        Column {
            values,
            def_levels: Some(levels),
            rep_levels: None,
        }
    }

    /// A column with both levels (a list's leaves).
    pub fn nested(values: Values, def_levels: Vec<i16>, rep_levels: Vec<i16>) -> Column {
        Column {
            values,
            def_levels: Some(def_levels),
            rep_levels: Some(rep_levels),
        }
    }
}

/// Bytes the Parquet writer produced, passed on to the output after each row group (the
/// Parquet writer needs a `Send` sink; the output need not be one).
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

fn parquet_error(doing: &str, e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("Parquet: {doing}: {e}"))
}

pub use crate::Compression;

/// A Parquet file being written to `W`: an [`Encoder`] (which may encode a row group on
/// another thread, e.g. in a `rayon::join` beside the making of the next one) and the output
/// the encoded bytes are passed on to.
pub struct ParquetFile<W: Write> {
    out: W,
    encoder: Encoder,
}

/// The encoding half of a [`ParquetFile`]: row groups encoded and compressed into memory,
/// taken by the file's output at [`ParquetFile::pass_on`]. `Send` whatever the output.
pub struct Encoder {
    bytes: Shared,
    writer: SerializedFileWriter<Shared>,
    rows: u64,
}

impl<W: Write> std::fmt::Debug for ParquetFile<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetFile")
            .field("rows", &self.encoder.rows)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl<W: Write> ParquetFile<W> {
    /// Starts a file of `schema` (Parquet's message syntax) on `out`, with dictionaries for
    /// every column but those named in `no_dictionary` (columns of distinct values, where a
    /// dictionary is built only to be given up; a nested leaf by its dotted path,
    /// `visits.list.element.move`).
    pub fn new(out: W, schema: &str, no_dictionary: &[&str]) -> io::Result<ParquetFile<W>> {
        Self::with_compression(out, schema, no_dictionary, Compression::Snappy)
    }

    /// [`ParquetFile::new`] with its pages compressed by `compression`.
    pub fn with_compression(
        out: W,
        schema: &str,
        no_dictionary: &[&str],
        compression: Compression,
    ) -> io::Result<ParquetFile<W>> {
        use parquet::basic::Compression as Codec;
        let schema = Arc::new(parse_message_type(schema).map_err(|e| parquet_error("schema", e))?);
        let codec = match compression {
            Compression::Snappy => Codec::SNAPPY,
            Compression::Zstd => Codec::ZSTD(parquet::basic::ZstdLevel::default()),
            Compression::Uncompressed => Codec::UNCOMPRESSED,
        };
        let mut props = WriterProperties::builder()
            .set_compression(codec)
            .set_created_by(format!("chessfmt {}", env!("CARGO_PKG_VERSION")));
        for column in no_dictionary {
            let path = ColumnPath::new(column.split('.').map(str::to_string).collect());
            props = props.set_column_dictionary_enabled(path, false);
        }
        let bytes = Shared::default();
        let writer = SerializedFileWriter::new(bytes.clone(), schema, Arc::new(props.build()))
            .map_err(|e| parquet_error("starting the file", e))?;
        let mut file = ParquetFile {
            out,
            encoder: Encoder {
                bytes,
                writer,
                rows: 0,
            },
        };
        file.pass_on()?;
        Ok(file)
    }

    /// The encoding half, to encode a row group elsewhere ([`Encoder::write_row_group`]);
    /// its bytes reach the output at the next [`Self::pass_on`].
    pub fn encoder(&mut self) -> &mut Encoder {
        &mut self.encoder
    }

    /// Passes what the encoder has made on to the output.
    pub fn pass_on(&mut self) -> io::Result<()> {
        let bytes = self.encoder.bytes.take();
        self.out.write_all(&bytes)
    }

    /// Passes what the encoder has made on to the output (on this thread) while `work` runs
    /// with the encoder on the rayon pool (encoding the next row groups, say); returns what
    /// `work` returns. The output is written once `work`'s task is spawned, so writing and
    /// encoding overlap.
    pub fn pass_on_while<R: Send>(
        &mut self,
        work: impl FnOnce(&mut Encoder) -> R + Send,
    ) -> io::Result<R> {
        let bytes = self.encoder.bytes.take();
        let (out, encoder) = (&mut self.out, &mut self.encoder);
        let mut result = None;
        let written = rayon::in_place_scope(|s| {
            s.spawn(|_| result = Some(work(encoder)));
            out.write_all(&bytes)
        });
        written?;
        result.ok_or_else(|| io::Error::other("Parquet: the encoding task did not run"))
    }

    /// Writes one row group (see [`Encoder::write_row_group`]) and passes it on.
    pub fn write_row_group(&mut self, columns: Vec<Column>) -> io::Result<()> {
        self.encoder.write_row_group(columns)?;
        self.pass_on()
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.encoder.rows
    }

    /// Writes the footer, flushes and gives the output back.
    pub fn finish(mut self) -> io::Result<W> {
        self.encoder
            .writer
            .finish()
            .map_err(|e| parquet_error("finishing the file", e))?;
        self.pass_on()?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl Encoder {
    /// Encodes one row group into memory: `columns` are the schema's leaves in order, each
    /// encoded and compressed in turn. Columns that do not fit the schema (in number or
    /// type) are an error, after which the file is not to be written on.
    pub fn write_row_group(&mut self, columns: Vec<Column>) -> io::Result<()> {
        let descriptions = self.descriptions(columns.len())?;
        let props = self.writer.properties().clone();
        self.splice(
            columns
                .into_iter()
                .zip(descriptions)
                .map(|(c, d)| encode_column(c, d, props.clone())),
        )
    }

    /// [`Encoder::write_row_group`] with the columns encoded and compressed at once on the
    /// rayon pool (the same bytes; the compressed row group is held twice at the end: for
    /// row groups whose encoding is a large part of the work).
    pub fn write_row_group_on_pool(&mut self, columns: Vec<Column>) -> io::Result<()> {
        self.write_row_groups_on_pool(vec![vec![columns]])
    }

    /// Encodes row groups, each given in parts (a part: the schema's leaves in order, for
    /// some of the group's rows; the parts' rows one after another), every column chunk of
    /// every group at once on the rayon pool, then splices them in order. The parts are
    /// encoded as they are, never joined into one buffer.
    pub fn write_row_groups_on_pool(&mut self, groups: Vec<Vec<Vec<Column>>>) -> io::Result<()> {
        use rayon::prelude::*;
        let leaves = self.writer.schema_descr().num_columns();
        let descriptions = self.descriptions(leaves)?;
        let mut chunks: Vec<Vec<Column>> = Vec::with_capacity(groups.len() * leaves);
        for parts in groups {
            let mut columns: Vec<Vec<Column>> = (0..leaves).map(|_| Vec::new()).collect();
            for part in parts {
                self.descriptions(part.len())?;
                for (pieces, c) in columns.iter_mut().zip(part) {
                    pieces.push(c);
                }
            }
            chunks.extend(columns);
        }
        let props = self.writer.properties().clone();
        // The largest column chunks first (text: a table's EPD column takes as long as the
        // others together), so that no thread is left waiting on one started last.
        let mut order: Vec<(usize, Vec<Column>)> = chunks.into_iter().enumerate().collect();
        order.sort_by_key(|(i, pieces)| (std::cmp::Reverse(cost(pieces)), *i));
        let mut done = order
            .into_par_iter()
            .with_max_len(1)
            .map(|(i, pieces)| {
                (
                    i,
                    encode_pieces(pieces, descriptions[i % leaves].clone(), props.clone()),
                )
            })
            .collect::<Vec<_>>();
        done.sort_by_key(|(i, _)| *i);
        let mut encoded = done.into_iter().map(|(_, e)| e);
        while encoded.len() > 0 {
            self.splice(encoded.by_ref().take(leaves))?;
        }
        Ok(())
    }

    /// The descriptions of the schema's leaves, which must be `columns` in number.
    fn descriptions(
        &self,
        columns: usize,
    ) -> io::Result<Vec<parquet::schema::types::ColumnDescPtr>> {
        let schema = self.writer.schema_descr();
        if columns != schema.num_columns() {
            return Err(io::Error::other(format!(
                "Parquet: {columns} columns for a schema of {}",
                schema.num_columns()
            )));
        }
        Ok((0..columns).map(|i| schema.column(i)).collect())
    }

    /// Splices encoded column chunks, in the schema's order, into the next row group.
    fn splice(
        &mut self,
        chunks: impl IntoIterator<Item = parquet::errors::Result<EncodedColumn>>,
    ) -> io::Result<()> {
        let err = |e| parquet_error("writing a row group", e);
        let mut group = self.writer.next_row_group().map_err(err)?;
        for chunk in chunks {
            let (bytes, close) = chunk.map_err(err)?;
            group.append_column(&bytes, close).map_err(err)?;
        }
        let meta = group.close().map_err(err)?;
        self.rows += meta.num_rows().max(0) as u64;
        Ok(())
    }
}

/// About how long a column chunk takes to encode: the bytes of its values.
fn cost(pieces: &[Column]) -> usize {
    pieces
        .iter()
        .map(|c| match &c.values {
            Values::Int64(v) => v.len() * 8,
            Values::Int32(v) => v.len() * 4,
            Values::Float(v) => v.len() * 4,
            Values::Boolean(v) => v.len(),
            Values::Text(t) => t.data.len() + t.ends.len() * 8,
        })
        .sum()
}

/// A column chunk's bytes and what splicing them into a row group needs.
type EncodedColumn = (bytes::Bytes, parquet::column::writer::ColumnCloseResult);

/// One column chunk encoded and compressed into memory.
fn encode_column(
    c: Column,
    description: parquet::schema::types::ColumnDescPtr,
    props: parquet::file::properties::WriterPropertiesPtr,
) -> parquet::errors::Result<EncodedColumn> {
    encode_pieces(vec![c], description, props)
}

/// One column chunk, given in pieces (its rows one piece after another), encoded and
/// compressed into memory.
fn encode_pieces(
    pieces: Vec<Column>,
    description: parquet::schema::types::ColumnDescPtr,
    props: parquet::file::properties::WriterPropertiesPtr,
) -> parquet::errors::Result<EncodedColumn> {
    use parquet::{
        column::writer::{ColumnWriter, get_column_writer},
        errors::ParquetError,
        file::writer::{SerializedPageWriter, TrackedWrite},
    };
    let mut sink = TrackedWrite::new(Vec::new());
    let close = {
        let pages = SerializedPageWriter::new(&mut sink);
        let mut writer = get_column_writer(description, props, Box::new(pages));
        for c in pieces {
            let (def, rep) = (c.def_levels.as_deref(), c.rep_levels.as_deref());
            match (&mut writer, c.values) {
                (ColumnWriter::Int64ColumnWriter(w), Values::Int64(v)) => {
                    w.write_batch(&v, def, rep)
                }
                (ColumnWriter::Int32ColumnWriter(w), Values::Int32(v)) => {
                    w.write_batch(&v, def, rep)
                }
                (ColumnWriter::FloatColumnWriter(w), Values::Float(v)) => {
                    w.write_batch(&v, def, rep)
                }
                (ColumnWriter::BoolColumnWriter(w), Values::Boolean(v)) => {
                    w.write_batch(&v, def, rep)
                }
                (ColumnWriter::ByteArrayColumnWriter(w), Values::Text(t)) => {
                    w.write_batch(&t.byte_arrays(), def, rep)
                }
                _ => Err(ParquetError::General(
                    "a column's values are not of the schema's type".into(),
                )),
            }?;
        }
        writer.close()?
    };
    Ok((bytes::Bytes::from(sink.into_inner()?), close))
}

/// The largest row group read: its columns' uncompressed bytes (a reader holds one row group
/// of the columns it reads in memory).
pub const MAX_ROW_GROUP_BYTES: i64 = 1 << 30;

/// The most rows of a row group read.
pub const MAX_ROW_GROUP_ROWS: usize = 1 << 24;

/// What a column holds, as [`ParquetSource`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// 32- or 64-bit integers.
    Int,
    /// Strings (BYTE_ARRAY; UTF-8 expected).
    Text,
    /// Dates: days since 1970-01-01 (read as integers).
    Date,
    /// Times of day: this many units a second since midnight (read as integers).
    Time {
        /// Units a second: 1,000 (milliseconds), 1,000,000 or 1,000,000,000.
        per_second: i64,
    },
    /// Anything else (booleans, floats, fixed-length bytes): not read.
    Other,
}

/// A top-level, unrepeated column of a Parquet file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    /// Its name.
    pub name: String,
    /// Its leaf index in the file.
    pub index: usize,
    /// What it holds.
    pub kind: Kind,
}

/// The values of one column of one row group, a value or a null per row.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Cells {
    /// Integers (32-bit columns widened; booleans as 0 and 1).
    Int(Vec<Option<i64>>),
    /// Strings, packed one after another ([`Texts`]).
    Text(Texts),
}

/// The strings of a column's cells packed into one buffer (no allocation per cell): a null
/// or a string per row, by [`Texts::get`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Texts {
    text: String,
    /// Per row, the end of its string in `text` (a null repeats the end before it).
    ends: Vec<u32>,
    /// Per row, whether it is null (empty when no row is).
    nulls: Vec<bool>,
}

impl Texts {
    /// Rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The string of row `i`, `None` when it is null or past the rows.
    pub fn get(&self, i: usize) -> Option<&str> {
        if self.nulls.get(i).copied().unwrap_or(false) {
            return None;
        }
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        self.text.get(start..end)
    }

    /// The rows' strings in order, nulls as `None`.
    pub fn iter(&self) -> impl Iterator<Item = Option<&str>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Appends a row.
    pub fn push(&mut self, value: Option<&str>) {
        if let Some(v) = value {
            self.text.push_str(v);
        }
        // The buffer of one batch stays under a row group's bound (1 GiB).
        let end = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.push_end(end, value.is_none());
    }

    /// Appends a row ending at `end` of the text (null or not); `nulls` is kept only once a
    /// row is null.
    fn push_end(&mut self, end: u32, null: bool) {
        if null || !self.nulls.is_empty() {
            self.nulls.resize(self.ends.len(), false);
            self.nulls.push(null);
        }
        self.ends.push(end);
    }
}

/// A Parquet file read a row group and a few columns at a time, with bounded memory: row
/// groups over [`MAX_ROW_GROUP_BYTES`] (uncompressed, of the columns read) or
/// [`MAX_ROW_GROUP_ROWS`] rows are refused, column chunks are checked to lie in the file
/// before the Parquet library reads them, and a panic of the library on malformed bytes is
/// an error. (A page the library decompresses is at most 2 GiB, the format's own bound.)
pub struct ParquetSource {
    file: Box<dyn parquet::file::reader::FileReader>,
    len: u64,
    /// What the file is read from, for [`ParquetSource::try_clone`].
    input: Input,
}

/// The bytes under a [`ParquetSource`].
#[derive(Clone)]
enum Input {
    /// A file read at offsets (no shared file position): sources over it may read at once.
    #[cfg(unix)]
    Shared(SharedFile),
    /// A file read through its position (not shareable).
    #[cfg(not(unix))]
    File,
    /// Bytes in memory.
    Bytes(bytes::Bytes),
}

/// An open file that the Parquet library reads at offsets (`pread`), so that readers on
/// several threads can share it: the library's own reader of a `File` seeks a clone of the
/// handle, whose position every clone shares.
#[cfg(unix)]
#[derive(Clone)]
struct SharedFile {
    file: Arc<std::fs::File>,
    len: u64,
}

/// A [`SharedFile`] read from an offset on.
#[cfg(unix)]
struct SharedRead {
    file: Arc<std::fs::File>,
    at: u64,
}

#[cfg(unix)]
impl io::Read for SharedRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
impl parquet::file::reader::Length for SharedFile {
    fn len(&self) -> u64 {
        self.len
    }
}

#[cfg(unix)]
impl parquet::file::reader::ChunkReader for SharedFile {
    type T = io::BufReader<SharedRead>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(io::BufReader::new(SharedRead {
            file: Arc::clone(&self.file),
            at: start,
        }))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        use std::os::unix::fs::FileExt;
        // Nothing is allocated for a range past the end of the file.
        if start.saturating_add(length as u64) > self.len {
            return Err(parquet::errors::ParquetError::EOF(format!(
                "{length} bytes at {start}: past the end of the file ({} bytes)",
                self.len
            )));
        }
        let mut buffer = vec![0; length];
        self.file.read_exact_at(&mut buffer, start)?;
        Ok(buffer.into())
    }
}

impl std::fmt::Debug for ParquetSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetSource")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// Runs a step of the Parquet library, a panic in it (on bytes it did not expect) made an
/// error.
fn guard<T, E: std::fmt::Display>(f: impl FnOnce() -> Result<T, E>) -> io::Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
        Err(_) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the Parquet reader failed on malformed data",
        )),
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl ParquetSource {
    /// Reads the footer of the Parquet file `file`.
    pub fn open(file: std::fs::File) -> io::Result<ParquetSource> {
        let len = file.metadata()?.len();
        #[cfg(unix)]
        {
            let shared = SharedFile {
                file: Arc::new(file),
                len,
            };
            ParquetSource::of(shared.clone(), len, Input::Shared(shared))
        }
        #[cfg(not(unix))]
        ParquetSource::of(file, len, Input::File)
    }

    /// Reads the footer of a Parquet file in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> io::Result<ParquetSource> {
        let len = bytes.len() as u64;
        let bytes = bytes::Bytes::from(bytes);
        ParquetSource::of(bytes.clone(), len, Input::Bytes(bytes))
    }

    /// Another source over the same bytes (the same open file, read at offsets: not opened
    /// again by name), for reading row groups on another thread. Unsupported for a file on
    /// a system without positional reads.
    pub fn try_clone(&self) -> io::Result<ParquetSource> {
        match &self.input {
            #[cfg(unix)]
            Input::Shared(shared) => {
                ParquetSource::of(shared.clone(), self.len, self.input.clone())
            }
            #[cfg(not(unix))]
            Input::File => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "a Parquet file read on one thread only here",
            )),
            Input::Bytes(bytes) => ParquetSource::of(bytes.clone(), self.len, self.input.clone()),
        }
    }

    fn of<R: parquet::file::reader::ChunkReader + 'static>(
        reader: R,
        len: u64,
        input: Input,
    ) -> io::Result<ParquetSource> {
        let file = guard(|| parquet::file::serialized_reader::SerializedFileReader::new(reader))
            .map_err(|e| invalid(format!("Parquet: the footer: {e}")))?;
        Ok(ParquetSource {
            file: Box::new(file),
            len,
            input,
        })
    }

    /// The top-level, unrepeated columns, in the file's order.
    pub fn columns(&self) -> Vec<ColumnInfo> {
        use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type};
        let schema = self.file.metadata().file_metadata().schema_descr();
        (0..schema.num_columns())
            .map(|i| (i, schema.column(i)))
            .filter(|(_, c)| c.max_rep_level() == 0 && c.path().parts().len() == 1)
            .map(|(index, c)| ColumnInfo {
                name: c.name().to_string(),
                index,
                kind: match (c.physical_type(), c.logical_type_ref(), c.converted_type()) {
                    (Type::INT32, Some(LogicalType::Date), _)
                    | (Type::INT32, None, ConvertedType::DATE) => Kind::Date,
                    (Type::INT32 | Type::INT64, Some(LogicalType::Time(t)), _) => Kind::Time {
                        per_second: match t.unit {
                            TimeUnit::MILLIS => 1_000,
                            TimeUnit::MICROS => 1_000_000,
                            TimeUnit::NANOS => 1_000_000_000,
                        },
                    },
                    (Type::INT32, None, ConvertedType::TIME_MILLIS) => {
                        Kind::Time { per_second: 1_000 }
                    }
                    (Type::INT64, None, ConvertedType::TIME_MICROS) => Kind::Time {
                        per_second: 1_000_000,
                    },
                    (Type::INT32 | Type::INT64, _, _) => Kind::Int,
                    (Type::BYTE_ARRAY, _, _) => Kind::Text,
                    _ => Kind::Other,
                },
            })
            .collect()
    }

    /// The names of the schema's top-level fields (every column, repeated and nested ones
    /// by their outer name), in the file's order.
    pub fn field_names(&self) -> Vec<String> {
        let schema = self.file.metadata().file_metadata().schema_descr();
        schema
            .root_schema()
            .get_fields()
            .iter()
            .map(|f| f.name().to_string())
            .collect()
    }

    /// The column named `name` (exactly, then in any case).
    pub fn column(&self, name: &str) -> Option<ColumnInfo> {
        let columns = self.columns();
        columns
            .iter()
            .find(|c| c.name == name)
            .or_else(|| columns.iter().find(|c| c.name.eq_ignore_ascii_case(name)))
            .cloned()
    }

    /// Row groups in the file.
    pub fn row_groups(&self) -> usize {
        self.file.num_row_groups()
    }

    /// Rows in the file.
    pub fn rows(&self) -> u64 {
        self.file.metadata().file_metadata().num_rows().max(0) as u64
    }

    /// A cursor over `columns` (leaf indexes from [`Self::columns`], of kind `Int` or
    /// `Text`) of row group `group`, read a batch of rows at a time
    /// ([`GroupCursor::next_batch`]): memory holds a batch and each column's current page,
    /// not the row group. The row group's bounds are checked here.
    pub fn cursor(&self, group: usize, columns: &[usize]) -> io::Result<GroupCursor> {
        guard(|| self.cursor_unguarded(group, columns))
            .map_err(|e| invalid(format!("Parquet: row group {group}: {e}")))
    }

    fn cursor_unguarded(&self, g: usize, columns: &[usize]) -> Result<GroupCursor, String> {
        use parquet::column::reader::ColumnReader;
        if g >= self.file.num_row_groups() {
            return Err("no such row group".into());
        }
        let meta = self.file.metadata().row_group(g);
        let mut size: i64 = 0;
        for &c in columns {
            if c >= meta.num_columns() {
                return Err(format!("no column {c}"));
            }
            let chunk = meta.column(c);
            let dictionary = chunk.dictionary_page_offset().unwrap_or(0);
            let start = dictionary.min(chunk.data_page_offset());
            let end = dictionary.max(chunk.data_page_offset());
            if start < 0 || chunk.compressed_size() < 0 || end as u64 > self.len {
                return Err(format!(
                    "column {c}: its pages lie outside the file's {} bytes",
                    self.len
                ));
            }
            size = size.saturating_add(chunk.uncompressed_size().max(0));
        }
        if size > MAX_ROW_GROUP_BYTES {
            return Err(format!(
                "{size} bytes uncompressed, over the {MAX_ROW_GROUP_BYTES} read at once"
            ));
        }
        let rows = usize::try_from(meta.num_rows())
            .ok()
            .filter(|&n| n <= MAX_ROW_GROUP_ROWS)
            .ok_or_else(|| format!("{} rows, not 0 to {MAX_ROW_GROUP_ROWS}", meta.num_rows()))?;
        let group = self.file.get_row_group(g).map_err(|e| e.to_string())?;
        let mut readers = Vec::with_capacity(columns.len());
        for &c in columns {
            let reader = group
                .get_column_reader(c)
                .map_err(|e| format!("column {c}: {e}"))?;
            match reader {
                ColumnReader::ByteArrayColumnReader(_)
                | ColumnReader::BoolColumnReader(_)
                | ColumnReader::Int32ColumnReader(_)
                | ColumnReader::Int64ColumnReader(_) => readers.push((c, reader)),
                _ => return Err(format!("column {c}: not integers, booleans or strings")),
            }
        }
        Ok(GroupCursor {
            readers,
            left: rows,
            group: g,
        })
    }
}

/// Columns of one row group read a batch of rows at a time ([`ParquetSource::cursor`]).
pub struct GroupCursor {
    readers: Vec<(usize, parquet::column::reader::ColumnReader)>,
    left: usize,
    group: usize,
}

impl std::fmt::Debug for GroupCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCursor")
            .field("group", &self.group)
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl GroupCursor {
    /// Rows of the row group not read yet.
    pub fn rows_left(&self) -> usize {
        self.left
    }

    /// The next (at most) `max` rows: one [`Cells`] per column, `None` when the row group is
    /// read. Errors name the row group and the column.
    pub fn next_batch(&mut self, max: usize) -> io::Result<Option<Vec<Cells>>> {
        if self.left == 0 {
            return Ok(None);
        }
        let n = self.left.min(max.max(1));
        let group = self.group;
        let cells = guard(|| -> Result<Vec<Cells>, String> {
            self.readers
                .iter_mut()
                .map(|(c, r)| read_cells(r, *c, n))
                .collect()
        })
        .map_err(|e| invalid(format!("Parquet: row group {group}: {e}")))?;
        self.left -= n;
        Ok(Some(cells))
    }
}

/// Reads the next `n` values of a column, nulls as `None`.
fn read_cells(
    reader: &mut parquet::column::reader::ColumnReader,
    column: usize,
    n: usize,
) -> Result<Cells, String> {
    use parquet::column::reader::ColumnReader;
    let short = || format!("column {column}: fewer values than rows");
    let mut levels = Vec::new();
    match reader {
        ColumnReader::Int64ColumnReader(r) => {
            let mut values = Vec::new();
            read_all(n, &mut levels, |l, max| {
                r.read_records(max, Some(l), None, &mut values)
            })?;
            spread(values, &levels, n).map(Cells::Int).ok_or_else(short)
        }
        ColumnReader::BoolColumnReader(r) => {
            let mut values: Vec<bool> = Vec::new();
            read_all(n, &mut levels, |l, max| {
                r.read_records(max, Some(l), None, &mut values)
            })?;
            let values = values.into_iter().map(i64::from).collect();
            spread(values, &levels, n).map(Cells::Int).ok_or_else(short)
        }
        ColumnReader::Int32ColumnReader(r) => {
            let mut values: Vec<i32> = Vec::new();
            read_all(n, &mut levels, |l, max| {
                r.read_records(max, Some(l), None, &mut values)
            })?;
            let values = values.into_iter().map(i64::from).collect();
            spread(values, &levels, n).map(Cells::Int).ok_or_else(short)
        }
        ColumnReader::ByteArrayColumnReader(r) => {
            let mut values: Vec<ByteArray> = Vec::new();
            read_all(n, &mut levels, |l, max| {
                r.read_records(max, Some(l), None, &mut values)
            })?;
            let cells =
                spread(values.iter().map(|v| v.data()).collect(), &levels, n).ok_or_else(short)?;
            let bytes: usize = cells.iter().flatten().map(|v| v.len()).sum();
            if bytes > MAX_ROW_GROUP_BYTES as usize {
                return Err(format!("column {column}: over {MAX_ROW_GROUP_BYTES} bytes"));
            }
            // The values one after another (a null repeats the end before it), checked as
            // UTF-8 in one pass at the end: with a char boundary at each end, each value is
            // UTF-8 too.
            let mut data = Vec::with_capacity(bytes);
            let mut texts = Texts::default();
            for cell in &cells {
                if let Some(v) = cell {
                    data.extend_from_slice(v);
                }
                texts.push_end(data.len() as u32, cell.is_none());
            }
            let not_utf8 = || format!("column {column}: a value that is not UTF-8");
            texts.text = String::from_utf8(data).map_err(|_| not_utf8())?;
            if !texts
                .ends
                .iter()
                .all(|&e| texts.text.is_char_boundary(e as usize))
            {
                return Err(not_utf8());
            }
            Ok(Cells::Text(texts))
        }
        _ => Err(format!(
            "column {column}: not integers, booleans or strings"
        )),
    }
}

/// Calls `read(levels, max)` until `n` records are read or the column ends.
fn read_all(
    n: usize,
    levels: &mut Vec<i16>,
    mut read: impl FnMut(&mut Vec<i16>, usize) -> parquet::errors::Result<(usize, usize, usize)>,
) -> Result<(), String> {
    let mut records = 0;
    while records < n {
        let (r, _, _) = read(levels, (n - records).min(1 << 16)).map_err(|e| e.to_string())?;
        if r == 0 {
            break;
        }
        records += r;
    }
    Ok(())
}

/// The values of a column with its definition levels (empty for a required column): `n`
/// entries, `None` where the level says null; `None` when the values are fewer than the rows.
fn spread<T>(values: Vec<T>, levels: &[i16], n: usize) -> Option<Vec<Option<T>>> {
    if levels.is_empty() {
        return (values.len() == n).then(|| values.into_iter().map(Some).collect());
    }
    if levels.len() != n {
        return None;
    }
    let mut values = values.into_iter();
    let mut out = Vec::with_capacity(n);
    for &l in levels {
        out.push(if l > 0 { Some(values.next()?) } else { None });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str =
        "message t { required int64 n; required binary s (UTF8); optional int32 e; }";

    fn columns(rows: i64) -> Vec<Column> {
        let mut text = Text::default();
        for i in 0..rows {
            text.push(&format!("row {}", i % 97));
        }
        let levels: Vec<i16> = (0..rows).map(|i| i16::from(i % 3 != 0)).collect();
        let present = levels.iter().filter(|&&l| l == 1).count();
        vec![
            Column::required(Values::Int64((0..rows).collect())),
            Column::required(Values::Text(text)),
            Column::optional(Values::Int32((0..present as i32).collect()), levels),
        ]
    }

    /// Columns encoded on the pool and spliced give the bytes of columns encoded in turn.
    #[test]
    fn pool_encoding_is_the_same_file() {
        let mut serial = ParquetFile::new(Vec::new(), SCHEMA, &[]).unwrap();
        let mut pool = ParquetFile::new(Vec::new(), SCHEMA, &[]).unwrap();
        for rows in [1000, 1, 70_000] {
            serial.write_row_group(columns(rows)).unwrap();
            pool.encoder()
                .write_row_group_on_pool(columns(rows))
                .unwrap();
            pool.pass_on().unwrap();
        }
        assert_eq!(pool.rows(), 71_001);
        let (a, b) = (serial.finish().unwrap(), pool.finish().unwrap());
        assert_eq!(a, b);
        let source = ParquetSource::from_bytes(a).unwrap();
        assert_eq!((source.rows(), source.row_groups()), (71_001, 3));
    }

    /// Strings come back packed, nulls and multi-byte characters in place; a value that is
    /// not UTF-8 is an error naming its column.
    #[test]
    fn texts_read_back_packed() {
        let schema = "message t { optional binary s (UTF8); required binary b; }";
        let values = ["é", "", "Ωx", "plain"];
        let mut present = Text::default();
        for v in values {
            present.push(v);
        }
        let mut bytes = Text::default();
        for v in [&b"ok"[..], b"\xff", b"", b"\xce\xa9", b"z"] {
            bytes.push_bytes(v);
        }
        let mut file = ParquetFile::new(Vec::new(), schema, &[]).unwrap();
        file.write_row_group(vec![
            Column::optional(Values::Text(present), vec![1, 0, 1, 1, 1]),
            Column::required(Values::Text(bytes)),
        ])
        .unwrap();
        let source = ParquetSource::from_bytes(file.finish().unwrap()).unwrap();
        let mut cursor = source.cursor(0, &[0]).unwrap();
        let cells = cursor.next_batch(10).unwrap().unwrap();
        let [Cells::Text(texts)] = &cells[..] else {
            panic!("{cells:?}")
        };
        let read: Vec<Option<&str>> = texts.iter().collect();
        assert_eq!(read, [Some("é"), None, Some(""), Some("Ωx"), Some("plain")]);
        assert_eq!((texts.len(), texts.get(5)), (5, None));
        let mut rebuilt = Texts::default();
        for t in &read {
            rebuilt.push(*t);
        }
        assert_eq!(&rebuilt, texts);
        // A null first, and none at all.
        let mut t = Texts::default();
        for v in [None, Some("a"), None, Some("bc")] {
            t.push(v);
        }
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            [None, Some("a"), None, Some("bc")]
        );
        let mut t = Texts::default();
        t.push(Some("x"));
        t.push(Some(""));
        assert_eq!(t.iter().collect::<Vec<_>>(), [Some("x"), Some("")]);
        let mut cursor = source.cursor(0, &[1]).unwrap();
        let e = cursor.next_batch(10).unwrap_err().to_string();
        assert!(e.contains("not UTF-8"), "{e}");
    }

    /// Columns that do not fit the schema are an error, not a panic (the file is not to be
    /// written on after an error).
    #[test]
    fn columns_off_the_schema_are_errors() {
        let mut file = ParquetFile::new(Vec::new(), SCHEMA, &[]).unwrap();
        let mut short = columns(3);
        short.pop();
        assert!(file.write_row_group(short).is_err());
        let mut swapped = columns(3);
        swapped.swap(0, 1);
        assert!(file.encoder().write_row_group_on_pool(swapped).is_err());
        let mut file = ParquetFile::new(Vec::new(), SCHEMA, &[]).unwrap();
        let mut swapped = columns(3);
        swapped.swap(0, 1);
        assert!(file.write_row_group(swapped).is_err());
    }
}
