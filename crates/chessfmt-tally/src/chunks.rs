//! A table's rows mapped a chunk at a time on the rayon pool and folded in the table's order:
//! what a book writer that resolves every row (a position parsed, a move coded) runs in
//! parallel while its sums stay those of one pass over the rows.

use chessfmt_files::runs::map_in_order;

use crate::{Error, Row};

/// Chunks mapped or waiting to be folded at once: four a thread of the pool, enough to even
/// out chunks of unequal cost, and at most 32, which keeps the rows in flight to a few tens
/// of MB.
fn window() -> usize {
    (4 * rayon::current_num_threads()).clamp(8, 32)
}

/// Takes `rows` `chunk_rows` at a time (at least one), maps the chunks on the current rayon
/// pool with `map`, a sliding window of them at a time ([`map_in_order`]), and hands the
/// results to `fold` in the table's order on this thread, which also reads the rows. The
/// first error of `rows` ends the call (the chunks before it folded or not: the caller drops
/// its partial sums).
///
/// ```
/// use chessfmt_tally::{Row, map_chunks};
///
/// let row = |key: u64| Row {
///     key,
///     epd: String::new(),
///     uci: "e2e4".into(),
///     counts: Default::default(),
/// };
/// let mut keys = Vec::new();
/// map_chunks((0..10).map(|k| Ok(row(k))), 3, |rows| rows.len(), |n| keys.push(n))?;
/// assert_eq!(keys, [3, 3, 3, 1]);
/// # Ok::<(), chessfmt_tally::Error>(())
/// ```
pub fn map_chunks<P: Send>(
    rows: impl IntoIterator<Item = Result<Row, Error>>,
    chunk_rows: usize,
    map: impl Fn(&[Row]) -> P + Sync,
    mut fold: impl FnMut(P),
) -> Result<(), Error> {
    let chunk_rows = chunk_rows.max(1);
    // Room for a chunk, without trusting a huge `chunk_rows` with an allocation.
    let room = chunk_rows.min(1 << 12);
    let mut rows = rows.into_iter();
    let mut failed = None;
    // The chunks, read as the window has room; an error ends them (`map_in_order` reads no
    // further).
    let chunks = std::iter::from_fn(|| {
        let mut chunk = Vec::with_capacity(room);
        for row in rows.by_ref() {
            match row {
                Ok(row) => chunk.push(row),
                Err(e) => {
                    failed = Some(e);
                    return None;
                }
            }
            if chunk.len() == chunk_rows {
                break;
            }
        }
        (!chunk.is_empty()).then_some(chunk)
    });
    map_in_order(
        chunks,
        window(),
        |chunk| map(&chunk),
        |p| {
            fold(p);
            Ok::<(), Error>(())
        },
    )?;
    failed.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: u64) -> Row {
        Row {
            key,
            epd: String::new(),
            uci: "e2e4".into(),
            counts: Default::default(),
        }
    }

    /// Every row once, in order, whatever the chunk size (windows full, partly full, empty).
    #[test]
    fn rows_in_order_once() {
        for n in [0, 1, 15, 16, 17, 100, 1000] {
            for chunk in [1, 2, 7, 16, 64, usize::MAX] {
                let mut keys = Vec::new();
                map_chunks(
                    (0..n).map(|k| Ok(row(k))),
                    chunk,
                    |rows| rows.iter().map(|r| r.key).collect::<Vec<_>>(),
                    |k| keys.extend(k),
                )
                .unwrap();
                assert_eq!(
                    keys,
                    (0..n).collect::<Vec<_>>(),
                    "{n} rows, chunks of {chunk}"
                );
            }
        }
    }

    /// An error of the rows ends the call with it.
    #[test]
    fn an_error_ends_it() {
        let rows = (0..100u64).map(|k| {
            if k == 40 {
                Err(Error::new(
                    crate::ErrorKind::Header {
                        expected: "x",
                        found: String::new(),
                    },
                    1,
                    0,
                ))
            } else {
                Ok(row(k))
            }
        });
        let mut seen = 0;
        assert!(map_chunks(rows, 7, |r| r.len(), |n| seen += n).is_err());
        assert!(seen < 40, "{seen}");
    }
}
