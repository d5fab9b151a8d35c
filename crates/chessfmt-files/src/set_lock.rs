//! Locks between processes for the sets of files of [`crate::atomic`]: an advisory lock
//! (`flock`, through `std::fs::File::lock`) on a lock file beside the set,
//! `.<anchor name in lower case>.chessfmt-lock`.
//!
//! Why a lock file and `flock`: the set's own files are replaced by renames, and a lock on a
//! file that a rename replaces guards nothing; the lock file is never replaced or removed.
//! `flock` locks belong to an open file description, so they are released when the process
//! dies, whatever kills it (no stale lock, no process id to trust — a process id says nothing
//! about a writer in another PID namespace); OFD `fcntl` locks would do as well, but
//! `flock` is what the standard library offers on every Unix. Like SQLite's locks they are
//! advisory: they order chessfmt's readers and writers, not other programs.
//!
//! The states (SQLite's, reduced to two): a reader holds the lock **shared** while it opens
//! the set's files (an open file keeps its content after a rename, so once the files are
//! open the reader needs the lock no more); a writer holds it **exclusive** while it commits
//! (journal in place, renames, journal removed) and, for an update in place (`kvetka add`),
//! from reading the set to the end of its commit, so that two updates serialise instead of
//! one losing the other. A reader that finds a journal while it holds the shared lock knows
//! the journal is hot (its writer is gone: a live writer would hold the lock exclusively), and
//! finishes the commit under the exclusive lock before reading.
//!
//! The lock file is made by the first writer of a set; a reader never makes it (it writes
//! nothing into a folder it reads) and reads unlocked where there is none yet — where no
//! chessfmt of this version has written the set. (A reader that starts before the very first
//! locked commit in a folder makes the lock file is not ordered with it; every later one is.)
//!
//! A lock already held by this process (an update in place that opens the book it updates)
//! is not taken again: `flock` locks of two descriptions of one file conflict even within one
//! process.

use std::{
    collections::HashMap,
    ffi::OsString,
    fs::{self, File, OpenOptions},
    io,
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard},
};

/// The lock file of the set named by `anchor`.
pub fn lock_path(anchor: &Path) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(
        anchor
            .file_name()
            .map_or_else(|| "set".into(), |n| n.to_string_lossy().to_lowercase()),
    );
    name.push(".chessfmt-lock");
    match anchor.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.join(name),
        _ => PathBuf::from(name),
    }
}

/// Identity of a lock file (device and inode where there are such), for the locks this
/// process holds.
type FileKey = (u64, u64);

fn key_of(file: &File, path: &Path) -> FileKey {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        file.metadata().map_or((0, 0), |m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        use std::hash::{Hash, Hasher};
        let _ = file;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .hash(&mut h);
        (h.finish(), 0)
    }
}

/// The locks this process holds: lock file → (exclusive, how many guards).
static HELD: Mutex<Option<HashMap<FileKey, (bool, usize)>>> = Mutex::new(None);

fn held() -> MutexGuard<'static, Option<HashMap<FileKey, (bool, usize)>>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// A lock on a set, held until dropped. A guard that holds nothing is possible: the set's
/// folder cannot hold a lock file (read-only with no lock file made yet: then no chessfmt
/// writer can commit there either; a full disk), the file system has no locks, or this
/// process already holds the lock.
#[derive(Debug)]
pub struct SetLock {
    file: Option<File>,
    key: Option<FileKey>,
}

impl SetLock {
    /// Whether this guard holds a lock of its own (not one held elsewhere in the process).
    pub fn is_held(&self) -> bool {
        self.file.is_some()
    }
}

impl Drop for SetLock {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            let mut h = held();
            if let Some(map) = h.as_mut()
                && let Some(e) = map.get_mut(&key)
            {
                e.1 -= 1;
                if e.1 == 0 {
                    map.remove(&key);
                }
            }
        }
        if let Some(f) = &self.file {
            let _ = f.unlock();
        }
    }
}

/// The lock file, made if `create` (writers) or only if it exists (readers: a reader never
/// writes into a folder it reads).
fn open_lock_file(path: &Path, create: bool) -> io::Result<Option<File>> {
    if !create {
        return Ok(File::open(path).ok());
    }
    match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Ok(f) => Ok(Some(f)),
        // A folder we cannot write: a lock file made by someone who could is still used.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            match File::open(path) {
                Ok(f) => Ok(Some(f)),
                Err(_) => Ok(None),
            }
        }
        // No folder (a set not written yet), or no room for the lock file (a full disk: a
        // reader must still read; a writer fails on its own files anyway): unlocked.
        Err(_) => Ok(None),
    }
}

/// Takes the lock of the set named by `anchor` (waiting for it), or `None` where `wait` is
/// false and another process holds it in a conflicting way.
fn take(anchor: &Path, exclusive: bool, wait: bool) -> io::Result<Option<SetLock>> {
    let path = lock_path(anchor);
    let Some(file) = open_lock_file(&path, exclusive)? else {
        return Ok(Some(SetLock {
            file: None,
            key: None,
        }));
    };
    let key = key_of(&file, &path);
    {
        let mut h = held();
        let map = h.get_or_insert_with(HashMap::new);
        if let Some(e) = map.get_mut(&key) {
            // Held by this process: a shared request is covered by either kind, an
            // exclusive one only by an exclusive lock (upgrading would deadlock with
            // ourselves; it is a bug of the caller).
            if e.0 || !exclusive {
                e.1 += 1;
                return Ok(Some(SetLock {
                    file: None,
                    key: Some(key),
                }));
            }
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "{}: this process holds the lock shared and asks for it exclusive",
                    path.display()
                ),
            ));
        }
    }
    let got = match (exclusive, wait) {
        (true, true) => file.lock().map(|()| true),
        (false, true) => file.lock_shared().map(|()| true),
        (true, false) => match file.try_lock() {
            Ok(()) => Ok(true),
            Err(fs::TryLockError::WouldBlock) => Ok(false),
            Err(fs::TryLockError::Error(e)) => Err(e),
        },
        (false, false) => match file.try_lock_shared() {
            Ok(()) => Ok(true),
            Err(fs::TryLockError::WouldBlock) => Ok(false),
            Err(fs::TryLockError::Error(e)) => Err(e),
        },
    };
    match got {
        Ok(true) => {}
        Ok(false) => return Ok(None),
        // A file system without locks: go on unlocked (as before locks existed).
        Err(e) if e.kind() == io::ErrorKind::Unsupported => {
            return Ok(Some(SetLock {
                file: None,
                key: None,
            }));
        }
        Err(e) => return Err(e),
    }
    held()
        .get_or_insert_with(HashMap::new)
        .insert(key, (exclusive, 1));
    Ok(Some(SetLock {
        file: Some(file),
        key: Some(key),
    }))
}

/// The set's lock, shared (readers), waiting for a writer's commit to end.
pub fn shared(anchor: &Path) -> io::Result<SetLock> {
    Ok(take(anchor, false, true)?.expect("a waiting lock is taken"))
}

/// The set's lock, exclusive (writers), waiting for readers and other writers.
pub fn exclusive(anchor: &Path) -> io::Result<SetLock> {
    Ok(take(anchor, true, true)?.expect("a waiting lock is taken"))
}

/// The set's lock, exclusive, only if no other process holds it.
pub fn try_exclusive(anchor: &Path) -> io::Result<Option<SetLock>> {
    take(anchor, true, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_takes_its_own_lock_again_and_other_descriptions_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let anchor = dir.path().join("Book.ctg");
        assert_eq!(
            lock_path(&anchor).file_name().unwrap(),
            ".book.ctg.chessfmt-lock"
        );
        let x = exclusive(&anchor).unwrap();
        assert!(x.is_held());
        // Again in this process: covered, not taken twice.
        let again = shared(&anchor).unwrap();
        assert!(!again.is_held());
        drop(again);
        // Another description of the lock file (another process would have one) conflicts.
        let other = File::open(lock_path(&anchor)).unwrap();
        assert!(matches!(
            other.try_lock_shared(),
            Err(fs::TryLockError::WouldBlock)
        ));
        drop(x);
        other.try_lock_shared().unwrap();
        // Held shared elsewhere: no exclusive without waiting.
        assert!(try_exclusive(&anchor).unwrap().is_none());
        other.unlock().unwrap();
        assert!(try_exclusive(&anchor).unwrap().is_some());
    }
}
