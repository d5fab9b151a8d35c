//! What a book build accumulates per position ([`Acc`], its move codes [`Codes`]) and the
//! element it becomes: shared by the PGN builder (`build`, feature `pgn`) and the Polyglot
//! conversion (`convert`, feature `polyglot`), so that either feature compiles alone.

use crate::raw::{Element, Key, SourceRef};

/// Accumulated data of one position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Acc {
    pub(crate) wins: u64,
    pub(crate) draws: u64,
    pub(crate) losses: u64,
    pub(crate) moves: Codes,
    pub(crate) source: Option<SourceRef>,
    pub(crate) links: Vec<SourceRef>,
}

/// Codes kept inline (a position rarely has more moves in a book).
pub(crate) const INLINE_CODES: usize = 14;

/// A position's move codes in the order they were first played: up to
/// [`INLINE_CODES`] inline (no allocation for nearly every position: the tables and the
/// merge of spilled runs make and free millions of them, on several threads), more in a
/// vector. One representation per content (inline while they fit), so equality is content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Codes {
    /// Number of codes inline; `INLINE_CODES + 1` when they are all in `more`.
    len: u8,
    inline: [u8; INLINE_CODES],
    more: Vec<u8>,
}

impl Codes {
    /// The codes of a slice.
    #[cfg(feature = "pgn")]
    pub(crate) fn from_slice(codes: &[u8]) -> Codes {
        let mut c = Codes::default();
        if codes.len() <= INLINE_CODES {
            c.inline[..codes.len()].copy_from_slice(codes);
            c.len = codes.len() as u8;
        } else {
            c.more = codes.to_vec();
            c.len = INLINE_CODES as u8 + 1;
        }
        c
    }

    /// The codes in order.
    pub(crate) fn as_slice(&self) -> &[u8] {
        match usize::from(self.len) {
            n if n <= INLINE_CODES => &self.inline[..n],
            _ => &self.more,
        }
    }

    /// Whether `code` is one of them.
    pub(crate) fn contains(&self, code: u8) -> bool {
        self.as_slice().contains(&code)
    }

    /// Appends `code`.
    pub(crate) fn push(&mut self, code: u8) {
        let n = usize::from(self.len);
        if n < INLINE_CODES {
            self.inline[n] = code;
            self.len += 1;
        } else if n == INLINE_CODES {
            self.more = self.inline.to_vec();
            self.more.push(code);
            self.inline = [0; INLINE_CODES];
            self.len += 1;
        } else {
            self.more.push(code);
        }
    }

    /// Appends `code` unless it is here already; returns whether it was appended.
    pub(crate) fn add_new(&mut self, code: u8) -> bool {
        let new = !self.contains(code);
        if new {
            self.push(code);
        }
        new
    }

    /// Appends the codes of `other` not yet here, in their order.
    #[cfg(feature = "pgn")]
    pub(crate) fn extend_new(&mut self, other: &Codes) {
        for &code in other.as_slice() {
            self.add_new(code);
        }
    }

    /// The codes as a vector.
    pub(crate) fn into_vec(self) -> Vec<u8> {
        match usize::from(self.len) {
            n if n <= INLINE_CODES => self.inline[..n].to_vec(),
            _ => self.more,
        }
    }
}

/// The element of a position's accumulated data.
pub(crate) fn element_of(key: Key, a: Acc) -> Element {
    Element {
        wins: a.wins,
        draws: a.draws,
        losses: a.losses,
        moves: a.moves.into_vec(),
        source: a.source,
        links: (!a.links.is_empty()).then_some(a.links),
        ..Element::new(key)
    }
}
