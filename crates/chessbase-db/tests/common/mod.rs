//! Helpers shared by the tests: corpus paths and a PGN reader that flattens a game into
//! comparable tokens (moves as UCI, NAGs, comments, variation brackets).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::PathBuf;

use pgn_reader::{Nag, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

use chessbase_db::Database;
use chessbase_db::pgn::{ExportSummary, PgnOptions};

/// Every record of `db` exported as PGN (default options, deleted games left out) on
/// `threads` workers: the summary and the text.
pub fn export_pgn(db: &Database, threads: usize) -> (ExportSummary, Vec<u8>) {
    let mut out = Vec::new();
    let opts = PgnOptions::default();
    let summary = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            chessbase_db::pgn::export(
                db,
                &chessbase_db::ExportOptions::default()
                    .records(1..=db.len())
                    .pgn(opts),
                &mut out,
                |_| {},
            )
        })
        .expect("writing to memory does not fail");
    (summary, out)
}

/// `../shared/corpus/chessbase/<rel>`, or `None` (with a message) when the corpus is absent.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/chessbase")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        // Missing data fails while ../shared is present: a test never passes by skipping.
        assert!(
            !std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")).is_dir(),
            "test data missing while ../shared is present",
        );
        eprintln!(
            "skipping: {} not found (../shared/corpus absent)",
            p.display()
        );
        None
    }
}

/// One token of a game's movetext.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// A move, as UCI (Chess960 notation).
    Move(String),
    /// A NAG.
    Nag(u8),
    /// A comment's text without `[%…]` commands, whitespace collapsed.
    Comment(String),
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// A SAN that does not parse or is illegal where it stands.
    Bad(String),
}

/// A parsed game.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub tags: BTreeMap<String, String>,
    pub tokens: Vec<Tok>,
}

impl Parsed {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.get(name).map(String::as_str)
    }

    pub fn moves(&self) -> usize {
        self.tokens
            .iter()
            .filter(|t| matches!(t, Tok::Move(_)))
            .count()
    }

    pub fn count(&self, f: impl Fn(&Tok) -> bool) -> usize {
        self.tokens.iter().filter(|t| f(t)).count()
    }
}

/// Strips `[%cmd …]` commands and collapses whitespace.
pub fn normalise_comment(text: &str) -> String {
    let mut out = String::new();
    // "[#]" asks for a diagram; some exports drop it.
    let text = text.replace("[#]", " ");
    let mut rest = text.as_str();
    while let Some(i) = rest.find("[%") {
        out.push_str(&rest[..i]);
        match rest[i..].find(']') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Collect;

struct State {
    tags: BTreeMap<String, String>,
    tokens: Vec<Tok>,
    // (position before the last move, current position)
    stack: Vec<(Chess, Chess)>,
    prev: Chess,
    cur: Chess,
}

impl Visitor for Collect {
    type Tags = BTreeMap<String, String>;
    type Movetext = State;
    type Output = Parsed;

    fn begin_tags(&mut self) -> ControlFlow<Parsed, Self::Tags> {
        ControlFlow::Continue(BTreeMap::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Parsed> {
        tags.insert(
            String::from_utf8_lossy(name).into_owned(),
            String::from_utf8_lossy(&value.decode()).into_owned(),
        );
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Parsed, State> {
        let chess960 = tags.get("Variant").is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        });
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let start: Chess = tags
            .get("FEN")
            .and_then(|f| f.parse::<Fen>().ok())
            .and_then(|f| f.into_position(mode).ok())
            .unwrap_or_default();
        ControlFlow::Continue(State {
            tags,
            tokens: Vec::new(),
            stack: Vec::new(),
            prev: start.clone(),
            cur: start,
        })
    }

    fn san(&mut self, m: &mut State, san: SanPlus) -> ControlFlow<Parsed> {
        match san.san.to_move(&m.cur) {
            Ok(mv) => {
                m.tokens
                    .push(Tok::Move(mv.to_uci(CastlingMode::Chess960).to_string()));
                m.prev = m.cur.clone();
                m.cur.play_unchecked(mv);
            }
            Err(_) => {
                if san.to_string() == "--" {
                    m.tokens.push(Tok::Move("0000".into()));
                    m.prev = m.cur.clone();
                    m.cur = m.cur.clone().swap_turn().unwrap_or_default();
                } else {
                    m.tokens.push(Tok::Bad(san.to_string()));
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn nag(&mut self, m: &mut State, nag: Nag) -> ControlFlow<Parsed> {
        m.tokens.push(Tok::Nag(nag.0));
        ControlFlow::Continue(())
    }

    fn comment(&mut self, m: &mut State, c: RawComment<'_>) -> ControlFlow<Parsed> {
        let t = normalise_comment(&String::from_utf8_lossy(c.as_bytes()));
        if !t.is_empty() {
            m.tokens.push(Tok::Comment(t));
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, m: &mut State) -> ControlFlow<Parsed, Skip> {
        m.tokens.push(Tok::Open);
        m.stack.push((m.prev.clone(), m.cur.clone()));
        m.cur = m.prev.clone();
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, m: &mut State) -> ControlFlow<Parsed> {
        m.tokens.push(Tok::Close);
        if let Some((p, c)) = m.stack.pop() {
            m.prev = p;
            m.cur = c;
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: State) -> Parsed {
        Parsed {
            tags: m.tags,
            tokens: m.tokens,
        }
    }
}

/// Every game of a PGN text.
pub fn parse_pgn(bytes: &[u8]) -> Vec<Parsed> {
    let mut reader = Reader::new(bytes);
    let mut out = Vec::new();
    while let Ok(Some(g)) = reader.read_game(&mut Collect) {
        out.push(g);
    }
    out
}

/// The start position of a parsed game: board, turn, castling rooks, en-passant square and
/// move number (so `KQkq` and Shredder's `HAha` compare equal when they mean the same rooks).
pub fn start_setup(p: &Parsed) -> Option<String> {
    let fen: Fen = p.tag("FEN")?.parse().ok()?;
    let chess960 = p.tag("Variant").is_some_and(|v| v.contains("960"));
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let pos: Chess = fen.into_position(mode).ok()?;
    let s = pos.to_setup(shakmaty::EnPassantMode::Legal);
    Some(format!(
        "{} {:?} {:?} {:?} {}",
        s.board, s.turn, s.castling_rights, s.ep_square, s.fullmoves
    ))
}
