//! A fast path from SAN to a move for the common cases (a piece move with one candidate, a
//! pawn push, a pawn capture), without generating the legal moves. It answers only when the
//! answer is certainly the one `San::to_move` gives; otherwise it says `None` and the caller
//! asks shakmaty.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square, attacks, san::San};

/// The move `san` denotes in `pos`, when it can be found cheaply; `None` means "ask
/// `San::to_move`" (which may still find a move, or report an illegal or ambiguous SAN).
pub fn san_to_move_fast(pos: &Chess, san: &San) -> Option<Move> {
    let San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion: None,
    } = *san
    else {
        return None;
    };
    let board = pos.board();
    let us = pos.turn();
    let target = board.piece_at(to);
    if target.is_some_and(|p| p.color == us) || capture != target.is_some() {
        return None;
    }
    let ours = board.by_color(us) & board.by_role(role);
    let from = match role {
        Role::Knight | Role::Bishop | Role::Rook | Role::Queen => {
            let mut cands = attacks::attacks(to, role.of(us), board.occupied()) & ours;
            if let Some(f) = file {
                cands &= Bitboard::from_file(f);
            }
            if let Some(r) = rank {
                cands &= Bitboard::from_rank(r);
            }
            cands.single_square()?
        }
        Role::Pawn => {
            let back = if us == Color::White { -8 } else { 8 };
            // Promotions are left to shakmaty (they need a promotion role).
            if to.rank() == shakmaty::Rank::First || to.rank() == shakmaty::Rank::Eighth {
                return None;
            }
            let one = to.offset(back)?;
            if capture {
                let f = file?;
                let from = Square::from_coords(f, one.rank());
                if rank.is_some_and(|r| r != from.rank())
                    || (i32::from(f) - i32::from(to.file())).abs() != 1
                    || !ours.contains(from)
                {
                    return None;
                }
                from
            } else {
                if file.is_some_and(|f| f != to.file()) || rank.is_some() {
                    return None;
                }
                if ours.contains(one) {
                    one
                } else {
                    let double_rank = if us == Color::White {
                        shakmaty::Rank::Fourth
                    } else {
                        shakmaty::Rank::Fifth
                    };
                    let two = one.offset(back)?;
                    if to.rank() != double_rank
                        || board.occupied().contains(one)
                        || !ours.contains(two)
                    {
                        return None;
                    }
                    two
                }
            }
        }
        Role::King => return None,
    };
    // Legal when no enemy piece attacks our king afterwards (the captured piece excluded).
    let king = board.king_of(us)?;
    let occupied = (board.occupied() ^ from) | to;
    if (board.attacks_to(king, !us, occupied) & !Bitboard::from(to)).any() {
        return None;
    }
    Some(Move::Normal {
        role,
        from,
        capture: target.map(|p| p.role),
        to,
        promotion: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{File, fen::Fen};

    fn pos(fen: &str) -> Chess {
        crate::position_from_fen(fen, false).unwrap().1
    }

    /// Every SAN shape over every target square: the fast answer, when there is one, is
    /// shakmaty's.
    fn agrees_everywhere(p: &Chess) -> usize {
        let mut fast = 0;
        for to in Square::ALL {
            for role in Role::ALL {
                for capture in [false, true] {
                    for file in [None].into_iter().chain(File::ALL.map(Some)) {
                        let san = San::Normal {
                            role,
                            file,
                            rank: None,
                            capture,
                            to,
                            promotion: None,
                        };
                        if let Some(m) = san_to_move_fast(p, &san) {
                            fast += 1;
                            assert_eq!(
                                san.to_move(p),
                                Ok(m),
                                "{san} in {}",
                                Fen::from_position(p, shakmaty::EnPassantMode::Legal)
                            );
                        }
                    }
                }
            }
        }
        fast
    }

    #[test]
    fn agrees_with_shakmaty() {
        let fast = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Pinned knight, two rooks to one square, en passant available, check.
            "4k3/8/8/3pP3/8/2n5/1B6/R3K2R w KQ d6 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w - - 0 1",
        ]
        .map(|fen| agrees_everywhere(&pos(fen)));
        // No fast answer where only the king, a pinned piece or en passant can move (the
        // black king in the sixth is in check from d4).
        assert!(
            fast[..3].iter().chain(&fast[6..]).all(|&n| n > 0),
            "{fast:?}"
        );
        assert_eq!(&fast[3..6], [0, 0, 0]);
    }
}
