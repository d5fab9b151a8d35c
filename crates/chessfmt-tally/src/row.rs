//! A row of the statistics table: one move played from one position, with its sums.

use std::cmp::Ordering;

/// What is known of one move from one position: results in White's view, games, rating
/// sums, years, and where it was first seen. Every field is a sum or a bound, so two
/// [`Counts`] of the same position and move add up ([`Counts::merge`]) in any order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Times the move was played in games White won.
    pub white: u64,
    /// Times it was played in drawn games.
    pub draws: u64,
    /// Times it was played in games Black won.
    pub black: u64,
    /// Times it was played in all (the three above plus games without a result, `*`). A
    /// position repeated in a game counts again, as Polyglot builds count.
    pub games: u64,
    /// Sum of White's `WhiteElo` over the plays whose game has one.
    pub white_elo_sum: u64,
    /// Plays whose game has a `WhiteElo`.
    pub white_elo_games: u64,
    /// Sum of Black's `BlackElo` over the plays whose game has one.
    pub black_elo_sum: u64,
    /// Plays whose game has a `BlackElo`.
    pub black_elo_games: u64,
    /// The earliest year of a game with the move (`Date`/`UTCDate`), 0 when none has one.
    pub first_year: u16,
    /// The latest year, 0 when no game has one.
    pub last_year: u16,
    /// Where the move was first played: the part ([`crate::TallyOptions::part`]) × 2^48 +
    /// the game's number (0-based, in input order) × 2^16 + the ply. It orders moves of equal
    /// weight as a build from PGN does (first seen first); the smaller is kept when counts
    /// merge. `u64::MAX` when unknown. A book's table numbers each position's moves in the
    /// book's order instead (0, 1, …).
    pub first_seen: u64,
    /// The move's annotation as a book stores it (CTG's annotation byte: its NAG in the low
    /// five bits, 1 `!`, 2 `?`, 3 `!!`, 4 `??`, 5 `!?`, 6 `?!`); 0 for none, as from games.
    /// The larger is kept when counts merge.
    pub annotation: u8,
    /// The book's colour of the move (CTG's recommendation byte, which the book keeps with
    /// the position after the move: 0x80 green, the main line; 0x40 red, to avoid); 0 for
    /// none. The larger is kept when counts merge.
    pub recommendation: u8,
    /// The book's comment on the position after the move (CTG's commentary byte, a position
    /// NAG: 10 `=`, 14 `+=`, 16 `±`, …); 0 for none. The larger is kept when counts merge.
    pub commentary: u8,
    /// Whether the counts are a book's statistics of the position after the move (every game
    /// through it, by any move order: what CTG and Kvetka keep and their readers show for a
    /// move) rather than plays of the move from games. The rows reaching one position then
    /// repeat its statistics: a book made from the table takes them from one such row
    /// instead of summing them, so a book goes through the table unchanged. Kept when counts
    /// merge with either being from a book.
    pub from_book: bool,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            white: 0,
            draws: 0,
            black: 0,
            games: 0,
            white_elo_sum: 0,
            white_elo_games: 0,
            black_elo_sum: 0,
            black_elo_games: 0,
            first_year: 0,
            last_year: 0,
            first_seen: u64::MAX,
            annotation: 0,
            recommendation: 0,
            commentary: 0,
            from_book: false,
        }
    }
}

impl Counts {
    /// Adds `other` (the counts of the same position and move from elsewhere). Sums saturate.
    pub fn merge(&mut self, other: &Counts) {
        self.white = self.white.saturating_add(other.white);
        self.draws = self.draws.saturating_add(other.draws);
        self.black = self.black.saturating_add(other.black);
        self.games = self.games.saturating_add(other.games);
        self.white_elo_sum = self.white_elo_sum.saturating_add(other.white_elo_sum);
        self.white_elo_games = self.white_elo_games.saturating_add(other.white_elo_games);
        self.black_elo_sum = self.black_elo_sum.saturating_add(other.black_elo_sum);
        self.black_elo_games = self.black_elo_games.saturating_add(other.black_elo_games);
        self.first_year = match (self.first_year, other.first_year) {
            (0, y) | (y, 0) => y,
            (a, b) => a.min(b),
        };
        self.last_year = self.last_year.max(other.last_year);
        self.first_seen = self.first_seen.min(other.first_seen);
        self.annotation = self.annotation.max(other.annotation);
        self.recommendation = self.recommendation.max(other.recommendation);
        self.commentary = self.commentary.max(other.commentary);
        self.from_book |= other.from_book;
    }

    /// The book's bytes of the move: annotation, recommendation, commentary (the table's
    /// columns of those names, in that order).
    pub fn book_bytes(&self) -> [u8; 3] {
        [self.annotation, self.recommendation, self.commentary]
    }

    /// The eight sums in the table's column order: white, draws, black, games, white Elo sum
    /// and games, black Elo sum and games.
    pub fn sums(&self) -> [u64; 8] {
        [
            self.white,
            self.draws,
            self.black,
            self.games,
            self.white_elo_sum,
            self.white_elo_games,
            self.black_elo_sum,
            self.black_elo_games,
        ]
    }

    /// The eight sums of [`Counts::sums`], in the same order, to set.
    pub fn sums_mut(&mut self) -> [&mut u64; 8] {
        [
            &mut self.white,
            &mut self.draws,
            &mut self.black,
            &mut self.games,
            &mut self.white_elo_sum,
            &mut self.white_elo_games,
            &mut self.black_elo_sum,
            &mut self.black_elo_games,
        ]
    }

    /// Plays of games without a result (`*`).
    pub fn unknown(&self) -> u64 {
        self.games
            .saturating_sub(self.white)
            .saturating_sub(self.draws)
            .saturating_sub(self.black)
    }
}

/// [`Counts`] as the map keeps them in memory: plays in 32 bits (56 bytes instead of 88).
/// A tally writes its table to a run before any of them nears 2^32 ([`Self::NEAR_FULL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SmallCounts {
    white: u32,
    draws: u32,
    black: u32,
    games: u32,
    white_elo_games: u32,
    black_elo_games: u32,
    white_elo_sum: u64,
    black_elo_sum: u64,
    first_seen: u64,
    first_year: u16,
    last_year: u16,
}

impl Default for SmallCounts {
    fn default() -> Self {
        SmallCounts {
            white: 0,
            draws: 0,
            black: 0,
            games: 0,
            white_elo_games: 0,
            black_elo_games: 0,
            white_elo_sum: 0,
            black_elo_sum: 0,
            first_seen: u64::MAX,
            first_year: 0,
            last_year: 0,
        }
    }
}

impl SmallCounts {
    /// Plays past which the table is written out (a batch adds far fewer than 2^31 more).
    pub(crate) const NEAR_FULL: u32 = 1 << 31;

    /// Counts one play of a move in `game`, first seen at `seen` ([`Counts::first_seen`]);
    /// returns whether the move's plays passed [`Self::NEAR_FULL`].
    pub(crate) fn add_play(&mut self, game: &GameFacts, seen: u64) -> bool {
        self.games = self.games.saturating_add(1);
        match game.outcome {
            Outcome::White => self.white = self.white.saturating_add(1),
            Outcome::Draw => self.draws = self.draws.saturating_add(1),
            Outcome::Black => self.black = self.black.saturating_add(1),
            Outcome::Unknown => {}
        }
        if let Some(e) = game.white_elo {
            self.white_elo_sum += u64::from(e);
            self.white_elo_games = self.white_elo_games.saturating_add(1);
        }
        if let Some(e) = game.black_elo {
            self.black_elo_sum += u64::from(e);
            self.black_elo_games = self.black_elo_games.saturating_add(1);
        }
        if let Some(y) = game.year {
            self.first_year = if self.first_year == 0 {
                y
            } else {
                self.first_year.min(y)
            };
            self.last_year = self.last_year.max(y);
        }
        self.first_seen = self.first_seen.min(seen);
        self.games >= Self::NEAR_FULL
    }

    /// The counts of a row.
    pub(crate) fn counts(&self) -> Counts {
        Counts {
            white: u64::from(self.white),
            draws: u64::from(self.draws),
            black: u64::from(self.black),
            games: u64::from(self.games),
            white_elo_sum: self.white_elo_sum,
            white_elo_games: u64::from(self.white_elo_games),
            black_elo_sum: self.black_elo_sum,
            black_elo_games: u64::from(self.black_elo_games),
            first_year: self.first_year,
            last_year: self.last_year,
            first_seen: self.first_seen,
            ..Counts::default()
        }
    }
}

/// The result of a game in White's view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    White,
    Draw,
    Black,
    Unknown,
}

/// What a game adds to each play of its moves: its result, the players' ratings, its year.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GameFacts {
    pub(crate) outcome: Outcome,
    pub(crate) white_elo: Option<u32>,
    pub(crate) black_elo: Option<u32>,
    pub(crate) year: Option<u16>,
}

/// One row of the table: a position (its Polyglot key and its EPD), a move (UCI) and the
/// [`Counts`]. A table is sorted by key, then EPD, then move ([`Row::cmp_position_move`]),
/// and holds each (key, EPD, move) once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The Polyglot key of the position (with the en passant square where a pawn could
    /// capture, legal or not, as Polyglot has it).
    pub key: u64,
    /// The position as EPD: FEN's board, side to move, castling and en passant square (only
    /// where a capture is legal) fields.
    pub epd: String,
    /// The move in UCI (`e2e4`, `e7e8q`; castling as the king's two-square move, `e1g1`,
    /// except in Chess960 games, where the king takes its rook).
    pub uci: String,
    /// The sums.
    pub counts: Counts,
}

impl Row {
    /// A row with no counts.
    pub fn new(key: u64, epd: impl Into<String>, uci: impl Into<String>) -> Row {
        Row {
            key,
            epd: epd.into(),
            uci: uci.into(),
            counts: Counts::default(),
        }
    }

    /// The table's order: key, then EPD, then move.
    pub fn cmp_position_move(&self, other: &Row) -> Ordering {
        self.as_ref().cmp_position_move(other.as_ref())
    }

    /// Whether `other` is the same position and move.
    pub fn same_position_move(&self, other: &Row) -> bool {
        self.as_ref().same_position_move(other.as_ref())
    }

    /// The row as a [`RowRef`].
    pub fn as_ref(&self) -> RowRef<'_> {
        RowRef {
            key: self.key,
            epd: &self.epd,
            uci: &self.uci,
            counts: &self.counts,
        }
    }
}

/// A row borrowed from where it was read ([`RowBatch::iter`], [`Row::as_ref`]): what a book
/// writer reads of millions of rows without making two strings of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRef<'a> {
    /// The Polyglot key ([`Row::key`]).
    pub key: u64,
    /// The position as EPD ([`Row::epd`]).
    pub epd: &'a str,
    /// The move in UCI ([`Row::uci`]).
    pub uci: &'a str,
    /// The sums.
    pub counts: &'a Counts,
}

impl RowRef<'_> {
    /// The table's order: key, then EPD, then move ([`Row::cmp_position_move`]).
    pub fn cmp_position_move(&self, other: RowRef<'_>) -> Ordering {
        self.key
            .cmp(&other.key)
            .then_with(|| self.epd.cmp(other.epd))
            .then_with(|| self.uci.cmp(other.uci))
    }

    /// Whether `other` is the same position and move.
    pub fn same_position_move(&self, other: RowRef<'_>) -> bool {
        self.key == other.key && self.uci == other.uci && self.epd == other.epd
    }

    /// The row, owned.
    pub fn to_row(&self) -> Row {
        Row {
            key: self.key,
            epd: self.epd.to_owned(),
            uci: self.uci.to_owned(),
            counts: *self.counts,
        }
    }
}

/// Rows in columns: keys, the EPDs and moves packed into one string, and the counts — a
/// batch of a table's rows in three allocations instead of two per row
/// ([`crate::table::open_batches`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowBatch {
    keys: Vec<u64>,
    text: String,
    /// Per row, the ends of its EPD and of its move in `text`.
    ends: Vec<(usize, usize)>,
    counts: Vec<Counts>,
}

impl RowBatch {
    /// An empty batch with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> RowBatch {
        RowBatch {
            keys: Vec::with_capacity(rows),
            text: String::with_capacity(rows * 64),
            ends: Vec::with_capacity(rows),
            counts: Vec::with_capacity(rows),
        }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Appends a row.
    pub fn push(&mut self, row: RowRef<'_>) {
        self.keys.push(row.key);
        self.text.push_str(row.epd);
        let epd_end = self.text.len();
        self.text.push_str(row.uci);
        self.ends.push((epd_end, self.text.len()));
        self.counts.push(*row.counts);
    }

    /// Row `i`, `None` past the rows.
    pub fn get(&self, i: usize) -> Option<RowRef<'_>> {
        let (epd_end, uci_end) = *self.ends.get(i)?;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1].1,
        };
        Some(RowRef {
            key: self.keys[i],
            epd: self.text.get(start..epd_end)?,
            uci: self.text.get(epd_end..uci_end)?,
            counts: &self.counts[i],
        })
    }

    /// The rows in order.
    pub fn iter(&self) -> impl Iterator<Item = RowRef<'_>> + '_ {
        self.keys.iter().zip(&self.ends).zip(&self.counts).scan(
            0usize,
            |start, ((&key, &(epd_end, uci_end)), counts)| {
                let row = RowRef {
                    key,
                    epd: self.text.get(*start..epd_end).unwrap_or_default(),
                    uci: self.text.get(epd_end..uci_end).unwrap_or_default(),
                    counts,
                };
                *start = uci_end;
                Some(row)
            },
        )
    }

    /// The counts of the rows, to fill in place (a reader sets them a column at a time).
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    pub(crate) fn counts_mut(&mut self) -> &mut [Counts] {
        &mut self.counts
    }
}

/// A move as the table keeps it in memory: from (6 bits), to (6 bits), promotion role
/// (3 bits; 0 none), in UCI terms.
pub(crate) fn pack_uci(m: &shakmaty::uci::UciMove) -> u16 {
    match *m {
        shakmaty::uci::UciMove::Normal {
            from,
            to,
            promotion,
        } => move_code(from, to, promotion),
        _ => 0,
    }
}

/// The code [`pack_uci`] gives a move from `from` to `to` promoting to `promotion`.
pub(crate) fn move_code(
    from: shakmaty::Square,
    to: shakmaty::Square,
    promotion: Option<shakmaty::Role>,
) -> u16 {
    u16::from(from) | u16::from(to) << 6 | promotion.map_or(0, |r| u16::from(r) << 12)
}

/// The UCI text of [`pack_uci`]'s code (the table's writers make it inline).
#[cfg(test)]
pub(crate) fn unpack_uci(code: u16) -> String {
    let sq = |i: u16, s: &mut String| {
        s.push(char::from(b'a' + (i & 7) as u8));
        s.push(char::from(b'1' + (i >> 3 & 7) as u8));
    };
    let mut s = String::with_capacity(5);
    sq(code, &mut s);
    sq(code >> 6, &mut s);
    if let Ok(role) = shakmaty::Role::try_from((code >> 12) & 7) {
        s.push(role.char());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn counts(v: [u64; 4], years: (u16, u16), seen: u64) -> Counts {
        Counts {
            white: v[0],
            draws: v[1],
            black: v[2],
            games: v[0] + v[1] + v[2] + v[3],
            white_elo_sum: v[0] * 2000,
            white_elo_games: v[0],
            black_elo_sum: v[2] * 1900,
            black_elo_games: v[2],
            first_year: years.0,
            last_year: years.1,
            first_seen: seen,
            // A book's bytes and mark from the seen number's low bits.
            annotation: (seen & 7) as u8,
            recommendation: (seen >> 3 & 0xc0) as u8,
            commentary: (seen >> 11 & 31) as u8,
            from_book: seen & 1 << 20 != 0,
        }
    }

    proptest! {
        /// Merging is commutative and associative: parts may be reduced in any order.
        #[test]
        fn merge_is_a_commutative_monoid(
            a in prop::array::uniform4(0u64..1000), b in prop::array::uniform4(0u64..1000),
            c in prop::array::uniform4(0u64..1000), ya in (0u16..3000, 0u16..3000),
            yb in (0u16..3000, 0u16..3000), sa: u64, sb: u64,
        ) {
            let (x, y, z) = (counts(a, (ya.0.min(ya.1), ya.0.max(ya.1)), sa),
                counts(b, (yb.0.min(yb.1), yb.0.max(yb.1)), sb), counts(c, (0, 0), u64::MAX));
            let mut xy = x; xy.merge(&y);
            let mut yx = y; yx.merge(&x);
            prop_assert_eq!(xy, yx);
            let mut l = xy; l.merge(&z);
            let mut yz = y; yz.merge(&z);
            let mut r = x; r.merge(&yz);
            prop_assert_eq!(l, r);
            let mut id = x; id.merge(&Counts::default());
            prop_assert_eq!(id, x);
            prop_assert_eq!(xy.unknown(), a[3] + b[3]);
        }

        /// Moves pack and unpack to the same UCI text.
        #[test]
        fn uci_codes_round_trip(from in 0u32..64, to in 0u32..64, promo in 0u8..6) {
            let promotion = shakmaty::Role::try_from(promo).ok().filter(|r| *r != shakmaty::Role::Pawn);
            let m = shakmaty::uci::UciMove::Normal {
                from: shakmaty::Square::new(from),
                to: shakmaty::Square::new(to),
                promotion,
            };
            prop_assert_eq!(unpack_uci(pack_uci(&m)), m.to_string());
        }
    }
}
