//! Reading books: over any byte slice (a `Vec`, a memory map), strict or lenient.

use std::fmt;
#[cfg(feature = "std")]
use std::path::Path;

use chess_core::choice::{below, weighted_index};
use chess_core::{ParseError, polyglot_key};
#[cfg(feature = "std")]
use chessfmt_files::{FileData, Loader};
use shakmaty::{Chess, Move, Position};

use crate::{
    Error,
    moves::decode_move_among,
    raw::{ENTRY_SIZE, Entry},
};

/// How strictly to open a book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OpenMode {
    /// The size must be a multiple of 16 and keys must be sorted.
    #[default]
    Strict,
    /// A trailing partial entry is reported ([`Book::trailing_bytes`]) and ignored; unsorted
    /// keys are reported ([`Book::is_sorted`]) and lookups fall back to a linear scan.
    Lenient,
}

/// A Polyglot book over bytes `D` (`Vec<u8>`, `&[u8]`, a file's `FileData`).
pub struct Book<D> {
    data: D,
    len: usize,
    trailing: usize,
    sorted: bool,
}

impl<D> fmt::Debug for Book<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Book")
            .field("entries", &self.len)
            .field("trailing", &self.trailing)
            .field("sorted", &self.sorted)
            .finish_non_exhaustive()
    }
}

/// A book move found by [`Book::probe`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookMove {
    /// The legal move.
    pub mv: Move,
    /// Its weight.
    pub weight: u16,
    /// Its learn field.
    pub learn: u32,
    /// The raw entry.
    pub entry: Entry,
}

/// What a book says about a position: see [`Book::probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Probe {
    /// The legal book moves, in file order.
    pub moves: Vec<BookMove>,
}

impl Probe {
    /// The sum of the moves' weights.
    pub fn total_weight(&self) -> u64 {
        self.moves.iter().map(|m| u64::from(m.weight)).sum()
    }

    /// The moves sorted by weight, heaviest first (stable: file order among equals).
    pub fn by_weight(&self) -> Vec<BookMove> {
        let mut v = self.moves.clone();
        v.sort_by_key(|m| std::cmp::Reverse(m.weight));
        v
    }
}

/// Filters applied by [`Book::probe_filtered`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ProbeFilter {
    /// Drop moves with a weight below this.
    pub min_weight: u16,
    /// Drop these moves.
    pub exclude: Vec<Move>,
}

impl ProbeFilter {
    /// No filtering.
    pub fn new() -> ProbeFilter {
        ProbeFilter::default()
    }

    /// Drops moves with a weight below `min_weight`.
    #[must_use]
    pub fn with_min_weight(mut self, min_weight: u16) -> ProbeFilter {
        self.min_weight = min_weight;
        self
    }

    /// Drops `moves`.
    #[must_use]
    pub fn excluding(mut self, moves: impl IntoIterator<Item = Move>) -> ProbeFilter {
        self.exclude.extend(moves);
        self
    }
}

impl<D: AsRef<[u8]>> Book<D> {
    /// Wraps bytes as a book, validating them as `mode` says.
    pub fn new(data: D, mode: OpenMode) -> Result<Self, Error> {
        let bytes = data.as_ref();
        let trailing = bytes.len() % ENTRY_SIZE;
        let len = bytes.len() / ENTRY_SIZE;
        if trailing != 0 && mode == OpenMode::Strict {
            return Err(ParseError::new(
                (len * ENTRY_SIZE) as u64,
                "a whole 16-byte entry (file size a multiple of 16)",
                format!("{trailing} trailing bytes"),
            )
            .into());
        }
        let mut sorted = true;
        let mut prev = 0u64;
        for i in 0..len {
            let key = key_at(bytes, i);
            if key < prev {
                if mode == OpenMode::Strict {
                    return Err(ParseError::new(
                        (i * ENTRY_SIZE) as u64,
                        "keys in ascending order",
                        format!("key {key:016x} after {prev:016x}"),
                    )
                    .into());
                }
                sorted = false;
                break;
            }
            prev = key;
        }
        Ok(Book {
            data,
            len,
            trailing,
            sorted,
        })
    }

    /// Number of whole entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes after the last whole entry (ignored; only in lenient mode).
    pub fn trailing_bytes(&self) -> usize {
        self.trailing
    }

    /// Whether keys are in ascending order.
    pub fn is_sorted(&self) -> bool {
        self.sorted
    }

    /// The `i`-th entry. Panics if `i >= len()`.
    pub fn entry(&self, i: usize) -> Entry {
        let b = &self.data.as_ref()[i * ENTRY_SIZE..(i + 1) * ENTRY_SIZE];
        Entry::from_bytes(b.try_into().expect("16 bytes"))
    }

    /// All entries in file order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Entry> + '_ {
        (0..self.len).map(|i| self.entry(i))
    }

    /// Index range of the entries with `key`, in file order (binary search when sorted).
    pub fn key_range(&self, key: u64) -> std::ops::Range<usize> {
        let bytes = self.data.as_ref();
        if self.sorted {
            let lo = partition_point(self.len, |i| key_at(bytes, i) < key);
            let hi = lo + partition_point(self.len - lo, |i| key_at(bytes, lo + i) <= key);
            lo..hi
        } else {
            // Unsorted (lenient): the first contiguous run of the key.
            match (0..self.len).find(|&i| key_at(bytes, i) == key) {
                Some(lo) => {
                    lo..(lo..self.len)
                        .find(|&i| key_at(bytes, i) != key)
                        .unwrap_or(self.len)
                }
                None => 0..0,
            }
        }
    }

    /// The raw entries of `key`, null moves and illegal ones included.
    pub fn entries_for_key(&self, key: u64) -> impl Iterator<Item = Entry> + '_ {
        self.key_range(key).map(|i| self.entry(i))
    }

    /// What the book says about a position: its legal book moves in file order (canonical
    /// books: heaviest first), or `Ok(None)` when it has none. Weight-0 moves are included
    /// (Polyglot tools treat them as "known, never play"); null and illegal entries are
    /// dropped (see [`Book::entries_for_key`] for the raw entries).
    ///
    /// This is the probe shape of every opening-book crate of the family (`ctg`,
    /// `kvetka-book`); a Polyglot book read from bytes cannot fail a probe, the `Result` is
    /// for the family's sake.
    pub fn probe(&self, pos: &Chess) -> Result<Option<Probe>, Error> {
        let moves = self.moves(pos);
        Ok((!moves.is_empty()).then_some(Probe { moves }))
    }

    /// The book moves of a position, in file order; null and illegal moves are dropped.
    pub fn moves(&self, pos: &Chess) -> Vec<BookMove> {
        let range = self.key_range(polyglot_key(pos));
        if range.is_empty() {
            return Vec::new();
        }
        let legal = pos.legal_moves();
        range
            .map(|i| self.entry(i))
            .filter_map(|entry| {
                decode_move_among(pos, &legal, entry.raw_move).map(|mv| BookMove {
                    mv,
                    weight: entry.weight,
                    learn: entry.learn,
                    entry,
                })
            })
            .collect()
    }

    /// [`Book::probe`] with a minimum weight and excluded moves.
    pub fn probe_filtered(&self, pos: &Chess, filter: &ProbeFilter) -> Vec<BookMove> {
        let mut moves = self.moves(pos);
        moves.retain(|m| m.weight >= filter.min_weight && !filter.exclude.contains(&m.mv));
        moves
    }

    /// The move with the highest weight (the first in file order among equals).
    pub fn best(&self, pos: &Chess) -> Option<BookMove> {
        self.moves(pos)
            .into_iter()
            .reduce(|best, m| if m.weight > best.weight { m } else { best })
    }

    /// A move chosen with probability proportional to its weight (uniformly among all moves
    /// when every weight is 0). `random` is any source of uniformly distributed `u64`s (with
    /// the `rand` crate: `|| rng.random()`), so this crate does not tie you to a `rand`
    /// version.
    pub fn weighted_choice(
        &self,
        pos: &Chess,
        filter: &ProbeFilter,
        random: impl FnMut() -> u64,
    ) -> Option<BookMove> {
        choose_weighted(&self.probe_filtered(pos, filter), random)
    }
}

/// Chooses among `moves` with probability proportional to weight (uniformly when every
/// weight is 0); `random` gives uniformly distributed `u64`s.
pub fn choose_weighted(moves: &[BookMove], mut random: impl FnMut() -> u64) -> Option<BookMove> {
    if moves.is_empty() {
        return None;
    }
    let i = weighted_index(moves.iter().map(|m| u64::from(m.weight)), &mut random)
        .unwrap_or_else(|| below(moves.len() as u64, random()) as usize);
    Some(moves[i])
}

fn key_at(bytes: &[u8], i: usize) -> u64 {
    chess_core::bytes::be_u64(bytes, i * ENTRY_SIZE).unwrap_or(u64::MAX)
}

fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A book over a file's bytes (read into memory, or memory-mapped).
#[cfg(feature = "std")]
pub type FileBook = Book<FileData>;

#[cfg(feature = "std")]
impl Book<FileData> {
    /// Opens a book file, reading it into memory.
    pub fn open(path: impl AsRef<Path>, mode: OpenMode) -> Result<Self, Error> {
        Self::open_with(path.as_ref(), mode, Loader::READ)
    }

    /// Opens a book file memory-mapped: nothing is read until probed, so opening a
    /// multi-gigabyte book is instant.
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified by another process while the book is open
    /// (see [`FileData::map`]): a truncated map raises `SIGBUS` when read. This crate's writers
    /// never modify a file in place (they write a temporary file and rename it), so replacing
    /// a mapped book with them is safe.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn open_mapped(path: impl AsRef<Path>, mode: OpenMode) -> Result<Self, Error> {
        // SAFETY: forwarded to the caller (this function's contract).
        Self::open_with(path.as_ref(), mode, unsafe { Loader::mapped() })
    }

    fn open_with(path: &Path, mode: OpenMode, loader: Loader) -> Result<Self, Error> {
        let data = loader.load(path).map_err(|e| Error::io(path, e))?;
        Book::new(data, mode).map_err(|e| e.in_file(path))
    }
}

/// Whether `data` looks like a Polyglot book (there is no magic number): at least one 16-byte entry
/// (a partial one after the last is tolerated) whose first entries (up to 256) are sorted by key,
/// with move fields Polyglot can hold (promotion 0–4, top bit clear), and not text. PGN, FEN lists
/// and other text fail the text test; self-play and most binary files fail the order test.
pub fn looks_like_book(data: &[u8]) -> bool {
    // A few bytes after the last whole entry are tolerated, as the readers tolerate them
    // (gnuchess 6.2.7's smallbook.bin ends with one).
    if data.len() < ENTRY_SIZE {
        return false;
    }
    let head = &data[..data.len().min(512)];
    if head
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
    {
        return false;
    }
    let mut prev = 0u64;
    for chunk in data.chunks_exact(ENTRY_SIZE).take(256) {
        let Ok(bytes) = <&[u8; ENTRY_SIZE]>::try_from(chunk) else {
            return false;
        };
        let e = Entry::from_bytes(bytes);
        if e.key < prev || e.raw_move >> 15 != 0 || (e.raw_move >> 12) & 7 > 4 {
            return false;
        }
        prev = e.key;
    }
    true
}

impl chess_core::book::BookProbe for Probe {
    fn book_moves(&self) -> Vec<Move> {
        self.moves.iter().map(|m| m.mv).collect()
    }
}

impl<D: AsRef<[u8]>> chess_core::book::OpeningBook for Book<D> {
    type Probe = Probe;
    type Error = Error;

    fn probe(&self, pos: &Chess) -> Result<Option<Probe>, Error> {
        Book::probe(self, pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(entries: &[Entry]) -> Vec<u8> {
        entries.iter().flat_map(|e| e.to_bytes()).collect()
    }

    #[test]
    fn strict_and_lenient() {
        let e = |key, raw_move, weight| Entry {
            key,
            raw_move,
            weight,
            learn: 0,
        };
        let mut bytes = book(&[
            e(1, 0x031c, 5),
            e(2, 0x031c, 5),
            e(2, 0x0195, 9),
            e(3, 0, 1),
        ]);
        let b = Book::new(&bytes[..], OpenMode::Strict).unwrap();
        assert_eq!(b.len(), 4);
        assert_eq!(b.key_range(2), 1..3);
        assert_eq!(b.key_range(0), 0..0);
        assert_eq!(b.key_range(4), 4..4);
        bytes.push(0x0a);
        let err = Book::new(&bytes[..], OpenMode::Strict).unwrap_err();
        assert!(err.to_string().contains("byte 64"), "{err}");
        let b = Book::new(&bytes[..], OpenMode::Lenient).unwrap();
        assert_eq!((b.len(), b.trailing_bytes()), (4, 1));
        let unsorted = book(&[e(5, 1, 1), e(2, 1, 1), e(2, 2, 1)]);
        let err = Book::new(&unsorted[..], OpenMode::Strict).unwrap_err();
        assert!(err.to_string().contains("byte 16"), "{err}");
        let b = Book::new(&unsorted[..], OpenMode::Lenient).unwrap();
        assert!(!b.is_sorted());
        assert_eq!(b.key_range(2), 1..3);
    }

    #[test]
    fn probe_start_position() {
        let key = polyglot_key(&Chess::default());
        let e = |raw_move, weight| Entry {
            key,
            raw_move,
            weight,
            learn: 7,
        };
        // e2e4, an illegal e2e5, a null move, g1f3.
        let bytes = book(&[e(0x031c, 10), e(0x0324, 50), e(0, 99), e(0x0195, 30)]);
        let b = Book::new(bytes, OpenMode::Strict).unwrap();
        let moves = b.moves(&Chess::default());
        assert_eq!(moves.len(), 2);
        assert_eq!(moves[0].weight, 10);
        assert_eq!(moves[1].learn, 7);
        assert_eq!(b.best(&Chess::default()).unwrap().weight, 30);
        assert_eq!(b.entries_for_key(key).count(), 4);
        let f = ProbeFilter {
            min_weight: 11,
            exclude: vec![],
        };
        assert_eq!(b.probe_filtered(&Chess::default(), &f).len(), 1);
        let mut x = chess_core::fuzzing::XorShift::new(0x9e37_79b9_7f4a_7c15);
        let mut xorshift = || x.next_u64();
        let mut heavy = 0;
        for _ in 0..4000 {
            let m = b.weighted_choice(&Chess::default(), &ProbeFilter::default(), &mut xorshift);
            heavy += usize::from(m.unwrap().weight == 30);
        }
        // Weights 10 and 30: the heavier move about three times in four.
        assert!((2800..3200).contains(&heavy), "{heavy}");
    }
}
