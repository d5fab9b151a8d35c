//! `chessfmt selfplay …`: Monty self-play policy data.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use clap::{Args, Subcommand};
use selfplay_format::{
    decode::decode_game,
    file::FileData,
    frame::frames,
    positions::{Mode, Positions},
    tools::{self, Filter, SplitBy, Summary, ToolError},
};
use shakmaty::{EnPassantMode, Position, fen::Fen};

use crate::{
    CliError, CliResult,
    output::{Shown, report, summary},
};

/// Self-play verbs.
#[derive(Debug, Subcommand)]
pub enum SelfplayCommand {
    /// Count games, positions and results, with game-length and legal-move histograms
    /// (framing only, no move generation).
    Stats {
        /// Policy-format files (`-` or a pipe is read to its end).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// A file whose last game is cut short is reported (a warning) and the statistics of
        /// its complete games are printed; without it that is an error.
        #[arg(long)]
        lenient: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the first games with their moves (UCI), scores and visit bytes.
    Head {
        /// A policy-format file.
        file: PathBuf,
        /// Number of games.
        #[arg(short = 'n', default_value_t = 1)]
        n: usize,
        /// One JSON object per game.
        #[arg(long)]
        json: bool,
    },
    /// Print every position: FEN, move played, side-to-move score, result (side to move's
    /// view) and the visit distribution.
    Positions {
        /// A policy-format file.
        file: PathBuf,
        /// Stop after this many positions.
        #[arg(short = 'n')]
        n: Option<u64>,
        /// Skip bad games instead of stopping at the first.
        #[arg(long)]
        lenient: bool,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Decode every game fully; exit 1 at the first bad game (or, with --lenient, report the
    /// bad games and exit 1 if there were any).
    Validate {
        /// A policy-format file.
        file: PathBuf,
        /// Keep going after a bad game (then on one thread).
        #[arg(long)]
        lenient: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Keep the positions that pass every given condition, each written as a one-move game.
    Filter {
        /// A policy-format file.
        file: PathBuf,
        /// Smallest ply (0 = the first move of a game).
        #[arg(long)]
        min_ply: Option<usize>,
        /// Largest ply.
        #[arg(long)]
        max_ply: Option<usize>,
        /// Smallest side-to-move score (0..1).
        #[arg(long, value_parser = crate::args::unit_score)]
        min_score: Option<f32>,
        /// Largest side-to-move score (0..1).
        #[arg(long, value_parser = crate::args::unit_score)]
        max_score: Option<f32>,
        /// Only positions where the side to move is in check.
        #[arg(long, conflicts_with = "not_in_check")]
        in_check: bool,
        /// Only positions where the side to move is not in check.
        #[arg(long)]
        not_in_check: bool,
        /// Only positions whose played move is a capture.
        #[arg(long, conflicts_with = "no_captures")]
        captures: bool,
        /// Only positions whose played move is not a capture.
        #[arg(long)]
        no_captures: bool,
        /// Fewest pieces on the board (kings and pawns included).
        #[arg(long)]
        min_pieces: Option<u32>,
        /// Most pieces on the board.
        #[arg(long)]
        max_pieces: Option<u32>,
        /// Only positions with a visit distribution.
        #[arg(long, conflicts_with = "no_policy")]
        has_policy: bool,
        /// Only positions without a visit distribution.
        #[arg(long)]
        no_policy: bool,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Split a file on game boundaries into parts named OUT.000, OUT.001, …
    Split {
        /// A policy-format file.
        file: PathBuf,
        /// Number of parts of about equal size.
        #[arg(long, required_unless_present = "games", conflicts_with = "games", value_parser = crate::args::positive)]
        parts: Option<usize>,
        /// Games per part.
        #[arg(long, value_parser = crate::args::positive)]
        games: Option<usize>,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Interleave the games of several files, each next game from a file chosen at random
    /// with probability proportional to its remaining bytes.
    Interleave {
        /// Policy-format files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Write the games in a random order.
    Shuffle {
        /// A policy-format file.
        file: PathBuf,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Keep the first occurrence of every position, each written as a one-move game.
    Dedup {
        /// A policy-format file.
        file: PathBuf,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Export as PGN: scores and the most visited moves as comments.
    ToPgn {
        /// A policy-format file.
        file: PathBuf,
        #[command(flatten)]
        out: TextOutArgs,
    },
    /// Export one line per position: `FEN | score | result` (or EPD with --epd).
    ToFen {
        /// A policy-format file.
        file: PathBuf,
        /// EPD lines with `bm` and the score and result as comments.
        #[arg(long)]
        epd: bool,
        #[command(flatten)]
        out: TextOutArgs,
    },
    /// One row per position as a Parquet table, for DuckDB, Polars, pandas or Spark: game,
    /// ply, FEN, side to move, move played, score, result, most visited move and the visit
    /// distribution as a list of (move, visits).
    ToParquet {
        /// A policy-format file.
        file: PathBuf,
        #[command(flatten)]
        out: OutArgs,
        /// How the table's pages are compressed: snappy (the default), zstd or none.
        #[arg(long, value_enum, value_name = "CODEC", default_value = "snappy")]
        compression: crate::args::Codec,
    },
    /// Convert to the value format (u16 move + i16 score per ply), as Monty does.
    ToValue {
        /// A policy-format file.
        file: PathBuf,
        #[command(flatten)]
        out: OutArgs,
    },
}

/// Output options shared by the writing verbs.
#[derive(Debug, Args)]
pub struct OutArgs {
    /// Output file (for split: the prefix of the parts); `-` is standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    /// Overwrite existing output.
    #[arg(long)]
    force: bool,
    /// Skip bad games (counted) instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// Output options of the text exports: standard output unless `-o` names a file.
#[derive(Debug, Args)]
pub struct TextOutArgs {
    /// Output file (default and `-`: standard output, the summary then goes to stderr).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Overwrite existing output.
    #[arg(long)]
    force: bool,
    /// Skip bad games (counted) instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// Print the summary as JSON (on stderr when the text goes to standard output).
    #[arg(long)]
    json: bool,
}

impl TextOutArgs {
    fn out_args(self) -> OutArgs {
        OutArgs {
            output: self.output.unwrap_or_else(|| PathBuf::from("-")),
            force: self.force,
            lenient: self.lenient,
            json: self.json,
        }
    }
}

impl OutArgs {
    fn mode(&self) -> Mode {
        if self.lenient {
            Mode::Lenient
        } else {
            Mode::Strict
        }
    }
}

/// The locks of the splits whose parts this process reads (see `open`).
static PART_LOCKS: std::sync::Mutex<Vec<chessfmt_files::set_lock::SetLock>> =
    std::sync::Mutex::new(Vec::new());

fn open(path: &Path) -> Result<FileData, CliError> {
    // A part of a split (`prefix.NNN`) whose commit was interrupted: finish it first, so that
    // the parts read are all of the new split.
    if let Some(name) = path.file_name().and_then(|n| n.to_str())
        && let Some(prefix) = split_prefix(name)
    {
        let anchor = path.with_file_name(prefix);
        let (lock, _) = chessfmt_files::atomic::open_set(&anchor)
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        // Held (shared) until the verb ends: parts of one split read by one command are all
        // of the same split, never two new parts and an old one.
        PART_LOCKS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(lock);
    }
    let data = crate::mapped::file(path)?;
    let head = &data[..data.len().min(512)];
    crate::formats::refuse_wrong_kind(path, head, crate::formats::Format::SelfplayPolicy)?;
    // The value format (one score per position, no visit distributions) is recognised and
    // summarised by `chessfmt info`; these verbs read the policy format and say so instead
    // of reporting its games as cut.
    // On a bounded prefix: sniffing decodes a whole game, and one game may be the whole
    // file (F7: 884 MB for 100 MB when the whole file was sniffed). A first game longer than
    // the prefix is no value-format game (those are a few bytes a ply).
    let prefix = &data[..data.len().min(1 << 20)];
    if selfplay_format::sniff::sniff(prefix) == Some(selfplay_format::sniff::Kind::Value) {
        return Err(CliError(format!(
            "{}: a value-format self-play file; the selfplay verbs read the policy format \
             (`chessfmt info` summarises this one)",
            path.display()
        )));
    }
    Ok(data)
}

fn in_file(path: &Path) -> impl Fn(selfplay_format::Error) -> CliError + '_ {
    move |e| CliError(e.in_file(path).to_string())
}

/// Writes `path` atomically (refusing to overwrite without `force`) through `f`.
fn write_output(
    path: &Path,
    input: &Path,
    force: bool,
    f: impl FnOnce(&mut dyn Write) -> Result<Summary, ToolError>,
) -> Result<Summary, CliError> {
    crate::destination::refuse_inputs([path], &[input])?;
    if path == Path::new("-") {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, crate::output::stdout()?);
        return match f(&mut w) {
            Ok(s) => w.flush().map(|()| s).map_err(crate::output::stdout_error),
            Err(ToolError::Data(e)) => Err(in_file(input)(e)),
            Err(ToolError::Io(e)) => Err(crate::output::stdout_error(e)),
            Err(e) => Err(CliError(e.to_string())),
        };
    }
    let mut tool_error = None;
    let result = chessfmt_files::atomic::write_atomically(path, force, |w| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        match f(&mut w) {
            Ok(s) => {
                w.flush()?;
                Ok(s)
            }
            Err(ToolError::Io(e)) => Err(e),
            Err(ToolError::Data(e)) => {
                tool_error = Some(e);
                Err(std::io::Error::other("bad input"))
            }
            Err(e) => Err(std::io::Error::other(e.to_string())),
        }
    });
    match (result, tool_error) {
        (_, Some(e)) => Err(in_file(input)(e)),
        (Ok(s), None) => Ok(s),
        (Err(e), None) => Err(CliError(format!("{}: {e}", path.display()))),
    }
}

/// The progress message of a verb (indicatif keeps `&'static str` messages).
fn verb_message(verb: &str) -> &'static str {
    match verb {
        "to-pgn" => "writing PGN",
        "to-fen" => "writing FEN",
        "to-parquet" => "writing Parquet",
        "dedup" => "deduplicating",
        "filter" => "filtering",
        _ => "working",
    }
}

/// Runs a one-input writing tool: maps `file`, writes `out.output` through `tool`, prints the
/// summary.
fn run_tool(
    verb: &str,
    file: &Path,
    out: &OutArgs,
    tool: impl FnOnce(&[u8], Mode, &mut dyn Write) -> Result<Summary, ToolError>,
) -> CliResult {
    // An existing output is refused before the input is opened (the atomic write checks
    // again).
    crate::destination::refuse_existing(&out.output, out.force)?;
    let data = open(file)?;
    let bar = crate::progress::working(verb_message(verb));
    let s = write_output(&out.output, file, out.force, |w| tool(&data, out.mode(), w));
    bar.finish_and_clear();
    let s = s?;
    print_summary(verb, &s, out.json, out.output == Path::new("-"))
}

/// The summary of a writing verb: on stdout, or on stderr when stdout carries the data.
fn print_summary(verb: &str, s: &Summary, json: bool, data_on_stdout: bool) -> CliResult {
    let shown = Shown {
        text: format!(
            "{verb}: read {} games ({} positions), wrote {}, skipped {} bad games",
            s.games, s.positions, s.written, s.skipped
        ),
        json: serde_json::json!({
            "games": s.games, "positions": s.positions,
            "written": s.written, "skipped_games": s.skipped,
        }),
    };
    if json && data_on_stdout {
        // Standard output carries the data: the JSON summary goes beside the diagnostics.
        errln!("{}", shown.json);
        Ok(())
    } else {
        summary(&shown, json)
    }
}

/// Runs a selfplay verb.
pub fn run(cmd: SelfplayCommand) -> CliResult {
    match cmd {
        SelfplayCommand::Stats {
            files,
            lenient,
            json,
        } => stats(&files, lenient, json),
        SelfplayCommand::Head { file, n, json } => head(&file, n, json),
        SelfplayCommand::Positions {
            file,
            n,
            lenient,
            json,
        } => positions(&file, n, lenient, json),
        SelfplayCommand::Validate {
            file,
            lenient,
            threads,
            json,
        } => validate(&file, lenient, crate::args::threads(threads), json),
        SelfplayCommand::Filter {
            file,
            min_ply,
            max_ply,
            min_score,
            max_score,
            in_check,
            not_in_check,
            captures,
            no_captures,
            min_pieces,
            max_pieces,
            has_policy,
            no_policy,
            out,
        } => {
            let either = |yes: bool, no: bool| {
                if yes {
                    Some(true)
                } else if no {
                    Some(false)
                } else {
                    None
                }
            };
            let range = |lo: Option<f32>, hi: Option<f32>| {
                (lo.is_some() || hi.is_some())
                    .then(|| lo.unwrap_or(f32::MIN)..=hi.unwrap_or(f32::MAX))
            };
            let mut filter = Filter::default();
            filter.ply = (min_ply.is_some() || max_ply.is_some())
                .then(|| min_ply.unwrap_or(0)..=max_ply.unwrap_or(usize::MAX));
            filter.score = range(min_score, max_score);
            filter.in_check = either(in_check, not_in_check);
            filter.capture = either(captures, no_captures);
            filter.pieces = (min_pieces.is_some() || max_pieces.is_some())
                .then(|| min_pieces.unwrap_or(0)..=max_pieces.unwrap_or(u32::MAX));
            filter.has_policy = either(has_policy, no_policy);
            run_tool("filter", &file, &out, |d, mode, w| {
                tools::filter(d, &filter, mode, w)
            })
        }
        SelfplayCommand::Split {
            file,
            parts,
            games,
            out,
        } => split(&file, parts, games, &out),
        SelfplayCommand::Interleave { files, seed, out } => {
            let maps = files
                .iter()
                .map(|f| open(f))
                .collect::<Result<Vec<_>, _>>()?;
            let slices: Vec<&[u8]> = maps.iter().map(|m| &m[..]).collect();
            let label = files[0].clone();
            let s = write_output(&out.output, &label, out.force, |w| {
                tools::interleave(&slices, seed, out.mode(), w)
            })?;
            print_summary("interleave", &s, out.json, out.output == Path::new("-"))
        }
        SelfplayCommand::Shuffle { file, seed, out } => {
            run_tool("shuffle", &file, &out, |d, mode, w| {
                tools::shuffle(d, seed, mode, w)
            })
        }
        SelfplayCommand::Dedup { file, out } => run_tool("dedup", &file, &out, tools::dedup),
        SelfplayCommand::ToPgn { file, out } => {
            run_tool("to-pgn", &file, &out.out_args(), tools::to_pgn)
        }
        SelfplayCommand::ToFen { file, epd, out } => {
            run_tool("to-fen", &file, &out.out_args(), |d, mode, w| {
                tools::to_fen(d, epd, mode, w)
            })
        }
        SelfplayCommand::ToParquet {
            file,
            out,
            compression,
        } => run_tool("to-parquet", &file, &out, |data, mode, w| {
            tools::to_parquet_with(data, mode, compression.parquet(), w)
        }),
        SelfplayCommand::ToValue { file, out } => {
            run_tool("to-value", &file, &out, tools::to_value)
        }
    }
}

fn stats(files: &[PathBuf], lenient: bool, json: bool) -> CliResult {
    let mut all = tools::Stats::default();
    let mut truncated = Vec::new();
    for f in files {
        let data = open(f)?;
        let bar = crate::progress::working("counting");
        let s = tools::stats(&data);
        bar.finish_and_clear();
        if let Some(e) = &s.truncated {
            if !lenient {
                return Err(CliError(format!(
                    "{}: {e} (--lenient prints the statistics of the complete games)",
                    f.display()
                )));
            }
            crate::output::warn(format_args!(
                "{}: {e}; statistics of the {} complete games",
                f.display(),
                s.games
            ));
            truncated
                .push(serde_json::json!({"file": f.display().to_string(), "error": e.to_string()}));
        }
        all.merge(&s);
    }
    let per = all.bytes_per_position();
    let json_value = {
        let lengths: serde_json::Map<_, _> = all
            .game_lengths
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect();
        let legal: serde_json::Map<_, _> = all
            .legal_moves
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect();
        serde_json::json!({
            "games": all.games, "positions": all.positions, "bytes": all.bytes,
            "bytes_per_position": per, "positions_with_policy": all.positions_with_policy,
            "white_wins": all.results[2], "draws": all.results[1], "black_wins": all.results[0],
            "bad_results": all.bad_results,
            "game_lengths": lengths, "legal_moves": legal,
            "truncated": truncated,
        })
    };
    let mut text = String::new();
    push_line!(text, "games:      {}", all.games);
    push_line!(
        text,
        "positions:  {} ({} with policy)",
        all.positions,
        all.positions_with_policy
    );
    push_line!(text, "bytes:      {} ({per:.1} per position)", all.bytes);
    push_line!(
        text,
        "results:    {} white wins, {} draws, {} black wins",
        all.results[2],
        all.results[1],
        all.results[0]
    );
    print_histogram(&mut text, "game length (plies)", &all.game_lengths, 20);
    print_histogram(&mut text, "legal moves", &all.legal_moves, 10);
    report(
        &Shown {
            text,
            json: json_value,
        },
        json,
    )
}

/// Prints a histogram in buckets of `width`.
fn print_histogram<K: Copy + TryInto<u64>>(
    text: &mut String,
    title: &str,
    h: &std::collections::BTreeMap<K, u64>,
    width: u64,
) {
    if h.is_empty() {
        return;
    }
    let mut buckets = std::collections::BTreeMap::<u64, u64>::new();
    for (&k, &v) in h {
        *buckets
            .entry(k.try_into().unwrap_or(u64::MAX) / width)
            .or_default() += v;
    }
    let max = buckets.values().copied().max().unwrap_or(1).max(1);
    push_line!(text, "{title}:");
    for (b, n) in buckets {
        let bar = "#".repeat(((n * 40).div_ceil(max)) as usize);
        push_line!(
            text,
            "  {:>4}-{:<4} {n:>10} {bar}",
            b * width,
            b * width + width - 1
        );
    }
}

fn head(file: &Path, n: usize, json: bool) -> CliResult {
    use std::io::Write as _;
    let data = open(file)?;
    // Written move by move through a buffer (the same text and JSON as one value would give):
    // a game may be the whole file, and a JSON tree of it cost ~300 times its size.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, crate::output::stdout()?);
    let io = crate::output::stdout_error;
    for view in frames(&data).take(n) {
        let view = view.map_err(in_file(file))?;
        let game = decode_game(&view).map_err(in_file(file))?;
        let fen = Fen::from_position(&game.start, EnPassantMode::Legal).to_string();
        if json {
            let result = serde_json::to_string(&game.result()).map_err(|e| io(e.into()))?;
            let fen_json = serde_json::to_string(&fen).map_err(|e| io(e.into()))?;
            write!(
                out,
                "{{\"fen\":{fen_json},\"game\":{},\"moves\":[",
                view.index
            )
            .map_err(io)?;
            for (k, m) in game.moves.iter().enumerate() {
                let visits: Option<Vec<_>> = m
                    .visits
                    .as_ref()
                    .map(|v| v.iter().map(|&(_, b)| b).collect());
                let one = serde_json::json!({
                    "uci": m.mv.to_uci(game.castling_mode).to_string(),
                    "score": m.score,
                    "visits": visits,
                });
                if k > 0 {
                    out.write_all(b",").map_err(io)?;
                }
                serde_json::to_writer(&mut out, &one).map_err(|e| io(e.into()))?;
            }
            writeln!(out, "],\"offset\":{},\"result\":{result}}}", view.offset).map_err(io)?;
        } else {
            writeln!(out, "game {} ({fen}), result {}", view.index, game.result()).map_err(io)?;
            for m in &game.moves {
                write!(
                    out,
                    "  {} score {}",
                    m.mv.to_uci(game.castling_mode),
                    m.score
                )
                .map_err(io)?;
                if let Some(v) = &m.visits {
                    let v: Vec<_> = v.iter().map(|&(_, b)| b).collect();
                    write!(out, " visits {v:?}").map_err(io)?;
                }
                writeln!(out).map_err(io)?;
            }
        }
    }
    out.flush().map_err(io)
}

fn positions(file: &Path, n: Option<u64>, lenient: bool, json: bool) -> CliResult {
    let data = open(file)?;
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    let mut it = Positions::from_slice(&data, mode);
    let mut out = std::io::BufWriter::new(crate::output::stdout()?);
    let mut count = 0;
    let result = (|| -> Result<(), CliError> {
        while let Some(s) = it.next() {
            if n.is_some_and(|n| count >= n) {
                break;
            }
            count += 1;
            let s = s.map_err(in_file(file))?;
            let mode = s.position.castles().mode();
            let fen = Fen::from_position(s.position, EnPassantMode::Legal);
            let uci = s.mv.to_uci(mode);
            // Written field by field (the keys in serde_json's sorted order, the numbers
            // through serde_json): the same bytes as a `serde_json::Value`, without building
            // one per position and one per policy move.
            if json {
                write!(
                    out,
                    "{{\"fen\":\"{fen}\",\"game\":{},\"ply\":{},\"policy\":",
                    s.game, s.ply
                )?;
                if s.has_policy() {
                    out.write_all(b"[")?;
                    for (i, (m, v)) in s.policy().enumerate() {
                        let sep = if i == 0 { "" } else { "," };
                        write!(out, "{sep}[\"{}\",{v}]", m.to_uci(mode))?;
                    }
                    out.write_all(b"]")?;
                } else {
                    out.write_all(b"null")?;
                }
                out.write_all(b",\"result\":")?;
                serde_json::to_writer(&mut out, &serde_json::Value::from(s.result))?;
                out.write_all(b",\"score\":")?;
                serde_json::to_writer(&mut out, &serde_json::Value::from(s.score()))?;
                writeln!(out, ",\"uci\":\"{uci}\"}}")?;
            } else {
                write!(out, "{fen} | {uci} | {:.4} | {} | ", s.score(), s.result)?;
                for (i, (m, v)) in s.policy().enumerate() {
                    let sep = if i == 0 { "" } else { " " };
                    write!(out, "{sep}{}:{v}", m.to_uci(mode))?;
                }
                writeln!(out)?;
            }
        }
        out.flush()?;
        Ok(())
    })();
    match result {
        Err(CliError(m)) if m.contains("Broken pipe") => Ok(()),
        r => r,
    }
}

fn validate(file: &Path, lenient: bool, threads: usize, json: bool) -> CliResult {
    let data = open(file)?;
    let mode = if lenient { Mode::Lenient } else { Mode::Strict };
    // Validation runs on the caller's pool: one of `--threads` workers (0: one per core).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(crate::args::threads(Some(threads)))
        .build()
        .map_err(|e| CliError(e.to_string()))?;
    let bar = crate::progress::working("validating");
    let v = pool.install(|| tools::validate_parallel(&data, mode));
    bar.finish_and_clear();
    if !lenient && let Some(e) = v.errors.first() {
        return Err(in_file(file)(e.clone()));
    }
    let json_value = {
        let errors: Vec<_> = v
            .errors
            .iter()
            .map(|e| serde_json::json!({"game": e.game, "offset": e.offset, "error": e.kind.to_string()}))
            .collect();
        serde_json::json!({
            "valid_games": v.valid, "positions": v.positions, "bad_games": v.bad,
            "errors": errors,
        })
    };
    let mut text = String::new();
    push_line!(
        text,
        "{} valid games ({} positions), {} bad",
        v.valid,
        v.positions,
        v.bad
    );
    for e in &v.errors {
        push_line!(text, "  {e}");
    }
    report(
        &Shown {
            text,
            json: json_value,
        },
        json,
    )?;
    if v.bad == 0 {
        Ok(())
    } else {
        Err(CliError(format!("{}: {} bad games", file.display(), v.bad)))
    }
}

/// The prefix of the name of a split's part (`prefix.NNN`, three or more digits).
fn split_prefix(name: &str) -> Option<&str> {
    let (prefix, n) = name.rsplit_once('.')?;
    (n.len() >= 3 && n.bytes().all(|b| b.is_ascii_digit())).then_some(prefix)
}

/// The parts of a split of `prefix` that exist: `prefix.NNN` (three or more digits).
fn existing_parts(prefix: &Path) -> Vec<PathBuf> {
    let dir = match prefix.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Some(stem) = prefix.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut parts: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            split_prefix(&name) == Some(stem.as_str())
        })
        .map(|e| prefix.with_file_name(e.file_name()))
        .collect();
    parts.sort();
    parts
}

fn split(file: &Path, parts: Option<usize>, games: Option<usize>, out: &OutArgs) -> CliResult {
    let by = match (parts, games) {
        (Some(p), _) if p > 0 => SplitBy::Parts(p),
        (_, Some(g)) if g > 0 => SplitBy::Games(g),
        _ => {
            return Err(CliError(
                "--parts and --games need a positive number".into(),
            ));
        }
    };
    crate::destination::refuse_set_destination(&out.output, "a split (parts OUT.000, OUT.001, …)");
    let data = open(file)?;
    let ranges = tools::split_ranges(&data, by, out.mode()).map_err(in_file(file))?;
    let digits = ranges.len().saturating_sub(1).to_string().len().max(3);
    let part = |i: usize| {
        let mut name = out.output.clone().into_os_string();
        name.push(format!(".{i:0digits$}"));
        PathBuf::from(name)
    };
    let new_parts: Vec<PathBuf> = (0..ranges.len()).map(part).collect();
    crate::destination::refuse_inputs(
        new_parts
            .iter()
            .chain(&existing_parts(&out.output))
            .map(PathBuf::as_path),
        &[file],
    )?;
    let at = |p: &Path| {
        let p = p.to_path_buf();
        move |e: std::io::Error| CliError(format!("{}: {e}", p.display()))
    };
    // Parts of an earlier split with the same prefix: replaced (or refused) as a whole, so
    // that no old part is left beside the new ones.
    let old_parts = existing_parts(&out.output);
    if !out.force
        && let Some(p) = old_parts.first()
    {
        return Err(CliError(format!(
            "{} exists (use --force to overwrite)",
            p.display()
        )));
    }
    let mut set = chessfmt_files::atomic::FileSet::new(&out.output).map_err(at(&out.output))?;
    let mut names = Vec::new();
    for (i, r) in ranges.iter().enumerate() {
        let path = part(i);
        set.stage(&path, |w| w.write_all(&data[r.clone()]))
            .map_err(at(&path))?;
        names.push((path, frames(&data[r.clone()]).count(), r.len()));
    }
    for p in old_parts
        .iter()
        .filter(|p| !names.iter().any(|(n, ..)| n == *p))
    {
        set.remove(p).map_err(at(p))?;
    }
    set.commit().map_err(at(&out.output))?;
    let parts: Vec<_> = names
        .iter()
        .map(|(p, g, b)| serde_json::json!({"path": p.display().to_string(), "games": g, "bytes": b}))
        .collect();
    let mut text = String::new();
    for (p, g, b) in &names {
        push_line!(text, "{}: {g} games, {b} bytes", p.display());
    }
    report(
        &Shown {
            text,
            json: serde_json::json!({ "parts": parts }),
        },
        out.json,
    )
}
