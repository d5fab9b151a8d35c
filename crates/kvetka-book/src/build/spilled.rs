//! A position of a build under a memory limit as a record of the sorted runs it spills
//! (`chessfmt_files::runs`): its key, results, moves and game references.

use std::io::{self, Read};

use super::Acc;
use crate::raw::{KEY_LEN, Key, SourceRef};

/// A position and what its games gave, as the runs hold it.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Spilled(pub(super) Key, pub(super) Acc);

impl chessfmt_files::runs::Record for Spilled {
    type Key = Key;

    fn key(&self) -> Key {
        self.0
    }

    fn write(&self, out: &mut Vec<u8>) {
        let Spilled(key, a) = self;
        out.extend_from_slice(key);
        for n in [a.wins, a.draws, a.losses] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let moves = a.moves.as_slice();
        out.extend_from_slice(&(moves.len() as u32).to_le_bytes());
        out.extend_from_slice(moves);
        match a.source {
            Some(r) => {
                out.push(1);
                put_ref(out, r);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(a.links.len() as u32).to_le_bytes());
        for &r in &a.links {
            put_ref(out, r);
        }
    }

    fn read(r: &mut impl Read) -> io::Result<Option<Spilled>> {
        let mut key = [0u8; KEY_LEN];
        if !chessfmt_files::runs::read_start(r, &mut key)? {
            return Ok(None);
        }
        let wins = u64::from_le_bytes(take(r)?);
        let draws = u64::from_le_bytes(take(r)?);
        let losses = u64::from_le_bytes(take(r)?);
        let n = u32::from_le_bytes(take(r)?) as usize;
        let moves = if n <= crate::accumulate::INLINE_CODES {
            let mut b = [0; crate::accumulate::INLINE_CODES];
            r.read_exact(&mut b[..n])?;
            crate::accumulate::Codes::from_slice(&b[..n])
        } else {
            let mut v = vec![0; n.min(1 << 16)];
            r.read_exact(&mut v)?;
            crate::accumulate::Codes::from_slice(&v)
        };
        let source = match take::<1>(r)?[0] {
            0 => None,
            _ => Some(get_ref(r)?),
        };
        let n = u32::from_le_bytes(take(r)?) as usize;
        let links = (0..n).map(|_| get_ref(r)).collect::<io::Result<Vec<_>>>()?;
        Ok(Some(Spilled(
            key,
            Acc {
                wins,
                draws,
                losses,
                moves,
                source,
                links,
            },
        )))
    }
}

impl Spilled {
    /// Adds a later accumulator of the same position: what counting its games after the
    /// earlier ones would have given.
    pub(super) fn absorb(&mut self, later: Spilled) {
        let (a, b) = (&mut self.1, later.1);
        a.wins += b.wins;
        a.draws += b.draws;
        a.losses += b.losses;
        a.moves.extend_new(&b.moves);
        if a.source.is_none() {
            a.source = b.source;
        }
        a.links.extend(b.links);
    }
}

fn put_ref(out: &mut Vec<u8>, r: SourceRef) {
    out.extend_from_slice(&r.source.to_le_bytes());
    out.extend_from_slice(&r.game.to_le_bytes());
}

fn take<const N: usize>(r: &mut impl Read) -> io::Result<[u8; N]> {
    let mut b = [0; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

fn get_ref(r: &mut impl Read) -> io::Result<SourceRef> {
    Ok(SourceRef {
        source: u16::from_le_bytes(take(r)?),
        game: u32::from_le_bytes(take(r)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessfmt_files::runs::Record;

    /// Records of every shape (moves inline and not, with and without a source, links)
    /// read back as they were written, one after another; a record cut short is an error.
    #[test]
    fn records_read_back() {
        let mut x = chess_core::fuzzing::XorShift::new(0x2545_f491_4f6c_dd1d);
        let mut next = move || x.next_u64();
        let records: Vec<Spilled> = (0..2000u32)
            .map(|i| {
                let mut key = [0u8; KEY_LEN];
                key[..4].copy_from_slice(&i.to_be_bytes());
                let moves: Vec<u8> = (0..next() % 40).map(|_| (next() % 200) as u8).collect();
                let mut moves_once = Vec::new();
                for m in moves {
                    if !moves_once.contains(&m) {
                        moves_once.push(m);
                    }
                }
                let reference = |next: &mut dyn FnMut() -> u64| SourceRef {
                    source: next() as u16,
                    game: next() as u32,
                };
                Spilled(
                    key,
                    Acc {
                        wins: next(),
                        draws: next() % 1000,
                        losses: next() % 3,
                        moves: crate::accumulate::Codes::from_slice(&moves_once),
                        source: (next() % 2 == 0).then(|| reference(&mut next)),
                        links: (0..next() % 4).map(|_| reference(&mut next)).collect(),
                    },
                )
            })
            .collect();
        let mut bytes = Vec::new();
        for r in &records {
            r.write(&mut bytes);
        }
        let mut r = bytes.as_slice();
        for want in &records {
            assert_eq!(Spilled::read(&mut r).unwrap().as_ref(), Some(want));
        }
        assert!(Spilled::read(&mut r).unwrap().is_none());
        let cut = &bytes[..bytes.len() - 1];
        let mut r = cut;
        let e = std::iter::from_fn(|| Spilled::read(&mut r).transpose())
            .find_map(Result::err)
            .expect("a record cut short");
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}
