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
    // The tree walks visit at most every position of the book once.
    if book.len() <= 4096 {
        let info = crate::ops::tree::info(&book);
        assert!(info.positions_white + info.positions_black <= info.positions.max(1) * 2);
    }
}
