//! Long games are written while they are decoded (issue 30, F6): `pgn::write_game_to` and the
//! export write the same PGN as through the move tree, and report the same truncation.

mod common;

use chessbase_db::Database;
use chessbase_db::fuzzing::{games_database, pairs_stream, pairs_word};
use chessbase_db::pgn::{PgnOptions, game_to_pgn, write_game_to};
use shakmaty::Square::*;

/// Knight moves there and back, `n` of them (pairs encoding: two bytes a move), after a
/// one-move variation at the start when `variation`.
fn knights(n: usize, variation: bool) -> Vec<u8> {
    let cycle = [(G1, F3), (G8, F6), (F3, G1), (F6, G8)];
    let first = variation.then(|| pairs_word(B1, C3, true, true));
    pairs_stream(
        first
            .into_iter()
            .chain((0..n).map(|i| pairs_word(cycle[i % 4].0, cycle[i % 4].1, false, false))),
    )
}

/// Over the 1 MiB above which the export streams a game.
const LONG: usize = 600_001;

fn database() -> Database {
    let plain = knights(LONG, false);
    let with_variation = knights(LONG, true);
    let short = knights(9, false);
    // A last move cut after its first byte: the game is truncated there.
    let cut = &plain[..plain.len() - 1];
    let files = games_database(5, &[&plain, &short, &with_variation, cut]).unwrap();
    Database::from_files(files).unwrap()
}

#[test]
fn streamed_games_are_the_trees_pgn() {
    let db = database();
    let opts = PgnOptions::default();
    let mut all = String::new();
    for n in 1..=4 {
        let mut out = Vec::new();
        let written = write_game_to(&db, n, &opts, &mut out).unwrap().unwrap();
        let text = String::from_utf8(out).unwrap();
        let tree = game_to_pgn(&db, n, &opts).unwrap();
        assert_eq!(text.len(), tree.len(), "game {n}");
        assert!(text == tree, "game {n}: the streamed text differs");
        let game = db.game(n).unwrap();
        assert_eq!(
            written.truncated.as_ref().map(ToString::to_string),
            game.truncated.as_ref().map(ToString::to_string),
            "game {n}"
        );
        assert_eq!(written.truncated.is_some(), n == 4, "game {n}");
        all.push_str(&tree);
    }
    assert!(
        all.contains(&format!("{}. Ng1 Ng8", (LONG - 1) / 2)),
        "every move written"
    );
    // The export streams games 1, 3 and 4 (over 1 MiB) among the others, in record order.
    let (summary, out) = common::export_pgn(&db, 2);
    assert_eq!(summary.exported, 4);
    assert_eq!(summary.truncated.len(), 1);
    assert_eq!(summary.truncated[0].game, 4);
    assert!(String::from_utf8(out).unwrap() == all, "the export differs");
}

#[test]
fn plain_games_hand_over_the_main_line() {
    let db = database();
    for n in [1, 2, 4] {
        let plain = db.plain_game(n, true).unwrap().expect("no variation");
        let mut moves = Vec::new();
        let truncated = plain.moves(|m| moves.push(m));
        let game = db.game(n).unwrap();
        assert_eq!(moves, game.main_line(), "game {n}");
        assert_eq!(truncated.is_some(), game.truncated.is_some(), "game {n}");
        assert_eq!(plain.mode(), game.mode);
    }
    assert!(
        db.plain_game(3, true).unwrap().is_none(),
        "game 3 has a variation"
    );
}
