//! On-disk records, field for field.
//!
//! Every fixed-size record has `parse` (from exactly its bytes, never failing: each field of a
//! fixed layout is just bits) and `to_bytes` (the inverse), so a writer can be added without
//! reshaping these types. Unknown bytes that real files leave non-zero are kept.
//!
//! Byte order: `.cbh`, `.cbg`, `.cba` and `.cbj` records are big-endian; entity files and the
//! `.cbj` header are little-endian.

use crate::text::{Date, decode_field};

fn be16(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}
fn be24(b: &[u8], o: usize) -> u32 {
    u32::from(b[o]) << 16 | u32::from(b[o + 1]) << 8 | u32::from(b[o + 2])
}
fn be32(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn le32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn put16(b: &mut [u8], o: usize, v: u16) {
    b[o..o + 2].copy_from_slice(&v.to_be_bytes());
}
fn put24(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 3].copy_from_slice(&v.to_be_bytes()[1..]);
}
fn put32(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_be_bytes());
}
fn putle32(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

/// Size of the `.cbh` header and of each of its records.
pub const CBH_RECORD_SIZE: usize = 46;

/// The 46-byte header of a `.cbh` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbhHeader {
    /// Bytes of the header in use: 44 (current) or 36 (CB6-era databases).
    pub used: u16,
    /// Record size, 46.
    pub record_size: u16,
    /// Format version byte, 1.
    pub version: u8,
    /// Id of the next game to be added (record count + 1).
    pub next_game: u32,
    /// Id of the next embedded sound.
    pub next_sound: u32,
    /// Id of the next embedded picture.
    pub next_picture: u32,
    /// Id of the next embedded video.
    pub next_video: u32,
    /// The next game id again (0 in old databases).
    pub next_game_again: u32,
}

impl CbhHeader {
    /// Reads the header fields.
    pub fn parse(b: &[u8; CBH_RECORD_SIZE]) -> Self {
        CbhHeader {
            used: be16(b, 1),
            record_size: be16(b, 3),
            version: b[5],
            next_game: be32(b, 6),
            next_sound: be32(b, 12),
            next_picture: be32(b, 16),
            next_video: be32(b, 20),
            next_game_again: be32(b, 40),
        }
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; CBH_RECORD_SIZE] {
        let mut b = [0; CBH_RECORD_SIZE];
        put16(&mut b, 1, self.used);
        put16(&mut b, 3, self.record_size);
        b[5] = self.version;
        put32(&mut b, 6, self.next_game);
        put32(&mut b, 12, self.next_sound);
        put32(&mut b, 16, self.next_picture);
        put32(&mut b, 20, self.next_video);
        put32(&mut b, 40, self.next_game_again);
        b
    }

    /// Whether this is a CB6-era database (header signature `00 00 24`).
    pub fn is_old(&self) -> bool {
        self.used == 36
    }
}

/// Bit 0 of the kind byte: set in every record in use.
pub const KIND_USED: u8 = 0x01;
/// Bit 1 of the kind byte: the record is a guiding text.
pub const KIND_TEXT: u8 = 0x02;
/// Bit 7 of the kind byte: the record is marked deleted.
pub const KIND_DELETED: u8 = 0x80;

/// A `.cbh` record describing a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameRecord {
    /// The kind byte (bit 0 set, bit 7 = deleted).
    pub kind: u8,
    /// Absolute offset of the game in `.cbg`.
    pub cbg_offset: u32,
    /// Absolute offset of its annotations in `.cba`, 0 when it has none.
    pub cba_offset: u32,
    /// White player (`.cbp` record number).
    pub white: u32,
    /// Black player (`.cbp` record number).
    pub black: u32,
    /// Tournament (`.cbt` record number).
    pub tournament: u32,
    /// Annotator (`.cbc` record number).
    pub annotator: u32,
    /// Source (`.cbs` record number).
    pub source: u32,
    /// The date played, packed (see [`Date`]).
    pub date: u32,
    /// Result code 0–7 (see [`crate::Outcome`]).
    pub result: u8,
    /// Evaluation NAG of a line (result code 3), else 0.
    pub line_eval: u8,
    /// Round, 0 when not set.
    pub round: u8,
    /// Subround, 0 when not set.
    pub subround: u8,
    /// White's Elo, 0 when none.
    pub white_elo: u16,
    /// Black's Elo, 0 when none.
    pub black_elo: u16,
    /// ECO code (`value / 128 − 1` = A00…E99 numbered from 0, `value % 128` = sub-code), or
    /// a Chess960 start position `64576 + n`.
    pub eco: u16,
    /// Medal bits.
    pub medals: u16,
    /// Content flags (set-up position, variations, commentary, symbols, squares, arrows, …).
    pub flags: u32,
    /// Annotation magnitude bits.
    pub magnitudes: u16,
    /// Moves (full moves, not plies) in the main line (255 = 255 or more).
    pub moves: u8,
}

impl GameRecord {
    /// Reads a game record.
    pub fn parse(b: &[u8; CBH_RECORD_SIZE]) -> Self {
        GameRecord {
            kind: b[0],
            cbg_offset: be32(b, 1),
            cba_offset: be32(b, 5),
            white: be24(b, 9),
            black: be24(b, 12),
            tournament: be24(b, 15),
            annotator: be24(b, 18),
            source: be24(b, 21),
            date: be24(b, 24),
            result: b[27],
            line_eval: b[28],
            round: b[29],
            subround: b[30],
            white_elo: be16(b, 31),
            black_elo: be16(b, 33),
            eco: be16(b, 35),
            medals: be16(b, 37),
            flags: be32(b, 39),
            magnitudes: be16(b, 43),
            moves: b[45],
        }
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; CBH_RECORD_SIZE] {
        let mut b = [0; CBH_RECORD_SIZE];
        b[0] = self.kind;
        put32(&mut b, 1, self.cbg_offset);
        put32(&mut b, 5, self.cba_offset);
        put24(&mut b, 9, self.white);
        put24(&mut b, 12, self.black);
        put24(&mut b, 15, self.tournament);
        put24(&mut b, 18, self.annotator);
        put24(&mut b, 21, self.source);
        put24(&mut b, 24, self.date);
        b[27] = self.result;
        b[28] = self.line_eval;
        b[29] = self.round;
        b[30] = self.subround;
        put16(&mut b, 31, self.white_elo);
        put16(&mut b, 33, self.black_elo);
        put16(&mut b, 35, self.eco);
        put16(&mut b, 37, self.medals);
        put32(&mut b, 39, self.flags);
        put16(&mut b, 43, self.magnitudes);
        b[45] = self.moves;
        b
    }
}

/// A `.cbh` record describing a guiding text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextRecord {
    /// The kind byte (bits 0 and 1 set, bit 7 = deleted).
    pub kind: u8,
    /// Absolute offset of the text in `.cbg`.
    pub cbg_offset: u32,
    /// Bytes 5–6, unknown (0).
    pub unknown: [u8; 2],
    /// Tournament (`.cbt` record number).
    pub tournament: u32,
    /// Source (`.cbs` record number).
    pub source: u32,
    /// Annotator, the author (`.cbc` record number).
    pub annotator: u32,
    /// Round, 0 when not set.
    pub round: u8,
    /// Subround, 0 when not set.
    pub subround: u8,
    /// Flags (embedded audio, picture, video).
    pub flags: u32,
    /// Bytes 22–45, unknown (0).
    pub tail: [u8; 24],
}

impl TextRecord {
    /// Reads a text record.
    pub fn parse(b: &[u8; CBH_RECORD_SIZE]) -> Self {
        TextRecord {
            kind: b[0],
            cbg_offset: be32(b, 1),
            unknown: [b[5], b[6]],
            tournament: be24(b, 7),
            source: be24(b, 10),
            annotator: be24(b, 13),
            round: b[16],
            subround: b[17],
            flags: be32(b, 18),
            tail: b[22..46].try_into().expect("24 bytes"),
        }
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; CBH_RECORD_SIZE] {
        let mut b = [0; CBH_RECORD_SIZE];
        b[0] = self.kind;
        put32(&mut b, 1, self.cbg_offset);
        b[5..7].copy_from_slice(&self.unknown);
        put24(&mut b, 7, self.tournament);
        put24(&mut b, 10, self.source);
        put24(&mut b, 13, self.annotator);
        b[16] = self.round;
        b[17] = self.subround;
        put32(&mut b, 18, self.flags);
        b[22..46].copy_from_slice(&self.tail);
        b
    }
}

/// One `.cbh` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CbhRecord {
    /// A game.
    Game(GameRecord),
    /// A guiding text.
    Text(TextRecord),
    /// A record not in use (kind bit 0 clear).
    Unused([u8; CBH_RECORD_SIZE]),
}

impl CbhRecord {
    /// Reads a record, choosing its kind from byte 0.
    pub fn parse(b: &[u8; CBH_RECORD_SIZE]) -> Self {
        if b[0] & KIND_USED == 0 {
            CbhRecord::Unused(*b)
        } else if b[0] & KIND_TEXT != 0 {
            CbhRecord::Text(TextRecord::parse(b))
        } else {
            CbhRecord::Game(GameRecord::parse(b))
        }
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; CBH_RECORD_SIZE] {
        match self {
            CbhRecord::Game(g) => g.to_bytes(),
            CbhRecord::Text(t) => t.to_bytes(),
            CbhRecord::Unused(b) => *b,
        }
    }

    /// Whether the record is marked deleted.
    pub fn is_deleted(&self) -> bool {
        match self {
            CbhRecord::Game(g) => g.kind & KIND_DELETED != 0,
            CbhRecord::Text(t) => t.kind & KIND_DELETED != 0,
            CbhRecord::Unused(_) => false,
        }
    }

    /// The record's offset in `.cbg`.
    pub fn cbg_offset(&self) -> Option<u32> {
        match self {
            CbhRecord::Game(g) => Some(g.cbg_offset),
            CbhRecord::Text(t) => Some(t.cbg_offset),
            CbhRecord::Unused(_) => None,
        }
    }
}

/// The head of a `.cbg` game record: flags byte and 24-bit length (including the head).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbgHead {
    /// The flags byte: bits 0–5 encoding mode, bit 6 set-up position, bit 7 guiding text.
    pub flags: u8,
    /// Length of the record including these 4 bytes.
    pub length: u32,
}

impl CbgHead {
    /// Reads the head.
    pub fn parse(b: [u8; 4]) -> Self {
        CbgHead {
            flags: b[0],
            length: be24(&b, 1),
        }
    }

    /// The head's bytes.
    pub fn to_bytes(&self) -> [u8; 4] {
        let mut b = [0; 4];
        b[0] = self.flags;
        put24(&mut b, 1, self.length);
        b
    }

    /// The encoding mode (bits 0–5).
    pub fn mode(&self) -> u8 {
        self.flags & 0x3f
    }

    /// Whether a set-up position follows the head.
    pub fn has_setup(&self) -> bool {
        self.flags & 0x40 != 0
    }

    /// Whether the record is a guiding text.
    pub fn is_text(&self) -> bool {
        self.flags & 0x80 != 0
    }
}

/// Size of a set-up position in `.cbg`.
pub const SETUP_SIZE: usize = 28;
/// Size of the Chess960 block that follows the set-up position in modes 10 and 11.
pub const CHESS960_SIZE: usize = 8;

/// The 28-byte set-up position of a `.cbg` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawSetup {
    /// Byte 0, 1 in every known file.
    pub marker: u8,
    /// Bits 0–3: en-passant file 1–8 (0 = none); bit 4: Black to move.
    pub side_ep: u8,
    /// Castling bits: 0 White O-O-O, 1 White O-O, 2 Black O-O-O, 3 Black O-O.
    pub castling: u8,
    /// The number of the first move.
    pub move_number: u8,
    /// 192-bit board stream, squares in file-major order: `0` empty, else `1 c ppp`
    /// (c = 1 Black; ppp: 1 K, 2 Q, 3 N, 4 B, 5 R, 6 P).
    pub board: [u8; 24],
}

impl RawSetup {
    /// Reads the set-up position.
    pub fn parse(b: &[u8; SETUP_SIZE]) -> Self {
        RawSetup {
            marker: b[0],
            side_ep: b[1],
            castling: b[2],
            move_number: b[3],
            board: b[4..28].try_into().expect("24 bytes"),
        }
    }

    /// The set-up position's bytes.
    pub fn to_bytes(&self) -> [u8; SETUP_SIZE] {
        let mut b = [0; SETUP_SIZE];
        b[0] = self.marker;
        b[1] = self.side_ep;
        b[2] = self.castling;
        b[3] = self.move_number;
        b[4..].copy_from_slice(&self.board);
        b
    }
}

/// The 8-byte Chess960 block: king and castling-rook squares (file-major numbering,
/// a1 = 0, a2 = 1, …, h8 = 63) and the start-position number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawChess960 {
    /// White king, black king.
    pub kings: [u8; 2],
    /// White's O-O rook, White's O-O-O rook, Black's O-O rook, Black's O-O-O rook.
    pub rooks: [u8; 4],
    /// The start-position number 0–959.
    pub number: u16,
}

impl RawChess960 {
    /// Reads the block.
    pub fn parse(b: &[u8; CHESS960_SIZE]) -> Self {
        RawChess960 {
            kings: [b[0], b[1]],
            rooks: [b[2], b[3], b[4], b[5]],
            number: be16(b, 6),
        }
    }

    /// The block's bytes.
    pub fn to_bytes(&self) -> [u8; CHESS960_SIZE] {
        let mut b = [0; CHESS960_SIZE];
        b[..2].copy_from_slice(&self.kings);
        b[2..6].copy_from_slice(&self.rooks);
        put16(&mut b, 6, self.number);
        b
    }
}

/// Size of the head of a game's `.cba` record.
pub const CBA_HEAD_SIZE: usize = 14;

/// The head of a game's annotation record in `.cba`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbaHead {
    /// The game's record number.
    pub game: u32,
    /// Bytes 3–6 (constant in practice).
    pub unknown: [u8; 4],
    /// Number of annotation items + 1.
    pub items_plus_one: u32,
    /// Size of the record including this head.
    pub size: u32,
}

impl CbaHead {
    /// Reads the head.
    pub fn parse(b: &[u8; CBA_HEAD_SIZE]) -> Self {
        CbaHead {
            game: be24(b, 0),
            unknown: [b[3], b[4], b[5], b[6]],
            items_plus_one: be24(b, 7),
            size: be32(b, 10),
        }
    }

    /// The head's bytes.
    pub fn to_bytes(&self) -> [u8; CBA_HEAD_SIZE] {
        let mut b = [0; CBA_HEAD_SIZE];
        put24(&mut b, 0, self.game);
        b[3..7].copy_from_slice(&self.unknown);
        put24(&mut b, 7, self.items_plus_one);
        put32(&mut b, 10, self.size);
        b
    }
}

/// Size of the head of one annotation item.
pub const CBA_ITEM_HEAD_SIZE: usize = 6;

/// The head of one annotation item: signed 24-bit move index, type, length (with the head).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbaItemHead {
    /// 0 = the first move in stream order, −1 = the whole game.
    pub index: i32,
    /// The annotation type.
    pub kind: u8,
    /// Length of the item including this head.
    pub length: u16,
}

impl CbaItemHead {
    /// Reads the head.
    pub fn parse(b: &[u8; CBA_ITEM_HEAD_SIZE]) -> Self {
        let raw = be24(b, 0);
        CbaItemHead {
            index: ((raw << 8) as i32) >> 8,
            kind: b[3],
            length: be16(b, 4),
        }
    }

    /// The head's bytes.
    pub fn to_bytes(&self) -> [u8; CBA_ITEM_HEAD_SIZE] {
        let mut b = [0; CBA_ITEM_HEAD_SIZE];
        put24(&mut b, 0, self.index as u32 & 0xff_ffff);
        b[3] = self.kind;
        put16(&mut b, 4, self.length);
        b
    }
}

/// Size of an entity file's header without extra bytes.
pub const ENTITY_HEADER_SIZE: usize = 28;

/// The header of an entity file (`.cbp .cbt .cbc .cbs .cbe`), little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityHeader {
    /// Records in the file, deleted ones included.
    pub count: u32,
    /// Record number of the tree's root (−1 or 0 when empty).
    pub root: i32,
    /// 1234567890.
    pub magic: u32,
    /// Data bytes per record, without the 9-byte tree node.
    pub data_size: u32,
    /// First deleted record, −1 when none.
    pub first_deleted: i32,
    /// Records not deleted.
    pub live: u32,
    /// Extra header bytes after these 28 (0 in old files, 4 in new ones).
    pub extra: u32,
}

impl EntityHeader {
    /// Reads the header.
    pub fn parse(b: &[u8; ENTITY_HEADER_SIZE]) -> Self {
        EntityHeader {
            count: le32(b, 0),
            root: le32(b, 4) as i32,
            magic: le32(b, 8),
            data_size: le32(b, 12),
            first_deleted: le32(b, 16) as i32,
            live: le32(b, 20),
            extra: le32(b, 24),
        }
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; ENTITY_HEADER_SIZE] {
        let mut b = [0; ENTITY_HEADER_SIZE];
        putle32(&mut b, 0, self.count);
        putle32(&mut b, 4, self.root as u32);
        putle32(&mut b, 8, self.magic);
        putle32(&mut b, 12, self.data_size);
        putle32(&mut b, 16, self.first_deleted as u32);
        putle32(&mut b, 20, self.live);
        putle32(&mut b, 24, self.extra);
        b
    }
}

/// Size of the AVL node that starts every entity record.
pub const NODE_SIZE: usize = 9;

/// The AVL node that starts every entity record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityNode {
    /// Left child, −1 when none; −999 marks a deleted record.
    pub left: i32,
    /// Right child, −1 when none (for a deleted record: the next deleted one).
    pub right: i32,
    /// Height of the right subtree minus the left's.
    pub balance: i8,
}

/// `left` value of a deleted entity record.
pub const DELETED_NODE: i32 = -999;

impl EntityNode {
    /// Reads the node.
    pub fn parse(b: &[u8; NODE_SIZE]) -> Self {
        EntityNode {
            left: le32(b, 0) as i32,
            right: le32(b, 4) as i32,
            balance: b[8] as i8,
        }
    }

    /// The node's bytes.
    pub fn to_bytes(&self) -> [u8; NODE_SIZE] {
        let mut b = [0; NODE_SIZE];
        putle32(&mut b, 0, self.left as u32);
        putle32(&mut b, 4, self.right as u32);
        b[8] = self.balance as u8;
        b
    }

    /// Whether the record is deleted.
    pub fn is_deleted(&self) -> bool {
        self.left == DELETED_NODE
    }
}

/// The data of one kind of entity record (after the 9-byte node).
pub trait EntityData: Sized + Clone + Default {
    /// The file extension (lower case, without dot).
    const EXTENSION: &'static str;
    /// The data size the layout needs; larger records are accepted, smaller ones refused.
    const DATA_SIZE: usize;
    /// Reads the data from `b` (at least [`EntityData::DATA_SIZE`] bytes).
    fn parse(b: &[u8]) -> Self;
    /// Writes the data into `b` (at least [`EntityData::DATA_SIZE`] bytes).
    fn write(&self, b: &mut [u8]);
}

fn put_field(b: &mut [u8], s: &str) {
    b.fill(0);
    let (bytes, _, lossy) = encoding_rs::WINDOWS_1252.encode(s);
    let bytes: &[u8] = if lossy { s.as_bytes() } else { &bytes };
    let n = bytes.len().min(b.len().saturating_sub(1));
    b[..n].copy_from_slice(&bytes[..n]);
}

/// A player (`.cbp`, 58 data bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    /// Last name.
    pub last: String,
    /// First name.
    pub first: String,
    /// Number of references from games.
    pub games: u32,
    /// First game referring to the player.
    pub first_game: u32,
}

impl Player {
    /// The PGN form: `Last, First`, or `Last` alone.
    pub fn full_name(&self) -> String {
        if self.first.is_empty() {
            self.last.clone()
        } else if self.last.is_empty() {
            self.first.clone()
        } else {
            format!("{}, {}", self.last, self.first)
        }
    }
}

impl EntityData for Player {
    const EXTENSION: &'static str = "cbp";
    const DATA_SIZE: usize = 58;
    fn parse(b: &[u8]) -> Self {
        Player {
            last: decode_field(&b[0..30]),
            first: decode_field(&b[30..50]),
            games: le32(b, 50),
            first_game: le32(b, 54),
        }
    }
    fn write(&self, b: &mut [u8]) {
        put_field(&mut b[0..30], &self.last);
        put_field(&mut b[30..50], &self.first);
        putle32(b, 50, self.games);
        putle32(b, 54, self.first_game);
    }
}

/// A tournament (`.cbt`, 90 data bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tournament {
    /// Title (the PGN Event).
    pub title: String,
    /// Place (the PGN Site).
    pub place: String,
    /// Start date, packed (see [`Date`]).
    pub date: u32,
    /// Bits 0–4 kind (see [`Tournament::kind_name`]); bit 5 blitz, 6 rapid, 7 correspondence.
    pub kind: u8,
    /// Bit 0: a team tournament.
    pub team: u8,
    /// Nation number (see [`crate::text::nation`]).
    pub nation: u8,
    /// Byte 0x4d, unknown.
    pub unknown1: u8,
    /// Category 0–99 (0 = not set).
    pub category: u8,
    /// Bit 0/1 complete, bit 2 board points, bit 3 three points for a win.
    pub flags: u8,
    /// Number of rounds (0 = not set).
    pub rounds: u8,
    /// Byte 0x51, unknown.
    pub unknown2: u8,
    /// Number of references from games.
    pub games: u32,
    /// First game of the tournament.
    pub first_game: u32,
}

impl Tournament {
    /// The start date.
    pub fn start_date(&self) -> Date {
        Date::from_bits(self.date)
    }

    /// The kind of tournament, `None` when not set or unknown.
    pub fn kind_name(&self) -> Option<&'static str> {
        Some(match self.kind & 0x1f {
            1 => "game",
            2 => "match",
            3 => "round robin",
            4 => "swiss",
            5 => "team",
            6 => "knockout",
            7 => "simul",
            8 => "scheveningen",
            _ => return None,
        })
    }

    /// The time control: `blitz`, `rapid`, `correspondence`, or `None` for normal.
    pub fn time_control(&self) -> Option<&'static str> {
        if self.kind & 0x20 != 0 {
            Some("blitz")
        } else if self.kind & 0x40 != 0 {
            Some("rapid")
        } else if self.kind & 0x80 != 0 {
            Some("correspondence")
        } else {
            None
        }
    }
}

impl EntityData for Tournament {
    const EXTENSION: &'static str = "cbt";
    const DATA_SIZE: usize = 90;
    fn parse(b: &[u8]) -> Self {
        Tournament {
            title: decode_field(&b[0..40]),
            place: decode_field(&b[40..70]),
            date: le32(b, 70),
            kind: b[74],
            team: b[75],
            nation: b[76],
            unknown1: b[77],
            category: b[78],
            flags: b[79],
            rounds: b[80],
            unknown2: b[81],
            games: le32(b, 82),
            first_game: le32(b, 86),
        }
    }
    fn write(&self, b: &mut [u8]) {
        put_field(&mut b[0..40], &self.title);
        put_field(&mut b[40..70], &self.place);
        putle32(b, 70, self.date);
        b[74] = self.kind;
        b[75] = self.team;
        b[76] = self.nation;
        b[77] = self.unknown1;
        b[78] = self.category;
        b[79] = self.flags;
        b[80] = self.rounds;
        b[81] = self.unknown2;
        putle32(b, 82, self.games);
        putle32(b, 86, self.first_game);
    }
}

/// An annotator (`.cbc`, 53 data bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotator {
    /// The name.
    pub name: String,
    /// Number of references from games.
    pub games: u32,
    /// First game referring to the annotator.
    pub first_game: u32,
}

impl EntityData for Annotator {
    const EXTENSION: &'static str = "cbc";
    const DATA_SIZE: usize = 53;
    fn parse(b: &[u8]) -> Self {
        Annotator {
            name: decode_field(&b[0..45]),
            games: le32(b, 45),
            first_game: le32(b, 49),
        }
    }
    fn write(&self, b: &mut [u8]) {
        put_field(&mut b[0..45], &self.name);
        putle32(b, 45, self.games);
        putle32(b, 49, self.first_game);
    }
}

/// A source (`.cbs`, 59 data bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Source {
    /// Title.
    pub title: String,
    /// Publisher.
    pub publisher: String,
    /// Publication date, packed.
    pub publication: u32,
    /// Date, packed.
    pub date: u32,
    /// Version.
    pub version: u8,
    /// Quality: 0 unset, 1 high, 2 medium, 3 low.
    pub quality: u8,
    /// Number of references from games.
    pub games: u32,
    /// First game referring to the source.
    pub first_game: u32,
}

impl EntityData for Source {
    const EXTENSION: &'static str = "cbs";
    const DATA_SIZE: usize = 59;
    fn parse(b: &[u8]) -> Self {
        Source {
            title: decode_field(&b[0..25]),
            publisher: decode_field(&b[25..41]),
            publication: le32(b, 41),
            date: le32(b, 45),
            version: b[49],
            quality: b[50],
            games: le32(b, 51),
            first_game: le32(b, 55),
        }
    }
    fn write(&self, b: &mut [u8]) {
        put_field(&mut b[0..25], &self.title);
        put_field(&mut b[25..41], &self.publisher);
        putle32(b, 41, self.publication);
        putle32(b, 45, self.date);
        b[49] = self.version;
        b[50] = self.quality;
        putle32(b, 51, self.games);
        putle32(b, 55, self.first_game);
    }
}

/// A team (`.cbe`, 63 data bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Team {
    /// Title.
    pub title: String,
    /// Team number.
    pub number: u32,
    /// Bit 0: a season (year/year+1).
    pub season: u8,
    /// Year.
    pub year: u32,
    /// Nation number.
    pub nation: u8,
    /// Number of references from games.
    pub games: u32,
    /// First game referring to the team.
    pub first_game: u32,
}

impl EntityData for Team {
    const EXTENSION: &'static str = "cbe";
    const DATA_SIZE: usize = 63;
    fn parse(b: &[u8]) -> Self {
        Team {
            title: decode_field(&b[0..45]),
            number: le32(b, 45),
            season: b[49],
            year: le32(b, 50),
            nation: b[54],
            games: le32(b, 55),
            first_game: le32(b, 59),
        }
    }
    fn write(&self, b: &mut [u8]) {
        put_field(&mut b[0..45], &self.title);
        putle32(b, 45, self.number);
        b[49] = self.season;
        putle32(b, 50, self.year);
        b[54] = self.nation;
        putle32(b, 55, self.games);
        putle32(b, 59, self.first_game);
    }
}

/// Size of the `.cbj` header.
pub const CBJ_HEADER_SIZE: usize = 32;

/// The `.cbj` header (little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbjHeader {
    /// Version (1, 3, 5, 6, 7, 8, 11).
    pub version: u32,
    /// Record size (8 … 120).
    pub record_size: u32,
    /// Number of records.
    pub count: u32,
}

impl CbjHeader {
    /// Reads the header.
    pub fn parse(b: &[u8; CBJ_HEADER_SIZE]) -> Self {
        CbjHeader {
            version: le32(b, 0),
            record_size: le32(b, 4),
            count: le32(b, 8),
        }
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; CBJ_HEADER_SIZE] {
        let mut b = [0; CBJ_HEADER_SIZE];
        putle32(&mut b, 0, self.version);
        putle32(&mut b, 4, self.record_size);
        putle32(&mut b, 8, self.count);
        b
    }
}

/// The team fields of a `.cbj` record (its first 8 bytes, big-endian); −1 = no team.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbjTeams {
    /// White's team (`.cbe` record number).
    pub white: i32,
    /// Black's team.
    pub black: i32,
}

impl CbjTeams {
    /// Reads the team fields.
    pub fn parse(b: &[u8; 8]) -> Self {
        CbjTeams {
            white: be32(b, 0) as i32,
            black: be32(b, 4) as i32,
        }
    }

    /// The fields' bytes.
    pub fn to_bytes(&self) -> [u8; 8] {
        let mut b = [0; 8];
        put32(&mut b, 0, self.white as u32);
        put32(&mut b, 4, self.black as u32);
        b
    }
}
