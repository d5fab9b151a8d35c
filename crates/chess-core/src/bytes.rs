//! Endian-aware readers over byte slices that never panic on short input, and the writer
//! beside them.
//!
//! [`ByteReader`] is a cursor: every read checks the remaining length first and returns a
//! [`ParseError`] naming the offset when the input is too short. The free functions read at
//! a fixed offset and return `None` when out of range. (Record layouts are parsed with nom
//! through [`crate::parse`]; these serve the loops where a layout is a single field.)
//!
//! [`ByteWriter`] writes a record field by field into a fixed buffer (an array, or a slice of
//! a larger one) in declaration order, so a layout's `to_bytes` reads like its parser.

use crate::error::ParseError;

macro_rules! fixed {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $n:expr, $conv:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(data: &[u8], offset: usize) -> Option<$ty> {
            let end = offset.checked_add($n)?;
            let bytes: [u8; $n] = data.get(offset..end)?.try_into().ok()?;
            Some(<$ty>::$conv(bytes))
        }
    };
}

fixed!(/// Big-endian `u16` at `offset`, `None` when out of range.
    be_u16, u16, 2, from_be_bytes);
fixed!(/// Big-endian `u32` at `offset`, `None` when out of range.
    be_u32, u32, 4, from_be_bytes);
fixed!(/// Big-endian `u64` at `offset`, `None` when out of range.
    be_u64, u64, 8, from_be_bytes);
fixed!(/// Little-endian `u16` at `offset`, `None` when out of range.
    le_u16, u16, 2, from_le_bytes);
fixed!(/// Little-endian `u32` at `offset`, `None` when out of range.
    le_u32, u32, 4, from_le_bytes);
fixed!(/// Little-endian `u64` at `offset`, `None` when out of range.
    le_u64, u64, 8, from_le_bytes);

/// Big-endian 24-bit unsigned integer at `offset`, `None` when out of range.
#[inline]
pub fn be_u24(data: &[u8], offset: usize) -> Option<u32> {
    let b = data.get(offset..offset.checked_add(3)?)?;
    Some(u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]))
}

/// A cursor over a byte slice with checked, endian-explicit reads.
///
/// Offsets in errors are absolute: the slice's position in its file is given by `base`.
///
/// ```
/// use chess_core::bytes::ByteReader;
/// let mut r = ByteReader::new(&[0x12, 0x34, 0x56]);
/// assert_eq!(r.u16_be().unwrap(), 0x1234);
/// assert!(r.u16_be().is_err()); // only one byte left
/// assert_eq!(r.u8().unwrap(), 0x56);
/// ```
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

macro_rules! read_int {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $n:expr, $conv:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(&mut self) -> Result<$ty, ParseError> {
            let bytes: [u8; $n] = self.array()?;
            Ok(<$ty>::$conv(bytes))
        }
    };
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `data` (offset 0).
    pub fn new(data: &'a [u8]) -> Self {
        ByteReader {
            data,
            pos: 0,
            base: 0,
        }
    }

    /// A reader over `data`, which starts at byte `base` of its file.
    pub fn with_base(data: &'a [u8], base: u64) -> Self {
        ByteReader { data, pos: 0, base }
    }

    /// The absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The position within the slice.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Whether everything has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], ParseError> {
        if n > self.remaining() {
            return Err(ParseError::truncated(
                self.offset(),
                n as u64,
                self.remaining() as u64,
            ));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<(), ParseError> {
        self.take(n).map(|_| ())
    }

    /// Takes the next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], ParseError> {
        let s = self.take(N)?;
        let mut out = [0; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8, ParseError> {
        Ok(self.array::<1>()?[0])
    }

    read_int!(/// Reads a big-endian `u16`.
        u16_be, u16, 2, from_be_bytes);
    read_int!(/// Reads a little-endian `u16`.
        u16_le, u16, 2, from_le_bytes);
    read_int!(/// Reads a big-endian `u32`.
        u32_be, u32, 4, from_be_bytes);
    read_int!(/// Reads a little-endian `u32`.
        u32_le, u32, 4, from_le_bytes);
    read_int!(/// Reads a big-endian `u64`.
        u64_be, u64, 8, from_be_bytes);
    read_int!(/// Reads a little-endian `u64`.
        u64_le, u64, 8, from_le_bytes);
    read_int!(/// Reads a little-endian `i16`.
        i16_le, i16, 2, from_le_bytes);

    /// Reads a big-endian 24-bit unsigned integer.
    pub fn u24_be(&mut self) -> Result<u32, ParseError> {
        let [a, b, c] = self.array::<3>()?;
        Ok(u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c))
    }

    /// Reads a big-endian 24-bit signed (two's complement) integer.
    pub fn i24_be(&mut self) -> Result<i32, ParseError> {
        let v = self.u24_be()?;
        Ok(((v << 8) as i32) >> 8)
    }
}

/// A cursor that writes fields in order into a fixed buffer (`[u8; N]`, `&mut [u8]`, …).
///
/// Writes past the end of the buffer are dropped (a layout longer than its buffer is a bug
/// that the round-trip tests of each layout catch); nothing panics.
///
/// ```
/// use chess_core::bytes::ByteWriter;
/// let b: [u8; 6] = ByteWriter::new([0; 6]).u8(1).u24_be(0x020304).u16_le(0x0605).finish();
/// assert_eq!(b, [1, 2, 3, 4, 5, 6]);
/// ```
#[derive(Debug, Clone)]
pub struct ByteWriter<B> {
    buf: B,
    at: usize,
}

macro_rules! write_int {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $conv:ident) => {
        $(#[$doc])*
        #[inline]
        #[must_use]
        pub fn $name(self, v: $ty) -> Self {
            self.bytes(&v.$conv())
        }
    };
}

impl<B: AsMut<[u8]>> ByteWriter<B> {
    /// A writer at the start of `buf` (whose other bytes are kept).
    pub fn new(buf: B) -> Self {
        ByteWriter { buf, at: 0 }
    }

    /// Writes `bytes`.
    #[inline]
    #[must_use]
    pub fn bytes(mut self, bytes: &[u8]) -> Self {
        let buf = self.buf.as_mut();
        let start = self.at.min(buf.len());
        let end = self.at.saturating_add(bytes.len()).min(buf.len());
        buf[start..end].copy_from_slice(&bytes[..end - start]);
        self.at = self.at.saturating_add(bytes.len());
        self
    }

    /// Fills the next `n` bytes with `f` (a fixed-size text field, say).
    #[must_use]
    pub fn field(mut self, n: usize, f: impl FnOnce(&mut [u8])) -> Self {
        let buf = self.buf.as_mut();
        let start = self.at.min(buf.len());
        let end = self.at.saturating_add(n).min(buf.len());
        f(&mut buf[start..end]);
        self.at = self.at.saturating_add(n);
        self
    }

    /// Leaves the next `n` bytes as they are.
    #[must_use]
    pub fn skip(mut self, n: usize) -> Self {
        self.at = self.at.saturating_add(n);
        self
    }

    /// Writes one byte.
    #[inline]
    #[must_use]
    pub fn u8(self, v: u8) -> Self {
        self.bytes(&[v])
    }

    write_int!(/// Writes a big-endian `u16`.
        u16_be, u16, to_be_bytes);
    write_int!(/// Writes a little-endian `u16`.
        u16_le, u16, to_le_bytes);
    write_int!(/// Writes a big-endian `u32`.
        u32_be, u32, to_be_bytes);
    write_int!(/// Writes a little-endian `u32`.
        u32_le, u32, to_le_bytes);
    write_int!(/// Writes a big-endian `i32`.
        i32_be, i32, to_be_bytes);
    write_int!(/// Writes a little-endian `i32`.
        i32_le, i32, to_le_bytes);
    write_int!(/// Writes a big-endian `u64`.
        u64_be, u64, to_be_bytes);
    write_int!(/// Writes a little-endian `u64`.
        u64_le, u64, to_le_bytes);

    /// Writes the low 24 bits of `v`, big-endian (a negative `i32` cast to `u32` gives its
    /// 24-bit two's complement).
    #[inline]
    #[must_use]
    pub fn u24_be(self, v: u32) -> Self {
        self.bytes(&v.to_be_bytes()[1..])
    }

    /// Bytes written (or skipped) so far.
    pub fn position(&self) -> usize {
        self.at
    }

    /// The buffer.
    pub fn finish(self) -> B {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_offset_reads() {
        let d = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(be_u16(&d, 0), Some(0x0102));
        assert_eq!(le_u16(&d, 0), Some(0x0201));
        assert_eq!(be_u24(&d, 6), Some(0x070809));
        assert_eq!(be_u24(&d, 7), None);
        assert_eq!(be_u32(&d, 5), Some(0x06070809));
        assert_eq!(be_u32(&d, 6), None);
        assert_eq!(be_u64(&d, 1), Some(0x0203040506070809));
        assert_eq!(le_u64(&d, 2), None);
        assert_eq!(be_u16(&d, usize::MAX), None);
    }

    #[test]
    fn cursor_reports_offset_on_short_input() {
        let d = [0xff, 0xff, 0xfe, 0x00];
        let mut r = ByteReader::with_base(&d, 100);
        assert_eq!(r.i24_be().unwrap(), -2);
        assert_eq!(r.offset(), 103);
        let e = r.u32_be().unwrap_err();
        assert_eq!(e.offset, 103);
        assert_eq!(r.u8().unwrap(), 0);
        assert!(r.is_empty());
    }

    #[test]
    fn writer_writes_in_order_and_drops_overflow() {
        let b = ByteWriter::new([0u8; 8])
            .u16_be(0x0102)
            .skip(1)
            .u32_le(0x0706_0504)
            .u16_be(0x0809)
            .finish();
        assert_eq!(b, [1, 2, 0, 4, 5, 6, 7, 8]);
        let mut slice = [0u8; 4];
        let w = ByteWriter::new(&mut slice[..])
            .u24_be(u32::MAX)
            .field(3, |f| f.fill(9));
        assert_eq!(w.position(), 6);
        assert_eq!(slice, [0xff, 0xff, 0xff, 9]);
    }
}
