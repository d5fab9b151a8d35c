//! `chessfmt polyglot …`: Polyglot opening books.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use polyglot_book::{
    FileBook, OpenMode,
    moves::RawMove,
    ops::tree::{DumpSink, LineEnd, LineMove, REFERENCE_BANNER, TextDump, dump},
    read::ProbeFilter,
};
use rand::{Rng, SeedableRng, rngs::StdRng};
use serde::Serialize;
use shakmaty::{Chess, EnPassantMode, fen::Fen};

use crate::{
    CliError, CliResult,
    args::WriteArgs,
    output::{Shown, report, summary, uci},
};

/// Polyglot verbs.
#[derive(Debug, Subcommand)]
pub enum PolyglotCommand {
    /// Print the Polyglot key of a position (16 hex digits).
    Key {
        /// The position (default: the start position).
        #[arg(long, value_parser = crate::args::fen)]
        fen: Option<Chess>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the book moves of a position.
    Probe(ProbeArgs),
    /// Print one weighted-random book move.
    Pick {
        /// The book.
        book: PathBuf,
        /// The position (default: the start position).
        #[arg(long, value_parser = crate::args::fen)]
        fen: Option<Chess>,
        /// Seed of the random choice (default: from the system).
        #[arg(long)]
        seed: Option<u64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Build a book from PGN files (byte-identical to `polyglot make-book` with the defaults).
    Build(BuildArgs),
    /// Write a book from a statistics table (`chessfmt tally`): the book `build` makes from
    /// the same games, byte for byte, while no move of a position reaches 16,384 plays.
    FromTally(FromTallyArgs),
    /// Write the book as a statistics table: the positions a walk from the start reaches,
    /// each move's weight as that many drawn games (a Polyglot book has no results).
    ToTally {
        /// The book.
        book: PathBuf,
        #[command(flatten)]
        out: WriteArgs,
    },
    /// Merge books: moves of a position united, weights of common moves combined.
    Merge(MergeArgs),
    /// Print every line of the book tree for one side (the text of `polyglot dump-book`).
    Dump(DumpArgs),
    /// Print every entry as stored, in file order: key, move, weight and learn (the book's
    /// bytes, with no position needed: `dump` follows the tree instead).
    Entries(EntriesArgs),
    /// Count lines and positions on lines (the text of `polyglot info-book`); `--json` adds a
    /// summary of the entries.
    Info {
        /// The book.
        book: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The side whose book moves a dump follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    /// White plays book moves, Black every reply that stays in the book.
    White,
    /// Black plays book moves, White every move that stays in the book.
    Black,
}

/// Arguments of `polyglot dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The book.
    book: PathBuf,
    /// The side whose book moves are followed.
    #[arg(long, value_enum)]
    color: ColorArg,
    #[command(flatten)]
    out: TextOut,
    /// One JSON object per line instead of text.
    #[arg(long)]
    json: bool,
}

/// Arguments of `polyglot entries`.
#[derive(Debug, Args)]
pub struct EntriesArgs {
    /// The book.
    book: PathBuf,
    #[command(flatten)]
    out: TextOut,
    /// One JSON object per line instead of text: `key` (16 hex digits), `uci` (the move as
    /// stored: castling as king takes rook; `0x…` where no move), `raw`, `weight`, `learn`.
    #[arg(long)]
    json: bool,
}

/// Where a verb's text goes (`dump`, `entries`): a file, or standard output.
#[derive(Debug, Args)]
pub struct TextOut {
    /// Write to FILE instead of standard output (`-`: standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Replace FILE if it exists (never the book itself).
    #[arg(long)]
    force: bool,
}

/// Writes dumped lines as JSON lines.
struct JsonDump<W>(W);

impl<W: std::io::Write> DumpSink for JsonDump<W> {
    fn line(&mut self, number: u64, moves: &[LineMove], end: LineEnd) -> std::io::Result<()> {
        let moves: Vec<_> = moves
            .iter()
            .map(|m| match m.share {
                Some(share) => serde_json::json!({"san": m.san, "uci": m.uci, "share": share}),
                None => serde_json::json!({"san": m.san, "uci": m.uci}),
            })
            .collect();
        let value = match end {
            LineEnd::Leaf => serde_json::json!({"line": number, "moves": moves, "end": "leaf"}),
            LineEnd::Trans { line, ply } => serde_json::json!(
                {"line": number, "moves": moves, "end": "trans", "trans_line": line, "ply": ply}
            ),
            LineEnd::Cycle { ply } => {
                serde_json::json!({"line": number, "moves": moves, "end": "cycle", "ply": ply})
            }
            _ => serde_json::json!({"line": number, "moves": moves, "end": "other"}),
        };
        serde_json::to_writer(&mut self.0, &value)?;
        writeln!(self.0)
    }
}

fn dump_book(args: &DumpArgs) -> CliResult {
    let book = open(&args.book)?;
    let color = match args.color {
        ColorArg::White => shakmaty::Color::White,
        ColorArg::Black => shakmaty::Color::Black,
    };
    // The reference prints the book path as given.
    let name = args.book.display().to_string();
    write_text(&args.book, &args.out, |out| {
        if args.json {
            dump(&book, color, &mut JsonDump(out))?;
        } else {
            let mut sink = TextDump::new(out, &name, color)?;
            dump(&book, color, &mut sink)?;
        }
        Ok(())
    })
}

/// Writes a verb's text to the `-o` file (atomically, refused without `--force` where it
/// exists, never the book itself) or to standard output (a closed pipe ends it quietly).
fn write_text(
    book: &std::path::Path,
    out: &TextOut,
    text: impl Fn(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> CliResult {
    use std::io::Write;
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(out);
        text(&mut out)?;
        out.flush()
    };
    match &out.output {
        Some(path) => crate::destination::write_single(path, out.force, false, &[book], write),
        None => match write(&mut crate::output::stdout()?) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(crate::output::stdout_error),
        },
    }
}

/// `polyglot entries`: every entry in file order, a line each (`KEY MOVE WEIGHT LEARN`, or
/// JSON). Bytes after the last whole entry are warned of.
fn entries(args: &EntriesArgs) -> CliResult {
    let book = open(&args.book)?;
    if book.trailing_bytes() > 0 {
        crate::output::warn(format_args!(
            "{}: {} bytes after the last whole entry are not an entry",
            args.book.display(),
            book.trailing_bytes()
        ));
    }
    write_text(&args.book, &args.out, |out| {
        for e in book.entries() {
            let mv = RawMove::from_u16(e.raw_move)
                .map_or_else(|| format!("0x{:04x}", e.raw_move), RawMove::uci);
            if args.json {
                writeln!(
                    out,
                    r#"{{"key":"{:016x}","uci":"{mv}","raw":{},"weight":{},"learn":{}}}"#,
                    e.key, e.raw_move, e.weight, e.learn
                )?;
            } else {
                writeln!(out, "{:016x} {mv} {} {}", e.key, e.weight, e.learn)?;
            }
        }
        Ok(())
    })
}

/// Arguments of `polyglot probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The book.
    book: PathBuf,
    /// The position (default: the start position).
    #[arg(long, value_parser = crate::args::fen)]
    fen: Option<Chess>,
    /// Also list null, illegal and malformed entries (`"legal": false`).
    #[arg(long)]
    all: bool,
    /// Order of the moves: best = heaviest weight first, stored = the book's order.
    #[arg(long, value_enum, default_value_t)]
    sort: crate::args::ProbeOrder,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `polyglot build`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.value_name("OUT.bin").help("The book to write")))]
pub struct BuildArgs {
    /// PGN files (.pgn, .pgn.gz, .pgn.zst, .pgn.xz).
    #[arg(required = true)]
    pgn: Vec<PathBuf>,
    #[command(flatten)]
    out: WriteArgs,
    /// Use only the first N half-moves of each game.
    #[arg(long, default_value_t = 1024)]
    max_ply: usize,
    /// Keep moves played in at least N games.
    #[arg(long, default_value_t = 3)]
    min_game: u32,
    /// Keep moves whose mean score for the mover is at least PCT percent.
    #[arg(long, default_value_t = 0.0, value_name = "PCT", value_parser = crate::args::percent)]
    min_score: f64,
    /// Keep only White's moves.
    #[arg(long, conflicts_with = "only_black")]
    only_white: bool,
    /// Keep only Black's moves.
    #[arg(long)]
    only_black: bool,
    /// Give every move weight 1 (as --policy uniform).
    #[arg(long, conflicts_with = "policy")]
    uniform: bool,
    /// Move weighting (the filters above are the same whatever it is).
    #[arg(long, value_enum, default_value_t)]
    policy: crate::args::WeightArg,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Keep memory near MIB mebibytes: plies of rarer positions are spilled to temporary
    /// files beside OUT and merged at the end (same book, byte for byte).
    #[arg(long, value_name = "MIB")]
    memory_limit: Option<usize>,
    /// All or nothing: any game left out (illegal, over a limit, or cut off by the end of a
    /// file or a damaged compressed stream) is an error and nothing is written. Without it
    /// the good games are used and the others reported as warnings.
    #[arg(long)]
    strict: bool,
}

fn build(args: &BuildArgs) -> CliResult {
    use polyglot_book::ops::build::{BuildOptions, Builder};
    for path in &args.pgn {
        crate::pgn_input::check_pgn_input(path)?;
    }
    let inputs: Vec<&std::path::Path> = args.pgn.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs([args.out.output.as_path()], &inputs)?;
    let to_stdout = crate::destination::is_stdout(&args.out.output);
    if to_stdout && args.out.json {
        crate::args::usage_error(
            "--json prints the summary on standard output: give -o a file, not -",
        );
    }
    crate::destination::refuse_existing(&args.out.output, args.out.force)?;
    let mut options = BuildOptions::default();
    options.max_ply = args.max_ply;
    options.min_game = args.min_game;
    options.min_score = args.min_score;
    options.only = only_color(args.only_white, args.only_black);
    options.weight = args.policy.policy(args.uniform);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(crate::args::threads(args.threads))
        .build()
        .map_err(|e| CliError(e.to_string()))?;
    let start = std::time::Instant::now();
    options.memory_limit = args.memory_limit.map(|mib| {
        let dir = crate::destination::scratch_dir(&args.out.output);
        polyglot_book::ops::build::MemoryLimit::new(mib.saturating_mul(1 << 20), dir)
    });
    let mut builder = Builder::new(options);
    let bar = crate::progress::spinner("games");
    for path in &args.pgn {
        let input = crate::pgn_input::open(path)?;
        let before = bar.position();
        let progress = |n| bar.set_position(before + n);
        let skipped = pool
            .install(|| add_pgn!(input, |pgn| builder.add_pgn(pgn, progress)))
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        bar.suspend(|| crate::pgn_input::warn_skipped(Some(path), &skipped));
        crate::pgn_input::check_strict(args.strict, path, &skipped)?;
    }
    bar.finish_and_clear();
    // The book is sorted and written on the pool too (from one of its threads): `--threads`
    // is every worker the build starts.
    let stats = pool.install(|| {
        crate::destination::write_single(
            &args.out.output,
            args.out.force,
            args.out.json,
            &inputs,
            |w| {
                let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
                let stats = builder.write_to(&mut w)?;
                std::io::Write::flush(&mut w)?;
                Ok(stats)
            },
        )
    })?;
    let seconds = start.elapsed().as_secs_f64();
    summary(
        &Shown {
            text: format!(
                "{} games read, {}; {} entries written to {} in {seconds:.1}s",
                stats.games_read,
                stats.skipped,
                stats.entries,
                crate::destination::shown(&args.out.output)
            ),
            json: serde_json::json!({
                "games_read": stats.games_read,
                "games_added": stats.games_read - stats.skipped.total(),
                "games_skipped": stats.skipped.total(),
                "skipped_by_reason": stats.skipped.by_kind,
                "truncated": stats.skipped.truncated(),
                "pairs": stats.pairs,
                "entries": stats.entries,
                "bytes_spilled": stats.bytes_spilled,
                "output": args.out.output.display().to_string(),
                "seconds": seconds,
            }),
        },
        args.out.json,
    )
}

/// Arguments of `polyglot from-tally`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.value_name("OUT.bin").help("The book to write")))]
pub struct FromTallyArgs {
    /// The tables (CSV or Parquet, as `chessfmt tally` writes them; `-` for standard input):
    /// several, each sorted, are merged as they are read (the rows `tally merge` writes,
    /// never written out).
    #[arg(required = true, value_name = "TABLE")]
    tables: Vec<PathBuf>,
    #[command(flatten)]
    out: WriteArgs,
    /// Keep moves played in at least N games.
    #[arg(long, default_value_t = 3)]
    min_game: u32,
    /// Keep moves whose mean score for the mover is at least PCT percent.
    #[arg(long, default_value_t = 0.0, value_name = "PCT", value_parser = crate::args::percent)]
    min_score: f64,
    /// Keep only White's moves.
    #[arg(long, conflicts_with = "only_black")]
    only_white: bool,
    /// Keep only Black's moves.
    #[arg(long)]
    only_black: bool,
    /// Give every move weight 1 (as --policy uniform).
    #[arg(long, conflicts_with = "policy")]
    uniform: bool,
    /// Move weighting (the filters above are the same whatever it is).
    #[arg(long, value_enum, default_value_t)]
    policy: crate::args::WeightArg,
}

/// The colour of `--only-white` / `--only-black`.
fn only_color(white: bool, black: bool) -> Option<shakmaty::Color> {
    if white {
        Some(shakmaty::Color::White)
    } else if black {
        Some(shakmaty::Color::Black)
    } else {
        None
    }
}

/// Writes the Polyglot book of a table's rows to the output of `out` (never over `source`,
/// the rows' file, nor over an existing file without `--force`), warning of rows left out.
/// `from-tally` and `convert` both write through it.
pub(crate) fn write_from_rows(
    rows: chessfmt_tally::table::TableBatches,
    options: &polyglot_book::ops::build::BuildOptions,
    sources: &[PathBuf],
    out: &WriteArgs,
) -> Result<polyglot_book::ops::tally::FromTallyStats, CliError> {
    let inputs: Vec<&std::path::Path> = sources.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs([out.output.as_path()], &inputs)?;
    crate::tally::refuse_existing(out)?;
    let (entries, stats) = polyglot_book::ops::tally::from_tally_batches(rows, options)
        .map_err(|e| CliError(e.to_string()))?;
    for e in &stats.bad_rows.examples {
        crate::output::warn(format!(
            "{}: left out: {e}",
            crate::tally::shown_tables(sources)
        ));
    }
    if stats.annotations_dropped > 0 {
        crate::output::warn(crate::tally::annotations_note(
            stats.annotations_dropped,
            "Polyglot",
        ));
    }
    crate::destination::write_single(&out.output, out.force, out.json, &inputs, |w| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        polyglot_book::write::write_entries(&mut w, &entries)?;
        std::io::Write::flush(&mut w)
    })?;
    Ok(stats)
}

fn from_tally(args: &FromTallyArgs) -> CliResult {
    use polyglot_book::ops::build::BuildOptions;
    let mut options = BuildOptions::default()
        .with_min_game(args.min_game)
        .with_min_score(args.min_score)
        .with_weight(args.policy.policy(args.uniform));
    options.only = only_color(args.only_white, args.only_black);
    // An existing output is refused before the tables are opened (write_from_rows checks
    // again, and refuses an output that is one of them, before reading a row).
    crate::destination::refuse_existing(&args.out.output, args.out.force)?;
    let rows = crate::tally::tables_batches(&args.tables)?;
    let stats = write_from_rows(rows, &options, &args.tables, &args.out)?;
    summary(
        &Shown {
            text: format!(
                "{} rows read ({} left out); {} positions halved to fit; {} entries written to {}",
                stats.rows,
                stats.bad_rows.count,
                stats.halved,
                stats.entries,
                crate::destination::shown(&args.out.output)
            ),
            json: serde_json::json!({
                "rows": stats.rows,
                "bad_rows": stats.bad_rows.count,
                "halved": stats.halved,
                "annotations_dropped": stats.annotations_dropped,
                "entries": stats.entries,
                "output": args.out.output.display().to_string(),
            }),
        },
        args.out.json,
    )
}

fn to_tally(book: &std::path::Path, out: &WriteArgs) -> CliResult {
    crate::destination::refuse_inputs([out.output.as_path()], &[book])?;
    crate::tally::refuse_existing(out)?;
    let b = FileBook::open(book, OpenMode::Lenient).map_err(|e| CliError(e.to_string()))?;
    let (rows, stats) = polyglot_book::ops::tally::to_tally(&b);
    crate::tally::write_table(out, &[book], &rows)?;
    summary(
        &Shown {
            text: format!(
                "{} positions, {} rows written to {}; not written: {} entries no walk from the \
                 start reaches, {} illegal; {} learn fields dropped",
                stats.positions,
                stats.rows,
                crate::destination::shown(&out.output),
                stats.unreachable_entries,
                stats.illegal_entries,
                stats.learn_dropped
            ),
            json: serde_json::json!({
                "positions": stats.positions,
                "rows": stats.rows,
                "unreachable_entries": stats.unreachable_entries,
                "illegal_entries": stats.illegal_entries,
                "learn_dropped": stats.learn_dropped,
                "output": out.output.display().to_string(),
            }),
        },
        out.json,
    )
}

/// How `polyglot merge` combines weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    /// Sum, saturating at 65535.
    Sum,
    /// The largest weight.
    Max,
    /// The first book that has the move wins.
    First,
    /// Exactly `polyglot merge-book` 2.0.4 (two books; sums wrap; not re-sorted).
    Reference,
}

/// Arguments of `polyglot merge`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.value_name("OUT.bin").help("The book to write")))]
pub struct MergeArgs {
    /// Books, in priority order.
    #[arg(required = true, num_args = 2..)]
    books: Vec<PathBuf>,
    #[command(flatten)]
    out: WriteArgs,
    /// How to combine the weights of a move present in several books.
    #[arg(long, value_enum, default_value_t = StrategyArg::Sum)]
    strategy: StrategyArg,
}

fn merge(args: &MergeArgs) -> CliResult {
    use polyglot_book::ops::merge::{MergeStrategy, merge_reference, merge_sorted};
    if args.strategy == StrategyArg::Reference && args.books.len() != 2 {
        crate::args::usage_error("--strategy reference merges exactly two books");
    }
    // An existing output is refused (without --force) before the books are opened, an output
    // that is one of the books too; the atomic write checks again.
    let inputs: Vec<&std::path::Path> = args.books.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs([args.out.output.as_path()], &inputs)?;
    crate::destination::refuse_existing(&args.out.output, args.out.force)?;
    // Books are mapped, not loaded: the streaming merge holds one position at a time.
    let books = args
        .books
        .iter()
        .map(|p| crate::mapped::polyglot(p, OpenMode::Strict))
        .collect::<Result<Vec<_>, CliError>>()?;
    let bar = crate::progress::working("merging");
    let (input, output) = crate::destination::write_single(
        &args.out.output,
        args.out.force,
        args.out.json,
        &inputs,
        |w| {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, w);
            let counts = match args.strategy {
                StrategyArg::Reference => {
                    let a: Vec<_> = books[0].entries().collect();
                    let b: Vec<_> = books[1].entries().collect();
                    let out = merge_reference(&a, &b);
                    polyglot_book::write::write_entries(&mut w, &out)?;
                    (a.len() as u64 + b.len() as u64, out.len() as u64)
                }
                s => {
                    let strategy = match s {
                        StrategyArg::Max => MergeStrategy::Max,
                        StrategyArg::First => MergeStrategy::First,
                        _ => MergeStrategy::Sum,
                    };
                    let iters: Vec<Box<dyn Iterator<Item = polyglot_book::Entry> + '_>> = books
                        .iter()
                        .map(|b| Box::new(b.entries()) as Box<dyn Iterator<Item = _>>)
                        .collect();
                    let c = merge_sorted(iters, strategy, |e| {
                        std::io::Write::write_all(&mut w, &e.to_bytes())
                    })?;
                    (c.input, c.output)
                }
            };
            std::io::Write::flush(&mut w)?;
            Ok(counts)
        },
    )?;
    bar.finish_and_clear();
    summary(
        &Shown {
            text: format!(
                "{input} entries in, {output} entries written to {}",
                crate::destination::shown(&args.out.output)
            ),
            json: serde_json::json!({
                "input_entries": input,
                "entries": output,
                "output": args.out.output.display().to_string(),
            }),
        },
        args.out.json,
    )
}

fn open(path: &std::path::Path) -> Result<FileBook, CliError> {
    crate::mapped::polyglot(path, OpenMode::Lenient)
}

#[derive(Serialize)]
struct ProbeRow {
    uci: String,
    weight: u16,
    learn: u32,
    raw: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    legal: Option<bool>,
    /// `"king-to-target"` for castling stored as `e1g1` (read as castling; the standard
    /// form is king-takes-rook and has no field).
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
}

/// The `encoding` of a probe row: set for castling stored king-to-target.
fn castling_encoding(mv: Option<shakmaty::Move>, raw: u16) -> Option<&'static str> {
    mv.and_then(|m| polyglot_book::moves::castling_is_king_to_target(m, raw))
        .and_then(|k| k.then_some("king-to-target"))
}

fn probe(args: &ProbeArgs) -> CliResult {
    let book = open(&args.book)?;
    let pos = args.fen.clone().unwrap_or_default();
    let mut rows: Vec<ProbeRow> = if args.all {
        let legal_moves = shakmaty::Position::legal_moves(&pos);
        book.entries_for_key(chess_core::polyglot_key(&pos))
            .map(|e| {
                let legal = polyglot_book::moves::decode_move_among(&pos, &legal_moves, e.raw_move);
                ProbeRow {
                    uci: legal.map_or_else(
                        || {
                            RawMove::from_u16(e.raw_move)
                                .map_or_else(|| format!("0x{:04x}", e.raw_move), RawMove::uci)
                        },
                        uci,
                    ),
                    weight: e.weight,
                    learn: e.learn,
                    raw: e.raw_move,
                    legal: Some(legal.is_some()),
                    encoding: castling_encoding(legal, e.raw_move),
                }
            })
            .collect()
    } else {
        book.moves(&pos)
            .into_iter()
            .map(|m| ProbeRow {
                uci: uci(m.mv),
                weight: m.weight,
                learn: m.learn,
                raw: m.entry.raw_move,
                legal: None,
                encoding: castling_encoding(Some(m.mv), m.entry.raw_move),
            })
            .collect()
    };
    args.sort.apply(&mut rows, |r| r.weight);
    report(&Probe(rows), args.json)
}

/// `polyglot probe`: the moves of a position (a JSON array, or a table).
#[derive(Serialize)]
#[serde(transparent)]
struct Probe(Vec<ProbeRow>);

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            writeln!(f, "position not in the book")?;
        }
        let total: u64 = self.0.iter().map(|r| u64::from(r.weight)).sum();
        for r in &self.0 {
            let pct = if total == 0 {
                0.0
            } else {
                100.0 * f64::from(r.weight) / total as f64
            };
            let flag = if r.legal == Some(false) {
                "  (illegal)"
            } else if r.encoding.is_some() {
                "  (castling stored king-to-target)"
            } else {
                ""
            };
            writeln!(
                f,
                "{:<6} weight {:>5} ({pct:5.1}%)  learn {}{flag}",
                r.uci, r.weight, r.learn
            )?;
        }
        Ok(())
    }
}

/// Runs a polyglot verb.
pub fn run(cmd: PolyglotCommand) -> CliResult {
    match cmd {
        PolyglotCommand::Key { fen, json } => {
            let pos = fen.unwrap_or_default();
            let key = format!("{:016x}", chess_core::polyglot_key(&pos));
            report(
                &Shown {
                    text: format!("{key}\n"),
                    json: serde_json::json!({
                        "key": key,
                        "fen": Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
                    }),
                },
                json,
            )
        }
        PolyglotCommand::Probe(args) => probe(&args),
        PolyglotCommand::Build(args) => build(&args),
        PolyglotCommand::FromTally(args) => from_tally(&args),
        PolyglotCommand::ToTally { book, out } => to_tally(&book, &out),
        PolyglotCommand::Merge(args) => merge(&args),
        PolyglotCommand::Dump(args) => dump_book(&args),
        PolyglotCommand::Entries(args) => entries(&args),
        PolyglotCommand::Pick {
            book,
            fen,
            seed,
            json,
        } => {
            let b = open(&book)?;
            let pos = fen.unwrap_or_default();
            let mut rng = match seed {
                Some(seed) => StdRng::seed_from_u64(seed),
                None => StdRng::from_os_rng(),
            };
            let Some(m) = b.weighted_choice(&pos, &ProbeFilter::default(), || rng.random()) else {
                return Err(CliError("no book move for this position".into()));
            };
            report(
                &Shown {
                    text: format!("{}\n", uci(m.mv)),
                    json: serde_json::json!({
                        "uci": uci(m.mv),
                        "weight": m.weight,
                        "learn": m.learn,
                        "raw": m.entry.raw_move,
                    }),
                },
                json,
            )
        }
        PolyglotCommand::Info { book, json } => {
            let b = open(&book)?;
            let lines = polyglot_book::ops::tree::info(&b);
            let mut value = serde_json::to_value(crate::formats::polyglot_summary(&b))?;
            value["lines_white"] = lines.lines_white.into();
            value["lines_black"] = lines.lines_black.into();
            value["positions_on_lines_white"] = lines.positions_white.into();
            value["positions_on_lines_black"] = lines.positions_black.into();
            value["isolated_positions"] = lines.isolated_positions.into();
            report(
                &Shown {
                    // Exactly `polyglot info-book`'s output, banner included, so the two diff
                    // clean.
                    text: format!("{REFERENCE_BANNER}\n{}", lines.reference_text()),
                    json: value,
                },
                json,
            )
        }
    }
}
