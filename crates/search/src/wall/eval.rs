//! Evaluations: the hand-weighted one of `easy`, `medium` and `expert`, and the learned linear
//! one of `sedol`. Both score a position for one player; finished games score exactly.

use super::features::{territory, Features};
use super::model::Model;
use baduk_wallgo::{Outcome, Player, Position};

/// Value of a won finished game before the margin is added (no evaluation reaches it).
pub const WIN: i32 = 20_000;
/// Bound above every value a search can return.
pub const INF: i32 = 30_000;
/// Largest magnitude a non-terminal evaluation may take.
const EVAL_CAP: i32 = WIN / 2;

/// Hand weights (the seed's design values, not learned): per cell of pure region.
pub const W_PURE: i32 = 10;
/// Per cell of contested reach (reach outside the side's pure regions, so a secured cell is
/// counted once, by `W_PURE`).
pub const W_REACH: i32 = 3;
/// Per legal destination.
pub const W_MOBILITY: i32 = 1;
/// Per piece inside its own pure region of at most six cells (a penalty for that side).
pub const W_SELF_ENCLOSED: i32 = 40;

/// The exact value of a finished game for `me`: ±[`WIN`] by the outcome plus 10 per cell of
/// margin.
pub fn terminal(pos: &Position, me: Player) -> i32 {
    let s = pos.score();
    let margin = s.of(me) as i32 - s.of(me.other()) as i32;
    let base = match s.outcome(pos.variant().tiebreak) {
        Outcome::Win(p) if p == me => WIN,
        Outcome::Win(_) => -WIN,
        Outcome::Draw => 0,
    };
    base + 10 * margin
}

/// The hand evaluation of `pos` for `me` from its features (not checking for the end).
pub fn hand(f: &Features, me: Player) -> i32 {
    let m = f.of_side(me);
    let o = f.of_side(me.other());
    let pure = m.pure as i32 - o.pure as i32;
    let reach = (m.reach as i32 - m.pure as i32) - (o.reach as i32 - o.pure as i32);
    let mobility = m.mobility as i32 - o.mobility as i32;
    let enclosed = o.self_enclosed as i32 - m.self_enclosed as i32;
    W_PURE * pure + W_REACH * reach + W_MOBILITY * mobility + W_SELF_ENCLOSED * enclosed
}

/// Per cell of territory (reached in fewer steps than the enemy), in the `expert` evaluation.
pub const W_TERRITORY: i32 = 6;

/// The `expert` evaluation: the hand evaluation plus the territory split.
pub fn hand_territory(f: &Features, terr: [u32; 2], me: Player) -> i32 {
    let t = terr[me.index()] as i32 - terr[me.other().index()] as i32;
    hand(f, me) + W_TERRITORY * t
}

/// An evaluation a bot searches with.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// The hand-weighted seed features (`easy`, `medium`).
    Hand,
    /// The seed features plus territory, hand-weighted (`expert`).
    HandTerritory,
    /// A linear model learned from records.
    Learned(Model),
}

impl Evaluator {
    /// The value of `pos` for `me`: exact once the game is over, else the evaluation.
    #[inline]
    pub fn value(&self, pos: &Position, me: Player) -> i32 {
        if pos.is_over() {
            return terminal(pos, me);
        }
        let f = Features::of(pos);
        let v = match self {
            Evaluator::Hand => hand(&f, me),
            Evaluator::HandTerritory => hand_territory(&f, territory(pos), me),
            Evaluator::Learned(m) => m.eval(&f, territory(pos), pos.walls().len(), me),
        };
        v.clamp(-EVAL_CAP, EVAL_CAP)
    }
}
