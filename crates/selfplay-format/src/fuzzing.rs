//! Entry points shared by the fuzz targets (`fuzz/`) and the corpus replay tests. Not a stable
//! API.

use shakmaty::Position;

use crate::{
    decode::{decode_game, encode_move},
    frame::frames,
    movegen::{CodeList, legal_codes},
    positions::{Mode, Positions},
    tools,
    value::{decode_value_game, policy_to_value, value_frames},
};

/// Frames and decodes arbitrary bytes as policy data: never panics; framing and decoding
/// agree on every game boundary; every decoded game re-serialises to exactly its framed bytes;
/// the position iterator yields exactly the decoded games' moves (strict) and only positions
/// of games that decode (lenient); the code-order move generator agrees with shakmaty.
pub fn policy(data: &[u8]) {
    let mut end = 0u64;
    let mut decoded_plies = Vec::new();
    let mut first_error = false;
    for view in frames(data) {
        let Ok(view) = view else { break };
        assert_eq!(view.offset, end, "games are contiguous");
        end = view.offset + view.bytes.len() as u64;
        assert_eq!(view.records().count(), view.plies);
        match decode_game(&view) {
            Ok(game) => {
                assert_eq!(game.to_bytes(), view.bytes);
                if !first_error {
                    decoded_plies.push(game.moves.len());
                }
                let mut value = Vec::new();
                policy_to_value(&view, &mut value);
                let v = value_frames(&value)
                    .next()
                    .expect("one game")
                    .expect("framed");
                let vg = decode_value_game(&v).expect("a converted valid game decodes");
                assert_eq!(vg.moves.len(), game.moves.len());
            }
            Err(_) => first_error = true,
        }
    }
    // Strict: the positions of the games before the first bad one, in order, then those of
    // the bad game before its error (strict mode streams).
    let mut it = Positions::from_slice(data, Mode::Strict);
    let mut n = 0usize;
    let mut list = CodeList::new();
    let mut failed = false;
    while let Some(s) = it.next() {
        let Ok(s) = s else {
            failed = true;
            break;
        };
        n += 1;
        legal_codes(s.position, &mut list);
        let mut expected: Vec<u16> = s
            .position
            .legal_moves()
            .iter()
            .map(|&m| encode_move(m).0)
            .collect();
        expected.sort_unstable();
        assert_eq!(list.as_slice(), &expected[..]);
        assert!(s.position.is_legal(s.mv));
        assert_eq!(s.policy().len(), s.visit_bytes().len());
    }
    let good: usize = decoded_plies.iter().sum();
    if failed || first_error {
        assert!(n >= good);
    } else {
        assert_eq!(n, good);
    }
    let mut it = Positions::from_slice(data, Mode::Lenient);
    while let Some(s) = it.next() {
        let s = s.expect("lenient mode skips, never fails");
        assert!(s.position.is_legal(s.mv));
    }
    let stats = tools::stats(data);
    assert_eq!(
        stats.games as usize,
        frames(data).filter(|v| v.is_ok()).count()
    );
    let v = tools::validate(data, Mode::Lenient);
    assert!(v.valid as usize >= decoded_plies.len());
    // The writing tools of the CLI: they never fail in lenient mode, and what they write is
    // valid data (dedup) or text (to-pgn).
    let mut out = Vec::new();
    let s = tools::dedup(data, Mode::Lenient, &mut out).expect("lenient dedup");
    assert!(s.written <= s.positions);
    let check = tools::validate(&out, Mode::Strict);
    assert_eq!(
        (check.bad, check.valid),
        (0, s.written),
        "dedup writes valid games"
    );
    let mut text = Vec::new();
    tools::to_pgn(data, Mode::Lenient, &mut text).expect("lenient to-pgn");
    assert!(std::str::from_utf8(&text).is_ok());
}

/// Frames and decodes arbitrary bytes as value-format data: never panics; decoded games
/// re-serialise exactly.
pub fn value(data: &[u8]) {
    let mut end = 0u64;
    for view in value_frames(data) {
        let Ok(view) = view else { break };
        assert_eq!(view.offset, end, "games are contiguous");
        end = view.offset + view.bytes.len() as u64;
        assert_eq!(view.records().len(), view.plies());
        if let Ok(game) = decode_value_game(&view) {
            assert_eq!(game.to_bytes(), view.bytes);
        }
    }
}
