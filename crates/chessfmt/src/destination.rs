//! Where a writing verb's output goes, and the two promises every writer keeps about it:
//! `-o -` is standard output for a single-file output (a multi-file set refuses it as a usage
//! error), and an input is never overwritten, `--force` or not (exit 1 naming the input,
//! nothing written).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::CliError;

/// Whether `path` means standard output (`-`).
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// Refuses outputs that are inputs: each of `outputs` (the files a verb would write) is
/// compared with each of `inputs`. The error names the input.
pub fn refuse_inputs<'a>(
    outputs: impl IntoIterator<Item = &'a Path>,
    inputs: &[&Path],
) -> Result<(), CliError> {
    for out in outputs {
        if is_stdout(out) {
            continue;
        }
        if let Some(input) = inputs
            .iter()
            .find(|i| !is_stdout(i) && chessfmt_files::same_file(out, i))
        {
            return Err(CliError(format!(
                "{}: is an input of this command; an input is never overwritten (--force \
                 neither): write somewhere else",
                input.display()
            )));
        }
    }
    Ok(())
}

/// Refuses an existing single-file output before any work, unless `force` (standard output,
/// a device or a pipe is never "existing": it is written to, not replaced).
pub fn refuse_existing(path: &Path, force: bool) -> Result<(), CliError> {
    refuse_existing_files([path], force)
}

/// Refuses, before any work and unless `force`, an output of which a file exists: the files
/// of a set (a book's members) or a single file. A verb checks here before it reads its
/// input, so that a refusal costs nothing; its writer checks again when it commits (a file
/// made meanwhile is not replaced either).
pub fn refuse_existing_files<P: AsRef<Path>>(
    paths: impl IntoIterator<Item = P>,
    force: bool,
) -> Result<(), CliError> {
    if force {
        return Ok(());
    }
    for path in paths {
        let path = path.as_ref();
        if !is_stdout(path) && path.exists() && !chessfmt_files::atomic::is_special(path) {
            return Err(CliError(format!(
                "{} exists (use --force to overwrite)",
                path.display()
            )));
        }
    }
    Ok(())
}

/// The folder for a verb's temporary files (spilled runs) when it writes `output`: beside
/// it, or the system's temporary folder for standard output, a device or a pipe.
pub fn scratch_dir(output: &Path) -> PathBuf {
    if is_stdout(output) || chessfmt_files::atomic::is_special(output) {
        return std::env::temp_dir();
    }
    match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Refuses `-`, a device or a pipe as the output of a verb that writes a set of files (a
/// usage error, exit 2): such a destination cannot hold several files, and it is never
/// replaced by a regular file.
pub fn refuse_set_destination(path: &Path, what: &str) {
    if is_stdout(path) {
        crate::args::usage_error(format!(
            "-o -: {what} is a set of files and cannot go to standard output"
        ));
    }
    if chessfmt_files::atomic::is_special(path) {
        crate::args::usage_error(format!(
            "-o {}: {what} is a set of files; a device or a pipe cannot hold it",
            path.display()
        ));
    }
}

/// Writes a single-file output through `write`: standard output for `-` (then `--json`,
/// which prints the summary there, is a usage error), otherwise atomically (a temporary file
/// renamed over the destination; an existing file only with `force`). An output that is one
/// of `inputs` is refused first.
pub fn write_single<T>(
    path: &Path,
    force: bool,
    json: bool,
    inputs: &[&Path],
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> Result<T, CliError> {
    refuse_inputs([path], inputs)?;
    if is_stdout(path) {
        if json {
            crate::args::usage_error(
                "--json prints the summary on standard output: give -o a file, not -",
            );
        }
        let mut out = crate::output::stdout()?;
        let result = write(&mut out).and_then(|t| out.flush().map(|()| t));
        return result.map_err(crate::output::stdout_error);
    }
    chessfmt_files::atomic::write_atomically(path, force, write)
        .map_err(|e| CliError(format!("{}: {e}", path.display())))
}

/// How an output is named in a summary: `standard output` for `-`.
pub fn shown(path: &Path) -> String {
    if is_stdout(path) {
        "standard output".to_string()
    } else {
        path.display().to_string()
    }
}

/// Writes a Polyglot book (entries in the order given) as the single-file output of `out`.
pub fn write_polyglot(
    out: &crate::args::WriteArgs,
    inputs: &[&Path],
    entries: &[polyglot_book::Entry],
) -> Result<(), CliError> {
    write_single(&out.output, out.force, out.json, inputs, |w| {
        let mut w = io::BufWriter::with_capacity(1 << 16, w);
        polyglot_book::write::write_entries(&mut w, entries)?;
        w.flush()
    })
}
