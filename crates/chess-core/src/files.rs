//! Finding the files of a multi-file format beside each other.
//!
//! Books and databases copied from Windows often carry upper-case names (`BOOK.CTO`,
//! `Games_0.KOB`); a reader looking for a companion file tries the exact name, then any name
//! in the same directory that differs only in ASCII letter case.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

pub use memmap2::Mmap;

/// Memory-maps a whole file read-only (a zero-length file gives an empty map).
///
/// The one place the format crates map files. The file must not be truncated or modified by
/// another process while it is mapped (that is a `SIGBUS`); the project's writers never modify
/// a file in place (temporary file + rename), so maps of files they replace stay valid.
#[allow(unsafe_code)]
pub fn map(path: &Path) -> io::Result<Mmap> {
    let file = File::open(path)?;
    // SAFETY: read-only map of a file opened for reading; see the contract above.
    unsafe { Mmap::map(&file) }
}

/// `path` if it is a file, else a file in the same directory whose name equals `path`'s name
/// ignoring ASCII letter case.
pub fn find_any_case(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    let name = path.file_name()?.to_str()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let p = entry.path();
        let same = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(name));
        (same && p.is_file()).then_some(p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_other_letter_case() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("BOOK_0.KOB"), b"x").unwrap();
        let found = find_any_case(&dir.path().join("book_0.kob")).unwrap();
        assert_eq!(found.file_name().unwrap(), "BOOK_0.KOB");
        assert_eq!(
            find_any_case(&dir.path().join("BOOK_0.KOB")).unwrap(),
            dir.path().join("BOOK_0.KOB")
        );
        assert_eq!(find_any_case(&dir.path().join("book_1.kob")), None);
    }
}
