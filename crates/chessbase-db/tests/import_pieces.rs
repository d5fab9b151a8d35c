//! Input chunking never changes what is read (issue 29): the same PGN fed whole and in 1-byte,
//! 7-byte, 4 KiB and 64 KiB pieces, plain and gzipped, imports to identical games. Before the
//! fix a comment crossing a 64 KiB point of the input came back with a space inserted there
//! (the reader hands such a comment over in two pieces).

#![cfg(feature = "pgn")]

use std::io::{Read, Write};

use chessbase_db::Limits;
use chessbase_db::import::read_games;
use chessfmt_pgn::fuzzing::Trickle;

/// 200 games, each with a 700-letter comment (Cyrillic in UTF-8, so that pieces also cut
/// inside a character), a comment before the first move and NAGs.
fn pgn() -> Vec<u8> {
    let mut out = String::new();
    for g in 0..200 {
        let words = ["белых", "чёрных", "Müller", "e4", "ферзь", "x"];
        let mut comment = String::new();
        let mut i = g;
        while comment.chars().count() < 700 {
            comment.push_str(words[i % words.len()]);
            comment.push(' ');
            i += 1;
        }
        let comment = comment.trim_end();
        out.push_str(&format!(
            "[Event \"Pieces {g}\"]\n[White \"A, B\"]\n[Black \"C\"]\n[Result \"1-0\"]\n\n\
             {{before {g}}} 1. e4 {{{comment}}} e5 $1 2. Nf3 {{{comment}}} Nc6 $14 \
             (2... d6 {{{comment}}} 3. d4) 3. Bb5 1-0\n\n"
        ));
    }
    out.into_bytes()
}

/// Every game of `input` as its debug text (header, moves, annotations).
fn games(input: impl Read) -> Vec<String> {
    let mut out = Vec::new();
    read_games(input, Limits::default(), |g| {
        let g = g.expect("every game imports");
        out.push(format!("{:?} {:?}", g.header, g.game));
    })
    .unwrap();
    out
}

/// The games agree (named by number, not printed whole: they are long).
fn same(whole: &[String], read: &[String], how: &str) {
    assert_eq!(read.len(), whole.len(), "{how}: number of games");
    if let Some(i) = whole.iter().zip(read).position(|(a, b)| a != b) {
        panic!("{how}: game {} differs", i + 1);
    }
}

#[test]
fn pieces_of_any_size_import_the_same_games() {
    let pgn = pgn();
    assert!(
        pgn.len() > 4 * 65_536,
        "the input crosses several 64 KiB points"
    );
    let whole = games(&pgn[..]);
    assert_eq!(whole.len(), 200);
    // The comments come back whole: no space inserted anywhere.
    let one = &whole[0];
    assert!(
        one.contains("белых чёрных Müller e4 ферзь x белых"),
        "{one}"
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&pgn).unwrap();
    let gz = gz.finish().unwrap();
    for piece in [1, 7, 4096, 65_536] {
        let plain = games(Trickle::new(&pgn, piece));
        same(&whole, &plain, &format!("{piece}-byte pieces"));
        let data: &'static [u8] = Vec::leak(gz.clone());
        let packed = chessfmt_pgn::decompressed(Trickle::new(data, piece)).unwrap();
        same(
            &whole,
            &games(packed),
            &format!("gzip in {piece}-byte pieces"),
        );
    }
}
