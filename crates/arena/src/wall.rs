//! Wall Go matches between two bots: full games in pairs (the same seeded random placement
//! opening, sides swapped), played on a thread pool, with the same games for a seed whatever
//! the number of threads.

use crate::stats::{MatchStats, Played};
use baduk_rng::Rng;
use baduk_search::wall::{make_player, SpecError};
use baduk_wallgo::{Action, ActionList, Game, Outcome, Phase, Player, Variant};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt;
use std::time::Instant;

/// Actions after which a game that has not ended is an error (the rules end every game well
/// before: 84 walls and no endless passing).
pub const MAX_ACTIONS_PER_GAME: usize = 400;

/// A match: two bot specs, how many games, the seed, the variant.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Bot spec of the first player (`easy`, `expert:nodes=2000`, …).
    pub a: String,
    /// Bot spec of the second player.
    pub b: String,
    /// Number of games (pairs share an opening; an odd last game has no partner).
    pub games: usize,
    /// Match seed: every game's opening and bot seeds derive from it and the game index.
    pub seed: u64,
    /// The rules played.
    pub variant: Variant,
    /// Worker threads (0: rayon's default).
    pub threads: usize,
}

/// Why a match could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArenaError {
    /// A bot spec does not read.
    Spec(SpecError),
    /// A bot returned an illegal action or none (a bug in the bot).
    Bot(String),
    /// The thread pool could not start.
    Threads(String),
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::Spec(e) => write!(f, "{e}"),
            ArenaError::Bot(e) => write!(f, "{e}"),
            ArenaError::Threads(e) => write!(f, "thread pool: {e}"),
        }
    }
}

impl std::error::Error for ArenaError {}

impl From<SpecError> for ArenaError {
    fn from(e: SpecError) -> ArenaError {
        ArenaError::Spec(e)
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// Index in the match.
    pub index: usize,
    /// The side bot `a` played.
    pub a_side: Player,
    /// 1 if bot `a` won, 0.5 for a draw, 0 if it lost.
    pub a_points: f64,
    /// Bot `a`'s cells minus bot `b`'s.
    pub margin: i32,
    /// Turns played (placements not counted).
    pub length: usize,
    /// Bot actions timed (the opening placements are not the bots').
    pub bot_actions: usize,
    /// Milliseconds the bots spent choosing, in all.
    pub bot_ms: f64,
    /// The whole game as a record.
    pub game: Game,
}

/// The seed of game `index` of a match seeded `seed`.
pub fn game_seed(seed: u64, index: usize) -> u64 {
    Rng::new(seed).fork(index as u64).next_u64()
}

/// The four free placements of pair `pair`: uniformly random distinct empty cells.
pub fn opening(seed: u64, pair: usize, variant: Variant) -> Vec<Action> {
    let mut rng = Rng::new(seed).fork(0x4f50_454e_0000_0000 | pair as u64);
    let mut game = Game::new(variant);
    let mut list = ActionList::new();
    let mut out = Vec::new();
    while game.position().phase() == Phase::Placement {
        game.position().legal_actions(&mut list);
        let a = list[rng.below(list.len())];
        if game.play(a).is_err() {
            break;
        }
        out.push(a);
    }
    out
}

/// Plays game `index` of the match `cfg` to its end.
pub fn play_game(cfg: &MatchConfig, index: usize) -> Result<GameResult, ArenaError> {
    let a_side = if index & 1 == 0 { Player::A } else { Player::B };
    let seed = game_seed(cfg.seed, index);
    let mut bot_a = make_player(&cfg.a, Rng::new(seed).fork(1).next_u64())?;
    let mut bot_b = make_player(&cfg.b, Rng::new(seed).fork(2).next_u64())?;
    let mut game = Game::new(cfg.variant);
    for a in opening(cfg.seed, index / 2, cfg.variant) {
        game.play(a)
            .map_err(|e| ArenaError::Bot(format!("opening: {e}")))?;
    }
    let (mut bot_actions, mut bot_ms) = (0usize, 0.0f64);
    while !game.position().is_over() {
        if game.actions().len() > MAX_ACTIONS_PER_GAME {
            return Err(ArenaError::Bot(format!(
                "game {index} did not end after {MAX_ACTIONS_PER_GAME} actions"
            )));
        }
        let pos = *game.position();
        let bot = if pos.to_move() == a_side {
            &mut bot_a
        } else {
            &mut bot_b
        };
        let t = Instant::now();
        let action = bot.choose(&pos);
        bot_ms += t.elapsed().as_secs_f64() * 1000.0;
        bot_actions += 1;
        let action = action.ok_or_else(|| {
            ArenaError::Bot(format!("{} returned no action in game {index}", bot.name()))
        })?;
        game.play(action)
            .map_err(|e| ArenaError::Bot(format!("{} in game {index}: {e}", bot.name())))?;
    }
    let pos = game.position();
    let score = pos.score();
    let margin = score.of(a_side) as i32 - score.of(a_side.other()) as i32;
    let a_points = match pos.result() {
        Some(Outcome::Win(p)) if p == a_side => 1.0,
        Some(Outcome::Win(_)) => 0.0,
        _ => 0.5,
    };
    Ok(GameResult {
        index,
        a_side,
        a_points,
        margin,
        length: pos.turns_played() as usize,
        bot_actions,
        bot_ms,
        game,
    })
}

/// Plays every game of `cfg`; `progress` is called once per finished game (from any thread).
/// Results come back in game order.
pub fn run_match(
    cfg: &MatchConfig,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<GameResult>, ArenaError> {
    // Check both specs before starting any thread.
    make_player(&cfg.a, 0)?;
    make_player(&cfg.b, 0)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| ArenaError::Threads(e.to_string()))?;
    pool.install(|| {
        (0..cfg.games)
            .into_par_iter()
            .map(|i| {
                let r = play_game(cfg, i);
                progress();
                r
            })
            .collect()
    })
}

/// The summary of a match, as `--json` prints it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// Bot `a`'s spec.
    pub a: String,
    /// Bot `b`'s spec.
    pub b: String,
    /// The variant, in record form.
    pub variant: String,
    /// The match seed.
    pub seed: u64,
    /// The match statistics, `a`'s first seat being A.
    #[serde(flatten)]
    pub stats: MatchStats,
}

/// Summarises the results of a match.
pub fn summarise(cfg: &MatchConfig, results: &[GameResult]) -> Summary {
    let played: Vec<Played> = results
        .iter()
        .map(|r| Played {
            a_points: r.a_points,
            a_first: r.a_side == Player::A,
            margin: Some(r.margin as f64),
            length: r.length,
        })
        .collect();
    let actions: usize = results.iter().map(|r| r.bot_actions).sum();
    let ms: f64 = results.iter().map(|r| r.bot_ms).sum();
    Summary {
        a: cfg.a.clone(),
        b: cfg.b.clone(),
        variant: cfg.variant.to_string(),
        seed: cfg.seed,
        stats: MatchStats::of(&played, actions as u64, ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(a: &str, b: &str, games: usize, threads: usize) -> MatchConfig {
        MatchConfig {
            a: a.into(),
            b: b.into(),
            games,
            seed: 9,
            variant: Variant::default(),
            threads,
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_games_whatever_the_threads() {
        let one = run_match(&cfg("easy", "random", 6, 1), &|| {}).unwrap();
        let two = run_match(&cfg("easy", "random", 6, 2), &|| {}).unwrap();
        let records =
            |r: &[GameResult]| -> Vec<String> { r.iter().map(|g| g.game.to_record()).collect() };
        assert_eq!(records(&one), records(&two));
        let s1 = summarise(&cfg("easy", "random", 6, 1), &one);
        assert_eq!(s1.stats.games, 6);
        assert_eq!(s1.stats.a_wins + s1.stats.b_wins + s1.stats.draws, 6);
    }

    #[test]
    fn games_come_in_pairs_with_one_opening_and_the_sides_swapped() {
        let r = run_match(&cfg("random", "easy", 4, 2), &|| {}).unwrap();
        for pair in r.chunks(2) {
            assert_eq!(pair[0].a_side, Player::A);
            assert_eq!(pair[1].a_side, Player::B);
            assert_eq!(pair[0].game.actions()[..4], pair[1].game.actions()[..4]);
            for g in pair {
                assert!(g.game.position().is_over());
                // The record reads back to the same game.
                let back = Game::from_record(&g.game.to_record()).unwrap();
                assert_eq!(back.actions(), g.game.actions());
            }
        }
        assert_ne!(r[0].game.actions()[..4], r[2].game.actions()[..4]);
    }

    #[test]
    fn a_bad_spec_is_an_error_before_any_game() {
        assert!(matches!(
            run_match(&cfg("nobody", "easy", 2, 1), &|| {}),
            Err(ArenaError::Spec(_))
        ));
    }
}
