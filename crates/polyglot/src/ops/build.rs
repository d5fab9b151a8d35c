//! Building a book from PGN games, the way `polyglot make-book` does — byte for byte with the
//! default options — but parallel and tolerant of bad games.
//!
//! For every game and every ply below `max_ply`, the (position key, move) pair counts one game
//! (`n`) and adds the mover's score (`sum`: 2 win, 1 draw or unknown result `*`, 0 loss). When a
//! pair reaches n = 16384, every pair of that position is halved (`(x + 1) / 2`). Then pairs with
//! `n < min_game`, `sum == 0`, a mean score below `min_score`, or of the excluded colour are
//! dropped; the weight is `sum` (the default [`WeightPolicy::Score`]; `n` with
//! [`WeightPolicy::Games`], 1 with [`WeightPolicy::Uniform`] or `uniform`); entries are stably
//! sorted by key, then weight descending, over first-seen order.
//!
//! Unlike the reference tool, games starting from a `[FEN]` are used (not garbage), illegal
//! games are skipped and counted instead of aborting the run, and the moves of the games are
//! replayed on all cores; the table is updated in input order, so the result does not depend on
//! the number of threads. With a memory limit ([`BuildOptions::memory_limit`]) the plies of
//! all but the most frequent positions go to sorted runs on disk and are merged at the end;
//! the book is the same, byte for byte.

use std::{
    io::{self, Read, Write},
    ops::ControlFlow,
};

pub use chess_core::book::{MemoryLimit, WeightPolicy};
use chess_core::polyglot_key::KeyWalk;
use chessfmt_pgn::{GameError, GameResult, PgnInput, RawGame, SkipStats};
use rayon::prelude::*;
use shakmaty::{Color, Position};

use super::spill::{RESIDENT_MIN, Spill};
use crate::{moves::encode_move, raw::Entry, write::sort_entries};

/// The count at which a position's statistics are halved (as the reference tool does).
pub const COUNT_MAX: u32 = 16384;

/// Options of [`Builder`], with the reference tool's defaults.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct BuildOptions {
    /// Only the first `max_ply` half-moves of each game are used (default 1024).
    pub max_ply: usize,
    /// Minimum number of games a move must have been played in (default 3).
    pub min_game: u32,
    /// Minimum mean score of a move for its mover, in percent (default 0).
    pub min_score: f64,
    /// Keep only the moves of this colour (`-only-white` / `-only-black`).
    pub only: Option<Color>,
    /// All weights 1 (as [`WeightPolicy::Uniform`], whatever [`BuildOptions::weight`] says).
    pub uniform: bool,
    /// How a kept move is weighed (default [`WeightPolicy::Score`], the reference tool's):
    /// the filters above are the same whatever the policy.
    pub weight: WeightPolicy,
    /// Keep memory near this ceiling by spilling plies to temporary files (none by default).
    /// Finish such a build with [`Builder::write_to`] or [`Builder::save`], which stream the
    /// book instead of holding it.
    pub memory_limit: Option<MemoryLimit>,
}

impl BuildOptions {
    /// Uses only the first `plies` half-moves of each game.
    #[must_use]
    pub fn with_max_ply(mut self, plies: usize) -> Self {
        self.max_ply = plies;
        self
    }

    /// Keeps moves played in at least `games` games.
    #[must_use]
    pub fn with_min_game(mut self, games: u32) -> Self {
        self.min_game = games;
        self
    }

    /// Keeps moves whose mean score for the mover is at least `percent`.
    #[must_use]
    pub fn with_min_score(mut self, percent: f64) -> Self {
        self.min_score = percent;
        self
    }

    /// Keeps only the moves of `color`.
    #[must_use]
    pub fn with_only(mut self, color: Option<Color>) -> Self {
        self.only = color;
        self
    }

    /// Gives every move weight 1.
    #[must_use]
    pub fn with_uniform(mut self, uniform: bool) -> Self {
        self.uniform = uniform;
        self
    }

    /// Weighs kept moves by `policy` ([`BuildOptions::weight`]).
    #[must_use]
    pub fn with_weight(mut self, policy: WeightPolicy) -> Self {
        self.weight = policy;
        self
    }

    /// The weight of a kept move played `n` times with the mover's score `sum` (halved
    /// together when they had to be).
    pub fn weigh(&self, n: u16, sum: u16) -> u16 {
        match (self.uniform, self.weight) {
            (true, _) | (_, WeightPolicy::Uniform) => 1,
            (_, WeightPolicy::Games) => n,
            // Score (and any policy this crate does not know yet).
            _ => sum,
        }
    }

    /// Keeps memory near `limit` ([`BuildOptions::memory_limit`]).
    #[must_use]
    pub fn with_memory_limit(mut self, limit: Option<MemoryLimit>) -> Self {
        self.memory_limit = limit;
        self
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_ply: 1024,
            min_game: 3,
            min_score: 0.0,
            only: None,
            uniform: false,
            weight: WeightPolicy::Score,
            memory_limit: None,
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildStats {
    /// Games read from the input (used and skipped).
    pub games_read: u64,
    /// Games left out, by reason: not replayable (illegal move, bad FEN…), unreadable, or cut
    /// off by the end of the input ([`SkipStats::truncated`]).
    pub skipped: SkipStats,
    /// (position, move) pairs seen.
    pub pairs: usize,
    /// Entries in the finished book.
    pub entries: usize,
    /// Bytes of plies written to temporary runs (memory-limited builds).
    pub bytes_spilled: u64,
}

/// One ply of a game as the builder needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyedPly {
    /// Polyglot key of the position before the move.
    pub key: u64,
    /// The encoded move.
    pub mv: u16,
    /// Whether White is to move.
    pub white: bool,
}

/// A game reduced to what the builder counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyedGame {
    /// The plies (at most `max_ply`).
    pub plies: Vec<KeyedPly>,
    /// Score of the first mover: 2 win, 1 draw or unknown, 0 loss.
    pub first_mover_points: u32,
}

impl KeyedGame {
    /// Replays a raw game (the expensive, parallel step). Like the reference tool, moves after
    /// `max_ply` are not even parsed.
    pub fn from_raw(raw: &RawGame, max_ply: usize) -> Result<KeyedGame, GameError> {
        let mut plies = Vec::with_capacity(raw.sans.len().min(max_ply));
        let first_mover_points = replay_keyed(raw, max_ply, |ply| plies.push(ply))?;
        Ok(KeyedGame {
            plies,
            first_mover_points,
        })
    }
}

/// White's points in a game: 2 win, 1 draw or unknown result, 0 loss.
fn white_points(raw: &RawGame) -> u32 {
    match raw.result() {
        GameResult::WhiteWins => 2,
        GameResult::BlackWins => 0,
        _ => 1,
    }
}

/// Replays `raw` up to `max_ply`, handing each ply to `each`; the first mover's points.
fn replay_keyed(
    raw: &RawGame,
    max_ply: usize,
    mut each: impl FnMut(KeyedPly),
) -> Result<u32, GameError> {
    let mut keys = KeyWalk::default();
    let replay = raw.replay(max_ply, |pos, m| {
        each(KeyedPly {
            key: keys.key_before(pos, m),
            mv: encode_move(m),
            white: pos.turn() == Color::White,
        });
        ControlFlow::Continue(())
    })?;
    let white_points = white_points(raw);
    Ok(match replay.start.turn() {
        Color::White => white_points,
        Color::Black => 2 - white_points,
    })
}

/// The plies of a run of games, split by shard in input order: what the pool hands the
/// counting, one allocation per shard for the run instead of a few per game.
type Parts = Vec<Vec<Counted>>;

/// Games replayed a run at a time on the pool (see [`chessfmt_pgn::replay_runs_in_order`]).
struct KeyedRun {
    parts: Parts,
    /// Games read, and the errors of those left out, in order.
    games: u64,
    errors: Vec<GameError>,
}

/// Games a run replays (a few hundred KB of plies).
const RUN_GAMES: usize = 256;

impl KeyedRun {
    fn of(games: &[RawGame], max_ply: usize) -> KeyedRun {
        let plies: usize = games.iter().map(|g| g.sans.len().min(max_ply)).sum();
        let mut parts: Parts = (0..SHARDS)
            .map(|_| Vec::with_capacity(plies / SHARDS * 5 / 4 + 8))
            .collect();
        let mut errors = Vec::new();
        for raw in games {
            let before: [usize; SHARDS] = std::array::from_fn(|s| parts[s].len());
            let white = white_points(raw) as u16;
            let replayed = replay_keyed(raw, max_ply, |ply| {
                let points = if ply.white { white } else { 2 - white };
                parts[shard_of(ply.key)].push(Counted::of(&ply, points));
            });
            if let Err(e) = replayed {
                for (part, len) in parts.iter_mut().zip(before) {
                    part.truncate(len);
                }
                errors.push(e);
            }
        }
        KeyedRun {
            parts,
            games: games.len() as u64,
            errors,
        }
    }

    /// The parts of one replayed game.
    fn parts_of(game: &KeyedGame) -> Parts {
        let mut parts: Parts = vec![Vec::new(); SHARDS];
        let mut points = game.first_mover_points as u16;
        for ply in &game.plies {
            parts[shard_of(ply.key)].push(Counted::of(ply, points));
            points = 2 - points;
        }
        parts
    }
}

impl KeyedPly {
    /// The move field with the `WHITE` bit, as pairs and spilled plies store it.
    fn packed_move(&self) -> u16 {
        self.mv | if self.white { WHITE } else { 0 }
    }
}

mod table;
use table::*;

/// Accumulates games into (position, move) statistics; [`Builder::finish`] gives the book.
pub struct Builder {
    options: BuildOptions,
    /// Pairs sharded by position key. Updates of different positions commute, and the output
    /// is sorted by key, so only the order within a position matters — which each shard keeps.
    /// Shards are updated in parallel.
    shards: Vec<Table>,
    stats: BuildStats,
    /// Memory-limited builds: the plies not counted in `shards`.
    spill: Option<Spill>,
    spill_error: Option<io::Error>,
}

/// Memory a memory-limited build sets aside for the PGN pipeline (batches of tokenised and
/// replayed games in flight) before sizing its buffer of plies.
const PIPELINE_RESERVE: usize = 48 << 20;

/// Number of shards (fixed: the output never depends on it or on the thread count).
const SHARDS: usize = 16;

/// The shard of a position: the top four bits of its key, so that shard order is key order.
fn shard_of(key: u64) -> usize {
    (key >> 60) as usize % SHARDS
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("options", &self.options)
            .field("pairs", &self.shards.iter().map(Table::len).sum::<usize>())
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// An empty builder. With a [`BuildOptions::memory_limit`], it keeps its memory near the
    /// limit by spilling plies to temporary files in the limit's folder (deleted when the
    /// build ends).
    pub fn new(options: BuildOptions) -> Self {
        // Three quarters of what the pipeline leaves go to the buffer of plies; the rest is for
        // the resident positions, the merge and the allocator.
        let spill = options.memory_limit.as_ref().map(|m| {
            let budget = m.bytes.saturating_sub(PIPELINE_RESERVE) / 4 * 3;
            Spill::new(m.dir.clone(), budget)
        });
        Builder {
            options,
            shards: (0..SHARDS).map(|_| Table::default()).collect(),
            stats: BuildStats::default(),
            spill,
            spill_error: None,
        }
    }

    /// The options.
    pub fn options(&self) -> &BuildOptions {
        &self.options
    }

    /// The counts so far.
    pub fn stats(&self) -> &BuildStats {
        &self.stats
    }

    /// Counts one replayed game (games must be added in input order for reference-identical
    /// output).
    pub fn add(&mut self, game: &KeyedGame) {
        self.count_parts(vec![KeyedRun::parts_of(game)]);
    }

    /// Records the read/skipped statistics of runs in order, then counts their plies.
    fn add_runs(&mut self, runs: Vec<KeyedRun>) {
        let mut parts = Vec::with_capacity(runs.len());
        for run in runs {
            self.stats.games_read += run.games;
            for e in run.errors {
                self.stats.skipped.record(e);
            }
            parts.push(run.parts);
        }
        self.count_parts(parts);
    }

    /// Counts runs of plies split by shard: the shards in parallel, each counting the runs'
    /// parts in order. In a memory-limited build, plies of positions that are not resident are
    /// queued for the next run instead (in shard order within a run: the order within a
    /// position, the only one that matters, is kept).
    fn count_parts(&mut self, mut runs: Vec<Parts>) {
        if let Some(spill) = &mut self.spill {
            let mut resident: Parts = vec![Vec::new(); SHARDS];
            for parts in runs {
                for (shard, plies) in parts.into_iter().enumerate() {
                    for ply in plies {
                        if spill.frozen && self.shards[shard].contains(ply.key) {
                            resident[shard].push(ply);
                        } else {
                            spill.push(ply.key, ply.mv, ply.points as u8);
                        }
                    }
                }
            }
            runs = vec![resident];
        }
        self.shards
            .par_iter_mut()
            .enumerate()
            .for_each(|(shard, table)| {
                const AHEAD: usize = 8;
                for plies in runs.iter().map(|parts| &parts[shard]) {
                    for (i, ply) in plies.iter().enumerate() {
                        if let Some(next) = plies.get(i + AHEAD) {
                            table.prefetch(next.key);
                        }
                        table.count(*ply);
                    }
                }
            });
        // The runs' parts are freed on the pool, a run each, not all on this thread.
        runs.into_par_iter().for_each(drop);
        if let Some(spill) = &self.spill
            && spill.buffer.len() >= spill.cap
            && self.spill_error.is_none()
            && let Err(e) = self.write_run()
        {
            self.spill_error = Some(e);
        }
    }

    /// Writes the queued plies as a run. The first time, positions with at least
    /// [`RESIDENT_MIN`] plies are counted in memory instead and stay resident.
    fn write_run(&mut self) -> io::Result<()> {
        let Some(spill) = &mut self.spill else {
            return Ok(());
        };
        let first = !spill.frozen;
        let shards = &mut self.shards;
        spill.write_run(|group| {
            if !first || group.len() < RESIDENT_MIN {
                return false;
            }
            for p in group {
                shards[shard_of(p.key)].count(Counted::spilled(p));
            }
            true
        })
    }
    /// Tokenises, replays (on the current rayon pool) and counts every game of a PGN input —
    /// a stream ([`chessfmt_pgn::PgnReader`]) or bytes in memory, tokenised in parallel
    /// too ([`chessfmt_pgn::PgnBytes`]) — skipping bad games. `progress` is called with
    /// the number of games read so far.
    ///
    /// Returns the games of this stream that were left out (not replayable, unreadable, cut
    /// off by the end of the input: see [`chessfmt_pgn::PgnReader`]); they are also added to
    /// [`BuildStats::skipped`]. Only errors of the underlying reader (and of spilling) end
    /// the call with an error.
    pub fn add_pgn<'a, R: Read + Send>(
        &mut self,
        input: impl Into<PgnInput<'a, R>>,
        mut progress: impl FnMut(u64),
    ) -> io::Result<SkipStats> {
        let before = std::mem::take(&mut self.stats.skipped);
        let result = self.add_pgn_counted(input.into(), &mut progress);
        let mine = std::mem::replace(&mut self.stats.skipped, before);
        self.stats.skipped.merge(mine.clone());
        result.map(|()| mine)
    }

    fn add_pgn_counted<R: Read + Send>(
        &mut self,
        input: PgnInput<'_, R>,
        progress: &mut impl FnMut(u64),
    ) -> io::Result<()> {
        const BATCH: usize = 512;
        let max_ply = self.options.max_ply;
        // Moves past `max_ply` are not counted: they are not read either.
        let reader = input
            .with_header_filter(chessfmt_pgn::essential_header)
            .with_ply_limit(max_ply);
        let read_before = self.stats.games_read;
        // Count batch k (in order) while batch k + 1 is replayed on the pool.
        let skipped = chessfmt_pgn::replay_runs_in_order(
            reader,
            BATCH,
            RUN_GAMES,
            |games| KeyedRun::of(games, max_ply),
            |runs| {
                self.add_runs(runs);
                if self.spill_error.is_some() {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            |read| progress(read_before + read),
        )?;
        // Games the reader itself skipped (unreadable, cut off).
        self.stats.games_read += skipped.total();
        self.stats.skipped.merge(skipped);
        match self.spill_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The entry of a pair, if it survives the filters (the reference tool's rules, in its
    /// order). `mv` carries the `WHITE` bit.
    fn entry(&self, key: u64, mv: u16, n: u16, sum: u16) -> Option<Entry> {
        self.keep(mv, n, sum).then_some(Entry {
            key,
            raw_move: mv & !WHITE,
            weight: self.options.weigh(n, sum),
            learn: 0,
        })
    }

    fn keep(&self, mv: u16, n: u16, sum: u16) -> bool {
        let o = &self.options;
        let (n, sum) = (u32::from(n), u32::from(sum));
        if n < o.min_game || sum == 0 {
            return false;
        }
        let score = (f64::from(sum) / f64::from(n)) / 2.0;
        if score < o.min_score / 100.0 {
            return false;
        }
        let white = mv & WHITE != 0;
        !matches!(
            (o.only, white),
            (Some(Color::White), false) | (Some(Color::Black), true)
        )
    }

    /// The book of the in-memory pairs (all of them: nothing was spilled), with the statistics
    /// recorded.
    fn finish_in_memory(&mut self) -> Vec<Entry> {
        let entries = self.resident_entries();
        self.stats.pairs = self.shards.iter().map(Table::len).sum();
        self.stats.entries = entries.len();
        entries
    }

    /// The entries of the in-memory pairs, sorted. A shard holds the keys of one top nibble
    /// (see [`shard_of`]), so the shards, each sorted on the pool, are the sorted book one after
    /// another (a stable sort: the same order as one sort of all the entries).
    fn resident_entries(&self) -> Vec<Entry> {
        let shards: Vec<Vec<Entry>> = self
            .shards
            .par_iter()
            .map(|t| self.shard_entries(t))
            .collect();
        shards.concat()
    }

    /// The entries of one shard's pairs that survive the filters, sorted.
    fn shard_entries(&self, t: &Table) -> Vec<Entry> {
        let mut entries: Vec<Entry> = t
            .pairs
            .iter()
            .filter_map(|p| self.entry(p.key(), p.mv, p.n, p.sum))
            .collect();
        sort_entries(&mut entries);
        entries
    }

    /// Writes the book of the in-memory pairs (all of them: nothing was spilled) to `w`, with
    /// the statistics recorded. A shard's entries are sorted and laid out as bytes on the pool,
    /// a group of shards (one a worker) at a time, while this thread writes the group before:
    /// the write overlaps the sorting and the book is never copied whole (a build's serial
    /// tail: 0.43 s of a 4 s build of 343 MB with two threads, the entries copied into one
    /// vector and then written). Everything runs on the current pool (the caller's, where it
    /// calls from inside one), and from a thread of the pool as well as from outside one.
    fn write_resident(&mut self, w: &mut dyn Write) -> io::Result<()> {
        self.stats.pairs = self.shards.iter().map(Table::len).sum();
        let this = &*self;
        let shard_bytes = |t: &Table| -> (usize, Vec<u8>) {
            let entries = this.shard_entries(t);
            let mut bytes = Vec::with_capacity(entries.len() * crate::ENTRY_SIZE);
            // Writing to memory cannot fail.
            let _ = crate::write::write_entries(&mut bytes, &entries);
            (entries.len(), bytes)
        };
        let write = |w: &mut dyn Write, group: Vec<(usize, Vec<u8>)>| -> io::Result<usize> {
            let mut entries = 0;
            for (n, bytes) in group {
                w.write_all(&bytes)?;
                entries += n;
            }
            Ok(entries)
        };
        let group = rayon::current_num_threads().max(1);
        let mut entries = 0;
        let mut pending = Vec::new();
        for shards in self.shards.chunks(group) {
            let mut next = Vec::new();
            let written = rayon::in_place_scope(|scope| {
                scope.spawn(|_| next = shards.par_iter().map(shard_bytes).collect());
                write(w, std::mem::take(&mut pending))
            });
            entries += written?;
            pending = next;
        }
        entries += write(w, pending)?;
        self.stats.entries = entries;
        Ok(())
    }

    /// Adds one game (replayed here; [`Builder::add_pgn`] replays in parallel). A game
    /// that cannot be replayed is counted in [`BuildStats::skipped`] and left out.
    pub fn add_game(&mut self, game: &RawGame) {
        let run = KeyedRun::of(std::slice::from_ref(game), self.options.max_ply);
        self.add_runs(vec![run]);
    }

    /// Writes the finished book to `path` atomically (streaming a memory-limited build's runs;
    /// see [`Builder::write_to`]). Refuses to replace an existing file unless `overwrite`.
    pub fn save(
        self,
        path: impl AsRef<std::path::Path>,
        overwrite: bool,
    ) -> Result<BuildStats, crate::Error> {
        let path = path.as_ref();
        chessfmt_files::atomic::write_atomically(path, overwrite, |w| {
            let mut w = io::BufWriter::with_capacity(1 << 20, w);
            let stats = self.write_to(&mut w)?;
            w.flush()?;
            Ok(stats)
        })
        .map_err(|e| crate::Error::io(path, e))
    }

    /// The finished, sorted entries and the statistics of the build. A memory-limited build
    /// reads its runs back into memory here (an error when its temporary files cannot be
    /// written or read back); use [`Builder::write_to`] to stream instead.
    pub fn finish(mut self) -> io::Result<(Vec<Entry>, BuildStats)> {
        if self.spill.is_none() {
            let entries = self.finish_in_memory();
            return Ok((entries, self.stats));
        }
        let mut bytes = Vec::new();
        let stats = self.write_to(&mut bytes)?;
        let entries = bytes
            .chunks_exact(crate::ENTRY_SIZE)
            .filter_map(|c| c.try_into().ok().map(Entry::from_bytes))
            .collect();
        Ok((entries, stats))
    }

    /// Writes the finished book to `w` (sorted, ready to save) and returns the statistics. A
    /// memory-limited build merges its runs here, streaming: the book is never held in memory.
    /// The shards are sorted on the current rayon pool: call it inside the pool the games were
    /// counted on (`pool.install`) to keep the whole build on that pool's threads.
    pub fn write_to(mut self, w: &mut dyn Write) -> io::Result<BuildStats> {
        if let Some(e) = self.spill_error.take() {
            return Err(e);
        }
        let Some(mut spill) = self.spill.take() else {
            self.write_resident(w)?;
            return Ok(self.stats);
        };
        if !spill.has_runs() {
            // Everything fitted: count the queue in input order.
            for p in std::mem::take(&mut spill.buffer) {
                self.shards[shard_of(p.key)].count(Counted::spilled(&p));
            }
            self.write_resident(w)?;
            return Ok(self.stats);
        }
        if !spill.buffer.is_empty() {
            spill.write_run(|_| false)?;
        }
        self.stats.bytes_spilled = spill.bytes_spilled;
        let resident = self.resident_entries();
        let mut pairs: usize = self.shards.iter().map(Table::len).sum();
        let mut entries = 0usize;
        let mut resident = resident.into_iter().peekable();
        let mut runs = spill.merged()?;
        let mut position: Vec<(u16, u16, u16)> = Vec::new();
        let mut out: Vec<Entry> = Vec::new();
        loop {
            let run_key = runs.peek_key();
            let res_key = resident.peek().map(|e| e.key);
            let key = match (run_key, res_key) {
                (None, None) => break,
                (Some(r), Some(m)) => r.min(m),
                (Some(k), None) | (None, Some(k)) => k,
            };
            out.clear();
            if res_key == Some(key) {
                while let Some(e) = resident.next_if(|e| e.key == key) {
                    out.push(e);
                }
            } else {
                // Replay the position's plies in input order, halving as the table does.
                position.clear();
                while runs.peek_key() == Some(key) {
                    let r = runs.next_record()?.expect("peeked");
                    count_in(&mut position, r.mv, u16::from(r.points));
                }
                pairs += position.len();
                out.extend(
                    position
                        .iter()
                        .filter_map(|&(mv, n, sum)| self.entry(key, mv, n, sum)),
                );
                sort_entries(&mut out);
            }
            entries += out.len();
            crate::write::write_entries(w, &out)?;
        }
        self.stats.pairs = pairs;
        self.stats.entries = entries;
        Ok(self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(pgn: &str, options: BuildOptions) -> (Vec<Entry>, BuildStats) {
        let mut b = Builder::new(options);
        b.add_pgn(chessfmt_pgn::PgnReader::new(pgn.as_bytes()), |_| {})
            .unwrap();
        b.finish().unwrap()
    }

    #[test]
    fn counts_mover_scores_and_filters() {
        let pgn = "[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"0-1\"]\n1. e4 c5 0-1\n\n\
                   [Result \"*\"]\n1. e4 e5 *\n\n[Result \"1-0\"]\n1. e4 Ke7 2. Ke3 *\n";
        let (entries, stats) = build(
            pgn,
            BuildOptions {
                min_game: 1,
                ..Default::default()
            },
        );
        assert_eq!(stats.games_read, 4);
        assert_eq!(stats.skipped.total(), 1);
        let start = chess_core::polyglot_key(&shakmaty::Chess::default());
        let e4: Vec<_> = entries.iter().filter(|e| e.key == start).collect();
        // e4 three times: 2 (win) + 0 (loss) + 1 (*) = 3.
        assert_eq!(e4.len(), 1);
        assert_eq!((e4[0].raw_move, e4[0].weight), (0x031c, 3));
        // Black's e5: loss (0) + unknown (1) = 1; c5: win (2).
        let weights: Vec<u16> = entries
            .iter()
            .filter(|e| e.key != start)
            .map(|e| e.weight)
            .collect();
        assert_eq!(weights.len(), 2);
        assert!(weights.contains(&1) && weights.contains(&2));
        // Default min_game 3 keeps only e4.
        let (entries, _) = build(pgn, BuildOptions::default());
        assert_eq!(entries.len(), 1);
        // Only Black's moves.
        let (entries, _) = build(
            pgn,
            BuildOptions {
                min_game: 1,
                only: Some(Color::Black),
                ..Default::default()
            },
        );
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn halves_a_position_at_count_max() {
        let mut b = Builder::new(BuildOptions {
            min_game: 1,
            ..Default::default()
        });
        let ply = |mv| KeyedPly {
            key: 42,
            mv,
            white: true,
        };
        b.add(&KeyedGame {
            plies: vec![ply(2)],
            first_mover_points: 2,
        });
        for _ in 0..COUNT_MAX - 1 {
            b.add(&KeyedGame {
                plies: vec![ply(1)],
                first_mover_points: 1,
            });
        }
        // Move 1 reached n = 16383; move 2 has n = 1, sum = 2. One more game of move 1 halves.
        b.add(&KeyedGame {
            plies: vec![ply(1)],
            first_mover_points: 2,
        });
        let (entries, _) = b.finish().unwrap();
        // Move 1: n 16384 -> 8192, sum 16385 -> 8193. Move 2: sum 2 -> 1.
        assert_eq!(
            entries
                .iter()
                .map(|e| (e.raw_move, e.weight))
                .collect::<Vec<_>>(),
            vec![(1, 8193), (2, 1)]
        );
    }

    /// Synthetic games over a few positions: some frequent from the start (resident), one
    /// rare at first and frequent later (replayed from the runs, through several halvings),
    /// and a long tail of unique positions.
    fn synthetic_games() -> Vec<KeyedGame> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..60_000u64)
            .map(|g| {
                let late = g > 20_000;
                let plies = (0..8)
                    .map(|ply| {
                        let r = next();
                        let key = match ply {
                            0 => 1,
                            1 if late => 2,
                            1 => 3 + r % 2,
                            2 => 10 + r % 50,
                            _ => r | 1 << 40,
                        };
                        let moves = if key == 2 { 2 } else { 3 };
                        KeyedPly {
                            key,
                            mv: 1 + (r >> 20) as u16 % moves,
                            white: ply % 2 == 0,
                        }
                    })
                    .collect();
                KeyedGame {
                    plies,
                    first_mover_points: (g % 3) as u32,
                }
            })
            .collect()
    }

    #[test]
    fn memory_limited_build_is_identical() {
        let options = BuildOptions {
            min_game: 1,
            ..Default::default()
        };
        let games = synthetic_games();
        let mut memory = Builder::new(options.clone());
        for g in &games {
            memory.add(g);
        }
        let dir = tempfile::tempdir().unwrap();
        // The smallest buffer: dozens of runs.
        let mut spilled =
            Builder::new(options.with_memory_limit(Some(MemoryLimit::new(0, dir.path()))));
        for g in &games {
            spilled.add(g);
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let sa = memory.write_to(&mut a).unwrap();
        let sb = spilled.write_to(&mut b).unwrap();
        assert!(sb.bytes_spilled > 0);
        assert_eq!(sa.pairs, sb.pairs);
        assert_eq!(sa.entries, sb.entries);
        assert!(a == b, "books differ");
        // Position 2 (frequent only after the first runs: ~40,000 plies worth ~40,000 points
        // over two moves) was halved once per move.
        let two: u32 = a
            .chunks_exact(16)
            .map(|c| Entry::from_bytes(c.try_into().unwrap()))
            .filter(|e| e.key == 2)
            .map(|e| u32::from(e.weight))
            .sum();
        assert!((15_000..30_000).contains(&two), "{two}");
        // The temporary runs are gone.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// The book written shard by shard as the pool sorts them is the book `finish` gives,
    /// whether `write_to` is called from outside the pool or on one of its threads (one and
    /// two threads), and a failing writer's error comes back (the sorting still ends).
    #[test]
    fn written_book_is_the_finished_book() {
        let options = BuildOptions {
            min_game: 1,
            ..Default::default()
        };
        let games = synthetic_games();
        let built = || {
            let mut b = Builder::new(options.clone());
            for g in &games {
                b.add(g);
            }
            b
        };
        let (entries, stats) = built().finish().unwrap();
        let mut want = Vec::new();
        crate::write::write_entries(&mut want, &entries).unwrap();
        assert!(entries.len() > 1000, "{}", entries.len());
        let mut outside = Vec::new();
        let s = built().write_to(&mut outside).unwrap();
        assert!(outside == want, "written outside the pool");
        assert_eq!((s.entries, s.pairs), (stats.entries, stats.pairs));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut inside = Vec::new();
            let s = pool.install(|| built().write_to(&mut inside)).unwrap();
            assert!(inside == want, "written on a pool of {threads}");
            assert_eq!(s.entries, stats.entries);
        }
        struct Full(usize);
        impl Write for Full {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if self.0 + buf.len() > 4096 {
                    return Err(io::Error::new(io::ErrorKind::StorageFull, "full"));
                }
                self.0 += buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let e = built().write_to(&mut Full(0)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
    }

    /// A memory-limited build whose temporary folder is gone reports the error from
    /// `finish` (issue 31: it panicked).
    #[test]
    fn finish_reports_a_spill_that_failed() {
        let games = synthetic_games();
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let mut b = Builder::new(
            BuildOptions::default().with_memory_limit(Some(MemoryLimit::new(0, &gone))),
        );
        for g in &games {
            b.add(g);
        }
        assert!(b.finish().is_err());
    }

    #[test]
    fn memory_limited_build_that_fits_never_spills() {
        let games = &synthetic_games()[..100];
        let dir = tempfile::tempdir().unwrap();
        let mut b = Builder::new(
            BuildOptions::default().with_memory_limit(Some(MemoryLimit::new(1 << 30, dir.path()))),
        );
        let mut m = Builder::new(BuildOptions::default());
        for g in games {
            b.add(g);
            m.add(g);
        }
        let (eb, sb) = b.finish().unwrap();
        let (em, _) = m.finish().unwrap();
        assert_eq!(eb, em);
        assert_eq!(sb.bytes_spilled, 0);
    }
}
