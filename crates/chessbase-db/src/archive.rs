//! ChessBase archives: `.cbv`, and `.cbz` (the same, DES-encrypted with a password), the form
//! TWIC and most downloads ship databases in.
//!
//! The container and its four block modes (stored, LZ, Huffman, Huffman then LZ) are read by
//! the `cbvault-format` crate (MIT, written clean-room from a specification; see
//! the history of BENCHMARKS.md, up to commit 10b845e, for what was compared before choosing it).
//! This module gives it this crate's shape: [`Archive`] lists and reads members with typed errors
//! ([`ArchiveError`]: the archive, the member, the offset), [`Archive::database`] opens the
//! database inside in memory, and [`Archive::unpack`] writes the members as one set (all or none,
//! existing files refused unless asked).
//!
//! ```no_run
//! use chessbase_db::archive::Archive;
//!
//! let archive = Archive::open("twic1134.cbv", None)?;
//! for m in archive.members() {
//!     println!("{} ({} bytes)", m.name, m.size);
//! }
//! let db = archive.database()?;
//! println!("{} games", db.counts().games);
//! # Ok::<(), chessbase_db::Error>(())
//! ```

use std::path::{Path, PathBuf};

use cbvault_format::archive as cbv;

use crate::db::{Database, Files};
use crate::error::{ArchiveError, ArchiveProblem, Error};

/// One member of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberInfo {
    /// The name as stored (folders separated by `\`).
    pub name: String,
    /// Its size once extracted, in bytes.
    pub size: u64,
    /// Where its stream starts in the archive.
    pub offset: u64,
}

/// The most output one stored byte can become: a Huffman code of one bit per LZ byte (8 LZ
/// bytes a stored byte), and the LZ long run, 3 bytes and a control bit for up to 4,114 output
/// bytes (8 × 4,114 / 3.125 ≈ 10,532).
const MAX_EXPANSION: u64 = 10_600;

/// An opened `.cbv`/`.cbz` archive (its member table read; no member extracted yet).
pub struct Archive {
    inner: cbv::Archive,
    path: PathBuf,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .field("members", &self.inner.list().len())
            .finish()
    }
}

/// Where in `stream` the first block with an empty payload starts, if one does (blocks that
/// run past the end are left to the decoder, which reports them).
fn empty_block(stream: &[u8]) -> Option<usize> {
    let mut at = 0usize;
    while let Some(head) = cbv::BlockHead::parse(stream.get(at..)?) {
        if head.payload_len == 0 {
            return Some(at);
        }
        at = at.checked_add(cbv::BLOCK_HEAD + usize::from(head.payload_len))?;
    }
    None
}

/// Whether `path`'s extension is one of `exts` (any letter case).
fn has_extension(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Whether `path` names an archive by its extension (`.cbv`, `.cbz`, any letter case).
pub fn is_archive(path: &Path) -> bool {
    has_extension(path, &["cbv", "cbz"])
}

/// Whether `path` names a password-protected `.cbz`.
fn is_cbz(path: &Path) -> bool {
    has_extension(path, &["cbz"])
}

impl Archive {
    /// Opens an archive and reads its member table. A `.cbz` needs its `password` (there is no
    /// default password in ChessBase's format: a `.cbz` without one is an error naming the
    /// need); a password given for a `.cbv` is ignored.
    pub fn open(path: impl AsRef<Path>, password: Option<&str>) -> Result<Archive, Error> {
        let path = path.as_ref();
        let inner = match (is_cbz(path), password) {
            (true, None) => return Err(err(path, None, None, ArchiveProblem::NeedsPassword)),
            (true, Some(p)) => cbv::Archive::open_with_password(path, p),
            (false, _) => cbv::Archive::open(path),
        }
        .map_err(|e| convert(path, None, e))?;
        Ok(Archive {
            inner,
            path: path.to_path_buf(),
        })
    }

    /// The archive's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the archive is password-protected.
    pub fn is_encrypted(&self) -> bool {
        self.inner.is_encrypted()
    }

    /// The members, in stored order.
    pub fn members(&self) -> impl Iterator<Item = MemberInfo> + '_ {
        self.inner.list().iter().map(|m| MemberInfo {
            name: m.name().to_owned(),
            size: m.size(),
            offset: m.offset(),
        })
    }

    /// The bytes of member `name` (as stored, any letter case), extracted.
    pub fn read(&self, name: &str) -> Result<Vec<u8>, Error> {
        let member = self
            .inner
            .list()
            .iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                err(
                    &self.path,
                    Some(name),
                    None,
                    ArchiveProblem::Damaged("no such member".into()),
                )
            })?;
        self.decode(member)
    }

    fn decode(&self, member: &cbv::Member) -> Result<Vec<u8>, Error> {
        // The decoder reserves the size a member claims before it decodes: a claim no stream
        // of this length can produce is refused here, so that a small damaged archive cannot
        // ask for gigabytes (the output is bounded by the input, issue 20).
        if member.size() > member.packed().saturating_mul(MAX_EXPANSION) {
            return Err(err(
                &self.path,
                Some(member.name()),
                Some(member.offset()),
                ArchiveProblem::Damaged(format!(
                    "the member claims {} bytes from a {}-byte stream, more than the format's \
                     codes can expand to",
                    member.size(),
                    member.packed()
                )),
            ));
        }
        let stream = self
            .inner
            .stream(member)
            .map_err(|e| convert(&self.path, Some(member), e))?;
        // cbvault-format 0.1.6 indexes a block's mode byte without checking that the payload
        // has one (a panic on a payload length of 0, found by the `cbh_archive` fuzz target):
        // such a block is refused here, before its decoder sees it.
        if let Some(at) = empty_block(&stream) {
            return Err(err(
                &self.path,
                Some(member.name()),
                Some(member.offset() + at as u64),
                ArchiveProblem::Damaged(format!(
                    "the block at {at:#x} of the stream has no mode byte (payload length 0)"
                )),
            ));
        }
        let mut out = Vec::new();
        cbv::codec::decode(member, &stream, &mut out, &mut cbv::Scratch::new())
            .map_err(|e| convert(&self.path, Some(member), e))?;
        Ok(out)
    }

    /// The database in the archive (its `.cbh` and the companion files of the same name),
    /// extracted into memory. With several databases in one archive, the first `.cbh` in
    /// stored order is the one opened.
    pub fn database(&self) -> Result<Database, Error> {
        self.database_with_encoding(crate::TextEncoding::Detect)
    }

    /// [`Archive::database`] with texts that are not UTF-8 decoded as `encoding` says.
    pub fn database_with_encoding(&self, encoding: crate::TextEncoding) -> Result<Database, Error> {
        let list = self.inner.list();
        let cbh = list
            .iter()
            .find(|m| extension(m.name()).is_some_and(|e| e.eq_ignore_ascii_case("cbh")))
            .ok_or_else(|| err(&self.path, None, None, ArchiveProblem::NoDatabase))?;
        let stem = &cbh.name()[..cbh.name().len() - 4];
        let companion = |ext: &str| -> Result<Option<Vec<u8>>, Error> {
            list.iter()
                .find(|m| {
                    let n = m.name();
                    n.len() == stem.len() + 4
                        && n[..stem.len()].eq_ignore_ascii_case(stem)
                        && n[stem.len()..].eq_ignore_ascii_case(&format!(".{ext}"))
                })
                .map(|m| self.decode(m))
                .transpose()
        };
        let files = Files {
            cbh: self.decode(cbh)?,
            cbg: companion("cbg")?,
            cba: companion("cba")?,
            cbj: companion("cbj")?,
            cbp: companion("cbp")?,
            cbt: companion("cbt")?,
            cbc: companion("cbc")?,
            cbs: companion("cbs")?,
            cbe: companion("cbe")?,
        };
        // Errors name the member inside the archive: `twic1134.cbv/twic1134.cbh`.
        let name = self.path.join(cbh.name().replace('\\', "/"));
        Database::options()
            .encoding(encoding)
            .name(name)
            .from_files(files)
    }

    /// Writes every member under `dir` (folders as stored), as one set: each member is
    /// extracted and staged beside its destination, and only when all of them are written
    /// are they renamed into place (see `chessfmt_files::atomic::FileSet`). Refuses, before
    /// writing anything, a destination that exists unless `overwrite`. Returns the paths
    /// written, in stored order.
    pub fn unpack(&self, dir: impl AsRef<Path>, overwrite: bool) -> Result<Vec<PathBuf>, Error> {
        let dir = dir.as_ref();
        let mut targets = Vec::new();
        let mut names = std::collections::HashSet::new();
        for m in self.inner.list() {
            let problem = |p| err(&self.path, Some(m.name()), None, p);
            let rel = m
                .relative_path()
                .ok_or_else(|| problem(ArchiveProblem::UnsafeName))?;
            // Names of the commit machinery are refused: an archive never plants a journal.
            let file = rel
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            if file.starts_with(".chessfmt-") || file.ends_with(".chessfmt-commit") {
                return Err(problem(ArchiveProblem::ReservedName));
            }
            if !names.insert(rel.to_string_lossy().to_lowercase()) {
                return Err(problem(ArchiveProblem::DuplicateName));
            }
            targets.push((m, dir.join(rel)));
        }
        if !overwrite {
            for (_, t) in &targets {
                chessfmt_files::atomic::refuse_existing(t).map_err(|e| Error::io(t, e))?;
            }
        }
        for (_, t) in &targets {
            if let Some(parent) = t.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
        }
        let anchor = targets
            .first()
            .map_or_else(|| dir.join("archive"), |(_, t)| t.clone());
        let mut set =
            chessfmt_files::atomic::FileSet::new(&anchor).map_err(|e| Error::io(&anchor, e))?;
        for (m, t) in &targets {
            // One member in memory at a time.
            let bytes = self.decode(m)?;
            set.stage(t, |w| std::io::Write::write_all(w, &bytes))
                .map_err(|e| Error::io(t, e))?;
        }
        // Replacing a database: the old one's files that the archive does not have (its
        // search indexes .cib/.cit, …) go in the same commit, never left beside the new ones.
        if overwrite {
            let lower = |p: &Path| p.to_string_lossy().to_lowercase();
            let new: std::collections::HashSet<String> =
                targets.iter().map(|(_, t)| lower(t)).collect();
            for (_, t) in &targets {
                if !t.extension().is_some_and(|e| e.eq_ignore_ascii_case("cbh")) {
                    continue;
                }
                for ext in crate::writer::DATABASE_EXTENSIONS {
                    if let Some(old) = chessfmt_files::find_any_case(&t.with_extension(ext))
                        && !new.contains(&lower(&old))
                    {
                        set.remove(&old).map_err(|e| Error::io(&old, e))?;
                    }
                }
            }
        }
        set.commit().map_err(|e| Error::io(dir, e))?;
        Ok(targets.into_iter().map(|(_, t)| t).collect())
    }
}

fn extension(name: &str) -> Option<&str> {
    name.rsplit_once('.').map(|(_, e)| e)
}

fn err(path: &Path, member: Option<&str>, offset: Option<u64>, problem: ArchiveProblem) -> Error {
    Error::Archive(ArchiveError {
        path: path.to_path_buf(),
        member: member.map(str::to_owned),
        offset,
        problem,
    })
}

/// The reader's error as ours: the archive, the member, the offset, what was wrong.
fn convert(path: &Path, member: Option<&cbv::Member>, e: cbv::Error) -> Error {
    use cbvault_format::error::Error as F;
    let name = member.map(|m| m.name().to_owned());
    let (offset, problem) = match &e {
        cbv::Error::Format(F::WrongPassword { .. }) => (None, ArchiveProblem::WrongPassword),
        cbv::Error::Format(F::Io { path: p, source }) => {
            return Error::io(
                p.clone(),
                std::io::Error::new(source.kind(), source.to_string()),
            );
        }
        cbv::Error::Format(F::Corrupt { offset, detail, .. }) => {
            (Some(*offset), ArchiveProblem::Damaged(detail.clone()))
        }
        cbv::Error::Format(F::Truncated {
            offset,
            needed,
            available,
            ..
        }) => (
            Some(*offset),
            ArchiveProblem::Damaged(format!(
                "cut short: {needed} bytes needed, {available} left"
            )),
        ),
        cbv::Error::Truncated {
            at, needed, have, ..
        } => (
            Some(*at),
            ArchiveProblem::Damaged(format!(
                "the stream ends early: {needed} bytes needed, {have} there"
            )),
        ),
        cbv::Error::UnsafeName { .. } => (None, ArchiveProblem::UnsafeName),
        other => (None, ArchiveProblem::Damaged(other.to_string())),
    };
    Error::Archive(ArchiveError {
        path: path.to_path_buf(),
        member: name,
        offset: member.map_or(offset, |m| offset.or(Some(m.offset()))),
        problem,
    })
}
