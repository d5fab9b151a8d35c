//! `chessfmt`: the command-line tool over the chessfmt format crates.
//!
//! `chessfmt FORMAT VERB ...`; every verb that prints data has `--json`. Exit codes: 0 on
//! success, 1 on bad input (one line on stderr), 2 on usage errors.

#[macro_use]
mod output;
#[macro_use]
mod pgn_input;

mod args;
mod cbh;
mod convert;
mod ctg;
mod destination;
mod error;
mod formats;
mod info;
mod kvetka;
mod mapped;
mod polyglot;
mod progress;
mod selfplay;
mod signals;
mod tally;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use error::{CliError, CliResult};

/// Read and write the file formats chess software lives on.
#[derive(Debug, Parser)]
#[command(name = "chessfmt", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Recognise a file's format (by extension and content) and summarise it.
    Info(info::InfoArgs),
    /// Convert a book or table to another format, chosen by extension (.bin Polyglot, .ctg CTG,
    /// .kob Kvetka, .csv or .parquet the statistics table), through the table; what OUT cannot
    /// hold is reported.
    Convert(convert::ConvertArgs),
    /// ChessBase databases (.cbh with .cbg, .cba and the entity files; .cbv/.cbz archives).
    #[command(alias = "chessbase")]
    Cbh(cbh::CbhArgs),
    /// ChessBase CTG opening books (.ctg/.cto/.ctb).
    #[command(subcommand)]
    Ctg(ctg::CtgCommand),
    /// Kvetka opening books (.kob/.kin/.ksf).
    #[command(subcommand)]
    Kvetka(kvetka::KvetkaCommand),
    /// Polyglot opening books (.bin).
    #[command(subcommand)]
    Polyglot(polyglot::PolyglotCommand),
    /// Monty self-play training data (policy format).
    #[command(subcommand)]
    Selfplay(selfplay::SelfplayCommand),
    /// The statistics table between games and books: count PGN games into (position, move)
    /// sums (`tally GAMES... -o PART.csv`), or merge tables (`tally merge`).
    Tally(tally::TallyArgs),
}

/// Restores the default SIGPIPE action, so `chessfmt … | head` ends quietly like other Unix
/// tools instead of panicking on the closed pipe.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a valid
    // action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    mapped::install();
    signals::install();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Cbh(cmd) => cbh::run(cmd),
        Command::Ctg(cmd) => ctg::run(cmd),
        Command::Kvetka(cmd) => kvetka::run(cmd),
        Command::Polyglot(cmd) => polyglot::run(cmd),
        Command::Selfplay(cmd) => selfplay::run(cmd),
        Command::Tally(args) => tally::run(args),
    };
    let result = result.and_then(|()| output::flush_stdout());
    // What recovery of a file set found and did not do (a journal that is not ours).
    for n in chessfmt_files::atomic::take_notices() {
        output::warn(n);
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError(msg)) => {
            // The libraries say what happened; the CLI says which flag overrides it.
            let line = msg.replace('\n', " ").replace(
                chessfmt_files::atomic::ALREADY_EXISTS,
                "exists (use --force to overwrite)",
            );
            errln!("chessfmt: error: {line}");
            ExitCode::from(1)
        }
    }
}
