//! The CTG position framing around the Huffman board code of
//! [`chess_core::huffman`]: a header byte (bits 0–4 = total length in bytes including the
//! header, [`EP_FLAG`] = en-passant bits present, [`CASTLING_FLAG`] = castling bits present),
//! the board bits, zero padding, then the flag bits flush at the end of the last byte
//! (en-passant file in 3 bits, then 4 castling bits). Without flags at least one padding bit
//! is added. See the chessfmt format notes, "CTG".
//!
//! [`encode`]/[`decode`] work on a [`HuffmanPosition`] (already normalised); [`key_of`] is the
//! allocation-free encoding of any position, normalised on the fly (the probe path).

use bitvec::prelude::*;
use chess_core::{
    error::ParseError,
    huffman::{
        Bits, CODE_BUFFER_LEN, CastlingFlags, HuffmanPosition, decode_board, encode_board,
        push_bits, put_bits, read_bits, write_normalised_code,
    },
};
use shakmaty::File;

/// Longest CTG position encoding: the header byte's 5-bit length field.
pub const MAX_LEN: usize = 31;

/// Header-byte flag: en-passant bits present.
pub const EP_FLAG: u8 = 0x20;
/// Header-byte flag: castling bits present.
pub const CASTLING_FLAG: u8 = 0x40;

/// Encodes a position in the CTG framing (header byte included).
pub fn encode(pos: &HuffmanPosition) -> Vec<u8> {
    let mut bits = Bits::with_capacity(256);
    bits.resize(8, false); // header byte, filled in below
    encode_board(&pos.board, &mut bits);
    let flag_bits = pos.ep_file.map_or(0, |_| 3) + if pos.castling.any() { 4 } else { 0 };
    // With no flags at least one padding bit.
    let used = bits.len() + flag_bits.max(1);
    let total = used.div_ceil(8) * 8;
    bits.resize(total - flag_bits, false);
    let mut header = 0u8;
    if let Some(file) = pos.ep_file {
        push_bits(&mut bits, file as u8, 3);
        header |= EP_FLAG;
    }
    if pos.castling.any() {
        push_bits(&mut bits, pos.castling.to_nibble(), 4);
        header |= CASTLING_FLAG;
    }
    let mut bytes = bits.into_vec();
    bytes[0] = header | bytes.len() as u8;
    bytes
}

/// Decodes a CTG-framed position from the start of `bytes`; returns it and its length in bytes
/// (the header's length field).
pub fn decode(bytes: &[u8]) -> Result<(HuffmanPosition, usize), ParseError> {
    let header = *bytes
        .first()
        .ok_or_else(|| ParseError::truncated(0, 1, 0))?;
    let len = usize::from(header & 0x1f);
    if len < 2 {
        return Err(ParseError::new(
            0,
            "a position length of at least 2 bytes",
            format!("header byte 0x{header:02x}"),
        ));
    }
    let body = bytes
        .get(1..len)
        .ok_or_else(|| ParseError::truncated(0, len as u64, bytes.len() as u64))?;
    let bits = body.view_bits::<Msb0>();
    let has_ep = header & EP_FLAG != 0;
    let has_castling = header & CASTLING_FLAG != 0;
    let flag_bits = if has_ep { 3 } else { 0 } + if has_castling { 4 } else { 0 };
    let board_end = bits.len() - flag_bits.min(bits.len());
    let (board, used) = decode_board(&bits[..board_end]).map_err(|e| e.shifted(1))?;
    debug_assert!(used <= board_end);
    let mut at = board_end;
    let ep_file = if has_ep {
        let f = read_bits(bits, at, 3);
        at += 3;
        Some(File::new(u32::from(f)))
    } else {
        None
    };
    let castling = if has_castling {
        CastlingFlags::from_nibble(read_bits(bits, at, 4))
    } else {
        CastlingFlags::NONE
    };
    Ok((
        HuffmanPosition {
            board,
            ep_file,
            castling,
        },
        len,
    ))
}

/// A CTG-encoded position in a fixed buffer (no allocation): header byte included.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    bytes: [u8; 32],
    len: u8,
}

impl Key {
    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The key of encoded bytes (at most 32; `None` past that).
    #[cfg(any(feature = "tally", feature = "pgn"))]
    pub(crate) fn from_bytes(encoded: &[u8]) -> Option<Key> {
        let mut bytes = [0; 32];
        bytes.get_mut(..encoded.len())?.copy_from_slice(encoded);
        Some(Key {
            bytes,
            len: encoded.len() as u8,
        })
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The CTG encoding of any position, normalised on the fly: the same bytes as
/// [`encode`] of [`HuffmanPosition::from_position`] of the normalised position, without
/// building the normalised position or allocating (the probe path of CTG readers).
///
/// `None` when the board does not fit the 31 bytes a CTG position may have (more than 32
/// pieces, only possible for positions built while ignoring material limits).
pub fn key_of(pos: &shakmaty::Chess) -> Option<Key> {
    let mut out = [0u8; CODE_BUFFER_LEN];
    // The board starts after the header byte.
    let code = write_normalised_code(pos, shakmaty::EnPassantMode::Legal, &mut out, 8)?;
    let (bit, ep_file, castling) = (code.end_bit, code.ep_file, code.castling);
    if bit + 7 > MAX_LEN * 8 {
        return None;
    }
    let flag_bits = ep_file.map_or(0, |_| 3) + if castling.any() { 4 } else { 0 };
    let total = (bit + flag_bits.max(1)).div_ceil(8) * 8;
    let mut bit = total - flag_bits;
    let mut header = 0u8;
    if let Some(f) = ep_file {
        put_bits(f as u32, 3, &mut out, &mut bit);
        header |= EP_FLAG;
    }
    if castling.any() {
        put_bits(u32::from(castling.to_nibble()), 4, &mut out, &mut bit);
        header |= CASTLING_FLAG;
    }
    let len = (total / 8) as u8;
    out[0] = header | len;
    let mut bytes = [0; 32];
    bytes.copy_from_slice(&out[..32]);
    Some(Key { bytes, len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_core::huffman::board_bit_len;
    use chess_core::normalize::normalize;
    use shakmaty::{Board, Chess, Color, Position, Square};

    #[test]
    fn start_position() {
        let pos = HuffmanPosition {
            board: Board::new(),
            ep_file: None,
            castling: CastlingFlags::from_nibble(0xf),
        };
        let ctg = encode(&pos);
        assert_eq!(
            ctg,
            [
                0x56, 0xb6, 0x0f, 0x79, 0x60, 0xf3, 0xa6, 0x0f, 0x58, 0xb0, 0x78, 0xe0, 0xc1, 0xe1,
                0xa6, 0x0f, 0x59, 0x60, 0xf3, 0xb6, 0x0f, 0x7f
            ]
        );
        assert_eq!(decode(&ctg).unwrap(), (pos, 22));
        assert_eq!(key_of(&Chess::default()).unwrap().as_bytes(), &ctg[..]);
    }

    #[test]
    fn fast_key_equals_normalise_then_encode() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _game in 0..60 {
            let mut pos = Chess::default();
            for _ply in 0..120 {
                let n = normalize(&pos);
                let slow = encode(&HuffmanPosition::from_position(&n.position));
                assert_eq!(key_of(&pos).unwrap().as_bytes(), &slow[..], "{pos:?}");
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
    fn board_on_byte_boundary_gets_a_pad_byte() {
        // Two kings, a pawn and a rook: 60 empty + 12 + 3 + 5 = 80 bits = 10 bytes.
        let mut board = Board::empty();
        board.set_piece_at(Square::E1, Color::White.king());
        board.set_piece_at(Square::E8, Color::Black.king());
        board.set_piece_at(Square::A2, Color::White.pawn());
        board.set_piece_at(Square::H8, Color::Black.rook());
        assert_eq!(board_bit_len(&board), 80);
        let pos = HuffmanPosition {
            board,
            ep_file: None,
            castling: CastlingFlags::NONE,
        };
        let ctg = encode(&pos);
        assert_eq!((ctg.len(), ctg[0], ctg[11]), (12, 12, 0));
        assert_eq!(decode(&ctg).unwrap().0, pos);
    }

    #[test]
    fn decode_rejects_bad_lengths() {
        assert!(decode(&[]).is_err());
        assert!(decode(&[0x01]).is_err());
        assert!(decode(&[0x16, 0, 0]).is_err());
        // A body too short to hold 64 squares.
        assert!(decode(&[0x03, 0xff, 0xff]).is_err());
    }
}
