//! Building a book from PGN games, the way `polyglot make-book` does — byte for byte with the
//! default options — but parallel and tolerant of bad games.
//!
//! For every game and every ply below `max_ply`, the (position key, move) pair counts one game
//! (`n`) and adds the mover's score (`sum`: 2 win, 1 draw or unknown result `*`, 0 loss). When a
//! pair reaches n = 16384, every pair of that position is halved (`(x + 1) / 2`). Then pairs with
//! `n < min_game`, `sum == 0`, a mean score below `min_score`, or of the excluded colour are
//! dropped; the weight is `sum` (1 with `uniform`); entries are stably sorted by key, then
//! weight descending, over first-seen order.
//!
//! Unlike the reference tool, games starting from a `[FEN]` are used (not garbage), illegal
//! games are skipped and counted instead of aborting the run, and the moves of the games are
//! replayed on all cores; the table is updated in input order, so the result does not depend on
//! the number of threads.

use std::{
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
    io::{self, Read},
    sync::mpsc,
};

use chess_core::{
    pgn::{GameError, GameResult, PgnReader, RawGame, SkipStats},
    polyglot_key,
};
use rayon::prelude::*;
use shakmaty::{Color, Position};

use crate::{moves::encode_move, raw::Entry, write::sort_entries};

/// The count at which a position's statistics are halved (as the reference tool does).
pub const COUNT_MAX: u32 = 16384;

/// Options of [`BookBuilder`], with the reference tool's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildOptions {
    /// Only the first `max_ply` half-moves of each game are used (default 1024).
    pub max_ply: usize,
    /// Minimum number of games a move must have been played in (default 3).
    pub min_game: u32,
    /// Minimum mean score of a move for its mover, in percent (default 0).
    pub min_score: f64,
    /// Keep only the moves of this colour (`-only-white` / `-only-black`).
    pub only: Option<Color>,
    /// All weights 1.
    pub uniform: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_ply: 1024,
            min_game: 3,
            min_score: 0.0,
            only: None,
            uniform: false,
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildStats {
    /// Games read from the input (used and skipped).
    pub games_read: u64,
    /// Games skipped, by reason.
    pub skipped: SkipStats,
    /// (position, move) pairs seen.
    pub pairs: usize,
    /// Entries in the finished book.
    pub entries: usize,
}

/// One ply of a game as the builder needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyedPly {
    /// Polyglot key of the position before the move.
    pub key: u64,
    /// The encoded move.
    pub mv: u16,
    /// Whether White is to move.
    pub white: bool,
}

/// A game reduced to what the builder counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyedGame {
    /// The plies (at most `max_ply`).
    pub plies: Vec<KeyedPly>,
    /// Score of the first mover: 2 win, 1 draw or unknown, 0 loss.
    pub first_mover_points: u32,
}

impl KeyedGame {
    /// Replays a raw game (the expensive, parallel step).
    pub fn from_raw(raw: &RawGame, max_ply: usize) -> Result<KeyedGame, GameError> {
        let game = raw.resolve()?;
        let mut pos = game.start.clone();
        let white_points = match game.result {
            GameResult::WhiteWins => 2,
            GameResult::BlackWins => 0,
            GameResult::Draw | GameResult::Unknown => 1,
        };
        let first_mover_points = match pos.turn() {
            Color::White => white_points,
            Color::Black => 2 - white_points,
        };
        let mut plies = Vec::with_capacity(game.moves.len().min(max_ply));
        for &m in game.moves.iter().take(max_ply) {
            plies.push(KeyedPly {
                key: polyglot_key(&pos),
                mv: encode_move(m),
                white: pos.turn() == Color::White,
            });
            pos.play_unchecked(m);
        }
        Ok(KeyedGame {
            plies,
            first_mover_points,
        })
    }
}

/// Keys are Zobrist hashes already: use them as their own hash.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    n: u32,
    sum: u32,
    /// Next slot of the same key.
    next: u32,
    mv: u16,
    white: bool,
}

/// Accumulates games into (position, move) statistics; [`BookBuilder::finish`] gives the book.
pub struct BookBuilder {
    options: BuildOptions,
    slots: Vec<Slot>,
    heads: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    stats: BuildStats,
}

impl std::fmt::Debug for BookBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookBuilder")
            .field("options", &self.options)
            .field("pairs", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl BookBuilder {
    /// An empty builder.
    pub fn new(options: BuildOptions) -> Self {
        BookBuilder {
            options,
            slots: Vec::new(),
            heads: HashMap::default(),
            stats: BuildStats::default(),
        }
    }

    /// The options.
    pub fn options(&self) -> &BuildOptions {
        &self.options
    }

    /// Counts one replayed game (games must be added in input order for reference-identical
    /// output).
    pub fn add(&mut self, game: &KeyedGame) {
        let mut points = game.first_mover_points;
        for ply in &game.plies {
            let i = self.find_or_insert(ply);
            let slot = &mut self.slots[i];
            slot.n += 1;
            slot.sum += points;
            if slot.n >= COUNT_MAX {
                self.halve(ply.key);
            }
            points = 2 - points;
        }
    }

    fn find_or_insert(&mut self, ply: &KeyedPly) -> usize {
        let new = self.slots.len() as u32;
        let head = *self.heads.entry(ply.key).or_insert(new);
        let mut i = head;
        while i != NONE && i != new {
            let s = &self.slots[i as usize];
            if s.mv == ply.mv {
                return i as usize;
            }
            if s.next == NONE {
                self.slots[i as usize].next = new;
                break;
            }
            i = s.next;
        }
        self.slots.push(Slot {
            key: ply.key,
            n: 0,
            sum: 0,
            next: NONE,
            mv: ply.mv,
            white: ply.white,
        });
        new as usize
    }

    fn halve(&mut self, key: u64) {
        let mut i = self.heads.get(&key).copied().unwrap_or(NONE);
        while i != NONE {
            let s = &mut self.slots[i as usize];
            s.n = s.n.div_ceil(2);
            s.sum = s.sum.div_ceil(2);
            i = s.next;
        }
    }

    /// Tokenises, replays (on the current rayon pool) and counts every game of a PGN stream,
    /// skipping bad games. `progress` is called with the number of games read so far.
    pub fn add_pgn<R: Read + Send>(
        &mut self,
        reader: PgnReader<R>,
        mut progress: impl FnMut(u64),
    ) -> io::Result<()> {
        const BATCH: usize = 512;
        let max_ply = self.options.max_ply;
        let mut reader = reader;
        std::thread::scope(|scope| -> io::Result<()> {
            let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<RawGame>>>(8);
            scope.spawn(move || {
                loop {
                    let batch = reader.next_batch(BATCH);
                    let done = matches!(&batch, Ok(b) if b.len() < BATCH) || batch.is_err();
                    if tx.send(batch).is_err() || done {
                        break;
                    }
                }
            });
            for batch in rx {
                let batch = batch?;
                let keyed: Vec<Result<KeyedGame, GameError>> = batch
                    .par_iter()
                    .map(|raw| KeyedGame::from_raw(raw, max_ply))
                    .collect();
                for k in keyed {
                    self.stats.games_read += 1;
                    match k {
                        Ok(g) => self.add(&g),
                        Err(e) => self.stats.skipped.record(e),
                    }
                }
                progress(self.stats.games_read);
            }
            Ok(())
        })
    }

    /// Whether a pair survives the filters (the reference tool's rules, in its order).
    fn keep(&self, s: &Slot) -> bool {
        let o = &self.options;
        if s.n < o.min_game || s.sum == 0 {
            return false;
        }
        let score = (f64::from(s.sum) / f64::from(s.n)) / 2.0;
        if score < o.min_score / 100.0 {
            return false;
        }
        match o.only {
            Some(Color::White) if !s.white => return false,
            Some(Color::Black) if s.white => return false,
            _ => {}
        }
        true
    }

    /// The finished, sorted entries and the statistics of the build.
    pub fn finish(mut self) -> (Vec<Entry>, BuildStats) {
        let mut entries: Vec<Entry> = self
            .slots
            .iter()
            .filter(|s| self.keep(s))
            .map(|s| Entry {
                key: s.key,
                raw_move: s.mv,
                weight: if self.options.uniform {
                    1
                } else {
                    u16::try_from(s.sum).unwrap_or(u16::MAX)
                },
                learn: 0,
            })
            .collect();
        sort_entries(&mut entries);
        self.stats.pairs = self.slots.len();
        self.stats.entries = entries.len();
        (entries, self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(pgn: &str, options: BuildOptions) -> (Vec<Entry>, BuildStats) {
        let mut b = BookBuilder::new(options);
        b.add_pgn(PgnReader::new(pgn.as_bytes()), |_| {}).unwrap();
        b.finish()
    }

    #[test]
    fn counts_mover_scores_and_filters() {
        let pgn = "[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"0-1\"]\n1. e4 c5 0-1\n\n\
                   [Result \"*\"]\n1. e4 e5 *\n\n[Result \"1-0\"]\n1. e4 Ke7 2. Ke3 *\n";
        let (entries, stats) = build(
            pgn,
            BuildOptions {
                min_game: 1,
                ..Default::default()
            },
        );
        assert_eq!(stats.games_read, 4);
        assert_eq!(stats.skipped.total(), 1);
        let start = polyglot_key(&shakmaty::Chess::default());
        let e4: Vec<_> = entries.iter().filter(|e| e.key == start).collect();
        // e4 three times: 2 (win) + 0 (loss) + 1 (*) = 3.
        assert_eq!(e4.len(), 1);
        assert_eq!((e4[0].raw_move, e4[0].weight), (0x031c, 3));
        // Black's e5: loss (0) + unknown (1) = 1; c5: win (2).
        let weights: Vec<u16> = entries
            .iter()
            .filter(|e| e.key != start)
            .map(|e| e.weight)
            .collect();
        assert_eq!(weights.len(), 2);
        assert!(weights.contains(&1) && weights.contains(&2));
        // Default min_game 3 keeps only e4.
        let (entries, _) = build(pgn, BuildOptions::default());
        assert_eq!(entries.len(), 1);
        // Only Black's moves.
        let (entries, _) = build(
            pgn,
            BuildOptions {
                min_game: 1,
                only: Some(Color::Black),
                ..Default::default()
            },
        );
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn halves_a_position_at_count_max() {
        let mut b = BookBuilder::new(BuildOptions {
            min_game: 1,
            ..Default::default()
        });
        let ply = |mv| KeyedPly {
            key: 42,
            mv,
            white: true,
        };
        b.add(&KeyedGame {
            plies: vec![ply(2)],
            first_mover_points: 2,
        });
        for _ in 0..COUNT_MAX - 1 {
            b.add(&KeyedGame {
                plies: vec![ply(1)],
                first_mover_points: 1,
            });
        }
        // Move 1 reached n = 16383; move 2 has n = 1, sum = 2. One more game of move 1 halves.
        b.add(&KeyedGame {
            plies: vec![ply(1)],
            first_mover_points: 2,
        });
        let (entries, _) = b.finish();
        // Move 1: n 16384 -> 8192, sum 16385 -> 8193. Move 2: sum 2 -> 1.
        assert_eq!(
            entries
                .iter()
                .map(|e| (e.raw_move, e.weight))
                .collect::<Vec<_>>(),
            vec![(1, 8193), (2, 1)]
        );
    }
}
