//! The small codecs of the format: `CompactInt` and the two string forms.
//!
//! * `CompactInt`: base-128 digits, most significant first; bit 7 set on every byte but the
//!   last. The writer emits the shortest form; the reader accepts leading zero digits and
//!   refuses values beyond `u64`.
//! * Strings: a big-endian u32 length, then the characters. **Decision** (the chessfmt format
//!   notes, Kvetka): Unicode strings are UTF-16LE code units (length counts code units), ANSI
//!   strings are Windows-1251 bytes. Both choices live only in this module.

use chess_core::ParseError;
use chess_core::parse::{NomResult, Parser, be_u32, expected, run, take};

/// The largest number of bytes a `u64` takes as a `CompactInt`.
pub const COMPACT_INT_MAX_LEN: usize = 10;

/// Parses a `CompactInt` (the nom parser of the layouts).
pub(crate) fn compact(input: &[u8]) -> NomResult<'_, u64> {
    match peek_compact(input) {
        Some((value, n)) => Ok((&input[n..], value)),
        // Ten bytes with the continuation bit are a number beyond 64 bits; fewer, a cut one.
        None if input.len() >= COMPACT_INT_MAX_LEN || input.iter().any(|&b| b < 0x80) => {
            expected(input, "a CompactInt that fits 64 bits")
        }
        None => take(input.len() + 1)
            .parse(input)
            .map(|(rest, _)| (rest, 0)),
    }
}

/// Reads the `CompactInt` at the start of `data` (which starts at byte `base` of its file):
/// the value and its length in bytes.
pub fn read_compact(data: &[u8], base: u64) -> Result<(u64, usize), ParseError> {
    run(data, base, "a CompactInt", compact)
}

/// Reads the Unicode string at the start of `data`: the text and its length in bytes.
pub fn read_unicode(data: &[u8], base: u64) -> Result<(String, usize), ParseError> {
    run(data, base, "a Unicode string", unicode)
}

/// Reads the ANSI string at the start of `data`: the text and its length in bytes.
pub fn read_ansi(data: &[u8], base: u64) -> Result<(String, usize), ParseError> {
    run(data, base, "an ANSI string", ansi)
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

/// Parses a Unicode string (UTF-16LE code units, see the module notes). Unpaired surrogates
/// become U+FFFD. A length beyond the data fails at the length field, before any allocation.
pub(crate) fn unicode(input: &[u8]) -> NomResult<'_, String> {
    let (rest, len) = be_u32(input)?;
    let Some(bytes) = usize::try_from(len)
        .ok()
        .and_then(|n| n.checked_mul(2))
        .filter(|&n| n <= rest.len())
    else {
        return expected(input, "a string length within the data");
    };
    let (rest, raw) = take(bytes).parse(rest)?;
    let units: Vec<u16> = raw
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok((rest, String::from_utf16_lossy(&units)))
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

/// Parses an ANSI string (Windows-1251 bytes, see the module notes). A length beyond the data
/// fails at the length field.
pub(crate) fn ansi(input: &[u8]) -> NomResult<'_, String> {
    let (rest, len) = be_u32(input)?;
    let Some(n) = usize::try_from(len).ok().filter(|&n| n <= rest.len()) else {
        return expected(input, "a string length within the data");
    };
    let (rest, raw) = take(n).parse(rest)?;
    let (text, _, _) = encoding_rs::WINDOWS_1251.decode(raw);
    Ok((rest, text.into_owned()))
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
    use chess_core::ParseError;

    fn parse<'a, T>(
        p: impl Parser<&'a [u8], Output = T, Error = chess_core::parse::NomError<'a>>,
        data: &'a [u8],
    ) -> Result<T, ParseError> {
        run(data, 0, "a value", p).map(|(v, _)| v)
    }
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
            assert_eq!(parse(compact, bytes).unwrap(), value);
            assert_eq!(peek_compact(bytes), Some((value, bytes.len())));
        }
        // A non-shortest form still reads.
        assert_eq!(parse(compact, &[0x80, 0x05]).unwrap(), 5);
        // Truncated and overlong.
        assert!(parse(compact, &[0x81]).is_err());
        assert_eq!(peek_compact(&[0x81]), None);
        assert!(parse(compact, &[0xff; 11]).is_err());
        assert_eq!(peek_compact(&[0xff; 11]), None);
        let mut max = Vec::new();
        write_compact(&mut max, u64::MAX);
        assert_eq!(max.len(), COMPACT_INT_MAX_LEN);
        assert_eq!(parse(compact, &max).unwrap(), u64::MAX);
    }

    #[test]
    fn string_vectors() {
        let mut out = Vec::new();
        write_unicode(&mut out, "Ба");
        assert_eq!(out, [0, 0, 0, 2, 0x11, 0x04, 0x30, 0x04]);
        assert_eq!(parse(unicode, &out).unwrap(), "Ба");
        let mut out = Vec::new();
        write_ansi(&mut out, "Ботвинник, M.");
        assert_eq!(&out[..6], [0, 0, 0, 13, 0xc1, 0xee]);
        assert_eq!(parse(ansi, &out).unwrap(), "Ботвинник, M.");
        // Characters outside Windows-1251 become '?'.
        assert_eq!(ansi_bytes("Dübek 日"), b"D?bek ?");
        // A length beyond the data is an error naming the offset, not an allocation.
        let e = run(&[0xff, 0xff, 0xff, 0xff], 40, "a string", unicode).unwrap_err();
        assert_eq!(e.offset, 40);
        assert!(parse(ansi, &[0, 0, 0, 5, b'a']).is_err());
    }

    proptest! {
        #[test]
        fn compact_round_trip(v in any::<u64>()) {
            let mut out = Vec::new();
            write_compact(&mut out, v);
            prop_assert_eq!(out.len(), compact_len(v));
            prop_assert_eq!(parse(compact, &out).unwrap(), v);
        }

        #[test]
        fn unicode_round_trip(s in any::<String>()) {
            let mut out = Vec::new();
            write_unicode(&mut out, &s);
            prop_assert_eq!(parse(unicode, &out).unwrap(), s);
        }

        #[test]
        fn ansi_round_trip(s in "[ -~а-яА-ЯёЁ№]{0,40}") {
            let mut out = Vec::new();
            write_ansi(&mut out, &s);
            prop_assert_eq!(parse(ansi, &out).unwrap(), s);
        }
    }
}
