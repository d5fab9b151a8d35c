//! Structure-aware generation for the writer (issue 19): the input bytes are choices that
//! build a few legal games — main lines with variations (to depth 6), promotions and
//! castling included, annotations of every kind the writer writes (texts before and after
//! moves in the chosen code page's script, symbols, squares, arrows, clocks, time spent,
//! critical positions, medals, pawn structures, piece paths, evaluations, variation
//! colours), whole-game texts, headers with names in that script — written
//! by `DatabaseWriter` in one of four code pages, read back and compared: the same move
//! trees, annotations and names. Shared by the fuzz target `cbh_writer` (fuzz/) and the
//! replay test `fuzz_structured.rs`.

use arbitrary::{Result, Unstructured};
use chessbase_db::raw::{Player, Tournament};
use chessbase_db::writer::{DatabaseWriter, NewHeader};
use chessbase_db::{Annotation, Colour, Database, Game, Header, MoveTree, NodeId, Outcome, Start};
use shakmaty::{Chess, Position, Square};

/// Code pages and words of their scripts (names and comments are made of these).
const SCRIPTS: [(&encoding_rs::Encoding, &[&str]); 4] = [
    (
        encoding_rs::WINDOWS_1252,
        &["Müller", "Café", "Ñandú", "Smith", "élan", "Øst"],
    ),
    (
        encoding_rs::WINDOWS_1251,
        &["Иванов", "Пётр", "шах", "ладья", "Kramnik", "ход"],
    ),
    (
        encoding_rs::WINDOWS_1253,
        &["Παπαδόπουλος", "Γιώργος", "σκάκι", "πύργος", "Elo"],
    ),
    (
        encoding_rs::WINDOWS_1250,
        &["Łódź", "Dvořák", "Nováková", "šach", "Győr", "věž"],
    ),
];

/// Builds, writes, reads back and compares; panics on any difference. Returns how many
/// moves and annotations were written (for the replay test to see that its seeds reach them).
pub fn cbh_writer(data: &[u8]) -> (usize, usize) {
    let mut u = Unstructured::new(data);
    let Ok((code_page, games)) = generate(&mut u) else {
        return (0, 0);
    };
    let mut reached = (0, 0);
    let mut w = DatabaseWriter::with_code_page(code_page);
    for (h, g) in &games {
        w.add_game(h, g).expect("a generated game is writable");
    }
    let db = Database::options()
        .encoding(chessbase_db::TextEncoding::Fixed(code_page))
        .name("fuzz.cbh")
        .from_files(w.finish())
        .expect("a written database opens");
    assert_eq!(db.len() as usize, games.len());
    for (i, (h, g)) in games.iter().enumerate() {
        let n = i as u32 + 1;
        let Ok(Header::Game(read)) = db.header(n) else {
            panic!("record {n} is a game")
        };
        let back = db.game(n).expect("a written game decodes");
        assert!(
            back.truncated.is_none() && back.annotation_error.is_none(),
            "game {n}"
        );
        assert_eq!(
            canonical(&back.tree),
            canonical(&g.tree),
            "game {n}: moves and annotations"
        );
        assert_eq!(
            back.game_annotations, g.game_annotations,
            "game {n}: game texts"
        );
        let r = NewHeader::from_header(&read);
        let names = |h: &NewHeader| {
            (
                [h.white.last.clone(), h.white.first.clone()],
                [h.black.last.clone(), h.black.first.clone()],
                [h.tournament.title.clone(), h.tournament.place.clone()],
                (h.result, h.white_elo, h.black_elo, h.round),
            )
        };
        assert_eq!(names(&r), names(h), "game {n}: header");
        reached.0 += g.tree.len() - 1;
        reached.1 += (0..g.tree.len() as u32)
            .map(|id| g.tree.annotations(id).len())
            .sum::<usize>();
    }
    chessbase_db::fuzzing::exercise(&db);
    reached
}

/// The tree in depth-first order, children in stored order: each node's move, its
/// annotations (sorted: the writer may store a node's items in another order) and number of
/// children. Iterative.
fn canonical(t: &MoveTree) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<NodeId> = vec![MoveTree::ROOT];
    while let Some(id) = stack.pop() {
        let mut anns: Vec<String> = t.annotations(id).iter().map(|a| format!("{a:?}")).collect();
        anns.sort();
        let children: Vec<NodeId> = t.children(id).collect();
        out.push(format!("{:?} {anns:?} {}", t.node(id).mv, children.len()));
        stack.extend(children.into_iter().rev());
    }
    out
}

/// One chance in `n`; never once the input is used up (`ratio` says yes to an empty input,
/// which would loop forever).
fn chance(u: &mut Unstructured<'_>, n: u8) -> Result<bool> {
    Ok(!u.is_empty() && u.ratio(1, n)?)
}

fn word(u: &mut Unstructured<'_>, words: &[&str]) -> Result<String> {
    Ok(words[u.choose_index(words.len())?].to_string())
}

fn phrase(u: &mut Unstructured<'_>, words: &[&str]) -> Result<String> {
    let n = u.int_in_range(1..=6)?;
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(word(u, words)?);
    }
    Ok(v.join(" "))
}

fn square(u: &mut Unstructured<'_>) -> Result<Square> {
    Ok(Square::new(u.int_in_range(0..=63)?))
}

fn colour(u: &mut Unstructured<'_>) -> Result<Colour> {
    Ok([Colour::Green, Colour::Yellow, Colour::Red][u.choose_index(3)?])
}

fn annotation(u: &mut Unstructured<'_>, words: &[&str], before_ok: bool) -> Result<Annotation> {
    Ok(match u.int_in_range(0..=13)? {
        0 | 1 => Annotation::Text {
            before: before_ok && u.arbitrary()?,
            flags: 0,
            language: [0, 0x2A, 0x35, 0x31][u.choose_index(4)?],
            text: phrase(u, words)?,
        },
        2 => Annotation::Symbols {
            move_nag: u.int_in_range(1..=6)?,
            position_nag: [0, 10, 13, 14, 15, 16, 17, 18, 19][u.choose_index(9)?],
            prefix_nag: [0, 140, 142][u.choose_index(3)?],
        },
        3 => {
            let n = u.int_in_range(1..=4)?;
            let mut v = Vec::new();
            for _ in 0..n {
                v.push((colour(u)?, square(u)?));
            }
            Annotation::Squares(v)
        }
        4 => {
            let n = u.int_in_range(1..=3)?;
            let mut v = Vec::new();
            for _ in 0..n {
                v.push((colour(u)?, square(u)?, square(u)?));
            }
            Annotation::Arrows(v)
        }
        5 => Annotation::WhiteClock(u.int_in_range(0..=720_000)?),
        6 => Annotation::BlackClock(u.int_in_range(0..=720_000)?),
        7 => Annotation::TimeSpent {
            hours: u.int_in_range(0..=3)?,
            minutes: u.int_in_range(0..=59)?,
            seconds: u.int_in_range(0..=59)?,
            extra: 0,
        },
        8 => Annotation::Critical(u.int_in_range(1..=3)?),
        9 => Annotation::Medals(u.int_in_range(1..=0xffff)?),
        10 => Annotation::PawnStructure(u.arbitrary()?),
        11 => Annotation::PiecePath {
            kind: u.arbitrary()?,
            square: square(u)?,
        },
        12 => Annotation::Evaluation {
            score: u.arbitrary()?,
            kind: u.int_in_range(0..=3)?,
            depth: u.int_in_range(0..=60)?,
        },
        _ => Annotation::VariationColour {
            red: u.arbitrary()?,
            green: u.arbitrary()?,
            blue: u.arbitrary()?,
            flags: u.int_in_range(0..=3)?,
        },
    })
}

fn player(u: &mut Unstructured<'_>, words: &[&str]) -> Result<Player> {
    Ok(Player {
        last: word(u, words)?,
        first: if u.arbitrary()? {
            word(u, words)?
        } else {
            String::new()
        },
        ..Player::default()
    })
}

fn game(u: &mut Unstructured<'_>, words: &[&str]) -> Result<(NewHeader, Game)> {
    let mut tree = MoveTree::new();
    let mut anns = Vec::new();
    let mut budget: u32 = u.int_in_range(0..=160)?;
    // Lines to grow: the node they hang from, its position, their nesting.
    let mut lines: Vec<(NodeId, Chess, u32)> = vec![(MoveTree::ROOT, Chess::default(), 0)];
    while let Some((from, start, depth)) = lines.pop() {
        let (mut at, mut pos) = (from, start);
        let length = u.int_in_range(1..=40)?;
        for step in 0..length {
            if budget == 0 {
                break;
            }
            budget -= 1;
            // A variation's first move differs from its siblings' moves.
            let taken: Vec<_> = tree.children(at).filter_map(|c| tree.node(c).mv).collect();
            let moves: Vec<_> = pos
                .legal_moves()
                .into_iter()
                .filter(|m| step > 0 || !taken.contains(m))
                .collect();
            if moves.is_empty() {
                break;
            }
            if depth < 6 && chance(u, 6)? {
                lines.push((at, pos.clone(), depth + 1));
            }
            let m = moves[u.choose_index(moves.len())?];
            let child = tree.add(at, Some(m));
            pos.play_unchecked(m);
            while chance(u, 4)? {
                anns.push((child, annotation(u, words, true)?));
            }
            at = child;
        }
    }
    tree.annotate(anns);
    let mut g = Game::new(Start::default(), tree);
    if chance(u, 4)? {
        g.game_annotations.push(Annotation::Text {
            before: false,
            flags: 0,
            language: 0,
            text: phrase(u, words)?,
        });
    }
    let header = NewHeader {
        white: player(u, words)?,
        black: player(u, words)?,
        tournament: Tournament {
            title: phrase(u, words)?.chars().take(12).collect(),
            place: word(u, words)?,
            ..Tournament::default()
        },
        result: Some(
            [
                Outcome::WhiteWins,
                Outcome::Draw,
                Outcome::BlackWins,
                Outcome::Line,
            ][u.choose_index(4)?],
        ),
        white_elo: u.int_in_range(0..=2900)?,
        black_elo: u.int_in_range(0..=2900)?,
        round: u.int_in_range(0..=20)?,
        ..NewHeader::default()
    };
    Ok((header, g))
}

fn generate(
    u: &mut Unstructured<'_>,
) -> Result<(&'static encoding_rs::Encoding, Vec<(NewHeader, Game)>)> {
    let (code_page, words) = SCRIPTS[u.choose_index(SCRIPTS.len())?];
    let mut games = Vec::new();
    for _ in 0..u.int_in_range(1..=4)? {
        games.push(game(u, words)?);
    }
    Ok((code_page, games))
}
