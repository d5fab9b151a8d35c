//! Kvetka books from and to the statistics table of `chessfmt-tally`.
//!
//! **From a table** ([`from_tally`]): an element's wins, draws and losses (its side to move's)
//! sum the rows that reach its position (every game through it, those ending there included;
//! the start of the lines, which no row reaches, sums the rows leaving it); its moves are
//! those leaving it, in the order they were first played
//! ([`Counts::first_seen`]), as a build keeps them. Games without a result count nowhere (a
//! build adds only games with a result), and a move played only in such games is left out.
//! Where a build counts a game once per position, a table counts every play: a position
//! repeated in a game counts again. The header's Elo filters need the games, not a table: they
//! do not apply. Moves Kvetka cannot code are counted ([`FromTallyStats::uncodable_moves`]).
//! Rows from a book ([`Counts::from_book`]) each carry the results of the position they
//! reach: those are taken once (the largest, where tables of several books were merged), not
//! summed, and a book's move is kept even without results.
//!
//! **To a table** ([`to_tally`]): the book is walked from the start position; each move's row
//! holds the statistics of the element after it, turned to the mover's view and to White's
//! (as a Kvetka reader shows a move's: every game through that position, by any move order),
//! marked as a book's, with its place among the position's moves. A book made back from the
//! table is the same in every element the walk reaches, but the start's own results where
//! they are not the sum of its moves' ([`ToTallyStats::start_not_kept`]). Comments and game
//! references have no place in a table and are counted, as are elements no walk reaches.

use chessfmt_tally::{
    BadRows, Counts, Error as TallyError, Row,
    gather::{
        CHUNK_ROWS, GatherError, Gathering, Reaching, Spill, Statistics, gather, gather_spilling,
    },
};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, fen::Epd};

use crate::{
    Book, Error,
    accumulate::{Acc, element_of},
    moves, position,
    raw::{Element, Key},
};

/// What [`from_tally`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FromTallyStats {
    /// Rows read.
    pub rows: u64,
    /// Rows left out: a position that cannot be read or keyed, or a move that is not legal
    /// there (the first few as messages).
    pub bad_rows: BadRows,
    /// Moves Kvetka has no code for (left out; their plays count for the position).
    pub uncodable_moves: u64,
    /// Moves played only in games without a result (left out).
    pub without_result: u64,
    /// Rows with a book's annotation, recommendation or commentary (a CTG book's table,
    /// [`Counts::annotation`]): Kvetka has no place for them.
    pub annotations_dropped: u64,
    /// Elements of the book.
    pub elements: usize,
}

/// An element being gathered: its side to move's results from the rows leaving it and from
/// the rows reaching it (games' summed, a book's taken once: [`Reaching`]), and its moves
/// with where each was first played.
#[derive(Debug, Default)]
struct Gathered {
    out: [u64; 3],
    into: Reaching<[u64; 3]>,
    rows_in: bool,
    moves: Vec<(u64, u8)>,
}

/// [wins, draws, losses] of `side` in the plays of `c`.
fn wdl(c: &Counts, side: Color) -> [u64; 3] {
    match side {
        Color::White => [c.white, c.draws, c.black],
        Color::Black => [c.black, c.draws, c.white],
    }
}

impl Gathered {
    /// The element of the position `key`.
    fn element(mut self, key: Key) -> Element {
        // The rows reaching it (every game through it, those ending there included); the
        // start of the lines, which no row reaches, takes the rows leaving it.
        let [wins, draws, losses] = if self.rows_in {
            self.into.total()
        } else {
            self.out
        };
        self.moves.sort_unstable();
        let mut acc = Acc {
            wins,
            draws,
            losses,
            ..Acc::default()
        };
        for (_, code) in self.moves {
            acc.moves.add_new(code);
        }
        element_of(key, acc)
    }

    /// Adds a play of the move coded `code`, first played at `first_seen`.
    fn add_move(&mut self, first_seen: u64, code: u8) {
        match self.moves.iter_mut().find(|(_, k)| *k == code) {
            Some(e) => e.0 = e.0.min(first_seen),
            None => self.moves.push((first_seen, code)),
        }
    }

    /// Adds `other` (gathered from rows after this one's).
    fn merge(&mut self, other: Gathered) {
        self.out.add(&other.out);
        self.into.merge(&other.into);
        self.rows_in |= other.rows_in;
        for (first_seen, code) in other.moves {
            self.add_move(first_seen, code);
        }
    }
}

/// What one chunk of rows adds ([`chessfmt_tally::map_chunks`]).
#[derive(Default)]
struct Partial {
    /// In shards, merged a shard at a time on the pool (not all on one thread).
    elements: chessfmt_tally::ShardedMap<Key, Gathered>,
    stats: FromTallyStats,
}

impl Partial {
    /// Resolves and codes `rows` (a position parsed once per run of rows of one position).
    fn of(rows: &[Row]) -> Partial {
        let mut part = Partial::default();
        let (elements, stats) = (&mut part.elements, &mut part.stats);
        let mut resolver = chessfmt_tally::RowResolver::new();
        for row in rows {
            stats.rows += 1;
            stats.annotations_dropped += u64::from(row.counts.book_bytes() != [0; 3]);
            let (p, m) = match resolver.resolve(row) {
                Ok(r) => r,
                Err(why) => {
                    stats.bad_rows.note(why);
                    continue;
                }
            };
            let Some(key) = position::key_of(p) else {
                stats
                    .bad_rows
                    .note(format!("a position Kvetka cannot key: {}", row.epd));
                continue;
            };
            let c = &row.counts;
            // A book's move keeps its place even without results.
            if c.white + c.draws + c.black == 0 && !c.from_book {
                stats.without_result += 1;
                continue;
            }
            let g = elements.entry(key);
            g.out.add(&wdl(c, p.turn()));
            match moves::encode_real(p, m) {
                Some(code) => g.add_move(c.first_seen, code),
                None => stats.uncodable_moves += 1,
            }
            let mut child = p.clone();
            child.play_unchecked(m);
            if let Some(ckey) = position::key_of(&child) {
                let g = elements.entry(ckey);
                g.into.add(c, wdl(c, child.turn()));
                g.rows_in = true;
            }
        }
        part
    }
}

impl Gathering for Partial {
    type Key = Key;
    type Entry = Gathered;

    fn positions(&mut self) -> &mut chessfmt_tally::ShardedMap<Key, Gathered> {
        &mut self.elements
    }

    /// Adds `other` (the chunk after this one's rows).
    fn merge(&mut self, other: Partial) {
        self.elements.merge(other.elements, Gathered::merge);
        let (s, o) = (&mut self.stats, other.stats);
        s.rows += o.rows;
        s.bad_rows.add(o.bad_rows);
        s.uncodable_moves += o.uncodable_moves;
        s.without_result += o.without_result;
        s.annotations_dropped += o.annotations_dropped;
    }
}

/// The elements of a Kvetka book made from a table (see the [module](self) documentation),
/// sorted by key. Rows are resolved and coded in chunks on the current rayon pool and summed
/// in order: the same elements as one pass over the rows.
pub fn from_tally(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
) -> Result<(Vec<Element>, FromTallyStats), TallyError> {
    from_tally_in_chunks(rows, CHUNK_ROWS)
}

/// [`from_tally`] with chunks of `chunk_rows` rows (tests cut a table finely).
fn from_tally_in_chunks(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
    chunk_rows: usize,
) -> Result<(Vec<Element>, FromTallyStats), TallyError> {
    let Partial {
        elements,
        mut stats,
    } = gather(rows, chunk_rows, Partial::of)?;
    let mut out: Vec<Element> = elements
        .into_entries()
        .map(|(key, g)| g.element(key))
        .collect();
    out.sort_unstable_by_key(|e| e.key);
    stats.elements = out.len();
    Ok((out, stats))
}

/// Bytes of memory an element being gathered is counted for: its key, sums and moves in a
/// hash table.
const BYTES_PER_GATHERED: usize = 192;

/// Why [`write_from_tally`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FromTallyError {
    /// The table could not be read.
    #[error(transparent)]
    Table(#[from] TallyError),
    /// The book (or the temporary runs beside it) could not be written.
    #[error(transparent)]
    Book(#[from] Error),
}

/// An element being gathered, as a run holds it.
struct Spilled {
    key: Key,
    g: Gathered,
}

impl chessfmt_files::runs::Record for Spilled {
    type Key = Key;

    fn key(&self) -> Key {
        self.key
    }

    fn write(&self, out: &mut Vec<u8>) {
        use chessfmt_files::runs::put_varint;
        let g = &self.g;
        out.extend_from_slice(&self.key);
        for v in g.out.iter().chain(&g.into.games).copied() {
            put_varint(out, v);
        }
        out.push(u8::from(g.rows_in));
        match g.into.book {
            None => out.push(0),
            Some(b) => {
                out.push(1);
                for v in b {
                    put_varint(out, v);
                }
            }
        }
        // At most one entry a move code.
        put_varint(out, g.moves.len() as u64);
        for &(first_seen, code) in &g.moves {
            put_varint(out, first_seen);
            out.push(code);
        }
    }

    fn read(r: &mut impl std::io::Read) -> std::io::Result<Option<Self>> {
        let mut key = [0; crate::raw::KEY_LEN];
        if !chessfmt_files::runs::read_start(r, &mut key)? {
            return Ok(None);
        }
        use chessfmt_files::runs::get_varint;
        let mut n = [0u64; 6];
        for v in &mut n {
            *v = get_varint(r)?;
        }
        let mut flag = [0; 2];
        r.read_exact(&mut flag)?;
        let book = match flag[1] {
            0 => None,
            _ => Some([get_varint(r)?, get_varint(r)?, get_varint(r)?]),
        };
        let mut g = Gathered {
            out: [n[0], n[1], n[2]],
            into: Reaching {
                games: [n[3], n[4], n[5]],
                book,
            },
            rows_in: flag[0] != 0,
            moves: Vec::new(),
        };
        // A move code is a byte: more than 256 entries is not a run of ours.
        let moves = get_varint(r)?;
        if moves > 256 {
            return Err(std::io::Error::other("a run's element has too many moves"));
        }
        for _ in 0..moves {
            let first_seen = get_varint(r)?;
            let mut code = [0; 1];
            r.read_exact(&mut code)?;
            g.moves.push((first_seen, code[0]));
        }
        Ok(Some(Spilled { key, g }))
    }
}

/// [`from_tally`] written as it is made: the elements go to `writer` in key order, and with a
/// `limit` the elements being gathered stay near it — past it they are written to sorted
/// runs (anonymous temporary files in the limit's folder) and merged as the book is
/// written. The book is the one [`from_tally`]'s elements make, whatever the limit.
/// `writer` is left to be finished (or dropped: nothing is committed).
pub fn write_from_tally(
    rows: impl IntoIterator<Item = Result<Row, TallyError>>,
    writer: &mut crate::write::StreamWriter,
    limit: Option<&chess_core::book::MemoryLimit>,
) -> Result<FromTallyStats, FromTallyError> {
    use chessfmt_files::runs::{MergeError, Runs};
    // Without a limit no run is written: the merge then only sorts what is in memory.
    let mut runs = Runs::<Spilled>::new(limit.map_or(".".as_ref(), |l| l.dir.as_path()));
    let spill = limit.map(|l| Spill {
        runs: &mut runs,
        most: (l.bytes / BYTES_PER_GATHERED).max(1024),
        record: |key, g| Spilled { key, g },
    });
    let Partial {
        elements,
        mut stats,
    } = gather_spilling(rows, CHUNK_ROWS, Partial::of, spill).map_err(|e| match e {
        GatherError::Runs(e) => FromTallyError::Book(Error::io(runs.dir(), e)),
        GatherError::Table(e) => FromTallyError::Table(e),
    })?;
    let mut count = 0;
    let dir = runs.dir().to_path_buf();
    runs.merge(
        elements
            .into_entries()
            .map(|(key, g)| Spilled { key, g })
            .collect(),
        |a, b| a.g.merge(b.g),
        |s| {
            writer.push(s.g.element(s.key)).map_err(MergeError::Sink)?;
            count += 1;
            Ok(())
        },
    )
    .map_err(|e: MergeError<Error>| e.into_error(|e| Error::io(&dir, e)))?;
    stats.elements = count;
    Ok(stats)
}

/// What [`to_tally`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToTallyStats {
    /// Positions reached by the walk.
    pub positions: u64,
    /// Rows written.
    pub rows: u64,
    /// Moves whose position after them has no element (rows without counts, not marked as a
    /// book's: a book made back from the table leaves them out, as moves without a result).
    pub moves_without_statistics: u64,
    /// Positions with a comment (not kept).
    pub comments_dropped: u64,
    /// Positions with game references (not kept).
    pub game_references_dropped: u64,
    /// Elements no walk from the start reaches (not in the table).
    pub unreached_elements: u64,
    /// Whether the start position's own results are not what a book made from the table
    /// gives it: no row reaches the start, so its results are made from its moves' rows.
    pub start_not_kept: bool,
    /// Stored move codes that are not in the table or not legal (not kept).
    pub undecodable_moves: u64,
    /// Whether the header holds what a table has no place for: a caption, Elo filters or a
    /// ply limit (a book made from the table has [`crate::raw::Header::converted`]'s).
    pub header_not_kept: bool,
    /// Positions whose element could not be read (damaged; the walk went on).
    pub damaged: u64,
}

/// The rows of a Kvetka book (see the [module](self) documentation), sorted as a table is.
pub fn to_tally<D: AsRef<[u8]> + Sync>(book: &Book<D>) -> (Vec<Row>, ToTallyStats) {
    let mut stats = ToTallyStats::default();
    let mut rows = Vec::new();
    // With the feature `parallel`, the probes are made on the current rayon pool.
    let mut walk = chess_core::book::conversion_walk(book, Chess::default(), None);
    let mut elements = std::collections::HashSet::new();
    for node in walk.by_ref() {
        stats.positions += 1;
        let p = &node.position;
        if let Some(k) = position::key_of(p) {
            elements.insert(k);
        }
        stats.comments_dropped += u64::from(node.probe.comment.is_some());
        stats.game_references_dropped += u64::from(!node.probe.games.is_empty());
        let key = chess_core::polyglot_key(p);
        let epd = Epd::from_position(p, EnPassantMode::Legal).to_string();
        // The start's results as a book made from the rows gives them (its side to move's).
        let mut out = [0; 3];
        for (i, m) in node.probe.moves.iter().enumerate() {
            let mut row = Row::new(
                key,
                epd.clone(),
                m.mv.to_uci(CastlingMode::Standard).to_string(),
            );
            row.counts.first_seen = i as u64;
            match &m.stats {
                None => stats.moves_without_statistics += 1,
                // The mover's statistics.
                Some(s) => {
                    let (white, black) = match p.turn() {
                        Color::White => (s.wins, s.losses),
                        Color::Black => (s.losses, s.wins),
                    };
                    row.counts.white = white;
                    row.counts.black = black;
                    row.counts.draws = s.draws;
                    row.counts.games = white + black + s.draws;
                    row.counts.from_book = true;
                    out.add(&wdl(&row.counts, p.turn()));
                }
            }
            rows.push(row);
        }
        if node.ply == 0 {
            let own = &node.probe.stats;
            stats.start_not_kept = [own.wins, own.draws, own.losses] != out;
        }
    }
    let walked = walk.stats();
    stats.damaged = walked.damaged;
    stats.undecodable_moves = walked.undecodable;
    let header = book.header();
    stats.header_not_kept = header.of_statistics() != crate::raw::Header::converted("");
    let in_book = book.elements().filter(|e| e.is_ok()).count() as u64;
    stats.unreached_elements = in_book.saturating_sub(elements.len() as u64);
    let rows = chessfmt_tally::sort_and_sum(rows);
    stats.rows = rows.len() as u64;
    (rows, stats)
}

#[cfg(all(test, feature = "pgn"))]
mod tests {
    use super::*;

    /// Rows resolved in chunks and summed in order give the elements and statistics of one
    /// pass over the rows, however finely the table is cut, bad rows included.
    #[test]
    fn chunks_change_nothing() {
        let (_, stats) = chessfmt_tally::fuzzing::check_chunks_change_nothing(
            include_str!("../../../testdata/kvetka/small.pgn"),
            |rows, chunk| from_tally_in_chunks(rows.iter().cloned().map(Ok), chunk).unwrap(),
        );
        assert_eq!(
            (stats.bad_rows.count, stats.bad_rows.examples.len()),
            (6, 5)
        );
    }

    /// A book written from a table as it is made — in memory, and under a limit that spills
    /// runs of a thousand elements — is the book of [`from_tally`]'s elements, byte for byte.
    #[test]
    fn written_as_made_is_the_book() {
        let Some(rows) = chessfmt_tally::fuzzing::lichess_sample_rows() else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let header = crate::raw::Header::converted("table");
        let split = 256 * 1024;
        let files = |name: &str| -> Vec<Vec<u8>> {
            let mut names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| {
                    n.starts_with(&format!("{name}.")) || n.starts_with(&format!("{name}_"))
                })
                .collect();
            names.sort();
            names
                .iter()
                .map(|n| std::fs::read(dir.path().join(n)).unwrap())
                .collect()
        };
        let (mut elements, whole) = from_tally(rows.iter().cloned().map(Ok)).unwrap();
        let paths = crate::read::BookPaths::from_any(dir.path().join("whole"));
        crate::write::write_book(&paths, &header, &mut elements, None, split, false).unwrap();
        assert!(elements.len() > 20_000, "{} elements", elements.len());
        let limit = chess_core::book::MemoryLimit::new(1, dir.path());
        for (name, limit) in [("memory", None), ("limited", Some(&limit))] {
            let paths = crate::read::BookPaths::from_any(dir.path().join(name));
            let mut w = crate::write::StreamWriter::new(&paths, &header, split, false).unwrap();
            let stats = write_from_tally(rows.iter().cloned().map(Ok), &mut w, limit).unwrap();
            w.finish(None).unwrap();
            assert_eq!(stats, whole, "{name}");
            assert!(files(name) == files("whole"), "{name}: bytes differ");
            assert!(
                files(name).len() >= 3,
                "{name}: {} files",
                files(name).len()
            );
        }
        // The book walked back into a table (a book's rows) gives the same elements but those
        // no walk reaches (counted: positions after a move Kvetka has no code for), in
        // memory and under a limit that spills runs of a thousand elements.
        let book = Book::open(paths.anchor()).unwrap();
        let (back, walked) = to_tally(&book);
        assert!(!walked.start_not_kept);
        assert!(back.iter().all(|r| r.counts.from_book));
        let (again, _) = from_tally(back.iter().cloned().map(Ok)).unwrap();
        let kept: std::collections::HashSet<Key> = again.iter().map(|e| e.key).collect();
        let reached: Vec<&Element> = elements.iter().filter(|e| kept.contains(&e.key)).collect();
        assert_eq!(
            reached.len() as u64 + walked.unreached_elements,
            elements.len() as u64
        );
        assert!(again.iter().eq(reached), "elements differ");
        for (name, limit) in [("again", None), ("again-limited", Some(&limit))] {
            let paths = crate::read::BookPaths::from_any(dir.path().join(name));
            let mut w = crate::write::StreamWriter::new(&paths, &header, split, false).unwrap();
            write_from_tally(back.iter().cloned().map(Ok), &mut w, limit).unwrap();
            w.finish(None).unwrap();
        }
        assert!(
            files("again") == files("again-limited"),
            "a limit changed the book"
        );
    }
}
