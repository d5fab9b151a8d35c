//! How the runs of a CTG build or from-tally under a memory limit hold a position
//! (`chessfmt_files::runs`): its key, in the order of [`crate::write::StreamWriter`], then
//! nine sums and its moves' plays, in variable-length numbers (most are small).

use std::io::{self, Read};

use chessfmt_files::runs::{get_varint, put_varint, read_start};

use crate::position;

/// The order of [`crate::write::StreamWriter`]: the position's [`crate::write::hash_order`],
/// then its bytes (zero-padded, and their number: the order of the bytes themselves).
pub(crate) type Order = (u32, [u8; 32], usize);

/// The run order of `key`: the order in which [`crate::write::StreamWriter::push`] takes
/// records, as a key to sort by.
pub(crate) fn order(key: &position::Key) -> Order {
    let b = key.as_bytes();
    let mut bytes = [0; 32];
    let len = b.len().min(32);
    bytes[..len].copy_from_slice(&b[..len]);
    (crate::write::hash_order(b), bytes, b.len())
}

/// Appends `key`: its length, then its bytes.
pub(crate) fn put_key(out: &mut Vec<u8>, key: &position::Key) {
    let b = key.as_bytes();
    out.push(b.len() as u8);
    out.extend_from_slice(b);
}

/// The key of a run's next record, `None` at the run's end.
pub(crate) fn get_key(r: &mut impl Read) -> io::Result<Option<position::Key>> {
    let mut len = [0; 1];
    if !read_start(r, &mut len)? {
        return Ok(None);
    }
    let mut b = [0; 32];
    let b = b
        .get_mut(..usize::from(len[0]))
        .ok_or_else(|| io::Error::other("a run's key is too long"))?;
    r.read_exact(b)?;
    position::Key::from_bytes(b)
        .map(Some)
        .ok_or_else(|| io::Error::other("a run's key is too long"))
}

/// Appends nine sums, the number of moves (`count`: at most one a move code), then each of
/// the `count` moves' code and plays.
pub(crate) fn put_sums(
    out: &mut Vec<u8>,
    sums: [u64; 9],
    count: usize,
    moves: impl Iterator<Item = (u8, u64)>,
) {
    for v in sums {
        put_varint(out, v);
    }
    put_varint(out, count as u64);
    for (code, plays) in moves {
        out.push(code);
        put_varint(out, plays);
    }
}

/// Reads what [`put_sums`] wrote: the nine sums, each move to `each_move`.
pub(crate) fn get_sums(
    r: &mut impl Read,
    mut each_move: impl FnMut(u8, u64) -> io::Result<()>,
) -> io::Result<[u64; 9]> {
    let mut sums = [0u64; 9];
    for v in &mut sums {
        *v = get_varint(r)?;
    }
    // A move code is a byte: more than 256 moves is not a run of ours.
    let moves = get_varint(r)?;
    if moves > 256 {
        return Err(io::Error::other("a run's position has too many moves"));
    }
    for _ in 0..moves {
        let mut code = [0; 1];
        r.read_exact(&mut code)?;
        each_move(code[0], get_varint(r)?)?;
    }
    Ok(sums)
}
