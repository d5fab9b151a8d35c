//! A table's rows mapped a chunk at a time on the rayon pool and folded in the table's order:
//! what a book writer that resolves every row (a position parsed, a move coded) runs in
//! parallel while its sums stay those of one pass over the rows.

use crate::{Error, Row};

/// Chunks mapped at once: two a thread of the pool, enough to even out chunks of unequal
/// cost, and at most 16, which keeps the rows in flight (two windows) to a few tens of MB.
fn window() -> usize {
    (2 * rayon::current_num_threads()).clamp(4, 16)
}

/// Takes `rows` `chunk_rows` at a time (at least one), maps a window of chunks on the current
/// rayon pool with `map`, and hands the results to `fold` in the table's order. While a window
/// is mapped, this thread folds the window before it and reads the one after. The first error
/// of `rows` ends the call (the chunks before it folded or not: the caller drops its partial
/// sums).
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
    use rayon::prelude::*;
    let chunk_rows = chunk_rows.max(1);
    // Room for a chunk, without trusting a huge `chunk_rows` with an allocation.
    let room = chunk_rows.min(1 << 12);
    let mut rows = rows.into_iter();
    let window_chunks = window();
    // The next window of chunks, and whether it is the last.
    let mut read = move || -> Result<(Vec<Vec<Row>>, bool), Error> {
        let mut window: Vec<Vec<Row>> = Vec::with_capacity(window_chunks);
        let mut chunk = Vec::with_capacity(room);
        for row in rows.by_ref() {
            chunk.push(row?);
            if chunk.len() == chunk_rows {
                window.push(std::mem::replace(&mut chunk, Vec::with_capacity(room)));
                if window.len() == window_chunks {
                    break;
                }
            }
        }
        let last = window.len() < window_chunks;
        if !chunk.is_empty() {
            window.push(chunk);
        }
        Ok((window, last))
    };
    let (mut window, mut last) = read()?;
    let mut mapped_before: Vec<P> = Vec::new();
    loop {
        let mut mapped: Vec<P> = Vec::new();
        let next = rayon::in_place_scope(|scope| {
            let (window, mapped, map) = (&window, &mut mapped, &map);
            scope.spawn(move |_| *mapped = window.par_iter().map(|rows| map(rows)).collect());
            mapped_before.drain(..).for_each(&mut fold);
            (!last).then(&mut read).transpose()
        });
        mapped_before = mapped;
        match next? {
            Some((w, l)) => (window, last) = (w, l),
            None => {
                mapped_before.into_iter().for_each(&mut fold);
                return Ok(());
            }
        }
    }
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
