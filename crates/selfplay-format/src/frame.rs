//! Tiers 1 and 2: framing (game byte spans, no move generation) and the lazy game view
//! (header fields and per-move records, no move generation).

use chess_core::parse::{bytes, le_u8, le_u16};

use crate::{
    error::{Error, ErrorKind},
    raw::{GAME_HEADER_LEN, Header, MoveCode},
};

/// One game's bytes within the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameView<'a> {
    /// 0-based index of the game.
    pub index: u64,
    /// Byte offset of the game in the data.
    pub offset: u64,
    /// The game's bytes, header to terminator included.
    pub bytes: &'a [u8],
    /// Number of move records.
    pub plies: usize,
}

/// A move record as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveRecord<'a> {
    /// The move code.
    pub code: MoveCode,
    /// Score of the side to move, 0..=65535 for 0..1.
    pub score: u16,
    /// The visit bytes in ascending move-code order (empty when the n byte is 0).
    pub visits: &'a [u8],
    /// Byte offset of the record within the game.
    pub offset: usize,
}

impl<'a> GameView<'a> {
    /// The header (all zeros if the view is shorter than a header, which [`frames`] never
    /// yields).
    pub fn header(&self) -> Header {
        Header::from_prefix(self.bytes)
    }

    /// The move records, in order.
    pub fn records(&self) -> Records<'a> {
        Records {
            bytes: self.bytes,
            pos: GAME_HEADER_LEN,
        }
    }
}

/// Iterator over a framed game's records.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Records<'a> {
    type Item = MoveRecord<'a>;

    fn next(&mut self) -> Option<MoveRecord<'a>> {
        // Checked reads: a view built by hand (its fields are public) may not be framed.
        let rec = read_record(self.bytes, self.pos).ok()??;
        self.pos = rec.end();
        Some(rec)
    }
}

impl MoveRecord<'_> {
    /// Offset just past the record within the game.
    pub fn end(&self) -> usize {
        self.offset + 5 + self.visits.len()
    }
}

/// Reads the record at byte `p` of a game: `Ok(None)` at the zero terminator, or what the
/// data lacks when it ends inside the record. The one record reader of the crate (framing,
/// views and the streaming position reader).
pub fn read_record(b: &[u8], p: usize) -> Result<Option<MoveRecord<'_>>, &'static str> {
    const CODE: &str = "a move code or the zero terminator";
    let input = b.get(p..).ok_or(CODE)?;
    // The record layout, in nom: code (u16 LE, 0 = end of game), score (u16 LE), visit count
    // n (u8), n visit bytes. Each field names what is missing when the data ends inside it.
    let (i, code) = le_u16(input).map_err(|_| CODE)?;
    if code == 0 {
        return Ok(None);
    }
    let missing = |_| "a score and the visit count byte";
    let (i, score) = le_u16(i).map_err(missing)?;
    let (i, n) = le_u8(i).map_err(missing)?;
    let (_, visits) = bytes(i, usize::from(n)).map_err(|_| "the visit bytes")?;
    Ok(Some(MoveRecord {
        code: MoveCode(code),
        score,
        visits,
        offset: p,
    }))
}

/// Measures the game starting at `data[0]`: its length and number of plies, or where and why
/// it is cut short.
pub fn frame_game(data: &[u8]) -> Result<(usize, usize), (usize, ErrorKind)> {
    let truncated = |expected| (data.len(), ErrorKind::Truncated { expected });
    if data.len() < GAME_HEADER_LEN {
        return Err(truncated("a 43-byte game header"));
    }
    let mut p = GAME_HEADER_LEN;
    let mut plies = 0;
    while let Some(rec) = read_record(data, p).map_err(truncated)? {
        p = rec.end();
        plies += 1;
    }
    Ok((p + 2, plies))
}

/// Iterator over the games of a policy-format buffer (no move generation). A truncated last
/// game is reported as an error, after which the iteration ends.
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    data: &'a [u8],
    pos: usize,
    index: u64,
    base: u64,
    done: bool,
}

/// Frames the games of `data`.
pub fn frames(data: &[u8]) -> Frames<'_> {
    frames_at(data, 0, 0)
}

/// Frames the games of `data`, a part of a larger buffer that starts at byte `base` with game
/// number `first_index` (see [`chunks`]): reported indices and offsets are those of the whole.
pub fn frames_at(data: &[u8], first_index: u64, base: u64) -> Frames<'_> {
    Frames {
        data,
        pos: 0,
        index: first_index,
        base,
        done: false,
    }
}

/// A part of a buffer on game boundaries, for parallel processing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Number of the chunk's first game in the whole buffer.
    pub first_game: u64,
    /// Byte offset of the chunk in the whole buffer.
    pub offset: u64,
    /// The chunk's bytes (whole games).
    pub bytes: &'a [u8],
}

impl<'a> Chunk<'a> {
    /// Frames the chunk's games with whole-buffer indices and offsets.
    pub fn frames(&self) -> Frames<'a> {
        frames_at(self.bytes, self.first_game, self.offset)
    }
}

/// Cuts `data` into at most `parts` chunks of about equal size on game boundaries (framing
/// only, so it runs at memory speed). A truncated last game stays in the last chunk, where
/// its framing reports it.
pub fn chunks(data: &[u8], parts: usize) -> Vec<Chunk<'_>> {
    let parts = parts.max(1);
    let mut out = Vec::with_capacity(parts);
    let (mut start, mut first_game) = (0usize, 0u64);
    let mut it = frames(data);
    let mut games = 0u64;
    while let Some(Ok(view)) = it.next() {
        games += 1;
        let end = view.offset as usize + view.bytes.len();
        if out.len() + 1 < parts && end * parts >= data.len() * (out.len() + 1) {
            out.push(Chunk {
                first_game,
                offset: start as u64,
                bytes: &data[start..end],
            });
            start = end;
            first_game = games;
        }
    }
    if start < data.len() || out.is_empty() {
        out.push(Chunk {
            first_game,
            offset: start as u64,
            bytes: &data[start..],
        });
    }
    out
}

impl<'a> Frames<'a> {
    /// Byte offset of the next game.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The whole buffer being framed.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Offset of [`Frames::data`] in the larger buffer it is a part of (0 for [`frames`]).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Continues framing at byte `offset` of [`Frames::data`] (clamped to it), numbering the
    /// game found there `index`. Used to resynchronise after a bad game.
    pub fn seek(&mut self, offset: usize, index: u64) {
        self.pos = offset.min(self.data.len());
        self.index = index;
        self.done = false;
    }
}

/// The next span of `data` from `*pos`, measured by `measure` (length and plies, or where
/// and why it is cut short): the framing loop shared by both formats.
pub(crate) fn next_span<'a>(
    data: &'a [u8],
    pos: &mut usize,
    index: &mut u64,
    done: &mut bool,
    base: u64,
    measure: impl FnOnce(&[u8]) -> Result<(usize, usize), (usize, ErrorKind)>,
) -> Option<Result<GameView<'a>, Error>> {
    if *done || *pos >= data.len() {
        return None;
    }
    let rest = &data[*pos..];
    let i = *index;
    *index += 1;
    match measure(rest) {
        Ok((len, plies)) => {
            let view = GameView {
                index: i,
                offset: base + *pos as u64,
                bytes: &rest[..len],
                plies,
            };
            *pos += len;
            Some(Ok(view))
        }
        Err((at, kind)) => {
            *done = true;
            Some(Err(Error::new(i + 1, base + (*pos + at) as u64, kind)))
        }
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = Result<GameView<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        next_span(
            self.data,
            &mut self.pos,
            &mut self.index,
            &mut self.done,
            self.base,
            frame_game,
        )
    }
}
