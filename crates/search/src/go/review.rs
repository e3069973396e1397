//! The engine's review of a game along its main line: one search a position, the tree kept from
//! each position to the next (the played move's subtree becomes the next root), and the played
//! move's own value read in the same tree as the best move's (it gets a minimum of visits), so a
//! move's loss is never the difference of two independent noisy searches and the engine's own
//! preference is never a loss.

use super::board::{FastBoard, Idx, PASS};
use super::lib_game;
use super::mcts::TreeParams;
use super::patterns::Model;
use super::policy_net::PolicyNet;
use super::{Bot, BotConfig, SearchRequest};
use baduk_go::{Color, Game, Move};
use std::sync::Arc;
use std::time::Duration;

/// The prior weight of a review's searches when the policy network gives the priors (the bot
/// plays with 120; the patterns alone keep the tree's own): the network's first choice leads
/// the playouts for longer. Measured on the eight 9-dan program games the
/// network held out (docs/review.md): agreement with the played move 32.9% at 120, 36.9% at
/// 400, 36.3% at 1000.
pub const REVIEW_PRIOR_WEIGHT: f32 = 400.0;

/// What a review's searches get.
#[derive(Clone, Debug)]
pub struct ReviewConfig {
    /// Playouts a position (the kept subtree's visits come on top).
    pub playouts: u64,
    /// The longest one position may take (None: no cap).
    pub time: Option<Duration>,
    /// The share of `playouts` the played move gets at least (0..1).
    pub played_share: f32,
    /// Seed of the searches (one thread: the same review for the same seed and budget).
    pub seed: u64,
    /// Learned shape priors (None: the hand-written ones).
    pub model: Option<Arc<Model>>,
    /// The policy network for the priors near the root (19×19; None: none).
    pub net: Option<Arc<PolicyNet>>,
    /// Most nodes the tree may hold.
    pub max_nodes: usize,
    /// The prior weight in place of `params`' when `net` gives the priors.
    pub net_prior_weight: f32,
    /// The tree's parameters (the score term is set aside: win rates alone).
    pub params: TreeParams,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            playouts: 1000,
            time: None,
            played_share: 0.1,
            seed: 1,
            model: Some(Model::builtin()),
            net: None,
            max_nodes: super::DEFAULT_TREE_BYTES / super::mcts::NODE_BYTES,
            net_prior_weight: REVIEW_PRIOR_WEIGHT,
            params: TreeParams::default(),
        }
    }
}

/// The engine's opinion of one position and of the move played there.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionReview {
    /// The side to move.
    pub to_move: Color,
    /// Black's win rate: the root's value (all its playouts), Black's view.
    pub winrate: f32,
    /// Black's expected margin (after komi) over the search's playouts.
    pub score: f32,
    /// The standard deviation of Black's margin over those playouts (the score's band).
    pub score_sd: f32,
    /// Black's lead counted from ownership (area, after komi): a point its side owns in 80%
    /// of the playouts counts whole, any other its expected owner's share.
    pub owned_score: f32,
    /// The band of that lead: the standard deviation of the area if the points were owned
    /// independently (√Σ(1 − ownership²)).
    pub owned_sd: f32,
    /// Points neither side owns in at least 80% of the playouts (how unsettled the board is).
    pub unsettled: u32,
    /// The engine's preferred move (most visited).
    pub best: Move,
    /// Its principal variation, the preferred move first.
    pub pv: Vec<Move>,
    /// The move with the largest prior at the root (the policy network's first choice where
    /// it gave the priors).
    pub first_choice: Move,
    /// The preferred move's win rate for the side to move.
    pub best_winrate: f32,
    /// The move played here, if any (None: the record ends here).
    pub played: Option<Move>,
    /// The played move's win rate for the side to move, from the same tree.
    pub played_winrate: Option<f32>,
    /// The played move's visits.
    pub played_visits: u32,
    /// Win rate the side to move lost by its move against the preferred one (0 when it is
    /// the preferred move or no worse).
    pub loss: f32,
    /// Points the side to move lost by its move against the preferred one (same rule).
    pub points_lost: f32,
    /// Playouts of this search (the kept subtree's aside).
    pub playouts: u64,
    /// Visits the root brought from the previous position's tree (0: searched afresh).
    pub kept_visits: u64,
}

/// A review in progress: the bot whose tree goes from one position to the next.
pub struct Reviewer {
    config: ReviewConfig,
    bot: Bot,
    /// The position (moves from the start) the tree was last searched at.
    at: Option<usize>,
}

impl Reviewer {
    /// A reviewer with `config`.
    pub fn new(config: ReviewConfig) -> Reviewer {
        let mut bot = Bot::new(BotConfig {
            seed: config.seed,
            playouts: Some(config.playouts),
            move_time: None,
            reuse_tree: true,
            model: config.model.clone(),
            net: config.net.clone(),
            early_stop: false,
            extend: 0.0,
            max_nodes: config.max_nodes,
            params: config.params,
            ..BotConfig::default()
        });
        // Win rates alone (no score term when the game looks decided): a review's graph
        // means one thing from the first move to the last.
        bot.config.params.score_weight = 0.0;
        if config.net.is_some() {
            bot.config.params.prior_weight = config.net_prior_weight;
        }
        Reviewer {
            config,
            bot,
            at: None,
        }
    }

    /// Where the searches' move priors come from: `net` (the policy network near the root,
    /// the patterns below), `patterns` or `hand-written`.
    pub fn priors(&self) -> &'static str {
        match (&self.config.net, &self.config.model) {
            (Some(_), _) => "net",
            (None, Some(_)) => "patterns",
            (None, None) => "hand-written",
        }
    }

    /// The position this reviewer's tree was last searched at (moves from the start).
    pub fn at(&self) -> Option<usize> {
        self.at
    }

    /// Searches `game` (the position after `k` moves) and reads `played` (the record's next
    /// move, if any) in the same tree. A tree searched at `k − 1` is kept when `game` follows it.
    pub fn review(&mut self, game: &Game, k: usize, played: Option<Move>) -> PositionReview {
        let m = lib_game::mirror(game);
        let fb: FastBoard = m.board().clone();
        let to_move = game.to_move();
        let played_idx = played.map(|mv| match mv {
            Move::Play(p) => lib_game::idx_of(&fb, p),
            Move::Pass => PASS,
        });
        let min = ((self.config.playouts as f32 * self.config.played_share).round() as u32).max(1);
        let req = SearchRequest {
            root_moves: Some(lib_game::root_moves(game, &fb)),
            playouts: Some(self.config.playouts),
            time: self.config.time,
            force: played_idx.map(|i| (i, min)),
            ..SearchRequest::default()
        };
        let stats = self.bot.search(&m, &req);
        self.at = Some(k);
        let tree = self.bot.tree().expect("a search leaves a tree");
        let (root_wr, _) = tree.root_value().unwrap_or((0.5, 0.0));
        let (score, score_sd) = tree.margin_band().unwrap_or((0.0, 0.0));
        let playouts = tree.playouts;
        let kept_visits = (tree.root_visits() as u64).saturating_sub(playouts);
        let (mut owned, mut var, mut unsettled) = (0.0f32, 0.0f32, 0u32);
        for i in fb.points() {
            // (Ownership runs −1..1: owned in 80% of the playouts is 0.6.)
            let o = tree.ownership(i);
            let settled = o.abs() >= 0.6;
            owned += if settled { o.signum() } else { o };
            var += 1.0 - o * o;
            unsettled += u32::from(!settled);
        }
        let owned_score = owned - m.rules.komi;
        let owned_sd = var.sqrt();
        let black = |v: f32| if to_move == Color::Black { v } else { 1.0 - v };
        let best = stats.first();
        let best_mv = best.map_or(PASS, |s| s.mv);
        let played_stat = played_idx.and_then(|i| stats.iter().find(|s| s.mv == i));
        let (loss, points_lost) = match (best, played_stat) {
            (Some(b), Some(p)) if p.mv != b.mv => (
                (b.winrate - p.winrate).max(0.0),
                (b.score_mean - p.score_mean).max(0.0),
            ),
            _ => (0.0, 0.0),
        };
        let first = stats
            .iter()
            .filter(|s| s.mv != PASS)
            .max_by(|a, b| a.prior.total_cmp(&b.prior).then(b.mv.cmp(&a.mv)))
            .map_or(PASS, |s| s.mv);
        let mv = |i: Idx| lib_game::move_of(&fb, i);
        PositionReview {
            first_choice: mv(first),
            to_move,
            winrate: black(root_wr),
            score,
            score_sd,
            owned_score,
            owned_sd,
            unsettled,
            best: mv(best_mv),
            pv: best.map_or_else(Vec::new, |b| b.pv.iter().map(|&i| mv(i)).collect()),
            best_winrate: best.map_or(0.5, |b| b.winrate),
            played,
            played_winrate: played_stat.map(|p| p.winrate),
            played_visits: played_stat.map_or(0, |p| p.visits),
            loss,
            points_lost,
            playouts,
            kept_visits,
        }
    }
}
