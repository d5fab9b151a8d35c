//! Items mapped on the rayon pool a sliding window at a time, their results handed on in
//! order: a new item starts as soon as the oldest result is handed on, not when the slowest
//! of a group ends (a group's barrier left all but one thread idle at its end, once a group).

use std::{
    collections::VecDeque,
    panic::{self, AssertUnwindSafe},
    sync::mpsc,
};

/// Maps `items` on the current rayon pool with `map`, at most `window` (at least one) mapped
/// or waiting to be handed on at once, and hands the results to `sink` on this thread in
/// the items' order. `items` is read on this thread, an item whenever the window has room,
/// and not past its first `None`.
/// While the next result is not ready, this thread runs the pool's jobs when it is a thread
/// of the pool (waits otherwise). The first error of `sink` ends the call (the items in
/// flight are mapped and dropped); a panic of `map` is resumed here once the items in flight
/// are done.
///
/// What a reduction that must stay in input order runs in parallel: runs merged a range of
/// keys at a time ([`Runs::merge_in_ranges`](super::Runs::merge_in_ranges)), a run's
/// records encoded, a table's rows resolved a chunk at a time.
///
/// ```
/// use chessfmt_files::runs::map_in_order;
///
/// let mut squares = Vec::new();
/// map_in_order(1..=5u64, 2, |n| n * n, |sq| {
///     squares.push(sq);
///     Ok::<(), ()>(())
/// })
/// .unwrap();
/// assert_eq!(squares, [1, 4, 9, 16, 25]);
/// ```
pub fn map_in_order<T, U, E>(
    items: impl IntoIterator<Item = T>,
    window: usize,
    map: impl Fn(T) -> U + Sync,
    mut sink: impl FnMut(U) -> Result<(), E>,
) -> Result<(), E>
where
    T: Send,
    U: Send,
{
    let window = window.max(1);
    // Not read past its end.
    let mut items = items.into_iter().fuse();
    let (tx, rx) = mpsc::channel::<(usize, std::thread::Result<U>)>();
    let map = &map;
    rayon::in_place_scope(|scope| {
        // The results of the items started and not handed on, from the oldest (item number
        // `done`), `None` until mapped.
        let mut slots: VecDeque<Option<std::thread::Result<U>>> = VecDeque::new();
        let mut done = 0usize;
        loop {
            while slots.len() < window {
                let Some(item) = items.next() else { break };
                let (tx, i) = (tx.clone(), done + slots.len());
                scope.spawn(move |_| {
                    let mapped = panic::catch_unwind(AssertUnwindSafe(|| map(item)));
                    // The receiver outlives the scope: a send cannot fail.
                    let _ = tx.send((i, mapped));
                });
                slots.push_back(None);
            }
            if slots.is_empty() {
                return Ok(());
            }
            while slots[0].is_none() {
                let (i, mapped) = match rx.try_recv() {
                    Ok(got) => got,
                    // Nothing to hand on yet: run a job of the pool meanwhile, or wait.
                    Err(_) => match rayon::yield_now() {
                        Some(rayon::Yield::Executed) => continue,
                        _ => rx.recv().expect("a sender is held here"),
                    },
                };
                slots[i - done] = Some(mapped);
            }
            let mapped = slots
                .pop_front()
                .flatten()
                .expect("the oldest result is ready");
            // Handed on before the next item starts: `window` results held at most.
            let result = match mapped {
                Ok(u) => sink(u),
                Err(payload) => panic::resume_unwind(payload),
            };
            done += 1;
            result?;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every result once, in order, whatever the window and the pool (items of unequal cost
    /// finishing out of order).
    #[test]
    fn results_in_order() {
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for window in [0, 1, 2, 3, 8, 100] {
                for n in [0usize, 1, 7, 50] {
                    let mut got = Vec::new();
                    pool.install(|| {
                        map_in_order(
                            0..n,
                            window,
                            |i| {
                                // Later items finish first.
                                let spin = (n - i) * 2000;
                                (0..spin).fold(i, |a, b| std::hint::black_box(a ^ b) ^ b)
                            },
                            |u| {
                                got.push(u);
                                Ok::<(), ()>(())
                            },
                        )
                    })
                    .unwrap();
                    assert_eq!(
                        got,
                        (0..n).collect::<Vec<_>>(),
                        "{threads} threads, window {window}"
                    );
                }
            }
        }
        // Outside any pool (the global one maps; this thread waits).
        let mut got = Vec::new();
        map_in_order(
            0..20,
            3,
            |i| i * 2,
            |u| {
                got.push(u);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(got, (0..20).map(|i| i * 2).collect::<Vec<_>>());
    }

    /// No more than `window` items are mapped or held at once.
    #[test]
    fn window_bounds_the_items_held() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let held = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        pool.install(|| {
            map_in_order(
                0..200,
                3,
                |i| {
                    let now = held.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    i
                },
                |_| {
                    held.fetch_sub(1, Ordering::SeqCst);
                    Ok::<(), ()>(())
                },
            )
        })
        .unwrap();
        assert!(most.load(Ordering::SeqCst) <= 3, "{most:?}");
    }

    /// The sink's first error ends the call; a panic of the map is resumed.
    #[test]
    fn errors_and_panics() {
        let mut seen = Vec::new();
        let r = map_in_order(
            0..100,
            4,
            |i| i,
            |u| {
                seen.push(u);
                if u == 10 { Err(u) } else { Ok(()) }
            },
        );
        assert_eq!(r, Err(10));
        assert_eq!(seen, (0..=10).collect::<Vec<_>>());
        let caught = panic::catch_unwind(|| {
            map_in_order(
                0..10,
                2,
                |i| {
                    assert!(i != 5, "item five");
                    i
                },
                |_| Ok::<(), ()>(()),
            )
        });
        assert!(caught.is_err());
    }
}
