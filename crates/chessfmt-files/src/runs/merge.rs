//! The k-way merge of sorted sources (runs read back, the records kept in memory), records of
//! one key combined in source order.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, BufReader, BufWriter, Read, Seek, Write},
    path::Path,
};

use super::{BUFFER, INDEX_EVERY, Record, Run};

/// At most this many runs are read at once: more are first merged in groups of consecutive
/// runs, which keeps their order (small in unit tests, so that they take this path). A
/// merge of all the runs at once costs a buffer a run ([`buffer_for`]); a fan-in pass
/// writes the records it merges again, on one thread.
pub(super) const MAX_FAN_IN: usize = if cfg!(test) { 4 } else { 512 };

/// The buffer of each of `runs` runs read at once: 64 KiB where there are few, less where
/// there are many (16 MiB for them all, 8 KiB each at least).
pub(super) fn buffer_for(runs: usize) -> usize {
    ((16 << 20) / runs.max(1)).clamp(8 << 10, BUFFER)
}

/// A sorted source of a merge: records with their keys.
pub(super) type Source<'a, T> = Box<dyn Iterator<Item = io::Result<(<T as Record>::Key, T)>> + 'a>;

/// The records of `file`, read from where it stands through a buffer of `buffer` bytes.
pub(super) fn whole<'a, T: Record + 'a>(file: File, buffer: usize) -> Source<'a, T> {
    from_reader(BufReader::with_capacity(buffer, file))
}

/// The records read from `r` to its end.
pub(super) fn from_reader<'a, T: Record + 'a>(mut r: impl Read + 'a) -> Source<'a, T> {
    Box::new(std::iter::from_fn(move || {
        T::read(&mut r).map(|t| t.map(|t| (t.key(), t))).transpose()
    }))
}

/// Records kept in memory, sorted.
pub(super) fn in_memory<'a, T: Record + 'a>(sorted: Vec<T>) -> Source<'a, T> {
    Box::new(sorted.into_iter().map(|t| Ok((t.key(), t))))
}

/// Merges consecutive runs of `runs` into one until at most `most` (in the library,
/// [`MAX_FAN_IN`]) are left: each pass merges the first runs, as few as bring the count down
/// (at most `most` at once),
/// so that little is written again where the runs are a few more than the fan-in.
pub(super) fn fan_in<T: Record>(
    mut runs: Vec<Run<T::Key>>,
    dir: &Path,
    most: usize,
    combine: &mut impl FnMut(&mut T, T),
) -> io::Result<Vec<Run<T::Key>>> {
    let most = most.max(2);
    while runs.len() > most {
        let group = (runs.len() - most + 1).min(most);
        let rest = runs.split_off(group);
        let mut sources = Vec::with_capacity(group);
        for mut run in runs {
            run.file.rewind()?;
            sources.push(whole(run.file, buffer_for(group)));
        }
        let file = tempfile::tempfile_in(dir)?;
        runs = vec![write_run(file, Merged::new(sources, &mut *combine)?)?];
        runs.extend(rest);
    }
    Ok(runs)
}

/// Writes sorted `records` to `file` as a run with its index; returns it rewound.
fn write_run<T: Record>(
    file: File,
    records: impl Iterator<Item = io::Result<T>>,
) -> io::Result<Run<T::Key>> {
    let mut w = BufWriter::with_capacity(BUFFER, file);
    let (mut buf, mut at, mut index) = (Vec::new(), 0u64, Vec::new());
    for (n, record) in records.enumerate() {
        let record = record?;
        if n % INDEX_EVERY == 0 {
            index.push((record.key(), at));
        }
        buf.clear();
        record.write(&mut buf);
        w.write_all(&buf)?;
        at += buf.len() as u64;
    }
    let mut file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.rewind()?;
    Ok(Run { file, index })
}

/// The k-way merge of sorted sources, records of one key combined in source order.
pub(super) struct Merged<'a, T: Record, C> {
    sources: Vec<Source<'a, T>>,
    heads: Vec<Option<T>>,
    /// (key, source), smallest first: equal keys come out in source order.
    heap: BinaryHeap<Reverse<(T::Key, usize)>>,
    combine: C,
    failed: bool,
}

impl<'a, T: Record, C: FnMut(&mut T, T)> Merged<'a, T, C> {
    pub(super) fn new(mut sources: Vec<Source<'a, T>>, combine: C) -> io::Result<Self> {
        let mut heads = Vec::with_capacity(sources.len());
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (i, s) in sources.iter_mut().enumerate() {
            match s.next().transpose()? {
                Some((key, r)) => {
                    heap.push(Reverse((key, i)));
                    heads.push(Some(r));
                }
                None => heads.push(None),
            }
        }
        Ok(Merged {
            sources,
            heads,
            heap,
            combine,
            failed: false,
        })
    }

    /// The head of source `i`, replaced by its next record.
    fn take(&mut self, i: usize) -> io::Result<T> {
        let next = match self.sources[i].next().transpose()? {
            Some((key, r)) => {
                self.heap.push(Reverse((key, i)));
                Some(r)
            }
            None => None,
        };
        std::mem::replace(&mut self.heads[i], next)
            .ok_or_else(|| io::Error::other("a run's merge lost a record"))
    }

    fn next_combined(&mut self) -> io::Result<Option<T>> {
        let Some(Reverse((key, i))) = self.heap.pop() else {
            return Ok(None);
        };
        let mut record = self.take(i)?;
        while let Some(Reverse((k, _))) = self.heap.peek()
            && *k == key
        {
            let Some(Reverse((_, j))) = self.heap.pop() else {
                break;
            };
            let other = self.take(j)?;
            (self.combine)(&mut record, other);
        }
        Ok(Some(record))
    }
}

impl<T: Record, C: FnMut(&mut T, T)> Iterator for Merged<'_, T, C> {
    type Item = io::Result<T>;

    fn next(&mut self) -> Option<io::Result<T>> {
        if self.failed {
            return None;
        }
        let next = self.next_combined().transpose();
        self.failed = matches!(next, Some(Err(_)));
        next
    }
}
