//! Entry points shared by the fuzz target (`fuzz/`) and the corpus replay tests. Not a stable
//! API.

use crate::{decode::decode_game, frame::frames};

/// Frames and decodes arbitrary bytes: never panics; framing and decoding agree on every game
/// boundary; every decoded game re-serialises to exactly its framed bytes.
pub fn policy(data: &[u8]) {
    let mut end = 0u64;
    for view in frames(data) {
        let Ok(view) = view else { break };
        assert_eq!(view.offset, end, "games are contiguous");
        end = view.offset + view.bytes.len() as u64;
        assert_eq!(view.records().count(), view.plies);
        if let Ok(game) = decode_game(&view) {
            assert_eq!(game.to_bytes(), view.bytes);
        }
    }
}
