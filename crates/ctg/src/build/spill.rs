//! A build under a memory limit: past it, the position table is written to a sorted run (an
//! anonymous temporary file, `chessfmt_files::runs`) and emptied; at the end the runs and
//! the table are merged in the order of [`crate::write::StreamWriter`], each position's parts
//! added together, and the book streams to its files. Counting is a sum (saturating, with
//! each game counted once per position before the table sees it) and a position's moves are
//! ordered when its record is made, so the book is the one of an unlimited build.

use std::io::{self, Read};

use chessfmt_files::runs::{Record, Runs};

use super::{Acc, MoveCounts};
use crate::position;

/// Bytes of memory a position of the table is counted for: its key and counts in a part of
/// the table, its moves, and its place in the list the table is sorted in when spilled.
pub(super) const BYTES_PER_POSITION: usize = 320;

/// The runs of a build under a limit.
#[derive(Debug)]
pub(super) struct Spill {
    /// Positions the table may hold before it is spilled.
    pub(super) max_positions: usize,
    pub(super) runs: Runs<Spilled>,
}

/// A position of the table, as a run holds it (laid out as the table's entries, so that a
/// list of those becomes a list of these in place).
#[derive(Debug)]
pub(super) struct Spilled(pub(super) position::Key, pub(super) Acc);

impl Acc {
    /// Adds `other`'s counts (saturating, as counting does) and moves.
    pub(super) fn merge(&mut self, other: Acc) {
        let add = |a: &mut u32, b: u32| *a = a.saturating_add(b);
        add(&mut self.games, other.games);
        add(&mut self.wins, other.wins);
        add(&mut self.losses, other.losses);
        add(&mut self.draws, other.draws);
        add(&mut self.unknown, other.unknown);
        add(&mut self.r1.0, other.r1.0);
        add(&mut self.r1.1, other.r1.1);
        add(&mut self.r2.0, other.r2.0);
        add(&mut self.r2.1, other.r2.1);
        for (code, n) in other.moves.iter() {
            self.moves.add_n(code, n);
        }
    }
}

impl Record for Spilled {
    type Key = crate::runs::Order;

    fn key(&self) -> Self::Key {
        crate::runs::order(&self.0)
    }

    fn write(&self, out: &mut Vec<u8>) {
        crate::runs::put_key(out, &self.0);
        let a = &self.1;
        let sums = [
            a.games, a.wins, a.losses, a.draws, a.unknown, a.r1.0, a.r1.1, a.r2.0, a.r2.1,
        ];
        let moves = a.moves.iter().map(|(code, n)| (code, u64::from(n)));
        crate::runs::put_sums(out, sums.map(u64::from), a.moves.len(), moves);
    }

    fn read(r: &mut impl Read) -> io::Result<Option<Self>> {
        let Some(key) = crate::runs::get_key(r)? else {
            return Ok(None);
        };
        let count =
            |v: u64| u32::try_from(v).map_err(|_| io::Error::other("a run's count is too large"));
        let mut moves = MoveCounts::default();
        let sums = crate::runs::get_sums(r, |code, times| {
            moves.add_n(code, count(times)?);
            Ok(())
        })?;
        let mut n = [0u32; 9];
        for (v, s) in n.iter_mut().zip(sums) {
            *v = count(s)?;
        }
        let acc = Acc {
            games: n[0],
            wins: n[1],
            losses: n[2],
            draws: n[3],
            unknown: n[4],
            r1: (n[5], n[6]),
            r2: (n[7], n[8]),
            moves,
        };
        Ok(Some(Spilled(key, acc)))
    }
}
