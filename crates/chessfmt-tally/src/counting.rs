//! The map's table in memory: (position, move) counts in shards by key range, each an open
//! addressing index over a list of positions and a list of (move, counts) pairs — the layout
//! of a Polyglot build's table, with a position's packed board kept once.
//!
//! A shard holds the keys of one top nibble, so the shards, each sorted by key, are the sorted
//! table one after another: nothing is sorted or copied across shards when the table is
//! written. The index holds each position's key and first pair in 16 bytes, half full at
//! most; boards take 28 bytes, pairs 64: about 125 bytes for a position with one move (a
//! general hash map of positions to their moves took twice that, and a copy of the whole
//! table to sort it).

use chess_core::prefetch::prefetch;

use crate::{
    Counts, PackedPosition,
    position::Planes,
    row::{GameFacts, SmallCounts},
};

/// Shards of a table (fixed: a table never depends on it or on the number of threads).
pub(crate) const SHARDS: usize = 16;

/// No pair (the end of a position's list).
const NONE: u32 = u32::MAX;

/// The shard of a position: the top four bits of its key, so that shard order is key order.
pub(crate) fn shard_of(key: u64) -> usize {
    (key >> 60) as usize % SHARDS
}

/// One position of a shard, as its index holds it: its key, its board in
/// [`Shard::boards`], and its first pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Position {
    pub(crate) key: u64,
    board: u32,
    first: u32,
}

/// An empty bucket of the index.
const EMPTY: Position = Position {
    key: 0,
    board: NONE,
    first: NONE,
};

/// One move of a position with its counts, and the next move of the position.
#[derive(Debug, Clone, Copy)]
struct Pair {
    counts: SmallCounts,
    next: u32,
    uci: u16,
}

/// What counting one play changed.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Counted {
    /// The position was new.
    pub(crate) new_position: bool,
    /// The move was new in its position.
    pub(crate) new_pair: bool,
    /// The move's plays passed [`SmallCounts::NEAR_FULL`]: the table must be written out.
    pub(crate) full: bool,
}

/// One shard of the table.
#[derive(Debug, Default)]
pub(crate) struct Shard {
    /// Open addressing (linear probing) from key to position, half full at most: a probe
    /// reads only this list (prefetched a few plies ahead), and then the position's pairs.
    index: Vec<Position>,
    /// The boards, in the order the positions came.
    boards: Vec<PackedPosition>,
    pairs: Vec<Pair>,
    /// Buckets of the index before [`Shard::sort`] sorted its positions in its own room
    /// (`None`: not sorted).
    sorted_from: Option<usize>,
}

/// Bytes a table keeps per position (two buckets and its board) and per pair.
pub(crate) const POSITION_BYTES: usize = 2 * size_of::<Position>() + size_of::<PackedPosition>();
pub(crate) const PAIR_BYTES: usize = size_of::<Pair>();

impl Shard {
    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        self.boards.len()
    }

    /// The positions sorted by key (after [`Shard::sort`]; none before).
    pub(crate) fn positions(&self) -> &[Position] {
        match self.sorted_from {
            Some(_) => &self.index,
            None => &[],
        }
    }

    /// The board of `position`.
    pub(crate) fn board(&self, position: &Position) -> &PackedPosition {
        &self.boards[position.board as usize]
    }

    /// The bucket of `key`: where its position is, or the empty bucket for it.
    fn bucket(&self, key: u64) -> usize {
        let mask = self.index.len() - 1;
        let mut i = (key as usize) & mask;
        loop {
            let p = &self.index[i];
            if p.board == NONE || p.key == key {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.index);
        self.index = vec![EMPTY; (old.len() * 2).max(1024)];
        for p in old.into_iter().filter(|p| p.board != NONE) {
            let b = self.bucket(p.key);
            self.index[b] = p;
        }
    }

    /// Starts fetching the bucket of `key` into the cache.
    pub(crate) fn prefetch(&self, key: u64) {
        if !self.index.is_empty() {
            prefetch(&self.index[(key as usize) & (self.index.len() - 1)]);
        }
    }

    /// Starts fetching the first pair of `key` when its position sits in its home bucket
    /// (most do), whose line [`Shard::prefetch`] fetched a few plies before.
    pub(crate) fn prefetch_pair(&self, key: u64) {
        if !self.index.is_empty() {
            let home = &self.index[(key as usize) & (self.index.len() - 1)];
            if home.key == key
                && let Some(p) = self.pairs.get(home.first as usize)
            {
                prefetch(p);
            }
        }
    }

    /// Counts one play of `uci` from the position `key` in `game`, first seen at `seen`.
    /// `board` is the position's: it must be given the first time a key is counted (later
    /// plays may leave it out), and is packed only then.
    pub(crate) fn count(
        &mut self,
        key: u64,
        board: Option<&Planes>,
        uci: u16,
        game: &GameFacts,
        seen: u64,
    ) -> Counted {
        debug_assert!(self.sorted_from.is_none(), "counted into a sorted shard");
        let mut counted = Counted::default();
        if (self.boards.len() + 1) * 2 > self.index.len() {
            self.grow();
        }
        let b = self.bucket(key);
        if self.index[b].board == NONE {
            self.index[b] = Position {
                key,
                board: self.boards.len() as u32,
                first: NONE,
            };
            self.boards
                .push(board.map_or_else(PackedPosition::placeholder, PackedPosition::from_planes));
            counted.new_position = true;
        }
        let mut last = NONE;
        let mut i = self.index[b].first;
        while i != NONE && self.pairs[i as usize].uci != uci {
            last = i;
            i = self.pairs[i as usize].next;
        }
        if i == NONE {
            i = self.pairs.len() as u32;
            self.pairs.push(Pair {
                counts: SmallCounts::default(),
                next: NONE,
                uci,
            });
            match last {
                NONE => self.index[b].first = i,
                l => self.pairs[l as usize].next = i,
            }
            counted.new_pair = true;
        }
        counted.full = self.pairs[i as usize].counts.add_play(game, seen)
            || self.pairs.len() >= SmallCounts::NEAR_FULL as usize
            || self.boards.len() >= SmallCounts::NEAR_FULL as usize;
        counted
    }

    /// Sorts the positions by key into [`Shard::positions`], in the index's own room (no
    /// copy of the positions: 16 bytes a position less at the table's peak); the index is
    /// used up (only [`Shard::clear`] may follow).
    pub(crate) fn sort(&mut self) {
        if self.sorted_from.is_none() {
            self.sorted_from = Some(self.index.len());
            self.index.retain(|p| p.board != NONE);
            // The empty buckets' room goes back while the table is written (a large
            // allocation shrinks in place).
            self.index.shrink_to_fit();
        }
        self.index.sort_unstable_by_key(|p| p.key);
    }

    /// Empties the shard, keeping its room (a table filled and written out again and again
    /// does not grow from nothing each time).
    pub(crate) fn clear(&mut self) {
        // Nothing counted since the last clear (or ever): the index is empty already.
        if self.sorted_from.is_none() && self.boards.is_empty() {
            return;
        }
        let buckets = self.sorted_from.take().unwrap_or(self.index.len());
        self.index.clear();
        self.index.resize(buckets, EMPTY);
        self.boards.clear();
        self.pairs.clear();
    }

    /// Starts fetching the board and the first pair of `position`.
    pub(crate) fn prefetch_row(&self, position: &Position) {
        if let Some(b) = self.boards.get(position.board as usize) {
            prefetch(b);
        }
        if let Some(p) = self.pairs.get(position.first as usize) {
            prefetch(p);
        }
    }

    /// The moves of `position` with their counts, sorted by UCI text, into `out`.
    pub(crate) fn moves(&self, position: &Position, out: &mut Vec<(UciText, Counts)>) {
        out.clear();
        let mut i = position.first;
        while i != NONE {
            let p = &self.pairs[i as usize];
            out.push((UciText::of(p.uci), p.counts.counts()));
            i = p.next;
        }
        out.sort_unstable_by_key(|m| m.0);
    }
}

/// A move's UCI text inline (4 or 5 bytes; compared as the text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct UciText([u8; 5]);

impl UciText {
    /// The text of [`crate::row::pack_uci`]'s code (what [`unpack_uci`] gives, made here
    /// without allocating).
    fn of(code: u16) -> UciText {
        const PROMOTIONS: [u8; 8] = [0, b'p', b'n', b'b', b'r', b'q', b'k', 0];
        let square = |i: u16| [b'a' + (i & 7) as u8, b'1' + (i >> 3 & 7) as u8];
        let [a, b] = square(code);
        let [c, d] = square(code >> 6);
        UciText([a, b, c, d, PROMOTIONS[usize::from(code >> 12 & 7)]])
    }

    pub(crate) fn as_str(&self) -> &str {
        let len = if self.0[4] == 0 { 4 } else { 5 };
        std::str::from_utf8(&self.0[..len]).unwrap_or("0000")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{Outcome, unpack_uci};

    /// Every code's inline text is [`unpack_uci`]'s.
    #[test]
    fn uci_text_is_unpack_uci_s() {
        for code in 0..1u16 << 15 {
            assert_eq!(UciText::of(code).as_str(), unpack_uci(code), "{code}");
        }
    }

    const GAME: GameFacts = GameFacts {
        outcome: Outcome::White,
        white_elo: Some(2000),
        black_elo: None,
        year: Some(2000),
    };

    /// Positions and moves are found again after the index grows; moves come out sorted.
    #[test]
    fn counts_and_finds_again() {
        let mut shard = Shard::default();
        let board = Planes::of(&shakmaty::Chess::default());
        shard.prefetch(1);
        let keys: Vec<u64> = (0..5000u64)
            .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for (n, &k) in keys.iter().enumerate() {
            let c = shard.count(k, Some(&board), 2, &GAME, n as u64);
            assert!(c.new_position && c.new_pair && !c.full);
        }
        for &k in &keys {
            let c = shard.count(k, None, 1, &GAME, 9);
            assert!(!c.new_position && c.new_pair);
            let c = shard.count(k, None, 2, &GAME, 9);
            assert!(!c.new_position && !c.new_pair);
        }
        assert_eq!(shard.len(), 5000);
        shard.sort();
        assert!(shard.positions().windows(2).all(|w| w[0].key < w[1].key));
        let mut moves = Vec::new();
        shard.moves(&shard.positions()[0], &mut moves);
        assert_eq!(moves.len(), 2);
        assert!(moves[0].0 < moves[1].0);
        let games: Vec<u64> = moves.iter().map(|m| m.1.games).collect();
        assert_eq!(games.iter().sum::<u64>(), 3);
        shard.clear();
        assert_eq!(shard.len(), 0);
        let c = shard.count(keys[0], Some(&board), 2, &GAME, 0);
        assert!(c.new_position);
        // Sorted in the index's room and cleared again and again: the same shard each time
        // (an empty one too).
        for round in 0..3u64 {
            shard.clear();
            shard.sort();
            assert!(shard.positions().is_empty());
            shard.clear();
            for &k in &keys[..100] {
                assert!(
                    shard
                        .count(k ^ round, Some(&board), 2, &GAME, 0)
                        .new_position
                );
            }
            shard.sort();
            assert_eq!(shard.positions().len(), 100);
            assert!(shard.positions().windows(2).all(|w| w[0].key < w[1].key));
        }
    }
}
