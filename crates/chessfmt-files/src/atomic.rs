//! Atomic file replacement: writers never lose data.
//!
//! [`write_atomically`] writes into a temporary file in the destination's directory and renames
//! it over the destination only when everything was written and synced. An existing
//! destination is refused unless `overwrite` is set; an input file is therefore never
//! truncated by a failed or interrupted run. [`write_files_atomically`] does the same for a set
//! of files; [`stage`] is the first half (write beside the destination) for writers that
//! rename files themselves between staging and committing.
//!
//! # Sets of files
//!
//! A format made of several files (CTG's `.ctg/.cto/.ctb`, Kvetka's `.kob…/.kin/.ksf`, the
//! parts of a split) cannot be replaced by one rename. [`FileSet`] commits such a set with a
//! redo journal: every new file is first written and synced under a temporary name; then a
//! journal naming each rename (temporary → final) and each removal is written, synced and put
//! in place by one rename — that is the commit point; then the renames and removals are done
//! and the journal is deleted. Every step of the journal can be replayed, so after a crash,
//! `kill -9` or a full disk at any point:
//!
//! - before the journal is in place, the old set is untouched (only temporary files remain);
//! - once it is, [`recover`] finishes the renames: the new set, complete.
//!
//! The readers of this workspace call [`recover`] before they open a set, so they never see a
//! mix (like SQLite's readers, which roll back a hot journal); in a read-only directory they
//! refuse the set with an error saying that a commit is unfinished. The writers call it too
//! before they write.
//!
//! ## The journal, and when it is executed
//!
//! `.<anchor name in lower case>.chessfmt-commit`, text:
//!
//! ```text
//! chessfmt-commit 2
//! set <anchor file name, hex>
//! rename <staged file name, hex> <destination name, hex> <size> <CRC-32 | ->
//! remove <name, hex>
//! end <CRC-32 of every line above>
//! ```
//!
//! A journal is a program that renames and removes files, so it is executed only when it is
//! valid and the set's own (SQLite executes a hot journal only after checking its header
//! and checksums; the same discipline): whole, of this version, its own checksum right; the
//! set it names is the one its file name is for; every destination and removal is a member
//! of that set (the anchor itself, or its stem followed by `.` or `_`: `book.ctg` →
//! `book.cto`, `book.kob` → `book_3.kob`, `db.cbh` → `db.cba`, `out.bin` → `out.bin.007`;
//! never a hidden file); every source is one of our staged files (`.chessfmt-*.tmp`) and is
//! there whole (its size, and its CRC-32 where the journal has one: an existing file linked
//! under a staged name has its size checked), or already renamed (its destination is there).
//! Anything else is left alone — nothing renamed, nothing removed — and reported through
//! [`take_notices`] ("ignoring a commit journal that is not ours"), which the CLI prints as
//! a warning. A journal of version 1 (an older chessfmt) is not executed either.
//!
//! After a crash at each step: while files are staged, the old set is untouched and the
//! staged files are removed by the next writer in the directory; once the journal is in
//! place (renamed there after it was synced: the commit point), every reader or writer of
//! the set finishes the renames; after the last rename, the journal is removed.
//!
//! ## Two processes at once
//!
//! Every set has a lock ([`crate::set_lock`]): a writer holds it exclusive from the journal's
//! rename to the journal's removal ([`FileSet::commit`]; an update in place holds it from
//! reading the set); a reader holds it shared while it opens the set's files ([`open_set`]).
//! A journal is replayed only under the exclusive lock ([`recover`], [`clean_leftovers`]
//! skip a set whose lock another process holds), so a live commit is never replayed under
//! its writer, and a reader never opens a set half renamed.
//!
//! Temporary files are named `.chessfmt-<pid>-<random>.tmp`; their writer holds a lock on
//! each for as long as it exists. One that nobody holds (its writer crashed) is removed by the
//! next write into the same directory ([`clean_leftovers`]); the process id in the name is
//! not trusted (a writer in another PID namespace is alive whatever our `/proc` says). While
//! a process runs, its temporary files are listed in a registry that a signal handler can
//! empty ([`remove_temporaries`]) before the process exits.

use std::{
    collections::BTreeSet,
    ffi::OsStr,
    fs,
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard},
};

/// The live temporary files of this process, and whether it is exiting on a signal.
struct Registry {
    temps: BTreeSet<PathBuf>,
    exiting: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    temps: BTreeSet::new(),
    exiting: false,
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

fn register(path: &Path) {
    registry().temps.insert(path.to_path_buf());
}

fn unregister(path: &Path) {
    registry().temps.remove(path);
}

/// Removes this process's temporary files (those not yet committed) and stops any commit from
/// starting: for a signal handler running on an ordinary thread (not inside the signal
/// handler itself) just before the process exits. A commit whose journal is already in place
/// is left as it is: the next reader or writer finishes it. Returns how many files were
/// removed.
pub fn remove_temporaries() -> usize {
    let mut r = registry();
    r.exiting = true;
    let mut n = 0;
    for p in std::mem::take(&mut r.temps) {
        if fs::remove_file(&p).is_ok() {
            n += 1;
        }
    }
    // Keep the lock: a commit waiting for it must not start while the process exits.
    std::mem::forget(r);
    n
}

fn temp_prefix() -> String {
    format!(".chessfmt-{}-", std::process::id())
}

/// Whether a file name is one of our temporary files' (`.chessfmt-<pid>-<random>.tmp`). The
/// process id is not used: whether the file is live is asked of its lock ([`temp_in_use`]).
fn is_temp_name(name: &OsStr) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix(".chessfmt-")?.strip_suffix(".tmp"))
        .and_then(|rest| rest.split_once('-'))
        .is_some_and(|(pid, _)| pid.parse::<u32>().is_ok())
}

/// Whether a temporary file's writer is alive: a writer holds a lock on each of its
/// temporary files for as long as they exist (see [`stage`]); a file nobody holds is a
/// leftover. (Process ids were trusted before: a writer in another PID namespace looked
/// dead, and its files were removed under it.)
fn temp_in_use(path: &Path) -> bool {
    let Ok(f) = fs::File::open(path) else {
        return false;
    };
    match f.try_lock() {
        Ok(()) => {
            let _ = f.unlock();
            false
        }
        Err(fs::TryLockError::WouldBlock) => true,
        // No locks on this file system: only our own process's files are known to be live.
        Err(fs::TryLockError::Error(_)) => true,
    }
}

fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Removes the temporary files left in `dir` by writers that are gone (crashed or killed),
/// after finishing any commit whose journal is there. Returns how many files were removed.
/// Errors (an unreadable directory) are ignored: cleaning is a courtesy.
pub fn clean_leftovers(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut journals = Vec::new();
    let mut leftovers = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        if name
            .to_str()
            .is_some_and(|n| n.starts_with('.') && n.ends_with(JOURNAL_SUFFIX))
        {
            journals.push(e.path());
        } else if is_temp_name(&name) {
            leftovers.push(e.path());
        }
    }
    // Hot journals first, each under its set's exclusive lock; a set whose lock is held is
    // being committed by a live writer: left alone.
    let mut pending = false;
    for j in &journals {
        let Some(anchor) = anchor_of_journal(j) else {
            continue;
        };
        if let Ok(Some(_lock)) = crate::set_lock::try_exclusive(&anchor) {
            let _ = replay_journal(j);
        }
        pending |= j.exists();
    }
    if pending {
        // A journal still there (live, not ours, or failing) may name staged files: none is
        // removed while it is.
        return 0;
    }
    leftovers
        .iter()
        .filter(|p| !temp_in_use(p) && fs::remove_file(p).is_ok())
        .count()
}

/// A file written and synced beside its destination, not yet in place: [`Staged::commit`]
/// renames it over the destination; dropping it removes it.
#[derive(Debug)]
pub struct Staged {
    tmp: Option<tempfile::NamedTempFile>,
    path: PathBuf,
    sum: Sum,
}

/// The size and CRC-32 of a staged file, as its commit journal records them (the CRC is
/// `None` for an existing file linked under a temporary name: its size is checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Sum {
    size: u64,
    crc: Option<u32>,
}

/// A writer that counts and checksums what goes through it.
struct Summing<W> {
    inner: W,
    hasher: crc32fast::Hasher,
    len: u64,
}

impl<W: Write> Write for Summing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A file being staged that asks the kernel to start writing each 8 MiB to disk as soon as it
/// is written (Linux's `sync_file_range` with `SYNC_FILE_RANGE_WRITE`, which does not wait),
/// so that the `fsync` before the rename finds little left to write: the disk works while the
/// program still computes, instead of after it. Elsewhere, and where the call fails (a file
/// system without it), the final `fsync` does all the work, as before.
struct Writeback<'a> {
    file: &'a mut fs::File,
    /// Bytes written so far.
    written: u64,
    /// Bytes whose writeback was started.
    started: u64,
}

/// How many written bytes wait before their writeback is started.
const WRITEBACK_STEP: u64 = 8 << 20;

impl<'a> Writeback<'a> {
    fn new(file: &'a mut fs::File) -> Self {
        Writeback {
            file,
            written: 0,
            started: 0,
        }
    }

    fn start_writeback(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let (Ok(offset), Ok(len)) = (
                libc::off64_t::try_from(self.started),
                libc::off64_t::try_from(self.written - self.started),
            ) else {
                return;
            };
            // SAFETY: the descriptor is the open file this value borrows mutably for its whole
            // life; `sync_file_range` reads no memory of ours and only starts the writeback of
            // pages already written (a failure is ignored: the `fsync` after the last write is
            // what makes the file durable).
            #[allow(unsafe_code)]
            let _ = unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    offset,
                    len,
                    libc::SYNC_FILE_RANGE_WRITE,
                )
            };
        }
        self.started = self.written;
    }
}

impl Write for Writeback<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_STEP {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// The CRC-32 of a file's content (read through the same [`Summing`] writer that staged it).
fn file_crc(path: &Path) -> io::Result<u32> {
    let mut sum = Summing {
        inner: io::sink(),
        hasher: crc32fast::Hasher::new(),
        len: 0,
    };
    io::copy(&mut fs::File::open(path)?, &mut sum)?;
    Ok(sum.hasher.finalize())
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(t) = &self.tmp {
            unregister(t.path());
        }
    }
}

impl Staged {
    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file over its destination (refusing an existing one unless `overwrite`).
    pub fn commit(mut self, overwrite: bool) -> io::Result<()> {
        let Some(tmp) = self.tmp.take() else {
            return Ok(());
        };
        {
            let mut r = registry();
            if r.exiting {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "exiting"));
            }
            r.temps.remove(tmp.path());
        }
        if overwrite {
            tmp.persist(&self.path).map_err(|e| e.error)?;
        } else {
            tmp.persist_noclobber(&self.path).map_err(|e| e.error)?;
        }
        Ok(())
    }

    /// Keeps the temporary file (it is no longer removed on drop) and returns its path.
    fn keep(mut self) -> io::Result<(PathBuf, PathBuf)> {
        let tmp = self.tmp.take().expect("a staged file");
        let path = std::mem::take(&mut self.path);
        let kept = tmp.into_temp_path().keep().map_err(|e| e.error)?;
        Ok((kept, path))
    }
}

/// The message of the `AlreadyExists` error of a refused overwrite (programs may add how to
/// allow it).
pub const ALREADY_EXISTS: &str = "already exists (not overwritten)";

/// An `AlreadyExists` error ([`ALREADY_EXISTS`]) when anything is at `path` (a dangling
/// symlink included), for writers that check a whole set of outputs before writing any.
/// A device or FIFO ([`is_special`]) is not refused: it is written through.
pub fn refuse_existing(path: &Path) -> io::Result<()> {
    if fs::symlink_metadata(path).is_ok() && !is_special(path) {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, ALREADY_EXISTS));
    }
    Ok(())
}

/// Whether `path` exists and is neither a regular file nor a directory (nor a link to one):
/// a device such as `/dev/null`, a FIFO, a socket. Such outputs are written through, never
/// replaced.
pub fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Writes a temporary file beside `path` through `write` and syncs it. Temporary files are
/// private (0600); the staged file gets the permissions of the file it will replace, or those
/// of any new file (0666 less the umask).
pub fn stage<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<(Staged, T)> {
    let dir = dir_of(path);
    let mut builder = tempfile::Builder::new();
    let prefix = temp_prefix();
    builder.prefix(&prefix).suffix(".tmp");
    let permissions = match fs::metadata(path) {
        Ok(m) => Some(m.permissions()),
        Err(_) => default_permissions(),
    };
    if let Some(p) = permissions {
        builder.permissions(p);
    }
    let tmp = {
        let r = registry();
        if r.exiting {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "exiting"));
        }
        drop(r);
        let tmp = builder.tempfile_in(dir)?;
        register(tmp.path());
        // Held for the file's life: cleaners of other processes see it is in use.
        let _ = tmp.as_file().lock();
        tmp
    };
    // Test hook (feature `failpoints`): a slow write.
    crate::failpoint::stage_sleep();
    let mut staged = Staged {
        tmp: Some(tmp),
        path: path.to_path_buf(),
        sum: Sum::default(),
    };
    let (out, sum) = {
        let file = staged.tmp.as_mut().expect("just set").as_file_mut();
        let mut w = Summing {
            inner: BufWriter::with_capacity(1 << 16, Writeback::new(file)),
            hasher: crc32fast::Hasher::new(),
            len: 0,
        };
        let out = write(&mut w)?;
        let Summing { inner, hasher, len } = w;
        let file = inner.into_inner().map_err(|e| e.into_error())?.file;
        file.sync_all()?;
        let sum = Sum {
            size: len,
            crc: Some(hasher.finalize()),
        };
        (out, sum)
    };
    staged.sum = sum;
    Ok((staged, out))
}

/// Writes `path` through `write`, atomically. Refuses to replace an existing file unless
/// `overwrite` is true. A device or FIFO at `path` (`/dev/null`, `/dev/stdout`, a named pipe)
/// is written through instead of replaced. Leftover temporary files of crashed writers in the
/// directory are removed first ([`clean_leftovers`]).
pub fn write_atomically<T>(
    path: &Path,
    overwrite: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    if is_special(path) {
        let file = fs::OpenOptions::new().write(true).open(path)?;
        let mut w = BufWriter::with_capacity(1 << 16, file);
        let out = write(&mut w)?;
        w.flush()?;
        return Ok(out);
    }
    if !overwrite {
        refuse_existing(path)?;
    }
    clean_leftovers(dir_of(path));
    let (staged, out) = stage(path, write)?;
    staged.commit(overwrite)?;
    Ok(out)
}

/// Writes several files as one step ([`FileSet`]): each goes to a temporary file beside its
/// destination; only when all of them are written and synced are they renamed over their
/// destinations, through a journal. Refuses, before writing anything, when a destination
/// exists and `overwrite` is false. `anchor` names the set (see [`FileSet::new`]).
pub fn write_files_atomically(
    anchor: &Path,
    files: &[(&Path, &[u8])],
    overwrite: bool,
) -> io::Result<()> {
    if !overwrite {
        files.iter().try_for_each(|(p, _)| refuse_existing(p))?;
    }
    let mut set = FileSet::new(anchor)?;
    for (path, bytes) in files {
        set.stage(path, |w| w.write_all(bytes))?;
    }
    set.commit()
}

/// The suffix of commit journals: `.<anchor file name>.chessfmt-commit`.
const JOURNAL_SUFFIX: &str = ".chessfmt-commit";
const JOURNAL_MAGIC: &str = "chessfmt-commit 2";

/// The journal of the set named by `anchor` (its file name in lower case, so that any letter
/// case of the anchor finds it).
pub fn journal_path(anchor: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(
        anchor
            .file_name()
            .unwrap_or_else(|| OsStr::new("set"))
            .to_string_lossy()
            .to_lowercase(),
    );
    name.push(JOURNAL_SUFFIX);
    dir_of(anchor).join(name)
}

/// The anchor of the set a journal file is for (its name in lower case, as the journal's name
/// has it).
fn anchor_of_journal(journal: &Path) -> Option<PathBuf> {
    let name = journal.file_name()?.to_str()?;
    let set = name.strip_prefix('.')?.strip_suffix(JOURNAL_SUFFIX)?;
    (!set.is_empty()).then(|| dir_of(journal).join(set))
}

/// One step of a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// Rename a kept temporary file (file name in the directory) to its destination; the
    /// file's size and checksum.
    Rename(PathBuf, PathBuf, Sum),
    /// Remove a file of the old set that the new one does not have.
    Remove(PathBuf),
}

/// A set of files written as one commit (see the [module notes](self)): stage every new
/// file, name the files of the old set that go away, then [`FileSet::commit`]. Dropping an
/// uncommitted set removes its temporary files and leaves the old set as it was.
///
/// All files of a set live in one directory.
#[derive(Debug)]
pub struct FileSet {
    dir: PathBuf,
    /// The anchor's file name: the set's name in its journal.
    set: PathBuf,
    journal: PathBuf,
    staged: Vec<Staged>,
    /// Existing files linked under temporary names, to be renamed to a new name.
    moved: Vec<(PathBuf, PathBuf)>,
    /// Open, locked handles of the linked files: cleaners see them in use.
    moved_handles: Vec<fs::File>,
    removals: Vec<PathBuf>,
}

impl FileSet {
    /// A new set in the directory of `anchor`, whose file name names the set's journal
    /// ([`journal_path`]: use the same anchor to read the set, e.g. the `.ctg` path of a CTG
    /// book). Finishes an interrupted commit of the same set and removes leftover temporary
    /// files of crashed writers first.
    pub fn new(anchor: &Path) -> io::Result<FileSet> {
        recover(anchor)?;
        let dir = dir_of(anchor).to_path_buf();
        clean_leftovers(&dir);
        Ok(FileSet {
            journal: journal_path(anchor),
            set: name_in(anchor)?,
            dir,
            staged: Vec::new(),
            moved: Vec::new(),
            moved_handles: Vec::new(),
            removals: Vec::new(),
        })
    }

    fn check_dir(&self, path: &Path) -> io::Result<()> {
        if dir_of(path) != self.dir {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: every file of a set must be in {}",
                    path.display(),
                    self.dir.display()
                ),
            ));
        }
        Ok(())
    }

    /// Writes the new content of `path` (a temporary file, synced).
    pub fn stage<T>(
        &mut self,
        path: &Path,
        write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> io::Result<T> {
        self.check_dir(path)?;
        // A device, a pipe or a folder at a destination is never replaced by a file.
        if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file() && !m.is_symlink()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: not a regular file (a device, a pipe or a folder): never replaced",
                    path.display()
                ),
            ));
        }
        let (staged, out) = stage(path, write)?;
        self.staged.push(staged);
        Ok(out)
    }

    /// Gives the existing file `from` the name `to` at the commit (a hard link under a
    /// temporary name now, a copy where links are not possible).
    pub fn rename_existing(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        self.check_dir(to)?;
        // A fresh temporary name (still registered for the signal handler); from here on the
        // set owns it, and its drop removes it if anything below fails.
        let (tmp, _) = stage(to, |_| Ok(()))?.0.keep()?;
        self.moved.push((tmp.clone(), to.to_path_buf()));
        fs::remove_file(&tmp)?;
        if fs::hard_link(from, &tmp).is_err() {
            fs::copy(from, &tmp)?;
            fs::File::open(&tmp)?.sync_all()?;
        }
        let handle = fs::File::open(&tmp)?;
        let _ = handle.lock_shared();
        self.moved_handles.push(handle);
        Ok(())
    }

    /// Removes `path` at the commit (a file of the old set that the new set does not have).
    pub fn remove(&mut self, path: &Path) -> io::Result<()> {
        self.check_dir(path)?;
        self.removals.push(path.to_path_buf());
        Ok(())
    }

    /// Commits the set: after this returns, the new set is in place; if the process dies
    /// during it, [`recover`] (which every reader and writer of this workspace calls) finishes
    /// it. Destinations are replaced (check with [`refuse_existing`] before staging).
    pub fn commit(mut self) -> io::Result<()> {
        // Exclusive for the whole commit: no reader opens the set, and no other process
        // replays this journal, while the renames are under way.
        let _lock = crate::set_lock::exclusive(&self.dir.join(&self.set))?;
        crate::failpoint::commit_point();
        let mut steps = Vec::new();
        for s in &self.staged {
            let tmp = s.tmp.as_ref().map_or(Path::new(""), |t| t.path());
            steps.push(Step::Rename(name_in(tmp)?, name_in(&s.path)?, s.sum));
        }
        for (tmp, path) in &self.moved {
            let sum = Sum {
                size: fs::metadata(tmp)?.len(),
                crc: None,
            };
            steps.push(Step::Rename(name_in(tmp)?, name_in(path)?, sum));
        }
        for p in &self.removals {
            steps.push(Step::Remove(name_in(p)?));
        }
        // The journal is written (under a temporary name) while the set still owns its files:
        // if it cannot be written (a full disk, a signal), dropping the set removes them.
        let (journal, ()) = stage(&self.journal, |w| {
            w.write_all(journal_text(&self.set, &steps).as_bytes())
        })?;
        let mut kept = Vec::new();
        // The staged files stay open (and locked) until they are renamed.
        let mut handles = Vec::new();
        for s in std::mem::take(&mut self.staged) {
            if let Some(t) = &s.tmp {
                handles.push(t.as_file().try_clone()?);
            }
            kept.push(s.keep()?.0);
        }
        kept.extend(
            std::mem::take(&mut self.moved)
                .into_iter()
                .map(|(tmp, _)| tmp),
        );
        {
            let mut r = registry();
            for tmp in &kept {
                r.temps.remove(tmp);
            }
        }
        // The commit point: the journal in place. (Its rename refuses to happen once the
        // process is exiting on a signal.)
        if let Err(e) = journal.commit(true) {
            for t in &kept {
                let _ = fs::remove_file(t);
            }
            return Err(e);
        }
        sync_dir(&self.dir);
        crate::failpoint::commit_point();
        apply(&self.dir, &steps)?;
        sync_dir(&self.dir);
        crate::failpoint::commit_point();
        fs::remove_file(&self.journal)?;
        sync_dir(&self.dir);
        Ok(())
    }
}

impl Drop for FileSet {
    /// An uncommitted set: its staged files are removed (by their own drop), and so are the
    /// links of moved files.
    fn drop(&mut self) {
        for (tmp, _) in &self.moved {
            let _ = fs::remove_file(tmp);
            unregister(tmp);
        }
    }
}

fn name_in(path: &Path) -> io::Result<PathBuf> {
    path.file_name().map(PathBuf::from).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a file name", path.display()),
        )
    })
}

/// File names are written as hex of their bytes: any name survives the journal.
fn hex_name(p: &Path) -> String {
    p.as_os_str()
        .as_encoded_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn unhex_name(s: &str) -> Option<PathBuf> {
    if !s.len().is_multiple_of(2) || s.is_empty() {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect();
    let bytes = bytes?;
    if bytes.contains(&b'/') || bytes.contains(&0) {
        return None;
    }
    // Names come from `as_encoded_bytes` of this platform's paths.
    let s = String::from_utf8(bytes.clone()).ok();
    match s {
        Some(s) => Some(PathBuf::from(s)),
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::ffi::OsStringExt;
                Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
            }
            #[cfg(not(unix))]
            None
        }
    }
}

fn journal_text(set: &Path, steps: &[Step]) -> String {
    let mut t = format!("{JOURNAL_MAGIC}\nset {}\n", hex_name(set));
    for s in steps {
        match s {
            Step::Rename(a, b, sum) => {
                let crc = sum.crc.map_or("-".to_string(), |c| format!("{c:08x}"));
                t += &format!(
                    "rename {} {} {} {crc}\n",
                    hex_name(a),
                    hex_name(b),
                    sum.size
                );
            }
            Step::Remove(a) => t += &format!("remove {}\n", hex_name(a)),
        }
    }
    let crc = crc32fast::hash(t.as_bytes());
    t += &format!("end {crc:08x}\n");
    t
}

/// A journal as read: the set's name and the steps.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Journal {
    set: PathBuf,
    steps: Vec<Step>,
}

/// Reads a journal's text: `None` unless it is a whole journal of this version whose own
/// checksum holds.
fn parse_journal(text: &str) -> Option<Journal> {
    let end = text.rfind("end ")?;
    let (body, tail) = text.split_at(end);
    let crc = u32::from_str_radix(tail.strip_prefix("end ")?.strip_suffix('\n')?, 16).ok()?;
    if crc32fast::hash(body.as_bytes()) != crc {
        return None;
    }
    let mut lines = body.lines();
    if lines.next()? != JOURNAL_MAGIC {
        return None;
    }
    let set = unhex_name(lines.next()?.strip_prefix("set ")?)?;
    let mut steps = Vec::new();
    for line in lines {
        let w: Vec<&str> = line.split(' ').collect();
        match w[..] {
            ["rename", a, b, size, crc] => {
                let crc = match crc {
                    "-" => None,
                    c => Some(u32::from_str_radix(c, 16).ok()?),
                };
                let sum = Sum {
                    size: size.parse().ok()?,
                    crc,
                };
                steps.push(Step::Rename(unhex_name(a)?, unhex_name(b)?, sum));
            }
            ["remove", a] => steps.push(Step::Remove(unhex_name(a)?)),
            _ => return None,
        }
    }
    Some(Journal { set, steps })
}

/// Whether `name` is a file of the set named `set` (the anchor's file name): the anchor
/// itself, or a name made of its stem and `.` or `_` (`book.ctg` → `book.cto`, `book.kob` →
/// `book_3.kob`, `out.bin` → `out.bin.007`, `db.cbh` → `db.cba`), in any letter case. No
/// hidden file, no other name.
fn is_member(set: &Path, name: &Path) -> bool {
    let set = set.to_string_lossy().to_lowercase();
    let name = name.to_string_lossy().to_lowercase();
    if name.starts_with('.') || set.starts_with('.') || set.is_empty() {
        return false;
    }
    let stem = set.rsplit_once('.').map_or(set.as_str(), |(s, _)| s);
    name == set
        || name
            .strip_prefix(stem)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('_'))
}

/// Why the journal at `path` is not one this set may execute, if it is not: it must name
/// the set its file name is for, move only our own temporary files, touch only the set's
/// members, and every staged file must be there whole (size and checksum) or already in
/// place.
fn check_journal(path: &Path, j: &Journal) -> Result<(), String> {
    let dir = dir_of(path);
    if journal_path(&dir.join(&j.set)).file_name() != path.file_name() {
        return Err(format!("it names another set ({})", j.set.display()));
    }
    for s in &j.steps {
        let (Step::Rename(_, to, _) | Step::Remove(to)) = s;
        if !is_member(&j.set, to) {
            return Err(format!("{} is not a file of the set", to.display()));
        }
        if let Step::Rename(tmp, to, sum) = s {
            if !is_temp_name(tmp.as_os_str()) {
                return Err(format!("{} is not a staged file", tmp.display()));
            }
            let staged = dir.join(tmp);
            match fs::symlink_metadata(&staged) {
                Ok(m) => {
                    if !m.is_file() || m.len() != sum.size {
                        return Err(format!("{} is not the file staged", tmp.display()));
                    }
                    if let Some(crc) = sum.crc
                        && file_crc(&staged).ok() != Some(crc)
                    {
                        return Err(format!("{} fails its checksum", tmp.display()));
                    }
                }
                // Renamed already: the destination must be there.
                Err(_) if fs::symlink_metadata(dir.join(to)).is_ok() => {}
                Err(_) => return Err(format!("{} is missing", tmp.display())),
            }
        }
    }
    Ok(())
}

static NOTICES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// What recovery found and did not do, for the application to show (warnings): journals that
/// are not ours, which are never executed. Emptied by the call.
pub fn take_notices() -> Vec<String> {
    std::mem::take(&mut *NOTICES.lock().unwrap_or_else(|e| e.into_inner()))
}

fn notice(message: String) {
    let mut n = NOTICES.lock().unwrap_or_else(|e| e.into_inner());
    if !n.contains(&message) {
        n.push(message);
    }
}

/// Does the steps of a journal; each can be done again (a rename whose temporary file is gone
/// was done; a removal of a missing file was done).
fn apply(dir: &Path, steps: &[Step]) -> io::Result<()> {
    for s in steps {
        match s {
            Step::Rename(tmp, to, _) => {
                let tmp = dir.join(tmp);
                if fs::symlink_metadata(&tmp).is_ok() {
                    fs::rename(&tmp, dir.join(to))?;
                    crate::failpoint::commit_point();
                }
            }
            Step::Remove(p) => {
                let p = dir.join(p);
                // Never remove what a rename of this commit put there (a name that differs
                // only in letter case on a case-insensitive file system).
                let same_as_new = steps.iter().any(|t| match t {
                    Step::Rename(_, to, _) => {
                        let (a, b) = (p.file_name(), Some(to.as_os_str()));
                        a.map(|a| a.to_string_lossy().to_lowercase())
                            == b.map(|b| b.to_string_lossy().to_lowercase())
                            && crate::files::same_file(&p, &dir.join(to))
                    }
                    Step::Remove(_) => false,
                });
                if !same_as_new {
                    match fs::remove_file(&p) {
                        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                        _ => {}
                    }
                }
            }
        }
    }
    Ok(())
}

fn replay_journal(journal: &Path) -> io::Result<bool> {
    let text = match fs::read_to_string(journal) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    // A journal is executed only when it is valid and ours (SQLite's rule for a hot
    // journal): anything else is reported and left alone, never executed.
    let checked = parse_journal(&text)
        .ok_or_else(|| "not a whole journal of this version".to_string())
        .and_then(|j| check_journal(journal, &j).map(|()| j));
    let steps = match checked {
        Ok(j) => j.steps,
        Err(why) => {
            notice(format!(
                "{}: ignoring a commit journal that is not ours ({why})",
                journal.display()
            ));
            return Ok(false);
        }
    };
    let dir = dir_of(journal);
    apply(dir, &steps)?;
    sync_dir(dir);
    fs::remove_file(journal)?;
    sync_dir(dir);
    Ok(true)
}

/// Finishes an interrupted commit of the set named by `anchor` ([`FileSet`]), if its journal
/// is there: the new set, complete. `Ok(true)` when one was finished. An error (a read-only
/// directory) means the set is half committed and must not be read.
pub fn recover(anchor: &Path) -> io::Result<bool> {
    let journal = journal_path(anchor);
    if fs::symlink_metadata(&journal).is_err() {
        return Ok(false);
    }
    // Only under the set's exclusive lock: a live writer holds it while its journal is in
    // place, so a journal seen with the lock taken is hot (its writer is gone).
    let _lock = crate::set_lock::exclusive(anchor)?;
    if fs::symlink_metadata(&journal).is_err() {
        return Ok(false);
    }
    replay_journal(&journal).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "an interrupted write left a half-committed set ({}); finishing it failed: {e}",
                journal.display()
            ),
        )
    })
}

/// Opens the set named by `anchor` for reading: its lock shared (a commit under way is
/// waited for), any hot journal finished first (under the exclusive lock), then the shared
/// lock again. Hold the guard while the set's files are opened; once they are, drop it. The
/// flag says whether a commit was finished.
pub fn open_set(anchor: &Path) -> io::Result<(crate::set_lock::SetLock, bool)> {
    let journal = journal_path(anchor);
    let lock = crate::set_lock::shared(anchor)?;
    if fs::symlink_metadata(&journal).is_err() {
        return Ok((lock, false));
    }
    drop(lock);
    let finished = recover(anchor)?;
    Ok((crate::set_lock::shared(anchor)?, finished))
}

fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
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
    fn large_files_are_written_back_while_staged_and_kept_whole() {
        // Several writeback steps, in pieces that straddle them.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let data: Vec<u8> = (0..(2 * WRITEBACK_STEP + 12_345))
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let (staged, ()) = stage(&path, |w| {
            for piece in data.chunks(1_000_003) {
                w.write_all(piece)?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(staged.sum.size, data.len() as u64);
        assert_eq!(staged.sum.crc, Some(crc32fast::hash(&data)));
        staged.commit(false).unwrap();
        assert!(fs::read(&path).unwrap() == data);
    }

    #[test]
    fn several_files_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        write_files_atomically(&a, &[(&a, b"1"), (&b, b"2")], false).unwrap();
        assert_eq!(fs::read(&b).unwrap(), b"2");
        // Refused as a whole when one exists.
        let c = dir.path().join("c");
        let e = write_files_atomically(&a, &[(&c, b"3"), (&a, b"4")], false).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert!(!c.exists());
        write_files_atomically(&a, &[(&a, b"5"), (&b, b"6")], true).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"5");
        // The two files and the set's lock file.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
        assert!(crate::set_lock::lock_path(&a).exists());
    }

    #[test]
    fn an_interrupted_commit_is_finished_by_recover() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c, d) = (
            dir.path().join("x.a"),
            dir.path().join("x.b"),
            dir.path().join("x.c"),
            dir.path().join("x.d"),
        );
        fs::write(&a, "old a").unwrap();
        fs::write(&b, "old b").unwrap();
        fs::write(&c, "old c").unwrap();
        // Stage a new set by hand and write its journal, as a commit that died right after
        // its commit point would have left it.
        let mut steps = Vec::new();
        for (path, text) in [(&a, "new a"), (&d, "new d")] {
            let (s, ()) = stage(path, |w| w.write_all(text.as_bytes())).unwrap();
            let sum = s.sum;
            let (tmp, _) = s.keep().unwrap();
            steps.push(Step::Rename(
                name_in(&tmp).unwrap(),
                name_in(path).unwrap(),
                sum,
            ));
        }
        let (tmp, _) = stage(&dir.path().join("moved"), |_| Ok(()))
            .unwrap()
            .0
            .keep()
            .unwrap();
        fs::remove_file(&tmp).unwrap();
        fs::hard_link(&b, &tmp).unwrap();
        let linked = Sum {
            size: fs::metadata(&tmp).unwrap().len(),
            crc: None,
        };
        steps.push(Step::Rename(
            name_in(&tmp).unwrap(),
            name_in(&c).unwrap(),
            linked,
        ));
        steps.push(Step::Remove(name_in(&b).unwrap()));
        // The first rename already done.
        let Step::Rename(first, _, _) = &steps[0] else {
            unreachable!()
        };
        fs::rename(dir.path().join(first), &a).unwrap();
        let anchor = dir.path().join("x");
        fs::write(journal_path(&anchor), journal_text(Path::new("x"), &steps)).unwrap();
        assert!(recover(&anchor).unwrap());
        assert!(!recover(&anchor).unwrap());
        let read = |p: &Path| fs::read_to_string(p).ok();
        assert_eq!(read(&a).as_deref(), Some("new a"));
        assert_eq!(read(&b), None);
        assert_eq!(read(&c).as_deref(), Some("old b"));
        assert_eq!(read(&d).as_deref(), Some("new d"));
        let left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".chessfmt-lock"))
            .collect();
        assert_eq!(left.len(), 3, "no journal, no temporaries: {left:?}");
    }

    /// A temporary file is a leftover when no process holds its lock (its writer is gone),
    /// whatever process id its name carries; a locked one is in use (issue 30: a writer in
    /// another PID namespace had its files removed under it).
    #[test]
    fn leftovers_of_dead_writers_are_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(".chessfmt-4294967-abc.tmp");
        let live = dir.path().join(".chessfmt-4294968-abc.tmp");
        let other = dir.path().join(".chessfmt-abcdef.tmp");
        for p in [&dead, &live, &other] {
            fs::write(p, "x").unwrap();
        }
        let holder = fs::File::open(&live).unwrap();
        holder.lock().unwrap();
        assert_eq!(clean_leftovers(dir.path()), 1);
        assert!(!dead.exists());
        assert!(live.exists() && other.exists());
        drop(holder);
        assert_eq!(clean_leftovers(dir.path()), 1);
        assert!(!live.exists());
    }

    #[test]
    fn journal_names_round_trip() {
        let sum = Sum {
            size: 7,
            crc: Some(0xdead_beef),
        };
        let steps = vec![
            Step::Rename(".chessfmt-1-a b.tmp".into(), "bööк name.ctg".into(), sum),
            Step::Remove("x y".into()),
        ];
        let set = Path::new("bööк name.ctg");
        let j = Journal {
            set: set.into(),
            steps: steps.clone(),
        };
        assert_eq!(parse_journal(&journal_text(set, &steps)), Some(j));
        let text = journal_text(set, &steps);
        let cut = &text[..text.len() - 1];
        assert_eq!(parse_journal(cut), None, "no whole end line");
        let changed = text.replacen("7 deadbeef", "8 deadbeef", 1);
        assert_eq!(parse_journal(&changed), None, "the journal's own checksum");
        assert_eq!(
            parse_journal("chessfmt-commit 1\nremove 7878\nend\n"),
            None,
            "an old version"
        );
    }

    /// Issue 30: a journal is executed only when it is valid and the set's own. Forged ones
    /// (a foreign file to remove, a rename over a member from a file that is not staged, a
    /// wrong checksum, another set's name) are reported and never executed.
    #[test]
    fn forged_journals_are_never_executed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let anchor = d.join("victim.ctg");
        fs::write(&anchor, "book").unwrap();
        fs::write(d.join("victim.ctb"), "old ctb").unwrap();
        fs::write(d.join("notes.txt"), "mine").unwrap();
        fs::write(d.join("evil"), "evil").unwrap();
        let staged = d.join(".chessfmt-1-x.tmp");
        fs::write(&staged, "new ctb").unwrap();
        let good = Sum {
            size: 7,
            crc: Some(crc32fast::hash(b"new ctb")),
        };
        let set = Path::new("victim.ctg");
        let cases: Vec<(&Path, Vec<Step>)> = vec![
            (set, vec![Step::Remove("notes.txt".into())]),
            (
                set,
                vec![Step::Rename("evil".into(), "victim.ctb".into(), good)],
            ),
            (
                set,
                vec![Step::Rename(
                    ".chessfmt-1-x.tmp".into(),
                    "victim.ctb".into(),
                    Sum {
                        size: 7,
                        crc: Some(1),
                    },
                )],
            ),
            (
                Path::new("other.ctg"),
                vec![Step::Rename(
                    ".chessfmt-1-x.tmp".into(),
                    "victim.ctb".into(),
                    good,
                )],
            ),
        ];
        for (set, steps) in cases {
            fs::write(journal_path(&anchor), journal_text(set, &steps)).unwrap();
            assert!(!recover(&anchor).unwrap(), "{steps:?}");
            clean_leftovers(d);
            assert_eq!(fs::read_to_string(d.join("notes.txt")).unwrap(), "mine");
            assert_eq!(fs::read_to_string(d.join("victim.ctb")).unwrap(), "old ctb");
            assert!(staged.exists() && d.join("evil").exists());
            let notices = take_notices();
            assert!(
                notices
                    .iter()
                    .any(|n| n.contains("ignoring a commit journal that is not ours")),
                "{notices:?}"
            );
        }
        // The set's own valid journal is executed.
        let steps = vec![Step::Rename(
            ".chessfmt-1-x.tmp".into(),
            "victim.ctb".into(),
            good,
        )];
        fs::write(journal_path(&anchor), journal_text(set, &steps)).unwrap();
        assert!(recover(&anchor).unwrap());
        assert_eq!(fs::read_to_string(d.join("victim.ctb")).unwrap(), "new ctb");
    }

    #[test]
    fn members_of_a_set() {
        let yes = [
            ("book.ctg", "book.cto"),
            ("book.ctg", "BOOK.CTB"),
            ("lichess.kob", "lichess_12.kob"),
            ("lichess.kob", "lichess.kin"),
            ("out.bin", "out.bin.007"),
            ("db.cbh", "db.cbtt"),
        ];
        for (set, name) in yes {
            assert!(is_member(Path::new(set), Path::new(name)), "{set} {name}");
        }
        let no = [
            ("book.ctg", "notes.txt"),
            ("book.ctg", "bookx.ctb"),
            ("book.ctg", ".book.ctg.chessfmt-commit"),
            ("out.bin", "outside"),
        ];
        for (set, name) in no {
            assert!(!is_member(Path::new(set), Path::new(name)), "{set} {name}");
        }
    }
}
