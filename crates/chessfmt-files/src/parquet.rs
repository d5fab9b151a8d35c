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
    basic::Compression,
    data_type::{BoolType, ByteArray, ByteArrayType, FloatType, Int32Type, Int64Type},
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

/// A Parquet file being written to `W`.
pub struct ParquetFile<W: Write> {
    out: W,
    bytes: Shared,
    writer: SerializedFileWriter<Shared>,
    rows: u64,
}

impl<W: Write> std::fmt::Debug for ParquetFile<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetFile")
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl<W: Write> ParquetFile<W> {
    /// Starts a file of `schema` (Parquet's message syntax) on `out`, with dictionaries for
    /// every column but the top-level ones named in `no_dictionary` (columns of distinct
    /// values, where a dictionary is built only to be given up).
    pub fn new(out: W, schema: &str, no_dictionary: &[&str]) -> io::Result<ParquetFile<W>> {
        let schema = Arc::new(parse_message_type(schema).map_err(|e| parquet_error("schema", e))?);
        let mut props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("chessfmt {}", env!("CARGO_PKG_VERSION")));
        for column in no_dictionary {
            props = props.set_column_dictionary_enabled(ColumnPath::from(*column), false);
        }
        let bytes = Shared::default();
        let writer = SerializedFileWriter::new(bytes.clone(), schema, Arc::new(props.build()))
            .map_err(|e| parquet_error("starting the file", e))?;
        let mut file = ParquetFile {
            out,
            bytes,
            writer,
            rows: 0,
        };
        file.pass_on()?;
        Ok(file)
    }

    fn pass_on(&mut self) -> io::Result<()> {
        let bytes = self.bytes.take();
        self.out.write_all(&bytes)
    }

    /// Writes one row group: `columns` are the schema's leaves in order. An empty group (no
    /// values and no levels) is not written.
    pub fn write_row_group(&mut self, columns: Vec<Column>) -> io::Result<()> {
        let err = |e| parquet_error("writing a row group", e);
        let mut columns = columns.into_iter();
        let mut group = self.writer.next_row_group().map_err(err)?;
        while let Some(mut writer) = group.next_column().map_err(err)? {
            let c = columns
                .next()
                .ok_or_else(|| io::Error::other("Parquet: fewer columns than the schema has"))?;
            let (def, rep) = (c.def_levels.as_deref(), c.rep_levels.as_deref());
            match c.values {
                Values::Int64(v) => writer.typed::<Int64Type>().write_batch(&v, def, rep),
                Values::Int32(v) => writer.typed::<Int32Type>().write_batch(&v, def, rep),
                Values::Float(v) => writer.typed::<FloatType>().write_batch(&v, def, rep),
                Values::Boolean(v) => writer.typed::<BoolType>().write_batch(&v, def, rep),
                Values::Text(t) => {
                    writer
                        .typed::<ByteArrayType>()
                        .write_batch(&t.byte_arrays(), def, rep)
                }
            }
            .map_err(err)?;
            writer.close().map_err(err)?;
        }
        let meta = group.close().map_err(err)?;
        self.rows += meta.num_rows().max(0) as u64;
        self.pass_on()
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the footer, flushes and gives the output back.
    pub fn finish(mut self) -> io::Result<W> {
        self.writer
            .finish()
            .map_err(|e| parquet_error("finishing the file", e))?;
        self.pass_on()?;
        self.out.flush()?;
        Ok(self.out)
    }
}
