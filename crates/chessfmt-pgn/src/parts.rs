//! A hash table cut into parts by a hash of the key, so that a batch of updates is applied
//! to all parts at once, each part by one task: the position tables of the PGN-driven book
//! builders (CTG, Kvetka), which count millions of positions a second.
//!
//! Within a part, updates are applied in the order they are given, so a key sees its updates
//! in input order whatever the number of threads: a builder whose counts depend on order
//! (first game, order of moves) gets the table a sequential count gives.
//!
//! ```
//! use chessfmt_pgn::parts::{PartedTable, part_of};
//!
//! let words = ["e4", "d4", "e4", "c4", "e4"];
//! let mut table: PartedTable<&str, u32> = PartedTable::new();
//! table.update(
//!     words.iter().enumerate().map(|(i, w)| (part_of(w), i as u32, 0)),
//!     |part, i, _| *part.entry(words[i as usize]).or_default() += 1,
//! );
//! let mut counts = table.into_entries();
//! counts.sort();
//! assert_eq!(counts, [("c4", 1), ("d4", 1), ("e4", 3)]);
//! ```

use std::hash::{BuildHasher, Hash};

use rayon::prelude::*;

/// One part of a [`PartedTable`]: a hash table with a fast seeded hasher.
pub type Part<K, V> = foldhash::HashMap<K, V>;

/// Number of parts of a [`PartedTable`].
pub const PARTS: usize = 64;

/// The part a key belongs to: the top six bits of a fixed hash of the key (each part's own
/// table hashes with a random seed, independent of this one).
pub fn part_of<K: Hash + ?Sized>(key: &K) -> u8 {
    const STATE: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0x7061_7274);
    (STATE.hash_one(key) >> 58) as u8
}

/// A hash table in [`PARTS`] parts by [`part_of`] the key.
#[derive(Debug, Clone)]
pub struct PartedTable<K, V> {
    parts: Vec<Part<K, V>>,
}

impl<K, V> Default for PartedTable<K, V> {
    fn default() -> Self {
        PartedTable {
            parts: (0..PARTS).map(|_| Part::default()).collect(),
        }
    }
}

impl<K: Hash + Eq + Send, V: Send> PartedTable<K, V> {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.parts.iter().map(Part::len).sum()
    }

    /// Whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(Part::is_empty)
    }

    /// The part `part` (a [`part_of`] value; taken modulo [`PARTS`]).
    pub fn part_mut(&mut self, part: u8) -> &mut Part<K, V> {
        &mut self.parts[usize::from(part) % PARTS]
    }

    /// Applies updates: `updates` gives each update's part ([`part_of`] its key) and two
    /// numbers that `apply` gets back with the part to change (an item and an index within
    /// it, say). The updates are sorted into parts here, then every part is updated by one
    /// task, all parts at once, each in the order the updates came.
    pub fn update(
        &mut self,
        updates: impl IntoIterator<Item = (u8, u32, u32)>,
        apply: impl Fn(&mut Part<K, V>, u32, u32) + Sync + Send,
    ) {
        let mut sorted: Vec<Vec<(u32, u32)>> = vec![Vec::new(); PARTS];
        for (part, a, b) in updates {
            sorted[usize::from(part) % PARTS].push((a, b));
        }
        self.parts
            .par_iter_mut()
            .zip(sorted)
            .for_each(|(part, updates)| {
                for (a, b) in updates {
                    apply(part, a, b);
                }
            });
    }

    /// Every key and value, in no particular order (taken from the parts in parallel).
    pub fn into_entries(mut self) -> Vec<(K, V)>
    where
        K: Clone + Sync,
        V: Default + Sync,
    {
        self.drain_entries()
    }

    /// Empties the table into a list of its entries (see [`PartedTable::into_entries`]); the
    /// parts' memory is given back.
    pub fn take_entries(&mut self) -> Vec<(K, V)>
    where
        K: Clone + Sync,
        V: Default + Sync,
    {
        std::mem::take(self).into_entries()
    }

    /// Empties the table into a list of its entries like [`PartedTable::take_entries`], but
    /// each part keeps its room: a table filled and emptied again and again (a builder that
    /// spills to disk) does not grow again from nothing each time.
    ///
    /// The list is made on every core: filled first with placeholders (a key of the table
    /// and a default value; the fresh memory is touched on every core), then each part
    /// moves its entries into its own stretch of it. (Collecting the parts' entries and
    /// joining them would copy the whole list on one thread.)
    pub fn drain_entries(&mut self) -> Vec<(K, V)>
    where
        K: Clone + Sync,
        V: Default + Sync,
    {
        let mut out = Vec::new();
        self.drain_entries_into(&mut out, |k, v| (k, v));
        out
    }

    /// [`PartedTable::drain_entries`] into `out` (emptied first), each entry made into a `T`
    /// by `entry`; the list's room is used again: a list drained into again and again is not
    /// fresh memory each time (its pages faulted in anew: two thirds of the page faults of a
    /// Kvetka build that spills).
    pub fn drain_entries_into<T: Send>(
        &mut self,
        out: &mut Vec<T>,
        entry: impl Fn(K, V) -> T + Sync,
    ) where
        K: Clone + Sync,
        V: Default + Sync,
    {
        out.clear();
        let Some(key) = self.parts.iter().find_map(|p| p.keys().next().cloned()) else {
            return;
        };
        let lens: Vec<usize> = self.parts.iter().map(Part::len).collect();
        let total = lens.iter().sum();
        out.reserve(total);
        out.par_extend(
            (0..total)
                .into_par_iter()
                .map(|_| entry(key.clone(), V::default())),
        );
        let mut stretches = Vec::with_capacity(PARTS);
        let mut rest = out.as_mut_slice();
        for &n in &lens {
            let (stretch, tail) = std::mem::take(&mut rest).split_at_mut(n);
            stretches.push(stretch);
            rest = tail;
        }
        self.parts
            .par_iter_mut()
            .zip(stretches)
            .for_each(|(part, stretch)| {
                for (slot, (k, v)) in stretch.iter_mut().zip(part.drain()) {
                    *slot = entry(k, v);
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table after `n` updates of keys `i * 7 % 1000` (counted).
    fn counted(n: u32) -> PartedTable<u32, u64> {
        let mut table = PartedTable::new();
        table.update(
            (0..n).map(|i| (part_of(&(i * 7 % 1000)), i, 0)),
            |part, i, _| *part.entry(i * 7 % 1000).or_default() += 1,
        );
        table
    }

    /// What a plain count gives.
    fn expected(n: u32) -> Vec<(u32, u64)> {
        let mut counts = std::collections::BTreeMap::new();
        for i in 0..n {
            *counts.entry(i * 7 % 1000).or_default() += 1u64;
        }
        counts.into_iter().collect()
    }

    #[test]
    fn entries_are_every_key_once_with_its_value() {
        for n in [0, 1, 5, 999, 1000, 5000] {
            let mut entries = counted(n).into_entries();
            entries.sort();
            assert_eq!(entries, expected(n), "{n}");
        }
    }

    #[test]
    fn a_drained_table_is_empty_and_fills_again() {
        let mut table = counted(3000);
        let mut first = table.drain_entries();
        first.sort();
        assert_eq!(first, expected(3000));
        assert!(table.is_empty());
        assert!(table.drain_entries().is_empty());
        table.update((0..10u32).map(|i| (part_of(&i), i, 0)), |part, i, _| {
            *part.entry(i).or_default() += 1;
        });
        let mut again = table.take_entries();
        again.sort();
        assert_eq!(again, (0..10).map(|i| (i, 1)).collect::<Vec<_>>());
        assert!(table.is_empty());
    }
}
