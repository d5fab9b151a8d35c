//! `chessfmt kvetka …`: Kvetka opening books (`.kob/.kin/.ksf`).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use kvetka_book::{
    Comment, FileBook, Header, SourceRef, Stats,
    build::{BuildStats, Builder},
    read::{BookPaths, KinStatus},
    validate::validate,
    write::{DEFAULT_SPLIT_SIZE, write_book},
};
use serde::Serialize;
use shakmaty::{Chess, EnPassantMode, fen::Fen};

use crate::{
    CliError, CliResult,
    args::WriteArgs,
    output::{Shown, report, summary, uci},
    progress,
};

/// Kvetka verbs.
#[derive(Debug, Subcommand)]
pub enum KvetkaCommand {
    /// Header, files, blocks, positions and sources of a book.
    Info {
        /// The book: its .kin, any of its .kob files, or its base name.
        book: PathBuf,
        /// Check the structure (sorted keys, block and element sizes, .kin, lengths);
        /// exit 1 when a rule is broken.
        #[arg(long)]
        check: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A position's statistics and book moves (wins/draws/losses of the side to move, and of
    /// the player making each move).
    Probe {
        /// The book.
        book: PathBuf,
        /// The position (default: the start position).
        #[arg(long, value_parser = crate::args::fen)]
        fen: Option<Chess>,
        /// Order of the moves: best = most games first, stored = the book's order.
        #[arg(long, value_enum, default_value_t)]
        sort: crate::args::ProbeOrder,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Build a book from PGN files.
    Build(BuildArgs),
    /// Add the games of PGN files to a book, following its header's filters.
    Add {
        /// The book.
        book: PathBuf,
        /// PGN files (plain, .gz, .zst, .xz).
        #[arg(required = true)]
        pgn: Vec<PathBuf>,
        /// All or nothing: add nothing when any game is left out (illegal, over a limit, or cut
        /// off by the end of a file or a damaged compressed stream). Without it the good games
        /// are added and the others reported as warnings.
        #[arg(long)]
        strict: bool,
        /// Memory for the table of new positions, in MiB: past it, sorted runs go to
        /// temporary files beside the book (same result).
        #[arg(long, value_name = "MIB", default_value_t = 64)]
        memory_limit: usize,
        /// Print a JSON summary.
        #[arg(long)]
        json: bool,
    },
    /// Print every element in key order (the stored, White-to-move position).
    Dump {
        /// The book.
        book: PathBuf,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Convert to a Polyglot book (weights 2·wins + draws of the mover).
    #[command(mut_arg("output", |a| a.value_name("OUT.bin").help("The Polyglot book to write")))]
    ToPolyglot {
        /// The book.
        book: PathBuf,
        #[command(flatten)]
        out: WriteArgs,
    },
    /// Write a Kvetka book from a statistics table (`chessfmt tally`): each position's
    /// results summed from the rows reaching it, its moves (in the order first played) from
    /// the rows leaving it.
    #[command(mut_arg("output", |a| a
        .value_name("OUT.kob")
        .help("The book to write (OUT.kob names it; OUT_0.kob, OUT.kin are written)")))]
    FromTally {
        /// The tables (CSV or Parquet, as `chessfmt tally` writes them; `-` for standard
        /// input): several, each sorted, are merged as they are read (the rows `tally merge`
        /// writes, never written out).
        #[arg(required = true, value_name = "TABLE")]
        tables: Vec<PathBuf>,
        #[command(flatten)]
        out: WriteArgs,
        /// The book's caption.
        #[arg(long, default_value = "")]
        caption: String,
        /// Memory for the positions being gathered, in MiB: past it, sorted runs go to
        /// temporary files beside the output and are merged while writing (the same book).
        #[arg(long, value_name = "MIB", default_value_t = crate::tally::KVETKA_FROM_TALLY_MIB)]
        memory_limit: usize,
    },
    /// Write the book as a statistics table: the positions a walk from the start reaches,
    /// each move with the statistics of the position after it (marked `from_book`) in the
    /// book's order. `kvetka from-tally` makes the same elements back; what it cannot (the
    /// start's own results, elements no walk reaches, comments) is counted and warned of.
    ToTally {
        /// The book.
        book: PathBuf,
        #[command(flatten)]
        out: WriteArgs,
    },
    /// Convert a Polyglot book (walked from the start position) to a Kvetka book.
    #[command(mut_arg("output", |a| a
        .value_name("OUT.kob")
        .help("The book to write (OUT.kob names it; OUT_0.kob, OUT.kin are written)")))]
    FromPolyglot {
        /// The Polyglot book.
        #[arg(value_name = "BOOK.bin")]
        input: PathBuf,
        #[command(flatten)]
        out: WriteArgs,
        /// The book's caption.
        #[arg(long, default_value = "")]
        caption: String,
    },
}

/// Arguments of `kvetka build`.
#[derive(Debug, Args)]
#[command(mut_arg("output", |a| a
    .value_name("OUT.kob")
    .help("The book to write (OUT.kob names it; OUT_0.kob, OUT.kin, OUT.ksf are written)")))]
pub struct BuildArgs {
    /// PGN files (plain, .gz, .zst, .xz).
    #[arg(required = true)]
    pgn: Vec<PathBuf>,
    #[command(flatten)]
    out: WriteArgs,
    /// The book's caption.
    #[arg(long, default_value = "")]
    caption: String,
    /// Use only the first N half-moves of each game (255 = the whole game; the header's
    /// `max_move`). Named like the other builders' option; `--max-move` is accepted too.
    #[arg(
        long = "max-ply",
        alias = "max-move",
        value_name = "N",
        default_value_t = 255
    )]
    max_move: u8,
    /// Minimum White Elo (0 = no filter).
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_elo_white: u16,
    /// Minimum Black Elo.
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_elo_black: u16,
    /// Minimum Elo of the stronger player.
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_elo_strong: u16,
    /// Minimum Elo of the weaker player.
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_elo_weak: u16,
    /// Store references to the games (a .ksf file).
    #[arg(long)]
    with_games: bool,
    /// Add moves between any two book positions (transpositions); slower.
    #[arg(long)]
    links: bool,
    /// Largest .kob file in bytes (Kvetka splits at 20 MB).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_SPLIT_SIZE, hide = true)]
    split_size: u64,
    /// Memory for the table of positions, in MiB: past it, sorted runs go to temporary files
    /// beside the output and are merged while writing (same bytes as an in-memory build; a
    /// book with --links merges them back into memory for its links pass).
    #[arg(long, value_name = "MIB", default_value_t = 64)]
    memory_limit: usize,
    /// All or nothing: any game left out (illegal, over a limit, or cut off by the end of a
    /// file or a damaged compressed stream) is an error and nothing is written. Without it
    /// the good games are used and the others reported as warnings.
    #[arg(long)]
    strict: bool,
}

fn open(path: &Path) -> Result<FileBook, CliError> {
    crate::mapped::kvetka(path)
}

/// A resolved game reference.
#[derive(Debug, Serialize)]
struct GameRow {
    source: u16,
    game: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    white: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    black: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    white_elo: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    black_elo: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<u32>,
}

fn game_row(book: &FileBook, r: SourceRef) -> GameRow {
    let found = book.game(r);
    GameRow {
        source: r.source,
        game: r.game,
        white: found.map(|(_, g)| g.white.clone()),
        black: found.map(|(_, g)| g.black.clone()),
        white_elo: found.map(|(_, g)| g.white_elo),
        black_elo: found.map(|(_, g)| g.black_elo),
        result: found.map(|(_, g)| g.result.as_pgn()),
        path: found.map(|(s, _)| s.address.clone()),
        address: found.map(|(_, g)| g.address),
        length: found.map(|(_, g)| g.length),
    }
}

#[derive(Debug, Serialize)]
struct PositionRow {
    wins: u64,
    draws: u64,
    losses: u64,
    comment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    eco: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    opening: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    variation: Option<String>,
    games: Vec<GameRow>,
}

#[derive(Debug, Serialize)]
struct MoveRow {
    uci: String,
    wins: u64,
    draws: u64,
    losses: u64,
    in_book: bool,
    games: Vec<GameRow>,
}

#[derive(Debug, Serialize)]
struct ProbeOut {
    position: Option<PositionRow>,
    moves: Vec<MoveRow>,
}

fn probe(path: &Path, pos: Chess, sort: crate::args::ProbeOrder, json: bool) -> CliResult {
    let book = open(path)?;
    let probe = book.probe(&pos)?;
    if let Some(p) = &probe {
        for code in &p.undecodable {
            crate::output::warn(format_args!(
                "move code {code:#04x} is not a legal move here"
            ));
        }
    }
    let mut out = ProbeOut {
        position: probe.as_ref().map(|p| {
            let (eco, opening, variation) = match &p.comment {
                Some(Comment::Eco {
                    eco,
                    opening,
                    variation,
                }) => (Some(eco.clone()), Some(opening.clone()), variation.clone()),
                _ => (None, None, None),
            };
            PositionRow {
                wins: p.stats.wins,
                draws: p.stats.draws,
                losses: p.stats.losses,
                comment: p.comment.as_ref().map(Comment::to_text),
                eco,
                opening,
                variation,
                games: p.games.iter().map(|&r| game_row(&book, r)).collect(),
            }
        }),
        moves: probe
            .iter()
            .flat_map(|p| &p.moves)
            .map(|m| {
                let s = m.stats.unwrap_or_default();
                MoveRow {
                    uci: uci(m.mv),
                    wins: s.wins,
                    draws: s.draws,
                    losses: s.losses,
                    in_book: m.stats.is_some(),
                    games: m.games.iter().map(|&r| game_row(&book, r)).collect(),
                }
            })
            .collect(),
    };
    sort.apply(&mut out.moves, |m| m.wins + m.draws + m.losses);
    let mut text = String::new();
    match &out.position {
        None => push_line!(text, "position not in the book"),
        Some(p) => {
            let s = Stats {
                wins: p.wins,
                draws: p.draws,
                losses: p.losses,
            };
            push_line!(
                text,
                "position: {} games, +{} ={} -{} (side to move)",
                s.games(),
                p.wins,
                p.draws,
                p.losses
            );
            if let Some(c) = &p.comment {
                push_line!(text, "comment: {c}");
            }
        }
    }
    for m in &out.moves {
        let games = m.wins + m.draws + m.losses;
        let pct = if games == 0 {
            0.0
        } else {
            100.0 * (m.wins as f64 + m.draws as f64 / 2.0) / games as f64
        };
        push_line!(
            text,
            "{:<6} {:>8} games  +{} ={} -{}  {pct:5.1}%{}",
            m.uci,
            games,
            m.wins,
            m.draws,
            m.losses,
            if m.in_book {
                ""
            } else {
                "  (position after it not in the book)"
            }
        );
        for g in &m.games {
            if let (Some(w), Some(b), Some(r)) = (&g.white, &g.black, g.result) {
                push_line!(text, "         {w} – {b} {r}");
            }
        }
    }
    report(&Shown { text, json: &out }, json)
}

fn info(path: &Path, check: bool, json: bool) -> CliResult {
    let book = open(path)?;
    let h = book.header();
    let mut elements = 0u64;
    let mut damaged = 0u64;
    for e in book.elements() {
        match e {
            Ok(_) => elements += 1,
            Err(_) => damaged += 1,
        }
    }
    let kin = match book.kin_status() {
        KinStatus::Absent => "absent".to_string(),
        KinStatus::Valid => "valid".to_string(),
        KinStatus::Stale(why) => format!("stale, ignored ({why})"),
        _ => "unknown".to_string(),
    };
    let (sources, games) = match book.sources() {
        Some(Ok(s)) => (
            Some(s.sources.len()),
            Some(s.sources.iter().map(|s| s.games.len()).sum::<usize>()),
        ),
        Some(Err(e)) => return Err(e.into()),
        None => (None, None),
    };
    let checked = check.then(|| validate(&book));
    let files: Vec<serde_json::Value> = book
        .files()
        .map(|(p, n)| serde_json::json!({"path": p.display().to_string(), "bytes": n}))
        .collect();
    let json_value = serde_json::json!({
        "caption": h.caption,
        "min_elo_white": h.min_elo_white,
        "min_elo_black": h.min_elo_black,
        "min_elo_strong": h.min_elo_strong,
        "min_elo_weak": h.min_elo_weak,
        "max_move": h.max_move,
        "element_type": h.element_type,
        "links": h.links,
        "blocks": h.block_count,
        "positions": elements,
        "damaged_blocks": damaged,
        "files": files,
        "kin": kin,
        "sources": sources,
        "games": games,
        "check": checked.as_ref().map(|r| serde_json::json!({
            "ok": r.is_ok(),
            "problems": r.problem_count,
            "examples": r.problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
        })),
    });
    let mut text = String::new();
    push_line!(text, "caption      {}", h.caption);
    push_line!(
        text,
        "filters      Elo white {} black {} strong {} weak {} (0 = none)",
        h.min_elo_white,
        h.min_elo_black,
        h.min_elo_strong,
        h.min_elo_weak
    );
    let max_move = if h.max_move == 0xff {
        "all".to_string()
    } else {
        h.max_move.to_string()
    };
    push_line!(text, "max_move     {max_move} half-moves");
    push_line!(
        text,
        "elements     type {} ({}), links {}",
        h.element_type,
        if h.stores_games() {
            "with games"
        } else {
            "statistics only"
        },
        if h.links != 0 { "on" } else { "off" }
    );
    push_line!(text, "blocks       {}", h.block_count);
    push_line!(text, "positions    {elements}");
    if damaged > 0 {
        push_line!(text, "damaged      {damaged} blocks could not be read");
    }
    for (p, n) in book.files() {
        push_line!(text, "file         {} ({n} bytes)", p.display());
    }
    push_line!(text, "kin          {kin}");
    if let (Some(s), Some(g)) = (sources, games) {
        push_line!(text, "sources      {s} ({g} games)");
    }
    if let Some(r) = &checked {
        for p in &r.problems {
            push_line!(text, "problem      {p}");
        }
        push_line!(
            text,
            "check        {}",
            if r.is_ok() {
                "ok".to_string()
            } else {
                format!("{} problems", r.problem_count)
            }
        );
    }
    report(
        &Shown {
            text,
            json: json_value,
        },
        json,
    )?;
    if let Some(r) = checked
        && !r.is_ok()
    {
        return Err(CliError(format!(
            "{}: {} structural problems (first: {})",
            path.display(),
            r.problem_count,
            r.problems
                .first()
                .map(ToString::to_string)
                .unwrap_or_default()
        )));
    }
    if damaged > 0 {
        return Err(CliError(format!(
            "{}: {damaged} damaged blocks",
            path.display()
        )));
    }
    Ok(())
}

fn dump(path: &Path, json: bool) -> CliResult {
    use std::io::Write;
    let book = open(path)?;
    let mut out = std::io::BufWriter::new(crate::output::stdout()?);
    let mut damaged = 0u64;
    for e in book.elements() {
        let (loc, e) = match e {
            Ok(x) => x,
            Err(err) => {
                damaged += 1;
                crate::output::warn(format_args!("{err}"));
                continue;
            }
        };
        let pos = kvetka_book::position::position_of(&e.key);
        let fen = pos
            .as_ref()
            .map(|p| Fen::from_position(p, EnPassantMode::Always).to_string());
        let moves: Vec<String> = e
            .moves
            .iter()
            .map(
                |&c| match pos.as_ref().and_then(|p| kvetka_book::moves::decode(p, c)) {
                    Some(m) => uci(m),
                    None => format!("?{c:02x}"),
                },
            )
            .collect();
        let key: String = e.key.iter().map(|b| format!("{b:02x}")).collect();
        if json {
            let refs = |r: &SourceRef| serde_json::json!({"source": r.source, "game": r.game});
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({
                    "block": loc.block,
                    "key": key,
                    "fen": fen,
                    "wins": e.wins,
                    "draws": e.draws,
                    "losses": e.losses,
                    "moves": moves,
                    "comment": e.comment,
                    "source": e.source.as_ref().map(refs),
                    "links": e.links.as_ref().map(|l| l.iter().map(refs).collect::<Vec<_>>()),
                }),
            )?;
            writeln!(out)?;
        } else {
            writeln!(
                out,
                "{key} {} +{} ={} -{} [{}]{}",
                fen.as_deref().unwrap_or("(not a legal position)"),
                e.wins,
                e.draws,
                e.losses,
                moves.join(" "),
                e.comment.map(|c| format!(" {{{c}}}")).unwrap_or_default()
            )?;
        }
    }
    out.flush()?;
    if damaged > 0 {
        return Err(CliError(format!(
            "{}: {damaged} damaged blocks skipped",
            path.display()
        )));
    }
    Ok(())
}

/// Moves the format cannot hold, as a warning (never only a count in the summary).
fn warn_uncodable(stats: &BuildStats) {
    if stats.uncodable_moves > 0 {
        crate::output::warn(format_args!(
            "{} moves have no Kvetka code (under-promotions): left out",
            stats.uncodable_moves
        ));
    }
}

fn summary_json(stats: &BuildStats) -> serde_json::Value {
    serde_json::json!({
        "games_read": stats.games_read,
        "games_added": stats.games_added,
        "games_filtered": stats.games_filtered,
        "games_without_result": stats.games_without_result,
        "games_skipped": stats.skipped.total(),
        "skipped_by_reason": stats.skipped.by_kind,
        "truncated": stats.skipped.truncated(),
        "uncodable_moves": stats.uncodable_moves,
        "linked_moves": stats.linked_moves,
    })
}

fn build(args: &BuildArgs) -> CliResult {
    let header = Header {
        caption: args.caption.clone(),
        min_elo_white: args.min_elo_white,
        min_elo_black: args.min_elo_black,
        min_elo_strong: args.min_elo_strong,
        min_elo_weak: args.min_elo_weak,
        max_move: args.max_move,
        element_type: u8::from(args.with_games),
        links: u8::from(args.links),
        block_count: 0,
    };
    crate::destination::refuse_set_destination(&args.out.output, "a Kvetka book (.kob/.kin/.ksf)");
    let paths = BookPaths::from_any(&args.out.output);
    let inputs: Vec<&Path> = args.pgn.iter().map(PathBuf::as_path).collect();
    let members = book_members(&args.out.output);
    crate::destination::refuse_inputs(members.iter().map(PathBuf::as_path), &inputs)?;
    refuse_existing_book(&args.out.output, args.out.force)?;
    // A set destination is never a device or a pipe: the runs go beside it.
    let dir = crate::destination::scratch_dir(&args.out.output);
    for p in &args.pgn {
        crate::pgn_input::check_pgn_input(p)?;
    }
    let mut builder = Builder::new(
        kvetka_book::build::BuildOptions::default()
            .with_header(header)
            .with_split_size(args.split_size)
            .with_memory_limit(Some(kvetka_book::build::MemoryLimit::new(
                args.memory_limit.saturating_mul(1 << 20),
                dir,
            ))),
    );
    let bar = progress::spinner("games");
    for p in &args.pgn {
        // A plain file is mapped and its games tokenised in parallel.
        let input = crate::pgn_input::open(p)?;
        builder.begin_source(kvetka_book::build::source_address(p));
        let skipped = add_pgn!(input, |pgn| builder.add_pgn(pgn, |n| bar.set_position(n)))?;
        bar.suspend(|| crate::pgn_input::warn_skipped(Some(p), &skipped));
        crate::pgn_input::check_strict(args.strict, p, &skipped)?;
    }
    bar.finish_and_clear();
    let (stats, w) = builder.save(paths.base(), args.out.force)?;
    let json_value = {
        warn_uncodable(&stats);
        let mut v = summary_json(&stats);
        v["positions"] = w.elements.into();
        v["blocks"] = w.blocks.into();
        v["files"] = w.files.into();
        v["output"] = args.out.output.display().to_string().into();
        v
    };
    let text = format!(
        "{} positions in {} blocks, {} .kob file(s), from {} games ({} read, {} filtered, {} without result, {} skipped; {} moves without a code)",
        w.elements,
        w.blocks,
        w.files,
        stats.games_added,
        stats.games_read,
        stats.games_filtered,
        stats.games_without_result,
        stats.skipped.total(),
        stats.uncodable_moves
    );
    summary(
        &Shown {
            text,
            json: json_value,
        },
        args.out.json,
    )
}

fn add(path: &Path, pgn: &[PathBuf], strict: bool, memory_limit: usize, json: bool) -> CliResult {
    for p in pgn {
        crate::pgn_input::check_pgn_input(p)?;
    }
    let paths = BookPaths::from_any(path);
    let bar = progress::spinner("games");
    let mut options = kvetka_book::grow::AddOptions::default();
    options.split_size = DEFAULT_SPLIT_SIZE;
    options.strict = strict;
    options.memory_limit = Some(memory_limit.saturating_mul(1 << 20));
    let stats = kvetka_book::grow::add_pgn_with(&paths, pgn, &options, |n| bar.set_position(n));
    bar.finish_and_clear();
    let stats = match stats {
        Err(kvetka_book::Error::InputSkipped(skipped)) => {
            crate::pgn_input::warn_skipped(None, &skipped);
            return Err(CliError(format!(
                "{}: {skipped}; nothing added (--strict)",
                path.display()
            )));
        }
        other => other?,
    };
    crate::pgn_input::warn_skipped(None, &stats.build.skipped);
    let json_value = {
        warn_uncodable(&stats.build);
        let mut v = summary_json(&stats.build);
        v["positions_added"] = stats.elements_added.into();
        v["positions_updated"] = stats.elements_updated.into();
        v["blocks_changed"] = stats.blocks_changed.into();
        v["blocks_added"] = stats.blocks_added.into();
        v["files_written"] = stats.files_written.into();
        v["files"] = stats.files.into();
        v
    };
    let text = format!(
        "{} games added ({} read): {} new positions, {} updated; {} blocks rewritten, {} added; {} of {} .kob files written",
        stats.build.games_added,
        stats.build.games_read,
        stats.elements_added,
        stats.elements_updated,
        stats.blocks_changed,
        stats.blocks_added,
        stats.files_written,
        stats.files
    );
    summary(
        &Shown {
            text,
            json: json_value,
        },
        json,
    )
}

/// The files of the Kvetka book named by `path` (the name given, the index, the statistics
/// and every numbered `.kob` up to the first missing one): what a conversion's output, or a
/// build's inputs, must not be.
fn book_members(path: &Path) -> Vec<PathBuf> {
    let paths = BookPaths::from_any(path);
    let mut members = vec![path.to_path_buf(), paths.kin(), paths.ksf()];
    members.extend((0..).map(|n| paths.kob(n)).take_while(|p| p.exists()));
    members
}

/// Refuses a book at `output` of which a file exists (the first `.kob`, the `.kin`, the
/// `.ksf`) before any work, unless `force`.
pub(crate) fn refuse_existing_book(output: &Path, force: bool) -> CliResult {
    let paths = BookPaths::from_any(output);
    crate::destination::refuse_existing_files([paths.kob(0), paths.kin(), paths.ksf()], force)
}

fn to_polyglot(path: &Path, out: &WriteArgs) -> CliResult {
    let json = out.json;
    crate::destination::refuse_existing(&out.output, out.force)?;
    let book = open(path)?;
    let bar = crate::progress::working("converting");
    let converted = kvetka_book::convert::to_polyglot(&book, chess_core::book::WeightPolicy::Score);
    bar.finish_and_clear();
    let (entries, stats) = converted?;
    let members = book_members(path);
    let inputs: Vec<&Path> = members.iter().map(PathBuf::as_path).collect();
    crate::destination::write_polyglot(out, &inputs, &entries)?;
    let json_value = serde_json::json!({
        "positions": stats.positions,
        "entries": stats.moves,
        "zero_weight": stats.zero_weight,
        "skipped_moves": stats.skipped_moves,
        "skipped_positions": stats.skipped_positions,
    });
    let text = format!(
        "{} positions, {} entries written ({} moves of weight 0 left out)",
        stats.positions, stats.moves, stats.zero_weight
    );
    summary(
        &Shown {
            text,
            json: json_value,
        },
        json,
    )
}

/// Writes the Kvetka book of a table's rows to `output` (its files committed as one set;
/// never over `source`, the rows' file) in memory near `memory_limit` MiB (sorted runs in
/// temporary files beside `output` past it), warning of rows left out and of what the book
/// cannot hold. `from-tally` and `convert` both write through it.
pub(crate) fn write_from_rows(
    rows: impl IntoIterator<Item = Result<chessfmt_tally::Row, chessfmt_tally::Error>>,
    sources: &[PathBuf],
    output: &Path,
    header: &kvetka_book::raw::Header,
    force: bool,
    memory_limit: usize,
) -> Result<
    (
        kvetka_book::write::WriteStats,
        kvetka_book::tally::FromTallyStats,
    ),
    CliError,
> {
    crate::destination::refuse_set_destination(output, "a Kvetka book (.kob/.kin/.ksf)");
    let members = book_members(output);
    let inputs: Vec<&Path> = sources.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs(members.iter().map(PathBuf::as_path), &inputs)?;
    let mut writer = kvetka_book::write::StreamWriter::new(
        &BookPaths::from_any(output),
        header,
        DEFAULT_SPLIT_SIZE,
        force,
    )?;
    let limit = chess_core::book::MemoryLimit::new(
        memory_limit.saturating_mul(1 << 20),
        crate::destination::scratch_dir(output),
    );
    let bar = progress::spinner("rows");
    let rows = progress::counting(rows.into_iter(), &bar);
    let stats = kvetka_book::tally::write_from_tally(rows, &mut writer, Some(&limit))
        .map_err(|e| CliError(e.to_string()))?;
    bar.finish_and_clear();
    let w = writer.finish(None)?;
    for e in &stats.bad_rows.examples {
        crate::output::warn(format_args!(
            "{}: left out: {e}",
            crate::tally::shown_tables(sources)
        ));
    }
    if stats.uncodable_moves > 0 {
        crate::output::warn(format_args!(
            "{} moves have no Kvetka code (under-promotions, a third knight, …): left out",
            stats.uncodable_moves
        ));
    }
    if stats.without_result > 0 {
        crate::output::warn(format_args!(
            "{} moves were played only in games without a result (Kvetka counts none): left out",
            stats.without_result
        ));
    }
    if stats.annotations_dropped > 0 {
        crate::output::warn(crate::tally::annotations_note(
            stats.annotations_dropped,
            "Kvetka",
        ));
    }
    Ok((w, stats))
}

fn from_tally(
    tables: &[PathBuf],
    out: &WriteArgs,
    caption: &str,
    memory_limit: usize,
) -> CliResult {
    refuse_existing_book(&out.output, out.force)?;
    let rows = crate::tally::tables_rows(tables)?;
    let header = kvetka_book::raw::Header::converted(caption);
    let (w, stats) = write_from_rows(rows, tables, &out.output, &header, out.force, memory_limit)?;
    summary(
        &Shown {
            text: format!(
                "{} rows read ({} left out, {} moves without a Kvetka code); {} positions in {} \
                 blocks",
                stats.rows, stats.bad_rows.count, stats.uncodable_moves, w.elements, w.blocks
            ),
            json: serde_json::json!({
                "rows": stats.rows,
                "bad_rows": stats.bad_rows.count,
                "uncodable_moves": stats.uncodable_moves,
                "without_result": stats.without_result,
                "annotations_dropped": stats.annotations_dropped,
                "positions": w.elements,
                "blocks": w.blocks,
                "output": out.output.display().to_string(),
            }),
        },
        out.json,
    )
}

/// What a Kvetka book's table leaves out (`kvetka to-tally`, `convert`): a warning for each
/// kind there is, and every count by its JSON name.
pub(crate) fn not_in_table(
    s: &kvetka_book::tally::ToTallyStats,
) -> (
    Vec<(crate::tally::Concerns, String)>,
    serde_json::Map<String, serde_json::Value>,
) {
    use crate::tally::Concerns;
    let mut notes = Vec::new();
    if s.comments_dropped + s.game_references_dropped > 0 {
        notes.push((
            Concerns::Table,
            format!(
                "{} comments and the game references of {} positions have no place in a table: \
             not written",
                s.comments_dropped, s.game_references_dropped
            ),
        ));
    }
    if s.unreached_elements > 0 {
        notes.push((
            Concerns::Table,
            format!(
                "{} elements no walk from the start reaches are not written",
                s.unreached_elements
            ),
        ));
    }
    if s.start_not_kept {
        notes.push((
            Concerns::PositionStatistics,
            "the start position's results are not the sum of its moves', and no row reaches \
             the start: a book made from the table gives it its moves' sums"
                .to_string(),
        ));
    }
    if s.undecodable_moves > 0 {
        notes.push((
            Concerns::Table,
            format!(
                "{} stored move codes are not in the table or not legal: not written",
                s.undecodable_moves
            ),
        ));
    }
    if s.header_not_kept {
        notes.push((
            Concerns::KvetkaHeader,
            "the header's caption, Elo filters or ply limit have no place in a table: a book \
             made from it has a header of its own"
                .to_string(),
        ));
    }
    let counts = serde_json::json!({
        "header_not_kept": s.header_not_kept,
        "comments_dropped": s.comments_dropped,
        "game_references_dropped": s.game_references_dropped,
        "unreached_elements": s.unreached_elements,
        "start_not_kept": s.start_not_kept,
        "undecodable_moves": s.undecodable_moves,
        "damaged": s.damaged,
    });
    let serde_json::Value::Object(counts) = counts else {
        unreachable!("a JSON object")
    };
    (notes, counts)
}

fn to_tally(book_path: &Path, out: &WriteArgs) -> CliResult {
    crate::destination::refuse_inputs([out.output.as_path()], &[book_path])?;
    crate::tally::refuse_existing(out)?;
    let book = open(book_path)?;
    let (rows, stats) = kvetka_book::tally::to_tally(&book);
    let walked = crate::tally::Walked {
        positions: stats.positions,
        rows: stats.rows,
        moves_without_statistics: stats.moves_without_statistics,
        damaged: stats.damaged,
        entries: "elements",
    };
    crate::tally::write_book_table(out, book_path, &rows, &walked, not_in_table(&stats), &[])
}

fn from_polyglot(input: &Path, output: &Path, caption: &str, force: bool, json: bool) -> CliResult {
    crate::destination::refuse_set_destination(output, "a Kvetka book (.kob/.kin/.ksf)");
    let members = book_members(output);
    crate::destination::refuse_inputs(members.iter().map(PathBuf::as_path), &[input])?;
    refuse_existing_book(output, force)?;
    let pg = crate::mapped::polyglot(input, polyglot_book::OpenMode::Lenient)?;
    let bar = crate::progress::working("converting");
    let (mut elements, stats) =
        kvetka_book::convert::from_polyglot(&pg, shakmaty::Chess::default());
    let header = kvetka_book::raw::Header::converted(caption);
    let w = write_book(
        &BookPaths::from_any(output),
        &header,
        &mut elements,
        None,
        DEFAULT_SPLIT_SIZE,
        force,
    );
    bar.finish_and_clear();
    let w = w?;
    let json_value = serde_json::json!({
        "positions": w.elements,
        "moves": stats.moves,
        "skipped_moves": stats.skipped_moves,
        "blocks": w.blocks,
    });
    let text = format!(
        "{} positions, {} moves in {} blocks ({} moves without a Kvetka code)",
        w.elements, stats.moves, w.blocks, stats.skipped_moves
    );
    summary(
        &Shown {
            text,
            json: json_value,
        },
        json,
    )
}

/// Runs a kvetka verb.
pub fn run(cmd: KvetkaCommand) -> CliResult {
    match cmd {
        KvetkaCommand::Info { book, check, json } => info(&book, check, json),
        KvetkaCommand::Probe {
            book,
            fen,
            sort,
            json,
        } => probe(&book, fen.unwrap_or_default(), sort, json),
        KvetkaCommand::Build(args) => build(&args),
        KvetkaCommand::Add {
            book,
            pgn,
            strict,
            memory_limit,
            json,
        } => add(&book, &pgn, strict, memory_limit, json),
        KvetkaCommand::Dump { book, json } => dump(&book, json),
        KvetkaCommand::ToPolyglot { book, out } => to_polyglot(&book, &out),
        KvetkaCommand::FromTally {
            tables,
            out,
            caption,
            memory_limit,
        } => from_tally(&tables, &out, &caption, memory_limit),
        KvetkaCommand::ToTally { book, out } => to_tally(&book, &out),
        KvetkaCommand::FromPolyglot {
            input,
            out,
            caption,
        } => from_polyglot(&input, &out.output, &caption, out.force, out.json),
    }
}
