//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests. Not a stable
//! API.

use shakmaty::{Chess, Position};

use crate::{
    Book,
    raw::{Header, PAGE_SIZE},
    read::decode_record,
    write::{RecordData, to_bytes},
};

/// Packs the three files of a book into one fuzz input: `u16 cto length, u16 ctb length,
/// cto, ctb, ctg`.
pub fn pack(ctg: &[u8], cto: &[u8], ctb: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(cto.len().min(0xffff) as u16).to_be_bytes());
    out.extend_from_slice(&(ctb.len().min(0xffff) as u16).to_be_bytes());
    out.extend_from_slice(&cto[..cto.len().min(0xffff)]);
    out.extend_from_slice(&ctb[..ctb.len().min(0xffff)]);
    out.extend_from_slice(ctg);
    out
}

fn unpack(data: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let cto_len = usize::from(u16::from_be_bytes([*data.first()?, *data.get(1)?]));
    let ctb_len = usize::from(u16::from_be_bytes([*data.get(2)?, *data.get(3)?]));
    let rest = &data[4..];
    let cto = rest.get(..cto_len)?;
    let ctb = rest.get(cto_len..cto_len + ctb_len)?;
    Some((cto, ctb, &rest[cto_len + ctb_len..]))
}

/// Opens arbitrary bytes as the three files of a book (as given, and with the `.ctg` bytes
/// placed behind a header page announcing them, so that short inputs reach the page reader);
/// scans every record, decodes it and finds it again, probes and walks from the start
/// position, converts to Polyglot and rewrites the records: never panics, every probed move
/// is legal, the rewritten book holds as many records.
pub fn book(data: &[u8]) {
    let Some((cto, ctb, ctg)) = unpack(data) else {
        return;
    };
    exercise(ctg.to_vec(), cto, ctb);
    // At most 8 pages behind the made-up header: enough for the directory and page
    // searches, cheap enough for thousands of executions per second.
    let pages = ctg.len().div_ceil(PAGE_SIZE).min(8);
    let mut framed = Header {
        pages: pages as u32,
        positions: 0,
        games: 0,
    }
    .to_page();
    framed.extend_from_slice(&ctg[..ctg.len().min(pages * PAGE_SIZE)]);
    framed.resize((pages + 1) * PAGE_SIZE, 0);
    exercise(framed, cto, ctb);
}

fn exercise(ctg: Vec<u8>, cto: &[u8], ctb: &[u8]) {
    let Ok(book) = Book::new(ctg, cto.to_vec(), ctb) else {
        return;
    };
    let mut records = Vec::new();
    // Bounded work per input (the fuzzer's speed depends on it): the first records, a short
    // walk, a shallow conversion.
    for (i, r) in book.records().take(64).enumerate() {
        let Ok(r) = r else { continue };
        if i < 16 {
            let _ = book.find(r.raw.position);
        }
        if let Ok(d) = decode_record(&r.raw) {
            for (m, _, _) in &d.moves {
                assert!(d.position.is_legal(*m));
            }
        }
        records.push(RecordData::from_raw(&r.raw));
    }
    let start = Chess::default();
    if let Ok(Some(p)) = book.probe(&start) {
        for m in &p.moves {
            assert!(start.is_legal(m.mv));
        }
    }
    let mut walk = book.walk(start.clone(), Some(3));
    for node in walk.by_ref().take(16) {
        for m in &node.probe.moves {
            assert!(node.position.is_legal(m.mv));
        }
    }
    #[cfg(feature = "polyglot")]
    let _ = crate::convert::to_polyglot(&book, start, Some(1), crate::policy::Policy::DroidFish);
    if let Ok([ctg, cto, ctb]) = to_bytes(&records, 1) {
        let again = Book::new(ctg, cto, &ctb).expect("our own output opens");
        assert_eq!(again.records().filter(Result::is_ok).count(), records.len());
        for r in records.iter().take(16) {
            assert!(
                again.find(&r.position).is_some(),
                "every rewritten record is found"
            );
        }
    }
}

/// `ctg build` on arbitrary PGN bytes: never panics; the book written reads back with as many
/// records, and its moves from the start position are legal.
#[cfg(feature = "pgn")]
pub fn build_from_pgn(data: &[u8]) {
    build_from_games(&chessfmt_pgn::fuzzing::pgn_games(data));
}

/// [`build_from_pgn`] on games already tokenised (the `pgn_builders` target reads the PGN
/// once for the three builders).
#[cfg(feature = "pgn")]
pub fn build_from_games(games: &[chessfmt_pgn::RawGame]) {
    let mut builder =
        crate::build::Builder::new(crate::build::BuildOptions::default().with_max_ply(16));
    for g in games {
        builder.add_game(g);
    }
    // An unlimited builder has no run to read back.
    let Ok((records, _)) = builder.finish() else {
        return;
    };
    let Ok([ctg, cto, ctb]) = to_bytes(&records, 0) else {
        return;
    };
    let book = Book::new(ctg, cto, &ctb).expect("a written book opens");
    assert_eq!(book.records().count(), records.len());
    let start = Chess::default();
    if let Ok(Some(p)) = book.probe(&start) {
        for m in &p.moves {
            assert!(start.is_legal(m.mv));
        }
    }
}

/// CTG position decoding: never panics; whatever decodes re-encodes to something that decodes
/// to the same position.
pub fn position(data: &[u8]) {
    use crate::position::{decode, encode};
    if let Ok((pos, len)) = decode(data) {
        assert!(len <= data.len());
        let again = encode(&pos);
        if again.len() < 32 {
            assert_eq!(decode(&again).map(|(p, _)| p), Ok(pos));
        }
    }
}
