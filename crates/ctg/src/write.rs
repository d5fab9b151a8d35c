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
use chess_core::atomic::FileSet;

use crate::{
    Error,
    error::WriteError,
    hash::{MAX_MASK, gen_hash},
    raw::{
        CtbHeader, CtoHeader, Header, MAX_MOVES, NO_PAGE, PAGE_HEADER, PAGE_PAYLOAD, PAGE_SIZE,
        PageHeader, RawRecord, STATS_LEN, Stats,
    },
};

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

    fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.position);
        out.push((1 + 2 * self.moves.len()) as u8);
        for &(c, a) in &self.moves {
            out.extend_from_slice(&[c, a]);
        }
        out.extend_from_slice(&self.stats.saturated().to_bytes());
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
    for (i, r) in records.iter().enumerate() {
        r.check(i)?;
    }
    // Each record's hash and size, side by side: the splits below read only these.
    let meta: Vec<(u32, usize)> = records
        .iter()
        .map(|r| (gen_hash(&r.position), r.len()))
        .collect();
    // (node, records) of each leaf; (mask, block, records, their payload) still to place.
    let mut leaves: Vec<(u32, Vec<usize>)> = Vec::new();
    let mut split: Vec<u32> = Vec::new();
    let all = meta.iter().map(|m| m.1).sum();
    let mut todo: Vec<(u32, u32, Vec<usize>, usize)> =
        vec![(0, 0, (0..records.len()).collect(), all)];
    while let Some((mask, block, idx, payload)) = todo.pop() {
        let node = block + mask;
        if payload <= PAGE_PAYLOAD {
            leaves.push((node, idx));
            continue;
        }
        if mask >= MAX_MASK {
            return Err(WriteError::HashCollision { records: idx.len() }.into());
        }
        split.push(node);
        let bit = mask + 1;
        // Split by the next hash bit, summing each side's payload on the way.
        let (mut hi, mut lo) = (Vec::new(), Vec::with_capacity(idx.len()));
        let (mut hi_payload, mut lo_payload) = (0, 0);
        for i in idx {
            let (hash, len) = meta[i];
            if hash & bit != 0 {
                hi.push(i);
                hi_payload += len;
            } else {
                lo.push(i);
                lo_payload += len;
            }
        }
        let child_mask = mask * 2 + 1;
        todo.push((child_mask, block + bit, hi, hi_payload));
        todo.push((child_mask, block, lo, lo_payload));
    }
    leaves.sort_by_key(|(node, _)| *node);
    if leaves.len() > u32::MAX as usize - 1 {
        return Err(WriteError::TooManyPages {
            pages: leaves.len(),
        }
        .into());
    }
    let max_leaf = leaves.last().map_or(0, |(n, _)| *n);
    let min_leaf = leaves.first().map_or(0, |(n, _)| *n);
    let dir_len = usize::try_from(max_leaf).map_err(|_| WriteError::TooManyPages {
        pages: max_leaf as usize,
    })? + 1;
    let mut directory = vec![NO_PAGE; dir_len];
    let mut pages = Vec::with_capacity(leaves.len());
    for (page, (node, mut idx)) in leaves.into_iter().enumerate() {
        directory[node as usize] = page as u32;
        idx.sort_by(|&a, &b| records[a].position.cmp(&records[b].position));
        pages.push(idx);
    }
    let bits = split.iter().max().map_or(0, |&m| m as usize + 1);
    let mut bitmap = vec![0u8; bits.div_ceil(8)];
    for s in split {
        bitmap[s as usize / 8] |= 1 << (s % 8);
    }
    Ok(Layout {
        pages,
        directory,
        bounds: CtbHeader {
            lower: min_leaf / 8 * 8,
            upper: (bitmap.len() * 8) as u32,
        },
        bitmap,
    })
}

/// The `.cto` bytes of a layout.
pub fn cto_bytes(layout: &Layout) -> Vec<u8> {
    let header = CtoHeader {
        entries: layout.directory.len() as u32,
        lower: layout.bounds.lower,
    };
    let mut out = header.to_bytes().to_vec();
    for e in &layout.directory {
        out.extend_from_slice(&e.to_be_bytes());
    }
    out
}

/// The `.ctb` bytes of a layout.
pub fn ctb_bytes(layout: &Layout) -> Vec<u8> {
    let mut out = layout.bounds.to_bytes().to_vec();
    out.extend_from_slice(&layout.bitmap);
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
    let mut page = Vec::with_capacity(PAGE_SIZE);
    for idx in &layout.pages {
        page.clear();
        page.extend_from_slice(&[0; PAGE_HEADER]);
        for &i in idx {
            records[i].write_to(&mut page);
        }
        let h = PageHeader {
            records: idx.len() as u16,
            used: page.len() as u16,
        };
        page[..PAGE_HEADER].copy_from_slice(&h.to_bytes());
        page.resize(PAGE_SIZE, 0);
        w.write_all(&page)?;
    }
    Ok(())
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
            chess_core::atomic::refuse_existing(p).map_err(|e| Error::io(p, e))?;
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
