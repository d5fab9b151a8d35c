//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests: each runs a
//! parser on arbitrary bytes and checks the invariants that must hold. Not a stable API.

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

/// A position reached from the start by playing, for each of `choices`, the legal move it
/// picks (modulo the number of legal moves), stopping at mate or stalemate: the random legal
/// positions of the property tests (proptest draws the choices, and shrinks them).
pub fn playout(choices: &[u16]) -> shakmaty::Chess {
    use shakmaty::Position;
    let mut pos = shakmaty::Chess::default();
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[usize::from(c) % moves.len()]);
    }
    pos
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
