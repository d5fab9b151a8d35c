//! Building a book from games, honouring the header's filters, as Kvetka adds games.
//!
//! Rules (the chessfmt format notes, Kvetka, and the decisions marked so):
//! * a game is added only when its result is known and it passes the four Elo minima of the
//!   header (0 = no filter; a missing Elo counts as 0);
//! * `max_move` = N: the positions before each of the first N half-moves go in with the move;
//!   the position after the N-th half-move (or after the last move of a shorter game) goes in
//!   with statistics only; 0xFF = the whole game;
//! * a position counts **once per game** for wins/draws/losses, which are those of the side
//!   to move; moves are kept in order of first appearance (decision: it makes growing a book
//!   give the same elements as building it at once);
//! * moves the table cannot code (under-promotions, a third knight…) are skipped and counted;
//!   positions whose key does not fit 22 bytes are skipped and counted;
//! * with `element_type` bit 0, each game gets a `.ksf` entry (source type 1 = PGN, address =
//!   byte offset of the game in the — decompressed — file, length = byte length of its text,
//!   names, Elo, result); an element stores the first game it occurs in, and the element of
//!   a game's last stored position lists that game in its links;
//! * with the header's `links` flag, after the games every book position gets every legal
//!   move that leads to another book position (transpositions).

use std::{io::Read, ops::ControlFlow, path::Path};

use foldhash::{HashMap, HashSet, HashSetExt};

use chessfmt_pgn::parts::{PartedTable, part_of};
use chessfmt_pgn::{GameError, GameResult, PgnInput, PgnReader, RawGame, SkipStats};
use rayon::prelude::*;
use shakmaty::{Color, Position};

use crate::{
    Error,
    accumulate::{Acc, element_of},
    ksf::{GameInfo, KsfResult, SOURCE_PGN, Source, Sources},
    moves, position,
    raw::{Element, Header, Key, MAX_MOVE_ALL, SourceRef},
};

pub use chess_core::book::MemoryLimit;

/// Options of a [`Builder`]: start from [`BuildOptions::default`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildOptions {
    /// The book's header: its filters (four Elo minima), `max_move`, `element_type` and
    /// `links` apply to the build, and it is the header of the book written. Default:
    /// [`Header::default`].
    pub header: Header,
    /// The number of the first source (to grow a book that has that many sources). Default 0.
    pub first_source: usize,
    /// Keep the position table near this ceiling by spilling sorted runs to anonymous
    /// temporary files (gone with the process, even after a crash); [`Builder::save`]
    /// merges them as it writes, so the whole build needs the limit plus two `.kob` files of
    /// memory, and the book is byte-identical to an in-memory build. A book with the
    /// header's `links` flag needs every position at once for its links pass: its runs are
    /// merged back into memory. None by default.
    pub memory_limit: Option<MemoryLimit>,
    /// The most bytes of one `.kob` file (on block boundaries). Default
    /// [`crate::write::DEFAULT_SPLIT_SIZE`] (20 MB, as Kvetka).
    pub split_size: u64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            header: Header::default(),
            first_source: 0,
            memory_limit: None,
            split_size: crate::write::DEFAULT_SPLIT_SIZE,
        }
    }
}

impl BuildOptions {
    /// The book's header ([`BuildOptions::header`]).
    #[must_use]
    pub fn with_header(mut self, header: Header) -> Self {
        self.header = header;
        self
    }

    /// Sources numbered from `first` on ([`BuildOptions::first_source`]).
    #[must_use]
    pub fn with_first_source(mut self, first: usize) -> Self {
        self.first_source = first;
        self
    }

    /// A memory ceiling ([`BuildOptions::memory_limit`]).
    #[must_use]
    pub fn with_memory_limit(mut self, limit: Option<MemoryLimit>) -> Self {
        self.memory_limit = limit;
        self
    }

    /// The most bytes of one `.kob` file ([`BuildOptions::split_size`]).
    #[must_use]
    pub fn with_split_size(mut self, bytes: u64) -> Self {
        self.split_size = bytes;
        self
    }
}

/// A book built in memory ([`Builder::finish`]): what [`crate::write::write_book`] writes.
#[derive(Debug, Clone)]
pub struct Built {
    /// The header.
    pub header: Header,
    /// The elements, sorted by key.
    pub elements: Vec<Element>,
    /// The sources, when the book stores games.
    pub sources: Option<Sources>,
    /// The most bytes of one `.kob` file.
    pub split_size: u64,
}

impl Built {
    /// Writes the book at `path` (any of its files or its base name; committed as one set).
    /// Refuses to replace existing files unless `overwrite`.
    pub fn save(
        &mut self,
        path: impl AsRef<Path>,
        overwrite: bool,
    ) -> Result<crate::write::WriteStats, Error> {
        let paths = crate::read::BookPaths::from_any(path.as_ref());
        crate::write::write_book(
            &paths,
            &self.header,
            &mut self.elements,
            self.sources.as_ref(),
            self.split_size,
            overwrite,
        )
    }
}

/// The address a source file is recorded under in the `.ksf` (its canonical path, or the
/// path as given when it has none: standard input, a file gone).
pub fn source_address(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Counts of a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Games read.
    pub games_read: u64,
    /// Games added to the book.
    pub games_added: u64,
    /// Games left out by the Elo filters.
    pub games_filtered: u64,
    /// Games left out for an unknown result.
    pub games_without_result: u64,
    /// Games left out, by reason: not replayable (illegal move, bad FEN…), unreadable, or cut
    /// off by the end of the input ([`SkipStats::truncated`]).
    pub skipped: SkipStats,
    /// Moves the table has no code for (skipped; their games still count).
    pub uncodable_moves: u64,
    /// Positions whose key does not fit 22 bytes (skipped).
    pub unencodable_positions: u64,
    /// Games added without a `.ksf` reference (offset or length beyond 4 GiB).
    pub unreferenced_games: u64,
    /// Moves added between book positions by the `links` pass.
    pub linked_moves: u64,
}

/// Outcome for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Win,
    Draw,
    Loss,
}

/// A stored position of a replayed game: its key, the code of the move played from it (or
/// `NO_MOVE`), the outcome for the side to move (`None` where the position was reached
/// before in the game: a game counts once for a position) and the key's part of the
/// position table ([`part_of`], worked out in the parallel part of a build).
type Entry = (Key, u8, Option<Outcome>, u8);

/// A replayed game, ready to be counted: an [`Entry`] per stored position, the last one
/// being the game's last stored position.
#[derive(Debug)]
struct GamePlies {
    info: GameInfo,
    offset: u64,
    length: u64,
    /// Where its entries are in its run's list ([`PreparedRun::entries`]).
    entries: std::ops::Range<usize>,
    uncodable: u64,
    unencodable: u64,
}

/// Games prepared a run at a time on the pool (see [`chessfmt_pgn::replay_runs_in_order`]):
/// the entries of all of them in one list, so that the counting thread does not free a list
/// per game made on another thread (glibc's arena locks stalled the other threads on it).
#[derive(Default)]
struct PreparedRun {
    entries: Vec<Entry>,
    games: Vec<Prepared>,
}

/// A game to count: its run, where its entries are there, and its reference.
type Counted = (usize, std::ops::Range<usize>, Option<SourceRef>);

/// Games a run prepares.
const RUN_GAMES: usize = 256;

impl PreparedRun {
    fn of(games: &[RawGame], header: &Header) -> PreparedRun {
        let most = plies_of(header);
        let mut run = PreparedRun {
            entries: Vec::with_capacity(games.iter().map(|g| g.sans.len().min(most) + 1).sum()),
            games: Vec::with_capacity(games.len()),
        };
        let mut seen = HashSet::new();
        for raw in games {
            let p = prepare(raw, header, &mut run.entries, &mut seen);
            run.games.push(p);
        }
        run
    }
}

const NO_MOVE: u8 = 0xff;

enum Prepared {
    Game(GamePlies),
    Filtered,
    NoResult,
    Error(GameError),
}

fn elo(raw: &RawGame, tag: &str) -> u16 {
    raw.header(tag)
        .and_then(|v| v.trim().parse::<u16>().ok())
        .unwrap_or(0)
}

fn passes(header: &Header, white: u16, black: u16) -> bool {
    let ok = |min: u16, v: u16| min == 0 || v >= min;
    ok(header.min_elo_white, white)
        && ok(header.min_elo_black, black)
        && ok(header.min_elo_strong, white.max(black))
        && ok(header.min_elo_weak, white.min(black))
}

/// The half-moves of a game the book takes (the header's `max_move`; all of them for
/// [`MAX_MOVE_ALL`]).
fn plies_of(header: &Header) -> usize {
    if header.max_move == MAX_MOVE_ALL {
        usize::MAX
    } else {
        usize::from(header.max_move)
    }
}

/// Prepares `raw`, its entries appended to `out` (`seen`: room for its positions).
fn prepare(
    raw: &RawGame,
    header: &Header,
    out: &mut Vec<Entry>,
    seen: &mut HashSet<Key>,
) -> Prepared {
    let result = raw.result();
    let Some(winner) = (match result {
        GameResult::WhiteWins => Some(Some(Color::White)),
        GameResult::BlackWins => Some(Some(Color::Black)),
        GameResult::Draw => Some(None),
        _ => None, // unknown result
    }) else {
        return Prepared::NoResult;
    };
    let (white_elo, black_elo) = (elo(raw, "WhiteElo"), elo(raw, "BlackElo"));
    if !passes(header, white_elo, black_elo) {
        return Prepared::Filtered;
    }
    let outcome = |turn: Color| match winner {
        None => Outcome::Draw,
        Some(w) if w == turn => Outcome::Win,
        Some(_) => Outcome::Loss,
    };
    let plies = plies_of(header);
    let start = out.len();
    let mut uncodable = 0;
    let mut unencodable = 0;
    let replay = raw.replay(plies, |pos, m| {
        let code = moves::encode_real(pos, m).unwrap_or_else(|| {
            uncodable += 1;
            NO_MOVE
        });
        match position::key_of(pos) {
            Some(key) => out.push((key, code, Some(outcome(pos.turn())), 0)),
            None => unencodable += 1,
        }
        ControlFlow::Continue(())
    });
    // The position after the last move (every move is visited: none breaks).
    let last = match replay {
        Ok(r) => r.end,
        Err(e) => {
            out.truncate(start);
            return Prepared::Error(e);
        }
    };
    match position::key_of(&last) {
        Some(key) => out.push((key, NO_MOVE, Some(outcome(last.turn())), 0)),
        None => unencodable += 1,
    }
    // A repeated position keeps its move and reference but not its result.
    seen.clear();
    for e in &mut out[start..] {
        if !seen.insert(e.0) {
            e.2 = None;
        }
        e.3 = part_of(&e.0);
    }
    let name = |tag| raw.header(tag).unwrap_or("").to_owned();
    Prepared::Game(GamePlies {
        info: GameInfo {
            address: 0,
            length: 0,
            white: name("White"),
            black: name("Black"),
            white_elo,
            black_elo,
            result: match result {
                GameResult::WhiteWins => KsfResult::WhiteWins,
                GameResult::BlackWins => KsfResult::BlackWins,
                GameResult::Draw => KsfResult::Draw,
                _ => KsfResult::Unknown,
            },
        },
        offset: raw.offset,
        length: raw.length,
        entries: start..out.len(),
        uncodable,
        unencodable,
    })
}

/// Accumulates games into book elements.
#[derive(Debug)]
pub struct Builder {
    header: Header,
    /// The position table in parts ([`PartedTable`]); a batch of games is
    /// counted into all parts at once, each part taking the batch's plies in game order, so
    /// that every position sees its games in input order (its first source, the order of its
    /// moves and links are the ones counting game by game gives).
    positions: PartedTable<Key, Acc>,
    sources: Sources,
    first_source: usize,
    stats: BuildStats,
    spill: Option<Spill>,
    spill_error: Option<Error>,
    split_size: u64,
}

/// Bytes of memory a position of the table is counted for (key, accumulator, hash-table
/// slot and small vectors, measured on the gnuchess book: 3.3 GB for 7.8 M positions with
/// every copy of the in-memory write, about 250 for the table alone).
const BYTES_PER_POSITION: usize = 256;

/// Bytes of memory a merged position takes as a key and its accumulator.
const RECORD_BYTES: usize = 128;

/// Bytes of memory a merged position takes as an encoded element and its end (28 bytes on
/// average for the gnuchess book; more with game references).
const ELEMENT_BYTES: usize = 48;

/// Sorted runs of positions written to anonymous temporary files when the table passes the
/// memory limit ([`BuildOptions::memory_limit`]).
#[derive(Debug)]
struct Spill {
    max_positions: usize,
    /// The limit in bytes (what the merge of the runs may hold at once).
    memory: usize,
    runs: chessfmt_files::runs::Runs<Spilled>,
    /// The table's entries being sorted into a run: kept between spills, so that each
    /// spill fills memory already in use instead of faulting in fresh pages.
    sorting: Vec<Spilled>,
}

impl Builder {
    /// An empty builder (see [`BuildOptions`]).
    pub fn new(options: BuildOptions) -> Builder {
        let mut b = Builder {
            header: options.header,
            positions: PartedTable::new(),
            sources: Sources::default(),
            first_source: options.first_source,
            stats: BuildStats::default(),
            spill: None,
            spill_error: None,
            split_size: options.split_size,
        };
        if let Some(m) = &options.memory_limit {
            b.limit_memory(m.bytes, &m.dir);
        }
        b
    }

    /// Puts a builder under a memory limit (see [`BuildOptions::memory_limit`]).
    fn limit_memory(&mut self, limit: usize, dir: &Path) {
        self.spill = Some(Spill {
            max_positions: (limit / BYTES_PER_POSITION).max(1),
            memory: limit,
            runs: chessfmt_files::runs::Runs::new(dir),
            sorting: Vec::new(),
        });
    }

    /// The whole table in memory (spilled runs read back), the sources and the counts.
    pub(crate) fn into_parts_in_memory(
        mut self,
    ) -> Result<(HashMap<Key, Acc>, Sources, BuildStats), Error> {
        self.unspill()?;
        Ok(self.into_parts())
    }

    /// Every position with its accumulated data, in key order, to `sink` (merged from the
    /// spilled runs and the table); then the sources and the counts.
    pub(crate) fn into_sorted_changes(
        mut self,
        sink: impl FnMut(Key, Acc) -> Result<(), Error> + Send,
    ) -> Result<(Sources, BuildStats), Error> {
        self.drain_sorted(sink)?;
        Ok((self.sources, self.stats))
    }

    /// Empties the table and the spilled runs into `sink`, merged, in key order.
    fn drain_sorted(
        &mut self,
        mut sink: impl FnMut(Key, Acc) -> Result<(), Error> + Send,
    ) -> Result<(), Error> {
        self.drain_sorted_folded(
            RECORD_BYTES,
            |range: &mut Vec<(Key, Acc)>, key, acc| range.push((key, acc)),
            |range| range.into_iter().try_for_each(|(key, acc)| sink(key, acc)),
        )
    }

    /// Empties the table and the spilled runs, merged in key order: the positions of each
    /// range of keys folded into a `T` by `fold`, on the pool, and the ranges' `T`s handed to
    /// `sink` in key order ([`Runs::merge_in_ranges`](chessfmt_files::runs::Runs)). `bytes`
    /// is what a position takes in a `T`: the ranges in flight hold the memory limit.
    fn drain_sorted_folded<T: Default + Send>(
        &mut self,
        bytes: usize,
        fold: impl Fn(&mut T, Key, Acc) + Sync,
        mut sink: impl FnMut(T) -> Result<(), Error> + Send,
    ) -> Result<(), Error> {
        use chessfmt_files::runs::{MergeError, RangeMerge, Runs};
        let (runs, limit, mut last) = match self.spill.take() {
            Some(s) => (s.runs, s.memory, s.sorting),
            // No limit (a growth held in memory): ranges as large as a merge cuts them.
            None => (Runs::new("."), usize::MAX, Vec::new()),
        };
        // The last entries go to the spills' list; the table's memory is given back.
        let mut table = std::mem::take(&mut self.positions);
        table.drain_entries_into(&mut last, Spilled);
        drop(table);
        let dir = runs.dir().to_path_buf();
        runs.merge_in_ranges(
            last,
            RangeMerge::within(limit, bytes),
            Spilled::absorb,
            |t: &mut T, s| fold(t, s.0, s.1),
            |t| sink(t).map_err(MergeError::Sink),
        )
        .map_err(|e| e.into_error(|e| Error::io(&dir, e)))
    }

    /// Writes the table, sorted, as a run when it is over the limit.
    fn spill_if_full(&mut self) -> Result<(), Error> {
        let Some(spill) = &mut self.spill else {
            return Ok(());
        };
        if self.positions.len() < spill.max_positions {
            return Ok(());
        }
        // The table is filled to the same size again: its parts keep their room, and so
        // does the list its entries are sorted in.
        let sorted = &mut spill.sorting;
        self.positions.drain_entries_into(sorted, Spilled);
        sorted.par_sort_unstable_by(|a, b| crate::raw::cmp_keys(&a.0, &b.0));
        let written = spill.runs.write_sorted(sorted);
        sorted.clear();
        written.map_err(|e| Error::io(spill.runs.dir(), e))
    }

    /// The header the builder follows.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Counts so far.
    pub fn stats(&self) -> &BuildStats {
        &self.stats
    }

    /// Number of distinct positions so far.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether no position was added.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Starts a new source (a PGN file): its games are referenced from it.
    pub fn begin_source(&mut self, address: impl Into<String>) {
        self.sources.sources.push(Source {
            source_type: SOURCE_PGN,
            is_bad: 0,
            address: address.into(),
            games: Vec::new(),
        });
    }

    /// Adds games (in order; replayed in parallel on the current rayon pool).
    pub fn add_games(&mut self, games: &[RawGame]) {
        let header = self.header.clone();
        let runs: Vec<PreparedRun> = games
            .par_chunks(RUN_GAMES)
            .map(|run| PreparedRun::of(run, &header))
            .collect();
        self.add_prepared(runs);
    }

    /// Adds one game (replayed here; [`Builder::add_pgn`] and [`Builder::add_games`] replay
    /// in parallel).
    pub fn add_game(&mut self, game: &RawGame) {
        let run = PreparedRun::of(std::slice::from_ref(game), &self.header);
        self.add_prepared(vec![run]);
    }

    /// Counts prepared games in order: a run of games is counted at once (see
    /// [`Builder::count_games`]), as many as may add positions without passing the memory
    /// limit by more than a few thousand, then the table is spilled if full.
    fn add_prepared(&mut self, mut runs: Vec<PreparedRun>) {
        let prepared: Vec<Vec<Prepared>> = runs
            .iter_mut()
            .map(|r| std::mem::take(&mut r.games))
            .collect();
        let mut games: Vec<Counted> = Vec::new();
        let mut plies = 0;
        for (r, prepared) in prepared.into_iter().enumerate() {
            for p in prepared {
                self.stats.games_read += 1;
                match p {
                    Prepared::Game(g) => {
                        let entries = g.entries.clone();
                        let game_ref = self.register(g);
                        plies += entries.len();
                        games.push((r, entries, game_ref));
                        if plies >= self.room() {
                            self.count_games(&runs, std::mem::take(&mut games));
                            plies = 0;
                        }
                    }
                    Prepared::Filtered => self.stats.games_filtered += 1,
                    Prepared::NoResult => self.stats.games_without_result += 1,
                    Prepared::Error(e) => self.stats.skipped.record(e),
                }
            }
        }
        self.count_games(&runs, games);
    }

    /// New positions the table may take before it is checked against the memory limit
    /// (each counted ply adds at most one): unlimited without a limit, at least 4,096.
    fn room(&self) -> usize {
        match &self.spill {
            Some(s) => s.max_positions.saturating_sub(self.len()).max(4096),
            None => usize::MAX,
        }
    }

    /// Adds every game of a PGN input — a stream, plain or compressed, or bytes in memory,
    /// cut into games and tokenised in parallel ([`chessfmt_pgn::PgnBytes`]) — to the current
    /// source (begun by [`Builder::begin_source`]; one named `-` when none was); `progress`
    /// gets the number of games read so far.
    ///
    /// Returns the games of this input that were left out (not replayable, unreadable, cut
    /// off by the end of the input: see [`PgnReader`]); they are also added to
    /// [`BuildStats::skipped`]. Only I/O errors end the call with an error.
    pub fn add_pgn<'a, R: Read + Send>(
        &mut self,
        input: impl Into<PgnInput<'a, R>>,
        mut progress: impl FnMut(u64),
    ) -> Result<SkipStats, Error> {
        if self.sources.sources.is_empty() {
            self.begin_source("-");
        }
        let before = std::mem::take(&mut self.stats.skipped);
        let result = self.add_pgn_counted(input.into(), &mut progress);
        let mine = std::mem::replace(&mut self.stats.skipped, before);
        self.stats.skipped.merge(mine.clone());
        result.map(|()| mine)
    }

    /// Adds every game of a PGN file (plain or compressed) as a new source, recorded under
    /// its [`source_address`]: [`Builder::begin_source`] and [`Builder::add_pgn`].
    pub fn add_pgn_file(
        &mut self,
        path: impl AsRef<Path>,
        progress: impl FnMut(u64),
    ) -> Result<SkipStats, Error> {
        let path = path.as_ref();
        let reader = PgnReader::open(path).map_err(|e| Error::io(path, e))?;
        self.begin_source(source_address(path));
        self.add_pgn(reader, progress)
    }

    fn add_pgn_counted<R: Read + Send>(
        &mut self,
        input: PgnInput<'_, R>,
        progress: &mut impl FnMut(u64),
    ) -> Result<(), Error> {
        // I/O errors name the source being read.
        let source = self
            .sources
            .sources
            .last()
            .map_or_else(|| "-".to_string(), |s| s.address.clone());
        let path = Path::new(&source);
        // Moves past the header's ply limit are not counted: they are not read either.
        let reader = input
            .with_header_filter(|name| {
                chessfmt_pgn::essential_header(name)
                    || [&b"White"[..], b"Black", b"WhiteElo", b"BlackElo"]
                        .iter()
                        .any(|h| h.eq_ignore_ascii_case(name))
            })
            .with_ply_limit(plies_of(&self.header));
        let header = self.header.clone();
        let read_before = self.stats.games_read;
        let skipped = chessfmt_pgn::replay_runs_in_order(
            reader,
            2048,
            RUN_GAMES,
            |games| PreparedRun::of(games, &header),
            |batch| {
                self.add_prepared(batch);
                match self.spill_error {
                    Some(_) => ControlFlow::Break(()),
                    None => ControlFlow::Continue(()),
                }
            },
            |read| progress(read_before + read),
        )
        .map_err(|e| Error::io(path, e))?;
        if let Some(e) = self.spill_error.take() {
            return Err(e);
        }
        // Games the reader itself skipped (unreadable, cut off).
        self.stats.games_read += skipped.total();
        self.stats.skipped.merge(skipped);
        Ok(())
    }

    /// Counts a game's statistics and records it in the sources (when the book stores
    /// games); returns its reference. (Its entries are counted by [`Builder::count_games`].)
    fn register(&mut self, g: GamePlies) -> Option<SourceRef> {
        self.stats.games_added += 1;
        self.stats.uncodable_moves += g.uncodable;
        self.stats.unencodable_positions += g.unencodable;
        if !self.header.stores_games() {
            return None;
        }
        if self.sources.sources.is_empty() {
            self.begin_source("");
        }
        let fits = |v: u64| u32::try_from(v).ok();
        match (fits(g.offset), fits(g.length)) {
            (Some(address), Some(length)) => {
                let s = self.sources.sources.len() - 1;
                let list = &mut self.sources.sources[s].games;
                list.push(GameInfo {
                    address,
                    length,
                    ..g.info
                });
                Some(SourceRef {
                    source: (self.first_source + s) as u16,
                    game: (list.len() - 1) as u32,
                })
            }
            _ => {
                self.stats.unreferenced_games += 1;
                None
            }
        }
    }

    /// Counts the positions of `games` (each game's entries and reference, in order) into
    /// the table, all parts at once; then spills the table if it is full.
    fn count_games(&mut self, runs: &[PreparedRun], games: Vec<Counted>) {
        if games.is_empty() {
            return;
        }
        let entries_of = |(r, range, _): &Counted| &runs[*r].entries[range.clone()];
        // Each part takes its plies in game order.
        let plies = games.iter().enumerate().flat_map(|(n, game)| {
            entries_of(game)
                .iter()
                .enumerate()
                .map(move |(i, e)| (e.3, n as u32, i as u32))
        });
        self.positions.update(plies, |part, n, i| {
            let game = &games[n as usize];
            let (entries, game_ref) = (entries_of(game), &game.2);
            let i = i as usize;
            let (key, code, outcome, _) = entries[i];
            let acc = part.entry(key).or_default();
            match outcome {
                Some(Outcome::Win) => acc.wins += 1,
                Some(Outcome::Draw) => acc.draws += 1,
                Some(Outcome::Loss) => acc.losses += 1,
                None => {}
            }
            if code != NO_MOVE {
                acc.moves.add_new(code);
            }
            if let Some(r) = *game_ref {
                acc.source.get_or_insert(r);
                if i + 1 == entries.len() {
                    acc.links.push(r);
                }
            }
        });
        if let Err(e) = self.spill_if_full() {
            self.spill_error.get_or_insert(e);
        }
    }

    /// The sources collected so far (one per [`Builder::begin_source`]).
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    pub(crate) fn into_parts(self) -> (HashMap<Key, Acc>, Sources, BuildStats) {
        let table = self.positions.into_entries().into_iter().collect();
        (table, self.sources, self.stats)
    }

    /// Writes the book at `path` (any of its files or its base name; committed as one set)
    /// and returns the counts. Refuses to replace existing files unless `overwrite`. Without
    /// the `links` flag the elements go to the files as they come out of the merge of the
    /// spilled runs ([`crate::write::StreamWriter`]); with it, through [`Builder::finish`].
    pub fn save(
        mut self,
        path: impl AsRef<Path>,
        overwrite: bool,
    ) -> Result<(BuildStats, crate::write::WriteStats), Error> {
        let paths = crate::read::BookPaths::from_any(path.as_ref());
        if self.header.links != 0 || self.spill.as_ref().is_none_or(|s| s.runs.is_empty()) {
            let (mut built, stats) = self.finish()?;
            let w = built.save(paths.base(), overwrite)?;
            return Ok((stats, w));
        }
        let mut writer =
            crate::write::StreamWriter::new(&paths, &self.header, self.split_size, overwrite)?;
        // The elements are fitted and encoded on the pool, range by range; this thread
        // only packs their bytes into blocks.
        let games = self.header.stores_games();
        self.drain_sorted_folded(
            ELEMENT_BYTES,
            |range: &mut crate::write::EncodedElements, key, acc| {
                range.push(element_of(key, acc), games);
            },
            |range| writer.push_encoded(&range),
        )?;
        let sources = self.header.stores_games().then_some(&self.sources);
        let w = writer.finish(sources)?;
        Ok((self.stats, w))
    }

    /// Reads the spilled runs back into the table (for the links pass, which needs every
    /// position at once).
    fn unspill(&mut self) -> Result<(), Error> {
        if self.spill.as_ref().is_none_or(|s| s.runs.is_empty()) {
            self.spill = None;
            return Ok(());
        }
        let mut table = PartedTable::new();
        self.drain_sorted(|key, acc| {
            table.part_mut(part_of(&key)).insert(key, acc);
            Ok(())
        })?;
        self.positions = table;
        Ok(())
    }

    /// The book in memory (the header, the elements sorted by key, the sources when the book
    /// stores games) and the counts. With the header's `links` flag, the links pass runs
    /// first. A builder under a memory limit reads its spilled runs back here (an error when
    /// they cannot be read); [`Builder::save`] streams them instead.
    pub fn finish(mut self) -> Result<(Built, BuildStats), Error> {
        if let Some(e) = self.spill_error.take() {
            return Err(e);
        }
        self.unspill()?;
        let header = self.header.clone();
        let (sources, mut stats) = (self.sources, self.stats);
        let mut elements = sorted_elements(self.positions.into_entries());
        if header.links != 0 {
            stats.linked_moves += link(&mut elements);
        }
        let sources = header.stores_games().then_some(sources);
        let built = Built {
            header,
            elements,
            sources,
            split_size: self.split_size,
        };
        Ok((built, stats))
    }
}

/// The elements of `positions`, sorted by key.
fn sorted_elements(positions: Vec<(Key, Acc)>) -> Vec<Element> {
    let mut elements: Vec<Element> = positions
        .into_par_iter()
        .map(|(k, a)| element_of(k, a))
        .collect();
    elements.par_sort_unstable_by(|a, b| a.key.cmp(&b.key));
    elements
}

/// The links pass: every element gets the legal moves that lead to another element of the
/// book (sorted `elements`), appended in code order. Returns the number of moves added.
pub fn link(elements: &mut [Element]) -> u64 {
    let keys: Vec<Key> = elements.iter().map(|e| e.key).collect();
    let added: Vec<Vec<u8>> = elements
        .par_iter()
        .map(|e| {
            let Some(pos) = position::position_of(&e.key) else {
                return Vec::new();
            };
            let mut codes: Vec<u8> = pos
                .legal_moves()
                .into_iter()
                .filter_map(|m| {
                    let code = moves::encode(&pos, m)?;
                    if e.moves.contains(&code) {
                        return None;
                    }
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    let key = position::key_of(&child)?;
                    keys.binary_search(&key).is_ok().then_some(code)
                })
                .collect();
            codes.sort_unstable();
            codes.dedup();
            codes
        })
        .collect();
    let mut n = 0;
    for (e, codes) in elements.iter_mut().zip(added) {
        n += codes.len() as u64;
        e.moves.extend(codes);
    }
    n
}

/// A position as a record of the spilled runs.
mod spilled;
use spilled::Spilled;

#[cfg(test)]
mod tests {
    use super::*;

    /// A book saved from many runs merged in parallel, its elements encoded range by range
    /// on the pool, is the book built in memory (with and without game references).
    #[test]
    fn runs_merged_in_parallel_save_the_same_book() {
        let pgn = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/corpus/polyglot/pgn/lichess-2017-09-sample1000.pgn"
        );
        if !Path::new(pgn).exists() {
            // Missing data fails while ../shared is present: a test never passes by skipping.
            let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");
            assert!(!Path::new(shared).is_dir(), "{pgn} missing");
            return;
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for games in [false, true] {
            let header = Header {
                element_type: u8::from(games),
                ..Header::default()
            };
            let dir = tempfile::tempdir().unwrap();
            let whole = {
                let mut b = Builder::new(BuildOptions::default().with_header(header.clone()));
                b.add_pgn_file(pgn, |_| {}).unwrap();
                let (mut built, _) = b.finish().unwrap();
                built.save(dir.path().join("whole"), false).unwrap();
                std::fs::read(dir.path().join("whole_0.kob")).unwrap()
            };
            let (spilled, runs) = pool.install(|| {
                let mut b = Builder::new(
                    BuildOptions::default()
                        .with_header(header.clone())
                        .with_memory_limit(Some(MemoryLimit::new(1 << 30, dir.path()))),
                );
                // Runs of a few thousand positions, merged with the memory of a large
                // limit: in parallel.
                b.spill.as_mut().unwrap().max_positions = 4096;
                b.add_pgn_file(pgn, |_| {}).unwrap();
                let runs = b.spill.as_ref().unwrap().runs.len();
                b.save(dir.path().join("spilled"), false).unwrap();
                (
                    std::fs::read(dir.path().join("spilled_0.kob")).unwrap(),
                    runs,
                )
            });
            assert!(runs > 4, "{runs} runs");
            assert!(spilled == whole, "games={games}: bytes differ");
        }
    }
}
