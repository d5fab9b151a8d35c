//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests. Not a stable
//! API.

use crate::{CsvReader, CsvWriter, Row, merge};

/// Reads arbitrary bytes as a table (CSV, and Parquet with the feature), never panicking:
/// every row read writes back (in both forms) and reads again as itself; the good rows, sorted and summed, merge with themselves into the
/// same rows with doubled counts; a merge of the unsorted rows is an error or sorted output.
/// The rows are written as a PGN tree too. Returns the rows read (for targets that hand them
/// to a book writer).
pub fn table(data: &[u8]) -> Vec<Row> {
    let rows: Vec<Row> = CsvReader::new(data)
        .take(4096)
        .filter_map(Result::ok)
        .collect();
    let mut text = Vec::new();
    let mut w = CsvWriter::new(&mut text).expect("writing to memory");
    for r in &rows {
        w.write(r).expect("writing to memory");
    }
    drop(w);
    let back: Vec<Row> = CsvReader::new(&text[..])
        .map(|r| r.expect("our own text"))
        .collect();
    assert_eq!(back, rows);
    #[cfg(feature = "parquet")]
    let rows = parquet(data, rows);
    // Unsorted input: an error or sorted output, never a panic.
    let mut out: Vec<Row> = Vec::new();
    let unsorted = vec![rows.iter().cloned().map(Ok), rows.iter().cloned().map(Ok)];
    let push = |out: &mut Vec<Row>, r: Row| {
        out.push(r);
        Ok(())
    };
    if merge(unsorted, |r| push(&mut out, r), |_| "x".into()).is_ok() {
        assert!(
            out.windows(2)
                .all(|w| w[0].cmp_position_move(&w[1]).is_lt())
        );
    }
    let sorted = crate::sort_and_sum(rows.clone());
    let mut doubled: Vec<Row> = Vec::new();
    let twice = vec![
        sorted.iter().cloned().map(Ok),
        sorted.iter().cloned().map(Ok),
    ];
    merge(twice, |r| push(&mut doubled, r), |_| "x".into()).expect("sorted inputs");
    assert_eq!(doubled.len(), sorted.len());
    for (d, s) in doubled.iter().zip(&sorted) {
        assert_eq!(d.counts.games, s.counts.games.saturating_mul(2));
    }
    // Any rows as a PGN tree: never a panic, and the text is UTF-8 PGN ending in `*`.
    let mut pgn = Vec::new();
    crate::tree::write_tree(
        rows.iter().cloned().map(Ok),
        crate::tree::TreeOptions::default().with_max_ply(6),
        &mut pgn,
    )
    .expect("writing to memory");
    assert!(std::str::from_utf8(&pgn).is_ok_and(|t| t.ends_with("*\n\n")));
    rows
}

/// The bytes read as a Parquet table (rows added to `rows`), and all the rows written as
/// Parquet and read back as themselves (counts past 2^63 are written as 2^63 − 1).
#[cfg(feature = "parquet")]
fn parquet(data: &[u8], mut rows: Vec<Row>) -> Vec<Row> {
    use crate::parquet::{ParquetReader, ParquetWriter};
    if let Ok(reader) = ParquetReader::from_bytes(data.to_vec()) {
        // Row groups decoded on three threads: the batches and the first error of one
        // reader, in its order (Ok: rows; Err: where an error came).
        let outline = |batches: &mut dyn Iterator<Item = Result<crate::RowBatch, crate::Error>>| {
            batches
                .take(64)
                .map(|b| {
                    b.map(|b| b.iter().map(|r| r.to_row()).collect::<Vec<_>>())
                        .map_err(|_| ())
                })
                .collect::<Vec<_>>()
        };
        if let Ok(clone) = reader.try_clone() {
            let one = outline(&mut clone.into_batches(1));
            let three = outline(&mut reader.try_clone().expect("cloned once").into_batches(3));
            assert!(one == three, "row groups decoded at once differ");
        }
        rows.extend(reader.take(4096).map_while(Result::ok));
    }
    let mut w = ParquetWriter::new(Vec::new()).expect("writing to memory");
    for r in &rows {
        w.write(r).expect("writing to memory");
    }
    let bytes = w.finish().expect("writing to memory");
    let back: Vec<Row> = ParquetReader::from_bytes(bytes)
        .expect("our own table")
        .map(|r| r.expect("our own table"))
        .collect();
    let capped = |r: &Row| {
        let mut r = r.clone();
        let c = &mut r.counts;
        for v in c.sums_mut() {
            *v = (*v).min(i64::MAX as u64);
        }
        r
    };
    assert!(
        back.iter()
            .eq(rows.iter().map(capped).collect::<Vec<_>>().iter())
    );
    rows
}

/// A book writer's reduction of a table cut into chunks (`from(rows, chunk_rows)`, as
/// [`crate::map_chunks`] cuts it) gives what one chunk gives, for chunks of 1, 2, 3, 7 and 64
/// rows: checked on the table of `pgn` (every game counted) with six rows of an illegal move
/// among its rows. Returns the output of one chunk.
pub fn check_chunks_change_nothing<T: PartialEq + std::fmt::Debug>(
    pgn: &str,
    from: impl Fn(&[Row], usize) -> T,
) -> T {
    let mut tally = crate::Tally::new(crate::TallyOptions::default());
    tally
        .add_pgn(chessfmt_pgn::PgnReader::new(pgn.as_bytes()), |_| {})
        .expect("a PGN in memory");
    let (mut rows, _) = tally.finish().expect("a table in memory");
    assert!(rows.len() > 50, "{} rows", rows.len());
    for at in [3, 10, 20, 21, 22, 40] {
        let mut bad = rows[at].clone();
        bad.uci = "a1a8".into();
        rows.insert(at, bad);
    }
    let whole = from(&rows, usize::MAX);
    for chunk in [1, 2, 3, 7, 64] {
        assert_eq!(from(&rows, chunk), whole, "chunks of {chunk}");
    }
    whole
}

/// The table of `../shared/corpus`'s 1,000 lichess games (every game counted), for the book
/// writers' tests that need more positions than a file of `testdata/` has; `None` where
/// `../shared` is absent (a panic where it is present without the file: a test never passes
/// by skipping).
pub fn lichess_sample_rows() -> Option<Vec<Row>> {
    let pgn = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/polyglot/pgn/lichess-2017-09-sample1000.pgn"
    );
    let Ok(text) = std::fs::read_to_string(pgn) else {
        let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");
        assert!(!std::path::Path::new(shared).is_dir(), "{pgn} missing");
        return None;
    };
    let mut tally = crate::Tally::new(crate::TallyOptions::default());
    tally
        .add_pgn(chessfmt_pgn::PgnReader::new(text.as_bytes()), |_| {})
        .expect("a PGN in memory");
    Some(tally.finish().expect("a table in memory").0)
}
