//! On-disk records, field for field.
//!
//! Every fixed-size record has `parse` (from exactly its bytes, never failing: each field of a
//! fixed layout is just bits) and `to_bytes` (the inverse), so a writer can be added without
//! reshaping these types. Unknown bytes that real files leave non-zero are kept.
//!
//! Byte order: `.cbh`, `.cbg`, `.cba` and `.cbj` records are big-endian; entity files and the
//! `.cbj` header are little-endian.
//!
//! Each layout is declared once as a nom parser (through `chess_core::parse`) and written
//! back field by field in the same order with `chess_core::bytes::ByteWriter`.

use chess_core::bytes::ByteWriter;
use chess_core::parse::{
    NomError, NomResult, Parser, array, be_i24, be_i32, be_u8, be_u16, be_u24, be_u32, fixed,
    le_i32, le_u32, take,
};

use crate::text::{Date, decode_field};
use encoding_rs::Encoding;

/// Size of the `.cbh` header and of each of its records.
pub const CBH_RECORD_SIZE: usize = 46;

/// The 46-byte header of a `.cbh` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; CBH_RECORD_SIZE]) -> Self {
        let fields = (
            take(1usize),
            be_u16,
            be_u16,
            be_u8,
            be_u32,
            take(2usize),
            be_u32,
            be_u32,
            be_u32,
            take(16usize),
            be_u32,
        );
        fixed(
            b,
            fields.map(
                |(_, used, record_size, version, next_game, _, sound, picture, video, _, again)| {
                    CbhHeader {
                        used,
                        record_size,
                        version,
                        next_game,
                        next_sound: sound,
                        next_picture: picture,
                        next_video: video,
                        next_game_again: again,
                    }
                },
            ),
        )
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; CBH_RECORD_SIZE] {
        ByteWriter::new([0; CBH_RECORD_SIZE])
            .skip(1)
            .u16_be(self.used)
            .u16_be(self.record_size)
            .u8(self.version)
            .u32_be(self.next_game)
            .skip(2)
            .u32_be(self.next_sound)
            .u32_be(self.next_picture)
            .u32_be(self.next_video)
            .skip(16)
            .u32_be(self.next_game_again)
            .finish()
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

/// The game record layout, field by field (sequential nom: the hot path of header listing,
/// where this keeps every field in a register).
#[inline(always)]
fn game_record(i: &[u8]) -> NomResult<'_, GameRecord> {
    let (i, kind) = be_u8(i)?;
    let (i, cbg_offset) = be_u32(i)?;
    let (i, cba_offset) = be_u32(i)?;
    let (i, white) = be_u24(i)?;
    let (i, black) = be_u24(i)?;
    let (i, tournament) = be_u24(i)?;
    let (i, annotator) = be_u24(i)?;
    let (i, source) = be_u24(i)?;
    let (i, date) = be_u24(i)?;
    let (i, result) = be_u8(i)?;
    let (i, line_eval) = be_u8(i)?;
    let (i, round) = be_u8(i)?;
    let (i, subround) = be_u8(i)?;
    let (i, white_elo) = be_u16(i)?;
    let (i, black_elo) = be_u16(i)?;
    let (i, eco) = be_u16(i)?;
    let (i, medals) = be_u16(i)?;
    let (i, flags) = be_u32(i)?;
    let (i, magnitudes) = be_u16(i)?;
    let (i, moves) = be_u8(i)?;
    let record = GameRecord {
        kind,
        cbg_offset,
        cba_offset,
        white,
        black,
        tournament,
        annotator,
        source,
        date,
        result,
        line_eval,
        round,
        subround,
        white_elo,
        black_elo,
        eco,
        medals,
        flags,
        magnitudes,
        moves,
    };
    Ok((i, record))
}

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
    #[inline]
    pub fn parse(b: &[u8; CBH_RECORD_SIZE]) -> Self {
        // Called directly rather than through nom's `Parser` trait, whose generic `process`
        // is not inlined here and returns the record through memory.
        game_record(b).map_or_else(|_| GameRecord::default(), |(_, r)| r)
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; CBH_RECORD_SIZE] {
        ByteWriter::new([0; CBH_RECORD_SIZE])
            .u8(self.kind)
            .u32_be(self.cbg_offset)
            .u32_be(self.cba_offset)
            .u24_be(self.white)
            .u24_be(self.black)
            .u24_be(self.tournament)
            .u24_be(self.annotator)
            .u24_be(self.source)
            .u24_be(self.date)
            .u8(self.result)
            .u8(self.line_eval)
            .u8(self.round)
            .u8(self.subround)
            .u16_be(self.white_elo)
            .u16_be(self.black_elo)
            .u16_be(self.eco)
            .u16_be(self.medals)
            .u32_be(self.flags)
            .u16_be(self.magnitudes)
            .u8(self.moves)
            .finish()
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
    #[inline]
    pub fn parse(b: &[u8; CBH_RECORD_SIZE]) -> Self {
        let fields = (
            be_u8,
            be_u32,
            array::<2>,
            be_u24,
            be_u24,
            be_u24,
            be_u8,
            be_u8,
            be_u32,
            array::<24>,
        );
        fixed(
            b,
            fields.map(
                |(
                    kind,
                    cbg_offset,
                    unknown,
                    tournament,
                    source,
                    annotator,
                    round,
                    subround,
                    flags,
                    tail,
                )| {
                    TextRecord {
                        kind,
                        cbg_offset,
                        unknown,
                        tournament,
                        source,
                        annotator,
                        round,
                        subround,
                        flags,
                        tail,
                    }
                },
            ),
        )
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; CBH_RECORD_SIZE] {
        ByteWriter::new([0; CBH_RECORD_SIZE])
            .u8(self.kind)
            .u32_be(self.cbg_offset)
            .bytes(&self.unknown)
            .u24_be(self.tournament)
            .u24_be(self.source)
            .u24_be(self.annotator)
            .u8(self.round)
            .u8(self.subround)
            .u32_be(self.flags)
            .bytes(&self.tail)
            .finish()
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
    #[inline]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CbgHead {
    /// The flags byte: bits 0–5 encoding mode, bit 6 set-up position, bit 7 guiding text.
    pub flags: u8,
    /// Length of the record including these 4 bytes.
    pub length: u32,
}

impl CbgHead {
    /// Reads the head.
    #[inline]
    pub fn parse(b: [u8; 4]) -> Self {
        fixed(
            &b,
            (be_u8, be_u24).map(|(flags, length)| CbgHead { flags, length }),
        )
    }

    /// The head's bytes.
    pub fn to_bytes(&self) -> [u8; 4] {
        ByteWriter::new([0; 4])
            .u8(self.flags)
            .u24_be(self.length)
            .finish()
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; SETUP_SIZE]) -> Self {
        fixed(
            b,
            (be_u8, be_u8, be_u8, be_u8, array::<24>).map(
                |(marker, side_ep, castling, move_number, board)| RawSetup {
                    marker,
                    side_ep,
                    castling,
                    move_number,
                    board,
                },
            ),
        )
    }

    /// The set-up position's bytes.
    pub fn to_bytes(&self) -> [u8; SETUP_SIZE] {
        ByteWriter::new([0; SETUP_SIZE])
            .u8(self.marker)
            .u8(self.side_ep)
            .u8(self.castling)
            .u8(self.move_number)
            .bytes(&self.board)
            .finish()
    }
}

/// The 8-byte Chess960 block: king and castling-rook squares (file-major numbering,
/// a1 = 0, a2 = 1, …, h8 = 63) and the start-position number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; CHESS960_SIZE]) -> Self {
        fixed(
            b,
            (array::<2>, array::<4>, be_u16).map(|(kings, rooks, number)| RawChess960 {
                kings,
                rooks,
                number,
            }),
        )
    }

    /// The block's bytes.
    pub fn to_bytes(&self) -> [u8; CHESS960_SIZE] {
        ByteWriter::new([0; CHESS960_SIZE])
            .bytes(&self.kings)
            .bytes(&self.rooks)
            .u16_be(self.number)
            .finish()
    }
}

/// Size of the head of a game's `.cba` record.
pub const CBA_HEAD_SIZE: usize = 14;

/// The head of a game's annotation record in `.cba`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; CBA_HEAD_SIZE]) -> Self {
        fixed(
            b,
            (be_u24, array::<4>, be_u24, be_u32).map(|(game, unknown, items_plus_one, size)| {
                CbaHead {
                    game,
                    unknown,
                    items_plus_one,
                    size,
                }
            }),
        )
    }

    /// The head's bytes.
    pub fn to_bytes(&self) -> [u8; CBA_HEAD_SIZE] {
        ByteWriter::new([0; CBA_HEAD_SIZE])
            .u24_be(self.game)
            .bytes(&self.unknown)
            .u24_be(self.items_plus_one)
            .u32_be(self.size)
            .finish()
    }
}

/// Size of the head of one annotation item.
pub const CBA_ITEM_HEAD_SIZE: usize = 6;

/// The head of one annotation item: signed 24-bit move index, type, length (with the head).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; CBA_ITEM_HEAD_SIZE]) -> Self {
        fixed(
            b,
            (be_i24, be_u8, be_u16).map(|(index, kind, length)| CbaItemHead {
                index,
                kind,
                length,
            }),
        )
    }

    /// The head's bytes.
    pub fn to_bytes(&self) -> [u8; CBA_ITEM_HEAD_SIZE] {
        ByteWriter::new([0; CBA_ITEM_HEAD_SIZE])
            .u24_be(self.index as u32)
            .u8(self.kind)
            .u16_be(self.length)
            .finish()
    }
}

/// Size of an entity file's header without extra bytes.
pub const ENTITY_HEADER_SIZE: usize = 28;

/// The header of an entity file (`.cbp .cbt .cbc .cbs .cbe`), little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; ENTITY_HEADER_SIZE]) -> Self {
        let fields = (le_u32, le_i32, le_u32, le_u32, le_i32, le_u32, le_u32);
        fixed(
            b,
            fields.map(
                |(count, root, magic, data_size, first_deleted, live, extra)| EntityHeader {
                    count,
                    root,
                    magic,
                    data_size,
                    first_deleted,
                    live,
                    extra,
                },
            ),
        )
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; ENTITY_HEADER_SIZE] {
        ByteWriter::new([0; ENTITY_HEADER_SIZE])
            .u32_le(self.count)
            .i32_le(self.root)
            .u32_le(self.magic)
            .u32_le(self.data_size)
            .i32_le(self.first_deleted)
            .u32_le(self.live)
            .u32_le(self.extra)
            .finish()
    }
}

/// Size of the AVL node that starts every entity record.
pub const NODE_SIZE: usize = 9;

/// The AVL node that starts every entity record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; NODE_SIZE]) -> Self {
        fixed(
            b,
            (le_i32, le_i32, be_u8).map(|(left, right, balance)| EntityNode {
                left,
                right,
                balance: balance as i8,
            }),
        )
    }

    /// The node's bytes.
    pub fn to_bytes(&self) -> [u8; NODE_SIZE] {
        ByteWriter::new([0; NODE_SIZE])
            .i32_le(self.left)
            .i32_le(self.right)
            .u8(self.balance as u8)
            .finish()
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
    /// Reads the data from `b` (at least [`EntityData::DATA_SIZE`] bytes; a shorter slice
    /// reads as the default record), texts that are not UTF-8 in `code_page`.
    fn parse(b: &[u8], code_page: &'static Encoding) -> Self;
    /// Writes the data into `b` (at least [`EntityData::DATA_SIZE`] bytes; bytes past the end
    /// of a shorter slice are dropped), texts in `code_page` (UTF-8 where it cannot hold them).
    fn write(&self, b: &mut [u8], code_page: &'static Encoding);
}

/// Runs an entity layout over `b` (any length; a short slice gives the default record).
fn entity<'a, T: Default>(
    b: &'a [u8],
    mut parser: impl Parser<&'a [u8], Output = T, Error = NomError<'a>>,
) -> T {
    parser.parse(b).map_or_else(|_| T::default(), |(_, v)| v)
}

/// A fixed-size text field of `n` bytes, in `code_page` unless it is UTF-8.
fn text<'a>(
    n: usize,
    code_page: &'static Encoding,
) -> impl Parser<&'a [u8], Output = String, Error = NomError<'a>> {
    take(n).map(move |f| decode_field(f, code_page))
}

/// Writes a text field in `code_page` (UTF-8 where it cannot hold the text), cut to the
/// field at a character boundary; NUL-padded, without a NUL when the text fills the field (as
/// ChessBase writes a 45-character team name in a 45-byte field).
fn put_field(b: &mut [u8], s: &str, code_page: &'static Encoding) {
    b.fill(0);
    let bytes = crate::text::encode_text(s, code_page);
    let mut n = bytes.len().min(b.len());
    if bytes == s.as_bytes() {
        while !s.is_char_boundary(n) {
            n -= 1;
        }
    }
    b[..n].copy_from_slice(&bytes[..n]);
}

/// Sizes in bytes of the entities' text fields (NUL-padded, in the database's code page): what
/// the readers read, the writers cut to, and an import reports as cut.
pub(crate) const PLAYER_LAST: usize = 30;
/// See [`PLAYER_LAST`].
pub(crate) const PLAYER_FIRST: usize = 20;
/// See [`PLAYER_LAST`].
pub(crate) const TOURNAMENT_TITLE: usize = 40;
/// See [`PLAYER_LAST`].
pub(crate) const TOURNAMENT_PLACE: usize = 30;
/// See [`PLAYER_LAST`].
pub(crate) const ANNOTATOR_NAME: usize = 45;
/// See [`PLAYER_LAST`].
pub(crate) const SOURCE_TITLE: usize = 25;
/// See [`PLAYER_LAST`].
pub(crate) const SOURCE_PUBLISHER: usize = 16;
/// See [`PLAYER_LAST`].
pub(crate) const TEAM_TITLE: usize = 45;

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
    /// Appends [`Player::full_name`]'s text.
    pub(crate) fn push_full_name(&self, s: &mut String) {
        s.push_str(&self.last);
        if !self.first.is_empty() {
            if !self.last.is_empty() {
                s.push_str(", ");
            }
            s.push_str(&self.first);
        }
    }

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
    fn parse(b: &[u8], cp: &'static Encoding) -> Self {
        entity(
            b,
            (
                text(PLAYER_LAST, cp),
                text(PLAYER_FIRST, cp),
                le_u32,
                le_u32,
            )
                .map(|(last, first, games, first_game)| Player {
                    last,
                    first,
                    games,
                    first_game,
                }),
        )
    }
    fn write(&self, b: &mut [u8], cp: &'static Encoding) {
        let _ = ByteWriter::new(b)
            .field(PLAYER_LAST, |f| put_field(f, &self.last, cp))
            .field(PLAYER_FIRST, |f| put_field(f, &self.first, cp))
            .u32_le(self.games)
            .u32_le(self.first_game);
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
    fn parse(b: &[u8], cp: &'static Encoding) -> Self {
        let names = (
            text(TOURNAMENT_TITLE, cp),
            text(TOURNAMENT_PLACE, cp),
            le_u32,
        );
        let bytes = (be_u8, be_u8, be_u8, be_u8, be_u8, be_u8, be_u8, be_u8);
        entity(
            b,
            (names, bytes, le_u32, le_u32).map(
                |(
                    (title, place, date),
                    (kind, team, nation, unknown1, category, flags, rounds, unknown2),
                    games,
                    first_game,
                )| Tournament {
                    title,
                    place,
                    date,
                    kind,
                    team,
                    nation,
                    unknown1,
                    category,
                    flags,
                    rounds,
                    unknown2,
                    games,
                    first_game,
                },
            ),
        )
    }
    fn write(&self, b: &mut [u8], cp: &'static Encoding) {
        let _ = ByteWriter::new(b)
            .field(TOURNAMENT_TITLE, |f| put_field(f, &self.title, cp))
            .field(TOURNAMENT_PLACE, |f| put_field(f, &self.place, cp))
            .u32_le(self.date)
            .u8(self.kind)
            .u8(self.team)
            .u8(self.nation)
            .u8(self.unknown1)
            .u8(self.category)
            .u8(self.flags)
            .u8(self.rounds)
            .u8(self.unknown2)
            .u32_le(self.games)
            .u32_le(self.first_game);
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
    fn parse(b: &[u8], cp: &'static Encoding) -> Self {
        entity(
            b,
            (text(ANNOTATOR_NAME, cp), le_u32, le_u32).map(|(name, games, first_game)| Annotator {
                name,
                games,
                first_game,
            }),
        )
    }
    fn write(&self, b: &mut [u8], cp: &'static Encoding) {
        let _ = ByteWriter::new(b)
            .field(ANNOTATOR_NAME, |f| put_field(f, &self.name, cp))
            .u32_le(self.games)
            .u32_le(self.first_game);
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
    fn parse(b: &[u8], cp: &'static Encoding) -> Self {
        let fields = (
            text(SOURCE_TITLE, cp),
            text(SOURCE_PUBLISHER, cp),
            le_u32,
            le_u32,
            be_u8,
            be_u8,
            le_u32,
            le_u32,
        );
        entity(
            b,
            fields.map(
                |(title, publisher, publication, date, version, quality, games, first_game)| {
                    Source {
                        title,
                        publisher,
                        publication,
                        date,
                        version,
                        quality,
                        games,
                        first_game,
                    }
                },
            ),
        )
    }
    fn write(&self, b: &mut [u8], cp: &'static Encoding) {
        let _ = ByteWriter::new(b)
            .field(SOURCE_TITLE, |f| put_field(f, &self.title, cp))
            .field(SOURCE_PUBLISHER, |f| put_field(f, &self.publisher, cp))
            .u32_le(self.publication)
            .u32_le(self.date)
            .u8(self.version)
            .u8(self.quality)
            .u32_le(self.games)
            .u32_le(self.first_game);
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
    fn parse(b: &[u8], cp: &'static Encoding) -> Self {
        let fields = (
            text(TEAM_TITLE, cp),
            le_u32,
            be_u8,
            le_u32,
            be_u8,
            le_u32,
            le_u32,
        );
        entity(
            b,
            fields.map(
                |(title, number, season, year, nation, games, first_game)| Team {
                    title,
                    number,
                    season,
                    year,
                    nation,
                    games,
                    first_game,
                },
            ),
        )
    }
    fn write(&self, b: &mut [u8], cp: &'static Encoding) {
        let _ = ByteWriter::new(b)
            .field(TEAM_TITLE, |f| put_field(f, &self.title, cp))
            .u32_le(self.number)
            .u8(self.season)
            .u32_le(self.year)
            .u8(self.nation)
            .u32_le(self.games)
            .u32_le(self.first_game);
    }
}

/// Size of the `.cbj` header.
pub const CBJ_HEADER_SIZE: usize = 32;

/// The `.cbj` header (little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    #[inline]
    pub fn parse(b: &[u8; CBJ_HEADER_SIZE]) -> Self {
        fixed(
            b,
            (le_u32, le_u32, le_u32).map(|(version, record_size, count)| CbjHeader {
                version,
                record_size,
                count,
            }),
        )
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; CBJ_HEADER_SIZE] {
        ByteWriter::new([0; CBJ_HEADER_SIZE])
            .u32_le(self.version)
            .u32_le(self.record_size)
            .u32_le(self.count)
            .finish()
    }
}

/// The team fields of a `.cbj` record (its first 8 bytes, big-endian); −1 = no team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CbjTeams {
    /// White's team (`.cbe` record number).
    pub white: i32,
    /// Black's team.
    pub black: i32,
}

impl CbjTeams {
    /// Reads the team fields.
    #[inline]
    pub fn parse(b: &[u8; 8]) -> Self {
        fixed(
            b,
            (be_i32, be_i32).map(|(white, black)| CbjTeams { white, black }),
        )
    }

    /// The fields' bytes.
    pub fn to_bytes(&self) -> [u8; 8] {
        ByteWriter::new([0; 8])
            .i32_be(self.white)
            .i32_be(self.black)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code page of the tests (keeps every byte).
    const W: &Encoding = encoding_rs::WINDOWS_1252;
    use proptest::prelude::*;

    /// Layouts that cover every byte: bytes → record → the same bytes.
    fn exact_round_trip<const N: usize, T>(
        b: &[u8; N],
        parse: impl Fn(&[u8; N]) -> T,
        to_bytes: impl Fn(&T) -> [u8; N],
    ) -> Result<(), TestCaseError> {
        prop_assert_eq!(&to_bytes(&parse(b))[..], &b[..]);
        Ok(())
    }

    /// Entity data: record → bytes → the same record (text fields are re-encoded, so the
    /// bytes need not come back), and the layout writes exactly `DATA_SIZE` bytes.
    fn entity_round_trip<T: EntityData + PartialEq + std::fmt::Debug>(
        b: &[u8],
    ) -> Result<(), TestCaseError> {
        let first = T::parse(b, W);
        let mut out = vec![0u8; T::DATA_SIZE];
        first.write(&mut out, W);
        let again = T::parse(&out, W);
        let mut out2 = vec![0u8; T::DATA_SIZE];
        again.write(&mut out2, W);
        prop_assert_eq!(&out, &out2);
        prop_assert_eq!(T::parse(&out2, W), again);
        Ok(())
    }

    proptest! {
        #[test]
        fn fixed_layouts_round_trip(b in prop::collection::vec(any::<u8>(), 46)) {
            let r: [u8; CBH_RECORD_SIZE] = b[..].try_into().unwrap();
            exact_round_trip(&r, GameRecord::parse, GameRecord::to_bytes)?;
            exact_round_trip(&r, TextRecord::parse, TextRecord::to_bytes)?;
            exact_round_trip(&r, CbhRecord::parse, CbhRecord::to_bytes)?;
            let h = CbhHeader::parse(&r);
            prop_assert_eq!(CbhHeader::parse(&h.to_bytes()), h);
            let head: [u8; 4] = b[..4].try_into().unwrap();
            prop_assert_eq!(CbgHead::parse(head).to_bytes(), head);
            exact_round_trip(&b[..SETUP_SIZE].try_into().unwrap(), RawSetup::parse, RawSetup::to_bytes)?;
            exact_round_trip(&b[..CHESS960_SIZE].try_into().unwrap(), RawChess960::parse, RawChess960::to_bytes)?;
            exact_round_trip(&b[..CBA_HEAD_SIZE].try_into().unwrap(), CbaHead::parse, CbaHead::to_bytes)?;
            exact_round_trip(&b[..CBA_ITEM_HEAD_SIZE].try_into().unwrap(), CbaItemHead::parse, CbaItemHead::to_bytes)?;
            exact_round_trip(&b[..NODE_SIZE].try_into().unwrap(), EntityNode::parse, EntityNode::to_bytes)?;
            exact_round_trip(&b[..8].try_into().unwrap(), CbjTeams::parse, CbjTeams::to_bytes)?;
            let eh: [u8; ENTITY_HEADER_SIZE] = b[..ENTITY_HEADER_SIZE].try_into().unwrap();
            exact_round_trip(&eh, EntityHeader::parse, EntityHeader::to_bytes)?;
        }

        #[test]
        fn entity_layouts_round_trip(b in prop::collection::vec(any::<u8>(), 90)) {
            entity_round_trip::<Player>(&b)?;
            entity_round_trip::<Tournament>(&b)?;
            entity_round_trip::<Annotator>(&b)?;
            entity_round_trip::<Source>(&b)?;
            entity_round_trip::<Team>(&b)?;
        }
    }

    #[test]
    fn known_fields_at_their_offsets() {
        let mut b = [0u8; CBH_RECORD_SIZE];
        b[0] = 1;
        b[1..5].copy_from_slice(&0x0102_0304u32.to_be_bytes());
        b[9..12].copy_from_slice(&[0, 0, 7]);
        b[31..33].copy_from_slice(&2500u16.to_be_bytes());
        b[45] = 40;
        let g = GameRecord::parse(&b);
        assert_eq!(
            (g.cbg_offset, g.white, g.white_elo, g.moves),
            (0x0102_0304, 7, 2500, 40)
        );
        let item = CbaItemHead::parse(&[0xff, 0xff, 0xff, 0x02, 0x00, 0x0a]);
        assert_eq!((item.index, item.kind, item.length), (-1, 2, 10));
        // A short entity slice reads as the default record, never a panic.
        assert_eq!(Player::parse(&[1, 2, 3], W), Player::default());
        let mut short = [0u8; 10];
        Player {
            last: "Carlsen".into(),
            ..Player::default()
        }
        .write(&mut short, W);
        assert_eq!(&short[..7], b"Carlsen");
    }
}
