//! Writing a new database: [`DatabaseWriter`] collects games with their headers and gives
//! the files of a complete database ([`Files`]), which [`write_database`] commits to disk as
//! one set.
//!
//! What is written (decided from the description and the corpus's databases, see
//! the chessfmt format notes):
//!
//! * `.cbh` (header and one record per game), `.cbg` and `.cba` (26-byte headers holding the
//!   file length, then the game and annotation records), and the entity files `.cbp .cbt
//!   .cbc .cbs` (players, tournaments, annotators, sources): the set a database made by
//!   ChessBase's own "new database" has at minimum (the corpus's `fob`);
//! * `.cbe` and `.cbj` only when a game names a team (`.cbj` in its eight-byte version 1
//!   layout, which holds the teams and nothing else);
//! * not the files ChessBase rebuilds by itself when they are missing: search boosters
//!   (`.cbb`, `.cbgi`), key files (`.cbk*`), `.cbm`, `.cbtt`, `.ini`, `.cit`/`.cib`.
//!
//! Entity records are numbered in order of first use and linked as an AVL tree sorted by
//! their stored bytes (names first), as ChessBase sorts them (byte order: `CHN` before
//! `Calgary`, as in TWIC's files); each keeps how many games refer to it and the first.
//! Every game, even one without an annotator or source, refers to a record (an empty name),
//! as ChessBase's databases do. Texts are written in the writer's code page
//! ([`DatabaseWriter::with_code_page`], Windows-1252 by default), UTF-8 where the code page
//! cannot hold them.
//!
//! The writer keeps the database in memory until [`DatabaseWriter::finish`]; appending to an
//! existing database is not offered yet.

use std::collections::HashMap;

use encoding_rs::Encoding;

use crate::db::Files;
use crate::encode::{EncodeProblem, EncodedGame, cba_record, encode_game};
use crate::game::Game;
use crate::header::{GameHeader, Outcome};
use crate::raw::{
    Annotator, CBH_RECORD_SIZE, CBJ_HEADER_SIZE, CbhHeader, CbjHeader, CbjTeams,
    ENTITY_HEADER_SIZE, EntityData, EntityHeader, EntityNode, GameRecord, KIND_USED, NODE_SIZE,
    Player, Source, Team, Tournament,
};
use crate::text::Date;

/// Magic number of entity file headers.
const ENTITY_MAGIC: u32 = 1_234_567_890;
/// Size of the `.cbg`/`.cba` file headers.
const RECORDS_HEADER_SIZE: usize = 26;
/// Largest record number a 24-bit reference can hold.
const MAX_ID: u32 = (1 << 24) - 2;

/// The header of a game to write: what the `.cbh` record and the entity files hold.
///
/// Entities are given whole; records that are equal in every stored byte (counts aside) are
/// stored once. `games` and `first_game` of the entities are ignored (the writer counts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewHeader {
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// The tournament (title, place, date, kind, nation, category, rounds …).
    pub tournament: Tournament,
    /// The annotator.
    pub annotator: Annotator,
    /// The source.
    pub source: Source,
    /// White's team.
    pub white_team: Option<Team>,
    /// Black's team.
    pub black_team: Option<Team>,
    /// The date played.
    pub date: Date,
    /// The result.
    pub result: Option<Outcome>,
    /// The evaluation NAG of a line (with [`Outcome::Line`]).
    pub line_eval: u8,
    /// Round (0 = not set).
    pub round: u8,
    /// Subround (0 = not set).
    pub subround: u8,
    /// White's Elo (0 = none).
    pub white_elo: u16,
    /// Black's Elo (0 = none).
    pub black_elo: u16,
    /// The stored ECO value (see [`crate::Eco`]); Chess960 games get their start position
    /// here when this is 0.
    pub eco: u16,
    /// Medal bits.
    pub medals: u16,
}

impl NewHeader {
    /// The header of a game read from a database, for copying it into another.
    pub fn from_header(h: &GameHeader<'_>) -> NewHeader {
        NewHeader {
            white: h.white.clone(),
            black: h.black.clone(),
            tournament: h.tournament.clone(),
            annotator: h.annotator.clone(),
            source: h.source.clone(),
            white_team: h.white_team.cloned(),
            black_team: h.black_team.cloned(),
            date: h.date(),
            result: Some(h.outcome()),
            line_eval: h.record.line_eval,
            round: h.record.round,
            subround: h.record.subround,
            white_elo: h.record.white_elo,
            black_elo: h.record.black_elo,
            eco: h.record.eco,
            medals: h.record.medals,
        }
    }
}

/// Why a game could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AddError {
    /// The game cannot be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeProblem),
    /// The database is full: a file would pass 4 GiB, or a record number 16 million.
    #[error("the database is full: {0}")]
    Full(&'static str),
}

/// One entity file being built: records as stored bytes (data only), deduplicated.
#[derive(Debug)]
struct Entities<T> {
    /// Data bytes of each record, `T::DATA_SIZE` apiece; the last 8 are the counts.
    data: Vec<u8>,
    /// Keyed by the record's bytes; foldhash, not SipHash: a PGN import interns four to six
    /// names per game (the writer runs on one thread while games are read on the others).
    index: HashMap<Box<[u8]>, u32, foldhash::fast::RandomState>,
    _kind: std::marker::PhantomData<T>,
}

impl<T: EntityData> Entities<T> {
    fn new() -> Self {
        Entities {
            data: Vec::new(),
            index: HashMap::default(),
            _kind: std::marker::PhantomData,
        }
    }

    fn len(&self) -> usize {
        self.data.len() / T::DATA_SIZE
    }

    /// The id of `v` (added on first use), counting game `game` as referring to it.
    fn intern(&mut self, v: &T, game: u32, code_page: &'static Encoding) -> Result<u32, AddError> {
        let n = T::DATA_SIZE;
        let mut bytes = vec![0u8; n];
        v.write(&mut bytes, code_page);
        let key: Box<[u8]> = bytes[..n - 8].into();
        let id = match self.index.get(&key) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(self.len())
                    .ok()
                    .filter(|&id| id <= MAX_ID)
                    .ok_or(AddError::Full("16 million entities of one kind"))?;
                bytes[n - 8..].fill(0);
                bytes[n - 4..].copy_from_slice(&game.to_le_bytes());
                self.data.extend_from_slice(&bytes);
                self.index.insert(key, id);
                id
            }
        };
        let at = id as usize * n + n - 8;
        let games = u32::from_le_bytes(self.data[at..at + 4].try_into().expect("4 bytes"));
        self.data[at..at + 4].copy_from_slice(&games.saturating_add(1).to_le_bytes());
        Ok(id)
    }

    /// The file: header, then each record's AVL node and data.
    fn to_bytes(&self) -> Vec<u8> {
        let n = T::DATA_SIZE;
        let count = self.len();
        let key = |i: usize| &self.data[i * n..i * n + n - 8];
        let mut sorted: Vec<usize> = (0..count).collect();
        sorted.sort_by(|&a, &b| key(a).cmp(key(b)));
        let mut nodes = vec![
            EntityNode {
                left: -1,
                right: -1,
                balance: 0
            };
            count
        ];
        let root = balanced(&sorted, &mut nodes).0;
        let header = EntityHeader {
            count: count as u32,
            root,
            magic: ENTITY_MAGIC,
            data_size: n as u32,
            first_deleted: -1,
            live: count as u32,
            extra: 4,
        };
        let mut out = Vec::with_capacity(ENTITY_HEADER_SIZE + 4 + count * (NODE_SIZE + n));
        out.extend_from_slice(&header.to_bytes());
        out.extend_from_slice(&[0; 4]);
        for (i, node) in nodes.iter().enumerate() {
            out.extend_from_slice(&node.to_bytes());
            out.extend_from_slice(&self.data[i * n..(i + 1) * n]);
        }
        out
    }
}

/// Links `sorted` (record numbers in key order) as a balanced binary tree: returns the root
/// (−1 when empty) and the height. Every node's subtrees differ in height by at most one,
/// so it is an AVL tree; the depth is log2 of the count (no deep recursion).
fn balanced(sorted: &[usize], nodes: &mut [EntityNode]) -> (i32, i32) {
    if sorted.is_empty() {
        return (-1, 0);
    }
    let mid = sorted.len() / 2;
    let (left, lh) = balanced(&sorted[..mid], nodes);
    let (right, rh) = balanced(&sorted[mid + 1..], nodes);
    nodes[sorted[mid]] = EntityNode {
        left,
        right,
        balance: (rh - lh) as i8,
    };
    (sorted[mid] as i32, 1 + lh.max(rh))
}

/// A `.cbg`/`.cba` file: the 26-byte header (its length at bytes 2 and 14), then records.
fn records_file() -> Vec<u8> {
    vec![0; RECORDS_HEADER_SIZE]
}

fn finish_records_file(mut v: Vec<u8>) -> Vec<u8> {
    let len = (v.len() as u32).to_be_bytes();
    v[..2].copy_from_slice(&(RECORDS_HEADER_SIZE as u16).to_be_bytes());
    v[2..6].copy_from_slice(&len);
    v[14..18].copy_from_slice(&len);
    v
}

/// Builds a new database in memory, game by game (see the [module notes](self)).
///
/// ```
/// use chessbase_db::{Database, writer::{DatabaseWriter, NewHeader}};
/// use chessbase_db::game::{Game, MoveTree, Start};
/// use shakmaty::{Chess, Position, san::San};
///
/// // 1. e4 e5 between two named players.
/// let mut tree = MoveTree::new();
/// let mut pos = Chess::default();
/// let mut at = MoveTree::ROOT;
/// for san in ["e4", "e5"] {
///     let m = san.parse::<San>()?.to_move(&pos)?;
///     pos.play_unchecked(m);
///     at = tree.add(at, Some(m));
/// }
/// let game = Game::new(Start::default(), tree);
/// let mut header = NewHeader::default();
/// header.white.last = "Anand".into();
/// header.black.last = "Carlsen".into();
///
/// let mut writer = DatabaseWriter::new();
/// writer.add_game(&header, &game)?;
/// let db = Database::from_files(writer.finish())?;
/// assert_eq!(db.len(), 1);
/// let chessbase_db::Header::Game(h) = db.header(1)? else { unreachable!() };
/// assert_eq!(h.white.last, "Anand");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DatabaseWriter {
    code_page: &'static Encoding,
    cbh: Vec<u8>,
    cbg: Vec<u8>,
    cba: Vec<u8>,
    games: u32,
    players: Entities<Player>,
    tournaments: Entities<Tournament>,
    annotators: Entities<Annotator>,
    sources: Entities<Source>,
    teams: Entities<Team>,
    cbj: Vec<CbjTeams>,
}

impl Default for DatabaseWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl DatabaseWriter {
    /// An empty database, texts in Windows-1252.
    pub fn new() -> Self {
        Self::with_code_page(encoding_rs::WINDOWS_1252)
    }

    /// An empty database whose texts are written in `code_page` (a Windows code page such as
    /// `encoding_rs::WINDOWS_1251`; UTF-8 where it cannot hold a text).
    pub fn with_code_page(code_page: &'static Encoding) -> Self {
        DatabaseWriter {
            code_page,
            cbh: vec![0; CBH_RECORD_SIZE],
            cbg: records_file(),
            cba: records_file(),
            games: 0,
            players: Entities::new(),
            tournaments: Entities::new(),
            annotators: Entities::new(),
            sources: Entities::new(),
            teams: Entities::new(),
            cbj: Vec::new(),
        }
    }

    /// The code page texts are written in.
    pub fn code_page(&self) -> &'static Encoding {
        self.code_page
    }

    /// Games added so far.
    pub fn len(&self) -> u32 {
        self.games
    }

    /// Whether no game was added.
    pub fn is_empty(&self) -> bool {
        self.games == 0
    }

    /// The texts of `header` that their fields cannot hold whole in this writer's code page,
    /// as (field, size in bytes): adding the game cuts each to its field. For reporting what
    /// an import changed (nothing is cut silently).
    pub fn cut_fields(&self, header: &NewHeader) -> Vec<(&'static str, usize)> {
        use crate::raw::{
            ANNOTATOR_NAME, PLAYER_FIRST, PLAYER_LAST, SOURCE_PUBLISHER, SOURCE_TITLE, TEAM_TITLE,
            TOURNAMENT_PLACE, TOURNAMENT_TITLE,
        };
        let mut fields: Vec<(&'static str, usize, &str)> = vec![
            ("White last name", PLAYER_LAST, &header.white.last),
            ("White first name", PLAYER_FIRST, &header.white.first),
            ("Black last name", PLAYER_LAST, &header.black.last),
            ("Black first name", PLAYER_FIRST, &header.black.first),
            ("Event", TOURNAMENT_TITLE, &header.tournament.title),
            ("Site", TOURNAMENT_PLACE, &header.tournament.place),
            ("Annotator", ANNOTATOR_NAME, &header.annotator.name),
            ("Source", SOURCE_TITLE, &header.source.title),
            (
                "Source publisher",
                SOURCE_PUBLISHER,
                &header.source.publisher,
            ),
        ];
        if let Some(t) = &header.white_team {
            fields.push(("WhiteTeam", TEAM_TITLE, &t.title));
        }
        if let Some(t) = &header.black_team {
            fields.push(("BlackTeam", TEAM_TITLE, &t.title));
        }
        fields
            .into_iter()
            .filter(|&(_, size, text)| {
                text.len() > size && crate::text::encode_text(text, self.code_page).len() > size
            })
            .map(|(field, size, _)| (field, size))
            .collect()
    }

    /// Encodes and adds a game; returns its record number (1-based). A game that cannot be
    /// encoded is not added (the database is unchanged).
    pub fn add_game(&mut self, header: &NewHeader, game: &Game) -> Result<u32, AddError> {
        let encoded = encode_game(game, self.code_page)?;
        self.add_encoded(header, &encoded)
    }

    /// Adds a game encoded beforehand with [`encode_game`] in this writer's code page (games
    /// can be encoded on several threads, then added in order).
    pub fn add_encoded(&mut self, header: &NewHeader, game: &EncodedGame) -> Result<u32, AddError> {
        let number = self
            .games
            .checked_add(1)
            .filter(|&n| n <= MAX_ID)
            .ok_or(AddError::Full("16 million games"))?;
        let cba_record = (game.items > 0).then(|| cba_record(number, game));
        let cbg_offset = u32::try_from(self.cbg.len())
            .ok()
            .filter(|o| o.checked_add(game.cbg.len() as u32).is_some())
            .ok_or(AddError::Full(".cbg over 4 GiB"))?;
        let cba_offset = match &cba_record {
            Some(r) => u32::try_from(self.cba.len())
                .ok()
                .filter(|o| o.checked_add(r.len() as u32).is_some())
                .ok_or(AddError::Full(".cba over 4 GiB"))?,
            None => 0,
        };
        let cp = self.code_page;
        let mut team = |t: &Option<Team>| -> Result<i32, AddError> {
            t.as_ref()
                .map_or(Ok(-1), |t| Ok(self.teams.intern(t, number, cp)? as i32))
        };
        let teams = CbjTeams {
            white: team(&header.white_team)?,
            black: team(&header.black_team)?,
        };
        let (white, black, tournament, annotator, source) = (
            self.players.intern(&header.white, number, cp)?,
            self.players.intern(&header.black, number, cp)?,
            self.tournaments.intern(&header.tournament, number, cp)?,
            self.annotators.intern(&header.annotator, number, cp)?,
            self.sources.intern(&header.source, number, cp)?,
        );
        let eco = match (header.eco, game.chess960) {
            (0, Some(n)) => 64576 + n,
            (e, _) => e,
        };
        let record = GameRecord {
            kind: KIND_USED,
            cbg_offset,
            cba_offset,
            white,
            black,
            tournament,
            annotator,
            source,
            date: header.date.to_bits(),
            result: header.result.unwrap_or(Outcome::Line).code(),
            line_eval: header.line_eval,
            round: header.round,
            subround: header.subround,
            white_elo: header.white_elo,
            black_elo: header.black_elo,
            eco,
            medals: header.medals,
            flags: game.flags,
            magnitudes: game.magnitudes,
            moves: game.moves,
        };
        self.cbh.extend_from_slice(&record.to_bytes());
        self.cbg.extend_from_slice(&game.cbg);
        if let Some(r) = cba_record {
            self.cba.extend_from_slice(&r);
        }
        self.cbj.push(teams);
        self.games = number;
        Ok(number)
    }

    /// The database's files.
    pub fn finish(mut self) -> Files {
        let header = CbhHeader {
            used: 44,
            record_size: CBH_RECORD_SIZE as u16,
            version: 1,
            next_game: self.games + 1,
            next_sound: 0,
            next_picture: 0,
            next_video: 0,
            next_game_again: self.games + 1,
        };
        self.cbh[..CBH_RECORD_SIZE].copy_from_slice(&header.to_bytes());
        let any_team = self.cbj.iter().any(|t| t.white >= 0 || t.black >= 0);
        let cbj = any_team.then(|| {
            let mut v = CbjHeader {
                version: 1,
                record_size: 8,
                count: self.games,
            }
            .to_bytes()
            .to_vec();
            debug_assert_eq!(v.len(), CBJ_HEADER_SIZE);
            for t in &self.cbj {
                v.extend_from_slice(&t.to_bytes());
            }
            v
        });
        Files {
            cbh: self.cbh,
            cbg: Some(finish_records_file(self.cbg)),
            cba: Some(finish_records_file(self.cba)),
            cbj,
            cbp: Some(self.players.to_bytes()),
            cbt: Some(self.tournaments.to_bytes()),
            cbc: Some(self.annotators.to_bytes()),
            cbs: Some(self.sources.to_bytes()),
            cbe: any_team.then(|| self.teams.to_bytes()),
        }
    }
}

/// The files of a database with their extensions, those present.
pub fn file_list(files: &Files) -> Vec<(&'static str, &[u8])> {
    let mut v: Vec<(&'static str, &[u8])> = vec![("cbh", &files.cbh)];
    for (ext, f) in [
        ("cbg", &files.cbg),
        ("cba", &files.cba),
        ("cbp", &files.cbp),
        ("cbt", &files.cbt),
        ("cbc", &files.cbc),
        ("cbs", &files.cbs),
        ("cbe", &files.cbe),
        ("cbj", &files.cbj),
    ] {
        if let Some(f) = f {
            v.push((ext, f));
        }
    }
    v
}

/// Extensions of the files a ChessBase database may have beside its `.cbh`: when a
/// database is replaced, those of the old one that the new one does not have are removed
/// in the same commit (an old search booster or key file would describe other games).
pub const DATABASE_EXTENSIONS: &[&str] = &[
    "cbh", "cbg", "cba", "cbp", "cbt", "cbc", "cbs", "cbe", "cbj", "cbm", "cbtt", "cbl", "cbb",
    "cbgi", "cbv", "cbz", "cbk", "cbk1", "cbk2", "cbk3", "cbk4", "cbk5", "cbk6", "cbk7", "cbkt",
    "cbm2", "cbtl", "ck2", "cib", "cib2", "cit", "cit2", "cpo", "cko", "ckw", "ini", "flags",
];

/// Writes a database's files beside `cbh_path` (whose extension is replaced) as one set:
/// every file is written to a temporary file, then all are renamed through a journal
/// ([`chessfmt_files::atomic::FileSet`]), so a crash leaves the old database or the new one.
/// Refuses, before writing anything, when any of the files exists and `overwrite` is false;
/// when it replaces a database, the old one's other files are removed in the same commit.
#[cfg(feature = "std")]
pub fn write_database(
    cbh_path: &std::path::Path,
    files: &Files,
    overwrite: bool,
) -> std::io::Result<()> {
    use chessfmt_files::atomic::{FileSet, refuse_existing};
    let list = file_list(files);
    let path = |ext: &str| cbh_path.with_extension(ext);
    if !overwrite {
        for (ext, _) in &list {
            refuse_existing(&path(ext))?;
        }
    }
    let mut set = FileSet::new(cbh_path)?;
    for (ext, bytes) in &list {
        set.stage(&path(ext), |w| w.write_all(bytes))?;
    }
    if overwrite {
        for ext in DATABASE_EXTENSIONS {
            if list.iter().all(|(e, _)| e != ext)
                && let Some(old) = chessfmt_files::find_any_case(&path(ext))
            {
                set.remove(&old)?;
            }
        }
    }
    set.commit()
}
