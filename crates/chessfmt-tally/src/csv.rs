//! The table's text form: CSV with a header line, one row per line, for eyes, diffs and any
//! tool that reads CSV (DuckDB's `read_csv`, pandas, Spark).
//!
//! ```text
//! key,epd,move,white,draws,black,games,white_elo_sum,white_elo_games,black_elo_sum,black_elo_games,first_year,last_year,first_seen,annotation,recommendation,commentary,from_book
//! 463b96181691fc9c,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -,e2e4,1,0,0,1,2700,1,2650,1,2024,2024,0,,,,0
//! ```
//!
//! The key is 16 hexadecimal digits (so that the text sorts as the numbers do); counts are
//! decimal; a year of 0 is none; `first_seen` is empty when unknown; `annotation`,
//! `recommendation` and `commentary` (a book's bytes, [`Counts::annotation`]) are decimal,
//! empty when none; `from_book` is `1` or `0` ([`Counts::from_book`]; `true` and `false` are
//! read too). A table of the earlier form, without the last four columns
//! ([`HEADER_WITHOUT_BOOK`]), is read as one without a book's bytes. No field holds a comma
//! or a quote, so no field is quoted.

use std::io::{self, BufRead, Read, Write};

use crate::{Counts, Error, ErrorKind, Row, RowRef, error::cut};

/// The header line of the table's CSV form.
pub const HEADER: &str = "key,epd,move,white,draws,black,games,white_elo_sum,white_elo_games,\
black_elo_sum,black_elo_games,first_year,last_year,first_seen,annotation,recommendation,commentary,\
from_book";

/// The header line of tables written before the book's columns (`annotation` …
/// `from_book`) were added: read as tables without them.
pub const HEADER_WITHOUT_BOOK: &str = "key,epd,move,white,draws,black,games,white_elo_sum,\
white_elo_games,black_elo_sum,black_elo_games,first_year,last_year,first_seen";

/// Writes rows as CSV (the header first). Rows are written as given: the caller keeps them
/// sorted ([`Row::cmp_position_move`]) for a table others can merge.
#[derive(Debug)]
pub struct CsvWriter<W: Write> {
    out: W,
    line: Vec<u8>,
    rows: u64,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header to `out`.
    pub fn new(mut out: W) -> io::Result<CsvWriter<W>> {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"\n")?;
        Ok(CsvWriter {
            out,
            line: Vec::with_capacity(160),
            rows: 0,
        })
    }

    /// Writes one row.
    pub fn write(&mut self, row: &Row) -> io::Result<()> {
        self.write_ref(row.as_ref())
    }

    /// Writes one borrowed row.
    pub fn write_ref(&mut self, row: RowRef<'_>) -> io::Result<()> {
        self.line.clear();
        format_row(&mut self.line, row.key, row.epd, row.uci, row.counts);
        self.rows += 1;
        self.out.write_all(&self.line)
    }

    /// Writes text made by [`format_row`] (`rows` of them).
    pub(crate) fn write_formatted(&mut self, text: &[u8], rows: u64) -> io::Result<()> {
        self.rows += rows;
        self.out.write_all(text)
    }

    /// Rows written.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Flushes and gives the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads the rows of a table in CSV form, one at a time (an iterator of results: a bad line
/// is an error naming its line and byte offset; reading may go on after it).
#[derive(Debug)]
pub struct CsvReader<R: BufRead> {
    input: R,
    line: String,
    number: u64,
    offset: u64,
    started: bool,
    /// Whether the header has the book's columns ([`HEADER`], not [`HEADER_WITHOUT_BOOK`]).
    book: bool,
    done: bool,
}

impl<R: BufRead> CsvReader<R> {
    /// A reader of `input` (the header is checked at the first row).
    pub fn new(input: R) -> CsvReader<R> {
        CsvReader {
            input,
            line: String::new(),
            number: 0,
            offset: 0,
            started: false,
            book: true,
            done: false,
        }
    }

    /// The next line without its end, or `None` at the end of the input. Lines are read up
    /// to 64 KiB (a row is under 200 bytes); a longer one is an error.
    fn next_line(&mut self) -> Result<Option<&str>, Error> {
        const MAX_LINE: u64 = 1 << 16;
        self.offset += self.line.len() as u64;
        self.line.clear();
        self.number += 1;
        let n = Read::by_ref(&mut self.input)
            .take(MAX_LINE)
            .read_line(&mut self.line)
            .map_err(|e| Error::new(ErrorKind::Io(e), self.number, self.offset))?;
        if n == 0 {
            return Ok(None);
        }
        if !self.line.ends_with('\n') && n as u64 == MAX_LINE {
            return Err(self.field_error("epd", "a line under 64 KiB", "(a longer line)"));
        }
        Ok(Some(self.line.trim_end_matches(['\n', '\r'])))
    }

    fn field_error(&self, column: &'static str, expected: &'static str, found: &str) -> Error {
        Error::new(
            ErrorKind::Field {
                column,
                expected,
                found: cut(found),
            },
            self.number,
            self.offset,
        )
    }

    fn read_row(&mut self) -> Result<Option<Row>, Error> {
        if !self.started {
            self.started = true;
            match self.next_line()? {
                None => return Ok(None),
                Some(h) if h == HEADER => {}
                Some(h) if h == HEADER_WITHOUT_BOOK => self.book = false,
                Some(h) => {
                    let found = cut(h);
                    return Err(Error::new(
                        ErrorKind::Header {
                            expected: HEADER,
                            found,
                        },
                        self.number,
                        self.offset,
                    ));
                }
            }
        }
        let Some(line) = self.next_line()? else {
            return Ok(None);
        };
        let line = line.to_string();
        parse_row(&line, self.book)
            .map(Some)
            .map_err(|(column, expected, found)| self.field_error(column, expected, found))
    }
}

impl<R: BufRead> Iterator for CsvReader<R> {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_row() {
            Ok(Some(row)) => Some(Ok(row)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                // An I/O error or a bad header ends the input; a bad row does not.
                if !matches!(e.kind(), ErrorKind::Field { .. }) {
                    self.done = true;
                }
                Some(Err(e))
            }
        }
    }
}

/// Appends one row's line (with its end) to `out`, without the formatting machinery.
pub(crate) fn format_row(out: &mut Vec<u8>, key: u64, epd: &str, uci: &str, c: &Counts) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for shift in (0..16).rev() {
        out.push(HEX[(key >> (shift * 4)) as usize & 15]);
    }
    out.push(b',');
    out.extend_from_slice(epd.as_bytes());
    out.push(b',');
    out.extend_from_slice(uci.as_bytes());
    for n in c
        .sums()
        .into_iter()
        .chain([u64::from(c.first_year), u64::from(c.last_year)])
    {
        out.push(b',');
        push_u64(out, n);
    }
    out.push(b',');
    if c.first_seen != u64::MAX {
        push_u64(out, c.first_seen);
    }
    for b in c.book_bytes() {
        out.push(b',');
        if b != 0 {
            push_u64(out, u64::from(b));
        }
    }
    out.extend_from_slice(if c.from_book { b",1\n" } else { b",0\n" });
}

/// Appends `n` in decimal (most counts are a single digit).
fn push_u64(out: &mut Vec<u8>, n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
    } else {
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
}

type FieldError<'a> = (&'static str, &'static str, &'a str);

/// One line of the table (without its end); `book`: whether the table has the book's
/// columns ([`HEADER`]; without them, [`HEADER_WITHOUT_BOOK`]).
fn parse_row(line: &str, book: bool) -> Result<Row, FieldError<'_>> {
    let mut fields = line.split(',');
    let mut next = |column: &'static str| fields.next().ok_or((column, "a field", line));
    let key_text = next("key")?;
    let key = (key_text.len() == 16)
        .then(|| u64::from_str_radix(key_text, 16).ok())
        .flatten()
        .ok_or(("key", "16 hexadecimal digits", key_text))?;
    let epd = next("epd")?;
    if epd.split(' ').count() != 4 || epd.len() > 100 {
        return Err((
            "epd",
            "an EPD: board, side to move, castling, en passant",
            epd,
        ));
    }
    let uci = next("move")?;
    if !(4..=5).contains(&uci.len()) || !uci.is_ascii() {
        return Err(("move", "a UCI move", uci));
    }
    let mut num = |column: &'static str| -> Result<u64, FieldError<'_>> {
        let f = next(column)?;
        f.parse().map_err(|_| (column, "a decimal count", f))
    };
    let mut counts = Counts {
        white: num("white")?,
        draws: num("draws")?,
        black: num("black")?,
        games: num("games")?,
        white_elo_sum: num("white_elo_sum")?,
        white_elo_games: num("white_elo_games")?,
        black_elo_sum: num("black_elo_sum")?,
        black_elo_games: num("black_elo_games")?,
        ..Counts::default()
    };
    let fy = next("first_year")?;
    counts.first_year = fy
        .parse()
        .map_err(|_| ("first_year", "a year (0 for none)", fy))?;
    let ly = next("last_year")?;
    counts.last_year = ly
        .parse()
        .map_err(|_| ("last_year", "a year (0 for none)", ly))?;
    let seen = next("first_seen")?;
    counts.first_seen = if seen.is_empty() {
        u64::MAX
    } else {
        seen.parse()
            .map_err(|_| ("first_seen", "a decimal number or nothing", seen))?
    };
    if book {
        let mut byte = |column: &'static str| -> Result<u8, FieldError<'_>> {
            let f = next(column)?;
            if f.is_empty() {
                return Ok(0);
            }
            f.parse()
                .map_err(|_| (column, "a number 0 to 255 or nothing", f))
        };
        counts.annotation = byte("annotation")?;
        counts.recommendation = byte("recommendation")?;
        counts.commentary = byte("commentary")?;
        let f = next("from_book")?;
        counts.from_book = match f {
            "1" | "true" => true,
            "0" | "false" | "" => false,
            _ => return Err(("from_book", "1 or 0", f)),
        };
    }
    if let Some(extra) = fields.next() {
        let last = if book { "from_book" } else { "first_seen" };
        return Err((last, "the end of the line", extra));
    }
    if counts
        .white
        .saturating_add(counts.draws)
        .saturating_add(counts.black)
        > counts.games
    {
        return Err(("games", "at least white + draws + black", line));
    }
    Ok(Row {
        key,
        epd: epd.to_string(),
        uci: uci.to_string(),
        counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn write(rows: &[Row]) -> Vec<u8> {
        let mut w = CsvWriter::new(Vec::new()).unwrap();
        for r in rows {
            w.write(r).unwrap();
        }
        w.finish().unwrap()
    }

    proptest! {
        /// Any rows a table can hold (an EPD of four fields, a UCI move, games at least the
        /// results) write and read back as themselves, a book's columns included.
        #[test]
        fn any_rows_round_trip(
            rows in proptest::collection::vec(
                (any::<u64>(), "[a-z1-8/]{1,70} [wb] [KQkq-]{1,4} [a-h3-6-]{1,2}",
                 "[a-h][1-8][a-h][1-8][qrbn]?", proptest::array::uniform4(0u64..1 << 40),
                 proptest::array::uniform4(any::<u64>()), any::<(u16, u16)>(),
                 any::<u64>(), any::<[u8; 3]>(), any::<bool>()),
                0..40,
            )
        ) {
            let rows: Vec<Row> = rows
                .into_iter()
                .map(|(key, epd, uci, r, elo, (y0, y1), seen, bytes, from_book)| Row {
                    key,
                    epd,
                    uci,
                    counts: Counts {
                        white: r[0], draws: r[1], black: r[2], games: r[0] + r[1] + r[2] + r[3],
                        white_elo_sum: elo[0], white_elo_games: elo[1],
                        black_elo_sum: elo[2], black_elo_games: elo[3],
                        first_year: y0, last_year: y1, first_seen: seen,
                        annotation: bytes[0], recommendation: bytes[1], commentary: bytes[2],
                        from_book,
                    },
                })
                .collect();
            let text = write(&rows);
            let back: Vec<Row> = CsvReader::new(&text[..]).collect::<Result<_, _>>().unwrap();
            prop_assert_eq!(back, rows);
        }
    }

    /// A table of the form without the book's columns reads as rows without a book's bytes;
    /// a row of the other form under either header is an error naming the column.
    #[test]
    fn the_form_without_the_book_columns_is_read() {
        let line = "463b96181691fc9c,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -,e2e4,\
                    1,0,0,1,2700,1,2650,1,2024,2024,0";
        let old = format!("{HEADER_WITHOUT_BOOK}\n{line}\n");
        let rows: Vec<Row> = CsvReader::new(old.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].counts.games, rows[0].counts.first_seen), (1, 0));
        assert_eq!(rows[0].counts.book_bytes(), [0; 3]);
        assert!(!rows[0].counts.from_book);
        let new = format!("{HEADER}\n{line},1,128,,1\n");
        let rows: Vec<Row> = CsvReader::new(new.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows[0].counts.book_bytes(), [1, 128, 0]);
        assert!(rows[0].counts.from_book);
        // An old row under the new header, a new row under the old one.
        let short = format!("{HEADER}\n{line}\n");
        let e = CsvReader::new(short.as_bytes())
            .next()
            .unwrap()
            .unwrap_err();
        assert!(e.to_string().contains("annotation"), "{e}");
        let long = format!("{HEADER_WITHOUT_BOOK}\n{line},1,128,,1\n");
        let e = CsvReader::new(long.as_bytes()).next().unwrap().unwrap_err();
        assert!(e.to_string().contains("first_seen"), "{e}");
        let bad = format!("{HEADER}\n{line},256,,,1\n");
        let e = CsvReader::new(bad.as_bytes()).next().unwrap().unwrap_err();
        assert!(e.to_string().contains("annotation"), "{e}");
    }
}
