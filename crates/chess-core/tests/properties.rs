//! Property tests on random legal positions (random playouts from the start position).

use chess_core::{
    huffman::{self, HuffmanPosition},
    normalize::{Transform, normalize},
    relative_move::RelativeMove,
};
use proptest::prelude::*;
use shakmaty::{Chess, EnPassantMode, Position, Role, fen::Fen};

use chess_core::fuzzing::playout;

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Always).to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn huffman_round_trip(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        let pos = playout(&choices);
        let n = normalize(&pos);
        let hp = HuffmanPosition::from_position(&n.position);
        let mut bits = huffman::Bits::new();
        huffman::encode_board(&hp.board, &mut bits);
        prop_assert_eq!(bits.len(), huffman::board_bit_len(&hp.board));
        prop_assert_eq!(huffman::decode_board(&bits).unwrap(), (hp.board.clone(), bits.len()));
        // The one HuffmanPosition -> Chess rule gives the normalised position back.
        // (en passant where it is legal: all either framing keeps; move counters are not stored).
        let epd = |p: &Chess| {
            let f = Fen::from_position(p, EnPassantMode::Legal).to_string();
            f.split(' ').take(4).collect::<Vec<_>>().join(" ")
        };
        prop_assert_eq!(epd(&hp.to_position().unwrap()), epd(&n.position));
    }

    #[test]
    fn normalisation_both_ways(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        let pos = playout(&choices);
        let n = normalize(&pos);
        prop_assert_eq!(n.position.turn(), shakmaty::Color::White);
        // Every step is its own inverse: applying the transform again gives the position back.
        let back = n.transform.apply(&n.position).unwrap();
        prop_assert_eq!(fen(&back), fen(&pos));
        // Moves map both ways, legal on both boards.
        for m in pos.legal_moves() {
            let nm = n.transform.apply_move(m);
            prop_assert!(n.position.is_legal(nm));
            prop_assert_eq!(n.transform.apply_move(nm), m);
        }
        prop_assert_eq!(Transform::for_position(&n.position).flip_colors, false);
    }

    #[test]
    fn relative_move_round_trip(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        let pos = playout(&choices);
        let n = normalize(&pos);
        for m in n.position.legal_moves() {
            match RelativeMove::from_move(&n.position, m) {
                Some(r) => prop_assert_eq!(r.to_move(&n.position), Some(m)),
                None => prop_assert!(matches!(m.promotion(), Some(r) if r != Role::Queen)),
            }
        }
    }
}
