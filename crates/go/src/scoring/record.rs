//! The scorer's view of a game read by the one SGF reader ([`crate::sgf::SgfGame`]): the final
//! board, what the game recorded, and the referee's marks (`TB`/`TW` territory, `MA` dead
//! stones). Errors are the reader's, with line and property.
//!
//! Moves are replayed with the board's physics only (captures, then suicide); whether a move was
//! legal under a rule set is the game module's business, not the scorer's.

use super::{GameFacts, PointSet};
use crate::board::Board;
use crate::point::{Color, Move};
use crate::rules::Komi;
use crate::sgf::{SgfError, SgfGame};

/// An SGF file that cannot be scored: the reader's error (line, property, what).
pub type RecordError = SgfError;

/// Referee marks found in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// `TB` (index 0) and `TW` (index 1) territory marks.
    pub territory: [PointSet; 2],
    /// Stones marked dead with `MA`.
    pub dead: PointSet,
}

impl Marks {
    /// Whether the file marks anything.
    pub fn any(&self) -> bool {
        !(self.territory[0].is_empty() && self.territory[1].is_empty() && self.dead.is_empty())
    }
}

/// A game read from SGF up to some move, ready to be scored.
#[derive(Clone, Debug)]
pub struct Record {
    /// The position after the moves replayed.
    pub board: Board,
    /// Captures, passes, last mover, handicap.
    pub facts: GameFacts,
    /// `KM`, if given.
    pub komi: Option<Komi>,
    /// `RU`, if given.
    pub rules_name: Option<String>,
    /// `RE`, if given.
    pub result: Option<String>,
    /// Moves in the main line.
    pub total_moves: usize,
    /// Moves replayed.
    pub moves: usize,
    /// Whether the replayed moves end with two consecutive passes.
    pub finished: bool,
    /// The side to move after the replayed moves.
    pub to_move: Color,
    /// Marks in the last replayed node.
    pub marks: Marks,
}

impl Record {
    /// Reads the main line of the first game in `text`, replaying `upto` moves (all if `None`).
    pub fn from_sgf(text: &str, upto: Option<usize>) -> Result<Record, RecordError> {
        Record::from_game(&SgfGame::parse(text)?, upto)
    }

    /// The scorer's view of a game read by the SGF reader: its set-up and `upto` moves (all if
    /// `None`) replayed with the board's physics, the facts scoring needs and the marks of the
    /// last node (only when the whole main line is replayed). A move onto a stone is an error
    /// naming its line and property.
    pub fn from_game(game: &SgfGame, upto: Option<usize>) -> Result<Record, RecordError> {
        let mut board = game.setup.clone();
        let size = board.size();
        let mut facts = GameFacts::default();
        let n = upto.unwrap_or(game.moves.len()).min(game.moves.len());
        let mut to_move = game.to_move;
        for (i, m) in game.moves[..n].iter().enumerate() {
            match m.mv {
                Move::Pass => facts.passes[m.color.index()] += 1,
                Move::Play(pt) => {
                    board.play(pt, m.color).map_err(|e| SgfError {
                        line: m.line,
                        property: Some(format!("{}[{}]", m.color.letter(), pt.to_sgf(size))),
                        message: format!("move {} {} {pt}: {e}", i + 1, m.color.letter()),
                        limit: None,
                    })?;
                }
            }
            facts.last_mover = Some(m.color);
            to_move = m.color.opponent();
        }
        board.clear_undo();
        facts.captures = [board.captures(Color::Black), board.captures(Color::White)];
        facts.moves = n as u32;
        // Only `HA` says a game had handicap stones: set-up stones (`AB`) may be a composed
        // position.
        facts.handicap = game.handicap;
        let finished = n >= 2 && game.moves[n - 2..n].iter().all(|m| m.mv == Move::Pass);
        Ok(Record {
            board,
            facts,
            komi: game.komi,
            rules_name: game.rules_name.clone(),
            result: game.result.clone(),
            total_moves: game.moves.len(),
            moves: n,
            finished,
            to_move,
            marks: if n == game.moves.len() {
                game.marks
            } else {
                Marks::default()
            },
        })
    }
}
