//! `chessfmt ctg …`: ChessBase CTG opening books.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use ctg::{
    BookMove, FileBook,
    build::Builder,
    policy::Policy,
    read::decode_record,
    write::{RecordData, write_book},
};
use serde::Serialize;
use shakmaty::{Chess, EnPassantMode, fen::Fen};

use crate::{
    CliError, CliResult,
    args::WriteArgs,
    output::{Shown, report, summary, uci},
    progress,
};

/// CTG verbs.
#[derive(Debug, Subcommand)]
pub enum CtgCommand {
    /// Pages, positions, games and directory bounds of a book.
    Info {
        /// The book's .ctg (the .cto and .ctb are found beside it).
        book: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the book moves of a position with their statistics (results of the side playing
    /// the move).
    Probe {
        /// The book's .ctg.
        book: PathBuf,
        /// The position (default: the start position).
        #[arg(long, value_parser = crate::args::fen)]
        fen: Option<Chess>,
        /// Order of the moves: best = most games first, stored = the book's order.
        #[arg(long, value_enum, default_value_t)]
        sort: crate::args::ProbeOrder,
        /// Print a JSON array, one object per move.
        #[arg(long)]
        json: bool,
    },
    /// Print every record in page order (the stored, White-to-move position).
    Dump {
        /// The book's .ctg.
        book: PathBuf,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Walk the book tree from the start position (breadth-first, each position once).
    Walk {
        /// The book's .ctg.
        book: PathBuf,
        /// Follow at most N plies.
        #[arg(long, value_name = "N")]
        max_ply: Option<usize>,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Convert to a Polyglot book (tree walk from the start position).
    ToPolyglot(ToPolyglotArgs),
    /// Build a CTG book from PGN files, or rewrite a CTG book.
    Build(BuildArgs),
    /// Write a CTG book from a statistics table (`chessfmt tally`): each position's
    /// statistics summed from the rows reaching it, its moves (most played first) from the
    /// rows leaving it.
    FromTally {
        /// The tables (CSV or Parquet, as `chessfmt tally` writes them; `-` for standard
        /// input): several, each sorted, are merged as they are read (the rows `tally merge`
        /// writes, never written out).
        #[arg(required = true, value_name = "TABLE")]
        tables: Vec<PathBuf>,
        #[command(flatten)]
        out: crate::args::WriteArgs,
        /// Memory for the positions being gathered, in MiB: past it, sorted runs go to
        /// temporary files beside the output and are merged as the book is written (the same
        /// book). The book streams to its files through a temporary spool: six bytes a
        /// position stay in memory.
        #[arg(long, value_name = "MIB", default_value_t = crate::tally::CTG_FROM_TALLY_MIB)]
        memory_limit: usize,
    },
    /// Write the book as a statistics table: the positions a walk from the start reaches,
    /// each move with the statistics of the position after it (marked `from_book`), its
    /// annotation, colour and comment. `ctg from-tally` makes the same records back; what
    /// it cannot (the start's own record, records no walk reaches) is counted and warned of.
    ToTally {
        /// The book.
        book: PathBuf,
        #[command(flatten)]
        out: crate::args::WriteArgs,
    },
}

/// `ctg to-polyglot --policy`: how moves are weighted (names as `ctg::policy::Policy`'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyArg {
    /// 2·wins + draws of the mover (the Polyglot convention).
    Score,
    /// Score, red moves weigh 0.
    ScoreNoRed,
    /// Score, only green moves when there is one.
    ScoreGreen,
    /// DroidFish's weighting of CTG moves.
    Droidfish,
    /// Games played.
    Games,
    /// Every move weight 1.
    Uniform,
}

impl PolicyArg {
    fn policy(self) -> Policy {
        let name = clap::ValueEnum::to_possible_value(&self).map(|v| v.get_name().to_owned());
        // Every variant's name is one of `Policy::NAMES` (tested).
        name.as_deref()
            .and_then(Policy::from_name)
            .unwrap_or(Policy::Uniform)
    }
}

/// Arguments of `ctg to-polyglot`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a.value_name("OUT.bin").help("The Polyglot book to write")))]
pub struct ToPolyglotArgs {
    /// The book's .ctg.
    book: PathBuf,
    #[command(flatten)]
    out: WriteArgs,
    /// Move weighting.
    #[arg(long, value_enum, default_value_t = PolicyArg::ScoreNoRed)]
    policy: PolicyArg,
    /// Follow at most N plies.
    #[arg(long, value_name = "N")]
    max_ply: Option<usize>,
}

/// Arguments of `ctg build`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a
    .value_name("OUT.ctg")
    .help("The book to write (.cto and .ctb are written beside it)")))]
pub struct BuildArgs {
    /// PGN files (plain, .gz, .zst, .xz), or one .ctg book to rewrite.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    out: WriteArgs,
    /// Count the first N plies of each game.
    #[arg(long, value_name = "N", default_value_t = 40)]
    max_ply: usize,
    /// Keep the table of positions near MIB mebibytes: past it, sorted runs go to temporary
    /// files beside OUT and are merged as the book streams to its files (the same book, byte
    /// for byte). Without it the table and the book are held in memory.
    #[arg(long, value_name = "MIB")]
    memory_limit: Option<usize>,
    /// All or nothing: any game left out (illegal, over a limit, or cut off by the end of a
    /// file or a damaged compressed stream) is an error and nothing is written. Without it
    /// the good games are used and the others reported as warnings.
    #[arg(long)]
    strict: bool,
}

fn open(path: &Path) -> Result<FileBook, CliError> {
    crate::mapped::ctg(path)
}

#[derive(Serialize)]
struct ProbeRow {
    uci: String,
    nag: u8,
    annotation: u8,
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    rating1_games: u32,
    rating1_avg: u32,
    rating2_games: u32,
    rating2_avg: u32,
    recommendation: &'static str,
    commentary: u8,
}

impl ProbeRow {
    fn of(m: &BookMove) -> ProbeRow {
        let r = m.results();
        let c = m.child.unwrap_or_default();
        ProbeRow {
            uci: uci(m.mv),
            nag: m.nag(),
            annotation: m.annotation,
            games: r.games,
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            rating1_games: c.rating1.games,
            rating1_avg: c.rating1.average(),
            rating2_games: c.rating2.games,
            rating2_avg: c.rating2.average(),
            recommendation: m.recommendation().name(),
            commentary: m.commentary(),
        }
    }
}

fn nag_text(nag: u8) -> &'static str {
    match nag {
        1 => "!",
        2 => "?",
        3 => "!!",
        4 => "??",
        5 => "!?",
        6 => "?!",
        8 => "□",
        22 => "⨀",
        _ => "",
    }
}

fn probe(book: &Path, pos: Chess, sort: crate::args::ProbeOrder, json: bool) -> CliResult {
    let book = open(book)?;
    let probe = book.probe(&pos)?;
    let mut rows: Vec<ProbeRow> = probe
        .iter()
        .flat_map(|p| p.moves.iter().map(ProbeRow::of))
        .collect();
    sort.apply(&mut rows, |r| r.games);
    if let Some(p) = &probe {
        for (code, ann) in &p.undecodable {
            crate::output::warn(format_args!(
                "move code {code:#04x} (annotation {ann:#04x}) is not a legal move here"
            ));
        }
    }
    let mut text = String::new();
    match &probe {
        None => push_line!(text, "position not in the book"),
        Some(p) => push_line!(
            text,
            "position: {} games, +{} ={} -{} (side to move)",
            p.stats.games,
            p.stats.wins,
            p.stats.draws,
            p.stats.losses
        ),
    }
    for r in &rows {
        let pct = if r.games == 0 {
            0.0
        } else {
            100.0 * (f64::from(r.wins) + f64::from(r.draws) / 2.0) / f64::from(r.games)
        };
        push_line!(
            text,
            "{:<6}{:<3} {:>8} games  +{} ={} -{}  {pct:5.1}%  elo {}/{}  {}",
            r.uci,
            nag_text(r.nag),
            r.games,
            r.wins,
            r.draws,
            r.losses,
            r.rating1_avg,
            r.rating2_avg,
            r.recommendation
        );
    }
    report(&Shown { text, json: rows }, json)
}

fn info(path: &Path, json_flag: bool) -> CliResult {
    let book = open(path)?;
    let h = book.header();
    let mut records = 0u64;
    let mut damaged = 0u64;
    for r in book.records() {
        match r {
            Ok(_) => records += 1,
            Err(_) => damaged += 1,
        }
    }
    let b = book.bounds();
    let mut text = String::new();
    push_line!(text, "pages        {}", h.pages);
    push_line!(text, "positions    {records} (header: {})", h.positions);
    push_line!(text, "games        {}", h.games);
    push_line!(text, "bounds       lower {} upper {}", b.lower, b.upper);
    push_line!(text, "directory    {} entries", book.directory_len());
    if damaged > 0 {
        push_line!(text, "damaged      {damaged} page tails skipped");
    }
    let json = serde_json::json!({
        "pages": h.pages,
        "positions": records,
        "header_positions": h.positions,
        "games": h.games,
        "lower": b.lower,
        "upper": b.upper,
        "directory_entries": book.directory_len(),
        "damaged_pages": damaged,
    });
    report(&Shown { text, json }, json_flag)
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn dump(path: &Path, json: bool) -> CliResult {
    use std::io::Write;
    let book = open(path)?;
    let mut out = std::io::BufWriter::new(crate::output::stdout()?);
    let mut errors = 0u64;
    for r in book.records() {
        let rec = match r {
            Ok(r) => r,
            Err(e) => {
                errors += 1;
                crate::output::warn(format_args!("{}", e.in_file(path)));
                continue;
            }
        };
        let d = match decode_record(&rec.raw) {
            Ok(d) => d,
            Err(e) => {
                errors += 1;
                crate::output::warn(format_args!("{}", e.shifted(rec.offset).in_file(path)));
                continue;
            }
        };
        let s = d.stats;
        if json {
            let moves: Vec<_> = d
                .moves
                .iter()
                .map(|(m, code, ann)| serde_json::json!({"uci": uci(*m), "code": code, "annotation": ann}))
                .collect();
            let undecodable: Vec<_> = d
                .undecodable
                .iter()
                .map(|(code, ann)| serde_json::json!({"code": code, "annotation": ann}))
                .collect();
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({
                    "page": rec.page,
                    "offset": rec.offset,
                    "fen": fen_of(&d.position),
                    "moves": moves,
                    "undecodable": undecodable,
                    "games": s.games,
                    "wins": s.wins,
                    "draws": s.draws,
                    "losses": s.losses,
                    "points": s.points,
                    "rating1_games": s.rating1.games,
                    "rating1_avg": s.rating1.average(),
                    "rating2_games": s.rating2.games,
                    "rating2_avg": s.rating2.average(),
                    "recommendation": s.recommendation().name(),
                    "commentary": s.commentary,
                }),
            )?;
            writeln!(out)?;
        } else {
            let moves: Vec<String> = d
                .moves
                .iter()
                .map(|(m, _, ann)| format!("{}{}", uci(*m), nag_text(ctg::moves::nag(*ann))))
                .collect();
            writeln!(
                out,
                "{}  [{}]  {} games +{} ={} -{} {}",
                fen_of(&d.position),
                moves.join(" "),
                s.games,
                s.wins,
                s.draws,
                s.losses,
                s.recommendation().name()
            )?;
        }
    }
    out.flush()?;
    if errors > 0 {
        crate::output::warn(format_args!("{errors} damaged records skipped"));
    }
    Ok(())
}

fn walk(path: &Path, max_ply: Option<usize>, json: bool) -> CliResult {
    use std::io::Write;
    let book = open(path)?;
    let mut out = std::io::BufWriter::new(crate::output::stdout()?);
    let mut walk = book.walk(Chess::default(), max_ply);
    for node in walk.by_ref() {
        if json {
            let moves: Vec<ProbeRow> = node.probe.moves.iter().map(ProbeRow::of).collect();
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({"ply": node.ply, "fen": fen_of(&node.position), "moves": moves}),
            )?;
            writeln!(out)?;
        } else {
            let moves: Vec<String> = node
                .probe
                .moves
                .iter()
                .map(|m| format!("{}({})", uci(m.mv), m.results().games))
                .collect();
            writeln!(
                out,
                "{} {}  {}",
                node.ply,
                fen_of(&node.position),
                moves.join(" ")
            )?;
        }
    }
    out.flush()?;
    let s = walk.stats();
    if !json {
        errln!(
            "{} positions reached, {} in the book, {} book moves, {} undecodable",
            s.reached,
            s.in_book,
            s.moves,
            s.undecodable
        );
    }
    Ok(())
}

fn to_polyglot(args: &ToPolyglotArgs) -> CliResult {
    let policy = args.policy.policy();
    crate::destination::refuse_existing(&args.out.output, args.out.force)?;
    let book = open(&args.book)?;
    let bar = crate::progress::working("converting");
    let (entries, stats) = ctg::convert::to_polyglot(&book, Chess::default(), args.max_ply, policy);
    bar.finish_and_clear();
    let members = book_files(&args.book);
    let inputs: Vec<&Path> = members.iter().map(PathBuf::as_path).collect();
    crate::destination::write_polyglot(&args.out, &inputs, &entries)?;
    summary(
        &Shown {
            text: format!(
                "{} positions, {} entries written ({} moves of weight 0 left out)",
                stats.positions, stats.entries, stats.zero_weight
            ),
            json: serde_json::json!({
                "positions": stats.positions,
                "entries": stats.entries,
                "zero_weight": stats.zero_weight,
            }),
        },
        args.out.json,
    )
}

/// The three files of the book at `path` (`.ctg`, `.cto`, `.ctb`).
fn book_files(path: &Path) -> [PathBuf; 3] {
    ["ctg", "cto", "ctb"].map(|e| path.with_extension(e))
}

/// Refuses a book at `output` of which a file exists ([`book_files`]) before any work, unless
/// `force`.
pub(crate) fn refuse_existing_book(output: &Path, force: bool) -> CliResult {
    crate::destination::refuse_existing_files(book_files(output), force)
}

fn is_ctg(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("ctg"))
}

fn build(args: &BuildArgs) -> CliResult {
    crate::destination::refuse_set_destination(&args.out.output, "a CTG book (.ctg/.cto/.ctb)");
    let outputs = book_files(&args.out.output);
    let inputs: Vec<&Path> = args.inputs.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs(outputs.iter().map(PathBuf::as_path), &inputs)?;
    refuse_existing_book(&args.out.output, args.out.force)?;
    let (written, games, skipped, uncodable, truncated) =
        if args.inputs.len() == 1 && is_ctg(&args.inputs[0]) {
            let book = open(&args.inputs[0])?;
            let mut records = Vec::new();
            let mut skipped = 0u64;
            for r in book.records() {
                match r {
                    Ok(r) => records.push(RecordData::from_raw(&r.raw)),
                    Err(e) => {
                        skipped += 1;
                        crate::output::warn(format_args!("{}", e.in_file(&args.inputs[0])));
                    }
                }
            }
            let games = book.header().games;
            let written = write_book(&args.out.output, &records, games, args.out.force);
            ctg::build::drop_records(records);
            (written?, games, skipped, 0, 0)
        } else {
            if let Some(p) = args.inputs.iter().find(|p| is_ctg(p)) {
                return Err(CliError(format!(
                    "{}: a CTG book can only be rewritten alone, not mixed with PGN files",
                    p.display()
                )));
            }
            for input in &args.inputs {
                crate::pgn_input::check_pgn_input(input)?;
            }
            let limit = args.memory_limit.map(|mib| {
                ctg::build::MemoryLimit::new(
                    mib.saturating_mul(1 << 20),
                    crate::destination::scratch_dir(&args.out.output),
                )
            });
            // Under a limit the book streams to its files through a spool (six bytes a
            // position stay in memory); its writer checks the files again.
            let writer = match &limit {
                Some(l) => Some(ctg::write::StreamWriter::new(
                    &args.out.output,
                    args.out.force,
                    &l.dir,
                )?),
                None => None,
            };
            let mut builder = Builder::new(
                ctg::build::BuildOptions::default()
                    .with_max_ply(args.max_ply)
                    .with_memory_limit(limit),
            );
            let bar = progress::spinner("games");
            let mut skipped = 0u64;
            for input in &args.inputs {
                let pgn_input = crate::pgn_input::open(input)?;
                let before = bar.position();
                let progress = |n| bar.set_position(before + n);
                let left_out = add_pgn!(pgn_input, |pgn| builder.add_pgn(pgn, progress))
                    .map_err(|e| CliError(format!("{}: {e}", input.display())))?;
                skipped += left_out.total();
                bar.suspend(|| crate::pgn_input::warn_skipped(Some(input), &left_out));
                crate::pgn_input::check_strict(args.strict, input, &left_out)?;
            }
            bar.finish_and_clear();
            let games = u32::try_from(builder.stats().games).unwrap_or(u32::MAX);
            let (written, stats) = match writer {
                Some(mut w) => {
                    let stats = builder.write_to(&mut w)?;
                    (w.finish(games)?, stats)
                }
                None => {
                    let (records, stats) = builder.finish()?;
                    let written = write_book(&args.out.output, &records, games, args.out.force);
                    ctg::build::drop_records(records);
                    (written?, stats)
                }
            };
            (
                written,
                games,
                skipped,
                stats.uncodable_moves,
                stats.truncated_positions,
            )
        };
    // What the format cannot hold is reported, never dropped silently.
    warn_losses(uncodable, truncated);
    summary(
        &Shown {
            text: format!(
                "{} positions on {} pages from {games} games ({skipped} skipped, {uncodable} \
                 moves without a CTG code)",
                written.records, written.pages
            ),
            // The builders' common fields (games_read, games_added, games_skipped, output),
            // then CTG's own.
            json: serde_json::json!({
                "games_read": u64::from(games) + skipped,
                "games_added": games,
                "games_skipped": skipped,
                "output": args.out.output.display().to_string(),
                "positions": written.records,
                "pages": written.pages,
                "uncodable_moves": uncodable,
                "truncated_positions": truncated,
            }),
        },
        args.out.json,
    )
}

/// Warns of what a CTG book could not hold: moves without a code, positions over 127 moves.
fn warn_losses(uncodable: u64, truncated: u64) {
    if uncodable > 0 {
        crate::output::warn(format_args!(
            "{uncodable} moves have no CTG code (under-promotions, a third knight, …): left out"
        ));
    }
    if truncated > 0 {
        crate::output::warn(format_args!(
            "{truncated} positions had more than 127 moves: the least played left out"
        ));
    }
}

/// Writes the CTG book of a table's rows to `output` (its three files committed as one set;
/// never over `source`, the rows' file), warning of rows left out and of what the book cannot
/// hold. `from-tally` and `convert` both write through it.
pub(crate) fn write_from_rows(
    rows: impl IntoIterator<Item = Result<chessfmt_tally::Row, chessfmt_tally::Error>>,
    sources: &[PathBuf],
    output: &Path,
    force: bool,
    memory_limit: usize,
) -> Result<(ctg::write::WriteSummary, ctg::tally::FromTallyStats), CliError> {
    crate::destination::refuse_set_destination(output, "a CTG book (.ctg/.cto/.ctb)");
    let outputs = book_files(output);
    let inputs: Vec<&Path> = sources.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs(outputs.iter().map(PathBuf::as_path), &inputs)?;
    let limit = chess_core::book::MemoryLimit::new(
        memory_limit.saturating_mul(1 << 20),
        crate::destination::scratch_dir(output),
    );
    let mut writer = ctg::write::StreamWriter::new(output, force, &limit.dir)?;
    let bar = crate::progress::spinner("rows");
    let rows = crate::progress::counting(rows.into_iter(), &bar);
    let stats =
        ctg::tally::write_from_tally(rows, &mut writer, Some(&limit)).map_err(|e| match e {
            ctg::tally::FromTallyError::Book(e) => CliError::from(e),
            e => CliError(e.to_string()),
        })?;
    bar.finish_and_clear();
    for e in &stats.bad_rows.examples {
        crate::output::warn(format_args!(
            "{}: left out: {e}",
            crate::tally::shown_tables(sources)
        ));
    }
    warn_losses(stats.uncodable_moves, stats.truncated_positions);
    Ok((writer.finish(stats.games)?, stats))
}

fn from_tally(tables: &[PathBuf], out: &crate::args::WriteArgs, memory_limit: usize) -> CliResult {
    refuse_existing_book(&out.output, out.force)?;
    let rows = crate::tally::tables_rows(tables)?;
    let (written, stats) = write_from_rows(rows, tables, &out.output, out.force, memory_limit)?;
    summary(
        &Shown {
            text: format!(
                "{} rows read ({} left out, {} moves without a CTG code); {} positions on {} pages",
                stats.rows,
                stats.bad_rows.count,
                stats.uncodable_moves,
                written.records,
                written.pages
            ),
            json: serde_json::json!({
                "rows": stats.rows,
                "bad_rows": stats.bad_rows.count,
                "uncodable_moves": stats.uncodable_moves,
                "truncated_positions": stats.truncated_positions,
                "positions": written.records,
                "pages": written.pages,
                "output": out.output.display().to_string(),
            }),
        },
        out.json,
    )
}

/// What a CTG book's table leaves out (`ctg to-tally`, `convert`): a warning for each kind
/// there is, and every count by its JSON name.
pub(crate) fn not_in_table(
    s: &ctg::tally::ToTallyStats,
) -> (
    Vec<(crate::tally::Concerns, String)>,
    serde_json::Map<String, serde_json::Value>,
) {
    use crate::tally::Concerns;
    let mut notes = Vec::new();
    if s.unreached_records > 0 {
        notes.push((
            Concerns::Table,
            format!(
                "{} records no walk from the start reaches are not written",
                s.unreached_records
            ),
        ));
    }
    if s.start_not_kept {
        notes.push((
            Concerns::PositionStatistics,
            "the start position's record is not the sum of its moves' (or has a recommendation \
             or commentary), and no row reaches the start: a book made from the table gives it \
             its moves' sums"
                .to_string(),
        ));
    }
    if s.undecodable_moves > 0 {
        notes.push((
            Concerns::Table,
            format!(
                "{} stored moves decode to no legal move: not written",
                s.undecodable_moves
            ),
        ));
    }
    if s.records_changed > 0 {
        notes.push((
            Concerns::CtgRecord,
            format!(
                "{} records' statistics are not given back byte for byte by a book made from the \
             table (points counted by another rule: a book made from a table gives 5 for a \
             game without result; or fewer games than results, or an unknown byte)",
                s.records_changed
            ),
        ));
    }
    let counts = serde_json::json!({
        "unreached_records": s.unreached_records,
        "start_not_kept": s.start_not_kept,
        "undecodable_moves": s.undecodable_moves,
        "records_changed": s.records_changed,
        "damaged": s.damaged,
    });
    let serde_json::Value::Object(counts) = counts else {
        unreachable!("a JSON object")
    };
    (notes, counts)
}

fn to_tally(book_path: &Path, out: &crate::args::WriteArgs) -> CliResult {
    crate::destination::refuse_inputs([out.output.as_path()], &[book_path])?;
    crate::tally::refuse_existing(out)?;
    let book = open(book_path)?;
    let (rows, stats) = ctg::tally::to_tally(&book);
    let walked = crate::tally::Walked {
        positions: stats.positions,
        rows: stats.rows,
        moves_without_statistics: stats.moves_without_statistics,
        damaged: stats.damaged,
        entries: "records",
    };
    crate::tally::write_book_table(
        out,
        book_path,
        &rows,
        &walked,
        not_in_table(&stats),
        &[("annotations", stats.annotations)],
    )
}

/// Runs a ctg verb.
pub fn run(cmd: CtgCommand) -> CliResult {
    match cmd {
        CtgCommand::Info { book, json } => info(&book, json),
        CtgCommand::Probe {
            book,
            fen,
            sort,
            json,
        } => probe(&book, fen.unwrap_or_default(), sort, json),
        CtgCommand::Dump { book, json } => dump(&book, json),
        CtgCommand::Walk {
            book,
            max_ply,
            json,
        } => walk(&book, max_ply, json),
        CtgCommand::ToPolyglot(args) => to_polyglot(&args),
        CtgCommand::Build(args) => build(&args),
        CtgCommand::FromTally {
            tables,
            out,
            memory_limit,
        } => from_tally(&tables, &out, memory_limit),
        CtgCommand::ToTally { book, out } => to_tally(&book, &out),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_policy_argument_names_a_policy() {
        use clap::ValueEnum;
        let names: Vec<String> = super::PolicyArg::value_variants()
            .iter()
            .map(|v| v.to_possible_value().unwrap().get_name().to_owned())
            .collect();
        assert_eq!(names, ctg::policy::Policy::NAMES);
    }
}
