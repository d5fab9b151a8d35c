//! `chessfmt cbh …`: ChessBase databases (`.cbh` + `.cbg` + `.cba` + entity files).

use std::io::{self, Write};
use std::path::PathBuf;

use chessbase_db::{
    Annotation, Database, Game, Header, MoveTree, NodeId,
    pgn::{PgnOptions, export},
};
use clap::Subcommand;
use serde_json::{Value, json};
use shakmaty::{Chess, EnPassantMode, Position, fen::Fen};

use crate::{
    CliError, CliResult,
    output::{Shown, json_line, report},
    progress,
};

/// `chessfmt cbh`: the verb, and the password of a `.cbz` archive for any of them.
#[derive(Debug, clap::Args)]
pub struct CbhArgs {
    /// The password of a `.cbz` archive (a `.cbv` needs none).
    #[arg(long, global = true)]
    password: Option<String>,
    /// The code page of names and comments that are not UTF-8 (e.g. windows-1251 for a
    /// Russian database); guessed from the database's texts when not given.
    #[arg(long, global = true, value_name = "CODEPAGE", value_parser = encoding)]
    encoding: Option<chessbase_db::TextEncoding>,
    #[command(subcommand)]
    command: CbhCommand,
}

/// ChessBase database verbs. Every `DB` may be a `.cbh` (with its companion files beside it)
/// or a `.cbv`/`.cbz` archive, extracted into memory.
#[derive(Debug, Subcommand)]
pub enum CbhCommand {
    /// Counts (games, texts, deleted), format generation and the files present.
    Info {
        /// The database's .cbh file.
        db: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// One line per record: number, white, black, result, date, event, ECO, moves (read from
    /// .cbh and the entity files only).
    List {
        /// The database's .cbh file.
        db: PathBuf,
        /// Only records A-B (1-based, inclusive; "A-" or "-B" leave one end open).
        #[arg(long, value_parser = crate::args::record_range)]
        range: Option<String>,
        /// Print JSON lines.
        #[arg(long)]
        json: bool,
    },
    /// Export games as PGN (or as a Parquet table of games), in record order.
    Export {
        /// The database's .cbh file.
        db: PathBuf,
        /// Output file (default and `-`: standard output).
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// `pgn`, or `parquet`: one row per game (the tags as columns — Event, Site, Date,
        /// Round, White, Black, Result, WhiteElo, BlackElo, ECO, FEN, the others as a list —
        /// and the movetext as one string). Default: parquet for a .parquet OUT, pgn
        /// otherwise.
        #[arg(long, value_enum)]
        format: Option<ExportFormat>,
        /// How a Parquet table's pages are compressed: snappy (the default), zstd or none
        /// (`--format parquet` only).
        #[arg(long, value_enum, value_name = "CODEC")]
        compression: Option<crate::args::Codec>,
        /// Overwrite the output file if it exists.
        #[arg(long)]
        force: bool,
        /// Only records A-B (1-based, inclusive).
        #[arg(long, value_parser = crate::args::record_range)]
        range: Option<String>,
        /// Leave out comments, NAGs and graphical annotations.
        #[arg(long)]
        no_annotations: bool,
        /// Export games marked deleted too.
        #[arg(long)]
        include_deleted: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Print the summary as JSON on standard output (needs -o).
        #[arg(long, requires = "output")]
        json: bool,
    },
    /// Extract a `.cbv`/`.cbz` archive's files into a folder, all or none.
    #[command(mut_arg("output", |a| a
        .value_name("DIR")
        .help("The folder to write the archive's files into (created if needed)")))]
    Unpack {
        /// The archive.
        archive: PathBuf,
        #[command(flatten)]
        out: crate::args::WriteArgs,
    },
    /// Build a new database from PGN games (variations, comments, NAGs, squares, arrows,
    /// clocks, set-up and Chess960 positions kept); a game that cannot be read is reported
    /// and left out. All files are written as one set.
    #[command(mut_arg("output", |a| a
        .value_name("NEW.cbh")
        .help("The database to write (its .cbg, .cba, .cbp, .cbt, .cbc, .cbs beside it)")))]
    Import {
        /// PGN files (.pgn, .pgn.gz, .pgn.zst, .pgn.xz; `-`: standard input).
        #[arg(required = true)]
        pgn: Vec<PathBuf>,
        #[command(flatten)]
        out: crate::args::WriteArgs,
        /// Keep the tags ChessBase has no field for (TimeControl, UTCDate, Opening, …) in
        /// each game's text as `[%tag Name "value"]`; `cbh export` writes them back as tags.
        /// Without it they are left out, and counted in the report.
        #[arg(long)]
        keep_tags: bool,
        /// Worker threads reading and encoding games (default: all cores); the database is
        /// the same at every count.
        #[arg(long)]
        threads: Option<usize>,
    },
    /// One game: header, moves with variations, annotations (PGN, or a JSON tree).
    Show {
        /// The database's .cbh file.
        db: PathBuf,
        /// The record number (1-based).
        number: u32,
        /// Print one JSON object with the move tree.
        #[arg(long)]
        json: bool,
    },
}

/// What `cbh export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// PGN text.
    Pgn,
    /// A Parquet table, one row per game.
    Parquet,
}

/// Runs a ChessBase verb.
pub fn run(args: CbhArgs) -> CliResult {
    let password = args.password.as_deref();
    let encoding = args.encoding.unwrap_or_default();
    match args.command {
        CbhCommand::Unpack { archive, out } => unpack(&archive, password, &out),
        CbhCommand::Import {
            pgn,
            out,
            keep_tags,
            threads,
        } => {
            // Games are read and encoded on the global pool, of `--threads` workers.
            rayon::ThreadPoolBuilder::new()
                .num_threads(crate::args::threads(threads))
                .build_global()
                .map_err(|e| CliError(format!("--threads: {e}")))?;
            import(&pgn, &out, encoding, keep_tags)
        }
        CbhCommand::Info { db, json } => {
            info(&crate::mapped::chessbase(&db, password, encoding)?, json)
        }
        CbhCommand::List { db, range, json } => {
            let db = crate::mapped::chessbase(&db, password, encoding)?;
            let range = parse_range(range.as_deref(), db.len())?;
            list(&db, range, json)
        }
        CbhCommand::Export {
            db,
            output,
            format,
            compression,
            force,
            range,
            no_annotations,
            include_deleted,
            threads,
            json: json_flag,
        } => {
            let parquet = format.unwrap_or_else(|| {
                let named = output
                    .as_deref()
                    .and_then(|p| p.extension())
                    .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
                if named {
                    ExportFormat::Parquet
                } else {
                    ExportFormat::Pgn
                }
            }) == ExportFormat::Parquet;
            if compression.is_some() && !parquet {
                crate::args::usage_error(
                    "--compression: the export is PGN (--format parquet, or a .parquet OUT, for a table)",
                );
            }
            let codec = compression.unwrap_or(crate::args::Codec::Snappy).parquet();
            let json = json_flag;
            let path = db;
            if let Some(out) = &output {
                // Before the database is read (the commit checks again).
                crate::destination::refuse_existing(out, force)?;
            }
            // The export decodes on the caller's pool: the global one, of `--threads` workers,
            // set up before anything of this command could start it.
            rayon::ThreadPoolBuilder::new()
                .num_threads(crate::args::threads(threads))
                .build_global()
                .map_err(|e| CliError(format!("--threads: {e}")))?;
            let db = crate::mapped::chessbase(&path, password, encoding)?;
            // Without the .cbg there are no moves: every game would be skipped and the PGN
            // empty. Refuse before writing anything.
            if !db.files().iter().any(|f| f.extension == "cbg") && !db.is_empty() {
                return Err(CliError(format!(
                    "{}: the database has no .cbg file (the games' moves): nothing to export",
                    path.display()
                )));
            }
            let range = parse_range(range.as_deref(), db.len())?;
            let mut opts = PgnOptions::default();
            opts.annotations = !no_annotations;
            let total = u64::from(range.end().saturating_sub(*range.start()) + 1);
            let bar = progress::bar(total, false, "exporting");
            let run = |w: &mut dyn Write| {
                let mut w = io::BufWriter::with_capacity(1 << 20, w);
                let options = chessbase_db::ExportOptions::default()
                    .records(range.clone())
                    .pgn(opts)
                    .include_deleted(include_deleted);
                let progress = |n| bar.set_position(n);
                let s = if parquet {
                    chessbase_db::pgn::export_parquet_with(&db, &options, codec, &mut w, progress)?
                } else {
                    export(&db, &options, &mut w, progress)?
                };
                w.flush()?;
                Ok(s)
            };
            if let Some(out) = &output {
                let members: Vec<PathBuf> = db.files().iter().map(|f| f.path.clone()).collect();
                let inputs: Vec<&std::path::Path> = members
                    .iter()
                    .map(PathBuf::as_path)
                    .chain([path.as_path()])
                    .collect();
                crate::destination::refuse_inputs([out.as_path()], &inputs)?;
            }
            let summary = match output
                .as_deref()
                .filter(|p| *p != std::path::Path::new("-"))
            {
                Some(path) => chessfmt_files::atomic::write_atomically(path, force, run).map_err(
                    |e| match e.kind() {
                        // Made since the check above: named like every refusal.
                        io::ErrorKind::AlreadyExists => {
                            CliError(format!("{}: {e}", path.display()))
                        }
                        _ => CliError::from(e),
                    },
                )?,
                None if json => crate::args::usage_error(
                    "--json prints the summary on standard output: give -o a file, not -",
                ),
                None => run(&mut crate::output::stdout()?)?,
            };
            bar.finish_and_clear();
            let skipped: Vec<String> = summary.skipped.iter().map(ToString::to_string).collect();
            let truncated: Vec<String> =
                summary.truncated.iter().map(ToString::to_string).collect();
            let annotation_problems: Vec<String> = summary
                .annotation_problems
                .iter()
                .map(ToString::to_string)
                .collect();
            // Per-game problems are warnings (stderr, with the prefix), the JSON lists them too.
            for t in &truncated {
                crate::output::warn(format_args!("truncated: {t}"));
            }
            for a in &annotation_problems {
                crate::output::warn(format_args!("annotations: {a}"));
            }
            for s in &skipped {
                crate::output::warn(format_args!("skipped: {s}"));
            }
            let mut text = String::new();
            push_line!(
                text,
                "exported {} games ({} truncated), skipped {}, texts {}, deleted {}",
                summary.exported,
                truncated.len(),
                skipped.len(),
                summary.texts,
                summary.deleted
            );
            let json = json!({
                "exported": summary.exported,
                "truncated": truncated,
                "skipped": skipped,
                "texts": summary.texts,
                "deleted": summary.deleted,
                "annotation_problems": annotation_problems,
            });
            crate::output::summary(&Shown { text, json }, json_flag)
        }
        CbhCommand::Show { db, number, json } => {
            let db = crate::mapped::chessbase(&db, password, encoding)?;
            if json {
                show_json(&db, number)
            } else {
                // Written as it is decoded: a long game costs no tree and no text (F6).
                let mut out = std::io::BufWriter::with_capacity(1 << 16, crate::output::stdout()?);
                let written =
                    chessbase_db::pgn::write_game_to(&db, number, &PgnOptions::default(), &mut out)
                        .map_err(crate::output::stdout_error)??;
                writeln!(out).map_err(crate::output::stdout_error)?;
                out.flush().map_err(crate::output::stdout_error)?;
                if let Some(t) = written.truncated {
                    crate::output::warn(format_args!("truncated: {t}"));
                }
                for a in written.annotation_problems {
                    crate::output::warn(format_args!("annotations: {a}"));
                }
                Ok(())
            }
        }
    }
}

/// Parses `A-B`, `A-`, `-B` or `A` against `count` records.
fn parse_range(s: Option<&str>, count: u32) -> Result<std::ops::RangeInclusive<u32>, CliError> {
    let Some(s) = s else {
        return Ok(1..=count);
    };
    let bad = || CliError(format!("bad --range {s:?} (expected A-B, A-, -B or A)"));
    let num = |t: &str, default: u32| -> Result<u32, CliError> {
        if t.trim().is_empty() {
            Ok(default)
        } else {
            t.trim().parse().map_err(|_| bad())
        }
    };
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (num(a, 1)?, num(b, count)?),
        None => {
            let n = num(s, 1)?;
            (n, n)
        }
    };
    if a == 0 || a > b {
        return Err(bad());
    }
    Ok(a..=b.min(count))
}

fn info(db: &Database, json: bool) -> CliResult {
    let c = db.counts();
    let generation = if db.is_old_format() {
        "old (ChessBase 6 era)"
    } else {
        "current"
    };
    let files: Vec<Value> = db
        .files()
        .iter()
        .map(|f| json!({"extension": f.extension, "path": f.path.display().to_string(), "size": f.size}))
        .collect();
    let json_value = json!({
        "records": db.len(),
        "games": c.games,
        "texts": c.texts,
        "deleted": c.deleted,
        "unused": c.unused,
        "generation": generation,
        "code_page": db.code_page().name(),
        "next_game": db.cbh_header().next_game,
        "players": db.players.len(),
        "tournaments": db.tournaments.len(),
        "annotators": db.annotators.len(),
        "sources": db.sources.len(),
        "teams": db.teams.len(),
        "files": files,
        "warnings": db.warnings(),
    });
    let mut text = String::new();
    push_line!(text, "records:     {}", db.len());
    push_line!(text, "games:       {}", c.games);
    push_line!(text, "texts:       {}", c.texts);
    push_line!(text, "deleted:     {}", c.deleted);
    push_line!(text, "generation:  {generation}");
    push_line!(text, "code page:   {}", db.code_page().name());
    push_line!(
        text,
        "entities:    {} players, {} tournaments, {} annotators, {} sources, {} teams",
        db.players.len(),
        db.tournaments.len(),
        db.annotators.len(),
        db.sources.len(),
        db.teams.len()
    );
    for f in db.files() {
        push_line!(text, "file:        {} ({} bytes)", f.path.display(), f.size);
    }
    for w in db.warnings() {
        push_line!(text, "warning:     {w}");
    }
    report(
        &Shown {
            text,
            json: json_value,
        },
        json,
    )
}

fn list(db: &Database, range: std::ops::RangeInclusive<u32>, json: bool) -> CliResult {
    let mut out = io::BufWriter::new(crate::output::stdout()?);
    for n in range {
        let h = db.header(n)?;
        let row = match h {
            Header::Game(g) => json!({
                "number": n,
                "kind": "game",
                "deleted": g.deleted(),
                "white": g.white.full_name(),
                "black": g.black.full_name(),
                "result": g.outcome().chessbase(),
                "date": g.date().to_string(),
                "event": g.tournament.title,
                "eco": match g.eco() {
                    chessbase_db::Eco::Code { .. } => g.eco().code(),
                    chessbase_db::Eco::Chess960(k) => Some(format!("960:{k}")),
                    _ => None,
                },
                "moves": g.moves(),
            }),
            Header::Text(t) => json!({
                "number": n,
                "kind": "text",
                "deleted": t.record.kind & chessbase_db::raw::KIND_DELETED != 0,
                "event": t.tournament.title,
            }),
            _ => json!({"number": n, "kind": "unused"}),
        };
        if json {
            serde_json::to_writer(&mut out, &row)?;
            writeln!(out)?;
        } else {
            let s = |k: &str| match &row[k] {
                Value::String(s) => s.clone(),
                Value::Null => "-".into(),
                v => v.to_string(),
            };
            let mark = if row["deleted"] == json!(true) {
                " (deleted)"
            } else {
                ""
            };
            if row["kind"] == "game" {
                writeln!(
                    out,
                    "{n}\t{}\t{}\t{}\t{}\t{}\t{}\t{}{mark}",
                    s("white"),
                    s("black"),
                    s("result"),
                    s("date"),
                    s("event"),
                    s("eco"),
                    s("moves")
                )?;
            } else {
                writeln!(out, "{n}\t[{}]\t{}{mark}", s("kind"), s("event"))?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn annotation_json(a: &Annotation) -> Value {
    match a {
        Annotation::Text {
            before,
            language,
            text,
            ..
        } => json!({"type": "text", "before": before, "language": language, "text": text}),
        Annotation::Symbols {
            move_nag,
            position_nag,
            prefix_nag,
        } => {
            json!({"type": "symbols", "move_nag": move_nag, "position_nag": position_nag, "prefix_nag": prefix_nag})
        }
        Annotation::Squares(v) => {
            json!({"type": "squares", "squares": v.iter().map(|(c, s)| json!({"colour": format!("{c:?}"), "square": s.to_string()})).collect::<Vec<_>>()})
        }
        Annotation::Arrows(v) => {
            json!({"type": "arrows", "arrows": v.iter().map(|(c, a, b)| json!({"colour": format!("{c:?}"), "from": a.to_string(), "to": b.to_string()})).collect::<Vec<_>>()})
        }
        Annotation::TimeSpent {
            hours,
            minutes,
            seconds,
            ..
        } => {
            json!({"type": "time_spent", "seconds": u32::from(*hours) * 3600 + u32::from(*minutes) * 60 + u32::from(*seconds)})
        }
        Annotation::WhiteClock(v) => json!({"type": "white_clock", "hundredths": v}),
        Annotation::BlackClock(v) => json!({"type": "black_clock", "hundredths": v}),
        Annotation::Critical(v) => json!({"type": "critical_position", "phase": v}),
        Annotation::Medals(v) => json!({"type": "medals", "bits": v}),
        Annotation::VariationColour {
            red,
            green,
            blue,
            flags,
        } => {
            json!({"type": "variation_colour", "red": red, "green": green, "blue": blue, "flags": flags})
        }
        Annotation::PawnStructure(k) => json!({"type": "pawn_structure", "kind": k}),
        Annotation::PiecePath { kind, square } => {
            json!({"type": "piece_path", "kind": kind, "square": square.to_string()})
        }
        Annotation::Evaluation { score, kind, depth } => {
            json!({"type": "evaluation", "score": score, "kind": kind, "depth": depth})
        }
        Annotation::Unknown { kind, data } => json!({
            "type": "unknown",
            "kind": kind,
            "data": data.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        }),
        other => json!({"type": "other", "debug": format!("{other:?}")}),
    }
}

/// The line from `node` at `pos`, starting with `first` when given: serialised as a JSON
/// array of moves while it is walked, so `cbh show --json` streams (issue 20, F6: the whole
/// tree as `serde_json::Value`s took 12 GB for a 16 MB game). Recursion is per variation
/// level, which the decoder limits (`chessbase_db::Limits::variation_depth`).
struct LineJson<'a> {
    tree: &'a MoveTree,
    node: NodeId,
    pos: Chess,
    first: Option<NodeId>,
}

/// One move of a line; fields in the (alphabetical) order the output always had.
#[derive(serde::Serialize)]
struct MoveJson<'a> {
    annotations: Vec<Value>,
    index: u32,
    san: String,
    uci: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    variations: Option<VariationsJson<'a>>,
}

/// The variations that replace the main continuation of `node` (at `pos`, before it).
struct VariationsJson<'a> {
    tree: &'a MoveTree,
    node: NodeId,
    pos: Chess,
}

impl serde::Serialize for VariationsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.tree.children(self.node).skip(1).map(|first| LineJson {
            tree: self.tree,
            node: self.node,
            pos: self.pos.clone(),
            first: Some(first),
        }))
    }
}

impl serde::Serialize for LineJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let tree = self.tree;
        let mut seq = s.serialize_seq(None)?;
        let (mut node, mut pos, mut first) = (self.node, self.pos.clone(), self.first);
        loop {
            let variation_start = first.is_some();
            let Some(child) = first.take().or_else(|| tree.main_child(node)) else {
                break;
            };
            let before = pos.clone();
            let (uci, san) = uci_san(&mut pos, tree.node(child).mv);
            let variations = (!variation_start && tree.children(node).nth(1).is_some()).then_some(
                VariationsJson {
                    tree,
                    node,
                    pos: before,
                },
            );
            seq.serialize_element(&MoveJson {
                annotations: tree
                    .annotations(child)
                    .iter()
                    .map(annotation_json)
                    .collect(),
                index: tree.index(child).unwrap_or_default(),
                san,
                uci,
                variations,
            })?;
            node = child;
        }
        seq.end()
    }
}

/// A move's UCI and SAN at `pos` (`None`: a null move), played on `pos`. Standard castling as
/// e1g1; king-takes-rook only in Chess960 games.
fn uci_san(pos: &mut Chess, mv: Option<shakmaty::Move>) -> (String, String) {
    match mv {
        Some(m) => (
            m.to_uci(pos.castles().mode()).to_string(),
            chessbase_db::pgn::san_plus(pos, m).to_string(),
        ),
        None => {
            *pos = std::mem::take(pos).swap_turn().unwrap_or_default();
            ("0000".into(), "--".into())
        }
    }
}

/// The moves of a game without variations, serialised as they are decoded (no tree: issue
/// 30, F6); where they stopped is left in `truncated` for the field written after them.
struct PlainJson<'a> {
    game: &'a chessbase_db::PlainGame<'a>,
    truncated: &'a std::cell::RefCell<Option<String>>,
}

impl serde::Serialize for PlainJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        let mut pos = self.game.start().position.clone();
        let (mut index, mut failed) = (0u32, None);
        let truncated = self.game.moves(|mv| {
            if failed.is_some() {
                return;
            }
            let (uci, san) = uci_san(&mut pos, mv);
            let m = MoveJson {
                annotations: Vec::new(),
                index,
                san,
                uci,
                variations: None,
            };
            failed = seq.serialize_element(&m).err();
            index += 1;
        });
        if let Some(e) = failed {
            return Err(e);
        }
        *self.truncated.borrow_mut() = truncated.as_ref().map(ToString::to_string);
        seq.end()
    }
}

/// The moves of `cbh show --json`: from the tree, or streamed from a game without variations.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum MovesJson<'a> {
    Tree(LineJson<'a>),
    Plain(PlainJson<'a>),
}

/// Where the moves stopped, known before they are written (a tree) or once they have been
/// (a streamed game, whose moves come first in the output).
#[derive(serde::Serialize)]
#[serde(untagged)]
enum TruncatedJson<'a> {
    Known(Option<String>),
    After(&'a std::cell::RefCell<Option<String>>),
}

/// `cbh show --json`: the header fields and the move tree, in the (alphabetical) field order
/// the output always had.
#[derive(serde::Serialize)]
struct ShowJson<'a> {
    annotation_error: Option<String>,
    annotator: &'a str,
    black: String,
    black_elo: u16,
    black_team: Option<&'a str>,
    chess960: Option<u16>,
    date: String,
    eco: Option<String>,
    event: &'a str,
    fen: String,
    game_annotations: Vec<Value>,
    mode: u8,
    moves: MovesJson<'a>,
    number: u32,
    result: &'static str,
    round: String,
    site: &'a str,
    source: &'a str,
    truncated: TruncatedJson<'a>,
    white: String,
    white_elo: u16,
    white_team: Option<&'a str>,
}

fn show_json(db: &Database, number: u32) -> CliResult {
    let Header::Game(h) = db.header(number)? else {
        return Err(CliError(format!("record {number} is not a game")));
    };
    // A game without variations or annotations streams; the others are decoded as a tree.
    let plain = db.plain_game(number, true)?;
    let after = std::cell::RefCell::new(None);
    let decoded: Game;
    let (start, mode, moves, truncated, annotation_error, game_annotations) = match &plain {
        Some(p) => (
            p.start(),
            p.mode(),
            MovesJson::Plain(PlainJson {
                game: p,
                truncated: &after,
            }),
            TruncatedJson::After(&after),
            None,
            Vec::new(),
        ),
        None => {
            decoded = db.game(number)?;
            let game = &decoded;
            (
                &game.start,
                game.mode,
                MovesJson::Tree(LineJson {
                    tree: &game.tree,
                    node: MoveTree::ROOT,
                    pos: game.start.position.clone(),
                    first: None,
                }),
                TruncatedJson::Known(game.truncated.as_ref().map(ToString::to_string)),
                game.annotation_error.as_ref().map(ToString::to_string),
                game.game_annotations.iter().map(annotation_json).collect(),
            )
        }
    };
    let show = ShowJson {
        annotation_error,
        annotator: &h.annotator.name,
        black: h.black.full_name(),
        black_elo: h.record.black_elo,
        black_team: h.black_team.map(|t| t.title.as_str()),
        chess960: start.chess960,
        date: h.date().to_string(),
        eco: h.eco().code(),
        event: &h.tournament.title,
        fen: Fen::from_position(&start.position, EnPassantMode::Legal).to_string(),
        game_annotations,
        mode,
        moves,
        number,
        result: h.outcome().chessbase(),
        round: h.round(),
        site: &h.tournament.place,
        source: &h.source.title,
        truncated,
        white: h.white.full_name(),
        white_elo: h.record.white_elo,
        white_team: h.white_team.map(|t| t.title.as_str()),
    };
    json_line(&show)
}

/// `--encoding`: a code page by its WHATWG label (`windows-1251`, `cp1251`, `latin2`, …).
fn encoding(s: &str) -> Result<chessbase_db::TextEncoding, String> {
    chessbase_db::TextEncoding::from_label(s)
        .ok_or_else(|| format!("{s:?} is not a known code page (e.g. windows-1251, windows-1252)"))
}

/// `cbh unpack`: every member written under the folder as one set.
fn unpack(
    path: &std::path::Path,
    password: Option<&str>,
    out: &crate::args::WriteArgs,
) -> CliResult {
    crate::destination::refuse_set_destination(&out.output, "an unpacked archive (a folder)");
    let archive = chessbase_db::archive::Archive::open(path, password)?;
    let bar = crate::progress::working("unpacking");
    let written = archive.unpack(&out.output, out.force);
    bar.finish_and_clear();
    let written = written?;
    let bytes: u64 = archive.members().map(|m| m.size).sum();
    crate::output::summary(
        &Shown {
            text: format!(
                "{} files ({bytes} bytes) written to {}",
                written.len(),
                out.output.display()
            ),
            json: json!({
                "files": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                "bytes": bytes,
                "output": out.output.display().to_string(),
            }),
        },
        out.json,
    )
}

fn import(
    inputs: &[PathBuf],
    out: &crate::args::WriteArgs,
    encoding: chessbase_db::TextEncoding,
    keep_tags: bool,
) -> CliResult {
    use chessbase_db::import::{ImportFailure, Loss};
    use chessbase_db::writer::write_database;
    let cbh = &out.output;
    crate::destination::refuse_set_destination(cbh, "a ChessBase database (.cbh, .cbg, .cba, …)");
    let members: Vec<PathBuf> = chessbase_db::writer::DATABASE_EXTENSIONS
        .iter()
        .map(|e| cbh.with_extension(e))
        .collect();
    let input_paths: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
    crate::destination::refuse_inputs(members.iter().map(PathBuf::as_path), &input_paths)?;
    if !cbh
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("cbh"))
    {
        return Err(CliError(format!(
            "{}: the output must be a .cbh file (the database's other files go beside it)",
            cbh.display()
        )));
    }
    if !out.force {
        chessfmt_files::atomic::refuse_existing(cbh)
            .map_err(|e| CliError(format!("{}: {e}", cbh.display())))?;
    }
    let mut import = chessbase_db::import::DatabaseImport::new(encoding, keep_tags);
    let bar = crate::progress::spinner("games");
    for path in inputs {
        crate::pgn_input::check_pgn_input(path)?;
        let skipped = |why: String| {
            bar.suspend(|| crate::output::warn(format!("{}: {why}", path.display())));
        };
        // A plain file is mapped and read in parallel pieces; a compressed one (or standard
        // input) streamed in windows of whole games, read in parallel pieces too.
        let added = match crate::pgn_input::mapped_plain(path)? {
            Some(data) => {
                // Pages already read leave memory: the map never holds the whole file.
                let release = |r| data.release(r);
                let bytes = chessfmt_pgn::PgnBytes::new(&data).with_release(&release);
                import.add_pgn_pieces(bytes, skipped, || bar.inc(1))
            }
            None => {
                let stream = crate::pgn_input::open_decompressed(path)?;
                import.add_pgn_stream(stream, skipped, || bar.inc(1))
            }
        };
        added.map_err(|e| match e {
            ImportFailure::Full(e) => CliError(format!("{}: {e}", cbh.display())),
            e => CliError(format!("{}: {e}", path.display())),
        })?;
    }
    bar.finish_and_clear();
    let (files, summary) = import.finish();
    if summary.variations_dropped > 0 {
        crate::output::warn(format!(
            "{} variations nested deeper than {} levels left out",
            summary.variations_dropped,
            chessbase_db::Limits::default().variation_depth()
        ));
    }
    // What the games added could not keep, one line per kind.
    let mut changed = serde_json::Map::new();
    let mut lost = serde_json::Map::new();
    for (loss, count) in summary.losses.iter() {
        let games: Vec<String> = count.games.iter().map(u64::to_string).collect();
        let more = if count.count > games.len() as u64 {
            ", …"
        } else {
            ""
        };
        crate::output::warn(format!(
            "{} {loss} (games {}{more})",
            count.count,
            games.join(", ")
        ));
        let key = match loss {
            Loss::Cut { field, .. } => format!("{field} cut"),
            Loss::Nag => "nag".into(),
            Loss::Result => "result".into(),
            Loss::Tag(name) => format!("tag {name}"),
            Loss::Unreadable(tag) => format!("{tag} unreadable"),
            other => other.to_string(),
        };
        let value = json!({"count": count.count, "games": count.games, "what": loss.to_string()});
        if loss.is_dropped() {
            lost.insert(key, value);
        } else {
            changed.insert(key, value);
        }
    }
    write_database(cbh, &files, out.force)
        .map_err(|e| CliError(format!("{}: {e}", cbh.display())))?;
    crate::output::summary(
        &Shown {
            text: format!(
                "{} games read, {} added, {} skipped: {} written",
                summary.games_read,
                summary.games_added,
                summary.games_skipped,
                cbh.display()
            ),
            json: json!({
                "games_read": summary.games_read,
                "games_added": summary.games_added,
                "games_skipped": summary.games_skipped,
                "variations_dropped": summary.variations_dropped,
                "dropped": lost,
                "changed": changed,
                "output": cbh.display().to_string(),
            }),
        },
        out.json,
    )
}
