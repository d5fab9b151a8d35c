//! Writing a complete book: elements sorted by key packed into 2048-byte blocks, the blocks
//! spread over `.kob` files of at most [`DEFAULT_SPLIT_SIZE`] bytes (on block boundaries, the
//! header in `_0.kob` only), the `.kin` of first keys and the `.ksf`. All files are written to
//! temporary files first and renamed together; an existing book is replaced only with
//! `overwrite`, and `.kob` files left over from a larger old book are removed.

use std::ops::Range;

#[cfg(feature = "std")]
use chessfmt_files::atomic::FileSet;

#[cfg(feature = "std")]
use crate::read::BookPaths;
use crate::{
    Error, WriteError,
    ksf::Sources,
    raw::{BLOCK_SIZE, Element, Header, Key, MAX_ELEMENT_SIZE, Trimmed},
};

/// Kvetka's file size limit: a `.kob` file larger than 20 MB is split in two.
pub const DEFAULT_SPLIT_SIZE: u64 = 20 * 1024 * 1024;

/// Payload room of a block (after its 2-byte used-length field).
pub const BLOCK_ROOM: usize = BLOCK_SIZE - 2;

/// Counts of what [`BookFiles::build`] had to trim.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Elements written.
    pub elements: u64,
    /// Blocks written.
    pub blocks: u64,
    /// `.kob` files written.
    pub files: u64,
    /// Elements whose links list was shortened to fit 682 bytes.
    pub trimmed_links: u64,
    /// Elements whose comment was shortened.
    pub trimmed_comments: u64,
}

impl WriteStats {
    pub(crate) fn count_trim(&mut self, t: Trimmed) {
        self.trimmed_links += u64::from(t.links > 0);
        self.trimmed_comments += u64::from(t.comment);
    }
}

/// The bytes of every file of a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookFiles {
    /// `_0.kob`, `_1.kob`, …
    pub kobs: Vec<Vec<u8>>,
    /// `.kin`.
    pub kin: Vec<u8>,
    /// `.ksf`, when the book stores games.
    pub ksf: Option<Vec<u8>>,
}

/// A 2048-byte block holding `elements` (already encoded, at most [`BLOCK_ROOM`] bytes in all).
pub fn encode_block<'a>(elements: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut block = Vec::with_capacity(BLOCK_SIZE);
    block.extend_from_slice(&[0, 0]);
    for e in elements {
        block.extend_from_slice(e);
    }
    debug_assert!(block.len() <= BLOCK_SIZE);
    let used = block.len() as u16;
    block[..2].copy_from_slice(&used.to_be_bytes());
    block.resize(BLOCK_SIZE, 0);
    block
}

/// Block ranges of each `.kob` file: as many whole blocks per file as fit `split_size` (the
/// header counts in file 0), at least one per file.
pub fn file_ranges(header_len: usize, blocks: usize, split_size: u64) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut used = header_len as u64;
    for b in 0..blocks {
        if b > start && used + BLOCK_SIZE as u64 > split_size {
            out.push(start..b);
            start = b;
            used = 0;
        }
        used += BLOCK_SIZE as u64;
    }
    out.push(start..blocks);
    out
}

/// Packs elements (sorted by key) greedily into blocks: each element is fitted to 682 bytes
/// ([`Element::fit`]) and encoded; a full block goes to the sink with its first key. Shared by
/// the in-memory layout ([`BookFiles::build`]) and the streaming writer ([`StreamWriter`]).
struct BlockPacker {
    games: bool,
    current: Vec<u8>,
    first: Option<Key>,
    prev: Option<Key>,
    buf: Vec<u8>,
    stats: WriteStats,
}

impl BlockPacker {
    fn new(games: bool) -> BlockPacker {
        BlockPacker {
            games,
            current: Vec::with_capacity(BLOCK_ROOM),
            first: None,
            prev: None,
            buf: Vec::with_capacity(MAX_ELEMENT_SIZE),
            stats: WriteStats::default(),
        }
    }

    fn push<E>(
        &mut self,
        e: &mut Element,
        sink: &mut impl FnMut(Vec<u8>, Key) -> Result<(), E>,
    ) -> Result<(), E>
    where
        E: From<Error>,
    {
        self.stats.count_trim(e.fit(self.games));
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        e.write(self.games, &mut buf);
        let pushed = self.push_encoded(e.key, &buf, sink);
        self.buf = buf;
        pushed
    }

    /// Packs an element already fitted and encoded (`bytes`, the element of `key`).
    fn push_encoded<E>(
        &mut self,
        key: Key,
        bytes: &[u8],
        sink: &mut impl FnMut(Vec<u8>, Key) -> Result<(), E>,
    ) -> Result<(), E>
    where
        E: From<Error>,
    {
        if self.prev.is_some_and(|p| p >= key) {
            return Err(Error::from(WriteError::Unsorted).into());
        }
        self.prev = Some(key);
        if bytes.len() > MAX_ELEMENT_SIZE {
            return Err(Error::from(WriteError::ElementTooLarge {
                size: bytes.len(),
                max: MAX_ELEMENT_SIZE,
            })
            .into());
        }
        if self.current.len() + bytes.len() > BLOCK_ROOM {
            self.flush(sink)?;
        }
        self.first.get_or_insert(key);
        self.current.extend_from_slice(bytes);
        self.stats.elements += 1;
        Ok(())
    }

    fn flush<E>(&mut self, sink: &mut impl FnMut(Vec<u8>, Key) -> Result<(), E>) -> Result<(), E> {
        if !self.current.is_empty() {
            let block = encode_block([self.current.as_slice()]);
            self.current.clear();
            self.stats.blocks += 1;
            sink(block, self.first.take().unwrap_or_default())?;
        }
        Ok(())
    }
}

/// Elements fitted and encoded ahead of packing (on other threads: a range of a parallel
/// merge), their bytes one after another; [`StreamWriter::push_encoded`] packs them.
#[cfg(feature = "pgn")]
#[derive(Debug, Default)]
pub(crate) struct EncodedElements {
    bytes: Vec<u8>,
    /// Where each element's bytes end.
    ends: Vec<u32>,
    /// What fitting trimmed (the trim counts only).
    trimmed: WriteStats,
}

#[cfg(feature = "pgn")]
impl EncodedElements {
    /// Fits `e` to 682 bytes ([`Element::fit`]) and appends its encoding.
    pub(crate) fn push(&mut self, mut e: Element, stores_games: bool) {
        self.trimmed.count_trim(e.fit(stores_games));
        e.write(stores_games, &mut self.bytes);
        self.ends.push(self.bytes.len() as u32);
    }

    /// Each element's key and bytes, in order.
    fn elements(&self) -> impl Iterator<Item = (Key, &[u8])> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| {
            let bytes = &self.bytes[start as usize..end as usize];
            // An element starts with its length (a CompactInt), then its key.
            let at = crate::codec::peek_compact(bytes).map_or(0, |(_, n)| n);
            let mut key = [0; crate::raw::KEY_LEN];
            if let Some(k) = bytes.get(at..at + key.len()) {
                key.copy_from_slice(k);
            }
            (key, bytes)
        })
    }
}

impl BookFiles {
    /// Lays out a book. `elements` must be sorted by key without duplicates; each is fitted to
    /// 682 bytes ([`Element::fit`]) and packed greedily into blocks.
    pub fn build(
        header: &Header,
        elements: &mut [Element],
        sources: Option<&Sources>,
        split_size: u64,
    ) -> Result<(BookFiles, WriteStats), Error> {
        let mut packer = BlockPacker::new(header.stores_games());
        let mut blocks: Vec<Vec<u8>> = Vec::new();
        let mut kin = Vec::new();
        let mut sink = |block: Vec<u8>, first: Key| -> Result<(), Error> {
            blocks.push(block);
            kin.extend_from_slice(&first);
            Ok(())
        };
        for e in elements.iter_mut() {
            packer.push(e, &mut sink)?;
        }
        packer.flush(&mut sink)?;
        let mut stats = packer.stats;
        let files = BookFiles::from_blocks(header, &blocks, kin, sources, split_size)?;
        stats.files = files.kobs.len() as u64;
        Ok((files, stats))
    }

    /// The files of a book from finished blocks and their first keys.
    pub fn from_blocks(
        header: &Header,
        blocks: &[Vec<u8>],
        kin: Vec<u8>,
        sources: Option<&Sources>,
        split_size: u64,
    ) -> Result<BookFiles, Error> {
        let header = Header {
            block_count: u32::try_from(blocks.len()).map_err(|_| WriteError::TooManyBlocks)?,
            ..header.clone()
        };
        let head = header.to_bytes();
        let kobs = file_ranges(head.len(), blocks.len(), split_size)
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let mut f = Vec::with_capacity(r.len() * BLOCK_SIZE + head.len());
                if i == 0 {
                    f.extend_from_slice(&head);
                }
                for b in &blocks[r] {
                    f.extend_from_slice(b);
                }
                f
            })
            .collect();
        let ksf = match sources {
            Some(s) => Some(s.to_bytes()?),
            None => None,
        };
        Ok(BookFiles { kobs, kin, ksf })
    }

    /// Writes the files as `paths` names them (see the module notes).
    #[cfg(feature = "std")]
    pub fn save(&self, paths: &BookPaths, overwrite: bool) -> Result<(), Error> {
        if !overwrite {
            refuse_book(paths, self.kobs.len())?;
        }
        let mut set = FileSet::new(&paths.anchor()).map_err(|e| Error::io(paths.anchor(), e))?;
        for (i, k) in self.kobs.iter().enumerate() {
            let p = paths.kob(i);
            set.stage(&p, |w| w.write_all(k))
                .map_err(|e| Error::io(&p, e))?;
        }
        commit_book(
            set,
            paths,
            self.kobs.len(),
            &self.kin,
            self.ksf.as_deref(),
            overwrite,
        )
    }
}

/// Refuses (`AlreadyExists`) when a file a book of `kobs` `.kob` files would write is there:
/// the `.kob` files, the `.kin`, the `.ksf`.
#[cfg(feature = "std")]
fn refuse_book(paths: &BookPaths, kobs: usize) -> Result<(), Error> {
    let files = (0..kobs.max(1))
        .map(|i| paths.kob(i))
        .chain([paths.kin(), paths.ksf()]);
    for p in files {
        chessfmt_files::atomic::refuse_existing(&p).map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

/// The end of every book write: stages the `.kin` and the `.ksf` (when the book stores
/// games) beside the `kobs` `.kob` files already staged, removes (with `overwrite`) what the
/// old book had beyond them (more `.kob` files, a `.ksf`), and commits the set through its
/// journal.
#[cfg(feature = "std")]
fn commit_book(
    mut set: FileSet,
    paths: &BookPaths,
    kobs: usize,
    kin: &[u8],
    ksf: Option<&[u8]>,
    overwrite: bool,
) -> Result<(), Error> {
    let io = |p: &std::path::Path| {
        let p = p.to_path_buf();
        move |e| Error::io(p, e)
    };
    let kin_path = paths.kin();
    set.stage(&kin_path, |w| w.write_all(kin))
        .map_err(io(&kin_path))?;
    if let Some(ksf) = ksf {
        let p = paths.ksf();
        set.stage(&p, |w| w.write_all(ksf)).map_err(io(&p))?;
    }
    if overwrite {
        for p in stale_files(paths, kobs, ksf.is_none()) {
            set.remove(&p).map_err(io(&p))?;
        }
    }
    let anchor = paths.anchor();
    set.commit().map_err(io(&anchor))
}

/// The `.kob` files numbered from `from` on, and the `.ksf` when `ksf` is set, of an older,
/// larger book (their real names, any letter case).
#[cfg(feature = "std")]
pub(crate) fn stale_files(paths: &BookPaths, from: usize, ksf: bool) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut n = from;
    while let Some(p) = chessfmt_files::find_any_case(&paths.kob(n)) {
        out.push(p);
        n += 1;
    }
    if ksf && let Some(p) = chessfmt_files::find_any_case(&paths.ksf()) {
        out.push(p);
    }
    out
}

/// Writes a complete book: see [`BookFiles::build`] and [`BookFiles::save`].
#[cfg(feature = "std")]
pub fn write_book(
    paths: &BookPaths,
    header: &Header,
    elements: &mut [Element],
    sources: Option<&Sources>,
    split_size: u64,
    overwrite: bool,
) -> Result<WriteStats, Error> {
    let (files, stats) = BookFiles::build(header, elements, sources, split_size)?;
    files.save(paths, overwrite)?;
    Ok(stats)
}

/// Writes a book from elements that arrive sorted by key, without holding them: blocks are
/// packed as elements come and each `.kob` file is staged as soon as it is full (file 0, whose
/// header carries the block count, is kept until the end: at most `split_size` bytes). The
/// files are committed as one set, like [`BookFiles::save`]. Memory: two `.kob` files and the
/// `.kin`, whatever the size of the book. The bytes are those of [`write_book`].
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct StreamWriter {
    paths: BookPaths,
    header: Header,
    split_size: u64,
    overwrite: bool,
    packer: BlockPacker,
    set: FileSet,
    kin: Vec<u8>,
    /// File 0 (header included), kept in memory.
    file0: Vec<u8>,
    /// The file being filled (index > 0).
    current: Vec<u8>,
    index: usize,
    used: u64,
    blocks_in_file: usize,
}

#[cfg(feature = "std")]
impl std::fmt::Debug for BlockPacker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockPacker")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
impl StreamWriter {
    /// Starts a book at `paths` (refusing existing files unless `overwrite`).
    pub fn new(
        paths: &BookPaths,
        header: &Header,
        split_size: u64,
        overwrite: bool,
    ) -> Result<StreamWriter, Error> {
        let anchor = paths.anchor();
        if !overwrite {
            refuse_book(paths, 1)?;
        }
        let set = FileSet::new(&anchor).map_err(|e| Error::io(&anchor, e))?;
        let head = header.to_bytes();
        Ok(StreamWriter {
            paths: paths.clone(),
            header: header.clone(),
            split_size,
            overwrite,
            packer: BlockPacker::new(header.stores_games()),
            set,
            kin: Vec::new(),
            used: head.len() as u64,
            file0: head,
            current: Vec::new(),
            index: 0,
            blocks_in_file: 0,
        })
    }

    fn add_block(&mut self, block: Vec<u8>, first: Key) -> Result<(), Error> {
        self.kin.extend_from_slice(&first);
        // The split rule of `file_ranges`: a new file when this block would pass the limit
        // (a file has at least one block).
        if self.blocks_in_file > 0 && self.used + BLOCK_SIZE as u64 > self.split_size {
            if self.index > 0 {
                let p = self.paths.kob(self.index);
                let bytes = &self.current;
                self.set
                    .stage(&p, |w| w.write_all(bytes))
                    .map_err(|e| Error::io(&p, e))?;
                // The next file fills the same memory (fresh memory, grown by doubling, was
                // a third of a Kvetka build's page faults).
                self.current.clear();
            }
            self.index += 1;
            self.used = 0;
            self.blocks_in_file = 0;
        }
        if self.index == 0 {
            self.file0.extend_from_slice(&block);
        } else {
            self.current.extend_from_slice(&block);
        }
        self.used += BLOCK_SIZE as u64;
        self.blocks_in_file += 1;
        Ok(())
    }

    /// Adds the next element (keys strictly ascending).
    pub fn push(&mut self, mut e: Element) -> Result<(), Error> {
        let mut blocks = Vec::new();
        self.packer.push(&mut e, &mut |b, k| {
            blocks.push((b, k));
            Ok::<(), Error>(())
        })?;
        for (b, k) in blocks {
            self.add_block(b, k)?;
        }
        Ok(())
    }

    /// Adds elements encoded ahead ([`EncodedElements`]), following the elements pushed
    /// before (keys strictly ascending).
    #[cfg(feature = "pgn")]
    pub(crate) fn push_encoded(&mut self, elements: &EncodedElements) -> Result<(), Error> {
        let t = &elements.trimmed;
        self.packer.stats.trimmed_links += t.trimmed_links;
        self.packer.stats.trimmed_comments += t.trimmed_comments;
        let mut blocks = Vec::new();
        for (key, bytes) in elements.elements() {
            self.packer.push_encoded(key, bytes, &mut |b, k| {
                blocks.push((b, k));
                Ok::<(), Error>(())
            })?;
            for (b, k) in blocks.drain(..) {
                self.add_block(b, k)?;
            }
        }
        Ok(())
    }

    /// Writes the last blocks, the `.kin` and the `.ksf` (`sources`, when the book stores
    /// games) and commits the set.
    pub fn finish(mut self, sources: Option<&Sources>) -> Result<WriteStats, Error> {
        let mut blocks = Vec::new();
        self.packer.flush(&mut |b, k| {
            blocks.push((b, k));
            Ok::<(), Error>(())
        })?;
        for (b, k) in blocks {
            self.add_block(b, k)?;
        }
        let io = |p: std::path::PathBuf| move |e| Error::io(p, e);
        if self.index > 0 {
            let p = self.paths.kob(self.index);
            let bytes = std::mem::take(&mut self.current);
            self.set
                .stage(&p, |w| w.write_all(&bytes))
                .map_err(io(p.clone()))?;
        }
        let mut stats = self.packer.stats;
        let header = Header {
            block_count: u32::try_from(stats.blocks).map_err(|_| WriteError::TooManyBlocks)?,
            ..self.header.clone()
        };
        let head = header.to_bytes();
        self.file0[..head.len()].copy_from_slice(&head);
        let p0 = self.paths.kob(0);
        let file0 = std::mem::take(&mut self.file0);
        self.set
            .stage(&p0, |w| w.write_all(&file0))
            .map_err(io(p0.clone()))?;
        stats.files = self.index as u64 + 1;
        let ksf = match sources {
            Some(s) => Some(s.to_bytes()?),
            None => None,
        };
        commit_book(
            self.set,
            &self.paths,
            self.index + 1,
            &self.kin,
            ksf.as_deref(),
            self.overwrite,
        )?;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::KEY_LEN;

    #[test]
    fn file_ranges_split_on_block_boundaries() {
        assert_eq!(file_ranges(30, 0, 100), vec![0..0]);
        assert_eq!(file_ranges(30, 3, DEFAULT_SPLIT_SIZE), vec![0..3]);
        // 4096 + 30 > 4100: the header pushes the second block of file 0 out.
        assert_eq!(file_ranges(30, 5, 4100), vec![0..1, 1..3, 3..5]);
        // A limit below one block still puts one block in each file.
        assert_eq!(file_ranges(30, 2, 10), vec![0..1, 1..2]);
    }

    #[test]
    fn blocks_are_filled_and_keys_indexed() {
        let mut elements: Vec<Element> = (0..200u8)
            .map(|i| {
                let mut key = [0u8; KEY_LEN];
                key[0] = i;
                Element {
                    moves: vec![1; 10],
                    ..Element::new(key)
                }
            })
            .collect();
        let header = Header::default();
        let (files, stats) =
            BookFiles::build(&header, &mut elements, None, DEFAULT_SPLIT_SIZE).unwrap();
        // Each element is 1 + 22 + 3 + 1 + 10 + 1 = 38 bytes: 53 per block.
        assert_eq!(stats.blocks, 4);
        assert_eq!(files.kin.len(), 4 * KEY_LEN);
        assert_eq!(files.kin[KEY_LEN], 53);
        let kob = &files.kobs[0];
        let head = header.to_bytes().len();
        assert_eq!(kob.len(), head + 4 * BLOCK_SIZE);
        assert_eq!(&kob[head..head + 2], &(2 + 53 * 38u16).to_be_bytes());
        // The header carries the block count.
        assert_eq!(&kob[head - 4..head], &[0, 0, 0, 4]);
        // Unsorted input is refused.
        elements.swap(0, 1);
        assert!(BookFiles::build(&header, &mut elements, None, DEFAULT_SPLIT_SIZE).is_err());
    }
}
