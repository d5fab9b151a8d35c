//! `chessfmt tally …`: the statistics table between game collections and books (the map from
//! PGN, and `tally merge`, the reduce).

use std::path::{Path, PathBuf};

use chessfmt_tally::{
    Error as TallyError, Row, TableFormat, TableWriter, Tally, TallyOptions, table::TableRows,
};
use clap::{Args, Subcommand};

use crate::{CliError, CliResult, args::WriteArgs, output::Shown, output::summary};

/// `chessfmt tally GAMES... -o PART.csv`, or `chessfmt tally merge PARTS... -o ALL.csv`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TallyArgs {
    #[command(subcommand)]
    command: Option<TallyCommand>,
    #[command(flatten)]
    map: MapArgs,
}

/// The reduce.
#[derive(Debug, Subcommand)]
pub enum TallyCommand {
    /// Merge sorted tables into one, the rows of a position and move summed (bounded memory:
    /// a few batches of at most 4,096 rows per input, two row groups of a Parquet output).
    Merge(MergeArgs),
    /// The table as one PGN game: the opening tree, the most played move as the main line and
    /// the others as variations, each move with its games and results as a comment.
    ToPgn(ToPgnArgs),
}

/// Arguments of `tally` (the map). The output is an `Option` only so that `tally merge`
/// parses without it; clap requires it for the map.
#[derive(Debug, Args)]
pub struct MapArgs {
    /// PGN files (.pgn, .pgn.gz, .pgn.zst, .pgn.xz).
    #[arg(required = true, value_name = "GAMES")]
    pgn: Vec<PathBuf>,
    /// The table to write: Parquet for a .parquet (or .pq) name, CSV otherwise.
    #[arg(short = 'o', long = "output", value_name = "PART.csv", required = true)]
    output: Option<PathBuf>,
    /// Replace OUT if it exists; an input is never overwritten.
    #[arg(long)]
    force: bool,
    /// Print the summary as JSON on standard output (text summaries go to standard error).
    #[arg(long)]
    json: bool,
    /// Count only the first N half-moves of each game.
    #[arg(long, default_value_t = 1024)]
    max_ply: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Keep memory near MIB mebibytes: the table is written to sorted runs in temporary files
    /// beside OUT and merged at the end (the same table), a mapped PGN is read in pieces
    /// small enough for the games in flight to take a sixth of the limit, and a Parquet
    /// table is written in row groups small enough for two to take an eighth of it.
    #[arg(long, value_name = "MIB")]
    memory_limit: Option<usize>,
    /// All or nothing: any game left out is an error and nothing is written.
    #[arg(long)]
    strict: bool,
    /// The number of this part when a collection is counted in parts (one run per file, per
    /// machine): number the parts in input order and moves of equal weight keep the order one
    /// run over all the games gives.
    #[arg(long, default_value_t = 0, value_name = "K")]
    part: u16,
    /// How a Parquet table's pages are compressed: snappy (the default, as Spark, DuckDB and
    /// pyarrow write), zstd (about two thirds of the size, as fast) or none. Parquet output
    /// only.
    #[arg(long, value_enum, value_name = "CODEC")]
    compression: Option<crate::args::Codec>,
}

/// The compression `--compression` names for `output` (a usage error for a CSV table: it
/// has none).
fn compression(arg: Option<crate::args::Codec>, output: &Path) -> chessfmt_tally::Compression {
    let Some(arg) = arg else {
        return chessfmt_tally::Compression::default();
    };
    if TableFormat::of_path(output) != TableFormat::Parquet {
        crate::args::usage_error(format!(
            "--compression: {} is written as CSV (name it .parquet for a Parquet table)",
            output.display()
        ));
    }
    arg.parquet()
}

/// Arguments of `tally merge`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.value_name("ALL.csv").help(
    "The merged table: Parquet for a .parquet (or .pq) name, CSV otherwise"
)))]
pub struct MergeArgs {
    /// Tables (CSV or Parquet, each sorted as `chessfmt tally` writes them).
    #[arg(required = true, value_name = "PARTS")]
    parts: Vec<PathBuf>,
    #[command(flatten)]
    out: WriteArgs,
    /// How a Parquet table's pages are compressed: snappy (the default), zstd or none.
    /// Parquet output only.
    #[arg(long, value_enum, value_name = "CODEC")]
    compression: Option<crate::args::Codec>,
}

/// Arguments of `tally to-pgn`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.value_name("TREE.pgn").help("The PGN to write")))]
pub struct ToPgnArgs {
    /// The table (CSV or Parquet, as `chessfmt tally` or any `to-tally` writes it).
    #[arg(value_name = "TABLE")]
    table: PathBuf,
    #[command(flatten)]
    out: WriteArgs,
    /// Plies from the start position.
    #[arg(long, default_value_t = 12, value_name = "N")]
    max_ply: usize,
    /// Leave out moves played in fewer than N games.
    #[arg(long, default_value_t = 1, value_name = "N")]
    min_games: u64,
}

/// Runs `chessfmt tally`.
pub fn run(args: TallyArgs) -> CliResult {
    match args.command {
        Some(TallyCommand::Merge(m)) => merge(&m),
        Some(TallyCommand::ToPgn(t)) => to_pgn(&t),
        None => {
            let m = args.map;
            let Some(output) = m.output.clone() else {
                crate::args::usage_error("give -o PART.csv");
            };
            let out = WriteArgs {
                output,
                force: m.force,
                json: m.json,
            };
            map(&m, &out)
        }
    }
}

/// A table error as the CLI reports it.
fn table_error(e: TallyError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

fn map(args: &MapArgs, out: &WriteArgs) -> CliResult {
    for path in &args.pgn {
        crate::pgn_input::check_pgn_input(path)?;
    }
    let inputs: Vec<&Path> = args.pgn.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs([out.output.as_path()], &inputs)?;
    let compression = compression(args.compression, &out.output);
    refuse_existing(out)?;
    // The table is written on the pool too (sorting, EPD): the global pool, sized here.
    rayon::ThreadPoolBuilder::new()
        .num_threads(crate::args::threads(args.threads))
        .build_global()
        .map_err(|e| CliError(format!("--threads: {e}")))?;
    let start = std::time::Instant::now();
    let limit = args.memory_limit.map(|mib| {
        chess_core::book::MemoryLimit::new(
            mib.saturating_mul(1 << 20),
            crate::destination::scratch_dir(&out.output),
        )
    });
    let mut tally = Tally::new(
        TallyOptions::default()
            .with_max_ply(args.max_ply)
            .with_part(args.part)
            .with_compression(compression)
            .with_memory_limit(limit),
    );
    let bar = crate::progress::spinner("games");
    for path in &args.pgn {
        let input = crate::pgn_input::open(path)?;
        let before = bar.position();
        let progress = |n| bar.set_position(before + n);
        // Counted from a thread of the pool, as the table is written below: the steps
        // between two groups of games run there, not on a thread waking the pool's.
        let skipped = rayon::scope(|_| add_pgn!(input, |pgn| tally.add_pgn(pgn, progress)))
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        bar.suspend(|| crate::pgn_input::warn_skipped(Some(path), &skipped));
        crate::pgn_input::check_strict(args.strict, path, &skipped)?;
    }
    bar.finish_and_clear();
    // Written from a thread of the pool: the output is written by a worker between its
    // shares of the encoding, not by a thread of its own competing with the pool's for the
    // cores (a third thread on two cores was preempted mid-write while the pool waited).
    let stats = rayon::scope(|_| {
        crate::destination::write_single(&out.output, out.force, out.json, &inputs, |w| {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
            let stats = tally
                .write_table(TableFormat::of_path(&out.output), &mut w)
                .map_err(table_error)?;
            std::io::Write::flush(&mut w)?;
            Ok(stats)
        })
    })?;
    let seconds = start.elapsed().as_secs_f64();
    summary(
        &Shown {
            text: format!(
                "{} games read, {}; {} plies counted; {} rows written to {} in {seconds:.1}s",
                stats.games_read,
                stats.skipped,
                stats.plies,
                stats.rows,
                crate::destination::shown(&out.output)
            ),
            json: serde_json::json!({
                "games_read": stats.games_read,
                "games_added": stats.games_read - stats.skipped.total(),
                "games_skipped": stats.skipped.total(),
                "skipped_by_reason": stats.skipped.by_kind,
                "plies": stats.plies,
                "rows": stats.rows,
                "runs": stats.runs,
                "output": out.output.display().to_string(),
                "seconds": seconds,
            }),
        },
        out.json,
    )
}

/// Memory `kvetka from-tally` (and `convert` to Kvetka) keeps the positions being gathered
/// near, in MiB, unless told otherwise: the book streams to its files.
pub(crate) const KVETKA_FROM_TALLY_MIB: usize = 64;

/// The same for `ctg from-tally` (and `convert` to CTG): its book streams to its files too.
pub(crate) const CTG_FROM_TALLY_MIB: usize = 64;

/// What a warning on a book's table concerns (`ctg|kvetka to-tally` warn of all; `convert`
/// only of what its output would have kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Concerns {
    /// Left out of the table: lost whatever the output.
    Table,
    /// A position's own statistics: kept by a CTG or Kvetka book, or a table.
    PositionStatistics,
    /// A CTG record's bytes: kept by a CTG book, or a table.
    CtgRecord,
    /// A Kvetka book's header: kept by a Kvetka book (`convert` carries it over).
    KvetkaHeader,
}

/// What a walk of a book into a table counted (`ctg|kvetka to-tally`'s summary).
pub(crate) struct Walked {
    /// Positions reached.
    pub(crate) positions: u64,
    /// Rows written.
    pub(crate) rows: u64,
    /// Moves whose position after them is not in the book.
    pub(crate) moves_without_statistics: u64,
    /// Positions whose entry could not be read.
    pub(crate) damaged: u64,
    /// What the book calls an entry ("records", "elements").
    pub(crate) entries: &'static str,
}

/// A book's table written (`ctg|kvetka to-tally`): the rows `rows` of the book `book` to the
/// output of `out`, a warning for each of `notes`, then the summary of `walked` (in JSON
/// with the counts `lost` and `more`).
pub(crate) fn write_book_table(
    out: &WriteArgs,
    book: &Path,
    rows: &[Row],
    walked: &Walked,
    (notes, lost): (
        Vec<(Concerns, String)>,
        serde_json::Map<String, serde_json::Value>,
    ),
    more: &[(&str, u64)],
) -> CliResult {
    write_table(out, &[book], rows)?;
    for (_, n) in notes {
        crate::output::warn(n);
    }
    let mut json = serde_json::json!({
        "positions": walked.positions,
        "rows": walked.rows,
        "moves_without_statistics": walked.moves_without_statistics,
        "output": out.output.display().to_string(),
    });
    if let Some(fields) = json.as_object_mut() {
        fields.extend(lost);
        fields.extend(more.iter().map(|&(k, v)| (k.to_string(), v.into())));
    }
    let text = format!(
        "{} positions, {} rows written to {} ({} moves without statistics, {} damaged {} \
         skipped)",
        walked.positions,
        walked.rows,
        crate::destination::shown(&out.output),
        walked.moves_without_statistics,
        walked.damaged,
        walked.entries
    );
    summary(&Shown { text, json }, out.json)
}

/// The warning for `count` rows with a CTG book's annotation, recommendation or commentary
/// that a `format` book made from the table has no place for.
pub(crate) fn annotations_note(count: u64, format: &str) -> String {
    format!(
        "{count} moves carry a CTG book's annotation, recommendation or commentary, which {format} \
         has no place for: not written"
    )
}

/// Refuses an existing output without `--force` before any work.
pub fn refuse_existing(out: &WriteArgs) -> CliResult {
    crate::destination::refuse_existing(&out.output, out.force)
}

/// The rows of a table (a path, or `-` for standard input; CSV or Parquet by its first
/// bytes), errors naming the file.
pub fn table_rows(path: &Path) -> Result<TableRows, CliError> {
    chessfmt_tally::table::open(path).map_err(|e| CliError(e.to_string()))
}

/// [`table_rows`] read ahead on a thread of their own (`chessfmt_tally::table::read_ahead`):
/// for the verbs that read one table.
pub fn table_rows_ahead(path: &Path) -> Result<TableRows, CliError> {
    table_rows(path).map(chessfmt_tally::table::read_ahead)
}

/// The rows of `tables` in batches (`chessfmt_tally::table::open_tables`): one table read
/// ahead, several merged as they are read (the rows `tally merge` writes); errors name the
/// file.
pub fn tables_batches(tables: &[PathBuf]) -> Result<chessfmt_tally::table::TableBatches, CliError> {
    chessfmt_tally::table::open_tables(tables).map_err(|e| CliError(e.to_string()))
}

/// The rows of `tables` a row at a time, made on a thread of their own
/// (`chessfmt_tally::table::open_tables_rows`: one table's as [`table_rows_ahead`] reads
/// them, several merged); errors name the file.
pub fn tables_rows(tables: &[PathBuf]) -> Result<TableRows, CliError> {
    chessfmt_tally::table::open_tables_rows(tables).map_err(|e| CliError(e.to_string()))
}

/// The tables' names as a message shows them: `a.csv`, or `a.csv + b.csv` when merged.
pub fn shown_tables(tables: &[PathBuf]) -> String {
    let names: Vec<String> = tables.iter().map(|t| t.display().to_string()).collect();
    names.join(" + ")
}

/// Writes `rows` as a table to the output of `out` (Parquet for a `.parquet` name).
pub fn write_table(out: &WriteArgs, inputs: &[&Path], rows: &[Row]) -> Result<(), CliError> {
    crate::destination::write_single(&out.output, out.force, out.json, inputs, |w| {
        let w = std::io::BufWriter::with_capacity(1 << 20, w);
        let mut table =
            TableWriter::new(TableFormat::of_path(&out.output), w).map_err(table_error)?;
        for r in rows {
            table.write(r).map_err(table_error)?;
        }
        table.finish().map_err(table_error)?;
        Ok(())
    })
}

/// Merges the sorted tables `parts` into the table `out` names (CSV or Parquet by its name,
/// compressed with `compression` when Parquet), as `tally merge` and `convert` do: never over
/// a part, nor over an existing file without `--force`.
pub(crate) fn write_merged(
    parts: &[PathBuf],
    out: &WriteArgs,
    compression: chessfmt_tally::Compression,
) -> Result<chessfmt_tally::MergeStats, CliError> {
    let inputs: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs([out.output.as_path()], &inputs)?;
    refuse_existing(out)?;
    let mut merge =
        chessfmt_tally::table::open_merge(parts).map_err(|e| CliError(e.to_string()))?;
    // From a thread of the pool, as `tally` writes its table (see `map`).
    rayon::scope(|_| {
        crate::destination::write_single(&out.output, out.force, out.json, &inputs, |w| {
            let w = std::io::BufWriter::with_capacity(1 << 20, w);
            let mut table =
                TableWriter::with_compression(TableFormat::of_path(&out.output), w, compression)
                    .map_err(table_error)?;
            table.write_merge(&mut merge).map_err(table_error)?;
            table.finish().map_err(table_error)?;
            Ok(merge.stats())
        })
    })
}

fn merge(args: &MergeArgs) -> CliResult {
    let compression = compression(args.compression, &args.out.output);
    let start = std::time::Instant::now();
    let stats = write_merged(&args.parts, &args.out, compression)?;
    let seconds = start.elapsed().as_secs_f64();
    summary(
        &Shown {
            text: format!(
                "{} rows read from {} tables, {} rows written to {} in {seconds:.1}s",
                stats.rows_read,
                args.parts.len(),
                stats.rows_written,
                crate::destination::shown(&args.out.output)
            ),
            json: serde_json::json!({
                "tables": args.parts.len(),
                "rows_read": stats.rows_read,
                "rows_written": stats.rows_written,
                "output": args.out.output.display().to_string(),
                "seconds": seconds,
            }),
        },
        args.out.json,
    )
}

fn to_pgn(args: &ToPgnArgs) -> CliResult {
    use chessfmt_tally::tree::{TreeOptions, write_tree};
    crate::destination::refuse_inputs([args.out.output.as_path()], &[args.table.as_path()])?;
    refuse_existing(&args.out)?;
    let rows = table_rows_ahead(&args.table)?;
    let options = TreeOptions::default()
        .with_max_ply(args.max_ply)
        .with_min_games(args.min_games);
    let stats = crate::destination::write_single(
        &args.out.output,
        args.out.force,
        args.out.json,
        &[args.table.as_path()],
        |w| {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
            let stats = write_tree(rows, options, &mut w).map_err(table_error)?;
            std::io::Write::flush(&mut w)?;
            Ok(stats)
        },
    )?;
    if stats.illegal > 0 {
        crate::output::warn(format!(
            "{}: {} rows whose move is not legal in their position left out",
            args.table.display(),
            stats.illegal
        ));
    }
    summary(
        &Shown {
            text: format!(
                "{} rows read ({} kept, {} of them in the tree); {} moves written to {}",
                stats.rows,
                stats.kept,
                stats.in_tree,
                stats.moves,
                crate::destination::shown(&args.out.output)
            ),
            json: serde_json::json!({
                "rows": stats.rows,
                "kept": stats.kept,
                "in_tree": stats.in_tree,
                "moves": stats.moves,
                "illegal": stats.illegal,
                "output": args.out.output.display().to_string(),
            }),
        },
        args.out.json,
    )
}
