//! Opening data files.
//!
//! Every reader of this crate works on a byte slice (or an [`std::io::Read`] stream through
//! [`crate::positions`]); [`FileData`] is the file source chess-core provides:
//! [`FileData::read`] reads the file (safe), `FileData::map` memory-maps it (an `unsafe`
//! opt-in with feature `mmap`: framing and slicing then read the page cache directly).

pub use chessfmt_files::FileData;
