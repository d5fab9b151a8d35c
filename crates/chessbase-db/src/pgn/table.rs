//! The export as a Parquet table of games (feature `parquet`): one row per game, the tags of
//! its PGN export as columns and its movetext as one string — the shape of the lichess
//! database's Parquet files, so that DuckDB, Polars, pandas or Spark query a ChessBase
//! database as they query those (and `chessfmt tally` reads it back as games).
//!
//! | column | type | |
//! |---|---|---|
//! | `number` | INT32 | the record number (1-based) |
//! | `deleted` | BOOLEAN | marked deleted (exported with `include_deleted`) |
//! | `Event`, `Site`, `Date`, `Round`, `White`, `Black`, `Result` | UTF8 | the Seven Tag Roster as the PGN export writes it (`?` where unknown) |
//! | `WhiteElo`, `BlackElo` | INT32, optional | the ratings, null where none |
//! | `ECO` | UTF8, optional | |
//! | `FEN` | UTF8, optional | the start of a game from a set-up position |
//! | `tags` | LIST of {`name`, `value`} | every other tag, in the PGN export's order |
//! | `movetext` | UTF8 | the PGN movetext on one line: moves, variations, comments, NAGs, result |

pub use chessfmt_files::parquet::Compression;
use chessfmt_files::parquet::{Column, ParquetFile, Text, Values};

#[allow(clippy::wildcard_imports)]
use super::*;
use export::{GameSink, export_to};

/// The table's schema.
const SCHEMA: &str = "message games {
    required int32 number;
    required boolean deleted;
    required binary Event (UTF8);
    required binary Site (UTF8);
    required binary Date (UTF8);
    required binary Round (UTF8);
    required binary White (UTF8);
    required binary Black (UTF8);
    required binary Result (UTF8);
    optional int32 WhiteElo;
    optional int32 BlackElo;
    optional binary ECO (UTF8);
    optional binary FEN (UTF8);
    optional group tags (LIST) {
        repeated group list {
            required group element {
                required binary name (UTF8);
                required binary value (UTF8);
            }
        }
    }
    required binary movetext (UTF8);
}";

/// The Seven Tag Roster, in the columns' order.
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// A row group is written when it holds this many games or this many bytes of text.
const GROUP_GAMES: usize = 1 << 16;
const GROUP_BYTES: usize = 64 << 20;

/// The columns of one row group.
#[derive(Default)]
struct Games {
    number: Vec<i32>,
    deleted: Vec<bool>,
    roster: [Text; 7],
    elo: [(Vec<i32>, Vec<i16>); 2],
    eco: (Text, Vec<i16>),
    fen: (Text, Vec<i16>),
    tag_names: Text,
    tag_values: Text,
    tag_def: Vec<i16>,
    tag_rep: Vec<i16>,
    movetext: Text,
    bytes: usize,
}

/// The tags and the movetext of one game's PGN text (as the export writes it: one tag a line,
/// an empty line, the movetext).
fn split_pgn(text: &str) -> (Vec<(&str, String)>, String) {
    let mut tags = Vec::new();
    let mut rest = text;
    while let Some(line) = rest.strip_prefix('[') {
        let (line, after) = line.split_once('\n').unwrap_or((line, ""));
        rest = after;
        let Some((name, value)) = line.split_once(" \"") else {
            continue;
        };
        let value = value.strip_suffix("\"]").unwrap_or(value);
        let mut v = String::with_capacity(value.len());
        let mut chars = value.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                v.extend(chars.next());
            } else {
                v.push(c);
            }
        }
        tags.push((name, v));
    }
    // One line already (the export does not wrap it): kept as it is when it has no line
    // break or doubled space, else its words joined by single spaces.
    let trimmed = rest.trim();
    if !trimmed.contains(['\n', '\r', '\t']) && !trimmed.contains("  ") {
        return (tags, trimmed.to_string());
    }
    let mut movetext = String::with_capacity(rest.len());
    for word in rest.split_ascii_whitespace() {
        if !movetext.is_empty() {
            movetext.push(' ');
        }
        movetext.push_str(word);
    }
    (tags, movetext)
}

impl Games {
    fn len(&self) -> usize {
        self.number.len()
    }

    fn push(&mut self, number: u32, deleted: bool, text: &str) {
        let (tags, movetext) = split_pgn(text);
        self.bytes += text.len();
        self.number.push(number.min(i32::MAX as u32) as i32);
        self.deleted.push(deleted);
        for (column, name) in self.roster.iter_mut().zip(ROSTER) {
            column.push(
                tags.iter()
                    .find(|(n, _)| *n == name)
                    .map_or("?", |(_, v)| v.as_str()),
            );
        }
        let mut others = 0;
        for (i, name) in ["WhiteElo", "BlackElo"].into_iter().enumerate() {
            let elo = tags
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, v)| v.parse::<i32>().ok());
            let (values, levels) = &mut self.elo[i];
            levels.push(i16::from(elo.is_some()));
            values.extend(elo);
        }
        for (name, (column, levels)) in [("ECO", &mut self.eco), ("FEN", &mut self.fen)] {
            match tags.iter().find(|(n, _)| *n == name) {
                Some((_, v)) => {
                    column.push(v);
                    levels.push(1);
                }
                None => levels.push(0),
            }
        }
        for (name, value) in &tags {
            let kept = ROSTER.contains(name)
                || ["ECO", "FEN"].contains(name)
                || (["WhiteElo", "BlackElo"].contains(name) && value.parse::<i32>().is_ok());
            if kept {
                continue;
            }
            self.tag_names.push(name);
            self.tag_values.push(value);
            self.tag_def.push(2);
            self.tag_rep.push(i16::from(others > 0));
            others += 1;
        }
        if others == 0 {
            // An empty list.
            self.tag_def.push(1);
            self.tag_rep.push(0);
        }
        self.movetext.push(&movetext);
    }

    /// The leaves in the schema's order.
    fn into_columns(self) -> Vec<Column> {
        let mut out = vec![
            Column::required(Values::Int32(self.number)),
            Column::required(Values::Boolean(self.deleted)),
        ];
        out.extend(
            self.roster
                .into_iter()
                .map(|t| Column::required(Values::Text(t))),
        );
        out.extend(
            self.elo
                .into_iter()
                .map(|(v, l)| Column::optional(Values::Int32(v), l)),
        );
        out.push(Column::optional(Values::Text(self.eco.0), self.eco.1));
        out.push(Column::optional(Values::Text(self.fen.0), self.fen.1));
        out.push(Column::nested(
            Values::Text(self.tag_names),
            self.tag_def.clone(),
            self.tag_rep.clone(),
        ));
        out.push(Column::nested(
            Values::Text(self.tag_values),
            self.tag_def,
            self.tag_rep,
        ));
        out.push(Column::required(Values::Text(self.movetext)));
        out
    }
}

/// The table sink of [`export_parquet`].
struct TableSink<W: Write> {
    file: ParquetFile<W>,
    games: Games,
}

impl<W: Write> TableSink<W> {
    fn flush(&mut self) -> io::Result<()> {
        if self.games.len() > 0 {
            let games = std::mem::take(&mut self.games);
            self.file.write_row_group(games.into_columns())?;
        }
        Ok(())
    }
}

impl<W: Write> GameSink for TableSink<W> {
    fn pgn(&mut self, number: u32, deleted: bool, text: &str) -> io::Result<()> {
        self.games.push(number, deleted, text);
        if self.games.len() >= GROUP_GAMES || self.games.bytes >= GROUP_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn long_game(
        &mut self,
        db: &Database,
        number: u32,
        deleted: bool,
        opts: &PgnOptions,
    ) -> io::Result<Result<Written, Error>> {
        // The row holds the whole movetext: the game's text is made in memory.
        let mut text = Vec::new();
        let written = write_game_to(db, number, opts, &mut text)?;
        if written.is_ok() {
            self.pgn(number, deleted, &String::from_utf8_lossy(&text))?;
        }
        Ok(written)
    }
}

/// Exports the records `options` names to `out` as a Parquet table of games (the module's
/// columns; Snappy), in record order, with what [`export`] reports. Threads as [`export`]'s.
pub fn export_parquet<W: Write>(
    db: &Database,
    options: &ExportOptions,
    out: &mut W,
    progress: impl FnMut(u64),
) -> io::Result<ExportSummary> {
    export_parquet_with(db, options, Compression::Snappy, out, progress)
}

/// [`export_parquet`] with the table's pages compressed by `compression`.
pub fn export_parquet_with<W: Write>(
    db: &Database,
    options: &ExportOptions,
    compression: Compression,
    out: &mut W,
    progress: impl FnMut(u64),
) -> io::Result<ExportSummary> {
    let mut sink = TableSink {
        file: ParquetFile::with_compression(out, SCHEMA, &["movetext", "number"], compression)?,
        games: Games::default(),
    };
    // The movetext on one line: no wrapping to undo.
    let mut options = options.clone();
    options.pgn.line_width = 1 << 40;
    let summary = export_to(db, &options, &mut sink, progress)?;
    sink.flush()?;
    sink.file.finish()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_text_splits_into_tags_and_movetext() {
        let text = "[Event \"A \\\"quoted\\\" \\\\ event\"]\n[WhiteElo \"2700\"]\n\n1. e4 {a\ncomment} e5\n2. Nf3 1-0\n\n";
        let (tags, movetext) = split_pgn(text);
        assert_eq!(
            tags,
            [
                ("Event", "A \"quoted\" \\ event".to_string()),
                ("WhiteElo", "2700".to_string())
            ]
        );
        assert_eq!(movetext, "1. e4 {a comment} e5 2. Nf3 1-0");
    }
}
