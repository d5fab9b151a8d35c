//! PGN movetext written with line wrapping: the one writer of the family's PGN exporters
//! (ChessBase export, self-play export).
//!
//! Tokens (move numbers, moves, NAGs, comments, parentheses, the result) are separated by
//! one space and wrapped so that no line is longer than the width, unless a single token is.
//! A token may be written whole ([`Movetext::token`]) or byte by byte straight into the text
//! ([`Movetext::begin_token`], [`Movetext::buffer`], [`Movetext::end_token`]), which is how
//! the exporters write SAN without a copy; a token may contain spaces and is never broken
//! (the self-play export keeps a move and its comment on one line this way).
//!
//! ```
//! use chess_core::movetext::Movetext;
//!
//! let mut text = Movetext::new(20);
//! text.move_number(1, false);
//! text.token("e4");
//! text.comment("the   king's pawn");
//! text.move_number(1, true);
//! text.token("e5");
//! text.token("1/2-1/2");
//! let mut pgn = String::new();
//! text.finish(&mut pgn);
//! assert_eq!(pgn, "1. e4 {the king's\npawn} 1... e5\n1/2-1/2");
//! ```

use std::fmt::Write as _;
use std::io;

/// `N.` for the move numbers below 1,000: the bytes (padded) and their length.
static MOVE_NUMBERS: [([u8; 4], u8); 1000] = move_numbers();

const fn move_numbers() -> [([u8; 4], u8); 1000] {
    let mut t = [([0u8; 4], 0u8); 1000];
    let mut n = 0;
    while n < 1000 {
        let (h, d, u) = ((n / 100) as u8, (n / 10 % 10) as u8, (n % 10) as u8);
        t[n] = if n >= 100 {
            ([b'0' + h, b'0' + d, b'0' + u, b'.'], 4)
        } else if n >= 10 {
            ([b'0' + d, b'0' + u, b'.', 0], 3)
        } else {
            ([b'0' + u, b'.', 0, 0], 2)
        };
        n += 1;
    }
    t
}

/// Movetext being written, wrapped at a width (see the [module](self) documentation). The
/// text is kept as bytes (cheaper to append than `char`s); every byte comes from a `&str`
/// or is ASCII, so it is UTF-8.
#[derive(Debug, Clone)]
pub struct Movetext {
    out: Vec<u8>,
    width: usize,
    col: usize,
    scratch: String,
}

impl Movetext {
    /// The narrowest width honoured.
    pub const MIN_WIDTH: usize = 20;

    /// Empty movetext wrapped at `width` columns (at least [`Movetext::MIN_WIDTH`]).
    pub fn new(width: usize) -> Movetext {
        Movetext {
            out: Vec::with_capacity(1024),
            width: width.max(Self::MIN_WIDTH),
            col: 0,
            scratch: String::new(),
        }
    }

    /// The text written and not yet drained.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.out
    }

    /// Bytes written and not yet drained.
    #[inline]
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// Whether nothing is waiting to be drained.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// Appends the text to `dest`.
    pub fn finish(self, dest: &mut String) {
        match std::str::from_utf8(&self.out) {
            Ok(text) => dest.push_str(text),
            Err(_) => dest.push_str(&String::from_utf8_lossy(&self.out)),
        }
    }

    /// Writes the text so far to `w` and empties the buffer. The column is kept, so the
    /// wrapping goes on as if nothing had been written; call it between tokens.
    pub fn drain(&mut self, w: &mut (impl io::Write + ?Sized)) -> io::Result<()> {
        w.write_all(&self.out)?;
        self.out.clear();
        Ok(())
    }

    /// A whole token, after a space or a line break.
    #[inline]
    pub fn token(&mut self, t: &str) {
        if self.col > 0 && self.col + 1 + t.len() > self.width {
            self.out.push(b'\n');
            self.col = 0;
        } else if self.col > 0 {
            self.out.push(b' ');
            self.col += 1;
        }
        self.out.extend_from_slice(t.as_bytes());
        self.col += t.len();
    }

    /// A token made by formatting, without allocating (one buffer is reused).
    pub fn token_fmt(&mut self, args: std::fmt::Arguments<'_>) {
        let mut t = std::mem::take(&mut self.scratch);
        t.clear();
        let _ = t.write_fmt(args);
        self.token(&t);
        self.scratch = t;
    }

    /// Starts a token written straight into the text ([`Movetext::buffer`]): the separator
    /// goes first as a space; [`Movetext::end_token`] turns it into a line break when the
    /// token does not fit. Returns where the token starts.
    #[inline]
    pub fn begin_token(&mut self) -> usize {
        if self.col > 0 {
            self.out.push(b' ');
        }
        self.out.len()
    }

    /// The text, to append the bytes of a token begun with [`Movetext::begin_token`]: UTF-8
    /// without line breaks. Nothing else may be changed.
    #[inline]
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// Ends the token begun at `start`: wraps the line before it when it is too long, as
    /// [`Movetext::token`] does.
    #[inline]
    pub fn end_token(&mut self, start: usize) {
        let len = self.out.len() - start;
        if self.col == 0 {
            self.col = len;
        } else if self.col + 1 + len > self.width {
            self.out[start - 1] = b'\n';
            self.col = len;
        } else {
            self.col += 1 + len;
        }
    }

    /// A move number token, `N.` (White) or `N...` (Black), without the formatting machinery.
    #[inline]
    pub fn move_number(&mut self, n: u32, black: bool) {
        let start = self.begin_token();
        push_move_number(&mut self.out, n);
        if black {
            self.out.extend_from_slice(b"..");
        }
        self.end_token(start);
    }

    /// A comment, `{text}`, its words wrapped as tokens (runs of white space become one
    /// space). `}` cannot be written inside a PGN comment: the caller replaces it. Nothing is
    /// written for a text of white space only.
    pub fn comment(&mut self, text: &str) {
        let mut words = text.split_whitespace();
        let Some(first) = words.next() else {
            return;
        };
        let start = self.begin_token();
        self.out.push(b'{');
        self.out.extend_from_slice(first.as_bytes());
        self.end_token(start);
        for word in words {
            self.token(word);
        }
        self.out.push(b'}');
        self.col += 1;
    }

    /// Ends a variation begun with the token `(` at `mark` ([`Movetext::len`] after it):
    /// the space after `(` is taken back (`(1. e4`, not `( 1. e4`) and `)` is appended to
    /// the last token.
    pub fn close_variation(&mut self, mark: usize) {
        if self.out.get(mark) == Some(&b' ') {
            self.out.remove(mark);
            self.col = self.col.saturating_sub(1);
        }
        self.out.push(b')');
        self.col += 1;
    }
}

/// Appends `N.`: numbers below 1,000 copied from a table.
#[inline]
pub fn push_move_number(out: &mut Vec<u8>, n: u32) {
    match MOVE_NUMBERS.get(n as usize) {
        Some(&(bytes, len)) => out.extend_from_slice(&bytes[..usize::from(len)]),
        None => {
            let mut digits = [0u8; 10];
            let mut i = digits.len();
            let mut n = n;
            loop {
                i -= 1;
                digits[i] = b'0' + (n % 10) as u8;
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            out.extend_from_slice(&digits[i..]);
            out.push(b'.');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The move number table writes what `format!` writes.
    #[test]
    fn move_numbers_are_format() {
        for n in (0..2000).chain([12_345, u32::MAX]) {
            let mut b = Vec::new();
            push_move_number(&mut b, n);
            assert_eq!(b, format!("{n}.").as_bytes());
        }
        let mut text = Movetext::new(80);
        for n in [7, 99, 999, 1000, 12345] {
            text.move_number(n, n % 2 == 0);
        }
        assert_eq!(text.as_bytes(), b"7. 99. 999. 1000... 12345.");
    }

    /// Lines are at most the width unless one token is longer; tokens are never broken.
    #[test]
    fn wrapping() {
        let mut text = Movetext::new(20);
        for t in [
            "aaaaaaaaa",
            "bbbbbbbbbb",
            "c",
            "dddddddddddddddddddddddddd",
            "e",
        ] {
            text.token(t);
        }
        let start = text.begin_token();
        text.buffer().extend_from_slice(b"one token with spaces");
        text.end_token(start);
        text.token_fmt(format_args!("{}", 42));
        let mut s = String::new();
        text.finish(&mut s);
        assert_eq!(
            s,
            "aaaaaaaaa bbbbbbbbbb\nc\ndddddddddddddddddddddddddd\ne\none token with spaces\n42"
        );
    }

    #[test]
    fn comments_variations_and_draining() {
        let mut text = Movetext::new(80);
        text.comment("  \n ");
        text.token("(");
        let mark = text.len();
        text.move_number(3, true);
        text.token("Nf6");
        text.comment(" a\tb ");
        text.close_variation(mark);
        let mut w = Vec::new();
        text.drain(&mut w).unwrap();
        assert!(text.is_empty());
        text.token("*");
        let mut s = String::from_utf8(w).unwrap();
        text.finish(&mut s);
        assert_eq!(s, "(3... Nf6 {a b}) *");
    }
}
