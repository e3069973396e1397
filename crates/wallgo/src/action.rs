//! Actions (place, turn, pass), their notation, and the fixed-size action buffer the generator
//! fills.

use crate::geom::{Cell, Edge, NotationError};
use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

/// One action: a placement, a turn (move then wall), or a pass of a chosen piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    /// Place a free piece on an empty cell (placement phase).
    Place(Cell),
    /// Move the piece on `from` to `to` (0, 1 or 2 steps), then wall `wall`, an edge of `to`.
    Turn {
        /// The chosen piece's cell.
        from: Cell,
        /// Where it ends (equal to `from` for out-and-back or a stuck piece).
        to: Cell,
        /// The new wall, one of the edges of `to`.
        wall: Edge,
    },
    /// The chosen piece on this cell can neither step nor wall: the turn passes.
    Pass(Cell),
}

impl fmt::Display for Action {
    /// Record notation without the player: `D4`, `B2-C3/E`, `B2 pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Place(c) => write!(f, "{c}"),
            Action::Turn { from, to, wall } => match wall.side_from(to) {
                Some(s) => write!(f, "{from}-{to}/{s}"),
                None => write!(f, "{from}-{to} wall {wall}"),
            },
            Action::Pass(c) => write!(f, "{c} pass"),
        }
    }
}

impl FromStr for Action {
    type Err = NotationError;
    /// Reads `D4` (place), `B2-C3/E` (turn; the side is relative to the destination) or
    /// `B2 pass`.
    fn from_str(s: &str) -> Result<Action, NotationError> {
        let s = s.trim();
        let words: Vec<&str> = s.split_whitespace().collect();
        match words.as_slice() {
            [c, p] if p.eq_ignore_ascii_case("pass") => Ok(Action::Pass(c.parse()?)),
            [one] => {
                if let Some((from, rest)) = one.split_once('-') {
                    let (to, side) = rest
                        .split_once('/')
                        .ok_or_else(|| NotationError::BadWall(rest.to_string()))?;
                    let from: Cell = from.parse()?;
                    let to: Cell = to.parse()?;
                    let side = side.parse()?;
                    let wall = Edge::of(to, side)
                        .ok_or_else(|| NotationError::BoundaryWall(format!("{to}/{side}")))?;
                    Ok(Action::Turn { from, to, wall })
                } else {
                    Ok(Action::Place(one.parse()?))
                }
            }
            _ => Err(NotationError::BadWall(s.to_string())),
        }
    }
}

/// Capacity of an [`ActionList`]: more than any position can have (at most 4 pieces × 13
/// destinations × 4 walls = 208 turns, or 45 placements).
pub const MAX_ACTIONS: usize = 256;

/// A fixed-capacity list of actions filled by the generator; reuse one to allocate nothing.
#[derive(Clone)]
pub struct ActionList {
    len: usize,
    items: [Action; MAX_ACTIONS],
}

impl ActionList {
    /// An empty list.
    pub const fn new() -> ActionList {
        ActionList {
            len: 0,
            items: [Action::Pass(Cell::at(0)); MAX_ACTIONS],
        }
    }

    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends an action (the generator never exceeds the capacity).
    #[inline]
    pub(crate) fn push(&mut self, a: Action) {
        self.items[self.len] = a;
        self.len += 1;
    }

    /// The actions as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..self.len]
    }
}

impl Default for ActionList {
    fn default() -> ActionList {
        ActionList::new()
    }
}

impl Deref for ActionList {
    type Target = [Action];
    #[inline]
    fn deref(&self) -> &[Action] {
        self.as_slice()
    }
}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wallgo_spec_turn_notation_names_the_wall_side_from_the_destination() {
        let a: Action = "B2-C3/E".parse().unwrap();
        let c3: Cell = "C3".parse().unwrap();
        assert_eq!(
            a,
            Action::Turn {
                from: "B2".parse().unwrap(),
                to: c3,
                wall: "C3/E".parse().unwrap()
            }
        );
        assert_eq!(a.to_string(), "B2-C3/E");
        let stay: Action = "B2-B2/S".parse().unwrap();
        assert_eq!(stay.to_string(), "B2-B2/S");
        let pass: Action = "B2 pass".parse().unwrap();
        assert_eq!(pass, Action::Pass("B2".parse().unwrap()));
        assert_eq!(pass.to_string(), "B2 pass");
        assert_eq!("D4".parse::<Action>().unwrap().to_string(), "D4");
    }

    #[test]
    fn bad_action_notation_is_an_error_not_a_panic() {
        for s in [
            "",
            "B2-C3",
            "B2-C3/Q",
            "B2-C9/E",
            "Z2",
            "B2-A1/N",
            "B2 pass now",
            "-/",
        ] {
            assert!(s.parse::<Action>().is_err(), "{s}");
        }
    }

    #[test]
    fn action_is_four_bytes() {
        assert_eq!(std::mem::size_of::<Action>(), 4);
    }
}
