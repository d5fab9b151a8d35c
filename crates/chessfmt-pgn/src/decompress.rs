//! Compressed input: gzip, zstd or xz recognised by their magic bytes ([`decompressed`],
//! [`open_decompressed`]); Parquet tables of games too (feature `parquet`).

use std::{
    fs::File,
    io::{self, BufReader, Read},
    path::Path,
};

/// Compression of a PGN input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`, lichess dumps).
    Zstd,
    /// xz (`.xz`).
    Xz,
    /// A Parquet table of games (lichess's Parquet files): read as PGN by
    /// [`crate::ParquetGames`] (feature `parquet`).
    Parquet,
}

impl Compression {
    /// Recognises the compression from the first bytes of a file.
    pub fn detect(magic: &[u8]) -> Compression {
        if magic.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if magic.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else if magic.starts_with(b"PAR1") {
            Compression::Parquet
        } else {
            Compression::None
        }
    }
}

/// Opens a possibly compressed file as a stream of decompressed bytes.
pub fn open_decompressed(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    #[cfg_attr(not(feature = "parquet"), allow(unused_mut))]
    let mut file = File::open(path)?;
    #[cfg(feature = "parquet")]
    {
        let mut head = [0u8; 4];
        let n = file.read(&mut head)?;
        io::Seek::rewind(&mut file)?;
        if Compression::detect(&head[..n]) == Compression::Parquet {
            return Ok(Box::new(crate::ParquetGames::open(file)?));
        }
    }
    decompressed(file)
}

/// A possibly compressed stream (standard input, a socket, …) as decompressed bytes: the
/// compression is recognised from the first bytes, as for files.
pub fn decompressed(mut source: impl Read + Send + 'static) -> io::Result<Box<dyn Read + Send>> {
    // The longest magic (xz's 6 bytes) read whole first: a pipe may hand out fewer bytes
    // per read, and one byte of a gzip header must not make the stream "plain text".
    let mut head = [0u8; 6];
    let mut got = 0;
    while got < head.len() {
        match source.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let magic = head[..got].to_vec();
    let file = BufReader::with_capacity(1 << 16, io::Cursor::new(magic).chain(source));
    Ok(match Compression::detect(&head[..got]) {
        Compression::None => Box::new(file),
        #[cfg(feature = "gzip")]
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(file)),
        #[cfg(feature = "zstd")]
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(file)?),
        #[cfg(feature = "xz")]
        Compression::Xz => Box::new(xz2::bufread::XzDecoder::new_multi_decoder(file)),
        // A stream has no random access: the table is read whole into memory.
        #[cfg(feature = "parquet")]
        Compression::Parquet => {
            let mut bytes = Vec::new();
            let mut file = file;
            file.read_to_end(&mut bytes)?;
            Box::new(crate::ParquetGames::from_bytes(bytes)?)
        }
        #[allow(unreachable_patterns)]
        other => return Err(unsupported(other)),
    })
}

#[allow(dead_code)]
fn unsupported(c: Compression) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{c:?}-compressed input needs chess-core's `{c:?}` feature (not enabled in this build)"
        )
        .to_lowercase(),
    )
}
