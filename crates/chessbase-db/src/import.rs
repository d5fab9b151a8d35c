//! PGN to database games: the inverse of [`crate::pgn`]'s export, for
//! [`crate::writer::DatabaseWriter`].
//!
//! A game keeps its main line and variations (nested to [`Limits::variation_depth`]; deeper
//! ones are left out and counted), comments (before the first move of a line or after a
//! move), NAGs (move assessment 1–9, position 10–135, prefix 140–146), `[%csl]`/`[%cal]`
//! squares and arrows, `[%clk]` clocks (White's or Black's by the side that moved),
//! `[%emt]` time spent, `[%mdl]` medals and the `[%cb …]` forms the export writes. Headers:
//! players (`Last, First`), Event/Site/EventDate (the tournament), Date, Round (`5.2`),
//! Elo, ECO, Annotator, WhiteTeam/BlackTeam, Result with the special results of
//! `Termination` (forfeits, both lost), WhiteClock/BlackClock, FEN/SetUp and Chess960.

use std::io::Read;
use std::ops::ControlFlow;

use pgn_reader::{Nag, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role, Square};

use crate::Limits;

use crate::annotations::{Annotation, Colour};
use crate::game::{Game, MoveTree, NodeId, Start};
use crate::header::Outcome;
use crate::raw::{Annotator, Player, Team};
use crate::text::Date;
use crate::writer::NewHeader;

mod database;
pub use database::{DatabaseImport, ImportFailure, ImportSummary};

/// A game read from PGN, ready for [`crate::writer::DatabaseWriter::add_game`].
#[derive(Debug, Clone)]
pub struct ImportedGame {
    /// The header.
    pub header: NewHeader,
    /// The moves and annotations.
    pub game: Game,
    /// Variations left out for nesting deeper than the limit.
    pub variations_dropped: u32,
    /// What of the PGN the game could not keep as it was (see [`Loss`]); the texts cut by
    /// their fields are found by [`crate::writer::DatabaseWriter::cut_fields`], which knows the
    /// code page.
    pub losses: Vec<Loss>,
}

/// Something of a PGN game that a ChessBase database cannot hold as it was. Nothing is lost
/// silently: an import counts these per kind ([`Losses`]) and reports them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Loss {
    /// A text longer than its field, cut to it: the field (`"Event"`, `"White last name"`, …)
    /// and its size in bytes.
    Cut {
        /// The field, as PGN users know it.
        field: &'static str,
        /// Its size in bytes (in the database's code page).
        bytes: usize,
    },
    /// A NAG for a slot the move already had one in (ChessBase keeps one move assessment,
    /// one position assessment and one prefix per move): the first is kept.
    Nag,
    /// A result ChessBase has no code for (`1/2-0`, a bye): stored as `*`.
    Result,
    /// A tag ChessBase has no field for (TimeControl, UTCDate, Opening, …), by name: left
    /// out, or kept as text with [`ImportOptions::keep_tags`].
    Tag(String),
    /// A value that is not understood for its field (an Elo of `abc`): left out.
    Unreadable(&'static str),
}

impl Loss {
    /// Whether the thing was left out (`true`) or kept changed (`false`).
    pub fn is_dropped(&self) -> bool {
        matches!(self, Loss::Nag | Loss::Tag(_) | Loss::Unreadable(_))
    }
}

impl std::fmt::Display for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Loss::Cut { field, bytes } => write!(f, "{field} values cut to {bytes} bytes"),
            Loss::Nag => write!(f, "NAGs left out (a move holds one of each kind)"),
            Loss::Result => write!(f, "results with no ChessBase code stored as *"),
            Loss::Tag(name) => write!(f, "{name} tags left out (no field for them)"),
            Loss::Unreadable(tag) => write!(f, "{tag} values not understood, left out"),
        }
    }
}

/// How many times each [`Loss`] happened in an import, with the first games it happened
/// in: what `cbh import` reports on standard error and under `"dropped"`/`"changed"`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Losses {
    kinds: std::collections::BTreeMap<Loss, LossCount>,
}

/// The count of one [`Loss`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LossCount {
    /// How many times it happened.
    pub count: u64,
    /// The first games (1-based numbers in the import) it happened in, at most
    /// [`LossCount::EXAMPLES`].
    pub games: Vec<u64>,
}

impl LossCount {
    /// How many game numbers a count keeps.
    pub const EXAMPLES: usize = 5;
}

impl Losses {
    /// Counts `loss` in game `game`.
    pub fn record(&mut self, loss: Loss, game: u64) {
        let c = self.kinds.entry(loss).or_default();
        c.count += 1;
        if c.games.len() < LossCount::EXAMPLES && c.games.last() != Some(&game) {
            c.games.push(game);
        }
    }

    /// Whether nothing was lost.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Each kind with its count, in a stable order.
    pub fn iter(&self) -> impl Iterator<Item = (&Loss, &LossCount)> {
        self.kinds.iter()
    }
}

/// Options of an import.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Keep the tags ChessBase has no field for (TimeControl, UTCDate, Opening, the lichess
    /// RatingDiff tags, …) in the game's opening text, one `[%tag Name "value"]` command
    /// each; the PGN export turns them back into tags. Off: they are left out and reported.
    pub keep_tags: bool,
    /// The code page of texts that are not UTF-8 (a Latin-1 or Windows-1251 PGN, or one game
    /// of such text among UTF-8 ones): each tag value and comment is read as UTF-8 where it is
    /// valid UTF-8, else in this code page. `None`: Windows-1252 (which Latin-1 text reads
    /// correctly).
    pub legacy: Option<&'static encoding_rs::Encoding>,
}

/// The tags kept aside by `tag` (those without a field of their own in the header) that the
/// game still uses: read in `begin_movetext` (clocks, set-up position, variant) or saying
/// nothing a database loses (`SetUp`). Every other one is a tag without a field.
fn used_aside(name: &[u8]) -> bool {
    matches!(
        name,
        b"WhiteClock" | b"BlackClock" | b"FEN" | b"SetUp" | b"Variant"
    )
}

/// A PGN game that could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {index}: {reason}")]
pub struct ImportError {
    /// 1-based number of the game in the input.
    pub index: u64,
    /// Why.
    pub reason: String,
}

/// Splits `Last, First` (or `Last,First`) as the export joins them, spaces kept; a name
/// without a comma is all last name; `?` is no name.
fn player(name: &str) -> Player {
    let (last, first) = match name.split_once(", ").or_else(|| name.split_once(',')) {
        Some((l, f)) => (l, f),
        None if name == "?" => ("", ""),
        None => (name, ""),
    };
    Player {
        last: last.into(),
        first: first.into(),
        ..Player::default()
    }
}

/// `YYYY.MM.DD` with `??` for unknown parts.
fn date(s: &str) -> Date {
    let mut parts = s.trim().split('.');
    let mut num = |max: u32| {
        parts
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .filter(|&v| v <= max)
            .unwrap_or(0)
    };
    Date {
        year: num(4095) as u16,
        month: num(12) as u8,
        day: num(31) as u8,
    }
}

/// `B51` → the stored ECO value (sub-code 0).
fn eco(s: &str) -> u16 {
    let b = s.trim().as_bytes();
    match b {
        [l @ b'A'..=b'E', d1 @ b'0'..=b'9', d2 @ b'0'..=b'9', ..] => {
            let code = u16::from(l - b'A') * 100 + u16::from(d1 - b'0') * 10 + u16::from(d2 - b'0');
            (code + 1) * 128
        }
        _ => 0,
    }
}

/// `h:mm:ss` (with optional fractions) → hundredths of a second.
fn clock(s: &str) -> Option<u32> {
    let mut total = 0f64;
    for part in s.trim().split(':') {
        total = total * 60.0 + part.parse::<f64>().ok()?;
    }
    (0.0..4.0e7)
        .contains(&total)
        .then(|| (total * 100.0).round() as u32)
}

/// The Chess960 start-position number of a start arrangement (Scharnagl), `None` when the
/// position is not one.
fn chess960_number(pos: &Chess) -> Option<u16> {
    let board = pos.board();
    let rank: Vec<Option<Role>> = (0..8)
        .map(|f| {
            board.role_at(Square::from_coords(
                shakmaty::File::new(f),
                shakmaty::Rank::First,
            ))
        })
        .collect();
    let bishops: Vec<u32> = (0..8)
        .filter(|&f| rank[f as usize] == Some(Role::Bishop))
        .collect();
    let [b1, b2] = bishops[..] else { return None };
    let (light, dark) = if b1 % 2 == 1 { (b1, b2) } else { (b2, b1) };
    if light % 2 != 1 || dark % 2 != 0 {
        return None;
    }
    let rest: Vec<Option<Role>> = (0..8)
        .filter(|&f| f != b1 as usize && f != b2 as usize)
        .map(|f| rank[f])
        .collect();
    let q = rest.iter().position(|&r| r == Some(Role::Queen))?;
    let krn: String = rest
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != q)
        .map(|(_, r)| match r {
            Some(Role::King) => 'K',
            Some(Role::Rook) => 'R',
            Some(Role::Knight) => 'N',
            _ => '?',
        })
        .collect();
    const KRN: [&str; 10] = [
        "NNRKR", "NRNKR", "NRKNR", "NRKRN", "RNNKR", "RNKNR", "RNKRN", "RKNNR", "RKNRN", "RKRNN",
    ];
    let k = KRN.iter().position(|&p| p == krn)?;
    Some((96 * k + 16 * q + 4 * (dark / 2) as usize + (light / 2) as usize) as u16)
}

fn colour(c: char) -> Option<Colour> {
    Some(match c.to_ascii_uppercase() {
        'G' => Colour::Green,
        'Y' => Colour::Yellow,
        'R' => Colour::Red,
        _ => return None,
    })
}

/// The commands of a comment as annotations, and the text without them.
fn comment_parts(text: &str, mover: Option<Color>) -> (Vec<Annotation>, String) {
    let mut anns = Vec::new();
    let mut rest = String::new();
    let mut s = text;
    while let Some(start) = s.find("[%") {
        rest.push_str(&s[..start]);
        let Some(len) = s[start..].find(']') else {
            rest.push_str(&s[start..]);
            s = "";
            break;
        };
        let body = &s[start + 2..start + len];
        s = &s[start + len + 1..];
        let (cmd, args) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        let args = args.trim();
        let sq = |t: &str| t.parse::<Square>().ok();
        let ok = match cmd {
            "csl" => {
                let v: Option<Vec<_>> = args
                    .split(',')
                    .map(|t| {
                        let t = t.trim();
                        Some((colour(t.chars().next()?)?, sq(t.get(1..3)?)?))
                    })
                    .collect();
                v.map(|v| anns.push(Annotation::Squares(v))).is_some()
            }
            "cal" => {
                let v: Option<Vec<_>> = args
                    .split(',')
                    .map(|t| {
                        let t = t.trim();
                        Some((
                            colour(t.chars().next()?)?,
                            sq(t.get(1..3)?)?,
                            sq(t.get(3..5)?)?,
                        ))
                    })
                    .collect();
                v.map(|v| anns.push(Annotation::Arrows(v))).is_some()
            }
            "clk" => match (clock(args), mover) {
                (Some(v), Some(Color::White)) => {
                    anns.push(Annotation::WhiteClock(v));
                    true
                }
                (Some(v), Some(Color::Black)) => {
                    anns.push(Annotation::BlackClock(v));
                    true
                }
                _ => false,
            },
            "emt" => clock(args).is_some_and(|v| {
                let s = v / 100;
                anns.push(Annotation::TimeSpent {
                    hours: u8::try_from(s / 3600).unwrap_or(u8::MAX),
                    minutes: (s / 60 % 60) as u8,
                    seconds: (s % 60) as u8,
                    extra: 0,
                });
                true
            }),
            "mdl" => args.parse::<u32>().is_ok_and(|bits| {
                anns.push(Annotation::Medals(bits));
                true
            }),
            "eval" => eval_command(args).is_some_and(|a| {
                anns.push(a);
                true
            }),
            "cb" => cb_command(args).is_some_and(|a| {
                anns.push(a);
                true
            }),
            _ => false,
        };
        if !ok {
            // Commands the format has no place for stay in the text.
            rest.push_str("[%");
            rest.push_str(body);
            rest.push(']');
        }
    }
    rest.push_str(s);
    (anns, rest.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `[%eval 0.17]`, `[%eval -1.05,23]`, `[%eval #-3,30]` (lichess, python-chess, ChessBase):
/// an evaluation the format's 16-bit words can hold; anything else stays text.
fn eval_command(args: &str) -> Option<Annotation> {
    let (value, depth) = match args.split_once(',') {
        Some((v, d)) => (v.trim(), d.trim().parse::<i16>().ok().filter(|d| *d >= 0)?),
        None => (args, 0),
    };
    if let Some(mate) = value.strip_prefix('#') {
        return Some(Annotation::Evaluation {
            score: mate.parse().ok()?,
            kind: 1,
            depth,
        });
    }
    let pawns: f64 = value.parse().ok().filter(|v: &f64| v.is_finite())?;
    let centipawns = (pawns * 100.0).round();
    (centipawns.abs() <= f64::from(i16::MAX)).then_some(Annotation::Evaluation {
        score: centipawns as i16,
        kind: 0,
        depth,
    })
}

/// The `[%cb …]` forms of the export: `critical PHASE`, `colour #rrggbb [FLAGS]`,
/// `pawn-structure N`, `piece-path SQUARE N`, `eval KIND SCORE DEPTH`, `KK HEX`.
fn cb_command(args: &str) -> Option<Annotation> {
    let (what, value) = args.split_once(' ')?;
    match what {
        "pawn-structure" => Some(Annotation::PawnStructure(value.parse().ok()?)),
        "piece-path" => {
            let (square, kind) = value.split_once(' ')?;
            Some(Annotation::PiecePath {
                kind: kind.parse().ok()?,
                square: square.parse().ok()?,
            })
        }
        "eval" => match value
            .split(' ')
            .map(|t| t.parse().ok())
            .collect::<Option<Vec<i16>>>()?[..]
        {
            [kind, score, depth] => Some(Annotation::Evaluation { score, kind, depth }),
            _ => None,
        },
        "critical" => Some(Annotation::Critical(match value {
            "opening" => 1,
            "middlegame" => 2,
            "endgame" => 3,
            _ => return None,
        })),
        "colour" => {
            let (hex, flags) = value.split_once(' ').unwrap_or((value, "0"));
            let hex = hex.strip_prefix('#')?;
            let v = u32::from_str_radix(hex, 16)
                .ok()
                .filter(|_| hex.len() == 6)?;
            Some(Annotation::VariationColour {
                red: (v >> 16) as u8,
                green: (v >> 8) as u8,
                blue: v as u8,
                flags: flags.parse().ok()?,
            })
        }
        kind => {
            let kind = u8::from_str_radix(kind, 16).ok()?;
            let data: Option<Vec<u8>> = (0..value.len() / 2)
                .map(|i| u8::from_str_radix(value.get(2 * i..2 * i + 2)?, 16).ok())
                .collect();
            // Raw bytes of a kind the export writes as hex (never a text kind): a code page
            // that keeps every byte.
            Some(Annotation::parse(
                kind,
                &data.filter(|_| value.len() % 2 == 0)?,
                encoding_rs::WINDOWS_1252,
            ))
        }
    }
}

/// One line being read: the node reached, its position, and the position before its move.
#[derive(Clone)]
struct Line {
    node: NodeId,
    pos: Chess,
    before: Option<Chess>,
}

struct Movetext {
    header: NewHeader,
    start: Start,
    tree: MoveTree,
    game_annotations: Vec<Annotation>,
    line: Line,
    stack: Vec<Line>,
    /// Comments waiting for the next move (a comment opening a line).
    pending: Vec<Annotation>,
    annotations: Vec<(NodeId, Annotation)>,
    dropped: u32,
    error: Option<String>,
    /// What the game could not keep (its tags' losses first).
    losses: Vec<Loss>,
    /// The start of a comment that the reader hands over in pieces (one longer than its
    /// buffer, or one crossing the end of what it has read): joined before it is parsed, so
    /// where the input was cut never changes the comment.
    partial: Vec<u8>,
    /// Whether the comment being joined was longer than [`MAX_COMMENT_BYTES`].
    comment_overflow: bool,
}

/// The longest comment a game keeps, in bytes of UTF-8: an annotation item of the format
/// holds 65,529 bytes of data, a text's two of them its flags and language; the rest is left
/// as headroom. A longer comment is cut there (at a character) and reported
/// ([`Loss::Cut`], field `comment`).
pub const MAX_COMMENT_BYTES: usize = 65_000;

impl Movetext {
    /// Adds a piece of a comment to the one being joined, up to what a comment can hold (and
    /// a little more, to cut at a character): a comment of gigabytes costs no more than this.
    fn append_comment(&mut self, piece: &[u8]) {
        let room = (MAX_COMMENT_BYTES + 8).saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&piece[..piece.len().min(room)]);
        self.comment_overflow |= piece.len() > room;
    }
}

struct Importer {
    limits: Limits,
    options: ImportOptions,
    termination: Option<String>,
}

/// A text of the PGN: UTF-8 where it is valid UTF-8, else in the legacy code page.
fn decode_text(bytes: &[u8], legacy: Option<&'static encoding_rs::Encoding>) -> String {
    crate::text::decode_text(bytes, legacy.unwrap_or(encoding_rs::WINDOWS_1252))
}

impl Visitor for Importer {
    type Tags = (NewHeader, Vec<(String, String)>, Vec<Loss>);
    type Movetext = Movetext;
    type Output = Result<ImportedGame, String>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.termination = None;
        ControlFlow::Continue((NewHeader::default(), Vec::new(), Vec::new()))
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let (h, other, losses) = tags;
        let v = decode_text(&value.decode(), self.options.legacy);
        let number = |tag: &'static str, losses: &mut Vec<Loss>| {
            let t = v.trim();
            match t.parse::<u16>() {
                Ok(n) => n,
                Err(_) => {
                    if !t.is_empty() && t != "?" && t != "-" {
                        losses.push(Loss::Unreadable(tag));
                    }
                    0
                }
            }
        };
        let text = |v: &str| {
            if v == "?" {
                String::new()
            } else {
                v.to_string()
            }
        };
        match name {
            b"White" => h.white = player(&v),
            b"Black" => h.black = player(&v),
            b"Event" => h.tournament.title = text(&v),
            b"Site" => h.tournament.place = text(&v),
            b"EventDate" => h.tournament.date = date(&v).to_bits(),
            b"Date" => h.date = date(&v),
            b"Round" => {
                // `5`, `5.2`, `?.2`. A round or sub-round of 0 (stored, it means unknown),
                // over 255 or not a number cannot be stored: that part is left unknown and
                // reported; the other part is kept.
                let t = v.trim();
                let mut parts = t.splitn(2, '.');
                let mut lost = false;
                let mut part = |p: Option<&str>| -> u8 {
                    match p.map(str::trim) {
                        None | Some("" | "?" | "-") => 0,
                        Some(r) => match r.parse::<u8>() {
                            Ok(n) if n != 0 => n,
                            _ => {
                                lost = true;
                                0
                            }
                        },
                    }
                };
                h.round = part(parts.next());
                h.subround = part(parts.next());
                if lost {
                    losses.push(Loss::Unreadable("Round"));
                }
            }
            b"WhiteElo" => h.white_elo = number("WhiteElo", losses),
            b"BlackElo" => h.black_elo = number("BlackElo", losses),
            b"ECO" => h.eco = eco(&v),
            b"Annotator" => {
                h.annotator = Annotator {
                    name: v,
                    ..Annotator::default()
                }
            }
            b"WhiteTeam" => {
                h.white_team = Some(Team {
                    title: v,
                    ..Team::default()
                });
            }
            b"BlackTeam" => {
                h.black_team = Some(Team {
                    title: v,
                    ..Team::default()
                });
            }
            b"Termination" => {
                self.termination = Some(v.clone());
                other.push(("Termination".into(), v));
            }
            b"Result" => {
                h.result = Some(match v.as_str() {
                    "1-0" => Outcome::WhiteWins,
                    "0-1" => Outcome::BlackWins,
                    "1/2-1/2" => Outcome::Draw,
                    "*" | "" | "?" => Outcome::Line,
                    _ => {
                        losses.push(Loss::Result);
                        Outcome::Line
                    }
                });
            }
            _ => {
                if other.len() < self.limits.pgn_tags {
                    other.push((String::from_utf8_lossy(name).into_owned(), v));
                } else {
                    losses.push(Loss::Tag(String::from_utf8_lossy(name).into_owned()));
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        let (mut header, other, mut losses) = tags;
        let find = |n: &str| {
            other
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(n))
                .map(|(_, v)| v.as_str())
        };
        let chess960 = find("Variant").is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        });
        let mut start = Start::default();
        if let Some(fen) = find("FEN") {
            match chessfmt_pgn::position_from_fen(fen, chess960) {
                Ok((mode, pos)) => {
                    start.castling_mode = if chess960 {
                        CastlingMode::Chess960
                    } else {
                        mode
                    };
                    start.setup = true;
                    start.position = pos;
                }
                Err(e) => return ControlFlow::Break(Err(format!("FEN {fen:?}: {e}"))),
            }
        } else if chess960 {
            start.castling_mode = CastlingMode::Chess960;
        }
        if start.castling_mode == CastlingMode::Chess960 {
            start.chess960 = Some(chess960_number(&start.position).unwrap_or(0));
        }
        let special = match (self.termination.as_deref(), header.result) {
            (Some("forfeit"), Some(Outcome::WhiteWins)) => Some(Outcome::WhiteWinsForfeit),
            (Some("forfeit"), Some(Outcome::BlackWins)) => Some(Outcome::BlackWinsForfeit),
            (Some("forfeit"), Some(Outcome::Draw)) => Some(Outcome::DrawForfeit),
            (Some("both players lost"), _) => Some(Outcome::BothLost),
            _ => None,
        };
        if special.is_some() {
            header.result = special;
        }
        let mut game_annotations = Vec::new();
        // Tags without a field: kept as `[%tag …]` commands of the game's text, or counted.
        let mut kept = String::new();
        for (name, value) in &other {
            if used_aside(name.as_bytes()) || (name == "Termination" && special.is_some()) {
                continue;
            }
            if self.options.keep_tags {
                if !kept.is_empty() {
                    kept.push(' ');
                }
                kept.push_str(&crate::kept_tags::command(name, value));
            } else {
                losses.push(Loss::Tag(name.clone()));
            }
        }
        if !kept.is_empty() {
            game_annotations.push(Annotation::Text {
                before: false,
                flags: 0,
                language: 0,
                text: kept,
            });
        }
        for (name, ann) in [
            (
                "WhiteClock",
                Annotation::WhiteClock as fn(u32) -> Annotation,
            ),
            ("BlackClock", Annotation::BlackClock),
        ] {
            if let Some(v) = find(name).and_then(clock) {
                game_annotations.push(ann(v));
            }
        }
        let pos = start.position.clone();
        ControlFlow::Continue(Movetext {
            header,
            start,
            tree: MoveTree::new(),
            game_annotations,
            line: Line {
                node: MoveTree::ROOT,
                pos,
                before: None,
            },
            stack: Vec::new(),
            pending: Vec::new(),
            annotations: Vec::new(),
            dropped: 0,
            error: None,
            losses,
            partial: Vec::new(),
            comment_overflow: false,
        })
    }

    fn san(&mut self, m: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        if m.error.is_some() {
            return ControlFlow::Continue(());
        }
        let before = m.line.pos.clone();
        let mv: Option<Move> = match san.san {
            San::Null => match before.clone().swap_turn() {
                Ok(p) if !before.is_check() => {
                    m.line.pos = p;
                    None
                }
                _ => {
                    m.error = Some(format!(
                        "null move in check after {} moves",
                        m.tree.len() - 1
                    ));
                    return ControlFlow::Continue(());
                }
            },
            s => match s.to_move(&before) {
                Ok(mv) => {
                    m.line.pos.play_unchecked(mv);
                    Some(mv)
                }
                Err(e) => {
                    m.error = Some(format!("{san}: {e}"));
                    return ControlFlow::Continue(());
                }
            },
        };
        let node = m.tree.add(m.line.node, mv);
        for a in m.pending.drain(..) {
            m.annotations.push((node, a));
        }
        m.line.node = node;
        m.line.before = Some(before);
        ControlFlow::Continue(())
    }

    fn nag(&mut self, m: &mut Self::Movetext, nag: Nag) -> ControlFlow<Self::Output> {
        let node = m.line.node;
        if node == MoveTree::ROOT {
            return ControlFlow::Continue(());
        }
        let n = nag.0;
        let existing = m
            .annotations
            .iter_mut()
            .rev()
            .take_while(|(id, _)| *id == node)
            .find_map(|(_, a)| match a {
                Annotation::Symbols {
                    move_nag,
                    position_nag,
                    prefix_nag,
                } => Some((move_nag, position_nag, prefix_nag)),
                _ => None,
            });
        // The slot of the NAG's kind; a slot that holds another NAG keeps it (reported).
        let slot = |(mv, pos, pre): (&mut u8, &mut u8, &mut u8)| {
            let s = match n {
                1..=9 => mv,
                140..=146 => pre,
                _ => pos,
            };
            if *s == 0 || *s == n {
                *s = n;
                true
            } else {
                false
            }
        };
        match existing {
            Some(s) => {
                if !slot(s) {
                    m.losses.push(Loss::Nag);
                }
            }
            None => {
                let (mut a, mut b, mut c) = (0, 0, 0);
                let _ = slot((&mut a, &mut b, &mut c));
                m.annotations.push((
                    node,
                    Annotation::Symbols {
                        move_nag: a,
                        position_nag: b,
                        prefix_nag: c,
                    },
                ));
            }
        }
        ControlFlow::Continue(())
    }

    fn partial_comment(
        &mut self,
        m: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        m.append_comment(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        m: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        let joined;
        let bytes = if m.partial.is_empty() {
            comment.as_bytes()
        } else {
            m.append_comment(comment.as_bytes());
            joined = std::mem::take(&mut m.partial);
            &joined[..]
        };
        let mut text = decode_text(bytes, self.options.legacy);
        if std::mem::take(&mut m.comment_overflow) || text.len() > MAX_COMMENT_BYTES {
            let mut cut = MAX_COMMENT_BYTES.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            m.losses.push(Loss::Cut {
                field: "comment",
                bytes: MAX_COMMENT_BYTES,
            });
        }
        let node = m.line.node;
        // The side that made the move the comment follows (for `[%clk]`).
        let mover = (node != MoveTree::ROOT).then(|| !m.line.pos.turn());
        let (anns, rest) = comment_parts(&text, mover);
        let text_ann = |before| Annotation::Text {
            before,
            flags: 0,
            language: 0,
            text: rest.clone(),
        };
        if node == MoveTree::ROOT && m.stack.is_empty() {
            // Before the first move of the game: commands belong to the whole game, text
            // comes before the first move.
            if !rest.is_empty() {
                m.pending.push(text_ann(true));
            }
            m.game_annotations.extend(anns);
        } else if m.line.before.is_none() {
            // Before the first move of a variation.
            if !rest.is_empty() {
                m.pending.push(text_ann(true));
            }
            m.pending.extend(anns);
        } else {
            if !rest.is_empty() {
                m.annotations.push((node, text_ann(false)));
            }
            m.annotations.extend(anns.into_iter().map(|a| (node, a)));
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, m: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        let Some(before) = m.line.before.clone() else {
            return ControlFlow::Continue(Skip(true));
        };
        if m.stack.len() >= self.limits.variation_depth() || m.error.is_some() {
            m.dropped += 1;
            return ControlFlow::Continue(Skip(true));
        }
        let parent = m.tree.parent(m.line.node).unwrap_or(MoveTree::ROOT);
        m.stack.push(m.line.clone());
        m.line = Line {
            node: parent,
            pos: before,
            before: None,
        };
        m.pending.clear();
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, m: &mut Self::Movetext) -> ControlFlow<Self::Output> {
        if let Some(l) = m.stack.pop() {
            m.line = l;
            m.pending.clear();
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, m: Self::Movetext) -> Self::Output {
        if let Some(e) = m.error {
            return Err(e);
        }
        let mut game = Game::new(m.start, m.tree);
        game.game_annotations = m.game_annotations;
        game.tree.annotate(m.annotations);
        Ok(ImportedGame {
            header: m.header,
            game,
            variations_dropped: m.dropped,
            losses: m.losses,
        })
    }
}

/// What [`read_games`] read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportStats {
    /// Games read (imported or not).
    pub games: u64,
    /// Games that could not be imported.
    pub failed: u64,
    /// Why reading stopped before the end of the input, if it did: the input ends inside a
    /// game (a cut file, a compressed stream cut short or damaged) or cannot be read as PGN
    /// from there on. The game it stopped in is reported to the callback as failed; the games
    /// before it are kept, as the book builders keep them.
    pub stopped: Option<String>,
}

/// Reads every game of a PGN stream (decompressed already), calling `f` with each game or
/// the reason it cannot be imported; one bad game never ends the input, and a cut or
/// damaged input ends reading with the games before it kept ([`ImportStats::stopped`]).
pub fn read_games<R: Read>(
    input: R,
    limits: Limits,
    f: impl FnMut(Result<ImportedGame, ImportError>),
) -> std::io::Result<ImportStats> {
    read_games_with(input, limits, ImportOptions::default(), f)
}

/// [`read_games`] with [`ImportOptions`].
pub fn read_games_with<R: Read>(
    input: R,
    limits: Limits,
    options: ImportOptions,
    mut f: impl FnMut(Result<ImportedGame, ImportError>),
) -> std::io::Result<ImportStats> {
    let mut reader = Reader::new(input);
    let mut importer = Importer {
        limits,
        options,
        termination: None,
    };
    let mut stats = ImportStats::default();
    loop {
        let result = match reader.read_game(&mut importer) {
            Ok(Some(r)) => r,
            Ok(None) => break,
            // Damaged or cut data ends the input (reported), like the builders' reader; an
            // error of the device itself is the caller's.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::InvalidData
                        | std::io::ErrorKind::UnexpectedEof
                        | std::io::ErrorKind::Other
                ) =>
            {
                stats.games += 1;
                stats.failed += 1;
                let why =
                    format!("the input ends or breaks inside this game ({e}); reading stopped");
                f(Err(ImportError {
                    index: stats.games,
                    reason: why.clone(),
                }));
                stats.stopped = Some(e.to_string());
                break;
            }
            Err(e) => return Err(e),
        };
        stats.games += 1;
        match result {
            Ok(g) => f(Ok(g)),
            Err(reason) => {
                stats.failed += 1;
                f(Err(ImportError {
                    index: stats.games,
                    reason,
                }));
            }
        }
    }
    Ok(stats)
}
