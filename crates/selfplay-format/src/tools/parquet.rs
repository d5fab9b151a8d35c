//! Self-play positions as a Parquet table (feature `parquet`): one row per position, for
//! DuckDB, Polars, pandas or Spark.
//!
//! | column | type | |
//! |---|---|---|
//! | `game` | INT64 | 1-based game number in the file |
//! | `ply` | INT32 | 0-based ply in the game |
//! | `fen` | UTF8 | the position before the move (legal en passant squares only) |
//! | `stm` | UTF8 | side to move, `w` or `b` |
//! | `move` | UTF8 | the move played (UCI; castling as the king's two-square move) |
//! | `score` | FLOAT | the side to move's expected score, 0 to 1 |
//! | `raw_score` | INT32 | the score as stored (0 to 65535) |
//! | `result` | FLOAT | the game's result for the side to move: 0, 0.5, 1 |
//! | `white_result` | INT32 | the result byte as stored (White's view: 0 loss, 1 draw, 2 win) |
//! | `best` | UTF8, optional | the most visited move (the first in code order on ties); null without a visit distribution |
//! | `visits` | LIST of {`move` UTF8, `visits` INT32}, optional | the visit distribution in move-code order; null without one |
//!
//! `SELECT fen, best FROM 'positions.parquet' WHERE ply < 20`, or
//! `SELECT game, ply, unnest(visits) FROM …` in DuckDB.

pub use chessfmt_files::parquet::Compression;
use chessfmt_files::parquet::{Column, ParquetFile, Text, Values};
use shakmaty::Move;

#[allow(clippy::wildcard_imports)]
use super::*;

/// The table's schema.
const SCHEMA: &str = "message selfplay_positions {
    required int64 game;
    required int32 ply;
    required binary fen (UTF8);
    required binary stm (UTF8);
    required binary move (UTF8);
    required float score;
    required int32 raw_score;
    required float result;
    required int32 white_result;
    optional binary best (UTF8);
    optional group visits (LIST) {
        repeated group list {
            required group element {
                required binary move (UTF8);
                required int32 visits;
            }
        }
    }
}";

/// Positions per row group (with their visit lists, about a million list entries).
pub const PARQUET_ROW_GROUP: usize = 1 << 15;

/// The UCI text of `m` (castling as `mode` has it), without the formatting machinery.
fn push_uci(out: &mut Text, m: Move, mode: CastlingMode) {
    let uci = m.to_uci(mode);
    let mut b = [0u8; 5];
    let len = match uci {
        shakmaty::uci::UciMove::Normal {
            from,
            to,
            promotion,
        } => {
            b[0] = b'a' + u8::from(from.file());
            b[1] = b'1' + u8::from(from.rank());
            b[2] = b'a' + u8::from(to.file());
            b[3] = b'1' + u8::from(to.rank());
            match promotion {
                Some(role) => {
                    b[4] = role.char() as u8;
                    5
                }
                None => 4,
            }
        }
        other => {
            out.push(&other.to_string());
            return;
        }
    };
    out.push_bytes(&b[..len]);
}

/// The columns of one row group.
#[derive(Default)]
struct Rows {
    game: Vec<i64>,
    ply: Vec<i32>,
    fen: Text,
    stm: Text,
    played: Text,
    score: Vec<f32>,
    raw_score: Vec<i32>,
    result: Vec<f32>,
    white_result: Vec<i32>,
    best: Text,
    best_levels: Vec<i16>,
    visit_moves: Text,
    visit_counts: Vec<i32>,
    visit_def: Vec<i16>,
    visit_rep: Vec<i16>,
}

impl Rows {
    fn len(&self) -> usize {
        self.game.len()
    }

    fn push(&mut self, s: &Sample<'_>) {
        let mode = s.position.castles().mode();
        self.game.push(s.game as i64);
        self.ply.push(s.ply.min(i32::MAX as usize) as i32);
        self.fen
            .push(&shakmaty::fen::Fen::from_position(s.position, EnPassantMode::Legal).to_string());
        self.stm.push(match s.position.turn() {
            Color::White => "w",
            Color::Black => "b",
        });
        push_uci(&mut self.played, s.mv, mode);
        self.score.push(s.score());
        self.raw_score.push(i32::from(s.raw_score));
        self.result.push(s.result);
        self.white_result.push(i32::from(s.white_result));
        if !s.has_policy() {
            self.best_levels.push(0);
            self.visit_def.push(0);
            self.visit_rep.push(0);
            return;
        }
        let mut best: Option<(Move, u8)> = None;
        for (i, (m, v)) in s.policy().enumerate() {
            if best.as_ref().is_none_or(|b| v > b.1) {
                best = Some((m, v));
            }
            push_uci(&mut self.visit_moves, m, mode);
            self.visit_counts.push(i32::from(v));
            self.visit_def.push(2);
            self.visit_rep.push(i16::from(i > 0));
        }
        match best {
            Some((m, _)) => {
                push_uci(&mut self.best, m, mode);
                self.best_levels.push(1);
            }
            None => {
                // A distribution of no moves: an empty list, no best move.
                self.best_levels.push(0);
                self.visit_def.push(1);
                self.visit_rep.push(0);
            }
        }
    }

    /// The leaves in the schema's order.
    fn into_columns(self) -> Vec<Column> {
        vec![
            Column::required(Values::Int64(self.game)),
            Column::required(Values::Int32(self.ply)),
            Column::required(Values::Text(self.fen)),
            Column::required(Values::Text(self.stm)),
            Column::required(Values::Text(self.played)),
            Column::required(Values::Float(self.score)),
            Column::required(Values::Int32(self.raw_score)),
            Column::required(Values::Float(self.result)),
            Column::required(Values::Int32(self.white_result)),
            Column::optional(Values::Text(self.best), self.best_levels),
            Column::nested(
                Values::Text(self.visit_moves),
                self.visit_def.clone(),
                self.visit_rep.clone(),
            ),
            Column::nested(
                Values::Int32(self.visit_counts),
                self.visit_def,
                self.visit_rep,
            ),
        ]
    }
}

/// Writes every position as a row of a Parquet table (see the module's columns; Snappy).
pub fn to_parquet(data: &[u8], mode: Mode, out: &mut dyn Write) -> Result<Summary, ToolError> {
    to_parquet_with(data, mode, Compression::Snappy, out)
}

/// [`to_parquet`] with the table's pages compressed by `compression`.
pub fn to_parquet_with(
    data: &[u8],
    mode: Mode,
    compression: Compression,
    out: &mut dyn Write,
) -> Result<Summary, ToolError> {
    // FENs are nearly all distinct; a dictionary of the visits' moves costs more to build
    // than it saves after compression.
    let mut file = ParquetFile::with_compression(
        out,
        SCHEMA,
        &["fen", "visits.list.element.move"],
        compression,
    )?;
    let mut it = Positions::from_slice(data, mode);
    let mut sum = Summary::default();
    let mut rows = Rows::default();
    while let Some(s) = it.next() {
        let s = s?;
        sum.positions += 1;
        sum.written += 1;
        rows.push(&s);
        if rows.len() >= PARQUET_ROW_GROUP {
            file.write_row_group(std::mem::take(&mut rows).into_columns())?;
        }
    }
    if rows.len() > 0 {
        file.write_row_group(rows.into_columns())?;
    }
    file.finish()?;
    sum.skipped = it.skipped();
    sum.games = it.games();
    Ok(sum)
}
