//! The ordered parallel replay every PGN-driven builder uses ([`PgnInput`],
//! [`replay_in_order`](crate::replay_in_order)).

use std::io::Read;
#[cfg(feature = "parallel")]
use std::{io, ops::ControlFlow};

use crate::{PgnBytes, PgnReader};
#[cfg(feature = "parallel")]
use crate::{RawGame, SkipStats};

/// The PGN input of [`replay_in_order`](crate::replay_in_order): a stream or bytes in memory.
#[derive(Debug)]
pub enum PgnInput<'a, R> {
    /// A stream (a file, standard input, a decompressor), tokenised on one thread.
    Reader(PgnReader<R>),
    /// Bytes in memory, tokenised in parallel.
    Bytes(PgnBytes<'a>),
}

impl<R> From<PgnReader<R>> for PgnInput<'_, R> {
    fn from(r: PgnReader<R>) -> Self {
        PgnInput::Reader(r)
    }
}

impl<'a> From<PgnBytes<'a>> for PgnInput<'a, &'a [u8]> {
    fn from(b: PgnBytes<'a>) -> Self {
        PgnInput::Bytes(b)
    }
}

impl<'a, R: Read> PgnInput<'a, R> {
    /// Reads at most the first `plies` main-line moves of a game whose result its headers
    /// give, for bytes in memory ([`PgnBytes::with_ply_limit`]: the same games, their moves
    /// cut there); a stream is read whole (whether its last game was cut off by the end of
    /// the input needs its whole text, which a stream does not keep).
    #[must_use]
    pub fn with_ply_limit(self, plies: usize) -> Self {
        match self {
            PgnInput::Reader(r) => PgnInput::Reader(r),
            PgnInput::Bytes(b) => PgnInput::Bytes(b.with_ply_limit(plies)),
        }
    }

    /// Keeps only the headers `keep` accepts, whichever the input.
    #[must_use]
    pub fn with_header_filter(self, keep: fn(&[u8]) -> bool) -> Self {
        match self {
            PgnInput::Reader(r) => PgnInput::Reader(r.with_header_filter(keep)),
            PgnInput::Bytes(b) => PgnInput::Bytes(b.with_header_filter(keep)),
        }
    }
}

/// Reads `input` in batches of `batch` games, maps every game with `map` in parallel on the
/// current rayon pool, and hands each mapped batch to `sink` **in input order** (batch k is
/// sunk on this thread while batch k + 1 is mapped by the pool): the ordered parallel replay
/// that every PGN-driven builder of the family uses. A stream ([`PgnReader`]) is tokenised on
/// a thread of its own; bytes in memory ([`PgnBytes`]) are cut at game boundaries and
/// tokenised in parallel too, with the same games, numbers and offsets.
///
/// `sink` may stop the run early with `ControlFlow::Break` (a builder whose spill failed, for
/// instance). Returns the games the reader itself left out (unreadable, cut off by the end of
/// the input); only an I/O error of the reader ends the call with an error. `progress` is
/// called after every batch with the number of games read so far.
///
/// ```
/// use chessfmt_pgn::{PgnReader, replay_in_order};
/// use std::ops::ControlFlow;
///
/// let pgn = "1. e4 e5 2. Nf3 *\n\n1. d4 d5 *\n\n1. e4 c5 *\n";
/// let mut plies = Vec::new();
/// let skipped = replay_in_order(
///     PgnReader::new(pgn.as_bytes()),
///     2,
///     |raw| raw.resolve().map(|g| g.moves.len()),
///     |batch| {
///         plies.extend(batch.into_iter().map(Result::unwrap));
///         ControlFlow::Continue(())
///     },
///     |_| {},
/// )?;
/// assert_eq!((plies, skipped.total()), (vec![3, 2, 2], 0));
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(feature = "parallel")]
pub fn replay_in_order<'a, R, T>(
    input: impl Into<PgnInput<'a, R>>,
    batch: usize,
    map: impl Fn(&RawGame) -> T + Sync,
    sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    progress: impl FnMut(u64),
) -> io::Result<SkipStats>
where
    R: Read + Send,
    T: Send,
{
    use rayon::prelude::*;
    replay_with(
        input.into(),
        batch,
        |games| games.par_iter().map(&map).collect(),
        sink,
        progress,
    )
}

/// [`replay_in_order`] with the games mapped a run at a time: `map` gets runs of up to `run`
/// consecutive games (in input order; a batch's last run may be shorter) and `sink` gets
/// each batch's results of its runs, in order. For a builder that would otherwise make a few
/// small allocations per game on the pool only to free them all on the sink's thread (where
/// the system allocator's locks make the other threads wait): one result per run, in memory
/// the builder can lay out as its counting needs.
///
/// ```
/// use chessfmt_pgn::{PgnReader, replay_runs_in_order};
/// use std::ops::ControlFlow;
///
/// let pgn = "1. e4 e5 2. Nf3 *\n\n1. d4 d5 *\n\n1. e4 c5 *\n";
/// let mut runs = Vec::new();
/// replay_runs_in_order(
///     PgnReader::new(pgn.as_bytes()),
///     8,
///     2,
///     |games| games.iter().map(|g| g.sans.len()).sum::<usize>(),
///     |batch| {
///         runs.extend(batch);
///         ControlFlow::Continue(())
///     },
///     |_| {},
/// )?;
/// assert_eq!(runs, [5, 2]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(feature = "parallel")]
pub fn replay_runs_in_order<'a, R, U>(
    input: impl Into<PgnInput<'a, R>>,
    batch: usize,
    run: usize,
    map: impl Fn(&[RawGame]) -> U + Sync,
    sink: impl FnMut(Vec<U>) -> ControlFlow<()> + Send,
    progress: impl FnMut(u64),
) -> io::Result<SkipStats>
where
    R: Read + Send,
    U: Send,
{
    use rayon::prelude::*;
    let run = run.max(1);
    replay_with(
        input.into(),
        batch,
        |games| games.par_chunks(run).map(&map).collect(),
        sink,
        progress,
    )
}

/// The two public replays: a stream or bytes in memory, each batch of games mapped whole by
/// `map_all` on the pool.
#[cfg(feature = "parallel")]
fn replay_with<R: Read + Send, T: Send>(
    input: PgnInput<'_, R>,
    batch: usize,
    map_all: impl Fn(&[RawGame]) -> Vec<T> + Sync,
    sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    progress: impl FnMut(u64),
) -> io::Result<SkipStats> {
    match input {
        PgnInput::Reader(reader) => replay_stream(reader, batch, map_all, sink, progress),
        PgnInput::Bytes(bytes) => Ok(replay_bytes(bytes, map_all, sink, progress)),
    }
}

/// [`replay_in_order`](crate::replay_in_order) of bytes in memory: pieces cut at game boundaries
/// are tokenised and replayed in parallel, a group of pieces (four per worker) at a time, while
/// the previous group is sunk; the games are renumbered as one input before they are mapped. The
/// bytes of a group are released (see [`PgnBytes::with_release`]) once it is tokenised.
#[cfg(feature = "parallel")]
fn replay_bytes<T: Send>(
    bytes: PgnBytes<'_>,
    map_all: impl Fn(&[RawGame]) -> Vec<T> + Sync,
    mut sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    mut progress: impl FnMut(u64),
) -> SkipStats {
    use rayon::prelude::*;
    use std::ops::ControlFlow;
    let pieces = bytes.pieces();
    // Four pieces a worker: work stealing evens out pieces of unequal cost. A group in flight
    // (its games, their plies, the batch before it being sunk) is the pipeline's memory: two
    // MiB of text a worker keeps it to a few tens of MB beside a build's table.
    let group_size = 4 * rayon::current_num_threads().max(1);
    let mut skipped = SkipStats::default();
    let (mut next_index, mut read) = (0u64, 0u64);
    let mut pending: Option<Vec<T>> = None;
    // A group's games go to the sink in one batch (a group is 2 MiB of text a worker):
    // fewer, larger batches let a sink that works in parallel itself fork and join less.
    let mut sink_all = |mapped: Vec<T>| -> ControlFlow<()> {
        if mapped.is_empty() {
            ControlFlow::Continue(())
        } else {
            sink(mapped)
        }
    };
    let (mut at, mut behind) = (0, 0);
    while at < pieces.len() {
        let base = next_index;
        let group_end = (at + group_size).min(pieces.len());
        let mut next_piece = group_end;
        let (flow, (mapped, games_read, group_skipped, used)) = rayon::join(
            || {
                pending
                    .take()
                    .map_or(ControlFlow::Continue(()), &mut sink_all)
            },
            || {
                let mut tokenised: std::collections::VecDeque<_> = pieces[at..group_end]
                    .par_iter()
                    .map(|r| (r.clone(), bytes.tokenise(r.clone())))
                    .collect();
                let (mut games, mut skipped, mut index) = (Vec::new(), SkipStats::default(), base);
                while let Some((mut range, mut piece)) = tokenised.pop_front() {
                    // A piece whose last game is cut off was cut inside a comment holding an
                    // empty line and "[Event": join the next piece and read both again.
                    while piece.1.truncated() && range.end < bytes.data.len() {
                        let next = match tokenised.pop_front() {
                            Some((r, _)) => r,
                            None => {
                                next_piece += 1;
                                pieces[next_piece - 1].clone()
                            }
                        };
                        range = range.start..next.end;
                        piece = bytes.tokenise(range.clone());
                    }
                    let (mut g, mut s, used) = piece;
                    crate::cut::renumber(&mut g, &mut s, index, range.start as u64);
                    games.extend(g);
                    skipped.merge(s);
                    index += used;
                }
                let mapped = map_all(&games);
                (mapped, games.len(), skipped, index)
            },
        );
        // From the previous group's start: a release keeps the blocks a range only partly
        // covers (see `PgnBytes::pieces`).
        bytes.release(behind..pieces[next_piece - 1].end);
        behind = pieces[at].start;
        at = next_piece;
        read += games_read as u64;
        next_index = used;
        skipped.merge(group_skipped);
        progress(read);
        if flow.is_break() {
            return skipped;
        }
        pending = Some(mapped);
    }
    if let Some(p) = pending {
        let _ = sink_all(p);
    }
    skipped
}

/// [`replay_in_order`](crate::replay_in_order) of a stream: tokenised on a thread of its own.
#[cfg(feature = "parallel")]
fn replay_stream<R, T>(
    reader: PgnReader<R>,
    batch: usize,
    map_all: impl Fn(&[RawGame]) -> Vec<T> + Sync,
    mut sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    mut progress: impl FnMut(u64),
) -> io::Result<SkipStats>
where
    R: Read + Send,
    T: Send,
{
    use std::ops::ControlFlow;
    let batch = batch.max(1);
    let mut reader = reader;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<RawGame>>>(8);
        let tokeniser = scope.spawn(move || {
            loop {
                let games = reader.next_batch(batch);
                let done = matches!(&games, Ok(b) if b.len() < batch) || games.is_err();
                if tx.send(games).is_err() || done {
                    break;
                }
            }
            reader.take_skipped()
        });
        let mut read = 0u64;
        let mut pending: Option<Vec<T>> = None;
        let mut stopped = false;
        for games in &rx {
            let games = games?;
            read += games.len() as u64;
            let (flow, mapped) = rayon::join(
                || match pending.take() {
                    Some(p) => sink(p),
                    None => ControlFlow::Continue(()),
                },
                || map_all(&games),
            );
            progress(read);
            if flow.is_break() {
                stopped = true;
                break;
            }
            pending = Some(mapped);
        }
        // Dropping the receiver stops the tokeniser at its next send.
        drop(rx);
        if !stopped && let Some(p) = pending {
            let _ = sink(p);
        }
        Ok(tokeniser.join().unwrap_or_default())
    })
}
