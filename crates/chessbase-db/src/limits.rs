//! The limits a database's readers work under.

/// The limits of a database's game decoder, parallel export and PGN import
/// ([`OpenOptions::limits`](crate::OpenOptions::limits),
/// [`Database::with_limits`](crate::Database::with_limits)). The family's table of limits
/// and memory bounds is in [`chess_core::limits`].
///
/// Fields may be read and set directly; new fields may be added (the struct is
/// `#[non_exhaustive]`: start from [`Limits::default`]).
///
/// ```
/// use chessbase_db::Limits;
///
/// let mut limits = Limits::default();
/// limits.variation_depth = 16;
/// assert_eq!(limits.variation_depth(), 16);
/// limits.variation_depth = usize::MAX;
/// assert_eq!(limits.variation_depth(), Limits::MAX_VARIATION_DEPTH);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The deepest variation nesting a game decodes to (real databases nest a few levels, a
    /// few dozen at the extreme), and the deepest a PGN import keeps. The PGN and JSON writers
    /// recurse once per level, so values above [`Limits::MAX_VARIATION_DEPTH`] are taken as
    /// that. Default 256.
    pub variation_depth: usize,
    /// Stored bytes of games a parallel export decodes ahead of its writer (with a bound on
    /// their count besides), so that large games cannot pile up in memory. Default 8 MiB.
    pub bytes_in_flight: usize,
    /// The most tag pairs beyond the ones ChessBase stores that a PGN import keeps for a game;
    /// the rest are reported as lost. Default 4,096.
    pub pgn_tags: usize,
}

impl Limits {
    /// The defaults (what [`Limits::default`] gives).
    pub const DEFAULT: Limits = Limits {
        variation_depth: 256,
        bytes_in_flight: 8 << 20,
        pgn_tags: 4096,
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
