//! The CLI's memory-mapped inputs, and what happens when one shrinks under it.
//!
//! The libraries read files safely by default; memory mapping is their `unsafe` opt-in,
//! because a file truncated by another process while it is mapped makes the next read of a
//! lost page raise `SIGBUS`. The CLI maps its inputs (multi-gigabyte books open instantly) and
//! upholds the contract the only way a process can: [`install`] turns `SIGBUS` on a mapped
//! file into the one-line error "FILE changed while it was being read" and exit status 1,
//! instead of death by signal. The handler looks the fault address up in chess-core's table of
//! live maps ([`chessfmt_files::mapped_file_at`]), which is async-signal-safe.
//!
//! Tests reach the case deterministically through a failpoint
//! ([`chessfmt_files::failpoint::shrink_after_map`], compiled only into test builds): when
//! the environment variable `CHESSFMT_FAILPOINT_SHRINK` names a file, that file is truncated
//! right after it is mapped.

#![allow(unsafe_code)]

use std::path::Path;

use crate::{CliError, formats::Format};

/// Installs the `SIGBUS` handler and starts recording maps (first thing in `main`).
pub fn install() {
    chessfmt_files::track_mapped_files();
    #[cfg(unix)]
    // SAFETY: `on_sigbus` only calls async-signal-safe functions (atomic loads, write(2),
    // _exit(2), signal(2)); the sigaction struct is fully initialised.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

#[cfg(unix)]
extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    match chessfmt_files::mapped_file_at(addr) {
        Some(name) => {
            let parts: [&[u8]; 3] = [
                b"chessfmt: error: ",
                name,
                b" changed while it was being read (it shrank while mapped)\n",
            ];
            for p in parts {
                // SAFETY: writing a valid buffer to standard error.
                unsafe { libc::write(2, p.as_ptr().cast(), p.len()) };
            }
            // SAFETY: _exit is async-signal-safe and ends the process at once.
            unsafe { libc::_exit(1) };
        }
        None => {
            // Not one of our maps: die of the signal as the default action would.
            // SAFETY: restoring the default action; returning re-executes the faulting access.
            unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
        }
    }
}

/// A Polyglot book, mapped; `-` (standard input) and other files that cannot be mapped (a
/// pipe) are read whole instead.
pub fn polyglot(
    path: &Path,
    mode: polyglot_book::OpenMode,
) -> Result<polyglot_book::FileBook, CliError> {
    if path == Path::new("-") || std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        let data = file(path)?;
        crate::formats::refuse_wrong_kind(
            path,
            &data[..data.len().min(1 << 16)],
            Format::Polyglot,
        )?;
        return polyglot_book::Book::new(data, mode)
            .map_err(|e| CliError(format!("{}: {e}", path.display())));
    }
    if path.is_file() {
        crate::formats::refuse_wrong_kind(path, &crate::formats::head_of(path)?, Format::Polyglot)?;
    }
    // SAFETY: a shrinking file ends the process with an error message (see `install`).
    let book = unsafe { polyglot_book::Book::open_mapped(path, mode) };
    chessfmt_files::failpoint::shrink_after_map(path);
    Ok(book?)
}

/// A CTG book, mapped.
pub fn ctg(path: &Path) -> Result<ctg::FileBook, CliError> {
    crate::formats::refuse_wrong_kind(path, &[], Format::Ctg)?;
    // SAFETY: as for `polyglot`.
    let book = unsafe { ctg::Book::open_mapped(path) }?;
    chessfmt_files::failpoint::shrink_after_map(path);
    Ok(book)
}

/// A Kvetka book, mapped.
pub fn kvetka(path: &Path) -> Result<kvetka_book::FileBook, CliError> {
    crate::formats::refuse_wrong_kind(path, &[], Format::Kvetka)?;
    // SAFETY: as for `polyglot`.
    let book = unsafe { kvetka_book::Book::open_mapped(path) }?;
    chessfmt_files::failpoint::shrink_after_map(path);
    Ok(book)
}

/// A ChessBase database, mapped; a `.cbv`/`.cbz` archive is extracted into memory (with
/// `password` for a `.cbz`).
pub fn chessbase(
    path: &Path,
    password: Option<&str>,
    encoding: chessbase_db::TextEncoding,
) -> Result<chessbase_db::Database, CliError> {
    crate::formats::refuse_wrong_kind(path, &[], Format::Chessbase)?;
    if chessbase_db::archive::is_archive(path) {
        let archive = chessbase_db::archive::Archive::open(path, password)?;
        return Ok(archive.database_with_encoding(encoding)?);
    }
    // SAFETY: as for `polyglot`.
    let db = unsafe {
        chessbase_db::Database::options()
            .encoding(encoding)
            .open_mapped(path)
    }?;
    chessfmt_files::failpoint::shrink_after_map(path);
    Ok(db)
}

/// A whole file (self-play data), mapped.
pub fn file(path: &Path) -> Result<chessfmt_files::FileData, CliError> {
    // Standard input (`-`) and anything that is not a regular file (a pipe, `/dev/stdin`,
    // `<(…)`) cannot be mapped (a map of a pipe is empty): it is read to its end instead.
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
            .map_err(|e| CliError::from(chess_core::IoError::new(path, e)))?;
        return Ok(bytes.into());
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return chessfmt_files::FileData::read(path)
            .map_err(|e| CliError::from(chess_core::IoError::new(path, e)));
    }
    // SAFETY: as for `polyglot`.
    let data = unsafe { chessfmt_files::FileData::map(path) }
        .map_err(|e| CliError::from(chess_core::IoError::new(path, e)))?;
    chessfmt_files::failpoint::shrink_after_map(path);
    Ok(data)
}
