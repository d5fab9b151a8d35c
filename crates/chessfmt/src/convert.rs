//! `chessfmt convert IN OUT`: any book format to any other, through the statistics table;
//! the table itself (CSV or Parquet) on either side.

use std::path::{Path, PathBuf};

use chessfmt_tally::Row;

use crate::{CliError, CliResult, output::Shown, output::summary};

/// Arguments of `convert`.
#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The book or table to read: .bin (Polyglot), .ctg (CTG), .kob (Kvetka), .csv or
    /// .parquet (a statistics table, as `chessfmt tally` writes it: every row is kept).
    input: PathBuf,
    /// The book or table to write, its format by extension: .bin, .ctg, .kob, .csv or
    /// .parquet (.pq); or .pgn, the tree as one game with variations (12 plies, as `tally
    /// to-pgn`).
    output: PathBuf,
    /// How a Polyglot output weighs its moves (the others keep the counts themselves).
    #[arg(long, value_enum)]
    policy: Option<crate::args::WeightArg>,
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
    /// The tree as one PGN game with variations (written only).
    Pgn,
}

fn format_of(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "bin" => Format::Polyglot,
        "ctg" | "cto" | "ctb" => Format::Ctg,
        "kob" | "kin" => Format::Kvetka,
        "csv" | "parquet" | "pq" => Format::Table,
        "pgn" => Format::Pgn,
        _ => return None,
    })
}

/// What `convert` reads: a book's rows (made in memory from its tree), or a table's path
/// (its rows streamed as they are read).
enum Source {
    Book(Vec<Row>),
    Table,
}

/// Runs `chessfmt convert`.
pub fn run(args: &ConvertArgs) -> CliResult {
    let (Some(from), Some(to)) = (format_of(&args.input), format_of(&args.output)) else {
        crate::args::usage_error(
            "convert: name the formats by extension: .bin (Polyglot), .ctg (CTG), .kob (Kvetka), \
             .csv or .parquet (table), .pgn (the tree, as output)",
        );
    };
    if args.policy.is_some() && to != Format::Polyglot {
        crate::args::usage_error(
            "convert: --policy weighs the moves of a Polyglot book (.bin): a CTG or Kvetka book \
             and a table keep the counts themselves",
        );
    }
    if from == Format::Pgn {
        crate::args::usage_error(
            "convert: PGN is written (the book's tree), not read: a book is built from games by \
             `chessfmt polyglot|ctg|kvetka build`",
        );
    }
    crate::destination::refuse_inputs([args.output.as_path()], &[args.input.as_path()])?;
    // An existing output is refused before the input is read (its writer checks again).
    match to {
        Format::Ctg => crate::ctg::refuse_existing_book(&args.output, args.force)?,
        Format::Kvetka => crate::kvetka::refuse_existing_book(&args.output, args.force)?,
        _ => crate::destination::refuse_existing(&args.output, args.force)?,
    }
    let mut notes: Vec<String> = Vec::new();
    let mut lost = serde_json::Map::new();
    let source = match from {
        Format::Table => Source::Table,
        book => Source::Book(book_rows(book, &args.input, to, &mut notes, &mut lost)?),
    };
    let out = crate::args::WriteArgs {
        output: args.output.clone(),
        force: args.force,
        json: args.json,
    };
    let sources = std::slice::from_ref(&args.input);
    // A book's rows, or the table's read as they are written (CSV or Parquet by content).
    let rows = |source: Source| -> Result<chessfmt_tally::table::TableRows, CliError> {
        match source {
            Source::Book(rows) => Ok(Box::new(rows.into_iter().map(Ok))),
            Source::Table => crate::tally::table_rows_ahead(&args.input),
        }
    };
    let book_len = match &source {
        Source::Book(rows) => Some(rows.len() as u64),
        Source::Table => None,
    };
    let (read, written) = match to {
        Format::Table => match source {
            Source::Book(rows) => {
                crate::tally::write_table(&out, &[args.input.as_path()], &rows)?;
                (rows.len() as u64, rows.len() as u64)
            }
            Source::Table => {
                let s = crate::tally::write_merged(
                    sources,
                    &out,
                    chessfmt_tally::Compression::default(),
                )?;
                (s.rows_read, s.rows_written)
            }
        },
        Format::Pgn => {
            use chessfmt_tally::tree::{TreeOptions, write_tree};
            let rows = rows(source)?;
            let options = TreeOptions::default();
            let s = crate::destination::write_single(
                &args.output,
                args.force,
                args.json,
                &[args.input.as_path()],
                |w| {
                    let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
                    let s = write_tree(rows, options, &mut w).map_err(std::io::Error::other)?;
                    std::io::Write::flush(&mut w)?;
                    Ok(s)
                },
            )?;
            let outside = s.kept.saturating_sub(s.in_tree);
            lost.insert("illegal_moves".into(), s.illegal.into());
            lost.insert("rows_outside_the_tree".into(), outside.into());
            if outside > 0 {
                notes.push(format!(
                    "{outside} moves lie past the tree's {} plies from the start position or on \
                     no line from it: not written (`chessfmt tally to-pgn --max-ply` for more)",
                    options.max_ply
                ));
            }
            (s.rows, s.moves)
        }
        Format::Polyglot => {
            let options = polyglot_book::ops::build::BuildOptions::default()
                .with_min_game(1)
                .with_weight(args.policy.unwrap_or_default().policy(false));
            let batches = match source {
                Source::Book(rows) => {
                    chessfmt_tally::table::batches(Box::new(rows.into_iter().map(Ok)))
                }
                Source::Table => crate::tally::tables_batches(sources)?,
            };
            let s = crate::polyglot::write_from_rows(batches, &options, sources, &out)?;
            lost.insert("bad_rows".into(), s.bad_rows.count.into());
            lost.insert("annotations_dropped".into(), s.annotations_dropped.into());
            notes.push(format!(
                "Polyglot weights are {}; moves whose mover scored nothing (2·wins + draws + \
                 games without result = 0) are left out, as a build leaves them",
                match args.policy.unwrap_or_default() {
                    crate::args::WeightArg::Score =>
                        "2·wins + draws + games without result of the mover",
                    crate::args::WeightArg::Games => "the games of each move",
                    crate::args::WeightArg::Uniform => "1 for every move",
                }
            ));
            (s.rows, s.entries as u64)
        }
        Format::Ctg => {
            let (w, s) = crate::ctg::write_from_rows(
                rows(source)?,
                sources,
                &args.output,
                args.force,
                crate::tally::CTG_FROM_TALLY_MIB,
            )?;
            lost.insert("bad_rows".into(), s.bad_rows.count.into());
            lost.insert("uncodable_moves".into(), s.uncodable_moves.into());
            lost.insert("truncated_positions".into(), s.truncated_positions.into());
            (s.rows, w.records as u64)
        }
        Format::Kvetka => {
            // A Kvetka book's header goes over as it is (what its elements keep of it).
            let header = match from {
                Format::Kvetka => crate::mapped::kvetka(&args.input)?.header().of_statistics(),
                _ => kvetka_book::raw::Header::converted(""),
            };
            let (w, s) = crate::kvetka::write_from_rows(
                rows(source)?,
                sources,
                &args.output,
                &header,
                args.force,
                crate::tally::KVETKA_FROM_TALLY_MIB,
            )?;
            lost.insert("bad_rows".into(), s.bad_rows.count.into());
            lost.insert("uncodable_moves".into(), s.uncodable_moves.into());
            lost.insert("without_result".into(), s.without_result.into());
            lost.insert("annotations_dropped".into(), s.annotations_dropped.into());
            (s.rows, w.elements)
        }
    };
    let table_rows = book_len.unwrap_or(read);
    for n in &notes {
        crate::output::warn(n);
    }
    summary(
        &Shown {
            text: format!(
                "{}; {written} {} written to {}",
                match book_len {
                    Some(n) => format!("{n} moves of the input ({n} table rows)"),
                    None => format!("{table_rows} rows of the input table"),
                },
                match to {
                    Format::Polyglot => "entries",
                    Format::Ctg => "positions",
                    Format::Kvetka => "elements",
                    Format::Table => "rows",
                    Format::Pgn => "moves",
                },
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

/// The rows of the book `path` in `format` (a walk of its tree), with what they cannot hold
/// counted in `lost` and, where the output (in format `to`) would have kept it, noted in
/// `notes`.
fn book_rows(
    format: Format,
    path: &Path,
    to: Format,
    notes: &mut Vec<String>,
    lost: &mut serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<Row>, CliError> {
    Ok(match format {
        Format::Polyglot => {
            let book = crate::mapped::polyglot(path, polyglot_book::OpenMode::Lenient)?;
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
            let book = crate::mapped::ctg(path)?;
            let (rows, s) = ctg::tally::to_tally(&book);
            let (n, counts) = crate::ctg::not_in_table(&s);
            notes.extend(kept_by(to, n));
            lost.extend(counts);
            ctg_statistics_lost(&rows, to, notes, lost);
            rows
        }
        Format::Kvetka => {
            let book = crate::mapped::kvetka(path)?;
            let (rows, s) = kvetka_book::tally::to_tally(&book);
            let (n, counts) = crate::kvetka::not_in_table(&s);
            notes.extend(kept_by(to, n));
            lost.extend(counts);
            if to == Format::Kvetka {
                // The output is given the input's header.
                lost.insert("header_not_kept".into(), false.into());
            }
            rows
        }
        Format::Table | Format::Pgn => unreachable!("a table is streamed; PGN is refused"),
    })
}

/// The notes on a book's table that matter for an output in format `to`: what the table
/// left out always; a position's own statistics where `to` keeps them (CTG, Kvetka, a
/// table); a CTG record's bytes where `to` is CTG or a table; a Kvetka header unless `to`
/// is Kvetka (which is given the input's).
fn kept_by(
    to: Format,
    notes: Vec<(crate::tally::Concerns, String)>,
) -> impl Iterator<Item = String> {
    use crate::tally::Concerns;
    notes.into_iter().filter_map(move |(c, n)| {
        let kept = match c {
            Concerns::Table => true,
            Concerns::PositionStatistics => {
                matches!(to, Format::Ctg | Format::Kvetka | Format::Table)
            }
            Concerns::CtgRecord => matches!(to, Format::Ctg | Format::Table),
            // A Kvetka output is given it (the input's header); any other loses it.
            Concerns::KvetkaHeader => to != Format::Kvetka,
        };
        kept.then_some(n)
    })
}

/// What a CTG book's statistics lose in an output (format `to`) that has no place for them:
/// the rating sums (anywhere but CTG or a table) and the games without result (Kvetka counts
/// results only), counted in `lost` (moves whose row has any) and noted.
fn ctg_statistics_lost(
    rows: &[Row],
    to: Format,
    notes: &mut Vec<String>,
    lost: &mut serde_json::Map<String, serde_json::Value>,
) {
    if matches!(to, Format::Ctg | Format::Table) {
        return;
    }
    let name = match to {
        Format::Polyglot => "a Polyglot book",
        Format::Kvetka => "a Kvetka book",
        _ => "the PGN tree",
    };
    let rated = rows
        .iter()
        .filter(|r| r.counts.white_elo_games + r.counts.black_elo_games > 0)
        .count() as u64;
    lost.insert("ratings_dropped".into(), rated.into());
    if rated > 0 {
        notes.push(format!(
            "the rating sums of {rated} moves are not converted ({name} has no place for them)"
        ));
    }
    if to == Format::Kvetka {
        let unknown = rows.iter().filter(|r| r.counts.unknown() > 0).count() as u64;
        lost.insert("games_without_result_dropped".into(), unknown.into());
        if unknown > 0 {
            notes.push(format!(
                "the games without result of {unknown} moves are not converted (a Kvetka book \
                 counts wins, draws and losses only)"
            ));
        }
    }
}
