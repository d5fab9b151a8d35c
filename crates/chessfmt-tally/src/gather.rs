//! A book's positions gathered from a table's rows, for the book writers that resolve every
//! row (a position parsed, a move coded): chunks of rows mapped on the rayon pool into
//! positions kept in shards ([`ShardedMap`]), folded in the table's order so the sums are
//! those of one pass over the rows, and — under a memory limit — written to sorted runs
//! whenever the positions in memory reach it. The rows a writer cannot use are counted in
//! one way by every writer ([`BadRows`]).

use std::{hash::Hash, io};

use chessfmt_files::runs::{Record, Runs};

use crate::{Counts, Error, Row, ShardedMap, map_chunks};

/// A position's statistics as a book writer gathers them from rows, added field by field;
/// ordered, so that the largest of a book's rows can be taken ([`Reaching`]).
pub trait Statistics: Copy + Default + Ord {
    /// Adds `other`, field by field.
    fn add(&mut self, other: &Self);
}

/// Three sums (a Kvetka element's wins, draws and losses).
impl Statistics for [u64; 3] {
    fn add(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            *a += b;
        }
    }
}

/// What the rows reaching one position give it in a book made from the table: the rows from
/// games summed (each play one route into the position), and of a book's rows
/// ([`Counts::from_book`]), which each carry the position's statistics, the largest (all
/// equal within one book; tables of several books merged give each move their sum).
///
/// ```
/// use chessfmt_tally::{Counts, gather::Reaching};
///
/// let book = Counts { from_book: true, ..Counts::default() };
/// let games = Counts::default();
/// let mut r = Reaching::<[u64; 3]>::default();
/// // A position a book reaches by two moves, and two plays of games.
/// for (c, s) in [(&book, [7, 2, 1]), (&book, [7, 2, 1]), (&games, [1, 0, 0]), (&games, [0, 1, 0])] {
///     r.add(c, s);
/// }
/// assert_eq!(r.total(), [8, 3, 1]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reaching<S> {
    /// The rows from games, summed.
    pub games: S,
    /// The largest of a book's rows, if any reaches the position.
    pub book: Option<S>,
}

impl<S: Statistics> Reaching<S> {
    /// Adds a row reaching the position: its counts `c` (whether it is a book's) and the
    /// statistics `s` they give the position.
    pub fn add(&mut self, c: &Counts, s: S) {
        if c.from_book {
            self.book = self.book.max(Some(s));
        } else {
            self.games.add(&s);
        }
    }

    /// Adds `other` (gathered from other rows).
    pub fn merge(&mut self, other: &Reaching<S>) {
        self.games.add(&other.games);
        self.book = self.book.max(other.book);
    }

    /// The position's statistics: the games' sum and the book's.
    pub fn total(&self) -> S {
        let mut total = self.games;
        if let Some(book) = &self.book {
            total.add(book);
        }
        total
    }
}

/// Rows one task of a gathering resolves (a chunk of [`map_chunks`]).
pub const CHUNK_ROWS: usize = 4096;

/// The rows a book made from a table left out: how many, and the first few as messages.
///
/// ```
/// use chessfmt_tally::BadRows;
///
/// let mut bad = BadRows::default();
/// for i in 0..7 {
///     bad.note(format!("row {i}: no such square"));
/// }
/// assert_eq!((bad.count, bad.examples.len()), (7, BadRows::EXAMPLES));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BadRows {
    /// Rows left out.
    pub count: u64,
    /// The first [`BadRows::EXAMPLES`] of them, as messages.
    pub examples: Vec<String>,
}

impl BadRows {
    /// Messages kept.
    pub const EXAMPLES: usize = 5;

    /// Counts a row left out, keeping its message while fewer than [`BadRows::EXAMPLES`] are
    /// kept.
    pub fn note(&mut self, message: String) {
        self.count += 1;
        if self.examples.len() < Self::EXAMPLES {
            self.examples.push(message);
        }
    }

    /// Adds the rows left out after these (their examples after these ones, while there is
    /// room).
    pub fn add(&mut self, later: BadRows) {
        self.count += later.count;
        let room = Self::EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(later.examples.into_iter().take(room));
    }
}

/// What a chunk of rows gathers, and what the chunks folded so far have: a book's positions
/// and what the rows counted.
pub trait Gathering: Default + Send {
    /// A position's key.
    type Key: Hash + Eq + Send;
    /// What is gathered of a position.
    type Entry: Send;

    /// The positions gathered.
    fn positions(&mut self) -> &mut ShardedMap<Self::Key, Self::Entry>;

    /// Adds `later`, gathered from the rows after this one's.
    fn merge(&mut self, later: Self);
}

/// Why [`gather_spilling`] failed (exhaustive: a gathering reads rows and writes runs,
/// nothing else).
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    /// The table could not be read.
    #[error(transparent)]
    Table(#[from] Error),
    /// A run could not be written (in [`Runs::dir`]).
    #[error("the temporary runs: {0}")]
    Runs(io::Error),
}

/// Where a [`gather_spilling`] under a memory limit writes what it gathered: `runs`, each
/// position made into a run's record by `record`, whenever `most` positions are in memory.
pub struct Spill<'a, G: Gathering, R: Record> {
    /// The runs written.
    pub runs: &'a mut Runs<R>,
    /// The most positions kept in memory.
    pub most: usize,
    /// A position as a run's record.
    pub record: fn(G::Key, G::Entry) -> R,
}

/// Gathers `rows` `chunk_rows` at a time: each chunk mapped by `of` on the current rayon pool,
/// the results folded in the table's order ([`Gathering::merge`]): what one pass over the
/// rows would gather.
///
/// ```
/// use chessfmt_tally::{
///     Row, ShardedMap,
///     gather::{Gathering, gather},
/// };
///
/// /// The plays of each position.
/// #[derive(Default)]
/// struct Plays(ShardedMap<u64, u64>);
///
/// impl Gathering for Plays {
///     type Key = u64;
///     type Entry = u64;
///     fn positions(&mut self) -> &mut ShardedMap<u64, u64> {
///         &mut self.0
///     }
///     fn merge(&mut self, later: Plays) {
///         self.0.merge(later.0, |a, b| *a += b);
///     }
/// }
///
/// let rows = (0..10u64).map(|i| {
///     let mut row = Row::new(i % 3, "8/8/8/8/8/8/8/K6k w - -", "a1a2");
///     row.counts.games = 1;
///     Ok(row)
/// });
/// let of = |rows: &[Row]| {
///     let mut part = Plays::default();
///     for r in rows {
///         *part.0.entry(r.key) += r.counts.games;
///     }
///     part
/// };
/// let all = gather(rows, 4, of)?;
/// let mut plays: Vec<(u64, u64)> = all.0.into_entries().collect();
/// plays.sort();
/// assert_eq!(plays, [(0, 4), (1, 3), (2, 3)]);
/// # Ok::<(), chessfmt_tally::Error>(())
/// ```
pub fn gather<G: Gathering>(
    rows: impl IntoIterator<Item = Result<Row, Error>>,
    chunk_rows: usize,
    of: impl Fn(&[Row]) -> G + Sync,
) -> Result<G, Error> {
    let mut all = G::default();
    map_chunks(rows, chunk_rows, of, |part| all.merge(part))?;
    Ok(all)
}

/// [`gather`], and with a `spill` the positions in memory written to a sorted run (and
/// emptied) whenever they reach its [`Spill::most`]: what is returned is then what came after
/// the last run, and the runs with it are what [`gather`] returns. After a failed run nothing
/// more is gathered.
pub fn gather_spilling<G: Gathering, R>(
    rows: impl IntoIterator<Item = Result<Row, Error>>,
    chunk_rows: usize,
    of: impl Fn(&[Row]) -> G + Sync,
    spill: Option<Spill<'_, G, R>>,
) -> Result<G, GatherError>
where
    R: Record + Send + Sync,
    R::Key: Send + Sync,
{
    let Some(spill) = spill else {
        return Ok(gather(rows, chunk_rows, of)?);
    };
    let mut all = G::default();
    let mut failed = None;
    map_chunks(rows, chunk_rows, of, |part| {
        if failed.is_some() {
            return;
        }
        all.merge(part);
        if all.positions().len() >= spill.most {
            let record = spill.record;
            let run: Vec<R> = all.positions().drain().map(|(k, e)| record(k, e)).collect();
            failed = spill.runs.write(run).err();
        }
    })?;
    match failed {
        Some(e) => Err(GatherError::Runs(e)),
        None => Ok(all),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position's plays, as a run holds them.
    #[derive(Debug, PartialEq)]
    struct Plays(u64, u64);

    impl Record for Plays {
        type Key = u64;
        fn key(&self) -> u64 {
            self.0
        }
        fn write(&self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.0.to_le_bytes());
            out.extend_from_slice(&self.1.to_le_bytes());
        }
        fn read(r: &mut impl io::Read) -> io::Result<Option<Self>> {
            let mut key = [0; 8];
            if !chessfmt_files::runs::read_start(r, &mut key)? {
                return Ok(None);
            }
            let mut n = [0; 8];
            r.read_exact(&mut n)?;
            Ok(Some(Plays(u64::from_le_bytes(key), u64::from_le_bytes(n))))
        }
    }

    #[derive(Default)]
    struct Part {
        plays: ShardedMap<u64, u64>,
        bad: BadRows,
    }

    impl Gathering for Part {
        type Key = u64;
        type Entry = u64;
        fn positions(&mut self) -> &mut ShardedMap<u64, u64> {
            &mut self.plays
        }
        fn merge(&mut self, later: Part) {
            self.plays.merge(later.plays, |a, b| *a += b);
            self.bad.add(later.bad);
        }
    }

    fn of(rows: &[Row]) -> Part {
        let mut part = Part::default();
        for r in rows {
            if r.uci.is_empty() {
                part.bad.note(format!("row {}: no move", r.key));
            } else {
                *part.plays.entry(r.key % 100) += r.counts.games;
            }
        }
        part
    }

    fn rows(n: u64) -> impl Iterator<Item = Result<Row, Error>> {
        (0..n).map(|i| {
            let mut row = Row::new(i, "", if i % 7 == 0 { "" } else { "a1a2" });
            row.counts.games = i;
            Ok(row)
        })
    }

    /// The same sums and the same first bad rows whatever the chunks and the limit: what
    /// stayed in memory and the runs' records add up to one pass's.
    #[test]
    fn chunks_and_runs_change_nothing() {
        let mut want = vec![0u64; 100];
        for i in (0..5000u64).filter(|i| i % 7 != 0) {
            want[(i % 100) as usize] += i;
        }
        for chunk in [1, 3, 4096] {
            for most in [None, Some(10), Some(100), Some(1000)] {
                let dir = tempfile::tempdir().unwrap();
                let mut runs = Runs::<Plays>::new(dir.path());
                let spill = most.map(|most| Spill {
                    runs: &mut runs,
                    most,
                    record: |k, n| Plays(k, n),
                });
                let mut all = gather_spilling(rows(5000), chunk, of, spill).unwrap();
                assert_eq!(all.bad.count, 715);
                let examples: Vec<String> =
                    (0..5).map(|i| format!("row {}: no move", i * 7)).collect();
                assert_eq!(all.bad.examples, examples);
                assert_eq!(!runs.is_empty(), most.is_some_and(|m| m <= 100), "{most:?}");
                let mut got = vec![0u64; 100];
                let last: Vec<Plays> = all.plays.drain().map(|(k, n)| Plays(k, n)).collect();
                runs.merge(
                    last,
                    |a, b| a.1 += b.1,
                    |p| {
                        got[p.0 as usize] += p.1;
                        Ok::<_, io::Error>(())
                    },
                )
                .unwrap();
                assert_eq!(got, want, "chunks of {chunk}, most {most:?}");
            }
        }
    }

    /// A run that cannot be written ends the gathering with the error.
    #[test]
    fn a_failed_run_is_the_error() {
        let mut runs = Runs::<Plays>::new("/nonexistent/chessfmt-gather-test");
        let spill = Spill {
            runs: &mut runs,
            most: 1,
            record: |k, n| Plays(k, n),
        };
        assert!(matches!(
            gather_spilling(rows(100), 10, of, Some(spill)),
            Err(GatherError::Runs(_))
        ));
    }
}
