//! The map: PGN games counted into the table, in parallel, in bounded memory.
//!
//! Every ply below `max_ply` of every good game counts one play of (position, move): its
//! result in White's view, the players' ratings, the game's year and where it was first seen.
//! Games are replayed on the caller's rayon pool and counted in input order into a table in
//! parts (each part by one task), so the table never depends on the number of threads. With a
//! memory limit, the table is written as a sorted run to a temporary file whenever it grows
//! past the limit, and the runs are merged at the end ([`crate::merge()`]): the same table.

use std::{
    fs::File,
    io::{self, BufReader, BufWriter, Read, Write},
    ops::ControlFlow,
    path::Path,
};

use chess_core::{book::MemoryLimit, polyglot_key};
use chessfmt_pgn::{
    GameError, GameResult, PgnInput, RawGame, SkipStats,
    parts::{PartedTable, part_of},
};
use shakmaty::{EnPassantMode, Position, zobrist::Zobrist64};

use crate::{
    Counts, CsvReader, CsvWriter, Error, Row,
    position::PackedPosition,
    row::{Outcome, Play, SmallCounts, pack_uci, unpack_uci},
    table::{TableFormat, TableWriter},
};

/// Options of a [`Tally`].
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct TallyOptions {
    /// Only the first `max_ply` half-moves of each game count (default 1024, as a Polyglot
    /// build).
    pub max_ply: Option<usize>,
    /// Keep memory near this ceiling by writing sorted runs to temporary files (none by
    /// default).
    pub memory_limit: Option<MemoryLimit>,
    /// The number of this part when a collection is counted in parts (0 by default): moves
    /// first seen in a lower part come first among equals ([`Counts::first_seen`]), so parts
    /// numbered in input order give the order one tally of all the games gives.
    pub part: u16,
}

impl TallyOptions {
    /// The default `max_ply`.
    pub const MAX_PLY: usize = 1024;

    /// Counts only the first `plies` half-moves of each game.
    #[must_use]
    pub fn with_max_ply(mut self, plies: usize) -> Self {
        self.max_ply = Some(plies);
        self
    }

    /// Numbers this part of a collection counted in parts.
    #[must_use]
    pub fn with_part(mut self, part: u16) -> Self {
        self.part = part;
        self
    }

    /// Keeps memory near `limit`.
    #[must_use]
    pub fn with_memory_limit(mut self, limit: Option<MemoryLimit>) -> Self {
        self.memory_limit = limit;
        self
    }

    fn max_ply(&self) -> usize {
        self.max_ply.unwrap_or(Self::MAX_PLY)
    }
}

/// What a tally did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct TallyStats {
    /// Games read (counted and skipped).
    pub games_read: u64,
    /// Games left out, by reason.
    pub skipped: SkipStats,
    /// Plies counted.
    pub plies: u64,
    /// Rows of the finished table.
    pub rows: u64,
    /// Sorted runs written to temporary files (memory-limited tallies).
    pub runs: usize,
}

/// One ply of a replayed game.
#[derive(Debug, Clone, Copy)]
struct Ply {
    key: u64,
    position: PackedPosition,
    uci: u16,
    /// The ply's game in its run ([`ReplayedRun::games`]).
    game: u16,
}

/// A game as the table counts it (its plies are in its run).
#[derive(Debug, Clone)]
struct GameInfo {
    outcome: Outcome,
    white_elo: Option<u32>,
    black_elo: Option<u32>,
    year: Option<u16>,
    /// The game's number (0-based, in input order, across inputs).
    number: u64,
    /// Where its plies start in the run.
    first_ply: u32,
}

/// Games replayed a run at a time on the pool (see [`chessfmt_pgn::replay_runs_in_order`]):
/// the plies of all the run's games in one list, so that nothing is allocated per game (a
/// game's plies, freed on another thread than the one that made them, had the system
/// allocator's locks stall the other threads).
#[derive(Debug, Default)]
struct ReplayedRun {
    plies: Vec<Ply>,
    /// The good games, in order.
    games: Vec<GameInfo>,
    /// The errors of the games left out, in order.
    errors: Vec<GameError>,
}

/// Games a run replays.
const RUN_GAMES: usize = 256;

/// A position's moves and counts: the first move inline (most positions of a table have one
/// move: no allocation for them), the others in a vector.
#[derive(Debug, Clone)]
struct Entry {
    position: PackedPosition,
    first: (u16, SmallCounts),
    more: Vec<(u16, SmallCounts)>,
}

impl Default for Entry {
    fn default() -> Self {
        Entry {
            position: PackedPosition::of(&shakmaty::Chess::default()),
            first: (0, SmallCounts::default()),
            more: Vec::new(),
        }
    }
}

impl Entry {
    /// The counts of `uci`, added (zero) when the position has no such move yet, and whether
    /// they were.
    fn counts_or_insert(&mut self, uci: u16) -> (&mut SmallCounts, bool) {
        if self.first.0 == uci {
            return (&mut self.first.1, false);
        }
        match self.more.iter().position(|(m, _)| *m == uci) {
            Some(i) => (&mut self.more[i].1, false),
            None => {
                self.more.push((uci, SmallCounts::default()));
                let last = self.more.len() - 1;
                (&mut self.more[last].1, true)
            }
        }
    }

    /// The moves with their counts, sorted by UCI text.
    fn sorted_moves(&self) -> Vec<(UciText, Counts)> {
        let mut moves: Vec<(UciText, Counts)> = std::iter::once(&self.first)
            .chain(&self.more)
            .map(|(uci, c)| (UciText::of(*uci), c.counts()))
            .collect();
        moves.sort_unstable_by_key(|m| m.0);
        moves
    }
}

/// Writes the rows of sorted `entries`, made on the pool a window of positions at a time (EPD
/// once per position): CSV as text per chunk; Parquet as columns per chunk, each full row
/// group encoded while the next window is made.
fn write_entries<W: Write>(
    entries: &[(u64, Entry)],
    out: &mut TableWriter<W>,
) -> Result<(), Error> {
    use rayon::prelude::*;
    const CHUNK: usize = 2048;
    let windows = entries.chunks(CHUNK * 32);
    match out {
        TableWriter::Csv(csv) => {
            for window in windows {
                let texts: Vec<(Vec<u8>, u64)> = window
                    .par_chunks(CHUNK)
                    .map(|chunk| {
                        let mut text = Vec::with_capacity(chunk.len() * 120);
                        let mut rows = 0;
                        each_row(chunk, |key, epd, uci, counts| {
                            crate::csv::format_row(&mut text, key, epd, uci, counts);
                            rows += 1;
                        });
                        (text, rows)
                    })
                    .collect();
                for (text, rows) in texts {
                    csv.write_formatted(&text, rows)?;
                }
            }
            Ok(())
        }
        #[cfg(feature = "parquet")]
        TableWriter::Parquet(parquet) => {
            let mut windows = windows;
            parquet.write_windows(move || {
                let parts = windows
                    .next()?
                    .par_chunks(CHUNK)
                    .map(|chunk| {
                        let mut columns = crate::parquet::Columns::default();
                        each_row(chunk, |key, epd, uci, counts| {
                            columns.push_parts(key, epd, uci, counts);
                        });
                        columns
                    })
                    .collect();
                Some(parts)
            })
        }
    }
}

/// Calls `f` with the key, EPD, move and counts of every row of `entries`, in order.
fn each_row(entries: &[(u64, Entry)], mut f: impl FnMut(u64, &str, &str, &Counts)) {
    let mut epd = Vec::with_capacity(100);
    for (key, entry) in entries {
        epd.clear();
        entry.position.write_epd(&mut epd);
        let epd = std::str::from_utf8(&epd).unwrap_or("");
        for (uci, counts) in entry.sorted_moves() {
            f(*key, epd, uci.as_str(), &counts);
        }
    }
}

/// A move's UCI text inline (4 or 5 bytes; compared as the text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct UciText([u8; 5]);

impl UciText {
    fn of(code: u16) -> UciText {
        let s = unpack_uci(code);
        let mut b = [0u8; 5];
        b[..s.len().min(5)].copy_from_slice(&s.as_bytes()[..s.len().min(5)]);
        UciText(b)
    }

    fn as_str(&self) -> &str {
        let len = if self.0[4] == 0 { 4 } else { 5 };
        std::str::from_utf8(&self.0[..len]).unwrap_or("0000")
    }
}

/// Approximate bytes of one position and of one move in the table.
const POSITION_BYTES: usize = size_of::<(u64, Entry)>() + 16;
const MOVE_BYTES: usize = size_of::<(u16, SmallCounts)>();

/// [`Counts::first_seen`] of ply `ply` of game `game` of part `part`: the part in the top 16
/// bits, the game in the next 32, the ply in the low 16 (larger numbers saturate).
fn first_seen(part: u16, game: u64, ply: u32) -> u64 {
    u64::from(part) << 48 | game.min(0xffff_ffff) << 16 | u64::from(ply.min(0xffff))
}

/// The headers a tally reads.
fn tally_header(name: &[u8]) -> bool {
    chessfmt_pgn::essential_header(name)
        || [&b"WhiteElo"[..], b"BlackElo", b"Date", b"UTCDate"]
            .iter()
            .any(|h| h.eq_ignore_ascii_case(name))
}

fn elo(game: &RawGame, tag: &str) -> Option<u32> {
    game.header(tag)
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|&e| e > 0 && e < 10_000)
}

fn year(game: &RawGame) -> Option<u16> {
    let date = game.header("Date").or_else(|| game.header("UTCDate"))?;
    date.get(..4)?
        .parse::<u16>()
        .ok()
        .filter(|&y| (1..=9999).contains(&y))
}

impl ReplayedRun {
    /// Replays `games`, numbered by `number`.
    fn of(games: &[RawGame], max_ply: usize, number: impl Fn(&RawGame) -> u64) -> ReplayedRun {
        let plies: usize = games.iter().map(|g| g.sans.len().min(max_ply)).sum();
        let mut run = ReplayedRun {
            plies: Vec::with_capacity(plies),
            games: Vec::with_capacity(games.len()),
            errors: Vec::new(),
        };
        let mut moves = Vec::new();
        for raw in games {
            let first = run.plies.len();
            match run.replay(raw, max_ply, &mut moves) {
                Ok(()) => run.games.push(GameInfo {
                    outcome: match raw.result() {
                        GameResult::WhiteWins => Outcome::White,
                        GameResult::BlackWins => Outcome::Black,
                        GameResult::Draw => Outcome::Draw,
                        _ => Outcome::Unknown,
                    },
                    white_elo: elo(raw, "WhiteElo"),
                    black_elo: elo(raw, "BlackElo"),
                    year: year(raw),
                    number: number(raw),
                    first_ply: first as u32,
                }),
                Err(e) => {
                    run.plies.truncate(first);
                    run.errors.push(e);
                }
            }
        }
        run
    }

    /// Appends the plies of `raw` as the run's next game (`moves`: room for its moves).
    fn replay(
        &mut self,
        raw: &RawGame,
        max_ply: usize,
        moves: &mut Vec<shakmaty::Move>,
    ) -> Result<(), GameError> {
        let first = self.plies.len();
        let game = self.games.len() as u16;
        moves.clear();
        // The next key from shakmaty's incremental update where it can (as a Polyglot build).
        let mut next_key: Option<u64> = None;
        let plies = &mut self.plies;
        let replay = raw.replay(max_ply, |pos, m| {
            let key = next_key.take().unwrap_or_else(|| polyglot_key(pos));
            next_key = pos
                .update_zobrist_hash(Zobrist64(key), m, EnPassantMode::PseudoLegal)
                .map(|z| z.0);
            plies.push(Ply {
                key,
                position: PackedPosition::of(pos),
                uci: 0,
                game,
            });
            moves.push(m);
            ControlFlow::Continue(())
        })?;
        for (ply, m) in self.plies[first..].iter_mut().zip(moves.iter()) {
            ply.uci = pack_uci(&m.to_uci(replay.castling_mode));
        }
        Ok(())
    }
}

/// The map of the table: counts games into (position, move) statistics ([`Row`]s).
///
/// ```
/// use chessfmt_tally::{Tally, TallyOptions};
///
/// let pgn = "[Result \"1-0\"]\n[WhiteElo \"2000\"]\n\n1. e4 e5 1-0\n\n[Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n";
/// let mut tally = Tally::new(TallyOptions::default());
/// tally.add_pgn(chessfmt_pgn::PgnReader::new(pgn.as_bytes()), |_| {})?;
/// let (rows, stats) = tally.finish()?;
/// assert_eq!(stats.rows, 3);
/// let e4 = rows.iter().find(|r| r.uci == "e2e4").unwrap();
/// assert_eq!((e4.counts.white, e4.counts.draws, e4.counts.games), (1, 1, 2));
/// assert_eq!((e4.counts.white_elo_sum, e4.counts.white_elo_games), (2000, 1));
/// # Ok::<(), chessfmt_tally::Error>(())
/// ```
pub struct Tally {
    options: TallyOptions,
    table: PartedTable<u64, Entry>,
    bytes: usize,
    stats: TallyStats,
    runs: Vec<tempfile::NamedTempFile>,
    /// A move's plays neared the 32 bits the table keeps them in: the table is written to a
    /// run after this batch.
    near_full: bool,
}

impl std::fmt::Debug for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tally")
            .field("options", &self.options)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Tally {
    /// An empty table.
    pub fn new(options: TallyOptions) -> Tally {
        Tally {
            options,
            table: PartedTable::new(),
            bytes: 0,
            stats: TallyStats::default(),
            runs: Vec::new(),
            near_full: false,
        }
    }

    /// The counts so far.
    pub fn stats(&self) -> &TallyStats {
        &self.stats
    }

    /// Counts one game (replayed here); a game that cannot be replayed is counted in
    /// [`TallyStats::skipped`]. Its number (for [`Counts::first_seen`]) is the number of
    /// games read before it.
    pub fn add_game(&mut self, game: &RawGame) -> io::Result<()> {
        let number = self.stats.games_read;
        let run = ReplayedRun::of(std::slice::from_ref(game), self.options.max_ply(), |_| {
            number
        });
        self.add_runs(vec![run])
    }

    /// Tokenises, replays (on the current rayon pool) and counts every game of a PGN input,
    /// skipping bad games. `progress` gets the number of games read so far. Returns the games
    /// of this input left out (also added to [`TallyStats::skipped`]); only I/O errors (of
    /// the input or of the runs) end the call. Games are numbered on from earlier inputs.
    pub fn add_pgn<'a, R: Read + Send>(
        &mut self,
        input: impl Into<PgnInput<'a, R>>,
        progress: impl FnMut(u64),
    ) -> io::Result<SkipStats> {
        let max_ply = self.options.max_ply();
        let reader = input.into().with_header_filter(tally_header);
        let base = self.stats.games_read;
        let before = std::mem::take(&mut self.stats.skipped);
        let mut failed = None;
        let skipped = chessfmt_pgn::replay_runs_in_order(
            reader,
            512,
            RUN_GAMES,
            |games| ReplayedRun::of(games, max_ply, |raw| base + raw.index),
            |runs| match self.add_runs(runs) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            },
            progress,
        );
        let mut mine = std::mem::replace(&mut self.stats.skipped, before);
        let skipped = skipped?;
        if let Some(e) = failed {
            return Err(e);
        }
        self.stats.games_read += skipped.total();
        mine.merge(skipped);
        self.stats.skipped.merge(mine.clone());
        Ok(mine)
    }

    /// Counts runs of games in input order.
    fn add_runs(&mut self, mut runs: Vec<ReplayedRun>) -> io::Result<()> {
        for run in &mut runs {
            self.stats.games_read += (run.games.len() + run.errors.len()) as u64;
            for e in run.errors.drain(..) {
                self.stats.skipped.record(e);
            }
        }
        let updates = runs.iter().enumerate().flat_map(|(r, run)| {
            run.plies
                .iter()
                .enumerate()
                .map(move |(p, ply)| (part_of(&ply.key), r as u32, p as u32))
        });
        let part_number = self.options.part;
        let new_positions = std::sync::atomic::AtomicUsize::new(0);
        let new_moves = std::sync::atomic::AtomicUsize::new(0);
        let near_full = std::sync::atomic::AtomicBool::new(false);
        self.table.update(updates, |part, r, p| {
            let run = &runs[r as usize];
            let ply = &run.plies[p as usize];
            let game = &run.games[usize::from(ply.game)];
            let entry = part.entry(ply.key).or_insert_with(|| {
                new_positions.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Entry {
                    position: ply.position,
                    first: (ply.uci, SmallCounts::default()),
                    more: Vec::new(),
                }
            });
            let (counts, new) = entry.counts_or_insert(ply.uci);
            if new {
                new_moves.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let full = counts.add_play(&Play {
                outcome: game.outcome,
                white_elo: game.white_elo,
                black_elo: game.black_elo,
                year: game.year,
                seen: first_seen(part_number, game.number, p - game.first_ply),
            });
            if full {
                near_full.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
        self.stats.plies += runs.iter().map(|r| r.plies.len() as u64).sum::<u64>();
        // The runs are freed on the pool, not all on this thread.
        {
            use rayon::prelude::*;
            runs.into_par_iter().for_each(drop);
        }
        self.bytes +=
            new_positions.into_inner() * POSITION_BYTES + new_moves.into_inner() * MOVE_BYTES;
        self.near_full |= near_full.into_inner();
        // The table, its entries taken out and their text in windows: under 3 times the
        // estimate at the peak.
        let over = self
            .options
            .memory_limit
            .as_ref()
            .is_some_and(|limit| self.bytes > limit.bytes / 3);
        if over || self.near_full {
            self.write_run()?;
        }
        Ok(())
    }

    /// The table so far as its entries sorted by key (keys are unique in a table); the table
    /// is emptied.
    fn drain_sorted(&mut self) -> Vec<(u64, Entry)> {
        use rayon::prelude::*;
        let mut entries = self.table.drain_entries();
        self.bytes = 0;
        self.near_full = false;
        entries.par_sort_unstable_by_key(|e| e.0);
        entries
    }

    /// The table so far as sorted rows; the table is emptied.
    fn drain_rows(&mut self) -> Vec<Row> {
        let mut rows = Vec::new();
        for (key, entry) in self.drain_sorted() {
            let epd = entry.position.epd();
            for (uci, counts) in entry.sorted_moves() {
                rows.push(Row {
                    key,
                    epd: epd.clone(),
                    uci: uci.as_str().to_string(),
                    counts,
                });
            }
        }
        rows
    }

    /// Writes the table so far as a sorted run.
    /// Runs go to the memory limit's folder, or the system's temporary folder.
    fn write_run(&mut self) -> io::Result<()> {
        let dir = self
            .options
            .memory_limit
            .as_ref()
            .map_or_else(std::env::temp_dir, |l| l.dir.clone());
        let mut file = tempfile::Builder::new()
            .prefix(".chessfmt-tally-run-")
            .tempfile_in(dir)?;
        let entries = self.drain_sorted();
        let mut w = TableWriter::Csv(CsvWriter::new(BufWriter::with_capacity(
            1 << 20,
            file.as_file_mut(),
        ))?);
        write_entries(&entries, &mut w).map_err(io::Error::other)?;
        drop(entries);
        w.finish().map_err(io::Error::other)?;
        self.runs.push(file);
        self.stats.runs = self.runs.len();
        Ok(())
    }

    /// The finished table as sorted rows (a memory-limited tally reads its runs back here).
    pub fn finish(self) -> Result<(Vec<Row>, TallyStats), Error> {
        let mut rows = Vec::new();
        let stats = self.write_rows(|r| {
            rows.push(r);
            Ok(())
        })?;
        Ok((rows, stats))
    }

    /// Writes the finished table, sorted, to `out` (runs merged while they are read).
    pub fn write_rows(
        mut self,
        mut out: impl FnMut(Row) -> Result<(), Error>,
    ) -> Result<TallyStats, Error> {
        if self.runs.is_empty() {
            let rows = self.drain_rows();
            self.stats.rows = rows.len() as u64;
            for r in rows {
                out(r)?;
            }
            return Ok(self.stats);
        }
        // What is still in memory becomes a run too: the merge then holds one row per run.
        if !self.table.is_empty() {
            self.write_run()?;
        }
        type Input = Box<dyn Iterator<Item = Result<Row, Error>>>;
        let mut inputs: Vec<Input> = Vec::new();
        for run in &self.runs {
            let f = File::open(run.path()).map_err(|e| Error::from(e).in_file(run.path()))?;
            inputs.push(Box::new(CsvReader::new(BufReader::with_capacity(
                1 << 16,
                f,
            ))));
        }
        let paths: Vec<_> = self.runs.iter().map(|r| r.path().to_path_buf()).collect();
        let merged = crate::merge(inputs, &mut out, |i| {
            paths.get(i).cloned().unwrap_or_default()
        })?;
        self.stats.rows = merged.rows_written;
        Ok(self.stats)
    }

    /// Writes the finished table as CSV to `w` ([`Tally::write_table`] in that form).
    pub fn write_csv(self, w: &mut dyn Write) -> Result<TallyStats, Error> {
        self.write_table(TableFormat::Csv, w)
    }

    /// Writes the finished table in `format` to `w`. A table that never spilled is made on
    /// the pool, a window of positions at a time.
    pub fn write_table(
        mut self,
        format: TableFormat,
        w: &mut dyn Write,
    ) -> Result<TallyStats, Error> {
        let mut table = TableWriter::new(format, w)?;
        if !self.runs.is_empty() {
            let stats = self.write_rows(|r| table.write(&r))?;
            table.finish()?;
            return Ok(stats);
        }
        let entries = self.drain_sorted();
        write_entries(&entries, &mut table)?;
        self.stats.rows = table.rows();
        table.finish()?;
        Ok(self.stats)
    }

    /// Writes the finished table to `path` atomically, in the form its name asks for
    /// ([`TableFormat::of_path`]); refuses to replace an existing file unless `overwrite`.
    pub fn save(self, path: impl AsRef<Path>, overwrite: bool) -> Result<TallyStats, Error> {
        let path = path.as_ref();
        let mut result = None;
        chessfmt_files::atomic::write_atomically(path, overwrite, |w| {
            let mut w = BufWriter::with_capacity(1 << 20, w);
            match self.write_table(TableFormat::of_path(path), &mut w) {
                Ok(s) => {
                    w.flush()?;
                    result = Some(Ok(s));
                    Ok(())
                }
                Err(e) => {
                    result = Some(Err(e));
                    Err(io::Error::other("the table could not be written"))
                }
            }
        })
        .or_else(|e| match &result {
            Some(Err(_)) => Ok(()),
            _ => Err(Error::from(e).in_file(path)),
        })?;
        result
            .unwrap_or_else(|| Err(Error::from(io::Error::other("nothing written")).in_file(path)))
    }
}
