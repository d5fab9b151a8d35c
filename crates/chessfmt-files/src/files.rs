//! Byte sources and companion files.
//!
//! * [`FileData`]: the bytes of a file. [`FileData::read`] reads the file into memory and is
//!   safe; [`FileData::map`] memory-maps it (feature `mmap`) and is `unsafe`, because a file
//!   truncated by another process while it is mapped makes any read of the lost pages a
//!   `SIGBUS`. Programs that map files can name the file in that case: see
//!   [`track_mapped_files`] and [`mapped_file_at`].
//! * [`find_any_case`] and [`CompanionSet`]: the files of a multi-file format (`.ctg/.cto/.ctb`,
//!   `.cbh/.cbg/…`, `.kob/.kin/.ksf`) beside each other, in any ASCII letter case, as books
//!   and databases copied from Windows often carry upper-case names (`BOOK.CTO`).

use std::fs;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// The bytes of a file, read into memory or memory-mapped.
///
/// Both kinds dereference to `&[u8]`; format crates accept any `AsRef<[u8]>`, so a `Vec<u8>`
/// or a `&[u8]` works wherever a `FileData` does.
pub struct FileData {
    inner: Inner,
}

enum Inner {
    Owned(Vec<u8>),
    #[cfg(feature = "mmap")]
    Mapped(memmap2::Mmap, Option<tracking::Slot>),
}

impl std::fmt::Debug for FileData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileData")
            .field("len", &self.len())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

impl FileData {
    /// Reads the whole file into memory.
    pub fn read(path: impl AsRef<Path>) -> io::Result<FileData> {
        Ok(FileData::from(fs::read(path)?))
    }

    /// Memory-maps the whole file read-only (an empty file gives an empty slice).
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified while the returned value (or anything
    /// borrowing from it) is alive. Shrinking it makes reads of the lost pages raise `SIGBUS`;
    /// modifying it changes bytes that safe code treats as immutable. The chessfmt writers
    /// never modify a file in place (they write a temporary file and rename it), so files they
    /// replace stay valid; other programs give no such promise. A program can turn the signal
    /// into an error message with [`track_mapped_files`] and [`mapped_file_at`].
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn map(path: impl AsRef<Path>) -> io::Result<FileData> {
        let path = path.as_ref();
        let file = fs::File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(FileData::from(Vec::new()));
        }
        // SAFETY: read-only map of a file opened for reading; the caller keeps the contract
        // above.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        let slot = tracking::register(map.as_ptr() as usize, map.len(), path);
        Ok(FileData {
            inner: Inner::Mapped(map, slot),
        })
    }

    /// Says that the bytes in `range` will not be read again soon, so that a memory map's pages
    /// there leave the process's resident memory: a reader that goes through a mapped file once
    /// (a PGN being tokenised) then holds only the part it is reading, not everything it read.
    ///
    /// Nothing else changes: the bytes stay readable and the same (a page read again is
    /// fetched again from the file, usually from the operating system's cache). Only whole
    /// 64 KiB blocks inside `range` are released; bytes read into memory, ranges beyond the
    /// end and systems without the hint are left as they are.
    pub fn release(&self, range: std::ops::Range<usize>) {
        #[cfg(all(feature = "mmap", unix))]
        if let Inner::Mapped(map, _) = &self.inner {
            const BLOCK: usize = 1 << 16;
            let start = range.start.next_multiple_of(BLOCK);
            let end = range.end.min(map.len()) / BLOCK * BLOCK;
            if start < end {
                // SAFETY: `Mmap::map` makes a shared, read-only map of a file: MADV_DONTNEED
                // only drops this process's view of the pages, and the next read of one
                // faults it in again from the file with the same bytes (unlike a private or
                // anonymous map, whose pages it would zero). The offsets lie inside the map.
                // A failure leaves the pages resident, which is all the hint is about.
                #[allow(unsafe_code)]
                let _ = unsafe {
                    map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        start,
                        end - start,
                    )
                };
            }
        }
        #[cfg(not(all(feature = "mmap", unix)))]
        let _ = range;
    }

    /// Whether the bytes are a memory map.
    pub fn is_mapped(&self) -> bool {
        match &self.inner {
            Inner::Owned(_) => false,
            #[cfg(feature = "mmap")]
            Inner::Mapped(..) => true,
        }
    }
}

/// How a multi-file reader loads each of its files: read into memory (safe), or memory-mapped
/// (chosen through an `unsafe` constructor, so loading itself is safe to call). The format
/// crates' `open` and `unsafe open_mapped` share one opening routine that takes a `Loader`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loader {
    map: bool,
}

impl Loader {
    /// Reads every file into memory ([`FileData::read`]).
    pub const READ: Loader = Loader { map: false };

    /// Memory-maps every file ([`FileData::map`]).
    ///
    /// # Safety
    ///
    /// The contract of [`FileData::map`] holds for every file loaded with the returned value.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)]
    pub unsafe fn mapped() -> Loader {
        Loader { map: true }
    }

    /// The bytes of `path`, read or mapped.
    pub fn load(self, path: &Path) -> io::Result<FileData> {
        #[cfg(feature = "mmap")]
        if self.map {
            // SAFETY: a mapping `Loader` exists only through `Loader::mapped`, whose caller
            // took on the contract of `FileData::map`.
            #[allow(unsafe_code)]
            return unsafe { FileData::map(path) };
        }
        FileData::read(path)
    }
}

impl From<Vec<u8>> for FileData {
    fn from(v: Vec<u8>) -> FileData {
        FileData {
            inner: Inner::Owned(v),
        }
    }
}

impl Deref for FileData {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        match &self.inner {
            Inner::Owned(v) => v,
            #[cfg(feature = "mmap")]
            Inner::Mapped(m, _) => m,
        }
    }
}

impl AsRef<[u8]> for FileData {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self
    }
}

#[cfg(feature = "mmap")]
impl Drop for FileData {
    fn drop(&mut self) {
        if let Inner::Mapped(_, Some(slot)) = &self.inner {
            tracking::release(*slot);
        }
    }
}

/// From now on, every [`FileData::map`] records the address range and path of its map so that
/// [`mapped_file_at`] can name the file behind a faulting address. Meant for programs that
/// install a `SIGBUS` handler; libraries need not call it.
#[cfg(feature = "mmap")]
pub fn track_mapped_files() {
    tracking::ENABLED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// The path (as bytes) of the tracked memory map that contains `addr`, if any.
///
/// Async-signal-safe: it only reads atomics and never allocates, so a `SIGBUS` handler may
/// call it with the signal's fault address. Only maps made after [`track_mapped_files`] and
/// still alive are known.
#[cfg(feature = "mmap")]
pub fn mapped_file_at(addr: usize) -> Option<&'static [u8]> {
    tracking::lookup(addr)
}

#[cfg(feature = "mmap")]
mod tracking {
    //! A fixed table of live maps, readable from a signal handler (atomics only). Paths are
    //! leaked when recorded (only while tracking is on, i.e. in programs that asked for it),
    //! so a handler never reads freed memory.

    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

    pub(super) static ENABLED: AtomicBool = AtomicBool::new(false);

    const SLOTS: usize = 64;
    static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static LEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static NAME: [AtomicPtr<u8>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
    static NAME_LEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

    /// A slot index in the table.
    #[derive(Debug, Clone, Copy)]
    pub(super) struct Slot(usize);

    pub(super) fn register(start: usize, len: usize, path: &Path) -> Option<Slot> {
        if !ENABLED.load(Ordering::SeqCst) || start == 0 {
            return None;
        }
        let name: &'static mut [u8] = Box::leak(
            path.as_os_str()
                .as_encoded_bytes()
                .to_vec()
                .into_boxed_slice(),
        );
        for i in 0..SLOTS {
            if START[i]
                .compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                NAME_LEN[i].store(name.len(), Ordering::SeqCst);
                NAME[i].store(name.as_mut_ptr(), Ordering::SeqCst);
                LEN[i].store(len, Ordering::SeqCst);
                return Some(Slot(i));
            }
        }
        None
    }

    pub(super) fn release(slot: Slot) {
        LEN[slot.0].store(0, Ordering::SeqCst);
        START[slot.0].store(0, Ordering::SeqCst);
    }

    pub(super) fn lookup(addr: usize) -> Option<&'static [u8]> {
        for i in 0..SLOTS {
            let start = START[i].load(Ordering::SeqCst);
            let len = LEN[i].load(Ordering::SeqCst);
            if start != 0 && addr >= start && addr - start < len {
                let name = NAME[i].load(Ordering::SeqCst);
                let n = NAME_LEN[i].load(Ordering::SeqCst);
                if name.is_null() {
                    return None;
                }
                // SAFETY: `name` points at `n` bytes leaked by `register`, never freed.
                #[allow(unsafe_code)]
                return Some(unsafe { std::slice::from_raw_parts(name, n) });
            }
        }
        None
    }
}

/// Whether `a` and `b` name the same existing file: the same device and inode (a hard link
/// or another spelling of the path is found too); where there are no inodes, the same
/// canonical path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        matches!(
            (fs::canonicalize(a), fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
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
    fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let p = entry.path();
        let same = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(name));
        (same && p.is_file()).then_some(p)
    })
}

/// The files of one multi-file format found beside each other: given any one of them (or the
/// base path without extension), each companion extension resolved to an existing file in any
/// ASCII letter case.
///
/// ```no_run
/// use chessfmt_files::CompanionSet;
/// let set = CompanionSet::find("books/PERFECT.CTO", &["ctg", "cto", "ctb"]);
/// assert_eq!(set.base().file_name().unwrap(), "PERFECT");
/// let ctg = set.get("ctg"); // Some("books/PERFECT.CTG") if it exists
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompanionSet {
    base: PathBuf,
    found: Vec<(&'static str, Option<PathBuf>)>,
}

impl CompanionSet {
    /// Looks for `base.EXT` for each of `extensions` (lower case), where `base` is `path`
    /// without its extension when that extension (in any case) is one of `extensions`, else
    /// `path` itself.
    pub fn find(path: impl AsRef<Path>, extensions: &[&'static str]) -> CompanionSet {
        let path = path.as_ref();
        let base = match path.extension().and_then(|e| e.to_str()) {
            Some(e) if extensions.iter().any(|x| x.eq_ignore_ascii_case(e)) => {
                path.with_extension("")
            }
            _ => path.to_path_buf(),
        };
        let found = extensions
            .iter()
            .map(|&ext| (ext, find_any_case(&with_added_extension(&base, ext))))
            .collect();
        CompanionSet { base, found }
    }

    /// The common path without extension.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The existing file with extension `ext` (as passed to [`CompanionSet::find`]).
    pub fn get(&self, ext: &str) -> Option<&Path> {
        self.found
            .iter()
            .find(|(e, _)| *e == ext)
            .and_then(|(_, p)| p.as_deref())
    }

    /// The path the file with extension `ext` has or would have (`base.ext`, in the letter
    /// case found, else lower case).
    pub fn path(&self, ext: &str) -> PathBuf {
        self.get(ext)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| with_added_extension(&self.base, ext))
    }

    /// The extensions that were not found.
    pub fn missing(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.found
            .iter()
            .filter(|(_, p)| p.is_none())
            .map(|(e, _)| *e)
    }
}

/// `base` with `.ext` appended (keeps dots already in the file name, unlike
/// [`Path::with_extension`]).
pub fn with_added_extension(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resident kilobytes of the map that starts at `addr` (`/proc/self/smaps`).
    #[cfg(all(feature = "mmap", target_os = "linux"))]
    fn resident_kb(addr: usize) -> u64 {
        let smaps = fs::read_to_string("/proc/self/smaps").unwrap();
        let mut lines = smaps.lines();
        let start = format!("{addr:x}-");
        lines
            .find(|l| l.starts_with(&start))
            .expect("the map is listed");
        let rss = lines.find(|l| l.starts_with("Rss:")).unwrap();
        rss.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[cfg(all(feature = "mmap", target_os = "linux"))]
    #[test]
    fn released_pages_leave_memory_and_keep_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.pgn");
        let bytes: Vec<u8> = (0..4u32 << 20).map(|i| (i * 7 + i / 4096) as u8).collect();
        fs::write(&path, &bytes).unwrap();
        #[allow(unsafe_code)]
        // SAFETY: the file is this test's own and stays as it is.
        let data = unsafe { FileData::map(&path) }.unwrap();
        assert_eq!(&data[..], &bytes[..]);
        let addr = data.as_ptr() as usize;
        assert!(resident_kb(addr) >= 4096, "all read, all resident");
        data.release(100..(1 << 20) + 5);
        // (How much leaves depends on how the kernel mapped the file: large folios go whole.)
        assert!(resident_kb(addr) < 4096);
        assert_eq!(&data[..1 << 20], &bytes[..1 << 20]);
        data.release(0..data.len() + 1);
        assert_eq!(resident_kb(addr), 0);
        assert_eq!(&data[..], &bytes[..], "the same bytes, read again");
        // Bytes in memory are never touched.
        let owned = FileData::from(bytes.clone());
        owned.release(0..owned.len());
        assert_eq!(&owned[..], &bytes[..]);
    }

    #[test]
    fn finds_other_letter_case() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("BOOK_0.KOB"), b"x").unwrap();
        let found = find_any_case(&dir.path().join("book_0.kob")).unwrap();
        assert_eq!(found.file_name().unwrap(), "BOOK_0.KOB");
        assert_eq!(
            find_any_case(&dir.path().join("BOOK_0.KOB")).unwrap(),
            dir.path().join("BOOK_0.KOB")
        );
        assert_eq!(find_any_case(&dir.path().join("book_1.kob")), None);
    }

    #[test]
    fn companion_set_from_any_member() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("my.book.CTG"), b"g").unwrap();
        fs::write(dir.path().join("my.book.cto"), b"o").unwrap();
        let exts = &["ctg", "cto", "ctb"];
        for given in ["my.book.cto", "my.book.CTG", "my.book.ctb", "my.book"] {
            let set = CompanionSet::find(dir.path().join(given), exts);
            assert_eq!(set.base(), dir.path().join("my.book"), "{given}");
            assert_eq!(set.get("ctg"), Some(&*dir.path().join("my.book.CTG")));
            assert_eq!(set.get("cto"), Some(&*dir.path().join("my.book.cto")));
            assert_eq!(set.get("ctb"), None);
            assert_eq!(set.missing().collect::<Vec<_>>(), ["ctb"]);
            assert_eq!(set.path("ctb"), dir.path().join("my.book.ctb"));
        }
    }

    #[test]
    fn read_and_map_agree() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, b"hello").unwrap();
        let r = FileData::read(&p).unwrap();
        assert_eq!(&*r, b"hello");
        assert!(!r.is_mapped());
        #[cfg(feature = "mmap")]
        {
            track_mapped_files();
            // SAFETY: the test owns the file and does not change it while mapped.
            #[allow(unsafe_code)]
            let m = unsafe { FileData::map(&p).unwrap() };
            assert!(m.is_mapped());
            assert_eq!(&*m, b"hello");
            let addr = m.as_ptr() as usize + 2;
            assert_eq!(mapped_file_at(addr), Some(p.as_os_str().as_encoded_bytes()));
            drop(m);
            assert_eq!(mapped_file_at(addr), None);
            fs::write(&p, b"").unwrap();
            // SAFETY: as above.
            #[allow(unsafe_code)]
            let empty = unsafe { FileData::map(&p).unwrap() };
            assert!(empty.is_empty());
        }
    }
}
