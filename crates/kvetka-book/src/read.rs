//! Reading a book: the `.kob` files as one block stream, the block index, lookups and probes.
//!
//! **The `.kin` index** is only an accelerator in the description. The reader takes the index
//! from the blocks themselves (the first key of each block: one short read per block) and
//! compares the `.kin` with it: a `.kin` that disagrees is **ignored** and reported as stale
//! ([`KinStatus::Stale`]); every write of the book (build, `add`) rewrites it.

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
};

use chess_core::{
    ParseError,
    normalize::{Transform, normalize},
};
#[cfg(feature = "std")]
use chessfmt_files::{FileData, Loader};
use shakmaty::{Chess, Move};

use crate::{
    Error,
    codec::peek_compact,
    ksf::{GameInfo, Source, Sources},
    moves, position,
    raw::{BLOCK_SIZE, Element, Header, KEY_LEN, Key, SourceRef, block_payload, element_head},
};

/// The file names of a book: `base_0.kob … base_n.kob`, `base.kin`, `base.ksf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookPaths {
    base: PathBuf,
}

impl BookPaths {
    /// The names from any file of the set (`.kin`, `.ksf`, `_N.kob`) or from the base name.
    pub fn from_any(path: impl AsRef<Path>) -> BookPaths {
        let path = path.as_ref();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let lower = name.to_ascii_lowercase();
        let stem = if lower.ends_with(".kin") || lower.ends_with(".ksf") {
            &name[..name.len() - 4]
        } else if let Some(rest) = lower.strip_suffix(".kob") {
            // "name_12.kob" → "name"; a ".kob" without a number keeps its stem.
            match rest.rfind('_') {
                Some(u)
                    if u + 1 < rest.len() && rest[u + 1..].bytes().all(|b| b.is_ascii_digit()) =>
                {
                    &name[..u]
                }
                _ => &name[..rest.len()],
            }
        } else {
            name
        };
        BookPaths {
            base: path.with_file_name(stem),
        }
    }

    /// The base name (no suffix).
    pub fn base(&self) -> &Path {
        &self.base
    }

    fn with_suffix(&self, suffix: &str) -> PathBuf {
        let mut s = self.base.as_os_str().to_owned();
        s.push(suffix);
        PathBuf::from(s)
    }

    /// The name of the book's files as one set: its commit journal is named after it
    /// ([`chessfmt_files::atomic::FileSet`]).
    #[cfg(feature = "std")]
    pub fn anchor(&self) -> PathBuf {
        chessfmt_files::with_added_extension(self.base(), "kob")
    }

    /// `base_n.kob`.
    pub fn kob(&self, n: usize) -> PathBuf {
        self.with_suffix(&format!("_{n}.kob"))
    }

    /// `base.kin`.
    pub fn kin(&self) -> PathBuf {
        self.with_suffix(".kin")
    }

    /// `base.ksf`.
    pub fn ksf(&self) -> PathBuf {
        self.with_suffix(".ksf")
    }
}

/// What became of the `.kin` file when the book was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KinStatus {
    /// No `.kin` file.
    Absent,
    /// The `.kin` equals the first keys of the blocks.
    Valid,
    /// The `.kin` disagrees with the blocks and was ignored (the reason says where).
    Stale(String),
}

/// Statistics of a position: games won, drawn and lost by one side (the family's shared
/// [`Wdl`](chess_core::Wdl) type).
pub type Stats = chess_core::Wdl;

/// A position comment: `ECO|opening|variation` when in that form, else free text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Comment {
    /// An opening name with its ECO code.
    Eco {
        /// Three characters such as `B33`.
        eco: String,
        /// The opening's name.
        opening: String,
        /// The variation, when given.
        variation: Option<String>,
    },
    /// Any other text.
    Text(String),
}

impl Comment {
    /// Parses a comment: the ECO form needs a letter A–E, two digits, then `|`.
    pub fn parse(s: &str) -> Comment {
        let b = s.as_bytes();
        let eco_like = b.len() >= 4
            && (b'A'..=b'E').contains(&b[0])
            && b[1].is_ascii_digit()
            && b[2].is_ascii_digit()
            && b[3] == b'|';
        if !eco_like {
            return Comment::Text(s.to_owned());
        }
        let rest = &s[4..];
        let (opening, variation) = match rest.split_once('|') {
            Some((o, v)) => (o.to_owned(), Some(v.to_owned())),
            None => (rest.to_owned(), None),
        };
        Comment::Eco {
            eco: s[..3].to_owned(),
            opening,
            variation,
        }
    }

    /// The stored text.
    pub fn to_text(&self) -> String {
        match self {
            Comment::Text(t) => t.clone(),
            Comment::Eco {
                eco,
                opening,
                variation: Some(v),
            } => format!("{eco}|{opening}|{v}"),
            Comment::Eco {
                eco,
                opening,
                variation: None,
            } => format!("{eco}|{opening}"),
        }
    }
}

/// A book move found by [`Book::probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookMove {
    /// The move on the probed (real) board.
    pub mv: Move,
    /// Its code in the element.
    pub code: u8,
    /// Statistics for the player making the move, from the element of the position after it;
    /// `None` when that position is not in the book.
    pub stats: Option<Stats>,
    /// Games through the position after the move: its one stored game, then the games that
    /// ended their book part there.
    pub games: Vec<SourceRef>,
}

/// The answer of [`Book::probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// Statistics of the side to move.
    pub stats: Stats,
    /// The position's comment.
    pub comment: Option<Comment>,
    /// Games through the position: its one stored game, then the games that ended their book
    /// part here.
    pub games: Vec<SourceRef>,
    /// The book moves, in stored order.
    pub moves: Vec<BookMove>,
    /// Codes that are not in the table or not legal here.
    pub undecodable: Vec<u8>,
}

/// Where an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Block number over all files.
    pub block: usize,
    /// `.kob` file number.
    pub file: usize,
    /// Byte offset of the element in that file.
    pub offset: u64,
}

#[derive(Debug, Clone, Copy)]
struct BlockLoc {
    file: u32,
    offset: usize,
}

/// A Kvetka book over the bytes of its files (memory maps for [`Book::open`]).
#[derive(Debug)]
pub struct Book<D> {
    header: Header,
    header_len: usize,
    files: Vec<(PathBuf, D)>,
    blocks: Vec<BlockLoc>,
    first_keys: Vec<Key>,
    key_blocks: Vec<u32>,
    kin: KinStatus,
    ksf: Option<(PathBuf, D)>,
    sources: OnceLock<Result<Sources, ParseError>>,
}

/// A book over its files' bytes (read into memory, or memory-mapped).
#[cfg(feature = "std")]
pub type FileBook = Book<FileData>;

fn games_of(e: &Element) -> Vec<SourceRef> {
    let mut out: Vec<SourceRef> = e.source.into_iter().collect();
    for r in e.links.iter().flatten() {
        if !out.contains(r) {
            out.push(*r);
        }
    }
    out
}

impl<D: AsRef<[u8]>> Book<D> {
    /// A book from the bytes of its `.kob` files in order (with their names, for errors), and
    /// optionally its `.kin` and `.ksf`.
    pub fn from_parts(
        kobs: Vec<(PathBuf, D)>,
        kin: Option<(PathBuf, D)>,
        ksf: Option<(PathBuf, D)>,
    ) -> Result<Self, Error> {
        let Some((first_path, first)) = kobs.first() else {
            return Err(Error::NotFound {
                path: PathBuf::new(),
            });
        };
        let data = first.as_ref();
        if let Some(&t) = data.first()
            && t != crate::raw::BOOK_TYPE
        {
            return Err(Error::UnsupportedType {
                path: first_path.clone(),
                book_type: t,
            });
        }
        let (header, header_len) =
            Header::parse(data).map_err(|e| Error::from(e).in_file(first_path))?;
        let mut blocks = Vec::new();
        for (i, (path, d)) in kobs.iter().enumerate() {
            let start = if i == 0 { header_len } else { 0 };
            let len = d.as_ref().len().saturating_sub(start);
            if len % BLOCK_SIZE != 0 {
                let whole = start + len / BLOCK_SIZE * BLOCK_SIZE;
                return Err(Error::from(ParseError::new(
                    whole as u64,
                    "whole 2048-byte blocks",
                    format!("{} trailing bytes", len % BLOCK_SIZE),
                ))
                .in_file(path));
            }
            blocks.extend((0..len / BLOCK_SIZE).map(|b| BlockLoc {
                file: i as u32,
                offset: start + b * BLOCK_SIZE,
            }));
        }
        if blocks.len() != header.block_count as usize {
            return Err(Error::from(ParseError::new(
                header_len as u64 - 4,
                format!("{} blocks (the header's block_number)", header.block_count),
                format!("{} blocks in {} .kob file(s)", blocks.len(), kobs.len()),
            ))
            .in_file(first_path));
        }
        let mut book = Book {
            header,
            header_len,
            files: kobs,
            blocks,
            first_keys: Vec::new(),
            key_blocks: Vec::new(),
            kin: KinStatus::Absent,
            ksf,
            sources: OnceLock::new(),
        };
        let mut first_keys = Vec::with_capacity(book.blocks.len());
        let mut key_blocks = Vec::with_capacity(book.blocks.len());
        for b in 0..book.blocks.len() {
            let (payload, base) = book.payload(b).map_err(|e| book.error_in_block(b, e))?;
            if payload.is_empty() {
                continue;
            }
            let (_, key) = element_head(payload).ok_or_else(|| {
                book.error_in_block(
                    b,
                    ParseError::new(base + 2, "an element", "bytes that cannot hold one"),
                )
            })?;
            first_keys.push(*key);
            key_blocks.push(b as u32);
        }
        book.first_keys = first_keys;
        book.key_blocks = key_blocks;
        book.kin = match &kin {
            None => KinStatus::Absent,
            Some((_, d)) => book.check_kin(d.as_ref()),
        };
        Ok(book)
    }

    fn check_kin(&self, kin: &[u8]) -> KinStatus {
        if kin.len() != self.blocks.len() * KEY_LEN {
            return KinStatus::Stale(format!(
                "{} bytes for {} blocks (expected {})",
                kin.len(),
                self.blocks.len(),
                self.blocks.len() * KEY_LEN
            ));
        }
        for (key, &b) in self.first_keys.iter().zip(&self.key_blocks) {
            let b = b as usize;
            if kin[b * KEY_LEN..(b + 1) * KEY_LEN] != key[..] {
                return KinStatus::Stale(format!(
                    "key {b} differs from the first key of block {b}"
                ));
            }
        }
        KinStatus::Valid
    }

    fn error_in_block(&self, block: usize, e: ParseError) -> Error {
        let file = self.blocks[block].file as usize;
        Error::from(e).in_file(&self.files[file].0)
    }

    /// The used part of block `b` and the block's offset in its file.
    fn payload(&self, b: usize) -> Result<(&[u8], u64), ParseError> {
        let loc = self.blocks[b];
        let data = self.files[loc.file as usize].1.as_ref();
        let block = &data[loc.offset..loc.offset + BLOCK_SIZE];
        Ok((block_payload(block, loc.offset as u64)?, loc.offset as u64))
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The header's length in bytes (where the first block starts in `_0.kob`).
    pub fn header_len(&self) -> usize {
        self.header_len
    }

    /// Number of blocks over all files.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Number of `.kob` files.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Path and size of each `.kob` file.
    pub fn files(&self) -> impl Iterator<Item = (&Path, usize)> {
        self.files
            .iter()
            .map(|(p, d)| (p.as_path(), d.as_ref().len()))
    }

    /// What became of the `.kin`.
    pub fn kin_status(&self) -> &KinStatus {
        &self.kin
    }

    /// The first key of every non-empty block, with its block number (the index lookups use).
    pub fn index(&self) -> impl Iterator<Item = (&Key, usize)> {
        self.first_keys
            .iter()
            .zip(self.key_blocks.iter().map(|&b| b as usize))
    }

    /// The raw bytes of block `b` (all 2048) with its file number and offset.
    pub fn block_bytes(&self, b: usize) -> Option<(&[u8], usize, u64)> {
        let loc = *self.blocks.get(b)?;
        let data = self.files[loc.file as usize].1.as_ref();
        Some((
            &data[loc.offset..loc.offset + BLOCK_SIZE],
            loc.file as usize,
            loc.offset as u64,
        ))
    }

    /// The elements of block `b` in order, parsed.
    pub fn block_elements(&self, b: usize) -> Result<Vec<(Location, Element)>, Error> {
        let (payload, base) = self.payload(b).map_err(|e| self.error_in_block(b, e))?;
        let file = self.blocks[b].file as usize;
        let games = self.header.stores_games();
        let mut out = Vec::new();
        let mut at = 0;
        while at < payload.len() {
            let offset = base + 2 + at as u64;
            let (e, n) = Element::parse(&payload[at..], offset, games)
                .map_err(|e| self.error_in_block(b, e))?;
            out.push((
                Location {
                    block: b,
                    file,
                    offset,
                },
                e,
            ));
            at += n;
        }
        Ok(out)
    }

    /// Every element in key order; a corrupt block yields one error and the scan goes on with
    /// the next block.
    pub fn elements(&self) -> impl Iterator<Item = Result<(Location, Element), Error>> + '_ {
        (0..self.blocks.len()).flat_map(move |b| match self.block_elements(b) {
            Ok(v) => v.into_iter().map(Ok).collect::<Vec<_>>(),
            Err(e) => vec![Err(e)],
        })
    }

    /// The block that would hold `key`, if any block could.
    pub fn block_for(&self, key: &Key) -> Option<usize> {
        let i = self
            .first_keys
            .partition_point(|k| crate::raw::cmp_keys(k, key).is_le());
        Some(self.key_blocks[i.checked_sub(1)?] as usize)
    }

    /// The bytes of the element with `key` and where it is.
    pub fn find_raw(&self, key: &Key) -> Result<Option<(&[u8], Location)>, Error> {
        let Some(b) = self.block_for(key) else {
            return Ok(None);
        };
        let (payload, base) = self.payload(b).map_err(|e| self.error_in_block(b, e))?;
        let mut at = 0;
        while at < payload.len() {
            let Some((len, k)) = element_head(&payload[at..]) else {
                return Err(self.error_in_block(
                    b,
                    ParseError::new(
                        base + 2 + at as u64,
                        "an element",
                        "bytes that cannot hold one",
                    ),
                ));
            };
            match crate::raw::cmp_keys(k, key) {
                std::cmp::Ordering::Less => at += len,
                std::cmp::Ordering::Equal => {
                    let loc = Location {
                        block: b,
                        file: self.blocks[b].file as usize,
                        offset: base + 2 + at as u64,
                    };
                    return Ok(Some((&payload[at..at + len], loc)));
                }
                std::cmp::Ordering::Greater => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The element with `key`, parsed.
    pub fn find(&self, key: &Key) -> Result<Option<Element>, Error> {
        let Some((bytes, loc)) = self.find_raw(key)? else {
            return Ok(None);
        };
        Element::parse(bytes, loc.offset, self.header.stores_games())
            .map(|(e, _)| Some(e))
            .map_err(|e| Error::from(e).in_file(&self.files[loc.file].0))
    }

    /// Only the statistics of the element with `key` (no allocation).
    pub fn stats(&self, key: &Key) -> Result<Option<Stats>, Error> {
        let Some((bytes, loc)) = self.find_raw(key)? else {
            return Ok(None);
        };
        let (_, head) = peek_compact(bytes).unwrap_or((0, 0));
        let mut at = head + KEY_LEN;
        let mut next = || {
            let (v, n) = peek_compact(&bytes[at..])?;
            at += n;
            Some(v)
        };
        match (next(), next(), next()) {
            (Some(wins), Some(draws), Some(losses)) => Ok(Some(Stats {
                wins,
                draws,
                losses,
            })),
            _ => Err(Error::from(ParseError::new(
                loc.offset,
                "three statistics",
                "the end of the element",
            ))
            .in_file(&self.files[loc.file].0)),
        }
    }

    /// The element of a position (any side to move), parsed.
    pub fn find_position(&self, pos: &Chess) -> Result<Option<Element>, Error> {
        match position::key_of(pos) {
            Some(key) => self.find(&key),
            None => Ok(None),
        }
    }

    /// The book's answer for a position: its statistics (side to move), comment and games,
    /// and each book move on the real board with the statistics of the position after it
    /// turned to the mover's view. `None` when the position is not in the book.
    pub fn probe(&self, pos: &Chess) -> Result<Option<Probe>, Error> {
        let Some(element) = self.find_position(pos)? else {
            return Ok(None);
        };
        let n = normalize(pos);
        self.probe_element(&n.position, n.transform, &element)
            .map(Some)
    }

    /// [`Book::probe`] for an element already found: `position` is its normalised position
    /// and `transform` maps its moves back to the real board.
    pub fn probe_element(
        &self,
        position: &Chess,
        transform: Transform,
        element: &Element,
    ) -> Result<Probe, Error> {
        let mut out = Probe {
            stats: Stats {
                wins: element.wins,
                draws: element.draws,
                losses: element.losses,
            },
            comment: element.comment.as_deref().map(Comment::parse),
            games: games_of(element),
            moves: Vec::with_capacity(element.moves.len()),
            undecodable: Vec::new(),
        };
        let want_games = self.header.stores_games();
        let codes = element.moves.iter().copied();
        for m in chess_core::book::normalised_moves(position, transform, codes, moves::decode_among)
        {
            let m = match m {
                Ok(m) => m,
                Err(code) => {
                    out.undecodable.push(code);
                    continue;
                }
            };
            let (stats, games) = match position::key_of(&m.child) {
                None => (None, Vec::new()),
                Some(key) if want_games => match self.find(&key)? {
                    Some(e) => (
                        Some(
                            Stats {
                                wins: e.wins,
                                draws: e.draws,
                                losses: e.losses,
                            }
                            .flipped(),
                        ),
                        games_of(&e),
                    ),
                    None => (None, Vec::new()),
                },
                Some(key) => (self.stats(&key)?.map(Stats::flipped), Vec::new()),
            };
            out.moves.push(BookMove {
                mv: m.real,
                code: m.code,
                stats,
                games,
            });
        }
        Ok(out)
    }

    /// The parsed `.ksf`, when the book has one.
    pub fn sources(&self) -> Option<Result<&Sources, Error>> {
        let (path, data) = self.ksf.as_ref()?;
        let parsed = self.sources.get_or_init(|| Sources::parse(data.as_ref()));
        Some(
            parsed
                .as_ref()
                .map_err(|e| Error::from(e.clone()).in_file(path)),
        )
    }

    /// The source and game a reference points to, when the `.ksf` has them.
    pub fn game(&self, r: SourceRef) -> Option<(&Source, &GameInfo)> {
        self.sources()?.ok()?.game(r.source, r.game)
    }

    /// Path of the `.ksf`, if any.
    pub fn ksf_path(&self) -> Option<&Path> {
        self.ksf.as_ref().map(|(p, _)| p.as_path())
    }
}

#[cfg(feature = "std")]
impl Book<FileData> {
    /// Opens a book from any of its files (`.kin`, `.ksf`, any `_N.kob`) or its base name:
    /// `base_0.kob`, `base_1.kob`, … up to the first missing number, with `base.kin` and
    /// `base.ksf` when present (any letter case). Files are read into memory.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::open_with(path.as_ref(), Loader::READ)
    }

    /// [`Book::open`] with the files memory-mapped (nothing is read until probed).
    ///
    /// # Safety
    ///
    /// The files must not be truncated or modified by another process while the book is open
    /// (see [`FileData::map`]): a truncated map raises `SIGBUS` when read. This crate's
    /// writers never modify files in place.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn open_mapped(path: impl AsRef<Path>) -> Result<Self, Error> {
        // SAFETY: forwarded to the caller (this function's contract).
        Self::open_with(path.as_ref(), unsafe { Loader::mapped() })
    }

    fn open_with(path: &Path, loader: Loader) -> Result<Self, Error> {
        let map = |p: &Path| loader.load(p).map_err(|e| Error::io(p, e));
        let paths = BookPaths::from_any(path);
        // A write of this book that was interrupted after its commit point is finished
        // first: the new book, never a mix of old and new files.
        let anchor = paths.anchor();
        // The lock is held (shared) while the files are opened (see chessfmt_files::set_lock).
        let (_lock, _) =
            chessfmt_files::atomic::open_set(&anchor).map_err(|e| Error::io(&anchor, e))?;
        let find = chessfmt_files::find_any_case;
        let mut kobs = Vec::new();
        while let Some(p) = find(&paths.kob(kobs.len())) {
            let m = map(&p)?;
            kobs.push((p, m));
        }
        if kobs.is_empty() {
            return Err(Error::NotFound {
                path: paths.base().to_path_buf(),
            });
        }
        let kin = match find(&paths.kin()) {
            Some(p) => Some((p.clone(), map(&p)?)),
            None => None,
        };
        let ksf = match find(&paths.ksf()) {
            Some(p) => Some((p.clone(), map(&p)?)),
            None => None,
        };
        Book::from_parts(kobs, kin, ksf)
    }
}

/// Opens a book from in-memory files (tests and fuzzing): `.kob` contents in order.
pub fn from_bytes(
    kobs: Vec<Vec<u8>>,
    kin: Option<Vec<u8>>,
    ksf: Option<Vec<u8>>,
) -> Result<Book<Vec<u8>>, Error> {
    let kobs = kobs
        .into_iter()
        .enumerate()
        .map(|(i, d)| (PathBuf::from(format!("book_{i}.kob")), d))
        .collect();
    Book::from_parts(
        kobs,
        kin.map(|d| (PathBuf::from("book.kin"), d)),
        ksf.map(|d| (PathBuf::from("book.ksf"), d)),
    )
}

impl chess_core::book::BookProbe for Probe {
    fn book_moves(&self) -> Vec<Move> {
        self.moves.iter().map(|m| m.mv).collect()
    }

    fn undecodable(&self) -> usize {
        self.undecodable.len()
    }
}

impl<D: AsRef<[u8]>> chess_core::book::OpeningBook for Book<D> {
    type Probe = Probe;
    type Error = Error;

    fn probe(&self, pos: &Chess) -> Result<Option<Probe>, Error> {
        Book::probe(self, pos)
    }
}

impl<D: AsRef<[u8]>> Book<D> {
    /// Walks the book from `root` breadth-first over book moves, up to `max_ply` plies
    /// (unlimited with `None`): the family's walk ([`chess_core::book::walk`]), yielding real
    /// positions with their probes, each once.
    pub fn walk(&self, root: Chess, max_ply: Option<usize>) -> chess_core::book::Walk<'_, Self> {
        chess_core::book::walk(self, root, max_ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_any_member() {
        for p in [
            "/b/my_book_0.kob",
            "/b/my_book_12.KOB",
            "/b/my_book.kin",
            "/b/my_book.ksf",
            "/b/my_book",
        ] {
            assert_eq!(
                BookPaths::from_any(p).base(),
                Path::new("/b/my_book"),
                "{p}"
            );
        }
        let p = BookPaths::from_any("x/a");
        assert_eq!(p.kob(3), PathBuf::from("x/a_3.kob"));
        assert_eq!(p.kin(), PathBuf::from("x/a.kin"));
        assert_eq!(p.ksf(), PathBuf::from("x/a.ksf"));
    }

    #[test]
    fn comments() {
        assert_eq!(
            Comment::parse("B33|Sicilian Defence|Pelikan, Bird Variation"),
            Comment::Eco {
                eco: "B33".into(),
                opening: "Sicilian Defence".into(),
                variation: Some("Pelikan, Bird Variation".into())
            }
        );
        assert_eq!(
            Comment::parse("A41|Queen's Pawn"),
            Comment::Eco {
                eco: "A41".into(),
                opening: "Queen's Pawn".into(),
                variation: None
            }
        );
        assert_eq!(Comment::parse("F00|x"), Comment::Text("F00|x".into()));
        assert_eq!(Comment::parse("Ловушка"), Comment::Text("Ловушка".into()));
        for s in ["B33|Sicilian Defence|Pelikan", "A41|Queen's Pawn", "free"] {
            assert_eq!(Comment::parse(s).to_text(), s);
        }
    }
}
