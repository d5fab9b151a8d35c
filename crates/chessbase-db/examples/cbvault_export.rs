//! The peer of `chessfmt cbh export` in BENCHMARKS.md: cbvault's PGN export (MIT, a
//! dev-dependency) of a database to standard output. `cbvault_export DB.cbh [THREADS]`.

use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(db) = args.next() else {
        eprintln!("usage: cbvault_export DB.cbh [THREADS]");
        std::process::exit(2);
    };
    let threads = args.next().and_then(|t| t.parse().ok()).unwrap_or(1);
    let base = std::path::Path::new(&db).with_extension("");
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let stats =
        cbvault::pgn::export_parallel(&base, &mut out, threads, 2048, 100).expect("cbvault export");
    out.flush().expect("flush");
    eprintln!("{} games, {} failures", stats.games, stats.failures);
}
