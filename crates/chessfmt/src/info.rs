//! `chessfmt info FILE`: recognise a file's format and summarise it.

use std::{
    fmt,
    path::{Path, PathBuf},
};

use std::ops::ControlFlow;

use chessfmt_pgn::{GameResult, PgnInput, SkipStats};
use clap::Args;
use polyglot_book::OpenMode;
use serde::Serialize;

use crate::{
    CliError, CliResult,
    formats::{Format, detect, polyglot_summary},
    output::report,
    progress,
};

/// Arguments of `chessfmt info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The file (for a Kvetka book also its base name, as the kvetka verbs take it).
    file: PathBuf,
    /// Password of an encrypted `.cbz` archive.
    #[arg(long)]
    password: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
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

/// A PGN file's games counted: read (a plain file mapped, a compressed one in windows) and
/// replayed in parallel, summed in input order.
fn pgn_summary(path: &Path) -> Result<PgnSummary, CliError> {
    let input = crate::pgn_input::open(path)?;
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
    let mut skipped = SkipStats::default();
    let read = add_pgn!(input, |pgn| count_games(pgn, &mut s, &mut skipped, &bar));
    skipped.merge(read.map_err(|e| CliError(format!("{}: {e}", path.display())))?);
    bar.finish_and_clear();
    s.skipped = skipped.total();
    s.skipped_by_reason = skipped.by_kind.clone();
    crate::pgn_input::warn_skipped(Some(path), &skipped);
    Ok(s)
}

/// The pieces a summary's replay tokenises (a quarter of the default): a summary keeps
/// nothing of a game, so its memory is the games in flight — 10–14 MB at one and two threads
/// on the gnuchess PGN where 512 KiB pieces took 15–29 MB, at the same speed (session 39).
const PIECE: usize = 128 << 10;

/// Replays the games of `pgn` on the pool and counts them into `s` in input order, the games
/// that cannot be replayed into `skipped`; returns the games the reader left out.
fn count_games<'a, R: std::io::Read + Send>(
    pgn: impl Into<PgnInput<'a, R>>,
    s: &mut PgnSummary,
    skipped: &mut SkipStats,
    bar: &indicatif::ProgressBar,
) -> std::io::Result<SkipStats> {
    chessfmt_pgn::replay_in_order(
        pgn.into()
            .with_header_filter(chessfmt_pgn::essential_header)
            .with_piece_size(PIECE),
        1024,
        // The moves are counted as they are replayed, not kept (nor the headers copied).
        |raw| {
            let mut plies = 0u64;
            raw.replay(usize::MAX, |_, _| {
                plies += 1;
                ControlFlow::Continue(())
            })
            .map(|_| (plies, raw.result()))
        },
        |batch| {
            for game in batch {
                match game {
                    Ok((plies, result)) => {
                        s.games += 1;
                        s.plies += plies;
                        match result {
                            GameResult::WhiteWins => s.white_wins += 1,
                            GameResult::BlackWins => s.black_wins += 1,
                            GameResult::Draw => s.draws += 1,
                            _ => s.unknown_results += 1,
                        }
                    }
                    Err(e) => skipped.record(e),
                }
            }
            ControlFlow::Continue(())
        },
        |n| bar.set_position(n),
    )
}

/// Summary of a book or database of several files, or of self-play data.
#[derive(Debug, Serialize)]
struct Summary {
    format: Format,
    #[serde(flatten)]
    fields: serde_json::Map<String, serde_json::Value>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "format:    {}", self.format)?;
        for (k, v) in &self.fields {
            let v = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => "none".to_string(),
                serde_json::Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(", "),
                v => v.to_string(),
            };
            write!(f, "\n{:<10} {v}", format!("{}:", k.replace('_', " ")))?;
        }
        Ok(())
    }
}

fn summary(path: &Path, format: Format, password: Option<&str>) -> Result<Summary, CliError> {
    let mut fields = serde_json::Map::new();
    let mut put = |k: &str, v: serde_json::Value| {
        fields.insert(k.to_string(), v);
    };
    match format {
        Format::Ctg => {
            let book = crate::mapped::ctg(path)?;
            let h = book.header();
            // Counted, as `ctg info` counts them (the header's count can be stale).
            let records = book.records().filter(Result::is_ok).count();
            put("positions", records.into());
            put("header_positions", h.positions.into());
            put("games", h.games.into());
            put("pages", h.pages.into());
        }
        Format::Kvetka => {
            let book = crate::mapped::kvetka(path)?;
            let h = book.header();
            put("caption", h.caption.clone().into());
            put("blocks", book.block_count().into());
            put("stores_games", h.stores_games().into());
        }
        Format::Chessbase => {
            // Any file of the set names the database: open its .cbh (any letter case).
            let set = chessfmt_files::CompanionSet::find(
                path,
                &[
                    "cbh", "cbg", "cba", "cbp", "cbt", "cbc", "cbs", "cbe", "cbj", "cbm", "cbtt",
                ],
            );
            let cbh = set
                .get("cbh")
                .map_or_else(|| set.path("cbh"), Path::to_path_buf);
            let db = if chessbase_db::archive::is_archive(path) {
                crate::mapped::chessbase(path, password, Default::default())?
            } else {
                crate::mapped::chessbase(&cbh, password, Default::default())?
            };
            let c = db.counts();
            put("games", c.games.into());
            put("texts", c.texts.into());
            put("deleted", c.deleted.into());
        }
        Format::SelfplayPolicy => {
            let data = crate::mapped::file(path)?;
            let (mut games, mut positions, mut bad) = (0u64, 0u64, 0u64);
            for view in selfplay_format::frame::frames(&data) {
                match view {
                    Ok(v) => {
                        games += 1;
                        positions += v.plies as u64;
                    }
                    Err(_) => bad += 1,
                }
            }
            put("games", games.into());
            put("positions", positions.into());
            put("cut_games", bad.into());
        }
        Format::SelfplayValue => {
            let data = crate::mapped::file(path)?;
            let (mut games, mut positions, mut bad) = (0u64, 0u64, 0u64);
            for view in selfplay_format::value::value_frames(&data) {
                match view {
                    Ok(v) => {
                        games += 1;
                        positions += v.plies() as u64;
                    }
                    Err(_) => bad += 1,
                }
            }
            put("games", games.into());
            put("positions", positions.into());
            put("cut_games", bad.into());
        }
        Format::Table => table_summary(path, &mut put)?,
        Format::Parquet => {
            let source = std::fs::File::open(path)
                .and_then(chessfmt_files::parquet::ParquetSource::open)
                .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
            put("rows", source.rows().into());
            put("row_groups", source.row_groups().into());
            put("columns", source.field_names().into());
        }
        Format::Polyglot | Format::Pgn => unreachable!("summarised on their own"),
    }
    Ok(Summary { format, fields })
}

/// A statistics table read through (a batch at a time, in bounded memory): its form, rows,
/// positions, plays, the years it covers, the rows from a book (`ctg|kvetka to-tally`'s,
/// whose counts are the statistics of the position after the move) and those with a CTG
/// book's annotation, colour or comment, and whether it is sorted as `tally merge` and the
/// `from-tally` verbs need it.
fn table_summary(path: &Path, put: &mut impl FnMut(&str, serde_json::Value)) -> CliResult {
    let parquet = chessfmt_tally::table::is_parquet(&crate::formats::head_of(path)?);
    let batches = chessfmt_tally::table::open_batches(path).map_err(|e| CliError(e.to_string()))?;
    let bar = progress::spinner("rows");
    let (mut rows, mut positions, mut plays, mut results) = (0u64, 0u64, 0u64, 0u64);
    let (mut from_book, mut marked) = (0u64, 0u64);
    let mut years: Option<(u16, u16)> = None;
    let mut sorted = true;
    let mut last: Option<chessfmt_tally::Row> = None;
    for batch in batches {
        let batch = batch.map_err(|e| CliError(e.to_string()))?;
        for (i, row) in batch.iter().enumerate() {
            let before = match i {
                0 => last.as_ref().map(chessfmt_tally::Row::as_ref),
                _ => batch.get(i - 1),
            };
            match before {
                Some(b) if b.key == row.key => sorted &= b.cmp_position_move(row).is_lt(),
                Some(b) => {
                    sorted &= b.key < row.key;
                    positions += 1;
                }
                None => positions += 1,
            }
            let c = row.counts;
            rows += 1;
            plays += c.games;
            results += c.white + c.draws + c.black;
            from_book += u64::from(c.from_book);
            marked += u64::from(c.book_bytes() != [0; 3]);
            if c.first_year > 0 {
                let (a, b) = years.unwrap_or((c.first_year, c.last_year));
                years = Some((a.min(c.first_year), b.max(c.last_year)));
            }
        }
        if let Some(row) = batch.len().checked_sub(1).and_then(|i| batch.get(i)) {
            last = Some(row.to_row());
        }
        bar.inc(batch.len() as u64);
    }
    bar.finish_and_clear();
    put("form", if parquet { "Parquet" } else { "CSV" }.into());
    put("rows", rows.into());
    put("positions", positions.into());
    put("plays", plays.into());
    put("plays_with_result", results.into());
    put("rows_from_book", from_book.into());
    put("rows_with_book_marks", marked.into());
    put(
        "years",
        years.map_or(serde_json::Value::Null, |(a, b)| format!("{a}-{b}").into()),
    );
    put("sorted", sorted.into());
    Ok(())
}

/// Runs `chessfmt info`.
pub fn run(args: &InfoArgs) -> CliResult {
    let path = &args.file;
    match detect(path)? {
        Format::Polyglot => {
            let book = crate::mapped::polyglot(path, OpenMode::Lenient)?;
            report(&polyglot_summary(&book), args.json)
        }
        Format::Pgn => report(&pgn_summary(path)?, args.json),
        format => report(&summary(path, format, args.password.as_deref())?, args.json),
    }
}

impl fmt::Display for PgnSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "format:  {}", self.format)?;
        writeln!(f, "games:   {} ({} plies)", self.games, self.plies)?;
        writeln!(
            f,
            "results: {} white wins, {} black wins, {} draws, {} unknown",
            self.white_wins, self.black_wins, self.draws, self.unknown_results
        )?;
        write!(f, "skipped: {}", self.skipped)?;
        for (k, n) in &self.skipped_by_reason {
            write!(f, ", {n} {k}")?;
        }
        Ok(())
    }
}
