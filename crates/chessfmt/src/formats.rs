//! What kind of file a path is: the formats `chessfmt` recognises, by extension and by
//! content, and the refusal of a file of the wrong kind ("FILE is not a … (it looks like …)").
//! Used by `chessfmt info` and by every verb that opens a file; not a verb itself.

use std::{fmt, fs::File, io::Read, path::Path};

use chessfmt_pgn::Compression;
use polyglot_book::Book;
use serde::Serialize;

use crate::{CliError, CliResult};

/// The formats `chessfmt` recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Polyglot book.
    Polyglot,
    /// ChessBase CTG book (any of its three files).
    Ctg,
    /// Kvetka book (any of its files).
    Kvetka,
    /// ChessBase database (any of its files).
    Chessbase,
    /// PGN, possibly compressed.
    Pgn,
    /// Monty self-play data, policy format.
    SelfplayPolicy,
    /// Monty self-play data, value format.
    SelfplayValue,
    /// The statistics table `chessfmt tally` writes (CSV or Parquet).
    Table,
    /// Another Parquet table (neither games nor the statistics table: self-play positions
    /// from `selfplay to-parquet`, a data tool's output).
    Parquet,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Polyglot => "Polyglot opening book",
            Format::Ctg => "ChessBase CTG opening book",
            Format::Kvetka => "Kvetka opening book",
            Format::Chessbase => "ChessBase database",
            Format::Pgn => "PGN games",
            Format::SelfplayPolicy => "Monty self-play data (policy format)",
            Format::SelfplayValue => "Monty self-play data (value format)",
            Format::Table => "chessfmt statistics table",
            Format::Parquet => "Parquet table",
        })
    }
}

impl Format {
    /// The name with its article, for sentences ("it looks like a Polyglot opening book").
    pub fn with_article(self) -> String {
        match self {
            Format::Pgn | Format::SelfplayPolicy | Format::SelfplayValue => self.to_string(),
            _ => format!("a {self}"),
        }
    }
}

pub(crate) fn extension_format(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let base = ["gz", "zst", "xz"]
        .iter()
        .find_map(|c| name.strip_suffix(&format!(".{c}")))
        .unwrap_or(&name);
    let ext = Path::new(base).extension()?.to_str()?;
    Some(match ext {
        "ctg" | "cto" | "ctb" => Format::Ctg,
        "kob" | "kin" | "ksf" => Format::Kvetka,
        "cbh" | "cbg" | "cba" | "cbp" | "cbt" | "cbc" | "cbs" | "cbe" | "cbj" | "cbm" | "cbtt"
        | "cbv" | "cbz" => Format::Chessbase,
        "pgn" => Format::Pgn,
        _ => return None,
    })
}

/// PGN by its first bytes: a compressed stream, or text that opens with a tag pair.
pub(crate) fn is_pgn(head: &[u8]) -> bool {
    if Compression::detect(head) != Compression::None {
        return true;
    }
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    // Any 8-bit text: a Latin-1 or Windows-1251 PGN is PGN too (its texts are decoded per
    // game by the readers).
    matches!(first, Some(b'[')) && is_text(text)
}

/// A statistics table in CSV by its first bytes: the header `chessfmt tally` writes.
pub(crate) fn is_table_csv(head: &[u8]) -> bool {
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    // Its first three columns and a comma: `key,epd,move,`.
    let header = chessfmt_tally::csv::HEADER.as_bytes();
    let three = header
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b',')
        .nth(2)
        .map_or(header.len(), |(i, _)| i + 1);
    text.starts_with(&header[..three])
}

/// A statistics table in Parquet: a Parquet file (by `head`, its first bytes) with the
/// table's columns (a table of games, with a `movetext` column, is read as PGN).
pub(crate) fn is_table_parquet(path: &Path, head: &[u8]) -> bool {
    chessfmt_tally::table::is_parquet(head) && chessfmt_tally::table::open(path).is_ok()
}

/// Whether the Parquet file at `path` has a `movetext` column of strings (the games layout
/// `chessfmt_pgn::ParquetGames` reads); a file that cannot be opened is left to that reader
/// (`true`), whose error says why.
fn has_movetext(path: &Path) -> bool {
    let Ok(source) = File::open(path).and_then(chessfmt_files::parquet::ParquetSource::open) else {
        return true;
    };
    source
        .column("movetext")
        .is_some_and(|c| c.kind == chessfmt_files::parquet::Kind::Text)
}

/// The binary formats without a magic number, by content (the libraries' sniffers): a
/// self-play file's first game must decode with legal moves; a Polyglot book must be sorted
/// 16-byte entries. A CSV statistics table by its header.
pub(crate) fn content_format(data: &[u8]) -> Option<Format> {
    if is_table_csv(&data[..data.len().min(512)]) {
        return Some(Format::Table);
    }
    if is_pgn(&data[..data.len().min(512)]) {
        return Some(Format::Pgn);
    }
    match selfplay_format::sniff::sniff(data) {
        Some(selfplay_format::sniff::Kind::Value) => return Some(Format::SelfplayValue),
        Some(_) => return Some(Format::SelfplayPolicy),
        None => {}
    }
    polyglot_book::looks_like_book(data).then_some(Format::Polyglot)
}

/// The first bytes of a file (up to 64 KiB: room for a self-play game).
pub(crate) fn head_of(path: &Path) -> Result<Vec<u8>, CliError> {
    let f = File::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    let mut head = Vec::with_capacity(1 << 16);
    f.take(1 << 16)
        .read_to_end(&mut head)
        .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    Ok(head)
}

/// Whether `head` is text: no NUL byte, and UTF-8 (up to a character cut at the end) or an
/// 8-bit code page's text (no control bytes but tab, line breaks and form feed).
pub(crate) fn is_text(head: &[u8]) -> bool {
    !head.contains(&0)
        && match std::str::from_utf8(head) {
            Ok(_) => true,
            Err(e) if e.error_len().is_none() => true,
            Err(_) => head
                .iter()
                .all(|&b| b >= 0x20 || matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)),
        }
}

/// Refuses a file that is plainly of another kind than `expected` (the user gave the wrong
/// file): "FILE is not a … (it looks like …)". Only clear cases are refused, so that damaged
/// files of the right kind still reach their reader and its precise error.
pub(crate) fn refuse_wrong_kind(path: &Path, head: &[u8], expected: Format) -> CliResult {
    let start = &head[..head.len().min(512)];
    // What a text head looks like, for the binary formats.
    let text_kind = || {
        if is_table_csv(start) {
            Format::Table.with_article()
        } else if is_pgn(start) {
            Format::Pgn.with_article()
        } else {
            "text".to_string()
        }
    };
    let looks = match expected {
        // An empty file is any content format's (an empty book, no games): the reader decides.
        Format::Pgn | Format::Polyglot | Format::SelfplayPolicy | Format::SelfplayValue
            if head.is_empty() =>
        {
            return Ok(());
        }
        Format::Pgn => {
            if is_table_csv(start) || is_table_parquet(path, start) {
                Format::Table.with_article()
            } else if is_pgn(start) || is_text(start) {
                return Ok(());
            } else {
                content_format(head).map_or("binary data".to_string(), |f| f.with_article())
            }
        }
        Format::Polyglot => {
            if is_text(start) {
                text_kind()
            } else if !polyglot_book::looks_like_book(head)
                && selfplay_format::sniff::sniff(head).is_some()
            {
                // (The cheap book test first: a real book never pays for the game decode.)
                "Monty self-play data".to_string()
            } else {
                return Ok(());
            }
        }
        Format::SelfplayPolicy | Format::SelfplayValue => {
            if is_text(start) {
                text_kind()
            } else if polyglot_book::looks_like_book(head)
                && selfplay_format::sniff::sniff(head).is_none()
            {
                Format::Polyglot.with_article()
            } else {
                return Ok(());
            }
        }
        // The table readers name what they found (a column, a field) themselves.
        Format::Table | Format::Parquet => return Ok(()),
        Format::Ctg | Format::Kvetka | Format::Chessbase => {
            // A base name (`book` for `book.kob`, …) or a missing file is for the library to
            // resolve or report; an existing file of another kind is refused.
            // A file with another extension (or none we know) whose content is another
            // format's (`ctg probe BOOK.bin` on a Polyglot book) is named for what it is,
            // never taken as a base name of a missing set.
            if !path.is_file() {
                return Ok(());
            }
            let other = match extension_format(path) {
                Some(f) if f == expected => return Ok(()),
                Some(f) => Some(f),
                None if head.is_empty() => content_format(&head_of(path)?),
                None => content_format(head),
            };
            match other {
                Some(f) => f.with_article(),
                None => return Ok(()),
            }
        }
    };
    let what = match expected {
        Format::Pgn => "PGN games".to_string(),
        Format::Ctg => "a CTG book (.ctg, .cto or .ctb)".to_string(),
        Format::Kvetka => "a Kvetka book (.kob, .kin or .ksf)".to_string(),
        Format::Chessbase => "a ChessBase database (.cbh and its companion files)".to_string(),
        Format::SelfplayPolicy | Format::SelfplayValue => "Monty self-play data".to_string(),
        Format::Polyglot => "a Polyglot opening book".to_string(),
        Format::Table => "a statistics table".to_string(),
        Format::Parquet => "a Parquet table".to_string(),
    };
    Err(CliError(format!(
        "{} is not {what} (it looks like {looks})",
        path.display()
    )))
}

/// Recognises a file's format: by the extension where it is unambiguous (CTG, Kvetka,
/// ChessBase, PGN), else by content (`.bin` is both Polyglot's and self-play data's).
pub fn detect(path: &Path) -> Result<Format, CliError> {
    // A Kvetka book by its base name (`lichess` for `lichess_0.kob`, `lichess.kin`), as the
    // kvetka verbs take it.
    if !path.exists() {
        let set = kvetka_book::read::BookPaths::from_any(path);
        if set.kob(0).exists() || set.kin().exists() {
            return Ok(Format::Kvetka);
        }
    }
    let mut f = File::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    let mut head = Vec::with_capacity(512);
    f.by_ref().take(512).read_to_end(&mut head)?;
    if let Some(format) = extension_format(path) {
        return Ok(format);
    }
    // A table by its header, or a Parquet file with the table's columns; a Parquet file with
    // a `movetext` column is games (read as PGN), another is a Parquet table.
    if is_table_csv(&head) || is_table_parquet(path, &head) {
        return Ok(Format::Table);
    }
    if chessfmt_tally::table::is_parquet(&head) && !has_movetext(path) {
        return Ok(Format::Parquet);
    }
    if is_pgn(&head) {
        return Ok(Format::Pgn);
    }
    let data = crate::mapped::file(path)?;
    content_format(&data).ok_or_else(|| {
        CliError(format!(
            "{}: unrecognised format (not a Polyglot book, self-play data, PGN, a statistics \
             table, or a file of a CTG, Kvetka or ChessBase set)",
            path.display()
        ))
    })
}

/// Summary of a Polyglot book.
#[derive(Debug, Serialize)]
pub struct PolyglotSummary {
    format: Format,
    entries: usize,
    positions: usize,
    null_moves: usize,
    trailing_bytes: usize,
    sorted: bool,
    max_weight: u16,
}

/// Summarises a Polyglot book.
pub fn polyglot_summary<D: AsRef<[u8]>>(book: &Book<D>) -> PolyglotSummary {
    let mut positions = 0;
    let mut prev = None;
    let mut null_moves = 0;
    let mut max_weight = 0;
    for e in book.entries() {
        if prev != Some(e.key) {
            positions += 1;
            prev = Some(e.key);
        }
        null_moves += usize::from(e.is_null_move());
        max_weight = max_weight.max(e.weight);
    }
    PolyglotSummary {
        format: Format::Polyglot,
        entries: book.len(),
        positions,
        null_moves,
        trailing_bytes: book.trailing_bytes(),
        sorted: book.is_sorted(),
        max_weight,
    }
}

impl fmt::Display for PolyglotSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "format:         {}", self.format)?;
        writeln!(f, "entries:        {}", self.entries)?;
        writeln!(f, "positions:      {}", self.positions)?;
        writeln!(f, "null moves:     {}", self.null_moves)?;
        writeln!(f, "max weight:     {}", self.max_weight)?;
        writeln!(f, "sorted:         {}", self.sorted)?;
        write!(f, "trailing bytes: {}", self.trailing_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions() {
        // `.bin` is Polyglot's and self-play data's: decided by content.
        assert_eq!(extension_format(Path::new("a/b.BIN")), None);
        assert_eq!(extension_format(Path::new("x.pgn.zst")), Some(Format::Pgn));
        assert_eq!(
            extension_format(Path::new("Perfect2021.CTO")),
            Some(Format::Ctg)
        );
        assert_eq!(
            extension_format(Path::new("db.cbh")),
            Some(Format::Chessbase)
        );
        assert_eq!(
            extension_format(Path::new("book_0.kob")),
            Some(Format::Kvetka)
        );
        assert_eq!(extension_format(Path::new("noext")), None);
    }

    #[test]
    fn content() {
        assert_eq!(
            content_format(b"\xef\xbb\xbf[Event \"x\"]"),
            Some(Format::Pgn)
        );
        assert_eq!(content_format(&[0x28, 0xb5, 0x2f, 0xfd]), Some(Format::Pgn));
        // Zero keys and zero moves: sorted 16-byte entries (a degenerate book).
        let mut book = vec![0u8; 32];
        book[8] = 1;
        assert_eq!(content_format(&book), Some(Format::Polyglot));
        assert_eq!(content_format(b"not a chess file at all!"), None);
    }
}
