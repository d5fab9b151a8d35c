//! The small codecs of the format: `CompactInt` and the two string forms.
//!
//! * `CompactInt`: base-128 digits, most significant first; bit 7 set on every byte but the
//!   last. The writer emits the shortest form; the reader accepts leading zero digits and
//!   refuses values beyond `u64`.
//! * Strings: a big-endian u32 length, then the characters. **Decision** (`specs/NOTES.md`,
//!   Kvetka): Unicode strings are UTF-16LE code units (length counts code units), ANSI strings
//!   are Windows-1251 bytes. Both choices live only in this module.

use chess_core::{ParseError, bytes::ByteReader};

/// The largest number of bytes a `u64` takes as a `CompactInt`.
pub const COMPACT_INT_MAX_LEN: usize = 10;

/// Reads a `CompactInt`.
pub fn read_compact(r: &mut ByteReader<'_>) -> Result<u64, ParseError> {
    let start = r.offset();
    let mut value = 0u64;
    loop {
        let b = r.u8()?;
        if value > u64::MAX >> 7 {
            return Err(ParseError::new(
                start,
                "a CompactInt that fits 64 bits",
                "a longer number",
            ));
        }
        value = value << 7 | u64::from(b & 0x7f);
        if b < 0x80 {
            return Ok(value);
        }
    }
}

/// Reads a `CompactInt` from the start of `data`: the value and its length in bytes, or `None`
/// when `data` ends first or the value exceeds `u64` (the fast path of block scans).
#[inline]
pub fn peek_compact(data: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in data.iter().enumerate().take(COMPACT_INT_MAX_LEN) {
        if value > u64::MAX >> 7 {
            return None;
        }
        value = value << 7 | u64::from(b & 0x7f);
        if b < 0x80 {
            return Some((value, i + 1));
        }
    }
    None
}

/// The number of bytes [`write_compact`] writes for `value`.
pub fn compact_len(value: u64) -> usize {
    let bits = 64 - value.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// Appends `value` as a `CompactInt` (shortest form).
pub fn write_compact(out: &mut Vec<u8>, value: u64) {
    let n = compact_len(value);
    for i in (0..n).rev() {
        let digit = (value >> (7 * i)) as u8 & 0x7f;
        out.push(if i == 0 { digit } else { digit | 0x80 });
    }
}

/// Reads a Unicode string (UTF-16LE code units, see the module notes). Unpaired surrogates
/// become U+FFFD.
pub fn read_unicode(r: &mut ByteReader<'_>) -> Result<String, ParseError> {
    let start = r.offset();
    let len = r.u32_be()?;
    let bytes = usize::try_from(len)
        .ok()
        .and_then(|n| n.checked_mul(2))
        .filter(|&n| n <= r.remaining())
        .ok_or_else(|| {
            ParseError::new(
                start,
                "a string length within the data",
                format!("{len} characters, {} bytes left", r.remaining()),
            )
        })?;
    let raw = r.take(bytes)?;
    let units: Vec<u16> = raw
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok(String::from_utf16_lossy(&units))
}

/// The number of code units [`write_unicode`] writes for `s`.
pub fn unicode_units(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Appends a Unicode string (u32 length in code units, then UTF-16LE).
pub fn write_unicode(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(unicode_units(s) as u32).to_be_bytes());
    for unit in s.encode_utf16() {
        out.extend_from_slice(&unit.to_le_bytes());
    }
}

/// Reads an ANSI string (Windows-1251 bytes, see the module notes).
pub fn read_ansi(r: &mut ByteReader<'_>) -> Result<String, ParseError> {
    let start = r.offset();
    let len = r.u32_be()?;
    let n = usize::try_from(len)
        .ok()
        .filter(|&n| n <= r.remaining())
        .ok_or_else(|| {
            ParseError::new(
                start,
                "a string length within the data",
                format!("{len} bytes, {} left", r.remaining()),
            )
        })?;
    let raw = r.take(n)?;
    let (text, _, _) = encoding_rs::WINDOWS_1251.decode(raw);
    Ok(text.into_owned())
}

/// The Windows-1251 bytes of `s`; characters the code page lacks become `?`.
pub fn ansi_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c as u8);
            continue;
        }
        let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(c.encode_utf8(&mut buf));
        if unmappable || bytes.len() != 1 {
            out.push(b'?');
        } else {
            out.push(bytes[0]);
        }
    }
    out
}

/// Appends an ANSI string (u32 length, then Windows-1251 bytes).
pub fn write_ansi(out: &mut Vec<u8>, s: &str) {
    let bytes = ansi_bytes(s);
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(&bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn compact_int_vectors() {
        // The description's reading loop: result = result·128 + (byte & 127) until byte < 128.
        let cases: [(u64, &[u8]); 6] = [
            (0, &[0x00]),
            (127, &[0x7f]),
            (128, &[0x81, 0x00]),
            (300, &[0x82, 0x2c]),
            (16_383, &[0xff, 0x7f]),
            (16_384, &[0x81, 0x80, 0x00]),
        ];
        for (value, bytes) in cases {
            let mut out = Vec::new();
            write_compact(&mut out, value);
            assert_eq!(out, bytes, "{value}");
            assert_eq!(compact_len(value), bytes.len());
            assert_eq!(read_compact(&mut ByteReader::new(bytes)).unwrap(), value);
            assert_eq!(peek_compact(bytes), Some((value, bytes.len())));
        }
        // A non-shortest form still reads.
        assert_eq!(
            read_compact(&mut ByteReader::new(&[0x80, 0x05])).unwrap(),
            5
        );
        // Truncated and overlong.
        assert!(read_compact(&mut ByteReader::new(&[0x81])).is_err());
        assert_eq!(peek_compact(&[0x81]), None);
        assert!(read_compact(&mut ByteReader::new(&[0xff; 11])).is_err());
        assert_eq!(peek_compact(&[0xff; 11]), None);
        let mut max = Vec::new();
        write_compact(&mut max, u64::MAX);
        assert_eq!(max.len(), COMPACT_INT_MAX_LEN);
        assert_eq!(read_compact(&mut ByteReader::new(&max)).unwrap(), u64::MAX);
    }

    #[test]
    fn string_vectors() {
        let mut out = Vec::new();
        write_unicode(&mut out, "Ба");
        assert_eq!(out, [0, 0, 0, 2, 0x11, 0x04, 0x30, 0x04]);
        assert_eq!(read_unicode(&mut ByteReader::new(&out)).unwrap(), "Ба");
        let mut out = Vec::new();
        write_ansi(&mut out, "Ботвинник, M.");
        assert_eq!(&out[..6], [0, 0, 0, 13, 0xc1, 0xee]);
        assert_eq!(
            read_ansi(&mut ByteReader::new(&out)).unwrap(),
            "Ботвинник, M."
        );
        // Characters outside Windows-1251 become '?'.
        assert_eq!(ansi_bytes("Dübek 日"), b"D?bek ?");
        // A length beyond the data is an error naming the offset, not an allocation.
        let e =
            read_unicode(&mut ByteReader::with_base(&[0xff, 0xff, 0xff, 0xff], 40)).unwrap_err();
        assert_eq!(e.offset, 40);
        assert!(read_ansi(&mut ByteReader::new(&[0, 0, 0, 5, b'a'])).is_err());
    }

    proptest! {
        #[test]
        fn compact_round_trip(v in any::<u64>()) {
            let mut out = Vec::new();
            write_compact(&mut out, v);
            prop_assert_eq!(out.len(), compact_len(v));
            prop_assert_eq!(read_compact(&mut ByteReader::new(&out)).unwrap(), v);
        }

        #[test]
        fn unicode_round_trip(s in any::<String>()) {
            let mut out = Vec::new();
            write_unicode(&mut out, &s);
            prop_assert_eq!(read_unicode(&mut ByteReader::new(&out)).unwrap(), s);
        }

        #[test]
        fn ansi_round_trip(s in "[ -~а-яА-ЯёЁ№]{0,40}") {
            let mut out = Vec::new();
            write_ansi(&mut out, &s);
            prop_assert_eq!(read_ansi(&mut ByteReader::new(&out)).unwrap(), s);
        }
    }
}
