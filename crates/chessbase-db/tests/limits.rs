//! The database's limits (chessbase_db::Limits) apply to the games it decodes.

mod common;

use chessbase_db::fuzzing::{games_database, pairs_stream, pairs_word, shared_game_database};
use chessbase_db::{Database, GameErrorKind, Limits};
use shakmaty::Square::*;

/// A game of `n` steps, each a one-move variation followed by a main-line move: every
/// variation nests one level deeper in the tree (the shape of ../shared/fuzz-findings F2).
fn nested(n: usize) -> Database {
    let alt = [(B1, C3), (B8, C6)];
    let main = [(G1, F3), (G8, F6), (F3, G1), (F6, G8)];
    let words = (0..n).flat_map(|i| {
        let (a, b) = alt[i % 2];
        let (c, d) = main[i % 4];
        [pairs_word(a, b, true, true), pairs_word(c, d, false, false)]
    });
    Database::from_files(shared_game_database(5, &pairs_stream(words), 1).unwrap()).unwrap()
}

#[test]
fn variation_depth_is_the_databases_limit() {
    let g = nested(40).game(1).unwrap();
    assert_eq!(g.truncated, None, "40 levels are within the default");
    assert_eq!(g.tree.len(), 81);

    let mut limits = Limits::default();
    limits.variation_depth = 5;
    let db = nested(40).with_limits(limits);
    let g = db.game(1).unwrap();
    let e = g.truncated.expect("over the limit");
    assert!(
        matches!(&e.kind, GameErrorKind::TooDeep(l) if l.limit == 5 && l.field == "variation_depth"),
        "{e}"
    );
    assert!(e.to_string().contains("(Limits::variation_depth)"), "{e}");
    assert!(
        (1..=5).contains(
            &(0..g.tree.len() as u32)
                .map(|n| g.tree.nesting(n))
                .max()
                .unwrap()
        )
    );

    // Past the stack-safe maximum the limit is taken as that maximum.
    limits.variation_depth = usize::MAX;
    let g = nested(2000).with_limits(limits).game(1).unwrap();
    let e = g.truncated.expect("over the maximum");
    assert!(
        e.to_string()
            .contains(&Limits::MAX_VARIATION_DEPTH.to_string()),
        "{e}"
    );
}

/// At the deepest honoured limit the PGN writer still fits a 2 MiB worker stack (the stack
/// of export's pool threads), also in a debug build.
#[test]
fn the_deepest_limit_fits_a_worker_stack() {
    let mut limits = Limits::default();
    limits.variation_depth = Limits::MAX_VARIATION_DEPTH;
    let db = nested(3000).with_limits(limits);
    let text = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let chessbase_db::Header::Game(h) = db.header(1).unwrap() else {
                panic!("a game")
            };
            let g = db.game(1).unwrap();
            let mut s = String::new();
            chessbase_db::pgn::write_game(&mut s, &h, &g, &Default::default());
            s
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(text.matches('(').count(), Limits::MAX_VARIATION_DEPTH);
}

/// Records that all point at one game (../shared/fuzz-findings F5): the export decodes and
/// writes it once, for the first record, and reports the others.
#[test]
fn records_sharing_one_game_are_exported_once() {
    let main = [(G1, F3), (G8, F6), (F3, G1), (F6, G8)];
    let words = (0..400).map(|i| pairs_word(main[i % 4].0, main[i % 4].1, false, false));
    let files = shared_game_database(5, &pairs_stream(words), 50).unwrap();
    let db = Database::from_files(files).unwrap();
    let shared = db.shared_games(1..=50);
    assert_eq!(shared.len(), 49);
    assert!(shared.values().all(|&first| first == 1));
    let (s, _) = common::export_pgn(&db, 2);
    assert_eq!((s.exported, s.skipped.len()), (1, 49));
    assert!(
        s.skipped[0]
            .to_string()
            .contains("overlaps that of record 1"),
        "{}",
        s.skipped[0]
    );
    // One record alone is still decoded on request.
    assert_eq!(db.game(7).unwrap().tree.len(), 401);
}

/// A game nested past the limit among ordinary games (../shared/fuzz-findings F2): the export
/// writes it up to the limit and reports it truncated, and every other game is exported
/// whole, on worker threads (2 MiB stacks).
#[test]
fn a_deep_game_is_exported_to_the_limit_and_the_rest_of_the_database_too() {
    let alt = [(B1, C3), (B8, C6)];
    let main = [(G1, F3), (G8, F6), (F3, G1), (F6, G8)];
    let deep = pairs_stream((0..5000).flat_map(|i| {
        let (a, b) = alt[i % 2];
        let (c, d) = main[i % 4];
        [pairs_word(a, b, true, true), pairs_word(c, d, false, false)]
    }));
    let plain =
        pairs_stream((0..40).map(|i| pairs_word(main[i % 4].0, main[i % 4].1, false, false)));
    let db =
        Database::from_files(games_database(5, &[&plain, &deep, &plain, &plain]).unwrap()).unwrap();
    let (s, out) = common::export_pgn(&db, 2);
    assert_eq!((s.exported, s.skipped.len(), s.truncated.len()), (4, 0, 1));
    assert_eq!(s.truncated[0].game, 2);
    assert!(
        s.truncated[0].to_string().contains("deeper than 256"),
        "{}",
        s.truncated[0]
    );
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.matches("[Event ").count(), 4);
    assert_eq!(
        text.matches('(').count(),
        256,
        "the deep game up to the limit"
    );
    assert_eq!(
        text.matches("20. Ng1 Ng8").count(),
        3,
        "the other games whole"
    );
}
