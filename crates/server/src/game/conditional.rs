//! Conditional moves: a seat's private plan of replies ("if my opponent plays E5, I play C3;
//! then if G7, C7 …"), checked when it is saved (shape, caps, every move legal on the board it
//! would be played on) and consulted when the opponent moves (the reply of the matching branch,
//! or the plan ends). The hub plays the reply in the same commit as the move (`hub::plans`);
//! the store keeps it (`store::conditional`). docs/api.md, "Conditional moves".

use crate::game::go_room::{GoRoom, Phase};
use crate::game::room::{ActError, ActionRow, Core, Room};
use baduk_go::{Point, Size};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The deepest plan: this many levels of (opponent's move, reply).
pub const MAX_DEPTH: usize = 10;
/// The most (opponent's move, reply) pairs one plan holds.
pub const MAX_NODES: usize = 200;

/// One planned answer: the reply to an opponent's move, and the plan after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The reply (a point, as `D4`).
    pub reply: String,
    /// The plan after the reply (empty: it ends there).
    pub then: Tree,
}

/// The opponent's possible next moves (points, as `E5`) and the answer to each.
pub type Tree = BTreeMap<String, Node>;

/// A seat's plan, valid while the game stays at `version` actions (its opponent to move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The game's version the plan was made (or last advanced) at.
    pub version: i64,
    /// The branches.
    pub moves: Tree,
}

/// The plan's JSON form: `{"E5": {"reply": "C3", "then": {…}}}` (`then` only when not empty).
pub fn tree_json(t: &Tree) -> Value {
    let mut m = Map::new();
    for (k, n) in t {
        let mut v = json!({"reply": n.reply});
        if !n.then.is_empty() {
            v["then"] = tree_json(&n.then);
        }
        m.insert(k.clone(), v);
    }
    Value::Object(m)
}

/// 400 `conditional.shape`: the body is not a plan.
fn shape(why: &str) -> ActError {
    ActError::bad_request(format!("conditional moves: {why}"))
        .with_code("conditional.shape", json!({"why": why}))
}

/// The canonical name of a point on the board (`e5` and ` E5` are `E5`); 422 `conditional.point`.
fn point(s: &str, size: Size) -> Result<String, ActError> {
    Point::from_gtp(s, size)
        .map(|p| p.to_string())
        .map_err(|e| {
            ActError::illegal(format!("conditional moves: `{s}`: {e}"))
                .with_code("conditional.point", json!({"point": s}))
        })
}

/// Reads a plan's `moves` (JSON, as a client sends it) for a board of `size`: its shape, the
/// caps ([`MAX_DEPTH`], [`MAX_NODES`]) and each point; the rules are checked by [`check`].
pub fn parse(moves: &Value, size: Size) -> Result<Tree, ActError> {
    let mut nodes = 0;
    parse_level(moves, size, 1, &mut nodes)
}

fn parse_level(v: &Value, size: Size, depth: usize, nodes: &mut usize) -> Result<Tree, ActError> {
    let Some(obj) = v.as_object() else {
        return Err(shape("moves: expected an object of the opponent's moves"));
    };
    if depth > MAX_DEPTH && !obj.is_empty() {
        return Err(ActError::illegal(format!(
            "conditional moves: deeper than {MAX_DEPTH} levels"
        ))
        .with_code("conditional.too_deep", json!({"max": MAX_DEPTH})));
    }
    let mut out = Tree::new();
    for (k, n) in obj {
        *nodes += 1;
        if *nodes > MAX_NODES {
            return Err(ActError::illegal(format!(
                "conditional moves: more than {MAX_NODES} planned replies"
            ))
            .with_code("conditional.too_many", json!({"max": MAX_NODES})));
        }
        let Some(n) = n.as_object() else {
            return Err(shape(
                "each move's answer: expected {\"reply\": POINT, \"then\": {…}}",
            ));
        };
        if n.keys().any(|f| f != "reply" && f != "then") {
            return Err(shape("an answer has only `reply` and `then`"));
        }
        let Some(reply) = n.get("reply").and_then(Value::as_str) else {
            return Err(shape("each answer needs its `reply` (a point)"));
        };
        let key = point(k, size)?;
        let reply = point(reply, size)?;
        let then = match n.get("then") {
            None | Some(Value::Null) => Tree::new(),
            Some(t) => parse_level(t, size, depth + 1, nodes)?,
        };
        if out.insert(key.clone(), Node { reply, then }).is_some() {
            return Err(ActError::bad_request(format!(
                "conditional moves: `{key}` is planned twice"
            ))
            .with_code("conditional.twice", json!({"point": key})));
        }
    }
    Ok(out)
}

/// Whether `seat` may plan now (409/422 `conditional.*` otherwise): a Go game in play whose
/// other side is to move.
pub fn may_plan(room: &Room, seat: usize) -> Result<(), ActError> {
    let Core::Go(g) = &room.core else {
        return Err(ActError::illegal("conditional moves are for Go games")
            .with_code("conditional.go_only", Value::Null));
    };
    if room.is_over() {
        return Err(
            ActError::conflict("the game is over").with_code("conditional.game_over", Value::Null)
        );
    }
    if g.phase != Phase::Play {
        return Err(ActError::conflict(
            "conditional moves are planned during play (not while handicap stones are placed or dead stones marked)",
        )
        .with_code("conditional.not_now", Value::Null));
    }
    if room.to_move() != Some(1 - seat) {
        return Err(ActError::conflict(
            "it is your move: play it; plan replies while your opponent is to move",
        )
        .with_code("conditional.your_turn", Value::Null));
    }
    Ok(())
}

/// Checks every branch on the board it would be played on: each opponent's move and each
/// reply legal (422 `conditional.illegal` naming the point and whose move it is).
pub fn check(room: &Room, seat: usize, moves: &Tree) -> Result<(), ActError> {
    let Core::Go(g) = &room.core else {
        return may_plan(room, seat);
    };
    check_level(g, seat, moves)
}

fn check_level(pos: &GoRoom, seat: usize, moves: &Tree) -> Result<(), ActError> {
    let illegal = |p: &str, whose: &str, e: ActError| {
        ActError::illegal(format!(
            "conditional moves: {whose} `{p}` is not legal there: {}",
            e.message
        ))
        .with_code("conditional.illegal", json!({"point": p, "whose": whose}))
    };
    for (k, n) in moves {
        let mut g = pos.clone();
        g.act(1 - seat, k, [0, 0])
            .map_err(|e| illegal(k, "opponent", e))?;
        g.act(seat, &n.reply, [0, 0])
            .map_err(|e| illegal(&n.reply, "reply", e))?;
        if g.phase != Phase::Play {
            return Err(illegal(
                &n.reply,
                "reply",
                ActError::illegal("the game would leave play"),
            ));
        }
        check_level(&g, seat, &n.then)?;
    }
    Ok(())
}

/// The planned answer to `row` (an action of the seat to move, just applied to `room`): the
/// branch of the other seat's plan that `row` matches, if the plan was made for the version
/// before it. Every plan that no longer fits the game is dropped from the room.
pub fn answer(room: &mut Room, row: &ActionRow) -> Option<(usize, Node)> {
    let other = 1 - row.seat;
    let matched = match (&room.plans[other], &room.core) {
        (Some(plan), Core::Go(g)) if plan.version == row.seq - 1 && !room.is_over() => {
            Point::from_gtp(&row.action, g.rules.size)
                .ok()
                .and_then(|p| plan.moves.get(&p.to_string()).cloned())
        }
        _ => None,
    };
    let version = room.version();
    for p in room.plans.iter_mut() {
        if p.as_ref().is_some_and(|p| p.version != version) {
            *p = None;
        }
    }
    matched
        .filter(|_| room.to_move() == Some(other))
        .map(|n| (other, n))
}

/// The stored form of a plan (the JSON of [`tree_json`]), read back; None: unreadable.
pub fn from_stored(version: i64, text: &str, size: Size) -> Option<Plan> {
    let v: Value = serde_json::from_str(text).ok()?;
    let moves = parse(&v, size).ok()?;
    Some(Plan { version, moves })
}
