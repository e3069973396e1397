//! The ops that edit an [`SgfDoc`](super::SgfDoc), read from their JSON with every check that
//! needs no tree (shape, points on the board, texts and their caps) and written back as the
//! delta every copy applies.

use super::{bad_op, cut, op_error, OpError, LINES, MARKS, MAX_COMMENT, MAX_LABEL, MAX_NAME};
use crate::point::{Color, Move, Point, Size};
use serde_json::{json, Value};

/// One edit of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A move as a new last child of `parent` (or its existing child with the same move).
    Move {
        /// The node played from.
        parent: u32,
        /// Who plays.
        color: Color,
        /// The move.
        mv: Move,
    },
    /// Removes a node and its subtree (not the root).
    Delete {
        /// The node removed.
        node: u32,
    },
    /// Makes a node its parent's first child.
    Promote {
        /// The node promoted.
        node: u32,
    },
    /// Sets a node's comment (`C`; empty removes it).
    Comment {
        /// The node.
        node: u32,
        /// The comment.
        text: String,
    },
    /// Puts or takes a mark (`TR`, `SQ`, `CR`, `MA`) on a point.
    Mark {
        /// The node.
        node: u32,
        /// `TR`, `SQ`, `CR` or `MA`.
        kind: &'static str,
        /// The point.
        point: Point,
        /// Put (true) or take (false).
        on: bool,
    },
    /// Sets a point's label (`LB`; empty removes it).
    Label {
        /// The node.
        node: u32,
        /// The point.
        point: Point,
        /// The label.
        text: String,
    },
    /// Draws or erases an arrow (`AR`) or a line (`LN`).
    Line {
        /// The node.
        node: u32,
        /// `AR` or `LN`.
        kind: &'static str,
        /// Where it starts.
        from: Point,
        /// Where it ends (not `from`).
        to: Point,
        /// Draw (true) or erase (false).
        on: bool,
    },
    /// Sets a node's name (`N`; empty removes it).
    Name {
        /// The node.
        node: u32,
        /// The name.
        text: String,
    },
}

/// A text's refusal: over `max` characters (`code`), or a control character other than
/// those `allowed`.
fn check_text(
    text: &str,
    max: usize,
    code: &'static str,
    what: &str,
    allowed: &[char],
) -> Result<(), OpError> {
    let n = text.chars().count();
    if n > max {
        return Err(op_error(
            422,
            code,
            format!("{what} holds {n} characters: at most {max}"),
            json!({"max": max}),
        ));
    }
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() && !allowed.contains(c))
    {
        return Err(op_error(
            422,
            "review.text",
            format!(
                "{what} holds the control character U+{:04X}: only letters, signs{} are allowed",
                c as u32,
                if allowed.is_empty() {
                    ""
                } else {
                    ", new lines and tabs"
                }
            ),
            json!({"char": format!("U+{:04X}", c as u32)}),
        ));
    }
    Ok(())
}

impl Op {
    /// Reads an op from its JSON (`{"op": "move", …}`) on a board of `size`: an unknown op or
    /// field, or a field of the wrong type, is a 400 `review.op`; a point off the board or
    /// unreadable a 422 `review.off_board`; a text over its cap or with control characters a
    /// 422 naming it.
    pub fn parse(v: &Value, size: Size) -> Result<Op, OpError> {
        let o = v
            .as_object()
            .ok_or_else(|| bad_op("an op is a JSON object with an `op` field"))?;
        let kind = o.get("op").and_then(Value::as_str).ok_or_else(|| {
            bad_op("an op needs `op`: move, delete, promote, comment, mark, label, line or name")
        })?;
        let fields: &[&str] = match kind {
            // A move's delta carries the node it made: a client may send it back.
            "move" => &["parent", "color", "point", "node"],
            "delete" | "promote" => &["node"],
            "comment" | "name" => &["node", "text"],
            "mark" => &["node", "kind", "point", "on"],
            "label" => &["node", "point", "text"],
            "line" => &["node", "kind", "from", "to", "on"],
            _ => {
                return Err(bad_op(format!(
                    "unknown op `{}`: move, delete, promote, comment, mark, label, line or name",
                    cut(kind, 20)
                )))
            }
        };
        if let Some(k) = o
            .keys()
            .find(|k| *k != "op" && !fields.contains(&k.as_str()))
        {
            return Err(bad_op(format!(
                "op `{kind}` has no field `{}` (it takes {})",
                cut(k, 20),
                fields.join(", ")
            )));
        }
        let id = |name: &str| -> Result<u32, OpError> {
            o.get(name)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad_op(format!("op `{kind}`: `{name}` is a node id")))
        };
        let text = |name: &str| -> Result<String, OpError> {
            o.get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad_op(format!("op `{kind}`: `{name}` is a string")))
        };
        let flag = |name: &str| -> Result<bool, OpError> {
            o.get(name)
                .and_then(Value::as_bool)
                .ok_or_else(|| bad_op(format!("op `{kind}`: `{name}` is true or false")))
        };
        let point = |name: &str| -> Result<Point, OpError> {
            let s = text(name)?;
            Point::from_gtp(&s, size).map_err(|e| {
                op_error(
                    422,
                    "review.off_board",
                    format!("{name}: {e} ({}x{} board)", size.cols(), size.rows()),
                    json!({"point": cut(&s, 10)}),
                )
            })
        };
        let one_of = |name: &str, kinds: &[&'static str]| -> Result<&'static str, OpError> {
            let s = text(name)?;
            kinds.iter().copied().find(|k| *k == s).ok_or_else(|| {
                bad_op(format!(
                    "op `{kind}`: `{name}` is one of {}",
                    kinds.join(", ")
                ))
            })
        };
        Ok(match kind {
            "move" => {
                let color = match text("color")?.as_str() {
                    "B" => Color::Black,
                    "W" => Color::White,
                    _ => return Err(bad_op("op `move`: `color` is B or W")),
                };
                let mv = if text("point")? == "pass" {
                    Move::Pass
                } else {
                    Move::Play(point("point")?)
                };
                Op::Move {
                    parent: id("parent")?,
                    color,
                    mv,
                }
            }
            "delete" => Op::Delete { node: id("node")? },
            "promote" => Op::Promote { node: id("node")? },
            "comment" => {
                let t = text("text")?;
                check_text(
                    &t,
                    MAX_COMMENT,
                    "review.comment_too_long",
                    "the comment",
                    &['\n', '\t'],
                )?;
                Op::Comment {
                    node: id("node")?,
                    text: t,
                }
            }
            "name" => {
                let t = text("text")?;
                check_text(&t, MAX_NAME, "review.name", "the name", &[])?;
                Op::Name {
                    node: id("node")?,
                    text: t,
                }
            }
            "mark" => Op::Mark {
                node: id("node")?,
                kind: one_of("kind", &MARKS)?,
                point: point("point")?,
                on: flag("on")?,
            },
            "label" => {
                let t = text("text")?;
                check_text(&t, MAX_LABEL, "review.label", "the label", &[])?;
                Op::Label {
                    node: id("node")?,
                    point: point("point")?,
                    text: t,
                }
            }
            _ => {
                let (from, to) = (point("from")?, point("to")?);
                if from == to {
                    return Err(op_error(
                        422,
                        "review.line",
                        format!("a line from {from} to itself: its ends differ"),
                        json!({"point": from.to_string()}),
                    ));
                }
                Op::Line {
                    node: id("node")?,
                    kind: one_of("kind", &LINES)?,
                    from,
                    to,
                    on: flag("on")?,
                }
            }
        })
    }

    /// The op as JSON, as [`Op::parse`] reads it (points as `D4`); a move with the node it
    /// made or found when `node` is given.
    pub fn to_json(&self, node: Option<u32>) -> Value {
        match self {
            Op::Move { parent, color, mv } => {
                let mut v = json!({"op": "move", "parent": parent,
                    "color": color.letter().to_string(), "point": move_name(*mv)});
                if let Some(n) = node {
                    v["node"] = json!(n);
                }
                v
            }
            Op::Delete { node } => json!({"op": "delete", "node": node}),
            Op::Promote { node } => json!({"op": "promote", "node": node}),
            Op::Comment { node, text } => json!({"op": "comment", "node": node, "text": text}),
            Op::Name { node, text } => json!({"op": "name", "node": node, "text": text}),
            Op::Mark {
                node,
                kind,
                point,
                on,
            } => json!({"op": "mark", "node": node, "kind": kind,
                        "point": point.to_string(), "on": on}),
            Op::Label { node, point, text } => {
                json!({"op": "label", "node": node, "point": point.to_string(), "text": text})
            }
            Op::Line {
                node,
                kind,
                from,
                to,
                on,
            } => json!({"op": "line", "node": node, "kind": kind, "from": from.to_string(),
                        "to": to.to_string(), "on": on}),
        }
    }

    /// The node the op acts on (a move's parent).
    pub fn target(&self) -> u32 {
        match self {
            Op::Move { parent, .. } => *parent,
            Op::Delete { node }
            | Op::Promote { node }
            | Op::Comment { node, .. }
            | Op::Name { node, .. }
            | Op::Mark { node, .. }
            | Op::Label { node, .. }
            | Op::Line { node, .. } => *node,
        }
    }
}

/// A move as JSON names it: `D4` or `pass`.
pub(super) fn move_name(mv: Move) -> String {
    match mv {
        Move::Play(p) => p.to_string(),
        Move::Pass => "pass".into(),
    }
}
