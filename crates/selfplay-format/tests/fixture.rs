//! The fixture testdata/selfplay/small.bin (written by our writer: `cargo test -p
//! selfplay-format --test fixture -- --ignored regenerate` rewrites it) and the decoded form
//! pinned by an insta snapshot; hostile variants of it.

use std::{fmt::Write, path::PathBuf};

use selfplay_format::{ErrorKind, decode::decode_game, frame::frames, write::GameWriter};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/selfplay/small.bin")
}

/// Three short games: from the start (with visits), from a Chess960 position (castling), and
/// one without moves.
fn make_fixture() -> Vec<u8> {
    let mut out = Vec::new();
    let games: [(&str, &[&str], u8); 3] = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4"],
            2,
        ),
        (
            "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
            &["b2b3", "b7b6", "c1b2", "c8b7", "d1b1", "d8b8"],
            1,
        ),
        ("8/8/8/8/8/5k2/8/5K2 w - - 0 1", &[], 1),
    ];
    for (fen, moves, result) in games {
        let f: Fen = fen.parse().unwrap();
        let mode = if fen.contains("GBgb") {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let start: Chess = f.into_position(mode).unwrap();
        let mut w = GameWriter::new(&start);
        let mut pos = start.clone();
        for (i, uci) in moves.iter().enumerate() {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            let legal = pos.legal_moves();
            let visits: Vec<_> = legal
                .iter()
                .enumerate()
                .map(|(j, &l)| (l, if l == m { 1000 } else { (j as u32 * 37) % 400 }))
                .collect();
            let with_visits = i % 3 != 2;
            w.push(m, 0.5 + 0.01 * i as f32, with_visits.then_some(&visits[..]))
                .unwrap();
            pos.play_unchecked(m);
        }
        out.extend(w.finish(result).unwrap());
    }
    out
}

#[test]
#[ignore = "rewrites testdata/selfplay/small.bin"]
fn regenerate() {
    std::fs::create_dir_all(fixture_path().parent().unwrap()).unwrap();
    std::fs::write(fixture_path(), make_fixture()).unwrap();
}

fn render(data: &[u8]) -> String {
    let mut s = String::new();
    for view in frames(data) {
        let view = view.unwrap();
        let g = decode_game(&view).unwrap();
        let fen = Fen::from_position(&g.start, shakmaty::EnPassantMode::Legal);
        writeln!(
            s,
            "game {} at {} ({} bytes): {fen} [{:?}] result {}",
            view.index,
            view.offset,
            view.bytes.len(),
            g.castling_mode,
            g.result()
        )
        .unwrap();
        for m in &g.moves {
            let uci = m.mv.to_uci(g.castling_mode);
            write!(s, "  {uci} code {:#06x} score {}", m.code.0, m.score).unwrap();
            if let Some(v) = &m.visits {
                let top: Vec<String> = v
                    .iter()
                    .filter(|(_, b)| *b >= 128)
                    .map(|(mv, b)| format!("{}={b}", mv.to_uci(g.castling_mode)))
                    .collect();
                write!(s, " visits n={} {}", v.len(), top.join(" ")).unwrap();
            }
            writeln!(s).unwrap();
        }
    }
    s
}

#[test]
fn fixture_is_what_the_writer_makes_and_decodes_as_pinned() {
    let data = std::fs::read(fixture_path()).unwrap();
    assert_eq!(data, make_fixture(), "testdata/selfplay/small.bin is stale");
    insta::assert_snapshot!(render(&data));
}

fn first_error(data: &[u8]) -> selfplay_format::Error {
    for view in frames(data) {
        match view {
            Err(e) => return e,
            Ok(v) => {
                if let Err(e) = decode_game(&v) {
                    return e;
                }
            }
        }
    }
    panic!("no error");
}

#[test]
fn hostile_variants_give_typed_errors() {
    let data = std::fs::read(fixture_path()).unwrap();
    let views: Vec<_> = frames(&data).map(Result::unwrap).collect();
    let first_len = views[0].bytes.len();

    // Truncated anywhere inside the last game: reported with the game number (1-based).
    for cut in 1..views[2].bytes.len() {
        let e = first_error(&data[..data.len() - cut]);
        assert_eq!(e.game, 3);
        assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    }
    // n not equal to the number of legal moves (first record: 20 legal moves; one visit byte
    // dropped so that the framing stays consistent and the decoder must notice).
    let mut bad = data.clone();
    assert_eq!(bad[43 + 4], 20);
    bad[43 + 4] = 19;
    bad.remove(43 + 5);
    let e = first_error(&bad);
    assert_eq!((e.game, e.offset), (1, 47));
    assert_eq!(e.kind, ErrorKind::VisitCount { n: 19, legal: 20 });
    // An illegal move: e2e5.
    let mut bad = data.clone();
    let e2e5 = 12u16 << 10 | 36 << 4;
    bad[43..45].copy_from_slice(&e2e5.to_le_bytes());
    let e = first_error(&bad);
    assert_eq!((e.game, e.offset), (1, 43));
    assert!(
        matches!(e.kind, ErrorKind::IllegalMove { code, .. } if code == e2e5),
        "{e}"
    );
    // Rook file 9 in the second game's header.
    let mut bad = data.clone();
    bad[first_len + 39] = 9;
    let e = first_error(&bad);
    assert_eq!(e.game, 2);
    assert!(
        matches!(
            e.kind,
            ErrorKind::BadHeader(selfplay_format::HeaderProblem::RookFile(9))
        ),
        "{e}"
    );
    // Side to move 7, result 3.
    let mut bad = data.clone();
    bad[32] = 7;
    assert!(matches!(first_error(&bad).kind, ErrorKind::BadHeader(_)));
    let mut bad = data.clone();
    bad[42] = 3;
    assert!(matches!(first_error(&bad).kind, ErrorKind::BadHeader(_)));
    // Garbage between games: the next "game" is garbage and fails to decode or frame.
    let mut bad = data[..first_len].to_vec();
    bad.extend_from_slice(&[0xAB; 50]);
    bad.extend_from_slice(&data[first_len..]);
    let e = first_error(&bad);
    assert_eq!(e.game, 2);
}

#[test]
fn fuzz_corpus_and_random_inputs() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/selfplay_policy");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        selfplay_format::fuzzing::policy(&std::fs::read(entry.unwrap().path()).unwrap());
        n += 1;
    }
    assert!(n >= 3);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x5e1f_91a7, 2000, 3) {
        selfplay_format::fuzzing::policy(&data);
    }
    // Every truncation and single-byte corruption of the fixture.
    let data = std::fs::read(fixture_path()).unwrap();
    for cut in 0..data.len() {
        selfplay_format::fuzzing::policy(&data[..cut]);
    }
    for i in 0..data.len() {
        for x in [0x01, 0x80, 0xff] {
            let mut d = data.clone();
            d[i] ^= x;
            selfplay_format::fuzzing::policy(&d);
        }
    }
}

#[test]
fn value_fuzz_corpus_and_random_inputs() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/selfplay_value");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        selfplay_format::fuzzing::value(&std::fs::read(entry.unwrap().path()).unwrap());
        n += 1;
    }
    assert!(n >= 3);
    for data in chess_core::fuzzing::pseudo_random_inputs(0x0007_a10e, 2000, 3) {
        selfplay_format::fuzzing::value(&data);
    }
    let data = std::fs::read(dir.join("fixture")).unwrap();
    for cut in 0..data.len() {
        selfplay_format::fuzzing::value(&data[..cut]);
    }
    for i in 0..data.len() {
        let mut d = data.clone();
        d[i] ^= 0xff;
        selfplay_format::fuzzing::value(&d);
    }
}
