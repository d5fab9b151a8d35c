//! The peer of the main-line decode in BENCHMARKS.md: cbvault's walk
//! (`bridge::for_each_game`, MIT, a dev-dependency) over every game of a database, counting
//! games and plies, beside ours (`Database::main_line`). `cbvault_walk DB.cbh cbvault|ours`.

use cbvault::bridge::{self, GameRef, GameSink};

struct Count {
    games: u64,
    plies: u64,
}

impl GameSink for Count {
    fn game(&mut self, game: GameRef<'_>) {
        self.games += 1;
        self.plies += game.moves.len() as u64;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, which] = args.as_slice() else {
        eprintln!("usage: cbvault_walk DB.cbh cbvault|ours");
        std::process::exit(2);
    };
    let mut count = Count { games: 0, plies: 0 };
    if which == "cbvault" {
        let db = bridge::Database::open(db).expect("cbvault open");
        bridge::for_each_game(&db, &mut count).expect("cbvault walk");
    } else {
        let db = chessbase_db::Database::open(db).expect("open");
        for n in 1..=db.len() {
            if let Ok(line) = db.main_line(n) {
                count.games += 1;
                count.plies += line.moves.len() as u64;
            }
        }
    }
    eprintln!("{} games, {} plies", count.games, count.plies);
}
