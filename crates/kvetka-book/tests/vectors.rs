//! Hand-checked vectors: position keys written out bit by bit from the description's rules
//! (`specs/kvetka.ru.txt`, "Кодирование позиции"), and every code of the move table on a
//! position where it is legal.

use chess_core::relative_move::RelativeMove;
use kvetka_book::moves::{self, TABLE};
use kvetka_book::position;
use shakmaty::{
    CastlingMode, Chess, Color, FromSetup, Piece, Position, Role, Setup, Square, fen::Fen,
};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn play(sans: &str) -> Chess {
    let mut p = Chess::default();
    for s in sans.split_whitespace() {
        let m = s
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&p)
            .unwrap();
        p.play_unchecked(m);
    }
    p
}

/// The key from a bit string: spaces ignored, zero padding to 22 bytes.
fn key(bits: &str) -> [u8; 22] {
    let bits: Vec<bool> = bits
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c == '1')
        .collect();
    assert!(bits.len() <= 176);
    let mut out = [0u8; 22];
    for (i, b) in bits.iter().enumerate() {
        if *b {
            out[i / 8] |= 0x80 >> (i % 8);
        }
    }
    out
}

// Square codes: 0 empty, 11c pawn, 1011c rook, 1010c bishop, 1001c knight, 10001c queen,
// 10000c king; c = 1 for Black.
const WR: &str = "10110";
const BR: &str = "10111";
const WN: &str = "10010";
const BN: &str = "10011";
const WB: &str = "10100";
const BB: &str = "10101";
const WQ: &str = "100010";
const BQ: &str = "100011";
const WK: &str = "100000";
const BK: &str = "100001";
const WP: &str = "110";
const BP: &str = "111";

/// A file of the start position: piece, pawn, four empty squares, pawn, piece.
fn start_file(white: &str, black: &str) -> String {
    format!("{white} {WP} 0000 {BP} {black} ")
}

/// The (White, Black) piece codes of each file's back ranks in the start position, a to h.
const BACK_RANKS: [(&str, &str); 8] = [
    (WR, BR),
    (WN, BN),
    (WB, BB),
    (WQ, BQ),
    (WK, BK),
    (WB, BB),
    (WN, BN),
    (WR, BR),
];

fn start_board() -> String {
    BACK_RANKS.iter().map(|(w, b)| start_file(w, b)).collect()
}

#[test]
fn start_position() {
    // Board, en passant 0000, castling 1111 (black K, black Q, white K, white Q).
    let bits = format!("{} 0000 1111", start_board());
    assert_eq!(position::key_of(&Chess::default()), Some(key(&bits)));
}

#[test]
fn after_e4_no_en_passant() {
    // Black to move: colours swapped and ranks mirrored, so the board is the start position
    // but for the former e4 pawn, now a black pawn on e5; no black pawn stands beside e4, so the
    // en-passant bits are 0000; castling rights swapped (all four either way).
    let mut bits = String::new();
    for (i, (w, b)) in BACK_RANKS.iter().enumerate() {
        if i == 4 {
            // e1 K, e2 P, e3 0, e4 0, e5 black pawn, e6 0, e7 0, e8 k.
            bits += &format!("{w} {WP} 0 0 {BP} 0 0 {b} ");
        } else {
            bits += &start_file(w, b);
        }
    }
    bits += "0000 1111";
    assert_eq!(position::key_of(&play("e4")), Some(key(&bits)));
}

#[test]
fn en_passant_for_white() {
    // 1. e4 a6 2. e5 d5: the d-pawn moved two squares beside White's e5 pawn: file d = 0100.
    let p = play("e4 a6 e5 d5");
    // a-file: a6 black pawn (a7 empty); d-file: d5 black pawn; e-file: e5 white pawn.
    let bits = format!(
        "{WR} {WP} 0 0 0 {BP} 0 {BR} \
         {} {} \
         {WQ} {WP} 0 0 {BP} 0 0 {BQ} \
         {WK} 0 0 0 {WP} 0 {BP} {BK} \
         {} {} {} \
         0100 1111",
        start_file(WN, BN),
        start_file(WB, BB),
        start_file(WB, BB),
        start_file(WN, BN),
        start_file(WR, BR),
    );
    assert_eq!(position::key_of(&p), Some(key(&bits)));
}

#[test]
fn en_passant_for_black() {
    // 1. a3 e5 2. a4 e4 3. d4: Black to move, d-pawn beside Black's e4 pawn. After
    // normalisation (ranks mirrored, colours swapped) Black's e4 pawn is a white pawn on e5,
    // White's d4 pawn a black pawn on d5: en-passant file d = 0100.
    let p = play("a3 e5 a4 e4 d4");
    let bits = format!(
        "{WR} {WP} 0 0 {BP} 0 0 {BR} \
         {} {} \
         {WQ} {WP} 0 0 {BP} 0 0 {BQ} \
         {WK} 0 0 0 {WP} 0 {BP} {BK} \
         {} {} {} \
         0100 1111",
        start_file(WN, BN),
        start_file(WB, BB),
        start_file(WB, BB),
        start_file(WN, BN),
        start_file(WR, BR),
    );
    assert_eq!(position::key_of(&p), Some(key(&bits)));
}

#[test]
fn mirrored_without_castling_rights() {
    // White king c1, pawn b2, black king e5; no castling rights and White's king on files
    // a–d: files are mirrored (c1 → f1, b2 → g2, e5 → d5).
    let p = pos("8/8/8/4k3/8/8/1P6/2K5 w - - 0 1");
    let bits = format!(
        "00000000 00000000 00000000 \
         0000 {BK} 000 \
         00000000 \
         {WK} 0000000 \
         0 {WP} 000000 \
         00000000 \
         0000 0000"
    );
    assert_eq!(position::key_of(&p), Some(key(&bits)));
}

#[test]
fn partial_castling_rights() {
    // Black O-O-O and White O-O only: 0 1 1 0.
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1");
    let file = |w: &str, b: &str| format!("{w} 000000 {b} ");
    let bits = format!(
        "{}00000000 00000000 00000000 {}00000000 00000000 {}0000 0110",
        file(WR, BR),
        file(WK, BK),
        file(WR, BR),
    );
    assert_eq!(position::key_of(&p), Some(key(&bits)));
}

#[test]
fn pinned_en_passant_still_counts_and_mirrors() {
    // The c-pawn just moved two squares beside White's b5 pawn; the capture is illegal (it would
    // expose the a5 king to the h5 rook) but the description stores the file anyway. No castling
    // and the king on the a-file: files are mirrored, so c becomes f = 0110.
    let p = pos("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2");
    // Mirrored board: a5 K → h5, b5 P → g5, c5 p → f5, h5 r → a5, e1 k → d1.
    let bits = format!(
        "0000 {BR} 000 \
         00000000 00000000 \
         {BK} 0000000 \
         00000000 \
         0000 {BP} 000 \
         0000 {WP} 000 \
         0000 {WK} 000 \
         0110 0000"
    );
    assert_eq!(position::key_of(&p), Some(key(&bits)));
}

/// A deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random legal White-to-move position with `count` white pieces of `role` (pawns on ranks
/// 2–7) and a few other pieces.
fn random_position(rng: &mut Rng, role: Role, count: usize) -> Option<Chess> {
    let mut setup = Setup::empty();
    let mut free: Vec<Square> = Square::ALL.to_vec();
    let take = |rng: &mut Rng, free: &mut Vec<Square>, ok: &dyn Fn(Square) -> bool| loop {
        let i = rng.below(free.len());
        let sq = free[i];
        if ok(sq) {
            free.swap_remove(i);
            break sq;
        }
    };
    let any = |_: Square| true;
    let pawn_rank = |sq: Square| (1..=6).contains(&sq.rank().to_u32());
    // White's king on files e–h: without castling rights the position is then normalised.
    let king = take(rng, &mut free, &|sq: Square| sq.file().to_u32() >= 4);
    setup.board.set_piece_at(king, Color::White.king());
    setup
        .board
        .set_piece_at(take(rng, &mut free, &any), Color::Black.king());
    // The king is already there.
    let count = if role == Role::King { 0 } else { count };
    for _ in 0..count {
        let sq = take(
            rng,
            &mut free,
            if role == Role::Pawn { &pawn_rank } else { &any },
        );
        setup.board.set_piece_at(
            sq,
            Piece {
                color: Color::White,
                role,
            },
        );
    }
    for _ in 0..rng.below(4) {
        let r = [Role::Knight, Role::Bishop, Role::Rook, Role::Pawn][rng.below(4)];
        let sq = take(
            rng,
            &mut free,
            if r == Role::Pawn { &pawn_rank } else { &any },
        );
        setup.board.set_piece_at(
            sq,
            Piece {
                color: Color::Black,
                role: r,
            },
        );
    }
    Chess::from_setup(setup, CastlingMode::Standard).ok()
}

#[test]
fn every_code_on_a_position_where_it_is_legal() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let castles = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let mut found = 0;
    for code in 0..=255u8 {
        let Some(rel) = TABLE.relative(code) else {
            continue;
        };
        let hit = match rel {
            RelativeMove::Castle(_) => Some(castles.clone()),
            RelativeMove::Piece { role, index, .. } => (0..20_000).find_map(|_| {
                let p = random_position(&mut rng, role, usize::from(index) + 1)?;
                moves::decode(&p, code).is_some().then_some(p)
            }),
            _ => None,
        };
        let p = hit.unwrap_or_else(|| panic!("no position found for code {code:#04x}"));
        let m = moves::decode(&p, code).unwrap();
        assert!(p.is_legal(m));
        // The decoded move is the table's piece and step, and codes back to the same byte.
        assert_eq!(RelativeMove::from_move(&p, m), Some(rel), "{code:#04x}");
        assert_eq!(moves::encode(&p, m), Some(code), "{code:#04x}");
        assert_eq!(moves::encode_real(&p, m), Some(code), "{code:#04x}");
        found += 1;
    }
    assert_eq!(found, 0xc6 - 5);
}

#[test]
fn promotion_is_to_a_queen_only() {
    let p = pos("8/1P2k3/8/8/8/8/8/4K3 w - - 0 1");
    let m = moves::decode(&p, 0x00).unwrap();
    assert_eq!(m.promotion(), Some(Role::Queen));
    for m in p.legal_moves() {
        let coded = moves::encode(&p, m);
        match m.promotion() {
            Some(Role::Queen) => assert_eq!(coded, Some(0x00)),
            Some(_) => assert_eq!(coded, None),
            None => assert!(coded.is_some()),
        }
    }
}
