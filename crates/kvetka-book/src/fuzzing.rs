//! Entry points shared by the fuzz target (`fuzz/`) and the corpus replay tests. Not a stable
//! API.

use shakmaty::{Chess, Position};

use crate::{
    raw::{BLOCK_SIZE, Header},
    read::from_bytes,
    validate::validate,
    write::BookFiles,
};

/// Packs the files of a book into one fuzz input: `u16 kin length, u16 ksf length, kin, ksf`,
/// then the `.kob` bytes (all files concatenated).
pub fn pack(kob: &[u8], kin: &[u8], ksf: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(kin.len().min(0xffff) as u16).to_be_bytes());
    out.extend_from_slice(&(ksf.len().min(0xffff) as u16).to_be_bytes());
    out.extend_from_slice(&kin[..kin.len().min(0xffff)]);
    out.extend_from_slice(&ksf[..ksf.len().min(0xffff)]);
    out.extend_from_slice(kob);
    out
}

fn unpack(data: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let kin_len = usize::from(u16::from_be_bytes([*data.first()?, *data.get(1)?]));
    let ksf_len = usize::from(u16::from_be_bytes([*data.get(2)?, *data.get(3)?]));
    let rest = &data[4..];
    let kin = rest.get(..kin_len)?;
    let ksf = rest.get(kin_len..kin_len + ksf_len)?;
    Some((kin, ksf, &rest[kin_len + ksf_len..]))
}

/// Opens arbitrary bytes as a book (as one `.kob`, and split after the header's first block
/// into two `.kob` files), validates it, scans and probes it from the start position along
/// book moves, converts it to Polyglot and rewrites it: never panics, the rewritten book
/// reads back with the same elements.
pub fn book(data: &[u8]) {
    let Some((kin, ksf, kob)) = unpack(data) else {
        return;
    };
    let ksf = (!ksf.is_empty()).then(|| ksf.to_vec());
    exercise(vec![kob.to_vec()], Some(kin.to_vec()), ksf.clone());
    if let Ok((_, head)) = Header::parse(kob) {
        let cut = (head + BLOCK_SIZE).min(kob.len());
        exercise(vec![kob[..cut].to_vec(), kob[cut..].to_vec()], None, ksf);
    }
}

fn exercise(kobs: Vec<Vec<u8>>, kin: Option<Vec<u8>>, ksf: Option<Vec<u8>>) {
    let Ok(book) = from_bytes(kobs, kin, ksf) else {
        return;
    };
    let report = validate(&book);
    let mut elements = Vec::new();
    let mut errors = 0;
    for e in book.elements() {
        match e {
            Ok((_, e)) => elements.push(e),
            Err(_) => errors += 1,
        }
    }
    // Probe along the first book moves from the start position.
    let mut pos = Chess::default();
    for _ in 0..8 {
        let Ok(Some(p)) = book.probe(&pos) else { break };
        for m in &p.moves {
            assert!(pos.is_legal(m.mv));
            for g in &m.games {
                let _ = book.game(*g);
            }
        }
        match p.moves.first() {
            Some(m) => pos.play_unchecked(m.mv),
            None => break,
        }
    }
    for e in elements.iter().take(64) {
        let _ = book.find(&e.key);
    }
    #[cfg(feature = "polyglot")]
    let _ = crate::convert::to_polyglot(&book, chess_core::book::WeightPolicy::Score);
    if report.is_ok() && errors == 0 {
        let sources = book.sources().and_then(Result::ok).cloned();
        let mut rewritten = elements.clone();
        let header = book.header().clone();
        let (files, _) = BookFiles::build(&header, &mut rewritten, sources.as_ref(), 1 << 20)
            .expect("a valid book can be rewritten");
        let again =
            from_bytes(files.kobs, Some(files.kin), files.ksf).expect("rewritten book opens");
        let back: Vec<_> = again.elements().map(|e| e.expect("element").1).collect();
        assert_eq!(back, rewritten);
    }
}

/// `kvetka build --with-games` on arbitrary PGN bytes: never panics; the book written opens,
/// validates without problems and has every element it was given.
#[cfg(feature = "pgn")]
pub fn build_from_pgn(data: &[u8]) {
    build_from_games(&chessfmt_pgn::fuzzing::pgn_games(data));
}

/// [`build_from_pgn`] on games already tokenised (the `pgn_builders` target reads the PGN
/// once for the three builders).
#[cfg(feature = "pgn")]
pub fn build_from_games(games: &[chessfmt_pgn::RawGame]) {
    let header = Header {
        element_type: 1,
        ..Header::default()
    };
    let mut builder =
        crate::build::Builder::new(crate::build::BuildOptions::default().with_header(header));
    builder.begin_source("fuzz.pgn");
    builder.add_games(games);
    let Ok((mut built, _)) = builder.finish() else {
        return;
    };
    let Ok((files, stats)) = BookFiles::build(
        &built.header,
        &mut built.elements,
        built.sources.as_ref(),
        1 << 16,
    ) else {
        return;
    };
    let book = from_bytes(files.kobs, Some(files.kin), files.ksf).expect("a written book opens");
    assert_eq!(book.elements().count() as u64, stats.elements);
    let report = validate(&book);
    assert!(report.is_ok(), "{report:?}");
}

/// Kvetka key decoding: never panics; decoded keys re-encode to the same position.
pub fn key(data: &[u8]) {
    use crate::position::{KEY_LEN, decode, encode};
    let Some(key) = data.get(..KEY_LEN) else {
        return;
    };
    let key: [u8; KEY_LEN] = key.try_into().expect("22 bytes");
    if let Ok(pos) = decode(&key)
        && let Ok(again) = encode(&pos)
    {
        assert_eq!(decode(&again), Ok(pos));
    }
}
