//! The Go bot: Monte Carlo tree search (UCT with RAVE, learned move priors and progressive
//! widening, a score term when the game is decided) on the rules library's board, with a playout
//! policy that knows captures, ataris and 3×3 shapes, tree reuse between moves, threads sharing
//! one tree (virtual loss), clock-aware time management and levels 1–10.
//!
//! It is rules-faithful: the caller passes the legal root moves from the rules library's `Game`
//! (superko included, and repetitions a rule set allows stay available); inside the tree the same
//! `BotRules` (ko, suicide, scoring, komi) are applied. With one thread it is deterministic for a
//! seed at a playout budget; with several it is not. It does no I/O.

pub mod board;
pub mod ladder;
pub mod lib_game;
pub mod mcts;
pub mod patterns;
pub mod playout;
pub mod policy_net;
pub mod review;
pub mod rules;
pub mod spatial;
pub mod state;
pub mod time;
pub mod train;

use board::{Colour, Idx, PASS};
use mcts::{MoveRestriction, MoveStat, Searcher, Tree, TreeParams, MAX_THREADS};
use patterns::Model;
use policy_net::{PolicyNet, ValueHead};
use state::GameState;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The bot's options (`baduk:threads=2,playouts=5000,…`).
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// Search threads, all searching one shared tree (virtual loss keeps them apart), at
    /// most [`MAX_THREADS`]. With one thread a search at a playout budget is reproducible by
    /// its seed; with more it is not (which thread reaches a node first varies from run to
    /// run), though it still runs exactly the playouts asked for.
    pub threads: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// Playouts per move when no clock applies (also a cap under a clock), if set.
    pub playouts: Option<u64>,
    /// Thinking time per move when no clock is set, if any.
    pub move_time: Option<Duration>,
    /// Resign when the win rate stays below this (0 = never resign).
    pub resign_threshold: f32,
    /// How many consecutive moves the win rate must stay below the threshold.
    pub resign_moves: u32,
    /// Keep the subtree of the actual moves between searches.
    pub reuse_tree: bool,
    /// Tree tuning.
    pub params: TreeParams,
    /// Learned move priors (None: the hand-written ones, `priors=none`).
    pub model: Option<Arc<Model>>,
    /// The policy network giving the priors near the root (19×19), if any (`priors=net`, the
    /// default: the built-in network); used at level 10 only.
    pub net: Option<Arc<PolicyNet>>,
    /// Strength level 1..=10 (10: full strength at the given time); lower levels cap the
    /// playouts per move, search with the patterns' priors alone (the network is full
    /// strength's), and the lowest also play some random moves.
    pub level: u8,
    /// Most tree nodes (the one tree all threads share); once full, the search goes on
    /// without expanding leaves. Default: [`DEFAULT_TREE_BYTES`] worth.
    pub max_nodes: usize,
    /// Under a clock (a request with a `max_time`), how much longer than its budget a move
    /// may think while its two best moves are close, as a fraction of the budget (1: up to
    /// twice the budget, and never past `max_time`); 0: never.
    pub extend: f32,
    /// The two best root moves are close when the second has at least `1 − extend_margin`
    /// of the best one's visits (0.6: 40%, Pachi's `best2_ratio` of 2.5).
    pub extend_margin: f32,
    /// A search with a deadline stops as soon as the second most visited root move could no
    /// longer catch the first in the playouts the time left allows (never when only a
    /// playout budget is given: those searches stay exactly reproducible).
    pub early_stop: bool,
}

/// The bot's default `net-depth`: the network gives the priors of the nodes down to three
/// plies below the root (docs/bot.md, "Four times the forward passes, three plies deep").
pub const DEFAULT_NET_DEPTH: u32 = 3;

/// The tree memory a bot may use by default, whatever its threads: `max_nodes` defaults to
/// this divided by [`mcts::NODE_BYTES`].
pub const DEFAULT_TREE_BYTES: usize = 1 << 30;

/// Options a server bot seat starts from, before its own: resign when the win rate stays
/// below 5% three moves in a row (a seat's bot starts afresh every move, so the three moves
/// are read from its principal variation; see `resign-moves`). The arena, GTP and the
/// library's default configuration never resign unless asked.
pub const SEAT_DEFAULTS: &str = "resign=0.05,resign-moves=3";

/// Fewest visits a move of the principal variation needs to count towards a resignation.
pub const RESIGN_PV_VISITS: f32 = 100.0;

/// Playouts per move at each level below 10 (level 1 first).
pub const LEVEL_PLAYOUTS: [u64; 9] = [10, 30, 80, 200, 500, 1200, 3000, 7000, 15000];

/// After the opponent's pass, passing back is as good as the best move when its win rate is
/// at most this much lower…
pub const PASS_BACK_WINRATE: f32 = 0.02;
/// …and its mean final margin at most this many points lower.
pub const PASS_BACK_POINTS: f32 = 0.5;
/// After the opponent's pass, a point is settled when the dead-stone estimate
/// ([`estimate_ownership`], [`SETTLED_PLAYOUTS`] playouts, either side first) gives it to one
/// colour at least this surely (ownership runs from −1, White's, to 1, Black's; 0.6 is four
/// playouts in five, fewer where a playout leaves the point touching both colours).
pub const SETTLED_OWNERSHIP: f32 = 0.6;
/// …unless the search reads passing at least this much lower in win rate than the move.
pub const PASS_BACK_CLEAR_LOSS: f32 = 0.1;
/// Playouts of the dead-stone estimate that tells settled points after the opponent's pass:
/// the same at every level, so that a level's playout cap does not decide when it passes.
pub const SETTLED_PLAYOUTS: u32 = 256;

/// How often a level below 10 (level 1 first) plays a random sensible move (one that fills no
/// own eye and throws no group into atari) instead of its search's choice: a beginner's
/// blunders, so that the lowest levels are beatable by beginners. Never after the opponent's
/// pass: a blunder then plays on through settled territory instead of ending the game.
pub const LEVEL_BLUNDERS: [f64; 9] = [0.5, 0.3, 0.15, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0];

impl Default for BotConfig {
    fn default() -> Self {
        BotConfig {
            threads: 1,
            seed: 1,
            playouts: None,
            move_time: Some(Duration::from_secs(1)),
            resign_threshold: 0.0,
            resign_moves: 3,
            reuse_tree: true,
            params: TreeParams {
                net_depth: DEFAULT_NET_DEPTH,
                ..TreeParams::default()
            },
            model: Some(Model::builtin()),
            net: Some(PolicyNet::builtin()),
            level: 10,
            max_nodes: DEFAULT_TREE_BYTES / mcts::NODE_BYTES,
            extend: 1.0,
            extend_margin: 0.6,
            early_stop: true,
        }
    }
}

impl BotConfig {
    /// Applies `key=value` options separated by commas: `threads`, `seed`, `playouts`, `time`
    /// (seconds per move), `resign` (threshold 0..1), `resign-moves`, `reuse` (true/false),
    /// `rave`, `explore`, `expand`, `ladder-prior` (0 = off, the default), `playout-ladders`
    /// (true/false, default false), `max-nodes`, `extend`, `extend-margin`, `early-stop`, and
    /// the rest listed in the error for an unknown key.
    pub fn apply_options(&mut self, opts: &str) -> Result<(), String> {
        for kv in opts.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("bot option `{kv}` is not key=value"))?;
            let (k, v) = (k.trim(), v.trim());
            let bad = |e: &dyn std::fmt::Display| format!("bot option {k}={v}: {e}");
            // The number `text` within `lo..=hi`; `what` says the range in the error.
            let number = |text: &str, lo: f64, hi: f64, what: &str| -> Result<f64, String> {
                let x: f64 = text.parse().map_err(|e| bad(&e))?;
                if (lo..=hi).contains(&x) {
                    Ok(x)
                } else {
                    Err(bad(&what))
                }
            };
            match k {
                "threads" => {
                    self.threads = v.parse::<usize>().map_err(|e| bad(&e))?.clamp(1, MAX_THREADS)
                }
                "seed" => self.seed = v.parse().map_err(|e| bad(&e))?,
                "playouts" => self.playouts = Some(v.parse().map_err(|e| bad(&e))?),
                "time" => {
                    let secs = number(
                        v.trim_end_matches('s'),
                        0.0,
                        86_400.0,
                        "the time is 0 to 86400 seconds",
                    )?;
                    self.move_time = Some(Duration::from_secs_f64(secs.max(0.001)));
                }
                "resign" => {
                    self.resign_threshold =
                        number(v, 0.0, 1.0, "the resign threshold is between 0 and 1")? as f32
                }
                "resign-moves" => self.resign_moves = v.parse().map_err(|e| bad(&e))?,
                "reuse" => self.reuse_tree = v.parse().map_err(|e| bad(&e))?,
                "rave" => {
                    self.params.rave_equiv =
                        number(v, 0.0, 1e9, "the RAVE equivalence is between 0 and 1e9")? as f32
                }
                "explore" => {
                    self.params.explore =
                        number(v, 0.0, 100.0, "the exploration constant is between 0 and 100")? as f32
                }
                "expand" => {
                    self.params.expand_at =
                        number(v, 0.0, 1e9, "the expansion threshold is between 0 and 1e9")? as f32
                }
                "priors" => {
                    (self.model, self.net) = match v {
                        "none" => (None, None),
                        "builtin" | "patterns" => (Some(Model::builtin()), None),
                        "net" => (Some(Model::builtin()), Some(PolicyNet::builtin())),
                        path => (
                            Some(Arc::new(Model::load(path).map_err(|e| e.to_string())?)),
                            None,
                        ),
                    }
                }
                "net" => {
                    self.net = match v {
                        "none" => None,
                        "builtin" => Some(PolicyNet::builtin()),
                        path => Some(Arc::new(PolicyNet::load(path).map_err(|e| e.to_string())?)),
                    }
                }
                "value-net" => {
                    let net = self.net.as_ref().ok_or_else(|| {
                        bad(&"a value head needs the policy network (priors=net or net=…) first")
                    })?;
                    let (head, file) = match v {
                        "builtin" => (ValueHead::builtin(), "models/go-value.bin (built in)"),
                        path => (ValueHead::load(path).map_err(|e| e.to_string())?, path),
                    };
                    let with = (**net).clone().with_value(head, file).map_err(|e| e.to_string())?;
                    self.net = Some(Arc::new(with));
                }
                "value" => {
                    self.params.value_weight = number(
                        v,
                        0.0,
                        1e6,
                        "value is 0 (off) or the virtual playouts a value head's verdict counts for",
                    )? as f32
                }
                "net-visits" => {
                    self.params.net_visits = number(
                        v,
                        0.0,
                        1e9,
                        "net-visits is 0 (off) or the parent's visits from which a node takes the network's priors",
                    )? as f32
                }
                "net-depth" => {
                    self.params.net_depth =
                        number(v, 0.0, 20.0, "net-depth is a depth from 0 (the root) to 20")? as u32
                }
                "prior-weight" => {
                    self.params.prior_weight =
                        number(v, 0.0, 1000.0, "the prior weight is between 0 and 1000")? as f32
                }
                "widen" => {
                    let w = number(v, 0.0, 100.0, "widen is 0 (off) or a factor between 1 and 100")?;
                    if w != 0.0 && w < 1.0 {
                        return Err(bad(&"widen is 0 (off) or a factor between 1 and 100"));
                    }
                    self.params.widen = w as f32;
                }
                "ladder-prior" => {
                    self.params.ladder_prior =
                        number(v, 0.0, 1000.0, "the ladder prior is between 0 and 1000")? as f32
                }
                "playout-ladders" => {
                    self.params.playout_ladders = v.parse().map_err(|e| bad(&e))?
                }
                "playout-selfatari" => {
                    self.params.playout_self_atari = v.parse().map_err(|e| bad(&e))?
                }
                "playout-2lib" => self.params.playout_two_lib = v.parse().map_err(|e| bad(&e))?,
                "playout-nakade" => self.params.playout_nakade = v.parse().map_err(|e| bad(&e))?,
                "playout-ko" => self.params.playout_ko = v.parse().map_err(|e| bad(&e))?,
                "playout-replies" => {
                    self.params.playout_replies = v.parse().map_err(|e| bad(&e))?
                }
                "playout-shapes" => {
                    self.params.playout_shapes = v.parse().map_err(|e| bad(&e))?
                }
                "score" => {
                    self.params.score_weight =
                        number(v, 0.0, 1.0, "the score weight is between 0 and 1")? as f32
                }
                "score-centre" => {
                    self.params.score_centre = v.parse().map_err(|e| bad(&e))?
                }
                "score-band" => {
                    self.params.score_band =
                        number(v, 0.0, 0.5, "the score band is between 0 and 0.5")? as f32
                }
                "max-nodes" => {
                    self.max_nodes = number(
                        v,
                        1000.0,
                        1e12,
                        "max-nodes is a node count between 1000 and 1e12",
                    )? as usize
                }
                "extend" => {
                    self.extend =
                        number(v, 0.0, 10.0, "extend is a fraction of the budget, 0 to 10")? as f32
                }
                "extend-margin" => {
                    self.extend_margin =
                        number(v, 0.0, 1.0, "the extension margin is between 0 and 1")? as f32
                }
                "early-stop" => self.early_stop = v.parse().map_err(|e| bad(&e))?,
                "level" => {
                    let l: u8 = v.parse().map_err(|e| bad(&e))?;
                    if !(1..=10).contains(&l) {
                        return Err(bad(&"levels go from 1 to 10"));
                    }
                    self.level = l;
                }
                _ => {
                    return Err(format!(
                        "unknown bot option `{k}` (accepted: threads, seed, playouts, time, resign, resign-moves, reuse, rave, explore, expand, priors, net, net-depth, net-visits, value-net, value, prior-weight, widen, ladder-prior, playout-ladders, playout-selfatari, playout-2lib, playout-nakade, playout-ko, playout-replies, playout-shapes, score, score-band, score-centre, level, max-nodes, extend, extend-margin, early-stop)"
                    ))
                }
            }
        }
        if self.params.value_weight > 0.0
            && self.net.as_ref().is_none_or(|n| n.value_head().is_none())
        {
            return Err(format!(
                "bot option value={}: no value head to weigh (give value-net=builtin or a file, after priors=net or net=…)",
                self.params.value_weight
            ));
        }
        Ok(())
    }
}

/// The last four moves of `moves`, most recent first (PASS where there are fewer).
fn recent_moves(moves: &[(Colour, Idx)]) -> [Idx; 4] {
    let mut r = [PASS; 4];
    for (slot, m) in r.iter_mut().zip(moves.iter().rev()) {
        *slot = m.1;
    }
    r
}

/// What the bot decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotMove {
    /// Play a stone at this index.
    Play(Idx),
    /// Pass.
    Pass,
    /// Resign.
    Resign,
}

/// How long to search and what the caller requires.
#[derive(Clone, Debug, Default)]
pub struct SearchRequest {
    /// Legal root moves according to the rules library (None: the bot's own rules mirror).
    pub root_moves: Option<Vec<Idx>>,
    /// Playout budget (overrides the config's).
    pub playouts: Option<u64>,
    /// Time budget (overrides the config's).
    pub time: Option<Duration>,
    /// Under a clock: the longest this move may take (what the clock can spare). A search
    /// whose two best moves are still close at the end of `time` goes on, up to
    /// `time × (1 + extend)` and never past this. None: `time` is fixed.
    pub max_time: Option<Duration>,
    /// `kgs-genmove_cleanup`: do not pass while opponent stones look dead.
    pub cleanup: bool,
    /// The game ends with both players agreeing on dead stones (a server seat whose rules
    /// have a dead-stone phase): after the opponent's pass, opponent stones that look dead
    /// need not be captured under area scoring, and passing back ends the game. Off (the
    /// default, GTP and the arena) they are captured, as Tromp-Taylor and an arena's
    /// referee count them as they stand.
    pub dead_agreed: bool,
    /// Go on with the trees of the previous search when they are at this very position (same
    /// moves, colour to move and root moves), even with tree reuse off: analysis and
    /// `lz-genmove_analyze` search in short slices.
    pub resume: bool,
    /// `avoid`/`allow` restrictions on the first plies (analysis); a tree is kept only for the
    /// same ones.
    pub restrictions: Vec<MoveRestriction>,
    /// Set by another thread to end the search early (the best move so far is played).
    pub stop: Option<Arc<AtomicBool>>,
    /// A root move the search visits at least this often (a review's played move).
    pub force: Option<(Idx, u32)>,
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StopReason {
    /// Its playout budget, its time budget, or a stop request: the work it was given.
    #[default]
    Budget,
    /// Before its time was up: the second best move could not catch the best.
    Early,
    /// Past its time budget: the two best moves were close, so it thought longer.
    Extended,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The chosen move.
    pub mv: BotMove,
    /// The side to move's win rate with the chosen move.
    pub winrate: f32,
    /// Playouts run for this decision (all threads).
    pub playouts: u64,
    /// Root statistics, most visited first.
    pub stats: Vec<MoveStat>,
    /// Why the search stopped.
    pub stopped: StopReason,
}

/// The Go bot: a configuration, its tree and its memory of the game.
pub struct Bot {
    /// The options.
    pub config: BotConfig,
    tree: Option<Tree>,
    tree_moves: Vec<(Colour, Idx)>,
    tree_setup: Vec<(Colour, Idx)>,
    tree_to_move: Colour,
    tree_filter: Option<Vec<Idx>>,
    tree_restrictions: Vec<MoveRestriction>,
    low_streak: u32,
    last_winrate: f32,
    /// Black's margin the last search expected (its best move's mean score).
    last_margin: f32,
    last_stop: StopReason,
}

impl Bot {
    /// A bot with `config`.
    pub fn new(config: BotConfig) -> Bot {
        Bot {
            config,
            tree: None,
            tree_moves: Vec::new(),
            tree_setup: Vec::new(),
            tree_to_move: Colour::Black,
            tree_filter: None,
            tree_restrictions: Vec::new(),
            low_streak: 0,
            last_winrate: 0.5,
            last_margin: 0.0,
            last_stop: StopReason::Budget,
        }
    }

    /// Forgets the tree and streaks (new game).
    pub fn reset(&mut self) {
        self.tree = None;
        self.tree_moves.clear();
        self.tree_setup.clear();
        self.low_streak = 0;
        self.last_winrate = 0.5;
        self.last_margin = 0.0;
    }

    /// Makes the tree's root the position of `game` with its side to move, keeping what was
    /// searched when the tree already holds it: the same position, colour and root moves (as
    /// is), or a position reached by moves the tree holds (that subtree). A tree is never
    /// reused for the other colour to move: GUIs ask for either side at any time.
    fn prepare(
        &mut self,
        game: &GameState,
        root_moves: Option<Vec<Idx>>,
        resume: bool,
        restrictions: &[MoveRestriction],
    ) {
        let moves = game.moves();
        let same_restrictions = self.tree_restrictions == restrictions;
        let n = self.config.threads.clamp(1, MAX_THREADS);
        // A tree for this board with this many threads.
        let fits = self
            .tree
            .as_ref()
            .is_some_and(|t| t.root_board().width() == game.board().width() && t.threads() == n);
        let at_this_root = same_restrictions
            && fits
            && self.tree_setup == game.setup_stones()
            && moves == self.tree_moves
            && self.tree_to_move == game.to_move()
            && root_moves == self.tree_filter;
        if at_this_root && (resume || self.config.reuse_tree) {
            return;
        }
        // Restrictions count plies from the root they were given at: no reuse down the tree.
        let reusable = self.config.reuse_tree
            && same_restrictions
            && restrictions.is_empty()
            && fits
            && self.tree_setup == game.setup_stones()
            && moves.len() >= self.tree_moves.len()
            && moves[..self.tree_moves.len()] == self.tree_moves[..];
        if reusable {
            let extra: Vec<Idx> = moves[self.tree_moves.len()..].iter().map(|m| m.1).collect();
            // Colours must alternate as in the tree for the subtree to be meaningful, and the
            // side to move must be the one the kept root is searched for.
            let mut ok = true;
            let mut c = self.tree_to_move;
            for m in &moves[self.tree_moves.len()..] {
                if m.0 != c {
                    ok = false;
                }
                c = c.opp();
            }
            // (The same position with other root moves starts afresh.)
            ok &= c == game.to_move() && !extra.is_empty();
            if ok {
                if let Some(t) = self.tree.as_mut() {
                    ok = t.advance(
                        &extra,
                        game.board(),
                        game.forbidden_set(),
                        root_moves.clone(),
                    );
                }
            }
            if ok {
                self.tree_moves = moves.to_vec();
                self.tree_to_move = game.to_move();
                self.tree_filter = root_moves;
                return;
            }
        }
        let base =
            baduk_rng::Rng::new(self.config.seed ^ (moves.len() as u64).wrapping_mul(0x9E37));
        // Each thread's random stream (the first one's is the single-threaded search's).
        let seed = |k: usize| base.fork(k as u64 + 1).next_u64();
        self.tree = None;
        self.tree = Some(
            Tree::new(
                game.board().clone(),
                game.rules,
                self.config.params,
                game.forbidden_set(),
                root_moves.clone(),
                seed(0),
            )
            .with_model(self.config.model.clone())
            .with_net(
                self.config.net.clone().filter(|_| self.config.level >= 10),
                recent_moves(moves),
            )
            .with_restrictions(restrictions.to_vec())
            .with_max_nodes(self.config.max_nodes)
            .with_more_threads((1..n).map(seed)),
        );
        self.tree_moves = moves.to_vec();
        self.tree_setup = game.setup_stones().to_vec();
        self.tree_to_move = game.to_move();
        self.tree_filter = root_moves;
        self.tree_restrictions = restrictions.to_vec();
    }

    /// Searches the position of `game` for its side to move.
    pub fn search(&mut self, game: &GameState, req: &SearchRequest) -> Vec<MoveStat> {
        self.prepare(game, req.root_moves.clone(), req.resume, &req.restrictions);
        let p = self.config.params;
        let lopsided = p.score_band >= 0.5
            || self.last_winrate < p.score_band
            || self.last_winrate > 1.0 - p.score_band;
        let w = if lopsided { p.score_weight } else { 0.0 };
        let tree = self.tree.as_mut().expect("prepare makes a tree");
        tree.set_score_weight(w);
        tree.set_score_centre(if p.score_centre {
            self.last_margin
        } else {
            0.0
        });
        tree.set_max_nodes(self.config.max_nodes);
        tree.set_forced(req.force);
        let mut playouts = req.playouts.or(self.config.playouts);
        if let Some(&cap) = LEVEL_PLAYOUTS.get(self.config.level.wrapping_sub(1) as usize) {
            playouts = Some(playouts.map_or(cap, |p| p.min(cap)));
        }
        let time = req.time.or(if playouts.is_none() {
            self.config.move_time
        } else {
            None
        });
        let start = Instant::now();
        let deadline = time.map(|t| start + t);
        // Under a clock, close calls may think longer: up to (1 + extend) × the budget and
        // never past what the clock can spare.
        let hard = match (time, req.max_time) {
            (Some(t), Some(m)) if self.config.extend > 0.0 => {
                let longest = t.mul_f64(1.0 + self.config.extend as f64).min(m);
                Some(start + longest.max(t))
            }
            _ => deadline,
        };
        // (Not in analysis's short slices, which go on with the same tree: `resume`.)
        let early_stop = self.config.early_stop && !req.resume;
        let close = 1.0 - self.config.extend_margin;
        let stop = req.stop.as_deref();
        // What the threads share: playouts handed out and finished (the playout budget is
        // theirs together), and whether one of them ended the search and why.
        let claimed = AtomicU64::new(0);
        let finished = AtomicU64::new(0);
        let halt = AtomicBool::new(false);
        let (early, extended) = (AtomicBool::new(false), AtomicBool::new(false));
        // Neither budget given: a small fixed one.
        let budget = playouts.unwrap_or(if deadline.is_none() { 1000 } else { u64::MAX });
        // Playout budgets are handed out exactly; the others in whole chunks.
        let chunk_at = |c: u64| match playouts {
            Some(p) => (p - c).min(64),
            None => 64,
        };
        let work = |t: &mut Searcher| -> ((), u64) {
            let mut mine = 0u64;
            loop {
                if halt.load(Ordering::Relaxed) || claimed.load(Ordering::Relaxed) >= budget {
                    break;
                }
                let done = finished.load(Ordering::Relaxed);
                if let Some(d) = deadline {
                    let now = Instant::now();
                    if now >= d {
                        // The budget is spent: go on only while the two best moves are close.
                        if now >= hard.unwrap_or(d) {
                            break;
                        }
                        let (best, second) = t.top_two_visits();
                        if second < best * close {
                            halt.store(true, Ordering::Relaxed);
                            break;
                        }
                        extended.store(true, Ordering::Relaxed);
                    } else if early_stop && done >= 128 {
                        // Stop when the second best could not catch the best even if it got
                        // every playout the time (and the playout cap) still allows.
                        let (best, second) = t.top_two_visits();
                        let rate = done as f64 / (now - start).as_secs_f64().max(1e-6);
                        let mut left = rate * (d - now).as_secs_f64();
                        if let Some(p) = playouts {
                            left = left.min(p.saturating_sub(done) as f64);
                        }
                        if (best - second) as f64 > left {
                            early.store(true, Ordering::Relaxed);
                            halt.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                }
                if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    break;
                }
                let next = claimed.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                    (c < budget).then(|| c + chunk_at(c))
                });
                let Ok(c) = next else {
                    break;
                };
                let chunk = chunk_at(c);
                t.run(chunk);
                finished.fetch_add(chunk, Ordering::Relaxed);
                mine += chunk;
            }
            ((), mine)
        };
        tree.search_parallel(work);
        self.last_stop = if early.into_inner() {
            StopReason::Early
        } else if extended.into_inner() {
            StopReason::Extended
        } else {
            StopReason::Budget
        };
        let stats = self.merged_stats();
        if let Some(s) = stats.first() {
            self.last_winrate = s.winrate;
            self.last_margin = match game.to_move() {
                Colour::Black => s.score_mean,
                Colour::White => -s.score_mean,
            };
        }
        stats
    }

    /// Root statistics of the tree (all threads'), most visited first.
    pub fn merged_stats(&self) -> Vec<MoveStat> {
        self.tree.as_ref().map(Tree::root_stats).unwrap_or_default()
    }

    /// How many of the side to move's own moves in a row, from the root down the tree's
    /// principal variation (each with at least [`RESIGN_PV_VISITS`] visits), have a win rate
    /// below `threshold` (all of them, `u32::MAX`, when that line ends the game by two
    /// passes).
    fn pv_low_streak(&self, threshold: f32) -> u32 {
        let Some(t) = &self.tree else {
            return 0;
        };
        let pv = t.pv_values(RESIGN_PV_VISITS);
        let low = pv
            .iter()
            .step_by(2)
            .take_while(|&&(_, _, wr)| wr < threshold)
            .count();
        // The line up to the last low own move (and the reply to it).
        let upto = (2 * low).min(pv.len());
        if low > 0 && t.ends_game(pv[..upto].iter().map(|p| p.0)) {
            u32::MAX
        } else {
            low as u32
        }
    }

    /// Nodes held by the tree.
    pub fn tree_nodes(&self) -> usize {
        self.tree.as_ref().map_or(0, Tree::size)
    }

    /// The tree, if the bot has searched.
    pub fn tree(&self) -> Option<&Tree> {
        self.tree.as_ref()
    }

    /// Playouts run at the current root over all threads.
    pub fn playouts(&self) -> u64 {
        self.tree.as_ref().map_or(0, |t| t.playouts)
    }

    /// Black's expected ownership of `i` (−1..1) from the last search.
    pub fn ownership(&self, i: Idx) -> f32 {
        self.tree.as_ref().map_or(0.0, |t| t.ownership(i))
    }

    /// Whether no move of the side to move gains over passing, by the last search: passing
    /// reads as well as `best` (win rate within [`PASS_BACK_WINRATE`], mean margin within
    /// [`PASS_BACK_POINTS`]), or every point is settled by the dead-stone estimate `own`
    /// (Black's ownership, beyond [`SETTLED_OWNERSHIP`] either way, or a dame under territory
    /// scoring). Never under area scoring while an opponent stone looks dead (it is captured,
    /// not agreed), unless `dead_agreed`.
    fn nothing_to_gain(
        &self,
        game: &GameState,
        stats: &[MoveStat],
        best: Option<&MoveStat>,
        own: &[f32],
        dead_agreed: bool,
    ) -> bool {
        let Some(best) = best else {
            return true;
        };
        let b = game.board();
        let area = game.rules.scoring == rules::ScoringKind::Area;
        if area && !dead_agreed && opponent_looks_dead(b, own, game.to_move()) {
            return false;
        }
        let searched = self.tree.as_ref().is_some_and(|t| t.playouts > 0);
        let pass_as_good = searched
            && stats
                .iter()
                .find(|s| s.mv == PASS && s.visits > 0)
                .is_some_and(|p| {
                    p.winrate >= best.winrate - PASS_BACK_WINRATE
                        && p.score_mean >= best.score_mean - PASS_BACK_POINTS
                });
        let settled = b
            .points()
            .all(|i| own[i as usize].abs() >= SETTLED_OWNERSHIP || (!area && is_dame(b, i)));
        pass_as_good || settled
    }

    /// Chooses a move for the side to move of `game`.
    pub fn genmove(&mut self, game: &GameState, req: &SearchRequest) -> SearchResult {
        let stats = self.search(game, req);
        let me = game.to_move();
        let b = game.board();
        // Never pass while opponent stones look dead under area rules (dead stones are
        // captured, not agreed) or when asked to clean up.
        let legal = |m: Idx| match &req.root_moves {
            Some(r) => m == PASS || r.contains(&m),
            None => game.check(me, m).is_ok(),
        };
        let passing = stats.first().is_some_and(|s| s.mv == PASS);
        let opp_passed = game.moves().last().is_some_and(|m| m.1 == PASS);
        let area = game.rules.scoring == rules::ScoringKind::Area;
        // The dead-stone estimate, wanted to pass (dead stones) and after the opponent's pass.
        let own = (passing || (opp_passed && !req.cleanup)).then(|| {
            let seed = self.config.seed ^ game.moves().len() as u64;
            estimate_ownership(b, SETTLED_PLAYOUTS, seed)
        });
        let opp_dead = passing
            && own
                .as_deref()
                .is_some_and(|o| opponent_looks_dead(b, o, me));
        // Passing first gives the opponent the choice to end the game: not while losing (that
        // is resigning by other means), nor under area scoring where playing on costs nothing.
        let pass_wr = stats.first().map_or(0.5, |s| s.winrate);
        let next_best = stats
            .iter()
            .find(|s| s.mv != PASS && s.visits > 0 && legal(s.mv));
        let pass_first_is_waste = passing
            && !opp_passed
            && next_best.is_some_and(|n| pass_wr < 0.2 || (area && n.winrate >= pass_wr - 0.1));
        let avoid_pass = ((req.cleanup || area) && opp_dead) || pass_first_is_waste;
        let mut chosen = stats
            .iter()
            .find(|s| legal(s.mv) && !(avoid_pass && s.mv == PASS && stats.len() > 1))
            .cloned();
        // The opponent passed: pass back rather than play on through the opponent's passes
        // when no move gains by this search's reading, or when the move chosen lies inside
        // settled territory or a settled group (it changes nothing; a search whose moves all
        // read alike, a decided game's, picks one at random). Under area scoring a dame is a
        // point: the most visited one is filled first, and opponent stones that look dead are
        // captured, not agreed (unless the game agrees on them after the passes).
        let mut pass_back = false;
        if let (true, Some(own), Some(c)) = (opp_passed && !req.cleanup, own.as_deref(), &chosen) {
            let dead = area && !req.dead_agreed && opponent_looks_dead(b, own, me);
            // Passing reads clearly worse than the move: the search sees what the estimate
            // does not.
            let pass_loses = stats
                .iter()
                .find(|s| s.mv == PASS && s.visits > 0)
                .is_some_and(|p| p.winrate < c.winrate - PASS_BACK_CLEAR_LOSS);
            if c.mv != PASS && !dead && !pass_loses && inside_settled(b, own, c.mv) {
                let dame = stats.iter().find(|s| {
                    s.mv != PASS
                        && s.visits > 0
                        && legal(s.mv)
                        && is_dame(b, s.mv)
                        && !inside_settled(b, own, s.mv)
                });
                match dame.filter(|_| area) {
                    Some(d) => chosen = Some(d.clone()),
                    None => pass_back = true,
                }
            } else if c.mv != PASS {
                pass_back =
                    self.nothing_to_gain(game, &stats, chosen.as_ref(), own, req.dead_agreed);
            }
        }
        let (mv, winrate) = match chosen {
            Some(s) if s.mv == PASS => (BotMove::Pass, s.winrate),
            Some(s) => (BotMove::Play(s.mv), s.winrate),
            None => (BotMove::Pass, 0.5),
        };
        let mut mv = if pass_back { BotMove::Pass } else { mv };
        let blunder = LEVEL_BLUNDERS
            .get(self.config.level.wrapping_sub(1) as usize)
            .copied()
            .unwrap_or(0.0);
        if blunder > 0.0 && !req.cleanup && !opp_passed && matches!(mv, BotMove::Play(_)) {
            let mut rng = baduk_rng::Rng::new(
                self.config.seed ^ (game.moves().len() as u64).wrapping_mul(0x2545_F491),
            );
            if rng.unit() < blunder {
                let r = playout::random_move(b, me, &mut rng, playout::Policy::default());
                if r != PASS && legal(r) {
                    mv = BotMove::Play(r);
                }
            }
        }
        // Passing after the opponent's pass ends the game with its count: no resigning then.
        let count_ends_it = opp_passed && matches!(mv, BotMove::Pass);
        if self.config.resign_threshold > 0.0 && game.rules.resign_allowed && !count_ends_it {
            let th = self.config.resign_threshold;
            if winrate < th {
                self.low_streak += 1;
            } else {
                self.low_streak = 0;
            }
            // The moves in a row are this bot's own last ones, or, for a bot that remembers
            // none (the server's seats start afresh every move), the ones its search expects
            // to play next: its moves along the principal variation of every tree.
            let need = self.config.resign_moves.max(1);
            if self.low_streak >= need || (winrate < th && self.pv_low_streak(th) >= need) {
                mv = BotMove::Resign;
            }
        }
        SearchResult {
            mv,
            winrate,
            playouts: self.playouts(),
            stats,
            stopped: self.last_stop,
        }
    }
}

/// The result of [`bench_search`]: a deterministic signature and a rate.
#[derive(Clone, Copy, Debug)]
pub struct SearchBench {
    /// Board size searched.
    pub size: usize,
    /// Playouts run.
    pub playouts: u64,
    /// Search threads (sharing one tree).
    pub threads: usize,
    /// Sum of the root visit counts times their move index: a signature of the search,
    /// reproducible with one thread only.
    pub signature: u64,
    /// Seconds taken.
    pub seconds: f64,
    /// Policy-network evaluations made (0 without `priors=net`).
    pub net_evals: u64,
    /// Playouts that went on from a leaf another thread was expanding (0 with one thread).
    pub leaf_waits: u64,
}

impl SearchBench {
    /// Playouts per second.
    pub fn rate(&self) -> f64 {
        self.playouts as f64 / self.seconds.max(1e-9)
    }
}

/// Tree search from the empty `size`×`size` board (area rules, komi 7) with the real playout
/// policy, one thread unless `opts` say `threads=N`, `playouts` playouts, bot options `opts` on
/// top: the `bench go --search` measurement.
pub fn bench_search(
    size: usize,
    playouts: u64,
    seed: u64,
    opts: &str,
) -> Result<SearchBench, String> {
    let game = GameState::new(size, rules::BotRules::area(7.0));
    let mut config = BotConfig {
        threads: 1,
        seed,
        playouts: Some(playouts),
        move_time: None,
        reuse_tree: false,
        ..BotConfig::default()
    };
    config.apply_options(opts)?;
    let mut bot = Bot::new(config);
    let t = Instant::now();
    let stats = bot.search(
        &game,
        &SearchRequest {
            playouts: Some(playouts),
            ..SearchRequest::default()
        },
    );
    let seconds = t.elapsed().as_secs_f64();
    let signature = stats
        .iter()
        .map(|s| s.visits as u64 * (s.mv as u64 + 1))
        .fold(0u64, |a, b| a.wrapping_mul(31).wrapping_add(b));
    Ok(SearchBench {
        size,
        playouts: bot.playouts(),
        threads: bot.config.threads,
        signature,
        seconds,
        net_evals: bot.tree().map_or(0, |t| t.net_evals()),
        leaf_waits: bot.tree().map_or(0, |t| t.leaf_waits()),
    })
}

/// The result of [`bench_net`].
#[derive(Debug, Clone)]
pub struct NetBench {
    /// Forward passes made.
    pub evals: u64,
    /// The network's preferred points over every pass, folded: a signature of the network and
    /// its inputs.
    pub signature: u64,
    /// Seconds the forward passes took (building the inputs not counted).
    pub seconds: f64,
}

impl NetBench {
    /// Forward passes per second.
    pub fn rate(&self) -> f64 {
        self.evals as f64 / self.seconds.max(1e-9)
    }
}

/// Forward passes of the built-in policy network over `evals` 19×19 positions of a game of
/// random moves seeded by `seed`, one position at a time as the search asks.
pub fn bench_net(evals: u64, seed: u64) -> NetBench {
    let net = PolicyNet::builtin();
    let mut rng = baduk_rng::Rng::new(seed);
    let mut b = board::FastBoard::new(19, 19);
    let mut recent = [PASS; 4];
    let mut seconds = 0.0;
    let mut signature = 0u64;
    let mut done = 0u64;
    while done < evals.max(1) {
        let c = b.to_move();
        let moves: Vec<Idx> = b
            .points()
            .filter(|&i| b.is_simple_legal(i, c) && !b.is_eye(i, c))
            .collect();
        if moves.is_empty() || b.move_count() >= 300 {
            b = board::FastBoard::new(19, 19);
            recent = [PASS; 4];
            continue;
        }
        let mv = moves[rng.below(moves.len())];
        b.play(mv, c);
        recent = [mv, recent[0], recent[1], recent[2]];
        let planes = policy_net::planes_of(&b, &recent, 7.5).expect("19×19");
        let t = Instant::now();
        let logits = net.forward(&planes);
        seconds += t.elapsed().as_secs_f64();
        let best = logits
            .iter()
            .enumerate()
            .fold(
                (0, f32::NEG_INFINITY),
                |a, (i, &v)| if v > a.1 { (i, v) } else { a },
            )
            .0;
        signature = signature.wrapping_mul(31).wrapping_add(best as u64 + 1);
        done += 1;
    }
    NetBench {
        evals: done,
        signature,
        seconds,
    }
}

/// Whether an opponent stone of `me` looks dead by the estimate `own` (Black's ownership):
/// `me` owns its point more often than not.
fn opponent_looks_dead(b: &board::FastBoard, own: &[f32], me: Colour) -> bool {
    let sign = if me == Colour::Black { 1.0 } else { -1.0 };
    b.points()
        .any(|i| b.stone(i) == Some(me.opp()) && sign * own[i as usize] > 0.5)
}

/// Whether `i` lies inside settled territory or a settled group by the estimate `own`
/// (Black's ownership): it and each neighbour go to the same colour at least
/// [`SETTLED_OWNERSHIP`] surely, so that a stone there changes nothing.
fn inside_settled(b: &board::FastBoard, own: &[f32], i: Idx) -> bool {
    let o = own[i as usize];
    o.abs() >= SETTLED_OWNERSHIP
        && b.neighbours(i)
            .into_iter()
            .filter(|&n| b.on_board(n))
            .all(|n| own[n as usize] * o.signum() >= SETTLED_OWNERSHIP)
}

/// Whether `i` is a dame: an empty point next to stones of both colours.
fn is_dame(b: &board::FastBoard, i: Idx) -> bool {
    let touch = b.neighbours(i).map(|n| b.stone(n));
    b.stone(i).is_none()
        && touch.contains(&Some(Colour::Black))
        && touch.contains(&Some(Colour::White))
}

/// Black's expected ownership (−1..1) of every index of `board`, from `n` playouts of the real
/// policy started afresh at this position (passes forgotten): the dead-stone estimate.
pub fn estimate_ownership(board: &board::FastBoard, n: u32, seed: u64) -> Vec<f32> {
    let mut own = vec![0.0f32; board::MAX_CELLS];
    let mut rng = baduk_rng::Rng::new(seed);
    let mut amaf = vec![0u8; board::MAX_CELLS];
    let mut buf = Vec::new();
    let n = n.max(1);
    for k in 0..n {
        let mut b = board.clone();
        // Either side may move first: alternate so neither gets a free tempo.
        let first = if k % 2 == 0 {
            Colour::Black
        } else {
            Colour::White
        };
        b.set_to_move(first);
        b.reset_passes();
        playout::playout(
            &mut b,
            &mut rng,
            &mut amaf,
            &mut buf,
            None,
            playout::Policy::default(),
            None,
        );
        for i in b.points() {
            let o = b.owner_at(i);
            own[i as usize] += o;
        }
    }
    own.iter_mut().for_each(|o| *o /= n as f32);
    own
}
