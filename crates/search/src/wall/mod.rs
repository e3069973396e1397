//! The Wall Go bots, each a named, seeded [`WallPlayer`] built from a spec string
//! `NAME[:key=value,…]` by [`make_player`]:
//!
//! - `random`: uniform over the legal actions.
//! - `easy`: one ply; every legal action is applied to a copy and the copy scored by the hand
//!   evaluation; an action that shuts one more enemy piece into four cells or fewer comes first.
//! - `medium`: minimax over my action, the reply and my action on the complete legal set (exact,
//!   by alpha-beta), the same evaluation.
//! - `expert`: alpha-beta with iterative deepening, a Zobrist-keyed transposition table, move
//!   ordering (table move, killers, history), late-move reductions and safe-move pruning, to a
//!   node (`nodes=N`) or time (`ms=N`) budget; its evaluation adds the territory split to the
//!   seed's features.
//! - `sedol`: the `expert` search with the evaluation learned from records ([`model`]).
//!
//! Bots are deterministic for a seed at a node budget. They know nothing of I/O.

mod bits;
pub mod eval;
pub mod features;
pub mod model;
pub mod search;

use baduk_rng::Rng;
use baduk_wallgo::{Action, ActionList, Position};
use eval::Evaluator;
use features::Features;
use model::Model;
use search::{SearchConfig, SearchInfo, Searcher};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The bot names [`make_player`] knows.
pub const BOT_NAMES: &[&str] = &["random", "easy", "medium", "expert", "sedol"];

/// Default node budget of `expert` and `sedol` when neither `nodes` nor `ms` is given.
pub const DEFAULT_NODES: u64 = 50_000;

/// A player that picks actions: a bot with its name and seed.
pub trait WallPlayer: Send {
    /// The spec it was built from, e.g. `expert:nodes=20000`.
    fn name(&self) -> &str;
    /// A legal action for the player to move in `pos`; `None` once the game is over.
    fn choose(&mut self, pos: &Position) -> Option<Action>;
    /// What the last search did (bots that do not search report zeros).
    fn last_info(&self) -> SearchInfo {
        SearchInfo::default()
    }
}

/// A bot spec that does not read: it names the known bots or keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// The keys each bot accepts.
pub fn bot_keys(name: &str) -> &'static [&'static str] {
    match name {
        "medium" => &["depth"],
        "expert" => &["nodes", "ms", "depth", "tt", "prune", "lmr"],
        "sedol" => &["nodes", "ms", "depth", "tt", "prune", "lmr", "model"],
        _ => &[],
    }
}

/// What a caller may give a bot besides its spec: an evaluation model loaded by the caller, and
/// a flag that ends its search early.
#[derive(Clone, Debug, Default)]
pub struct PlayerOptions {
    /// `sedol`'s model (instead of the committed one); a `model=` option in the spec still wins.
    pub model: Option<Arc<Model>>,
    /// Set by another thread to stop a search at its next look at the clock (the best action
    /// found so far is played). Only searches with a time budget (`ms`) look.
    pub stop: Option<Arc<AtomicBool>>,
}

/// Builds the bot `spec` (`NAME` or `NAME:key=value,…`) seeded with `seed`.
pub fn make_player(spec: &str, seed: u64) -> Result<Box<dyn WallPlayer>, SpecError> {
    make_player_with(spec, seed, &PlayerOptions::default())
}

/// Builds the bot `spec` seeded with `seed`, with a caller's model and stop flag.
pub fn make_player_with(
    spec: &str,
    seed: u64,
    options: &PlayerOptions,
) -> Result<Box<dyn WallPlayer>, SpecError> {
    let spec = spec.trim();
    let (name, opts) = spec.split_once(':').unwrap_or((spec, ""));
    if !BOT_NAMES.contains(&name) {
        return Err(SpecError(format!(
            "unknown bot '{name}' (known: {})",
            BOT_NAMES.join(", ")
        )));
    }
    let keys = bot_keys(name);
    let mut kv: Vec<(&str, &str)> = Vec::new();
    for item in opts.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| SpecError(format!("'{item}' in '{spec}' is not key=value")))?;
        if !keys.contains(&k) {
            let known = if keys.is_empty() {
                "none".to_string()
            } else {
                keys.join(", ")
            };
            return Err(SpecError(format!(
                "bot '{name}' has no option '{k}' (its options: {known})"
            )));
        }
        kv.push((k, v));
    }
    let num = |k: &str| -> Result<Option<u64>, SpecError> {
        match kv.iter().rev().find(|(key, _)| *key == k) {
            None => Ok(None),
            Some((_, v)) => v
                .parse::<u64>()
                .map(Some)
                .map_err(|_| SpecError(format!("{name}: {k}='{v}' is not a whole number"))),
        }
    };
    let rng = Rng::new(seed);
    Ok(match name {
        "random" => Box::new(RandomBot {
            name: spec.to_string(),
            rng,
            list: ActionList::new(),
        }),
        "easy" => Box::new(EasyBot {
            name: spec.to_string(),
            rng,
            list: ActionList::new(),
        }),
        "medium" => {
            let depth = num("depth")?.unwrap_or(3).clamp(1, 8) as u8;
            let cfg = SearchConfig {
                max_depth: depth,
                nodes: None,
                ms: None,
                tt_bits: 16,
                safe_pruning: false,
                late_move_reductions: false,
            };
            Box::new(SearchBot::new(spec, cfg, Evaluator::Hand, options))
        }
        _ => {
            let nodes = num("nodes")?;
            let ms = num("ms")?;
            let cfg = SearchConfig {
                max_depth: num("depth")?.unwrap_or(32).clamp(1, 60) as u8,
                nodes: if nodes.is_none() && ms.is_none() {
                    Some(DEFAULT_NODES)
                } else {
                    nodes
                },
                ms,
                tt_bits: num("tt")?.unwrap_or(18).min(26) as u8,
                safe_pruning: num("prune")?.unwrap_or(1) != 0,
                late_move_reductions: num("lmr")?.unwrap_or(1) != 0,
            };
            let eval = if name == "sedol" {
                match kv.iter().rev().find(|(k, _)| *k == "model") {
                    None => Evaluator::Learned(
                        options
                            .model
                            .as_deref()
                            .cloned()
                            .unwrap_or_else(Model::default_model),
                    ),
                    Some((_, path)) => {
                        let text = std::fs::read_to_string(path)
                            .map_err(|e| SpecError(format!("sedol: model '{path}': {e}")))?;
                        Evaluator::Learned(
                            Model::parse(&text)
                                .map_err(|e| SpecError(format!("sedol: {path}: {e}")))?,
                        )
                    }
                }
            } else {
                Evaluator::HandTerritory
            };
            Box::new(SearchBot::new(spec, cfg, eval, options))
        }
    })
}

/// One action of the bot `spec` seeded with `seed` (a fresh bot: for callers that keep none).
pub fn choose_action(spec: &str, pos: &Position, seed: u64) -> Result<Option<Action>, SpecError> {
    Ok(make_player(spec, seed)?.choose(pos))
}

/// `random`: uniform over the legal actions.
struct RandomBot {
    name: String,
    rng: Rng,
    list: ActionList,
}

impl WallPlayer for RandomBot {
    fn name(&self) -> &str {
        &self.name
    }
    fn choose(&mut self, pos: &Position) -> Option<Action> {
        pos.legal_actions(&mut self.list);
        if self.list.is_empty() {
            return None;
        }
        Some(self.list[self.rng.below(self.list.len())])
    }
}

/// `easy`: one ply over the hand evaluation, small enclosures of the enemy first.
struct EasyBot {
    name: String,
    rng: Rng,
    list: ActionList,
}

/// The `easy` choice: among actions that shut more enemy pieces into at most four cells (if
/// any), else among all, those of the best one-ply value; ties broken by `rng`.
pub fn easy_choice(pos: &Position, list: &mut ActionList, rng: &mut Rng) -> Option<Action> {
    pos.legal_actions(list);
    if list.is_empty() {
        return None;
    }
    let me = pos.to_move();
    let enemy = me.other().index();
    let before = Features::of(pos).side[enemy].small_confined;
    let mut best = (false, i32::MIN);
    let mut ties: Vec<Action> = Vec::new();
    for &a in list.iter() {
        let mut child = *pos;
        child.apply_unchecked(a);
        let value = Evaluator::Hand.value(&child, me);
        let confines = !child.is_over() && Features::of(&child).side[enemy].small_confined > before;
        let key = (confines, value);
        if key > best {
            best = key;
            ties.clear();
        }
        if key == best {
            ties.push(a);
        }
    }
    Some(ties[rng.below(ties.len())])
}

impl WallPlayer for EasyBot {
    fn name(&self) -> &str {
        &self.name
    }
    fn choose(&mut self, pos: &Position) -> Option<Action> {
        easy_choice(pos, &mut self.list, &mut self.rng)
    }
}

/// `medium`, `expert` and `sedol`: the alpha-beta searcher.
struct SearchBot {
    name: String,
    searcher: Searcher,
    info: SearchInfo,
    stop: Option<Arc<AtomicBool>>,
}

impl SearchBot {
    fn new(spec: &str, cfg: SearchConfig, eval: Evaluator, options: &PlayerOptions) -> SearchBot {
        SearchBot {
            name: spec.to_string(),
            searcher: Searcher::new(cfg, eval),
            info: SearchInfo::default(),
            stop: options.stop.clone(),
        }
    }
}

/// The machine's clock, read as "out of time" once the stop flag is set.
struct StoppableClock {
    inner: search::WallClock,
    stop: Arc<AtomicBool>,
}

impl search::Clock for StoppableClock {
    fn elapsed_us(&mut self) -> u64 {
        if self.stop.load(Ordering::Relaxed) {
            u64::MAX / 4
        } else {
            self.inner.elapsed_us()
        }
    }
}

impl WallPlayer for SearchBot {
    fn name(&self) -> &str {
        &self.name
    }
    fn choose(&mut self, pos: &Position) -> Option<Action> {
        let (a, info) = match &self.stop {
            None => self.searcher.search(pos),
            Some(stop) => self.searcher.search_with_clock(
                pos,
                Box::new(StoppableClock {
                    inner: search::WallClock::start(),
                    stop: stop.clone(),
                }),
            ),
        };
        self.info = info;
        a
    }
    fn last_info(&self) -> SearchInfo {
        self.info
    }
}
