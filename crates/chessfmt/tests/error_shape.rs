//! The family's error shape on a damaged file of every format: the error names the file, the
//! byte offset (`chess_core::Located`) and a typed kind, and its message says both.

use std::path::Path;

use chess_core::Located;

fn check(e: &(impl Located + std::fmt::Display), file: &Path, offset: u64) {
    assert_eq!(e.path(), Some(file), "{e}");
    assert_eq!(e.offset(), Some(offset), "{e}");
    let msg = e.to_string();
    assert!(msg.contains(&file.display().to_string()), "{msg}");
    assert!(msg.contains(&format!("byte {offset}")), "{msg}");
}

#[test]
fn every_format_names_file_offset_and_kind() {
    let dir = tempfile::tempdir().unwrap();

    // Polyglot: 17 bytes, strict: the trailing byte at 16.
    let p = dir.path().join("book.bin");
    std::fs::write(&p, [0u8; 17]).unwrap();
    let e = polyglot_book::Book::open(&p, polyglot_book::OpenMode::Strict).unwrap_err();
    assert!(matches!(e, polyglot_book::Error::Parse(_)));
    check(&e, &p, 16);

    // CTG: a .ctg of 100 bytes (the header page needs 4096), with valid .cto/.ctb.
    let (ctg, cto, ctb) = (
        dir.path().join("b.ctg"),
        dir.path().join("b.cto"),
        dir.path().join("b.ctb"),
    );
    std::fs::write(&ctg, [0u8; 100]).unwrap();
    std::fs::write(&cto, [0u8; 16]).unwrap();
    std::fs::write(&ctb, [0, 12, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    let e = ctg::Book::open(&cto).unwrap_err();
    assert!(
        matches!(e, ctg::Error::Parse(ref p) if p.is_truncated()),
        "{e}"
    );
    check(&e, &ctg, 0);

    // Kvetka: book type 0x07 (only 0x01 exists).
    let k = dir.path().join("k_0.kob");
    std::fs::write(&k, [7u8; 64]).unwrap();
    let e = kvetka_book::Book::open(&k).unwrap_err();
    assert!(
        matches!(e, kvetka_book::Error::UnsupportedType { book_type: 7, .. }),
        "{e}"
    );
    assert_eq!(e.path(), Some(k.as_path()));
    assert_eq!(e.offset(), Some(0));

    // ChessBase: a .cbh whose header is cut short.
    let cbh = dir.path().join("db.cbh");
    std::fs::write(&cbh, [0u8; 10]).unwrap();
    let e = chessbase_db::Database::open(&cbh).unwrap_err();
    assert!(matches!(e, chessbase_db::Error::Parse(_)), "{e}");
    assert_eq!(e.path(), Some(cbh.as_path()), "{e}");
    assert!(e.offset().is_some());

    // Self-play: errors name the game (1-based) and the byte offset of the data.
    let e = selfplay_format::frame::frames(&[0u8; 30])
        .find_map(Result::err)
        .expect("a cut game");
    assert_eq!(e.game, 1);
    assert!(e.to_string().starts_with("game 1 at byte "), "{e}");

    // Missing files: an `Io` error whose message is the path and whose source is the OS error.
    let missing = dir.path().join("nope.bin");
    let e = polyglot_book::Book::open(&missing, polyglot_book::OpenMode::Strict).unwrap_err();
    assert_eq!(e.to_string(), missing.display().to_string());
    let source = std::error::Error::source(&e).expect("the io::Error");
    assert!(!e.to_string().contains(&source.to_string()));
}
