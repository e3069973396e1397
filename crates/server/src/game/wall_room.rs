//! One game of Wall Go as the server plays it: the rules library's record [`Game`] plus
//! resignations and the turns the server played for a player whose time ran out.

use crate::game::room::ActError;
use baduk_wallgo::{
    Action, ActionList, Cell, Game, Outcome, Phase, Player, RegionKind, Side, Variant, NUM_CELLS,
};
use serde_json::{json, Value};

/// Seat names of a Wall Go game.
pub const SEATS: [&str; 2] = ["A", "B"];

fn player(seat: usize) -> Player {
    if seat == 0 {
        Player::A
    } else {
        Player::B
    }
}

/// A game of Wall Go on the server.
#[derive(Clone, Debug)]
pub struct WallRoom {
    /// The library's game (variant, actions, position).
    pub game: Game,
    /// Who resigned, if anyone.
    pub resigned: Option<usize>,
    /// For each action, whether the server played it when the player's time ran out.
    pub auto: Vec<bool>,
    /// The server ended the game: `abandon` (this seat made no move in the limit and loses) or
    /// `cancel` (nobody joined: no result).
    pub server_end: Option<(usize, &'static str)>,
}

impl WallRoom {
    /// A new game of `variant`.
    pub fn new(variant: Variant) -> WallRoom {
        WallRoom {
            game: Game::new(variant),
            resigned: None,
            auto: Vec::new(),
            server_end: None,
        }
    }

    /// The seat to act, if the game goes on.
    pub fn to_move(&self) -> Option<usize> {
        (!self.is_over()).then(|| self.game.position().to_move().index())
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.resigned.is_some() || self.server_end.is_some() || self.game.position().is_over()
    }

    /// Ends the game as the server's policy says (`abandon` by `seat`, or `cancel`).
    pub fn end_by_server(&mut self, seat: usize, verb: &str) -> Result<(), ActError> {
        if self.is_over() {
            return Err(ActError::conflict("the game is over"));
        }
        self.server_end = Some(match verb {
            "abandon" => (seat, "abandon"),
            "cancel" => (seat, "cancel"),
            v => {
                return Err(ActError::bad_request(format!(
                    "`{v}`: not a Wall Go ending"
                )))
            }
        });
        Ok(())
    }

    /// Number of actions played (placements and turns).
    pub fn move_count(&self) -> usize {
        self.game.actions().len()
    }

    /// Reads an action in the API's notation: `place D4` (or `D4`), `B2-C3/E`, `B2 pass`.
    pub fn parse(text: &str) -> Result<Action, ActError> {
        let t = text.trim();
        let body = t
            .strip_prefix("place ")
            .or_else(|| t.strip_prefix("turn "))
            .unwrap_or(t);
        if let Some((from, to)) = body.split_once('-') {
            if !to.contains('/') && !to.contains(' ') {
                return Err(ActError::bad_request(format!(
                    "`{t}`: a turn ends with a wall: {from}-{to}/N, /E, /S or /W"
                ))
                .with_code("wall.no_wall", json!({"action": t})));
            }
        }
        body.parse::<Action>().map_err(|e| {
            ActError::bad_request(format!("`{t}`: {e}"))
                .with_code("action.unknown", json!({"action": t}))
        })
    }

    /// Applies one action of `seat` (`auto`: the server played it for a player out of time).
    pub fn act(&mut self, seat: usize, text: &str, auto: bool) -> Result<(), ActError> {
        if self.is_over() {
            return Err(ActError::conflict("the game is over").with_code("game.over", Value::Null));
        }
        if text.trim().eq_ignore_ascii_case("resign") {
            self.resigned = Some(seat);
            return Ok(());
        }
        let a = Self::parse(text)?;
        if self.game.position().to_move() != player(seat) {
            return Err(
                ActError::conflict("not your turn").with_code("turn.not_yours", Value::Null)
            );
        }
        self.game
            .play(a)
            .map_err(|e| ActError::illegal(e.to_string()).with_code("wall.illegal", Value::Null))?;
        self.auto.push(auto);
        Ok(())
    }

    /// The API notation of an action.
    pub fn notation(&self, a: Action) -> String {
        match a {
            Action::Place(_) => format!("place {a}"),
            _ => a.to_string(),
        }
    }

    /// Legal actions of the side to move.
    pub fn legal(&self) -> Vec<String> {
        if self.is_over() {
            return Vec::new();
        }
        let mut list = ActionList::new();
        self.game.position().legal_actions(&mut list);
        list.iter().map(|&a| self.notation(a)).collect()
    }

    /// The record of `shared/spec/wallgo.md`, a comment marking each turn the server played.
    pub fn record(&self) -> String {
        let text = self.game.to_record();
        let mut out = String::new();
        let mut lines = text.lines();
        // The header: format, variant and the fixed pieces.
        for _ in 0..4 {
            if let Some(l) = lines.next() {
                out.push_str(l);
                out.push('\n');
            }
        }
        for (i, l) in lines.enumerate() {
            if self.auto.get(i).copied().unwrap_or(false) {
                out.push_str("# timeout: the server played this turn when the time ran out\n");
            }
            out.push_str(l);
            out.push('\n');
        }
        if let Some(s) = self.resigned {
            out.push_str(&format!("# {} resigned\n", SEATS[s]));
        }
        match self.server_end {
            Some((s, "abandon")) => out.push_str(&format!(
                "# {} made no move within the server's limit and lost by abandonment\n",
                SEATS[s]
            )),
            Some(_) => out.push_str("# cancelled: nobody took a seat within the server's limit\n"),
            None => {}
        }
        out
    }

    /// The winner's seat, if any.
    fn winner(&self) -> Option<usize> {
        if let Some(s) = self.resigned {
            return Some(1 - s);
        }
        match self.server_end {
            Some((s, "abandon")) => return Some(1 - s),
            Some(_) => return None,
            None => {}
        }
        match self.game.position().result()? {
            Outcome::Win(p) => Some(p.index()),
            Outcome::Draw => None,
        }
    }

    /// The phase's name in the API: `placement`, `play` or `finished`.
    pub fn phase_word(&self) -> &'static str {
        match self.game.position().phase() {
            _ if self.resigned.is_some() || self.server_end.is_some() => "finished",
            Phase::Placement => "placement",
            Phase::Turns => "play",
            Phase::Over(_) => "finished",
        }
    }

    /// The board part of the state.
    pub fn state(&self) -> Value {
        self.view(true)
    }

    /// The actions from the `keep`-th on, in the API notation (the state's `moves` past its
    /// first `keep`).
    pub fn moves_from(&self, keep: usize) -> Vec<String> {
        let acts = self.game.actions();
        acts[keep.min(acts.len())..]
            .iter()
            .map(|&a| self.notation(a))
            .collect()
    }

    /// The state's `auto` past its first `keep`.
    pub fn auto_from(&self, keep: usize) -> Vec<bool> {
        self.auto[keep.min(self.auto.len())..].to_vec()
    }

    /// The board part of the state; without `history` it leaves out `moves` and `auto` (whose
    /// length grows with the game).
    pub fn view(&self, history: bool) -> Value {
        let pos = self.game.position();
        let cells =
            |p: Player| -> Vec<String> { pos.pieces(p).iter().map(|c| c.to_string()).collect() };
        let mut walls = Vec::new();
        for i in 0..NUM_CELLS {
            let c = Cell::from_index(i).expect("cell index in range");
            for side in [Side::S, Side::E] {
                if let Some(e) = baduk_wallgo::Edge::of(c, side) {
                    if pos.walls().contains(e) {
                        walls.push(format!("{c}/{side}"));
                    }
                }
            }
        }
        let regions: Vec<Value> = pos
            .regions()
            .iter()
            .map(|r| {
                json!({
                    "kind": match r.kind {
                        RegionKind::APure => "A",
                        RegionKind::BPure => "B",
                        RegionKind::Mixed => "mixed",
                        RegionKind::Neutral => "neutral",
                    },
                    "cells": r.cells.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                })
            })
            .collect();
        let score = pos.score();
        let phase = self.phase_word();
        // Pieces that have at least one legal action, for the UI's first click.
        let mut movable = Vec::new();
        if pos.phase() == Phase::Turns && !self.is_over() {
            let mut list = ActionList::new();
            for c in pos.pieces(pos.to_move()).iter() {
                pos.piece_actions(c, &mut list);
                if !list.is_empty() {
                    movable.push(c.to_string());
                }
            }
        }
        let mut state = json!({
            "variant": self.game.variant().to_string(),
            "pieces": {"A": cells(Player::A), "B": cells(Player::B)},
            "walls": walls,
            "phase": phase,
            "last_move": self.game.actions().last().map(|&a| self.notation(a)),
            "regions": regions,
            "score": {"A": score.a, "B": score.b, "neutral": score.neutral, "mixed": score.mixed},
            "pieces_to_move": movable,
        });
        if history {
            state["moves"] = json!(self.moves_from(0));
            state["auto"] = json!(self.auto);
        }
        state
    }

    /// The result as JSON (null while playing).
    pub fn result_json(&self) -> Value {
        if !self.is_over() {
            return Value::Null;
        }
        let pos = self.game.position();
        let s = pos.score();
        let winner = self.winner();
        let (reason, detail, code, args) = match (self.resigned, pos.phase()) {
            (Some(r), _) => (
                "resignation",
                format!("{} resigned", SEATS[r]),
                "result.resigned",
                json!({"seat": SEATS[r]}),
            ),
            _ if self.server_end.is_some() => match self.server_end {
                Some((s, "abandon")) => (
                    "abandonment",
                    format!(
                        "{} made no move within the server's limit and loses by abandonment",
                        SEATS[s]
                    ),
                    "result.abandoned",
                    json!({"seat": SEATS[s]}),
                ),
                _ => (
                    "cancelled",
                    "nobody took a seat within the server's limit: the game is cancelled"
                        .to_string(),
                    "result.cancelled",
                    Value::Null,
                ),
            },
            (None, Phase::Over(baduk_wallgo::EndReason::TwoPasses)) => (
                "passes",
                "two passes in a row: mixed regions score for nobody".to_string(),
                "result.wall.passes",
                Value::Null,
            ),
            _ => (
                "separation",
                "no region holds pieces of both players".to_string(),
                "result.wall.separation",
                Value::Null,
            ),
        };
        let text = match (self.resigned, winner) {
            (Some(_), Some(w)) => format!("{}+R", SEATS[w]),
            _ if self.server_end.is_some() => match winner {
                Some(w) => format!("{}+F", SEATS[w]),
                None => "Void".to_string(),
            },
            _ => format!("A {} B {} neutral {}", s.a, s.b, s.neutral),
        };
        json!({
            "text": text,
            "winner": winner.map(|w| SEATS[w]),
            "reason": reason,
            "detail": detail,
            "code": code,
            "args": args,
            "rows": [],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_without_a_wall_says_how_to_write_one() {
        let e = WallRoom::parse("B2-C3").unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.contains("B2-C3/N, /E, /S or /W"), "{}", e.message);
    }

    #[test]
    fn placement_then_turns_in_the_record_notation() {
        let mut r = WallRoom::new(Variant::default());
        for (seat, a) in [(0, "place D4"), (1, "C3"), (0, "place E5"), (1, "place D2")] {
            r.act(seat, a, false).unwrap();
        }
        assert_eq!(r.to_move(), Some(1));
        assert_eq!(r.act(0, "B2-C2/S", false).unwrap_err().status, 409);
        let legal = r.legal();
        assert!(legal.iter().all(|a| !a.starts_with("place")));
        let first = legal[0].clone();
        r.act(1, &first, true).unwrap();
        assert!(r.record().contains("# timeout"));
        assert!(baduk_wallgo::Game::from_record(&r.record()).is_ok());
    }
}
