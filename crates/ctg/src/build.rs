//! Building a book from games (like a Polyglot build: statistics per position and move) or
//! from another book.
//!
//! Decisions (none is fixed by the format):
//! * every position reached within `max_ply` plies gets a record, including the positions
//!   after the last counted move (they carry the statistics of that move); a position's
//!   statistics count once per game even if it repeats, but every distinct move played from
//!   it is kept (a game that plays 8.Qa4+ and later 10.Qc2 from one position adds both moves,
//!   as Polyglot and Kvetka builds do);
//! * results are counted for the side to move in the **stored** (normalised) position, as the
//!   format requires; points = 10 per win + 5 per draw + 5 per game without result (as in
//!   ChessBase-made books);
//! * rating pair 1 sums the Elo of the player to move, pair 2 that of the opponent (games
//!   without a `WhiteElo`/`BlackElo` tag do not count);
//! * moves are stored most-played first; recommendation, commentary and annotations are 0;
//! * moves CTG cannot code (under-promotions, a third knight…) are skipped and counted; their
//!   games still count for the position.

use std::{
    io::{self, Read},
    ops::ControlFlow,
};

use std::collections::hash_map::Entry;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use chess_core::normalize::normalize;
use chessfmt_pgn::{
    Game, GameResult, PgnInput, RawGame, SkipStats,
    parts::{Part, PartedTable, part_of},
};
use shakmaty::{Chess, Color, Position};

use crate::{
    moves, position,
    raw::{MAX_MOVES, RatingPair, Stats},
    write::RecordData,
};

mod spill;

pub use chess_core::book::MemoryLimit;

#[derive(Debug, Default, Clone)]
/// A position's counts. The book stores 32-bit counts, so they are kept in 32 bits and added
/// saturating (the value written is the same as from wider sums saturated at the end): half
/// the memory of the largest table of a build.
struct Acc {
    games: u32,
    wins: u32,
    losses: u32,
    draws: u32,
    unknown: u32,
    r1: (u32, u32),
    r2: (u32, u32),
    /// Codes with the number of games they were played in.
    moves: MoveCounts,
}

/// The moves of a position with the number of games each was played in: the first kept
/// inline (most positions of a book have one move: no allocation for them), the others in a
/// vector.
#[derive(Debug, Default, Clone)]
struct MoveCounts {
    first: Option<(u8, u32)>,
    more: Vec<(u8, u32)>,
}

impl MoveCounts {
    /// Counts one game of the move `code`.
    fn add(&mut self, code: u8) {
        match &mut self.first {
            None => self.first = Some((code, 1)),
            Some((c, n)) if *c == code => *n = n.saturating_add(1),
            Some(_) => match self.more.iter_mut().find(|(c, _)| *c == code) {
                Some((_, n)) => *n = n.saturating_add(1),
                None => self.more.push((code, 1)),
            },
        }
    }

    /// Counts `n` games of the move `code` (saturating).
    fn add_n(&mut self, code: u8, n: u32) {
        match &mut self.first {
            None => self.first = Some((code, n)),
            Some((c, m)) if *c == code => *m = m.saturating_add(n),
            Some(_) => match self.more.iter_mut().find(|(c, _)| *c == code) {
                Some((_, m)) => *m = m.saturating_add(n),
                None => self.more.push((code, n)),
            },
        }
    }

    /// The codes with their counts, in no particular order.
    fn iter(&self) -> impl Iterator<Item = (u8, u32)> + '_ {
        self.first.iter().chain(&self.more).copied()
    }

    /// Number of distinct moves.
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    /// The codes as a record stores them: most played first (ties by code), at most
    /// [`MAX_MOVES`], annotations 0.
    fn into_record_moves(self) -> Vec<(u8, u8)> {
        let Some(first) = self.first else {
            return Vec::new();
        };
        if self.more.is_empty() {
            return vec![(first.0, 0)];
        }
        let mut all = self.more;
        all.push(first);
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(MAX_MOVES);
        all.iter().map(|&(c, _)| (c, 0)).collect()
    }
}

/// Options of a [`Builder`]: start from [`BuildOptions::default`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildOptions {
    /// Only the first `max_ply` half-moves of each game are counted (default 40, as
    /// `chessfmt ctg build`).
    pub max_ply: usize,
    /// Keep the position table near this ceiling by spilling sorted runs to anonymous
    /// temporary files, merged as the book is written ([`Builder::save`],
    /// [`Builder::write_to`]): the same book. `None` (the default): all in memory.
    pub memory_limit: Option<MemoryLimit>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_ply: 40,
            memory_limit: None,
        }
    }
}

impl BuildOptions {
    /// Counts only the first `plies` half-moves of each game.
    #[must_use]
    pub fn with_max_ply(mut self, plies: usize) -> Self {
        self.max_ply = plies;
        self
    }

    /// A memory ceiling ([`BuildOptions::memory_limit`]).
    #[must_use]
    pub fn with_memory_limit(mut self, limit: Option<MemoryLimit>) -> Self {
        self.memory_limit = limit;
        self
    }
}

/// Counts of a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Games added.
    pub games: u64,
    /// Games left out, by reason (not replayable, unreadable, cut off).
    pub skipped: SkipStats,
    /// Moves CTG has no code for (skipped).
    pub uncodable_moves: u64,
    /// Positions whose moves exceeded 127 (the least played were dropped).
    pub truncated_positions: u64,
}

/// What one game adds to a book, worked out without the position table (so that the
/// parallel part of a PGN build does it): each counted position's key, side to move and the
/// code of the move played from it, the result and the ratings.
struct Contribution {
    /// `Some(winner)` for a decided or drawn game, `None` for an unknown result.
    winner: Option<Option<Color>>,
    elos: [Option<u32>; 2],
    uncodable: u64,
    /// Each position the game reaches with the mover and the code of the move played from
    /// it: the first time with its statistics, later times only for a move not yet played
    /// from it in this game.
    plies: Vec<Ply>,
}

/// A counted position of a game: its key, the side to move (`None` when the game reached
/// the position before: then only the move counts) and the code of the move played. The last
/// field is the part of the position table the key belongs to ([`part_of`], worked out in
/// the parallel part of a build).
type Ply = (position::Key, Option<Color>, Option<u8>, u8);

/// Counts one ply of game `c` into its part of the table.
fn count(table: &mut Part<position::Key, Acc>, c: &Contribution, &(key, mover, code, _): &Ply) {
    let acc = table.entry(key).or_default();
    let Some(mover) = mover else {
        // A repetition within the game: a new move from a position already counted.
        if let Some(code) = code {
            acc.moves.add(code);
        }
        return;
    };
    acc.games = acc.games.saturating_add(1);
    match c.winner {
        Some(Some(w)) if w == mover => acc.wins = acc.wins.saturating_add(1),
        Some(Some(_)) => acc.losses = acc.losses.saturating_add(1),
        Some(None) => acc.draws = acc.draws.saturating_add(1),
        None => acc.unknown = acc.unknown.saturating_add(1),
    }
    let (own, other) = match mover {
        Color::White => (c.elos[0], c.elos[1]),
        Color::Black => (c.elos[1], c.elos[0]),
    };
    if let Some(e) = own {
        acc.r1.0 = acc.r1.0.saturating_add(1);
        acc.r1.1 = acc.r1.1.saturating_add(e);
    }
    if let Some(e) = other {
        acc.r2.0 = acc.r2.0.saturating_add(1);
        acc.r2.1 = acc.r2.1.saturating_add(e);
    }
    if let Some(code) = code {
        acc.moves.add(code);
    }
}

impl Contribution {
    fn of(game: &Game, max_ply: usize) -> Contribution {
        let winner = match game.result {
            GameResult::WhiteWins => Some(Some(Color::White)),
            GameResult::BlackWins => Some(Some(Color::Black)),
            GameResult::Draw => Some(None),
            _ => None, // unknown result
        };
        let plies = game.moves.len().min(max_ply);
        let mut c = Contribution {
            winner,
            elos: [elo(game, Color::White), elo(game, Color::Black)],
            uncodable: 0,
            plies: Vec::with_capacity(plies + 1),
        };
        // Each position reached, with the code of the first move played from it.
        let mut seen: HashMap<position::Key, Option<u8>> = HashMap::with_capacity(plies + 1);
        // The other moves played from a repeated position (each counts once).
        let mut repeats: HashSet<(position::Key, u8)> = HashSet::new();
        let mut pos: Chess = game.start.clone();
        for ply in 0..=plies {
            let Some(key) = position::key_of(&pos) else {
                break;
            };
            let next = game.moves.get(ply).filter(|_| ply < plies).copied();
            let code = next.and_then(|m| {
                let n = normalize(&pos);
                moves::encode(&n.position, n.transform.apply_move(m))
            });
            if next.is_some() && code.is_none() {
                c.uncodable += 1;
            }
            // A position's statistics count once per game; each distinct move from it counts.
            match seen.entry(key) {
                Entry::Vacant(v) => {
                    v.insert(code);
                    c.plies.push((key, Some(pos.turn()), code, part_of(&key)));
                }
                Entry::Occupied(first) => {
                    if let Some(code) = code
                        && *first.get() != Some(code)
                        && repeats.insert((key, code))
                    {
                        c.plies.push((key, None, Some(code), part_of(&key)));
                    }
                }
            }
            let Some(m) = next else { break };
            pos.play_unchecked(m);
        }
        c
    }
}

/// Frees records on every core (millions of small allocations, made by the pool's threads:
/// one thread freeing them all was a tenth of a build's time on two cores).
pub fn drop_records(records: Vec<RecordData>) {
    use rayon::prelude::*;
    records.into_par_iter().for_each(drop);
}

/// Accumulates games into book records.
#[derive(Debug, Default)]
pub struct Builder {
    max_ply: usize,
    /// The position table, counted into in parallel parts. Counting is commutative
    /// (saturating sums; a position's moves are ordered by count when the book is made): the
    /// table is the one counting game by game gives.
    positions: PartedTable<position::Key, Acc>,
    stats: BuildStats,
    /// The runs past the memory limit, if there is one.
    spill: Option<spill::Spill>,
    /// The first run that could not be written (the build stops there).
    spill_error: Option<crate::Error>,
}

fn elo(game: &Game, color: Color) -> Option<u32> {
    let tag = if color == Color::White {
        "WhiteElo"
    } else {
        "BlackElo"
    };
    game.header(tag)?
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|&e| e > 0 && e < 5000)
}

impl Builder {
    /// An empty builder.
    pub fn new(options: BuildOptions) -> Builder {
        let spill = options.memory_limit.map(|m| spill::Spill {
            max_positions: (m.bytes / spill::BYTES_PER_POSITION).max(1),
            runs: chessfmt_files::runs::Runs::new(m.dir),
        });
        Builder {
            max_ply: options.max_ply,
            spill,
            ..Builder::default()
        }
    }

    /// Writes the table, sorted, as a run when it is over the limit.
    fn spill_if_full(&mut self) {
        let Some(spill) = &mut self.spill else {
            return;
        };
        if self.spill_error.is_some() || self.positions.len() < spill.max_positions {
            return;
        }
        // The table's parts keep their room; its entries become the run's records in place.
        let run = self
            .positions
            .drain_entries()
            .into_iter()
            .map(|(key, acc)| spill::Spilled(key, acc))
            .collect();
        if let Err(e) = spill.runs.write(run) {
            self.spill_error = Some(crate::Error::io(spill.runs.dir(), e));
        }
    }

    /// The counts so far.
    pub fn stats(&self) -> &BuildStats {
        &self.stats
    }

    /// Number of distinct (stored) positions so far.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether no position was added.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Adds one game (replayed here; [`Builder::add_pgn`] replays in parallel). A game that
    /// cannot be replayed is counted in [`BuildStats::skipped`] and left out.
    pub fn add_game(&mut self, game: &RawGame) {
        match game.resolve() {
            Ok(g) => self.add_replayed(&g),
            Err(e) => self.stats.skipped.record(e),
        }
    }

    /// Adds one game already replayed.
    pub fn add_replayed(&mut self, game: &Game) {
        self.add_contribution(&Contribution::of(game, self.max_ply));
    }

    /// Counts a game worked out by [`Contribution::of`].
    fn add_contribution(&mut self, c: &Contribution) {
        self.stats.games += 1;
        self.stats.uncodable_moves += c.uncodable;
        for ply in &c.plies {
            count(self.positions.part_mut(ply.3), c, ply);
        }
        self.spill_if_full();
    }

    /// Counts a batch of games, all parts of the table at once.
    fn add_contributions(&mut self, batch: &[Contribution]) {
        for c in batch {
            self.stats.games += 1;
            self.stats.uncodable_moves += c.uncodable;
        }
        let plies = batch.iter().enumerate().flat_map(|(g, c)| {
            c.plies
                .iter()
                .enumerate()
                .map(move |(p, ply)| (ply.3, g as u32, p as u32))
        });
        self.positions.update(plies, |part, g, p| {
            let c = &batch[g as usize];
            count(part, c, &c.plies[p as usize]);
        });
        self.spill_if_full();
    }

    /// Adds every game of a PGN input — a stream, plain or compressed
    /// ([`chessfmt_pgn::PgnReader`]), or bytes in memory tokenised in parallel
    /// ([`chessfmt_pgn::PgnBytes`]) — replayed in parallel on the current rayon pool and
    /// counted in parallel into the parts of the position table (the book is the one
    /// [`Builder::add_game`] would give game by game). `progress` gets the number of games
    /// read so far.
    ///
    /// Returns the games of this stream that were left out (not replayable, unreadable, cut
    /// off by the end of the input); only I/O errors of the reader end the call.
    pub fn add_pgn<'a, R: Read + Send>(
        &mut self,
        input: impl Into<PgnInput<'a, R>>,
        progress: impl FnMut(u64),
    ) -> io::Result<SkipStats> {
        let mut mine = SkipStats::default();
        // Only the tags the book uses are kept (results, start position, ratings).
        let mut reader = input.into().with_header_filter(|name| {
            chessfmt_pgn::essential_header(name)
                || name.eq_ignore_ascii_case(b"WhiteElo")
                || name.eq_ignore_ascii_case(b"BlackElo")
        });
        // Under a memory limit the games in flight (their moves and coded positions, about
        // twenty times their text) are kept near the limit too.
        if let Some(spill) = &self.spill {
            let limit = spill.max_positions * spill::BYTES_PER_POSITION;
            reader = reader.with_piece_size(chessfmt_pgn::piece_size_within(limit, 20));
        }
        // Replaying, normalising and coding each position happen in parallel, and so does
        // counting (each part of the table by one task).
        let max_ply = self.max_ply;
        let skipped = chessfmt_pgn::replay_in_order(
            reader,
            1024,
            |raw: &RawGame| raw.resolve().map(|g| Contribution::of(&g, max_ply)),
            |batch| {
                let mut games = Vec::with_capacity(batch.len());
                for game in batch {
                    match game {
                        Ok(c) => games.push(c),
                        Err(e) => mine.record(e),
                    }
                }
                self.add_contributions(&games);
                // A run that could not be written ends the reading (the error is the book's).
                if self.spill_error.is_some() {
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            },
            progress,
        )?;
        mine.merge(skipped);
        self.stats.skipped.merge(mine.clone());
        Ok(mine)
    }

    /// Writes the book to `path` (`.ctg`, `.cto`, `.ctb`, committed as a set; see
    /// [`crate::write::write_book`]). Refuses to replace existing files unless `overwrite`.
    /// Under a memory limit the book streams to its files ([`Builder::write_to`], spooling
    /// in the limit's folder); without one it is laid out in memory. Returns what was written
    /// and the counts, positions with more than 127 moves included.
    pub fn save(
        self,
        path: impl AsRef<std::path::Path>,
        overwrite: bool,
    ) -> Result<(crate::write::WriteSummary, BuildStats), crate::Error> {
        let games = u32::try_from(self.stats().games).unwrap_or(u32::MAX);
        if let Some(spill) = &self.spill {
            let dir = spill.runs.dir().to_path_buf();
            let mut writer = crate::write::StreamWriter::new(path, overwrite, dir)?;
            let stats = self.write_to(&mut writer)?;
            return Ok((writer.finish(games)?, stats));
        }
        let (records, stats) = self.finish()?;
        let written = crate::write::write_book(path, &records, games, overwrite);
        drop_records(records);
        Ok((written?, stats))
    }

    /// Hands the book's records to `writer` in its order (the runs past a memory limit merged
    /// with the table as they go), without holding them; returns the counts, positions with
    /// more than 127 moves included. `writer` is left to be finished with the game count.
    pub fn write_to(
        self,
        writer: &mut crate::write::StreamWriter,
    ) -> Result<BuildStats, crate::Error> {
        self.records_in_order(|r| writer.push(&r))
    }

    /// The records in the order of [`crate::write::StreamWriter`], each to `each`: the table
    /// and the runs past a memory limit merged, each position's parts added together (in
    /// ranges of positions on the pool, their records made there).
    fn records_in_order(
        mut self,
        mut each: impl FnMut(RecordData) -> Result<(), crate::Error> + Send,
    ) -> Result<BuildStats, crate::Error> {
        if let Some(e) = self.spill_error.take() {
            return Err(e);
        }
        let last: Vec<spill::Spilled> = self
            .positions
            .take_entries()
            .into_iter()
            .map(|(key, acc)| spill::Spilled(key, acc))
            .collect();
        // Without a limit (or a run) the merge only sorts the table's entries.
        let (runs, limit) = self.spill.take().map_or_else(
            || (chessfmt_files::runs::Runs::new("."), None),
            |s| (s.runs, Some(s.max_positions * spill::BYTES_PER_POSITION)),
        );
        let cut = crate::write::merge_cut(limit);
        let dir = runs.dir().to_path_buf();
        let mut truncated = 0;
        runs.merge_in_ranges(
            last,
            cut,
            |a, b| a.1.merge(b.1),
            |made: &mut (Vec<RecordData>, u64), s| {
                made.1 += u64::from(s.1.moves.len() > MAX_MOVES);
                made.0.push(record_of((s.0, s.1)));
            },
            |(records, over)| {
                truncated += over;
                records
                    .into_iter()
                    .try_for_each(&mut each)
                    .map_err(chessfmt_files::runs::MergeError::Sink)
            },
        )
        .map_err(|e| e.into_error(|e| crate::Error::io(&dir, e)))?;
        self.stats.truncated_positions += truncated;
        Ok(self.stats)
    }

    /// The records, sorted by position bytes (sorted and built in parallel: keys are
    /// unique, so the order is the one a sequential sort gives). Under a memory limit the
    /// runs are merged back first: a run that cannot be read back is an error.
    pub fn finish(mut self) -> Result<(Vec<RecordData>, BuildStats), crate::Error> {
        use rayon::prelude::*;
        if self.spill_error.is_some() || self.spill.as_ref().is_some_and(|s| !s.runs.is_empty()) {
            let mut records = Vec::new();
            let stats = self.records_in_order(|r| {
                records.push(r);
                Ok(())
            })?;
            records.par_sort_unstable_by(|a, b| a.position.cmp(&b.position));
            return Ok((records, stats));
        }
        // Their order does not matter: sorted next.
        let mut entries = self.positions.take_entries();
        entries.par_sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        self.stats.truncated_positions += entries
            .par_iter()
            .filter(|(_, acc)| acc.moves.len() > MAX_MOVES)
            .count() as u64;
        let out: Vec<RecordData> = entries.into_par_iter().map(record_of).collect();
        Ok((out, self.stats))
    }
}

/// The record of a position and what was counted for it.
fn record_of((key, acc): (position::Key, Acc)) -> RecordData {
    let sat = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let points = 10 * u64::from(acc.wins) + 5 * u64::from(acc.draws) + 5 * u64::from(acc.unknown);
    RecordData {
        position: key.as_bytes().to_vec(),
        moves: acc.moves.into_record_moves(),
        stats: Stats {
            games: acc.games,
            wins: acc.wins,
            losses: acc.losses,
            draws: acc.draws,
            points: sat(points),
            rating1: RatingPair {
                games: acc.r1.0,
                sum: acc.r1.1,
            },
            rating2: RatingPair {
                games: acc.r2.0,
                sum: acc.r2.1,
            },
            ..Stats::default()
        }
        .saturated(),
    }
}
