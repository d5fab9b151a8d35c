//! Sorted runs of `(key, accumulator)` on disk, and their merge: the spill of a build under
//! a memory limit.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, BufReader, Read, Seek, Write},
};

use super::Acc;
use crate::{
    Error,
    raw::{KEY_LEN, Key, SourceRef},
};

/// An error of the merge: of the runs' files, or of what the merged elements went to.
pub(super) enum MergeError {
    Io(io::Error),
    Sink(Error),
}

impl MergeError {
    pub(super) fn into_error(self, dir: &std::path::Path) -> Error {
        match self {
            MergeError::Io(e) => Error::io(dir, e),
            MergeError::Sink(e) => e,
        }
    }
}

fn put_ref(out: &mut Vec<u8>, r: SourceRef) {
    out.extend_from_slice(&r.source.to_le_bytes());
    out.extend_from_slice(&r.game.to_le_bytes());
}

/// A spilled run: its file and a sparse index (the key and byte offset of every
/// [`INDEX_EVERY`]-th record), so that a merge of one range of keys can start reading the
/// run near the range.
#[derive(Debug)]
pub(super) struct Run {
    pub(super) file: File,
    pub(super) index: Vec<(Key, u64)>,
}

/// Records between two entries of a run's index.
pub(super) const INDEX_EVERY: usize = 256;

/// Records encoded by one task of [`write_run`] (a whole number of index intervals).
const BLOCK: usize = 64 * INDEX_EVERY;

/// A block of [`write_run`]: its bytes and its index entries (offsets within the block).
type EncodedBlock = (Vec<u8>, Vec<(Key, u64)>);

/// Writes `sorted` to `file` as a run, with its index. The records are encoded into
/// blocks of bytes on every core, a few blocks a thread at a time (each block starts an
/// index interval: its entries' offsets are the block's own plus the bytes before it),
/// and the blocks written in order.
pub(super) fn write_run(file: File, sorted: &[(Key, Acc)]) -> io::Result<Run> {
    use rayon::prelude::*;
    let group = 2 * BLOCK * rayon::current_num_threads().max(1);
    let mut w = io::BufWriter::with_capacity(1 << 20, file);
    let (mut index, mut at) = (Vec::new(), 0u64);
    for records in sorted.chunks(group) {
        let blocks: Vec<EncodedBlock> = records
            .par_chunks(BLOCK)
            .map(|block| {
                let mut out = Vec::with_capacity(block.len() * 64);
                let mut index = Vec::with_capacity(block.len().div_ceil(INDEX_EVERY));
                for (n, (k, a)) in block.iter().enumerate() {
                    if n % INDEX_EVERY == 0 {
                        index.push((*k, out.len() as u64));
                    }
                    encode(&mut out, k, a);
                }
                (out, index)
            })
            .collect();
        for (bytes, block_index) in blocks {
            index.extend(block_index.into_iter().map(|(k, o)| (k, at + o)));
            w.write_all(&bytes)?;
            at += bytes.len() as u64;
        }
    }
    let file = w.into_inner().map_err(|e| e.into_error())?;
    Ok(Run { file, index })
}

/// Appends one record of a run (what [`read`] reads back).
fn encode(out: &mut Vec<u8>, key: &Key, a: &Acc) {
    out.extend_from_slice(key);
    for n in [a.wins, a.draws, a.losses] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    let moves = a.moves.as_slice();
    out.extend_from_slice(&(moves.len() as u32).to_le_bytes());
    out.extend_from_slice(moves);
    match a.source {
        Some(r) => {
            out.push(1);
            put_ref(out, r);
        }
        None => out.push(0),
    }
    out.extend_from_slice(&(a.links.len() as u32).to_le_bytes());
    for &r in &a.links {
        put_ref(out, r);
    }
}

fn take<const N: usize>(r: &mut impl Read) -> io::Result<[u8; N]> {
    let mut b = [0; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

fn get_ref(r: &mut impl Read) -> io::Result<SourceRef> {
    Ok(SourceRef {
        source: u16::from_le_bytes(take(r)?),
        game: u32::from_le_bytes(take(r)?),
    })
}

/// The next record of a run (our own file, written just before: its lengths are ours).
fn read(r: &mut impl Read) -> io::Result<Option<(Key, Acc)>> {
    let mut key = [0u8; KEY_LEN];
    if !chessfmt_files::runs::read_start(r, &mut key)? {
        return Ok(None);
    }
    let wins = u64::from_le_bytes(take(r)?);
    let draws = u64::from_le_bytes(take(r)?);
    let losses = u64::from_le_bytes(take(r)?);
    let n = u32::from_le_bytes(take(r)?) as usize;
    let moves = if n <= crate::accumulate::INLINE_CODES {
        let mut b = [0; crate::accumulate::INLINE_CODES];
        r.read_exact(&mut b[..n])?;
        crate::accumulate::Codes::from_slice(&b[..n])
    } else {
        let mut v = vec![0; n.min(1 << 16)];
        r.read_exact(&mut v)?;
        crate::accumulate::Codes::from_slice(&v)
    };
    let source = match take::<1>(r)?[0] {
        0 => None,
        _ => Some(get_ref(r)?),
    };
    let n = u32::from_le_bytes(take(r)?) as usize;
    let links = (0..n).map(|_| get_ref(r)).collect::<io::Result<Vec<_>>>()?;
    Ok(Some((
        key,
        Acc {
            wins,
            draws,
            losses,
            moves,
            source,
            links,
        },
    )))
}

/// Adds a later accumulator of the same position: what counting its games after the
/// earlier ones would have given.
fn absorb(a: &mut Acc, b: Acc) {
    a.wins += b.wins;
    a.draws += b.draws;
    a.losses += b.losses;
    a.moves.extend_new(&b.moves);
    if a.source.is_none() {
        a.source = b.source;
    }
    a.links.extend(b.links);
}

/// Merges the runs (in the order they were written) and `last` (the table at the end,
/// sorted) by key; each position goes to `sink` once, in key order.
pub(super) fn merge(
    runs: Vec<Run>,
    last: Vec<(Key, Acc)>,
    sink: impl FnMut(Key, Acc) -> Result<(), Error>,
) -> Result<(), MergeError> {
    let mut sources: Vec<Source<'_>> = Vec::new();
    for mut run in runs {
        run.file.rewind().map_err(MergeError::Io)?;
        let mut r = BufReader::with_capacity(1 << 20, run.file);
        sources.push(Box::new(std::iter::from_fn(move || {
            read(&mut r).transpose()
        })));
    }
    sources.push(Box::new(last.into_iter().map(Ok)));
    merge_sources(sources, sink)
}

/// A sorted source of a merge.
type Source<'a> = Box<dyn Iterator<Item = io::Result<(Key, Acc)>> + Send + 'a>;

/// Reads a file from a byte offset with positional reads, so that several readers share
/// one file.
#[cfg(any(unix, windows))]
struct At<'a> {
    file: &'a File,
    pos: u64,
}

#[cfg(any(unix, windows))]
impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.pos)?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// The records of `run` with keys in `lo..hi` (unbounded where `None`), read from the
/// index entry before `lo`.
#[cfg(any(unix, windows))]
fn range_of(run: &Run, lo: Option<Key>, hi: Option<Key>) -> Source<'_> {
    let start = lo.map_or(0, |lo| {
        let i = run.index.partition_point(|(k, _)| *k < lo);
        i.checked_sub(1).map_or(0, |i| run.index[i].1)
    });
    let mut r = BufReader::with_capacity(
        1 << 13,
        At {
            file: &run.file,
            pos: start,
        },
    );
    let mut done = false;
    Box::new(std::iter::from_fn(move || {
        while !done {
            match read(&mut r) {
                Ok(Some((k, _))) if lo.is_some_and(|lo| k < lo) => continue,
                Ok(Some((k, a))) if hi.is_none_or(|hi| k < hi) => return Some(Ok((k, a))),
                Ok(_) => done = true,
                Err(e) => {
                    done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }))
}

/// Index entries (of all runs together) a range of [`merge_parallel`] spans, at most:
/// about 65,536 records of the runs.
pub(super) const RANGE_SAMPLES: usize = 256;

/// Index entries a range of [`merge_parallel`] spans, at least (each run is read from the
/// index entry before a range's first key: smaller ranges read more records twice).
pub(super) const MIN_RANGE_SAMPLES: usize = 64;

/// Records of the runs a range of [`merge_parallel`] spans, about: what one range folds.
pub(super) const RANGE_RECORDS: usize = RANGE_SAMPLES * INDEX_EVERY;

/// [`merge`] cut into ranges of keys merged in parallel, `width` at a time: each range's
/// positions, in order, folded into a `T` (`fold`, on the pool), and the ranges' `T`s
/// handed to `sink` in order (on this thread, while the next ranges are merged). The
/// ranges are cut at keys of the runs' indexes, `samples` index entries a range.
#[cfg(any(unix, windows))]
pub(super) fn merge_parallel<T: Default + Send>(
    runs: Vec<Run>,
    last: Vec<(Key, Acc)>,
    samples: usize,
    width: usize,
    fold: impl Fn(&mut T, Key, Acc) + Sync,
    mut sink: impl FnMut(T) -> Result<(), Error> + Send,
) -> Result<(), MergeError> {
    let mut sample: Vec<Key> = runs
        .iter()
        .flat_map(|r| r.index.iter().map(|(k, _)| *k))
        .chain(last.iter().step_by(INDEX_EVERY).map(|(k, _)| *k))
        .collect();
    sample.sort_unstable();
    sample.dedup();
    let ranges = (sample.len() / samples.max(1)).max(1);
    let bounds: Vec<Key> = (1..ranges)
        .map(|i| sample[i * sample.len() / ranges])
        .collect();
    // The in-memory table, cut at the same keys.
    let mut lasts: Vec<Vec<(Key, Acc)>> = Vec::with_capacity(ranges);
    let mut rest = last.into_iter().peekable();
    for b in &bounds {
        let mut part = Vec::new();
        while let Some((k, a)) = rest.next_if(|(k, _)| k < b) {
            part.push((k, a));
        }
        lasts.push(part);
    }
    lasts.push(rest.collect());
    let merge_range = |i: usize, last: Vec<(Key, Acc)>| -> Result<T, MergeError> {
        let (lo, hi) = (i.checked_sub(1).map(|j| bounds[j]), bounds.get(i).copied());
        let mut sources: Vec<Source<'_>> = runs.iter().map(|r| range_of(r, lo, hi)).collect();
        sources.push(Box::new(last.into_iter().map(Ok)));
        let mut out = T::default();
        merge_sources(sources, |k, a| {
            fold(&mut out, k, a);
            Ok(())
        })?;
        Ok(out)
    };
    let width = width.max(1);
    let mut pending: Vec<T> = Vec::new();
    let mut lasts = lasts.into_iter().enumerate();
    loop {
        let group: Vec<(usize, Vec<(Key, Acc)>)> = lasts.by_ref().take(width).collect();
        if group.is_empty() && pending.is_empty() {
            return Ok(());
        }
        let to_sink = std::mem::take(&mut pending);
        let (sunk, merged) = rayon::join(
            || -> Result<(), MergeError> {
                for t in to_sink {
                    sink(t).map_err(MergeError::Sink)?;
                }
                Ok(())
            },
            || {
                use rayon::prelude::*;
                group
                    .into_par_iter()
                    .map(|(i, last)| merge_range(i, last))
                    .collect::<Result<Vec<_>, MergeError>>()
            },
        );
        sunk?;
        pending = merged?;
    }
}

/// Merges sorted sources (earlier sources' games first) by key; each position goes to
/// `sink` once, in key order.
fn merge_sources(
    mut sources: Vec<Source<'_>>,
    mut sink: impl FnMut(Key, Acc) -> Result<(), Error>,
) -> Result<(), MergeError> {
    // (key, run) smallest first: equal keys come out in run order, earlier games first.
    let mut heap = BinaryHeap::new();
    let mut heads: Vec<Option<Acc>> = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        match s.next().transpose().map_err(MergeError::Io)? {
            Some((k, a)) => {
                heap.push(Reverse((k, i)));
                heads.push(Some(a));
            }
            None => heads.push(None),
        }
    }
    let mut current: Option<(Key, Acc)> = None;
    while let Some(Reverse((k, i))) = heap.pop() {
        let a = heads[i].take().expect("a head per heap entry");
        if let Some((k2, a2)) = sources[i].next().transpose().map_err(MergeError::Io)? {
            heap.push(Reverse((k2, i)));
            heads[i] = Some(a2);
        }
        match &mut current {
            Some((ck, ca)) if *ck == k => absorb(ca, a),
            _ => {
                if let Some((ck, ca)) = current.replace((k, a)) {
                    sink(ck, ca).map_err(MergeError::Sink)?;
                }
            }
        }
    }
    if let Some((ck, ca)) = current {
        sink(ck, ca).map_err(MergeError::Sink)?;
    }
    Ok(())
}

#[cfg(all(test, any(unix, windows)))]
mod tests {
    use super::*;

    /// A run written in several blocks reads back whole, and each index entry points at
    /// the record with its key (the block offsets add up).
    #[test]
    fn run_index_points_at_its_records() {
        let n = 2 * BLOCK + 777;
        let sorted: Vec<(Key, Acc)> = (0..n as u32)
            .map(|i| {
                let mut key = [0u8; KEY_LEN];
                key[..4].copy_from_slice(&i.to_be_bytes());
                // Records of different lengths.
                let moves: Vec<u8> = (0..i % 17).map(|c| c as u8).collect();
                let acc = Acc {
                    wins: u64::from(i),
                    moves: crate::accumulate::Codes::from_slice(&moves),
                    ..Acc::default()
                };
                (key, acc)
            })
            .collect();
        let run = write_run(tempfile::tempfile().unwrap(), &sorted).unwrap();
        assert_eq!(run.index.len(), n.div_ceil(INDEX_EVERY));
        for (j, (key, offset)) in run.index.iter().enumerate() {
            let mut r = At {
                file: &run.file,
                pos: *offset,
            };
            let (k, a) = read(&mut r).unwrap().unwrap();
            assert_eq!((&k, &a), (key, &sorted[j * INDEX_EVERY].1));
        }
        let mut all = Vec::new();
        let mut r = BufReader::new(At {
            file: &run.file,
            pos: 0,
        });
        while let Some(e) = read(&mut r).unwrap() {
            all.push(e);
        }
        assert!(all == sorted);
    }

    /// The ranges merged in parallel give what one merge gives: every position once, in
    /// key order, each combined from the runs in run order.
    #[test]
    fn parallel_merge_is_the_merge() {
        let mut x = chess_core::fuzzing::XorShift::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || x.next_u64();
        let mut table = || -> Vec<(Key, Acc)> {
            let mut t: Vec<(Key, Acc)> = (0..3000)
                .map(|_| {
                    let mut key = [0u8; KEY_LEN];
                    // Few distinct keys: the runs share most positions.
                    key[..2].copy_from_slice(&((next() % 5000) as u16).to_be_bytes());
                    let moves: Vec<u8> = (0..next() % 20).map(|_| (next() % 40) as u8).collect();
                    let acc = Acc {
                        wins: next() % 9,
                        draws: next() % 9,
                        losses: next() % 9,
                        moves: crate::accumulate::Codes::from_slice(&moves),
                        source: (next() % 2 == 0).then(|| SourceRef {
                            source: (next() % 3) as u16,
                            game: (next() % 100) as u32,
                        }),
                        links: (0..next() % 3)
                            .map(|_| SourceRef {
                                source: 0,
                                game: (next() % 100) as u32,
                            })
                            .collect(),
                    };
                    (key, acc)
                })
                .collect();
            t.sort_by_key(|e| e.0);
            t.dedup_by(|a, b| a.0 == b.0);
            t
        };
        let tables: Vec<Vec<(Key, Acc)>> = (0..8).map(|_| table()).collect();
        let last = table();
        let runs = |tables: &[Vec<(Key, Acc)>]| -> Vec<Run> {
            tables
                .iter()
                .map(|t| write_run(tempfile::tempfile().unwrap(), t).unwrap())
                .collect()
        };
        let mut one = Vec::new();
        merge(runs(&tables), last.clone(), |k, a| {
            one.push((k, a));
            Ok(())
        })
        .ok()
        .unwrap();
        assert!(one.windows(2).all(|w| w[0].0 < w[1].0));
        for samples in [1, 3, 1024] {
            let mut many = Vec::new();
            merge_parallel(
                runs(&tables),
                last.clone(),
                samples,
                3,
                |range: &mut Vec<(Key, Acc)>, k, a| range.push((k, a)),
                |range| {
                    many.extend(range);
                    Ok(())
                },
            )
            .ok()
            .unwrap();
            assert!(many == one, "{samples} samples a range");
        }
    }
}
