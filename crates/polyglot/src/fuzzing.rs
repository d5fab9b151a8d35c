//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests. Not a stable
//! API.

use shakmaty::{Chess, Position};

use crate::{Book, OpenMode, moves::decode_move};

/// Opens arbitrary bytes as a book (both modes), iterates it, probes a few positions, and
/// decodes every move field against the start position: never panics; every move `probe`
/// returns is legal; the tree walks of `dump`/`info` finish.
pub fn book(data: &[u8]) {
    let _ = Book::new(data, OpenMode::Strict);
    let Ok(book) = Book::new(data, OpenMode::Lenient) else {
        return;
    };
    assert!(book.trailing_bytes() < 16);
    let start = Chess::default();
    for e in book.entries().take(4096) {
        let _ = decode_move(&start, e.raw_move);
        let _ = book.key_range(e.key);
    }
    for m in book.moves(&start) {
        assert!(start.is_legal(m.mv));
    }
    let _ = book.best(&start);
    // `polyglot merge`: the streaming merge of a sorted book with itself equals the
    // in-memory merge (and refuses unsorted input with an error, never a panic).
    let entries: Vec<_> = book.entries().take(4096).collect();
    for strategy in [
        crate::ops::merge::MergeStrategy::Sum,
        crate::ops::merge::MergeStrategy::First,
    ] {
        let mut streamed = Vec::new();
        let streams: Vec<Box<dyn Iterator<Item = crate::Entry>>> = vec![
            Box::new(entries.iter().copied()),
            Box::new(entries.iter().copied()),
        ];
        let r = crate::ops::merge::merge_sorted(streams, strategy, |e| {
            streamed.push(*e);
            Ok::<(), std::io::Error>(())
        });
        if book.is_sorted() {
            assert_eq!(r.ok().map(|c| c.output as usize), Some(streamed.len()));
            assert_eq!(
                streamed,
                crate::ops::merge::merge(&[&entries, &entries], strategy)
            );
        }
    }
    let _ = crate::ops::merge::merge_reference(&entries, &entries);
    // The tree walks visit at most every position of the book once.
    if book.len() <= 4096 {
        let info = crate::ops::tree::info(&book);
        assert!(info.positions_white + info.positions_black <= info.positions.max(1) * 2);
    }
}

/// `polyglot build` on arbitrary PGN bytes: never panics; the book is sorted, opens in strict
/// mode, and every move it gives is legal.
#[cfg(feature = "pgn")]
pub fn build_from_pgn(data: &[u8]) {
    build_from_games(&chessfmt_pgn::fuzzing::pgn_games(data));
}

/// [`build_from_pgn`] on games already tokenised (the `pgn_builders` target reads the PGN
/// once for the three builders).
#[cfg(feature = "pgn")]
pub fn build_from_games(games: &[chessfmt_pgn::RawGame]) {
    // One worker: the builder's parallel steps would otherwise cost more in thread
    // hand-offs than the few games of a fuzz input.
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    match POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(1).build().ok()) {
        Some(pool) => pool.install(|| build_here(games)),
        None => build_here(games),
    }
}

#[cfg(feature = "pgn")]
fn build_here(games: &[chessfmt_pgn::RawGame]) {
    use crate::ops::build::{BuildOptions, Builder, KeyedGame};
    let mut builder = Builder::new(BuildOptions::default());
    let max_ply = builder.options().max_ply;
    for raw in games {
        if let Ok(g) = KeyedGame::from_raw(raw, max_ply) {
            builder.add(&g);
        }
    }
    let mut bytes = Vec::new();
    builder.write_to(&mut bytes).expect("in-memory output");
    let book = Book::new(&bytes[..], OpenMode::Strict).expect("a valid book");
    let start = Chess::default();
    for m in book.moves(&start) {
        assert!(start.is_legal(m.mv));
    }
}
