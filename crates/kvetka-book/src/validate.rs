//! Structural checks of a book, used by the tests and `chessfmt kvetka info --check`.
//!
//! Checked: every block parses and its elements fill exactly its used bytes; element lengths
//! are consistent with their contents ([`Element::parse`]) and at most 682 bytes; keys are
//! strictly increasing within and across blocks; keys decode and their padding bits are zero;
//! no block is empty; the `.kin` equals the first keys; comments are at most 300 characters;
//! game references point into the `.ksf`. (The header's block count and whole blocks per
//! file are checked when the book is opened.)

use std::{fmt, path::PathBuf};

use crate::position;

use crate::{
    Book,
    codec::unicode_units,
    raw::{Element, MAX_COMMENT_CHARS, MAX_ELEMENT_SIZE},
    read::KinStatus,
};

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file.
    pub file: PathBuf,
    /// Byte offset in the file.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: byte {}: {}",
            self.file.display(),
            self.offset,
            self.message
        )
    }
}

/// The result of [`validate`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Elements checked.
    pub elements: u64,
    /// Blocks checked.
    pub blocks: u64,
    /// Problems found (the first [`Report::MAX_KEPT`]).
    pub problems: Vec<Problem>,
    /// Number of problems found.
    pub problem_count: u64,
}

impl Report {
    /// How many problems are kept in [`Report::problems`].
    pub const MAX_KEPT: usize = 100;

    /// Whether the book breaks no rule.
    pub fn is_ok(&self) -> bool {
        self.problem_count == 0
    }

    fn push(&mut self, file: PathBuf, offset: u64, message: String) {
        self.problem_count += 1;
        if self.problems.len() < Self::MAX_KEPT {
            self.problems.push(Problem {
                file,
                offset,
                message,
            });
        }
    }
}

/// Checks a book's structural invariants (see the module notes).
pub fn validate<D: AsRef<[u8]>>(book: &Book<D>) -> Report {
    let mut report = Report::default();
    let files: Vec<PathBuf> = book.files().map(|(p, _)| p.to_path_buf()).collect();
    if let KinStatus::Stale(why) = book.kin_status() {
        let kin = files[0].with_extension("kin");
        report.push(kin, 0, format!(".kin does not match the blocks: {why}"));
    }
    let sources = match book.sources() {
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => {
            let file = book.ksf_path().map(PathBuf::from).unwrap_or_default();
            report.push(file, e_offset(&e), e.to_string());
            None
        }
        None => None,
    };
    let games = book.header().stores_games();
    let mut prev: Option<crate::Key> = None;
    for b in 0..book.block_count() {
        report.blocks += 1;
        let (_, file, base) = book.block_bytes(b).expect("block in range");
        let elements = match book.block_elements(b) {
            Ok(v) => v,
            Err(e) => {
                report.push(files[file].clone(), base, e.to_string());
                continue;
            }
        };
        if elements.is_empty() {
            report.push(files[file].clone(), base, format!("block {b} is empty"));
        }
        for (loc, e) in elements {
            report.elements += 1;
            let at = |r: &mut Report, msg: String| r.push(files[loc.file].clone(), loc.offset, msg);
            if prev.is_some_and(|p| p >= e.key) {
                at(&mut report, "key not greater than the previous key".into());
            }
            prev = Some(e.key);
            let len = e.encoded_len(games);
            if len > MAX_ELEMENT_SIZE {
                at(
                    &mut report,
                    format!("element of {len} bytes (at most {MAX_ELEMENT_SIZE})"),
                );
            }
            check_key(&e, |m| at(&mut report, m));
            if let Some(c) = &e.comment
                && unicode_units(c) > MAX_COMMENT_CHARS
            {
                at(
                    &mut report,
                    format!("comment of {} characters (at most 300)", unicode_units(c)),
                );
            }
            if let Some(s) = sources {
                for r in e.source.iter().chain(e.links.iter().flatten()) {
                    if s.game(r.source, r.game).is_none() {
                        at(
                            &mut report,
                            format!("game reference {}/{} not in the .ksf", r.source, r.game),
                        );
                    }
                }
            }
        }
    }
    report
}

fn e_offset(e: &crate::Error) -> u64 {
    match e {
        crate::Error::Parse(p) => p.offset,
        _ => 0,
    }
}

fn check_key(e: &Element, mut problem: impl FnMut(String)) {
    match position::decode(&e.key) {
        Err(err) => problem(format!("key does not decode: {err}")),
        Ok(hp) => {
            let again = position::encode(&hp);
            if again.as_ref().ok() != Some(&e.key) {
                problem("key has non-zero padding bits".into());
            }
        }
    }
}
