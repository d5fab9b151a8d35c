//! What the builders tell about their PGN input: games left out are warnings (the book is
//! written from the good games, exit 0) unless `--strict` asks for all or nothing.

use std::path::Path;

use chessfmt_pgn::SkipStats;

use crate::{CliError, CliResult};

/// Prints the games of `file` that were left out (the first few with their number and byte
/// offset, then the counts by reason) as warnings on stderr.
pub fn warn_skipped(file: Option<&Path>, skipped: &SkipStats) {
    if skipped.total() == 0 {
        return;
    }
    let prefix = file.map_or(String::new(), |f| format!("{}: ", f.display()));
    for e in &skipped.examples {
        crate::output::warn(format_args!("{prefix}skipped {e}"));
    }
    let truncated = if skipped.truncated() {
        " (the input ends early)"
    } else {
        ""
    };
    crate::output::warn(format_args!("{prefix}{skipped}{truncated}"));
}

/// Under `--strict`, any game left out (or a truncated input) is an error: nothing is written.
pub fn check_strict(strict: bool, file: &Path, skipped: &SkipStats) -> CliResult {
    if strict && skipped.total() > 0 {
        return Err(CliError(format!(
            "{}: {skipped}; nothing written (--strict)",
            file.display()
        )));
    }
    Ok(())
}

/// Refuses a PGN input that is plainly something else (a book, self-play data): building
/// from it would silently give an empty book. Standard input and pipes are not checked.
pub fn check_pgn_input(path: &Path) -> CliResult {
    if !path.is_file() {
        return Ok(());
    }
    let head = crate::formats::head_of(path)?;
    crate::formats::refuse_wrong_kind(path, &head, crate::formats::Format::Pgn)
}

/// A PGN input, opened.
pub enum Input {
    /// A plain file, mapped: cut at game boundaries and tokenised in parallel.
    Mapped(chessfmt_files::FileData),
    /// A compressed file or standard input: decompressed in windows of whole games, whose
    /// pieces are tokenised in parallel.
    Stream(chessfmt_pgn::PgnReader<Box<dyn std::io::Read + Send>>),
}

/// Runs `$add` (a builder's `add_pgn`) on an opened [`Input`], whichever kind it is.
macro_rules! add_pgn {
    ($input:expr, |$pgn:ident| $add:expr) => {
        match $input {
            $crate::pgn_input::Input::Mapped(data) => {
                // Pages already read leave memory: the map never holds the whole file.
                let release = |r| data.release(r);
                let $pgn = chessfmt_pgn::PgnBytes::new(&data).with_release(&release);
                $add
            }
            $crate::pgn_input::Input::Stream(reader) => {
                let $pgn = reader;
                $add
            }
        }
    };
}

/// Opens a PGN input: a plain regular file is mapped (its games are then tokenised in
/// parallel), a compressed one or standard input (`-`) is streamed (in windows of whole
/// games, tokenised in parallel too).
pub fn open(path: &Path) -> Result<Input, CliError> {
    match mapped_plain(path)? {
        Some(data) => Ok(Input::Mapped(data)),
        None => open_stream(path).map(Input::Stream),
    }
}

/// A plain (uncompressed) regular file, mapped; `None` for a compressed file or standard
/// input (nothing of it read).
pub fn mapped_plain(path: &Path) -> Result<Option<chessfmt_files::FileData>, CliError> {
    if path != Path::new("-") && path.is_file() {
        let data = crate::mapped::file(path)?;
        let head = &data[..data.len().min(8)];
        if chessfmt_pgn::Compression::detect(head) == chessfmt_pgn::Compression::None {
            return Ok(Some(data));
        }
    }
    Ok(None)
}

pub fn open_stream(
    path: &Path,
) -> Result<chessfmt_pgn::PgnReader<Box<dyn std::io::Read + Send>>, CliError> {
    open_decompressed(path).map(chessfmt_pgn::PgnReader::new)
}

/// The decompressed bytes of a PGN input (plain or compressed); `-` is standard input.
pub fn open_decompressed(path: &Path) -> Result<Box<dyn std::io::Read + Send>, CliError> {
    let stream = if path == Path::new("-") {
        chessfmt_pgn::decompressed(std::io::stdin())
    } else {
        chessfmt_pgn::open_decompressed(path)
    };
    stream.map_err(|e| CliError(format!("{}: {e}", path.display())))
}
