//! A hash table cut into parts by a hash of the key, so that a batch of updates is applied
//! to all parts at once, each part by one task: the position tables of the PGN-driven book
//! builders (CTG, Kvetka), which count millions of positions a second.
//!
//! Within a part, updates are applied in the order they are given, so a key sees its updates
//! in input order whatever the number of threads: a builder whose counts depend on order
//! (first game, order of moves) gets the table a sequential count gives.
//!
//! ```
//! use chess_core::parts::{PartedTable, part_of};
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
    pub fn into_entries(self) -> Vec<(K, V)> {
        self.parts
            .into_par_iter()
            .flat_map_iter(|part| part.into_iter())
            .collect()
    }

    /// Empties the table into a list of its entries (see [`PartedTable::into_entries`]).
    pub fn take_entries(&mut self) -> Vec<(K, V)> {
        std::mem::take(self).into_entries()
    }

    /// Empties the table into a list of its entries like [`PartedTable::take_entries`], but
    /// each part keeps its room: a table filled and emptied again and again (a builder that
    /// spills to disk) does not grow again from nothing each time.
    pub fn drain_entries(&mut self) -> Vec<(K, V)> {
        self.parts
            .par_iter_mut()
            .flat_map_iter(|part| part.drain())
            .collect()
    }
}
