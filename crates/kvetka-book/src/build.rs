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
    entries: Vec<Entry>,
    uncodable: u64,
    unencodable: u64,
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

fn prepare(raw: &RawGame, header: &Header) -> Prepared {
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
    let plies = if header.max_move == MAX_MOVE_ALL {
        usize::MAX
    } else {
        usize::from(header.max_move)
    };
    let mut entries = Vec::with_capacity(raw.sans.len().min(plies) + 1);
    let mut uncodable = 0;
    let mut unencodable = 0;
    let replay = raw.replay(plies, |pos, m| {
        let code = moves::encode_real(pos, m).unwrap_or_else(|| {
            uncodable += 1;
            NO_MOVE
        });
        match position::key_of(pos) {
            Some(key) => entries.push((key, code, outcome(pos.turn()))),
            None => unencodable += 1,
        }
        ControlFlow::Continue(())
    });
    // The position after the last move (every move is visited: none breaks).
    let last = match replay {
        Ok(r) => r.end,
        Err(e) => return Prepared::Error(e),
    };
    match position::key_of(&last) {
        Some(key) => entries.push((key, NO_MOVE, outcome(last.turn()))),
        None => unencodable += 1,
    }
    // A repeated position keeps its move and reference but not its result.
    let mut seen: HashSet<Key> = HashSet::with_capacity(entries.len());
    let entries = entries
        .into_iter()
        .map(|(key, code, outcome)| {
            let first = seen.insert(key);
            (key, code, first.then_some(outcome), part_of(&key))
        })
        .collect();
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
        entries,
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

/// Sorted runs of positions written to anonymous temporary files when the table passes the
/// memory limit ([`BuildOptions::memory_limit`]).
#[derive(Debug)]
struct Spill {
    max_positions: usize,
    dir: std::path::PathBuf,
    runs: Vec<run::Run>,
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
            dir: dir.to_path_buf(),
            runs: Vec::new(),
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
        sink: impl FnMut(Key, Acc) -> Result<(), Error> + Send,
    ) -> Result<(), Error> {
        let mut last = self.positions.take_entries();
        last.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let (runs, dir, limit) = match self.spill.take() {
            Some(s) => (s.runs, s.dir, s.max_positions * BYTES_PER_POSITION),
            None => (Vec::new(), std::path::PathBuf::from("."), 0),
        };
        // Ranges merged at once: as many as the memory limit holds twice over (those being
        // merged and those being written), at most two a thread.
        let width = (limit / (2 * run::RANGE_BYTES)).min(2 * rayon::current_num_threads());
        #[cfg(any(unix, windows))]
        if runs.len() > 1 && width >= 2 {
            return run::merge_parallel(runs, last, run::RANGE_SAMPLES, width, sink)
                .map_err(|e| e.into_error(&dir));
        }
        run::merge(runs, last, sink).map_err(|e| e.into_error(&dir))
    }

    /// Writes the table, sorted, as a run when it is over the limit.
    fn spill_if_full(&mut self) -> Result<(), Error> {
        let Some(spill) = &mut self.spill else {
            return Ok(());
        };
        if self.positions.len() < spill.max_positions {
            return Ok(());
        }
        // The table is filled to the same size again: its parts keep their room.
        let mut sorted = self.positions.drain_entries();
        sorted.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let io = |e| Error::io(&spill.dir, e);
        let file = tempfile::tempfile_in(&spill.dir).map_err(io)?;
        spill.runs.push(run::write_run(file, &sorted).map_err(io)?);
        Ok(())
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
        let prepared: Vec<Prepared> = games.par_iter().map(|g| prepare(g, &header)).collect();
        self.add_prepared(prepared);
    }

    /// Adds one game (replayed here; [`Builder::add_pgn`] and [`Builder::add_games`] replay
    /// in parallel).
    pub fn add_game(&mut self, game: &RawGame) {
        let prepared = prepare(game, &self.header);
        self.add_prepared(vec![prepared]);
    }

    /// Counts prepared games in order: a run of games is counted at once (see
    /// [`Builder::count_games`]), as many as may add positions without passing the memory
    /// limit by more than a few thousand, then the table is spilled if full.
    fn add_prepared(&mut self, prepared: Vec<Prepared>) {
        let mut run: Vec<(Vec<Entry>, Option<SourceRef>)> = Vec::new();
        let mut plies = 0;
        for p in prepared {
            self.stats.games_read += 1;
            match p {
                Prepared::Game(mut g) => {
                    let entries = std::mem::take(&mut g.entries);
                    let game_ref = self.register(g);
                    plies += entries.len();
                    run.push((entries, game_ref));
                    if plies >= self.room() {
                        self.count_games(std::mem::take(&mut run));
                        plies = 0;
                    }
                }
                Prepared::Filtered => self.stats.games_filtered += 1,
                Prepared::NoResult => self.stats.games_without_result += 1,
                Prepared::Error(e) => self.stats.skipped.record(e),
            }
        }
        self.count_games(run);
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
        let reader = input.with_header_filter(|name| {
            chessfmt_pgn::essential_header(name)
                || [&b"White"[..], b"Black", b"WhiteElo", b"BlackElo"]
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(name))
        });
        let header = self.header.clone();
        let read_before = self.stats.games_read;
        let skipped = chessfmt_pgn::replay_in_order(
            reader,
            2048,
            |raw| prepare(raw, &header),
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
    fn count_games(&mut self, games: Vec<(Vec<Entry>, Option<SourceRef>)>) {
        if games.is_empty() {
            return;
        }
        // Each part takes its plies in game order.
        let plies = games.iter().enumerate().flat_map(|(n, (entries, _))| {
            entries
                .iter()
                .enumerate()
                .map(move |(i, e)| (e.3, n as u32, i as u32))
        });
        self.positions.update(plies, |part, n, i| {
            let (entries, game_ref) = &games[n as usize];
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
        self.drain_sorted(|key, acc| writer.push(element_of(key, acc)))?;
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

/// Sorted runs of `(key, accumulator)` on disk, and their merge.
mod run {
    use std::{
        cmp::Reverse,
        collections::BinaryHeap,
        fs::File,
        io::{self, BufReader, Read, Seek, Write},
    };

    use super::Acc;
    use crate::{
        Error,
        raw::{KEY_LEN, Key, SourceRef},
    };

    /// An error of the merge: of the runs' files, or of what the merged elements went to.
    pub(super) enum MergeError {
        Io(io::Error),
        Sink(Error),
    }

    impl MergeError {
        pub(super) fn into_error(self, dir: &std::path::Path) -> Error {
            match self {
                MergeError::Io(e) => Error::io(dir, e),
                MergeError::Sink(e) => e,
            }
        }
    }

    fn put_ref(out: &mut Vec<u8>, r: SourceRef) {
        out.extend_from_slice(&r.source.to_le_bytes());
        out.extend_from_slice(&r.game.to_le_bytes());
    }

    /// A spilled run: its file and a sparse index (the key and byte offset of every
    /// [`INDEX_EVERY`]-th record), so that a merge of one range of keys can start reading the
    /// run near the range.
    #[derive(Debug)]
    pub(super) struct Run {
        pub(super) file: File,
        pub(super) index: Vec<(Key, u64)>,
    }

    /// Records between two entries of a run's index.
    pub(super) const INDEX_EVERY: usize = 256;

    /// Records encoded by one task of [`write_run`] (a whole number of index intervals).
    const BLOCK: usize = 64 * INDEX_EVERY;

    /// A block of [`write_run`]: its bytes and its index entries (offsets within the block).
    type EncodedBlock = (Vec<u8>, Vec<(Key, u64)>);

    /// Writes `sorted` to `file` as a run, with its index. The records are encoded into
    /// blocks of bytes on every core, a few blocks a thread at a time (each block starts an
    /// index interval: its entries' offsets are the block's own plus the bytes before it),
    /// and the blocks written in order.
    pub(super) fn write_run(file: File, sorted: &[(Key, Acc)]) -> io::Result<Run> {
        use rayon::prelude::*;
        let group = 2 * BLOCK * rayon::current_num_threads().max(1);
        let mut w = io::BufWriter::with_capacity(1 << 20, file);
        let (mut index, mut at) = (Vec::new(), 0u64);
        for records in sorted.chunks(group) {
            let blocks: Vec<EncodedBlock> = records
                .par_chunks(BLOCK)
                .map(|block| {
                    let mut out = Vec::with_capacity(block.len() * 64);
                    let mut index = Vec::with_capacity(block.len().div_ceil(INDEX_EVERY));
                    for (n, (k, a)) in block.iter().enumerate() {
                        if n % INDEX_EVERY == 0 {
                            index.push((*k, out.len() as u64));
                        }
                        encode(&mut out, k, a);
                    }
                    (out, index)
                })
                .collect();
            for (bytes, block_index) in blocks {
                index.extend(block_index.into_iter().map(|(k, o)| (k, at + o)));
                w.write_all(&bytes)?;
                at += bytes.len() as u64;
            }
        }
        let file = w.into_inner().map_err(|e| e.into_error())?;
        Ok(Run { file, index })
    }

    /// Appends one record of a run (what [`read`] reads back).
    fn encode(out: &mut Vec<u8>, key: &Key, a: &Acc) {
        out.extend_from_slice(key);
        for n in [a.wins, a.draws, a.losses] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let moves = a.moves.as_slice();
        out.extend_from_slice(&(moves.len() as u32).to_le_bytes());
        out.extend_from_slice(moves);
        match a.source {
            Some(r) => {
                out.push(1);
                put_ref(out, r);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(a.links.len() as u32).to_le_bytes());
        for &r in &a.links {
            put_ref(out, r);
        }
    }

    fn take<const N: usize>(r: &mut impl Read) -> io::Result<[u8; N]> {
        let mut b = [0; N];
        r.read_exact(&mut b)?;
        Ok(b)
    }

    fn get_ref(r: &mut impl Read) -> io::Result<SourceRef> {
        Ok(SourceRef {
            source: u16::from_le_bytes(take(r)?),
            game: u32::from_le_bytes(take(r)?),
        })
    }

    /// The next record of a run (our own file, written just before: its lengths are ours).
    fn read(r: &mut impl Read) -> io::Result<Option<(Key, Acc)>> {
        let mut key = [0u8; KEY_LEN];
        match r.read_exact(&mut key) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let wins = u64::from_le_bytes(take(r)?);
        let draws = u64::from_le_bytes(take(r)?);
        let losses = u64::from_le_bytes(take(r)?);
        let n = u32::from_le_bytes(take(r)?) as usize;
        let moves = if n <= crate::accumulate::INLINE_CODES {
            let mut b = [0; crate::accumulate::INLINE_CODES];
            r.read_exact(&mut b[..n])?;
            crate::accumulate::Codes::from_slice(&b[..n])
        } else {
            let mut v = vec![0; n.min(1 << 16)];
            r.read_exact(&mut v)?;
            crate::accumulate::Codes::from_slice(&v)
        };
        let source = match take::<1>(r)?[0] {
            0 => None,
            _ => Some(get_ref(r)?),
        };
        let n = u32::from_le_bytes(take(r)?) as usize;
        let links = (0..n).map(|_| get_ref(r)).collect::<io::Result<Vec<_>>>()?;
        Ok(Some((
            key,
            Acc {
                wins,
                draws,
                losses,
                moves,
                source,
                links,
            },
        )))
    }

    /// Adds a later accumulator of the same position: what counting its games after the
    /// earlier ones would have given.
    fn absorb(a: &mut Acc, b: Acc) {
        a.wins += b.wins;
        a.draws += b.draws;
        a.losses += b.losses;
        a.moves.extend_new(&b.moves);
        if a.source.is_none() {
            a.source = b.source;
        }
        a.links.extend(b.links);
    }

    /// Merges the runs (in the order they were written) and `last` (the table at the end,
    /// sorted) by key; each position goes to `sink` once, in key order.
    pub(super) fn merge(
        runs: Vec<Run>,
        last: Vec<(Key, Acc)>,
        sink: impl FnMut(Key, Acc) -> Result<(), Error>,
    ) -> Result<(), MergeError> {
        let mut sources: Vec<Source<'_>> = Vec::new();
        for mut run in runs {
            run.file.rewind().map_err(MergeError::Io)?;
            let mut r = BufReader::with_capacity(1 << 20, run.file);
            sources.push(Box::new(std::iter::from_fn(move || {
                read(&mut r).transpose()
            })));
        }
        sources.push(Box::new(last.into_iter().map(Ok)));
        merge_sources(sources, sink)
    }

    /// A sorted source of a merge.
    type Source<'a> = Box<dyn Iterator<Item = io::Result<(Key, Acc)>> + Send + 'a>;

    /// Reads a file from a byte offset with positional reads, so that several readers share
    /// one file.
    #[cfg(any(unix, windows))]
    struct At<'a> {
        file: &'a File,
        pos: u64,
    }

    #[cfg(any(unix, windows))]
    impl Read for At<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            #[cfg(unix)]
            let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.pos)?;
            #[cfg(windows)]
            let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.pos)?;
            self.pos += n as u64;
            Ok(n)
        }
    }

    /// The records of `run` with keys in `lo..hi` (unbounded where `None`), read from the
    /// index entry before `lo`.
    #[cfg(any(unix, windows))]
    fn range_of(run: &Run, lo: Option<Key>, hi: Option<Key>) -> Source<'_> {
        let start = lo.map_or(0, |lo| {
            let i = run.index.partition_point(|(k, _)| *k < lo);
            i.checked_sub(1).map_or(0, |i| run.index[i].1)
        });
        let mut r = BufReader::with_capacity(
            1 << 13,
            At {
                file: &run.file,
                pos: start,
            },
        );
        let mut done = false;
        Box::new(std::iter::from_fn(move || {
            while !done {
                match read(&mut r) {
                    Ok(Some((k, _))) if lo.is_some_and(|lo| k < lo) => continue,
                    Ok(Some((k, a))) if hi.is_none_or(|hi| k < hi) => return Some(Ok((k, a))),
                    Ok(_) => done = true,
                    Err(e) => {
                        done = true;
                        return Some(Err(e));
                    }
                }
            }
            None
        }))
    }

    /// Index entries (of all runs together) a range of [`merge_parallel`] spans: about
    /// 65,536 records of the runs.
    pub(super) const RANGE_SAMPLES: usize = 256;

    /// Memory a merged range may take at most: its records (at most `RANGE_SAMPLES *
    /// INDEX_EVERY` positions, fewer when the runs share positions) at 128 bytes each.
    pub(super) const RANGE_BYTES: usize = RANGE_SAMPLES * INDEX_EVERY * 128;

    /// [`merge`] cut into ranges of keys merged in parallel, `width` at a time, each range's
    /// positions handed to `sink` in order (on this thread, while the next ranges are
    /// merged). The ranges are cut at keys of the runs' indexes, `samples` index entries a
    /// range.
    #[cfg(any(unix, windows))]
    pub(super) fn merge_parallel(
        runs: Vec<Run>,
        last: Vec<(Key, Acc)>,
        samples: usize,
        width: usize,
        mut sink: impl FnMut(Key, Acc) -> Result<(), Error> + Send,
    ) -> Result<(), MergeError> {
        let mut sample: Vec<Key> = runs
            .iter()
            .flat_map(|r| r.index.iter().map(|(k, _)| *k))
            .chain(last.iter().step_by(INDEX_EVERY).map(|(k, _)| *k))
            .collect();
        sample.sort_unstable();
        sample.dedup();
        let ranges = (sample.len() / samples.max(1)).max(1);
        let bounds: Vec<Key> = (1..ranges)
            .map(|i| sample[i * sample.len() / ranges])
            .collect();
        // The in-memory table, cut at the same keys.
        let mut lasts: Vec<Vec<(Key, Acc)>> = Vec::with_capacity(ranges);
        let mut rest = last.into_iter().peekable();
        for b in &bounds {
            let mut part = Vec::new();
            while let Some((k, a)) = rest.next_if(|(k, _)| k < b) {
                part.push((k, a));
            }
            lasts.push(part);
        }
        lasts.push(rest.collect());
        let merge_range = |i: usize,
                           last: Vec<(Key, Acc)>|
         -> Result<Vec<(Key, Acc)>, MergeError> {
            let (lo, hi) = (i.checked_sub(1).map(|j| bounds[j]), bounds.get(i).copied());
            let mut sources: Vec<Source<'_>> = runs.iter().map(|r| range_of(r, lo, hi)).collect();
            sources.push(Box::new(last.into_iter().map(Ok)));
            let mut out = Vec::new();
            merge_sources(sources, |k, a| {
                out.push((k, a));
                Ok(())
            })?;
            Ok(out)
        };
        let width = width.max(1);
        let mut pending: Vec<Vec<(Key, Acc)>> = Vec::new();
        let mut lasts = lasts.into_iter().enumerate();
        loop {
            let group: Vec<(usize, Vec<(Key, Acc)>)> = lasts.by_ref().take(width).collect();
            if group.is_empty() && pending.is_empty() {
                return Ok(());
            }
            let to_sink = std::mem::take(&mut pending);
            let (sunk, merged) = rayon::join(
                || -> Result<(), MergeError> {
                    for (k, a) in to_sink.into_iter().flatten() {
                        sink(k, a).map_err(MergeError::Sink)?;
                    }
                    Ok(())
                },
                || {
                    use rayon::prelude::*;
                    group
                        .into_par_iter()
                        .map(|(i, last)| merge_range(i, last))
                        .collect::<Result<Vec<_>, MergeError>>()
                },
            );
            sunk?;
            pending = merged?;
        }
    }

    /// Merges sorted sources (earlier sources' games first) by key; each position goes to
    /// `sink` once, in key order.
    fn merge_sources(
        mut sources: Vec<Source<'_>>,
        mut sink: impl FnMut(Key, Acc) -> Result<(), Error>,
    ) -> Result<(), MergeError> {
        // (key, run) smallest first: equal keys come out in run order, earlier games first.
        let mut heap = BinaryHeap::new();
        let mut heads: Vec<Option<Acc>> = Vec::with_capacity(sources.len());
        for (i, s) in sources.iter_mut().enumerate() {
            match s.next().transpose().map_err(MergeError::Io)? {
                Some((k, a)) => {
                    heap.push(Reverse((k, i)));
                    heads.push(Some(a));
                }
                None => heads.push(None),
            }
        }
        let mut current: Option<(Key, Acc)> = None;
        while let Some(Reverse((k, i))) = heap.pop() {
            let a = heads[i].take().expect("a head per heap entry");
            if let Some((k2, a2)) = sources[i].next().transpose().map_err(MergeError::Io)? {
                heap.push(Reverse((k2, i)));
                heads[i] = Some(a2);
            }
            match &mut current {
                Some((ck, ca)) if *ck == k => absorb(ca, a),
                _ => {
                    if let Some((ck, ca)) = current.replace((k, a)) {
                        sink(ck, ca).map_err(MergeError::Sink)?;
                    }
                }
            }
        }
        if let Some((ck, ca)) = current {
            sink(ck, ca).map_err(MergeError::Sink)?;
        }
        Ok(())
    }

    #[cfg(all(test, any(unix, windows)))]
    mod tests {
        use super::*;

        /// A run written in several blocks reads back whole, and each index entry points at
        /// the record with its key (the block offsets add up).
        #[test]
        fn run_index_points_at_its_records() {
            let n = 2 * BLOCK + 777;
            let sorted: Vec<(Key, Acc)> = (0..n as u32)
                .map(|i| {
                    let mut key = [0u8; KEY_LEN];
                    key[..4].copy_from_slice(&i.to_be_bytes());
                    // Records of different lengths.
                    let moves: Vec<u8> = (0..i % 17).map(|c| c as u8).collect();
                    let acc = Acc {
                        wins: u64::from(i),
                        moves: crate::accumulate::Codes::from_slice(&moves),
                        ..Acc::default()
                    };
                    (key, acc)
                })
                .collect();
            let run = write_run(tempfile::tempfile().unwrap(), &sorted).unwrap();
            assert_eq!(run.index.len(), n.div_ceil(INDEX_EVERY));
            for (j, (key, offset)) in run.index.iter().enumerate() {
                let mut r = At {
                    file: &run.file,
                    pos: *offset,
                };
                let (k, a) = read(&mut r).unwrap().unwrap();
                assert_eq!((&k, &a), (key, &sorted[j * INDEX_EVERY].1));
            }
            let mut all = Vec::new();
            let mut r = BufReader::new(At {
                file: &run.file,
                pos: 0,
            });
            while let Some(e) = read(&mut r).unwrap() {
                all.push(e);
            }
            assert!(all == sorted);
        }

        /// The ranges merged in parallel give what one merge gives: every position once, in
        /// key order, each combined from the runs in run order.
        #[test]
        fn parallel_merge_is_the_merge() {
            let mut x = chess_core::fuzzing::XorShift::new(0x2545_f491_4f6c_dd1d);
            let mut next = move || x.next_u64();
            let mut table = || -> Vec<(Key, Acc)> {
                let mut t: Vec<(Key, Acc)> = (0..3000)
                    .map(|_| {
                        let mut key = [0u8; KEY_LEN];
                        // Few distinct keys: the runs share most positions.
                        key[..2].copy_from_slice(&((next() % 5000) as u16).to_be_bytes());
                        let moves: Vec<u8> =
                            (0..next() % 20).map(|_| (next() % 40) as u8).collect();
                        let acc = Acc {
                            wins: next() % 9,
                            draws: next() % 9,
                            losses: next() % 9,
                            moves: crate::accumulate::Codes::from_slice(&moves),
                            source: (next() % 2 == 0).then(|| SourceRef {
                                source: (next() % 3) as u16,
                                game: (next() % 100) as u32,
                            }),
                            links: (0..next() % 3)
                                .map(|_| SourceRef {
                                    source: 0,
                                    game: (next() % 100) as u32,
                                })
                                .collect(),
                        };
                        (key, acc)
                    })
                    .collect();
                t.sort_by_key(|e| e.0);
                t.dedup_by(|a, b| a.0 == b.0);
                t
            };
            let tables: Vec<Vec<(Key, Acc)>> = (0..8).map(|_| table()).collect();
            let last = table();
            let runs = |tables: &[Vec<(Key, Acc)>]| -> Vec<Run> {
                tables
                    .iter()
                    .map(|t| write_run(tempfile::tempfile().unwrap(), t).unwrap())
                    .collect()
            };
            let mut one = Vec::new();
            merge(runs(&tables), last.clone(), |k, a| {
                one.push((k, a));
                Ok(())
            })
            .ok()
            .unwrap();
            assert!(one.windows(2).all(|w| w[0].0 < w[1].0));
            for samples in [1, 3, 1024] {
                let mut many = Vec::new();
                merge_parallel(runs(&tables), last.clone(), samples, 3, |k, a| {
                    many.push((k, a));
                    Ok(())
                })
                .ok()
                .unwrap();
                assert!(many == one, "{samples} samples a range");
            }
        }
    }
}
