//! Opening data files: memory-mapped, so that framing and slicing read the page cache directly.

use std::{io, path::Path};

/// A read-only memory map of a file (an empty file maps to an empty slice).
#[derive(Debug)]
pub struct MappedFile {
    map: Option<memmap2::Mmap>,
}

impl MappedFile {
    /// Maps `path`.
    pub fn open(path: impl AsRef<Path>) -> io::Result<MappedFile> {
        let path = path.as_ref();
        if std::fs::metadata(path)?.len() == 0 {
            return Ok(MappedFile { map: None });
        }
        Ok(MappedFile {
            map: Some(chess_core::files::map(path)?),
        })
    }
}

impl std::ops::Deref for MappedFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        self
    }
}
