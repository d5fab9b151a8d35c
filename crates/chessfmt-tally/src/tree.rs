//! A table as one PGN game: the opening tree with variations (`chessfmt tally to-pgn`).
//!
//! From the start position, the most played move (then the first played, as a book orders
//! equal weights) is the main line and the others are variations, each continued the same
//! way, to `max_ply` plies; moves played in fewer than `min_games` games are left out. Each
//! move carries its results as a comment, from White's side as the table keeps them:
//! `{N games, +W =D -B}`. A position reached by different move orders is written under each
//! (a tree, not a graph); a line that repeats a position of its own path stops there.
//!
//! A book's rows ([`Counts::from_book`]) keep the book's order of a position's moves (its
//! first move is the main line), and a CTG book's marks become NAGs after the move: its
//! annotation (the byte's low five bits: `$1` `!`, `$2` `?`, …) and the comment on the
//! position after it (`$14` `+=`, …). A book's colours (green, red) have no PGN form.

use std::{
    collections::{HashMap, HashSet},
    io::Write,
};

use chess_core::{movetext::Movetext, polyglot_key};
use shakmaty::{Chess, Position, san::SanPlus, uci::UciMove};

use crate::{Counts, Error, Row};

/// Options of [`write_tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeOptions {
    /// Plies from the start position.
    pub max_ply: usize,
    /// Moves played in fewer games are left out.
    pub min_games: u64,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            max_ply: 12,
            min_games: 1,
        }
    }
}

impl TreeOptions {
    /// With `max_ply` plies.
    #[must_use]
    pub fn with_max_ply(mut self, plies: usize) -> Self {
        self.max_ply = plies;
        self
    }

    /// Leaving out moves played in fewer than `games` games.
    #[must_use]
    pub fn with_min_games(mut self, games: u64) -> Self {
        self.min_games = games;
        self
    }
}

/// What [`write_tree`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeStats {
    /// Rows read.
    pub rows: u64,
    /// Rows kept (played in at least `min_games` games).
    pub kept: u64,
    /// Moves written (a position under several move orders counts each time).
    pub moves: u64,
    /// Rows whose move is not legal in their position (left out).
    pub illegal: u64,
    /// Kept rows the tree holds (each once, however many move orders reach it): the others
    /// lie past `max_ply`, or no line from the start reaches them.
    pub in_tree: u64,
}

/// A book move of the tree: its move in the position, and its results.
struct TreeMove {
    uci: String,
    counts: Counts,
}

/// Writes the rows of a table as one PGN game with variations (see the
/// [module](self) documentation) to `out`.
///
/// ```
/// use chessfmt_tally::{Counts, Row, tree::{TreeOptions, write_tree}};
/// use shakmaty::{Chess, EnPassantMode, Position, fen::Epd};
///
/// let start = Chess::default();
/// let epd = Epd::from_position(&start, EnPassantMode::Legal).to_string();
/// let key = chess_core::polyglot_key(&start);
/// let mut e4 = Row::new(key, epd.clone(), "e2e4");
/// e4.counts = Counts { white: 2, games: 3, draws: 1, ..Counts::default() };
/// let mut d4 = Row::new(key, epd, "d2d4");
/// d4.counts = Counts { black: 1, games: 1, ..Counts::default() };
/// let mut pgn = Vec::new();
/// write_tree([Ok(e4), Ok(d4)], TreeOptions::default(), &mut pgn)?;
/// let pgn = String::from_utf8(pgn)?;
/// assert!(pgn.ends_with("1. e4 {3 games, +2 =1 -0} (1. d4 {1 games, +0 =0 -1}) *\n\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_tree(
    rows: impl IntoIterator<Item = Result<Row, Error>>,
    options: TreeOptions,
    out: &mut dyn Write,
) -> Result<TreeStats, Error> {
    let mut stats = TreeStats::default();
    let mut moves: HashMap<u64, Vec<TreeMove>> = HashMap::new();
    for row in rows {
        let row = row?;
        stats.rows += 1;
        if row.counts.games < options.min_games || row.counts.games == 0 {
            continue;
        }
        stats.kept += 1;
        moves.entry(row.key).or_default().push(TreeMove {
            uci: row.uci,
            counts: row.counts,
        });
    }
    for list in moves.values_mut() {
        let book = list.iter().all(|m| m.counts.from_book);
        list.sort_by(|a, b| {
            let games = b.counts.games.cmp(&a.counts.games);
            // A book's moves in the book's order.
            let games = if book {
                std::cmp::Ordering::Equal
            } else {
                games
            };
            games
                .then(a.counts.first_seen.cmp(&b.counts.first_seen))
                .then_with(|| a.uci.cmp(&b.uci))
        });
    }
    let mut text = Movetext::new(79);
    let mut writer = TreeWriter {
        moves: &moves,
        options,
        stats: &mut stats,
        path: Vec::new(),
        written: HashSet::new(),
    };
    writer.node(&mut text, &Chess::default(), 0);
    text.token("*");
    let mut pgn = String::with_capacity(text.len() + 256);
    for (tag, value) in [
        ("Event", "Opening tree (chessfmt tally to-pgn)"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "?"),
        ("White", "?"),
        ("Black", "?"),
        ("Result", "*"),
    ] {
        pgn.push_str(&format!("[{tag} \"{value}\"]\n"));
    }
    pgn.push('\n');
    text.finish(&mut pgn);
    pgn.push_str("\n\n");
    out.write_all(pgn.as_bytes())?;
    Ok(stats)
}

struct TreeWriter<'a> {
    moves: &'a HashMap<u64, Vec<TreeMove>>,
    options: TreeOptions,
    stats: &'a mut TreeStats,
    /// Keys of the positions on the current line (a line that repeats one stops).
    path: Vec<u64>,
    /// The rows written, as (key, place in the key's list).
    written: HashSet<(u64, usize)>,
}

impl TreeWriter<'_> {
    /// Writes the moves from `pos` (at `ply`): the main move, the others as variations, then
    /// the main move's continuation.
    fn node(&mut self, text: &mut Movetext, pos: &Chess, ply: usize) {
        let key = polyglot_key(pos);
        if ply >= self.options.max_ply || self.path.contains(&key) {
            return;
        }
        let Some(list) = self.moves.get(&key) else {
            return;
        };
        let legal: Vec<(&TreeMove, shakmaty::Move)> = list
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                let mv = m
                    .uci
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(pos).ok());
                if mv.is_none() {
                    self.stats.illegal += 1;
                } else if self.written.insert((key, i)) {
                    self.stats.in_tree += 1;
                }
                mv.map(|mv| (m, mv))
            })
            .collect();
        let Some(((main, main_move), others)) = legal.split_first() else {
            return;
        };
        self.path.push(key);
        let main_after = self.play(text, pos, main, *main_move);
        for (alt, alt_move) in others {
            text.token("(");
            let mark = text.len();
            let after = self.play(text, pos, alt, *alt_move);
            self.node(text, &after, ply + 1);
            text.close_variation(mark);
        }
        self.node(text, &main_after, ply + 1);
        self.path.pop();
    }

    /// Writes one move (its number — a Black move's too, as every move follows a comment or
    /// opens a line —, SAN, the comment) and returns the position after it.
    fn play(
        &mut self,
        text: &mut Movetext,
        pos: &Chess,
        m: &TreeMove,
        mv: shakmaty::Move,
    ) -> Chess {
        text.move_number(pos.fullmoves().get(), !pos.turn().is_white());
        let mut after = pos.clone();
        let san = SanPlus::from_move_and_play_unchecked(&mut after, mv);
        text.token(&san.to_string());
        let c = &m.counts;
        // A CTG book's annotation (a NAG in the low five bits), then its comment on the
        // position after the move (a position NAG).
        for nag in [c.annotation & 0x1f, c.commentary] {
            if nag != 0 {
                text.token_fmt(format_args!("${nag}"));
            }
        }
        // The comment as one token: never broken across lines (readers keep line breaks in
        // comments).

        text.token_fmt(format_args!(
            "{{{} games, +{} ={} -{}}}",
            c.games, c.white, c.draws, c.black
        ));
        self.stats.moves += 1;
        after
    }
}

#[cfg(test)]
mod book_tests {
    use super::*;
    use shakmaty::{EnPassantMode, fen::Epd};

    fn start_rows(from_book: bool) -> Vec<Result<Row, Error>> {
        let start = Chess::default();
        let epd = Epd::from_position(&start, EnPassantMode::Legal).to_string();
        let key = polyglot_key(&start);
        let row = |uci: &str, games, seen, annotation, commentary| {
            let mut r = Row::new(key, epd.clone(), uci);
            r.counts = Counts {
                draws: games,
                games,
                first_seen: seen,
                annotation,
                commentary,
                from_book,
                ..Counts::default()
            };
            Ok(r)
        };
        vec![row("e2e4", 20, 1, 0x25, 0), row("d2d4", 10, 0, 1, 14)]
    }

    fn tree(rows: Vec<Result<Row, Error>>) -> String {
        let mut pgn = Vec::new();
        write_tree(rows, TreeOptions::default(), &mut pgn).unwrap();
        let pgn = String::from_utf8(pgn).unwrap();
        pgn.lines()
            .rev()
            .find(|l| !l.is_empty())
            .unwrap()
            .to_string()
    }

    /// A book's moves keep the book's order (its first move the main line) and their marks
    /// as NAGs (the annotation's low five bits, then the comment on the position after);
    /// rows from games are ordered by games.
    #[test]
    fn a_books_order_and_marks() {
        assert_eq!(
            tree(start_rows(true)),
            "1. d4 $1 $14 {10 games, +0 =10 -0} (1. e4 $5 {20 games, +0 =20 -0}) *"
        );
        assert_eq!(
            tree(start_rows(false)),
            "1. e4 $5 {20 games, +0 =20 -0} (1. d4 $1 $14 {10 games, +0 =10 -0}) *"
        );
    }
}
