//! A map of what is being gathered from a table's rows, kept in shards by a hash of the
//! keys, so that two of them are merged a shard at a time on the rayon pool: what a book
//! writer folds its chunks' positions into ([`crate::map_chunks`]) without one thread
//! merging them all.

use std::hash::{BuildHasher, Hash};

use foldhash::HashMap;

/// Shards of a [`ShardedMap`].
const SHARDS: usize = 16;

/// A hash map in 16 shards by a fixed hash of the keys (the same key goes to the same
/// shard in every map).
///
/// ```
/// use chessfmt_tally::ShardedMap;
///
/// let mut a: ShardedMap<u32, u64> = ShardedMap::default();
/// *a.entry(1) += 2;
/// let mut b = ShardedMap::default();
/// *b.entry(1) += 3;
/// *b.entry(7) += 1;
/// a.merge(b, |mine, theirs| *mine += theirs);
/// let mut all: Vec<(u32, u64)> = a.into_entries().collect();
/// all.sort();
/// assert_eq!(all, [(1, 5), (7, 1)]);
/// ```
#[derive(Debug, Clone)]
pub struct ShardedMap<K, V> {
    shards: Vec<HashMap<K, V>>,
}

impl<K, V> Default for ShardedMap<K, V> {
    fn default() -> Self {
        ShardedMap {
            shards: (0..SHARDS).map(|_| HashMap::default()).collect(),
        }
    }
}

impl<K: Hash + Eq + Send, V: Send> ShardedMap<K, V> {
    /// The value of `key` (a default one if it has none).
    pub fn entry(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        let shard =
            foldhash::fast::FixedState::with_seed(0x5eed_5eed).hash_one(&key) as usize % SHARDS;
        self.shards[shard].entry(key).or_default()
    }

    /// Keys in the map.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.len()).sum()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.shards.iter().all(|s| s.is_empty())
    }

    /// Adds `other`'s values with `add` (into a default value where this map has none), a
    /// shard at a time on the current rayon pool: the order in which a key's values are
    /// added is not kept, so `add` must not depend on it.
    pub fn merge(&mut self, other: ShardedMap<K, V>, add: impl Fn(&mut V, V) + Sync)
    where
        V: Default,
    {
        use rayon::prelude::*;
        self.shards
            .par_iter_mut()
            .zip(other.shards)
            .for_each(|(mine, theirs)| {
                for (key, v) in theirs {
                    add(mine.entry(key).or_default(), v);
                }
            });
    }

    /// Takes every key and value out, in no particular order (the shards keep their room).
    pub fn drain(&mut self) -> impl Iterator<Item = (K, V)> + '_ {
        self.shards.iter_mut().flat_map(|s| s.drain())
    }

    /// Every key and value, in no particular order.
    pub fn into_entries(self) -> impl Iterator<Item = (K, V)> {
        self.shards.into_iter().flatten()
    }
}
