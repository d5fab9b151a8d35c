//! Start positions from FEN (`[FEN]`/`[SetUp]`, Chess960 from `[Variant]`).

use shakmaty::{CastlingMode, Chess, fen::Fen};

/// Why a FEN was refused by [`position_from_fen`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FenError {
    /// The text is not a FEN.
    #[error("{0}")]
    Syntax(#[from] shakmaty::fen::ParseFenError),
    /// The FEN describes no legal position (shakmaty's reasons).
    #[error("illegal position ({0:?})")]
    Illegal(shakmaty::PositionErrorKinds),
}

/// Parses a FEN (or X-FEN / Shredder-FEN) into a legal position: standard castling first,
/// Chess960 castling when `chess960` is set or the standard reading fails. The error says why
/// the FEN was refused.
pub fn position_from_fen(fen: &str, chess960: bool) -> Result<(CastlingMode, Chess), FenError> {
    let parsed: Fen = fen.trim().parse()?;
    let modes: &[CastlingMode] = if chess960 {
        &[CastlingMode::Chess960]
    } else {
        &[CastlingMode::Standard, CastlingMode::Chess960]
    };
    let mut last = shakmaty::PositionErrorKinds::empty();
    for &mode in modes {
        match parsed.clone().into_position::<Chess>(mode) {
            Ok(pos) => return Ok((mode, pos)),
            Err(e) => last = e.kinds(),
        }
    }
    Err(FenError::Illegal(last))
}
