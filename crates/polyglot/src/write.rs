//! Writing books: canonical order, atomic file replacement.

use std::io;
#[cfg(feature = "std")]
use std::path::Path;

#[cfg(feature = "std")]
use chessfmt_files::atomic::write_atomically;

#[cfg(feature = "std")]
use crate::Error;
use crate::raw::Entry;

/// Sorts entries the canonical way: by key, then weight descending; the sort is stable, so
/// equal entries keep their order (the learn field is never touched).
pub fn sort_entries(entries: &mut [Entry]) {
    entries.sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.cmp(&a.weight)));
}

/// Writes entries as they are (no sorting) to `w`.
pub fn write_entries<'a>(
    w: &mut dyn io::Write,
    entries: impl IntoIterator<Item = &'a Entry>,
) -> io::Result<()> {
    for e in entries {
        w.write_all(&e.to_bytes())?;
    }
    Ok(())
}

/// Writes a book file atomically (temporary file + rename). Entries are written in the given
/// order: sort them with [`sort_entries`] first unless they already are. Refuses to replace an
/// existing file unless `overwrite`.
#[cfg(feature = "std")]
pub fn save(path: impl AsRef<Path>, entries: &[Entry], overwrite: bool) -> Result<(), Error> {
    let path = path.as_ref();
    write_atomically(path, overwrite, |w| write_entries(w, entries)).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{Book, OpenMode};

    #[test]
    fn save_sorted_and_read_back() {
        let e = |key, weight, learn| Entry {
            key,
            raw_move: 0x031c,
            weight,
            learn,
        };
        let mut entries = vec![e(9, 1, 1), e(3, 5, 0xdead_beef), e(9, 7, 2), e(3, 5, 3)];
        sort_entries(&mut entries);
        assert_eq!(
            entries,
            vec![e(3, 5, 0xdead_beef), e(3, 5, 3), e(9, 7, 2), e(9, 1, 1)]
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.bin");
        save(&p, &entries, false).unwrap();
        assert!(save(&p, &entries, false).is_err());
        let book = Book::open(&p, OpenMode::Strict).unwrap();
        assert_eq!(book.entries().collect::<Vec<_>>(), entries);
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any entries, sorted and written, read back identical (learn bit for bit), strictly,
        /// and every key's entries are found by binary search.
        #[test]
        fn write_read_round_trip(raw in prop::collection::vec((0u64..50, any::<u16>(), any::<u16>(), any::<u32>()), 0..200)) {
            let mut entries: Vec<Entry> = raw
                .into_iter()
                .map(|(key, raw_move, weight, learn)| Entry { key: key.wrapping_mul(0x9e37_79b9_7f4a_7c15), raw_move, weight, learn })
                .collect();
            sort_entries(&mut entries);
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("b.bin");
            save(&p, &entries, false).unwrap();
            let book = Book::open(&p, OpenMode::Strict).unwrap();
            prop_assert_eq!(book.entries().collect::<Vec<_>>(), entries.clone());
            for e in &entries {
                prop_assert!(book.entries_for_key(e.key).any(|x| x == *e));
            }
        }
    }
}
