//! Opening a database and reading its records and games.

use std::path::{Path, PathBuf};

use crate::Limits;
use chess_core::ParseError;
use chessfmt_files::FileData;
#[cfg(feature = "std")]
use chessfmt_files::Loader;

use crate::text::TextEncoding;

use crate::annotations::parse_record_named;
use crate::entities::EntityFile;
use crate::error::{Error, GameError, GameErrorKind};
use crate::game::{Game, MainLine, decode_game_with, decode_main_line};
use crate::header::{GameHeader, Header, TextHeader};
use crate::raw::{
    Annotator, CBH_RECORD_SIZE, CBJ_HEADER_SIZE, CbhHeader, CbhRecord, CbjHeader, CbjTeams,
    EntityData, GameRecord, Player, Source, Team, Tournament,
};

/// The bytes of one file: read, memory-mapped, or given (in-memory databases, fuzzing).
type Bytes = FileData;

/// The files of a database, loaded (`.cbh` required, the others when present).
struct Loaded {
    cbh: Bytes,
    cbg: Option<Bytes>,
    cba: Option<Bytes>,
    cbj: Option<Bytes>,
    /// `.cbp`, `.cbt`, `.cbc`, `.cbs`, `.cbe`.
    ents: [Option<Bytes>; 5],
}

/// The files of a database in memory, for [`Database::from_files`].
#[derive(Debug, Default, Clone)]
pub struct Files {
    /// `.cbh`, required.
    pub cbh: Vec<u8>,
    /// `.cbg`.
    pub cbg: Option<Vec<u8>>,
    /// `.cba`.
    pub cba: Option<Vec<u8>>,
    /// `.cbj`.
    pub cbj: Option<Vec<u8>>,
    /// `.cbp`.
    pub cbp: Option<Vec<u8>>,
    /// `.cbt`.
    pub cbt: Option<Vec<u8>>,
    /// `.cbc`.
    pub cbc: Option<Vec<u8>>,
    /// `.cbs`.
    pub cbs: Option<Vec<u8>>,
    /// `.cbe`.
    pub cbe: Option<Vec<u8>>,
}

/// A file of the database that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePresent {
    /// The extension, lower case (`cbh`, `cbg`, …).
    pub extension: &'static str,
    /// Its path (for in-memory databases, just the extension).
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
}

/// Counts of a database's records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Game records (deleted ones included).
    pub games: u32,
    /// Guiding-text records (deleted ones included).
    pub texts: u32,
    /// Records marked deleted.
    pub deleted: u32,
    /// Records not in use.
    pub unused: u32,
}

static DEFAULT_PLAYER: Player = Player {
    last: String::new(),
    first: String::new(),
    games: 0,
    first_game: 0,
};
static DEFAULT_TOURNAMENT: Tournament = Tournament {
    title: String::new(),
    place: String::new(),
    date: 0,
    kind: 0,
    team: 0,
    nation: 0,
    unknown1: 0,
    category: 0,
    flags: 0,
    rounds: 0,
    unknown2: 0,
    games: 0,
    first_game: 0,
};
static DEFAULT_ANNOTATOR: Annotator = Annotator {
    name: String::new(),
    games: 0,
    first_game: 0,
};
static DEFAULT_SOURCE: Source = Source {
    title: String::new(),
    publisher: String::new(),
    publication: 0,
    date: 0,
    version: 0,
    quality: 0,
    games: 0,
    first_game: 0,
};

/// A ChessBase database, opened by its `.cbh` file.
///
/// `.cbh` is required; `.cbg` is needed for games (listing headers works without it);
/// `.cba`, `.cbj` and the entity files are optional and give empty values when absent or
/// unreadable (see [`Database::warnings`]).
#[derive(Debug)]
pub struct Database {
    path: PathBuf,
    cbh: Bytes,
    header: CbhHeader,
    count: u32,
    cbg: Option<Bytes>,
    cba: Option<Bytes>,
    cbj: Option<(CbjHeader, Bytes)>,
    /// Players (`.cbp`).
    pub players: EntityFile<Player>,
    /// Tournaments (`.cbt`).
    pub tournaments: EntityFile<Tournament>,
    /// Annotators (`.cbc`).
    pub annotators: EntityFile<Annotator>,
    /// Sources (`.cbs`).
    pub sources: EntityFile<Source>,
    /// Teams (`.cbe`).
    pub teams: EntityFile<Team>,
    files: Vec<FilePresent>,
    warnings: Vec<String>,
    limits: Limits,
    /// The code page of texts that are not UTF-8.
    legacy: &'static encoding_rs::Encoding,
}

fn entities<T: EntityData>(
    bytes: Option<&[u8]>,
    name: &Path,
    code_page: &'static encoding_rs::Encoding,
    warnings: &mut Vec<String>,
) -> EntityFile<T> {
    match bytes.map(|b| EntityFile::from_bytes(b, code_page)) {
        None => EntityFile::empty(),
        Some(Ok(f)) => f,
        Some(Err(e)) => {
            warnings.push(format!("{} (ignored)", e.in_file(name)));
            EntityFile::empty()
        }
    }
}

/// How a database is opened ([`Database::options`]): the code page of texts that are not
/// UTF-8, the limits of its readers, and the name of a database made from memory.
#[derive(Debug, Clone)]
#[must_use]
pub struct OpenOptions {
    encoding: TextEncoding,
    limits: Limits,
    name: Option<PathBuf>,
}

impl Default for OpenOptions {
    /// The code page guessed, the default limits, `memory.cbh` for a database from memory.
    fn default() -> Self {
        OpenOptions {
            encoding: TextEncoding::Detect,
            limits: Limits::default(),
            name: None,
        }
    }
}

impl OpenOptions {
    /// Texts that are not UTF-8 decoded as `encoding` says (guessed by default).
    pub fn encoding(mut self, encoding: TextEncoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The limits the database's readers work under.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The name errors and [`Database::path`] give a database made by
    /// [`OpenOptions::from_files`] (an archive member's, for instance).
    pub fn name(mut self, cbh_path: impl Into<PathBuf>) -> Self {
        self.name = Some(cbh_path.into());
        self
    }

    /// [`Database::open`] with these options (an archive included).
    #[cfg(feature = "std")]
    pub fn open(&self, path: impl AsRef<Path>) -> Result<Database, Error> {
        let path = path.as_ref();
        #[cfg(feature = "archive")]
        if crate::archive::is_archive(path) {
            let db =
                crate::archive::Archive::open(path, None)?.database_with_encoding(self.encoding)?;
            return Ok(db.with_limits(self.limits));
        }
        Ok(Database::open_with(path, Loader::READ, self.encoding)?.with_limits(self.limits))
    }

    /// [`Database::open_mapped`] with these options (not of an archive).
    ///
    /// # Safety
    ///
    /// As for [`Database::open_mapped`].
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn open_mapped(&self, path: impl AsRef<Path>) -> Result<Database, Error> {
        // SAFETY: forwarded to the caller (this function's contract).
        let loader = unsafe { Loader::mapped() };
        Ok(Database::open_with(path.as_ref(), loader, self.encoding)?.with_limits(self.limits))
    }

    /// [`Database::from_files`] with these options.
    pub fn from_files(&self, files: Files) -> Result<Database, Error> {
        let name = self
            .name
            .clone()
            .unwrap_or_else(|| PathBuf::from("memory.cbh"));
        Ok(Database::from_files_with(name, files, self.encoding)?.with_limits(self.limits))
    }
}

impl Database {
    /// Opens the database whose `.cbh` file is `path`; the other files are looked for beside
    /// it, in any letter case. Files are read into memory. The code page of texts that are
    /// not UTF-8 is guessed, and the default [`Limits`] apply: see [`Database::options`] to
    /// choose them.
    ///
    /// A `.cbv` archive (with the `archive` feature) is opened too: the database in it is
    /// extracted into memory ([`crate::archive::Archive::database`]); a password-protected
    /// `.cbz` needs [`crate::archive::Archive::open`] with its password.
    #[cfg(feature = "std")]
    pub fn open(path: impl AsRef<Path>) -> Result<Database, Error> {
        OpenOptions::default().open(path)
    }

    /// [`Database::open`] with the files memory-mapped (nothing is read until used).
    ///
    /// # Safety
    ///
    /// The files must not be truncated or modified by another process while the database is
    /// open (see [`FileData::map`]): a truncated map raises `SIGBUS` when read.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn open_mapped(path: impl AsRef<Path>) -> Result<Database, Error> {
        // SAFETY: forwarded to the caller (this function's contract).
        unsafe { OpenOptions::default().open_mapped(path) }
    }

    /// A database from files in memory (tests, fuzzing, data not on disk), named
    /// `memory.cbh`.
    pub fn from_files(files: Files) -> Result<Database, Error> {
        OpenOptions::default().from_files(files)
    }

    /// How to open a database other than by default: its code page, its limits, the name of
    /// one made from memory. The one way to choose them, for every source.
    ///
    /// ```
    /// use chessbase_db::{Database, Limits, TextEncoding};
    ///
    /// let mut limits = Limits::default();
    /// limits.variation_depth = 32;
    /// let russian = TextEncoding::from_label("windows-1251").unwrap();
    /// let options = Database::options().encoding(russian).limits(limits).name("from-memory.cbh");
    /// // `Database::open`'s files, here from memory: an empty database.
    /// # let files = chessbase_db::fuzzing::games_database(5, &[]).unwrap();
    /// let db = options.from_files(files)?;
    /// assert_eq!((db.len(), db.limits().variation_depth), (0, 32));
    /// assert_eq!(db.path(), std::path::Path::new("from-memory.cbh"));
    /// # Ok::<(), chessbase_db::Error>(())
    /// ```
    pub fn options() -> OpenOptions {
        OpenOptions::default()
    }

    #[cfg(feature = "std")]
    fn open_with(path: &Path, loader: Loader, encoding: TextEncoding) -> Result<Database, Error> {
        // A commit of this database that was interrupted (the writer killed between its
        // renames) is finished first, so that the files read are all of one database: the
        // old one or the new one, never a mix (chessfmt_files::atomic).
        // The lock is held (shared) while the files are read or mapped.
        let (_lock, _) = chessfmt_files::atomic::open_set(path).map_err(|e| Error::io(path, e))?;
        let map = |p: &Path| loader.load(p).map_err(|e| Error::io(p, e));
        let cbh_path = chessfmt_files::find_any_case(path).ok_or_else(|| Error::Missing {
            path: path.to_path_buf(),
        })?;
        let find = |ext: &str| chessfmt_files::find_any_case(&cbh_path.with_extension(ext));
        let mut files = Vec::new();
        let mut load = |ext: &'static str| -> Result<Option<Bytes>, Error> {
            let Some(p) = (if ext == "cbh" {
                Some(cbh_path.clone())
            } else {
                find(ext)
            }) else {
                return Ok(None);
            };
            let b = map(&p)?;
            files.push(FilePresent {
                extension: ext,
                path: p,
                size: b.len() as u64,
            });
            Ok(Some(b))
        };
        let cbh = load("cbh")?.unwrap_or_else(|| Bytes::from(Vec::new()));
        let cbg = load("cbg")?;
        let cba = load("cba")?;
        let cbj = load("cbj")?;
        let cbp = load("cbp")?;
        let cbt = load("cbt")?;
        let cbc = load("cbc")?;
        let cbs = load("cbs")?;
        let cbe = load("cbe")?;
        Self::assemble(
            cbh_path,
            Loaded {
                cbh,
                cbg,
                cba,
                cbj,
                ents: [cbp, cbt, cbc, cbs, cbe],
            },
            files,
            encoding,
        )
    }

    /// A database from files in memory named `cbh_path`, texts decoded as `encoding` says.
    fn from_files_with(
        cbh_path: PathBuf,
        files: Files,
        encoding: TextEncoding,
    ) -> Result<Database, Error> {
        let mut present = Vec::new();
        let mut own = |ext: &'static str, v: Option<Vec<u8>>| {
            v.map(|v| {
                present.push(FilePresent {
                    extension: ext,
                    path: PathBuf::from(ext),
                    size: v.len() as u64,
                });
                Bytes::from(v)
            })
        };
        let cbh = own("cbh", Some(files.cbh)).unwrap_or_else(|| Bytes::from(Vec::new()));
        let cbg = own("cbg", files.cbg);
        let cba = own("cba", files.cba);
        let cbj = own("cbj", files.cbj);
        let ents = [
            own("cbp", files.cbp),
            own("cbt", files.cbt),
            own("cbc", files.cbc),
            own("cbs", files.cbs),
            own("cbe", files.cbe),
        ];
        let loaded = Loaded {
            cbh,
            cbg,
            cba,
            cbj,
            ents,
        };
        Self::assemble(cbh_path, loaded, present, encoding)
    }

    fn assemble(
        path: PathBuf,
        loaded: Loaded,
        files: Vec<FilePresent>,
        encoding: TextEncoding,
    ) -> Result<Database, Error> {
        let Loaded {
            cbh,
            cbg,
            cba,
            cbj,
            ents,
        } = loaded;
        let head: &[u8; CBH_RECORD_SIZE] = cbh
            .get(..CBH_RECORD_SIZE)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                Error::from(ParseError::truncated(
                    0,
                    CBH_RECORD_SIZE as u64,
                    cbh.len() as u64,
                ))
                .in_file(&path)
            })?;
        let header = CbhHeader::parse(head);
        if head[0] != 0 || !matches!(header.used, 36 | 44) || header.record_size != 46 {
            return Err(Error::from(ParseError::new(
                0,
                "a .cbh signature 00 00 2C 00 2E or 00 00 24 00 2E",
                format!("{:02x?}", &head[..5]),
            ))
            .in_file(&path));
        }
        let count = ((cbh.len() - CBH_RECORD_SIZE) / CBH_RECORD_SIZE) as u32;
        let mut warnings = Vec::new();
        if !(cbh.len() - CBH_RECORD_SIZE).is_multiple_of(CBH_RECORD_SIZE) {
            warnings.push(format!(
                "{}: {} bytes after the last whole record ignored",
                path.display(),
                (cbh.len() - CBH_RECORD_SIZE) % CBH_RECORD_SIZE
            ));
        }
        let cbj = cbj.and_then(|b| {
            let h: &[u8; CBJ_HEADER_SIZE] = b.get(..CBJ_HEADER_SIZE)?.try_into().ok()?;
            let h = CbjHeader::parse(h);
            if h.record_size < 8 {
                return None;
            }
            Some((h, b))
        });
        let [cbp, cbt, cbc, cbs, cbe] = ents;
        let name = |ext: &str| path.with_extension(ext);
        // The code page of texts that are not UTF-8: the user's, or guessed from the names
        // (the format does not record it): the entity files are read as Windows-1252 (which
        // keeps every byte), their names given to the guess, and read again when it says
        // another code page.
        let read_entities = |legacy| {
            let mut w = Vec::new();
            let files = (
                entities::<Player>(cbp.as_deref(), &name("cbp"), legacy, &mut w),
                entities::<Tournament>(cbt.as_deref(), &name("cbt"), legacy, &mut w),
                entities::<Annotator>(cbc.as_deref(), &name("cbc"), legacy, &mut w),
                entities::<Source>(cbs.as_deref(), &name("cbs"), legacy, &mut w),
                entities::<Team>(cbe.as_deref(), &name("cbe"), legacy, &mut w),
            );
            (files, w)
        };
        let first = match encoding {
            TextEncoding::Fixed(e) => e,
            TextEncoding::Detect => encoding_rs::WINDOWS_1252,
        };
        let (mut read, mut entity_warnings) = read_entities(first);
        let mut legacy = first;
        if encoding == TextEncoding::Detect {
            let (p, t, c, s, e) = &read;
            let names: Vec<Vec<u8>> = p
                .iter()
                .filter_map(|(_, r)| r)
                .flat_map(|r| [&r.last, &r.first])
                .chain(
                    t.iter()
                        .filter_map(|(_, r)| r)
                        .flat_map(|r| [&r.title, &r.place]),
                )
                .chain(c.iter().filter_map(|(_, r)| r).map(|r| &r.name))
                .chain(
                    s.iter()
                        .filter_map(|(_, r)| r)
                        .flat_map(|r| [&r.title, &r.publisher]),
                )
                .chain(e.iter().filter_map(|(_, r)| r).map(|r| &r.title))
                .filter(|n| !n.is_ascii())
                .filter_map(|n| crate::text::windows_1252_bytes(n))
                .collect();
            // Where the names have no letters beyond ASCII, the annotation texts tell (a
            // Russian database with Latin names has its Cyrillic in its comments): runs of
            // text in the first MiB of the .cba. Names that have such letters decide alone,
            // as before.
            let cba_sample = cba
                .as_deref()
                .map_or(&[][..], |b| &b[..b.len().min(1 << 20)]);
            let texts = if names.is_empty() {
                crate::text::text_runs(cba_sample)
            } else {
                Vec::new()
            };
            legacy = crate::text::detect_code_page(names.iter().map(Vec::as_slice).chain(texts));
            if legacy != first {
                (read, entity_warnings) = read_entities(legacy);
            }
        }
        warnings.extend(entity_warnings);
        let (players, tournaments, annotators, sources, teams) = read;
        Ok(Database {
            players,
            tournaments,
            annotators,
            sources,
            teams,
            legacy,
            path,
            cbh,
            header,
            count,
            cbg,
            cba,
            cbj,
            files,
            warnings,
            limits: Limits::default(),
        })
    }

    /// The `.cbh` path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The `.cbh` header.
    pub fn cbh_header(&self) -> &CbhHeader {
        &self.header
    }

    /// Whether the database is of the old (CB6-era) generation: 36-byte `.cbh` header in use,
    /// 10-byte `.cbg` header.
    pub fn is_old_format(&self) -> bool {
        self.header.is_old()
            || self
                .cbg
                .as_deref()
                .and_then(|b| chess_core::bytes::be_u16(b, 0))
                .is_some_and(|h| h == 10)
    }

    /// The files found.
    pub fn files(&self) -> &[FilePresent] {
        &self.files
    }

    /// Problems with optional files, which were ignored.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Number of records (games and texts, deleted ones included).
    pub fn len(&self) -> u32 {
        self.count
    }

    /// Whether the database has no records.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The raw `.cbh` record `number` (1-based).
    pub fn record(&self, number: u32) -> Result<CbhRecord, Error> {
        if number == 0 || number > self.count {
            return Err(Error::NoSuchRecord {
                number,
                count: self.count,
            });
        }
        let o = number as usize * CBH_RECORD_SIZE;
        let b: &[u8; CBH_RECORD_SIZE] = self.cbh[o..o + CBH_RECORD_SIZE]
            .try_into()
            .expect("46 bytes");
        Ok(CbhRecord::parse(b))
    }

    fn teams_of(&self, number: u32) -> (Option<&Team>, Option<&Team>) {
        let Some((h, b)) = &self.cbj else {
            return (None, None);
        };
        if number > h.count {
            return (None, None);
        }
        let o = CBJ_HEADER_SIZE + (number as usize - 1) * h.record_size as usize;
        let Some(rec) = b.get(o..o + 8) else {
            return (None, None);
        };
        let t = CbjTeams::parse(rec.try_into().expect("8 bytes"));
        let team = |id: i32| u32::try_from(id).ok().and_then(|id| self.teams.get(id));
        (team(t.white), team(t.black))
    }

    /// Tournament `id`, or an empty one when absent or deleted.
    fn tournament(&self, id: u32) -> &Tournament {
        self.tournaments.get(id).unwrap_or(&DEFAULT_TOURNAMENT)
    }

    /// Annotator `id`, or an empty one when absent or deleted.
    fn annotator(&self, id: u32) -> &Annotator {
        self.annotators.get(id).unwrap_or(&DEFAULT_ANNOTATOR)
    }

    /// Source `id`, or an empty one when absent or deleted.
    fn source(&self, id: u32) -> &Source {
        self.sources.get(id).unwrap_or(&DEFAULT_SOURCE)
    }

    /// Record `number` (1-based) with its entities resolved.
    pub fn header(&self, number: u32) -> Result<Header<'_>, Error> {
        Ok(match self.record(number)? {
            CbhRecord::Game(record) => {
                let (white_team, black_team) = self.teams_of(number);
                Header::Game(GameHeader {
                    number,
                    record,
                    white: self.players.get(record.white).unwrap_or(&DEFAULT_PLAYER),
                    black: self.players.get(record.black).unwrap_or(&DEFAULT_PLAYER),
                    tournament: self.tournament(record.tournament),
                    annotator: self.annotator(record.annotator),
                    source: self.source(record.source),
                    white_team,
                    black_team,
                })
            }
            CbhRecord::Text(record) => Header::Text(TextHeader {
                number,
                record,
                tournament: self.tournament(record.tournament),
                annotator: self.annotator(record.annotator),
                source: self.source(record.source),
            }),
            CbhRecord::Unused(_) => Header::Unused(number),
        })
    }

    /// Every record's header, in record order.
    pub fn headers(&self) -> impl Iterator<Item = Header<'_>> + '_ {
        (1..=self.count).map(|n| self.header(n).expect("number in range"))
    }

    /// Counts of games, texts and deleted records (reads only `.cbh`).
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for n in 1..=self.count {
            let o = n as usize * CBH_RECORD_SIZE;
            let kind = self.cbh[o];
            if kind & crate::raw::KIND_USED == 0 {
                c.unused += 1;
                continue;
            }
            if kind & crate::raw::KIND_TEXT != 0 {
                c.texts += 1;
            } else {
                c.games += 1;
            }
            if kind & crate::raw::KIND_DELETED != 0 {
                c.deleted += 1;
            }
        }
        c
    }

    /// The stored size in bytes of record `number`'s game in `.cbg` (its head's length
    /// field), or 0 when the record is not a game or its head is outside the file. Cheap (the
    /// `.cbh` record and four `.cbg` bytes): bulk exports use it to bound the work in flight.
    pub fn game_size(&self, number: u32) -> u64 {
        self.game_span(number).map_or(0, |(_, len)| u64::from(len))
    }

    /// Where game `number`'s record lies in the `.cbg`: its offset and its stored length
    /// (`None` for records that are not games or whose head is outside the file).
    pub fn game_span(&self, number: u32) -> Option<(u32, u32)> {
        let (cbg, rec) = self.game_record(number).ok()?;
        let at = rec.cbg_offset as usize;
        let head = <[u8; 4]>::try_from(cbg.get(at..at.saturating_add(4))?).ok()?;
        Some((rec.cbg_offset, crate::raw::CbgHead::parse(head).length))
    }

    /// The game records among `range` whose stored game overlaps that of a lower-numbered
    /// record of the range, each with that record: in a real database there are none
    /// (ChessBase stores each game once). `O(n log n)` time and 12 bytes per record.
    pub fn shared_games(
        &self,
        range: std::ops::RangeInclusive<u32>,
    ) -> std::collections::HashMap<u32, u32> {
        let (lo, hi) = (*range.start(), (*range.end()).min(self.count));
        let mut spans: Vec<(u32, u32, u32)> = (lo.max(1)..=hi)
            .filter_map(|n| self.game_span(n).map(|(at, len)| (at, len.max(1), n)))
            .collect();
        spans.sort_unstable();
        let mut shared = std::collections::HashMap::new();
        let mut i = 0;
        while i < spans.len() {
            // A group: records whose spans overlap, directly or through each other.
            let mut end = u64::from(spans[i].0) + u64::from(spans[i].1);
            let mut j = i + 1;
            while j < spans.len() && u64::from(spans[j].0) < end {
                end = end.max(u64::from(spans[j].0) + u64::from(spans[j].1));
                j += 1;
            }
            if j - i > 1 {
                let first = spans[i..j].iter().map(|s| s.2).min().unwrap_or(0);
                shared.extend(
                    spans[i..j]
                        .iter()
                        .filter(|s| s.2 != first)
                        .map(|s| (s.2, first)),
                );
            }
            i = j;
        }
        shared
    }

    /// Where game `number`'s annotation record is in the `.cba` (`None` for games without
    /// one and records that are not games).
    pub fn game_annotation_offset(&self, number: u32) -> Option<u32> {
        let (_, rec) = self.game_record(number).ok()?;
        (rec.cba_offset != 0).then_some(rec.cba_offset)
    }

    /// The `.cbg` bytes and the game record of game `number`.
    fn game_record(&self, number: u32) -> Result<(&[u8], GameRecord), Error> {
        let record = match self.record(number)? {
            CbhRecord::Game(g) => g,
            CbhRecord::Text(t) => {
                return Err(GameError {
                    game: number,
                    file: "cbg",
                    offset: u64::from(t.cbg_offset),
                    kind: GameErrorKind::Text,
                }
                .into());
            }
            CbhRecord::Unused(_) => {
                return Err(GameError {
                    game: number,
                    file: "cbh",
                    offset: number as u64 * CBH_RECORD_SIZE as u64,
                    kind: GameErrorKind::BadRecord(crate::error::RecordProblem::NotInUse),
                }
                .into());
            }
        };
        let cbg = self.cbg.as_deref().ok_or_else(|| Error::Missing {
            path: self.path.with_extension("cbg"),
        })?;
        Ok((cbg, record))
    }

    /// The database under `limits` (the default is [`Limits::default`]): its
    /// `variation_depth` for decoding games, its `bytes_in_flight` for parallel exports.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The code page the database's texts that are not UTF-8 are decoded with (given, or
    /// guessed when it was opened: see [`TextEncoding`]).
    pub fn code_page(&self) -> &'static encoding_rs::Encoding {
        self.legacy
    }

    /// The limits the database is read under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Game `number` (1-based): moves, variations and annotations.
    pub fn game(&self, number: u32) -> Result<Game, Error> {
        self.game_with(number, true)
    }

    /// Game `number`, with or without its annotations.
    pub fn game_with(&self, number: u32, annotations: bool) -> Result<Game, Error> {
        let (cbg, record) = self.game_record(number)?;
        let mut game = decode_game_with(cbg, record.cbg_offset, number, &self.limits)?;
        if annotations
            && record.cba_offset != 0
            && let Some(cba) = self.cba.as_deref()
        {
            match parse_record_named(cba, record.cba_offset, self.legacy) {
                Ok((named, items)) => {
                    game.attach(items);
                    if named != number {
                        // Attached all the same (the record is the one the game points to),
                        // and reported.
                        game.annotation_error = Some(GameError {
                            game: number,
                            file: "cba",
                            offset: u64::from(record.cba_offset),
                            kind: GameErrorKind::ForeignAnnotations(named),
                        });
                    }
                }
                Err(e) => {
                    game.annotation_error = Some(GameError {
                        game: number,
                        file: "cba",
                        offset: e.offset,
                        kind: GameErrorKind::BadAnnotations(e),
                    });
                }
            }
        }
        Ok(game)
    }

    /// Game `number` opened for reading its moves one at a time, without a tree, when it has
    /// no variation and (with `annotations`) no annotation record; `Ok(None)` otherwise (read
    /// it with [`Database::game_with`]). What `cbh show` and the export use for long games:
    /// memory does not grow with the game's length (issue 30, F6).
    pub fn plain_game(
        &self,
        number: u32,
        annotations: bool,
    ) -> Result<Option<crate::game::PlainGame<'_>>, Error> {
        let (cbg, record) = self.game_record(number)?;
        if annotations && record.cba_offset != 0 && self.cba.is_some() {
            return Ok(None);
        }
        Ok(crate::game::plain_game(cbg, record.cbg_offset, number)?)
    }

    /// Game `number` as a [`PlainLine`](crate::game::PlainLine), its moves handed to the
    /// sink made by `sink` (see [`crate::game::decode_plain`]), when it has no variation and
    /// (with `annotations`) no annotation record; `Ok(None)` otherwise.
    pub(crate) fn plain_game_into<P: FnMut((Option<shakmaty::Move>, u8))>(
        &self,
        number: u32,
        annotations: bool,
        sink: impl FnOnce(&crate::game::Start) -> P,
    ) -> Result<Option<crate::game::PlainLine>, Error> {
        let (cbg, record) = self.game_record(number)?;
        if annotations && record.cba_offset != 0 && self.cba.is_some() {
            return Ok(None);
        }
        Ok(crate::game::decode_plain(
            cbg,
            record.cbg_offset,
            number,
            sink,
        )?)
    }

    /// The main line of game `number`, replayed (variations and annotations are not read).
    pub fn main_line(&self, number: u32) -> Result<MainLine, Error> {
        let (cbg, record) = self.game_record(number)?;
        Ok(decode_main_line(cbg, record.cbg_offset, number)?)
    }
}
