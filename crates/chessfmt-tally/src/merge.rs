//! The reduce: sorted tables merged into one, rows of the same position and move summed —
//! the sums Spark's `groupBy(key, epd, move).sum()` or SQL's `GROUP BY` give, in memory for
//! one row ([`merge`]) or one batch ([`merge_batches`]) per input.

use std::{
    cmp::{Ordering, Reverse},
    collections::BinaryHeap,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
};

use crate::{Error, ErrorKind, Row, RowBatch, RowRef};

/// What a merge read and wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// Rows read from all inputs.
    pub rows_read: u64,
    /// Rows written (each position and move once).
    pub rows_written: u64,
}

/// One input of a merge: its batches, the batch being read and the next row in it.
struct Cursor<I> {
    batches: I,
    batch: RowBatch,
    at: usize,
}

impl<I: Iterator<Item = Result<RowBatch, Error>>> Cursor<I> {
    fn row(&self) -> Option<RowRef<'_>> {
        self.batch.get(self.at)
    }

    /// Moves to the next row (the next non-empty batch when this one is read); whether there
    /// is one. A row before the one it follows is [`ErrorKind::Unsorted`].
    fn advance(&mut self, stats: &mut MergeStats) -> Result<bool, Error> {
        self.at += 1;
        if self.at < self.batch.len() {
            stats.rows_read += 1;
            let (before, now) = (self.batch.get(self.at - 1), self.batch.get(self.at));
            if let (Some(b), Some(n)) = (before, now)
                && n.cmp_position_move(b) == Ordering::Less
            {
                return Err(Error::new(ErrorKind::Unsorted, 0, 0));
            }
            return Ok(true);
        }
        loop {
            let Some(next) = self.batches.next() else {
                self.batch = RowBatch::default();
                self.at = 0;
                return Ok(false);
            };
            let next = next?;
            if next.is_empty() {
                continue;
            }
            if let (Some(last), Some(first)) = (
                self.batch
                    .len()
                    .checked_sub(1)
                    .and_then(|i| self.batch.get(i)),
                next.get(0),
            ) && first.cmp_position_move(last) == Ordering::Less
            {
                return Err(Error::new(ErrorKind::Unsorted, 0, 0));
            }
            self.batch = next;
            self.at = 0;
            stats.rows_read += 1;
            return Ok(true);
        }
    }
}

/// Merges sorted tables (each an iterator of rows, e.g. a [`crate::CsvReader`]) into `out`,
/// sorted, with the rows of one position and move summed ([`crate::Counts::merge`]). Memory
/// holds one row per input. An input out of order is an error naming its input; so is any error
/// an input yields (`name(i)` says which input it was, for the message).
pub fn merge<I>(
    inputs: Vec<I>,
    mut out: impl FnMut(Row) -> Result<(), Error>,
    name: impl Fn(usize) -> std::path::PathBuf,
) -> Result<MergeStats, Error>
where
    I: Iterator<Item = Result<Row, Error>>,
{
    let inputs = inputs
        .into_iter()
        .map(|rows| crate::table::batches_of(rows, 1))
        .collect();
    merge_batches(inputs, |r| out(r.to_row()), name)
}

/// [`merge`] of tables read in batches ([`crate::table::open_batches`]), each row handed to
/// `out` borrowed: the same rows and sums. Memory holds one batch per input.
pub fn merge_batches<I>(
    inputs: Vec<I>,
    mut out: impl FnMut(RowRef<'_>) -> Result<(), Error>,
    name: impl Fn(usize) -> std::path::PathBuf,
) -> Result<MergeStats, Error>
where
    I: Iterator<Item = Result<RowBatch, Error>>,
{
    let mut merge = Merge::new(inputs, name)?;
    while let Some(row) = merge.next_row()? {
        out(row)?;
    }
    Ok(merge.stats())
}

/// A merge of sorted tables in progress ([`merge_batches`] a row at a time): each
/// [`Merge::next_row`] gives the next row of the merged table, borrowed until the call after,
/// so that a writer can take the rows in windows on a thread of its choosing
/// ([`crate::TableWriter::write_merge`]). Memory holds one batch per input.
pub struct Merge<I, N> {
    cursors: Vec<Cursor<I>>,
    /// The inputs with a row, by (key, input): the smallest key on top.
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    /// The row being summed, and whether there is one.
    current: Row,
    have: bool,
    /// The row last given out (the one summed before `current`).
    given: Row,
    tied: Vec<usize>,
    stats: MergeStats,
    name: N,
    /// The rows read by the merges below, where the inputs are merges
    /// ([`Merge::reading_below`]).
    below: Vec<Arc<AtomicU64>>,
}

impl<I, N> std::fmt::Debug for Merge<I, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Merge")
            .field("inputs", &self.cursors.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<I, N> Merge<I, N>
where
    I: Iterator<Item = Result<RowBatch, Error>>,
    N: Fn(usize) -> std::path::PathBuf,
{
    /// Starts merging `inputs` (reading the first batch of each); `name(i)` names input `i`
    /// in an error.
    pub fn new(inputs: Vec<I>, name: N) -> Result<Merge<I, N>, Error> {
        let mut merge = Merge {
            cursors: Vec::with_capacity(inputs.len()),
            heap: BinaryHeap::with_capacity(inputs.len()),
            current: Row::new(0, "", ""),
            have: false,
            given: Row::new(0, "", ""),
            tied: Vec::new(),
            stats: MergeStats::default(),
            name,
            below: Vec::new(),
        };
        for (i, batches) in inputs.into_iter().enumerate() {
            let mut cursor = Cursor {
                batches,
                batch: RowBatch::default(),
                at: 0,
            };
            // Advancing from an empty batch reads the first row.
            if cursor
                .advance(&mut merge.stats)
                .map_err(|e| e.or_in_file((merge.name)(i)))?
            {
                merge
                    .heap
                    .push(Reverse((cursor.row().map_or(0, |r| r.key), i)));
            }
            merge.cursors.push(cursor);
        }
        Ok(merge)
    }

    /// What the merge has read (from the tables, below any merges it reads) and given out so
    /// far.
    pub fn stats(&self) -> MergeStats {
        let mut stats = self.stats.clone();
        if !self.below.is_empty() {
            stats.rows_read = self.below.iter().map(|r| r.load(Relaxed)).sum();
        }
        stats
    }

    /// The merge whose inputs are the batches of merges below it
    /// ([`Merge::into_batches_counted`]), counting as read the rows those read.
    pub(crate) fn reading_below(mut self, below: Vec<Arc<AtomicU64>>) -> Self {
        self.below = below;
        self
    }

    /// The next row of the merged table (the rows of one position and move summed); `None`
    /// at the end. An input out of order, or an error an input yields, is an error naming
    /// the input.
    pub fn next_row(&mut self) -> Result<Option<RowRef<'_>>, Error> {
        while let Some(Reverse((key, first))) = self.heap.pop() {
            let finished = self.take(key, first)?;
            if finished {
                self.stats.rows_written += 1;
                return Ok(Some(self.given.as_ref()));
            }
        }
        if std::mem::take(&mut self.have) {
            self.stats.rows_written += 1;
            std::mem::swap(&mut self.given, &mut self.current);
            return Ok(Some(self.given.as_ref()));
        }
        Ok(None)
    }

    /// The merged rows in batches of up to `rows` rows (for a reader of batches, such as a
    /// book writer, or a merge above this one). An error ends the batches.
    pub fn into_batches(self, rows: usize) -> impl Iterator<Item = Result<RowBatch, Error>> {
        self.into_batches_counted(rows, Arc::default())
    }

    /// [`Merge::into_batches`], `read` following the rows this merge has read.
    pub(crate) fn into_batches_counted(
        mut self,
        rows: usize,
        read: Arc<AtomicU64>,
    ) -> impl Iterator<Item = Result<RowBatch, Error>> {
        let mut pending: Option<Error> = None;
        let mut done = false;
        std::iter::from_fn(move || {
            if let Some(e) = pending.take() {
                return Some(Err(e));
            }
            if done {
                return None;
            }
            let mut batch = RowBatch::with_capacity(rows);
            while batch.len() < rows {
                match self.next_row() {
                    Ok(Some(row)) => batch.push(row),
                    Ok(None) => {
                        done = true;
                        break;
                    }
                    Err(e) => {
                        done = true;
                        if batch.is_empty() {
                            return Some(Err(e));
                        }
                        pending = Some(e);
                        break;
                    }
                }
            }
            read.store(self.stats().rows_read, Relaxed);
            (!batch.is_empty()).then_some(Ok(batch))
        })
    }

    /// Takes the smallest row of the inputs at `key` (`first` popped from the heap) into the
    /// row being summed; whether that finished the row before it (then in `given`).
    fn take(&mut self, key: u64, first: usize) -> Result<bool, Error> {
        let Merge {
            cursors,
            heap,
            current,
            have,
            given,
            tied,
            stats,
            name,
            below: _,
        } = self;
        // The inputs at the smallest key; of them, the smallest row (the first input on ties).
        tied.clear();
        tied.push(first);
        while let Some(&Reverse((k, i))) = heap.peek() {
            if k != key {
                break;
            }
            heap.pop();
            tied.push(i);
        }
        let mut best = first;
        for &i in &tied[1..] {
            let (a, b) = (cursors[i].row(), cursors[best].row());
            if let (Some(a), Some(b)) = (a, b)
                && a.cmp_position_move(b).then(i.cmp(&best)) == Ordering::Less
            {
                best = i;
            }
        }
        let mut finished = false;
        if let Some(row) = cursors[best].row() {
            if *have && row.same_position_move(current.as_ref()) {
                current.counts.merge(row.counts);
            } else {
                if *have {
                    std::mem::swap(given, current);
                    finished = true;
                }
                current.key = row.key;
                current.epd.clear();
                current.epd.push_str(row.epd);
                current.uci.clear();
                current.uci.push_str(row.uci);
                current.counts = *row.counts;
                *have = true;
            }
        }
        for &i in tied.iter() {
            if i == best {
                if cursors[i]
                    .advance(stats)
                    .map_err(|e| e.or_in_file(name(i)))?
                {
                    heap.push(Reverse((cursors[i].row().map_or(0, |r| r.key), i)));
                }
            } else {
                heap.push(Reverse((key, i)));
            }
        }
        Ok(finished)
    }
}

/// Sorts rows into the table's order and sums the rows of one position and move: a table
/// made in memory, ready to write. Summed in place: no second list of rows (a book's 13.4 M
/// rows took 1.9 GB more to be summed into a new one).
pub fn sort_and_sum(mut rows: Vec<Row>) -> Vec<Row> {
    rows.sort_unstable_by(Row::cmp_position_move);
    // `kept` is the earlier row of a run of one position and move, `r` the next one.
    rows.dedup_by(|r, kept| {
        let same = kept.same_position_move(r);
        if same {
            kept.counts.merge(&r.counts);
        }
        same
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables of a few keys, positions and moves (ties across inputs and within them).
    fn tables(seed: u64, k: usize) -> Vec<Vec<Row>> {
        let mut x = seed;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        (0..k)
            .map(|_| {
                let rows: Vec<Row> = (0..next() % 300)
                    .map(|_| {
                        let mut r = Row::new(
                            next() % 40,
                            format!("{}/8/8/8/8/8/8/8 w - -", next() % 3),
                            ["e2e4", "d2d4", "g1f3"][next() as usize % 3],
                        );
                        r.counts.games = 1 + next() % 5;
                        r.counts.first_seen = next() % 1000;
                        r
                    })
                    .collect();
                sort_and_sum(rows)
            })
            .collect()
    }

    /// Batches of any size merge into the rows that one row at a time and a sort of all the
    /// rows give.
    #[test]
    fn batches_merge_as_rows_do() {
        for seed in 0..20 {
            let t = tables(seed, 1 + seed as usize % 5);
            let want = sort_and_sum(t.concat());
            let mut by_rows = Vec::new();
            let inputs = t
                .iter()
                .map(|rows| rows.clone().into_iter().map(Ok))
                .collect();
            let stats = merge(
                inputs,
                |r| {
                    by_rows.push(r);
                    Ok(())
                },
                |_| "x".into(),
            )
            .unwrap();
            assert_eq!(by_rows, want);
            assert_eq!(
                stats.rows_read,
                t.iter().map(Vec::len).sum::<usize>() as u64
            );
            for size in [1, 2, 7, 4096] {
                let inputs = t
                    .iter()
                    .map(|rows| crate::table::batches_of(rows.clone().into_iter().map(Ok), size))
                    .collect();
                let mut got = Vec::new();
                let s = merge_batches(
                    inputs,
                    |r| {
                        got.push(r.to_row());
                        Ok(())
                    },
                    |_| "x".into(),
                )
                .unwrap();
                assert_eq!(got, want, "seed {seed}, batches of {size}");
                assert_eq!(s, stats);
            }
        }
    }

    /// A row out of order is an error naming its input, within a batch and across two.
    #[test]
    fn unsorted_inputs_are_errors() {
        let rows: Vec<Row> = (0..10u64)
            .rev()
            .map(|k| Row::new(k, "8/8/8/8/8/8/8/8 w - -", "e2e4"))
            .collect();
        for size in [1, 3, 10] {
            let inputs = vec![
                crate::table::batches_of(Vec::<Row>::new().into_iter().map(Ok), size),
                crate::table::batches_of(rows.clone().into_iter().map(Ok), size),
            ];
            let e = merge_batches(inputs, |_| Ok(()), |i| format!("part {i}").into()).unwrap_err();
            assert!(matches!(e.kind(), ErrorKind::Unsorted), "{e}");
            assert!(e.to_string().contains("part 1"), "{e}");
        }
    }
}
