//! Opening data files: memory-mapped, so that framing and slicing read the page cache directly.

use std::{fs::File, io, path::Path};

/// A read-only memory map of a file (an empty file maps to an empty slice).
#[derive(Debug)]
pub struct MappedFile {
    map: Option<memmap2::Mmap>,
}

impl MappedFile {
    /// Maps `path`.
    pub fn open(path: impl AsRef<Path>) -> io::Result<MappedFile> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(MappedFile { map: None });
        }
        // SAFETY: the map is read-only; as with every memory-mapped reader, the file must not
        // be truncated by another process while it is mapped (that would be a SIGBUS, not
        // undefined behaviour in this process's memory).
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(MappedFile { map: Some(map) })
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
