//! An editable game tree: one game of an SGF collection with every variation, node and
//! property (unknown ones too), each node under a stable `u32` id (the root is 0; a new node
//! gets [`SgfDoc::next_id`], and ids are never reused after a delete).
//!
//! [`Op`]s edit it — a move (checked on the parent's position under the caller's rules),
//! delete, promote, comment, mark, label, line, name — each checked before anything changes:
//! a refused op leaves the tree as it was. [`SgfDoc::to_json`] is what pages read,
//! [`SgfDoc::to_sgf`] writes the whole tree back (point lists an op edited are written one point
//! a value), and [`SgfDoc::snapshot`] / [`SgfDoc::from_snapshot`] store it with its ids.
//!
//! Every walk of the tree is iterative: a line of 20,000 moves costs no stack.

use super::tree::{corners, SgfLimits, SgfNode, SgfProp, SgfTree, SgfWork};
use super::write::escape;
use super::{root_size, SgfError, SgfGame};
use crate::board::Board;
use crate::game::Game;
use crate::point::{Color, Move, Point, Size};
use crate::rules::{Life, Rules};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The most characters a comment (`C`) may hold.
pub const MAX_COMMENT: usize = 4_000;
/// The most characters a label (`LB`) may hold.
pub const MAX_LABEL: usize = 8;
/// The most characters a node's name (`N`) may hold.
pub const MAX_NAME: usize = 100;

/// The mark kinds of the `mark` op (point lists).
pub const MARKS: [&str; 4] = ["TR", "SQ", "CR", "MA"];
/// The line kinds of the `line` op (`from:to` values).
pub const LINES: [&str; 2] = ["AR", "LN"];

/// One node of the tree: its parent, its children (the first continues the main line) and
/// its properties in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocNode {
    /// The parent's id (None for the root).
    pub parent: Option<u32>,
    /// The children's ids, the main line's first.
    pub children: Vec<u32>,
    /// Every property of the node, as read or as ops left them.
    pub props: Vec<SgfProp>,
}

impl DocNode {
    /// The first property named `ident`.
    pub fn prop(&self, ident: &str) -> Option<&SgfProp> {
        self.props.iter().find(|p| p.ident == ident)
    }
}

/// An editable SGF game tree with stable node ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfDoc {
    size: Size,
    nodes: BTreeMap<u32, DocNode>,
    next_id: u32,
}

/// Why an op was refused: an HTTP status, a stable code (`review.…`), a sentence and its
/// arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct OpError {
    /// 400, 404, 413 or 422.
    pub status: u16,
    /// `review.op`, `review.no_node`, `review.off_board`, `review.illegal`, …
    pub code: &'static str,
    /// What is wrong, in English.
    pub message: String,
    /// The values the message names (`{"max": 4000}`, `{"point": "Z99"}`, …).
    pub args: Value,
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpError {}

use op::move_name;
pub use op::Op;

fn op_error(status: u16, code: &'static str, message: impl Into<String>, args: Value) -> OpError {
    OpError {
        status,
        code,
        message: message.into(),
        args,
    }
}

fn bad_op(message: impl Into<String>) -> OpError {
    op_error(400, "review.op", message, Value::Null)
}

/// At most `n` characters of `s` (what an error message quotes of a stranger's text).
fn cut(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// What an applied op did: the node a move made or found, and whether the tree changed (a
/// move already there, a mark already on, … change nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The move's node.
    pub node: Option<u32>,
    /// Whether the tree changed.
    pub changed: bool,
}

/// The (x, y) SGF corners of a value, as points on `size` (None off the board or unreadable).
fn sgf_point(v: &str, size: Size) -> Option<Point> {
    Point::from_sgf(v.trim(), size).ok()
}

/// The points a point-list value names on `size` (a rectangle expanded; nothing when a corner
/// is off the board or the value is unreadable).
fn expand(v: &str, size: Size) -> Vec<Point> {
    let Some(((x1, y1), (x2, y2))) = corners(v) else {
        return Vec::new();
    };
    let on = |x: u32, y: u32| size.contains_xy(x, y);
    if !on(x1, y1) || !on(x2, y2) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for y in y1.min(y2)..=y1.max(y2) {
        for x in x1.min(x2)..=x1.max(x2) {
            out.push(Point::new(x, size.rows() - 1 - y));
        }
    }
    out
}

/// A `point:rest` value's point and the rest (`LB`, `AR`, `LN`).
fn compose(v: &str, size: Size) -> Option<(Point, &str)> {
    let (a, b) = v.split_once(':')?;
    Some((sgf_point(a, size)?, b))
}

/// The stored form of a doc (every property and every id).
#[derive(Serialize, Deserialize)]
struct Snapshot {
    size: Size,
    next_id: u32,
    nodes: Vec<SnapNode>,
}

#[derive(Serialize, Deserialize)]
struct SnapNode {
    id: u32,
    parent: Option<u32>,
    children: Vec<u32>,
    props: Vec<(String, Vec<String>)>,
}

/// How much a doc holds, counted as the reader counts a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Held {
    properties: usize,
    points: usize,
    value_bytes: usize,
}

impl SgfDoc {
    /// Game `index` (0-based) of a collection read, with every variation and property. The
    /// text was decoded: a root's `CA` names UTF-8. A root whose size is unreadable is an
    /// error (as [`SgfGame`] reads it); other unreadable values are kept as they are and left
    /// out of [`SgfDoc::to_json`].
    pub fn from_tree(tree: &SgfTree, index: usize) -> Result<SgfDoc, SgfError> {
        let Some(&root) = tree.roots.get(index) else {
            return Err(SgfError {
                line: 0,
                property: None,
                message: format!(
                    "game {} asked for: the file holds {} game(s)",
                    index + 1,
                    tree.roots.len()
                ),
                limit: None,
            });
        };
        let size = root_size(&tree.nodes[root])?;
        let mut doc = SgfDoc {
            size,
            nodes: BTreeMap::new(),
            next_id: 0,
        };
        // Pre-order: ids in text order, the root 0.
        let mut stack: Vec<(usize, Option<u32>)> = vec![(root, None)];
        while let Some((k, parent)) = stack.pop() {
            let id = doc.next_id;
            doc.next_id += 1;
            let src = &tree.nodes[k];
            let mut props = src.props.clone();
            if parent.is_none() {
                for p in props.iter_mut().filter(|p| p.ident == "CA") {
                    p.values = vec!["UTF-8".into()];
                }
            }
            doc.nodes.insert(
                id,
                DocNode {
                    parent,
                    children: Vec::new(),
                    props,
                },
            );
            if let Some(p) = parent {
                if let Some(n) = doc.nodes.get_mut(&p) {
                    n.children.push(id);
                }
            }
            for &c in src.children.iter().rev() {
                stack.push((c, Some(id)));
            }
        }
        Ok(doc)
    }

    /// Reads game `index` of an SGF text under `limits`.
    pub fn parse(text: &str, index: usize, limits: &SgfLimits) -> Result<SgfDoc, SgfError> {
        SgfDoc::from_tree(&SgfTree::parse(text, limits)?, index)
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.size
    }

    /// The id the next new node gets.
    pub fn next_id(&self) -> u32 {
        self.next_id
    }

    /// How many nodes the tree holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree is only its root (a tree is never empty: the root stays).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Node `id`, if the tree holds it.
    pub fn node(&self, id: u32) -> Option<&DocNode> {
        self.nodes.get(&id)
    }

    /// The ids of every node, in id order.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.nodes.keys().copied()
    }

    /// The ids from the root to `id` (empty when the tree has no such node).
    pub fn path(&self, id: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = self.nodes.contains_key(&id).then_some(id);
        while let Some(k) = at {
            out.push(k);
            at = self.nodes.get(&k).and_then(|n| n.parent);
        }
        out.reverse();
        out
    }

    /// The move node `id` holds (`B`/`W`, readable on the board), if any.
    pub fn move_of(&self, id: u32) -> Option<(Color, Move)> {
        let n = self.nodes.get(&id)?;
        n.props.iter().find_map(|p| {
            let color = match p.ident.as_str() {
                "B" => Color::Black,
                "W" => Color::White,
                _ => return None,
            };
            Move::from_sgf(p.values[0].trim(), self.size)
                .ok()
                .map(|m| (color, m))
        })
    }

    /// Whether node `id` holds a `B` or `W` property (readable or not).
    fn has_move(&self, id: u32) -> bool {
        self.nodes
            .get(&id)
            .is_some_and(|n| n.props.iter().any(|p| p.ident == "B" || p.ident == "W"))
    }

    /// The points of node `id`'s point-list property `ident` (rectangles expanded, values off
    /// the board or unreadable left out).
    pub fn points(&self, id: u32, ident: &str) -> Vec<Point> {
        let Some(n) = self.nodes.get(&id) else {
            return Vec::new();
        };
        n.props
            .iter()
            .filter(|p| p.ident == ident)
            .flat_map(|p| p.values.iter().flat_map(|v| expand(v, self.size)))
            .collect()
    }

    /// Node `id`'s `point:rest` values of `ident` (`LB`, `AR`, `LN`) that read.
    fn composed(&self, id: u32, ident: &str) -> Vec<(Point, String)> {
        let Some(n) = self.nodes.get(&id) else {
            return Vec::new();
        };
        n.props
            .iter()
            .filter(|p| p.ident == ident)
            .flat_map(|p| p.values.iter())
            .filter_map(|v| compose(v, self.size).map(|(p, rest)| (p, rest.to_string())))
            .collect()
    }

    /// Node `id`'s arrows or lines (`AR`, `LN`) that read.
    fn lines(&self, id: u32, ident: &str) -> Vec<(Point, Point)> {
        self.composed(id, ident)
            .into_iter()
            .filter_map(|(a, b)| Some((a, sgf_point(&b, self.size)?)))
            .collect()
    }

    /// The position after node `id` under `rules`: the root's set-up, then every move and
    /// set-up along the path (moves after two passes resume play, except under
    /// `life=as-is`). A move on the path that the rules refuse is a 422 `review.illegal`.
    pub fn position(&self, id: u32, rules: &Rules) -> Result<Game, OpError> {
        let path = self.path(id);
        if path.is_empty() {
            return Err(no_node(id));
        }
        let size = self.size;
        let rules = rules.with_size(size);
        let mut game = Game::new(rules);
        for (i, &k) in path.iter().enumerate() {
            let n = &self.nodes[&k];
            let pl = n.prop("PL").and_then(|p| match p.values[0].trim() {
                "B" | "b" => Some(Color::Black),
                "W" | "w" => Some(Color::White),
                _ => None,
            });
            let setup = n
                .props
                .iter()
                .any(|p| matches!(p.ident.as_str(), "AB" | "AW" | "AE"));
            if setup || i == 0 {
                let mut board: Board = game.board().clone();
                for (ident, stone) in [
                    ("AE", None),
                    ("AB", Some(Color::Black)),
                    ("AW", Some(Color::White)),
                ] {
                    let mut pts = self.points(k, ident);
                    pts.sort_by_key(|q| (q.x(), q.y()));
                    pts.dedup();
                    board.set_many(&pts, stone).map_err(|e| {
                        op_error(
                            422,
                            "review.illegal",
                            format!("the set-up on this line cannot be made: {e}"),
                            Value::Null,
                        )
                    })?;
                }
                let first = self.move_of(k).map(|(c, _)| c);
                let to_move = pl.or(first).unwrap_or(if game.move_count() > 0 {
                    game.to_move()
                } else {
                    Color::Black
                });
                let handicap = if i == 0 {
                    n.prop("HA")
                        .and_then(|p| p.values[0].trim().parse::<u32>().ok())
                        .filter(|&h| h >= 2)
                        .unwrap_or(0)
                } else {
                    game.handicap()
                };
                game = Game::from_position(rules, board, to_move);
                game.set_handicap(handicap);
            }
            if let Some((color, mv)) = self.move_of(k) {
                if game.rules().life != Life::AsIs {
                    game.resume();
                }
                game.play_as(color, mv).map_err(|e| {
                    op_error(
                        422,
                        "review.illegal",
                        format!(
                            "the line to node {id} holds an illegal move ({} {}: {})",
                            e.color.letter(),
                            e.mv,
                            e.reason
                        ),
                        json!({"node": k}),
                    )
                })?;
            }
        }
        Ok(game)
    }

    /// The line from the root to node `id` as a one-game tree (the nodes' properties, one
    /// child each), which [`SgfGame::from_tree`] reads as a record's main line.
    pub fn line_tree(&self, id: u32) -> SgfTree {
        let path = self.path(id);
        let nodes = path
            .iter()
            .enumerate()
            .map(|(i, k)| SgfNode {
                line: 0,
                props: self.nodes[k].props.clone(),
                children: if i + 1 < path.len() {
                    vec![i + 1]
                } else {
                    Vec::new()
                },
            })
            .collect();
        SgfTree {
            nodes,
            roots: vec![0],
            work: SgfWork::default(),
        }
    }

    /// The line from the root to node `id` read as a record ([`SgfGame`]: set-up, game
    /// information, moves, the last node's marks).
    pub fn line_game(&self, id: u32) -> Result<SgfGame, SgfError> {
        let mut work = SgfWork::default();
        SgfGame::from_tree(&self.line_tree(id), 0, &mut work)
    }

    /// The number of moves from the root to each node, by id.
    fn numbers(&self) -> BTreeMap<u32, usize> {
        let mut out = BTreeMap::new();
        // A parent's id is below its children's (ids grow as nodes are made).
        for (&id, n) in &self.nodes {
            let up = n.parent.and_then(|p| out.get(&p).copied()).unwrap_or(0);
            out.insert(id, up + usize::from(self.has_move(id)));
        }
        out
    }

    /// The tree as pages read it: `size`, `root`, `next_id` and every node with its parent,
    /// children, move number, move, set-up, comment, name and markup (points as `D4`).
    pub fn to_json(&self) -> Value {
        let numbers = self.numbers();
        let names = |v: Vec<Point>| -> Vec<String> { v.iter().map(Point::to_string).collect() };
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|(&id, n)| {
                let text = |ident: &str| {
                    n.prop(ident)
                        .map(|p| p.values[0].clone())
                        .unwrap_or_default()
                };
                let mv = self
                    .move_of(id)
                    .map(|(c, m)| json!({"color": c.letter().to_string(), "point": move_name(m)}));
                let mut setup = Map::new();
                for ident in ["AB", "AW", "AE"] {
                    setup.insert(ident.into(), json!(names(self.points(id, ident))));
                }
                let mut markup = Map::new();
                for ident in MARKS {
                    markup.insert(ident.into(), json!(names(self.points(id, ident))));
                }
                let labels: Vec<Value> = self
                    .composed(id, "LB")
                    .into_iter()
                    .map(|(p, t)| json!([p.to_string(), t]))
                    .collect();
                markup.insert("LB".into(), json!(labels));
                for ident in LINES {
                    let l: Vec<Value> = self
                        .lines(id, ident)
                        .into_iter()
                        .map(|(a, b)| json!([a.to_string(), b.to_string()]))
                        .collect();
                    markup.insert(ident.into(), json!(l));
                }
                json!({
                    "id": id,
                    "parent": n.parent,
                    "children": n.children,
                    "number": numbers.get(&id).copied().unwrap_or(0),
                    "move": mv,
                    "setup": setup,
                    "comment": text("C"),
                    "name": text("N"),
                    "markup": markup,
                })
            })
            .collect();
        json!({
            "size": self.size,
            "root": 0,
            "next_id": self.next_id,
            "nodes": nodes,
        })
    }

    /// The whole tree as SGF text (FF\[4\]: `\` and `]` escaped in values), every property
    /// kept.
    pub fn to_sgf(&self) -> String {
        enum Step {
            Open,
            Node(u32),
            Close,
        }
        let mut out = String::from("(");
        let mut stack = vec![Step::Node(0)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Open => out.push('('),
                Step::Close => out.push_str(")\n"),
                Step::Node(id) => {
                    let Some(n) = self.nodes.get(&id) else {
                        continue;
                    };
                    out.push(';');
                    for p in &n.props {
                        out.push_str(&p.ident);
                        for v in &p.values {
                            out.push('[');
                            out.push_str(&escape(v));
                            out.push(']');
                        }
                    }
                    if n.props.len() > 1 {
                        out.push('\n');
                    }
                    match n.children.as_slice() {
                        [one] => stack.push(Step::Node(*one)),
                        many => {
                            for &c in many.iter().rev() {
                                stack.push(Step::Close);
                                stack.push(Step::Node(c));
                                stack.push(Step::Open);
                            }
                        }
                    }
                }
            }
        }
        out.push_str(")\n");
        out
    }

    /// The doc as stored: every node with its id and properties (JSON).
    pub fn snapshot(&self) -> String {
        let s = Snapshot {
            size: self.size,
            next_id: self.next_id,
            nodes: self
                .nodes
                .iter()
                .map(|(&id, n)| SnapNode {
                    id,
                    parent: n.parent,
                    children: n.children.clone(),
                    props: n
                        .props
                        .iter()
                        .map(|p| (p.ident.clone(), p.values.clone()))
                        .collect(),
                })
                .collect(),
        };
        serde_json::to_string(&s).expect("a doc serialises")
    }

    /// The doc [`SgfDoc::snapshot`] stored; an error when the text is not one or its tree is
    /// not whole.
    pub fn from_snapshot(text: &str) -> Result<SgfDoc, String> {
        let s: Snapshot = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut doc = SgfDoc {
            size: s.size,
            nodes: BTreeMap::new(),
            next_id: s.next_id,
        };
        for n in s.nodes {
            if n.props.iter().any(|(_, v)| v.is_empty()) {
                return Err(format!("node {}: a property without a value", n.id));
            }
            doc.nodes.insert(
                n.id,
                DocNode {
                    parent: n.parent,
                    children: n.children,
                    props: n
                        .props
                        .into_iter()
                        .map(|(ident, values)| SgfProp { ident, values })
                        .collect(),
                },
            );
        }
        doc.check()?;
        Ok(doc)
    }

    /// Whether the tree is whole: the root is 0 without a parent, every other node is its
    /// parent's child exactly once, every node is reached from the root, ids are below
    /// `next_id`.
    pub fn check(&self) -> Result<(), String> {
        let root = self.nodes.get(&0).ok_or("no root")?;
        if root.parent.is_some() {
            return Err("the root has a parent".into());
        }
        for (&id, n) in &self.nodes {
            if id >= self.next_id {
                return Err(format!("node {id} is not below next_id {}", self.next_id));
            }
            if let Some(p) = n.parent {
                let up = self
                    .nodes
                    .get(&p)
                    .ok_or(format!("node {id}: no parent {p}"))?;
                if up.children.iter().filter(|&&c| c == id).count() != 1 {
                    return Err(format!("node {id} is not once among {p}'s children"));
                }
            } else if id != 0 {
                return Err(format!("node {id} has no parent"));
            }
            for c in &n.children {
                if self.nodes.get(c).and_then(|k| k.parent) != Some(id) {
                    return Err(format!("node {id}'s child {c} does not name it"));
                }
            }
        }
        let mut seen = 0;
        let mut stack = vec![0u32];
        while let Some(k) = stack.pop() {
            seen += 1;
            if seen > self.nodes.len() {
                return Err("a cycle".into());
            }
            stack.extend(&self.nodes[&k].children);
        }
        if seen != self.nodes.len() {
            return Err(format!(
                "{} nodes are not reached from the root",
                self.nodes.len() - seen
            ));
        }
        Ok(())
    }

    /// What the doc holds, counted as the reader counts a file.
    fn held(&self) -> Held {
        let mut h = Held::default();
        for n in self.nodes.values() {
            h.properties += n.props.len();
            for p in &n.props {
                for v in &p.values {
                    h.value_bytes += v.len();
                    if MARKS.contains(&p.ident.as_str())
                        || matches!(p.ident.as_str(), "AB" | "AW" | "AE")
                    {
                        h.points += super::tree::value_points(v);
                    }
                }
            }
        }
        h
    }

    /// Applies `op` under `rules` (a move's legality) and `limits` (the tree stays within
    /// what the reader would read); a refused op changes nothing.
    pub fn apply(
        &mut self,
        op: &Op,
        rules: &Rules,
        limits: &SgfLimits,
    ) -> Result<Applied, OpError> {
        let target = op.target();
        if !self.nodes.contains_key(&target) {
            return Err(no_node(target));
        }
        let unchanged = Applied {
            node: None,
            changed: false,
        };
        let changed = Applied {
            node: None,
            changed: true,
        };
        match op {
            Op::Move { parent, color, mv } => {
                if let Some(&c) = self.nodes[parent]
                    .children
                    .iter()
                    .find(|&&c| self.move_of(c) == Some((*color, *mv)))
                {
                    return Ok(Applied {
                        node: Some(c),
                        changed: false,
                    });
                }
                if self.nodes.len() >= limits.max_nodes {
                    return Err(op_error(
                        413,
                        "review.nodes",
                        format!(
                            "the tree holds {} nodes, the most a review may hold",
                            limits.max_nodes
                        ),
                        json!({"max": limits.max_nodes}),
                    ));
                }
                let mut game = self.position(*parent, rules)?;
                if game.rules().life != Life::AsIs {
                    game.resume();
                }
                if let Err(e) = game.play_as(*color, *mv) {
                    return Err(op_error(
                        422,
                        "review.illegal",
                        format!("{} {}: {}", color.letter(), move_name(*mv), e.reason),
                        json!({"color": color.letter().to_string(), "point": move_name(*mv),
                               "reason": e.reason.to_string()}),
                    ));
                }
                let value = match mv {
                    Move::Play(p) => p.to_sgf(self.size),
                    Move::Pass => String::new(),
                };
                let id = self.next_id;
                self.next_id += 1;
                self.nodes.insert(
                    id,
                    DocNode {
                        parent: Some(*parent),
                        children: Vec::new(),
                        props: vec![SgfProp {
                            ident: color.letter().to_string(),
                            values: vec![value],
                        }],
                    },
                );
                if let Err(e) = self.within(limits) {
                    self.nodes.remove(&id);
                    return Err(e);
                }
                self.node_mut(*parent).children.push(id);
                Ok(Applied {
                    node: Some(id),
                    changed: true,
                })
            }
            Op::Delete { node } => {
                let Some(parent) = self.nodes[node].parent else {
                    return Err(root_error("deleted"));
                };
                self.node_mut(parent).children.retain(|c| c != node);
                let mut stack = vec![*node];
                while let Some(k) = stack.pop() {
                    if let Some(n) = self.nodes.remove(&k) {
                        stack.extend(n.children);
                    }
                }
                Ok(changed)
            }
            Op::Promote { node } => {
                let Some(parent) = self.nodes[node].parent else {
                    return Err(root_error("promoted"));
                };
                let kids = &mut self.node_mut(parent).children;
                if kids.first() == Some(node) {
                    return Ok(unchanged);
                }
                kids.retain(|c| c != node);
                kids.insert(0, *node);
                Ok(changed)
            }
            Op::Comment { node, text } => {
                self.edit(*node, limits, |n, _| set_text(&mut n.props, "C", text))
            }
            Op::Name { node, text } => {
                self.edit(*node, limits, |n, _| set_text(&mut n.props, "N", text))
            }
            Op::Mark {
                node,
                kind,
                point,
                on,
            } => {
                let mut pts = self.points(*node, kind);
                let had = pts.contains(point);
                if had == *on {
                    return Ok(unchanged);
                }
                if *on {
                    pts.push(*point);
                } else {
                    pts.retain(|p| p != point);
                }
                self.edit(*node, limits, |n, size| {
                    let values = pts.iter().map(|p| p.to_sgf(size)).collect();
                    set_values(&mut n.props, kind, values, |v| !expand(v, size).is_empty());
                    true
                })
            }
            Op::Label { node, point, text } => {
                let mut labels = self.composed(*node, "LB");
                let before = labels.clone();
                labels.retain(|(p, _)| p != point);
                if !text.is_empty() {
                    labels.push((*point, text.clone()));
                }
                if labels == before {
                    return Ok(unchanged);
                }
                self.edit(*node, limits, |n, size| {
                    let values = labels
                        .iter()
                        .map(|(p, t)| format!("{}:{t}", p.to_sgf(size)))
                        .collect();
                    set_values(&mut n.props, "LB", values, |v| compose(v, size).is_some());
                    true
                })
            }
            Op::Line {
                node,
                kind,
                from,
                to,
                on,
            } => {
                let mut lines = self.lines(*node, kind);
                let had = lines.contains(&(*from, *to));
                if had == *on {
                    return Ok(unchanged);
                }
                if *on {
                    lines.push((*from, *to));
                } else {
                    lines.retain(|l| *l != (*from, *to));
                }
                self.edit(*node, limits, |n, size| {
                    let values = lines
                        .iter()
                        .map(|(a, b)| format!("{}:{}", a.to_sgf(size), b.to_sgf(size)))
                        .collect();
                    set_values(&mut n.props, kind, values, |v| {
                        compose(v, size).is_some_and(|(_, b)| sgf_point(b, size).is_some())
                    });
                    true
                })
            }
        }
    }

    fn node_mut(&mut self, id: u32) -> &mut DocNode {
        self.nodes.get_mut(&id).expect("a node checked to be there")
    }

    /// Edits node `id`'s properties with `f` (which says whether anything changed), undone
    /// when the tree would pass `limits`.
    fn edit(
        &mut self,
        id: u32,
        limits: &SgfLimits,
        f: impl FnOnce(&mut DocNode, Size) -> bool,
    ) -> Result<Applied, OpError> {
        let size = self.size;
        let n = self.node_mut(id);
        let before = n.props.clone();
        let changed = f(n, size);
        if let Err(e) = self.within(limits) {
            self.node_mut(id).props = before;
            return Err(e);
        }
        Ok(Applied {
            node: None,
            changed,
        })
    }

    /// A 413 naming the first of `limits` the tree passes (properties, points, value bytes).
    fn within(&self, limits: &SgfLimits) -> Result<(), OpError> {
        let h = self.held();
        for (name, held, max) in [
            ("properties", h.properties, limits.max_properties),
            ("points", h.points, limits.max_points),
            ("value_bytes", h.value_bytes, limits.max_value_bytes),
        ] {
            if held > max {
                let code = match name {
                    "properties" => "review.properties",
                    "points" => "review.points",
                    _ => "review.value_bytes",
                };
                return Err(op_error(
                    413,
                    code,
                    format!("the tree would hold more than {max} {name} (max_{name} is {max})"),
                    json!({"max": max, "limit": format!("max_{name}")}),
                ));
            }
        }
        Ok(())
    }
}

fn no_node(id: u32) -> OpError {
    op_error(
        404,
        "review.no_node",
        format!("the tree has no node {id}"),
        json!({"node": id}),
    )
}

fn root_error(what: &str) -> OpError {
    op_error(
        422,
        "review.root",
        format!("the root cannot be {what}"),
        Value::Null,
    )
}

/// Sets `ident` to the one value `text` (empty: removes it); whether anything changed.
fn set_text(props: &mut Vec<SgfProp>, ident: &str, text: &str) -> bool {
    let before = props.clone();
    let values = if text.is_empty() {
        Vec::new()
    } else {
        vec![text.to_string()]
    };
    set_values(props, ident, values, |_| true);
    *props != before
}

/// Sets property `ident`'s values: the values `ours` does not read are kept after `values`;
/// the property stays where it first was (its repeats merged into it), and goes when it has
/// no value left.
fn set_values(
    props: &mut Vec<SgfProp>,
    ident: &str,
    mut values: Vec<String>,
    ours: impl Fn(&str) -> bool,
) {
    let at = props.iter().position(|p| p.ident == ident);
    let kept: Vec<String> = props
        .iter()
        .filter(|p| p.ident == ident)
        .flat_map(|p| p.values.iter())
        .filter(|v| !ours(v))
        .cloned()
        .collect();
    values.extend(kept);
    let mut first = true;
    props.retain(|p| {
        if p.ident != ident {
            return true;
        }
        std::mem::take(&mut first)
    });
    match (at, values.is_empty()) {
        (Some(i), true) => {
            props.remove(i);
        }
        (Some(i), false) => props[i].values = values,
        (None, true) => {}
        (None, false) => props.push(SgfProp {
            ident: ident.to_string(),
            values,
        }),
    }
}

mod op;
#[cfg(test)]
mod tests;
