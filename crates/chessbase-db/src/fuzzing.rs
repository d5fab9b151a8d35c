//! Fuzz entry points, shared by `fuzz/` and the corpus-replay tests. Each must never panic.

use crate::db::{Database, Files};
use crate::pgn::{PgnOptions, write_game};
use crate::raw::CbhHeader;

/// The files packed in one fuzz input: byte 0 × 8 bytes of `.cbh` records (after a current
/// `.cbh` header), byte 1 × 8 bytes of `.cbg`, the rest `.cba`. `None` for inputs under 2 bytes.
pub fn database_files(data: &[u8]) -> Option<Files> {
    let [a, b, rest @ ..] = data else {
        return None;
    };
    let (cbh, rest) = rest.split_at((usize::from(*a) * 8).min(rest.len()));
    let (cbg, cba) = rest.split_at((usize::from(*b) * 8).min(rest.len()));
    let header = CbhHeader {
        used: 44,
        record_size: 46,
        version: 1,
        next_game: 0,
        next_sound: 0,
        next_picture: 0,
        next_video: 0,
        next_game_again: 0,
    };
    let mut full = header.to_bytes().to_vec();
    full.extend_from_slice(cbh);
    Some(Files {
        cbh: full,
        cbg: Some(cbg.to_vec()),
        cba: Some(cba.to_vec()),
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

/// Lists, decodes and exports every record of a database.
pub fn exercise(db: &Database) {
    let _ = db.counts();
    for n in 1..=db.len().min(64) {
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
    if let Ok(f) = EntityFile::<Player>::from_bytes(data) {
        let _ = f.sorted_ids();
    }
    if let Ok(f) = EntityFile::<Tournament>::from_bytes(data) {
        let _ = f.sorted_ids();
    }
    let _ = EntityFile::<Annotator>::from_bytes(data).map(|f| f.sorted_ids());
    let _ = EntityFile::<Source>::from_bytes(data).map(|f| f.sorted_ids());
    let _ = EntityFile::<Team>::from_bytes(data).map(|f| f.sorted_ids());
}

/// An annotation record at offset 0, for game 1.
pub fn annotations(data: &[u8]) {
    let _ = crate::annotations::parse_record(data, 0, 1);
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
