//! The position table of a build: (position, move) pairs with their counts, kept in a hash
//! table of packed pairs sized for millions of positions, and the reference tool's halving.

#[allow(clippy::wildcard_imports)]
use super::*;
use chess_core::prefetch::prefetch;

pub(super) const NONE: u32 = u32::MAX;
/// Bit 15 of a stored move (never used by the move field) marks White to move.
pub(super) const WHITE: u16 = 0x8000;

/// One (position, move) pair: 20 bytes (the key split in two halves keeps the alignment at 4).
/// A build of the 145,716 gnuchess games holds 7.9 million pairs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pair {
    pub(super) key_lo: u32,
    pub(super) key_hi: u32,
    /// Next pair of the same position, or NONE.
    pub(super) next: u32,
    /// Move field | WHITE.
    pub(super) mv: u16,
    /// Counts fit 16 bits: `n` is halved when it reaches 16384 and `sum <= 2 n`.
    pub(super) n: u16,
    pub(super) sum: u16,
}

impl Pair {
    pub(super) fn key(&self) -> u64 {
        u64::from(self.key_hi) << 32 | u64::from(self.key_lo)
    }
}

/// One ply to count: the position, the move field with the `WHITE` bit, and the mover's
/// points (2 win, 1 draw, 0 loss). 16 bytes: the batches of plies waiting for their shard are a
/// build's largest memory after the table.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counted {
    pub(super) key: u64,
    pub(super) mv: u16,
    pub(super) points: u16,
}

impl Counted {
    /// A replayed ply whose mover scored `points`.
    pub(super) fn of(ply: &KeyedPly, points: u16) -> Counted {
        Counted {
            key: ply.key,
            mv: ply.packed_move(),
            points,
        }
    }

    /// A ply read back from a spilled run.
    pub(super) fn spilled(p: &crate::ops::spill::SpillPly) -> Counted {
        Counted {
            key: p.key,
            mv: p.mv,
            points: u16::from(p.points),
        }
    }
}

/// The (position, move) statistics in first-seen order, with an index from position to its
/// pairs.
#[derive(Debug)]
pub(super) struct Table {
    pub(super) pairs: Vec<Pair>,
    /// Open addressing (linear probing) from position key to its first pair; NONE = empty.
    /// While the table is narrow (fewer than 2^24 pairs) the top 8 bits of a head hold a tag
    /// of the key, so probing past other positions rarely touches `pairs` (a cache miss each).
    pub(super) heads: Vec<u32>,
    pub(super) positions: usize,
    /// `0xff00_0000` while narrow, 0 once wide.
    pub(super) tag_mask: u32,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            pairs: Vec::new(),
            heads: Vec::new(),
            positions: 0,
            tag_mask: TAG_MASK,
        }
    }
}

pub(super) const TAG_MASK: u32 = 0xff00_0000;
/// Pairs a narrow table can index (the all-ones index is NONE's).
pub(super) const NARROW_PAIRS: usize = (1 << 24) - 1;

/// Bits 48..56 of the key (the bucket uses the low bits, the shard the top four).
pub(super) fn tag_of(key: u64) -> u32 {
    ((key >> 48) as u32 & 0xff) << 24
}

impl Table {
    pub(super) fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The pair index of a head.
    pub(super) fn index(&self, head: u32) -> u32 {
        head & !self.tag_mask
    }

    /// Whether the position `key` has pairs.
    pub(super) fn contains(&self, key: u64) -> bool {
        !self.heads.is_empty() && self.heads[self.bucket(key)] != NONE
    }

    /// The bucket of `key` in `heads`: where its first pair is, or the empty bucket for it.
    pub(super) fn bucket(&self, key: u64) -> usize {
        let mask = self.heads.len() - 1;
        let tag = tag_of(key) & self.tag_mask;
        let mut i = (key as usize) & mask;
        loop {
            let h = self.heads[i];
            if h == NONE
                || (h & self.tag_mask == tag && self.pairs[self.index(h) as usize].key() == key)
            {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    pub(super) fn grow_heads(&mut self) {
        let old = std::mem::take(&mut self.heads);
        self.heads = vec![NONE; (old.len() * 2).max(1024)];
        for h in old.into_iter().filter(|&h| h != NONE) {
            let b = self.bucket(self.pairs[self.index(h) as usize].key());
            self.heads[b] = h;
        }
    }

    /// Drops the tags when the pair indices need all 32 bits.
    pub(super) fn widen(&mut self) {
        let mask = !self.tag_mask;
        for h in self.heads.iter_mut().filter(|h| **h != NONE) {
            *h &= mask;
        }
        self.tag_mask = 0;
    }

    /// Starts fetching the bucket of `key` into the cache.
    pub(super) fn prefetch(&self, key: u64) {
        if !self.heads.is_empty() {
            let i = (key as usize) & (self.heads.len() - 1);
            prefetch(&self.heads[i]);
        }
    }

    /// The index of the pair (key, move), created with zero counts when new.
    pub(super) fn find_or_insert(&mut self, ply: Counted) -> usize {
        if (self.positions + 1) * 2 > self.heads.len() {
            self.grow_heads();
        }
        if self.tag_mask != 0 && self.len() >= NARROW_PAIRS {
            self.widen();
        }
        let new = u32::try_from(self.len()).expect("fewer than 2^32 pairs");
        let b = self.bucket(ply.key);
        let mut last = NONE;
        if self.heads[b] == NONE {
            self.heads[b] = new | (tag_of(ply.key) & self.tag_mask);
            self.positions += 1;
        } else {
            let mut i = self.index(self.heads[b]);
            while i != NONE {
                let p = &self.pairs[i as usize];
                if p.mv & !WHITE == ply.mv & !WHITE {
                    return i as usize;
                }
                last = i;
                i = p.next;
            }
        }
        if last != NONE {
            self.pairs[last as usize].next = new;
        }
        self.pairs.push(Pair {
            key_lo: ply.key as u32,
            key_hi: (ply.key >> 32) as u32,
            next: NONE,
            mv: ply.mv,
            n: 0,
            sum: 0,
        });
        new as usize
    }

    /// Counts one ply.
    pub(super) fn count(&mut self, ply: Counted) {
        let i = self.find_or_insert(ply);
        let p = &mut self.pairs[i];
        p.n += 1;
        p.sum += ply.points;
        if u32::from(p.n) >= COUNT_MAX {
            self.halve(ply.key);
        }
    }

    /// Halves every pair of the position `key`, rounding up.
    pub(super) fn halve(&mut self, key: u64) {
        let mut i = self.index(self.heads[self.bucket(key)]);
        while i != NONE {
            let p = &mut self.pairs[i as usize];
            p.n = p.n.div_ceil(2);
            p.sum = p.sum.div_ceil(2);
            i = p.next;
        }
    }
}

/// Counts one ply in a position's pairs (move | `WHITE`, n, sum) kept in first-seen order,
/// halving them all when one reaches [`COUNT_MAX`] — [`Table::count`] for one position.
pub(super) fn count_in(position: &mut Vec<(u16, u16, u16)>, mv: u16, points: u16) {
    let i = match position.iter().position(|p| p.0 & !WHITE == mv & !WHITE) {
        Some(i) => i,
        None => {
            position.push((mv, 0, 0));
            position.len() - 1
        }
    };
    let p = &mut position[i];
    p.1 += 1;
    p.2 += points;
    if u32::from(p.1) >= COUNT_MAX {
        for p in position.iter_mut() {
            p.1 = p.1.div_ceil(2);
            p.2 = p.2.div_ceil(2);
        }
    }
}
