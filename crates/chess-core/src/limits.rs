//! Resource limits of the readers, in one place.
//!
//! Every reader of the family is bounded by the size of its input (memory, time and stack, on
//! any byte sequence). Where a format lets one record grow without bound (a PGN game's tags
//! or main line, a ChessBase game's variation nesting) or a bulk operation keeps work in
//! flight, the bound is a field of [`Limits`]: the defaults are generous enough for every
//! real file, a library user may raise or lower them, and hitting one is a typed error
//! ([`LimitExceeded`]) that names the limit, reported with the file, the game and its byte
//! offset by the reader that hit it. The model is image-png's `Limits`.
//!
//! ```
//! use chess_core::limits::Limits;
//!
//! // A service reading untrusted PGN keeps games small.
//! let mut limits = Limits::default();
//! limits.pgn_plies = 1_000;
//! limits.pgn_tags = 64;
//! assert_eq!(limits.pgn_tag_line, Limits::DEFAULT.pgn_tag_line);
//! ```
//!
//! Which reader honours which field:
//!
//! | field | reader | what happens at the limit |
//! |---|---|---|
//! | `pgn_tag_line`, `pgn_tags`, `pgn_tag_bytes`, `pgn_plies` | chess-core's PGN reader (every PGN-driven builder) | the game is skipped and counted, reading goes on |
//! | `variation_depth` | chessbase-db's game decoder | the game is kept up to that point and marked truncated |
//! | `bytes_in_flight` | chessbase-db's parallel PGN export | decoding waits for the writer |
//!
//! Memory, verb by verb, on inputs crafted to grow it (each row is asserted by the CLI's
//! `tests/resource_bounds.rs` or the crate named; "input" is the file's size, plus ~32 MiB for
//! the binary itself):
//!
//! | input | verbs | bound |
//! |---|---|---|
//! | PGN: endless tags, a 500 MB line, 10^6 nested variations, compression bombs | every PGN reader (`info`, the builders, `cbh import`) | constant: the fields above, then the game is skipped |
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

/// The limits a reader works under (see the [module](self) documentation).
///
/// Fields may be read and set directly; new fields may be added (the struct is
/// `#[non_exhaustive]`: start from [`Limits::default`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The longest PGN tag line (`[Name "value"]`) in bytes; the reader's buffer is sized for
    /// it, so it is allocated whole. Real tag lines are well under 1 KiB. Default 64 KiB.
    pub pgn_tag_line: usize,
    /// The most tag pairs a PGN game may have. Default 4,096.
    pub pgn_tags: usize,
    /// The most bytes of tag names and values a PGN game may have in all (this bounds what a
    /// game's tags cost in memory). Default 1 MiB.
    pub pgn_tag_bytes: usize,
    /// The longest PGN main line kept, in plies (the longest possible game under the 75-move
    /// rule has fewer than 9,000). Comments, variations and NAGs may have any length: they
    /// are not kept. Default 65,536.
    pub pgn_plies: usize,
    /// The deepest variation nesting a ChessBase game decodes to (real databases nest a few
    /// levels, a few dozen at the extreme). The PGN and JSON writers recurse once per level,
    /// so values above [`Limits::MAX_VARIATION_DEPTH`] are taken as that. Default 256.
    pub variation_depth: usize,
    /// Stored bytes of games a parallel export decodes ahead of its writer (with a bound on
    /// their count besides), so that large games cannot pile up in memory. Default 8 MiB.
    pub bytes_in_flight: usize,
}

impl Limits {
    /// The defaults (what [`Limits::default`] gives).
    pub const DEFAULT: Limits = Limits {
        pgn_tag_line: 1 << 16,
        pgn_tags: 4096,
        pgn_tag_bytes: 1 << 20,
        pgn_plies: 1 << 16,
        variation_depth: 256,
        bytes_in_flight: 8 << 20,
    };

    /// The deepest [`Limits::variation_depth`] honoured: the writers of a variation tree
    /// recurse per level, and 4,096 levels overflowed a 2 MiB worker stack.
    pub const MAX_VARIATION_DEPTH: usize = 1024;

    /// [`Limits::variation_depth`], at most [`Limits::MAX_VARIATION_DEPTH`].
    pub fn variation_depth(&self) -> usize {
        self.variation_depth.min(Self::MAX_VARIATION_DEPTH)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A limit of [`Limits`] was reached: which one (its field name), what exceeded it and the
/// value in force. Readers report it with the file, game and offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} over the limit of {limit} (Limits::{field})")]
pub struct LimitExceeded {
    /// The field of [`Limits`], e.g. `"pgn_tags"`.
    pub field: &'static str,
    /// What exceeded it, e.g. `"tag pairs"`.
    pub what: &'static str,
    /// The limit in force.
    pub limit: usize,
}

impl LimitExceeded {
    /// The error for `field` of `limits`, naming what exceeded it.
    pub fn new(field: &'static str, what: &'static str, limit: usize) -> Self {
        LimitExceeded { field, what, limit }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_messages() {
        assert_eq!(Limits::default(), Limits::DEFAULT);
        let e = LimitExceeded::new("pgn_tags", "tag pairs", Limits::DEFAULT.pgn_tags);
        assert_eq!(
            e.to_string(),
            "tag pairs over the limit of 4096 (Limits::pgn_tags)"
        );
        let mut l = Limits {
            variation_depth: usize::MAX,
            ..Limits::default()
        };
        assert_eq!(l.variation_depth(), Limits::MAX_VARIATION_DEPTH);
        l.variation_depth = 3;
        assert_eq!(l.variation_depth(), 3);
    }
}
