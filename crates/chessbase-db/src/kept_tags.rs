//! PGN tags that a database has no field for (TimeControl, UTCDate, Opening, the lichess
//! RatingDiff tags, …), kept in the game's opening text as one `[%tag Name "value"]`
//! command each (`cbh import --keep-tags`, [`crate::import::ImportOptions::keep_tags`]). The
//! PGN export turns such commands back into tag pairs and leaves them out of the comment, so
//! a PGN → database → PGN round trip keeps them; ChessBase itself shows them as the game's
//! text.
//!
//! In a value, `"` and `\` are escaped as in PGN; `]` and `}` (which would end the command
//! or the comment) are written as `)`.

/// A tag as a command of a game text.
pub fn command(name: &str, value: &str) -> String {
    let mut v = String::with_capacity(value.len() + 16);
    v.push_str("[%tag ");
    v.push_str(name);
    v.push_str(" \"");
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                v.push('\\');
                v.push(c);
            }
            ']' | '}' => v.push(')'),
            c => v.push(c),
        }
    }
    v.push_str("\"]");
    v
}

/// The `[%tag …]` commands of a text as (name, value) pairs, and the text without them
/// (whitespace between what is left collapsed to one space).
pub fn split(text: &str) -> (Vec<(String, String)>, String) {
    let mut tags = Vec::new();
    let mut rest = String::new();
    let mut s = text;
    while let Some(at) = s.find("[%tag ") {
        let after = &s[at + 6..];
        let Some((tag, len)) = parse(after) else {
            rest.push_str(&s[..at + 6]);
            s = after;
            continue;
        };
        rest.push_str(&s[..at]);
        tags.push(tag);
        s = &after[len..];
    }
    rest.push_str(s);
    let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    (tags, rest)
}

/// `Name "value"]` at the start of `s`: the pair and the bytes it takes.
fn parse(s: &str) -> Option<((String, String), usize)> {
    let name_len = s.find(' ')?;
    let name = &s[..name_len];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let body = s[name_len + 1..].strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?.1),
            '"' => {
                let end = body[i + 1..].strip_prefix(']')?;
                let used = s.len() - end.len();
                return Some(((name.to_string(), value), used));
            }
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_back_as_the_tags_they_were() {
        let pairs = [
            ("TimeControl", "600+0"),
            ("UTCDate", "2017.09.01"),
            ("Opening", "Sicilian Defense: \"Dragon\" \\ Variation"),
            ("WhiteRatingDiff", "+6"),
        ];
        let text: Vec<String> = pairs.iter().map(|(n, v)| command(n, v)).collect();
        let text = format!("before {} after", text.join(" "));
        let (tags, rest) = split(&text);
        assert_eq!(rest, "before after");
        let want: Vec<(String, String)> = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        assert_eq!(tags, want);
    }

    #[test]
    fn brackets_become_parentheses_and_broken_commands_stay_text() {
        assert_eq!(command("X", "a]b}c"), "[%tag X \"a)b)c\"]");
        let (tags, rest) = split("[%tag X \"unterminated");
        assert!(tags.is_empty());
        assert_eq!(rest, "[%tag X \"unterminated");
    }
}
