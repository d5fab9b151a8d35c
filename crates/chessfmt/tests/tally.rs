//! `chessfmt tally`, `tally merge` and `polyglot from-tally`/`to-tally` (issue 32): a book
//! through the table is the book a build makes, byte for byte — the reference tool's books in
//! ../shared/corpus/polyglot/golden, read in place.

mod common;

use std::path::{Path, PathBuf};

use common::chessfmt;

fn corpus() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/polyglot");
    assert!(p.is_dir(), "../shared/corpus/polyglot is missing");
    p
}

fn run(args: &[&str]) -> String {
    let (code, out, err) = chessfmt(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The games of a PGN cut in two at a game boundary (about the middle).
fn halves(pgn: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let text = std::fs::read(pgn).unwrap();
    let mid = text[text.len() / 2..]
        .windows(8)
        .position(|w| w == b"\n[Event ")
        .unwrap()
        + text.len() / 2
        + 1;
    let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
    std::fs::write(&a, &text[..mid]).unwrap();
    std::fs::write(&b, &text[mid..]).unwrap();
    (a, b)
}

/// `ctg|kvetka from-tally` of several tables (`--help`: merged as they are read) write the
/// book of their merged table, byte for byte; no table may be the output.
#[test]
fn books_from_parts_are_the_books_of_their_merge() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/gnuchess-book_1.02-first10000.pgn");
    let (a, b) = halves(&pgn, dir.path());
    let p = |n: &str| dir.path().join(n);
    run(&["tally", s(&a), "-o", s(&p("a.parquet")), "--max-ply", "16"]);
    run(&[
        "tally",
        s(&b),
        "-o",
        s(&p("b.csv")),
        "--max-ply",
        "16",
        "--part",
        "1",
    ]);
    let (pa, pb) = (p("a.parquet"), p("b.csv"));
    let parts = [s(&pa), s(&pb)];
    run(&["tally", "merge", parts[0], parts[1], "-o", s(&p("m.csv"))]);
    for (verb, out, files) in [
        ("ctg", "ctg", &["{}.ctg", "{}.cto", "{}.ctb"][..]),
        ("kvetka", "kob", &["{}_0.kob", "{}.kin"][..]),
    ] {
        let (merged, from_parts) = (p(&format!("m.{out}")), p(&format!("p.{out}")));
        run(&[verb, "from-tally", s(&p("m.csv")), "-o", s(&merged)]);
        run(&[verb, "from-tally", parts[0], parts[1], "-o", s(&from_parts)]);
        for file in files {
            let (x, y) = (p(&file.replace("{}", "m")), p(&file.replace("{}", "p")));
            assert!(
                std::fs::read(&x).unwrap() == std::fs::read(&y).unwrap(),
                "{verb}: {} and {}",
                x.display(),
                y.display()
            );
        }
    }
    let (code, _, err) = chessfmt(&[
        "polyglot",
        "from-tally",
        parts[0],
        parts[1],
        "-o",
        parts[1],
        "--force",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("b.csv"), "{err}");
    assert!(std::fs::metadata(p("b.csv")).unwrap().len() > 1000);
}

/// The reference tool's books from the first 10,000 gnuchess games (no position reaches
/// 16,384 plays of a move), made through tables: one run, and two parts merged.
#[test]
fn books_through_the_table_are_the_reference_books() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let pgn = corpus.join("pgn/gnuchess-book_1.02-first10000.pgn");
    let (a, b) = halves(&pgn, dir.path());
    for ply in ["1024", "16"] {
        let whole = dir.path().join(format!("whole{ply}.csv"));
        run(&["tally", s(&pgn), "-o", s(&whole), "--max-ply", ply]);
        let (pa, pb) = (
            dir.path().join(format!("a{ply}.csv")),
            dir.path().join(format!("b{ply}.csv")),
        );
        run(&[
            "tally",
            s(&a),
            "-o",
            s(&pa),
            "--max-ply",
            ply,
            "--threads",
            "1",
        ]);
        run(&[
            "tally",
            s(&b),
            "-o",
            s(&pb),
            "--max-ply",
            ply,
            "--part",
            "1",
        ]);
        let merged = dir.path().join(format!("merged{ply}.csv"));
        // Parts in any order: the merge sorts.
        let json = run(&["tally", "merge", s(&pb), s(&pa), "-o", s(&merged), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["tables"], 2);
        assert!(v["rows_read"].as_u64().unwrap() > v["rows_written"].as_u64().unwrap());
        let variants: &[(&str, &[&str])] = if ply == "16" {
            &[
                ("first10000_ply16.bin", &[]),
                ("first10000_ply16_min1.bin", &["--min-game", "1"]),
                ("first10000_ply16_uniform.bin", &["--uniform"]),
                ("first10000_ply16_uniform.bin", &["--policy", "uniform"]),
                ("first10000_ply16_white.bin", &["--only-white"]),
                ("first10000_ply16_black.bin", &["--only-black"]),
            ]
        } else {
            &[
                ("first10000_default.bin", &[]),
                ("first10000_minscore60.bin", &["--min-score", "60"]),
            ]
        };
        for (golden, flags) in variants {
            let want = std::fs::read(corpus.join("golden").join(golden)).unwrap();
            // One table, the merged one, and the two parts merged as they are read.
            for tables in [vec![&whole], vec![&merged], vec![&pb, &pa]] {
                let book = dir.path().join("book.bin");
                let mut args = vec!["polyglot", "from-tally"];
                args.extend(tables.iter().map(|t| s(t)));
                args.extend_from_slice(&["-o", s(&book), "--force"]);
                args.extend_from_slice(flags);
                run(&args);
                assert!(
                    std::fs::read(&book).unwrap() == want,
                    "{golden} from {tables:?}"
                );
            }
        }
    }
}

/// `--policy games` weighs each kept move by its games, in a build from games and from their
/// table alike (the same book byte for byte); `--policy score` is the default; `--uniform`
/// with another policy is a usage error.
#[test]
fn weight_policies_from_games_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/gnuchess-book_1.02-first10000.pgn");
    let p = |n: &str| dir.path().join(n);
    run(&["tally", s(&pgn), "-o", s(&p("t.csv")), "--max-ply", "16"]);
    for policy in ["games", "score"] {
        let (a, b) = (
            p(&format!("build-{policy}.bin")),
            p(&format!("table-{policy}.bin")),
        );
        run(&[
            "polyglot",
            "build",
            s(&pgn),
            "-o",
            s(&a),
            "--max-ply",
            "16",
            "--policy",
            policy,
        ]);
        run(&[
            "polyglot",
            "from-tally",
            s(&p("t.csv")),
            "-o",
            s(&b),
            "--policy",
            policy,
        ]);
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{policy}"
        );
    }
    let golden = std::fs::read(corpus().join("golden/first10000_ply16.bin")).unwrap();
    assert!(std::fs::read(p("build-score.bin")).unwrap() == golden);
    // The start position's moves weigh their games (the table's rows of that position).
    let start = "463b96181691fc9c,";
    let text = std::fs::read_to_string(p("t.csv")).unwrap();
    let games: std::collections::HashMap<String, u64> = text
        .lines()
        .filter(|l| l.starts_with(start))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].to_string(), f[6].parse().unwrap())
        })
        .collect();
    let probe: serde_json::Value = serde_json::from_str(&run(&[
        "polyglot",
        "probe",
        s(&p("build-games.bin")),
        "--json",
    ]))
    .unwrap();
    let moves = probe.as_array().unwrap();
    assert!(moves.len() > 5, "{probe}");
    for m in moves {
        let uci = m["uci"].as_str().unwrap();
        assert_eq!(m["weight"].as_u64(), games.get(uci).copied(), "{uci}");
    }
    let (code, _, err) = chessfmt(&[
        "polyglot",
        "build",
        s(&pgn),
        "-o",
        s(&p("x.bin")),
        "--uniform",
        "--policy",
        "games",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(!p("x.bin").exists());
}

/// The table's sums are the games': counts, results, ratings and years of a small PGN.
#[test]
fn rows_hold_the_sums_of_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    std::fs::write(
        &pgn,
        "[Date \"2001.05.01\"]\n[WhiteElo \"2000\"]\n[BlackElo \"1800\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
         [Date \"1999.??.??\"]\n[WhiteElo \"2200\"]\n[Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n\n\
         [Result \"*\"]\n\n1. d4 *\n\n[Result \"1-0\"]\n\n1. e4 Ke7?? 1-0\n",
    )
    .unwrap();
    let csv = dir.path().join("t.csv");
    let (code, _, err) = chessfmt(&["tally", s(&pgn), "-o", s(&csv)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 skipped") || err.contains("skipped"),
        "{err}"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], chessfmt_tally::csv::HEADER);
    assert_eq!(lines.len(), 5, "{text}");
    let start = "463b96181691fc9c,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    assert!(
        lines.contains(&format!("{start},e2e4,1,1,0,2,4200,2,1800,1,1999,2001,0,,,,0").as_str()),
        "{text}"
    );
    assert!(
        lines.contains(&format!("{start},d2d4,0,0,0,1,0,0,0,0,0,0,{},,,,0", 2u64 << 16).as_str()),
        "{text}"
    );
    // Sorted by key, then EPD, then move.
    let mut sorted = lines[1..].to_vec();
    sorted.sort();
    assert_eq!(sorted, lines[1..]);
}

/// A Polyglot book through a table and back keeps every entry a walk from the start reaches,
/// with its weight, in its order.
#[test]
fn a_book_through_a_table_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let original = corpus().join("golden/first10000_ply16_min1.bin");
    let table = dir.path().join("t.csv");
    let json = run(&[
        "polyglot",
        "to-tally",
        s(&original),
        "-o",
        s(&table),
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let back = dir.path().join("back.bin");
    run(&[
        "polyglot",
        "from-tally",
        s(&table),
        "-o",
        s(&back),
        "--min-game",
        "1",
    ]);
    let entries = |p: &Path| -> Vec<[u8; 16]> {
        std::fs::read(p)
            .unwrap()
            .chunks_exact(16)
            .map(|c| c.try_into().unwrap())
            .collect()
    };
    let (orig, back) = (entries(&original), entries(&back));
    let lost = v["unreachable_entries"].as_u64().unwrap() + v["illegal_entries"].as_u64().unwrap();
    assert_eq!(back.len() as u64 + lost, orig.len() as u64, "{json}");
    // Entries after a move of weight 0 (dropped by the build) are out of reach.
    assert!(back.len() > orig.len() / 2, "{json}");
    // The same entries in the same order, less the unreachable ones.
    let mut it = orig.iter();
    for e in &back {
        assert!(it.any(|o| o == e), "an entry changed or moved");
    }
}

/// Bad tables are errors naming the file, the line and the byte offset; outputs are not
/// overwritten without --force.
#[test]
fn bad_tables_and_existing_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "key,epd\n").unwrap();
    let out = dir.path().join("o.bin");
    let (code, _, err) = chessfmt(&["polyglot", "from-tally", s(&bad), "-o", s(&out)]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.csv: line 1 (byte 0): expected the header line"),
        "{err}"
    );
    assert!(!out.exists());
    let header = chessfmt_tally::csv::HEADER;
    std::fs::write(
        &bad,
        format!("{header}\n463b96181691fc9c,x,e2e4,1,0,0,1,0,0,0,0,0,0,,,,,0\n"),
    )
    .unwrap();
    let t2 = dir.path().join("t2.csv");
    let (code, _, err) = chessfmt(&["tally", "merge", s(&bad), "-o", s(&t2)]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("line 2 (byte {}): column `epd`", header.len() + 1)),
        "{err}"
    );
    // Out of order.
    let row = |key: &str| {
        format!(
            "{key},rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -,e2e4,1,0,0,1,0,0,0,0,0,0,,,,,0\n"
        )
    };
    std::fs::write(
        &bad,
        format!(
            "{header}\n{}{}",
            row("463b96181691fc9d"),
            row("463b96181691fc9c")
        ),
    )
    .unwrap();
    let (code, _, err) = chessfmt(&["tally", "merge", s(&bad), "-o", s(&t2)]);
    assert_eq!(code, 1);
    assert!(err.contains("out of order"), "{err}");
    // Existing output.
    std::fs::write(&t2, "keep").unwrap();
    let pgn = corpus().join("pgn/lichess-2017-09-sample1000.pgn");
    let (code, _, err) = chessfmt(&["tally", s(&pgn), "-o", s(&t2)]);
    assert_eq!(code, 1);
    assert!(err.contains("exists (use --force"), "{err}");
    assert_eq!(std::fs::read_to_string(&t2).unwrap(), "keep");
    // Usage errors.
    assert_eq!(chessfmt(&["tally", s(&pgn)]).0, 2);
    assert_eq!(chessfmt(&["tally", "merge", "-o", s(&t2)]).0, 2);
}

/// A memory-limited tally writes runs and gives the same table.
#[test]
fn memory_limited_tally_is_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/lichess-2017-09-sample1000.pgn");
    let (t1, t2) = (dir.path().join("t1.csv"), dir.path().join("t2.csv"));
    run(&["tally", s(&pgn), "-o", s(&t1)]);
    let json = run(&[
        "tally",
        s(&pgn),
        "-o",
        s(&t2),
        "--memory-limit",
        "1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["runs"].as_u64().unwrap() >= 1, "{json}");
    assert!(std::fs::read(&t1).unwrap() == std::fs::read(&t2).unwrap());
    // No run is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 2);
}

/// The table as Parquet (a `.parquet` output): the same rows as the CSV form, parts merged in
/// either form and mixed, read by content whatever the name (standard input too), and the
/// reference book from it.
#[test]
fn parquet_tables_are_the_csv_tables() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let pgn = corpus.join("pgn/gnuchess-book_1.02-first10000.pgn");
    let (a, b) = halves(&pgn, dir.path());
    let p = |n: &str| dir.path().join(n);
    run(&["tally", s(&a), "-o", s(&p("a.parquet"))]);
    run(&["tally", s(&b), "-o", s(&p("b.pq")), "--part", "1"]);
    run(&["tally", s(&b), "-o", s(&p("b.csv")), "--part", "1"]);
    assert!(std::fs::read(p("a.parquet")).unwrap().starts_with(b"PAR1"));
    assert!(std::fs::read(p("b.pq")).unwrap().starts_with(b"PAR1"));
    // Merged from Parquet parts into Parquet, and from mixed parts into CSV.
    run(&[
        "tally",
        "merge",
        s(&p("a.parquet")),
        s(&p("b.pq")),
        "-o",
        s(&p("m.parquet")),
    ]);
    run(&[
        "tally",
        "merge",
        s(&p("a.parquet")),
        s(&p("b.csv")),
        "-o",
        s(&p("m.csv")),
    ]);
    run(&[
        "tally",
        "merge",
        s(&p("m.parquet")),
        "-o",
        s(&p("back.csv")),
    ]);
    assert!(std::fs::read(p("back.csv")).unwrap() == std::fs::read(p("m.csv")).unwrap());
    // One tally of all the games: the same sums (first_seen differs by part).
    run(&["tally", s(&pgn), "-o", s(&p("whole.parquet"))]);
    run(&["tally", s(&pgn), "-o", s(&p("whole.csv"))]);
    run(&[
        "tally",
        "merge",
        s(&p("whole.parquet")),
        "-o",
        s(&p("whole2.csv")),
    ]);
    assert!(std::fs::read(p("whole.csv")).unwrap() == std::fs::read(p("whole2.csv")).unwrap());
    // A Parquet table named .csv is still read as Parquet; the book is the reference's.
    std::fs::copy(p("m.parquet"), p("named.csv")).unwrap();
    let golden = std::fs::read(corpus.join("golden/first10000_default.bin")).unwrap();
    for table in [p("m.parquet"), p("named.csv")] {
        let book = p("book.bin");
        run(&[
            "polyglot",
            "from-tally",
            s(&table),
            "-o",
            s(&book),
            "--force",
        ]);
        assert!(std::fs::read(&book).unwrap() == golden);
    }
    // From standard input.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .args(["polyglot", "from-tally", "-", "-o", "-"])
        .stdin(std::fs::File::open(p("m.parquet")).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout == golden);
    // A book back to a table in both forms: the same rows, the same book again.
    for t in ["t.parquet", "t.csv"] {
        run(&["polyglot", "to-tally", s(&p("book.bin")), "-o", s(&p(t))]);
        run(&[
            "polyglot",
            "from-tally",
            s(&p(t)),
            "-o",
            s(&p(&format!("{t}.bin"))),
        ]);
    }
    run(&["tally", "merge", s(&p("t.parquet")), "-o", s(&p("t2.csv"))]);
    assert!(std::fs::read(p("t2.csv")).unwrap() == std::fs::read(p("t.csv")).unwrap());
    assert!(std::fs::read(p("t.parquet.bin")).unwrap() == std::fs::read(p("t.csv.bin")).unwrap());
    // A damaged Parquet table: exit 1, one line naming the file, nothing written.
    let mut bad = std::fs::read(p("m.parquet")).unwrap();
    let n = bad.len();
    bad.truncate(n - 100);
    bad.extend_from_slice(b"\x10\0\0\0PAR1");
    std::fs::write(p("bad.parquet"), &bad).unwrap();
    let (code, _, err) = chessfmt(&[
        "polyglot",
        "from-tally",
        s(&p("bad.parquet")),
        "-o",
        s(&p("x.bin")),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("bad.parquet") && err.contains("Parquet") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!p("x.bin").exists());
}

/// Days from 1970-01-01 to January 1st of `year`.
fn days_to_new_year(year: i64) -> i64 {
    (1970..year)
        .map(|y| {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                366
            } else {
                365
            }
        })
        .sum::<i64>()
        - (year..1970)
            .map(|y| {
                if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                    366
                } else {
                    365
                }
            })
            .sum::<i64>()
}

/// Games in lichess's Parquet layout (a `movetext` column, tags as columns, `UTCDate` a
/// date, `UTCTime` a time, ratings 64-bit, rating differences floats) are read as PGN by
/// every builder: the same book and the same table as from the PGN they came from. And a
/// ChessBase database exported as a Parquet table of games (`cbh export --format parquet`)
/// makes the same book as its PGN export.
#[test]
fn games_from_parquet_tables() {
    use chessfmt_files::parquet::{Column, ParquetFile, Text, Values};
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let pgn = corpus.join("pgn/gnuchess-book_1.02-first10000.pgn");
    // (Names in Latin-1 become U+FFFD: no book or table uses them.)
    let text = String::from_utf8_lossy(&std::fs::read(&pgn).unwrap()).into_owned();
    // The games as lichess lays them out (the Date's year as the UTCDate's New Year).
    let schema = "message lichess {
        optional binary Event (UTF8);
        optional binary Site (UTF8);
        optional binary White (UTF8);
        optional binary Black (UTF8);
        optional binary Result (UTF8);
        optional int32 UTCDate (DATE);
        optional int64 UTCTime (TIME(MICROS,true));
        optional int64 WhiteElo;
        optional float WhiteRatingDiff;
        optional binary ECO (UTF8);
        optional binary movetext (UTF8);
    }";
    let mut texts: Vec<(Text, Vec<i16>)> = vec![Default::default(); 6];
    let (mut dates, mut times, mut elos, mut diffs) = (
        (Vec::new(), Vec::new()),
        (Vec::new(), Vec::new()),
        (Vec::new(), Vec::new()),
        (Vec::new(), Vec::new()),
    );
    let mut movetexts = Text::default();
    let mut games = 0;
    for game in text.split("\n\n[").filter(|g| !g.trim().is_empty()) {
        let game = game.trim_start_matches('[');
        let (head, moves) = game.split_once("\n\n").unwrap();
        let tag = |name: &str| {
            head.lines()
                .find_map(|l| {
                    l.trim_start_matches('[')
                        .strip_prefix(&format!("{name} \""))
                })
                .map(|v| v.trim_end_matches("\"]").to_string())
        };
        for (i, name) in ["Event", "Site", "White", "Black", "Result", "ECO"]
            .iter()
            .enumerate()
        {
            match tag(name) {
                Some(v) => {
                    texts[i].0.push(&v);
                    texts[i].1.push(1);
                }
                None => texts[i].1.push(0),
            }
        }
        match tag("Date").and_then(|d| d.get(..4)?.parse::<i64>().ok()) {
            Some(y) => {
                dates.0.push(days_to_new_year(y) as i32);
                dates.1.push(1);
            }
            None => dates.1.push(0),
        }
        times.0.push(43_200_000_000i64);
        times.1.push(1);
        elos.1.push(0);
        diffs.0.push(-3.0f32);
        diffs.1.push(1);
        movetexts.push(&moves.split_whitespace().collect::<Vec<_>>().join(" "));
        games += 1;
    }
    assert_eq!(games, 10_000);
    let mut texts = texts.into_iter();
    let mut next = || {
        let (t, l) = texts.next().unwrap();
        Column::optional(Values::Text(t), l)
    };
    let mut columns = vec![next(), next(), next(), next(), next()];
    columns.push(Column::optional(Values::Int32(dates.0), dates.1));
    columns.push(Column::optional(Values::Int64(times.0), times.1));
    columns.push(Column::optional(Values::Int64(elos.0), elos.1));
    columns.push(Column::optional(Values::Float(diffs.0), diffs.1));
    columns.push(next());
    columns.push(Column::optional(Values::Text(movetexts), vec![1; games]));
    let lichess = dir.path().join("lichess.parquet");
    let mut file = ParquetFile::new(std::fs::File::create(&lichess).unwrap(), schema, &[]).unwrap();
    file.write_row_group(columns).unwrap();
    file.finish().unwrap();
    let p = |n: &str| dir.path().join(n);
    for (input, book, table) in [(&pgn, "a.bin", "a.csv"), (&lichess, "b.bin", "b.csv")] {
        run(&["polyglot", "build", s(input), "-o", s(&p(book))]);
        run(&["tally", s(input), "-o", s(&p(table))]);
    }
    assert!(std::fs::read(p("a.bin")).unwrap() == std::fs::read(p("b.bin")).unwrap());
    assert!(std::fs::read(p("a.csv")).unwrap() == std::fs::read(p("b.csv")).unwrap());
    // From standard input too (read whole: a Parquet file needs random access).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessfmt"))
        .args(["polyglot", "build", "-", "-o", "-"])
        .stdin(std::fs::File::open(&lichess).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout == std::fs::read(p("a.bin")).unwrap());
    // A Parquet file without a movetext column (a statistics table) is an error saying so.
    run(&["tally", s(&pgn), "-o", s(&p("t.parquet")), "--max-ply", "2"]);
    let (code, _, err) = chessfmt(&[
        "polyglot",
        "build",
        s(&p("t.parquet")),
        "-o",
        s(&p("x.bin")),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("is not PGN games (it looks like a chessfmt statistics table)")
            && err.contains("t.parquet"),
        "{err}"
    );
    // `info` tells the two kinds of Parquet file apart: games (read as PGN) and the table.
    for (file, format) in [(&lichess, "pgn"), (&p("t.parquet"), "table")] {
        let v: serde_json::Value =
            serde_json::from_str(&run(&["info", s(file), "--json"])).unwrap();
        assert_eq!(v["format"], format, "{v}");
    }
    // One without either's columns is an error naming what games need.
    let mut other = ParquetFile::new(
        std::fs::File::create(p("other.parquet")).unwrap(),
        "message m { required int64 n; }",
        &[],
    )
    .unwrap();
    other
        .write_row_group(vec![Column::required(Values::Int64(vec![1, 2]))])
        .unwrap();
    other.finish().unwrap();
    let (code, _, err) = chessfmt(&[
        "polyglot",
        "build",
        s(&p("other.parquet")),
        "-o",
        s(&p("x.bin")),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("movetext") && err.contains("other.parquet"),
        "{err}"
    );

    // A ChessBase database as a table of games: the same book as from its PGN export.
    let twic = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/chessbase/uncbv-tests/twic1134/twic1134.cbh");
    run(&["cbh", "export", s(&twic), "-o", s(&p("twic.pgn"))]);
    run(&["cbh", "export", s(&twic), "-o", s(&p("twic.parquet"))]);
    run(&[
        "cbh",
        "export",
        s(&twic),
        "-o",
        s(&p("twic.table")),
        "--format",
        "parquet",
    ]);
    assert!(std::fs::read(p("twic.table")).unwrap() == std::fs::read(p("twic.parquet")).unwrap());
    run(&[
        "polyglot",
        "build",
        s(&p("twic.pgn")),
        "-o",
        s(&p("t1.bin")),
    ]);
    run(&[
        "polyglot",
        "build",
        s(&p("twic.parquet")),
        "-o",
        s(&p("t2.bin")),
    ]);
    assert!(std::fs::read(p("t1.bin")).unwrap() == std::fs::read(p("t2.bin")).unwrap());
    // The table zstd-compressed: smaller, the same games.
    run(&[
        "cbh",
        "export",
        s(&twic),
        "-o",
        s(&p("twic-zstd.parquet")),
        "--compression",
        "zstd",
    ]);
    let size = |f: &str| std::fs::metadata(p(f)).unwrap().len();
    assert!(size("twic-zstd.parquet") < size("twic.parquet"));
    run(&[
        "polyglot",
        "build",
        s(&p("twic-zstd.parquet")),
        "-o",
        s(&p("t3.bin")),
    ]);
    assert!(std::fs::read(p("t1.bin")).unwrap() == std::fs::read(p("t3.bin")).unwrap());
    // A PGN export has no compression: a usage error.
    let (code, _, err) = chessfmt(&[
        "cbh",
        "export",
        s(&twic),
        "-o",
        s(&p("x.pgn")),
        "--compression",
        "zstd",
    ]);
    assert_eq!(code, 2, "{err}");
    run(&["tally", s(&p("twic.pgn")), "-o", s(&p("t1.csv"))]);
    run(&["tally", s(&p("twic.parquet")), "-o", s(&p("t2.csv"))]);
    assert!(std::fs::read(p("t1.csv")).unwrap() == std::fs::read(p("t2.csv")).unwrap());
}

/// The Python interpreter with the test packages (`cargo xtask test` makes it and sets
/// `CHESSFMT_PYTHON`), or `None` outside CI (said). Under CI its absence fails.
fn python() -> Option<PathBuf> {
    match std::env::var_os("CHESSFMT_PYTHON") {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CHESSFMT_PYTHON is not set under CI (cargo xtask test sets it)"
            );
            eprintln!("skipping: CHESSFMT_PYTHON not set (cargo xtask test sets it)");
            None
        }
    }
}

/// The embedded SQL path: parts reduced by DuckDB (examples/duckdb/reduce.py, `GROUP BY`)
/// are byte for byte `tally merge`'s table, and `polyglot from-tally` makes the reference
/// book from it.
#[test]
fn duckdb_reduces_parts_as_tally_merge_does() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let (a, b) = halves(
        &corpus.join("pgn/gnuchess-book_1.02-first10000.pgn"),
        dir.path(),
    );
    let (pa, pb) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    run(&["tally", s(&a), "-o", s(&pa)]);
    run(&["tally", s(&b), "-o", s(&pb), "--part", "1"]);
    let (sql, merged) = (dir.path().join("sql.csv"), dir.path().join("merged.csv"));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/duckdb/reduce.py");
    let out = std::process::Command::new(&python)
        .arg(&script)
        .args([&sql, &pb, &pa])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    run(&["tally", "merge", s(&pa), s(&pb), "-o", s(&merged)]);
    assert!(std::fs::read(&sql).unwrap() == std::fs::read(&merged).unwrap());
    let book = dir.path().join("book.bin");
    run(&["polyglot", "from-tally", s(&sql), "-o", s(&book)]);
    assert!(
        std::fs::read(&book).unwrap()
            == std::fs::read(corpus.join("golden/first10000_default.bin")).unwrap()
    );
    // The same with Parquet parts (one of them zstd: DuckDB reads our zstd pages) and a
    // Parquet result: DuckDB's table is read back as `tally merge`'s rows.
    let (qa, qb, qsql) = (
        dir.path().join("a.parquet"),
        dir.path().join("b.parquet"),
        dir.path().join("sql.parquet"),
    );
    run(&["tally", s(&a), "-o", s(&qa), "--compression", "zstd"]);
    run(&["tally", s(&b), "-o", s(&qb), "--part", "1"]);
    let out = std::process::Command::new(&python)
        .arg(&script)
        .args([&qsql, &qb, &qa])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = dir.path().join("sql-back.csv");
    run(&["tally", "merge", s(&qsql), "-o", s(&back)]);
    assert!(std::fs::read(&back).unwrap() == std::fs::read(&merged).unwrap());
}

/// Scale-out on Spark (examples/spark/tally_job.py in local mode, two cores): the map per PGN
/// file through the CLI, the reduce as `groupBy().agg(sum)`, the sorted parts merged; the
/// table is `tally merge`'s, and the book the reference tool's and `polyglot build`'s. Runs
/// where `cargo xtask test` found Java and installed pyspark (`CHESSFMT_SPARK`).
#[test]
fn spark_job_makes_the_reference_book() {
    let Some(python) = python() else { return };
    if std::env::var_os("CHESSFMT_SPARK").is_none() {
        eprintln!("skipping: no Spark (cargo xtask test installs pyspark where Java runs)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let pgn = corpus.join("pgn/gnuchess-book_1.02-first10000.pgn");
    let (a, b) = halves(&pgn, dir.path());
    let table = dir.path().join("spark.csv");
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/spark/tally_job.py");
    let out = std::process::Command::new(&python)
        .arg(&script)
        .args([
            "--master",
            "local[2]",
            "--partitions",
            "4",
            "--chessfmt",
            env!("CARGO_BIN_EXE_chessfmt"),
        ])
        .arg("--out")
        .args([&table, &a, &b])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (whole, book, built) = (
        dir.path().join("whole.csv"),
        dir.path().join("s.bin"),
        dir.path().join("b.bin"),
    );
    run(&["tally", s(&pgn), "-o", s(&whole)]);
    // The same sums as one tally over the games; only the parts' first_seen differ.
    let sums = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| {
                // Every column but first_seen (the 14th).
                let mut f: Vec<&str> = l.split(',').collect();
                f.remove(13);
                f.join(",")
            })
            .collect()
    };
    assert!(sums(&table) == sums(&whole));
    run(&["polyglot", "from-tally", s(&table), "-o", s(&book)]);
    run(&["polyglot", "build", s(&pgn), "-o", s(&built)]);
    let golden = std::fs::read(corpus.join("golden/first10000_default.bin")).unwrap();
    assert!(std::fs::read(&book).unwrap() == golden);
    assert!(std::fs::read(&built).unwrap() == golden);
}

/// A CTG book through the table (`ctg from-tally`) is `ctg build`'s but for positions
/// repeated within a game (a table counts plays, a build each game once per position): the
/// same positions, the start's statistics and moves the same, all but a few records equal.
#[test]
fn ctg_books_through_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/gnuchess-book_1.02-first10000.pgn");
    let table = dir.path().join("t.csv");
    run(&["tally", s(&pgn), "-o", s(&table), "--max-ply", "16"]);
    let (via, built) = (dir.path().join("via.ctg"), dir.path().join("built.ctg"));
    run(&["ctg", "from-tally", s(&table), "-o", s(&via)]);
    run(&["ctg", "build", s(&pgn), "-o", s(&built), "--max-ply", "16"]);
    let dump = |p: &Path| -> Vec<String> {
        run(&["ctg", "dump", s(p)])
            .lines()
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (dump(&via), dump(&built));
    assert_eq!(a.len(), b.len());
    assert!(a.len() > 40_000);
    let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!(
        differ * 1000 < a.len(),
        "{differ} of {} records differ",
        a.len()
    );
    let probe = |p: &Path| run(&["ctg", "probe", s(p)]);
    assert_eq!(probe(&via), probe(&built));
    // And back: the CTG book as a table, each move with its position's statistics, marked
    // as a book's; a book made from it is the same book, file for file, whether made by
    // `from-tally` or `convert`, and the table says where it came from.
    let back = dir.path().join("back.csv");
    let json = run(&["ctg", "to-tally", s(&built), "-o", s(&back), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["moves_without_statistics"], 0, "{json}");
    assert_eq!(v["start_not_kept"], false, "{json}");
    assert_eq!(v["records_changed"], 0, "{json}");
    assert_eq!(v["unreached_records"], 0, "{json}");
    let again = dir.path().join("again.ctg");
    run(&["ctg", "from-tally", s(&back), "-o", s(&again)]);
    let converted = dir.path().join("converted.ctg");
    let (code, stdout, err) = chessfmt(&["convert", s(&built), s(&converted), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    let c: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(c["not_converted"]["start_not_kept"], false, "{stdout}");
    for book in [&again, &converted] {
        for ext in ["ctg", "cto", "ctb"] {
            assert!(
                std::fs::read(book.with_extension(ext)).unwrap()
                    == std::fs::read(built.with_extension(ext)).unwrap(),
                "{}: .{ext} differs",
                book.display()
            );
        }
    }
    // To Kvetka, what it cannot count is reported: the games without result (a CTG book
    // counts them); to Polyglot, whose weights count them, nothing of the sort.
    for (out, unknown) in [("to.kob", true), ("to.bin", false)] {
        let (code, stdout, err) =
            chessfmt(&["convert", s(&built), s(&dir.path().join(out)), "--json"]);
        assert_eq!(code, 0, "{err}");
        let c: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let dropped = c["not_converted"]["games_without_result_dropped"].as_u64();
        assert_eq!(dropped.is_some_and(|n| n > 0), unknown, "{stdout}");
        assert_eq!(
            err.contains("the games without result of"),
            unknown,
            "{err}"
        );
        assert_eq!(c["not_converted"]["ratings_dropped"], 0, "{stdout}");
    }
    let text = std::fs::read_to_string(&back).unwrap();
    let start = "463b96181691fc9c,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    assert!(
        text.lines().any(
            |l| l.starts_with(&format!("{start},e2e4,1637,1400,1173,4238,")) && l.ends_with(",1")
        ),
        "{}",
        &text[..500]
    );
}

/// A Kvetka book through the table (`kvetka from-tally`) is `kvetka build`'s but for
/// repeated positions and the order of moves first played in colour-twin positions: the same
/// elements, the start's the same, all but a few equal; and
/// a Kvetka book walked back into a table keeps each move's statistics.
#[test]
fn kvetka_books_through_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/gnuchess-book_1.02-first10000.pgn");
    let table = dir.path().join("t.csv");
    run(&["tally", s(&pgn), "-o", s(&table), "--max-ply", "16"]);
    let (via, built) = (dir.path().join("via.kob"), dir.path().join("built.kob"));
    let (code, _, err) = chessfmt(&["kvetka", "from-tally", s(&table), "-o", s(&via)]);
    assert_eq!(code, 0, "{err}");
    // Kvetka adds only games with a result: their moves are reported.
    assert!(
        err.contains("played only in games without a result"),
        "{err}"
    );
    run(&[
        "kvetka",
        "build",
        s(&pgn),
        "-o",
        s(&built),
        "--max-ply",
        "16",
    ]);
    let dump = |p: &Path| -> Vec<String> {
        run(&["kvetka", "dump", s(p)])
            .lines()
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (dump(&via), dump(&built));
    assert_eq!(a.len(), b.len());
    assert!(a.len() > 40_000);
    let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!(
        differ * 1000 < a.len(),
        "{differ} of {} elements differ",
        a.len()
    );
    let probe = |p: &Path| run(&["kvetka", "probe", s(p)]);
    assert_eq!(probe(&via), probe(&built));
    let back = dir.path().join("back.csv");
    let json = run(&["kvetka", "to-tally", s(&built), "-o", s(&back), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["start_not_kept"], false, "{json}");
    assert_eq!(v["unreached_elements"], 0, "{json}");
    let text = std::fs::read_to_string(&back).unwrap();
    let start = "463b96181691fc9c,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    assert!(text.lines().any(
        |l| l.starts_with(&format!("{start},e2e4,1637,1400,1173,4210,")) && l.ends_with(",1")
    ));
    // A book made back from the table, by `from-tally` or `convert`, has the same elements:
    // results and moves in their order (positions reached by several moves included).
    let again = dir.path().join("again.kob");
    run(&["kvetka", "from-tally", s(&back), "-o", s(&again)]);
    let converted = dir.path().join("converted.kob");
    let (code, _, err) = chessfmt(&["convert", s(&built), s(&converted)]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(dump(&again) == b, "from-tally changed elements");
    assert!(dump(&converted) == b, "convert changed elements");
    // The table has no place for the header's ply limit (said); `convert` carries it over:
    // the same files, byte for byte.
    assert_eq!(v["header_not_kept"], true, "{json}");
    for (a, b) in [
        ("converted_0.kob", "built_0.kob"),
        ("converted.kin", "built.kin"),
    ] {
        assert!(
            std::fs::read(dir.path().join(a)).unwrap()
                == std::fs::read(dir.path().join(b)).unwrap(),
            "{a} differs from {b}"
        );
    }
}

/// `convert` chooses formats by extension and goes through the table: a Polyglot book's
/// weights arrive in CTG and Kvetka as drawn games and come back as the same weights;
/// what cannot pass is reported; unknown extensions are usage errors.
#[test]
fn convert_between_every_book_format() {
    let dir = tempfile::tempdir().unwrap();
    let small = common::testdata_path("polyglot/small.bin");
    let p = |n: &str| dir.path().join(n);
    let (code, _, err) = chessfmt(&["convert", s(&small), s(&p("a.ctg"))]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no walk from the start reaches"), "{err}");
    run(&["convert", s(&small), s(&p("a.kob"))]);
    let ctg_probe = run(&["ctg", "probe", s(&p("a.ctg")), "--json"]);
    let kvetka_probe = run(&["kvetka", "probe", s(&p("a.kob")), "--json"]);
    let polyglot_probe = run(&["polyglot", "probe", s(&small), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&polyglot_probe).unwrap();
    let e4_weight = v
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "e2e4")
        .unwrap()["weight"]
        .as_u64()
        .unwrap();
    for probe in [&ctg_probe, &kvetka_probe] {
        assert!(probe.contains("\"e2e4\""), "{probe}");
        assert!(probe.contains(&format!("{e4_weight}")), "{probe}");
    }
    // Back to Polyglot: the start position's moves and weights.
    for book in ["a.ctg", "a.kob"] {
        let back = p(&format!("{book}.bin"));
        run(&["convert", s(&p(book)), s(&back)]);
        let w: serde_json::Value =
            serde_json::from_str(&run(&["polyglot", "probe", s(&back), "--json"])).unwrap();
        let e4 = w
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["uci"] == "e2e4")
            .unwrap();
        assert_eq!(e4["weight"].as_u64(), Some(e4_weight), "{book}");
    }
    // The table itself.
    run(&["convert", s(&small), s(&p("t.csv"))]);
    run(&["polyglot", "to-tally", s(&small), "-o", s(&p("t2.csv"))]);
    assert!(std::fs::read(p("t.csv")).unwrap() == std::fs::read(p("t2.csv")).unwrap());
    assert_eq!(chessfmt(&["convert", s(&small), s(&p("x.epd"))]).0, 2);
    assert_eq!(chessfmt(&["convert", s(&p("t.csv")), s(&p("y.txt"))]).0, 2);
    // Never over an existing output without --force.
    let (code, _, err) = chessfmt(&["convert", s(&small), s(&p("t.csv"))]);
    assert_eq!(code, 1);
    assert!(err.contains("exists"), "{err}");
}

/// `convert` takes the table on either side, CSV or Parquet: a table's rows go to a book as
/// the book's own rows do (the same files byte for byte), to a table of the other form
/// unchanged, and never over the table read.
#[test]
fn convert_tables_on_either_side() {
    let dir = tempfile::tempdir().unwrap();
    let small = common::testdata_path("polyglot/small.bin");
    let p = |n: &str| dir.path().join(n);
    run(&["polyglot", "to-tally", s(&small), "-o", s(&p("ref.csv"))]);
    run(&["convert", s(&small), s(&p("t.parquet"))]);
    let out = run(&["convert", s(&p("t.parquet")), s(&p("t.csv")), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = std::fs::read_to_string(p("ref.csv"))
        .unwrap()
        .lines()
        .count() as u64
        - 1;
    assert_eq!(v["rows"].as_u64(), Some(rows), "{out}");
    assert_eq!(v["written"].as_u64(), Some(rows), "{out}");
    assert!(std::fs::read(p("t.csv")).unwrap() == std::fs::read(p("ref.csv")).unwrap());
    // A book from the table is the book from the book's own rows, in every format.
    for (ext, members) in [
        ("bin", &["bin"][..]),
        ("ctg", &["ctg", "cto", "ctb"][..]),
        ("kob", &["kin"][..]),
    ] {
        run(&["convert", s(&small), s(&p(&format!("direct.{ext}")))]);
        for table in ["t.csv", "t.parquet"] {
            let stem = format!("from-{}", table.replace('.', "-"));
            run(&["convert", s(&p(table)), s(&p(&format!("{stem}.{ext}")))]);
            for m in members {
                let a = std::fs::read(p(&format!("direct.{m}"))).unwrap();
                let b = std::fs::read(p(&format!("{stem}.{m}"))).unwrap();
                assert!(a == b, "{table} -> .{m}");
            }
        }
    }
    // To PGN: the tree `tally to-pgn` writes of the same rows, what lies outside it counted.
    let v: serde_json::Value = serde_json::from_str(&run(&[
        "tally",
        "to-pgn",
        s(&p("ref.csv")),
        "-o",
        s(&p("ref.pgn")),
        "--json",
    ]))
    .unwrap();
    let outside = v["kept"].as_u64().unwrap() - v["in_tree"].as_u64().unwrap();
    for input in [&small, &p("t.parquet")] {
        let tree = p("tree.pgn");
        let _ = std::fs::remove_file(&tree);
        let (code, out, err) = chessfmt(&["convert", s(input), s(&tree), "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            err.contains("moves lie past the tree's 12 plies"),
            outside > 0,
            "{err}"
        );
        let c: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            c["not_converted"]["rows_outside_the_tree"].as_u64(),
            Some(outside)
        );
        assert_eq!(c["written"], v["moves"], "{c}");
        assert!(std::fs::read(&tree).unwrap() == std::fs::read(p("ref.pgn")).unwrap());
    }
    // --policy weighs a Polyglot output as `polyglot from-tally --policy` does; elsewhere it
    // is a usage error.
    for policy in ["games", "uniform"] {
        let a = p(&format!("convert-{policy}.bin"));
        let b = p(&format!("from-tally-{policy}.bin"));
        run(&["convert", s(&p("t.parquet")), s(&a), "--policy", policy]);
        run(&[
            "polyglot",
            "from-tally",
            s(&p("t.parquet")),
            "-o",
            s(&b),
            "--min-game",
            "1",
            "--policy",
            policy,
        ]);
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{policy}"
        );
    }
    // (A Polyglot book's table has each weight as drawn games: games weigh as the score.)
    let direct = std::fs::read(p("direct.bin")).unwrap();
    assert!(std::fs::read(p("convert-games.bin")).unwrap() == direct);
    assert!(std::fs::read(p("convert-uniform.bin")).unwrap() != direct);
    let (code, _, err) = chessfmt(&["convert", s(&small), s(&p("p.ctg")), "--policy", "games"]);
    assert_eq!(code, 2, "{err}");
    assert!(!p("p.ctg").exists());
    // PGN is written, not read.
    assert_eq!(
        chessfmt(&["convert", s(&p("ref.pgn")), s(&p("x.bin"))]).0,
        2
    );
    let direct = std::fs::read(p("direct_0.kob")).unwrap();
    assert!(direct == std::fs::read(p("from-t-csv_0.kob")).unwrap());
    // Never over the table read, nor over an existing output without --force.
    let (code, _, err) = chessfmt(&["convert", s(&p("t.csv")), s(&p("t.csv")), "--force"]);
    assert_eq!(code, 1);
    assert!(err.contains("input"), "{err}");
    let (code, _, err) = chessfmt(&["convert", s(&p("t.parquet")), s(&p("t.csv"))]);
    assert_eq!(code, 1);
    assert!(err.contains("exists"), "{err}");
    // A damaged table is an error naming it, not a book of its first rows.
    std::fs::write(p("bad.csv"), b"key,epd\nnot a table\n").unwrap();
    let (code, _, err) = chessfmt(&["convert", s(&p("bad.csv")), s(&p("bad.bin"))]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad.csv"), "{err}");
    assert!(!p("bad.bin").exists());
}

/// `tally to-pgn`: the tree of the first 10,000 gnuchess games as one PGN game — the most
/// played first move (1. e4) is the main line, the others variations, each move with its
/// games and results; moves below `--min-games` are left out; the game reads back (imported
/// into a ChessBase database with its variations and exported, the same moves and variations).
#[test]
fn a_table_as_a_pgn_tree() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/gnuchess-book_1.02-first10000.pgn");
    let table = dir.path().join("t.csv");
    run(&["tally", s(&pgn), "-o", s(&table), "--max-ply", "8"]);
    let tree = dir.path().join("tree.pgn");
    let json = run(&[
        "tally",
        "to-pgn",
        s(&table),
        "-o",
        s(&tree),
        "--max-ply",
        "5",
        "--min-games",
        "40",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let moves = v["moves"].as_u64().unwrap();
    assert!(moves > 50, "{v}");
    // Each row in the tree once, however many move orders reach it; the 8-ply table's rows
    // past ply 5 are not.
    let (kept, in_tree) = (v["kept"].as_u64().unwrap(), v["in_tree"].as_u64().unwrap());
    assert!(0 < in_tree && in_tree <= moves && in_tree < kept, "{v}");
    let text = std::fs::read_to_string(&tree).unwrap();
    assert!(text.starts_with("[Event \"Opening tree (chessfmt tally to-pgn)\"]\n"));
    let body = text.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert!(body.starts_with("1. e4 {"), "{body}");
    assert!(body.contains("(1. d4 {"), "{body}");
    assert!(text.ends_with(" *\n\n"));
    // Every written move has its comment; counts below 40 games are left out.
    assert_eq!(body.matches(" games, +").count() as u64, moves);
    for c in body.split('{').skip(1) {
        let games: u64 = c.split(' ').next().unwrap().parse().unwrap();
        assert!(games >= 40, "{c}");
    }
    // Read back by the ChessBase import (variations kept) and exported: the same variations.
    let cbh = dir.path().join("tree.cbh");
    run(&["cbh", "import", s(&tree), "-o", s(&cbh)]);
    let back = dir.path().join("back.pgn");
    run(&["cbh", "export", s(&cbh), "-o", s(&back)]);
    let back = std::fs::read_to_string(&back).unwrap();
    let back = back.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert_eq!(back.matches('(').count(), body.matches('(').count());
    assert_eq!(back.matches(" games, +").count() as u64, moves);
    // An existing output is refused without --force.
    let (code, _, err) = chessfmt(&["tally", "to-pgn", s(&table), "-o", s(&tree)]);
    assert_eq!(code, 1, "{err}");
    // `-o -`: the same text on standard output; --json with it is a usage error.
    let (code, out, err) = chessfmt(&[
        "tally",
        "to-pgn",
        s(&table),
        "-o",
        "-",
        "--max-ply",
        "5",
        "--min-games",
        "40",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, text);
    let (code, _, err) = chessfmt(&["tally", "to-pgn", s(&table), "-o", "-", "--json"]);
    assert_eq!(code, 2, "{err}");
}

/// `kvetka|ctg from-tally --memory-limit` keep the book: runs spilled past the limit and
/// merged give the same files as a book made with room to spare (`--help`'s promise).
#[test]
fn from_tally_under_a_memory_limit_is_the_same_book() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/lichess-2017-09-sample1000.pgn");
    let table = dir.path().join("t.parquet");
    run(&["tally", s(&pgn), "-o", s(&table)]);
    for (format, book, files_made) in [
        ("kvetka", "book.kob", &["book.kin", "book_0.kob"][..]),
        ("ctg", "book.ctg", &["book.ctb", "book.ctg", "book.cto"][..]),
    ] {
        let mut books = Vec::new();
        for limit in ["1024", "1"] {
            let book = dir.path().join(format!("{format}{limit}")).join(book);
            std::fs::create_dir(book.parent().unwrap()).unwrap();
            let json = run(&[
                format,
                "from-tally",
                s(&table),
                "-o",
                s(&book),
                "--memory-limit",
                limit,
                "--json",
            ]);
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert!(v["positions"].as_u64().unwrap() > 60_000, "{json}");
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(book.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap())
                .map(|e| {
                    let name = e.file_name().into_string().unwrap();
                    (name, std::fs::read(e.path()).unwrap())
                })
                .collect();
            files.sort();
            // The book's files alone (and the set's lock): no run is left behind.
            files.retain(|f| !f.0.ends_with(".chessfmt-lock"));
            let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
            assert_eq!(names, files_made, "{format} {limit}");
            books.push(files);
        }
        assert!(books[0] == books[1], "{format}: the limit changed the book");
    }
}

/// `--compression` (`tally`, `tally merge`): the same rows in every codec, zstd smaller than
/// Snappy and Snappy smaller than none; a CSV output has no compression (a usage error).
#[test]
fn compression_keeps_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus().join("pgn/lichess-2017-09-sample1000.pgn");
    let csv_of = |table: &Path| {
        let csv = table.with_extension("csv");
        run(&["tally", "merge", s(table), "-o", s(&csv), "--force"]);
        std::fs::read(csv).unwrap()
    };
    let (mut sizes, mut merged_sizes) = (Vec::new(), Vec::new());
    let mut rows = Vec::new();
    for codec in ["zstd", "snappy", "none"] {
        let table = dir.path().join(format!("{codec}.parquet"));
        run(&["tally", s(&pgn), "-o", s(&table), "--compression", codec]);
        sizes.push(std::fs::metadata(&table).unwrap().len());
        rows.push(csv_of(&table));
        // The merge writes the codec asked for too.
        let merged = dir.path().join(format!("{codec}-merged.parquet"));
        run(&[
            "tally",
            "merge",
            s(&table),
            "-o",
            s(&merged),
            "--compression",
            codec,
        ]);
        merged_sizes.push(std::fs::metadata(&merged).unwrap().len());
        assert!(
            csv_of(&merged) == rows[0],
            "{codec}: the merge changed the rows"
        );
    }
    assert!(
        rows.iter().all(|r| *r == rows[0]),
        "a codec changed the rows"
    );
    for sizes in [&sizes, &merged_sizes] {
        assert!(sizes[0] < sizes[1] && sizes[1] < sizes[2], "{sizes:?}");
    }
    let (code, _, err) = chessfmt(&[
        "tally",
        s(&pgn),
        "-o",
        s(&dir.path().join("t.csv")),
        "--compression",
        "zstd",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--compression"), "{err}");
    assert!(!dir.path().join("t.csv").exists());
}
