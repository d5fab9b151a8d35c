//! Writes self-play games with montyformat (the reference writer): `monty_generate OUT GAMES
//! [SEED]`. Random playouts from the standard start, 80–160 plies, a visit distribution on
//! every move and a score, as in Monty's data. The benchmark input of BENCHMARKS.md's
//! whole-command comparison (montyformat is a dev-dependency: AGPL, an oracle only).

use montyformat::{
    MontyFormat, SearchData,
    chess::{Castling, Move, Position},
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(out), Some(games)) = (
        args.get(1),
        args.get(2).and_then(|g| g.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: monty_generate OUT GAMES [SEED]");
        std::process::exit(2);
    };
    let mut x: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(7) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut castling = Castling::default();
    let start = Position::parse_fen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &mut castling,
    );
    let mut data = Vec::new();
    for _ in 0..games {
        let mut game = MontyFormat::new(start, castling);
        let mut pos = start;
        let plies = 80 + next() % 81;
        for _ in 0..plies {
            let mut legal: Vec<Move> = Vec::new();
            pos.map_legal_moves(&castling, |m| legal.push(m));
            if legal.is_empty() {
                break;
            }
            let mv = legal[(next() % legal.len() as u64) as usize];
            let dist = legal.iter().map(|&m| (m, (next() % 5000) as u32)).collect();
            game.push(SearchData::new(
                mv,
                (next() % 1001) as f32 / 1000.0,
                Some(dist),
            ));
            pos.make(mv, &castling);
        }
        game.result = (next() % 3) as f32 / 2.0;
        // It writes into an empty buffer only.
        let mut buf = Vec::new();
        game.serialise_into_buffer(&mut buf).expect("in memory");
        data.extend_from_slice(&buf);
    }
    std::fs::write(out, data).expect("write OUT");
}
