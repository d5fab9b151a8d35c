//! The derived test vectors of `corpus/ctg/vectors/` and the one-page `simple` book.

mod common;

use chess_core::{normalize::Transform, relative_move::RelativeMove};
use common::{corpus, csv, fen, hex};
use ctg::{hash::gen_hash, moves, position, read::decode_record};
use shakmaty::{
    Board, CastlingMode, Chess, Color, FromSetup, Move, Piece, Position, Role, Setup, Square,
};

#[test]
fn encoding_vectors_bytes_hash_and_flags() {
    let Some(path) = corpus("vectors/encoding-vectors.csv") else {
        return;
    };
    let rows = csv(&path);
    assert_eq!(rows.len(), 10);
    for row in rows {
        let pos = fen(&row[0]);
        let key = position::key_of(&pos).unwrap();
        assert_eq!(key.as_bytes(), &hex(&row[1])[..], "{}", row[0]);
        assert_eq!(
            gen_hash(key.as_bytes()),
            u32::from_str_radix(&row[2], 16).unwrap(),
            "{}",
            row[0]
        );
        let t = Transform::for_position(&pos);
        assert_eq!(t.mirror_files, row[3] == "1", "{}", row[0]);
        assert_eq!(t.flip_colors, row[4] == "1", "{}", row[0]);
        // And the bytes decode back to the normalised board.
        let (hp, len) = position::decode(key.as_bytes()).unwrap();
        assert_eq!(len, key.as_bytes().len());
        assert_eq!(hp.board, t.apply(&pos).unwrap().board().clone());
    }
}

#[test]
fn simple_book_every_record() {
    let Some(path) = corpus("simple/simple.ctg") else {
        return;
    };
    let book = ctg::Book::open(&path).unwrap();
    assert_eq!(book.header().pages, 1);
    assert_eq!((book.bounds().lower, book.bounds().upper), (0, 0));
    let records: Vec<_> = book.records().map(Result::unwrap).collect();
    let rows = csv(&corpus("vectors/simple-records.csv").unwrap());
    assert_eq!(records.len(), rows.len());
    for (r, row) in records.iter().zip(&rows) {
        let in_page = r.offset - 4096;
        assert_eq!(in_page.to_string(), row[1]);
        assert_eq!(r.raw.len().to_string(), row[2]);
        assert_eq!(format!("0x{:02x}", r.raw.position[0]), row[3]);
        let d = decode_record(&r.raw).unwrap();
        let board = row[4].split(' ').next().unwrap();
        assert_eq!(d.position.board().to_string(), board);
        assert_eq!(r.raw.position, &hex(&row[5])[..]);
        let pairs: Vec<String> = r
            .raw
            .move_pairs()
            .map(|(c, a)| format!("{c:02x}:{a:02x}"))
            .collect();
        assert_eq!(pairs.join(" "), row[6]);
        let s = r.raw.stats();
        let fields = [s.games, s.wins, s.losses, s.draws, s.points];
        for (v, col) in fields.iter().zip(&row[7..12]) {
            assert_eq!(v.to_string(), *col);
        }
        assert_eq!(format!("0x{:02x}", s.recommendation), row[12]);
        assert_eq!(s.unknown.to_string(), row[13]);
        assert_eq!(s.commentary.to_string(), row[14]);
        // Every record is found again by the lookup walk.
        assert_eq!(book.find(r.raw.position).unwrap().offset, r.offset);
    }
}

#[test]
fn simple_book_probe_one_page_and_masked_annotations() {
    let Some(path) = corpus("simple/simple.ctg") else {
        return;
    };
    let book = ctg::Book::open(&path).unwrap();
    // One-page book: lower = upper = 0, only entry 0 (a walk starting at n = 1 finds nothing).
    let probe = book.probe(&Chess::default()).unwrap().unwrap();
    let ucis: Vec<String> = probe
        .moves
        .iter()
        .map(|m| m.mv.to_uci(CastlingMode::Standard).to_string())
        .collect();
    assert_eq!(ucis, ["e2e4", "d2d4"]);
    for m in &probe.moves {
        assert_eq!(m.annotation, 0xe0);
        assert_eq!(m.nag(), 0, "annotation top bits are masked");
        assert_eq!(m.results().games, 1);
    }
    assert_eq!(probe.stats.games, 2);
    // Black to move after 1.d4: the stored record of 1.d4 is colour-flipped.
    let mut pos = Chess::default();
    pos.play_unchecked(probe.moves[1].mv);
    let after_d4 = book.probe(&pos).unwrap().unwrap();
    assert_eq!(after_d4.moves.len(), 1);
    assert_eq!(
        after_d4.moves[0]
            .mv
            .to_uci(CastlingMode::Standard)
            .to_string(),
        "d7d5"
    );
}

/// Builds a position where `code` is legal and checks it decodes to the listed piece move.
fn legal_instance(role: Role, nth: u8, dx: i32, dy: i32, seed: &mut u64) -> Option<(Chess, Move)> {
    let mut rand = |n: u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed % n
    };
    for _ in 0..20_000 {
        let from = Square::new(rand(64) as u32);
        // Deltas are modulo 8: the board wraps around.
        let f = (from.file() as i32 + dx).rem_euclid(8);
        let r = (from.rank() as i32 + dy).rem_euclid(8);
        let to = Square::from_coords(shakmaty::File::new(f as u32), shakmaty::Rank::new(r as u32));
        let mut board = Board::empty();
        // `nth` earlier pieces of the kind, in file-major order before `from`.
        let fm = |sq: Square| sq.file() as u32 * 8 + sq.rank() as u32;
        let earlier: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|s| fm(*s) < fm(from) && *s != to)
            .collect();
        if earlier.len() < usize::from(nth) {
            continue;
        }
        board.set_piece_at(
            from,
            Piece {
                color: Color::White,
                role,
            },
        );
        let mut placed = 0;
        while placed < nth {
            let s = earlier[rand(earlier.len() as u64) as usize];
            if board.piece_at(s).is_none() {
                board.set_piece_at(
                    s,
                    Piece {
                        color: Color::White,
                        role,
                    },
                );
                placed += 1;
            }
        }
        if role == Role::Pawn && dx != 0 {
            board.set_piece_at(to, Color::Black.knight());
        }
        if role != Role::King {
            let k = Square::new(rand(64) as u32);
            if board.piece_at(k).is_some() {
                continue;
            }
            board.set_piece_at(k, Color::White.king());
        }
        let k = Square::new(rand(64) as u32);
        if board.piece_at(k).is_some() || k == to {
            continue;
        }
        board.set_piece_at(k, Color::Black.king());
        let setup = Setup {
            board,
            ..Setup::empty()
        };
        let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard) else {
            continue;
        };
        let m = pos.legal_moves().into_iter().find(|m| {
            m.from() == Some(from)
                && m.to() == to
                && matches!(m.promotion(), None | Some(Role::Queen))
        });
        if let Some(m) = m {
            return Some((pos, m));
        }
    }
    None
}

#[test]
fn move_codes_decode_to_the_listed_piece_moves() {
    let Some(path) = corpus("vectors/move-codes.csv") else {
        return;
    };
    let rows = csv(&path);
    assert_eq!(rows.len(), 166);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for row in rows {
        let code = u8::from_str_radix(row[0].trim_start_matches("0x"), 16).unwrap();
        let role = match row[1].as_str() {
            "P" => Role::Pawn,
            "N" => Role::Knight,
            "B" => Role::Bishop,
            "R" => Role::Rook,
            "Q" => Role::Queen,
            _ => Role::King,
        };
        let nth: u8 = row[2].parse::<u8>().unwrap() - 1;
        let dx: i32 = row[3].parse().unwrap();
        let dy: i32 = row[4].parse().unwrap();
        if role == Role::King && dy == 0 && dx.abs() == 2 {
            // Castling.
            let side = if dx > 0 {
                shakmaty::CastlingSide::KingSide
            } else {
                shakmaty::CastlingSide::QueenSide
            };
            assert_eq!(moves::meaning(code), Some(RelativeMove::Castle(side)));
            let pos = fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
            let m = moves::decode(&pos, &pos.legal_moves(), code).unwrap();
            assert_eq!(m.castling_side(), Some(side));
            continue;
        }
        assert_eq!(
            moves::meaning(code),
            Some(RelativeMove::piece(role, nth, dx, dy)),
            "code {code:#04x}"
        );
        let (pos, expected) = legal_instance(role, nth, dx, dy, &mut seed)
            .unwrap_or_else(|| panic!("no position for {code:#04x}"));
        assert_eq!(
            moves::decode(&pos, &pos.legal_moves(), code),
            Some(expected),
            "code {code:#04x} in {pos:?}"
        );
        // And the encoder gives the code back (0xf9 shares its meaning with 0x1a).
        let back = moves::encode(&pos, expected).unwrap();
        assert_eq!(back, if code == 0xf9 { 0x1a } else { code });
    }
}

#[test]
fn duplicate_queen_code_falls_back_to_six_files() {
    // Second queen (file-major) on h1; h2 blocked: "+6 ranks" is illegal, "+6 files" (f1) is
    // the fallback meaning for both 0x1a and 0xf9.
    let pos = fen("4k3/8/8/8/8/8/7P/Q3K2Q w - - 0 1");
    for code in [0x1a, 0xf9] {
        let m = moves::decode(&pos, &pos.legal_moves(), code).unwrap();
        assert_eq!((m.from(), m.to()), (Some(Square::H1), Square::F1));
    }
    // The writer has no code for "+6 files".
    let m = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.from() == Some(Square::H1) && m.to() == Square::F1)
        .unwrap();
    assert_eq!(moves::encode(&pos, m), None);
}

#[test]
fn snapshot_of_the_decoded_simple_book() {
    let Some(path) = corpus("simple/simple.ctg") else {
        return;
    };
    let book = ctg::Book::open(&path).unwrap();
    let decoded: Vec<serde_json::Value> = book
        .records()
        .map(|r| {
            let r = r.unwrap();
            let d = decode_record(&r.raw).unwrap();
            let s = d.stats;
            serde_json::json!({
                "offset": r.offset,
                "fen": shakmaty::fen::Fen::from_position(&d.position, shakmaty::EnPassantMode::Legal).to_string(),
                "moves": d.moves.iter().map(|(m, c, a)| format!("{} {c:#04x} {a:#04x}", m.to_uci(CastlingMode::Standard))).collect::<Vec<_>>(),
                "stats": [s.games, s.wins, s.losses, s.draws, s.points, u32::from(s.recommendation), u32::from(s.commentary)],
            })
        })
        .collect();
    insta::assert_json_snapshot!(decoded);
}
