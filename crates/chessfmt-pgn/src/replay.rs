//! The ordered parallel replay every PGN-driven builder uses ([`PgnInput`],
//! [`replay_in_order`](crate::replay_in_order)).

use std::io::Read;
#[cfg(feature = "parallel")]
use std::{io, ops::ControlFlow};

use crate::{PgnBytes, PgnReader};
#[cfg(feature = "parallel")]
use crate::{
    RawGame, SkipStats,
    window::{NextWindow as Next, PgnWindow as Window, PgnWindows as Windows},
};

/// The PGN input of [`replay_in_order`](crate::replay_in_order): a stream or bytes in memory.
#[derive(Debug)]
pub enum PgnInput<'a, R> {
    /// A stream (a file, standard input, a decompressor), read in windows of whole games that
    /// are tokenised in parallel.
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
    /// give ([`PgnBytes::with_ply_limit`]: the same games, their moves cut there), for bytes
    /// in memory and for a stream that a replay reads in windows (one that cannot be cut
    /// into windows, or a reader that has already read games, is read whole).
    #[must_use]
    pub fn with_ply_limit(self, plies: usize) -> Self {
        match self {
            PgnInput::Reader(r) => PgnInput::Reader(r.with_ply_limit(plies)),
            PgnInput::Bytes(b) => PgnInput::Bytes(b.with_ply_limit(plies)),
        }
    }

    /// The size of the pieces a replay tokenises in parallel (512 KiB by default; at least
    /// one byte): smaller pieces keep fewer games in flight (a memory-limited builder's). A
    /// stream is read in windows of four pieces a worker thread.
    #[must_use]
    pub fn with_piece_size(self, bytes: usize) -> Self {
        match self {
            PgnInput::Reader(mut r) => {
                r.piece = bytes.max(1);
                PgnInput::Reader(r)
            }
            PgnInput::Bytes(b) => PgnInput::Bytes(b.with_piece_size(bytes)),
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

/// The size of the pieces ([`PgnInput::with_piece_size`]) that keeps the games a replay has
/// in flight near `budget` bytes: at most eight pieces a worker thread of the current pool (a
/// stream's two windows of four, or three groups of two of bytes in memory), each byte of text
/// taking `cost` bytes once tokenised and mapped;
/// between 64 KiB and the default 512 KiB. For a builder under a memory limit.
///
/// ```
/// let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let piece = one_thread.install(|| chessfmt_pgn::piece_size_within(16 << 20, 20));
/// assert_eq!(piece, 104_857);
/// ```
#[cfg(feature = "parallel")]
pub fn piece_size_within(budget: usize, cost: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (budget / (2 * 4 * cost.max(1) * threads)).clamp(64 << 10, 512 << 10)
}

/// Reads `input` in batches of `batch` games, maps every game with `map` in parallel on the
/// current rayon pool, and hands each mapped batch to `sink` **in input order** (batch k is
/// sunk on this thread while batch k + 1 is mapped by the pool): the ordered parallel replay
/// that every PGN-driven builder of the family uses. Bytes in memory ([`PgnBytes`]) are cut
/// at game boundaries and tokenised in parallel too; a stream ([`PgnReader`]) is read in
/// windows of whole games (four pieces a worker thread) that are cut and tokenised likewise
/// while the next window is read; the games, numbers and offsets are those one reader gives.
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

/// The games of a group of pieces of `bytes`: `pieces[group]` tokenised in parallel, then
/// numbered on from `index` (game numbers) and `offset` (bytes before `bytes`), in order.
/// A piece whose last game is cut off was cut inside a comment holding an empty line and
/// "[Event": it is read again joined with the next piece (taken from `pieces` past the group
/// where needed). Where the bytes end inside a game and `ends` says the input goes on, that
/// piece is left for the bytes that follow ([`Group::rest`]).
#[cfg(feature = "parallel")]
fn tokenise_group(
    bytes: &PgnBytes<'_>,
    pieces: &[std::ops::Range<usize>],
    group: std::ops::Range<usize>,
    (index, offset): (u64, u64),
    ends: bool,
) -> Group {
    use rayon::prelude::*;
    let mut tokenised: std::collections::VecDeque<_> = pieces[group.clone()]
        .par_iter()
        .map(|r| (r.clone(), bytes.tokenise(r.clone())))
        .collect();
    let mut out = Group {
        games: Vec::new(),
        skipped: SkipStats::default(),
        used: index,
        next_piece: group.end,
        rest: None,
    };
    while let Some((mut range, mut piece)) = tokenised.pop_front() {
        while piece.1.truncated() && range.end < bytes.data.len() {
            let next = match tokenised.pop_front() {
                Some((r, _)) => r,
                None => {
                    out.next_piece += 1;
                    pieces[out.next_piece - 1].clone()
                }
            };
            range = range.start..next.end;
            piece = bytes.tokenise(range.clone());
        }
        if piece.1.truncated() && !ends {
            out.rest = Some(range.start);
            break;
        }
        let (mut g, mut s, used) = piece;
        crate::cut::renumber(&mut g, &mut s, out.used, offset + range.start as u64);
        out.games.extend(g);
        out.skipped.merge(s);
        out.used += used;
    }
    out
}

/// What [`tokenise_group`] read.
#[cfg(feature = "parallel")]
struct Group {
    games: Vec<RawGame>,
    skipped: SkipStats,
    /// The next game's number.
    used: u64,
    /// The first piece not read.
    next_piece: usize,
    /// Where the bytes' last game, cut off by their end, begins (when the input goes on).
    rest: Option<usize>,
}

/// A sink that is not called with an empty batch.
#[cfg(feature = "parallel")]
fn sink_nonempty<T>(
    sink: &mut impl FnMut(Vec<T>) -> ControlFlow<()>,
    mapped: Vec<T>,
) -> ControlFlow<()> {
    if mapped.is_empty() {
        ControlFlow::Continue(())
    } else {
        sink(mapped)
    }
}

/// [`replay_in_order`](crate::replay_in_order) of bytes in memory: pieces cut at game boundaries
/// are tokenised and replayed in parallel, a group of pieces (two per worker) at a time, in a
/// pipeline of three stages that run at once: the next group is tokenised while this one is
/// mapped and the one before is sunk. Tokenising a group ends in a wait for its slowest piece
/// (its games are numbered in order before they are mapped); with the mapping of the group
/// before beside it, that wait leaves no worker idle. The games are renumbered as one input
/// before they are mapped. The bytes of a group are released (see
/// [`PgnBytes::with_release`]) once it is tokenised.
#[cfg(feature = "parallel")]
fn replay_bytes<T: Send>(
    bytes: PgnBytes<'_>,
    map_all: impl Fn(&[RawGame]) -> Vec<T> + Sync,
    mut sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    mut progress: impl FnMut(u64),
) -> SkipStats {
    let pieces = bytes.pieces();
    // Two pieces a worker: work stealing evens out pieces of unequal cost, and the stages
    // beside a group's tokenising fill its tail. The groups in flight (one being tokenised,
    // one mapped, the batch before it being sunk) are the pipeline's memory: one MiB of text a
    // worker each keeps it to a few tens of MB beside a build's table (with four pieces a
    // worker, two-thread Polyglot and CTG builds of 343 MB peaked 16-61 MB higher).
    let group_size = 2 * rayon::current_num_threads().max(1);
    // The group of pieces from `at`, its games numbered from `index`.
    let tokenise_from = |at: usize, index: u64| {
        let end = (at + group_size).min(pieces.len());
        tokenise_group(&bytes, &pieces, at..end, (index, 0), true)
    };
    // From the previous group's start: a release keeps the blocks a range only partly
    // covers (see `PgnBytes::pieces`).
    let mut behind = 0;
    let mut release = |at: usize, group: &Group| {
        bytes.release(behind..pieces[group.next_piece - 1].end);
        behind = pieces[at].start;
    };
    let mut skipped = SkipStats::default();
    let mut read = 0u64;
    // A group's games go to the sink in one batch (a group is 1 MiB of text a worker):
    // fewer, larger batches let a sink that works in parallel itself fork and join less.
    let mut pending: Option<Vec<T>> = None;
    let mut tokenised = (!pieces.is_empty()).then(|| tokenise_from(0, 0));
    if let Some(group) = &tokenised {
        release(0, group);
    }
    while let Some(group) = tokenised.take() {
        let at = group.next_piece;
        let ((flow, mapped), next) = rayon::join(
            || {
                rayon::join(
                    || {
                        pending
                            .take()
                            .map_or(ControlFlow::Continue(()), |p| sink_nonempty(&mut sink, p))
                    },
                    || map_all(&group.games),
                )
            },
            || (at < pieces.len()).then(|| tokenise_from(at, group.used)),
        );
        if let Some(next) = &next {
            release(at, next);
        }
        read += group.games.len() as u64;
        skipped.merge(group.skipped);
        progress(read);
        if flow.is_break() {
            return skipped;
        }
        pending = Some(mapped);
        tokenised = next;
    }
    if let Some(p) = pending {
        let _ = sink_nonempty(&mut sink, p);
    }
    skipped
}

/// [`replay_in_order`](crate::replay_in_order) of a stream: read in windows of whole games,
/// each cut into pieces tokenised in parallel as bytes in memory are, while the next window
/// is read and the window before is sunk. A reader that has already read games is tokenised
/// on a thread of its own, and so is the rest of a stream where no window can be cut
/// ([`Next::TooLong`]).
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
    let unread = match reader.into_unread() {
        Ok(unread) => unread,
        Err(reader) => {
            let reader = (*reader).with_ply_limit(usize::MAX);
            let state = Stream {
                pending: None,
                index: 0,
                offset: 0,
                read: 0,
            };
            return tokenise_stream(reader, batch, state, map_all, sink, progress)
                .map(|(skipped, _)| skipped);
        }
    };
    let template = PgnBytes::new(&[])
        .with_limits(unread.limits)
        .with_header_filter(unread.keep_header)
        .with_ply_limit(unread.ply_limit)
        .with_piece_size(unread.piece);
    let mut windows = Windows::of_pieces(
        unread.source,
        template.piece_size(),
        rayon::current_num_threads(),
    );
    let most = windows.most();
    let tally = unread.tally;
    let mut skipped = SkipStats::default();
    let (mut index, mut read) = (0u64, 0u64);
    let mut pending: Option<Vec<T>> = None;
    let mut next = windows.next_window()?;
    loop {
        let window = match next {
            Next::End => break,
            Next::Window(window) => window,
            Next::TooLong(head) => {
                // The rest on one thread, from the bytes held and the stream after them.
                let reader = PgnReader::with_limits(
                    io::Cursor::new(head.data).chain(windows.into_rest()),
                    unread.limits,
                )
                .with_header_filter(unread.keep_header);
                let state = Stream {
                    pending,
                    index,
                    offset: head.offset,
                    read,
                };
                let (more, used) =
                    tokenise_stream(reader, batch, state, map_all, &mut sink, progress)?;
                skipped.merge(more);
                note_damage(&mut skipped, &tally, used);
                return Ok(skipped);
            }
        };
        let bytes = template.over(&window.data);
        let ((flow, after), (mapped, group)) = rayon::join(
            || {
                rayon::join(
                    || {
                        pending
                            .take()
                            .map_or(ControlFlow::Continue(()), |p| sink_nonempty(&mut sink, p))
                    },
                    || {
                        if window.last {
                            Ok(Next::End)
                        } else {
                            windows.next_window()
                        }
                    },
                )
            },
            || {
                let pieces = bytes.pieces();
                let all = 0..pieces.len();
                let group =
                    tokenise_group(&bytes, &pieces, all, (index, window.offset), window.last);
                (map_all(&group.games), group)
            },
        );
        read += group.games.len() as u64;
        index = group.used;
        skipped.merge(group.skipped);
        progress(read);
        if flow.is_break() {
            return Ok(skipped);
        }
        pending = Some(mapped);
        next = after?;
        // The window ended inside a game (cut inside a comment holding "[Event"): its last
        // piece is read again with the bytes that follow.
        if let Some(rest) = group.rest {
            next = join_rest(
                &window.data[rest..],
                window.offset + rest as u64,
                next,
                most,
            );
        }
        windows.recycle(window.data);
    }
    if let Some(p) = pending {
        let _ = sink_nonempty(&mut sink, p);
    }
    note_damage(&mut skipped, &tally, index);
    Ok(skipped)
}

/// `next` after `rest`, the end of the window before it (from `offset` in the stream); too
/// long past `most` bytes.
#[cfg(feature = "parallel")]
fn join_rest(rest: &[u8], offset: u64, next: Next, most: usize) -> Next {
    let (tail, last, too_long) = match next {
        Next::End => (Vec::new(), true, false),
        Next::Window(w) => (w.data, w.last, false),
        Next::TooLong(w) => (w.data, false, true),
    };
    let mut data = Vec::with_capacity(rest.len() + tail.len());
    data.extend_from_slice(rest);
    data.extend_from_slice(&tail);
    let window = Window { data, offset, last };
    if too_long || (!last && window.data.len() > most) {
        Next::TooLong(window)
    } else {
        Next::Window(window)
    }
}

/// A damaged compressed stream ended the input: as [`PgnReader`] records it, at the game it
/// cut off (the example of a truncated game says so) or, when it cut none, after the last
/// game (`index`, the end of the text).
#[cfg(feature = "parallel")]
fn note_damage(skipped: &mut SkipStats, tally: &crate::reader::Tally, index: u64) {
    let Some(damage) = tally.damage() else {
        return;
    };
    let reason = crate::SkipReason::DamagedStream(damage);
    if let Some(cut) = skipped
        .examples
        .iter_mut()
        .find(|e| matches!(e.reason, crate::SkipReason::Truncated(_)))
    {
        cut.reason = reason;
    } else if !skipped.truncated() {
        skipped.record(crate::GameError {
            index,
            offset: tally.count(),
            reason,
        });
    }
}

/// Where a stream read on one thread begins in the input: the batch read before it, not yet
/// sunk, and the games and bytes before it.
#[cfg(feature = "parallel")]
struct Stream<T> {
    pending: Option<Vec<T>>,
    index: u64,
    offset: u64,
    read: u64,
}

/// A stream tokenised on a thread of its own in batches of `batch` games, its games
/// numbered on from `state`; returns the games it skipped and the next game's number.
#[cfg(feature = "parallel")]
fn tokenise_stream<R, T>(
    reader: PgnReader<R>,
    batch: usize,
    state: Stream<T>,
    map_all: impl Fn(&[RawGame]) -> Vec<T> + Sync,
    mut sink: impl FnMut(Vec<T>) -> ControlFlow<()> + Send,
    mut progress: impl FnMut(u64),
) -> io::Result<(SkipStats, u64)>
where
    R: Read + Send,
    T: Send,
{
    let batch = batch.max(1);
    let mut reader = reader;
    let (index, offset) = (state.index, state.offset);
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<RawGame>>>(8);
        let tokeniser = scope.spawn(move || {
            loop {
                let mut games = reader.next_batch(batch);
                if let Ok(games) = &mut games {
                    crate::cut::renumber(games, &mut SkipStats::default(), index, offset);
                }
                let done = matches!(&games, Ok(b) if b.len() < batch) || games.is_err();
                if tx.send(games).is_err() || done {
                    break;
                }
            }
            let mut skipped = reader.take_skipped();
            crate::cut::renumber(&mut [], &mut skipped, index, offset);
            (skipped, index + reader.next_index)
        });
        let mut read = state.read;
        let mut pending = state.pending;
        let mut stopped = false;
        for games in &rx {
            let games = games?;
            read += games.len() as u64;
            let (flow, mapped) = rayon::join(
                || match pending.take() {
                    Some(p) => sink_nonempty(&mut sink, p),
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
            let _ = sink_nonempty(&mut sink, p);
        }
        Ok(tokeniser.join().unwrap_or_default())
    })
}
