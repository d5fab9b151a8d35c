//! Normalisation to White to move, as CTG and Kvetka store positions.
//!
//! If Black is to move, ranks are mirrored and colours swapped (castling rights and the
//! en-passant square follow). Then, only if nobody has a castling right and the side-to-move
//! king (White's after the first step) stands on files a–d, files are mirrored. The applied
//! [`Transform`] maps squares and moves between the real and the normalised board, in both
//! directions (each step is its own inverse).

use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Move, Position,
    PositionError, Setup, Square,
};

/// The transformation that maps a real position to its normalised form.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Transform {
    /// Ranks mirrored and colours swapped (Black was to move).
    pub flip_colors: bool,
    /// Files mirrored (no castling rights and the king on files a–d).
    pub mirror_files: bool,
}

impl Transform {
    /// No change.
    pub const IDENTITY: Transform = Transform {
        flip_colors: false,
        mirror_files: false,
    };

    /// The transform that normalises `setup`.
    pub fn for_setup(setup: &Setup) -> Transform {
        let flip_colors = setup.turn == Color::Black;
        let king = setup
            .board
            .king_of(setup.turn)
            .map(|k| if flip_colors { k.flip_vertical() } else { k });
        let mirror_files =
            setup.castling_rights.is_empty() && king.is_some_and(|k| k.file() <= File::D);
        Transform {
            flip_colors,
            mirror_files,
        }
    }

    /// The transform that normalises `pos`.
    pub fn for_position(pos: &Chess) -> Transform {
        // Castling rights only, so the en-passant mode does not matter here.
        Transform::for_setup(&pos.to_setup(EnPassantMode::Always))
    }

    /// Maps a square of the real board to the normalised board (or back: the map is its own
    /// inverse).
    pub fn square(self, sq: Square) -> Square {
        let sq = if self.flip_colors {
            sq.flip_vertical()
        } else {
            sq
        };
        if self.mirror_files {
            sq.flip_horizontal()
        } else {
            sq
        }
    }

    /// Maps a bitboard like [`Transform::square`].
    pub fn bitboard(self, bb: Bitboard) -> Bitboard {
        let bb = if self.flip_colors {
            bb.flip_vertical()
        } else {
            bb
        };
        if self.mirror_files {
            bb.flip_horizontal()
        } else {
            bb
        }
    }

    /// Maps a colour (White to move after normalisation).
    pub fn color(self, color: Color) -> Color {
        if self.flip_colors {
            color.other()
        } else {
            color
        }
    }

    /// Maps a move between the real and the normalised board (its own inverse).
    pub fn apply_move(self, m: Move) -> Move {
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => Move::Normal {
                role,
                from: self.square(from),
                capture,
                to: self.square(to),
                promotion,
            },
            Move::EnPassant { from, to } => Move::EnPassant {
                from: self.square(from),
                to: self.square(to),
            },
            Move::Castle { king, rook } => Move::Castle {
                king: self.square(king),
                rook: self.square(rook),
            },
            Move::Put { role, to } => Move::Put {
                role,
                to: self.square(to),
            },
        }
    }

    /// Applies the transform to a setup (move counters unchanged).
    pub fn apply_setup(self, setup: &Setup) -> Setup {
        let mut s = setup.clone();
        if self.flip_colors {
            s.mirror();
        }
        if self.mirror_files {
            s.board.flip_horizontal();
            s.promoted = s.promoted.flip_horizontal();
            s.castling_rights = s.castling_rights.flip_horizontal();
            s.ep_square = s.ep_square.map(Square::flip_horizontal);
        }
        s
    }

    /// Applies the transform to a position. The result is legal whenever `pos` is (`None`
    /// only if shakmaty refuses the transformed setup).
    pub fn apply(self, pos: &Chess) -> Option<Chess> {
        let setup = self.apply_setup(&pos.to_setup(EnPassantMode::Always));
        let mode = CastlingMode::detect(&setup);
        Chess::from_setup(setup, mode).ok()
    }
}

/// A position normalised to White to move, with the transform that produced it.
#[derive(Debug, Clone)]
pub struct Normalized {
    /// The normalised position (White to move).
    pub position: Chess,
    /// How the real position maps to it.
    pub transform: Transform,
}

/// Normalises `pos` to White to move.
///
/// ```
/// use chess_core::normalize::normalize;
/// use shakmaty::{Chess, Color, Position, fen::Fen, CastlingMode};
///
/// let fen: Fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse().unwrap();
/// let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
/// let n = normalize(&pos);
/// assert_eq!(n.position.turn(), Color::White);
/// assert!(n.transform.flip_colors && !n.transform.mirror_files);
/// ```
pub fn normalize(pos: &Chess) -> Normalized {
    let transform = Transform::for_position(pos);
    let position = transform
        .apply(pos)
        .unwrap_or_else(|| unreachable_transform(pos, transform));
    Normalized {
        position,
        transform,
    }
}

#[cold]
fn unreachable_transform(pos: &Chess, transform: Transform) -> Chess {
    // Colour flip and file mirror are symmetries of chess: a legal position stays legal. Should
    // shakmaty ever disagree (an exotic ep square), drop the en-passant square and retry.
    let mut setup = transform.apply_setup(&pos.to_setup(EnPassantMode::Legal));
    let mode = CastlingMode::detect(&setup);
    Chess::from_setup(setup.clone(), mode).unwrap_or_else(|_| {
        setup.ep_square = None;
        Chess::from_setup(setup, mode)
            .or_else(PositionError::ignore_too_much_material)
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn flags_match_ctg_vectors() {
        // (fen, mirrored, colour flipped) from corpus/ctg/vectors/encoding-vectors.csv
        for (fen, mirror, flip) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                false,
                false,
            ),
            ("8/8/4k3/8/8/8/4P3/3K4 w - - 0 1", true, false),
            ("2k5/8/8/8/8/8/3P4/6K1 b - - 0 1", true, true),
            ("r3k2r/8/8/8/8/8/8/R3K2R b Qk - 0 1", false, true),
            ("8/8/8/2k5/3Pp3/8/8/6K1 b - d3 0 1", true, true),
            ("4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1", false, false),
        ] {
            let t = Transform::for_position(&pos(fen));
            assert_eq!((t.mirror_files, t.flip_colors), (mirror, flip), "{fen}");
        }
    }

    #[test]
    fn uses_the_side_to_move_king_for_the_mirror_test() {
        // Black to move, black king on g8 (files e–h after the flip) while White's is on b1:
        // no mirror. A reader using White's king would mirror.
        let t = Transform::for_position(&pos("6k1/8/8/8/8/8/8/1K6 b - - 0 1"));
        assert!(t.flip_colors && !t.mirror_files);
    }

    #[test]
    fn normalise_maps_moves_both_ways() {
        let p = pos("8/8/8/2k5/3Pp3/8/8/6K1 b - d3 0 1");
        let n = normalize(&p);
        assert_eq!(n.position.turn(), Color::White);
        // The ep square d3 becomes d6, then e6 after the file mirror.
        assert_eq!(n.position.ep_square(EnPassantMode::Legal), Some(Square::E6));
        for m in p.legal_moves() {
            let nm = n.transform.apply_move(m);
            assert!(n.position.is_legal(nm), "{m:?} -> {nm:?}");
            assert_eq!(n.transform.apply_move(nm), m);
        }
        assert_eq!(n.position.legal_moves().len(), p.legal_moves().len());
    }
}
