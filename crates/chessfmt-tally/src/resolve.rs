//! A row's position and move as shakmaty values, for the book writers that store positions.

use shakmaty::{CastlingMode, Chess, Move, fen::Epd, uci::UciMove};

use crate::Row;

/// Turns rows into (position, legal move), parsing each EPD once for the rows that follow it
/// (a table is sorted by position, so its moves come together).
#[derive(Debug, Default)]
pub struct RowResolver {
    epd: String,
    position: Option<Chess>,
}

impl RowResolver {
    /// A resolver that has seen no row.
    pub fn new() -> RowResolver {
        RowResolver::default()
    }

    /// The position of `row` and its move, or why the row cannot be used (a message naming
    /// the EPD or the move): a position that is not legal, a move not legal there.
    pub fn resolve(&mut self, row: &Row) -> Result<(&Chess, Move), String> {
        if row.epd != self.epd || self.position.is_none() {
            self.epd.clone_from(&row.epd);
            self.position = row
                .epd
                .parse::<Epd>()
                .ok()
                .and_then(|e| e.into_position(CastlingMode::Chess960).ok());
        }
        let Some(p) = &self.position else {
            return Err(format!("not a legal position: {}", row.epd));
        };
        match row
            .uci
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(p).ok())
        {
            Some(m) => Ok((p, m)),
            None => Err(format!("{}: not a legal move there: {}", row.epd, row.uci)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_and_explains() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let mut r = RowResolver::new();
        let (_, m) = r.resolve(&Row::new(0, start, "e2e4")).unwrap();
        assert_eq!(m.to_string(), "e2-e4");
        assert!(
            r.resolve(&Row::new(0, start, "e7e5"))
                .unwrap_err()
                .contains("not a legal move")
        );
        assert!(
            r.resolve(&Row::new(0, "8/8 w - -", "e2e4"))
                .unwrap_err()
                .contains("not a legal position")
        );
        assert!(r.resolve(&Row::new(0, start, "g1f3")).is_ok());
    }
}
