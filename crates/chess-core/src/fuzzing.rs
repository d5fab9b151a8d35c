//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests: each runs a
//! parser on arbitrary bytes and checks the invariants that must hold. Not a stable API.

/// A reader that hands out its bytes at most `piece` at a time: input cut at arbitrary
/// points, for the tests that reading in pieces gives what reading whole gives.
pub struct Trickle<'a> {
    data: &'a [u8],
    piece: usize,
}

impl<'a> Trickle<'a> {
    /// `data` in pieces of at most `piece` bytes (at least 1).
    pub fn new(data: &'a [u8], piece: usize) -> Self {
        Trickle {
            data,
            piece: piece.max(1),
        }
    }
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.data.len()).min(self.piece);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// PGN input: never panics, whatever the bytes; reading in 3-byte chunks gives the same games
/// (up to the first I/O error).
#[cfg(feature = "pgn")]
pub fn pgn(data: &[u8]) {
    use crate::pgn::PgnReader;
    // Games before the first I/O error (pgn-reader reports some malformed input as an I/O
    // error, and on garbage where it does so can depend on how the input arrives).
    let summary = |games: &mut dyn Iterator<Item = std::io::Result<crate::pgn::Game>>| {
        games
            .take(1000)
            .map_while(Result::ok)
            .map(|g| (g.offset, g.moves.len(), g.result))
            .collect::<Vec<_>>()
    };
    let whole = summary(&mut PgnReader::new(data).games());
    let trickled = summary(&mut PgnReader::new(Trickle::new(data, 3)).games());
    let n = whole.len().min(trickled.len());
    assert_eq!(
        whole[..n],
        trickled[..n],
        "{:?}",
        String::from_utf8_lossy(data)
    );
}

/// The games the builder fuzz entry points replay: the first 200 of the bytes as PGN
/// (in memory, so reading cannot fail).
#[cfg(feature = "pgn")]
pub fn pgn_games(data: &[u8]) -> Vec<crate::pgn::RawGame> {
    crate::pgn::PgnReader::new(data)
        .next_batch(200)
        .expect("in-memory input")
}

/// The deterministic pseudo-random numbers of the tests, fuzz stand-ins and benchmark inputs
/// of the workspace (xorshift64, Marsaglia's 13/7/17): one generator instead of a copy in
/// each test.
///
/// ```
/// use chess_core::fuzzing::XorShift;
///
/// let mut x = XorShift::new(1);
/// assert_eq!(x.next_u64(), 1_082_269_761);
/// assert!(x.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// The generator from `seed` (which must not be 0: the sequence would stay 0).
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// The next number modulo `n` (at least 1), as an index below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// A pseudo-random game from the start position that comes back to positions it left (a
/// knight that moved goes back two plies later, half the time), for the tests that builders
/// count every move, those played from a repeated position too: its movetext (SAN with move
/// numbers, no result) and the (position, move) pairs played.
pub fn returning_game(seed: u64, plies: usize) -> (String, Vec<(shakmaty::Chess, shakmaty::Move)>) {
    use shakmaty::{Color, Move, Position, Role, san::SanPlus};
    let mut rng = XorShift::new(seed | 1);
    let mut pos = shakmaty::Chess::default();
    let mut played = Vec::new();
    let mut text = String::new();
    // A knight's move back and the ply it is due at.
    let mut back: Option<(Move, usize)> = None;
    for ply in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = match back {
            Some((m, due)) if due == ply && legal.contains(&m) => m,
            _ => legal[rng.below(legal.len())],
        };
        if back.is_some_and(|(_, due)| due <= ply) {
            back = None;
        }
        if back.is_none()
            && m.role() == Role::Knight
            && rng.below(2) == 0
            && let Some(from) = m.from()
        {
            let home = Move::Normal {
                role: Role::Knight,
                from: m.to(),
                capture: None,
                to: from,
                promotion: None,
            };
            back = Some((home, ply + 2));
        }
        if pos.turn() == Color::White {
            text.push_str(&format!("{}. ", pos.fullmoves()));
        }
        text.push_str(&SanPlus::from_move(pos.clone(), m).to_string());
        text.push(' ');
        played.push((pos.clone(), m));
        pos.play_unchecked(m);
    }
    (text, played)
}

/// Deterministic pseudo-random inputs ([`XorShift`]) of lengths `0, step, 2·step, …` below
/// `max_len`: a cheap stand-in for fuzzing where no nightly toolchain exists.
pub fn pseudo_random_inputs(
    seed: u64,
    max_len: usize,
    step: usize,
) -> impl Iterator<Item = Vec<u8>> {
    let mut x = XorShift::new(seed | 1);
    (0..max_len)
        .step_by(step.max(1))
        .map(move |len| (0..len).map(|_| x.next_u64() as u8).collect())
}

#[cfg(feature = "std")]
/// Replays a committed fuzz corpus directory through `target`, then `mutations` byte mutations
/// (1–4 random bytes changed, and the result truncated at a random point) of each seed: the
/// corpus replay of `cargo test`. Returns the number of seeds.
pub fn replay_corpus(dir: &std::path::Path, mutations: usize, target: impl Fn(&[u8])) -> usize {
    let mut seeds = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fuzz corpus directory") {
        let data = std::fs::read(entry.expect("corpus entry").path()).expect("corpus file");
        target(&data);
        seeds.push(data);
    }
    let mut x = XorShift::new(0x9e37_79b9_7f4a_7c15);
    let mut next = || x.next_u64();
    for seed in seeds.iter().filter(|s| !s.is_empty()) {
        for _ in 0..mutations {
            let mut d = seed.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() as usize) % d.len();
                d[i] = next() as u8;
            }
            target(&d);
            let cut = (next() as usize) % d.len();
            target(&d[..cut]);
        }
    }
    seeds.len()
}
