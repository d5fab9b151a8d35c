//! Polyglot books from and to the statistics table of `chessfmt-tally`.
//!
//! **From a table** ([`from_tally`]): each row's plays count `n = games` and the mover's score
//! `sum = 2·wins + draws + games without result` (the build's points); the filters and the
//! weight are those of a build from PGN ([`BuildOptions`]: `min_game`, `min_score`, `only`,
//! `uniform`, `weight`; `max_ply` and `memory_limit` belong to the tally); moves of equal weight keep
//! the order they were first seen in ([`chessfmt_tally::Counts::first_seen`]). The book is
//! therefore byte for byte the one a build from the same games makes, as long as no position
//! reaches [`COUNT_MAX`] plays of one move: there a build halves the position's counts as the
//! games come (the result depends on their order, which a table does not keep), and this
//! writer halves the totals instead, until every count is below it. Such positions are
//! counted in [`FromTallyStats::halved`].
//!
//! **To a table** ([`to_tally`]): the book is walked from the start position (a Polyglot book
//! stores keys, not positions: entries no walk reaches cannot become rows, and are counted);
//! a book has weights, not results, so each move's weight becomes that many drawn games (as
//! `kvetka_book::convert::from_polyglot` stores them; [`from_tally`] with `min_game` 1 gives
//! the weights back: 2·0 + draws), and learn fields are dropped (counted).

use std::collections::HashSet;

use chessfmt_tally::{BadRows, Counts, Error as TallyError, Row, RowBatch, RowRef};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, fen::Epd};

use super::build::{BuildOptions, COUNT_MAX};
use crate::{raw::Entry, read::Book};

/// What [`from_tally`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FromTallyStats {
    /// Rows read.
    pub rows: u64,
    /// Rows whose position or move could not be read (a move square without a piece of the
    /// side to move, a bad promotion; legality is not checked): left out, the first few kept as messages.
    pub bad_rows: BadRows,
    /// Positions whose counts were halved to fit (see the [module](self) documentation).
    pub halved: u64,
    /// Rows with a book's annotation, recommendation or commentary (a CTG book's table,
    /// [`chessfmt_tally::Counts::annotation`]): Polyglot has no place for them.
    pub annotations_dropped: u64,
    /// Entries of the book.
    pub entries: usize,
}

/// One move of a position gathered from the table's rows.
struct Pair {
    mv: u16,
    white_to_move: bool,
    n: u64,
    sum: u64,
    first_seen: u64,
}

/// The book of a table (rows sorted by key, as a table is written). Returns the entries,
/// sorted as a book is, and what was done; an error of the rows' reader ends it.
pub fn from_tally(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
    options: &BuildOptions,
) -> Result<(Vec<Entry>, FromTallyStats), TallyError> {
    let mut book = Gather::new(options);
    for row in rows {
        book.add(row?.as_ref());
    }
    Ok(book.finish())
}

/// [`from_tally`] from batches of rows ([`chessfmt_tally::table::open_batches`]): the same
/// book, without an owned row per row.
pub fn from_tally_batches(
    batches: impl IntoIterator<Item = Result<RowBatch, TallyError>>,
    options: &BuildOptions,
) -> Result<(Vec<Entry>, FromTallyStats), TallyError> {
    let mut book = Gather::new(options);
    for batch in batches {
        for row in batch?.iter() {
            book.add(row);
        }
    }
    Ok(book.finish())
}

/// A book being gathered from rows sorted by key: the moves of the current key, then its
/// entries.
struct Gather<'o> {
    options: &'o BuildOptions,
    stats: FromTallyStats,
    entries: Vec<Entry>,
    key: Option<u64>,
    pairs: Vec<Pair>,
}

impl<'o> Gather<'o> {
    fn new(options: &'o BuildOptions) -> Self {
        Gather {
            options,
            stats: FromTallyStats::default(),
            entries: Vec::new(),
            key: None,
            pairs: Vec::new(),
        }
    }

    fn add(&mut self, row: RowRef<'_>) {
        self.stats.rows += 1;
        self.stats.annotations_dropped += u64::from(row.counts.book_bytes() != [0; 3]);
        if self.key != Some(row.key) {
            self.flush();
            self.key = Some(row.key);
        }
        let Some((mv, turn)) =
            EpdBoard::read(row.epd).and_then(|b| Some((b.encode(row.uci)?, b.turn)))
        else {
            self.stats.bad_rows.note(format!(
                "{}: not a move of the side to move there: {}",
                row.epd, row.uci
            ));
            return;
        };
        let c = row.counts;
        let (wins, _losses) = match turn {
            Color::White => (c.white, c.black),
            Color::Black => (c.black, c.white),
        };
        let sum = 2 * wins + c.draws + c.unknown();
        match self.pairs.iter_mut().find(|q| q.mv == mv) {
            // Two positions of one key (a collision) count as one, as in a build.
            Some(q) => {
                q.n += c.games;
                q.sum += sum;
                q.first_seen = q.first_seen.min(c.first_seen);
            }
            None => self.pairs.push(Pair {
                mv,
                white_to_move: turn == Color::White,
                n: c.games,
                sum,
                first_seen: c.first_seen,
            }),
        }
    }

    /// The entries of the current key.
    fn flush(&mut self) {
        if let Some(k) = self.key {
            flush(
                k,
                &mut self.pairs,
                self.options,
                &mut self.entries,
                &mut self.stats,
            );
        }
    }

    fn finish(mut self) -> (Vec<Entry>, FromTallyStats) {
        self.flush();
        self.stats.entries = self.entries.len();
        (self.entries, self.stats)
    }
}

/// The board and side to move of a row's EPD, read from its first two fields without
/// building the position (a table holds millions of rows, most of them of a position of
/// their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EpdBoard<'a> {
    board: &'a [u8],
    turn: Color,
}

impl<'a> EpdBoard<'a> {
    /// `None` when the EPD has no side to move (`w` or `b` as its second field).
    fn read(epd: &'a str) -> Option<EpdBoard<'a>> {
        let e = epd.as_bytes();
        let board_end = e.iter().position(|&b| b == b' ')?;
        let turn = match (e.get(board_end + 1), e.get(board_end + 2)) {
            (Some(b'w'), None | Some(b' ')) => Color::White,
            (Some(b'b'), None | Some(b' ')) => Color::Black,
            _ => return None,
        };
        Some(EpdBoard {
            board: &e[..board_end],
            turn,
        })
    }

    /// The piece letter on `square` (0 = a1), `None` when empty: one pass over the board
    /// field's bytes, rank 8 first, as far as the square. Ranks past the eighth and squares
    /// past the h-file are left out; missing ones are empty.
    fn piece_at(&self, square: u8) -> Option<u8> {
        let (row, file) = (7 - square / 8, square % 8);
        let (mut r, mut f) = (0u8, 0u8);
        for &c in self.board {
            if c == b'/' {
                r += 1;
                f = 0;
                if r > row {
                    return None;
                }
                continue;
            }
            if r != row {
                continue;
            }
            if c.is_ascii_digit() {
                f += c - b'0';
            } else {
                if f == file {
                    return Some(c);
                }
                f += 1;
            }
            if f > file {
                return None;
            }
        }
        None
    }

    /// The Polyglot move field of `uci` here: UCI and Polyglot differ only in standard
    /// castling, which Polyglot writes as the king taking its rook. `None` when the move's
    /// square holds no piece of the side to move, or a promotion is not a pawn's to the last
    /// rank.
    fn encode(&self, uci: &str) -> Option<u16> {
        let u = uci.as_bytes();
        if !(4..=5).contains(&u.len()) {
            return None;
        }
        let square = |f: u8, r: u8| -> Option<u8> {
            ((b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r))
                .then(|| (r - b'1') * 8 + (f - b'a'))
        };
        let (from, mut to) = (square(u[0], u[1])?, square(u[2], u[3])?);
        let piece = self.piece_at(from)?;
        let white = self.turn == Color::White;
        if piece.is_ascii_uppercase() != white {
            return None;
        }
        let promotion = match u.get(4) {
            None => 0,
            Some(p) => {
                let last = if white { 7 } else { 0 };
                if !piece.eq_ignore_ascii_case(&b'p') || to / 8 != last {
                    return None;
                }
                match p {
                    b'n' => 1,
                    b'b' => 2,
                    b'r' => 3,
                    b'q' => 4,
                    _ => return None,
                }
            }
        };
        // The king's two-square move from its e-square is castling: Polyglot names the rook.
        let home = if white { 4 } else { 60 };
        if piece.eq_ignore_ascii_case(&b'k') && from == home && to.abs_diff(from) == 2 {
            to = if to > from { from + 3 } else { from - 4 };
        }
        Some(u16::from(to) | u16::from(from) << 6 | promotion << 12)
    }
}

/// The entries of one position: halved to fit, filtered, weighed, ordered by weight then
/// first seen.
fn flush(
    key: u64,
    pairs: &mut Vec<Pair>,
    options: &BuildOptions,
    entries: &mut Vec<Entry>,
    stats: &mut FromTallyStats,
) {
    let max = u64::from(COUNT_MAX);
    if pairs.iter().any(|p| p.n >= max) {
        stats.halved += 1;
        while pairs.iter().any(|p| p.n >= max) {
            for p in pairs.iter_mut() {
                p.n = p.n.div_ceil(2);
                p.sum = p.sum.div_ceil(2);
            }
        }
    }
    pairs.sort_by_key(|p| p.first_seen);
    let start = entries.len();
    for p in pairs.drain(..) {
        let (n, sum) = (p.n, p.sum);
        if n < u64::from(options.min_game) || sum == 0 {
            continue;
        }
        let score = (sum as f64 / n as f64) / 2.0;
        if score < options.min_score / 100.0 {
            continue;
        }
        if matches!(
            (options.only, p.white_to_move),
            (Some(Color::White), false) | (Some(Color::Black), true)
        ) {
            continue;
        }
        entries.push(Entry {
            key,
            raw_move: p.mv,
            weight: options.weigh(
                u16::try_from(n).unwrap_or(u16::MAX),
                u16::try_from(sum).unwrap_or(u16::MAX),
            ),
            learn: 0,
        });
    }
    // Stable: equal weights stay in first-seen order.
    entries[start..].sort_by_key(|e| std::cmp::Reverse(e.weight));
}

/// What [`to_tally`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToTallyStats {
    /// Positions reached by the walk and written.
    pub positions: u64,
    /// Rows written.
    pub rows: u64,
    /// Entries of the book no walk from the start position reaches (not written).
    pub unreachable_entries: u64,
    /// Entries whose move is not legal in their position (not written).
    pub illegal_entries: u64,
    /// Written entries whose learn field was not 0 (the table has no place for it).
    pub learn_dropped: u64,
}

/// The rows of a book (see the [module](self) documentation), sorted as a table is.
pub fn to_tally<D: AsRef<[u8]>>(book: &Book<D>) -> (Vec<Row>, ToTallyStats) {
    let mut stats = ToTallyStats::default();
    let mut rows = Vec::new();
    let mut reached: HashSet<u64> = HashSet::new();
    let mut walk = chess_core::book::walk(book, Chess::default(), None);
    for node in walk.by_ref() {
        let key = chess_core::polyglot_key(&node.position);
        if !reached.insert(key) {
            continue;
        }
        stats.positions += 1;
        let epd = Epd::from_position(&node.position, EnPassantMode::Legal).to_string();
        for (i, m) in node.probe.moves.iter().enumerate() {
            stats.learn_dropped += u64::from(m.learn != 0);
            let mut row = Row::new(
                key,
                epd.clone(),
                m.mv.to_uci(CastlingMode::Standard).to_string(),
            );
            row.counts = Counts {
                games: u64::from(m.weight),
                draws: u64::from(m.weight),
                first_seen: i as u64,
                ..Counts::default()
            };
            rows.push(row);
        }
    }
    let in_book: u64 = book.entries().filter(|e| reached.contains(&e.key)).count() as u64;
    stats.unreachable_entries = book.len() as u64 - in_book;
    stats.illegal_entries = in_book.saturating_sub(rows.len() as u64);
    let rows = chessfmt_tally::sort_and_sum(rows);
    stats.rows = rows.len() as u64;
    (rows, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    fn encode_row(epd: &str, uci: &str) -> Option<(u16, Color)> {
        let board = EpdBoard::read(epd)?;
        Some((board.encode(uci)?, board.turn))
    }

    /// Rows read in batches make the book rows one by one make (bad rows included).
    #[test]
    fn batches_make_the_same_book() {
        let mut rows = Vec::new();
        for seed in 0..60u16 {
            let choices: Vec<u16> = (0..seed % 40).map(|i| i.wrapping_mul(seed) % 397).collect();
            let pos = chess_core::fuzzing::playout(&choices);
            let epd = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
            let key = chess_core::polyglot_key::polyglot_key(&pos);
            for (i, m) in pos.legal_moves().iter().enumerate() {
                let mut row = Row::new(
                    key,
                    epd.clone(),
                    m.to_uci(CastlingMode::Standard).to_string(),
                );
                row.counts.games = 1 + i as u64 % 3;
                row.counts.white = i as u64 % 2;
                row.counts.first_seen = u64::from(seed) * 100 + i as u64;
                rows.push(row);
            }
            rows.push(Row::new(key, epd.clone(), "a3a4"));
        }
        let rows = chessfmt_tally::sort_and_sum(rows);
        let options = BuildOptions {
            min_game: 1,
            ..BuildOptions::default()
        };
        let one_by_one = from_tally(rows.iter().cloned().map(Ok), &options).unwrap();
        let batches = chessfmt_tally::table::batches(Box::new(rows.clone().into_iter().map(Ok)));
        let batched = from_tally_batches(batches, &options).unwrap();
        assert!(one_by_one.0 == batched.0);
        assert_eq!(one_by_one.1, batched.1);
        assert!(one_by_one.0.len() > 100 && one_by_one.1.bad_rows.count > 0);
    }

    /// The fast encoding is the Polyglot field of the legal move, on random playouts (every
    /// legal move of every position reached, castling and promotions included).
    #[test]
    fn rows_encode_as_the_legal_moves_do() {
        for seed in 0..200u16 {
            let choices: Vec<u16> = (0..seed % 90).map(|i| i.wrapping_mul(seed) % 397).collect();
            let pos = chess_core::fuzzing::playout(&choices);
            let epd = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
            for m in pos.legal_moves() {
                let uci = m.to_uci(CastlingMode::Standard).to_string();
                let want = crate::moves::encode_move(m);
                assert_eq!(
                    encode_row(&epd, &uci),
                    Some((want, pos.turn())),
                    "{epd} {uci}"
                );
            }
        }
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        assert_eq!(
            encode_row(start, "e7e5"),
            None,
            "a black pawn with White to move"
        );
        assert_eq!(encode_row(start, "e3e4"), None, "an empty square");
        for odd in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR wb KQkq -",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP RNBQKBNR w KQkq -",
            "rnbqkbnr/pppppppp/8/8/8/8/99999999/RNBQKBNR w KQkq -",
            "/////////////////////////////// w - -",
            "",
        ] {
            assert_eq!(encode_row(odd, "e2e4"), None, "{odd}");
        }
        assert_eq!(
            encode_row(start, "e2e4q"),
            None,
            "a promotion short of the last rank"
        );
    }
}
