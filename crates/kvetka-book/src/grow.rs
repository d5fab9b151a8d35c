//! Growing an existing book with more games, the way Kvetka does it.
//!
//! The new games are counted with the book's own header (filters, `max_move`, element type)
//! into changes sorted by key. Each change goes to the block that holds its key (the last block
//! whose first key is not greater); only those blocks are decoded, merged (statistics added,
//! new moves appended, the first game kept, links appended and trimmed to 682 bytes) and
//! re-encoded. A block that overflows is split into two blocks of roughly equal payload (more
//! when one split is not enough). Only the `.kob` files that contain changed blocks are
//! rewritten; a file that grows past the split size (20 MB) is split into two files of roughly
//! equal size on a block boundary, and the later files are renamed up. The `.kin` and, when the
//! book stores games, the `.ksf` (with one new source per PGN file) are rewritten.
//!
//! The cost is that of the changed blocks and files, not of the book; with the header's
//! `links` flag the whole book is relinked (every position's moves to other book positions),
//! which reads every element — the description warns that this mode is slow.
//!
//! New files are written to temporary files first, unchanged files that move up are linked
//! under temporary names, and everything is committed as one set through a journal
//! ([`chessfmt_files::atomic::FileSet`]): a crash at any point leaves the old book or the new one.

use std::{collections::HashMap, path::PathBuf};

use chessfmt_files::atomic::FileSet;

use crate::{
    Book, Error,
    accumulate::{Acc, element_of},
    build::{BuildOptions, BuildStats, Builder, MemoryLimit, link},
    ksf::Sources,
    raw::{BLOCK_SIZE, Element, KEY_LEN, Key},
    read::BookPaths,
    write::{BLOCK_ROOM, BookFiles, WriteStats, encode_block},
};

/// Counts of [`add_pgn`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrowStats {
    /// The counts of the games read.
    pub build: BuildStats,
    /// Elements added.
    pub elements_added: u64,
    /// Elements whose data changed.
    pub elements_updated: u64,
    /// Blocks rewritten (before splitting).
    pub blocks_changed: u64,
    /// Blocks added by splits.
    pub blocks_added: u64,
    /// `.kob` files written.
    pub files_written: u64,
    /// `.kob` files in the book afterwards.
    pub files: u64,
    /// What fitting elements to 682 bytes dropped.
    pub trimmed: WriteStats,
}

/// Merges a change into an element (statistics added, new moves appended, the first game kept,
/// the new last-position games appended).
fn merge(e: &mut Element, a: Acc) {
    e.wins = e.wins.saturating_add(a.wins);
    e.draws = e.draws.saturating_add(a.draws);
    e.losses = e.losses.saturating_add(a.losses);
    for &code in a.moves.as_slice() {
        if !e.moves.contains(&code) {
            e.moves.push(code);
        }
    }
    if e.source.is_none() {
        e.source = a.source;
    }
    if !a.links.is_empty() {
        e.links.get_or_insert_with(Vec::new).extend(a.links);
    }
}

/// Merges changes sorted by key into elements sorted by key (see [`merge`]), counting added and
/// updated elements.
fn merge_sorted(
    old: impl IntoIterator<Item = Element>,
    changes: Vec<(Key, Acc)>,
    stats: &mut GrowStats,
) -> Vec<Element> {
    let mut old = old.into_iter().peekable();
    let mut merged = Vec::with_capacity(changes.len());
    for (k, a) in changes {
        while let Some(e) = old.next_if(|e| e.key < k) {
            merged.push(e);
        }
        match old.next_if(|e| e.key == k) {
            Some(mut e) => {
                merge(&mut e, a);
                stats.elements_updated += 1;
                merged.push(e);
            }
            None => {
                stats.elements_added += 1;
                merged.push(element_of(k, a));
            }
        }
    }
    merged.extend(old);
    merged
}

/// Splits encoded elements into blocks: one when they fit, else two of roughly equal payload,
/// recursively.
fn split_blocks(encoded: &[Vec<u8>], out: &mut Vec<Vec<u8>>, kin: &mut Vec<Key>, keys: &[Key]) {
    let total: usize = encoded.iter().map(Vec::len).sum();
    if total <= BLOCK_ROOM || encoded.len() <= 1 {
        if !encoded.is_empty() {
            out.push(encode_block(encoded.iter().map(Vec::as_slice)));
            kin.push(keys[0]);
        }
        return;
    }
    // The first split point where the left half reaches half the payload.
    let mut left = 0;
    let mut at = encoded.len() - 1;
    for (i, e) in encoded.iter().enumerate() {
        if left + e.len() > total / 2 {
            // Put this element on the side that balances better.
            at = if left + e.len() - total / 2 < total / 2 - left {
                i + 1
            } else {
                i
            };
            break;
        }
        left += e.len();
    }
    let at = at.clamp(1, encoded.len() - 1);
    split_blocks(&encoded[..at], out, kin, &keys[..at]);
    split_blocks(&encoded[at..], out, kin, &keys[at..]);
}

/// Where a block of the grown book comes from.
enum BlockSrc {
    Old(usize),
    New(Vec<u8>),
}

/// One `.kob` file of the grown book.
struct FilePlan {
    blocks: Vec<BlockSrc>,
    /// The old file number, when the file is unchanged.
    unchanged: Option<usize>,
}

/// Splits a file plan into halves until each fits `split_size` (the header counts in file 0).
fn split_files(
    plan: Vec<BlockSrc>,
    header_len: usize,
    split_size: u64,
    out: &mut Vec<Vec<BlockSrc>>,
) {
    let size = (header_len + plan.len() * BLOCK_SIZE) as u64;
    if size <= split_size || plan.len() <= 1 {
        out.push(plan);
        return;
    }
    let mut plan = plan;
    let right = plan.split_off(plan.len() / 2);
    split_files(plan, header_len, split_size, out);
    split_files(right, 0, split_size, out);
}

/// How [`add_pgn_with`] adds games.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AddOptions {
    /// The `.kob` size limit ([`crate::write::DEFAULT_SPLIT_SIZE`]).
    pub split_size: u64,
    /// Add nothing (and return [`Error::InputSkipped`]) when any game of the input was left
    /// out: not replayable, unreadable, or cut off by the end of a file. Otherwise the good
    /// games are added and the others counted in [`BuildStats::skipped`].
    pub strict: bool,
    /// Memory for the table of new positions, in bytes ([`BuildOptions::memory_limit`]):
    /// past it, sorted runs go to temporary files beside the book. `None`: no limit.
    pub memory_limit: Option<usize>,
}

impl Default for AddOptions {
    fn default() -> Self {
        AddOptions {
            split_size: crate::write::DEFAULT_SPLIT_SIZE,
            strict: false,
            memory_limit: None,
        }
    }
}

/// Adds the games of `pgns` to the book at `paths` (see the module notes). `split_size` is the
/// `.kob` size limit ([`crate::write::DEFAULT_SPLIT_SIZE`]); `progress` gets the games read.
/// Bad games are skipped and counted; see [`add_pgn_with`] for the strict mode.
pub fn add_pgn(
    paths: &BookPaths,
    pgns: &[PathBuf],
    split_size: u64,
    progress: impl FnMut(u64),
) -> Result<GrowStats, Error> {
    let options = AddOptions {
        split_size,
        ..AddOptions::default()
    };
    add_pgn_with(paths, pgns, &options, progress)
}

/// [`add_pgn`] with options.
pub fn add_pgn_with(
    paths: &BookPaths,
    pgns: &[PathBuf],
    options: &AddOptions,
    mut progress: impl FnMut(u64),
) -> Result<GrowStats, Error> {
    let split_size = options.split_size;
    // The book's lock, exclusive from reading it to the end of the commit: two updates of one
    // book serialise instead of one losing the other (chessfmt_files::set_lock).
    let anchor = paths.anchor();
    let _lock = chessfmt_files::set_lock::exclusive(&anchor).map_err(|e| Error::io(&anchor, e))?;
    let book = Book::open(paths.base())?;
    let header = book.header().clone();
    let old_sources = match book.sources() {
        Some(s) => s?.clone(),
        None => Sources::default(),
    };
    let dir = paths
        .anchor()
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf();
    let mut builder = Builder::new(
        BuildOptions::default()
            .with_header(header.clone())
            .with_first_source(old_sources.sources.len())
            .with_memory_limit(
                options
                    .memory_limit
                    .map(|bytes| MemoryLimit::new(bytes, dir)),
            ),
    );
    for p in pgns {
        builder.add_pgn_file(p, &mut progress)?;
    }
    if options.strict && builder.stats().skipped.total() > 0 {
        return Err(Error::InputSkipped(builder.stats().skipped.clone()));
    }
    if header.links != 0 || book.block_count() == 0 {
        let (changes, new_sources, build) = builder.into_parts_in_memory()?;
        let mut sources = old_sources;
        sources.sources.extend(new_sources.sources);
        let sources = header.stores_games().then_some(sources);
        let stats = GrowStats {
            build,
            ..GrowStats::default()
        };
        return rebuild_all(book, paths, changes, sources.as_ref(), split_size, stats);
    }

    // The changes come sorted by key (merged from the spilled runs, if any); each block's
    // changes are merged into it as soon as the next block's begin, so that only the
    // rewritten blocks are held, not the changes.
    let games = header.stores_games();
    let first_block = book.index().next().map_or(0, |(_, b)| b);
    let mut stats = GrowStats::default();
    let mut replaced: HashMap<usize, (Vec<Vec<u8>>, Vec<Key>)> = HashMap::new();
    let mut process =
        |b: usize, list: Vec<(Key, Acc)>, stats: &mut GrowStats| -> Result<(), Error> {
            if replaced.contains_key(&b) {
                return Err(Error::Write(crate::WriteError::Unsorted));
            }
            stats.blocks_changed += 1;
            let old = book.block_elements(b)?.into_iter().map(|(_, e)| e);
            let merged = merge_sorted(old, list, stats);
            let mut encoded = Vec::with_capacity(merged.len());
            let mut keys = Vec::with_capacity(merged.len());
            for mut e in merged {
                stats.trimmed.count_trim(e.fit(games));
                encoded.push(e.to_bytes(games));
                keys.push(e.key);
            }
            let mut blocks = Vec::new();
            let mut kin = Vec::new();
            split_blocks(&encoded, &mut blocks, &mut kin, &keys);
            stats.blocks_added += blocks.len() as u64 - 1;
            replaced.insert(b, (blocks, kin));
            Ok(())
        };
    let mut current: Option<(usize, Vec<(Key, Acc)>)> = None;
    let (new_sources, build) = builder.into_sorted_changes(|k, a| {
        let b = book.block_for(&k).unwrap_or(first_block);
        match &mut current {
            Some((cb, list)) if *cb == b => list.push((k, a)),
            _ => {
                if let Some((cb, list)) = current.replace((b, vec![(k, a)])) {
                    process(cb, list, &mut stats)?;
                }
            }
        }
        Ok(())
    })?;
    if let Some((cb, list)) = current.take() {
        process(cb, list, &mut stats)?;
    }
    stats.build = build;
    let mut sources = old_sources;
    sources.sources.extend(new_sources.sources);
    let sources = header.stores_games().then_some(sources);

    // File plans: each old file with its blocks replaced; split when too large.
    let head_len = {
        let mut h = header.clone();
        h.block_count = 0;
        h.to_bytes().len()
    };
    let mut per_file: Vec<Vec<usize>> = vec![Vec::new(); book.file_count()];
    for b in 0..book.block_count() {
        let (_, file, _) = book.block_bytes(b).expect("block in range");
        per_file[file].push(b);
    }
    let mut plans: Vec<FilePlan> = Vec::new();
    let mut kin: Vec<u8> = Vec::with_capacity((book.block_count() + 16) * KEY_LEN);
    let first_keys: HashMap<usize, Key> = book.index().map(|(k, b)| (b, *k)).collect();
    for (f, blocks) in per_file.into_iter().enumerate() {
        let changed = blocks.iter().any(|b| replaced.contains_key(b));
        let mut srcs = Vec::with_capacity(blocks.len());
        for b in blocks {
            match replaced.remove(&b) {
                Some((new, keys)) => {
                    for k in &keys {
                        kin.extend_from_slice(k);
                    }
                    srcs.extend(new.into_iter().map(BlockSrc::New));
                }
                None => {
                    kin.extend_from_slice(&first_keys.get(&b).copied().unwrap_or([0; KEY_LEN]));
                    srcs.push(BlockSrc::Old(b));
                }
            }
        }
        if !changed {
            plans.push(FilePlan {
                blocks: srcs,
                unchanged: Some(f),
            });
            continue;
        }
        let mut parts = Vec::new();
        split_files(
            srcs,
            if f == 0 { head_len } else { 0 },
            split_size,
            &mut parts,
        );
        plans.extend(parts.into_iter().map(|blocks| FilePlan {
            blocks,
            unchanged: None,
        }));
    }
    let block_count: usize = plans.iter().map(|p| p.blocks.len()).sum();
    let new_header = crate::Header {
        block_count: u32::try_from(block_count).map_err(|_| crate::WriteError::TooManyBlocks)?,
        ..header.clone()
    };
    // The header's block count changed: file 0 is rewritten.
    if new_header.block_count != header.block_count {
        plans[0].unchanged = None;
    }
    stats.files = plans.len() as u64;

    // One set: the changed files staged, the unchanged files that move up linked under
    // temporary names, the old names that differ in letter case removed, all committed
    // together through a journal (a crash leaves the old book or the new one).
    let anchor = paths.anchor();
    let mut set = FileSet::new(&anchor).map_err(|e| Error::io(&anchor, e))?;
    // The old files' real names (any letter case).
    let old_names: Vec<PathBuf> = book.files().map(|(p, _)| p.to_path_buf()).collect();
    for (i, plan) in plans.iter().enumerate() {
        let target = paths.kob(i);
        if let Some(old) = plan.unchanged {
            if old != i {
                set.rename_existing(&old_names[old], &target)
                    .map_err(|e| Error::io(&target, e))?;
            }
            continue;
        }
        set.stage(&target, |w| {
            if i == 0 {
                w.write_all(&new_header.to_bytes())?;
            }
            for src in &plan.blocks {
                match src {
                    BlockSrc::Old(b) => w.write_all(book.block_bytes(*b).expect("block").0)?,
                    BlockSrc::New(bytes) => w.write_all(bytes)?,
                }
            }
            Ok(())
        })
        .map_err(|e| Error::io(&target, e))?;
        // A file whose old name differs only in letter case is replaced, not duplicated.
        if let Some(old) = old_names.get(i).filter(|o| **o != target) {
            set.remove(old).map_err(|e| Error::io(old, e))?;
        }
        stats.files_written += 1;
    }
    let kin_path = paths.kin();
    set.stage(&kin_path, |w| w.write_all(&kin))
        .map_err(|e| Error::io(&kin_path, e))?;
    if let Some(s) = &sources {
        let ksf_path = paths.ksf();
        let bytes = s.to_bytes()?;
        set.stage(&ksf_path, |w| w.write_all(&bytes))
            .map_err(|e| Error::io(&ksf_path, e))?;
    }
    drop(book);
    set.commit().map_err(|e| Error::io(&anchor, e))?;
    Ok(stats)
}

/// The whole-book path: every element read, changes merged, the links pass run when the
/// header asks for it, and the book written anew.
fn rebuild_all<D: AsRef<[u8]>>(
    book: Book<D>,
    paths: &BookPaths,
    changes: foldhash::HashMap<Key, Acc>,
    sources: Option<&Sources>,
    split_size: u64,
    mut stats: GrowStats,
) -> Result<GrowStats, Error> {
    let header = book.header().clone();
    let mut elements: Vec<Element> = Vec::with_capacity(book.block_count() * 32);
    for e in book.elements() {
        elements.push(e?.1);
    }
    let mut changes: Vec<(Key, Acc)> = changes.into_iter().collect();
    changes.sort_unstable_by_key(|c| c.0);
    let mut merged = merge_sorted(elements, changes, &mut stats);
    if header.links != 0 {
        stats.build.linked_moves += link(&mut merged);
    }
    drop(book);
    let (files, w) = BookFiles::build(&header, &mut merged, sources, split_size)?;
    files.save(paths, true)?;
    stats.trimmed = w;
    stats.files = w.files;
    stats.files_written = w.files;
    stats.blocks_added = 0;
    Ok(stats)
}
