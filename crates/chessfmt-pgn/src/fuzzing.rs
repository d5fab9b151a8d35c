//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests of PGN input,
//! and the PGN generators of the builders' tests. Not a stable API.

use chess_core::fuzzing::XorShift;

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

/// `text` compressed as `kind` (`"gz"`, `"zst"` or `"xz"`): the compressed inputs of the
/// tests.
///
/// # Panics
///
/// On another `kind`.
#[cfg(all(feature = "gzip", feature = "zstd", feature = "xz"))]
pub fn compressed(kind: &str, text: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let written = match kind {
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(text).and_then(|()| e.finish())
        }
        "zst" => zstd::encode_all(text, 3),
        "xz" => {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(text).and_then(|()| e.finish())
        }
        _ => panic!("no compression {kind:?}"),
    };
    written.expect("compressing in memory")
}

/// `count` pseudo-random words of 40 letters, the same every run: comments that keep a
/// compressed stream of games from compressing to nothing (the tests cut it short).
pub fn noise(count: usize) -> Vec<String> {
    let mut x = XorShift::new(0x2545_f491_4f6c_dd1d);
    (0..count)
        .map(|_| {
            (0..40)
                .map(|_| char::from(b'a' + (x.next_u64() % 26) as u8))
                .collect()
        })
        .collect()
}

/// Games of every shape a reading in pieces or windows must not change, `n` of them and a
/// last one cut off: a BOM, CRLF lines, comments holding an empty line and `[Event`, an
/// illegal game, a tag over the 64 KiB limit, a game without an empty line before the next,
/// a 2 KB tag line (over the 1 KiB a piece is first read with), results given only by the
/// marker, long comments.
pub fn varied_pgn(n: usize) -> String {
    let mut text = String::from("\u{feff}");
    for i in 0..n {
        text += &match i % 8 {
            0 => format!("[Event \"g{i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n"),
            1 => format!(
                "[Event \"g{i}\"]\r\n[Result \"*\"]\r\n\r\n1. d4 {{a\n\n[Event \"no\"]\n}} d5 *\r\n\r\n"
            ),
            2 => format!("[Event \"g{i}\"]\n[Result \"0-1\"]\n\n1. e5 0-1\n\n"),
            3 => format!(
                "[Event \"g{i}\"]\n[Big \"{}\"]\n\n1. c4 *\n\n",
                "x".repeat(70_000)
            ),
            4 => format!("[Event \"g{i}\"]\n1. Nf3 *\n[Event \"h{i}\"]\n\n1. g3 *\n\n"),
            5 if i % 3 == 0 => format!(
                "[Event \"g{i}\"]\n[Annotator \"{}\"]\n\n1. e4 *\n\n",
                "y".repeat(2_000)
            ),
            6 => format!(
                "[Event \"g{i}\"]\n[Result \"1/2-1/2\"]\n\n1. c4 {{ {} }} c5 2. Nc3 1/2-1/2\n\n",
                "long comment\n\n[Event \"x\"]\n".repeat(40)
            ),
            _ => format!("[Event \"g{i}\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 *\n\n"),
        };
    }
    text + "[Event \"cut\"]\n\n1. e4 e5 2."
}

/// PGN input: never panics, whatever the bytes; reading in 3-byte chunks gives the same games
/// (up to the first I/O error).
pub fn pgn(data: &[u8]) {
    use crate::PgnReader;
    // Games before the first I/O error (pgn-reader reports some malformed input as an I/O
    // error, and on garbage where it does so can depend on how the input arrives).
    let summary = |games: &mut dyn Iterator<Item = std::io::Result<crate::Game>>| {
        games
            .take(1000)
            .map_while(Result::ok)
            .map(|g| (g.offset, g.moves.len(), g.result))
            .collect::<Vec<_>>()
    };
    // The bytes as a Parquet table of games (feature `parquet`): its text read as PGN, never
    // a panic.
    #[cfg(feature = "parquet")]
    if let Ok(games) = crate::ParquetGames::from_bytes(data.to_vec()) {
        summary(&mut PgnReader::new(std::io::Read::take(games, 1 << 20)).games());
    }
    // Read with a ply limit, in pieces of any size: the same games (small pieces only for
    // small inputs: a fuzz run stays fast).
    let pieces: &[usize] = if data.len() < 4096 {
        &[1, 64, 1 << 19]
    } else {
        &[1 << 19]
    };
    same_games_with_ply_limit(data, &[0, 1, 3], pieces);
    #[cfg(feature = "parallel")]
    same_games_streamed(data, &[0, 3, usize::MAX], pieces);
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

/// Bytes in memory read with a ply limit ([`crate::PgnBytes::with_ply_limit`]) give the
/// games and the skipped games a whole reading gives, their moves cut at the limit, for
/// every limit in `limits` and every piece size in `pieces` (the input cut into pieces as
/// a parallel reading cuts it): what a game left early loses is only what is not read.
/// (A game over the `pgn_plies` limit is the one difference, and cannot be in `data`: a
/// whole reading skips it, a limited one reads its first moves.)
pub fn same_games_with_ply_limit(data: &[u8], limits: &[usize], pieces: &[usize]) {
    use crate::PgnBytes;
    // Every piece's games (their moves cut at `plies`), skipped games (by kind, and the
    // examples) and numbers used.
    let read = |bytes: &PgnBytes<'_>, plies: usize| {
        let mut all = Vec::new();
        for range in bytes.pieces() {
            let (games, skipped, used) = bytes.tokenise(range.clone());
            let games: Vec<_> = games
                .into_iter()
                .map(|g| {
                    let result = g.result();
                    let sans = g.sans[..g.sans.len().min(plies)].to_vec();
                    (g.index, g.offset, g.length, g.headers, sans, result)
                })
                .collect();
            let examples: Vec<_> = skipped
                .examples
                .iter()
                .map(|e| (e.index, e.offset, e.reason.to_string()))
                .collect();
            all.push((range, games, skipped.by_kind, examples, used));
        }
        all
    };
    for &piece in pieces {
        let bytes = PgnBytes::new(data).with_piece_size(piece);
        for &plies in limits {
            let whole = read(&bytes, plies);
            let limited = read(&bytes.with_ply_limit(plies), plies);
            assert!(
                limited == whole,
                "ply limit {plies}, pieces of {piece}: {:?}",
                String::from_utf8_lossy(data)
            );
        }
    }
}

/// A game as the property checks compare it: number, offset, length, headers, the moves
/// up to a limit, the result.
#[cfg(feature = "parallel")]
type Compared = (
    u64,
    u64,
    u64,
    Vec<(String, String)>,
    Vec<pgn_reader::SanPlus>,
    crate::GameResult,
);

/// A skipped games' tally as the property checks compare it: the counts by kind and the
/// examples' numbers, offsets and reasons.
#[cfg(feature = "parallel")]
type ComparedSkips = (
    std::collections::BTreeMap<&'static str, u64>,
    Vec<(u64, u64, String)>,
);

#[cfg(feature = "parallel")]
fn compared(g: &crate::RawGame, plies: usize) -> Compared {
    let sans = g.sans[..g.sans.len().min(plies)].to_vec();
    (
        g.index,
        g.offset,
        g.length,
        g.headers.clone(),
        sans,
        g.result(),
    )
}

#[cfg(feature = "parallel")]
fn compared_skips(s: &crate::SkipStats) -> ComparedSkips {
    let examples = s
        .examples
        .iter()
        .map(|e| (e.index, e.offset, e.reason.to_string()))
        .collect();
    (s.by_kind.clone(), examples)
}

/// What one [`crate::PgnReader`] reads of `source`, game by game on this thread: the
/// games (moves cut at `plies`), the skipped games, and whether reading ended with an error
/// (pgn-reader's own on some malformed text).
#[cfg(feature = "parallel")]
pub fn read_whole(
    source: impl std::io::Read,
    plies: usize,
) -> (Vec<Compared>, ComparedSkips, bool) {
    let mut reader = crate::PgnReader::new(source);
    let mut games = Vec::new();
    let failed = loop {
        match reader.next_raw() {
            Ok(Some(g)) => games.push(compared(&g, plies)),
            Ok(None) => break false,
            Err(_) => break true,
        }
    };
    (games, compared_skips(reader.skipped()), failed)
}

/// A stream replayed in windows ([`crate::replay_in_order`] of a [`crate::PgnReader`], on
/// the current rayon pool) gives the games and skipped games one reader gives reading it game
/// by game, for every ply limit in `limits` (their moves cut there) and every piece size in
/// `pieces` (windows of four pieces a thread; the text handed out 7 bytes at a time). Where
/// the whole reading ends with pgn-reader's error, the games before it are compared (the
/// windows read on past it, as bytes in memory do).
#[cfg(feature = "parallel")]
pub fn same_games_streamed(data: &[u8], limits: &[usize], pieces: &[usize]) {
    for &plies in limits {
        let (whole, whole_skipped, failed) = read_whole(data, plies);
        for &piece in pieces {
            let mut games = Vec::new();
            let input = crate::PgnInput::Reader(crate::PgnReader::new(Trickle::new(data, 7)))
                .with_piece_size(piece)
                .with_ply_limit(plies);
            let skipped = crate::replay_in_order(
                input,
                5,
                |g| compared(g, plies),
                |batch| {
                    games.extend(batch);
                    std::ops::ControlFlow::Continue(())
                },
                |_| {},
            );
            let what = || {
                let first = games.iter().zip(&whole).find(|(a, b)| a != b);
                format!(
                    "ply limit {plies}, pieces of {piece}, {} games of {}, first difference \
                     {first:?}: {:?}",
                    games.len(),
                    whole.len(),
                    String::from_utf8_lossy(&data[..data.len().min(1 << 12)])
                )
            };
            if failed {
                assert!(
                    games.len() >= whole.len() && games[..whole.len()] == whole[..],
                    "{}",
                    what()
                );
            } else {
                let skipped = skipped.expect("a stream in memory");
                assert!(games == whole, "{}", what());
                assert!(compared_skips(&skipped) == whole_skipped, "{}", what());
            }
        }
    }
}

/// One piece of `bytes` tokenised as a parallel reading tokenises it: its games, skipped
/// games and the game numbers used.
pub fn tokenise(
    bytes: &crate::PgnBytes<'_>,
    range: std::ops::Range<usize>,
) -> (Vec<crate::RawGame>, crate::SkipStats, u64) {
    bytes.tokenise(range)
}

/// The games the builder fuzz entry points replay: the first 200 of the bytes as PGN
/// (in memory, so reading cannot fail).
pub fn pgn_games(data: &[u8]) -> Vec<crate::RawGame> {
    crate::PgnReader::new(data)
        .next_batch(200)
        .expect("in-memory input")
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
