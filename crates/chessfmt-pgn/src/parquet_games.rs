//! Games from a Parquet table as PGN text (feature `parquet`): the lichess database's Parquet
//! files (a `movetext` column and one column per tag: `Event`, `White`, `Result`, `WhiteElo`,
//! `UTCDate`, …) and `chessfmt cbh export --format parquet`'s tables, read by every builder
//! as if they were PGN.
//!
//! Each row becomes a game: every integer or string column but `movetext` a tag (nulls left
//! out, values escaped), then the movetext. Games are read and made into text a few hundred
//! at a time ([`chessfmt_files::parquet::ParquetSource`]'s cursor and bounds).

use std::io::{self, Read};

use chessfmt_files::parquet::{Cells, GroupCursor, Kind, ParquetSource};

/// Games made into text at a time.
const BATCH: usize = 256;

/// The games of a Parquet table as a stream of PGN text.
pub struct ParquetGames {
    source: ParquetSource,
    /// The movetext column's leaf, then the tag columns' (name, leaf).
    movetext: usize,
    tags: Vec<(String, usize, Kind)>,
    group: usize,
    cursor: Option<GroupCursor>,
    text: Vec<u8>,
    at: usize,
}

impl std::fmt::Debug for ParquetGames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetGames")
            .field("group", &self.group)
            .finish_non_exhaustive()
    }
}

impl ParquetGames {
    /// The games of the Parquet file `file`.
    pub fn open(file: std::fs::File) -> io::Result<ParquetGames> {
        ParquetGames::of(ParquetSource::open(file)?)
    }

    /// The games of a Parquet file in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> io::Result<ParquetGames> {
        ParquetGames::of(ParquetSource::from_bytes(bytes)?)
    }

    fn of(source: ParquetSource) -> io::Result<ParquetGames> {
        let movetext = source
            .column("movetext")
            .filter(|c| c.kind == Kind::Text)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a Parquet table of games needs a `movetext` column of strings (the \
                     lichess layout)",
                )
            })?;
        let mut tags: Vec<_> = source
            .columns()
            .into_iter()
            .filter(|c| c.index != movetext.index && c.kind != Kind::Other)
            .filter(|c| !c.name.is_empty() && c.name.bytes().all(|b| b.is_ascii_graphic()))
            .map(|c| (c.name, c.index, c.kind))
            .collect();
        // `Event` first, as PGN writes it: a reader cuts the text where an `[Event` line
        // follows an empty line, to read it in parallel (`PgnWindows`); a table whose first
        // column is another (`cbh export --format parquet`'s game number) was read on one
        // thread.
        if let Some(event) = tags.iter().position(|t| t.0 == "Event") {
            let event = tags.remove(event);
            tags.insert(0, event);
        }
        Ok(ParquetGames {
            source,
            movetext: movetext.index,
            tags,
            group: 0,
            cursor: None,
            text: Vec::new(),
            at: 0,
        })
    }

    /// Games in the table.
    pub fn games(&self) -> u64 {
        self.source.rows()
    }

    /// Makes the next games' text; `false` at the end of the table.
    fn fill(&mut self) -> io::Result<bool> {
        self.text.clear();
        self.at = 0;
        let cells = loop {
            if let Some(cursor) = &mut self.cursor
                && let Some(cells) = cursor.next_batch(BATCH)?
            {
                break cells;
            }
            if self.group >= self.source.row_groups() {
                return Ok(false);
            }
            let mut leaves = vec![self.movetext];
            leaves.extend(self.tags.iter().map(|t| t.1));
            self.cursor = Some(self.source.cursor(self.group, &leaves)?);
            self.group += 1;
        };
        let Some(Cells::Text(movetexts)) = cells.first() else {
            return Ok(true);
        };
        for (r, movetext) in movetexts.iter().enumerate() {
            for ((name, _, kind), cells) in self.tags.iter().zip(&cells[1..]) {
                let value = match cells {
                    Cells::Text(v) => v.get(r).map(str::to_owned),
                    Cells::Int(v) => v.get(r).copied().flatten().map(|i| match kind {
                        Kind::Date => pgn_date(i),
                        Kind::Time { per_second } => clock_time(i, *per_second),
                        _ => i.to_string(),
                    }),
                    _ => None,
                };
                if let Some(value) = value {
                    tag(&mut self.text, name, &value);
                }
            }
            self.text.push(b'\n');
            self.text
                .extend_from_slice(movetext.unwrap_or("*").as_bytes());
            self.text.extend_from_slice(b"\n\n");
        }
        Ok(true)
    }
}

/// A date column's value (days since 1970-01-01) as PGN writes dates: `YYYY.MM.DD`.
fn pgn_date(days: i64) -> String {
    // Days to a civil date (the proleptic Gregorian calendar; eras of 400 years).
    let z = days.clamp(-1_000_000_000, 1_000_000_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// A time column's value (`per_second` units since midnight) as `HH:MM:SS`.
fn clock_time(units: i64, per_second: i64) -> String {
    let s = units.div_euclid(per_second.max(1));
    format!("{:02}:{:02}:{:02}", s / 3600 % 24, s / 60 % 60, s % 60)
}

/// Appends `[name "value"]` with the value escaped as PGN has it.
fn tag(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(b'[');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b" \"");
    for b in value.bytes() {
        match b {
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            b'\n' | b'\r' => out.push(b' '),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(b"\"]\n");
}

impl Read for ParquetGames {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.text.len() {
            if !self.fill()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.text.len() - self.at);
        buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessfmt_files::parquet::{Column, ParquetFile, Text, Values};

    #[test]
    fn dates_and_times() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(19_723), "2024.01.01");
        assert_eq!(pgn_date(11_016), "2000.02.29");
        assert_eq!(pgn_date(-1), "1969.12.31");
        assert_eq!(clock_time(3_723_000_000, 1_000_000), "01:02:03");
        assert_eq!(clock_time(86_399_999, 1_000), "23:59:59");
    }

    #[test]
    fn rows_become_games() {
        let schema = "message games {
            optional binary Event (UTF8);
            required binary Result (UTF8);
            optional int64 WhiteElo;
            optional boolean flag;
            required binary movetext (UTF8);
        }";
        let text = |v: &[&str]| {
            let mut t = Text::default();
            for s in v {
                t.push(s);
            }
            Values::Text(t)
        };
        let mut f = ParquetFile::new(Vec::new(), schema, &[]).unwrap();
        f.write_row_group(vec![
            Column::optional(text(&["Say \"hi\""]), vec![1, 0]),
            Column::required(text(&["1-0", "0-1"])),
            Column::optional(Values::Int64(vec![2500]), vec![0, 1]),
            Column::optional(Values::Boolean(vec![true, false]), vec![1, 1]),
            Column::required(text(&["1. e4 e5 1-0", "1. d4 0-1"])),
        ])
        .unwrap();
        let mut pgn = String::new();
        let mut games = ParquetGames::from_bytes(f.finish().unwrap()).unwrap();
        assert_eq!(games.games(), 2);
        games.read_to_string(&mut pgn).unwrap();
        assert_eq!(
            pgn,
            "[Event \"Say \\\"hi\\\"\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
             [Result \"0-1\"]\n[WhiteElo \"2500\"]\n\n1. d4 0-1\n\n"
        );
        // `Event` first whatever the columns' order (cbh export's tables begin with the game
        // number): the text is cut into windows where an `[Event` line begins a game.
        let schema = "message games {
            required int32 number;
            required binary Event (UTF8);
            required binary movetext (UTF8);
        }";
        let mut f = ParquetFile::new(Vec::new(), schema, &[]).unwrap();
        f.write_row_group(vec![
            Column::required(Values::Int32(vec![7])),
            Column::required(text(&["E"])),
            Column::required(text(&["1. e4 *"])),
        ])
        .unwrap();
        let mut pgn = String::new();
        ParquetGames::from_bytes(f.finish().unwrap())
            .unwrap()
            .read_to_string(&mut pgn)
            .unwrap();
        assert_eq!(pgn, "[Event \"E\"]\n[number \"7\"]\n\n1. e4 *\n\n");
        // No movetext column: an error saying what is needed.
        let mut f = ParquetFile::new(Vec::new(), "message t { required int32 x; }", &[]).unwrap();
        f.write_row_group(vec![Column::required(Values::Int32(vec![1]))])
            .unwrap();
        let e = ParquetGames::from_bytes(f.finish().unwrap()).unwrap_err();
        assert!(e.to_string().contains("movetext"), "{e}");
    }
}
