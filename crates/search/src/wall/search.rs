//! The alpha-beta engine of `medium`, `expert` and `sedol`: negamax with iterative deepening, a
//! transposition table keyed by the position's Zobrist hash, move ordering (table move, killers,
//! history), optional safe-move pruning, and node or time budgets.

use super::bits::{Open, ALL};
use super::eval::{Evaluator, INF};
use baduk_wallgo::{Action, ActionList, Position};
use std::time::Instant;

/// Deepest ply a search reaches.
pub const MAX_PLY: usize = 64;
/// Nodes between two looks at the clock (a power of two).
pub const CLOCK_EVERY: u64 = 256;
/// Moves searched at full depth before late-move reductions start.
pub const LMR_AFTER: usize = 3;
/// Milliseconds kept back from the turn clock for the move to travel.
pub const CLOCK_MARGIN_MS: u64 = 500;

/// Where a time-budgeted search reads the time (a fake in tests, so no test times the machine).
pub trait Clock: Send {
    /// Microseconds since the search started.
    fn elapsed_us(&mut self) -> u64;
}

/// The machine's monotonic clock.
#[derive(Debug)]
pub struct WallClock(Instant);

impl WallClock {
    /// A clock started now.
    pub fn start() -> WallClock {
        WallClock(Instant::now())
    }
}

impl Clock for WallClock {
    fn elapsed_us(&mut self) -> u64 {
        self.0.elapsed().as_micros() as u64
    }
}

/// How a search is limited and what it may prune.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Deepest iteration (plies).
    pub max_depth: u8,
    /// Stop after this many nodes (deterministic).
    pub nodes: Option<u64>,
    /// Stop after this many milliseconds (capped by the turn clock less [`CLOCK_MARGIN_MS`]).
    pub ms: Option<u64>,
    /// log2 of the transposition table's entries (0: no table).
    pub tt_bits: u8,
    /// Skip moves that wall one of our own pieces into a small pure room, unless every move does.
    pub safe_pruning: bool,
    /// Search late-ordered moves one ply shallower first (off for exact minimax).
    pub late_move_reductions: bool,
}

/// What the last search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    /// Nodes visited (positions entered, leaves included).
    pub nodes: u64,
    /// Deepest iteration completed.
    pub depth: u8,
    /// Value of the chosen action for the player to move.
    pub score: i32,
    /// Microseconds the search took by its clock.
    pub elapsed_us: u64,
    /// The time budget it worked to, in microseconds, if any.
    pub budget_us: Option<u64>,
    /// Whether a budget cut the search short.
    pub stopped: bool,
}

#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    value: i32,
    depth: u8,
    bound: u8,
    mv: Option<Action>,
}

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;

/// An alpha-beta searcher; one per player, reused move after move.
pub struct Searcher {
    cfg: SearchConfig,
    eval: Evaluator,
    tt: Vec<Entry>,
    history: Vec<u32>,
    killers: [[Option<Action>; 2]; MAX_PLY],
    nodes: u64,
    stop: bool,
    can_stop: bool,
    budget_us: Option<u64>,
    clock: Box<dyn Clock>,
    lists: Vec<ActionList>,
}

/// Index of an action in the history table.
#[inline]
fn hist_index(a: Action) -> usize {
    match a {
        Action::Turn { to, wall, .. } => to.index() * 84 + wall.index(),
        Action::Place(c) => 49 * 84 + c.index(),
        Action::Pass(_) => 49 * 84 + 49,
    }
}

impl Searcher {
    /// A searcher with this configuration and evaluation.
    pub fn new(cfg: SearchConfig, eval: Evaluator) -> Searcher {
        let empty = Entry {
            key: 0,
            value: 0,
            depth: 0,
            bound: EXACT,
            mv: None,
        };
        let tt_len = if cfg.tt_bits == 0 {
            0
        } else {
            1usize << cfg.tt_bits.min(26)
        };
        Searcher {
            cfg,
            eval,
            tt: vec![empty; tt_len],
            history: vec![0; 49 * 84 + 50],
            killers: [[None; 2]; MAX_PLY],
            nodes: 0,
            stop: false,
            can_stop: false,
            budget_us: None,
            clock: Box::new(WallClock::start()),
            lists: (0..MAX_PLY + 1).map(|_| ActionList::new()).collect(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> SearchConfig {
        self.cfg
    }

    /// Searches `pos` (not over) with the machine's clock.
    pub fn search(&mut self, pos: &Position) -> (Option<Action>, SearchInfo) {
        self.search_with_clock(pos, Box::new(WallClock::start()))
    }

    /// Searches `pos` reading the time from `clock`; returns the best action found (a legal
    /// one whenever the game is not over) and what the search did.
    pub fn search_with_clock(
        &mut self,
        pos: &Position,
        clock: Box<dyn Clock>,
    ) -> (Option<Action>, SearchInfo) {
        self.clock = clock;
        self.nodes = 0;
        self.stop = false;
        self.can_stop = false;
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().for_each(|h| *h = 0);
        for e in self.tt.iter_mut() {
            e.key = 0;
            e.mv = None;
        }
        // A variant without a turn limit (0 seconds) caps nothing.
        let turn_ms = match pos.variant().seconds_per_turn {
            0 => u64::MAX / 1000,
            s => (s as u64 * 1000).saturating_sub(CLOCK_MARGIN_MS),
        };
        self.budget_us = self.cfg.ms.map(|ms| ms.min(turn_ms.max(1)) * 1000);
        let mut root = ActionList::new();
        pos.legal_actions(&mut root);
        let mut info = SearchInfo {
            budget_us: self.budget_us,
            ..SearchInfo::default()
        };
        if root.is_empty() {
            return (None, info);
        }
        // Root order: by the one-ply value, best first (stable, so ties keep generator order).
        let me = pos.to_move();
        let mut scored: Vec<(i32, Action)> = root
            .iter()
            .map(|&a| {
                let mut c = *pos;
                c.apply_unchecked(a);
                (self.eval.value(&c, me), a)
            })
            .collect();
        self.nodes += scored.len() as u64;
        scored.sort_by_key(|&(v, _)| std::cmp::Reverse(v));
        let mut moves: Vec<Action> = scored.into_iter().map(|(_, a)| a).collect();
        let mut best = moves[0];
        for depth in 1..=self.cfg.max_depth.max(1) {
            let (mv, value, complete) = self.root(pos, &mut moves, depth);
            if let Some(m) = mv {
                best = m;
                info.score = value;
            }
            if !complete {
                info.stopped = true;
                break;
            }
            info.depth = depth;
            self.can_stop = true;
            // Move the best first for the next iteration.
            if let Some(i) = moves.iter().position(|&m| m == best) {
                moves[..=i].rotate_right(1);
            }
            if value.abs() >= super::eval::WIN - 1000 {
                break; // a proven result: deeper search cannot change it
            }
            if self.out_of_budget(true) {
                info.stopped = true;
                break;
            }
        }
        info.nodes = self.nodes;
        info.elapsed_us = self.clock.elapsed_us();
        (Some(best), info)
    }

    /// Whether the budget is spent; with `next_iteration`, also when half the time is gone (a
    /// deeper iteration would not finish).
    fn out_of_budget(&mut self, next_iteration: bool) -> bool {
        if let Some(n) = self.cfg.nodes {
            if self.nodes >= n {
                return true;
            }
        }
        if let Some(b) = self.budget_us {
            let t = self.clock.elapsed_us();
            if t >= b || (next_iteration && t * 2 >= b) {
                return true;
            }
        }
        false
    }

    /// One root iteration: the best action, its value, and whether the iteration completed.
    fn root(
        &mut self,
        pos: &Position,
        moves: &mut [Action],
        depth: u8,
    ) -> (Option<Action>, i32, bool) {
        let mut alpha = -INF;
        let beta = INF;
        let mut best: Option<Action> = None;
        let me = pos.to_move();
        let safe: Vec<bool> = if self.cfg.safe_pruning {
            moves.iter().map(|&a| is_safe(pos, a)).collect()
        } else {
            vec![true; moves.len()]
        };
        let any_safe = safe.iter().any(|&s| s);
        self.nodes += 1;
        for (i, &a) in moves.iter().enumerate() {
            if any_safe && !safe[i] {
                continue;
            }
            let mut child = *pos;
            child.apply_unchecked(a);
            let v = if child.is_over() {
                self.nodes += 1;
                self.eval.value(&child, me)
            } else if best.is_none() {
                -self.negamax(&child, depth - 1, -beta, -alpha, 1)
            } else {
                // Principal variation search: prove the move worse with a null window first.
                let v = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, 1);
                if v > alpha && !self.stop {
                    -self.negamax(&child, depth - 1, -beta, -alpha, 1)
                } else {
                    v
                }
            };
            if self.stop {
                return (best, alpha, false);
            }
            if v > alpha || best.is_none() {
                alpha = v.max(alpha);
                best = Some(a);
            }
        }
        (best, alpha, true)
    }

    fn negamax(&mut self, pos: &Position, depth: u8, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.can_stop {
            if let Some(n) = self.cfg.nodes {
                if self.nodes >= n {
                    self.stop = true;
                }
            }
            if self.nodes & (CLOCK_EVERY - 1) == 0
                && self.budget_us.is_some()
                && self.out_of_budget(false)
            {
                self.stop = true;
            }
            if self.stop {
                return 0;
            }
        }
        let me = pos.to_move();
        if pos.is_over() || depth == 0 || ply >= MAX_PLY {
            return self.eval.value(pos, me);
        }
        let key = pos.hash();
        let mut tt_move = None;
        let slot = if self.tt.is_empty() {
            usize::MAX
        } else {
            (key as usize) & (self.tt.len() - 1)
        };
        let alpha0 = alpha;
        if slot != usize::MAX {
            let e = self.tt[slot];
            if e.key == key && e.mv.is_some() {
                tt_move = e.mv;
                if e.depth >= depth {
                    match e.bound {
                        EXACT => return e.value,
                        LOWER if e.value >= beta => return e.value,
                        UPPER if e.value <= alpha => return e.value,
                        _ => {}
                    }
                }
            }
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        pos.legal_actions(&mut list);
        let n = list.len();
        // Order: table move, killers, then history (highest first), chosen lazily.
        let mut keys = [0u32; baduk_wallgo::MAX_ACTIONS];
        let k = self.killers[ply];
        for (i, &a) in list.iter().enumerate() {
            keys[i] = if Some(a) == tt_move {
                u32::MAX
            } else if Some(a) == k[0] {
                u32::MAX - 1
            } else if Some(a) == k[1] {
                u32::MAX - 2
            } else {
                self.history[hist_index(a)].min(u32::MAX - 3)
            };
        }
        let mut order = [0u8; baduk_wallgo::MAX_ACTIONS];
        for (i, o) in order.iter_mut().enumerate().take(n) {
            *o = i as u8;
        }
        let mut best = -INF;
        let mut best_move = None;
        let mut searched = 0;
        for pass in 0..2 {
            if pass == 1 && (searched > 0 || !self.cfg.safe_pruning) {
                break;
            }
            for j in 0..n {
                // Selection step: bring the highest remaining key to position j.
                if pass == 0 {
                    let mut bi = j;
                    for t in j + 1..n {
                        if keys[order[t] as usize] > keys[order[bi] as usize] {
                            bi = t;
                        }
                    }
                    order.swap(j, bi);
                }
                let a = list[order[j] as usize];
                if pass == 0 && self.cfg.safe_pruning && n > 1 && !is_safe(pos, a) {
                    continue;
                }
                searched += 1;
                let mut child = *pos;
                child.apply_unchecked(a);
                let v = if searched == 1 {
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    // Late moves (after the first few, not the table move or a killer) are
                    // first searched one ply shallower; a move that looks better is re-searched.
                    let late = self.cfg.late_move_reductions
                        && depth >= 3
                        && searched > LMR_AFTER
                        && keys[order[j] as usize] < u32::MAX - 2;
                    let mut v = alpha + 1;
                    if late {
                        v = -self.negamax(&child, depth - 2, -alpha - 1, -alpha, ply + 1);
                    }
                    if v > alpha && !self.stop {
                        v = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                    }
                    if v > alpha && v < beta && !self.stop {
                        -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
                    } else {
                        v
                    }
                };
                if self.stop {
                    self.lists[ply] = list;
                    return 0;
                }
                if v > best {
                    best = v;
                    best_move = Some(a);
                    if v > alpha {
                        alpha = v;
                        if alpha >= beta {
                            if !matches!(a, Action::Pass(_)) && Some(a) != k[0] {
                                self.killers[ply] = [Some(a), k[0]];
                            }
                            let h = &mut self.history[hist_index(a)];
                            *h = h.saturating_add((depth as u32) * (depth as u32));
                            break;
                        }
                    }
                }
            }
        }
        self.lists[ply] = list;
        if slot != usize::MAX {
            let bound = if best <= alpha0 {
                UPPER
            } else if best >= beta {
                LOWER
            } else {
                EXACT
            };
            let e = &mut self.tt[slot];
            if e.key != key || depth >= e.depth || e.mv.is_none() {
                *e = Entry {
                    key,
                    value: best,
                    depth,
                    bound,
                    mv: best_move,
                };
            }
        }
        best
    }
}

/// Whether `a` keeps every piece of the mover out of a small pure room it did not already sit
/// in: false when the new wall splits a region and one side of it is a pure room of ours of at
/// most six cells while the game goes on (a finished game is scored exactly instead).
pub fn is_safe(pos: &Position, a: Action) -> bool {
    let Action::Turn { wall, .. } = a else {
        return true;
    };
    if pos.walls().contains(wall) {
        return true;
    }
    let mut child = *pos;
    child.apply_unchecked(a);
    if child.is_over() {
        return true;
    }
    let me = pos.to_move();
    let mine = child.pieces(me).bits();
    let theirs = child.pieces(me.other()).bits();
    let o = Open::of(child.walls());
    let (x, y) = wall.cells();
    let rx = o.fill(x.bit(), ALL);
    if rx & y.bit() != 0 {
        return true; // the wall splits nothing
    }
    let ry = o.fill(y.bit(), ALL);
    for r in [rx, ry] {
        if r.count_ones() <= super::features::SELF_ENCLOSED && r & mine != 0 && r & theirs == 0 {
            return false;
        }
    }
    true
}

/// The fixed position set of `baduk bench search`: from eight seeded random openings, the
/// positions after 2, 6, 10 and 14 random turns (those still in play); 32 at most.
pub fn bench_positions() -> Vec<Position> {
    use baduk_wallgo::Variant;
    let mut out = Vec::new();
    let mut list = ActionList::new();
    for seed in 1..=8u64 {
        let mut rng = baduk_rng::Rng::new(0xBE7C_0000 + seed);
        let mut pos = Position::new(Variant::default());
        while !pos.is_over() && pos.turns_played() < 15 {
            if pos.phase() == baduk_wallgo::Phase::Turns && pos.turns_played() % 4 == 2 {
                out.push(pos);
            }
            pos.legal_actions(&mut list);
            pos.apply_unchecked(list[rng.below(list.len())]);
        }
    }
    out
}
