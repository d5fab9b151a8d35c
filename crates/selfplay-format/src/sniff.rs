//! Telling the two self-play formats apart from other files by content (they have no magic
//! number): the first game must decode completely, every move legal.

use crate::{
    decode::decode_game,
    frame::frames,
    value::{decode_value_game, value_frames},
};

/// Which of the two formats a buffer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// The policy format (moves with visit distributions).
    Policy,
    /// The value format (a move and a score per ply).
    Value,
}

/// Whether `data` starts with a self-play game, and of which format: its first game must be
/// complete and decode: a legal start position in its header, legal moves, the terminator.
/// Policy is tried first. A
/// Polyglot book or a text file practically never passes (a legal start position in the
/// 43-byte header, then legal move codes, then the terminator).
pub fn sniff(data: &[u8]) -> Option<Kind> {
    if let Some(Ok(view)) = frames(data).next()
        && decode_game(&view).is_ok()
    {
        return Some(Kind::Policy);
    }
    if let Some(Ok(view)) = value_frames(data).next()
        && decode_value_game(&view).is_ok()
    {
        return Some(Kind::Value);
    }
    None
}
