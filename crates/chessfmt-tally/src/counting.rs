//! The map's table in memory: (position, move) counts in shards by key range, each an open
//! addressing index over a list of positions and a list of (move, counts) pairs — the layout
//! of a Polyglot build's table, with a position's packed board kept once.
//!
//! A shard holds the keys of one top nibble, so the shards, each sorted by key, are the sorted
//! table one after another: nothing is sorted or copied across shards when the table is
//! written. Positions are kept in 40 bytes, pairs in 64, and the index in 8 bytes a bucket,
//! half full at most: about 120 bytes for a position with one move (a general hash map of
//! positions to their moves took twice that, and a copy of the whole table to sort it).

use crate::{
    Counts, PackedPosition,
    row::{Play, SmallCounts, unpack_uci},
};

/// Shards of a table (fixed: a table never depends on it or on the number of threads).
pub(crate) const SHARDS: usize = 16;

/// No pair (the end of a position's list).
const NONE: u32 = u32::MAX;

/// The shard of a position: the top four bits of its key, so that shard order is key order.
pub(crate) fn shard_of(key: u64) -> usize {
    (key >> 60) as usize % SHARDS
}

/// One position of a shard: its key, its board, and its first pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Position {
    pub(crate) key: u64,
    pub(crate) packed: PackedPosition,
    first: u32,
}

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
    /// Open addressing (linear probing) from key to position: the key's top 32 bits above
    /// the position's index + 1; 0 is an empty bucket.
    heads: Vec<u64>,
    positions: Vec<Position>,
    pairs: Vec<Pair>,
}

/// Bytes a table keeps per position (its entry and two buckets) and per pair.
pub(crate) const POSITION_BYTES: usize = size_of::<Position>() + 2 * size_of::<u64>();
pub(crate) const PAIR_BYTES: usize = size_of::<Pair>();

impl Shard {
    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        self.positions.len()
    }

    /// The positions (sorted by key after [`Shard::sort`]).
    pub(crate) fn positions(&self) -> &[Position] {
        &self.positions
    }

    fn tag(key: u64) -> u64 {
        key >> 32 << 32
    }

    /// The bucket of `key`: where its head is, or the empty bucket for it.
    fn bucket(&self, key: u64) -> usize {
        let mask = self.heads.len() - 1;
        let tag = Self::tag(key);
        let mut i = (key as usize) & mask;
        loop {
            let h = self.heads[i];
            if h == 0
                || (h & !0xffff_ffff == tag && self.positions[(h as u32 - 1) as usize].key == key)
            {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.heads);
        self.heads = vec![0; (old.len() * 2).max(1024)];
        for h in old.into_iter().filter(|&h| h != 0) {
            let key = self.positions[(h as u32 - 1) as usize].key;
            let b = self.bucket(key);
            self.heads[b] = h;
        }
    }

    /// Counts one `play` of `uci` from the position `key`. `packed` is the position's board:
    /// it must be given the first time a key is counted (later plays may leave it out).
    pub(crate) fn count(
        &mut self,
        key: u64,
        packed: Option<&PackedPosition>,
        uci: u16,
        play: &Play,
    ) -> Counted {
        let mut counted = Counted::default();
        if (self.positions.len() + 1) * 2 > self.heads.len() {
            self.grow();
        }
        let b = self.bucket(key);
        let position = match self.heads[b] {
            0 => {
                let index = self.positions.len();
                self.positions.push(Position {
                    key,
                    packed: packed.copied().unwrap_or_else(PackedPosition::placeholder),
                    first: NONE,
                });
                self.heads[b] = Self::tag(key) | (index as u64 + 1);
                counted.new_position = true;
                index
            }
            h => (h as u32 - 1) as usize,
        };
        let mut last = NONE;
        let mut i = self.positions[position].first;
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
                NONE => self.positions[position].first = i,
                l => self.pairs[l as usize].next = i,
            }
            counted.new_pair = true;
        }
        counted.full = self.pairs[i as usize].counts.add_play(play)
            || self.pairs.len() >= SmallCounts::NEAR_FULL as usize
            || self.positions.len() >= SmallCounts::NEAR_FULL as usize;
        counted
    }

    /// Sorts the positions by key; the index is emptied (only [`Shard::clear`] may follow).
    pub(crate) fn sort(&mut self) {
        self.heads.fill(0);
        self.positions.sort_unstable_by_key(|p| p.key);
    }

    /// Empties the shard, keeping its room (a table filled and written out again and again
    /// does not grow from nothing each time).
    pub(crate) fn clear(&mut self) {
        self.heads.fill(0);
        self.positions.clear();
        self.pairs.clear();
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
    fn of(code: u16) -> UciText {
        let s = unpack_uci(code);
        let mut b = [0u8; 5];
        b[..s.len().min(5)].copy_from_slice(&s.as_bytes()[..s.len().min(5)]);
        UciText(b)
    }

    pub(crate) fn as_str(&self) -> &str {
        let len = if self.0[4] == 0 { 4 } else { 5 };
        std::str::from_utf8(&self.0[..len]).unwrap_or("0000")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::Outcome;

    fn play(seen: u64) -> Play {
        Play {
            outcome: Outcome::White,
            white_elo: Some(2000),
            black_elo: None,
            year: Some(2000),
            seen,
        }
    }

    /// Positions and moves are found again after the index grows; moves come out sorted.
    #[test]
    fn counts_and_finds_again() {
        let mut shard = Shard::default();
        let board = PackedPosition::of(&shakmaty::Chess::default());
        let keys: Vec<u64> = (0..5000u64)
            .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for (n, &k) in keys.iter().enumerate() {
            let c = shard.count(k, Some(&board), 2, &play(n as u64));
            assert!(c.new_position && c.new_pair && !c.full);
        }
        for &k in &keys {
            let c = shard.count(k, None, 1, &play(9));
            assert!(!c.new_position && c.new_pair);
            let c = shard.count(k, None, 2, &play(9));
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
        let c = shard.count(keys[0], Some(&board), 2, &play(0));
        assert!(c.new_position);
    }
}
