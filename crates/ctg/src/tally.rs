//! CTG books from and to the statistics table of `chessfmt-tally`.
//!
//! **From a table** ([`from_tally`]): a position's record sums the rows that reach it (every
//! game through it, the games that end there included; the start of the lines, which no row
//! reaches, sums the rows leaving it) — games, the results of its side to move, the ratings of
//! the side to move (pair 1) and of the opponent (pair 2), points as a build counts them (10 a
//! win, 5 a draw or a game without result) — and lists the moves leaving it, most played
//! first. Where a build from PGN counts a game once per position, a table counts every play: a
//! position repeated in a game counts again. Moves CTG cannot code are counted
//! ([`FromTallyStats::uncodable_moves`]). Rows from a book ([`Counts::from_book`]) each carry
//! the statistics of the position they reach: those are taken once (the largest, where
//! tables of several books were merged), not summed; a position's moves from a book keep the
//! book's order ([`Counts::first_seen`]) and annotations, and the position takes the
//! recommendation and commentary of the rows reaching it.
//!
//! On the first 10,000 gnuchess games a book through the table differs from `ctg build`'s in
//! 3 of 42,233 records at 16 plies, 226 of 240,112 at 40 (positions repeated within a game).
//!
//! **To a table** ([`to_tally`]): the book is walked from the start position; each move's row
//! holds the statistics of the position after it (games, results turned to White's view,
//! ratings by colour), as CTG readers show a move's, marked as a book's, with the move's
//! annotation, its place among the position's moves, and the recommendation and commentary
//! of the position after it. A book made back from the table is the same book in every
//! record the walk reaches, but the start position's own record where it is not the sum of
//! its moves' ([`ToTallyStats::start_not_kept`]); records no walk reaches are counted.

use chessfmt_files::runs::MergeError;
use chessfmt_tally::{
    BadRows, Counts, Error as TallyError, Row,
    gather::{
        CHUNK_ROWS, GatherError, Gathering, Reaching, Spill, Statistics, gather, gather_spilling,
    },
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

/// A position's statistics as its record keeps them: in its side to move's view. Ordered by
/// games first (the largest of a book's rows reaching a position is taken: see [`Entry`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Sums {
    games: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    unknown: u64,
    /// Ratings of the side to move, then of the opponent: (games, sum).
    r1: (u64, u64),
    r2: (u64, u64),
}

impl Sums {
    /// The plays of `c` as seen by `side` (to move in the counted position).
    fn of(c: &Counts, side: Color) -> Sums {
        let (wins, losses, own, other) = match side {
            Color::White => (
                c.white,
                c.black,
                (c.white_elo_games, c.white_elo_sum),
                (c.black_elo_games, c.black_elo_sum),
            ),
            Color::Black => (
                c.black,
                c.white,
                (c.black_elo_games, c.black_elo_sum),
                (c.white_elo_games, c.white_elo_sum),
            ),
        };
        Sums {
            games: c.games,
            wins,
            losses,
            draws: c.draws,
            unknown: c.unknown(),
            r1: own,
            r2: other,
        }
    }

    /// The nine sums as a run holds them.
    fn to_array(self) -> [u64; 9] {
        let Sums {
            games,
            wins,
            losses,
            draws,
            unknown,
            r1,
            r2,
        } = self;
        [games, wins, losses, draws, unknown, r1.0, r1.1, r2.0, r2.1]
    }

    fn from_array(n: [u64; 9]) -> Sums {
        Sums {
            games: n[0],
            wins: n[1],
            losses: n[2],
            draws: n[3],
            unknown: n[4],
            r1: (n[5], n[6]),
            r2: (n[7], n[8]),
        }
    }

    /// The record's statistics, with the book's `marks` (recommendation, commentary).
    fn stats(&self, (recommendation, commentary): (u8, u8)) -> Stats {
        let sat = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        Stats {
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
            recommendation,
            commentary,
            ..Stats::default()
        }
        .saturated()
    }
}

impl Statistics for Sums {
    fn add(&mut self, o: &Sums) {
        self.games += o.games;
        self.wins += o.wins;
        self.losses += o.losses;
        self.draws += o.draws;
        self.unknown += o.unknown;
        self.r1 = (self.r1.0 + o.r1.0, self.r1.1 + o.r1.1);
        self.r2 = (self.r2.0 + o.r2.0, self.r2.1 + o.r2.1);
    }
}

/// A move leaving a position being gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MoveAcc {
    code: u8,
    /// Its rows' games: plays, or for a book's rows the games of the position after it.
    games: u64,
    /// The smallest [`Counts::first_seen`]: for a book's rows, the move's place in the book.
    seen: u64,
    /// The largest annotation byte.
    annotation: u8,
    /// Whether all its rows are a book's.
    book: bool,
}

/// The rows leaving a position: their statistics and its moves.
#[derive(Debug, Default)]
struct Acc {
    sums: Sums,
    moves: Vec<MoveAcc>,
}

impl Acc {
    /// Adds the move `m` (of one row, or gathered from rows elsewhere).
    fn add_move(&mut self, m: MoveAcc) {
        match self.moves.iter_mut().find(|a| a.code == m.code) {
            Some(a) => {
                a.games += m.games;
                a.seen = a.seen.min(m.seen);
                a.annotation = a.annotation.max(m.annotation);
                a.book &= m.book;
            }
            None => self.moves.push(m),
        }
    }

    /// Adds the sums and moves of `other`.
    fn merge(&mut self, other: Acc) {
        self.sums.add(&other.sums);
        for m in other.moves {
            self.add_move(m);
        }
    }

    /// The moves as the record stores them, with their annotations: a book's in the book's
    /// order, others most played first (ties by code); at most [`MAX_MOVES`].
    fn record_moves(mut self, stats: &mut FromTallyStats) -> Vec<(u8, u8)> {
        if self.moves.iter().all(|m| m.book) {
            self.moves.sort_by_key(|m| (m.seen, m.code));
        } else {
            self.moves
                .sort_by(|a, b| b.games.cmp(&a.games).then(a.code.cmp(&b.code)));
        }
        if self.moves.len() > MAX_MOVES {
            stats.truncated_positions += 1;
            self.moves.truncate(MAX_MOVES);
        }
        self.moves.iter().map(|m| (m.code, m.annotation)).collect()
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

/// A position being gathered: the rows leaving it (with its moves) and the rows reaching it
/// (games' summed, a book's taken once: [`Reaching`]).
#[derive(Debug, Default)]
struct Entry {
    out: Acc,
    into: Reaching<Sums>,
    /// Whether a row reaches it.
    reached: bool,
    /// The largest recommendation and commentary of the rows reaching it.
    marks: (u8, u8),
}

impl Entry {
    /// Adds `other` (gathered from rows after this one's).
    fn merge(&mut self, other: Entry) {
        self.out.merge(other.out);
        self.into.merge(&other.into);
        self.reached |= other.reached;
        self.marks = (
            self.marks.0.max(other.marks.0),
            self.marks.1.max(other.marks.1),
        );
    }

    /// Adds a row reaching the position, its counts seen by `side` (to move there).
    fn add_into(&mut self, c: &Counts, side: Color) {
        self.into.add(c, Sums::of(c, side));
        self.reached = true;
        self.marks = (
            self.marks.0.max(c.recommendation),
            self.marks.1.max(c.commentary),
        );
    }

    /// The record of the position `key`: the statistics of the rows reaching it (every game
    /// through it, games that end there included), or of those leaving it where none reaches
    /// it (the start of the lines); its moves are always those leaving it.
    fn record(self, key: &[u8], stats: &mut FromTallyStats) -> RecordData {
        let sums = if self.reached {
            self.into.total()
        } else {
            self.out.sums
        };
        RecordData {
            position: key.to_vec(),
            moves: self.out.record_moves(stats),
            stats: sums.stats(self.marks),
        }
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
            let c = &row.counts;
            let acc = &mut part.positions.entry(key).out;
            acc.sums.add(&Sums::of(c, p.turn()));
            let n = normalize(p);
            match moves::encode(&n.position, n.transform.apply_move(m)) {
                Some(code) => acc.add_move(MoveAcc {
                    code,
                    games: c.games,
                    seen: c.first_seen,
                    annotation: c.annotation,
                    book: c.from_book,
                }),
                None => stats.uncodable_moves += 1,
            }
            // A move without plays or a book's statistics (a book's move whose position
            // after it has no record) reaches no record.
            if c.games == 0 && !c.from_book {
                continue;
            }
            let mut child = p.clone();
            child.play_unchecked(m);
            if let Some(ckey) = position::key_of(&child) {
                part.positions.entry(ckey).add_into(c, child.turn());
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

/// Writes `a` as a run holds it ([`crate::runs::put_sums`]), then each move's place,
/// annotation and whether it is a book's.
fn put_acc(out: &mut Vec<u8>, a: &Acc) {
    let moves = a.moves.iter().map(|m| (m.code, m.games));
    crate::runs::put_sums(out, a.sums.to_array(), a.moves.len(), moves);
    for m in &a.moves {
        chessfmt_files::runs::put_varint(out, m.seen);
        out.extend_from_slice(&[m.annotation, u8::from(m.book)]);
    }
}

fn get_acc(r: &mut impl std::io::Read) -> std::io::Result<Acc> {
    let mut moves = Vec::new();
    let n = crate::runs::get_sums(r, |code, games| {
        moves.push(MoveAcc {
            code,
            games,
            seen: u64::MAX,
            annotation: 0,
            book: false,
        });
        Ok(())
    })?;
    for m in &mut moves {
        m.seen = chessfmt_files::runs::get_varint(r)?;
        let mut b = [0; 2];
        r.read_exact(&mut b)?;
        (m.annotation, m.book) = (b[0], b[1] != 0);
    }
    Ok(Acc {
        sums: Sums::from_array(n),
        moves,
    })
}

impl chessfmt_files::runs::Record for Spilled {
    type Key = crate::runs::Order;

    fn key(&self) -> Self::Key {
        crate::runs::order(&self.key)
    }

    fn write(&self, out: &mut Vec<u8>) {
        use chessfmt_files::runs::put_varint;
        let e = &self.e;
        crate::runs::put_key(out, &self.key);
        put_acc(out, &e.out);
        for v in e.into.games.to_array() {
            put_varint(out, v);
        }
        match e.into.book {
            None => out.push(0),
            Some(b) => {
                out.push(1);
                for v in b.to_array() {
                    put_varint(out, v);
                }
            }
        }
        out.extend_from_slice(&[u8::from(e.reached), e.marks.0, e.marks.1]);
    }

    fn read(r: &mut impl std::io::Read) -> std::io::Result<Option<Self>> {
        let Some(key) = crate::runs::get_key(r)? else {
            return Ok(None);
        };
        let sums = |r: &mut _| -> std::io::Result<Sums> {
            let mut n = [0u64; 9];
            for v in &mut n {
                *v = chessfmt_files::runs::get_varint(r)?;
            }
            Ok(Sums::from_array(n))
        };
        let out = get_acc(r)?;
        let into = sums(r)?;
        let mut flag = [0; 1];
        r.read_exact(&mut flag)?;
        let book = match flag[0] {
            0 => None,
            _ => Some(sums(r)?),
        };
        let mut b = [0; 3];
        r.read_exact(&mut b)?;
        let e = Entry {
            out,
            into: Reaching { games: into, book },
            reached: b[0] != 0,
            marks: (b[1], b[2]),
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
    /// Positions reached by the walk (a position and its colour twin, which share a record,
    /// count twice).
    pub positions: u64,
    /// Rows written.
    pub rows: u64,
    /// Moves whose position after them has no record (rows without counts, not marked as a
    /// book's: they make no record back).
    pub moves_without_statistics: u64,
    /// Moves with an annotation byte (kept: [`Counts::annotation`]).
    pub annotations: u64,
    /// Records no walk from the start reaches (not in the table).
    pub unreached_records: u64,
    /// Whether the start position's own record is not what a book made from the table gives
    /// it: no row reaches the start, so its statistics are made from its moves' rows, and
    /// its recommendation and commentary have no row to be kept in.
    pub start_not_kept: bool,
    /// Stored moves that decode to no legal move (not kept).
    pub undecodable_moves: u64,
    /// Records a row reaches whose statistics a book made from the table does not give back
    /// byte for byte: points counted by another rule (some books give nothing for a game
    /// without result, where a book made from a table gives 5), fewer games than results, or
    /// the byte after the recommendation (unknown; 0 in every book seen) not 0.
    pub records_changed: u64,
    /// Positions whose record could not be read (damaged; the walk went on).
    pub damaged: u64,
}

/// Whether the start position's record `own` is what a book made from the table gives it:
/// the sums of its moves' rows (`out`), no recommendation, no commentary.
fn start_kept(own: &Stats, out: &Sums) -> bool {
    let made = out.stats((0, 0));
    made.to_bytes() == own.to_bytes()
}

/// The rows of a CTG book (see the [module](self) documentation), sorted as a table is.
/// With the feature `parallel` (a default), the walked positions are probed on the current
/// rayon pool (as `convert::to_polyglot` does); the rows are the same.
pub fn to_tally<D: AsRef<[u8]> + Sync>(book: &Book<D>) -> (Vec<Row>, ToTallyStats) {
    let mut stats = ToTallyStats::default();
    let mut rows = Vec::new();
    // With the feature `parallel`, the probes are made on the current rayon pool.
    let mut walk = chess_core::book::conversion_walk(book, Chess::default(), None);
    // The records the walk reaches (a position and its colour twin share one).
    let mut records = std::collections::HashSet::new();
    for node in walk.by_ref() {
        stats.positions += 1;
        let p = &node.position;
        let s = &node.probe.stats;
        // A record a move reaches comes back from its rows (each carries its statistics):
        // checked once, against its bytes.
        if position::key_of(p).is_some_and(|k| records.insert(k)) && node.ply > 0 {
            let made = Sums::of(&row_counts(s, !p.turn()), p.turn())
                .stats((s.recommendation, s.commentary));
            stats.records_changed += u64::from(made.to_bytes() != s.to_bytes());
        }
        let key = chess_core::polyglot_key(p);
        let epd = Epd::from_position(p, EnPassantMode::Legal).to_string();
        let mut out = Sums::default();
        for (i, m) in node.probe.moves.iter().enumerate() {
            stats.annotations += u64::from(m.annotation != 0);
            let mut row = Row::new(
                key,
                epd.clone(),
                m.mv.to_uci(CastlingMode::Standard).to_string(),
            );
            match &m.child {
                None => stats.moves_without_statistics += 1,
                Some(c) => {
                    row.counts = row_counts(c, p.turn());
                    out.add(&Sums::of(&row.counts, p.turn()));
                }
            }
            row.counts.first_seen = i as u64;
            row.counts.annotation = m.annotation;
            rows.push(row);
        }
        if node.ply == 0 {
            stats.start_not_kept = !start_kept(s, &out);
        }
    }
    let walked = walk.stats();
    stats.damaged = walked.damaged;
    stats.undecodable_moves = walked.undecodable;
    let in_book = book.records().filter(|r| r.is_ok()).count() as u64;
    stats.unreached_records = in_book.saturating_sub(records.len() as u64);
    let rows = chessfmt_tally::sort_and_sum(rows);
    stats.rows = rows.len() as u64;
    (rows, stats)
}

/// The counts of a move played by `mover` into a position whose record holds `c` (its
/// side to move's view): its statistics in White's view, ratings by colour, the record's
/// colour and comment, marked as a book's.
fn row_counts(c: &Stats, mover: Color) -> Counts {
    // The record's side to move is the opponent of the mover.
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
    Counts {
        white,
        black,
        draws: u64::from(c.draws),
        games: u64::from(c.games).max(white + black + u64::from(c.draws)),
        white_elo_games: u64::from(wr.games),
        white_elo_sum: u64::from(wr.sum),
        black_elo_games: u64::from(br.games),
        black_elo_sum: u64::from(br.sum),
        recommendation: c.recommendation,
        commentary: c.commentary,
        from_book: true,
        ..Counts::default()
    }
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

#[cfg(all(test, feature = "pgn"))]
mod round_trip {
    use super::*;

    /// The records of a book made from a table of the corpus's lichess games, marked as a
    /// ChessBase book might be: annotations on some moves, colours and comments on some
    /// positions.
    fn marked_book() -> Option<Vec<RecordData>> {
        let rows = chessfmt_tally::fuzzing::lichess_sample_rows()?;
        let (mut records, _) = from_tally(rows.into_iter().map(Ok)).unwrap();
        for (i, r) in records.iter_mut().enumerate() {
            if let Some(m) = r.moves.get_mut(i % 3) {
                m.1 = [1, 2, 5, 6][i % 4];
            }
            r.stats.recommendation = [0, 0x80, 0, 0x40][i % 4];
            r.stats.commentary = [0, 0, 14, 0, 0][i % 5];
        }
        Some(records)
    }

    /// A book through the table (walked into rows, made back from them) is the same book in
    /// every record the walk reaches — statistics, the order of moves, annotations, colours
    /// and comments — however its positions are gathered (in memory, or under a limit that
    /// spills runs of a thousand); the start's record is reported where its own statistics
    /// are not the sum of its moves'.
    #[test]
    fn a_book_goes_through_the_table_unchanged() {
        let Some(records) = marked_book() else {
            return;
        };
        let games = games_of(&records);
        let [ctg, cto, ctb] = crate::write::to_bytes(&records, games).unwrap();
        let book = Book::new(ctg, cto, &ctb).unwrap();
        let (rows, stats) = to_tally(&book);
        assert!(stats.annotations > 1000, "{stats:?}");
        assert_eq!(
            (stats.records_changed, stats.moves_without_statistics),
            (0, 0)
        );
        assert!(rows.iter().all(|r| r.counts.from_book));
        let (back, made) = from_tally(rows.iter().cloned().map(Ok)).unwrap();
        let start = position::key_of(&Chess::default()).unwrap();
        let reached: std::collections::HashSet<&[u8]> =
            back.iter().map(|r| r.position.as_slice()).collect();
        let want: Vec<&RecordData> = records
            .iter()
            .filter(|r| reached.contains(r.position.as_slice()))
            .collect();
        assert_eq!(
            want.len() as u64 + stats.unreached_records,
            records.len() as u64
        );
        assert_eq!(back.len(), want.len());
        let mut differ = 0;
        for (b, w) in back.iter().zip(&want) {
            if b.position == start.as_bytes() && stats.start_not_kept {
                // The start's own statistics or colour have no row to be kept in: reported.
                assert_eq!(b.moves, w.moves);
                continue;
            }
            differ += u64::from(b != *w);
        }
        assert_eq!(differ, 0, "records differ");
        let dir = tempfile::tempdir().unwrap();
        for bytes in [1, 1 << 30] {
            let limit = chess_core::book::MemoryLimit::new(bytes, dir.path());
            let limited = from_tally_limited(rows.iter().cloned().map(Ok), Some(&limit)).unwrap();
            assert!(limited == (back.clone(), made.clone()), "limit {bytes}");
        }
    }
}
