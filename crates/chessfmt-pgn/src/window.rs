//! A stream read in windows of whole games ([`PgnWindows`]): the bytes of a compressed file
//! or of standard input held a window at a time, so that a reader cuts each window into
//! pieces and reads them in parallel as it does bytes in memory (the ordered replay, the
//! ChessBase import).

use std::io::{self, Read};

use crate::cut::{boundary_finder, next_boundary};

/// Bytes of a stream that begin where a game begins (at the start, or where
/// [`PgnBytes::pieces`](crate::PgnBytes::pieces) would cut).
#[derive(Debug)]
pub struct PgnWindow {
    /// The bytes.
    pub data: Vec<u8>,
    /// Where they begin in the stream.
    pub offset: u64,
    /// Whether they end where the stream ends.
    pub last: bool,
}

/// What [`PgnWindows::next_window`] read.
#[derive(Debug)]
pub enum NextWindow {
    /// Bytes ending where the stream ends or where a game begins.
    Window(PgnWindow),
    /// The end of the stream: nothing left.
    End,
    /// More than the limit of bytes without a place between two games (one game of many
    /// megabytes, or text without `[Event` lines): what was read, for a reading that goes on
    /// without windows ([`PgnWindows::into_rest`] after it).
    TooLong(PgnWindow),
}

/// A stream cut into [`PgnWindow`]s of about `size` bytes where one game ends and the next
/// begins, by the rule that cuts bytes in memory into pieces
/// ([`PgnBytes::pieces`](crate::PgnBytes::pieces)): a window read as one input gives the
/// games the stream gives there (unless the cut fell inside a comment of more than 64 KiB
/// holding an empty line and `[Event`: its last piece is then cut off, as a piece of bytes
/// in memory can be).
///
/// A compressed stream cut short or damaged ends the windows where its text ends
/// ([`PgnWindows::damage`] keeps the error), so that the games before are read.
///
/// ```
/// use chessfmt_pgn::{NextWindow, PgnWindows};
///
/// let pgn = "[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. c4 *\n";
/// let mut windows = PgnWindows::new(pgn.as_bytes(), 20, 100);
/// let mut starts = Vec::new();
/// while let NextWindow::Window(w) = windows.next_window()? {
///     assert!(w.data.starts_with(b"[Event"));
///     starts.push(w.offset);
/// }
/// assert_eq!(starts, [0, 22, 44]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct PgnWindows<R> {
    source: R,
    size: usize,
    most: usize,
    /// Bytes read past the last window's end.
    carry: Vec<u8>,
    /// A window's bytes handed back ([`PgnWindows::recycle`]), filled again by the next: a
    /// stream of gigabytes goes through the same few buffers, not fresh memory each window.
    spare: Vec<u8>,
    /// Where `carry` begins in the stream.
    offset: u64,
    ended: bool,
    /// The error of a damaged compressed stream that ended the windows.
    damage: Option<io::Error>,
}

impl<R: Read> PgnWindows<R> {
    /// Windows of about `size` bytes (at least 1), none longer than `most` unless the stream
    /// has no place to cut before it ([`NextWindow::TooLong`]).
    pub fn new(source: R, size: usize, most: usize) -> Self {
        PgnWindows {
            source,
            size: size.max(1),
            most: most.max(size),
            carry: Vec::new(),
            spare: Vec::new(),
            offset: 0,
            ended: false,
            damage: None,
        }
    }

    /// Windows of four pieces of `piece` bytes a thread of `threads` (what a parallel reader
    /// cuts each window into), run on past that by at most as much again and 4 MiB: past it,
    /// one game of megabytes or text without `[Event` lines is [`NextWindow::TooLong`], for
    /// one reader to read on in little memory.
    pub fn of_pieces(source: R, piece: usize, threads: usize) -> Self {
        let size = 4 * threads.max(1) * piece.max(1);
        Self::new(source, size, size + size.min(4 << 20))
    }

    /// The longest a window runs on while no game begins.
    pub fn most(&self) -> usize {
        self.most
    }

    /// The error of a compressed stream cut short or damaged that ended the windows (they end
    /// where its text does), if any.
    pub fn damage(&self) -> Option<&io::Error> {
        self.damage.as_ref()
    }

    /// The rest of the stream (the bytes read past the last window, then the stream), for a
    /// reading that goes on without windows.
    pub fn into_rest(self) -> io::Chain<io::Cursor<Vec<u8>>, R> {
        io::Cursor::new(self.carry).chain(self.source)
    }

    /// Hands a window's bytes back to be filled again (a stream of gigabytes then goes
    /// through the same few buffers).
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        if bytes.capacity() > self.spare.capacity() {
            self.spare = bytes;
        }
    }

    /// Reads until `buf` holds `len` bytes or the stream ends.
    fn fill(&mut self, buf: &mut Vec<u8>, len: usize) -> io::Result<()> {
        let want = len.saturating_sub(buf.len());
        if want > 0 && !self.ended {
            // Room for all of it first: reading to the end would double the buffer.
            buf.reserve(want);
            match (&mut self.source).take(want as u64).read_to_end(buf) {
                Ok(got) => self.ended = got < want,
                // What was read before the damage is kept (in `buf`): the windows end there.
                Err(e) if crate::reader::is_stream_damage(&e) => {
                    self.ended = true;
                    self.damage = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next window: the bytes left from the last one and what follows, cut at the first
    /// place between two games past three quarters of the window's size.
    ///
    /// # Errors
    ///
    /// An error of the stream other than a compressed stream's damage.
    pub fn next_window(&mut self) -> io::Result<NextWindow> {
        let mut buf = std::mem::take(&mut self.spare);
        buf.clear();
        buf.extend_from_slice(&self.carry);
        self.carry.clear();
        let offset = self.offset;
        let finder = boundary_finder();
        let mut from = self.size - self.size / 4;
        self.fill(&mut buf, self.size)?;
        loop {
            if self.ended {
                self.offset += buf.len() as u64;
                return Ok(if buf.is_empty() {
                    NextWindow::End
                } else {
                    NextWindow::Window(PgnWindow {
                        data: buf,
                        offset,
                        last: true,
                    })
                });
            }
            if let Some(cut) = next_boundary(&buf, from.max(1), &finder) {
                self.carry.extend_from_slice(&buf[cut..]);
                buf.truncate(cut);
                self.offset += cut as u64;
                return Ok(NextWindow::Window(PgnWindow {
                    data: buf,
                    offset,
                    last: false,
                }));
            }
            if buf.len() >= self.most {
                self.offset += buf.len() as u64;
                return Ok(NextWindow::TooLong(PgnWindow {
                    data: buf,
                    offset,
                    last: false,
                }));
            }
            // A line "\n[Event " cut by the end of the bytes is found by the next search.
            from = buf.len().saturating_sub(7);
            let more = buf.len() + self.size / 4 + 1;
            self.fill(&mut buf, more)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every window of `text` read by windows of `size`, at most `most`.
    fn windows(text: &[u8], size: usize, most: usize) -> Vec<(Vec<u8>, u64, bool, bool)> {
        let mut w = PgnWindows::new(crate::fuzzing::Trickle::new(text, 5), size, most);
        let mut out = Vec::new();
        loop {
            match w.next_window().unwrap() {
                NextWindow::End => return out,
                NextWindow::Window(x) => out.push((x.data, x.offset, x.last, false)),
                NextWindow::TooLong(x) => {
                    out.push((x.data, x.offset, x.last, true));
                    return out;
                }
            }
        }
    }

    #[test]
    fn windows_cover_the_stream_and_end_where_games_begin() {
        let mut text = Vec::new();
        for i in 0..200 {
            text.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 *\n\n").as_bytes());
        }
        for size in [1, 7, 50, 333, 4096, 1 << 20] {
            let got = windows(&text, size, usize::MAX);
            let joined: Vec<u8> = got.iter().flat_map(|w| w.0.clone()).collect();
            assert_eq!(joined, text, "{size}");
            let mut at = 0;
            for (i, (data, offset, last, too_long)) in got.iter().enumerate() {
                assert_eq!((*offset, *last, *too_long), (at, i + 1 == got.len(), false));
                assert!(data.starts_with(b"[Event "), "{size}");
                assert!(
                    data.len() >= size.min(text.len() - at as usize) * 3 / 4,
                    "{size}"
                );
                at += data.len() as u64;
            }
        }
        assert!(windows(b"", 10, 100).is_empty());
    }

    #[test]
    fn text_without_a_place_to_cut_is_too_long_past_the_limit() {
        let text = "1. e4 e5 *\n\n".repeat(100).into_bytes();
        let got = windows(&text, 64, 300);
        assert_eq!(got.len(), 1);
        let (data, offset, last, too_long) = &got[0];
        assert!(*too_long && !*last && *offset == 0);
        assert!(data.len() >= 300 && data.len() < 400 && text.starts_with(data));
        // Under the limit it is one window.
        assert_eq!(windows(&text, 64, 10_000), [(text.clone(), 0, true, false)]);
    }
}
