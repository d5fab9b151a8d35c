//! The map: PGN games counted into the table, in parallel, in bounded memory.
//!
//! Every ply below `max_ply` of every good game counts one play of (position, move): its
//! result in White's view, the players' ratings, the game's year and where it was first seen.
//! Games are replayed on the caller's rayon pool and counted in input order into a table in
//! parts (each part by one task), so the table never depends on the number of threads. With a
//! memory limit, the table is written as a sorted run to a temporary file whenever it grows
//! past the limit, and the runs are merged at the end ([`crate::merge()`]): the same table.

use std::{
    io::{self, BufWriter, Read, Write},
    ops::ControlFlow,
    path::Path,
};

use chess_core::book::MemoryLimit;
use chessfmt_pgn::{PgnInput, RawGame, SkipStats};
use rayon::prelude::*;

use crate::{
    Counts, CsvWriter, Error, Row,
    counting::{PAIR_BYTES, POSITION_BYTES, Position, SHARDS, Shard},
    run::{NO_POSITION, RUN_GAMES, ReplayedRun},
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
    /// default); a Parquet table from runs is written in row groups small enough for two to
    /// take an eighth of it.
    pub memory_limit: Option<MemoryLimit>,
    /// The number of this part when a collection is counted in parts (0 by default): moves
    /// first seen in a lower part come first among equals ([`Counts::first_seen`]), so parts
    /// numbered in input order give the order one tally of all the games gives.
    pub part: u16,
    /// How a Parquet table is compressed ([`Tally::write_table`], [`Tally::save`]; Snappy by
    /// default).
    pub compression: crate::table::Compression,
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

    /// Compresses a Parquet table with `compression` ([`TallyOptions::compression`]).
    #[must_use]
    pub fn with_compression(mut self, compression: crate::table::Compression) -> Self {
        self.compression = compression;
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

/// The windows of positions of sorted shards, in order: each shard is given up as soon as
/// its last window is made (dropped, its memory given back while the rest of the table is
/// written; or cleared, its room kept for more counting).
struct Windows<'a> {
    shards: &'a mut [Shard],
    /// The shard of the next window, and where in its positions the window starts.
    at: usize,
    offset: usize,
    /// Drop a shard when done with it (else clear it).
    release: bool,
}

impl Windows<'_> {
    /// Positions a window holds: 32 chunks of 2,048, made on the pool.
    const WINDOW: usize = CHUNK * 32;

    /// `make` of the next window (its shard and positions), or `None` at the end.
    fn next<T>(&mut self, make: impl FnOnce(&Shard, &[Position]) -> T) -> Option<T> {
        loop {
            let shard = self.shards.get_mut(self.at)?;
            let positions = shard.positions();
            if self.offset < positions.len() {
                let end = (self.offset + Self::WINDOW).min(positions.len());
                let made = make(shard, &positions[self.offset..end]);
                self.offset = end;
                return Some(made);
            }
            if self.release {
                *shard = Shard::default();
            } else {
                shard.clear();
            }
            self.at += 1;
            self.offset = 0;
        }
    }
}

/// Positions a task of the pool makes rows of.
const CHUNK: usize = 2048;

/// Writes the rows of the sorted `shards`, made on the pool a window of positions at a time
/// (EPD once per position): CSV as text per chunk; Parquet as columns per chunk, each full row
/// group encoded while the next window is made. Each shard is dropped (`release`) or cleared
/// once its rows are made.
fn write_shards<W: Write>(
    shards: &mut [Shard],
    release: bool,
    out: &mut TableWriter<W>,
) -> Result<(), Error> {
    let mut windows = Windows {
        shards,
        at: 0,
        offset: 0,
        release,
    };
    match out {
        TableWriter::Csv(csv) => {
            while let Some(texts) = windows.next(|shard, window| {
                window
                    .par_chunks(CHUNK)
                    .map(|chunk| {
                        let mut text = Vec::with_capacity(chunk.len() * 120);
                        let mut rows = 0;
                        each_row(shard, chunk, |key, epd, uci, counts| {
                            crate::csv::format_row(&mut text, key, epd, uci, counts);
                            rows += 1;
                        });
                        (text, rows)
                    })
                    .collect::<Vec<(Vec<u8>, u64)>>()
            }) {
                for (text, rows) in texts {
                    csv.write_formatted(&text, rows)?;
                }
            }
            Ok(())
        }
        #[cfg(feature = "parquet")]
        TableWriter::Parquet(parquet) => {
            // A quarter as many row groups at once as the pool has threads: the windows are
            // made on every thread too.
            parquet.write_windows(rayon::current_num_threads().div_ceil(4), move || {
                windows.next(|shard, window| {
                    window
                        .par_chunks(CHUNK)
                        .map(|chunk| {
                            // Room for the chunk's rows (a position has a move or two):
                            // columns grown value by value were reallocated a dozen times
                            // each, and those calls contended for the allocator's locks with
                            // the threads freeing the columns encoded before.
                            let mut columns =
                                crate::parquet::Columns::with_capacity(chunk.len() * 9 / 8);
                            each_row(shard, chunk, |key, epd, uci, counts| {
                                columns.push_parts(key, epd, uci, counts);
                            });
                            columns
                        })
                        .collect()
                })
            })
        }
    }
}

/// Calls `f` with the key, EPD, move and counts of every row of `positions` (of `shard`), in
/// order.
fn each_row(shard: &Shard, positions: &[Position], mut f: impl FnMut(u64, &str, &str, &Counts)) {
    let mut epd = Vec::with_capacity(100);
    let mut moves = Vec::new();
    const AHEAD: usize = 8;
    for (i, position) in positions.iter().enumerate() {
        if let Some(next) = positions.get(i + AHEAD) {
            shard.prefetch_row(next);
        }
        epd.clear();
        shard.board(position).write_epd(&mut epd);
        let epd = std::str::from_utf8(&epd).unwrap_or("");
        shard.moves(position, &mut moves);
        for (uci, counts) in &moves {
            f(position.key, epd, uci.as_str(), counts);
        }
    }
}

/// The size of the pieces of PGN (in memory, or a stream's windows) that a tally limited to
/// `limit` bytes tokenises in parallel: the games in flight (at most eight pieces a worker thread, their games and
/// replayed plies, each ply's board as planes, about twelve times their text on full games)
/// kept to a sixth of the limit, between 64 KiB and the default 512 KiB. With the default
/// pieces, a batch of games in flight took about 60 MB a thread whatever the limit
/// (`--memory-limit 32` peaked at 125 MB with two threads).
fn piece_size(limit: usize) -> usize {
    chessfmt_pgn::piece_size_within(limit / 6, 12)
}

/// [`Counts::first_seen`] of ply `ply` of game `game` of part `part`: the part in the top 16
/// bits, the game in the next 32, the ply in the low 16 (larger numbers saturate).
fn first_seen(part: u16, game: u64, ply: u16) -> u64 {
    u64::from(part) << 48 | game.min(0xffff_ffff) << 16 | u64::from(ply)
}

/// The headers a tally reads.
fn tally_header(name: &[u8]) -> bool {
    chessfmt_pgn::essential_header(name)
        || [&b"WhiteElo"[..], b"BlackElo", b"Date", b"UTCDate"]
            .iter()
            .any(|h| h.eq_ignore_ascii_case(name))
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
    /// The table in shards by key range ([`crate::counting`]).
    shards: Vec<Shard>,
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
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
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
        let reader = match (input.into(), &self.options.memory_limit) {
            (input, Some(limit)) => input.with_piece_size(piece_size(limit.bytes)),
            (input, None) => input,
        }
        .with_header_filter(tally_header)
        // Moves past `max_ply` are not counted: they are not read either.
        .with_ply_limit(max_ply);
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

    /// Counts runs of games in input order: the shards in parallel, each counting the runs'
    /// plies of its keys in order.
    fn add_runs(&mut self, mut runs: Vec<ReplayedRun>) -> io::Result<()> {
        for run in &mut runs {
            self.stats.games_read += (run.games.len() + run.errors.len()) as u64;
            for e in run.errors.drain(..) {
                self.stats.skipped.record(e);
            }
        }
        let part_number = self.options.part;
        let counted: Vec<(usize, usize, bool)> = self
            .shards
            .par_iter_mut()
            .enumerate()
            .map(|(s, shard)| {
                let (mut positions, mut pairs, mut full) = (0, 0, false);
                const AHEAD: usize = 8;
                for run in &runs {
                    let plies = &run.parts[s];
                    for (i, ply) in plies.iter().enumerate() {
                        // The bucket 8 plies ahead, then its pair and board 4 plies ahead.
                        if let Some(next) = plies.get(i + AHEAD) {
                            shard.prefetch(next.key);
                        }
                        if let Some(near) = plies.get(i + AHEAD / 2) {
                            shard.prefetch_pair(near.key);
                            if let Some(board) = run.positions.get(near.position as usize) {
                                chess_core::prefetch::prefetch(board);
                            }
                        }
                        let game = &run.games[usize::from(ply.game)];
                        let board = match ply.position {
                            NO_POSITION => None,
                            p => run.positions.get(p as usize),
                        };
                        let c = shard.count(
                            ply.key,
                            board,
                            ply.uci,
                            &game.facts,
                            first_seen(part_number, game.number, ply.ply),
                        );
                        positions += usize::from(c.new_position);
                        pairs += usize::from(c.new_pair);
                        full |= c.full;
                    }
                }
                (positions, pairs, full)
            })
            .collect();
        self.stats.plies += runs
            .iter()
            .flat_map(|r| &r.parts)
            .map(|p| p.len() as u64)
            .sum::<u64>();
        // The runs are freed on the pool, not all on this thread.
        runs.into_par_iter().for_each(drop);
        for (positions, pairs, full) in counted {
            self.bytes += positions * POSITION_BYTES + pairs * PAIR_BYTES;
            self.near_full |= full;
        }
        // The table and the text of a window: under 3 times the estimate at the peak (the
        // lists grow by doubling).
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

    /// Sorts every shard by key (the shards, one after another, are then the sorted table).
    fn sort(&mut self) {
        self.shards.par_iter_mut().for_each(Shard::sort);
    }

    /// Empties the table, keeping its room.
    fn clear(&mut self) {
        self.shards.par_iter_mut().for_each(Shard::clear);
        self.bytes = 0;
        self.near_full = false;
    }

    fn is_empty(&self) -> bool {
        self.shards.iter().all(|s| s.len() == 0)
    }

    /// The table so far as sorted rows; the table is emptied.
    fn drain_rows(&mut self) -> Vec<Row> {
        self.sort();
        let mut rows = Vec::new();
        for shard in &self.shards {
            each_row(shard, shard.positions(), |key, epd, uci, counts| {
                rows.push(Row {
                    key,
                    epd: epd.to_string(),
                    uci: uci.to_string(),
                    counts: *counts,
                });
            });
        }
        self.clear();
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
        self.sort();
        let mut w = TableWriter::Csv(CsvWriter::new(BufWriter::with_capacity(
            1 << 20,
            file.as_file_mut(),
        ))?);
        write_shards(&mut self.shards, false, &mut w).map_err(io::Error::other)?;
        self.clear();
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
        let mut merge = self.merge_runs()?;
        while let Some(r) = merge.next_row()? {
            out(r.to_row())?;
        }
        self.stats.rows = merge.stats().rows_written;
        Ok(self.stats)
    }

    /// The merge of the runs written (what is still in memory written as one more run, and
    /// the table's memory given back first: the merge holds a batch of 64 rows per run).
    fn merge_runs(&mut self) -> Result<crate::table::TableMerge, Error> {
        if !self.is_empty() {
            self.write_run()?;
        }
        self.shards = (0..SHARDS).map(|_| Shard::default()).collect();
        let paths: Vec<_> = self.runs.iter().map(|r| r.path().to_path_buf()).collect();
        let inputs = paths
            .iter()
            .map(|p| crate::table::open_batches_one_thread(p))
            .collect::<Result<Vec<_>, _>>()?;
        crate::Merge::new(inputs, Box::new(move |i| paths[i].clone()))
    }

    /// Writes the finished table as CSV to `w` ([`Tally::write_table`] in that form).
    pub fn write_csv(self, w: &mut dyn Write) -> Result<TallyStats, Error> {
        self.write_table(TableFormat::Csv, w)
    }

    /// Writes the finished table in `format` to `w`. A table that never spilled is made on
    /// the pool, a window of positions at a time; a Parquet table's bytes are written to `w`
    /// by the calling thread while the pool encodes the next row groups. Call it from a
    /// thread of the pool (`pool.install(|| tally.write_table(…))`, as the CLI does) to keep
    /// the cores to the pool's threads: that thread writes between its shares of the work,
    /// where a thread outside the pool is one more competing for the cores (on two cores,
    /// preempted mid-write while the pool waited for it).
    pub fn write_table(
        mut self,
        format: TableFormat,
        w: &mut dyn Write,
    ) -> Result<TallyStats, Error> {
        let mut table = TableWriter::with_compression(format, w, self.options.compression)?;
        if !self.runs.is_empty() {
            // A Parquet table's row groups are encoded on the pool while the runs merge, two
            // in memory at once: groups of at most a sixteenth of the limit (a row is about
            // 200 bytes in a group's columns and its encoding).
            if let Some(limit) = &self.options.memory_limit {
                table.set_row_group_rows(limit.bytes / 16 / 200);
            }
            let mut merge = self.merge_runs()?;
            table.write_merge(&mut merge)?;
            table.finish()?;
            self.stats.rows = merge.stats().rows_written;
            return Ok(self.stats);
        }
        self.sort();
        // The table is not counted into again: each shard's memory goes back once written.
        write_shards(&mut self.shards, true, &mut table)?;
        self.clear();
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
