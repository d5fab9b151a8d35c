//! Game headers resolved against the entity files: names, tournament, dates, result, ECO.

use crate::raw::{
    Annotator, GameRecord, KIND_DELETED, Player, Source, Team, TextRecord, Tournament,
};
use crate::text::Date;

/// The result field of a game header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// 0-1.
    BlackWins,
    /// ½-½.
    Draw,
    /// 1-0.
    WhiteWins,
    /// An unfinished line; the header's line evaluation applies.
    Line,
    /// 0-1 by forfeit (`-:+`).
    BlackWinsForfeit,
    /// ½-½ by forfeit (`=:=`).
    DrawForfeit,
    /// 1-0 by forfeit (`+:-`).
    WhiteWinsForfeit,
    /// 0-0, both lost.
    BothLost,
}

impl Outcome {
    /// From the stored code (bits 0–2).
    pub fn from_code(code: u8) -> Outcome {
        match code & 7 {
            0 => Outcome::BlackWins,
            1 => Outcome::Draw,
            2 => Outcome::WhiteWins,
            3 => Outcome::Line,
            4 => Outcome::BlackWinsForfeit,
            5 => Outcome::DrawForfeit,
            6 => Outcome::WhiteWinsForfeit,
            _ => Outcome::BothLost,
        }
    }

    /// The stored code (bits 0–2), the inverse of [`Outcome::from_code`].
    pub fn code(self) -> u8 {
        match self {
            Outcome::BlackWins => 0,
            Outcome::Draw => 1,
            Outcome::WhiteWins => 2,
            Outcome::Line => 3,
            Outcome::BlackWinsForfeit => 4,
            Outcome::DrawForfeit => 5,
            Outcome::WhiteWinsForfeit => 6,
            Outcome::BothLost => 7,
        }
    }

    /// The PGN result token (`*` for lines and double losses, which PGN cannot express).
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::BlackWins | Outcome::BlackWinsForfeit => "0-1",
            Outcome::Draw | Outcome::DrawForfeit => "1/2-1/2",
            Outcome::WhiteWins | Outcome::WhiteWinsForfeit => "1-0",
            Outcome::Line | Outcome::BothLost => "*",
        }
    }

    /// ChessBase's own notation (`1-0`, `½-½`, `-:+`, `0-0`, `line` …).
    pub fn chessbase(self) -> &'static str {
        match self {
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::WhiteWins => "1-0",
            Outcome::Line => "line",
            Outcome::BlackWinsForfeit => "-:+",
            Outcome::DrawForfeit => "=:=",
            Outcome::WhiteWinsForfeit => "+:-",
            Outcome::BothLost => "0-0",
        }
    }

    /// A PGN `Termination` value for the special results.
    pub fn termination(self) -> Option<&'static str> {
        match self {
            Outcome::BlackWinsForfeit | Outcome::DrawForfeit | Outcome::WhiteWinsForfeit => {
                Some("forfeit")
            }
            Outcome::BothLost => Some("both players lost"),
            _ => None,
        }
    }
}

/// The ECO field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Eco {
    /// Not set.
    None,
    /// A code A00–E99 (numbered 0–499) with a sub-code 0–99.
    Code {
        /// 0 = A00 … 499 = E99.
        code: u16,
        /// The sub-code.
        sub: u8,
    },
    /// A Chess960 start-position number (stored as 64576 + n).
    Chess960(u16),
}

impl Eco {
    /// From the stored value.
    pub fn from_value(v: u16) -> Eco {
        if v >= 64576 {
            Eco::Chess960(v - 64576)
        } else if v < 128 || v / 128 > 500 {
            Eco::None
        } else {
            Eco::Code {
                code: v / 128 - 1,
                sub: (v % 128) as u8,
            }
        }
    }

    /// Appends the ECO code as PGN writes it (`B51`); `false` (nothing written) when not a
    /// code.
    pub(crate) fn push_code(self, s: &mut String) -> bool {
        let Eco::Code { code, .. } = self else {
            return false;
        };
        s.push(char::from(b'A' + (code / 100) as u8));
        crate::text::push_decimal(s, u32::from(code % 100), 2);
        true
    }

    /// The ECO code as PGN writes it (`B51`), `None` when not a code.
    pub fn code(self) -> Option<String> {
        match self {
            Eco::Code { code, .. } => Some(format!(
                "{}{:02}",
                char::from(b'A' + (code / 100) as u8),
                code % 100
            )),
            _ => None,
        }
    }
}

/// Per-game header of a database, with its entities resolved (absent or deleted entities give
/// empty defaults).
#[derive(Debug, Clone, Copy)]
pub struct GameHeader<'a> {
    /// The 1-based record number.
    pub number: u32,
    /// The raw record.
    pub record: GameRecord,
    /// White.
    pub white: &'a Player,
    /// Black.
    pub black: &'a Player,
    /// The tournament.
    pub tournament: &'a Tournament,
    /// The annotator.
    pub annotator: &'a Annotator,
    /// The source.
    pub source: &'a Source,
    /// White's team (from `.cbj`), if any.
    pub white_team: Option<&'a Team>,
    /// Black's team (from `.cbj`), if any.
    pub black_team: Option<&'a Team>,
}

impl GameHeader<'_> {
    /// Whether the record is marked deleted.
    pub fn deleted(&self) -> bool {
        self.record.kind & KIND_DELETED != 0
    }

    /// The date played.
    pub fn date(&self) -> Date {
        Date::from_bits(self.record.date)
    }

    /// The result.
    pub fn outcome(&self) -> Outcome {
        Outcome::from_code(self.record.result)
    }

    /// The ECO field.
    pub fn eco(&self) -> Eco {
        Eco::from_value(self.record.eco)
    }

    /// Appends [`GameHeader::round`]'s text.
    pub(crate) fn push_round(&self, s: &mut String) {
        let (round, sub) = (self.record.round, self.record.subround);
        if round == 0 {
            s.push('?');
        } else {
            crate::text::push_decimal(s, u32::from(round), 1);
        }
        if sub != 0 {
            s.push('.');
            crate::text::push_decimal(s, u32::from(sub), 1);
        }
    }

    /// The PGN round: `?`, `5`, `5.2` or `?.2` (a sub-round of an unknown round).
    pub fn round(&self) -> String {
        let mut s = String::new();
        self.push_round(&mut s);
        s
    }

    /// Moves (not plies) in the main line as stored: 255 = 255 or more; a game starting with
    /// a Black move counts it as a move.
    pub fn moves(&self) -> u8 {
        self.record.moves
    }
}

/// Header of a guiding text.
#[derive(Debug, Clone, Copy)]
pub struct TextHeader<'a> {
    /// The 1-based record number.
    pub number: u32,
    /// The raw record.
    pub record: TextRecord,
    /// The tournament.
    pub tournament: &'a Tournament,
    /// The author.
    pub annotator: &'a Annotator,
    /// The source.
    pub source: &'a Source,
}

/// A record of the database, resolved.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Header<'a> {
    /// A game.
    Game(GameHeader<'a>),
    /// A guiding text.
    Text(TextHeader<'a>),
    /// A record not in use.
    Unused(u32),
}

impl Header<'_> {
    /// The 1-based record number.
    pub fn number(&self) -> u32 {
        match self {
            Header::Game(g) => g.number,
            Header::Text(t) => t.number,
            Header::Unused(n) => *n,
        }
    }

    /// Whether the record is marked deleted.
    pub fn deleted(&self) -> bool {
        match self {
            Header::Game(g) => g.deleted(),
            Header::Text(t) => t.record.kind & KIND_DELETED != 0,
            Header::Unused(_) => false,
        }
    }
}
