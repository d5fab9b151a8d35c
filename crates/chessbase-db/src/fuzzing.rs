//! Fuzz entry points, shared by `fuzz/` and the corpus-replay tests. Each must never panic.

use crate::db::{Database, Files};
use crate::pgn::{PgnOptions, write_game};
use crate::raw::CbhHeader;

/// The files packed in one fuzz input: bytes 0–3 (little-endian) the length of the `.cbh`
/// records (after a current `.cbh` header), bytes 4–7 the length of the `.cbg`, the rest
/// `.cba`; lengths past the input take what is left. No size cap: as many records and as
/// large a game as the input holds (issue 20: the former one-byte lengths ruled out every
/// game over 2,040 bytes). `None` for inputs under 8 bytes.
pub fn database_files(data: &[u8]) -> Option<Files> {
    let (lengths, rest) = data.split_first_chunk::<8>()?;
    let [a, b] = [&lengths[..4], &lengths[4..]]
        .map(|l| u32::from_le_bytes(l.try_into().unwrap_or_default()) as usize);
    let (cbh, rest) = rest.split_at(a.min(rest.len()));
    let (cbg, cba) = rest.split_at(b.min(rest.len()));
    let mut full = current_header((cbh.len() / 46) as u32).to_vec();
    full.extend_from_slice(cbh);
    Some(Files {
        cbh: full,
        cbg: Some(cbg.to_vec()),
        cba: Some(cba.to_vec()),
        ..Files::default()
    })
}

/// A current `.cbh` header for `records` records.
fn current_header(records: u32) -> [u8; 46] {
    CbhHeader {
        used: 44,
        record_size: 46,
        version: 1,
        next_game: records.saturating_add(1),
        next_sound: 0,
        next_picture: 0,
        next_video: 0,
        next_game_again: 0,
    }
    .to_bytes()
}

/// A mode-5 move word: from and to square, and the flags that open a variation before the
/// move and end the line after it.
pub fn pairs_word(from: shakmaty::Square, to: shakmaty::Square, variation: bool, end: bool) -> u16 {
    // ChessBase numbers squares file-major (a1 = 0, a2 = 1, …).
    let cb = |s: shakmaty::Square| u16::from(s.file()) * 8 + u16::from(s.rank());
    cb(from) | cb(to) << 6 | if variation { 0x8000 } else { 0 } | if end { 0x4000 } else { 0 }
}

/// Encodes mode-5 words (see [`pairs_word`]) as the stream a game record stores: each byte
/// through the inverse of the mode's table, with the move counter added.
pub fn pairs_stream(words: impl IntoIterator<Item = u16>) -> Vec<u8> {
    let mut inverse = [0u8; 256];
    for (i, &v) in crate::tables::MODE_5.iter().enumerate() {
        inverse[usize::from(v)] = i as u8;
    }
    let mut out = Vec::new();
    for (k, w) in words.into_iter().enumerate() {
        let k = k as u8;
        for b in w.to_be_bytes() {
            out.push(inverse[usize::from(b.wrapping_add(k))]);
        }
    }
    out
}

/// A database whose `records` game records all point at one game: a `.cbg` holding one record
/// of encoding `mode` with `stream` (from the standard start position). For regression tests
/// and structure-aware fuzzing; `None` when the stream is too long for a record (16 MiB).
pub fn shared_game_database(mode: u8, stream: &[u8], records: u32) -> Option<Files> {
    let mut files = games_database(mode, &[stream])?;
    let record = files.cbh[46..92].to_vec();
    files.cbh = current_header(records).to_vec();
    for _ in 0..records {
        files.cbh.extend_from_slice(&record);
    }
    Some(files)
}

/// A database of one game record per stream, each of encoding `mode` from the standard start
/// position, in order. `None` when a stream is too long for a record (16 MiB).
pub fn games_database(mode: u8, streams: &[&[u8]]) -> Option<Files> {
    let mut cbg = vec![0u8; 26];
    let mut cbh = current_header(streams.len() as u32).to_vec();
    for stream in streams {
        let len = u32::try_from(stream.len() + 4)
            .ok()
            .filter(|&l| l <= 0xff_ffff)?;
        let offset = u32::try_from(cbg.len()).ok()?;
        cbg.push(mode);
        cbg.extend_from_slice(&len.to_be_bytes()[1..]);
        cbg.extend_from_slice(stream);
        let mut r = [0u8; 46];
        r[0] = 1;
        r[1..5].copy_from_slice(&offset.to_be_bytes());
        r[27] = 1;
        cbh.extend_from_slice(&r);
    }
    Some(Files {
        cbh,
        cbg: Some(cbg),
        ..Files::default()
    })
}

/// A whole database from one input (see [`database_files`]): every record is listed, decoded
/// and exported.
pub fn database(data: &[u8]) {
    if let Some(Ok(db)) = database_files(data).map(Database::from_files) {
        exercise(&db);
    }
}

/// PGN imported into a new database (`cbh import`): every game read, encoded and added, the
/// database built, read back and exported.
#[cfg(feature = "pgn")]
///
/// The same input read again in small pieces (a size taken from its first byte) must give
/// the same games: where the input is cut never changes what is read.
pub fn pgn_import(data: &[u8]) {
    let mut writer = crate::writer::DatabaseWriter::new();
    // Games up to where reading stopped, if it did: pgn-reader reports some malformed input
    // as an I/O error, and where it does so on garbage can depend on how the input arrives,
    // so the game reported as the stop is left out of the comparison.
    let upto_stop = |list: &mut Vec<String>, read: std::io::Result<crate::import::ImportStats>| {
        if read.map_or(true, |s| s.stopped.is_some()) {
            list.pop();
        }
    };
    let mut whole = Vec::new();
    let read = crate::import::read_games(data, crate::Limits::default(), |g| {
        whole.push(format!("{g:?}"));
        if let Ok(g) = g {
            let _ = writer.add_game(&g.header, &g.game);
        }
    });
    upto_stop(&mut whole, read);
    let piece = usize::from(data.first().copied().unwrap_or(1) % 16) + 1;
    let mut pieces = Vec::new();
    let read = crate::import::read_games(
        chessfmt_pgn::fuzzing::Trickle::new(data, piece),
        crate::Limits::default(),
        |g| pieces.push(format!("{g:?}")),
    );
    upto_stop(&mut pieces, read);
    let n = whole.len().min(pieces.len());
    assert_eq!(
        whole[..n],
        pieces[..n],
        "{piece}-byte pieces read differently"
    );
    if let Ok(db) = Database::from_files(writer.finish()) {
        exercise(&db);
    }
}

/// Exports every record of a database as `cbh export` does (records sharing one game cost
/// one decode), then lists and decodes the first 16 records one by one.
pub fn exercise(db: &Database) {
    let _ = db.counts();
    let export = || {
        crate::pgn::export(
            db,
            &crate::pgn::ExportOptions::default()
                .records(1..=db.len())
                .include_deleted(true),
            &mut std::io::sink(),
            |_| {},
        )
    };
    // One worker: the export's parallel decoding would cost more in thread hand-offs than
    // the few records of a fuzz input.
    #[cfg(feature = "parallel")]
    {
        static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
        let _ = match POOL
            .get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(1).build().ok())
        {
            Some(pool) => pool.install(export),
            None => export(),
        };
    }
    #[cfg(not(feature = "parallel"))]
    let _ = export();
    for n in 1..=db.len().min(16) {
        if let Ok(crate::header::Header::Game(h)) = db.header(n) {
            let _ = db.main_line(n);
            if let Ok(g) = db.game(n) {
                let mut s = String::new();
                write_game(&mut s, &h, &g, &PgnOptions::default());
            }
        }
    }
}

/// One entity file of each kind from the same bytes.
pub fn entity_file(data: &[u8]) {
    use crate::entities::EntityFile;
    use crate::raw::{Annotator, Player, Source, Team, Tournament};
    if let Ok(f) = EntityFile::<Player>::from_bytes(data, encoding_rs::WINDOWS_1252) {
        let _ = f.sorted_ids();
    }
    if let Ok(f) = EntityFile::<Tournament>::from_bytes(data, encoding_rs::WINDOWS_1252) {
        let _ = f.sorted_ids();
    }
    let _ = EntityFile::<Annotator>::from_bytes(data, encoding_rs::WINDOWS_1252)
        .map(|f| f.sorted_ids());
    let _ =
        EntityFile::<Source>::from_bytes(data, encoding_rs::WINDOWS_1252).map(|f| f.sorted_ids());
    let _ = EntityFile::<Team>::from_bytes(data, encoding_rs::WINDOWS_1252).map(|f| f.sorted_ids());
}

/// An annotation record at offset 0, for game 1.
pub fn annotations(data: &[u8]) {
    let _ = crate::annotations::parse_record(data, 0, 1, encoding_rs::WINDOWS_1252);
}

/// A move stream: byte 0 picks the mode and set-up flag, the rest is a `.cbg` record body
/// decoded from the start position or from the set-up position it begins with.
pub fn moves(data: &[u8]) {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let modes = [0u8, 4, 5, 10];
    let mode = modes[usize::from(flags & 3)] | (flags & 0x40);
    let len = (body.len() + 4).min(0xff_ffff);
    let mut rec = vec![mode, (len >> 16) as u8, (len >> 8) as u8, len as u8];
    rec.extend_from_slice(&body[..len - 4]);
    if let Ok(g) = crate::game::decode_game(&rec, 0, 1) {
        let _ = g.main_line();
    }
    let _ = crate::game::decode_main_line(&rec, 0, 1);
}

/// An archive: byte 0 chooses `.cbv` (even) or `.cbz` with the password `fuzz` (odd), the
/// rest is the file. The reader opens paths, so the bytes go to a temporary file first. Every
/// member is extracted, and the database in it (if any) read and exported.
#[cfg(feature = "archive")]
pub fn archive(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let Some((&kind, body)) = data.split_first() else {
        return;
    };
    let ext = if kind % 2 == 0 { "cbv" } else { "cbz" };
    let path = std::env::temp_dir().join(format!(
        "chessfmt-fuzz-{}-{}.{ext}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    if std::fs::write(&path, body).is_err() {
        return;
    }
    if let Ok(a) = crate::archive::Archive::open(&path, Some("fuzz")) {
        let names: Vec<String> = a.members().map(|m| m.name).collect();
        for name in names.iter().take(64) {
            let _ = a.read(name);
        }
        if let Ok(db) = a.database() {
            exercise(&db);
        }
    }
    let _ = std::fs::remove_file(&path);
}
