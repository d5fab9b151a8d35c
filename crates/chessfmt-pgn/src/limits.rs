//! The limits a PGN reader works under.

/// The limits of the PGN reader ([`PgnReader::with_limits`](crate::PgnReader::with_limits),
/// [`PgnBytes::with_limits`](crate::PgnBytes::with_limits)): a game over one of them is
/// skipped and counted ([`SkipReason::OverLimit`](crate::SkipReason::OverLimit)), and reading
/// goes on. The family's table of limits and memory bounds is in [`chess_core::limits`].
///
/// Fields may be read and set directly; new fields may be added (the struct is
/// `#[non_exhaustive]`: start from [`Limits::default`]).
///
/// ```
/// use chessfmt_pgn::Limits;
///
/// // A service reading untrusted PGN keeps games small.
/// let mut limits = Limits::default();
/// limits.pgn_plies = 1_000;
/// limits.pgn_tags = 64;
/// assert_eq!(limits.pgn_tag_line, Limits::DEFAULT.pgn_tag_line);
/// ```
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
}

impl Limits {
    /// The defaults (what [`Limits::default`] gives).
    pub const DEFAULT: Limits = Limits {
        pgn_tag_line: 1 << 16,
        pgn_tags: 4096,
        pgn_tag_bytes: 1 << 20,
        pgn_plies: 1 << 16,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        assert_eq!(Limits::default(), Limits::DEFAULT);
        assert_eq!(Limits::DEFAULT.pgn_tags, 4096);
        assert_eq!(Limits::DEFAULT.pgn_tag_line, 65_536);
    }
}
