//! The game model and the decoding of a `.cbg` game record into it.

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, File, FromSetup, Move, Piece, PositionError, Rank,
    Role, Setup, Square,
};

use crate::Limits;
use chess_core::limits::LimitExceeded;

use crate::annotations::{Annotation, Item};
use crate::error::{GameError, GameErrorKind, MoveProblem, RecordProblem, SetupProblem};
use crate::moves::{Mode, Replay, Stream, Token};
use crate::raw::{CHESS960_SIZE, CbgHead, RawChess960, RawSetup, SETUP_SIZE};

/// Index of a node in a [`MoveTree`].
pub type NodeId = u32;

const NO_NODE: NodeId = u32::MAX;

/// Bits of [`Node`]'s nesting field that hold the nesting (it saturates at 4,095, far above
/// the deepest nesting the limits allow).
const NESTING_BITS: u32 = 12;
const NESTING_MASK: u16 = (1 << NESTING_BITS) - 1;

/// One node of the move tree: a move (or a null move) and its links. 24 bytes (issue 20, F6:
/// a tree costs 24 bytes per stored move; annotations are kept beside the nodes, only for
/// the moves that have some).
#[derive(Debug, Clone)]
pub struct Node {
    /// The move leading to this node; `None` for the root and for null moves.
    pub mv: Option<Move>,
    /// Variations nested around this node (0 on the main line, +1 for each non-first child
    /// on the way from the root; at most `Limits::MAX_VARIATION_DEPTH` + 1) in the low
    /// [`NESTING_BITS`] bits, the move's SAN flags (`moves::san`) in the four above.
    nesting: u16,
    parent: NodeId,
    first_child: NodeId,
    last_child: NodeId,
    next_sibling: NodeId,
}

/// The moves of a game as a tree: node 0 is the start position; the first child of a node is
/// the main continuation, the others are variations in stored order.
///
/// Memory: 24 bytes per move (nodes are created in stream order, so a node's stream index is
/// its id − 1 and is not stored), plus the annotations, which are kept sorted by node in one
/// list beside the nodes.
#[derive(Debug, Clone)]
pub struct MoveTree {
    nodes: Vec<Node>,
    /// The nodes that have annotations, sorted, one entry per annotation (parallel to
    /// `annotations`).
    annotated: Vec<NodeId>,
    /// Annotations sorted by node (stable: a node's annotations in stored order).
    annotations: Vec<Annotation>,
    /// Whether every node carries its SAN flags (a tree made by the decoder), so that the
    /// PGN writer need not replay the moves.
    san: bool,
}

impl Default for MoveTree {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveTree {
    /// The root node's id.
    pub const ROOT: NodeId = 0;

    /// A tree with only the root.
    pub fn new() -> Self {
        Self::with_capacity(1)
    }

    /// A tree with only the root and room for `nodes` nodes (the root included).
    pub fn with_capacity(nodes: usize) -> Self {
        let mut all = Vec::with_capacity(nodes.max(1));
        all.push(Node {
            mv: None,
            nesting: 0,
            parent: NO_NODE,
            first_child: NO_NODE,
            last_child: NO_NODE,
            next_sibling: NO_NODE,
        });
        MoveTree {
            nodes: all,
            annotated: Vec::new(),
            annotations: Vec::new(),
            san: false,
        }
    }

    /// The nesting a new child of `parent` would get: the parent's, plus one when it already
    /// has a main continuation (the new child is then a variation).
    pub fn child_nesting(&self, parent: NodeId) -> u32 {
        let p = &self.nodes[parent as usize];
        u32::from(p.nesting & NESTING_MASK) + u32::from(p.first_child != NO_NODE)
    }

    /// How many variations are nested around `id` (0 on the main line).
    pub fn nesting(&self, id: NodeId) -> u32 {
        u32::from(self.nodes[id as usize].nesting & NESTING_MASK)
    }

    /// The SAN flags of a node's move (`moves::san`), when the tree has them.
    pub(crate) fn san_flags(&self, id: NodeId) -> Option<u8> {
        self.san
            .then(|| (self.nodes[id as usize].nesting >> NESTING_BITS) as u8)
    }

    /// Adds a move (or null move) after `parent`, as its last child, and returns its id (its
    /// stream index is `id − 1`). Constant time (the last child is kept: a node with many
    /// variations no longer costs a walk of its siblings per addition, issue 20, F3).
    ///
    /// Nesting deeper than 4,095 saturates; the decoder stops at its
    /// [`Limits::variation_depth`](crate::Limits::variation_depth).
    pub fn add(&mut self, parent: NodeId, mv: Option<Move>) -> NodeId {
        // A node added from outside carries no SAN flags: the writer replays again.
        self.san = false;
        self.add_with_san(parent, mv, 0)
    }

    /// Drops the SAN flags (the writer then replays the moves): for tests.
    #[cfg(test)]
    pub(crate) fn forget_san(&mut self) {
        self.san = false;
    }

    /// [`MoveTree::add`] with the move's SAN flags (the decoder's way).
    pub(crate) fn add_with_san(&mut self, parent: NodeId, mv: Option<Move>, san: u8) -> NodeId {
        let id = self.nodes.len() as NodeId;
        let nesting = u16::try_from(self.child_nesting(parent))
            .unwrap_or(NESTING_MASK)
            .min(NESTING_MASK)
            | u16::from(san) << NESTING_BITS;
        self.nodes.push(Node {
            mv,
            nesting,
            parent,
            first_child: NO_NODE,
            last_child: NO_NODE,
            next_sibling: NO_NODE,
        });
        let p = &mut self.nodes[parent as usize];
        let last = p.last_child;
        p.last_child = id;
        if p.first_child == NO_NODE {
            p.first_child = id;
        } else {
            self.nodes[last as usize].next_sibling = id;
        }
        id
    }

    /// A node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The stream index of a node's move (0 = the first move of the record); `None` for the
    /// root.
    pub fn index(&self, id: NodeId) -> Option<u32> {
        id.checked_sub(1)
    }

    /// The annotations of a node's move, in stored order.
    pub fn annotations(&self, id: NodeId) -> &[Annotation] {
        let from = self.annotated.partition_point(|&n| n < id);
        let to = from + self.annotated[from..].partition_point(|&n| n == id);
        &self.annotations[from..to]
    }

    /// Attaches annotations to nodes (the root included), after those already there; a node's
    /// annotations keep the order given. `O((a + n) log(a + n))` for `a` annotations already
    /// attached and `n` new ones.
    ///
    /// # Panics
    /// When a node id is not in the tree.
    pub fn annotate(&mut self, items: impl IntoIterator<Item = (NodeId, Annotation)>) {
        let mut all: Vec<(NodeId, Annotation)> = self
            .annotated
            .drain(..)
            .zip(self.annotations.drain(..))
            .collect();
        let before = all.len();
        all.extend(items);
        for &(id, _) in &all[before..] {
            assert!(
                (id as usize) < self.nodes.len(),
                "node {id} is not in the tree"
            );
        }
        // Stable: a node's annotations stay in the order given.
        all.sort_by_key(|&(id, _)| id);
        (self.annotated, self.annotations) = all.into_iter().unzip();
    }

    /// Number of nodes, the root included (so the number of moves + 1).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no moves.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// The parent of a node (`None` for the root).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        Some(self.node(id).parent).filter(|&p| p != NO_NODE)
    }

    /// The children of a node: main continuation first, then the variations.
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let mut c = self.node(id).first_child;
        std::iter::from_fn(move || {
            (c != NO_NODE).then(|| {
                let r = c;
                c = self.nodes[c as usize].next_sibling;
                r
            })
        })
    }

    /// The main continuation of a node.
    pub fn main_child(&self, id: NodeId) -> Option<NodeId> {
        Some(self.node(id).first_child).filter(|&c| c != NO_NODE)
    }

    /// The main line's nodes, from the first move.
    pub fn main_line(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut c = self.main_child(Self::ROOT);
        std::iter::from_fn(move || {
            let r = c?;
            c = self.main_child(r);
            Some(r)
        })
    }

    /// The node of the move with stream index `index`.
    pub fn by_index(&self, index: u32) -> Option<NodeId> {
        // Nodes are created in stream order, one per move: node `i + 1` is move `i`.
        let id = index.checked_add(1)?;
        ((id as usize) < self.nodes.len()).then_some(id)
    }
}

/// How a game starts.
#[derive(Debug, Clone)]
pub struct Start {
    /// The start position.
    pub position: Chess,
    /// Standard or Chess960 castling.
    pub castling_mode: CastlingMode,
    /// Whether the record stores a set-up position (the PGN needs `SetUp`/`FEN`).
    pub setup: bool,
    /// The Chess960 start-position number, for Chess960 games.
    pub chess960: Option<u16>,
    /// The castling-rook squares a Chess960 record stores (file-major: White O-O, White
    /// O-O-O, Black O-O, Black O-O-O), kept so that a copy writes the same bytes; the writer
    /// derives them from the position when `None`.
    pub chess960_rooks: Option<[u8; 4]>,
}

/// A decoded game: start, move tree with annotations, and what could not be read.
#[derive(Debug, Clone)]
pub struct Game {
    /// The 1-based record number.
    pub number: u32,
    /// The encoding mode of the record.
    pub mode: u8,
    /// How the game starts.
    pub start: Start,
    /// The moves.
    pub tree: MoveTree,
    /// Annotations of the whole game (move index −1).
    pub game_annotations: Vec<Annotation>,
    /// Annotations whose move index is past the game's moves, kept with it.
    pub unattached: Vec<Item>,
    /// Set when the moves stop early: the tree holds the moves before the damage.
    pub truncated: Option<GameError>,
    /// Set when the game's annotation record could not be read (the moves are unaffected).
    pub annotation_error: Option<GameError>,
}

impl Default for Start {
    /// The standard start position.
    fn default() -> Self {
        Start {
            position: Chess::default(),
            castling_mode: CastlingMode::Standard,
            setup: false,
            chess960: None,
            chess960_rooks: None,
        }
    }
}

impl Game {
    /// A game of `tree` from `start`, without whole-game annotations (record number 0 until
    /// a database gives it one).
    pub fn new(start: Start, tree: MoveTree) -> Game {
        Game {
            number: 0,
            mode: 0,
            start,
            tree,
            game_annotations: Vec::new(),
            unattached: Vec::new(),
            truncated: None,
            annotation_error: None,
        }
    }

    /// Attaches annotation items to their nodes (−1 = whole game).
    pub fn attach(&mut self, items: Vec<Item>) {
        let mut attached = Vec::new();
        for item in items {
            if item.index < 0 {
                self.game_annotations.push(item.annotation);
            } else if let Some(id) = self.tree.by_index(item.index as u32) {
                attached.push((id, item.annotation));
            } else {
                self.unattached.push(item);
            }
        }
        self.tree.annotate(attached);
    }

    /// The moves of the main line (null moves as `None`).
    pub fn main_line(&self) -> Vec<Option<Move>> {
        self.tree
            .main_line()
            .map(|id| self.tree.node(id).mv)
            .collect()
    }
}

fn err(game: u32, offset: u64, kind: GameErrorKind) -> GameError {
    GameError {
        game,
        file: "cbg",
        offset,
        kind,
    }
}

/// A game record's pieces: the stream and the start.
#[derive(Debug)]
struct Record<'a> {
    mode: u8,
    decoder: Mode,
    start: Start,
    stream: &'a [u8],
    stream_offset: u64,
}

impl Record<'_> {
    /// A move that cannot be decoded at byte `pos` of the stream.
    fn bad_move(&self, number: u32, pos: usize, ply: u32, reason: MoveProblem) -> GameError {
        err(
            number,
            self.stream_offset + pos as u64,
            GameErrorKind::BadMove { ply, reason },
        )
    }
}

fn setup_role(code: u8) -> Option<Role> {
    Some(match code {
        1 => Role::King,
        2 => Role::Queen,
        3 => Role::Knight,
        4 => Role::Bishop,
        5 => Role::Rook,
        6 => Role::Pawn,
        _ => return None,
    })
}

fn file_major(i: u8) -> Square {
    chess_core::huffman::file_major_square(u32::from(i))
}

/// Builds the start position of a set-up record.
pub fn setup_position(
    raw: &RawSetup,
    chess960: Option<&RawChess960>,
) -> Result<(Chess, CastlingMode), SetupProblem> {
    let mut board = Board::empty();
    let bits = &raw.board;
    let mut pos = 0usize;
    let mut bit = || -> Option<u8> {
        let b = bits.get(pos / 8)? >> (7 - pos % 8) & 1;
        pos += 1;
        Some(b)
    };
    for i in 0..64u8 {
        let Some(occupied) = bit() else { break };
        if occupied == 0 {
            continue;
        }
        let mut v = 0;
        for _ in 0..4 {
            v = v << 1 | bit().ok_or(SetupProblem::BoardCutShort)?;
        }
        let role = setup_role(v & 7).ok_or(SetupProblem::PieceCode(v & 7))?;
        let color = if v & 8 != 0 {
            Color::Black
        } else {
            Color::White
        };
        board.set_piece_at(file_major(i), Piece { color, role });
    }
    let turn = if raw.side_ep & 0x10 != 0 {
        Color::Black
    } else {
        Color::White
    };
    let ep_file = raw.side_ep & 0x0f;
    let ep_square = (1..=8).contains(&ep_file).then(|| {
        let rank = if turn == Color::White {
            Rank::Sixth
        } else {
            Rank::Third
        };
        Square::from_coords(File::new(u32::from(ep_file - 1)), rank)
    });
    let mode = if chess960.is_some() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    // Castling bits: 0 White O-O-O, 1 White O-O, 2 Black O-O-O, 3 Black O-O.
    let rooks = match chess960 {
        Some(c) => [c.rooks[1], c.rooks[0], c.rooks[3], c.rooks[2]].map(file_major),
        None => [Square::A1, Square::H1, Square::A8, Square::H8],
    };
    let mut castling_rights = Bitboard::EMPTY;
    for (i, sq) in rooks.into_iter().enumerate() {
        if raw.castling >> i & 1 != 0 {
            castling_rights.add(sq);
        }
    }
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights,
        ep_square,
        remaining_checks: None,
        halfmoves: 0,
        fullmoves: std::num::NonZeroU32::new(u32::from(raw.move_number).max(1))
            .unwrap_or(std::num::NonZeroU32::MIN),
    };
    let pos = Chess::from_setup(setup, mode)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .or_else(PositionError::ignore_invalid_ep_square)
        .map_err(|e| SetupProblem::Illegal(e.kinds()))?;
    Ok((pos, mode))
}

fn record(cbg: &[u8], offset: u32, number: u32) -> Result<Record<'_>, GameError> {
    let off = offset as usize;
    let bad = |o: usize, what: RecordProblem| err(number, o as u64, GameErrorKind::BadRecord(what));
    let head: [u8; 4] = cbg
        .get(off..off.saturating_add(4))
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            bad(
                off,
                RecordProblem::HeadPastEnd {
                    file_len: cbg.len() as u64,
                },
            )
        })?;
    let head = CbgHead::parse(head);
    if head.is_text() {
        return Err(err(number, off as u64, GameErrorKind::Text));
    }
    let len = head.length as usize;
    let body = cbg
        .get(off + 4..off.saturating_add(len))
        .filter(|_| len >= 4)
        .ok_or_else(|| bad(off + 1, RecordProblem::LengthPastEnd(head.length)))?;
    let mode = head.mode();
    let decoder = Mode::of(mode)
        .ok_or_else(|| err(number, off as u64, GameErrorKind::UnsupportedMode(mode)))?;
    let is960 = mode == 10 || mode == 11;
    let mut used = 0;
    let start = if head.has_setup() || is960 {
        let raw: &[u8; SETUP_SIZE] = body
            .get(..SETUP_SIZE)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad(off + 4, RecordProblem::SetupCutShort))?;
        let raw = RawSetup::parse(raw);
        used = SETUP_SIZE;
        let c960 = if is960 {
            let b: &[u8; CHESS960_SIZE] = body
                .get(SETUP_SIZE..SETUP_SIZE + CHESS960_SIZE)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| bad(off + 4 + SETUP_SIZE, RecordProblem::Chess960CutShort))?;
            used += CHESS960_SIZE;
            Some(RawChess960::parse(b))
        } else {
            None
        };
        let (position, castling_mode) = setup_position(&raw, c960.as_ref())
            .map_err(|e| err(number, off as u64 + 4, GameErrorKind::BadSetup(e)))?;
        Start {
            position,
            castling_mode,
            setup: true,
            chess960: c960.map(|c| c.number),
            chess960_rooks: c960.map(|c| c.rooks),
        }
    } else {
        Start::default()
    };
    Ok(Record {
        mode,
        decoder,
        start,
        stream: &body[used..],
        stream_offset: (off + 4 + used) as u64,
    })
}

/// Decodes a game record at absolute `offset` of the `.cbg` bytes into its move tree, under
/// the default [`Limits`].
///
/// A record that cannot be used at all (head or length outside the file, guiding text,
/// unsupported mode, bad set-up position) is an error; a stream that breaks off gives the moves
/// before the damage with [`Game::truncated`] set.
pub fn decode_game(cbg: &[u8], offset: u32, number: u32) -> Result<Game, GameError> {
    decode_game_with(cbg, offset, number, &Limits::default())
}

/// [`decode_game`] under `limits`: variations nested deeper than
/// [`Limits::variation_depth`] end the game there ([`GameErrorKind::TooDeep`], the moves up
/// to that point kept, as for any truncated game; the rest of the database is unaffected).
///
/// **Decision** (issue 20, F2): 256 levels by default. Every consumer of the tree (the PGN
/// writer, the CLI's JSON) walks variations recursively; 256 levels keep that within a
/// worker thread's 2 MiB stack with a wide margin (4,096 levels overflowed it: SIGABRT for
/// the whole export), and real databases nest a few levels, a few dozen at the extreme.
pub fn decode_game_with(
    cbg: &[u8],
    offset: u32,
    number: u32,
    limits: &Limits,
) -> Result<Game, GameError> {
    let max_depth = limits.variation_depth();
    let too_deep = || {
        GameErrorKind::TooDeep(LimitExceeded::new(
            "variation_depth",
            "variation levels",
            max_depth,
        ))
    };
    let rec = record(cbg, offset, number)?;
    let mut stream = Stream::new(rec.stream, rec.decoder);
    let mut replay = Replay::new(rec.start.position.clone());
    // Room for every move the stream can hold (a move takes at least one byte) in one
    // allocation: growing the tree by doubling cost a realloc per doubling, which contends
    // for the allocator's lock when workers decode in parallel. Pages never touched are never
    // resident, so a large reservation costs address space, not memory.
    let mut tree = MoveTree::with_capacity(rec.stream.len() + 1);
    tree.san = true;
    let mut cur = MoveTree::ROOT;
    let mut stack: Vec<(NodeId, Replay)> = Vec::new();
    let mut truncated = None;
    let at = |pos: usize| rec.stream_offset + pos as u64;
    loop {
        let pos = stream.position();
        let index = stream.moves();
        match stream.next_token() {
            Err((p, reason)) => {
                truncated = Some(rec.bad_move(number, p, index, reason));
                break;
            }
            Ok(None) => break,
            Ok(Some(Token::Variation)) => {
                if stack.len() >= max_depth {
                    truncated = Some(err(number, at(pos), too_deep()));
                    break;
                }
                stack.push((cur, replay.clone()));
            }
            Ok(Some(Token::End)) => match stack.pop() {
                Some((n, r)) => {
                    cur = n;
                    replay = r;
                }
                None => break,
            },
            Ok(Some(_)) if tree.child_nesting(cur) as usize > max_depth => {
                // Variations nested deeper than the writers may recurse: the game ends here.
                truncated = Some(err(number, at(pos), too_deep()));
                break;
            }
            Ok(Some(t)) => match replay.step_with::<true>(t) {
                Ok((mv, san)) => cur = tree.add_with_san(cur, mv, san),
                Err(reason) => {
                    truncated = Some(rec.bad_move(number, pos, index, reason));
                    break;
                }
            },
        }
    }
    Ok(Game {
        number,
        mode: rec.mode,
        start: rec.start,
        tree,
        game_annotations: Vec::new(),
        unattached: Vec::new(),
        truncated,
        annotation_error: None,
    })
}

/// A game without variations, opened for reading its moves one at a time (issue 30, F6): its
/// start and mode are read, its moves decoded only while [`PlainGame::moves`] walks them, so a
/// game of any length is read without a tree or a list of its moves.
#[derive(Debug)]
pub struct PlainGame<'a> {
    record: Record<'a>,
    number: u32,
}

impl PlainGame<'_> {
    /// How the game starts.
    pub fn start(&self) -> &Start {
        &self.record.start
    }

    /// The encoding mode of the record.
    pub fn mode(&self) -> u8 {
        self.record.mode
    }

    /// Hands each move of the game (a null move as `None`) to `push`, in order; returns where
    /// the moves stopped early, as [`Game::truncated`] would say (the moves before the damage
    /// were handed over).
    pub fn moves(&self, mut push: impl FnMut(Option<Move>)) -> Option<GameError> {
        self.record
            .first_line::<false>(self.number, false, |(m, _)| push(m))
            .1
    }

    /// [`PlainGame::moves`] with each move's SAN flags (`moves::san`).
    pub(crate) fn moves_with_san(&self, push: impl FnMut((Option<Move>, u8))) -> Option<GameError> {
        self.record.first_line::<true>(self.number, false, push).1
    }
}

/// Opens the game record at `offset` as a [`PlainGame`] when its stream has no variation
/// (found by reading its tokens, which needs no replay); `Ok(None)` otherwise. Errors as
/// [`decode_game_with`]'s for a record that cannot be used at all.
pub(crate) fn plain_game(
    cbg: &[u8],
    offset: u32,
    number: u32,
) -> Result<Option<PlainGame<'_>>, GameError> {
    let record = record(cbg, offset, number)?;
    let mut stream = Stream::new(record.stream, record.decoder);
    loop {
        match stream.next_token() {
            Ok(Some(Token::Variation)) => return Ok(None),
            // The moves end here (a bad token is where `moves` reports the truncation).
            Ok(None) | Ok(Some(Token::End)) | Err(_) => break,
            Ok(Some(_)) => {}
        }
    }
    Ok(Some(PlainGame { record, number }))
}

/// A game without variations as the PGN writer needs it (most games of a database): its
/// start and where its moves stopped; the moves themselves went, as they were decoded, to
/// the writer's sink with their SAN flags (`moves::san`), so that no tree and no list of
/// moves is built.
#[derive(Debug, Clone)]
pub(crate) struct PlainLine {
    /// How the game starts.
    pub(crate) start: Start,
    /// Set when the moves stop early (as [`Game::truncated`] would be).
    pub(crate) truncated: Option<GameError>,
}

/// Decodes a game that has no variation: `sink` is made from the start and is handed each
/// move (null moves as `None`) with its SAN flags; `Ok(None)` as soon as the stream opens a
/// variation (what the sink got is then to be dropped and the tree decoded). Stops where
/// [`decode_game_with`] stops: the end of the line, the end of the data, or the first bad
/// move (kept as `truncated`).
pub(crate) fn decode_plain<P: FnMut((Option<Move>, u8))>(
    cbg: &[u8],
    offset: u32,
    number: u32,
    sink: impl FnOnce(&Start) -> P,
) -> Result<Option<PlainLine>, GameError> {
    let rec = record(cbg, offset, number)?;
    let (_, truncated, variation) = rec.first_line::<true>(number, true, sink(&rec.start));
    if variation {
        return Ok(None);
    }
    Ok(Some(PlainLine {
        start: rec.start,
        truncated,
    }))
}

impl Record<'_> {
    /// Replays the line the stream starts with, handing each move (`None`: a null move) with
    /// its SAN flags (0 without `SAN`) to `push`, up to the first end-of-line code, the end of
    /// the data or the first bad move (returned as the truncation, with the replay at the
    /// end). A variation code ends the call when `plain` (the third value is then `true`);
    /// otherwise it is passed over (the main line's moves come first in a stream, each
    /// variation after the move it follows).
    fn first_line<const SAN: bool>(
        &self,
        number: u32,
        plain: bool,
        mut push: impl FnMut((Option<Move>, u8)),
    ) -> (Replay, Option<GameError>, bool) {
        let mut stream = Stream::new(self.stream, self.decoder);
        let mut replay = Replay::new(self.start.position.clone());
        let mut truncated = None;
        loop {
            let pos = stream.position();
            let index = stream.moves();
            match stream.next_token() {
                Err((p, reason)) => {
                    truncated = Some(self.bad_move(number, p, index, reason));
                    break;
                }
                Ok(None) | Ok(Some(Token::End)) => break,
                Ok(Some(Token::Variation)) if plain => return (replay, truncated, true),
                Ok(Some(Token::Variation)) => {}
                Ok(Some(t)) => match replay.step_with::<SAN>(t) {
                    Ok(m) => push(m),
                    Err(reason) => {
                        truncated = Some(self.bad_move(number, pos, index, reason));
                        break;
                    }
                },
            }
        }
        (replay, truncated, false)
    }
}

/// The main line of a game, replayed.
#[derive(Debug, Clone)]
pub struct MainLine {
    /// How the game starts.
    pub start: Start,
    /// The main line's moves (null moves as `None`).
    pub moves: Vec<Option<Move>>,
    /// The position after the last move.
    pub end: Chess,
    /// Set when the moves stop early.
    pub truncated: Option<GameError>,
}

/// Decodes only the main line: the moves up to the first end-of-line code (variations, which
/// follow the main line in the stream, are not read).
pub fn decode_main_line(cbg: &[u8], offset: u32, number: u32) -> Result<MainLine, GameError> {
    let rec = record(cbg, offset, number)?;
    let mut moves = Vec::with_capacity(rec.stream.len());
    let (replay, truncated, _) = rec.first_line::<false>(number, false, |(m, _)| moves.push(m));
    Ok(MainLine {
        start: rec.start,
        moves,
        end: replay.pos,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented memory bound of a move tree (issue 20, F6): 24 bytes per move.
    #[test]
    fn a_node_takes_24_bytes() {
        assert_eq!(size_of::<Node>(), 24);
    }

    #[test]
    fn annotations_stay_with_their_node_in_order() {
        let mut t = MoveTree::new();
        let a = t.add(MoveTree::ROOT, None);
        let b = t.add(a, None);
        let c = t.add(a, None);
        assert_eq!(
            (t.index(a), t.index(c), t.index(MoveTree::ROOT)),
            (Some(0), Some(2), None)
        );
        assert_eq!(t.by_index(1), Some(b));
        assert_eq!(t.nesting(c), 1);
        let clock = Annotation::WhiteClock;
        t.annotate([(c, clock(1)), (a, clock(2)), (c, clock(3))]);
        t.annotate([(a, clock(4))]);
        assert_eq!(t.annotations(a), [clock(2), clock(4)]);
        assert_eq!(t.annotations(b), []);
        assert_eq!(t.annotations(c), [clock(1), clock(3)]);
    }
}
