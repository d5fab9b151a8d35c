//! Argument types shared by the verbs: value parsers that make clap refuse a bad value as a
//! usage error (exit 2, with the usage line) before any file is touched.

use clap::error::ErrorKind;

/// A percentage: a finite number from 0 to 100.
pub fn percent(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if v.is_finite() && (0.0..=100.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s} is not a percentage from 0 to 100"))
    }
}

/// A score from 0 to 1 (side to move's view).
pub fn unit_score(s: &str) -> Result<f32, String> {
    let v: f32 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s} is not a score from 0 to 1"))
    }
}

/// A count of at least 1.
pub fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{s:?} is not a whole number")),
    }
}

/// A range of 1-based record numbers: `A-B`, `A-`, `-B` or `A`, with `1 ≤ A ≤ B`. Checked
/// here for its form; the database's record count closes an open end later.
pub fn record_range(s: &str) -> Result<String, String> {
    let bad = || format!("{s:?} is not a range A-B, A-, -B or A of record numbers with 1 ≤ A ≤ B");
    let num = |t: &str| -> Result<Option<u32>, String> {
        let t = t.trim();
        if t.is_empty() {
            Ok(None)
        } else {
            t.parse().map(Some).map_err(|_| bad())
        }
    };
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => {
            let n = num(s)?.ok_or_else(bad)?;
            (Some(n), Some(n))
        }
    };
    match (a, b) {
        (Some(0), _) | (_, Some(0)) => Err(bad()),
        (Some(a), Some(b)) if a > b => Err(bad()),
        _ => Ok(s.to_string()),
    }
}

/// `--fen`: a FEN parsed into the position (clap's value parser, so a bad one is a usage
/// error): at least the four position fields (board, side to move, castling, en passant; the
/// move counters may be left out), naming a legal position. A FEN with fewer fields would
/// silently stand for another position (White to move, no castling), so it is refused.
pub fn fen(s: &str) -> Result<shakmaty::Chess, String> {
    let fields = s.split_whitespace().count();
    if fields < 4 {
        return Err(format!(
            "{s:?} has {fields} of the FEN fields; give at least board, side to move, castling \
             and en passant (e.g. \"… w KQkq -\")"
        ));
    }
    chessfmt_pgn::position_from_fen(s, false)
        .map(|(_, pos)| pos)
        .map_err(|e| format!("{s:?}: {e}"))
}

/// The most worker threads a verb starts: four per core. More cannot go faster (the work is
/// CPU-bound) and thousands of threads exhaust the machine.
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get()) * 4
}

/// The worker threads to start for `--threads N` (0 or absent = all cores): N capped at
/// [`max_threads`], with a note on standard error when it was capped.
pub fn threads(requested: Option<usize>) -> usize {
    let n = requested.unwrap_or(0);
    let max = max_threads();
    if n > max {
        errln!("chessfmt: note: --threads {n} capped at {max} (4 per core)");
        max
    } else {
        n
    }
}

/// The order of a probe's moves (`--sort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ProbeOrder {
    /// The most played first (CTG, Kvetka: games; Polyglot: weight); ties keep the book's order.
    #[default]
    Best,
    /// As stored in the book.
    Stored,
}

impl ProbeOrder {
    /// Sorts `rows` by `key`, largest first, unless the stored order was asked for (stable).
    pub fn apply<T, K: Ord>(self, rows: &mut [T], key: impl Fn(&T) -> K) {
        if self == ProbeOrder::Best {
            rows.sort_by_key(|r| std::cmp::Reverse(key(r)));
        }
    }
}

/// How a Polyglot book built from games or a table weighs its moves (`--policy`): the names
/// of `ctg to-polyglot --policy` that need no CTG annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WeightArg {
    /// 2·wins + draws of the mover, a game without result as a draw (`polyglot make-book`'s).
    #[default]
    Score,
    /// Games played.
    Games,
    /// Every move weight 1 (as --uniform).
    Uniform,
}

impl WeightArg {
    /// The library's policy; `uniform` (the `--uniform` flag) wins.
    pub fn policy(self, uniform: bool) -> chess_core::book::WeightPolicy {
        use chess_core::book::WeightPolicy;
        match self {
            _ if uniform => WeightPolicy::Uniform,
            WeightArg::Score => WeightPolicy::Score,
            WeightArg::Games => WeightPolicy::Games,
            WeightArg::Uniform => WeightPolicy::Uniform,
        }
    }
}

/// Ends the process as clap does for a usage error (message on stderr, exit 2): for a rule
/// between arguments that clap cannot express.
pub fn usage_error(message: impl std::fmt::Display) -> ! {
    clap::Error::raw(ErrorKind::ArgumentConflict, format!("{message}\n")).exit()
}

/// The output group of every verb that writes a file (or a set of files committed together):
/// `-o OUT`, `--force`, `--json`, flattened into the verb's arguments. A verb says what OUT is
/// with `#[command(mut_arg("output", …))]` (its value name, e.g. `OUT.ctg`, and help).
#[derive(Debug, clap::Args)]
pub struct WriteArgs {
    /// The file to write.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: std::path::PathBuf,
    /// Replace OUT (and the files written with it) if it exists; an input is never
    /// overwritten.
    #[arg(long)]
    pub force: bool,
    /// Print the summary as JSON on standard output (text summaries go to standard error).
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_parsers() {
        assert_eq!(percent("55.5"), Ok(55.5));
        for bad in ["101", "-1", "nan", "inf", "x"] {
            assert!(percent(bad).is_err(), "{bad}");
        }
        assert!(unit_score("2").is_err());
        assert_eq!(unit_score("0.25"), Ok(0.25));
        assert!(positive("0").is_err());
        assert_eq!(positive("3"), Ok(3));
        for good in ["1-5", "5-", "-5", "7", "3-3"] {
            assert!(record_range(good).is_ok(), "{good}");
        }
        for bad in ["5-2", "0-3", "a-b", "", "-0"] {
            assert!(record_range(bad).is_err(), "{bad}");
        }
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        assert!(fen(start).is_ok());
        assert!(fen(&format!("{start} 0 1")).is_ok());
        assert!(fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR").is_err());
        assert!(fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b").is_err());
        assert!(fen("8/8/8/8/8/8/8/8 w - -").is_err(), "no kings");
    }
}

/// `--compression`: a Parquet table's codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Codec {
    /// Snappy (the default, as Spark, DuckDB and pyarrow write).
    Snappy,
    /// Zstandard: about two thirds of Snappy's size, as fast to write.
    Zstd,
    /// None.
    None,
}

impl Codec {
    /// The codec for the family's Parquet writers.
    pub fn parquet(self) -> chessfmt_files::Compression {
        use chessfmt_files::Compression;
        match self {
            Codec::Snappy => Compression::Snappy,
            Codec::Zstd => Compression::Zstd,
            Codec::None => Compression::Uncompressed,
        }
    }
}
