//! `chessfmt info FILE`: recognise a file's format and summarise it.

use std::{
    fmt,
    fs::File,
    io::Read,
    path::{Path, PathBuf},
};

use chess_core::pgn::{Compression, GameResult, PgnReader};
use clap::Args;
use polyglot_book::{Book, OpenMode};
use serde::Serialize;

use crate::{CliError, CliResult, output::json_line, progress};

/// Arguments of `chessfmt info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The file.
    file: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

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
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Polyglot => "Polyglot opening book",
            Format::Ctg => "ChessBase CTG opening book",
            Format::Kvetka => "Kvetka opening book",
            Format::Chessbase => "ChessBase database",
            Format::Pgn => "PGN games",
        })
    }
}

fn extension_format(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let base = ["gz", "zst", "xz"]
        .iter()
        .find_map(|c| name.strip_suffix(&format!(".{c}")))
        .unwrap_or(&name);
    let ext = Path::new(base).extension()?.to_str()?;
    Some(match ext {
        "bin" => Format::Polyglot,
        "ctg" | "cto" | "ctb" => Format::Ctg,
        "kob" | "kin" | "ksf" => Format::Kvetka,
        "cbh" | "cbg" | "cba" | "cbp" | "cbt" | "cbc" | "cbs" | "cbe" | "cbj" | "cbm" | "cbtt" => {
            Format::Chessbase
        }
        "pgn" => Format::Pgn,
        _ => return None,
    })
}

fn content_format(head: &[u8], len: u64) -> Option<Format> {
    if Compression::detect(head) != Compression::None {
        return Some(Format::Pgn);
    }
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if matches!(first, Some(b'[')) && text.is_ascii() {
        return Some(Format::Pgn);
    }
    if len > 0 && len.is_multiple_of(16) {
        return Some(Format::Polyglot);
    }
    None
}

/// Recognises a file's format: by extension, else by content.
pub fn detect(path: &Path) -> Result<Format, CliError> {
    let mut f = File::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut head = Vec::with_capacity(512);
    f.by_ref().take(512).read_to_end(&mut head)?;
    extension_format(path)
        .or_else(|| content_format(&head, len))
        .ok_or_else(|| CliError(format!("{}: unrecognised format", path.display())))
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

/// Summary of a PGN file.
#[derive(Debug, Serialize)]
struct PgnSummary {
    format: Format,
    games: u64,
    skipped: u64,
    skipped_by_reason: std::collections::BTreeMap<&'static str, u64>,
    plies: u64,
    white_wins: u64,
    black_wins: u64,
    draws: u64,
    unknown_results: u64,
}

fn pgn_summary(path: &Path) -> Result<PgnSummary, CliError> {
    let reader = PgnReader::open(path).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    let mut games = reader.games();
    let mut s = PgnSummary {
        format: Format::Pgn,
        games: 0,
        skipped: 0,
        skipped_by_reason: Default::default(),
        plies: 0,
        white_wins: 0,
        black_wins: 0,
        draws: 0,
        unknown_results: 0,
    };
    let bar = progress::spinner("games");
    for game in games.by_ref() {
        let game = game.map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        s.games += 1;
        s.plies += game.moves.len() as u64;
        match game.result {
            GameResult::WhiteWins => s.white_wins += 1,
            GameResult::BlackWins => s.black_wins += 1,
            GameResult::Draw => s.draws += 1,
            _ => s.unknown_results += 1,
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    s.skipped = games.skipped().total();
    s.skipped_by_reason = games.skipped().by_kind.clone();
    crate::pgn_input::warn_skipped(Some(path), games.skipped());
    Ok(s)
}

#[derive(Debug, Serialize)]
struct OtherSummary {
    format: Format,
    bytes: u64,
    reader: &'static str,
}

/// Runs `chessfmt info`.
pub fn run(args: &InfoArgs) -> CliResult {
    let path = &args.file;
    match detect(path)? {
        Format::Polyglot => {
            let book = crate::mapped::polyglot(path, OpenMode::Lenient)?;
            let s = polyglot_summary(&book);
            if args.json {
                json_line(&s)?
            } else {
                outln!("{s}")
            }
        }
        Format::Pgn => {
            let s = pgn_summary(path)?;
            if args.json {
                json_line(&s)?;
            } else {
                outln!("format:  {}", s.format);
                outln!("games:   {} ({} plies)", s.games, s.plies);
                outln!(
                    "results: {} white wins, {} black wins, {} draws, {} unknown",
                    s.white_wins,
                    s.black_wins,
                    s.draws,
                    s.unknown_results
                );
                out!("skipped: {}", s.skipped);
                for (k, n) in &s.skipped_by_reason {
                    out!(", {n} {k}");
                }
                outln!();
            }
        }
        format => {
            let bytes = std::fs::metadata(path)?.len();
            let s = OtherSummary {
                format,
                bytes,
                reader: "not yet available in this version",
            };
            if args.json {
                json_line(&s)?;
            } else {
                outln!("format: {format}\nbytes:  {bytes}\nreader: {}", s.reader);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions() {
        assert_eq!(
            extension_format(Path::new("a/b.BIN")),
            Some(Format::Polyglot)
        );
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
            content_format(b"\xef\xbb\xbf[Event \"x\"]", 100),
            Some(Format::Pgn)
        );
        assert_eq!(
            content_format(&[0x28, 0xb5, 0x2f, 0xfd], 100),
            Some(Format::Pgn)
        );
        assert_eq!(content_format(&[0; 32], 32), Some(Format::Polyglot));
        assert_eq!(content_format(&[0; 33], 33), None);
    }
}
