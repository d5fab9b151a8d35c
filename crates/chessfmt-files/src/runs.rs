//! Sorted runs of records in anonymous temporary files and their k-way merge (feature
//! `runs`): what a reduction bounded in memory needs — gather records in memory up to a
//! limit, write them out sorted, and at the end read every run back in key order with the
//! records of one key combined — on one thread ([`Runs::merge`]) or in ranges of keys on
//! every core ([`Runs::merge_in_ranges`]). The files are gone with the process, even after a
//! crash. The window these use to work on every core and still hand results on in order is
//! [`map_in_order`].
//!
//! ```
//! use std::io::{self, Read};
//! use chessfmt_files::runs::{Record, Runs, read_start};
//!
//! /// A word and its count.
//! struct Count(u8, u64);
//!
//! impl Record for Count {
//!     type Key = u8;
//!     fn key(&self) -> u8 {
//!         self.0
//!     }
//!     fn write(&self, out: &mut Vec<u8>) {
//!         out.push(self.0);
//!         out.extend_from_slice(&self.1.to_le_bytes());
//!     }
//!     fn read(r: &mut impl Read) -> io::Result<Option<Self>> {
//!         let mut b = [0; 9];
//!         if !read_start(r, &mut b)? {
//!             return Ok(None);
//!         }
//!         Ok(Some(Count(b[0], u64::from_le_bytes(b[1..].try_into().unwrap()))))
//!     }
//! }
//!
//! let mut runs = Runs::new(std::env::temp_dir());
//! runs.write(vec![Count(3, 1), Count(1, 2)])?;
//! runs.write(vec![Count(1, 5), Count(2, 7)])?;
//! let mut merged = Vec::new();
//! runs.merge(
//!     vec![Count(3, 10)],
//!     |a, b| a.1 += b.1,
//!     |c| {
//!         merged.push((c.0, c.1));
//!         Ok::<(), io::Error>(())
//!     },
//! )?;
//! assert_eq!(merged, [(1, 7), (2, 7), (3, 11)]);
//! # Ok::<(), io::Error>(())
//! ```

use std::{
    fs::File,
    io::{self, BufWriter, Read, Seek, Write},
    path::{Path, PathBuf},
};

mod in_order;
mod merge;
mod ranges;

pub use in_order::map_in_order;
pub use ranges::RangeMerge;

/// An error of a merge of runs whose sink can fail ([`Runs::merge`],
/// [`Runs::merge_in_ranges`] with `E` = `MergeError<S>`): reading a run, or the sink's own.
#[derive(Debug)]
pub enum MergeError<S> {
    /// A run could not be read.
    Io(io::Error),
    /// The sink failed.
    Sink(S),
}

impl<S> From<io::Error> for MergeError<S> {
    fn from(e: io::Error) -> Self {
        MergeError::Io(e)
    }
}

impl<S> MergeError<S> {
    /// The sink's error type: a run's read error made into one by `io`.
    pub fn into_error(self, io: impl FnOnce(io::Error) -> S) -> S {
        match self {
            MergeError::Io(e) => io(e),
            MergeError::Sink(e) => e,
        }
    }
}

impl<S: std::fmt::Display> std::fmt::Display for MergeError<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Io(e) => write!(f, "reading a run: {e}"),
            MergeError::Sink(e) => e.fmt(f),
        }
    }
}

impl<S: std::error::Error + 'static> std::error::Error for MergeError<S> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MergeError::Io(e) => Some(e),
            MergeError::Sink(e) => e.source(),
        }
    }
}

/// A record of a run: its key (the order of a run) and its bytes.
pub trait Record: Sized {
    /// What the records are sorted and combined by (a run's index keeps a copy of every
    /// 64th record's).
    type Key: Ord + Clone;
    /// The record's key.
    fn key(&self) -> Self::Key;
    /// Appends the record's bytes (what [`Record::read`] reads back).
    fn write(&self, out: &mut Vec<u8>);
    /// The next record of a run, `None` at its end. The runs are this process's own files,
    /// written just before by [`Record::write`]: a short read is an error.
    fn read(r: &mut impl Read) -> io::Result<Option<Self>>;
}

/// Reads the first `start.len()` bytes of a run's next record (for [`Record::read`]): `false`
/// at the run's end (no byte left), an `UnexpectedEof` error where the record is cut short.
pub fn read_start(r: &mut impl Read, start: &mut [u8]) -> io::Result<bool> {
    let Some((first, rest)) = start.split_first_mut() else {
        return Ok(true);
    };
    loop {
        match r.read(std::slice::from_mut(first)) {
            Ok(0) => return Ok(false),
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    r.read_exact(rest)?;
    Ok(true)
}

/// Appends `v` in 7-bit groups, lowest first, the high bit of each byte telling that more
/// follow (LEB128): a count of a run's record in one byte where it is below 128, in ten at
/// most. Runs of counts are mostly small numbers: a fourth of their fixed-width bytes.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a number written by [`put_varint`]; a number cut short, or longer than ten bytes,
/// is an error.
pub fn get_varint(r: &mut impl Read) -> io::Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let mut b = [0; 1];
        r.read_exact(&mut b)?;
        v |= u64::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        "a run's number is longer than 64 bits",
    ))
}

/// Records whose bytes one task of [`Runs::write`] makes (a whole number of index
/// intervals).
const ENCODED_CHUNK: usize = 4096;

/// Bytes of the buffer of each run read or written.
const BUFFER: usize = 1 << 16;

/// Records between two entries of a run's index: a range of [`Runs::merge_in_ranges`]
/// starts reading each run at most this many records before its first key.
const INDEX_EVERY: usize = 64;

/// A chunk of a run's records encoded: their bytes and index entries (offsets within them).
type Encoded<K> = (Vec<u8>, Vec<(K, u64)>);

/// A run: its file and a sparse index (the key and byte offset of every [`INDEX_EVERY`]-th
/// record), so that a merge of one range of keys starts reading the run near the range.
struct Run<K> {
    file: File,
    index: Vec<(K, u64)>,
}

/// Sorted runs of `T`, in the order they were written.
pub struct Runs<T: Record> {
    dir: PathBuf,
    runs: Vec<Run<T::Key>>,
    bytes: u64,
    /// Runs merged at once at most ([`merge::MAX_FAN_IN`]; tests set their own).
    fan_in: usize,
}

impl<T: Record> std::fmt::Debug for Runs<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runs")
            .field("dir", &self.dir)
            .field("runs", &self.runs.len())
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl<T: Record> Runs<T> {
    /// No runs yet; they will be written in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Runs<T> {
        Runs {
            dir: dir.into(),
            runs: Vec::new(),
            bytes: 0,
            fan_in: merge::MAX_FAN_IN,
        }
    }

    /// Where the runs are written.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs written.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether no run was written.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Bytes written to runs.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Writes `records` (in any order: sorted here by [`Record::key`], the order the merge
    /// reads) as the next run. The keys are made and sorted, and the records' bytes made, on
    /// the current rayon pool; this thread writes them.
    pub fn write(&mut self, records: Vec<T>) -> io::Result<()>
    where
        T: Send + Sync,
        T::Key: Send + Sync,
    {
        use rayon::prelude::*;
        // The keys are sorted, not the records (which may be large): each key is made once.
        let mut order: Vec<(T::Key, usize)> = records
            .par_iter()
            .enumerate()
            .map(|(i, r)| (r.key(), i))
            .collect();
        order.par_sort_unstable();
        self.write_in_order(order.len(), |j| &records[order[j].1])
    }

    /// Writes `sorted` (in key order already, as [`Record::key`] orders them) as the next
    /// run, the records left where they are: a caller that sorts its records itself keeps
    /// its list for the next run (its memory used again, not faulted in anew). The records'
    /// bytes are made on the current rayon pool; this thread writes them.
    pub fn write_sorted(&mut self, sorted: &[T]) -> io::Result<()>
    where
        T: Sync,
        T::Key: Send,
    {
        debug_assert!(sorted.windows(2).all(|w| w[0].key() <= w[1].key()));
        self.write_in_order(sorted.len(), |j| &sorted[j])
    }

    /// Writes the `len` records `at(0)`, `at(1)`, … (in key order) as the next run.
    fn write_in_order<'a>(
        &mut self,
        len: usize,
        at: impl Fn(usize) -> &'a T + Sync,
    ) -> io::Result<()>
    where
        T: Sync + 'a,
        T::Key: Send,
    {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let file = tempfile::tempfile_in(&self.dir)?;
        let mut w = BufWriter::with_capacity(BUFFER, file);
        let (mut bytes, mut index) = (0u64, Vec::with_capacity(len.div_ceil(INDEX_EVERY)));
        // Chunks' bytes made on the pool, a few chunks a thread in flight (a few MB whatever
        // the run), written in order by this thread as each is ready while the next are made.
        // A chunk starts an index interval: its entries' offsets are its own plus the bytes
        // before it. Each chunk's buffer is sized from the records written before it (a
        // buffer grown by doubling copies itself and faults in fresh pages each time).
        // Bytes a record took so far, rounded up (64 before the first chunk is written).
        let per_record = AtomicUsize::new(64);
        let encode = |from: usize| -> Encoded<T::Key> {
            let to = (from + ENCODED_CHUNK).min(len);
            let per_record = per_record.load(Relaxed);
            let mut out = Vec::with_capacity((to - from) * per_record * 9 / 8);
            let mut index = Vec::with_capacity((to - from).div_ceil(INDEX_EVERY));
            for j in from..to {
                let record = at(j);
                if (j - from).is_multiple_of(INDEX_EVERY) {
                    index.push((record.key(), out.len() as u64));
                }
                record.write(&mut out);
            }
            (out, index)
        };
        let window = 4 * rayon::current_num_threads().max(1);
        let mut chunks_written = 0;
        map_in_order(
            (0..len).step_by(ENCODED_CHUNK),
            window,
            encode,
            |(part, part_index)| -> io::Result<()> {
                index.extend(part_index.into_iter().map(|(k, at)| (k, bytes + at)));
                w.write_all(&part)?;
                bytes += part.len() as u64;
                chunks_written += 1;
                per_record.store(
                    bytes as usize / (chunks_written * ENCODED_CHUNK) + 1,
                    Relaxed,
                );
                Ok(())
            },
        )?;
        let mut file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.rewind()?;
        self.bytes += bytes;
        self.runs.push(Run { file, index });
        Ok(())
    }

    /// Merges the runs, then `last` (records kept in memory, in any order: sorted here on the
    /// rayon pool, as a run is), in key order — with no run, `last` sorted alone:
    /// the records of one key are combined into the first of them by `combine`, in the
    /// order of the runs (those written first first, `last` at the end), and each combined
    /// record goes to `sink`. Reading a run fails with `E::from` its error.
    pub fn merge<E: From<io::Error>>(
        self,
        last: Vec<T>,
        mut combine: impl FnMut(&mut T, T),
        mut sink: impl FnMut(T) -> Result<(), E>,
    ) -> Result<(), E>
    where
        T: Send + Sync,
        T::Key: Send,
    {
        let runs = merge::fan_in(self.runs, &self.dir, self.fan_in, &mut combine)?;
        let mut sources = Vec::with_capacity(runs.len() + 1);
        let buffer = merge::buffer_for(runs.len());
        for mut run in runs {
            run.file.rewind()?;
            sources.push(merge::whole(run.file, buffer));
        }
        sources.push(merge::in_memory(sorted(last)));
        for record in merge::Merged::new(sources, &mut combine)? {
            sink(record?)?;
        }
        Ok(())
    }
}

/// `records` sorted by key on the rayon pool (their keys made once and sorted, then the
/// records moved to their places in the list they are in: no copy of the list).
fn sorted<T: Record + Send + Sync>(mut records: Vec<T>) -> Vec<T>
where
    T::Key: Send,
{
    use rayon::prelude::*;
    records.par_sort_by_cached_key(Record::key);
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers written with `put_varint` read back, in 1 to 10 bytes; a cut one is an error.
    #[test]
    fn varints_round_trip() {
        let mut out = Vec::new();
        let values = [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        for v in values {
            put_varint(&mut out, v);
        }
        assert_eq!(out.len(), 1 + 1 + 1 + 2 + 2 + 2 + 3 + 5 + 10);
        let mut r = out.as_slice();
        for v in values {
            assert_eq!(get_varint(&mut r).unwrap(), v);
        }
        assert!(get_varint(&mut r).is_err());
        assert!(get_varint(&mut &[0x80u8][..]).is_err());
        assert!(get_varint(&mut &[0xffu8; 11][..]).is_err());
    }

    #[derive(Debug, Clone, PartialEq)]
    struct Pair(u32, Vec<u32>);

    impl Record for Pair {
        type Key = u32;
        fn key(&self) -> u32 {
            self.0
        }
        fn write(&self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.0.to_le_bytes());
            out.extend_from_slice(&(self.1.len() as u32).to_le_bytes());
            for v in &self.1 {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        fn read(r: &mut impl Read) -> io::Result<Option<Self>> {
            let mut b = [0; 4];
            if !read_start(r, &mut b)? {
                return Ok(None);
            }
            let key = u32::from_le_bytes(b);
            r.read_exact(&mut b)?;
            let n = u32::from_le_bytes(b).min(1 << 16);
            let mut values = Vec::new();
            for _ in 0..n {
                r.read_exact(&mut b)?;
                values.push(u32::from_le_bytes(b));
            }
            Ok(Some(Pair(key, values)))
        }
    }

    /// Every key once, in order, its records combined in the order they were written —
    /// with more runs than the fan-in (merged in groups first) and with few; the records
    /// given in any order.
    #[test]
    fn merge_combines_in_run_order() {
        for runs_written in [0, 1, 3, 4, 5, 17] {
            let dir = tempfile::tempdir().unwrap();
            let mut runs = Runs::new(dir.path());
            let mut expected: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
            let mut n = 0;
            for r in 0..runs_written {
                let mut run: Vec<Pair> = (0..20u32)
                    .filter(|k| (k + r) % 3 != 0)
                    .map(|k| {
                        n += 1;
                        Pair(k, vec![n])
                    })
                    .collect();
                for p in &run {
                    expected.entry(p.0).or_default().extend(&p.1);
                }
                // Written in any order: sorted by the runs.
                run.reverse();
                runs.write(run).unwrap();
            }
            assert_eq!(runs.len(), runs_written as usize);
            let last = vec![Pair(40, vec![1000]), Pair(5, vec![999])];
            for p in &last {
                expected.entry(p.0).or_default().extend(&p.1);
            }
            let mut got = Vec::new();
            runs.merge(
                last,
                |a, b| a.1.extend(b.1),
                |p| {
                    got.push((p.0, p.1));
                    Ok::<(), io::Error>(())
                },
            )
            .unwrap();
            assert_eq!(
                got,
                expected.into_iter().collect::<Vec<_>>(),
                "{runs_written} runs"
            );
        }
    }

    /// Runs of `Pair`s with keys below 5,000, some repeated across runs (written in any order
    /// and in key order), and records kept in memory; what the serial merge gives them.
    fn random_runs(runs_written: u32, dir: &Path) -> (Runs<Pair>, Vec<Pair>, Vec<Pair>) {
        let mut runs = Runs::new(dir);
        let mut all: Vec<Pair> = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64 ^ u64::from(runs_written);
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut n = 0;
        for _ in 0..=runs_written {
            let len = next() % 3000;
            let mut run: Vec<Pair> = Vec::new();
            let mut keys = std::collections::BTreeSet::new();
            for _ in 0..len {
                keys.insert((next() % 5000) as u32);
            }
            for k in keys {
                n += 1;
                run.push(Pair(k, vec![n]));
            }
            all.extend(run.iter().cloned());
            if all.len() < 20_000 && runs.len() < runs_written as usize {
                // Every other run given in key order, its list kept.
                if runs.len() % 2 == 1 {
                    runs.write_sorted(&run).unwrap();
                } else {
                    run.reverse();
                    runs.write(run).unwrap();
                }
            } else {
                // The last "run" is kept in memory.
                let mut expected = std::collections::BTreeMap::<u32, Vec<u32>>::new();
                for p in &all {
                    expected.entry(p.0).or_default().extend(&p.1);
                }
                let expected = expected.into_iter().map(|(k, v)| Pair(k, v)).collect();
                return (runs, run, expected);
            }
        }
        unreachable!("the loop returns")
    }

    /// The merge in ranges gives the serial merge's records, each once, in key order, folded
    /// range by range and handed on in order — for every cut, with more runs than the
    /// fan-in and with none.
    #[test]
    fn merge_in_ranges_is_the_merge() {
        for runs_written in [0, 1, 3, 9] {
            for bytes in [0, 10_000, 100_000, 1 << 30] {
                let dir = tempfile::tempdir().unwrap();
                let (runs, last, expected) = random_runs(runs_written, dir.path());
                let mut got: Vec<Pair> = Vec::new();
                let mut ranges = 0;
                runs.merge_in_ranges(
                    last,
                    RangeMerge::within(bytes, 8),
                    |a, b| a.1.extend(b.1),
                    |u: &mut Vec<Pair>, p| u.push(p),
                    |u| {
                        ranges += 1;
                        got.extend(u);
                        Ok::<(), io::Error>(())
                    },
                )
                .unwrap();
                assert_eq!(got, expected, "{runs_written} runs, {bytes} bytes");
                if bytes <= 10_000 {
                    assert!(
                        ranges > 2,
                        "{runs_written} runs, {bytes} bytes: {ranges} ranges"
                    );
                }
            }
        }
    }

    /// Runs of one distribution (every spill of one input) are cut into even ranges: the
    /// samples of each run are taken at places of their own (at the same places, 24 runs of
    /// keys at the same quantiles gave a few clusters of samples, and the ranges cut among
    /// them were tiny ones between huge ones).
    #[test]
    fn ranges_of_alike_runs_are_even() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::new(dir.path());
        runs.fan_in = 64;
        let (per_run, count) = (8192, 24);
        for r in 0..count {
            let run: Vec<Pair> = (0..per_run).map(|k| Pair(k * count + r, vec![r])).collect();
            runs.write_sorted(&run).unwrap();
        }
        let mut sizes: Vec<usize> = Vec::new();
        runs.merge_in_ranges(
            Vec::new(),
            RangeMerge::within(1 << 20, 8),
            |_, _| unreachable!("the keys are distinct"),
            |n: &mut usize, _| *n += 1,
            |n| {
                sizes.push(n);
                Ok::<(), io::Error>(())
            },
        )
        .unwrap();
        let all = (per_run * count) as usize;
        assert_eq!(sizes.iter().sum::<usize>(), all);
        let even = all / sizes.len();
        assert!(
            sizes.len() >= 4 && sizes.iter().all(|&n| n <= 2 * even),
            "{} ranges: {sizes:?}",
            sizes.len()
        );
    }

    /// A run cut short is an error of the merge, not a shorter result.
    #[test]
    fn a_short_run_is_an_error() {
        struct Cut;
        impl Record for Cut {
            type Key = u8;
            fn key(&self) -> u8 {
                0
            }
            fn write(&self, out: &mut Vec<u8>) {
                out.push(1);
            }
            fn read(r: &mut impl Read) -> io::Result<Option<Self>> {
                let mut b = [0; 2];
                Ok(read_start(r, &mut b)?.then_some(Cut))
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::new(dir.path());
        runs.write(vec![Cut]).unwrap();
        let e = runs
            .merge(Vec::new(), |_, _| {}, |_| Ok::<(), io::Error>(()))
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        let mut runs = Runs::new(dir.path());
        runs.write(vec![Cut]).unwrap();
        let e = runs
            .merge_in_ranges(
                Vec::new(),
                RangeMerge::within(1 << 20, 8),
                |_, _| {},
                |_: &mut (), _| {},
                |_| Ok::<(), io::Error>(()),
            )
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}
