//! `chessfmt convert IN OUT`: any book format to any other, through the statistics table.

use std::path::{Path, PathBuf};

use chessfmt_tally::Row;

use crate::{CliError, CliResult, output::Shown, output::summary};

/// Arguments of `convert`.
#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The book to read: .bin (Polyglot), .ctg (CTG), .kob (Kvetka).
    input: PathBuf,
    /// The book to write, its format by extension: .bin, .ctg, .kob (or .csv for the table).
    output: PathBuf,
    /// Replace OUT (and the files written with it) if it exists.
    #[arg(long)]
    force: bool,
    /// Print the summary as JSON on standard output.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Polyglot,
    Ctg,
    Kvetka,
    Table,
}

fn format_of(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "bin" => Format::Polyglot,
        "ctg" | "cto" | "ctb" => Format::Ctg,
        "kob" | "kin" => Format::Kvetka,
        "csv" => Format::Table,
        _ => return None,
    })
}

/// Runs `chessfmt convert`.
pub fn run(args: &ConvertArgs) -> CliResult {
    let (Some(from), Some(to)) = (format_of(&args.input), format_of(&args.output)) else {
        crate::args::usage_error(
            "convert: name the formats by extension: .bin (Polyglot), .ctg (CTG), .kob (Kvetka), \
             .csv (table)",
        );
    };
    if from == Format::Table {
        crate::args::usage_error(
            "convert: a table is made into a book by `chessfmt polyglot|ctg|kvetka from-tally`",
        );
    }
    crate::destination::refuse_inputs([args.output.as_path()], &[args.input.as_path()])?;
    let mut notes: Vec<String> = Vec::new();
    let mut lost = serde_json::Map::new();
    let rows: Vec<Row> = match from {
        Format::Polyglot => {
            let book = crate::mapped::polyglot(&args.input, polyglot_book::OpenMode::Lenient)?;
            let (rows, s) = polyglot_book::ops::tally::to_tally(&book);
            lost.insert("unreachable_entries".into(), s.unreachable_entries.into());
            lost.insert("illegal_entries".into(), s.illegal_entries.into());
            lost.insert("learn_dropped".into(), s.learn_dropped.into());
            if s.unreachable_entries + s.illegal_entries > 0 {
                notes.push(format!(
                    "{} entries no walk from the start reaches and {} illegal ones are not \
                     converted",
                    s.unreachable_entries, s.illegal_entries
                ));
            }
            if s.learn_dropped > 0 {
                notes.push(format!(
                    "{} learn fields are not converted",
                    s.learn_dropped
                ));
            }
            notes.push("a Polyglot book has weights, not results: each weight is converted as that many drawn games".into());
            rows
        }
        Format::Ctg => {
            let book = crate::mapped::ctg(&args.input)?;
            let (rows, s) = ctg::tally::to_tally(&book);
            lost.insert("annotations_dropped".into(), s.annotations_dropped.into());
            lost.insert(
                "recommendations_dropped".into(),
                s.recommendations_dropped.into(),
            );
            lost.insert("damaged".into(), s.damaged.into());
            if s.annotations_dropped + s.recommendations_dropped > 0 {
                notes.push(format!(
                    "{} move annotations and {} position recommendations or comments are not \
                     converted",
                    s.annotations_dropped, s.recommendations_dropped
                ));
            }
            rows
        }
        Format::Kvetka => {
            let book = crate::mapped::kvetka(&args.input)?;
            let (rows, s) = kvetka_book::tally::to_tally(&book);
            lost.insert("comments_dropped".into(), s.comments_dropped.into());
            lost.insert(
                "game_references_dropped".into(),
                s.game_references_dropped.into(),
            );
            lost.insert("damaged".into(), s.damaged.into());
            if s.comments_dropped + s.game_references_dropped > 0 {
                notes.push(format!(
                    "{} comments and the game references of {} positions are not converted",
                    s.comments_dropped, s.game_references_dropped
                ));
            }
            rows
        }
        Format::Table => unreachable!("refused above"),
    };
    let table_rows = rows.len();
    let out = crate::args::WriteArgs {
        output: args.output.clone(),
        force: args.force,
        json: args.json,
    };
    let written = match to {
        Format::Table => {
            crate::tally::refuse_existing(&out)?;
            crate::tally::write_table(&out, &[args.input.as_path()], &rows)?;
            rows.len()
        }
        Format::Polyglot => {
            crate::tally::refuse_existing(&out)?;
            let options = polyglot_book::ops::build::BuildOptions::default().with_min_game(1);
            let (entries, s) =
                polyglot_book::ops::tally::from_tally(rows.into_iter().map(Ok), &options)
                    .map_err(|e| CliError(e.to_string()))?;
            lost.insert("bad_rows".into(), s.bad_rows.into());
            crate::destination::write_single(
                &args.output,
                args.force,
                args.json,
                &[args.input.as_path()],
                |w| {
                    let mut w = std::io::BufWriter::new(w);
                    polyglot_book::write::write_entries(&mut w, &entries)?;
                    std::io::Write::flush(&mut w)
                },
            )?;
            notes.push("Polyglot weights are 2·wins + draws + games without result of the mover (moves of weight 0 are left out)".into());
            entries.len()
        }
        Format::Ctg => {
            crate::destination::refuse_set_destination(&args.output, "a CTG book (.ctg/.cto/.ctb)");
            let outputs = ["ctg", "cto", "ctb"].map(|e| args.output.with_extension(e));
            crate::destination::refuse_inputs(
                outputs.iter().map(PathBuf::as_path),
                &[args.input.as_path()],
            )?;
            let (records, s) = ctg::tally::from_tally(rows.into_iter().map(Ok))
                .map_err(|e| CliError(e.to_string()))?;
            lost.insert("uncodable_moves".into(), s.uncodable_moves.into());
            lost.insert("truncated_positions".into(), s.truncated_positions.into());
            if s.uncodable_moves > 0 {
                notes.push(format!("{} moves have no CTG code", s.uncodable_moves));
            }
            let start = ctg::position::key_of(&shakmaty::Chess::default());
            let games = records
                .iter()
                .find(|r| {
                    start
                        .as_ref()
                        .is_some_and(|k| k.as_bytes() == r.position.as_slice())
                })
                .map_or(0, |r| r.stats.games);
            let w = ctg::write::write_book(&args.output, &records, games, args.force);
            ctg::build::drop_records(records);
            w?.records
        }
        Format::Kvetka => {
            crate::destination::refuse_set_destination(
                &args.output,
                "a Kvetka book (.kob/.kin/.ksf)",
            );
            let (mut elements, s) = kvetka_book::tally::from_tally(rows.into_iter().map(Ok))
                .map_err(|e| CliError(e.to_string()))?;
            lost.insert("uncodable_moves".into(), s.uncodable_moves.into());
            lost.insert("without_result".into(), s.without_result.into());
            if s.without_result > 0 {
                notes.push(format!(
                    "{} moves have no results (Kvetka keeps only games with one): not converted",
                    s.without_result
                ));
            }
            if s.uncodable_moves > 0 {
                notes.push(format!("{} moves have no Kvetka code", s.uncodable_moves));
            }
            let header = kvetka_book::raw::Header {
                max_move: 0xff,
                ..kvetka_book::raw::Header::default()
            };
            let w = kvetka_book::write::write_book(
                &kvetka_book::read::BookPaths::from_any(&args.output),
                &header,
                &mut elements,
                None,
                kvetka_book::write::DEFAULT_SPLIT_SIZE,
                args.force,
            )?;
            w.elements as usize
        }
    };
    for n in &notes {
        crate::output::warn(n);
    }
    summary(
        &Shown {
            text: format!(
                "{} moves of the input ({table_rows} table rows); {written} entries, records or \
                 elements written to {}",
                table_rows,
                args.output.display()
            ),
            json: serde_json::json!({
                "rows": table_rows,
                "written": written,
                "not_converted": lost,
                "output": args.output.display().to_string(),
            }),
        },
        args.json,
    )
}
