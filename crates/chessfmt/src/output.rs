//! Text and JSON output. Everything printed goes through these macros and functions, so a
//! full or closed standard output is an error (exit 1, one line), never a panic.

use std::io::{self, Write};

use serde::Serialize;

use crate::{CliError, CliResult};

/// Writes a line to standard error (warnings, summaries); a failing standard error is ignored
/// (there is nowhere left to report it), never a panic.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// [`errln!`] without the line break.
#[allow(unused_macros)]
macro_rules! err {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), $($arg)*);
    }};
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the process started with its standard output closed (`>&-`), so that printing is refused
/// instead of lost. Only a really closed descriptor counts; a read-write `/dev/null` is a normal
/// sink. On Linux, descriptor 1 is looked at before Rust's runtime starts: the runtime reopens a
/// closed descriptor 1 on `/dev/null` (read-write) before `main`, which looks exactly like a
/// read-write `/dev/null` given on purpose (Python's `subprocess.DEVNULL`, a shell's
/// `1<>/dev/null`). A function of the `.init_array` runs before the runtime (as every ELF
/// constructor does), so it sees the descriptor as the parent left it. Elsewhere the runtime's
/// reopened descriptor cannot be told from a `/dev/null` given on purpose, and both are taken as a
/// sink.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static STDOUT_AT_START: extern "C" fn() = {
    extern "C" fn look() {
        // SAFETY: fcntl(F_GETFL) only reads the descriptor's flags.
        let closed = unsafe { libc::fcntl(1, libc::F_GETFL) } == -1;
        STDOUT_CLOSED.store(closed, std::sync::atomic::Ordering::Relaxed);
    }
    look
};

/// Standard output, locked; an error when it was closed at start.
pub fn stdout() -> Result<io::StdoutLock<'static>, CliError> {
    if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(CliError("standard output: it is closed".to_string()));
    }
    Ok(io::stdout().lock())
}

/// The error of a failed write to standard output.
pub fn stdout_error(e: io::Error) -> CliError {
    CliError(format!("standard output: {e}"))
}

/// Flushes standard output, so that an error writing its last buffered bytes (a full disk)
/// is reported instead of lost at exit.
pub fn flush_stdout() -> Result<(), CliError> {
    io::stdout().lock().flush().map_err(stdout_error)
}

/// Prints one JSON value on its own line, through a buffer: a value serialised while it is
/// walked (`cbh show --json`'s move tree) makes many small writes, which must not each reach
/// the (line-buffered) standard output.
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> Result<(), CliError> {
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout()?);
    serde_json::to_writer(&mut out, value).map_err(|e| stdout_error(e.into()))?;
    writeln!(out).map_err(stdout_error)?;
    out.flush().map_err(stdout_error)
}

/// A move in UCI notation, standard castling (`e1g1`): how every verb writes a move of a
/// standard-chess book.
pub fn uci(m: shakmaty::Move) -> String {
    shakmaty::uci::UciMove::from_standard(m).to_string()
}

/// The one place a verb's result is printed: with `--json` one JSON line, otherwise its text
/// (`Display`) — two forms of one value, so they cannot disagree; a full or closed standard
/// output is an error, never a panic.
pub fn report<T: Serialize + std::fmt::Display + ?Sized>(value: &T, json: bool) -> CliResult {
    if json {
        json_line(value)
    } else {
        // Text ends with a line break, whether or not the `Display` writes one.
        let text = value.to_string();
        let end = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        let mut out = stdout()?;
        write!(out, "{text}{end}").map_err(stdout_error)
    }
}

/// The summary of a verb that wrote or checked files: with `--json` it is the verb's output,
/// one JSON line on standard output; otherwise text on standard error, beside the
/// diagnostics (standard output stays for data).
pub fn summary<T: Serialize + std::fmt::Display + ?Sized>(value: &T, json: bool) -> CliResult {
    if json {
        json_line(value)
    } else {
        errln!("{}", value.to_string().trim_end_matches('\n'));
        Ok(())
    }
}

/// A warning on standard error: `chessfmt: warning: …`.
pub fn warn(message: impl std::fmt::Display) {
    errln!("chessfmt: warning: {message}");
}

/// A result whose two forms are made apart: the text (a reference tool's layout, a table)
/// and the JSON value (its own field names). Printed by [`report`] or [`summary`] like any
/// other.
pub struct Shown<J> {
    /// The text, printed as it is.
    pub text: String,
    /// The JSON value.
    pub json: J,
}

impl<J> std::fmt::Display for Shown<J> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl<J: Serialize> Serialize for Shown<J> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(s)
    }
}

/// Builds the text of a [`Shown`] line by line: `push_line!(t, "…", args)` appends a line.
macro_rules! push_line {
    ($t:expr) => {{
        $t.push('\n');
    }};
    ($t:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($t, $($arg)*);
    }};
}
