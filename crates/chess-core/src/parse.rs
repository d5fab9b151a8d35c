//! nom glue for the `raw` layers of the format crates.
//!
//! **Not part of chess-core's stable API** (hidden from its documentation): it exposes nom's
//! own types and follows nom's releases. The format crates use it inside their `raw`
//! modules; their public signatures take and return slices, records and [`ParseError`].
//!
//! Record layouts are written as nom 8 parsers over `&[u8]` with the small error type
//! [`NomError`] (nom's own plus the innermost [`context`] label, which becomes the error's
//! "expected" text); [`run`] applies one to a slice and turns a failure into the family's
//! [`ParseError`] with the absolute byte offset where it stopped. nom types stay inside the
//! crates: public signatures take and return slices, records and `ParseError`.
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
pub use nom::combinator::verify;
pub use nom::error::context;

use crate::error::ParseError;

/// The error of every raw-layer parser: where it stopped, nom's reason, and the innermost
/// [`context`] label (what was expected there), if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NomError<'a> {
    /// The input left where the failing parser was applied.
    pub input: &'a [u8],
    /// nom's reason.
    pub code: nom::error::ErrorKind,
    /// The innermost context label.
    pub context: Option<&'static str>,
}

impl<'a> nom::error::ParseError<&'a [u8]> for NomError<'a> {
    fn from_error_kind(input: &'a [u8], code: nom::error::ErrorKind) -> Self {
        NomError {
            input,
            code,
            context: None,
        }
    }

    fn append(_: &'a [u8], _: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

impl<'a> nom::error::ContextError<&'a [u8]> for NomError<'a> {
    fn add_context(_: &'a [u8], label: &'static str, mut other: Self) -> Self {
        other.context.get_or_insert(label);
        other
    }
}

/// The result of a raw-layer parser.
pub type NomResult<'a, T> = nom::IResult<&'a [u8], T, NomError<'a>>;

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
            let at = offset_in(data, e.input) as u64;
            let expected = e.context.unwrap_or(expected);
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
                    match e.input.first() {
                        Some(b) => format!("byte 0x{b:02x}"),
                        None => "the end of the data".to_string(),
                    },
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

fn eof(input: &[u8]) -> nom::Err<NomError<'_>> {
    nom::Err::Error(NomError {
        input,
        code: nom::error::ErrorKind::Eof,
        context: None,
    })
}

// The integer parsers, specialised to byte slices: nom's own are generic over the input type
// and read byte by byte; these compile to one bounds check and a load, so record layouts
// declared with them cost what hand-written offset reads cost.
macro_rules! int {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $n:expr, $conv:ident) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(input: &[u8]) -> NomResult<'_, $ty> {
            match input.split_first_chunk::<$n>() {
                Some((head, rest)) => Ok((rest, <$ty>::$conv(*head))),
                None => Err(eof(input)),
            }
        }
    };
}

int!(/// A byte.
    be_u8, u8, 1, from_be_bytes);
int!(/// A signed byte.
    be_i8, i8, 1, from_be_bytes);
int!(/// A byte (little-endian spelling, for layouts written in that order).
    le_u8, u8, 1, from_le_bytes);
int!(/// A big-endian `u16`.
    be_u16, u16, 2, from_be_bytes);
int!(/// A little-endian `u16`.
    le_u16, u16, 2, from_le_bytes);
int!(/// A little-endian `i16`.
    le_i16, i16, 2, from_le_bytes);
int!(/// A big-endian `u32`.
    be_u32, u32, 4, from_be_bytes);
int!(/// A big-endian `i32`.
    be_i32, i32, 4, from_be_bytes);
int!(/// A little-endian `u32`.
    le_u32, u32, 4, from_le_bytes);
int!(/// A little-endian `i32`.
    le_i32, i32, 4, from_le_bytes);
int!(/// A big-endian `u64`.
    be_u64, u64, 8, from_be_bytes);
int!(/// A little-endian `u64`.
    le_u64, u64, 8, from_le_bytes);

/// The next `n` bytes (nom's `take`, specialised to byte slices for hot loops).
#[inline]
pub fn bytes(input: &[u8], n: usize) -> NomResult<'_, &[u8]> {
    match input.split_at_checked(n) {
        Some((head, rest)) => Ok((rest, head)),
        None => Err(eof(input)),
    }
}

/// A big-endian 24-bit unsigned integer.
#[inline]
pub fn be_u24(input: &[u8]) -> NomResult<'_, u32> {
    match input.split_first_chunk::<3>() {
        // Shifts, not `from_be_bytes([0, a, b, c])`: building a 4-byte array from three byte
        // stores and loading it back stalls store forwarding (measured: +25 % on a `.cbh`
        // header listing).
        Some(([a, b, c], rest)) => Ok((
            rest,
            u32::from(*a) << 16 | u32::from(*b) << 8 | u32::from(*c),
        )),
        None => Err(eof(input)),
    }
}

/// A big-endian 24-bit two's-complement integer.
#[inline]
pub fn be_i24(input: &[u8]) -> NomResult<'_, i32> {
    be_u24(input).map(|(rest, v)| (rest, ((v << 8) as i32) >> 8))
}

/// Where `part` (a sub-slice of `whole`, e.g. the input a nested parser stopped at) starts in
/// `whole`; a slice from elsewhere counts from the end, as nom's suffix inputs do.
fn offset_in(whole: &[u8], part: &[u8]) -> usize {
    let start = whole.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    if at >= start && at - start <= whole.len() {
        at - start
    } else {
        whole.len().saturating_sub(part.len())
    }
}

/// Fails at `input` with `label` as what was expected there (a check a layout makes that no
/// combinator expresses, such as a count that must fit the bytes left).
pub fn expected<'a, T>(input: &'a [u8], label: &'static str) -> NomResult<'a, T> {
    Err(nom::Err::Error(NomError {
        input,
        code: nom::error::ErrorKind::Verify,
        context: Some(label),
    }))
}

/// `N` bytes as an array (a fixed field kept as it is).
#[inline]
pub fn array<const N: usize>(input: &[u8]) -> NomResult<'_, [u8; N]> {
    match input.split_first_chunk::<N>() {
        Some((head, rest)) => Ok((rest, *head)),
        None => Err(eof(input)),
    }
}

/// `N` bytes as a reference to an array (a fixed block borrowed from the input).
#[inline]
pub fn array_ref<const N: usize>(input: &[u8]) -> NomResult<'_, &[u8; N]> {
    match input.split_first_chunk::<N>() {
        Some((head, rest)) => Ok((rest, head)),
        None => Err(eof(input)),
    }
}

/// Runs a parser over a fixed-size array that it cannot fail on (every field fits): the
/// infallible record readers (`from_bytes(&[u8; N])`) are written this way so that the
/// layout is declared once, as a nom parser. `O::default()` stands for the unreachable
/// failure (built only then).
#[inline]
pub fn fixed<'a, O: Default, const N: usize>(
    data: &'a [u8; N],
    mut parser: impl Parser<&'a [u8], Output = O, Error = NomError<'a>>,
) -> O {
    match parser.parse(&data[..]) {
        Ok((_, out)) => out,
        Err(_) => O::default(),
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
        // The innermost context label names what was expected where the parser stopped.
        let odd = context("an odd byte", verify(be_u8, |b| b % 2 == 1));
        let e = run(&d[..], 5, "a record", (be_u8, odd)).unwrap_err();
        assert_eq!(e.offset, 6);
        assert!(e.to_string().contains("an odd byte"), "{e}");
        assert!(e.to_string().contains("0x02"), "{e}");
    }
}
