//! One search tree: UCT with RAVE, learned (or hand-written) priors and progressive widening,
//! playouts from `playout`, subtree reuse, searched by one thread or by several at once.
//!
//! Several threads share the tree (Pachi's way, not its code): every node's statistics are
//! atomic words, a leaf is expanded by the one thread that claims it (the others play out from
//! it meanwhile), a node's children are one block published by a single release store, and a
//! thread going down a node adds a virtual loss to it (taken off again on the way back up), so
//! that the threads spread over the tree instead of all following the same line. With one
//! thread the arithmetic is exactly the single-threaded search's: plain loads and stores, no
//! virtual loss.

use super::board::{Colour, FastBoard, Idx, MAX_CELLS, PASS};
use super::ladder::{judge_move, LadderVerdict, LADDER_BUDGET};
use super::patterns::Model;
use super::playout::{bad_self_atari, matches_shape, playout, Policy, Replies};
use super::policy_net::{planes_of, PolicyNet, POINTS};
use super::rules::{BotRules, KoRule, ScoringKind};
use super::state::sit;
use baduk_rng::Rng;
use std::collections::HashSet;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
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
    /// The score term is centred on the margin the last search expected (KataGo's score
    /// utility) rather than on zero, so that it still tells moves apart far ahead or behind.
    pub score_centre: bool,
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
    /// Playouts play the vital point of killable eye spaces the last move left.
    pub playout_nakade: bool,
    /// Playouts connect a ko they hold after the opponent played elsewhere.
    pub playout_ko: bool,
    /// Playouts first try the last good reply to the last move (replies kept by the
    /// simulations their colour won, forgotten by those it lost).
    pub playout_replies: bool,
    /// With a policy network: the deepest nodes (the root is 0) whose children take their
    /// priors from the network rather than the patterns.
    pub net_depth: u32,
    /// With a policy network: deeper nodes take the network's priors too when their parent
    /// has at least this many visits as they are expanded (0: off) — the network where the
    /// search spends its playouts, the patterns elsewhere.
    pub net_visits: f32,
    /// With a value head on the network: a node whose children take the network's priors
    /// (below the root) also starts with this many virtual playouts at the head's win rate
    /// for the colour that moved into it (0: off).
    pub value_weight: f32,
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
            prior_weight: 120.0,
            widen: 1.3,
            playout_shapes: false,
            score_weight: 0.1,
            score_band: 0.2,
            score_centre: false,
            ladder_prior: 0.0,
            playout_ladders: false,
            playout_self_atari: false,
            playout_two_lib: false,
            playout_nakade: false,
            playout_ko: false,
            playout_replies: false,
            net_depth: 1,
            net_visits: 0.0,
            value_weight: 0.0,
        }
    }
}

/// Bytes one tree node takes (a node's children are one block of nodes and nothing else).
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// Most threads that may search one tree (a node's virtual loss counts up to this).
pub const MAX_THREADS: usize = 256;

// A node's `meta` word: its move, its number of children, whether it is expanded, the
// virtual loss of the threads now below it, and whether its children's priors are the policy
// network's.
const MV_MASK: u32 = (1 << 10) - 1;
const COUNT_SHIFT: u32 = 10;
const COUNT_MASK: u32 = ((1 << 10) - 1) << COUNT_SHIFT;
const STATE_SHIFT: u32 = 20;
const STATE_MASK: u32 = 3 << STATE_SHIFT;
/// A thread is computing the node's children (the others treat it as a leaf meanwhile).
const EXPANDING: u32 = 1 << STATE_SHIFT;
/// The node's children are published.
const EXPANDED: u32 = 2 << STATE_SHIFT;
const VLOSS_SHIFT: u32 = 22;
const VLOSS_ONE: u32 = 1 << VLOSS_SHIFT;
const VLOSS_MAX: u32 = (1 << 9) - 1;
/// The children's priors came from the policy network (bit 31).
const NET_PRIORS: u32 = 1 << 31;

// Every move index, every child count (the empty points of a 25×25 board and a pass) and the
// virtual loss of `MAX_THREADS` threads fit their fields.
const _: () = assert!(MAX_CELLS <= MV_MASK as usize + 1);
const _: () = assert!(25 * 25 < (COUNT_MASK >> COUNT_SHIFT) as usize);
const _: () = assert!(MAX_THREADS <= VLOSS_MAX as usize);

/// An `f32` statistic in an atomic word.
struct Stat(AtomicU32);

impl Stat {
    fn new(x: f32) -> Stat {
        Stat(AtomicU32::new(x.to_bits()))
    }

    #[inline]
    fn get(&self) -> f32 {
        f32::from_bits(self.0.load(Ordering::Relaxed))
    }

    #[inline]
    fn set(&self, x: f32) {
        self.0.store(x.to_bits(), Ordering::Relaxed)
    }

    /// Adds `x`: an atomic read-modify-write (no update lost) when threads share the tree, a
    /// plain load and store otherwise; the same sum either way.
    #[inline]
    fn add(&self, x: f32, shared: bool) {
        if shared {
            let mut cur = self.0.load(Ordering::Relaxed);
            loop {
                let new = (f32::from_bits(cur) + x).to_bits();
                match self
                    .0
                    .compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed)
                {
                    Ok(_) => break,
                    Err(now) => cur = now,
                }
            }
        } else {
            self.set(self.get() + x);
        }
    }
}

/// One node: the move into it, its statistics and its children (40 bytes).
struct Node {
    /// The move (bits 0–9), the number of children (10–19), the state (20–21: leaf,
    /// expanding, expanded), the virtual loss (22–30) and [`NET_PRIORS`] (31).
    meta: AtomicU32,
    visits: Stat,
    wins: Stat,
    prior_visits: Stat,
    prior_wins: Stat,
    rave_visits: Stat,
    rave_wins: Stat,
    /// Sum over real playouts of Black's final margin (komi included).
    score: Stat,
    /// The children, a block of `count` nodes owned by this node (null until expanded).
    children: AtomicPtr<Node>,
}

impl Node {
    fn new(mv: Idx) -> Node {
        Node::with_priors(mv, 0.0, 0.0)
    }

    /// A fresh node for `mv` with `pv` virtual visits and `pw` virtual wins.
    fn with_priors(mv: Idx, pv: f32, pw: f32) -> Node {
        Node {
            meta: AtomicU32::new(mv as u32),
            visits: Stat::new(pv),
            wins: Stat::new(pw),
            prior_visits: Stat::new(pv),
            prior_wins: Stat::new(pw),
            rave_visits: Stat::new(0.0),
            rave_wins: Stat::new(0.0),
            score: Stat::new(0.0),
            children: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    #[inline]
    fn mv(&self) -> Idx {
        (self.meta.load(Ordering::Relaxed) & MV_MASK) as Idx
    }

    #[inline]
    fn expanded(&self) -> bool {
        self.meta.load(Ordering::Acquire) & STATE_MASK == EXPANDED
    }

    /// Whether a thread is computing this node's children now.
    fn expanding(&self) -> bool {
        self.meta.load(Ordering::Relaxed) & STATE_MASK == EXPANDING
    }

    /// The children (none until the node is expanded).
    #[inline]
    fn children(&self) -> &[Node] {
        let m = self.meta.load(Ordering::Acquire);
        if m & STATE_MASK != EXPANDED {
            return &[];
        }
        let count = ((m & COUNT_MASK) >> COUNT_SHIFT) as usize;
        let first = self.children.load(Ordering::Relaxed);
        // SAFETY: an expanded node's pointer is its block of exactly `count` nodes, written
        // before the release store that made the node expanded (acquired above); blocks are
        // freed only through `&mut Tree`, so none is freed while `self` is borrowed.
        unsafe { std::slice::from_raw_parts(first, count) }
    }

    /// Real visits (priors aside).
    #[inline]
    fn real_visits(&self) -> f32 {
        (self.visits.get() - self.prior_visits.get()).max(0.0)
    }

    /// The virtual loss of the threads now below this node.
    #[inline]
    fn virtual_loss(&self) -> u32 {
        (self.meta.load(Ordering::Relaxed) >> VLOSS_SHIFT) & VLOSS_MAX
    }

    /// Claims the right to expand this leaf; false when it is expanded or another thread is
    /// expanding it.
    fn claim(&self) -> bool {
        self.meta
            .fetch_update(Ordering::Acquire, Ordering::Relaxed, |m| {
                (m & STATE_MASK == 0).then_some(m | EXPANDING)
            })
            .is_ok()
    }

    /// Publishes `block` (leaked, `count` nodes) as the children of this claimed node.
    fn publish(&self, block: Box<[Node]>) {
        let count = block.len() as u32;
        let first = Box::into_raw(block) as *mut Node;
        self.children.store(first, Ordering::Relaxed);
        self.meta.fetch_xor(
            EXPANDING | EXPANDED | (count << COUNT_SHIFT),
            Ordering::Release,
        );
    }

    /// Gives up a claim: the node is a leaf again.
    fn unclaim(&self) {
        self.meta.fetch_and(!STATE_MASK, Ordering::Relaxed);
    }

    /// Takes the children away (the node is a leaf again) and returns them.
    fn take_children(&self) -> Option<Box<[Node]>> {
        let m = self.meta.load(Ordering::Acquire);
        let first = self.children.swap(std::ptr::null_mut(), Ordering::Relaxed);
        self.meta
            .fetch_and(!(STATE_MASK | COUNT_MASK | NET_PRIORS), Ordering::Relaxed);
        if m & STATE_MASK != EXPANDED || first.is_null() {
            return None;
        }
        let count = ((m & COUNT_MASK) >> COUNT_SHIFT) as usize;
        // SAFETY: the block was leaked by `publish` with exactly `count` nodes, and the swap
        // above made this the only owner.
        Some(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(first, count)) })
    }

    /// Whether this node's children took their priors from the policy network.
    #[inline]
    fn net_priors(&self) -> bool {
        self.meta.load(Ordering::Relaxed) & NET_PRIORS != 0
    }

    /// Marks this node's children as primed by the policy network.
    #[inline]
    fn mark_net_priors(&self) {
        self.meta.fetch_or(NET_PRIORS, Ordering::Relaxed);
    }

    /// Frees everything below this node (it becomes a leaf); returns the nodes freed.
    fn free_below(&self) -> usize {
        let mut freed = 0;
        let mut blocks: Vec<Box<[Node]>> = self.take_children().into_iter().collect();
        while let Some(block) = blocks.pop() {
            freed += block.len();
            blocks.extend(block.iter().filter_map(Node::take_children));
        }
        freed
    }

    /// A node with this one's move, statistics and children (which it takes): the root of a
    /// kept subtree.
    fn detach(&self) -> Node {
        let n = Node::new(self.mv());
        let net = self.net_priors();
        for (to, from) in [
            (&n.visits, &self.visits),
            (&n.wins, &self.wins),
            (&n.prior_visits, &self.prior_visits),
            (&n.prior_wins, &self.prior_wins),
            (&n.rave_visits, &self.rave_visits),
            (&n.rave_wins, &self.rave_wins),
            (&n.score, &self.score),
        ] {
            to.set(from.get());
        }
        if let Some(block) = self.take_children() {
            n.claim();
            n.publish(block);
            if net {
                n.mark_net_priors();
            }
        }
        n
    }
}

/// A child being made at expansion, before it joins the tree.
#[derive(Clone, Copy)]
struct Kid {
    mv: Idx,
    prior_visits: f32,
    prior_wins: f32,
    visits: f32,
    wins: f32,
}

impl Kid {
    fn new(mv: Idx, pv: f32, pw: f32) -> Kid {
        Kid {
            mv,
            prior_visits: pv,
            prior_wins: pw,
            visits: pv,
            wins: pw,
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

/// A search tree rooted at one position, searched by one thread or several at once (one
/// worker each, with its own random stream).
pub struct Tree {
    core: Core,
    workers: Vec<Worker>,
    /// Playouts run since the root was set (all threads).
    pub playouts: u64,
}

/// What the threads share: the nodes and the position and rules they are searched under.
struct Core {
    root: Box<Node>,
    /// Nodes held, the root included.
    held: AtomicUsize,
    /// Several threads are searching: statistics take atomic updates and virtual losses.
    shared: bool,
    root_board: FastBoard,
    root_to_move: Colour,
    rules: BotRules,
    params: TreeParams,
    forbidden: HashSet<u64>,
    root_filter: Option<Vec<Idx>>,
    restrictions: Vec<MoveRestriction>,
    model: Option<Arc<Model>>,
    /// The policy network for the priors near the root (19×19 only).
    net: Option<Arc<PolicyNet>>,
    /// The last four moves before the root, most recent first (PASS: a pass or none).
    recent: [Idx; 4],
    /// Network evaluations made (all threads).
    net_evals: AtomicU64,
    /// Playouts that went on from a leaf another thread was expanding (all threads).
    leaf_waits: AtomicU64,
    /// Most nodes the tree may hold: once full, leaves are no longer expanded and the search
    /// goes on in the tree it has. The root is always expanded.
    max_nodes: usize,
    /// Black's margin the score term is centred on (0 unless `params.score_centre`).
    score_centre: f32,
    /// A root move every playout goes down until it has this many real visits (a review
    /// reads the played move's own value beside the best move's).
    forced: Option<(Idx, f32)>,
}

/// One thread's own state: its random stream and scratch space.
struct Worker {
    rng: Rng,
    strengths: Vec<f32>,
    kids: Vec<Kid>,
    amaf: Vec<u8>,
    buf: Vec<Idx>,
    path_hashes: Vec<u64>,
    /// Sum over this worker's playouts of Black's ownership of each point (+1 Black, −1 White).
    ownership: Vec<f32>,
    /// Sums over this worker's playouts of Black's final margin and of its square.
    margins: (f64, f64),
    /// This worker's last good replies (used with `playout_replies`).
    replies: Replies,
}

impl Worker {
    fn new(seed: u64) -> Worker {
        Worker {
            rng: Rng::new(seed),
            strengths: Vec::new(),
            kids: Vec::with_capacity(64),
            amaf: vec![0; MAX_CELLS],
            buf: Vec::with_capacity(64),
            path_hashes: Vec::with_capacity(64),
            ownership: vec![0.0; MAX_CELLS],
            margins: (0.0, 0.0),
            replies: Replies::new(),
        }
    }
}

/// One thread's hold on a tree during [`Tree::search_parallel`].
pub struct Searcher<'a> {
    core: &'a Core,
    worker: &'a mut Worker,
}

impl Searcher<'_> {
    /// Runs `n` playouts in the shared tree.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.core.run_one(self.worker);
        }
    }

    /// The real visits of the two most visited root moves, most first (all threads' so far).
    pub fn top_two_visits(&self) -> (f32, f32) {
        self.core.top_two_visits()
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        self.root.free_below();
    }
}

impl Tree {
    /// A new tree at `board` (to move: `board.to_move()`), searched by one thread.
    pub fn new(
        board: FastBoard,
        rules: BotRules,
        params: TreeParams,
        forbidden: HashSet<u64>,
        root_filter: Option<Vec<Idx>>,
        seed: u64,
    ) -> Tree {
        let mut t = Tree {
            core: Core {
                root: Box::new(Node::new(PASS)),
                held: AtomicUsize::new(1),
                shared: false,
                root_to_move: board.to_move(),
                root_board: board,
                rules,
                params,
                forbidden,
                root_filter,
                restrictions: Vec::new(),
                model: None,
                net: None,
                recent: [PASS; 4],
                net_evals: AtomicU64::new(0),
                leaf_waits: AtomicU64::new(0),
                max_nodes: usize::MAX,
                score_centre: 0.0,
                forced: None,
            },
            workers: vec![Worker::new(seed)],
            playouts: 0,
        };
        t.expand_root();
        t
    }

    /// Drops every node below the root and expands the root afresh.
    fn expand_root(&mut self) {
        let core = &mut self.core;
        core.root.free_below();
        *core.root = Node::new(PASS);
        core.held.store(1, Ordering::Relaxed);
        let w = &mut self.workers[0];
        let mut b = core.root_board.clone();
        w.path_hashes.clear();
        core.root.claim();
        let recent = core.recent;
        core.expand_with(w, &core.root, &mut b, 0, recent, false);
    }

    /// This tree with learned move priors from `model` (None: the hand-written ones); the
    /// root is re-expanded.
    pub fn with_model(mut self, model: Option<Arc<Model>>) -> Tree {
        if model.is_some() {
            self.core.model = model;
            self.expand_root();
        }
        self
    }

    /// This tree with the priors of the nodes down to `params.net_depth` from `net` (19×19;
    /// None: patterns everywhere), `recent` the moves before the root (most recent first); the
    /// root is re-expanded.
    pub fn with_net(mut self, net: Option<Arc<PolicyNet>>, recent: [Idx; 4]) -> Tree {
        self.core.recent = recent;
        if net.is_some() {
            self.core.net = net;
            self.expand_root();
        }
        self
    }

    /// Network evaluations made since the tree was made.
    pub fn net_evals(&self) -> u64 {
        self.core.net_evals.load(Ordering::Relaxed)
    }

    /// Playouts since the tree was made that reached a leaf another thread was expanding (with
    /// a network near the root, mostly one waiting for its evaluation) and went on from it.
    pub fn leaf_waits(&self) -> u64 {
        self.core.leaf_waits.load(Ordering::Relaxed)
    }

    /// This tree with `avoid`/`allow` restrictions on the first plies (the root re-expanded
    /// under them).
    pub fn with_restrictions(mut self, restrictions: Vec<MoveRestriction>) -> Tree {
        if !restrictions.is_empty() {
            self.core.restrictions = restrictions;
            self.expand_root();
        }
        self
    }

    /// This tree capped at `max_nodes` nodes (see [`Tree::set_max_nodes`]).
    pub fn with_max_nodes(mut self, max_nodes: usize) -> Tree {
        self.set_max_nodes(max_nodes);
        self
    }

    /// This tree searched by one more thread for each seed (its random stream), besides the
    /// first: see [`Tree::search_parallel`].
    pub fn with_more_threads(mut self, seeds: impl IntoIterator<Item = u64>) -> Tree {
        let room = MAX_THREADS.saturating_sub(self.workers.len());
        self.workers
            .extend(seeds.into_iter().take(room).map(Worker::new));
        self
    }

    /// The threads that search this tree.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Caps the tree at `max_nodes` nodes: no leaf is expanded when its children could pass
    /// the cap (nor, when threads race for the last room, when they would), so the tree takes
    /// at most `max_nodes × NODE_BYTES` bytes and a small allocator header per expanded node
    /// (a tree kept from the last move may already hold more until the next move drops it).
    pub fn set_max_nodes(&mut self, max_nodes: usize) {
        self.core.max_nodes = max_nodes;
    }

    /// The real visits (priors aside) of the two most visited root moves, most first.
    pub fn top_two_visits(&self) -> (f32, f32) {
        self.core.top_two_visits()
    }

    /// Along the principal variation from the root (the most visited child at each step),
    /// each move, its real visits and its win rate for the player making it; stops at a move
    /// with fewer than `min_visits` visits.
    pub fn pv_values(&self, min_visits: f32) -> Vec<(Idx, f32, f32)> {
        let mut out = Vec::new();
        let mut node: &Node = &self.core.root;
        loop {
            let mut best: Option<(&Node, f32)> = None;
            for ch in node.children() {
                if ch.visits.get().is_nan() {
                    continue;
                }
                let real = ch.real_visits();
                match best {
                    Some((_, v)) if real <= v => {}
                    _ => best = Some((ch, real)),
                }
            }
            match best {
                Some((ch, real)) if real >= min_visits.max(1.0) => {
                    out.push((ch.mv(), real, (ch.wins.get() - ch.prior_wins.get()) / real));
                    node = ch;
                }
                _ => break,
            }
        }
        out
    }

    /// Whether the moves `line` from the root end the game (two passes in a row, counting a
    /// pass just before the root).
    pub fn ends_game(&self, line: impl IntoIterator<Item = Idx>) -> bool {
        let mut passes = self.core.root_board.passes();
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
        &self.core.root_board
    }

    /// Moves the root down along `moves` if the tree already holds them, keeping that subtree
    /// (the rest is freed); returns false (and leaves the tree unchanged) when it cannot.
    pub fn advance(
        &mut self,
        moves: &[Idx],
        board: &FastBoard,
        forbidden: HashSet<u64>,
        root_filter: Option<Vec<Idx>>,
    ) -> bool {
        let mut node: &Node = &self.core.root;
        for &m in moves {
            match node.children().iter().find(|c| c.mv() == m) {
                Some(c) => node = c,
                None => return false,
            }
        }
        if !node.expanded() {
            return false;
        }
        let kept = Box::new(node.detach());
        let old = std::mem::replace(&mut self.core.root, kept);
        let freed = old.free_below();
        self.core.held.fetch_sub(freed, Ordering::Relaxed);
        let core = &mut self.core;
        core.root_board = board.clone();
        core.root_to_move = board.to_move();
        core.forbidden = forbidden;
        for &m in moves {
            core.recent = [m, core.recent[0], core.recent[1], core.recent[2]];
        }
        for w in &mut self.workers {
            w.ownership.iter_mut().for_each(|o| *o = 0.0);
            w.margins = (0.0, 0.0);
        }
        self.playouts = 0;
        if root_filter.is_some() {
            core.root_filter = root_filter;
            // Drop root children the rules library does not allow.
            let filter = core.root_filter.clone().unwrap_or_default();
            for c in core.root.children() {
                if c.mv() != PASS && !filter.contains(&c.mv()) {
                    c.prior_visits.set(0.0);
                    c.visits.set(f32::NAN);
                }
            }
        }
        self.reprior_near_root();
        true
    }

    /// With a network, gives every expanded node down to `net_depth` whose children have the
    /// patterns' priors (it was expanded deeper, in an earlier tree) the network's priors in
    /// their place, strongest first for progressive widening; no other thread runs, so each
    /// block is re-sorted in place.
    fn reprior_near_root(&mut self) {
        let core = &self.core;
        if core.net.is_none() {
            return;
        }
        // (node, its board, the four moves before it, its depth)
        let mut todo: Vec<(&Node, FastBoard, [Idx; 4], u32)> =
            vec![(&core.root, core.root_board.clone(), core.recent, 0)];
        while let Some((node, b, recent, depth)) = todo.pop() {
            if !node.expanded() {
                continue;
            }
            if !node.net_priors() {
                core.reprior(node, &b, recent);
            }
            if depth < core.params.net_depth {
                for ch in node.children() {
                    if !ch.expanded() || ch.visits.get().is_nan() {
                        continue;
                    }
                    let mut cb = b.clone();
                    let c = cb.to_move();
                    if ch.mv() == PASS {
                        cb.pass();
                    } else {
                        cb.play(ch.mv(), c);
                    }
                    let r = [ch.mv(), recent[0], recent[1], recent[2]];
                    todo.push((ch, cb, r, depth + 1));
                }
            }
        }
    }

    /// Sets the weight of the score in the value of the playouts to come.
    pub fn set_score_weight(&mut self, w: f32) {
        self.core.params.score_weight = w;
    }

    /// Sets Black's margin the score term is centred on (0: the plain term).
    pub fn set_score_centre(&mut self, black_margin: f32) {
        self.core.score_centre = black_margin;
    }

    /// Makes every playout go down root move `mv` until it has `min` real visits (None: no
    /// move is forced); a review reads the played move's value in the same tree as the best's.
    pub fn set_forced(&mut self, forced: Option<(Idx, u32)>) {
        self.core.forced = forced.map(|(m, n)| (m, n as f32));
    }

    /// The mean and standard deviation of Black's final margin (after komi) over this
    /// search's playouts (since the root was set); None before any.
    pub fn margin_band(&self) -> Option<(f32, f32)> {
        if self.playouts == 0 {
            return None;
        }
        let (mut s, mut q) = (0.0f64, 0.0f64);
        for w in &self.workers {
            s += w.margins.0;
            q += w.margins.1;
        }
        let n = self.playouts as f64;
        let mean = s / n;
        Some((mean as f32, (q / n - mean * mean).max(0.0).sqrt() as f32))
    }

    /// The root's value: the side to move's mean result over every real visit of its
    /// children (their playouts together), and Black's mean margin over them; None before any.
    pub fn root_value(&self) -> Option<(f32, f32)> {
        let (mut v, mut w, mut sc) = (0.0f32, 0.0f32, 0.0f32);
        for ch in self.core.root.children() {
            let real = ch.real_visits();
            if ch.visits.get().is_nan() || real <= 0.0 {
                continue;
            }
            v += real;
            w += ch.wins.get() - ch.prior_wins.get();
            sc += ch.score.get();
        }
        (v > 0.0).then(|| ((w / v).clamp(0.0, 1.0), sc / v))
    }

    /// Runs `n` playouts on this thread (the first worker's random stream).
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.core.run_one(&mut self.workers[0]);
        }
        self.playouts += n;
    }

    /// Runs `work` once for each of the tree's threads, all at once, each on its own thread
    /// (on this one when there is only one), all searching this one tree; `work` says how
    /// many playouts it ran. With several threads the outcome varies from run to run (which
    /// thread gets to a node first); with one it is the single-threaded search's.
    pub fn search_parallel<R: Send>(
        &mut self,
        work: impl Fn(&mut Searcher) -> (R, u64) + Sync,
    ) -> Vec<R> {
        self.core.shared = self.workers.len() > 1;
        let core = &self.core;
        let out: Vec<(R, u64)> = if let [worker] = &mut self.workers[..] {
            vec![work(&mut Searcher { core, worker })]
        } else {
            let work = &work;
            std::thread::scope(|s| {
                let runs: Vec<_> = self
                    .workers
                    .iter_mut()
                    .map(|worker| s.spawn(move || work(&mut Searcher { core, worker })))
                    .collect();
                runs.into_iter()
                    .map(|r| r.join().expect("a search thread does not panic"))
                    .collect()
            })
        };
        self.core.shared = false;
        self.playouts += out.iter().map(|r| r.1).sum::<u64>();
        out.into_iter().map(|r| r.0).collect()
    }

    /// Statistics of every root move, most visited first.
    pub fn root_stats(&self) -> Vec<MoveStat> {
        self.core.root_stats()
    }

    /// Black's expected ownership of point `i` (−1..1) over this search's playouts.
    pub fn ownership(&self, i: Idx) -> f32 {
        if self.playouts == 0 {
            0.0
        } else {
            let mut sum = self.workers[0].ownership[i as usize];
            for w in &self.workers[1..] {
                sum += w.ownership[i as usize];
            }
            sum / self.playouts as f32
        }
    }

    /// Number of nodes held.
    pub fn size(&self) -> usize {
        self.core.held.load(Ordering::Relaxed)
    }

    /// Nodes the tree has memory for: as many as it holds (each expansion allocates exactly
    /// its children), so its memory is this times [`NODE_BYTES`].
    pub fn capacity(&self) -> usize {
        self.size()
    }

    /// Invariants of the tree after a search, for tests: the virtual loss left in it (0 once
    /// every thread is back); every node's real visits against its children's (a node has at
    /// least as many as all its children together: a lost update breaks it), as the number of
    /// nodes that fail it; and the nodes found (as many as [`Tree::size`] says are held).
    /// Walks the whole tree.
    pub fn audit(&self) -> (u64, usize, usize) {
        let mut vloss = 0u64;
        let mut short = 0usize;
        let mut found = 0usize;
        let mut stack: Vec<&Node> = vec![&self.core.root];
        while let Some(n) = stack.pop() {
            found += 1;
            vloss += n.virtual_loss() as u64;
            let kids = n.children();
            let below: f32 = kids
                .iter()
                .filter(|c| !c.visits.get().is_nan())
                .map(Node::real_visits)
                .sum();
            let mine = if std::ptr::eq(n, &*self.core.root) {
                n.visits.get()
            } else {
                n.real_visits()
            };
            // (Real visits are differences of f32 sums: allow their rounding.)
            if !kids.is_empty() && below > mine + 0.01 * mine.max(1.0) {
                short += 1;
            }
            stack.extend(kids);
        }
        (vloss, short, found)
    }

    /// The root's visits: one per playout since the tree was made (kept subtrees bring their
    /// own).
    pub fn root_visits(&self) -> f32 {
        self.core.root.visits.get()
    }
}

impl Core {
    /// Whether a leaf of `b` may be expanded under the node cap (its children are at most
    /// the empty points and a pass).
    #[inline]
    fn room_for_children(&self, b: &FastBoard) -> bool {
        self.held.load(Ordering::Relaxed) + b.empty_count() < self.max_nodes
    }

    fn top_two_visits(&self) -> (f32, f32) {
        let (mut a, mut b) = (0.0f32, 0.0f32);
        for ch in self.root.children() {
            if ch.visits.get().is_nan() {
                continue;
            }
            let v = ch.real_visits();
            if v > a {
                b = a;
                a = v;
            } else if v > b {
                b = v;
            }
        }
        (a, b)
    }

    fn legal_in_tree(&self, w: &Worker, b: &FastBoard, i: Idx, c: Colour) -> bool {
        if !b.is_legal(i, c, self.rules.suicide) {
            return false;
        }
        match self.rules.ko {
            KoRule::Simple | KoRule::Jk => true,
            KoRule::Positional => {
                let h = b.hash_after(i, c);
                !self.forbidden.contains(&h) && !w.path_hashes.contains(&h)
            }
            KoRule::Situational => {
                let h = sit(b.hash_after(i, c), c.opp());
                !self.forbidden.contains(&h) && !w.path_hashes.contains(&h)
            }
        }
    }

    /// Expands `node`, which this thread has claimed: makes its children and publishes them,
    /// or gives the claim up (false) when they no longer fit under the node cap.
    fn expand_with(
        &self,
        w: &mut Worker,
        node: &Node,
        b: &mut FastBoard,
        depth: u32,
        recent: [Idx; 4],
        busy: bool,
    ) -> bool {
        let c = b.to_move();
        let is_root = depth == 0;
        let opp_passed = b.move_count() > 0 && b.last_move() == PASS && b.passes() > 0;
        let mut kids = std::mem::take(&mut w.kids);
        kids.clear();
        let mut strengths = std::mem::take(&mut w.strengths);
        strengths.clear();
        let (width, height) = (b.width(), b.height());
        for i in (0..height).flat_map(|y| (0..width).map(move |x| (x, y))) {
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
            if !self.legal_in_tree(w, b, i, c) {
                continue;
            }
            let (pv, pw) = self.base_prior(b, i, c, opp_passed);
            kids.push(Kid::new(i, pv, pw));
        }
        // Passing is always legal.
        let (pv, pw) = self.base_prior(b, PASS, c, opp_passed);
        kids.push(Kid::new(PASS, pv, pw));
        // Near the root, the policy network's probabilities stand for the patterns' (which are
        // then not computed); elsewhere, or with no point to play, the patterns'.
        let mut value = None;
        let net = if depth <= self.params.net_depth || busy {
            let with_value = self.params.value_weight > 0.0 && !is_root;
            self.net_strengths(b, recent, kids.iter().map(|k| k.mv), with_value)
                .map(|(st, v)| {
                    value = v;
                    st
                })
        } else {
            None
        };
        let learned = self.model.is_some() || net.is_some();
        let from_net = net.is_some();
        match (net, &self.model) {
            (Some(ns), _) => strengths = ns,
            (None, Some(m)) => strengths.extend(kids.iter().map(|k| m.move_strength(b, k.mv, c))),
            (None, None) => {}
        }
        // Learned priors: virtual wins in proportion to the square root of the move's
        // probability under the model (Pachi's pattern prior).
        if learned {
            let total: f32 = strengths.iter().sum();
            if total > 0.0 {
                let eq = self.params.prior_weight;
                for (ch, &st) in kids.iter_mut().zip(&strengths) {
                    let extra = eq * (st / total).sqrt();
                    ch.prior_visits += extra;
                    ch.prior_wins += extra;
                    ch.visits += extra;
                    ch.wins += extra;
                }
            }
            if self.widening() {
                // Strongest first (pass at the front, always in the window) for progressive
                // widening.
                let n = kids.len();
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
                let sorted: Vec<Kid> = order.iter().map(|&k| kids[k]).collect();
                kids.copy_from_slice(&sorted);
            }
        }
        w.strengths = strengths;
        // Room for the children under the cap, taken atomically (threads may race for it).
        let count = kids.len();
        let fits = self
            .held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |h| {
                (h.saturating_add(count) <= self.max_nodes).then_some(h + count)
            })
            .is_ok();
        if fits {
            let block: Box<[Node]> = kids
                .iter()
                .map(|k| {
                    let n = Node::with_priors(k.mv, k.prior_visits, k.prior_wins);
                    n.visits.set(k.visits);
                    n.wins.set(k.wins);
                    n
                })
                .collect();
            node.publish(block);
            if from_net {
                node.mark_net_priors();
            }
            // The value head's verdict as virtual playouts of this node, seen (as all its
            // statistics) from the colour that moved into it.
            let vw = self.params.value_weight;
            if let Some(v) = value {
                let won = vw * (1.0 - v);
                node.visits.add(vw, true);
                node.wins.add(won, true);
                node.prior_visits.add(vw, true);
                node.prior_wins.add(won, true);
            }
        } else {
            node.unclaim();
        }
        w.kids = kids;
        fits
    }

    /// The virtual visits and wins a new child `i` (or PASS) starts with before any learned
    /// prior: even odds with learned priors, the hand-written heuristics without, and the
    /// ladder reader's verdict.
    fn base_prior(&self, b: &mut FastBoard, i: Idx, c: Colour, opp_passed: bool) -> (f32, f32) {
        if i == PASS {
            return if opp_passed { (10.0, 5.0) } else { (10.0, 1.0) };
        }
        let (pv, pw) = match &self.model {
            Some(_) => (10.0, 5.0),
            None => heuristic_prior(b, i, c),
        };
        // The ladder reader's verdict: a strong virtual loss for running from a working
        // ladder, a lesser one for an atari that fails, virtual wins for one that captures.
        let lw = self.params.ladder_prior;
        if lw > 0.0 {
            match judge_move(b, i, c, LADDER_BUDGET) {
                LadderVerdict::FutileEscape => (pv + lw, pw),
                LadderVerdict::FailingAtari => (pv + 0.5 * lw, pw),
                LadderVerdict::WorkingAtari => (pv + lw, pw + lw),
                LadderVerdict::None => (pv, pw),
            }
        } else {
            (pv, pw)
        }
    }

    /// Gives the expanded `node` at `b` the network's priors for its children in place of the
    /// patterns' (their real visits and wins kept), strongest first for progressive widening.
    /// No other thread may search meanwhile: the block is taken and published again.
    fn reprior(&self, node: &Node, b: &FastBoard, recent: [Idx; 4]) {
        let mut b = b.clone();
        let c = b.to_move();
        let opp_passed = b.move_count() > 0 && b.last_move() == PASS && b.passes() > 0;
        let Some(block) = node.take_children() else {
            return;
        };
        let mut kids: Vec<Node> = block.into_vec();
        let got = self
            .net_strengths(&b, recent, kids.iter().map(|n| n.mv()), false)
            .map(|(st, _)| st);
        if let Some(ns) = &got {
            let eq = self.params.prior_weight;
            for (n, &st) in kids.iter().zip(ns) {
                let (pv, pw) = self.base_prior(&mut b, n.mv(), c, opp_passed);
                let extra = eq * st.sqrt();
                let (pv, pw) = (pv + extra, pw + extra);
                n.visits.set(n.visits.get() - n.prior_visits.get() + pv);
                n.wins.set(n.wins.get() - n.prior_wins.get() + pw);
                n.prior_visits.set(pv);
                n.prior_wins.set(pw);
            }
            if self.widening() {
                let mut keyed: Vec<(f32, Node)> = ns.iter().copied().zip(kids).collect();
                for k in keyed.iter_mut().filter(|k| k.1.mv() == PASS) {
                    k.0 = f32::INFINITY;
                }
                keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
                kids = keyed.into_iter().map(|k| k.1).collect();
            }
        }
        node.claim();
        node.publish(kids.into_boxed_slice());
        if got.is_some() {
            node.mark_net_priors();
        }
    }

    /// The policy network's probabilities of `moves` at `b` (softmax over them; a pass gets
    /// what the least likely point gets) and, when `with_value` and the network has a value
    /// head, the side to move's win rate; None without a network or off 19×19.
    fn net_strengths(
        &self,
        b: &FastBoard,
        recent: [Idx; 4],
        moves: impl Iterator<Item = Idx>,
        with_value: bool,
    ) -> Option<(Vec<f32>, Option<f32>)> {
        let net = self.net.as_ref()?;
        let planes = planes_of(b, &recent, self.rules.komi)?;
        let (logits, value) = if with_value {
            net.forward_value(&planes)
        } else {
            (net.forward(&planes), None)
        };
        self.net_evals.fetch_add(1, Ordering::Relaxed);
        let logit = |i: Idx| {
            let (x, y) = b.xy(i);
            logits[(y * 19 + x).min(POINTS - 1)]
        };
        let ls: Vec<Option<f32>> = moves.map(|i| (i != PASS).then(|| logit(i))).collect();
        let max = ls
            .iter()
            .flatten()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        let min = ls.iter().flatten().copied().fold(f32::INFINITY, f32::min);
        if !max.is_finite() {
            return None;
        }
        let e: Vec<f32> = ls.iter().map(|l| (l.unwrap_or(min) - max).exp()).collect();
        let total: f32 = e.iter().sum();
        // The value head's logit as the side to move's win rate.
        let value = value.map(|l| 1.0 / (1.0 + (-l).exp()));
        Some((e.into_iter().map(|v| v / total).collect(), value))
    }

    /// The last four moves at the end of `path` (the root first), most recent first.
    fn recent_at(&self, path: &[&Node]) -> [Idx; 4] {
        let mut r = [PASS; 4];
        let moves = path.iter().skip(1).rev().map(|n| n.mv());
        for (slot, m) in r.iter_mut().zip(moves.chain(self.recent.iter().copied())) {
            *slot = m;
        }
        r
    }

    /// Whether children are kept strongest first and only the first few are searched, more
    /// as the node is visited (progressive widening; with learned priors only).
    #[inline]
    fn widening(&self) -> bool {
        self.model.is_some() && self.params.widen > 1.0
    }

    /// The child of `n` to go down: the best by RAVE-blended value and exploration, each
    /// child's virtual loss counted as that many more visits without a win.
    fn select<'a>(&self, n: &'a Node) -> &'a Node {
        let kids = n.children();
        let visits = n.visits.get();
        let ln = (visits.max(1.0)).ln();
        let mut best = &kids[0];
        let mut best_v = f32::NEG_INFINITY;
        let mut window = kids.len();
        if self.widening() {
            let real = (visits - n.prior_visits.get()).max(0.0);
            let k = 5.0 + (1.0 + real / 20.0).ln() / self.params.widen.ln();
            window = window.min(k as usize);
        }
        for ch in &kids[..window] {
            let mut cv = ch.visits.get();
            if cv.is_nan() {
                continue;
            }
            let vl = ch.virtual_loss();
            if vl > 0 {
                cv += vl as f32;
            }
            let q = ch.wins.get() / cv.max(1e-3);
            let rv = ch.rave_visits.get();
            let v = if rv > 0.0 {
                let rq = ch.rave_wins.get() / rv;
                let beta = rv / (rv + cv + rv * cv / self.params.rave_equiv);
                (1.0 - beta) * q + beta * rq
            } else {
                q
            };
            let v = v + self.params.explore * (ln / cv.max(1.0)).sqrt();
            if v > best_v {
                best_v = v;
                best = ch;
            }
        }
        best
    }

    /// The root's forced child `(mv, min)` while it has fewer than `min` visits (virtual
    /// losses counted), if the root has that move.
    fn forced_child<'a>(&self, root: &'a Node, (mv, min): (Idx, f32)) -> Option<&'a Node> {
        let ch = root.children().iter().find(|c| c.mv() == mv)?;
        let v = ch.real_visits_raw();
        let seen = v + ch.virtual_loss() as f32;
        (!v.is_nan() && seen < min).then_some(ch)
    }

    fn run_one(&self, w: &mut Worker) {
        let shared = self.shared;
        let mut b = self.root_board.clone();
        w.amaf.iter_mut().for_each(|a| *a = 0);
        w.path_hashes.clear();
        let mut path: Vec<&Node> = Vec::with_capacity(64);
        let mut node: &Node = &self.root;
        path.push(node);
        let mut terminal = false;
        let learn = self.params.playout_replies;
        if learn {
            let rb = &self.root_board;
            w.replies
                .begin(self.root_to_move.opp(), rb.last_move2(), rb.last_move());
        }
        loop {
            if !node.expanded() {
                // Expand a leaf visited often enough, unless the cap is reached or another
                // thread is expanding it (then play out from here).
                let wanted =
                    node.real_visits_raw() >= self.params.expand_at && self.room_for_children(&b);
                let expand = wanted && node.claim();
                if wanted && !expand && node.expanding() {
                    // The node waits for its children (and their priors, the network's near
                    // the root): this playout goes on from it meanwhile.
                    self.leaf_waits.fetch_add(1, Ordering::Relaxed);
                }
                // The path holds the root and every node down to this one.
                let recent = if expand && self.net.is_some() {
                    self.recent_at(&path)
                } else {
                    [PASS; 4]
                };
                // Past `net_depth`, a node whose parent the search visits often enough is
                // given the network's priors as if it were near the root.
                let nv = self.params.net_visits;
                let n = path.len();
                let busy = nv > 0.0 && n >= 2 && path[n - 2].real_visits_raw() >= nv;
                if !(expand && self.expand_with(w, node, &mut b, n as u32 - 1, recent, busy)) {
                    break;
                }
            }
            let child = match self.forced {
                Some(f) if path.len() == 1 => self.forced_child(node, f),
                _ => None,
            }
            .unwrap_or_else(|| self.select(node));
            if shared {
                child.meta.fetch_add(VLOSS_ONE, Ordering::Relaxed);
            }
            let mv = child.mv();
            let c = b.to_move();
            if learn {
                w.replies.record(c, mv);
            }
            if mv == PASS {
                b.pass();
            } else {
                if w.amaf[mv as usize] == 0 {
                    w.amaf[mv as usize] = c as u8 + 1;
                }
                b.play(mv, c);
            }
            path.push(child);
            let h = match self.rules.ko {
                KoRule::Situational => b.situational_hash(),
                _ => b.hash(),
            };
            w.path_hashes.push(h);
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
                &mut w.rng,
                &mut w.amaf,
                &mut w.buf,
                shapes,
                self.params.playout_policy(),
                learn.then_some(&mut w.replies),
            );
            let s = b.playout_area_score();
            self.score_result(&b, s as f32)
        };
        if learn {
            w.replies.learn(black > 0.5);
        }
        let black = self.value(&b, black, margin);
        // Ownership of the root's final positions.
        for i in b.points() {
            let o = b.owner_at(i);
            w.ownership[i as usize] += o;
        }
        w.margins.0 += margin as f64;
        w.margins.1 += (margin as f64) * (margin as f64);
        // Back up along the path; the mover into path[k] is the colour to move at path[k-1].
        let mut mover = self.root_to_move;
        for (k, n) in path.iter().enumerate() {
            if k > 0 {
                let r = if mover == Colour::Black {
                    black
                } else {
                    1.0 - black
                };
                n.visits.add(1.0, shared);
                n.wins.add(r, shared);
                n.score.add(margin, shared);
                if shared {
                    n.meta.fetch_sub(VLOSS_ONE, Ordering::Relaxed);
                }
                mover = mover.opp();
            } else {
                n.visits.add(1.0, shared);
            }
            // AMAF update of the children of this node: moves the colour to move here played.
            let to_move = mover;
            let code = to_move as u8 + 1;
            let r = if to_move == Colour::Black {
                black
            } else {
                1.0 - black
            };
            for ch in n.children() {
                let m = ch.mv();
                if m != PASS && w.amaf[m as usize] == code {
                    ch.rave_visits.add(1.0, shared);
                    ch.rave_wins.add(r, shared);
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
        (1.0 - w) * black + w * (0.5 + 0.5 * ((margin - self.score_centre) / scale).tanh())
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

    fn root_stats(&self) -> Vec<MoveStat> {
        let kids = self.root.children();
        let mut total_prior = 0.0f32;
        for ch in kids {
            if !ch.visits.get().is_nan() {
                total_prior += ch.prior_wins.get();
            }
        }
        // The mover into a root child is the root's side to move.
        let sign = if self.root_to_move == Colour::Black {
            1.0
        } else {
            -1.0
        };
        let mut out: Vec<MoveStat> = kids
            .iter()
            .filter(|ch| !ch.visits.get().is_nan())
            .map(|ch| {
                let real = ch.real_visits();
                let (pv, pv_visits) = pv_from(ch);
                let score_mean = if real > 0.0 {
                    sign * ch.score.get() / real
                } else {
                    0.0
                };
                let winrate = if real > 0.0 {
                    (ch.wins.get() - ch.prior_wins.get()) / real
                } else {
                    ch.wins.get() / ch.visits.get().max(1e-3)
                };
                MoveStat {
                    mv: ch.mv(),
                    visits: real.round() as u32,
                    winrate: winrate.clamp(0.0, 1.0),
                    score_mean,
                    prior: if total_prior > 0.0 {
                        ch.prior_wins.get() / total_prior
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
}

impl Node {
    /// Visits less the prior's virtual ones, unclamped (the expansion test's measure).
    #[inline]
    fn real_visits_raw(&self) -> f32 {
        self.visits.get() - self.prior_visits.get()
    }
}

/// The principal variation from `start` (most visited child at each step, 12 moves at most)
/// and the visits of each of its moves.
fn pv_from(start: &Node) -> (Vec<Idx>, Vec<u32>) {
    let mut pv = vec![start.mv()];
    let mut visits = vec![start.real_visits().round() as u32];
    let mut node = start;
    while pv.len() < 12 {
        let mut best: Option<&Node> = None;
        let mut bv = 0.0f32;
        for ch in node.children() {
            let r = ch.real_visits();
            if r > bv {
                bv = r;
                best = Some(ch);
            }
        }
        match best {
            Some(ch) if bv >= 1.0 => {
                pv.push(ch.mv());
                visits.push(bv.round() as u32);
                node = ch;
            }
            _ => break,
        }
    }
    (pv, visits)
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
