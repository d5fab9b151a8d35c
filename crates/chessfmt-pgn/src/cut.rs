//! PGN bytes in memory cut at game boundaries, so that the pieces are tokenised in parallel
//! ([`PgnBytes`]).

use crate::Limits;

use crate::{PgnReader, RawGame, SkipStats};

/// The tag line a piece of PGN in memory is first read with ([`PgnBytes::tokenise`]): longer
/// than any tag line of the collections we know (lichess's are under 100 bytes; a FEN tag
/// under 100), far shorter than the 64 KiB a reader accepts.
const QUICK_TAG_LINE: usize = 1 << 10;

/// PGN bytes in memory (an uncompressed file, mapped): [`replay_in_order`](crate::replay_in_order)
/// cuts them at game boundaries and tokenises the pieces in parallel (a stream's windows are
/// read as bytes in memory too). The games, their numbers and byte offsets, and the skipped
/// games are the same as [`PgnReader`] gives on the same bytes.
#[derive(Clone, Copy)]
pub struct PgnBytes<'a> {
    pub(crate) data: &'a [u8],
    limits: Limits,
    keep_header: fn(&[u8]) -> bool,
    piece: usize,
    release: Option<&'a (dyn Fn(std::ops::Range<usize>) + Sync)>,
    ply_limit: usize,
}

impl std::fmt::Debug for PgnBytes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgnBytes")
            .field("len", &self.data.len())
            .field("limits", &self.limits)
            .field("piece", &self.piece)
            .field("release", &self.release.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> PgnBytes<'a> {
    /// PGN text in memory, under the default [`Limits`].
    pub fn new(data: &'a [u8]) -> Self {
        PgnBytes {
            data,
            limits: Limits::default(),
            keep_header: |_| true,
            piece: 1 << 19,
            release: None,
            ply_limit: usize::MAX,
        }
    }

    /// Calls `release` with each byte range once its games are read, in order: the reader
    /// never looks at those bytes again. A memory-mapped file passes its pages back to the
    /// operating system there (`chessfmt_files::FileData::release`), so a
    /// pass over a file of gigabytes keeps only the part being read resident.
    #[must_use]
    pub fn with_release(mut self, release: &'a (dyn Fn(std::ops::Range<usize>) + Sync)) -> Self {
        self.release = Some(release);
        self
    }

    /// Under `limits` (see [`PgnReader::with_limits`]).
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Keeps only the headers `keep` accepts (see [`PgnReader::with_header_filter`]).
    #[must_use]
    pub fn with_header_filter(mut self, keep: fn(&[u8]) -> bool) -> Self {
        self.keep_header = keep;
        self
    }

    /// Reads at most the first `plies` main-line moves of a game whose `Result` header gives
    /// its result, the rest of its movetext skipped without reading its moves (a builder
    /// that replays no more of a game: a book to 20 plies of games of 80 reads a fourth of
    /// the moves). The games are those a whole reading gives, their `sans` cut at `plies`
    /// and their `outcome` (the termination marker) not read: the result is the header's in
    /// both. A game whose result only its termination marker gives is read whole, and so is
    /// the last game of a piece when it was left early (whether the end of the input cut it
    /// off is then known), so the games skipped are the same too — except a game over the
    /// `pgn_plies` limit past `plies`, which is read (its moves past `plies` are not).
    #[must_use]
    pub fn with_ply_limit(mut self, plies: usize) -> Self {
        self.ply_limit = plies;
        self
    }

    /// The same settings over other bytes (a stream's window), without a release hook.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) fn over<'b>(&self, data: &'b [u8]) -> PgnBytes<'b> {
        PgnBytes {
            data,
            limits: self.limits,
            keep_header: self.keep_header,
            piece: self.piece,
            release: None,
            ply_limit: self.ply_limit,
        }
    }

    /// The size of the pieces tokenised in parallel.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) fn piece_size(&self) -> usize {
        self.piece
    }

    /// The bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Calls the release hook ([`with_release`](Self::with_release)), if any, with `range`:
    /// for readers of their own that read [`pieces`](Self::pieces) and are done with them.
    pub fn release(&self, range: std::ops::Range<usize>) {
        if let Some(release) = self.release {
            release(range);
        }
    }

    /// The size of the pieces tokenised in parallel (512 KiB by default; tests use small ones).
    #[doc(hidden)]
    #[must_use]
    pub fn with_piece_size(mut self, bytes: usize) -> Self {
        self.piece = bytes.max(1);
        self
    }

    /// The pieces: byte ranges cut just before a line `[Event ` that follows an empty line
    /// outside a comment (where one game ends and the next begins), each at least the piece
    /// size long (the last excepted). Text without such lines stays one piece. The cuts
    /// depend on the bytes alone (never on threads): readers of their own (the ChessBase
    /// import) read the pieces in parallel and keep their games in order. Finding a cut
    /// reads up to 64 KiB before it (is it inside a comment?); those pages are released as
    /// the cutting goes ([`with_release`](Self::with_release)), so cutting a mapped file does
    /// not make it resident.
    pub fn pieces(&self) -> Vec<std::ops::Range<usize>> {
        let finder = boundary_finder();
        let mut out = Vec::new();
        let (mut start, mut behind) = (0, 0);
        while start < self.data.len() {
            let from = (start + self.piece).min(self.data.len());
            let cut = next_boundary(self.data, from, &finder).unwrap_or(self.data.len());
            out.push(start..cut);
            // Released as it goes: a touched page can map a whole large folio of the file
            // (a freshly written one is all large folios), so releasing only at the end let
            // the scan map the whole file for a moment. From the previous piece's start: a
            // release keeps the blocks a range only partly covers, and a small piece (a
            // memory-limited build's) may cover none whole.
            self.release(behind..cut);
            behind = start;
            start = cut;
        }
        self.release(0..self.data.len());
        out
    }

    /// Tokenises one piece: its games and skipped games numbered from 0 at its start, and how
    /// many game numbers it used.
    ///
    /// A piece is read first with tag lines of up to [`QUICK_TAG_LINE`] bytes: pgn-reader asks
    /// for a whole tag line's worth of bytes before each tag line and moves what it holds to
    /// the front of its buffer whenever it has less, which near the end of a piece is every
    /// tag line (with the 64 KiB default limit that was 3.7 % of a one-thread Polyglot build).
    /// A piece where that pass left a game out over a limit, or found one cut off, is read
    /// again under the limits as given, so the games are those of the second pass alone.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(crate) fn tokenise(&self, range: std::ops::Range<usize>) -> (Vec<RawGame>, SkipStats, u64) {
        if self.limits.pgn_tag_line > QUICK_TAG_LINE {
            let quick = Limits {
                pgn_tag_line: QUICK_TAG_LINE,
                ..self.limits
            };
            let read = self.tokenise_with(range.clone(), quick);
            let again = ["over a limit", "truncated input"]
                .iter()
                .any(|kind| read.1.by_kind.contains_key(kind));
            if !again {
                return read;
            }
        }
        self.tokenise_with(range, self.limits)
    }

    /// [`Self::tokenise`] under `limits`.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn tokenise_with(
        &self,
        range: std::ops::Range<usize>,
        limits: Limits,
    ) -> (Vec<RawGame>, SkipStats, u64) {
        let (mut games, mut skipped, mut used, in_part) =
            self.read(range.clone(), limits, self.ply_limit);
        // The piece's last game was left early: read it again whole, so that a game cut off
        // by the end of the piece (in a comment, in mid-line) is found as a whole reading
        // finds it.
        if in_part && let Some(last) = games.pop() {
            let start = range.start + last.offset as usize;
            let (mut again, mut more, used_again, _) =
                self.read(start..range.end, limits, usize::MAX);
            renumber(&mut again, &mut more, last.index, last.offset);
            games.extend(again);
            skipped.merge(more);
            used = last.index + used_again;
        }
        (games, skipped, used)
    }

    /// The games of `range` read by one reader reading at most `ply_limit` moves of a game
    /// (numbered from 0 at the range's start), the games it skipped, the game numbers it
    /// used, and whether its last game was left early
    /// ([`PgnReader::last_read_in_part`]).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn read(
        &self,
        range: std::ops::Range<usize>,
        limits: Limits,
        ply_limit: usize,
    ) -> (Vec<RawGame>, SkipStats, u64, bool) {
        let mut reader = PgnReader::with_limits(&self.data[range], limits)
            .with_header_filter(self.keep_header)
            .with_ply_limit(ply_limit);
        let mut games = Vec::new();
        // In-memory input: the only errors are pgn-reader's own, which end the piece as they
        // end a stream (the games before are kept).
        while let Ok(Some(g)) = reader.next_raw() {
            games.push(g);
        }
        let skipped = reader.take_skipped();
        (games, skipped, reader.next_index, reader.last_read_in_part)
    }
}

/// The finder of [`next_boundary`]'s lines.
pub(crate) fn boundary_finder() -> memchr::memmem::Finder<'static> {
    memchr::memmem::Finder::new(b"\n[Event ")
}

/// The first place at or after `from` where `data` can be cut between two games: just before
/// a line `[Event ` that follows an empty line outside a comment (see [`PgnBytes::pieces`]);
/// `None` if there is none. Only `data` is looked at: text that begins at such a place (a
/// stream's window) is cut as a whole input would be.
pub(crate) fn next_boundary(
    data: &[u8],
    mut from: usize,
    finder: &memchr::memmem::Finder<'_>,
) -> Option<usize> {
    loop {
        let nl = from + finder.find(data.get(from..)?)?;
        // An empty line before ("\n\n" or "\n\r\n"), and not inside a brace comment: the
        // nearest brace before is not an opening one (a comment holds no "}"). A "{" in a tag
        // value or a ";" comment only costs a larger piece; a comment holding an empty line
        // and "[Event" more than 64 KiB long is caught when its piece reads a cut-off game.
        let before = &data[..nl];
        let window = &before[before.len().saturating_sub(1 << 16)..];
        let in_comment = memchr::memrchr2(b'{', b'}', window).is_some_and(|i| window[i] == b'{');
        if (before.ends_with(b"\n") || before.ends_with(b"\n\r")) && !in_comment {
            return Some(nl + 1);
        }
        from = nl + 1;
    }
}

/// Numbers `games` and the examples of `skipped`, read on their own from a part of an input
/// (numbered from 0 at its start), as the input's: `index` games and `offset` bytes come
/// before the part.
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) fn renumber(games: &mut [RawGame], skipped: &mut SkipStats, index: u64, offset: u64) {
    for g in games {
        g.index += index;
        g.offset += offset;
    }
    for e in &mut skipped.examples {
        e.index += index;
        e.offset += offset;
    }
}
