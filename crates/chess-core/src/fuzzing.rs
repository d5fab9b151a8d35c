//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests: each runs a
//! parser on arbitrary bytes and checks the invariants that must hold. Not a stable API.

/// PGN input: never panics, whatever the bytes; reading in 3-byte chunks gives the same games
/// (up to the first I/O error).
#[cfg(feature = "pgn")]
pub fn pgn(data: &[u8]) {
    use crate::pgn::PgnReader;
    use std::io::Read;
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(3);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
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
    let trickled = summary(&mut PgnReader::new(Trickle(data)).games());
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

/// Deterministic pseudo-random inputs (xorshift64) of lengths `0, step, 2·step, …` below
/// `max_len`: a cheap stand-in for fuzzing where no nightly toolchain exists.
pub fn pseudo_random_inputs(
    seed: u64,
    max_len: usize,
    step: usize,
) -> impl Iterator<Item = Vec<u8>> {
    let mut x = seed | 1;
    (0..max_len).step_by(step.max(1)).map(move |len| {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    })
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
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
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
