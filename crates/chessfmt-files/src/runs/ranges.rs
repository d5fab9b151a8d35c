//! The merge cut into ranges of keys, merged on every core: each range reads every run from
//! the run's index entry before the range's first key (positional reads, so that the ranges
//! share the runs' files) and the part of the records in memory that falls in the range.

use std::{fs::File, io};

use super::{INDEX_EVERY, Record, Run, Runs, map_in_order, merge, sorted};

/// What [`Runs::merge_in_ranges`] may hold: the bytes of the records folded and not yet
/// handed on (all the ranges in flight), at `bytes_per_record` a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeMerge {
    /// Bytes of the ranges in flight.
    pub bytes: usize,
    /// Bytes a folded record takes.
    pub bytes_per_record: usize,
}

/// Records of the runs a range spans at most, where the bytes would allow more: larger
/// ranges hold more and merge no faster (the last ones are handed on alone). A Kvetka build
/// of 132 runs peaked at 227–233 MB with ranges of 349,525 records, 176–183 MB with these.
const MOST_RECORDS: usize = 1 << 16;

impl RangeMerge {
    /// Ranges in flight within `bytes`, at `bytes_per_record` a folded record.
    pub fn within(bytes: usize, bytes_per_record: usize) -> RangeMerge {
        RangeMerge {
            bytes,
            bytes_per_record,
        }
    }

    /// The records of a range and `width`, for `runs` runs: twice `width` ranges are merged or
    /// waiting to be handed on at once, a window that slides a range at a time (`width` is
    /// two a thread of the current pool: unequal ranges even out), each range as large as
    /// the bytes hold up to [`MOST_RECORDS`] — but at least an index interval a
    /// source (each source is read from the index entry before the range: a smaller range
    /// would read more records twice than it merges), with fewer ranges at once where the
    /// bytes hold fewer of those.
    fn cut(&self, runs: usize) -> (usize, usize) {
        let per_record = self.bytes_per_record.max(1);
        let widest = (2 * rayon::current_num_threads()).clamp(2, 128);
        let fewest = (runs + 1) * INDEX_EVERY;
        let records = (self.bytes / (2 * widest * per_record)).min(MOST_RECORDS);
        if records >= fewest {
            return (records, widest);
        }
        let width = self.bytes / (2 * fewest * per_record);
        (fewest, width.clamp(1, widest))
    }
}

impl<T: Record> Runs<T> {
    /// [`Runs::merge`] cut into ranges of keys merged on the current rayon pool, a window of
    /// them at a time within what `cut` allows: the combined records of each range, in key
    /// order, are folded into a `U` on the pool (`fold`), and the ranges' `U`s go to `sink` in
    /// key order on this thread, while the next ranges are merged — a range starts as soon as
    /// the oldest is handed on, not when the slowest of a group ends. The records and their
    /// combination are [`Runs::merge`]'s. Reading a run fails with `E::from` its error.
    pub fn merge_in_ranges<U, E>(
        self,
        last: Vec<T>,
        cut: RangeMerge,
        combine: impl Fn(&mut T, T) + Sync,
        fold: impl Fn(&mut U, T) + Sync,
        mut sink: impl FnMut(U) -> Result<(), E> + Send,
    ) -> Result<(), E>
    where
        T: Send + Sync,
        T::Key: Send + Sync,
        U: Default + Send,
        E: From<io::Error> + Send,
    {
        let mut combine_mut = |a: &mut T, b| combine(a, b);
        let runs = merge::fan_in(self.runs, &self.dir, self.fan_in, &mut combine_mut)?;
        let last = sorted(last);
        let (records, width) = cut.cut(runs.len());
        let bounds = bounds(&runs, &last, records);
        let sizes = sizes(&last, &bounds);
        let buffer = range_buffer(runs.len());
        let merge_range = |i: usize, last: Vec<T>| -> io::Result<U> {
            let (lo, hi) = (i.checked_sub(1).map(|j| &bounds[j]), bounds.get(i));
            let mut sources: Vec<merge::Source<'_, T>> = Vec::with_capacity(runs.len() + 1);
            for run in &runs {
                sources.push(range(run, lo, hi, buffer)?);
            }
            sources.push(merge::in_memory(last));
            let mut out = U::default();
            for record in merge::Merged::new(sources, &combine)? {
                fold(&mut out, record?);
            }
            Ok(out)
        };
        // The records in memory handed to the ranges as they start: their list is given
        // back at the end, and only the ranges in flight hold copies.
        let mut last = last.into_iter();
        let ranges = sizes
            .into_iter()
            .enumerate()
            .map(|(i, n)| (i, last.by_ref().take(n).collect::<Vec<T>>()));
        // Twice `width` ranges merged or waiting to be handed on at once, as the cut allows.
        map_in_order(
            ranges,
            2 * width,
            |(i, last)| merge_range(i, last),
            |merged| sink(merged?),
        )
    }
}

/// The keys that cut the runs and `last` (sorted) into ranges of about `records` records:
/// keys of the runs' indexes and of `last` at even steps, a few a range, in order.
fn bounds<T: Record + Sync>(runs: &[Run<T::Key>], last: &[T], records: usize) -> Vec<T::Key>
where
    T::Key: Send + Sync,
{
    use rayon::prelude::*;
    // Without positional reads the ranges could not share a file: one range.
    if cfg!(not(any(unix, windows))) {
        return Vec::new();
    }
    let entries = runs.iter().map(|r| r.index.len()).sum::<usize>() + last.len() / INDEX_EVERY;
    let per_range = (records / INDEX_EVERY).max(1);
    // Eight samples a range, about: enough to cut evenly, few to copy. Each run's samples
    // start at a place of their own within the step: runs of one distribution (every spill
    // of one input) sampled at the same places would give the same few quantiles, and
    // ranges cut at them would be a few huge ones between many tiny ones.
    let step = (per_range / 8).max(1);
    let staggered = |j: usize| j * step / runs.len().max(1);
    let mut sample: Vec<T::Key> = runs
        .iter()
        .enumerate()
        .flat_map(|(j, r)| {
            r.index
                .iter()
                .skip(staggered(j))
                .step_by(step)
                .map(|(k, _)| k.clone())
        })
        .chain(last.iter().step_by(step * INDEX_EVERY).map(Record::key))
        .collect();
    sample.par_sort_unstable();
    sample.dedup();
    let ranges = (entries / per_range).clamp(1, sample.len().max(1));
    // Distinct samples at increasing places: the bounds increase strictly.
    (1..ranges)
        .map(|i| sample[i * sample.len() / ranges].clone())
        .collect()
}

/// The numbers of records of `sorted` below the first bound, then from each bound to the next.
fn sizes<T: Record>(sorted: &[T], bounds: &[T::Key]) -> Vec<usize> {
    let mut cuts = Vec::with_capacity(bounds.len() + 2);
    let mut at = 0;
    cuts.push(at);
    for b in bounds {
        at += sorted[at..].partition_point(|t| t.key() < *b);
        cuts.push(at);
    }
    cuts.push(sorted.len());
    cuts.windows(2).map(|w| w[1] - w[0]).collect()
}

/// Reads a file from a byte offset with positional reads, so that several readers share one
/// file (where the system has them).
struct At<'a> {
    file: &'a File,
    pos: u64,
}

impl io::Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.pos)?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.pos)?;
        // Elsewhere a seek, then a read: the merge is one range there, a reader a file.
        #[cfg(not(any(unix, windows)))]
        let n = {
            use std::io::{Read, Seek};
            let mut file = self.file;
            file.seek(io::SeekFrom::Start(self.pos))?;
            file.read(buf)?
        };
        self.pos += n as u64;
        Ok(n)
    }
}

/// Bytes of the buffer of each of `runs` runs a range reads (a range reads a few of them a
/// run): 16 KiB where there are few runs, less where there are many (2 MiB a range for them
/// all, 4 KiB each at least).
fn range_buffer(runs: usize) -> usize {
    ((2 << 20) / runs.max(1)).clamp(4 << 10, 16 << 10)
}

/// The records of `run` with keys from `lo` (inclusive) to `hi` (exclusive), unbounded where
/// `None`, read from the index entry before `lo` through a buffer of `buffer` bytes.
fn range<'a, T: Record + 'a>(
    run: &'a Run<T::Key>,
    lo: Option<&'a T::Key>,
    hi: Option<&'a T::Key>,
    buffer: usize,
) -> io::Result<merge::Source<'a, T>> {
    let start = lo.map_or(0, |lo| {
        let i = run.index.partition_point(|(k, _)| k < lo);
        i.checked_sub(1).map_or(0, |i| run.index[i].1)
    });
    let mut r = io::BufReader::with_capacity(
        buffer,
        At {
            file: &run.file,
            pos: start,
        },
    );
    let mut done = false;
    Ok(Box::new(std::iter::from_fn(move || {
        while !done {
            match T::read(&mut r) {
                Ok(Some(t)) => {
                    let k = t.key();
                    if lo.is_some_and(|lo| k < *lo) {
                        continue;
                    }
                    if hi.is_none_or(|hi| k < *hi) {
                        return Some(Ok((k, t)));
                    }
                    done = true;
                }
                Ok(None) => done = true,
                Err(e) => {
                    done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    })))
}
