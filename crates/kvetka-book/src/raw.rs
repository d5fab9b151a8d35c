//! On-disk layout: the `.kob` header, blocks, elements and game references.
//!
//! All integers are big-endian. A book's `.kob` files are read as one byte stream: the header
//! starts `name_0.kob` only, the other files hold whole blocks (the chessfmt format notes, Kvetka).

use chess_core::{
    ParseError,
    parse::{
        NomResult, Parser, array, be_u8, be_u16, be_u32, context, expected, run, take, verify,
    },
};

use crate::codec::{compact, compact_len, unicode, unicode_units, write_compact, write_unicode};

/// Size of a `.kob` block in bytes.
pub const BLOCK_SIZE: usize = 2048;
/// Largest element, its `length` field included.
pub const MAX_ELEMENT_SIZE: usize = 682;
/// Length of a position key.
pub const KEY_LEN: usize = 22;
/// The only book type the description defines.
pub const BOOK_TYPE: u8 = 0x01;
/// Longest comment, in characters (UTF-16 code units).
pub const MAX_COMMENT_CHARS: usize = 300;
/// Size of a [`SourceRef`] on disk.
pub const SOURCE_REF_SIZE: usize = 6;
/// `element_type` bit 0: elements may store game references.
pub const ELEMENT_TYPE_GAMES: u8 = 0x01;
/// `max_move` value meaning "every half-move of the game".
pub const MAX_MOVE_ALL: u8 = 0xff;

/// A position key: 22 bytes, compared as unsigned bytes (see
/// [`crate::position::encode`]).
pub type Key = [u8; KEY_LEN];

/// The order of two keys (unsigned bytes, as `Ord` of the arrays) from three big-endian
/// words, where the arrays' `cmp` calls `memcmp`: a lookup compares a key with fifty others
/// (the index's binary search, then its block's elements).
#[inline]
pub(crate) fn cmp_keys(a: &Key, b: &Key) -> std::cmp::Ordering {
    let word = |k: &Key, at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&k[at..at + 8]);
        u64::from_be_bytes(w)
    };
    // The last word overlaps the second by two bytes, equal by then.
    word(a, 0)
        .cmp(&word(b, 0))
        .then_with(|| word(a, 8).cmp(&word(b, 8)))
        .then_with(|| word(a, KEY_LEN - 8).cmp(&word(b, KEY_LEN - 8)))
}

/// Element flag bits.
pub mod flags {
    /// A comment follows.
    pub const COMMENT: u8 = 0x01;
    /// The list of games whose last stored position this is follows.
    pub const LINKS: u8 = 0x02;
    /// A reference to one game containing the position follows.
    pub const SOURCE: u8 = 0x04;
    /// The bits this crate knows.
    pub const KNOWN: u8 = COMMENT | LINKS | SOURCE;
}

/// The header at the start of `name_0.kob`.
///
/// [`Header::default`] describes a book that works: no Elo filters, every half-move of each
/// game added ([`MAX_MOVE_ALL`]), no game references, no links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Short description shown by Kvetka.
    pub caption: String,
    /// Minimum Elo of White for a game to be added (0 = no filter).
    pub min_elo_white: u16,
    /// Minimum Elo of Black.
    pub min_elo_black: u16,
    /// Minimum Elo of the stronger player.
    pub min_elo_strong: u16,
    /// Minimum Elo of the weaker player.
    pub min_elo_weak: u16,
    /// Half-moves of each game added to the book; [`MAX_MOVE_ALL`] = all.
    pub max_move: u8,
    /// Element format; bit 0 ([`ELEMENT_TYPE_GAMES`]) = game references are stored.
    pub element_type: u8,
    /// Non-zero: when positions are added, moves between any two book positions are added too.
    pub links: u8,
    /// Number of blocks over all `.kob` files.
    pub block_count: u32,
}

impl Default for Header {
    fn default() -> Header {
        Header {
            caption: String::new(),
            min_elo_white: 0,
            min_elo_black: 0,
            min_elo_strong: 0,
            min_elo_weak: 0,
            max_move: MAX_MOVE_ALL,
            element_type: 0,
            links: 0,
            block_count: 0,
        }
    }
}

impl Header {
    /// The header of a book made by conversion (from a statistics table, from a Polyglot
    /// book): [`Header::default`] with `caption`.
    pub fn converted(caption: &str) -> Header {
        Header {
            caption: caption.to_owned(),
            ..Header::default()
        }
    }

    /// The header a book made from this one's statistics keeps (by conversion: through a
    /// statistics table, its elements alone): the caption, Elo filters and ply limit; no game
    /// references, no links.
    pub fn of_statistics(&self) -> Header {
        Header {
            caption: self.caption.clone(),
            min_elo_white: self.min_elo_white,
            min_elo_black: self.min_elo_black,
            min_elo_strong: self.min_elo_strong,
            min_elo_weak: self.min_elo_weak,
            max_move: self.max_move,
            ..Header::default()
        }
    }

    /// Whether elements store game references (`element_type` bit 0).
    pub fn stores_games(&self) -> bool {
        self.element_type & ELEMENT_TYPE_GAMES != 0
    }

    /// Parses the header; returns it and its length. The type byte must be checked by the
    /// caller first ([`BOOK_TYPE`]).
    pub fn parse(data: &[u8]) -> Result<(Header, usize), ParseError> {
        let book_type = context("book type 0x01", verify(be_u8, |&t| t == BOOK_TYPE));
        let elos = (be_u16, be_u16, be_u16, be_u16);
        let tail = (be_u8, be_u8, be_u8, be_u32);
        let layout = (book_type, unicode, elos, tail).map(
            |(
                _,
                caption,
                (white, black, strong, weak),
                (max_move, element_type, links, blocks),
            )| {
                Header {
                    caption,
                    min_elo_white: white,
                    min_elo_black: black,
                    min_elo_strong: strong,
                    min_elo_weak: weak,
                    max_move,
                    element_type,
                    links,
                    block_count: blocks,
                }
            },
        );
        run(data, 0, "a book header", layout)
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![BOOK_TYPE];
        write_unicode(&mut out, &self.caption);
        for v in [
            self.min_elo_white,
            self.min_elo_black,
            self.min_elo_strong,
            self.min_elo_weak,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&[self.max_move, self.element_type, self.links]);
        out.extend_from_slice(&self.block_count.to_be_bytes());
        out
    }
}

/// A game reference (`SourceType`): source number in the `.ksf` and game number within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceRef {
    /// Index of the source in the `.ksf` (from 0).
    pub source: u16,
    /// Index of the game within the source (from 0).
    pub game: u32,
}

impl SourceRef {
    fn parse(input: &[u8]) -> NomResult<'_, SourceRef> {
        (be_u16, be_u32)
            .map(|(source, game)| SourceRef { source, game })
            .parse(input)
    }

    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.source.to_be_bytes());
        out.extend_from_slice(&self.game.to_be_bytes());
    }
}

/// One position of the book.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Element {
    /// The position's key.
    pub key: Key,
    /// Games won by the side to move.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games lost by the side to move.
    pub losses: u64,
    /// Move codes of the book moves (see [`crate::moves`]).
    pub moves: Vec<u8>,
    /// One game in which the position occurs (stored only when the book stores games).
    pub source: Option<SourceRef>,
    /// A short description, often `ECO|opening|variation` (see [`crate::Comment`]).
    pub comment: Option<String>,
    /// Games for which this is the last position stored in the book (stored only when the
    /// book stores games). The list layout is a decision (the chessfmt format notes, Kvetka): a
    /// `CompactInt` count, then the references.
    pub links: Option<Vec<SourceRef>>,
    /// Flag bits 3–7, which the description reserves; their data is kept in [`Element::extra`].
    pub unknown_flags: u8,
    /// Bytes after the known fields (data of unknown flags), kept as they are.
    pub extra: Vec<u8>,
}

/// The element layout: `length` (CompactInt), then that many bytes: key, wins, draws, losses,
/// moves (count + codes), flag byte and the optional parts the flags announce.
fn element(data: &[u8], stores_games: bool) -> NomResult<'_, Element> {
    let (rest, len) = compact(data)?;
    let Some(body_len) = usize::try_from(len).ok().filter(|&n| n <= rest.len()) else {
        return expected(data, "an element length within the block");
    };
    let (rest, body) = take(body_len).parse(rest)?;
    let (_, element) = element_body(body, stores_games)?;
    Ok((rest, element))
}

fn element_body(body: &[u8], stores_games: bool) -> NomResult<'_, Element> {
    let moves = be_u8.flat_map(|n| take(usize::from(n)));
    let (i, (key, wins, draws, losses, moves, flag_byte)) =
        (array::<KEY_LEN>, compact, compact, compact, moves, be_u8).parse(body)?;
    let (i, source) = if stores_games && flag_byte & flags::SOURCE != 0 {
        SourceRef::parse.map(Some).parse(i)?
    } else {
        (i, None)
    };
    let (i, comment) = if flag_byte & flags::COMMENT != 0 {
        unicode.map(Some).parse(i)?
    } else {
        (i, None)
    };
    let (i, links) = if stores_games && flag_byte & flags::LINKS != 0 {
        links(i).map(|(i, l)| (i, Some(l)))?
    } else {
        (i, None)
    };
    let unknown_flags = flag_byte & !flags::KNOWN;
    if unknown_flags == 0 && !i.is_empty() {
        return expected(i, "the end of the element (no unknown flags are set)");
    }
    let element = Element {
        key,
        wins,
        draws,
        losses,
        moves: moves.to_vec(),
        source,
        comment,
        links,
        unknown_flags,
        extra: i.to_vec(),
    };
    Ok((&i[i.len()..], element))
}

/// A links list: a CompactInt count, then that many references (the count is checked
/// against the bytes left before anything is allocated).
fn links(input: &[u8]) -> NomResult<'_, Vec<SourceRef>> {
    let (mut i, count) = compact(input)?;
    let Some(count) = usize::try_from(count)
        .ok()
        .filter(|&c| c.saturating_mul(SOURCE_REF_SIZE) <= i.len())
    else {
        return expected(input, "a links count within the element");
    };
    let mut list = Vec::with_capacity(count);
    for _ in 0..count {
        let (rest, r) = SourceRef::parse(i)?;
        list.push(r);
        i = rest;
    }
    Ok((i, list))
}

/// What [`Element::fit`] had to drop to keep an element within [`MAX_ELEMENT_SIZE`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Game references dropped from the links list.
    pub links: usize,
    /// Whether the comment was shortened.
    pub comment: bool,
}

impl Element {
    /// An element with statistics only.
    pub fn new(key: Key) -> Element {
        Element {
            key,
            ..Element::default()
        }
    }

    /// Parses the element at the start of `data`; returns it and its total length. `base` is
    /// the offset of `data` in its file (for errors); `stores_games` is the header's
    /// `element_type` bit 0 (without it, flag bits 1 and 2 carry no data).
    pub fn parse(
        data: &[u8],
        base: u64,
        stores_games: bool,
    ) -> Result<(Element, usize), ParseError> {
        run(data, base, "an element", |i| element(i, stores_games))
    }

    /// The flag byte this element is written with.
    pub fn flag_byte(&self, stores_games: bool) -> u8 {
        let mut f = self.unknown_flags & !flags::KNOWN;
        if self.comment.is_some() {
            f |= flags::COMMENT;
        }
        if stores_games && self.links.is_some() {
            f |= flags::LINKS;
        }
        if stores_games && self.source.is_some() {
            f |= flags::SOURCE;
        }
        f
    }

    fn body_len(&self, stores_games: bool) -> usize {
        let mut n = KEY_LEN
            + compact_len(self.wins)
            + compact_len(self.draws)
            + compact_len(self.losses)
            + 1
            + self.moves.len()
            + 1
            + self.extra.len();
        if stores_games && self.source.is_some() {
            n += SOURCE_REF_SIZE;
        }
        if let Some(c) = &self.comment {
            n += 4 + 2 * unicode_units(c);
        }
        if let (true, Some(l)) = (stores_games, &self.links) {
            n += compact_len(l.len() as u64) + SOURCE_REF_SIZE * l.len();
        }
        n
    }

    /// Total encoded length, the `length` field included.
    pub fn encoded_len(&self, stores_games: bool) -> usize {
        let body = self.body_len(stores_games);
        compact_len(body as u64) + body
    }

    /// Makes the element fit [`MAX_ELEMENT_SIZE`] and the description's limits: at most 255
    /// moves are kept (a position has fewer legal moves), the comment is cut to
    /// [`MAX_COMMENT_CHARS`], then game references are dropped from the end of the links list,
    /// then the comment is shortened further. Returns what was dropped.
    pub fn fit(&mut self, stores_games: bool) -> Trimmed {
        let mut trimmed = Trimmed::default();
        self.moves.truncate(255);
        if let Some(c) = &mut self.comment
            && unicode_units(c) > MAX_COMMENT_CHARS
        {
            *c = truncate_units(c, MAX_COMMENT_CHARS);
            trimmed.comment = true;
        }
        while self.encoded_len(stores_games) > MAX_ELEMENT_SIZE {
            let over = self.encoded_len(stores_games) - MAX_ELEMENT_SIZE;
            if let (true, Some(l)) = (stores_games, &mut self.links)
                && !l.is_empty()
            {
                // Drop as many as needed at once (each reference is 6 bytes).
                let n = over.div_ceil(SOURCE_REF_SIZE).clamp(1, l.len());
                l.truncate(l.len() - n);
                trimmed.links += n;
                continue;
            }
            if let Some(c) = &mut self.comment
                && !c.is_empty()
            {
                let keep = unicode_units(c).saturating_sub(over.div_ceil(2).max(1));
                *c = truncate_units(c, keep);
                trimmed.comment = true;
                continue;
            }
            // Only unknown extra data can still be too long: drop it with its flags.
            if !self.extra.is_empty() {
                self.extra.clear();
                self.unknown_flags = 0;
                continue;
            }
            break;
        }
        trimmed
    }

    /// Appends the element's bytes. The element should have been [`Element::fit`] first;
    /// fields the book does not store (`stores_games` false) are left out.
    pub fn write(&self, stores_games: bool, out: &mut Vec<u8>) {
        write_compact(out, self.body_len(stores_games) as u64);
        out.extend_from_slice(&self.key);
        write_compact(out, self.wins);
        write_compact(out, self.draws);
        write_compact(out, self.losses);
        out.push(self.moves.len() as u8);
        out.extend_from_slice(&self.moves);
        out.push(self.flag_byte(stores_games));
        if let (true, Some(s)) = (stores_games, self.source) {
            s.write(out);
        }
        if let Some(c) = &self.comment {
            write_unicode(out, c);
        }
        if let (true, Some(l)) = (stores_games, &self.links) {
            write_compact(out, l.len() as u64);
            for s in l {
                s.write(out);
            }
        }
        out.extend_from_slice(&self.extra);
    }

    /// The element's bytes (see [`Element::write`]).
    pub fn to_bytes(&self, stores_games: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len(stores_games));
        self.write(stores_games, &mut out);
        out
    }
}

/// The first `units` UTF-16 code units of `s`, never splitting a character.
fn truncate_units(s: &str, units: usize) -> String {
    let mut n = 0;
    let mut out = String::new();
    for c in s.chars() {
        n += c.len_utf16();
        if n > units {
            break;
        }
        out.push(c);
    }
    out
}

/// The used part of a block (after the 2-byte `n`): bytes `[2, n)`. `base` is the block's
/// offset in its file.
pub fn block_payload(block: &[u8], base: u64) -> Result<&[u8], ParseError> {
    let n = chess_core::bytes::be_u16(block, 0)
        .ok_or_else(|| ParseError::truncated(base, 2, block.len() as u64))?;
    let n = usize::from(n);
    if !(2..=BLOCK_SIZE).contains(&n) || n > block.len() {
        return Err(ParseError::new(
            base,
            "a block's used length between 2 and 2048",
            n.to_string(),
        ));
    }
    Ok(&block[2..n])
}

/// The length and key of the element at the start of `data` without parsing the rest (the
/// block-scan fast path); `None` when the bytes cannot hold such an element.
#[inline]
pub fn element_head(data: &[u8]) -> Option<(usize, &Key)> {
    let (len, head) = crate::codec::peek_compact(data)?;
    let total = head.checked_add(usize::try_from(len).ok()?)?;
    if total > data.len() || (len as usize) < KEY_LEN {
        return None;
    }
    let key = data[head..head + KEY_LEN].try_into().ok()?;
    Some((total, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The word comparison is the arrays' order, for keys that differ anywhere (one byte
        /// changed, so that long shared prefixes are tried) or nowhere.
        #[test]
        fn keys_compare_as_arrays(
            a in proptest::prelude::any::<Key>(),
            at in 0..KEY_LEN,
            byte in proptest::prelude::any::<u8>(),
        ) {
            let mut b = a;
            b[at] = byte;
            proptest::prop_assert_eq!(cmp_keys(&a, &b), a.cmp(&b));
            proptest::prop_assert_eq!(cmp_keys(&b, &a), b.cmp(&a));
            proptest::prop_assert_eq!(cmp_keys(&a, &a), std::cmp::Ordering::Equal);
        }
    }

    fn sample() -> Element {
        Element {
            key: [7; KEY_LEN],
            wins: 3,
            draws: 200,
            losses: 0,
            moves: vec![0x11, 0x2a],
            source: Some(SourceRef {
                source: 1,
                game: 70_000,
            }),
            comment: Some("B33|Sicilian Defence|Pelikan, Bird Variation".into()),
            links: Some(vec![SourceRef { source: 0, game: 5 }]),
            unknown_flags: 0,
            extra: vec![],
        }
    }

    #[test]
    fn element_bytes_by_hand() {
        let e = Element {
            key: [0xab; KEY_LEN],
            wins: 1,
            draws: 130,
            losses: 0,
            moves: vec![0x11],
            ..Element::default()
        };
        let bytes = e.to_bytes(false);
        // Body: key 22 + wins 1 + draws 2 + losses 1 + count 1 + move 1 + flags 1 = 29.
        let mut expected = vec![29];
        expected.extend([0xab; KEY_LEN]);
        expected.extend([0x01, 0x81, 0x02, 0x00, 0x01, 0x11, 0x00]);
        assert_eq!(bytes, expected);
        assert_eq!(e.encoded_len(false), bytes.len());
        assert_eq!(Element::parse(&bytes, 0, false).unwrap(), (e, bytes.len()));
    }

    #[test]
    fn element_round_trip_with_every_field() {
        let e = sample();
        let bytes = e.to_bytes(true);
        assert_eq!(bytes.len(), e.encoded_len(true));
        assert_eq!(
            Element::parse(&bytes, 0, true).unwrap(),
            (e.clone(), bytes.len())
        );
        // A book without games drops the references and the flags that announce them.
        let plain = e.to_bytes(false);
        let (back, _) = Element::parse(&plain, 0, false).unwrap();
        assert_eq!(back.source, None);
        assert_eq!(back.links, None);
        assert_eq!(back.comment, e.comment);
    }

    #[test]
    fn unknown_flags_are_skipped_by_length() {
        let mut e = sample();
        e.unknown_flags = 0x80;
        e.extra = vec![1, 2, 3];
        let bytes = e.to_bytes(true);
        let (back, n) = Element::parse(&bytes, 0, true).unwrap();
        assert_eq!((back, n), (e, bytes.len()));
        // Without unknown flags, trailing bytes are an inconsistency.
        let mut bad = sample().to_bytes(true);
        bad[0] += 1;
        bad.push(0);
        assert!(Element::parse(&bad, 0, true).is_err());
    }

    #[test]
    fn fit_trims_links_then_comment() {
        let mut e = sample();
        e.links = Some((0..200).map(|g| SourceRef { source: 0, game: g }).collect());
        let t = e.fit(true);
        assert!(e.encoded_len(true) <= MAX_ELEMENT_SIZE);
        assert!(e.encoded_len(true) > MAX_ELEMENT_SIZE - SOURCE_REF_SIZE);
        assert_eq!(t.links, 200 - e.links.as_ref().unwrap().len());
        assert!(!t.comment);
        // The kept references are the first ones.
        assert_eq!(e.links.as_ref().unwrap()[3].game, 3);
        let mut e = sample();
        e.comment = Some("я".repeat(400));
        let t = e.fit(true);
        assert!(t.comment);
        assert_eq!(unicode_units(e.comment.as_ref().unwrap()), 300);
        e.links = Some(vec![SourceRef { source: 0, game: 0 }; 20]);
        e.fit(true);
        assert!(e.encoded_len(true) <= MAX_ELEMENT_SIZE);
    }

    #[test]
    fn header_round_trip() {
        let h = Header {
            caption: "Тест".into(),
            min_elo_white: 2000,
            min_elo_black: 0,
            min_elo_strong: 2400,
            min_elo_weak: 1,
            max_move: 40,
            element_type: 1,
            links: 1,
            block_count: 77,
        };
        let bytes = h.to_bytes();
        assert_eq!(bytes.len(), 1 + 4 + 8 + 8 + 3 + 4);
        assert_eq!(Header::parse(&bytes).unwrap(), (h, bytes.len()));
        let mut other = bytes.clone();
        other[0] = 2;
        assert!(Header::parse(&other).is_err());
        assert!(Header::parse(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn block_payload_limits() {
        let mut block = vec![0u8; BLOCK_SIZE];
        block[1] = 2;
        assert_eq!(block_payload(&block, 0).unwrap().len(), 0);
        block[0] = 0x08;
        block[1] = 0x01;
        assert!(block_payload(&block, 4096).is_err());
        block[0] = 0;
        block[1] = 1;
        assert_eq!(block_payload(&block, 4096).unwrap_err().offset, 4096);
    }
}
