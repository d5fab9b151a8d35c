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
            .with_header_filter(chessfmt_pgn::essential_header),
        1024,
        |raw| raw.resolve().map(|g| (g.moves.len() as u64, g.result)),
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
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
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
        Format::Polyglot | Format::Pgn => unreachable!("summarised on their own"),
    }
    Ok(Summary { format, fields })
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
