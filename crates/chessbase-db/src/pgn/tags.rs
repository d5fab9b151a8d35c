//! The tag pairs of an exported game (the seven-tag roster, then what the header holds).

#[allow(clippy::wildcard_imports)]
use super::*;

pub(super) fn tag(out: &mut String, name: &str, value: &str) {
    let value = if value.is_empty() { "?" } else { value };
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    // Most values need no escaping: copied whole.
    if !value
        .bytes()
        .any(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\r' | b'\t'))
    {
        out.push_str(value);
        out.push_str("\"]\n");
        return;
    }
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

pub(super) fn clock(hundredths: u32) -> String {
    let s = hundredths / 100;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The tag pairs and the empty line after them; returns the game's outcome (for the result
/// token).
pub(super) fn write_tags(
    out: &mut String,
    header: &GameHeader<'_>,
    start: &Start,
    game_annotations: &[Annotation],
) -> crate::header::Outcome {
    let t = header.tournament;
    tag(out, "Event", &t.title);
    tag(out, "Site", &t.place);
    // Values are formatted into one reused buffer, without the formatting machinery.
    let mut v = String::with_capacity(64);
    let mut with = |out: &mut String, name: &str, fill: &dyn Fn(&mut String) -> bool| {
        v.clear();
        if fill(&mut v) {
            tag(out, name, &v);
        }
    };
    with(out, "Date", &|v| {
        header.date().push_pgn(v);
        true
    });
    with(out, "Round", &|v| {
        header.push_round(v);
        true
    });
    with(out, "White", &|v| {
        header.white.push_full_name(v);
        true
    });
    with(out, "Black", &|v| {
        header.black.push_full_name(v);
        true
    });
    let outcome = header.outcome();
    tag(out, "Result", outcome.pgn());
    for (name, elo) in [
        ("WhiteElo", header.record.white_elo),
        ("BlackElo", header.record.black_elo),
    ] {
        with(out, name, &|v| {
            crate::text::push_decimal(v, u32::from(elo), 1);
            elo != 0
        });
    }
    with(out, "ECO", &|v| header.eco().push_code(v));
    if !header.annotator.name.is_empty() {
        tag(out, "Annotator", &header.annotator.name);
    }
    if let Some(team) = header.white_team {
        tag(out, "WhiteTeam", &team.title);
    }
    if let Some(team) = header.black_team {
        tag(out, "BlackTeam", &team.title);
    }
    with(out, "EventDate", &|v| {
        t.start_date().push_pgn(v);
        !t.start_date().is_unknown()
    });
    if let Some(term) = outcome.termination() {
        tag(out, "Termination", term);
    }
    for a in game_annotations {
        match a {
            Annotation::WhiteClock(v) => tag(out, "WhiteClock", &clock(*v)),
            Annotation::BlackClock(v) => tag(out, "BlackClock", &clock(*v)),
            // Tags kept as text by an import (crate::kept_tags).
            Annotation::Text { text, .. } if text.contains("[%tag ") => {
                for (name, value) in crate::kept_tags::split(text).0 {
                    tag(out, &name, &value);
                }
            }
            _ => {}
        }
    }
    if start.chess960.is_some() {
        tag(out, "Variant", "Chess960");
    }
    if start.setup {
        tag(out, "SetUp", "1");
        let fen = Fen::from_position(&start.position, EnPassantMode::Legal);
        tag(out, "FEN", &fen.to_string());
    }
    out.push('\n');
    outcome
}
