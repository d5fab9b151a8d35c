//! What SAN needs beyond the move itself, worked out by the decoder while it has the
//! position (so that the PGN writer need not replay the game): disambiguation by file and by
//! rank, check and mate, as flags stored in a [`crate::game::Node`].

use shakmaty::{Bitboard, Chess, Move, Position, Role, Square};

use super::{REACH, piece_attacks};

/// The moving piece's file is written (another piece of the kind can go there).
pub(crate) const FILE: u8 = 1;
/// The moving piece's rank is written.
pub(crate) const RANK: u8 = 2;
/// The move gives check.
pub(crate) const CHECK: u8 = 4;
/// The move gives mate.
pub(crate) const MATE: u8 = 8;

/// Whether the side to move has a legal move (with check: whether it is not mate). Most
/// checks are answered by a king step, looked for first; the legal moves are generated only
/// when there is none. Used by the decoder for its [`san`] flags and by
/// [`crate::pgn::san_plus`].
pub(crate) fn has_legal_move(pos: &Chess) -> bool {
    let board = pos.board();
    let turn = pos.turn();
    if let Some(king) = board.king_of(turn) {
        let occupied = board.occupied().without(king);
        let targets = shakmaty::attacks::king_attacks(king) & !board.by_color(turn);
        if targets
            .into_iter()
            .any(|to| board.attacks_to(to, !turn, occupied).is_empty())
        {
            return true;
        }
    }
    !pos.legal_moves().is_empty()
}

/// The SAN flags ([`san`]) of `m`, a legal move of `pos`, before it is played:
/// disambiguation only (check and mate are known after the move). Used by the decoder and by
/// [`crate::pgn::san_plus`].
#[inline(always)]
pub(crate) fn disambiguation(pos: &Chess, m: Move) -> u8 {
    let Move::Normal { role, from, to, .. } = m else {
        return 0;
    };
    // Other pieces of the kind that attack the target: none (pins only remove
    // candidates) means no disambiguation. Most moves have none even on an empty board
    // (one table load, no branch on the kind; pawns and kings reach nothing in the table),
    // looked at here; the rest out of line.
    let others = pos.board().by_piece(role.of(pos.turn())).without(from);
    if (others & Bitboard(REACH[role as usize][to as usize])).is_empty() {
        return 0;
    }
    disambiguation_among(pos, role, from, to, others)
}

/// [`disambiguation`] of a move with `others`, other pieces of its kind, on lines to `to`.
#[inline(never)]
fn disambiguation_among(pos: &Chess, role: Role, from: Square, to: Square, others: Bitboard) -> u8 {
    let board = pos.board();
    let piece = role.of(pos.turn());
    let occupied = board.occupied();
    let others = piece_attacks(role, to, occupied) & others;
    if others.is_empty() {
        return 0;
    }
    let Some(king) = board.king_of(piece.color) else {
        return 0;
    };
    // Those that can legally go there (their king is not attacked once they have moved),
    // then SAN's rule (shakmaty's `San::disambiguate`): the file when another candidate
    // shares neither file (or shares the rank too), the rank when one shares the file.
    let (mut ambiguous, mut same_file, mut same_rank) = (false, false, false);
    for other in others {
        let after = occupied.without(other).with(to);
        if (board.attacks_to(king, !piece.color, after) & !Bitboard::from(to)).any() {
            continue;
        }
        ambiguous = true;
        same_file |= other.file() == from.file();
        same_rank |= other.rank() == from.rank();
    }
    let file = ambiguous && (!same_file || same_rank);
    (if file { FILE } else { 0 }) | (if same_file { RANK } else { 0 })
}
