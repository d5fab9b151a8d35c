//! Polyglot books from and to the statistics table of `chessfmt-tally`.
//!
//! **From a table** ([`from_tally`]): each row's plays count `n = games` and the mover's score
//! `sum = 2·wins + draws + games without result` (the build's points); the filters and the
//! weight are those of a build from PGN ([`BuildOptions`]: `min_game`, `min_score`, `only`,
//! `uniform`; `max_ply` and `memory_limit` belong to the tally); moves of equal weight keep
//! the order they were first seen in ([`chessfmt_tally::Counts::first_seen`]). The book is
//! therefore byte for byte the one a build from the same games makes, as long as no position
//! reaches [`COUNT_MAX`] plays of one move: there a build halves the position's counts as the
//! games come (the result depends on their order, which a table does not keep), and this
//! writer halves the totals instead, until every count is below it. Such positions are
//! counted in [`FromTallyStats::halved`].
//!
//! **To a table** ([`to_tally`]): the book is walked from the start position (a Polyglot book
//! stores keys, not positions: entries no walk reaches cannot become rows, and are counted);
//! each move's weight becomes its games, without results (so that [`from_tally`] with
//! `min_game` 1 gives the weights back), and learn fields are dropped (counted).

use std::collections::HashSet;

use chessfmt_tally::{Counts, Error as TallyError, Row};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, fen::Epd, uci::UciMove};

use super::build::{BuildOptions, COUNT_MAX};
use crate::{moves::encode_move, raw::Entry, read::Book};

/// What [`from_tally`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FromTallyStats {
    /// Rows read.
    pub rows: u64,
    /// Rows whose position or move could not be read (bad EPD, a move that is not legal
    /// there): left out, the first few kept in [`FromTallyStats::examples`].
    pub bad_rows: u64,
    /// Positions whose counts were halved to fit (see the [module](self) documentation).
    pub halved: u64,
    /// Entries of the book.
    pub entries: usize,
    /// The first bad rows, as messages.
    pub examples: Vec<String>,
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
    let mut stats = FromTallyStats::default();
    let mut entries = Vec::new();
    let mut key = None;
    let mut pairs: Vec<Pair> = Vec::new();
    let mut last_epd = String::new();
    let mut pos: Option<Chess> = None;
    for row in rows {
        let row = row?;
        stats.rows += 1;
        if key != Some(row.key) {
            if let Some(k) = key {
                flush(k, &mut pairs, options, &mut entries, &mut stats);
            }
            key = Some(row.key);
        }
        if row.epd != last_epd || pos.is_none() {
            last_epd.clone_from(&row.epd);
            pos = row
                .epd
                .parse::<Epd>()
                .ok()
                .and_then(|e| e.into_position(CastlingMode::Chess960).ok());
        }
        let Some(p) = &pos else {
            bad(
                &mut stats,
                format!("key {:016x}: not a legal position: {}", row.key, row.epd),
            );
            continue;
        };
        let Some(m) = row
            .uci
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(p).ok())
        else {
            bad(
                &mut stats,
                format!("{}: not a legal move there: {}", row.epd, row.uci),
            );
            continue;
        };
        let c = &row.counts;
        let (wins, _losses) = match p.turn() {
            Color::White => (c.white, c.black),
            Color::Black => (c.black, c.white),
        };
        let sum = 2 * wins + c.draws + c.unknown();
        let mv = encode_move(m);
        match pairs.iter_mut().find(|q| q.mv == mv) {
            // Two positions of one key (a collision) count as one, as in a build.
            Some(q) => {
                q.n += c.games;
                q.sum += sum;
                q.first_seen = q.first_seen.min(c.first_seen);
            }
            None => pairs.push(Pair {
                mv,
                white_to_move: p.turn() == Color::White,
                n: c.games,
                sum,
                first_seen: c.first_seen,
            }),
        }
    }
    if let Some(k) = key {
        flush(k, &mut pairs, options, &mut entries, &mut stats);
    }
    stats.entries = entries.len();
    Ok((entries, stats))
}

fn bad(stats: &mut FromTallyStats, message: String) {
    stats.bad_rows += 1;
    if stats.examples.len() < 5 {
        stats.examples.push(message);
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
            weight: if options.uniform {
                1
            } else {
                u16::try_from(sum).unwrap_or(u16::MAX)
            },
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
