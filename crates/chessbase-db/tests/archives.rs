//! `.cbv`/`.cbz` archives (../shared/corpus/chessbase/uncbv-tests): every member extracted
//! byte-identical to the corpus's extracted files, the database inside exports exactly as the
//! extracted one, and damaged archives give typed errors naming the member and offset.
//! Skipped (saying so) without ../shared.

#![cfg(feature = "archive")]

mod common;

use chessbase_db::archive::Archive;
use chessbase_db::{ArchiveProblem, Database, Error};
use common::{corpus, export_pgn};

/// Extracts `archive` and compares every file with `expected_dir`'s file of the same name.
fn unpack_matches(archive: &str, password: Option<&str>, expected_dir: &str) {
    let (Some(path), Some(expected)) = (corpus(archive), corpus(expected_dir)) else {
        return;
    };
    let a = Archive::open(&path, password).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = a.unpack(dir.path(), false).unwrap();
    assert!(!written.is_empty(), "{archive}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // The set's lock file stays beside it (chessfmt_files::set_lock).
        .filter(|n| !n.ends_with(".chessfmt-lock"))
        .collect();
    names.sort();
    let mut want: Vec<String> = std::fs::read_dir(&expected)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    want.sort();
    assert_eq!(names, want, "{archive}: the same files, no leftovers");
    for n in &names {
        assert_eq!(
            std::fs::read(dir.path().join(n)).unwrap(),
            std::fs::read(expected.join(n)).unwrap(),
            "{archive}: {n}"
        );
    }
    // Unpacking again refuses to overwrite, and writes nothing.
    assert!(a.unpack(dir.path(), false).is_err());
    a.unpack(dir.path(), true).unwrap();
}

#[test]
fn every_corpus_archive_extracts_byte_identical() {
    unpack_matches("uncbv-tests/twic1134.cbv", None, "uncbv-tests/twic1134");
    unpack_matches("uncbv-tests/small.cbv", None, "uncbv-tests/small");
    unpack_matches("uncbv-tests/decrypted_small.cbv", None, "uncbv-tests/small");
    // The three key-derivation cases: exactly 8 bytes, shorter, longer.
    unpack_matches(
        "uncbv-tests/small.cbz",
        Some("password"),
        "uncbv-tests/small",
    );
    unpack_matches("uncbv-tests/small2.cbz", Some("pass"), "uncbv-tests/small");
    unpack_matches(
        "uncbv-tests/small3.cbz",
        Some("my long password"),
        "uncbv-tests/small",
    );
}

#[test]
fn the_database_in_an_archive_exports_as_the_extracted_one() {
    let (Some(cbv), Some(cbh)) = (
        corpus("uncbv-tests/twic1134.cbv"),
        corpus("uncbv-tests/twic1134/twic1134.cbh"),
    ) else {
        return;
    };
    let pgn = |db: &Database| {
        let (s, out) = export_pgn(db, 2);
        (s.exported, out)
    };
    let from_archive = Database::open(&cbv).unwrap();
    let extracted = Database::open(&cbh).unwrap();
    let (n, a) = pgn(&from_archive);
    assert_eq!(n, 6117);
    assert_eq!(a, pgn(&extracted).1);
    // Errors inside name the member of the archive.
    assert!(from_archive.path().ends_with("twic1134.cbv/twic1134.cbh"));
}

#[test]
fn passwords_and_damage_are_typed_errors() {
    let (Some(cbz), Some(cbv)) = (
        corpus("uncbv-tests/small.cbz"),
        corpus("uncbv-tests/twic1134.cbv"),
    ) else {
        return;
    };
    let problem = |r: Result<Archive, Error>| match r {
        Err(Error::Archive(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        problem(Archive::open(&cbz, None)).problem,
        ArchiveProblem::NeedsPassword
    );
    assert_eq!(
        problem(Archive::open(&cbz, Some("wrong"))).problem,
        ArchiveProblem::WrongPassword
    );
    // A member's stream damaged in the middle of the archive: opening works (the table is
    // intact), extracting that member names it and an offset; nothing is written.
    let mut bytes = std::fs::read(&cbv).unwrap();
    let a = Archive::open(&cbv, None).unwrap();
    let cbg = a
        .members()
        .find(|m| m.name.to_ascii_lowercase().ends_with(".cbg"))
        .unwrap();
    let at = cbg.offset as usize + 64;
    for b in &mut bytes[at..at + 4096] {
        *b = 0xff;
    }
    let dir = tempfile::tempdir().unwrap();
    let damaged = dir.path().join("damaged.cbv");
    std::fs::write(&damaged, &bytes).unwrap();
    let a = Archive::open(&damaged, None).unwrap();
    let out = dir.path().join("out");
    match a.unpack(&out, false) {
        Err(Error::Archive(e)) => {
            assert!(
                e.member.as_deref().is_some_and(|m| m.ends_with(".cbg")),
                "{e}"
            );
            assert!(e.offset.is_some(), "{e}");
            assert!(matches!(e.problem, ArchiveProblem::Damaged(_)), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let left: Vec<_> = std::fs::read_dir(&out)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing written: {left:?}");
    // Cut short: the table no longer tiles the file.
    std::fs::write(&damaged, &bytes[..bytes.len() / 2]).unwrap();
    assert!(
        Archive::open(&damaged, None).is_err()
            || Archive::open(&damaged, None).unwrap().database().is_err()
    );
}

/// A `.cbv` built here, member by member, from a database our writer made: the container
/// (magic with the member count, 173-byte member records, streams in table order) and each
/// member cut into blocks that cycle through the four block modes (stored, LZ, Huffman,
/// Huffman + LZ), with cbvault-format's block builders. No real archive's bytes.
#[cfg(feature = "pgn")]
fn synthetic_archive() -> (Vec<u8>, chessbase_db::Files) {
    use cbvault_format::archive::blocks::{block, huffman_block, lz_literals};
    let pgn = "[Event \"Synthetic\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
        1. e4 {A comment.} e5 (1... c5 2. Nf3) 2. Nf3 Nc6 3. Bb5 $1 a6 1-0\n\n\
        [Event \"Synthetic\"]\n[White \"B\"]\n[Black \"A\"]\n[Result \"0-1\"]\n\n\
        1. d4 d5 2. c4 e6 0-1\n";
    let mut w = chessbase_db::writer::DatabaseWriter::new();
    chessbase_db::import::read_games(pgn.as_bytes(), Default::default(), |g| {
        let g = g.unwrap();
        w.add_game(&g.header, &g.game).unwrap();
    })
    .unwrap();
    let files = w.finish();
    let mut members: Vec<(String, Vec<u8>)> = chessbase_db::writer::file_list(&files)
        .into_iter()
        .map(|(ext, b)| (format!("Synthetic.{ext}"), b.to_vec()))
        .collect();
    // A text member beside the database (archives carry such files), in a folder.
    members.push(("Notes\\Synthetic.pgn".into(), pgn.as_bytes().to_vec()));
    // Blocks cycle through the four modes. cbvault-format's Huffman builder makes tables its
    // own decoder refuses for some byte distributions (binary heads that are mostly zeros):
    // such a block is LZ-coded instead (checked by decoding it alone).
    let mut mode = 0u8;
    let mut used = [0u32; 4];
    let streams: Vec<Vec<u8>> = members
        .iter()
        .map(|(_, bytes)| {
            let mut stream = Vec::new();
            for chunk in bytes.chunks(64) {
                let huffman = match mode % 4 {
                    2 => Some(block(2, &huffman_block(chunk))),
                    3 => Some(block(3, &huffman_block(&lz_literals(chunk)))),
                    _ => None,
                };
                let (m, b) = match (mode % 4, huffman) {
                    (0, _) => (0, block(0, chunk)),
                    (m, Some(b)) if container(&[("x.cbh", chunk, &b)]).1 => (m, b),
                    _ => (1, block(1, &lz_literals(chunk))),
                };
                used[usize::from(m)] += 1;
                stream.extend(b);
                mode += 1;
            }
            stream
        })
        .collect();
    let parts: Vec<(&str, &[u8], &[u8])> = members
        .iter()
        .zip(&streams)
        .map(|((n, b), s)| (n.as_str(), b.as_slice(), s.as_slice()))
        .collect();
    let (out, ok) = container(&parts);
    assert!(ok);
    assert!(
        used.iter().all(|&n| n > 0),
        "every block mode used: {used:?}"
    );
    (out, files)
}

/// A container of `(name, bytes, stream)` members, and whether every member decodes to its
/// bytes.
#[cfg(feature = "pgn")]
fn container(members: &[(&str, &[u8], &[u8])]) -> (Vec<u8>, bool) {
    let mut out = vec![0x08, 0x00];
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0xAD, 0x00, 0x03, 0x00]);
    let mut offset = 8 + 173 * members.len() as u32;
    for (name, bytes, stream) in members {
        let mut record = vec![0u8; 173];
        record[..name.len()].copy_from_slice(name.as_bytes());
        let (packed, size) = (stream.len() as u32, bytes.len() as u32);
        for (at, v) in [(128, offset), (132, packed), (136, size), (149, offset)] {
            record[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        record[157..165].copy_from_slice(&u64::from(packed).to_le_bytes());
        record[165..173].copy_from_slice(&u64::from(size).to_le_bytes());
        out.extend_from_slice(&record);
        offset += packed;
    }
    for (_, _, s) in members {
        out.extend_from_slice(s);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("check.cbv");
    std::fs::write(&path, &out).unwrap();
    let a = Archive::open(&path, None).unwrap();
    let ok = members
        .iter()
        .all(|(name, bytes, _)| a.read(name).is_ok_and(|b| b == *bytes));
    (out, ok)
}

/// The synthetic archive (every block mode) extracts to the files it was built from, its
/// database exports as they do, and it is the committed seed of the `cbh_archive` fuzz
/// target (rewritten with `WRITE_FUZZ_SEEDS=1`).
#[cfg(feature = "pgn")]
#[test]
fn synthetic_archive_of_every_block_mode() {
    let (bytes, files) = synthetic_archive();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synthetic.cbv");
    std::fs::write(&path, &bytes).unwrap();
    let a = Archive::open(&path, None).unwrap();
    for (ext, want) in chessbase_db::writer::file_list(&files) {
        assert_eq!(a.read(&format!("Synthetic.{ext}")).unwrap(), want, ".{ext}");
    }
    let (_, from_archive) = export_pgn(&a.database().unwrap(), 1);
    let (_, direct) = export_pgn(&Database::from_files(files.clone()).unwrap(), 1);
    assert_eq!(from_archive, direct);
    assert!(String::from_utf8_lossy(&direct).contains("{A comment.}"));

    let seed = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus/cbh_archive/synthetic_every_mode");
    let mut input = vec![0u8]; // byte 0 even: a .cbv
    input.extend_from_slice(&bytes);
    if std::env::var_os("WRITE_FUZZ_SEEDS").is_some() {
        std::fs::create_dir_all(seed.parent().unwrap()).unwrap();
        std::fs::write(&seed, &input).unwrap();
    }
    assert_eq!(std::fs::read(&seed).unwrap(), input, "the committed seed");

    // A block with an empty payload (no mode byte) is a typed error, not a panic (the
    // decoder underneath indexes the mode byte unchecked; found by the fuzz target).
    let mut empty = bytes.clone();
    let first_stream = u32::from_le_bytes(bytes[8 + 128..8 + 132].try_into().unwrap()) as usize;
    empty[first_stream..first_stream + 2].copy_from_slice(&[0, 0]);
    std::fs::write(&path, &empty).unwrap();
    let a = Archive::open(&path, None).unwrap();
    match a.read("Synthetic.cbh") {
        Err(Error::Archive(e)) => assert!(e.to_string().contains("no mode byte"), "{e}"),
        other => panic!("{other:?}"),
    }

    // A member that claims more than its stream can expand to is refused before decoding
    // (no allocation of the claimed size): .cbh's size set to 4 GB - 1 in both copies.
    let mut claim = bytes.clone();
    claim[8 + 136..8 + 140].copy_from_slice(&u32::MAX.to_le_bytes());
    claim[8 + 165..8 + 173].copy_from_slice(&u64::from(u32::MAX).to_le_bytes());
    std::fs::write(&path, &claim).unwrap();
    let a = Archive::open(&path, None).unwrap();
    match a.read("Synthetic.cbh") {
        Err(Error::Archive(e)) => {
            assert_eq!(e.member.as_deref(), Some("Synthetic.cbh"));
            assert!(matches!(e.problem, ArchiveProblem::Damaged(_)), "{e}");
            assert!(e.to_string().contains("4294967295 bytes"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

/// Issue 30: an archive never plants a commit journal or a staged file, and two members of
/// one name never overwrite each other: `unpack` refuses them before writing anything.
#[cfg(feature = "pgn")]
#[test]
fn reserved_and_duplicate_member_names_are_refused() {
    let (bytes, _) = synthetic_archive();
    let rename = |name: &str| {
        let mut b = bytes.clone();
        let at = 8 + 173; // the second member's record
        b[at..at + 128].fill(0);
        b[at..at + name.len()].copy_from_slice(name.as_bytes());
        b
    };
    let first = String::from_utf8_lossy(&bytes[8..8 + 128])
        .trim_end_matches('\0')
        .to_string();
    for (name, want) in [
        (".synthetic.cbh.chessfmt-commit", "reserved"),
        (".chessfmt-1-x.tmp", "reserved"),
        (first.as_str(), "two members"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.cbv");
        std::fs::write(&path, rename(name)).unwrap();
        let out = dir.path().join("out");
        let e = Archive::open(&path, None)
            .unwrap()
            .unpack(&out, false)
            .unwrap_err();
        assert!(e.to_string().contains(want), "{name}: {e}");
        let written = std::fs::read_dir(&out).map_or(0, |d| d.count());
        assert_eq!(written, 0, "{name}: nothing written");
    }
}

/// Issue 30: unpacking over an existing database (`--force`) replaces it whole: the old
/// database's files that the archive does not have (its search indexes) are removed in the
/// same commit.
#[cfg(feature = "pgn")]
#[test]
fn unpacking_over_a_database_leaves_none_of_its_files() {
    let (mut bytes, _) = synthetic_archive();
    // Its member in a folder moved to the top (a set is committed in one folder).
    let count = u16::from_le_bytes([bytes[2], bytes[3]]) as usize;
    for i in 0..count {
        let at = 8 + 173 * i;
        let name = String::from_utf8_lossy(&bytes[at..at + 128]).into_owned();
        if name.contains('\\') || name.contains('/') {
            bytes[at..at + 128].fill(0);
            bytes[at..at + 13].copy_from_slice(b"Synthetic.txt");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.cbv");
    std::fs::write(&path, &bytes).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    for old in [
        "Synthetic.cbh",
        "Synthetic.cib",
        "Synthetic.cit2",
        "notes.txt",
    ] {
        std::fs::write(out.join(old), "old").unwrap();
    }
    let a = Archive::open(&path, None).unwrap();
    assert!(a.unpack(&out, false).is_err(), "refused without overwrite");
    a.unpack(&out, true).unwrap();
    assert!(!out.join("Synthetic.cib").exists() && !out.join("Synthetic.cit2").exists());
    assert_ne!(std::fs::read(out.join("Synthetic.cbh")).unwrap(), b"old");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "old"
    );
}
