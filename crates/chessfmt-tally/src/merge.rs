//! The reduce: sorted tables merged into one, rows of the same position and move summed —
//! the sums Spark's `groupBy(key, epd, move).sum()` or SQL's `GROUP BY` give, in memory for
//! one row per input.

use std::{cmp::Ordering, collections::BinaryHeap};

use crate::{Error, ErrorKind, Row};

/// What a merge read and wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// Rows read from all inputs.
    pub rows_read: u64,
    /// Rows written (each position and move once).
    pub rows_written: u64,
}

struct Head {
    row: Row,
    input: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    /// Reversed: the heap's top is the smallest row (the first input on ties).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .row
            .cmp_position_move(&self.row)
            .then_with(|| other.input.cmp(&self.input))
    }
}

/// Merges sorted tables (each an iterator of rows, e.g. a [`crate::CsvReader`]) into `out`,
/// sorted, with the rows of one position and move summed ([`crate::Counts::merge`]). Memory
/// holds one row per input. An input out of order is an error naming its row; so is any error
/// an input yields (`name(i)` says which input it was, for the message).
pub fn merge<I>(
    inputs: Vec<I>,
    mut out: impl FnMut(Row) -> Result<(), Error>,
    name: impl Fn(usize) -> std::path::PathBuf,
) -> Result<MergeStats, Error>
where
    I: Iterator<Item = Result<Row, Error>>,
{
    let mut inputs = inputs;
    let mut stats = MergeStats::default();
    let mut heap = BinaryHeap::with_capacity(inputs.len());
    let next =
        |inputs: &mut Vec<I>, i: usize, stats: &mut MergeStats| -> Result<Option<Row>, Error> {
            match inputs[i].next() {
                None => Ok(None),
                Some(Ok(r)) => {
                    stats.rows_read += 1;
                    Ok(Some(r))
                }
                Some(Err(e)) => Err(e.in_file(name(i))),
            }
        };
    for i in 0..inputs.len() {
        if let Some(row) = next(&mut inputs, i, &mut stats)? {
            heap.push(Head { row, input: i });
        }
    }
    let mut current: Option<Row> = None;
    while let Some(Head { row, input }) = heap.pop() {
        if let Some(r) = next(&mut inputs, input, &mut stats)? {
            if r.cmp_position_move(&row) == Ordering::Less {
                return Err(Error::new(ErrorKind::Unsorted, 0, 0).in_file(name(input)));
            }
            heap.push(Head { row: r, input });
        }
        match &mut current {
            Some(c) if c.same_position_move(&row) => c.counts.merge(&row.counts),
            _ => {
                if let Some(done) = current.replace(row) {
                    stats.rows_written += 1;
                    out(done)?;
                }
            }
        }
    }
    if let Some(done) = current {
        stats.rows_written += 1;
        out(done)?;
    }
    Ok(stats)
}

/// Sorts rows into the table's order and sums the rows of one position and move: a table
/// made in memory, ready to write.
pub fn sort_and_sum(mut rows: Vec<Row>) -> Vec<Row> {
    rows.sort_unstable_by(Row::cmp_position_move);
    let mut out: Vec<Row> = Vec::with_capacity(rows.len());
    for r in rows {
        match out.last_mut() {
            Some(last) if last.same_position_move(&r) => last.counts.merge(&r.counts),
            _ => out.push(r),
        }
    }
    out
}
