//! Property tests of the SAN fast path on random legal positions (random playouts from the
//! start position).

use proptest::prelude::*;
use shakmaty::{Chess, EnPassantMode, Position, Role, fen::Fen};

use chess_core::fuzzing::playout;

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Always).to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The SAN fast path answers, when it does, what shakmaty answers: for the SAN of every
    /// legal move, and for SAN of every shape to every square (most of them illegal).
    #[test]
    fn fast_san_agrees_with_shakmaty(choices in prop::collection::vec(any::<u16>(), 0..120)) {
        use chessfmt_pgn::san_fast::san_to_move_fast;
        use shakmaty::{File, Square, san::San};
        let pos = playout(&choices);
        for m in pos.legal_moves() {
            let san = San::from_move(&pos, m);
            if let Some(fast) = san_to_move_fast(&pos, &san) {
                prop_assert_eq!(fast, m, "{} in {}", san, fen(&pos));
            }
        }
        for to in Square::ALL {
            for role in Role::ALL {
                for capture in [false, true] {
                    for file in [None].into_iter().chain(File::ALL.map(Some)) {
                        let san = San::Normal { role, file, rank: None, capture, to, promotion: None };
                        if let Some(fast) = san_to_move_fast(&pos, &san) {
                            prop_assert_eq!(san.to_move(&pos), Ok(fast), "{} in {}", san, fen(&pos));
                        }
                    }
                }
            }
        }
    }
}
