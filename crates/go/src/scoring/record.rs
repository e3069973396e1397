//! Reading a finished game from SGF for scoring: the final board, what the game recorded, and
//! the referee's marks (`TB`/`TW` territory, `MA` dead stones).
//!
//! Moves are replayed with the board's physics only (captures, then suicide); whether a move was
//! legal under a rule set is the game module's business, not the scorer's.

use super::{GameFacts, PointSet};
use crate::board::Board;
use crate::point::{Color, Point, Size};
use crate::rules::Komi;
use sgf_parse::go::{Move as SgfMove, Point as SgfPoint, Prop};
use std::fmt;

/// An SGF file that cannot be scored, with the property or move that is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// What was wrong, naming the SGF property or move number.
    pub why: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SGF: {}", self.why)
    }
}

impl std::error::Error for RecordError {}

fn err(why: impl Into<String>) -> RecordError {
    RecordError { why: why.into() }
}

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

fn to_point(p: &SgfPoint, size: Size, prop: &str) -> Result<Point, RecordError> {
    let (x, y) = (p.x as u32, p.y as u32);
    if !size.contains_xy(x, y) {
        return Err(err(format!(
            "{prop}: point ({x},{y}) is off the {size} board"
        )));
    }
    Ok(Point::new(x, size.rows() - 1 - y))
}

fn to_move(m: &SgfMove, size: Size, prop: &str) -> Result<Option<Point>, RecordError> {
    match m {
        SgfMove::Pass => Ok(None),
        // `tt` is a pass on boards up to 19×19.
        SgfMove::Move(p) if p.x == 19 && p.y == 19 && size.cols() <= 19 && size.rows() <= 19 => {
            Ok(None)
        }
        SgfMove::Move(p) => to_point(p, size, prop).map(Some),
    }
}

impl Record {
    /// Reads the main line of the first game in `text`, replaying `upto` moves (all if `None`).
    pub fn from_sgf(text: &str, upto: Option<usize>) -> Result<Record, RecordError> {
        let trees = sgf_parse::go::parse(text).map_err(|e| err(e.to_string()))?;
        let root = trees.first().ok_or_else(|| err("no game in the file"))?;
        let nodes: Vec<_> = root.main_variation().collect();
        let mut size = Size::nineteen();
        let mut komi = None;
        let mut rules_name = None;
        let mut result = None;
        let mut handicap = None;
        for p in root.properties() {
            match p {
                Prop::SZ((c, r)) => {
                    size = Size::new(*c as u32, *r as u32).map_err(|e| err(format!("SZ: {e}")))?;
                }
                Prop::KM(k) => {
                    komi = Some(
                        Komi::parse(&k.to_string())
                            .map_err(|_| err(format!("KM[{k}] is not a multiple of 0.5")))?,
                    )
                }
                Prop::RU(t) => rules_name = Some(t.text.clone()),
                Prop::RE(t) => result = Some(t.text.clone()),
                Prop::HA(n) => handicap = Some((*n).max(0) as u32),
                _ => {}
            }
        }
        let mut board = Board::new(size);
        let mut facts = GameFacts::default();
        let mut history: Vec<Option<Point>> = Vec::new();
        let mut to_move_c = Color::Black;
        let mut marks = Marks::default();
        let total_moves = nodes.iter().filter(|n| n.get_move().is_some()).count();
        let limit = upto.unwrap_or(usize::MAX);
        for node in &nodes {
            if history.len() >= limit && node.get_move().is_some() {
                break;
            }
            marks = Marks::default();
            for p in node.properties() {
                match p {
                    Prop::AB(s) | Prop::AW(s) | Prop::AE(s) => {
                        let (stone, name) = match p {
                            Prop::AB(_) => (Some(Color::Black), "AB"),
                            Prop::AW(_) => (Some(Color::White), "AW"),
                            _ => (None, "AE"),
                        };
                        for q in s {
                            let pt = to_point(q, size, name)?;
                            // Cannot fail: the point is on the board.
                            let _ = board.set(pt, stone);
                        }
                    }
                    Prop::PL(c) => {
                        to_move_c = match c {
                            sgf_parse::Color::Black => Color::Black,
                            sgf_parse::Color::White => Color::White,
                        }
                    }
                    Prop::TB(s) | Prop::TW(s) => {
                        let (i, name) = if matches!(p, Prop::TB(_)) {
                            (0, "TB")
                        } else {
                            (1, "TW")
                        };
                        for q in s {
                            marks.territory[i].insert(to_point(q, size, name)?);
                        }
                    }
                    Prop::MA(s) => {
                        for q in s {
                            marks.dead.insert(to_point(q, size, "MA")?);
                        }
                    }
                    _ => {}
                }
            }
            if let Some(mv) = node.get_move() {
                let (c, m, name) = match mv {
                    Prop::B(m) => (Color::Black, m, "B"),
                    Prop::W(m) => (Color::White, m, "W"),
                    _ => continue,
                };
                let n = history.len() + 1;
                match to_move(m, size, name)? {
                    None => {
                        facts.passes[c.index()] += 1;
                        history.push(None);
                    }
                    Some(pt) => {
                        board.play(pt, c).map_err(|e| {
                            err(format!("move {n} {name}[{}]: {e}", pt.to_sgf(size)))
                        })?;
                        history.push(Some(pt));
                    }
                }
                facts.last_mover = Some(c);
                to_move_c = c.opponent();
            }
        }
        board.clear_undo();
        facts.captures = [board.captures(Color::Black), board.captures(Color::White)];
        facts.moves = history.len() as u32;
        // Only `HA` says a game had handicap stones: set-up stones (`AB`) may be a composed
        // position.
        facts.handicap = handicap.unwrap_or(0);
        let finished =
            history.len() >= 2 && history[history.len() - 2..].iter().all(Option::is_none);
        Ok(Record {
            board,
            facts,
            komi,
            rules_name,
            result,
            total_moves,
            moves: history.len(),
            finished,
            to_move: to_move_c,
            marks,
        })
    }
}
