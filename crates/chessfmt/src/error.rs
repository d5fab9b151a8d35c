//! The CLI's error: one line for the user, exit code 1 (usage errors are clap's, exit 2).

/// An error for the user: printed on one line, exit code 1.
#[derive(Debug)]
pub struct CliError(pub String);

impl<E: std::error::Error> From<E> for CliError {
    /// The error's message followed by those of its sources (the library errors never repeat
    /// a source in their own message).
    fn from(e: E) -> Self {
        let mut msg = e.to_string();
        let mut source = e.source();
        while let Some(s) = source {
            msg.push_str(": ");
            msg.push_str(&s.to_string());
            source = s.source();
        }
        CliError(msg)
    }
}

/// The result of a command.
pub type CliResult = Result<(), CliError>;
