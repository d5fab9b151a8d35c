//! Text and JSON output.

use std::io::{self, Write};

use serde::Serialize;

/// Prints one JSON value on its own line.
pub fn json_line<T: Serialize>(value: &T) -> io::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)
}
