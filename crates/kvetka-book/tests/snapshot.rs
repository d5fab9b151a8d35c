//! Snapshot (insta) of the decoded form of the book built from `testdata/kvetka/small.pgn`
//! (with games), with an opening-name comment added.

use std::path::PathBuf;

use kvetka_book::{Comment, Header, build::Builder, position, read::from_bytes, write::BookFiles};
use shakmaty::{Chess, EnPassantMode, Position, fen::Fen, san::San, uci::UciMove};

fn small_pgn() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/kvetka/small.pgn")
}

#[test]
fn small_book_decoded() {
    let mut b = Builder::new(
        kvetka_book::build::BuildOptions::default().with_header(Header {
            caption: "small".into(),
            max_move: 0xff,
            element_type: 1,
            ..Header::default()
        }),
    );
    b.add_pgn_file(small_pgn(), |_| {}).unwrap();
    let (built, stats) = b.finish().unwrap();
    let (header, mut elements, mut sources) = (built.header, built.elements, built.sources);
    assert_eq!((stats.games_read, stats.games_added), (6, 5));
    // The .ksf address is the absolute path of the file: pin only its name.
    let s = sources.as_mut().unwrap();
    assert!(s.sources[0].address.ends_with("small.pgn"));
    s.sources[0].address = "small.pgn".into();
    // An opening name on the position after 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6.
    let mut pos = Chess::default();
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"] {
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    let key = position::key_of(&pos).unwrap();
    let i = elements.binary_search_by(|e| e.key.cmp(&key)).unwrap();
    elements[i].comment = Some("C70|Ruy Lopez|Morphy Defence".into());

    let (files, _) = BookFiles::build(&header, &mut elements, sources.as_ref(), 1 << 20).unwrap();
    let book = from_bytes(files.kobs, Some(files.kin), files.ksf).unwrap();
    let probe = book.probe(&pos).unwrap().unwrap();
    assert_eq!(
        probe.comment,
        Some(Comment::Eco {
            eco: "C70".into(),
            opening: "Ruy Lopez".into(),
            variation: Some("Morphy Defence".into())
        })
    );
    let decoded: Vec<serde_json::Value> = book
        .elements()
        .map(|e| {
            let (loc, e) = e.unwrap();
            let p = position::position_of(&e.key).unwrap();
            let moves: Vec<String> = e
                .moves
                .iter()
                .map(|&c| {
                    UciMove::from_standard(kvetka_book::moves::decode(&p, c).unwrap()).to_string()
                })
                .collect();
            serde_json::json!({
                "block": loc.block,
                "offset": loc.offset,
                "fen": Fen::from_position(&p, EnPassantMode::Always).to_string(),
                "wdl": [e.wins, e.draws, e.losses],
                "moves": moves,
                "comment": e.comment,
                "source": e.source.map(|r| [u32::from(r.source), r.game]),
                "links": e.links.map(|l| l.iter().map(|r| [u32::from(r.source), r.game]).collect::<Vec<_>>()),
            })
        })
        .collect();
    let games: Vec<serde_json::Value> = book.sources().unwrap().unwrap().sources[0]
        .games
        .iter()
        .map(|g| {
            serde_json::json!([
                g.address,
                g.length,
                g.white,
                g.black,
                g.white_elo,
                g.black_elo,
                g.result.as_pgn()
            ])
        })
        .collect();
    insta::assert_json_snapshot!(
        "small_book",
        serde_json::json!({
            "header": {
                "caption": book.header().caption,
                "blocks": book.header().block_count,
                "max_move": book.header().max_move,
                "element_type": book.header().element_type,
            },
            "elements": decoded,
            "games": games,
        })
    );
}
