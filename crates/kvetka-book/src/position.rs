//! The Kvetka position framing around the Huffman board code of
//! [`chess_core::huffman`]: exactly [`KEY_LEN`] (22) bytes holding the board bits, 4
//! en-passant bits (0 = none, 1..8 = files a..h), 4 castling bits and zero padding. A board
//! that does not fit is an error. The en-passant file is stored by Kvetka's rule: whenever an
//! enemy pawn stands beside the pawn that just moved two squares, legal capture or not
//! (`specs/kvetka.ru.txt`, "Кодирование").
//!
//! [`encode`]/[`decode`] work on a [`HuffmanPosition`] (already normalised); [`key_of`] is the
//! allocation-free key of any position, normalised on the fly (the probe path); [`position_of`]
//! turns a key back into a position by the family's one rule
//! ([`HuffmanPosition::to_position`]).

use bitvec::prelude::*;
use chess_core::{
    error::ParseError,
    huffman::{
        Bits, CODE_BUFFER_LEN, CastlingFlags, HuffmanPosition, decode_board, encode_board,
        push_bits, put_bits, read_bits, write_normalised_code,
    },
};
use shakmaty::{Chess, EnPassantMode, File};

pub use crate::raw::{KEY_LEN, Key};

/// The stored form of a normalised (White-to-move) position by Kvetka's en-passant rule.
pub fn huffman_position(pos: &Chess) -> HuffmanPosition {
    HuffmanPosition::from_position_with(pos, EnPassantMode::PseudoLegal)
}

/// The White-to-move position a key stands for (standard castling), when it decodes to a
/// legal one; see [`HuffmanPosition::to_position`] for the flags that are dropped.
pub fn position_of(key: &Key) -> Option<Chess> {
    decode(key).ok()?.to_position().ok()
}

/// The Kvetka key of any position, normalised on the fly: the same bytes as
/// [`encode`] of the normalised position (with the en-passant file stored by Kvetka's
/// rule, see [`huffman_position`]), without allocating.
///
/// `None` when the board code does not fit the key (more than 168 board bits, only possible
/// with many promoted pieces).
pub fn key_of(pos: &Chess) -> Option<Key> {
    let mut out = [0u8; CODE_BUFFER_LEN];
    let code = write_normalised_code(pos, EnPassantMode::PseudoLegal, &mut out, 0)?;
    let (mut bit, ep_file, castling) = (code.end_bit, code.ep_file, code.castling);
    if bit + 8 > KEY_LEN * 8 {
        return None;
    }
    put_bits(ep_file.map_or(0, |f| f as u32 + 1), 4, &mut out, &mut bit);
    put_bits(u32::from(castling.to_nibble()), 4, &mut out, &mut bit);
    let mut key = [0; KEY_LEN];
    key.copy_from_slice(&out[..KEY_LEN]);
    Some(key)
}

/// Encodes a position as a 22-byte Kvetka key; errors when the board code is too long.
pub fn encode(pos: &HuffmanPosition) -> Result<Key, ParseError> {
    let mut bits = Bits::with_capacity(KEY_LEN * 8);
    encode_board(&pos.board, &mut bits);
    if bits.len() + 8 > KEY_LEN * 8 {
        return Err(ParseError::new(
            0,
            "a board code of at most 168 bits",
            format!("{} bits", bits.len()),
        ));
    }
    push_bits(&mut bits, pos.ep_file.map_or(0, |f| f as u8 + 1), 4);
    push_bits(&mut bits, pos.castling.to_nibble(), 4);
    bits.resize(KEY_LEN * 8, false);
    let mut key = [0; KEY_LEN];
    key.copy_from_slice(bits.as_raw_slice());
    Ok(key)
}

/// Decodes a 22-byte Kvetka key.
pub fn decode(key: &Key) -> Result<HuffmanPosition, ParseError> {
    let bits = key.view_bits::<Msb0>();
    let (board, used) = decode_board(&bits[..KEY_LEN * 8 - 8])?;
    let ep = read_bits(bits, used, 4);
    let castling = CastlingFlags::from_nibble(read_bits(bits, used + 4, 4));
    let ep_file = match ep {
        0 => None,
        1..=8 => Some(File::new(u32::from(ep - 1))),
        _ => {
            return Err(ParseError::new(
                (used / 8) as u64,
                "an en-passant nibble 0..8",
                ep.to_string(),
            ));
        }
    };
    Ok(HuffmanPosition {
        board,
        ep_file,
        castling,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_core::huffman::board_bit_len;
    use chess_core::normalize::normalize;
    use shakmaty::{Board, Color, Piece, Position, Role, Square};

    #[test]
    fn start_position() {
        let pos = HuffmanPosition {
            board: Board::new(),
            ep_file: None,
            castling: CastlingFlags::from_nibble(0xf),
        };
        let key = encode(&pos).unwrap();
        // The board bits are those of the CTG code (after its header byte).
        assert_eq!(key[..2], [0xb6, 0x0f]);
        assert_eq!(key[20], 0x70); // last board nibble 0111, ep 0000
        assert_eq!(key[21], 0xf0); // castling 1111, padding
        assert_eq!(decode(&key).unwrap(), pos);
        assert_eq!(key_of(&Chess::default()), Some(key));
        assert_eq!(position_of(&key), Some(Chess::default()));
    }

    #[test]
    fn fast_key_equals_normalise_then_encode() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _game in 0..60 {
            let mut pos = Chess::default();
            for _ply in 0..120 {
                let n = normalize(&pos);
                let slow = encode(&huffman_position(&n.position)).unwrap();
                assert_eq!(key_of(&pos).unwrap(), slow, "{pos:?}");
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
            }
        }
    }

    #[test]
    fn rejects_overlong_boards() {
        // 40 queens cannot fit in 168 bits.
        let mut board = Board::empty();
        for (i, sq) in Square::ALL.iter().enumerate().take(40) {
            let color = Color::from_white(i % 2 == 0);
            board.set_piece_at(
                *sq,
                Piece {
                    color,
                    role: Role::Queen,
                },
            );
        }
        let pos = HuffmanPosition {
            board,
            ep_file: None,
            castling: CastlingFlags::NONE,
        };
        assert!(board_bit_len(&pos.board) + 8 > KEY_LEN * 8);
        assert!(encode(&pos).is_err());
    }
}
