//! One search tree: UCT with RAVE, learned (or hand-written) priors and progressive widening,
//! playouts from `playout`, subtree reuse.

use super::board::{Colour, FastBoard, Idx, MAX_CELLS, PASS};
use super::ladder::{judge_move, LadderVerdict, LADDER_BUDGET};
use super::patterns::Model;
use super::playout::{bad_self_atari, matches_shape, playout, Policy};
use super::rules::{BotRules, KoRule, ScoringKind};
use super::state::sit;
use baduk_rng::Rng;
use std::collections::HashSet;
use std::sync::Arc;

/// Tuning knobs of the tree search.
#[derive(Clone, Copy, Debug)]
pub struct TreeParams {
    /// Visits a leaf needs before it is expanded.
    pub expand_at: f32,
    /// RAVE equivalence parameter (larger keeps AMAF values longer).
    pub rave_equiv: f32,
    /// Exploration constant of the UCB term.
    pub explore: f32,
    /// Virtual wins a move gets per unit of the square root of its learned probability.
    pub prior_weight: f32,
    /// Progressive widening with learned priors: a node searches its 5 strongest moves, one
    /// more each time its visits grow by this factor (0: all moves at once).
    pub widen: f32,
    /// Playouts answer the last move with the learned 3×3 shapes (when there is a model).
    pub playout_shapes: bool,
    /// Weight of the score in a playout's value (0: win or loss only): the value is
    /// `(1 − w)·win + w·(½ + ½·tanh(margin / scale))`, scale growing with the board.
    pub score_weight: f32,
    /// The score term is used only while the last search's win rate was below this or above
    /// one minus this, when the win rate alone no longer tells moves apart (0.5: always).
    pub score_band: f32,
    /// Virtual losses given at expansion to an escape into a working ladder (a failing ladder
    /// atari gets half as many, a working one as many virtual wins); 0 turns ladder reading
    /// in the tree off.
    pub ladder_prior: f32,
    /// Playouts read ladders: no escape into a working ladder, and one move in eight ataris
    /// that capture in a ladder (or defences against them). Off: the plain playout policy.
    pub playout_ladders: bool,
    /// Playouts let captures and nakade throw-ins through the self-atari filter (and reject
    /// other self-ataris fifteen times in sixteen rather than always).
    pub playout_self_atari: bool,
    /// Playouts defend own chains left with two liberties and ladder-attack enemy ones.
    pub playout_two_lib: bool,
    /// Playouts play the vital point of killable eye spaces (attack and defence).
    pub playout_nakade: bool,
    /// Playouts connect a ko they hold after the opponent played elsewhere.
    pub playout_ko: bool,
}

impl TreeParams {
    /// The playout policy these parameters switch on.
    pub fn playout_policy(&self) -> Policy {
        Policy {
            ladders: self.playout_ladders,
            self_atari: self.playout_self_atari,
            two_lib: self.playout_two_lib,
            nakade: self.playout_nakade,
            ko: self.playout_ko,
        }
    }
}

impl Default for TreeParams {
    fn default() -> Self {
        TreeParams {
            expand_at: 2.0,
            rave_equiv: 3000.0,
            explore: 0.05,
            prior_weight: 40.0,
            widen: 1.3,
            playout_shapes: false,
            score_weight: 0.1,
            score_band: 0.2,
            ladder_prior: 0.0,
            playout_ladders: false,
            playout_self_atari: false,
            playout_two_lib: false,
            playout_nakade: false,
            playout_ko: false,
        }
    }
}

/// Bytes one tree node takes (the arena holds nodes and nothing else per node).
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

#[derive(Clone, Copy, Debug)]
struct Node {
    mv: Idx,
    first: u32,
    count: u16,
    expanded: bool,
    visits: f32,
    wins: f32,
    prior_visits: f32,
    prior_wins: f32,
    rave_visits: f32,
    rave_wins: f32,
    /// Sum over real playouts of Black's final margin (komi included).
    score: f32,
}

impl Node {
    fn new(mv: Idx) -> Node {
        Node {
            mv,
            first: 0,
            count: 0,
            expanded: false,
            visits: 0.0,
            wins: 0.0,
            prior_visits: 0.0,
            prior_wins: 0.0,
            rave_visits: 0.0,
            rave_wins: 0.0,
            score: 0.0,
        }
    }
}

/// Statistics of one root move after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStat {
    /// The move (PASS for a pass).
    pub mv: Idx,
    /// Playouts through this move.
    pub visits: u32,
    /// Win rate for the player making the move, 0..1.
    pub winrate: f32,
    /// Normalised prior from the heuristics, 0..1.
    pub prior: f32,
    /// Mean final margin for the player making the move (komi included), over its playouts.
    pub score_mean: f32,
    /// Principal variation starting with this move.
    pub pv: Vec<Idx>,
    /// Visits of each move of the principal variation.
    pub pv_visits: Vec<u32>,
}

/// A restriction on one colour's moves in the first plies of the search (GTP analysis's
/// `avoid` and `allow`, as KataGo reads them: for the plies at depth < `until_depth`, depth 0
/// being the root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRestriction {
    /// Whose moves.
    pub colour: Colour,
    /// Only these points (`allow`) rather than not these (`avoid`).
    pub allow: bool,
    /// The points (passing is never restricted).
    pub points: Vec<Idx>,
    /// The restriction holds at depths below this.
    pub until_depth: u32,
}

/// Whether `i` may be searched for `c` at `depth` under `restrictions`: in one of the `allow`
/// lists when there are any, and in no `avoid` list.
pub fn restriction_allows(restrictions: &[MoveRestriction], c: Colour, depth: u32, i: Idx) -> bool {
    let mut allowed = None;
    for r in restrictions
        .iter()
        .filter(|r| r.colour == c && depth < r.until_depth)
    {
        if r.allow {
            allowed = Some(allowed.unwrap_or(false) || r.points.contains(&i));
        } else if r.points.contains(&i) {
            return false;
        }
    }
    allowed.unwrap_or(true)
}

/// A search tree rooted at one position, with its own random stream.
pub struct Tree {
    nodes: Vec<Node>,
    root_board: FastBoard,
    root_to_move: Colour,
    rules: BotRules,
    params: TreeParams,
    forbidden: HashSet<u64>,
    root_filter: Option<Vec<Idx>>,
    restrictions: Vec<MoveRestriction>,
    rng: Rng,
    model: Option<Arc<Model>>,
    strengths: Vec<f32>,
    amaf: Vec<u8>,
    buf: Vec<Idx>,
    path: Vec<u32>,
    path_hashes: Vec<u64>,
    /// Sum over playouts of Black's ownership of each point (+1 Black, −1 White).
    ownership: Vec<f32>,
    /// Playouts run since the root was set.
    pub playouts: u64,
    /// Most nodes the arena may hold (its capacity never grows past it): once full, leaves
    /// are no longer expanded and the search goes on in the tree it has. The root is always
    /// expanded.
    max_nodes: usize,
}

impl Tree {
    /// A new tree at `board` (to move: `board.to_move()`).
    pub fn new(
        board: FastBoard,
        rules: BotRules,
        params: TreeParams,
        forbidden: HashSet<u64>,
        root_filter: Option<Vec<Idx>>,
        seed: u64,
    ) -> Tree {
        let mut t = Tree {
            nodes: vec![Node::new(PASS)],
            root_to_move: board.to_move(),
            root_board: board,
            rules,
            params,
            forbidden,
            root_filter,
            restrictions: Vec::new(),
            rng: Rng::new(seed),
            model: None,
            strengths: Vec::new(),
            amaf: vec![0; MAX_CELLS],
            buf: Vec::with_capacity(64),
            path: Vec::with_capacity(64),
            path_hashes: Vec::with_capacity(64),
            ownership: vec![0.0; MAX_CELLS],
            playouts: 0,
            max_nodes: usize::MAX,
        };
        t.expand(0);
        t
    }

    /// This tree with learned move priors from `model` (None: the hand-written ones); the
    /// root is re-expanded.
    pub fn with_model(mut self, model: Option<Arc<Model>>) -> Tree {
        if model.is_some() {
            self.model = model;
            self.nodes.truncate(1);
            self.nodes[0] = Node::new(PASS);
            self.expand(0);
        }
        self
    }

    /// This tree with `avoid`/`allow` restrictions on the first plies (the root re-expanded
    /// under them).
    pub fn with_restrictions(mut self, restrictions: Vec<MoveRestriction>) -> Tree {
        if !restrictions.is_empty() {
            self.restrictions = restrictions;
            self.nodes.truncate(1);
            self.nodes[0] = Node::new(PASS);
            self.expand(0);
        }
        self
    }

    /// This tree capped at `max_nodes` nodes (see [`Tree::set_max_nodes`]).
    pub fn with_max_nodes(mut self, max_nodes: usize) -> Tree {
        self.set_max_nodes(max_nodes);
        self
    }

    /// Caps the arena at `max_nodes` nodes: no leaf is expanded when its children could
    /// pass the cap, and the arena's capacity never grows past it, so the tree takes at most
    /// `max_nodes × NODE_BYTES` bytes (a tree kept from the last move may already hold more
    /// until the next move drops it).
    pub fn set_max_nodes(&mut self, max_nodes: usize) {
        self.max_nodes = max_nodes;
    }

    /// Whether a leaf of `b` may be expanded under the node cap (its children are at most
    /// the empty points and a pass).
    #[inline]
    fn room_for_children(&self, b: &FastBoard) -> bool {
        self.nodes.len() + b.empty_count() < self.max_nodes
    }

    /// The real visits (priors aside) of the two most visited root moves, most first.
    pub fn top_two_visits(&self) -> (f32, f32) {
        let r = self.nodes[0];
        let (mut a, mut b) = (0.0f32, 0.0f32);
        for c in r.first..r.first + r.count as u32 {
            let ch = &self.nodes[c as usize];
            if ch.visits.is_nan() {
                continue;
            }
            let v = (ch.visits - ch.prior_visits).max(0.0);
            if v > a {
                b = a;
                a = v;
            } else if v > b {
                b = v;
            }
        }
        (a, b)
    }

    /// Along the principal variation from the root (the most visited child at each step),
    /// each move, its real visits and its win rate for the player making it; stops at a move
    /// with fewer than `min_visits` visits.
    pub fn pv_values(&self, min_visits: f32) -> Vec<(Idx, f32, f32)> {
        let mut out = Vec::new();
        let mut node = 0u32;
        loop {
            let n = self.nodes[node as usize];
            if !n.expanded || n.count == 0 {
                break;
            }
            let mut best: Option<(u32, f32)> = None;
            for c in n.first..n.first + n.count as u32 {
                let ch = &self.nodes[c as usize];
                if ch.visits.is_nan() {
                    continue;
                }
                let real = (ch.visits - ch.prior_visits).max(0.0);
                match best {
                    Some((_, v)) if real <= v => {}
                    _ => best = Some((c, real)),
                }
            }
            match best {
                Some((c, real)) if real >= min_visits.max(1.0) => {
                    let ch = &self.nodes[c as usize];
                    out.push((ch.mv, real, (ch.wins - ch.prior_wins) / real));
                    node = c;
                }
                _ => break,
            }
        }
        out
    }

    /// Whether the moves `line` from the root end the game (two passes in a row, counting a
    /// pass just before the root).
    pub fn ends_game(&self, line: impl IntoIterator<Item = Idx>) -> bool {
        let mut passes = self.root_board.passes();
        for m in line {
            passes = if m == PASS { passes + 1 } else { 0 };
            if passes >= 2 {
                return true;
            }
        }
        false
    }

    /// The root position.
    pub fn root_board(&self) -> &FastBoard {
        &self.root_board
    }

    /// Moves the root down along `moves` if the tree already holds them, keeping that subtree;
    /// returns false (and leaves the tree unchanged) when it cannot.
    pub fn advance(
        &mut self,
        moves: &[Idx],
        board: &FastBoard,
        forbidden: HashSet<u64>,
        root_filter: Option<Vec<Idx>>,
    ) -> bool {
        let mut node = 0u32;
        for &m in moves {
            let n = self.nodes[node as usize];
            if !n.expanded {
                return false;
            }
            let found =
                (n.first..n.first + n.count as u32).find(|&c| self.nodes[c as usize].mv == m);
            match found {
                Some(c) => node = c,
                None => return false,
            }
        }
        if !self.nodes[node as usize].expanded {
            return false;
        }
        // Copy the subtree into a fresh arena.
        let mut fresh: Vec<Node> = Vec::with_capacity(self.nodes.len() / 2 + 1);
        fresh.push(self.nodes[node as usize]);
        let mut queue: Vec<(u32, u32)> = vec![(node, 0)];
        while let Some((old, new)) = queue.pop() {
            let n = self.nodes[old as usize];
            if !n.expanded || n.count == 0 {
                fresh[new as usize].expanded = n.expanded;
                fresh[new as usize].count = 0;
                continue;
            }
            let start = fresh.len() as u32;
            for k in 0..n.count as u32 {
                fresh.push(self.nodes[(n.first + k) as usize]);
            }
            fresh[new as usize].first = start;
            for k in 0..n.count as u32 {
                queue.push((n.first + k, start + k));
            }
        }
        self.nodes = fresh;
        self.root_board = board.clone();
        self.root_to_move = board.to_move();
        self.forbidden = forbidden;
        self.ownership.iter_mut().for_each(|o| *o = 0.0);
        self.playouts = 0;
        if root_filter.is_some() {
            self.root_filter = root_filter;
            // Drop root children the rules library does not allow.
            let r = self.nodes[0];
            let filter = self.root_filter.clone().unwrap_or_default();
            for k in 0..r.count as u32 {
                let c = &mut self.nodes[(r.first + k) as usize];
                if c.mv != PASS && !filter.contains(&c.mv) {
                    c.prior_visits = 0.0;
                    c.visits = f32::NAN;
                }
            }
        }
        true
    }

    /// Sets the weight of the score in the value of the playouts to come.
    pub fn set_score_weight(&mut self, w: f32) {
        self.params.score_weight = w;
    }

    /// Runs `n` playouts.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.run_one();
        }
    }

    fn legal_in_tree(&self, b: &FastBoard, i: Idx, c: Colour) -> bool {
        if !b.is_legal(i, c, self.rules.suicide) {
            return false;
        }
        match self.rules.ko {
            KoRule::Simple | KoRule::Jk => true,
            KoRule::Positional => {
                let h = b.hash_after(i, c);
                !self.forbidden.contains(&h) && !self.path_hashes.contains(&h)
            }
            KoRule::Situational => {
                let h = sit(b.hash_after(i, c), c.opp());
                !self.forbidden.contains(&h) && !self.path_hashes.contains(&h)
            }
        }
    }

    fn expand_with(&mut self, node: u32, b: &mut FastBoard, depth: u32) {
        // Grow the arena as a Vec would (doubling), but never past the node cap.
        let need = b.empty_count() + 1;
        if self.nodes.capacity() - self.nodes.len() < need {
            let len = self.nodes.len();
            let target = (self.nodes.capacity() * 2)
                .max(len + need)
                .min(self.max_nodes.max(len + need));
            self.nodes.reserve_exact(target - len);
        }
        let c = b.to_move();
        let first = self.nodes.len() as u32;
        let is_root = node == 0;
        let opp_passed = b.move_count() > 0 && b.last_move() == PASS && b.passes() > 0;
        let mut count = 0u16;
        let mut strengths = std::mem::take(&mut self.strengths);
        strengths.clear();
        let (w, h) = (b.width(), b.height());
        for i in (0..h).flat_map(|y| (0..w).map(move |x| (x, y))) {
            let i = b.idx(i.0, i.1);
            if !b.is_empty(i) || b.is_eye(i, c) {
                continue;
            }
            if is_root {
                if let Some(f) = &self.root_filter {
                    if !f.contains(&i) {
                        continue;
                    }
                }
            }
            if !self.restrictions.is_empty() && !restriction_allows(&self.restrictions, c, depth, i)
            {
                continue;
            }
            if !self.legal_in_tree(b, i, c) {
                continue;
            }
            let mut node = Node::new(i);
            let (pv, pw) = match &self.model {
                Some(m) => {
                    let st = m.move_strength(b, i, c);
                    strengths.push(st);
                    (10.0, 5.0)
                }
                None => heuristic_prior(b, i, c),
            };
            // The ladder reader's verdict: a strong virtual loss for running from a working
            // ladder, a lesser one for an atari that fails, virtual wins for one that captures.
            let lw = self.params.ladder_prior;
            let (pv, pw) = if lw > 0.0 {
                match judge_move(b, i, c, LADDER_BUDGET) {
                    LadderVerdict::FutileEscape => (pv + lw, pw),
                    LadderVerdict::FailingAtari => (pv + 0.5 * lw, pw),
                    LadderVerdict::WorkingAtari => (pv + lw, pw + lw),
                    LadderVerdict::None => (pv, pw),
                }
            } else {
                (pv, pw)
            };
            node.prior_visits = pv;
            node.prior_wins = pw;
            node.visits = pv;
            node.wins = pw;
            self.nodes.push(node);
            count += 1;
        }
        // Passing is always legal.
        let mut p = Node::new(PASS);
        let (pv, pw) = if opp_passed { (10.0, 5.0) } else { (10.0, 1.0) };
        if let Some(m) = &self.model {
            strengths.push(m.move_strength(b, PASS, c));
        }
        p.prior_visits = pv;
        p.prior_wins = pw;
        p.visits = pv;
        p.wins = pw;
        self.nodes.push(p);
        count += 1;
        // Learned priors: virtual wins in proportion to the square root of the move's
        // probability under the model (Pachi's pattern prior).
        if self.model.is_some() {
            let total: f32 = strengths.iter().sum();
            if total > 0.0 {
                let eq = self.params.prior_weight;
                for (k, &st) in strengths.iter().enumerate() {
                    let extra = eq * (st / total).sqrt();
                    let ch = &mut self.nodes[first as usize + k];
                    ch.prior_visits += extra;
                    ch.prior_wins += extra;
                    ch.visits += extra;
                    ch.wins += extra;
                }
            }
            if self.widening() {
                // Strongest first (pass at the front, always in the window) for progressive
                // widening.
                let n = count as usize;
                let mut order: Vec<usize> = (0..n).collect();
                let key = |k: usize| {
                    if k == n - 1 {
                        f32::INFINITY
                    } else {
                        strengths[k]
                    }
                };
                // Ties go by index, so an unstable sort gives the stable order.
                order.sort_unstable_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
                let sorted: Vec<Node> = order
                    .iter()
                    .map(|&k| self.nodes[first as usize + k])
                    .collect();
                self.nodes[first as usize..first as usize + n].copy_from_slice(&sorted);
            }
        }
        self.strengths = strengths;
        let n = &mut self.nodes[node as usize];
        n.first = first;
        n.count = count;
        n.expanded = true;
    }

    fn expand(&mut self, node: u32) {
        let mut b = self.root_board.clone();
        self.path_hashes.clear();
        self.expand_with(node, &mut b, 0);
    }

    /// Whether children are kept strongest first and only the first few are searched, more
    /// as the node is visited (progressive widening; with learned priors only).
    #[inline]
    fn widening(&self) -> bool {
        self.model.is_some() && self.params.widen > 1.0
    }

    fn select(&self, node: u32) -> u32 {
        let n = self.nodes[node as usize];
        let ln = (n.visits.max(1.0)).ln();
        let mut best = n.first;
        let mut best_v = f32::NEG_INFINITY;
        let mut window = n.count as u32;
        if self.widening() {
            let real = (n.visits - n.prior_visits).max(0.0);
            let k = 5.0 + (1.0 + real / 20.0).ln() / self.params.widen.ln();
            window = window.min(k as u32);
        }
        for c in n.first..n.first + window {
            let ch = &self.nodes[c as usize];
            if ch.visits.is_nan() {
                continue;
            }
            let q = ch.wins / ch.visits.max(1e-3);
            let v = if ch.rave_visits > 0.0 {
                let rq = ch.rave_wins / ch.rave_visits;
                let beta = ch.rave_visits
                    / (ch.rave_visits
                        + ch.visits
                        + ch.rave_visits * ch.visits / self.params.rave_equiv);
                (1.0 - beta) * q + beta * rq
            } else {
                q
            };
            let v = v + self.params.explore * (ln / ch.visits.max(1.0)).sqrt();
            if v > best_v {
                best_v = v;
                best = c;
            }
        }
        best
    }

    fn run_one(&mut self) {
        let mut b = self.root_board.clone();
        self.amaf.iter_mut().for_each(|a| *a = 0);
        self.path.clear();
        self.path_hashes.clear();
        self.path.push(0);
        let mut node = 0u32;
        let mut terminal = false;
        loop {
            let n = self.nodes[node as usize];
            if !n.expanded {
                if n.visits - n.prior_visits >= self.params.expand_at && self.room_for_children(&b)
                {
                    // The path holds the root and every node down to this one.
                    self.expand_with(node, &mut b, self.path.len() as u32 - 1);
                } else {
                    break;
                }
            }
            let child = self.select(node);
            let mv = self.nodes[child as usize].mv;
            let c = b.to_move();
            if mv == PASS {
                b.pass();
            } else {
                if self.amaf[mv as usize] == 0 {
                    self.amaf[mv as usize] = c as u8 + 1;
                }
                b.play(mv, c);
            }
            self.path.push(child);
            let h = match self.rules.ko {
                KoRule::Situational => b.situational_hash(),
                _ => b.hash(),
            };
            self.path_hashes.push(h);
            node = child;
            if b.passes() >= 2 {
                terminal = true;
                break;
            }
        }
        let (black, margin) = if terminal && self.rules.two_passes_score_as_is {
            let (bs, ws) = b.area_counts();
            self.score_result(&b, bs as f32 - ws as f32)
        } else {
            // Dead stones go by agreement or by playing on: read the end with a playout.
            b.reset_passes();
            let shapes = if self.params.playout_shapes {
                self.model.as_deref()
            } else {
                None
            };
            playout(
                &mut b,
                &mut self.rng,
                &mut self.amaf,
                &mut self.buf,
                shapes,
                self.params.playout_policy(),
            );
            let s = b.playout_area_score();
            self.score_result(&b, s as f32)
        };
        let black = self.value(&b, black, margin);
        self.playouts += 1;
        // Ownership of the root's final positions.
        for i in b.points() {
            let o = b.owner_at(i);
            self.ownership[i as usize] += o;
        }
        // Back up along the path; the mover into path[k] is the colour to move at path[k-1].
        let mut mover = self.root_to_move;
        for k in 0..self.path.len() {
            let id = self.path[k] as usize;
            if k > 0 {
                let r = if mover == Colour::Black {
                    black
                } else {
                    1.0 - black
                };
                let n = &mut self.nodes[id];
                n.visits += 1.0;
                n.wins += r;
                n.score += margin;
                mover = mover.opp();
            } else {
                self.nodes[id].visits += 1.0;
            }
            // AMAF update of the children of this node: moves the colour to move here played.
            let n = self.nodes[id];
            if n.expanded {
                let to_move = mover;
                let code = to_move as u8 + 1;
                let r = if to_move == Colour::Black {
                    black
                } else {
                    1.0 - black
                };
                for c in n.first..n.first + n.count as u32 {
                    let ch = &mut self.nodes[c as usize];
                    if ch.mv != PASS && self.amaf[ch.mv as usize] == code {
                        ch.rave_visits += 1.0;
                        ch.rave_wins += r;
                    }
                }
            }
        }
    }

    /// Black's value of a playout: the result, mixed with the margin when the score counts.
    #[inline]
    fn value(&self, b: &FastBoard, black: f32, margin: f32) -> f32 {
        let w = self.params.score_weight;
        if w <= 0.0 {
            return black;
        }
        let scale = 0.5 * ((b.width() * b.height()) as f32).sqrt();
        (1.0 - w) * black + w * (0.5 + 0.5 * (margin / scale).tanh())
    }

    /// Black's result (1 win, 0 loss, ½ draw) and Black's margin after komi.
    fn score_result(&self, b: &FastBoard, area_diff: f32) -> (f32, f32) {
        let raw = match self.rules.scoring {
            ScoringKind::Area => area_diff,
            ScoringKind::Territory => {
                // Territory = area − stones + prisoners (pass stones aside).
                let (bs, ws) = b.stone_counts();
                area_diff - (bs as f32 - ws as f32)
                    + (b.captures(Colour::Black) as f32 - b.captures(Colour::White) as f32)
            }
        };
        (self.rules.black_result(raw), raw - self.rules.komi)
    }

    /// Statistics of every root move, most visited first.
    pub fn root_stats(&self) -> Vec<MoveStat> {
        let r = self.nodes[0];
        let mut total_prior = 0.0f32;
        for c in r.first..r.first + r.count as u32 {
            let ch = &self.nodes[c as usize];
            if !ch.visits.is_nan() {
                total_prior += ch.prior_wins;
            }
        }
        let mut out: Vec<MoveStat> = (r.first..r.first + r.count as u32)
            .filter(|&c| !self.nodes[c as usize].visits.is_nan())
            .map(|c| {
                let ch = &self.nodes[c as usize];
                let real = (ch.visits - ch.prior_visits).max(0.0);
                let (pv, pv_visits) = self.pv_from(c);
                // The mover into a root child is the root's side to move.
                let sign = if self.root_to_move == Colour::Black {
                    1.0
                } else {
                    -1.0
                };
                let score_mean = if real > 0.0 {
                    sign * ch.score / real
                } else {
                    0.0
                };
                let winrate = if real > 0.0 {
                    (ch.wins - ch.prior_wins) / real
                } else {
                    ch.wins / ch.visits.max(1e-3)
                };
                MoveStat {
                    mv: ch.mv,
                    visits: real.round() as u32,
                    winrate: winrate.clamp(0.0, 1.0),
                    score_mean,
                    prior: if total_prior > 0.0 {
                        ch.prior_wins / total_prior
                    } else {
                        0.0
                    },
                    pv,
                    pv_visits,
                }
            })
            .collect();
        out.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.mv.cmp(&b.mv)));
        out
    }

    /// The principal variation from `start` (most visited child at each step, 12 moves at
    /// most) and the visits of each of its moves.
    fn pv_from(&self, start: u32) -> (Vec<Idx>, Vec<u32>) {
        let real = |c: u32| {
            let n = &self.nodes[c as usize];
            (n.visits - n.prior_visits).max(0.0)
        };
        let mut pv = vec![self.nodes[start as usize].mv];
        let mut visits = vec![real(start).round() as u32];
        let mut node = start;
        while pv.len() < 12 {
            let n = self.nodes[node as usize];
            if !n.expanded || n.count == 0 {
                break;
            }
            let mut best: Option<u32> = None;
            let mut bv = 0.0f32;
            for c in n.first..n.first + n.count as u32 {
                let r = real(c);
                if r > bv {
                    bv = r;
                    best = Some(c);
                }
            }
            match best {
                Some(c) if bv >= 1.0 => {
                    pv.push(self.nodes[c as usize].mv);
                    visits.push(bv.round() as u32);
                    node = c;
                }
                _ => break,
            }
        }
        (pv, visits)
    }

    /// Black's expected ownership of point `i` (−1..1) over this search's playouts.
    pub fn ownership(&self, i: Idx) -> f32 {
        if self.playouts == 0 {
            0.0
        } else {
            self.ownership[i as usize] / self.playouts as f32
        }
    }

    /// Number of nodes held.
    pub fn size(&self) -> usize {
        self.nodes.len()
    }

    /// Nodes the arena has room for (its memory is this times [`NODE_BYTES`]).
    pub fn capacity(&self) -> usize {
        self.nodes.capacity()
    }
}

/// The hand-written prior of `c` at `i` (virtual visits, virtual wins): captures, shapes near
/// the last move and open first or third lines up, bad self-ataris down; `priors=none`.
pub fn heuristic_prior(b: &FastBoard, i: Idx, c: Colour) -> (f32, f32) {
    if i == PASS {
        let opp_passed = b.move_count() > 0 && b.last_move() == PASS;
        return if opp_passed { (10.0, 5.0) } else { (10.0, 1.0) };
    }
    let last = b.last_move();
    let (mut pv, mut pw) = (10.0f32, 5.0f32);
    if b.captures_something(i, c) {
        pv += 20.0;
        pw += 18.0;
    }
    if bad_self_atari(b, i, c) {
        pv += 20.0;
    }
    if last != PASS && is_near(b, i, last) && matches_shape(b, i) {
        pv += 10.0;
        pw += 8.0;
    }
    let (x, y) = b.xy(i);
    let line = x.min(y).min(b.width() - 1 - x).min(b.height() - 1 - y);
    if line == 0 && b.width() >= 9 && !has_stone_within(b, i, 2) {
        pv += 10.0;
    }
    if line == 2
        && b.width() >= 9
        && !has_stone_within(b, i, 2)
        && b.empty_count() * 10 > b.width() * b.height() * 8
    {
        pv += 6.0;
        pw += 6.0;
    }
    (pv, pw)
}

fn is_near(b: &FastBoard, i: Idx, j: Idx) -> bool {
    let (x1, y1) = b.xy(i);
    let (x2, y2) = b.xy(j);
    x1.abs_diff(x2) <= 1 && y1.abs_diff(y2) <= 1
}

fn has_stone_within(b: &FastBoard, i: Idx, d: usize) -> bool {
    let (x, y) = b.xy(i);
    let x0 = x.saturating_sub(d);
    let y0 = y.saturating_sub(d);
    for yy in y0..=(y + d).min(b.height() - 1) {
        for xx in x0..=(x + d).min(b.width() - 1) {
            if x.abs_diff(xx) + y.abs_diff(yy) <= d && b.stone(b.idx(xx, yy)).is_some() {
                return true;
            }
        }
    }
    false
}
