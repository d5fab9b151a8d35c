//! A large database made from a real one: its game records repeated `times` times, the `.cbg`
//! and `.cba` files repeated with them and every record's offsets (and each annotation record's
//! game number) shifted to its copy. Entity files are copied as they are. Used by the
//! benchmark of issue 18 (ChessBase → PGN against cbvault on ≥ 600,000 games).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

const RECORD: usize = 46;

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Writes `dir/NAME.*`, the records of `source` (a `.cbh` path) repeated `times` times, unless
/// it exists already; returns the new `.cbh` path.
pub fn repeated_database(source: &Path, times: u32, dir: &Path) -> io::Result<PathBuf> {
    let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("db");
    let name = format!("{stem}x{times}");
    let out = dir.join(format!("{name}.cbh"));
    if out.exists() {
        return Ok(out);
    }
    fs::create_dir_all(dir)?;
    let cbh = fs::read(source)?;
    let cbg = fs::read(source.with_extension("cbg"))?;
    let cba = fs::read(source.with_extension("cba")).unwrap_or_default();
    let records = (cbh.len() / RECORD - 1) as u32;
    let other = |e: &str| io::Error::other(format!("{}: {e}", source.display()));
    if records == 0 || cbh.len() % RECORD != 0 {
        return Err(other("not a .cbh with records"));
    }
    let (mut new_cbh, mut new_cbg, mut new_cba) = (
        Vec::with_capacity(RECORD + (cbh.len() - RECORD) * times as usize),
        Vec::with_capacity(cbg.len() * times as usize),
        Vec::with_capacity(cba.len() * times as usize),
    );
    new_cbh.extend_from_slice(&cbh[..RECORD]);
    for copy in 0..times {
        let cbg_shift = u32::try_from(new_cbg.len()).map_err(|_| other("over 4 GB of games"))?;
        let cba_shift = u32::try_from(new_cba.len()).map_err(|_| other("over 4 GB of notes"))?;
        let cba_start = new_cba.len();
        new_cbg.extend_from_slice(&cbg);
        new_cba.extend_from_slice(&cba);
        for (i, r) in cbh[RECORD..].chunks_exact(RECORD).enumerate() {
            let mut r = <[u8; RECORD]>::try_from(r).expect("record size");
            let game = copy * records + i as u32 + 1;
            let game_at = be32(&r[1..5]) + cbg_shift;
            r[1..5].copy_from_slice(&game_at.to_be_bytes());
            let text = r[0] & 0x02 != 0;
            let ann = be32(&r[5..9]);
            if !text && ann != 0 {
                r[5..9].copy_from_slice(&(ann + cba_shift).to_be_bytes());
                // The annotation record names its game (24 bits).
                let at = cba_start + ann as usize;
                if let Some(head) = new_cba.get_mut(at..at + 3) {
                    head.copy_from_slice(&game.to_be_bytes()[1..]);
                }
            }
            new_cbh.extend_from_slice(&r);
        }
    }
    // Next game id = record count + 1, in both places of the header.
    let next = (records * times + 1).to_be_bytes();
    new_cbh[6..10].copy_from_slice(&next);
    if be32(&cbh[40..44]) != 0 {
        new_cbh[40..44].copy_from_slice(&next);
    }
    let tmp = dir.join(format!(".{name}.partial"));
    fs::create_dir_all(&tmp)?;
    fs::write(tmp.join(format!("{name}.cbg")), &new_cbg)?;
    fs::write(tmp.join(format!("{name}.cba")), &new_cba)?;
    for ext in [
        "cbp", "cbt", "cbc", "cbs", "cbe", "cbj", "cbtt", "cbm", "cbl", "flags",
    ] {
        let from = source.with_extension(ext);
        if from.exists() {
            fs::copy(&from, tmp.join(format!("{name}.{ext}")))?;
        }
    }
    for entry in fs::read_dir(&tmp)? {
        let entry = entry?;
        fs::rename(entry.path(), dir.join(entry.file_name()))?;
    }
    fs::remove_dir(&tmp)?;
    // The .cbh last: its presence means the set is complete.
    let partial = dir.join(format!(".{name}.cbh.partial"));
    fs::write(&partial, &new_cbh)?;
    fs::rename(partial, &out)?;
    Ok(out)
}
