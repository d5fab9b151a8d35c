//! The resource limits of the family: the error a reader reports at one, and the memory bound
//! of every verb.
//!
//! Every reader of the family is bounded by the size of its input (memory, time and stack, on
//! any byte sequence). Where a format lets one record grow without bound (a PGN game's tags
//! or main line, a ChessBase game's variation nesting) or a bulk operation keeps work in
//! flight, the bound is a field of the `Limits` of the crate that reads that format: the
//! defaults are generous enough for every real file, a library user may raise or lower them,
//! and hitting one is a typed error ([`LimitExceeded`]) that names the limit, reported with
//! the file, the game and its byte offset by the reader that hit it. The model is image-png's
//! `Limits`.
//!
//! ```
//! use chess_core::limits::LimitExceeded;
//!
//! let e = LimitExceeded::new("pgn_tags", "tag pairs", 4096);
//! assert_eq!(e.to_string(), "tag pairs over the limit of 4096 (Limits::pgn_tags)");
//! ```
//!
//! Which reader honours which limit:
//!
//! | limits | reader | what happens at the limit |
//! |---|---|---|
//! | `chessfmt_pgn::Limits`: `pgn_tag_line`, `pgn_tags`, `pgn_tag_bytes`, `pgn_plies` | chessfmt-pgn's reader (every PGN-driven builder) | the game is skipped and counted, reading goes on |
//! | `chessbase_db::Limits::variation_depth` | chessbase-db's game decoder and PGN import | the game is kept up to that point and marked truncated |
//! | `chessbase_db::Limits::bytes_in_flight` | chessbase-db's parallel PGN export | decoding waits for the writer |
//! | `chessbase_db::Limits::pgn_tags` | chessbase-db's PGN import | further tags are not kept, and reported |
//!
//! Memory, verb by verb, on inputs crafted to grow it (each row is asserted by the CLI's
//! `tests/resource_bounds.rs` or the crate named; "input" is the file's size, plus ~32 MiB for
//! the binary itself):
//!
//! | input | verbs | bound |
//! |---|---|---|
//! | PGN: endless tags, a 500 MB line, 10^6 nested variations, compression bombs | every PGN reader (`info`, the builders, `cbh import`) | constant: the limits above, then the game is skipped |
//! | PGN comments | `cbh import` | 65,000 bytes a comment (`chessbase_db::import::MAX_COMMENT_BYTES`), cut and reported |
//! | one long ChessBase game without variations | `cbh show` (text, `--json`), `cbh export` | about the mapped `.cbg` (under 3x): written while decoded |
//! | a ChessBase game with variations | the same | 24 bytes a move (the tree) and its PGN text |
//! | records sharing one game, huge games | `cbh export` | `bytes_in_flight`; games over 1 MiB streamed one at a time |
//! | one long self-play game | `selfplay to-pgn`, `to-fen`, `validate` / `head` | under 2x (mapped, streamed) / under 24x (the decoded game) |
//! | `--memory-limit N` | `polyglot build` | a ceiling: the buffer grows to it, never allocated up front |
//!
//! Bounds that are facts of a format (a CTG record's 127 moves, a Kvetka element's 682 bytes,
//! a self-play position's 256 legal moves) are constants of their crates, not limits; so are
//! working sizes that bound memory without changing any result (the self-play PGN writer's
//! one-pass buffer, `selfplay_format::tools::PGN_BUFFERED_GAME`).

/// A limit was reached: which one (its field name in its crate's `Limits`), what exceeded it
/// and the value in force. Readers report it with the file, game and offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} over the limit of {limit} (Limits::{field})")]
pub struct LimitExceeded {
    /// The field of the reader's `Limits`, e.g. `"pgn_tags"`.
    pub field: &'static str,
    /// What exceeded it, e.g. `"tag pairs"`.
    pub what: &'static str,
    /// The limit in force.
    pub limit: usize,
}

impl LimitExceeded {
    /// The error for the limit `field`, naming what exceeded it.
    pub fn new(field: &'static str, what: &'static str, limit: usize) -> Self {
        LimitExceeded { field, what, limit }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_the_limit() {
        let e = LimitExceeded::new("pgn_tags", "tag pairs", 4096);
        assert_eq!(
            e.to_string(),
            "tag pairs over the limit of 4096 (Limits::pgn_tags)"
        );
    }
}
