//! Reading a book: opening the three files, the lookup walk, record scans and probes.

#[cfg(feature = "std")]
use std::path::Path;

use chess_core::{
    ParseError, Wdl,
    book::normalised_moves,
    bytes::be_u32,
    huffman::HuffmanPosition,
    normalize::{Transform, normalize},
};
#[cfg(feature = "std")]
use chessfmt_files::{CompanionSet, FileData, Loader};
use shakmaty::{Chess, Move, Position};

use crate::{
    Error,
    hash::{candidate_nodes, gen_hash},
    moves, position,
    raw::{
        CTB_HEADER, CTO_HEADER, CtbHeader, Header, NO_PAGE, PAGE_HEADER, PAGE_SIZE, PageHeader,
        RawRecord, Recommendation, Stats, page_offset,
    },
};

/// A CTG book over the bytes of its `.ctg` and `.cto` files (`Vec<u8>`, `&[u8]`, a file's `FileData`)
/// and the header of its `.ctb`.
#[derive(Debug)]
pub struct Book<D> {
    ctg: D,
    cto: D,
    header: Header,
    bounds: CtbHeader,
    split_bitmap: Vec<u8>,
}

/// A record found in the book, with where it is.
#[derive(Debug, Clone, Copy)]
pub struct RecordRef<'a> {
    /// Data page number.
    pub page: u32,
    /// Byte offset of the record in the `.ctg`.
    pub offset: u64,
    /// The record's parts.
    pub raw: RawRecord<'a>,
}

/// A book move of a probed position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookMove {
    /// The move on the real board.
    pub mv: Move,
    /// The stored move code.
    pub code: u8,
    /// The annotation byte as stored (its low 5 bits are the NAG: [`BookMove::nag`]).
    pub annotation: u8,
    /// The statistics of the position after the move, as stored (side to move = the
    /// opponent of the mover); `None` when the book has no record for it.
    pub child: Option<Stats>,
}

/// Results from the point of view of one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Results {
    /// Games.
    pub games: u32,
    /// Games won by that side.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games lost by that side.
    pub losses: u32,
}

impl BookMove {
    /// The annotation NAG (low 5 bits of the annotation byte: 1 `!`, 2 `?`, 3 `!!`, …).
    pub fn nag(&self) -> u8 {
        moves::nag(self.annotation)
    }

    /// Wins, draws and losses **of the side that plays the move** (the child record stores
    /// them for its side to move, the opponent: wins and losses swap); `None` when the
    /// position after the move has no record.
    pub fn wdl(&self) -> Option<Wdl> {
        self.child.map(|s| Wdl {
            wins: u64::from(s.losses),
            draws: u64::from(s.draws),
            losses: u64::from(s.wins),
        })
    }

    /// Games, wins, draws and losses **of the side that plays the move** (the child record
    /// stores them for its side to move, the opponent: wins and losses swap).
    pub fn results(&self) -> Results {
        self.child.map_or(Results::default(), |s| Results {
            games: s.games,
            wins: s.losses,
            draws: s.draws,
            losses: s.wins,
        })
    }

    /// The move's colour (green, red, none) from the child record.
    pub fn recommendation(&self) -> Recommendation {
        self.child
            .map_or(Recommendation::None, |s| s.recommendation())
    }

    /// The commentary (position NAG) of the position after the move.
    pub fn commentary(&self) -> u8 {
        self.child.map_or(0, |s| s.commentary)
    }
}

/// What the book says about a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The position's own statistics (side to move = the probed position's side to move).
    pub stats: Stats,
    /// Its book moves, in stored order.
    pub moves: Vec<BookMove>,
    /// Stored (code, annotation) pairs that decode to no legal move, even with the 0x1A/0xF9
    /// fallback.
    pub undecodable: Vec<(u8, u8)>,
}

impl Probe {
    /// The position's wins, draws and losses from its side to move's point of view.
    pub fn wdl(&self) -> Wdl {
        Wdl {
            wins: u64::from(self.stats.wins),
            draws: u64::from(self.stats.draws),
            losses: u64::from(self.stats.losses),
        }
    }

    /// The position's results from its side to move's point of view.
    pub fn results(&self) -> Results {
        Results {
            games: self.stats.games,
            wins: self.stats.wins,
            draws: self.stats.draws,
            losses: self.stats.losses,
        }
    }
}

/// A record decoded: its position (normalised: White to move) and moves.
#[derive(Debug, Clone)]
pub struct DecodedRecord {
    /// The stored position as a White-to-move position.
    pub position: Chess,
    /// Decoded moves on that board: (move, code, annotation).
    pub moves: Vec<(Move, u8, u8)>,
    /// Pairs that decode to no legal move.
    pub undecodable: Vec<(u8, u8)>,
    /// The statistics.
    pub stats: Stats,
}

/// Decodes a record's position and moves. Errors when the position bytes are not a legal
/// position.
pub fn decode_record(raw: &RawRecord<'_>) -> Result<DecodedRecord, ParseError> {
    let (hp, _) = position::decode(raw.position)?;
    let position = position_of(&hp)?;
    let legal = position.legal_moves();
    let mut moves = Vec::with_capacity(raw.moves.len() / 2);
    let mut undecodable = Vec::new();
    for (code, ann) in raw.move_pairs() {
        match moves::decode(&position, &legal, code) {
            Some(m) => moves.push((m, code, ann)),
            None => undecodable.push((code, ann)),
        }
    }
    Ok(DecodedRecord {
        position,
        moves,
        undecodable,
        stats: raw.stats(),
    })
}

/// The White-to-move position of a decoded key, by the family's one rule
/// ([`HuffmanPosition::to_position`]: unsupported castling and en-passant flags dropped).
pub fn position_of(hp: &HuffmanPosition) -> Result<Chess, ParseError> {
    hp.to_position()
        .map_err(|e| ParseError::new(0, "a legal position", format!("{e:?}")))
}

impl<D: AsRef<[u8]>> Book<D> {
    /// A book over the bytes of its three files. Checks the header page, that the data pages
    /// the header announces are in the file, and the `.cto`/`.ctb` headers; pages are checked
    /// record by record when read (a malformed page tail is never used).
    pub fn new(ctg: D, cto: D, ctb: &[u8]) -> Result<Self, Error> {
        let bytes = ctg.as_ref();
        let header = Header::parse(bytes)?;
        let needed = page_offset(header.pages);
        if needed > bytes.len() as u64 {
            return Err(ParseError::new(
                16,
                format!(
                    "{} data pages ({needed} bytes, as the header says)",
                    header.pages
                ),
                format!("a file of {} bytes", bytes.len()),
            )
            .into());
        }
        check_cto(cto.as_ref())?;
        let bounds = CtbHeader::parse(ctb)?;
        Ok(Book {
            ctg,
            cto,
            header,
            bounds,
            split_bitmap: ctb[CTB_HEADER..].to_vec(),
        })
    }

    /// The header page's fields.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The `.ctb` bounds (lower, upper).
    pub fn bounds(&self) -> CtbHeader {
        self.bounds
    }

    /// The split bitmap of the `.ctb` (after its header).
    pub fn split_bitmap(&self) -> &[u8] {
        &self.split_bitmap
    }

    /// Number of `.cto` entries the file holds.
    pub fn directory_len(&self) -> usize {
        (self.cto.as_ref().len() - CTO_HEADER) / 4
    }

    /// The page of `.cto` entry `node`: `None` for 0xffffffff, an entry past the end of the
    /// file, or a page the book does not have.
    pub fn directory_entry(&self, node: u32) -> Option<u32> {
        let at = CTO_HEADER as u64 + u64::from(node) * 4;
        let page = be_u32(self.cto.as_ref(), usize::try_from(at).ok()?)?;
        (page != NO_PAGE && page < self.header.pages).then_some(page)
    }

    /// Data page `page`'s bytes up to its used-byte count (the garbage after it excluded),
    /// with its header; `None` for a page number past the header's count.
    pub fn page(&self, page: u32) -> Option<(PageHeader, &[u8])> {
        if page >= self.header.pages {
            return None;
        }
        let start = usize::try_from(page_offset(page)).ok()?;
        let bytes = self.ctg.as_ref().get(start..start + PAGE_SIZE)?;
        let h = PageHeader::parse(bytes)?;
        let used = usize::from(h.used).clamp(PAGE_HEADER, PAGE_SIZE);
        Some((h, &bytes[..used]))
    }

    /// Finds the record of an encoded position (header byte included) by the lookup walk,
    /// strictly: a page on the way that is damaged (a page number past the header's count, a
    /// record running past the page's used bytes, impossible lengths) is an error naming its
    /// byte offset, not "not in the book".
    pub fn lookup(&self, key: &[u8]) -> Result<Option<RecordRef<'_>>, ParseError> {
        self.lookup_inner(key).map_err(Damage::into_error)
    }

    /// [`Book::search_page`] that reports a damaged page instead of ending the search quietly.
    pub fn search_page_checked(
        &self,
        page: u32,
        key: &[u8],
    ) -> Result<Option<RecordRef<'_>>, ParseError> {
        self.search_inner(page, key).map_err(Damage::into_error)
    }

    // The strict walk with a small error type (the hot path of every probe); the full
    // `ParseError` is built only when a damaged page is met.
    #[inline]
    fn lookup_inner(&self, key: &[u8]) -> Result<Option<RecordRef<'_>>, Damage> {
        let hash = gen_hash(key);
        for node in candidate_nodes(hash, self.bounds.lower, self.bounds.upper) {
            let Some(page) = self.directory_entry(node) else {
                continue;
            };
            if let Some(r) = self.search_inner(page, key)? {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    #[inline]
    fn search_inner(&self, page: u32, key: &[u8]) -> Result<Option<RecordRef<'_>>, Damage> {
        let base = page_offset(page);
        let Some((_, bytes)) = self.page(page) else {
            return Err(Damage::Page { base, page });
        };
        let mut at = PAGE_HEADER;
        // Skip records by their length bytes; split (and check) only a record whose position
        // bytes match. A record running past the used bytes ends the search.
        while at < bytes.len() {
            let l = usize::from(bytes[at] & 0x1f);
            if l == key.len() && starts_with_key(&bytes[at..], key) {
                return match RawRecord::split(&bytes[at..]) {
                    Ok((raw, _)) => Ok(Some(RecordRef {
                        page,
                        offset: base + at as u64,
                        raw,
                    })),
                    Err(_) => Err(Damage::Split {
                        offset: base + at as u64,
                        page,
                    }),
                };
            }
            match bytes.get(at + l) {
                Some(&m) if l >= 2 && m % 2 == 1 => {
                    at += l + usize::from(m) + crate::raw::STATS_LEN;
                }
                m => {
                    return Err(Damage::Record {
                        offset: base + at as u64,
                        len: l as u8,
                        moves: m.copied(),
                    });
                }
            }
        }
        Ok(None)
    }

    /// Finds the record of an encoded position (header byte included) by the lookup walk,
    /// leniently: a damaged page on the way reads as not holding the record (see
    /// [`Book::lookup`] for the strict form that [`Book::probe`] uses).
    pub fn find(&self, key: &[u8]) -> Option<RecordRef<'_>> {
        let hash = gen_hash(key);
        for node in candidate_nodes(hash, self.bounds.lower, self.bounds.upper) {
            let Some(page) = self.directory_entry(node) else {
                continue;
            };
            if let Some(r) = self.search_page(page, key) {
                return Some(r);
            }
        }
        None
    }

    /// Searches one page for a key, up to its used-byte count and its first malformed record.
    pub fn search_page(&self, page: u32, key: &[u8]) -> Option<RecordRef<'_>> {
        // The strict search, with a damaged page read as not holding the key.
        self.search_inner(page, key).ok().flatten()
    }

    /// The record of a position (normalised and encoded first).
    pub fn find_position(&self, pos: &Chess) -> Option<RecordRef<'_>> {
        self.find(position::key_of(pos)?.as_bytes())
    }

    /// Every record in page order, each page read up to its used-byte count. A malformed
    /// record, or a page whose record count disagrees with its records, yields one error
    /// (naming the byte offset) and the scan goes on with the next page.
    pub fn records(&self) -> Records<'_, D> {
        Records {
            book: self,
            page: 0,
            at: PAGE_HEADER,
            seen: 0,
        }
    }

    /// The book moves of a position, with the statistics of each move from the record of
    /// the position after it; `Ok(None)` when the position is not in the book. A damaged page
    /// met by the lookup is an error, never "not in the book". Moves are in stored order
    /// (sort them by [`BookMove::wdl`] games for display); moves whose position after has no
    /// record have no statistics.
    pub fn probe(&self, pos: &Chess) -> Result<Option<Probe>, Error> {
        let Some(key) = position::key_of(pos) else {
            return Ok(None);
        };
        let Some(rec) = self
            .lookup_inner(key.as_bytes())
            .map_err(Damage::into_error)?
        else {
            return Ok(None);
        };
        let n = normalize(pos);
        self.probe_record(&n.position, n.transform, &rec.raw)
            .map(Some)
    }

    /// [`Book::probe`] for a record already found: `position` is its normalised position and
    /// `transform` maps its moves back to the real board.
    pub fn probe_record(
        &self,
        position: &Chess,
        transform: Transform,
        raw: &RawRecord<'_>,
    ) -> Result<Probe, Error> {
        let mut out = Probe {
            stats: raw.stats(),
            moves: Vec::with_capacity(raw.moves.len() / 2),
            undecodable: Vec::new(),
        };
        let decode =
            |pos: &Chess, legal: &[Move], (code, _): (u8, u8)| moves::decode(pos, legal, code);
        for m in normalised_moves(position, transform, raw.move_pairs(), decode) {
            let m = match m {
                Ok(m) => m,
                Err(pair) => {
                    out.undecodable.push(pair);
                    continue;
                }
            };
            let child_stats = self.child_stats(&m.child).map_err(Damage::into_error)?;
            out.moves.push(BookMove {
                mv: m.real,
                code: m.code.0,
                annotation: m.code.1,
                child: child_stats,
            });
        }
        Ok(out)
    }

    fn child_stats(&self, child: &Chess) -> Result<Option<Stats>, Damage> {
        let Some(key): Option<position::Key> = position::key_of(child) else {
            return Ok(None);
        };
        Ok(self.lookup_inner(key.as_bytes())?.map(|r| r.raw.stats()))
    }
}

/// Iterator over every record of a book: see [`Book::records`].
#[derive(Debug)]
pub struct Records<'a, D> {
    book: &'a Book<D>,
    page: u32,
    at: usize,
    seen: u32,
}

impl<'a, D: AsRef<[u8]>> Iterator for Records<'a, D> {
    type Item = Result<RecordRef<'a>, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.page >= self.book.header.pages {
                return None;
            }
            let page = self.page;
            let base = page_offset(page);
            let Some((h, bytes)) = self.book.page(page) else {
                self.page = u32::MAX;
                return Some(Err(ParseError::truncated(base, PAGE_SIZE as u64, 0)));
            };
            let next_page = |s: &mut Self| {
                s.page += 1;
                s.at = PAGE_HEADER;
                s.seen = 0;
            };
            if self.at >= bytes.len() {
                let seen = self.seen;
                next_page(self);
                if u32::from(h.used) < PAGE_HEADER as u32 || usize::from(h.used) > PAGE_SIZE {
                    return Some(Err(ParseError::new(
                        base + 2,
                        "a used-byte count of 4..=4096",
                        h.used.to_string(),
                    )));
                }
                if seen != u32::from(h.records) {
                    return Some(Err(ParseError::new(
                        base,
                        format!("{} records (the page header's count)", h.records),
                        format!("{seen} records in the page's used bytes"),
                    )));
                }
                continue;
            }
            let at = self.at;
            match RawRecord::split(&bytes[at..]) {
                Ok((raw, len)) => {
                    self.at += len;
                    self.seen += 1;
                    return Some(Ok(RecordRef {
                        page,
                        offset: base + at as u64,
                        raw,
                    }));
                }
                Err(e) => {
                    next_page(self);
                    return Some(Err(e.shifted(base + at as u64)));
                }
            }
        }
    }
}

/// A damaged page met by the strict lookup (small and `Copy`: the hot path carries it).
#[derive(Debug, Clone, Copy)]
enum Damage {
    Page {
        base: u64,
        page: u32,
    },
    Record {
        offset: u64,
        len: u8,
        moves: Option<u8>,
    },
    Split {
        offset: u64,
        page: u32,
    },
}

impl Damage {
    #[cold]
    #[inline(never)]
    fn into_error(self) -> ParseError {
        match self {
            Damage::Page { base, page } => ParseError::new(
                base,
                "a data page within the file and the header's page count",
                format!("page {page}"),
            ),
            Damage::Record { offset, len, moves } => ParseError::new(
                offset,
                "a record (position of 2-31 bytes, odd move-byte count) within the page's used bytes",
                format!("position length {len}, move-byte count {moves:?}"),
            ),
            Damage::Split { offset, page } => ParseError::new(
                offset,
                "a whole record within its page's used bytes",
                format!("a record cut short in page {page}"),
            ),
        }
    }
}

/// Whether the bytes of a record (`rec`, from its header byte on) begin with `key`: the
/// first eight bytes compared as one word, which tells most other records of a page apart
/// without a call to compare the whole key.
#[inline]
fn starts_with_key(rec: &[u8], key: &[u8]) -> bool {
    match (rec.first_chunk::<8>(), key.first_chunk::<8>()) {
        (Some(a), Some(b)) if a != b => false,
        _ => rec.get(..key.len()) == Some(key),
    }
}

/// The `.cto` holds at least its header.
fn check_cto(cto: &[u8]) -> Result<(), ParseError> {
    if cto.len() < CTO_HEADER {
        return Err(ParseError::truncated(
            0,
            CTO_HEADER as u64,
            cto.len() as u64,
        ));
    }
    Ok(())
}

/// A book over its files' bytes (read into memory, or memory-mapped).
#[cfg(feature = "std")]
pub type FileBook = Book<FileData>;

#[cfg(feature = "std")]
impl Book<FileData> {
    /// Opens a book from the path of any of its files (`.ctg`, `.cto`, `.ctb`, in any letter
    /// case) or their common path without extension; the files are read into memory.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::open_with(path.as_ref(), Loader::READ)
    }

    /// [`Book::open`] with the `.ctg` and `.cto` memory-mapped (nothing is read until probed).
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
        let mut set = CompanionSet::find(path, &crate::EXTENSIONS);
        // A write of this book that was interrupted after its commit point is finished
        // first: the new book, never a mix of old and new files.
        // The lock is held (shared) while the files are opened: a commit under way is
        // waited for, and none starts until the three are open.
        let anchor = chessfmt_files::with_added_extension(set.base(), "ctg");
        let (_lock, finished) =
            chessfmt_files::atomic::open_set(&anchor).map_err(|e| Error::io(&anchor, e))?;
        if finished {
            set = CompanionSet::find(path, &crate::EXTENSIONS);
        }
        let file = |ext: &str| {
            set.get(ext).map(Path::to_path_buf).ok_or_else(|| {
                Error::io(
                    set.path(ext),
                    std::io::Error::new(std::io::ErrorKind::NotFound, "not found"),
                )
            })
        };
        let (ctg_path, cto_path, ctb_path) = (file("ctg")?, file("cto")?, file("ctb")?);
        let ctg = loader
            .load(&ctg_path)
            .map_err(|e| Error::io(&ctg_path, e))?;
        let cto = loader
            .load(&cto_path)
            .map_err(|e| Error::io(&cto_path, e))?;
        let ctb = std::fs::read(&ctb_path).map_err(|e| Error::io(&ctb_path, e))?;
        // The checks of `Book::new`, run here first to name the file at fault.
        check_cto(&cto).map_err(|e| e.in_file(&cto_path))?;
        CtbHeader::parse(&ctb).map_err(|e| e.in_file(&ctb_path))?;
        Book::new(ctg, cto, &ctb).map_err(|e| e.in_file(&ctg_path))
    }
}
