//! Merging books: the moves of a position are united; the weights of a move found in several
//! books are combined by a [`MergeStrategy`].

use crate::{raw::Entry, write::sort_entries};

/// How to combine the weights of a move present in several books.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MergeStrategy {
    /// Sum of the weights, saturating at 65535 (the reference tool wraps around instead).
    #[default]
    Sum,
    /// The largest weight.
    Max,
    /// The weight (and learn value) of the first book that has the move.
    First,
}

/// Merges books given as entry slices, in priority order (the first book is "first" for
/// [`MergeStrategy::First`]). The result is sorted by key, then weight descending, then move,
/// so `Sum` and `Max` give the same bytes whatever the order of the books. The learn value of a
/// combined move is the first book's for `First` and the largest for `Sum` and `Max`.
///
/// The slices need not be sorted; for sorted books of any size, [`merge_sorted`] gives the
/// same entries in memory independent of the books' sizes.
pub fn merge(books: &[&[Entry]], strategy: MergeStrategy) -> Vec<Entry> {
    let mut all: Vec<Entry> = books.iter().flat_map(|b| b.iter().copied()).collect();
    // Stable: within a key, book order then file order.
    all.sort_by_key(|e| e.key);
    let mut out: Vec<Entry> = Vec::with_capacity(all.len());
    for group in all.chunk_by(|a, b| a.key == b.key) {
        combine(group.iter().copied(), strategy, &mut out);
    }
    out
}

/// Combines the entries of one key (in book order, then file order) and appends them to `out`
/// in output order.
fn combine(group: impl Iterator<Item = Entry>, strategy: MergeStrategy, out: &mut Vec<Entry>) {
    let start = out.len();
    for e in group {
        match out[start..].iter_mut().find(|o| o.raw_move == e.raw_move) {
            Some(o) => match strategy {
                MergeStrategy::Sum => {
                    o.weight = o.weight.saturating_add(e.weight);
                    o.learn = o.learn.max(e.learn);
                }
                MergeStrategy::Max => {
                    o.weight = o.weight.max(e.weight);
                    o.learn = o.learn.max(e.learn);
                }
                MergeStrategy::First => {}
            },
            None => out.push(e),
        }
    }
    let group = &mut out[start..];
    if strategy == MergeStrategy::First {
        sort_entries(group);
    } else {
        group.sort_by(|a, b| {
            b.weight
                .cmp(&a.weight)
                .then(a.raw_move.cmp(&b.raw_move))
                .then(a.learn.cmp(&b.learn))
        });
    }
}

/// Counts of [`merge_sorted`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MergeCounts {
    /// Entries read from all books.
    pub input: u64,
    /// Entries emitted.
    pub output: u64,
}

/// [`merge`] as a stream: a k-way merge of books whose entries come sorted by key (as every
/// valid Polyglot book is), in priority order; each merged entry goes to `emit` in output
/// order. Memory holds one position's entries, whatever the size of the books (read them
/// from maps or files, not from vectors, to keep it so). The entries are those [`merge`]
/// returns; an input whose keys go down is an `InvalidData` error.
pub fn merge_sorted<E>(
    books: Vec<Box<dyn Iterator<Item = Entry> + '_>>,
    strategy: MergeStrategy,
    mut emit: impl FnMut(&Entry) -> Result<(), E>,
) -> Result<MergeCounts, E>
where
    E: From<std::io::Error>,
{
    let mut books: Vec<std::iter::Peekable<_>> =
        books.into_iter().map(Iterator::peekable).collect();
    let mut counts = MergeCounts::default();
    let mut group = Vec::new();
    let mut out = Vec::new();
    let mut last_key = None;
    while let Some(key) = books
        .iter_mut()
        .filter_map(|b| b.peek().map(|e| e.key))
        .min()
    {
        if last_key.is_some_and(|k| key <= k) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "keys not sorted: {key:016x} after {:016x}",
                    last_key.unwrap_or(0)
                ),
            )
            .into());
        }
        last_key = Some(key);
        group.clear();
        for b in &mut books {
            while let Some(e) = b.next_if(|e| e.key == key) {
                group.push(e);
            }
            if b.peek().is_some_and(|e| e.key < key) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("keys not sorted: a key below {key:016x} after it"),
                )
                .into());
            }
        }
        counts.input += group.len() as u64;
        out.clear();
        combine(group.iter().copied(), strategy, &mut out);
        for e in &out {
            emit(e)?;
        }
        counts.output += out.len() as u64;
    }
    Ok(counts)
}

/// The merge of `polyglot merge-book` 2.0.4, for byte-identical comparisons: a sorted merge
/// of two books; for a position present in both, the first book's entries in their order
/// (a move also in the second book gets the sum of both weights, **wrapping** modulo 65536),
/// then the second book's other moves in their order. Not re-sorted by weight.
pub fn merge_reference(in1: &[Entry], in2: &[Entry]) -> Vec<Entry> {
    let mut out = Vec::with_capacity(in1.len() + in2.len());
    let (mut i, mut j) = (0, 0);
    while i < in1.len() || j < in2.len() {
        let k1 = in1.get(i).map(|e| e.key);
        let k2 = in2.get(j).map(|e| e.key);
        match (k1, k2) {
            (Some(a), Some(b)) if a == b => {
                let i_end = i + in1[i..].iter().take_while(|e| e.key == a).count();
                let j_end = j + in2[j..].iter().take_while(|e| e.key == a).count();
                let second = &in2[j..j_end];
                for e in &in1[i..i_end] {
                    let mut e = *e;
                    if let Some(o) = second.iter().find(|o| o.raw_move == e.raw_move) {
                        e.weight = e.weight.wrapping_add(o.weight);
                    }
                    out.push(e);
                }
                let first = &in1[i..i_end];
                out.extend(
                    second
                        .iter()
                        .filter(|o| !first.iter().any(|e| e.raw_move == o.raw_move)),
                );
                (i, j) = (i_end, j_end);
            }
            (Some(a), b) if b.is_none_or(|b| a < b) => {
                out.push(in1[i]);
                i += 1;
            }
            _ => {
                out.push(in2[j]);
                j += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(key: u64, raw_move: u16, weight: u16) -> Entry {
        Entry {
            key,
            raw_move,
            weight,
            learn: 0,
        }
    }

    #[test]
    fn strategies() {
        let a = [e(1, 10, 40000), e(1, 11, 5), e(3, 10, 1)];
        let b = [e(1, 10, 40000), e(2, 12, 7), e(1, 13, 9)];
        let sum = merge(&[&a, &b], MergeStrategy::Sum);
        assert_eq!(
            sum,
            vec![
                e(1, 10, 65535),
                e(1, 13, 9),
                e(1, 11, 5),
                e(2, 12, 7),
                e(3, 10, 1)
            ]
        );
        let max = merge(&[&a, &b], MergeStrategy::Max);
        assert_eq!(max[0], e(1, 10, 40000));
        let first = merge(&[&[e(1, 10, 3)], &[e(1, 10, 9)]], MergeStrategy::First);
        assert_eq!(first, vec![e(1, 10, 3)]);
        // The reference tool wraps: 40000 + 40000 = 14464 (vectors/merge-overflow-*).
        assert_eq!(
            merge_reference(&[e(1, 10, 40000)], &[e(1, 10, 40000)]),
            vec![e(1, 10, 14464)]
        );
    }

    fn book() -> impl Strategy<Value = Vec<Entry>> {
        prop::collection::vec((0u64..6, 0u16..5, any::<u16>(), 0u32..3), 0..30).prop_map(|v| {
            let mut entries: Vec<Entry> = v
                .into_iter()
                .map(|(key, raw_move, weight, learn)| Entry {
                    key,
                    raw_move,
                    weight,
                    learn,
                })
                .collect();
            entries.sort_by_key(|e| (e.key, e.raw_move));
            entries.dedup_by_key(|e| (e.key, e.raw_move));
            sort_entries(&mut entries);
            entries
        })
    }

    proptest! {
        #[test]
        fn the_streaming_merge_equals_the_in_memory_one(a in book(), b in book(), c in book()) {
            for s in [MergeStrategy::Sum, MergeStrategy::Max, MergeStrategy::First] {
                let mut streamed = Vec::new();
                let books: Vec<Box<dyn Iterator<Item = Entry>>> = vec![
                    Box::new(a.iter().copied()),
                    Box::new(b.iter().copied()),
                    Box::new(c.iter().copied()),
                ];
                let counts = merge_sorted(books, s, |e| {
                    streamed.push(*e);
                    Ok::<(), std::io::Error>(())
                })
                .unwrap();
                let in_memory = merge(&[&a, &b, &c], s);
                prop_assert_eq!(&streamed, &in_memory);
                prop_assert_eq!(counts.output, in_memory.len() as u64);
                prop_assert_eq!(counts.input, (a.len() + b.len() + c.len()) as u64);
            }
        }

        #[test]
        fn sum_and_max_are_order_independent(a in book(), b in book(), c in book()) {
            for s in [MergeStrategy::Sum, MergeStrategy::Max] {
                let abc = merge(&[&a, &b, &c], s);
                prop_assert_eq!(&abc, &merge(&[&c, &a, &b], s));
                prop_assert_eq!(&abc, &merge(&[&b, &c, &a], s));
                // Every (key, move) of the inputs is present once.
                let mut pairs: Vec<_> = a.iter().chain(&b).chain(&c).map(|e| (e.key, e.raw_move)).collect();
                pairs.sort();
                pairs.dedup();
                prop_assert_eq!(abc.len(), pairs.len());
            }
        }
    }
}
