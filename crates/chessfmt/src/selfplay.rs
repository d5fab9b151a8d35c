//! `chessfmt selfplay …`: Monty self-play policy data.

use std::path::PathBuf;

use clap::Subcommand;
use selfplay_format::{decode::decode_game, frame::frames};
use shakmaty::{EnPassantMode, fen::Fen};

use crate::{CliError, CliResult, output::json_line};

/// Self-play verbs.
#[derive(Debug, Subcommand)]
pub enum SelfplayCommand {
    /// Count games, positions and results (framing only, no move generation).
    Stats {
        /// Policy-format files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
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
    /// Decode every game fully; exit 1 at the first bad game (or, with --lenient, report the
    /// bad games and exit 1 if there were any).
    Validate {
        /// A policy-format file.
        file: PathBuf,
        /// Keep going after a bad game.
        #[arg(long)]
        lenient: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn read(path: &PathBuf) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError(format!("{}: {e}", path.display())))
}

/// Runs a selfplay verb.
pub fn run(cmd: SelfplayCommand) -> CliResult {
    match cmd {
        SelfplayCommand::Stats { files, json } => {
            let (mut games, mut positions, mut bytes) = (0u64, 0u64, 0u64);
            let mut results = [0u64; 3];
            let mut with_policy = 0u64;
            for f in &files {
                let data = read(f)?;
                bytes += data.len() as u64;
                for view in frames(&data) {
                    let view = view.map_err(|e| CliError(format!("{}: {e}", f.display())))?;
                    games += 1;
                    positions += view.plies as u64;
                    with_policy += view.records().filter(|r| !r.visits.is_empty()).count() as u64;
                    let r = view.header().result;
                    if let Some(slot) = results.get_mut(usize::from(r)) {
                        *slot += 1;
                    }
                }
            }
            let per = if positions == 0 {
                0.0
            } else {
                bytes as f64 / positions as f64
            };
            if json {
                json_line(&serde_json::json!({
                    "games": games, "positions": positions, "bytes": bytes,
                    "bytes_per_position": per, "positions_with_policy": with_policy,
                    "white_wins": results[2], "draws": results[1], "black_wins": results[0],
                }))?;
            } else {
                println!("games:      {games}");
                println!("positions:  {positions} ({with_policy} with policy)");
                println!("bytes:      {bytes} ({per:.1} per position)");
                println!(
                    "results:    {} white wins, {} draws, {} black wins",
                    results[2], results[1], results[0]
                );
            }
            Ok(())
        }
        SelfplayCommand::Head { file, n, json } => {
            let data = read(&file)?;
            for view in frames(&data).take(n) {
                let view = view.map_err(|e| CliError(format!("{}: {e}", file.display())))?;
                let game =
                    decode_game(&view).map_err(|e| CliError(format!("{}: {e}", file.display())))?;
                let fen = Fen::from_position(&game.start, EnPassantMode::Legal).to_string();
                let moves: Vec<_> = game
                    .moves
                    .iter()
                    .map(|m| {
                        serde_json::json!({
                            "uci": m.mv.to_uci(game.castling_mode).to_string(),
                            "score": m.score,
                            "visits": m.visits.as_ref().map(|v| v.iter().map(|&(_, b)| b).collect::<Vec<_>>()),
                        })
                    })
                    .collect();
                if json {
                    json_line(&serde_json::json!({
                        "game": view.index, "offset": view.offset, "fen": fen,
                        "result": game.result(), "moves": moves,
                    }))?;
                } else {
                    println!("game {} ({fen}), result {}", view.index, game.result());
                    for m in &game.moves {
                        let visits = m.visits.as_ref().map_or(String::new(), |v| {
                            format!(
                                " visits {:?}",
                                v.iter().map(|&(_, b)| b).collect::<Vec<_>>()
                            )
                        });
                        println!(
                            "  {} score {}{visits}",
                            m.mv.to_uci(game.castling_mode),
                            m.score
                        );
                    }
                }
            }
            Ok(())
        }
        SelfplayCommand::Validate {
            file,
            lenient,
            json,
        } => {
            let data = read(&file)?;
            let (mut good, mut bad) = (0u64, Vec::new());
            for view in frames(&data) {
                let result = view.and_then(|v| decode_game(&v).map(|_| ()));
                match result {
                    Ok(()) => good += 1,
                    Err(e) if lenient => bad.push(e),
                    Err(e) => return Err(CliError(format!("{}: {e}", file.display()))),
                }
            }
            if json {
                let errors: Vec<_> = bad.iter().map(|e| serde_json::json!({"game": e.game, "offset": e.offset, "error": e.kind.to_string()})).collect();
                json_line(
                    &serde_json::json!({"valid_games": good, "bad_games": bad.len(), "errors": errors}),
                )?;
            } else {
                println!("{good} valid games, {} bad", bad.len());
                for e in &bad {
                    println!("  {e}");
                }
            }
            if bad.is_empty() {
                Ok(())
            } else {
                Err(CliError(format!(
                    "{}: {} bad games",
                    file.display(),
                    bad.len()
                )))
            }
        }
    }
}
