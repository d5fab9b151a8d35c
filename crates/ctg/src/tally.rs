//! CTG books from and to the statistics table of `chessfmt-tally`.
//!
//! **From a table** ([`from_tally`]): a position's record sums the rows that reach it (every
//! game through it, the games that end there included; the start of the lines, which no row
//! reaches, sums the rows leaving it) — games, the results of its side to move, the ratings of
//! the side to move (pair 1) and of the opponent (pair 2), points as a build counts them (10 a
//! win, 5 a draw or a game without result) — and lists the moves leaving it, most played
//! first. Where a build from PGN counts a game once per position, a table counts every play: a
//! position repeated in a game counts again. Moves CTG cannot code are counted
//! ([`FromTallyStats::uncodable_moves`]).
//!
//! On the first 10,000 gnuchess games a book through the table differs from `ctg build`'s in
//! 3 of 42,233 records at 16 plies, 226 of 240,112 at 40 (positions repeated within a game).
//!
//! **To a table** ([`to_tally`]): the book is walked from the start position; each move's row
//! holds the statistics of the position after it (games, results turned to White's view,
//! ratings by colour), as CTG readers show a move's. Those are the statistics of every game
//! through that position, by any move order, not of the move: a position reached by
//! transpositions gives each move leading to it all of its games, so a book made back from
//! the table sums such a position's statistics once per move into it (counted in
//! [`ToTallyStats::transposed_positions`]: a round trip is exact only for a book without
//! transpositions). Move annotations and recommendations have
//! no place in a table and are counted.

use chessfmt_files::runs::MergeError;
use chessfmt_tally::{
    BadRows, Counts, Error as TallyError, Row,
    gather::{CHUNK_ROWS, GatherError, Gathering, Spill, gather, gather_spilling},
};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, fen::Epd};

use chess_core::normalize::normalize;

use crate::{
    moves, position,
    raw::{MAX_MOVES, RatingPair, Stats},
    read::Book,
    write::RecordData,
};

/// What [`from_tally`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FromTallyStats {
    /// Rows read.
    pub rows: u64,
    /// Rows left out: a position that cannot be read or stored, or a move that is not legal
    /// there (the first few as messages).
    pub bad_rows: BadRows,
    /// Moves CTG has no code for (left out; their plays count for the position).
    pub uncodable_moves: u64,
    /// Positions with more than 127 moves (the least played dropped).
    pub truncated_positions: u64,
    /// Records of the book.
    pub records: usize,
    /// The plays of the start position (the table's root): the book header's game count, as
    /// [`games_of`] finds it; 0 when the start position is not among the records.
    pub games: u32,
}

#[derive(Debug, Default)]
struct Acc {
    games: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    unknown: u64,
    /// Ratings of the side to move, then of the opponent: (games, sum).
    r1: (u64, u64),
    r2: (u64, u64),
    moves: Vec<(u8, u64)>,
}

impl Acc {
    /// Adds the plays of `c` as seen by `side` (to move in the counted position).
    fn add(&mut self, c: &Counts, side: Color) {
        let (wins, losses) = match side {
            Color::White => (c.white, c.black),
            Color::Black => (c.black, c.white),
        };
        let own = match side {
            Color::White => (c.white_elo_games, c.white_elo_sum),
            Color::Black => (c.black_elo_games, c.black_elo_sum),
        };
        let other = match side {
            Color::White => (c.black_elo_games, c.black_elo_sum),
            Color::Black => (c.white_elo_games, c.white_elo_sum),
        };
        self.games += c.games;
        self.wins += wins;
        self.losses += losses;
        self.draws += c.draws;
        self.unknown += c.unknown();
        self.r1 = (self.r1.0 + own.0, self.r1.1 + own.1);
        self.r2 = (self.r2.0 + other.0, self.r2.1 + other.1);
    }

    /// Adds `games` plays of the move coded `code`.
    fn add_move(&mut self, code: u8, games: u64) {
        match self.moves.iter_mut().find(|(c, _)| *c == code) {
            Some((_, g)) => *g += games,
            None => self.moves.push((code, games)),
        }
    }

    /// Adds the sums and moves of `other`.
    fn merge(&mut self, other: Acc) {
        self.games += other.games;
        self.wins += other.wins;
        self.losses += other.losses;
        self.draws += other.draws;
        self.unknown += other.unknown;
        self.r1 = (self.r1.0 + other.r1.0, self.r1.1 + other.r1.1);
        self.r2 = (self.r2.0 + other.r2.0, self.r2.1 + other.r2.1);
        for (code, games) in other.moves {
            self.add_move(code, games);
        }
    }

    fn record(mut self, key: &[u8], stats: &mut FromTallyStats) -> RecordData {
        let sat = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        self.moves.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        if self.moves.len() > MAX_MOVES {
            stats.truncated_positions += 1;
            self.moves.truncate(MAX_MOVES);
        }
        RecordData {
            position: key.to_vec(),
            moves: self.moves.iter().map(|&(c, _)| (c, 0)).collect(),
            stats: Stats {
                games: sat(self.games),
                wins: sat(self.wins),
                losses: sat(self.losses),
                draws: sat(self.draws),
                points: sat(10 * self.wins + 5 * self.draws + 5 * self.unknown),
                rating1: RatingPair {
                    games: sat(self.r1.0),
                    sum: sat(self.r1.1),
                },
                rating2: RatingPair {
                    games: sat(self.r2.0),
                    sum: sat(self.r2.1),
                },
                ..Stats::default()
            }
            .saturated(),
        }
    }
}

/// The game count of a book made from a table (for the header,
/// [`crate::write::write_book`]'s `games`): the plays of the start position, the table's root;
/// 0 when the start position is not among the records.
pub fn games_of(records: &[RecordData]) -> u32 {
    let Some(start) = position::key_of(&Chess::default()) else {
        return 0;
    };
    records
        .iter()
        .find(|r| start.as_bytes() == r.position.as_slice())
        .map_or(0, |r| r.stats.games)
}

/// A position being gathered: the rows leaving it (with its moves) and the rows reaching it.
#[derive(Debug, Default)]
struct Entry {
    out: Acc,
    into: Acc,
    /// Whether a row reaches it.
    reached: bool,
}

impl Entry {
    /// Adds `other` (gathered from rows after this one's).
    fn merge(&mut self, other: Entry) {
        self.out.merge(other.out);
        self.into.merge(other.into);
        self.reached |= other.reached;
    }

    /// The record of the position `key`: the statistics of the rows reaching it (every game
    /// through it, games that end there included), or of those leaving it where none reaches
    /// it (the start of the lines); its moves are always those leaving it.
    fn record(self, key: &[u8], stats: &mut FromTallyStats) -> RecordData {
        let acc = if self.reached {
            Acc {
                moves: self.out.moves,
                ..self.into
            }
        } else {
            self.out
        };
        acc.record(key, stats)
    }
}

/// What one chunk of rows adds: the positions counted or reached, and the chunk's statistics.
#[derive(Default)]
struct Partial {
    /// In shards, merged a shard at a time on the pool: merging every chunk's positions
    /// into one map on one thread was half of `ctg from-tally`'s time.
    positions: chessfmt_tally::ShardedMap<position::Key, Entry>,
    stats: FromTallyStats,
}

impl Partial {
    /// Resolves and codes `rows` (a row's position parsed once per run of rows of one
    /// position, the Huffman codes of the position and of the one after the move).
    fn of(rows: &[Row]) -> Partial {
        let mut part = Partial::default();
        let stats = &mut part.stats;
        let mut resolver = chessfmt_tally::RowResolver::new();
        for row in rows {
            stats.rows += 1;
            let (p, m) = match resolver.resolve(row) {
                Ok(r) => r,
                Err(why) => {
                    stats.bad_rows.note(why);
                    continue;
                }
            };
            let Some(key) = position::key_of(p) else {
                stats
                    .bad_rows
                    .note(format!("a position CTG cannot store: {}", row.epd));
                continue;
            };
            let acc = &mut part.positions.entry(key).out;
            acc.add(&row.counts, p.turn());
            let n = normalize(p);
            match moves::encode(&n.position, n.transform.apply_move(m)) {
                Some(code) => acc.add_move(code, row.counts.games),
                None => stats.uncodable_moves += 1,
            }
            let mut child = p.clone();
            child.play_unchecked(m);
            if let Some(ckey) = position::key_of(&child) {
                let e = part.positions.entry(ckey);
                e.into.add(&row.counts, child.turn());
                e.reached = true;
            }
        }
        part
    }
}

impl Gathering for Partial {
    type Key = position::Key;
    type Entry = Entry;

    fn positions(&mut self) -> &mut chessfmt_tally::ShardedMap<position::Key, Entry> {
        &mut self.positions
    }

    /// Adds `other` (the chunk after this one's rows).
    fn merge(&mut self, other: Partial) {
        self.positions.merge(other.positions, Entry::merge);
        let (s, o) = (&mut self.stats, other.stats);
        s.rows += o.rows;
        s.bad_rows.add(o.bad_rows);
        s.uncodable_moves += o.uncodable_moves;
    }
}

/// The records of a CTG book made from a table (see the [module](self) documentation),
/// sorted as [`crate::write::write_book`] wants them. Rows are resolved and coded in chunks
/// on the current rayon pool and summed in order: the same records as one pass over the rows.
pub fn from_tally(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
) -> Result<(Vec<RecordData>, FromTallyStats), TallyError> {
    from_tally_in_chunks(rows, CHUNK_ROWS)
}

/// [`from_tally`] with chunks of `chunk_rows` rows (tests cut a table finely).
fn from_tally_in_chunks(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
    chunk_rows: usize,
) -> Result<(Vec<RecordData>, FromTallyStats), TallyError> {
    Ok(records_of(gather(rows, chunk_rows, Partial::of)?))
}

/// The records of what was gathered, sorted by position.
fn records_of(all: Partial) -> (Vec<RecordData>, FromTallyStats) {
    let Partial {
        positions,
        mut stats,
    } = all;
    let mut records: Vec<RecordData> = Vec::with_capacity(positions.len());
    for (key, e) in positions.into_entries() {
        records.push(e.record(key.as_bytes(), &mut stats));
    }
    records.sort_unstable_by(|a, b| a.position.cmp(&b.position));
    stats.records = records.len();
    stats.games = games_of(&records);
    (records, stats)
}

/// Bytes of memory a position being gathered is counted for: its key, two sums and its
/// moves in a hash table.
const BYTES_PER_ENTRY: usize = 320;

/// Why [`from_tally_limited`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FromTallyError {
    /// The table could not be read.
    #[error(transparent)]
    Table(#[from] TallyError),
    /// The book could not be written.
    #[error(transparent)]
    Book(#[from] crate::Error),
    /// The temporary runs could not be written or read back.
    #[error("{}: the temporary runs: {source}", dir.display())]
    Runs {
        /// Where they were.
        dir: std::path::PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

/// A position being gathered, as a run holds it.
struct Spilled {
    key: position::Key,
    e: Entry,
}

/// Writes `a` as a run holds it ([`crate::runs::put_sums`]).
fn put_acc(out: &mut Vec<u8>, a: &Acc) {
    let (r1, r2) = (a.r1, a.r2);
    let sums = [
        a.games, a.wins, a.losses, a.draws, a.unknown, r1.0, r1.1, r2.0, r2.1,
    ];
    crate::runs::put_sums(out, sums, a.moves.len(), a.moves.iter().copied());
}

fn get_acc(r: &mut impl std::io::Read) -> std::io::Result<Acc> {
    let mut moves = Vec::new();
    let n = crate::runs::get_sums(r, |code, games| {
        moves.push((code, games));
        Ok(())
    })?;
    Ok(Acc {
        games: n[0],
        wins: n[1],
        losses: n[2],
        draws: n[3],
        unknown: n[4],
        r1: (n[5], n[6]),
        r2: (n[7], n[8]),
        moves,
    })
}

impl chessfmt_files::runs::Record for Spilled {
    type Key = crate::runs::Order;

    fn key(&self) -> Self::Key {
        crate::runs::order(&self.key)
    }

    fn write(&self, out: &mut Vec<u8>) {
        crate::runs::put_key(out, &self.key);
        put_acc(out, &self.e.out);
        put_acc(out, &self.e.into);
        out.push(u8::from(self.e.reached));
    }

    fn read(r: &mut impl std::io::Read) -> std::io::Result<Option<Self>> {
        let Some(key) = crate::runs::get_key(r)? else {
            return Ok(None);
        };
        let (out, into) = (get_acc(r)?, get_acc(r)?);
        let mut flag = [0; 1];
        r.read_exact(&mut flag)?;
        let e = Entry {
            out,
            into,
            reached: flag[0] != 0,
        };
        Ok(Some(Spilled { key, e }))
    }
}

/// What was gathered under a limit: the positions in memory and the runs written past it
/// (none without a limit).
struct Gathered {
    all: Partial,
    runs: chessfmt_files::runs::Runs<Spilled>,
}

/// Gathers the positions of `rows` (see [`from_tally`]); with a `limit`, past it they are
/// written to sorted runs (anonymous temporary files in the limit's folder).
fn gather_limited(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
    limit: Option<&chess_core::book::MemoryLimit>,
) -> Result<Gathered, FromTallyError> {
    use chessfmt_files::runs::Runs;
    // Without a limit no run is written: the merge then only sorts what is in memory.
    let mut runs = Runs::<Spilled>::new(limit.map_or(".".as_ref(), |l| l.dir.as_path()));
    let spill = limit.map(|l| Spill {
        runs: &mut runs,
        most: (l.bytes / BYTES_PER_ENTRY).max(1024),
        record: |key, e| Spilled { key, e },
    });
    let all = gather_spilling(rows, CHUNK_ROWS, Partial::of, spill).map_err(|e| match e {
        GatherError::Runs(source) => FromTallyError::Runs {
            dir: runs.dir().to_path_buf(),
            source,
        },
        GatherError::Table(e) => FromTallyError::Table(e),
    })?;
    Ok(Gathered { all, runs })
}

/// The records made from one range of positions (on the pool), and what making them counted.
#[derive(Default)]
struct Made {
    records: Vec<RecordData>,
    truncated_positions: u64,
    /// The start position's games, where it is in the range.
    games: Option<u32>,
}

impl Gathered {
    /// Hands every position's record to `each`, in [`crate::write::hash_order`] (then by
    /// position), the runs merged with what is in memory; returns the statistics. The runs
    /// are merged and the records made in ranges of positions on the pool, as `cut` says.
    fn records(
        self,
        cut: chessfmt_files::runs::RangeMerge,
        mut each: impl FnMut(RecordData) -> Result<(), crate::Error> + Send,
    ) -> Result<FromTallyStats, FromTallyError> {
        let Partial {
            positions,
            mut stats,
        } = self.all;
        let start = position::key_of(&Chess::default());
        let fold = |made: &mut Made, s: Spilled| {
            let mut counted = FromTallyStats::default();
            let r = s.e.record(s.key.as_bytes(), &mut counted);
            made.truncated_positions += counted.truncated_positions;
            if Some(&s.key) == start.as_ref() {
                made.games = Some(r.stats.games);
            }
            made.records.push(r);
        };
        let last: Vec<Spilled> = positions
            .into_entries()
            .map(|(key, e)| Spilled { key, e })
            .collect();
        let dir = self.runs.dir().to_path_buf();
        let totals = &mut stats;
        self.runs
            .merge_in_ranges(
                last,
                cut,
                |a, b| a.e.merge(b.e),
                fold,
                |made: Made| {
                    totals.truncated_positions += made.truncated_positions;
                    totals.records += made.records.len();
                    if let Some(games) = made.games {
                        totals.games = games;
                    }
                    made.records
                        .into_iter()
                        .try_for_each(&mut each)
                        .map_err(MergeError::Sink)
                },
            )
            .map_err(|e| match e {
                MergeError::Io(source) => FromTallyError::Runs { dir, source },
                MergeError::Sink(e) => FromTallyError::Book(e),
            })?;
        Ok(stats)
    }
}

/// [`from_tally`] with the positions being gathered kept near `limit`: past it they are
/// written to sorted runs (anonymous temporary files in the limit's folder) and merged into
/// the records at the end. The records are [`from_tally`]'s, whatever the limit; they are
/// the book, held in memory: [`write_from_tally`] writes it without holding it.
pub fn from_tally_limited(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
    limit: Option<&chess_core::book::MemoryLimit>,
) -> Result<(Vec<RecordData>, FromTallyStats), FromTallyError> {
    if limit.is_none() {
        return Ok(from_tally(rows)?);
    }
    let mut records = Vec::new();
    let stats = gather_limited(rows, limit)?.records(
        crate::write::merge_cut(limit.map(|l| l.bytes)),
        |r| {
            records.push(r);
            Ok(())
        },
    )?;
    records.sort_unstable_by(|a, b| a.position.cmp(&b.position));
    Ok((records, stats))
}

/// The book of [`from_tally`] written as it is made: the records go to `writer` in its
/// order, and with a `limit` the positions being gathered stay near it — past it they are
/// written to sorted runs (anonymous temporary files in the limit's folder) and merged as the
/// book is written. The book is the one [`from_tally`]'s records make, whatever the limit;
/// memory: the limit, and six bytes a record in the writer. `writer` is left to be finished
/// with [`FromTallyStats::games`] (or dropped: nothing is committed).
pub fn write_from_tally(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
    writer: &mut crate::write::StreamWriter,
    limit: Option<&chess_core::book::MemoryLimit>,
) -> Result<FromTallyStats, FromTallyError> {
    gather_limited(rows, limit)?.records(crate::write::merge_cut(limit.map(|l| l.bytes)), |r| {
        writer.push(&r)
    })
}

/// What [`to_tally`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToTallyStats {
    /// Positions reached by the walk.
    pub positions: u64,
    /// Rows written.
    pub rows: u64,
    /// Moves whose position after them has no record (rows without counts).
    pub moves_without_statistics: u64,
    /// Moves with an annotation byte (not kept).
    pub annotations_dropped: u64,
    /// Positions with a recommendation or commentary (not kept).
    pub recommendations_dropped: u64,
    /// Positions whose record could not be read (damaged; the walk went on).
    pub damaged: u64,
    /// Positions the walk reaches by more than one move with statistics: each such move's
    /// row carries the position's statistics, so a book made back from the table counts
    /// them once per move into it ([`chessfmt_tally::gather::Reached`]).
    pub transposed_positions: u64,
}

/// The rows of a CTG book (see the [module](self) documentation), sorted as a table is.
pub fn to_tally<D: AsRef<[u8]>>(book: &Book<D>) -> (Vec<Row>, ToTallyStats) {
    let mut stats = ToTallyStats::default();
    let mut rows = Vec::new();
    let mut walk = chess_core::book::walk(book, Chess::default(), None);
    let mut reached = chessfmt_tally::gather::Reached::default();
    for node in walk.by_ref() {
        stats.positions += 1;
        let p = &node.position;
        let key = chess_core::polyglot_key(p);
        let epd = Epd::from_position(p, EnPassantMode::Legal).to_string();
        let s = &node.probe.stats;
        stats.recommendations_dropped += u64::from(s.recommendation != 0 || s.commentary != 0);
        for (i, m) in node.probe.moves.iter().enumerate() {
            stats.annotations_dropped += u64::from(m.annotation != 0);
            let mut row = Row::new(
                key,
                epd.clone(),
                m.mv.to_uci(CastlingMode::Standard).to_string(),
            );
            row.counts.first_seen = i as u64;
            match &m.child {
                None => stats.moves_without_statistics += 1,
                Some(c) => {
                    let mut after = p.clone();
                    after.play_unchecked(m.mv);
                    reached.add(chess_core::polyglot_key(&after));
                    // The child's side to move is the opponent of this move's mover.
                    let mover = p.turn();
                    let (mover_wins, mover_losses) = (u64::from(c.losses), u64::from(c.wins));
                    let (white, black) = match mover {
                        Color::White => (mover_wins, mover_losses),
                        Color::Black => (mover_losses, mover_wins),
                    };
                    let (mover_r, other_r) = (c.rating2, c.rating1);
                    let (wr, br) = match mover {
                        Color::White => (mover_r, other_r),
                        Color::Black => (other_r, mover_r),
                    };
                    row.counts.white = white;
                    row.counts.black = black;
                    row.counts.draws = u64::from(c.draws);
                    row.counts.games = u64::from(c.games).max(white + black + u64::from(c.draws));
                    row.counts.white_elo_games = u64::from(wr.games);
                    row.counts.white_elo_sum = u64::from(wr.sum);
                    row.counts.black_elo_games = u64::from(br.games);
                    row.counts.black_elo_sum = u64::from(br.sum);
                }
            }
            rows.push(row);
        }
    }
    stats.damaged = walk.stats().damaged;
    stats.transposed_positions = reached.more_than_once();
    let rows = chessfmt_tally::sort_and_sum(rows);
    stats.rows = rows.len() as u64;
    (rows, stats)
}

#[cfg(all(test, feature = "pgn"))]
mod tests {
    use super::*;

    /// Rows resolved in chunks and summed in order give the records and statistics of one
    /// pass over the rows, however finely the table is cut, bad rows included.
    #[test]
    fn chunks_change_nothing() {
        let (_, stats) = chessfmt_tally::fuzzing::check_chunks_change_nothing(
            include_str!("../../../testdata/kvetka/small.pgn"),
            |rows, chunk| from_tally_in_chunks(rows.iter().cloned().map(Ok), chunk).unwrap(),
        );
        assert_eq!(
            (stats.bad_rows.count, stats.bad_rows.examples.len()),
            (6, 5)
        );
    }

    /// Positions gathered under a limit that spills runs of a thousand (merged at the end)
    /// give [`from_tally`]'s records and statistics; a limit with room writes no run.
    #[test]
    fn runs_change_nothing() {
        let Some(rows) = chessfmt_tally::fuzzing::lichess_sample_rows() else {
            return;
        };
        let whole = from_tally(rows.iter().cloned().map(Ok)).unwrap();
        assert!(whole.0.len() > 20_000, "{} records", whole.0.len());
        let dir = tempfile::tempdir().unwrap();
        for bytes in [1, 1 << 30] {
            let limit = chess_core::book::MemoryLimit::new(bytes, dir.path());
            let limited = from_tally_limited(rows.iter().cloned().map(Ok), Some(&limit)).unwrap();
            assert!(
                limited == whole,
                "a limit of {bytes} bytes changed the records"
            );
        }
    }

    /// The book written as it is made, under a limit that spills runs of a thousand, one with
    /// room, or none, is byte for byte the book of [`from_tally`]'s records.
    #[test]
    fn written_as_made_is_the_book_of_the_records() {
        let Some(rows) = chessfmt_tally::fuzzing::lichess_sample_rows() else {
            return;
        };
        let (records, whole) = from_tally(rows.iter().cloned().map(Ok)).unwrap();
        assert!(whole.games > 900, "{} games", whole.games);
        let dir = tempfile::tempdir().unwrap();
        let expected = crate::write::to_bytes(&records, whole.games).unwrap();
        for bytes in [Some(1), Some(1 << 30), None] {
            let limit = bytes.map(|b| chess_core::book::MemoryLimit::new(b, dir.path()));
            let path = dir.path().join("book.ctg");
            let mut w = crate::write::StreamWriter::new(&path, true, dir.path()).unwrap();
            let stats =
                write_from_tally(rows.iter().cloned().map(Ok), &mut w, limit.as_ref()).unwrap();
            assert_eq!(stats, whole, "limit {bytes:?}");
            w.finish(stats.games).unwrap();
            for (p, bytes) in crate::write::book_paths(&path).iter().zip(&expected) {
                assert!(
                    &std::fs::read(p).unwrap() == bytes,
                    "limit {bytes:?}: {p:?} differs"
                );
            }
        }
    }
}
