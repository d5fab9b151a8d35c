//! `chessfmt polyglot …`: Polyglot opening books.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use polyglot_book::{Book, MappedBook, OpenMode, moves::RawMove, read::ProbeFilter};
use rand::{SeedableRng, rngs::StdRng};
use serde::Serialize;
use shakmaty::{CastlingMode, Chess, EnPassantMode, fen::Fen, uci::UciMove};

use crate::{CliError, CliResult, output::json_line};

/// Polyglot verbs.
#[derive(Debug, Subcommand)]
pub enum PolyglotCommand {
    /// Print the Polyglot key of a position (16 hex digits).
    Key {
        /// The position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
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
        #[arg(long)]
        fen: Option<String>,
        /// Seed of the random choice (default: from the system).
        #[arg(long)]
        seed: Option<u64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Summarise a book.
    Info {
        /// The book.
        book: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Arguments of `polyglot probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The book.
    book: PathBuf,
    /// The position (default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// Also list null, illegal and malformed entries (`"legal": false`).
    #[arg(long)]
    all: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Parses `--fen` (default: the start position).
pub fn position(fen: Option<&str>) -> Result<Chess, CliError> {
    let Some(fen) = fen else {
        return Ok(Chess::default());
    };
    let parsed: Fen = fen
        .parse()
        .map_err(|e| CliError(format!("invalid FEN {fen:?}: {e}")))?;
    parsed
        .clone()
        .into_position(CastlingMode::Standard)
        .or_else(|_| parsed.into_position(CastlingMode::Chess960))
        .map_err(|e| CliError(format!("illegal position {fen:?}: {e}")))
}

fn open(path: &PathBuf) -> Result<MappedBook, CliError> {
    Ok(Book::open(path, OpenMode::Lenient)?)
}

#[derive(Serialize)]
struct ProbeRow {
    uci: String,
    weight: u16,
    learn: u32,
    raw: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    legal: Option<bool>,
}

fn uci(m: shakmaty::Move) -> String {
    UciMove::from_standard(m).to_string()
}

fn probe(args: &ProbeArgs) -> CliResult {
    let book = open(&args.book)?;
    let pos = position(args.fen.as_deref())?;
    let rows: Vec<ProbeRow> = if args.all {
        book.entries_for_key(chess_core::polyglot_key(&pos))
            .map(|e| {
                let legal = polyglot_book::moves::decode_move(&pos, e.raw_move);
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
                }
            })
            .collect()
    } else {
        book.probe(&pos)
            .into_iter()
            .map(|m| ProbeRow {
                uci: uci(m.mv),
                weight: m.weight,
                learn: m.learn,
                raw: m.entry.raw_move,
                legal: None,
            })
            .collect()
    };
    if args.json {
        json_line(&rows)?;
    } else {
        let total: u64 = rows.iter().map(|r| u64::from(r.weight)).sum();
        for r in &rows {
            let pct = if total == 0 {
                0.0
            } else {
                100.0 * f64::from(r.weight) / total as f64
            };
            let flag = if r.legal == Some(false) {
                "  (illegal)"
            } else {
                ""
            };
            println!(
                "{:<6} weight {:>5} ({pct:5.1}%)  learn {}{flag}",
                r.uci, r.weight, r.learn
            );
        }
    }
    Ok(())
}

/// Runs a polyglot verb.
pub fn run(cmd: PolyglotCommand) -> CliResult {
    match cmd {
        PolyglotCommand::Key { fen, json } => {
            let pos = position(fen.as_deref())?;
            let key = format!("{:016x}", chess_core::polyglot_key(&pos));
            if json {
                json_line(&serde_json::json!({
                    "key": key,
                    "fen": Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
                }))?;
            } else {
                println!("{key}");
            }
            Ok(())
        }
        PolyglotCommand::Probe(args) => probe(&args),
        PolyglotCommand::Pick {
            book,
            fen,
            seed,
            json,
        } => {
            let b = open(&book)?;
            let pos = position(fen.as_deref())?;
            let mut rng = match seed {
                Some(seed) => StdRng::seed_from_u64(seed),
                None => StdRng::from_os_rng(),
            };
            let Some(m) = b.weighted_choice(&pos, &ProbeFilter::default(), &mut rng) else {
                return Err(CliError("no book move for this position".into()));
            };
            if json {
                json_line(
                    &serde_json::json!({"uci": uci(m.mv), "weight": m.weight, "learn": m.learn, "raw": m.entry.raw_move}),
                )?;
            } else {
                println!("{}", uci(m.mv));
            }
            Ok(())
        }
        PolyglotCommand::Info { book, json } => {
            let b = open(&book)?;
            let summary = crate::info::polyglot_summary(&b);
            if json {
                json_line(&summary)?;
            } else {
                println!("{summary}");
            }
            Ok(())
        }
    }
}
