//! `chessfmt convert IN OUT`: any book format to any other, through the statistics table.

use std::path::{Path, PathBuf};

use chessfmt_tally::Row;

use crate::{CliResult, output::Shown, output::summary};

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
            let options = polyglot_book::ops::build::BuildOptions::default().with_min_game(1);
            let s = crate::polyglot::write_from_rows(
                chessfmt_tally::table::batches(Box::new(rows.into_iter().map(Ok))),
                &options,
                std::slice::from_ref(&args.input),
                &out,
            )?;
            lost.insert("bad_rows".into(), s.bad_rows.count.into());
            notes.push("Polyglot weights are 2·wins + draws + games without result of the mover (moves of weight 0 are left out)".into());
            s.entries
        }
        Format::Ctg => {
            let (w, s) = crate::ctg::write_from_rows(
                rows.into_iter().map(Ok),
                std::slice::from_ref(&args.input),
                &args.output,
                args.force,
                crate::tally::CTG_FROM_TALLY_MIB,
            )?;
            lost.insert("uncodable_moves".into(), s.uncodable_moves.into());
            lost.insert("truncated_positions".into(), s.truncated_positions.into());
            w.records
        }
        Format::Kvetka => {
            let (w, s) = crate::kvetka::write_from_rows(
                rows.into_iter().map(Ok),
                std::slice::from_ref(&args.input),
                &args.output,
                "",
                args.force,
                crate::tally::KVETKA_FROM_TALLY_MIB,
            )?;
            lost.insert("uncodable_moves".into(), s.uncodable_moves.into());
            lost.insert("without_result".into(), s.without_result.into());
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
