//! Memory-bounded building: plies spilled to sorted runs on disk and merged, with the same
//! result as the in-memory build, byte for byte.
//!
//! The reference statistics are not additive: a position's pairs are halved when one reaches
//! n = 16384, so the result depends on the order of that position's plies. Runs therefore hold
//! plies, not counts: each run is sorted by position key with the input order kept within a key,
//! runs are numbered in input order, and the merge replays every position's plies in input
//! order. Positions frequent in the first run (at least [`RESIDENT_MIN`] plies — the start
//! position and the main openings, which hold most plies of any PGN) stay *resident*: they are
//! counted in memory for the whole build and never reach the disk, which keeps the runs to the
//! long tail of rarer positions. The resident set is fixed when the first run is written, so a
//! position is either counted entirely in memory or replayed entirely from the runs.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, BufReader, BufWriter, Read, Seek, Write},
    path::PathBuf,
};

/// Plies a position needs in the first run to stay resident.
pub const RESIDENT_MIN: usize = 32;

/// Bytes of a ply on disk: key (8, little-endian), move field | white bit (2), points (1).
const RECORD: usize = 11;

/// At most this many runs are merged at once; more are first merged in groups of consecutive
/// runs (which keeps the input order).
/// (Small in unit tests, so that they take this path.)
const MAX_FAN_IN: usize = if cfg!(test) { 16 } else { 128 };

/// The smallest buffer (plies), whatever the budget.
const MIN_CAP: usize = 4096;

/// A ply waiting in memory: its position, its place in the input, move and mover's points.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpillPly {
    pub key: u64,
    pub seq: u32,
    /// Move field | `WHITE` (bit 15).
    pub mv: u16,
    pub points: u8,
}

/// The on-disk side of a memory-bounded build.
#[derive(Debug)]
pub(crate) struct Spill {
    dir: PathBuf,
    /// Plies held before a run is written.
    pub cap: usize,
    pub buffer: Vec<SpillPly>,
    runs: Vec<File>,
    /// Whether the resident set is fixed (the first run was written).
    pub frozen: bool,
    /// Bytes written to runs.
    pub bytes_spilled: u64,
}

impl Spill {
    /// A spill area in `dir` holding about `budget` bytes of plies in memory.
    pub fn new(dir: PathBuf, budget: usize) -> Self {
        let cap = (budget / size_of::<SpillPly>()).clamp(MIN_CAP, u32::MAX as usize >> 1);
        Spill {
            dir,
            cap,
            buffer: Vec::new(),
            runs: Vec::new(),
            frozen: false,
            bytes_spilled: 0,
        }
    }

    /// Queues a ply.
    pub fn push(&mut self, key: u64, mv: u16, points: u8) {
        if self.buffer.len() == self.buffer.capacity() {
            // The limit is a ceiling, not an allocation: the buffer grows with the input
            // (doubling, from 1 Mi plies) up to the budget, so a small input under a large
            // limit takes what it needs (a 963-byte PGN under `--memory-limit 32768` took
            // 27 GB up front before).
            let full = self.cap + self.cap / 16;
            let want = (self.buffer.len() * 2).max(1 << 20).min(full);
            self.buffer
                .reserve_exact(want.saturating_sub(self.buffer.len()).max(1));
        }
        let seq = self.buffer.len() as u32;
        self.buffer.push(SpillPly {
            key,
            seq,
            mv,
            points,
        });
    }

    pub fn has_runs(&self) -> bool {
        !self.runs.is_empty()
    }

    /// Sorts the buffer by (key, input order) and writes the plies `spill` selects as a run;
    /// the others are handed to `keep` (the resident positions). Empties the buffer.
    pub fn write_run(&mut self, mut keep: impl FnMut(&[SpillPly]) -> bool) -> io::Result<()> {
        use rayon::slice::ParallelSliceMut;
        self.buffer.par_sort_unstable_by_key(|p| (p.key, p.seq));
        let file = tempfile::tempfile_in(&self.dir)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let mut written = 0u64;
        for group in self.buffer.chunk_by(|a, b| a.key == b.key) {
            if keep(group) {
                continue;
            }
            for p in group {
                let rec = Record {
                    key: p.key,
                    mv: p.mv,
                    points: p.points,
                };
                w.write_all(&rec.to_bytes())?;
            }
            written += group.len() as u64 * RECORD as u64;
        }
        let file = w.into_inner().map_err(|e| e.into_error())?;
        self.bytes_spilled += written;
        self.runs.push(file);
        self.buffer.clear();
        self.frozen = true;
        Ok(())
    }

    /// All spilled plies in (key, input) order, reducing the number of runs first if needed.
    pub fn merged(mut self) -> io::Result<RunMerger> {
        while self.runs.len() > MAX_FAN_IN {
            let runs = std::mem::take(&mut self.runs);
            let mut groups = Vec::new();
            let mut it = runs.into_iter();
            loop {
                let group: Vec<File> = it.by_ref().take(MAX_FAN_IN).collect();
                if group.is_empty() {
                    break;
                }
                groups.push(group);
            }
            for group in groups {
                let mut merger = RunMerger::new(group)?;
                let file = tempfile::tempfile_in(&self.dir)?;
                let mut w = BufWriter::with_capacity(1 << 20, file);
                while let Some(r) = merger.next_record()? {
                    w.write_all(&r.to_bytes())?;
                }
                self.runs.push(w.into_inner().map_err(|e| e.into_error())?);
            }
        }
        RunMerger::new(self.runs)
    }
}

/// A spilled ply read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    pub key: u64,
    pub mv: u16,
    pub points: u8,
}

impl Record {
    fn to_bytes(self) -> [u8; RECORD] {
        let mut rec = [0u8; RECORD];
        rec[..8].copy_from_slice(&self.key.to_le_bytes());
        rec[8..10].copy_from_slice(&self.mv.to_le_bytes());
        rec[10] = self.points;
        rec
    }

    fn from_bytes(rec: &[u8; RECORD]) -> Record {
        Record {
            key: u64::from_le_bytes(rec[..8].try_into().expect("8 bytes")),
            mv: u16::from_le_bytes([rec[8], rec[9]]),
            points: rec[10],
        }
    }
}

struct Run {
    r: BufReader<File>,
    head: Option<Record>,
}

impl Run {
    fn advance(&mut self) -> io::Result<()> {
        let mut rec = [0u8; RECORD];
        self.head = match self.r.read_exact(&mut rec) {
            Ok(()) => Some(Record::from_bytes(&rec)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            Err(e) => return Err(e),
        };
        Ok(())
    }
}

/// K-way merge of runs: records by key, and within a key in run (= input) order.
pub(crate) struct RunMerger {
    runs: Vec<Run>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl RunMerger {
    fn new(files: Vec<File>) -> io::Result<Self> {
        let mut runs = Vec::with_capacity(files.len());
        let mut heap = BinaryHeap::with_capacity(files.len());
        for (i, mut f) in files.into_iter().enumerate() {
            f.rewind()?;
            let mut run = Run {
                r: BufReader::with_capacity(64 << 10, f),
                head: None,
            };
            run.advance()?;
            if let Some(rec) = run.head {
                heap.push(Reverse((rec.key, i)));
            }
            runs.push(run);
        }
        Ok(RunMerger { runs, heap })
    }

    /// The key of the next record.
    pub fn peek_key(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((k, _))| *k)
    }

    /// The next record.
    pub fn next_record(&mut self) -> io::Result<Option<Record>> {
        let Some(Reverse((_, i))) = self.heap.pop() else {
            return Ok(None);
        };
        let run = &mut self.runs[i];
        let rec = run.head.expect("a run in the heap has a head");
        run.advance()?;
        if let Some(next) = run.head {
            self.heap.push(Reverse((next.key, i)));
        }
        Ok(Some(rec))
    }
}
