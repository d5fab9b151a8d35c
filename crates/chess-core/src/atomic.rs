//! Atomic file replacement: writers never lose data.
//!
//! [`write_atomically`] writes into a temporary file in the destination's directory and renames
//! it over the destination only when everything was written and synced. An existing
//! destination is refused unless `overwrite` is set; an input file is therefore never
//! truncated by a failed or interrupted run. [`write_files_atomically`] does the same for a set
//! of files; [`stage`] is the first half (write beside the destination) for writers that
//! rename files themselves between staging and committing.

use std::{
    fs,
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
};

/// A file written and synced beside its destination, not yet in place: [`Staged::commit`]
/// renames it over the destination; dropping it removes it.
#[derive(Debug)]
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
}

impl Staged {
    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file over its destination (refusing an existing one unless `overwrite`).
    pub fn commit(self, overwrite: bool) -> io::Result<()> {
        if overwrite {
            self.tmp.persist(&self.path).map_err(|e| e.error)?;
        } else {
            self.tmp
                .persist_noclobber(&self.path)
                .map_err(|e| e.error)?;
        }
        Ok(())
    }
}

/// The message of the `AlreadyExists` error of a refused overwrite (programs may add how to
/// allow it).
pub const ALREADY_EXISTS: &str = "already exists (not overwritten)";

/// An `AlreadyExists` error ([`ALREADY_EXISTS`]) when anything is at `path` (a dangling
/// symlink included), for writers that check a whole set of outputs before writing any.
pub fn refuse_existing(path: &Path) -> io::Result<()> {
    if fs::symlink_metadata(path).is_ok() {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, ALREADY_EXISTS));
    }
    Ok(())
}

/// Writes a temporary file beside `path` through `write` and syncs it. Temporary files are
/// private (0600); the staged file gets the permissions of the file it will replace, or those
/// of any new file (0666 less the umask).
pub fn stage<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<(Staged, T)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".chessfmt-").suffix(".tmp");
    let permissions = match fs::metadata(path) {
        Ok(m) => Some(m.permissions()),
        Err(_) => default_permissions(),
    };
    if let Some(p) = permissions {
        builder.permissions(p);
    }
    let tmp = builder.tempfile_in(dir)?;
    let mut w = BufWriter::with_capacity(1 << 16, tmp);
    let out = write(&mut w)?;
    let tmp = w.into_inner().map_err(|e| e.into_error())?;
    tmp.as_file().sync_all()?;
    let staged = Staged {
        tmp,
        path: path.to_path_buf(),
    };
    Ok((staged, out))
}

/// Writes `path` through `write`, atomically. Refuses to replace an existing file unless
/// `overwrite` is true.
pub fn write_atomically<T>(
    path: &Path,
    overwrite: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    if !overwrite {
        refuse_existing(path)?;
    }
    let (staged, out) = stage(path, write)?;
    staged.commit(overwrite)?;
    Ok(out)
}

/// Writes several files as one step: each goes to a temporary file beside its destination;
/// only when all of them are written and synced are they renamed over their destinations (in
/// the given order). Refuses, before writing anything, when a destination exists and
/// `overwrite` is false. A failure while writing leaves every destination untouched.
pub fn write_files_atomically(files: &[(&Path, &[u8])], overwrite: bool) -> io::Result<()> {
    if !overwrite {
        files.iter().try_for_each(|(p, _)| refuse_existing(p))?;
    }
    let mut staged = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        staged.push(stage(path, |w| w.write_all(bytes))?.0);
    }
    staged.into_iter().try_for_each(|s| s.commit(overwrite))
}

#[cfg(unix)]
fn default_permissions() -> Option<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(fs::Permissions::from_mode(0o666))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<fs::Permissions> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_and_keeps_old_content_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.bin");
        write_atomically(&p, false, |w| w.write_all(b"one")).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"one");
        let e = write_atomically(&p, false, |w| w.write_all(b"two")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        let e = write_atomically(&p, true, |w| {
            w.write_all(b"partial")?;
            Err::<(), _>(io::Error::other("boom"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "boom");
        assert_eq!(fs::read(&p).unwrap(), b"one");
        write_atomically(&p, true, |w| w.write_all(b"three")).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"three");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_ne!(mode, 0o600, "not the private mode of temporary files");
        }
        // No temporary files left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn several_files_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        write_files_atomically(&[(&a, b"1"), (&b, b"2")], false).unwrap();
        assert_eq!(fs::read(&b).unwrap(), b"2");
        // Refused as a whole when one exists.
        let c = dir.path().join("c");
        let e = write_files_atomically(&[(&c, b"3"), (&a, b"4")], false).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert!(!c.exists());
        write_files_atomically(&[(&a, b"5"), (&b, b"6")], true).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"5");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
