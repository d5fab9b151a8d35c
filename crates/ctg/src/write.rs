//! Writing a book: records bucketed into pages with ndbm's split rule, the `.cto` directory
//! and the `.ctb` split bitmap, each file written atomically.
//!
//! The split tree is built offline: all records start in node 0; a node whose records exceed
//! a page's payload (4092 bytes) is split by the next hash bit into blocks `b` and `b + n + 1`
//! at mask `2n + 1` (its bit set in the bitmap); every leaf gets a page. The `.ctb` bounds are
//! set as ChessBase-made books have them: `lower` = smallest leaf node rounded down to a
//! multiple of 8, `upper` = the bitmap's size in bits; the `.cto` has one entry per node up to
//! the largest leaf. Readers walking the directory the usual way (NOTES.md) and readers
//! following the bitmap (ndbm's own walk) both find every record.

use std::io::{self, Write};
#[cfg(feature = "std")]
use std::path::{Path, PathBuf};

#[cfg(feature = "std")]
use chessfmt_files::atomic::FileSet;

#[cfg(feature = "std")]
pub(crate) mod stream;
#[cfg(feature = "std")]
pub use stream::{StreamWriter, hash_order};

use crate::{
    Error,
    error::WriteError,
    hash::{MAX_MASK, gen_hash},
    raw::{
        CtbHeader, CtoHeader, Header, MAX_MOVES, NO_PAGE, PAGE_HEADER, PAGE_PAYLOAD, PAGE_SIZE,
        PageHeader, RawRecord, STATS_LEN, Stats,
    },
};

/// How a merge of sorted runs into a book's records cuts its work
/// (`chessfmt_files::runs::Runs::merge_in_ranges`): the records made on the pool ahead of the
/// writer take a fourth of a memory limit of `limit` bytes, 16 MiB without one, at about
/// 256 bytes a [`RecordData`] (itself and its lists).
#[cfg(any(feature = "pgn", feature = "tally"))]
pub(crate) fn merge_cut(limit: Option<usize>) -> chessfmt_files::runs::RangeMerge {
    chessfmt_files::runs::RangeMerge::within(limit.map_or(16 << 20, |b| b / 4), 256)
}

/// One record to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordData {
    /// The encoded position, header byte included (see `ctg::position::key_of`).
    pub position: Vec<u8>,
    /// (move code, annotation) pairs, at most [`MAX_MOVES`].
    pub moves: Vec<(u8, u8)>,
    /// Statistics (results of the side to move in the stored position).
    pub stats: Stats,
}

impl RecordData {
    /// A copy of a record read from a book.
    pub fn from_raw(raw: &RawRecord<'_>) -> RecordData {
        RecordData {
            position: raw.position.to_vec(),
            moves: raw.move_pairs().collect(),
            stats: raw.stats(),
        }
    }

    /// The record's size in bytes.
    pub fn len(&self) -> usize {
        self.position.len() + 1 + 2 * self.moves.len() + STATS_LEN
    }

    /// Always false: a record has at least its position, moves byte and statistics.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the record at the start of `out` (at least [`RecordData::len`] bytes).
    fn write_into(&self, out: &mut [u8]) {
        let (position, rest) = out.split_at_mut(self.position.len());
        position.copy_from_slice(&self.position);
        // The moves' byte counts itself and the pairs after it; the statistics follow.
        let stats = 1 + 2 * self.moves.len();
        rest[0] = stats as u8;
        for (pair, &(c, a)) in rest[1..].chunks_exact_mut(2).zip(&self.moves) {
            pair.copy_from_slice(&[c, a]);
        }
        rest[stats..stats + STATS_LEN].copy_from_slice(&self.stats.saturated().to_bytes());
    }

    fn check(&self, index: usize) -> Result<(), Error> {
        let l = self.position.len();
        if !(2..=31).contains(&l) || usize::from(self.position[0] & 0x1f) != l {
            return Err(WriteError::BadPosition {
                record: index + 1,
                len: l,
                header: self.position.first().copied().unwrap_or(0),
            }
            .into());
        }
        if self.moves.len() > MAX_MOVES {
            return Err(WriteError::TooManyMoves {
                record: index + 1,
                moves: self.moves.len(),
                max: MAX_MOVES,
            }
            .into());
        }
        Ok(())
    }
}

/// Where every record goes: pages, directory and bitmap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Record indices of each page, in page order.
    pub pages: Vec<Vec<usize>>,
    /// `.cto` entries: page per node (or [`NO_PAGE`]).
    pub directory: Vec<u32>,
    /// The split bitmap (bit `c` set = node `c` split; LSB first).
    pub bitmap: Vec<u8>,
    /// The `.ctb` bounds.
    pub bounds: CtbHeader,
}

/// Buckets records into pages with ndbm's split rule.
pub fn layout(records: &[RecordData]) -> Result<Layout, Error> {
    // The first record that cannot be written, if any (every record checked on the pool
    // where the `parallel` feature is on).
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        let first = records
            .par_iter()
            .enumerate()
            .map(|(i, r)| r.check(i))
            .find_first(Result::is_err);
        first.unwrap_or(Ok(()))?;
    }
    #[cfg(not(feature = "parallel"))]
    for (i, r) in records.iter().enumerate() {
        r.check(i)?;
    }
    // Each record's hash and size, side by side: the splits below read only these.
    let meta: Vec<(u32, usize)> = map_records(records, |r| (gen_hash(&r.position), r.len()));
    let all = meta.iter().map(|m| m.1).sum();
    let Placed { mut leaves, split } = place(
        &meta,
        (0, 0),
        (0..records.len()).collect(),
        all,
        PARALLEL_SPLIT,
    )?;
    leaves.sort_by_key(|(node, _)| *node);
    let index = Index::of(leaves.iter().map(|(node, _)| *node), &split)?;
    let mut pages: Vec<Vec<usize>> = leaves.into_iter().map(|(_, idx)| idx).collect();
    let by_position = |idx: &mut Vec<usize>| {
        idx.sort_by(|&a, &b| records[a].position.cmp(&records[b].position));
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        pages.par_iter_mut().for_each(by_position);
    }
    #[cfg(not(feature = "parallel"))]
    pages.iter_mut().for_each(by_position);
    Ok(Layout {
        pages,
        directory: index.directory,
        bitmap: index.bitmap,
        bounds: index.bounds,
    })
}

/// The page directory, split bitmap and bounds of a split tree.
struct Index {
    directory: Vec<u32>,
    bitmap: Vec<u8>,
    bounds: CtbHeader,
}

impl Index {
    /// The index of the tree whose leaves are the nodes `leaves` (in page order, ascending)
    /// and whose split nodes are `split` (in any order).
    fn of(
        leaves: impl ExactSizeIterator<Item = u32> + Clone,
        split: &[u32],
    ) -> Result<Index, Error> {
        if leaves.len() > u32::MAX as usize - 1 {
            return Err(WriteError::TooManyPages {
                pages: leaves.len(),
            }
            .into());
        }
        let max_leaf = leaves.clone().last().unwrap_or(0);
        let min_leaf = leaves.clone().next().unwrap_or(0);
        let dir_len = usize::try_from(max_leaf).map_err(|_| WriteError::TooManyPages {
            pages: max_leaf as usize,
        })? + 1;
        let mut directory = vec![NO_PAGE; dir_len];
        for (page, node) in leaves.enumerate() {
            directory[node as usize] = page as u32;
        }
        let bits = split.iter().max().map_or(0, |&m| m as usize + 1);
        let mut bitmap = vec![0u8; bits.div_ceil(8)];
        for &s in split {
            bitmap[s as usize / 8] |= 1 << (s % 8);
        }
        Ok(Index {
            directory,
            bounds: CtbHeader {
                lower: min_leaf / 8 * 8,
                upper: (bitmap.len() * 8) as u32,
            },
            bitmap,
        })
    }
}

/// `f` of every record, in parallel where the `parallel` feature is on.
fn map_records<T: Send>(
    records: &[RecordData],
    f: impl Fn(&RecordData) -> T + Sync + Send,
) -> Vec<T> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        records.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    records.iter().map(f).collect()
}

/// The leaves (node, records) and split nodes of a subtree of the layout.
#[derive(Default)]
struct Placed {
    leaves: Vec<(u32, Vec<usize>)>,
    split: Vec<u32>,
}

/// Once both halves of a split have more records than this, they are placed in parallel;
/// smaller subtrees are placed on one thread.
const PARALLEL_SPLIT: usize = 50_000;

/// Places the records `idx` of node `block + mask` (their payload `payload`): a leaf if they
/// fit a page, else split by the next hash bit into blocks `block` and `block + mask + 1`
/// at mask `2 * mask + 1`, each placed in turn (both at once when both have more than
/// `parallel_above` records and the `parallel` feature is on). The order of leaves and splits
/// found does not matter (both are sorted or set by node); of two collisions, the one of the
/// lower block is reported, as a depth-first walk finds it.
fn place(
    meta: &[(u32, usize)],
    (mask, block): (u32, u32),
    idx: Vec<usize>,
    payload: usize,
    parallel_above: usize,
) -> Result<Placed, Error> {
    let mut placed = Placed::default();
    let mut todo = vec![(mask, block, idx, payload)];
    while let Some((mask, block, idx, payload)) = todo.pop() {
        let node = block + mask;
        if payload <= PAGE_PAYLOAD {
            placed.leaves.push((node, idx));
            continue;
        }
        if mask >= MAX_MASK {
            return Err(WriteError::HashCollision { records: idx.len() }.into());
        }
        placed.split.push(node);
        let bit = mask + 1;
        let ((hi, hi_payload), (lo, lo_payload)) = split(meta, idx, bit, parallel_above);
        let child_mask = mask * 2 + 1;
        #[cfg(feature = "parallel")]
        if lo.len().min(hi.len()) > parallel_above {
            let (lo, hi) = rayon::join(
                || place(meta, (child_mask, block), lo, lo_payload, parallel_above),
                || {
                    place(
                        meta,
                        (child_mask, block + bit),
                        hi,
                        hi_payload,
                        parallel_above,
                    )
                },
            );
            for part in [lo?, hi?] {
                placed.leaves.extend(part.leaves);
                placed.split.extend(part.split);
            }
            continue;
        }
        todo.push((child_mask, block + bit, hi, hi_payload));
        todo.push((child_mask, block, lo, lo_payload));
    }
    #[cfg(not(feature = "parallel"))]
    let _ = parallel_above;
    Ok(placed)
}

/// The records of `idx` with the hash bit `bit` set and those without, in their order, each
/// with its payload. Where there are many more than `parallel_above` (the first splits of a
/// book: every record, then half of them, …, each a walk one thread would make while the
/// others wait), on the pool.
fn split(
    meta: &[(u32, usize)],
    idx: Vec<usize>,
    bit: u32,
    parallel_above: usize,
) -> ((Vec<usize>, usize), (Vec<usize>, usize)) {
    let set = |i: &usize| meta[*i].0 & bit != 0;
    #[cfg(feature = "parallel")]
    if idx.len() / 4 > parallel_above {
        use rayon::prelude::*;
        let (hi, lo): (Vec<usize>, Vec<usize>) = idx.par_iter().partition(|i| set(i));
        let payload = |side: &[usize]| side.par_iter().map(|&i| meta[i].1).sum();
        let (hi_payload, lo_payload) = rayon::join(|| payload(&hi), || payload(&lo));
        return ((hi, hi_payload), (lo, lo_payload));
    }
    #[cfg(not(feature = "parallel"))]
    let _ = parallel_above;
    // One walk, summing each side's payload on the way.
    let (mut hi, mut lo) = (Vec::new(), Vec::with_capacity(idx.len()));
    let (mut hi_payload, mut lo_payload) = (0, 0);
    for i in idx {
        if set(&i) {
            hi.push(i);
            hi_payload += meta[i].1;
        } else {
            lo.push(i);
            lo_payload += meta[i].1;
        }
    }
    ((hi, hi_payload), (lo, lo_payload))
}

/// The `.cto` bytes of a layout.
pub fn cto_bytes(layout: &Layout) -> Vec<u8> {
    cto_of(&layout.directory, layout.bounds)
}

/// The `.ctb` bytes of a layout.
pub fn ctb_bytes(layout: &Layout) -> Vec<u8> {
    ctb_of(&layout.bitmap, layout.bounds)
}

/// The `.cto` bytes of a page directory.
fn cto_of(directory: &[u32], bounds: CtbHeader) -> Vec<u8> {
    let header = CtoHeader {
        entries: directory.len() as u32,
        lower: bounds.lower,
    };
    let mut out = header.to_bytes().to_vec();
    for e in directory {
        out.extend_from_slice(&e.to_be_bytes());
    }
    out
}

/// The `.ctb` bytes of a split bitmap.
fn ctb_of(bitmap: &[u8], bounds: CtbHeader) -> Vec<u8> {
    let mut out = bounds.to_bytes().to_vec();
    out.extend_from_slice(bitmap);
    out
}

/// What [`write_book`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteSummary {
    /// Records written.
    pub records: usize,
    /// Data pages.
    pub pages: u32,
    /// `.cto` entries.
    pub directory: usize,
    /// The `.ctb` bounds.
    pub bounds: CtbHeader,
}

/// The three paths of a book from its `.ctg` path (extensions in lower case).
#[cfg(feature = "std")]
pub fn book_paths(ctg: &Path) -> [PathBuf; 3] {
    [
        ctg.to_path_buf(),
        ctg.with_extension("cto"),
        ctg.with_extension("ctb"),
    ]
}

/// Writes the `.ctg` bytes of a layout to `w`.
pub fn write_ctg(
    w: &mut dyn Write,
    records: &[RecordData],
    layout: &Layout,
    games: u32,
) -> io::Result<()> {
    let header = Header {
        pages: layout.pages.len() as u32,
        positions: u32::try_from(records.len()).unwrap_or(u32::MAX),
        games,
    };
    w.write_all(&header.to_page())?;
    // Pages are made a run at a time (in parallel where the `parallel` feature is on, while
    // the previous run is written) into one buffer each.
    const RUN: usize = 2048;
    let fill = |run: usize, buf: &mut Vec<u8>| {
        let pages = &layout.pages[run * RUN..((run + 1) * RUN).min(layout.pages.len())];
        buf.clear();
        buf.resize(pages.len() * PAGE_SIZE, 0);
        let page = |(out, idx): (&mut [u8], &Vec<usize>)| page_into(records, idx, out);
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            buf.par_chunks_mut(PAGE_SIZE).zip(pages).for_each(page);
        }
        #[cfg(not(feature = "parallel"))]
        buf.chunks_mut(PAGE_SIZE).zip(pages).for_each(page);
    };
    let runs = layout.pages.len().div_ceil(RUN);
    #[cfg(feature = "parallel")]
    {
        // A helper thread makes the runs (on the rayon pool) while this one writes them; two
        // runs in flight at most.
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
        let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                for run in 0..runs {
                    let mut buf = empty_rx.try_recv().unwrap_or_default();
                    fill(run, &mut buf);
                    if full_tx.send(buf).is_err() {
                        return; // the writer stopped on an error
                    }
                }
            });
            for buf in &full_rx {
                w.write_all(&buf)?;
                let _ = empty_tx.send(buf);
            }
            Ok(())
        })
    }
    #[cfg(not(feature = "parallel"))]
    {
        let mut buf = Vec::new();
        for run in 0..runs {
            fill(run, &mut buf);
            w.write_all(&buf)?;
        }
        Ok(())
    }
}

/// Writes one page (header, the records `idx`, zeros after them) into `out`, a zeroed
/// [`PAGE_SIZE`] bytes. The layout keeps every page's records within its payload.
fn page_into(records: &[RecordData], idx: &[usize], out: &mut [u8]) {
    let mut used = PAGE_HEADER;
    for &i in idx {
        let r = &records[i];
        r.write_into(&mut out[used..used + r.len()]);
        used += r.len();
    }
    put_page_header(out, idx.len(), used);
}

/// Writes the header of a page holding `records` records in its first `used` bytes (the
/// header's included).
fn put_page_header(page: &mut [u8], records: usize, used: usize) {
    let h = PageHeader {
        records: records as u16,
        used: used as u16,
    };
    page[..PAGE_HEADER].copy_from_slice(&h.to_bytes());
}

/// Writes a book (`path` = the `.ctg`; `.cto` and `.ctb` beside it), each file atomically.
/// Refuses to replace any of the three unless `overwrite`. `games` goes to the header.
#[cfg(feature = "std")]
pub fn write_book(
    path: impl AsRef<Path>,
    records: &[RecordData],
    games: u32,
    overwrite: bool,
) -> Result<WriteSummary, Error> {
    let paths = book_paths(path.as_ref());
    if !overwrite {
        for p in &paths {
            chessfmt_files::atomic::refuse_existing(p).map_err(|e| Error::io(p, e))?;
        }
    }
    let layout = layout(records)?;
    // The three files are one set: committed together through a journal, so that a crash
    // leaves the old book or the new one, never a new .ctg beside an old .cto.
    let mut set = FileSet::new(&paths[0]).map_err(|e| Error::io(&paths[0], e))?;
    set.stage(&paths[0], |w| write_ctg(w, records, &layout, games))
        .map_err(|e| Error::io(&paths[0], e))?;
    for (p, bytes) in paths[1..]
        .iter()
        .zip([cto_bytes(&layout), ctb_bytes(&layout)])
    {
        set.stage(p, |w| w.write_all(&bytes))
            .map_err(|e| Error::io(p, e))?;
    }
    set.commit().map_err(|e| Error::io(&paths[0], e))?;
    Ok(WriteSummary {
        records: records.len(),
        pages: layout.pages.len() as u32,
        directory: layout.directory.len(),
        bounds: layout.bounds,
    })
}

/// The three files' bytes in memory (`.ctg`, `.cto`, `.ctb`): for tests and tools that do not
/// touch the disk.
pub fn to_bytes(records: &[RecordData], games: u32) -> Result<[Vec<u8>; 3], Error> {
    let layout = layout(records)?;
    let mut ctg = Vec::new();
    write_ctg(&mut ctg, records, &layout, games).map_err(|e| Error::io("<memory>", e))?;
    Ok([ctg, cto_bytes(&layout), ctb_bytes(&layout)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Of many records that cannot be written, the first is the one reported (the records
    /// are checked on the pool).
    #[test]
    fn the_first_bad_record_is_reported() {
        let good = |n: u32| {
            let mut position = vec![0u8; 8];
            position[0] = 8;
            position[1..5].copy_from_slice(&n.to_le_bytes());
            RecordData {
                position,
                moves: vec![(1, 0)],
                stats: Stats::default(),
            }
        };
        let mut records: Vec<RecordData> = (0..100_000).map(good).collect();
        records[70_000].moves = vec![(1, 0); MAX_MOVES + 1];
        records[90_000].position[0] = 3;
        records[60_000].position.push(0);
        let e = format!("{:?}", layout(&records).unwrap_err());
        assert!(e.contains("record: 60001"), "{e}");
        records[60_000].position.pop();
        let e = format!("{:?}", layout(&records).unwrap_err());
        assert!(e.contains("record: 70001"), "{e}");
    }

    /// Subtrees placed in parallel, and the first splits made on the pool, give the leaves
    /// (their records in the same order) and splits of one depth-first walk.
    #[test]
    fn parallel_placement_is_sequential_placement() {
        let mut rng = chess_core::fuzzing::XorShift::new(0x9e37_79b9_7f4a_7c15);
        let meta: Vec<(u32, usize)> = (0..40_000)
            .map(|_| {
                let x = rng.next_u64();
                (x as u32, 30 + (x >> 40) as usize % 200)
            })
            .collect();
        let all = meta.iter().map(|m| m.1).sum();
        let sorted = |mut p: Placed| {
            p.leaves.sort();
            p.split.sort();
            (p.leaves, p.split)
        };
        let one = sorted(place(&meta, (0, 0), (0..meta.len()).collect(), all, usize::MAX).unwrap());
        let many = sorted(place(&meta, (0, 0), (0..meta.len()).collect(), all, 100).unwrap());
        assert!(one.0.len() > 1000, "{} pages", one.0.len());
        assert_eq!(one, many);
    }
}
