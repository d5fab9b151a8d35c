//! nom glue for the `raw` layers of the format crates.
//!
//! Record layouts are written as nom 8 parsers over `&[u8]` (with nom's default error type);
//! [`run`] applies one to a slice and turns a failure into the family's [`ParseError`] with
//! the absolute byte offset where it stopped. nom types stay inside the crates: public
//! signatures take and return slices, records and `ParseError`.
//!
//! ```
//! use chess_core::parse::{be_u16, be_u32, run};
//!
//! let bytes = [0x00, 0x2a, 0x00, 0x00, 0x01];
//! let ((a, b), used) = run(&bytes[..], 0, "a page header", (be_u16, be_u16)).unwrap();
//! assert_eq!((a, b, used), (42, 0, 4));
//! let err = run(&bytes[..], 100, "two u32", (be_u32, be_u32)).unwrap_err();
//! assert_eq!(err.offset, 104); // where the second u32 would start
//! ```

pub use nom::Parser;
pub use nom::bytes::complete::take;
pub use nom::number::complete::{
    be_i8, be_i24, be_i32, be_u8, be_u16, be_u24, be_u32, be_u64, le_i32, le_u8, le_u16, le_u32,
    le_u64,
};

use crate::error::ParseError;

/// nom's error type over bytes, as every raw-layer parser uses it.
pub type NomError<'a> = nom::error::Error<&'a [u8]>;

/// Runs `parser` on `data` (which starts at byte `base` of its file): the value and the
/// number of bytes consumed, or a [`ParseError`] at the absolute offset where the parser
/// stopped, expecting `expected` (a short input is reported as truncated).
pub fn run<'a, O>(
    data: &'a [u8],
    base: u64,
    expected: &'static str,
    mut parser: impl Parser<&'a [u8], Output = O, Error = NomError<'a>>,
) -> Result<(O, usize), ParseError> {
    match parser.parse(data) {
        Ok((rest, out)) => Ok((out, data.len() - rest.len())),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            let at = (data.len() - e.input.len()) as u64;
            if e.code == nom::error::ErrorKind::Eof {
                Err(ParseError::cut_short(
                    base + at,
                    expected,
                    e.input.len() as u64,
                ))
            } else {
                Err(ParseError::new(
                    base + at,
                    expected,
                    format!("bytes that fail nom's {:?} check", e.code),
                ))
            }
        }
        Err(nom::Err::Incomplete(_)) => Err(ParseError::truncated(
            base,
            data.len() as u64 + 1,
            data.len() as u64,
        )),
    }
}

/// `N` bytes as an array (a fixed field kept as it is).
#[inline]
pub fn array<const N: usize>(input: &[u8]) -> nom::IResult<&[u8], [u8; N], NomError<'_>> {
    match input.split_first_chunk::<N>() {
        Some((head, rest)) => Ok((rest, *head)),
        None => Err(nom::Err::Error(NomError::new(
            input,
            nom::error::ErrorKind::Eof,
        ))),
    }
}

/// Runs a parser over a fixed-size array that it cannot fail on (every field fits): the
/// infallible record readers (`from_bytes(&[u8; N])`) are written this way so that the
/// layout is declared once, as a nom parser.
#[inline]
pub fn fixed<'a, O, const N: usize>(
    data: &'a [u8; N],
    mut parser: impl Parser<&'a [u8], Output = O, Error = NomError<'a>>,
    fallback: O,
) -> O {
    match parser.parse(&data[..]) {
        Ok((_, out)) => out,
        Err(_) => fallback,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_absolute() {
        let d = [1u8, 2, 3];
        let e = run(&d[..], 10, "a u32", be_u32).unwrap_err();
        assert_eq!(e.offset, 10);
        assert!(e.is_truncated(), "{e}");
        let e = run(
            &d[..],
            10,
            "a tag then a u16",
            (nom::bytes::complete::tag(&[1u8][..]), be_u16, be_u8, be_u8),
        )
        .unwrap_err();
        assert_eq!(e.offset, 13);
        let e = run(&d[..], 0, "tag 9", nom::bytes::complete::tag(&[9u8][..])).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(!e.is_truncated());
    }
}
