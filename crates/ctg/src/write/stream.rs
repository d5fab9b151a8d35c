//! Writing a book whose records come one at a time, in hash order, without holding them.
//!
//! A page holds the records of one leaf of the split tree: the records whose hashes share
//! their lowest bits. Sorted by the hash's bits read from the lowest up ([`hash_order`]),
//! every leaf's records are consecutive. [`StreamWriter`] spools each record's bytes to an
//! anonymous temporary file as it comes and keeps six bytes of it (its hash and size); at the
//! end it places the tree on those (the rule of [`super::layout`]), then reads each page's
//! records back from the spool in page order and writes the three files as one set. The files
//! are byte for byte those of [`super::write_book`] given the same records in any order.

use std::{
    cmp::Ordering,
    fs::File,
    io::{self, BufWriter, Read, Seek, SeekFrom, Write},
    ops::Range,
    path::{Path, PathBuf},
};

use chessfmt_files::atomic::FileSet;

use super::{Index, RecordData, WriteSummary, book_paths, ctb_of, cto_of, put_page_header};
use crate::{
    Error,
    error::WriteError,
    hash::{MAX_MASK, gen_hash},
    raw::{Header, PAGE_HEADER, PAGE_PAYLOAD, PAGE_SIZE},
};

/// The order [`StreamWriter`] takes records in: by this value, then by the position's
/// bytes. It is the position's hash with its bits reversed, so that the records of one page
/// (a leaf of the split tree: the hashes that share their lowest bits) come together.
pub fn hash_order(position: &[u8]) -> u32 {
    gen_hash(position).reverse_bits()
}

/// Writes a book from records that arrive in [`hash_order`] (then by position), without
/// holding them: each is spooled to an anonymous temporary file, and six bytes of it stay in
/// memory until [`StreamWriter::finish`] lays out and writes the book. Nothing is written
/// to the book's paths before `finish`, and dropping the writer leaves no file behind.
#[derive(Debug)]
pub struct StreamWriter {
    paths: [PathBuf; 3],
    scratch: PathBuf,
    spool: BufWriter<File>,
    /// Each record's hash and size, in the order they came.
    hashes: Vec<u32>,
    sizes: Vec<u16>,
    /// The last record's position (the order is checked against it).
    last: Vec<u8>,
    bytes: Vec<u8>,
}

impl StreamWriter {
    /// A writer of the book at `path` (the `.ctg`; `.cto` and `.ctb` beside it), spooling to
    /// `scratch` (a folder). Refuses, here already, to replace any of the three files unless
    /// `overwrite`.
    pub fn new(
        path: impl AsRef<Path>,
        overwrite: bool,
        scratch: impl AsRef<Path>,
    ) -> Result<StreamWriter, Error> {
        let paths = book_paths(path.as_ref());
        if !overwrite {
            for p in &paths {
                chessfmt_files::atomic::refuse_existing(p).map_err(|e| Error::io(p, e))?;
            }
        }
        let scratch = scratch.as_ref().to_path_buf();
        let spool = tempfile::tempfile_in(&scratch).map_err(|e| Error::io(&scratch, e))?;
        Ok(StreamWriter {
            paths,
            scratch,
            spool: BufWriter::with_capacity(1 << 16, spool),
            hashes: Vec::new(),
            sizes: Vec::new(),
            last: Vec::new(),
            bytes: Vec::new(),
        })
    }

    /// Records pushed so far.
    pub fn records(&self) -> usize {
        self.hashes.len()
    }

    /// Adds the next record: after the one before in [`hash_order`], or of the same order
    /// and a greater position. A record out of that order, or one that no book can hold, is
    /// an error (the writer can go on with the next).
    pub fn push(&mut self, record: &RecordData) -> Result<(), Error> {
        let n = self.hashes.len();
        record.check(n)?;
        let hash = gen_hash(&record.position);
        if let Some(&before) = self.hashes.last() {
            let order = before
                .reverse_bits()
                .cmp(&hash.reverse_bits())
                .then_with(|| self.last.as_slice().cmp(&record.position));
            if order != Ordering::Less {
                return Err(WriteError::OutOfOrder { record: n + 1 }.into());
            }
        }
        self.bytes.clear();
        self.bytes.resize(record.len(), 0);
        record.write_into(&mut self.bytes);
        self.spool
            .write_all(&self.bytes)
            .map_err(|e| Error::io(&self.scratch, e))?;
        self.hashes.push(hash);
        // A record is at most 31 + 1 + 2 × 127 + 33 bytes.
        self.sizes.push(self.bytes.len() as u16);
        self.last.clear();
        self.last.extend_from_slice(&record.position);
        Ok(())
    }

    /// Lays out the book and writes its three files as one set; `games` goes to the header.
    pub fn finish(self, games: u32) -> Result<WriteSummary, Error> {
        let StreamWriter {
            paths,
            scratch,
            spool,
            hashes,
            sizes,
            ..
        } = self;
        let spool_error = |e| Error::io(&scratch, e);
        let mut spool = spool
            .into_inner()
            .map_err(|e| spool_error(e.into_error()))?;
        let (mut leaves, split) = place_sorted(&hashes, &sizes)?;
        leaves.sort_unstable_by_key(|l| l.node);
        let index = Index::of(leaves.iter().map(|l| l.node), &split)?;
        let header = Header {
            pages: leaves.len() as u32,
            positions: u32::try_from(hashes.len()).unwrap_or(u32::MAX),
            games,
        };
        drop(hashes);
        let mut set = FileSet::new(&paths[0]).map_err(|e| Error::io(&paths[0], e))?;
        // A failure to read the spool is reported as itself, not as the book's.
        let mut read_error = None;
        let staged = set.stage(&paths[0], |w| {
            w.write_all(&header.to_page())?;
            let mut page = vec![0; PAGE_SIZE];
            let mut records = Vec::new();
            for leaf in &leaves {
                if let Err(e) = read_page(&mut spool, leaf, &sizes, &mut records, &mut page) {
                    read_error = Some(e);
                    return Err(io::Error::other("the spool could not be read"));
                }
                w.write_all(&page)?;
            }
            Ok(())
        });
        if let Some(e) = read_error {
            return Err(spool_error(e));
        }
        staged.map_err(|e| Error::io(&paths[0], e))?;
        for (p, bytes) in paths[1..].iter().zip([
            cto_of(&index.directory, index.bounds),
            ctb_of(&index.bitmap, index.bounds),
        ]) {
            set.stage(p, |w| w.write_all(&bytes))
                .map_err(|e| Error::io(p, e))?;
        }
        set.commit().map_err(|e| Error::io(&paths[0], e))?;
        Ok(WriteSummary {
            records: header.positions as usize,
            pages: header.pages,
            directory: index.directory.len(),
            bounds: index.bounds,
        })
    }
}

/// A page of the book: its node, its records (consecutive in the spool) and where their bytes
/// start there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Leaf {
    node: u32,
    records: Range<usize>,
    offset: u64,
    bytes: usize,
}

/// Places records sorted by [`hash_order`] (their hashes and sizes) into the split tree of
/// [`super::layout`]: the leaves, in no particular order, and the split nodes.
fn place_sorted(hashes: &[u32], sizes: &[u16]) -> Result<(Vec<Leaf>, Vec<u32>), Error> {
    let payload = |r: Range<usize>| sizes[r].iter().map(|&s| usize::from(s)).sum::<usize>();
    let (mut leaves, mut split) = (Vec::new(), Vec::new());
    let mut todo = vec![(0u32, 0u32, 0..hashes.len(), 0u64, payload(0..hashes.len()))];
    while let Some((mask, block, records, offset, bytes)) = todo.pop() {
        let node = block + mask;
        if bytes <= PAGE_PAYLOAD {
            leaves.push(Leaf {
                node,
                records,
                offset,
                bytes,
            });
            continue;
        }
        if mask >= MAX_MASK {
            return Err(WriteError::HashCollision {
                records: records.len(),
            }
            .into());
        }
        split.push(node);
        // The node's records share their hash's bits under `mask`; in hash order those
        // whose next bit is clear come first.
        let bit = mask + 1;
        let mid = records.start + hashes[records.clone()].partition_point(|h| h & bit == 0);
        let low = payload(records.start..mid);
        let child = mask * 2 + 1;
        todo.push((
            child,
            block + bit,
            mid..records.end,
            offset + low as u64,
            bytes - low,
        ));
        todo.push((child, block, records.start..mid, offset, low));
    }
    Ok((leaves, split))
}

/// Reads the records of `leaf` from the spool and lays them out in `page` (sorted by
/// position, as [`super::write_book`] has them).
fn read_page(
    spool: &mut File,
    leaf: &Leaf,
    sizes: &[u16],
    records: &mut Vec<Range<usize>>,
    page: &mut [u8],
) -> io::Result<()> {
    page.fill(0);
    let body = &mut page[PAGE_HEADER..PAGE_HEADER + leaf.bytes];
    spool.seek(SeekFrom::Start(leaf.offset))?;
    spool.read_exact(body)?;
    records.clear();
    let mut at = 0;
    for &s in &sizes[leaf.records.clone()] {
        records.push(at..at + usize::from(s));
        at += usize::from(s);
    }
    // A record starts with its position, whose first byte holds its length.
    let position = |r: &Range<usize>| {
        let p = &body[r.clone()];
        &p[..usize::from(p[0] & 0x1f)]
    };
    if !records.is_sorted_by(|a, b| position(a) <= position(b)) {
        records.sort_unstable_by(|a, b| position(a).cmp(position(b)));
        let sorted: Vec<u8> = records
            .iter()
            .flat_map(|r| &body[r.clone()])
            .copied()
            .collect();
        body.copy_from_slice(&sorted);
    }
    put_page_header(page, leaf.records.len(), PAGE_HEADER + leaf.bytes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::Stats;

    /// Records of random positions (valid headers, random bytes) and moves.
    fn records(n: usize, seed: u64) -> Vec<RecordData> {
        let mut rng = chess_core::fuzzing::XorShift::new(seed);
        (0..n)
            .map(|_| {
                let x = rng.next_u64();
                let len = 8 + (x % 20) as usize;
                let mut position = vec![len as u8];
                position.extend((1..len).map(|_| rng.next_u64() as u8));
                let moves = (0..(x >> 8) % 40).map(|m| (m as u8, 0)).collect();
                RecordData {
                    position,
                    moves,
                    stats: Stats {
                        games: (x >> 20) as u32 % 1000,
                        ..Stats::default()
                    },
                }
            })
            .collect()
    }

    fn in_hash_order(mut records: Vec<RecordData>) -> Vec<RecordData> {
        records.sort_by(|a, b| {
            (hash_order(&a.position), &a.position).cmp(&(hash_order(&b.position), &b.position))
        });
        records.dedup_by(|a, b| a.position == b.position);
        records
    }

    /// The streamed book is byte for byte the book written from memory, for books of one
    /// page, a few and many.
    #[test]
    fn streamed_book_is_the_book_from_memory() {
        let dir = tempfile::tempdir().unwrap();
        for (n, seed) in [(0, 1), (1, 2), (30, 3), (500, 4), (20_000, 5)] {
            let recs = in_hash_order(records(n, seed));
            let from_memory = super::super::to_bytes(&recs, 77).unwrap();
            let path = dir.path().join(format!("b{n}.ctg"));
            let mut w = StreamWriter::new(&path, false, dir.path()).unwrap();
            for r in &recs {
                w.push(r).unwrap();
            }
            assert_eq!(w.records(), recs.len());
            let summary = w.finish(77).unwrap();
            assert_eq!(summary.records, recs.len());
            for (p, bytes) in book_paths(&path).iter().zip(&from_memory) {
                assert!(&std::fs::read(p).unwrap() == bytes, "{n} records: {p:?}");
            }
        }
        // Only the books' files and their sets' locks are left (the spool had no name).
        for f in std::fs::read_dir(dir.path()).unwrap() {
            let name = f.unwrap().file_name().into_string().unwrap();
            assert!(
                [".ctg", ".cto", ".ctb", ".chessfmt-lock"]
                    .iter()
                    .any(|e| name.ends_with(e)),
                "{name} left behind"
            );
        }
    }

    /// A record out of hash order, a repeated position and a bad record are refused, the
    /// writer going on; an existing book is not replaced without `overwrite`.
    #[test]
    fn order_and_records_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let recs = in_hash_order(records(3, 9));
        let path = dir.path().join("b.ctg");
        let mut w = StreamWriter::new(&path, false, dir.path()).unwrap();
        w.push(&recs[1]).unwrap();
        for bad in [&recs[0], &recs[1]] {
            let e = w.push(bad).unwrap_err();
            assert!(
                matches!(e, Error::Write(WriteError::OutOfOrder { record: 2 })),
                "{e:?}"
            );
        }
        let mut short = recs[2].clone();
        short.position.truncate(1);
        assert!(matches!(
            w.push(&short),
            Err(Error::Write(WriteError::BadPosition { record: 2, .. }))
        ));
        w.push(&recs[2]).unwrap();
        w.finish(0).unwrap();
        assert!(StreamWriter::new(&path, false, dir.path()).is_err());
        assert!(StreamWriter::new(&path, true, dir.path()).is_ok());
    }

    /// Records that share one hash and do not fit a page are an error, as for
    /// [`super::super::layout`].
    #[test]
    fn a_full_hash_is_a_collision() {
        let hashes = vec![7u32; 30];
        let sizes = vec![200u16; 30];
        let e = place_sorted(&hashes, &sizes).unwrap_err();
        assert!(matches!(
            e,
            Error::Write(WriteError::HashCollision { records: 30 })
        ));
    }
}
