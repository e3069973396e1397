//! An arena as lichess runs it: a fixed duration, continuous pairing, points for wins and
//! streaks.
//!
//! A player who joins, or finishes a game, goes to the waiting pool and is paired at once with
//! the waiting player nearest in points, then in rating — never the opponent of their last
//! game while another player waits, nor while another is still playing (who will be free soon);
//! when the two are all that is left in play, they meet again. A win is worth
//! 2 points, a jigo 1, a loss or an unplayed game 0; after two wins in a row every further win
//! counts double (the player is "on fire") until a game that is not a win. Colours: the player
//! with fewer blacks over their arena games takes black, then the one who had white last, then
//! a seeded coin decides. No pairing
//! is made at or after the end; a game that finishes after it still counts.
//!
//! A stored arena is replayed without pairing: [`Arena::enter`], [`Arena::seat`] (a pairing
//! made before), [`Arena::end`] and [`Arena::leave`] in the order they happened, then
//! [`Arena::pair_waiting`] pairs whoever waits now.

use crate::{Game, Outcome, Pairing, Player, PlayerId};
use baduk_rng::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// One arena player's state.
#[derive(Clone, Debug, PartialEq)]
pub struct ArenaRow {
    /// The player.
    pub player: Player,
    /// Arena points.
    pub points: u32,
    /// Wins in a row now.
    pub streak: u32,
    /// Games finished.
    pub games: u32,
    /// Blacks minus whites.
    pub colour_balance: i32,
    /// The last game's opponent.
    pub last_opponent: Option<PlayerId>,
    /// Whether the last game was with black.
    pub last_black: Option<bool>,
    /// Each game's points, first first (a doubled win shows as 4).
    pub results: Vec<u32>,
}

impl ArenaRow {
    /// Whether the next win counts double.
    pub fn on_fire(&self) -> bool {
        self.streak >= 2
    }
}

/// A running arena.
#[derive(Clone, Debug)]
pub struct Arena {
    ends_at_ms: u64,
    komi: f64,
    rng: Rng,
    rows: BTreeMap<PlayerId, ArenaRow>,
    /// Waiting players in the order they arrived.
    pool: Vec<PlayerId>,
    /// Games being played.
    playing: Vec<Pairing>,
    /// Players who left: not pooled again until they join.
    away: BTreeSet<PlayerId>,
}

impl Arena {
    /// An arena that ends at `ends_at_ms`, its games with `komi`, colour coins from `seed`.
    pub fn new(ends_at_ms: u64, komi: f64, seed: u64) -> Arena {
        Arena {
            ends_at_ms,
            komi,
            rng: Rng::new(seed),
            rows: BTreeMap::new(),
            pool: Vec::new(),
            playing: Vec::new(),
            away: BTreeSet::new(),
        }
    }

    /// When it ends.
    pub fn ends_at_ms(&self) -> u64 {
        self.ends_at_ms
    }

    /// Adds `player` (or brings them back) to the pool at `now_ms`; the pairings made.
    pub fn join(&mut self, player: Player, now_ms: u64) -> Vec<Pairing> {
        if !self.enter(player) {
            return Vec::new();
        }
        self.pair_from_pool(&[player.id], now_ms)
    }

    /// Adds `player` (or brings them back) to the pool without pairing anyone (a replay of a
    /// stored arena: [`Arena::seat`] then gives them the games stored, [`Arena::pair_waiting`]
    /// the new ones). False when they were waiting or playing already.
    pub fn enter(&mut self, player: Player) -> bool {
        self.rows.entry(player.id).or_insert_with(|| ArenaRow {
            player,
            points: 0,
            streak: 0,
            games: 0,
            colour_balance: 0,
            last_opponent: None,
            last_black: None,
            results: Vec::new(),
        });
        self.away.remove(&player.id);
        if self.waiting(player.id) || self.game_of(player.id).is_some() {
            return false;
        }
        self.pool.push(player.id);
        true
    }

    /// Records a pairing made before (a stored board, replayed): its two players leave the pool
    /// and play it. False, and nothing changes, when either never entered.
    pub fn seat(&mut self, pairing: Pairing) -> bool {
        if !self.rows.contains_key(&pairing.black) || !self.rows.contains_key(&pairing.white) {
            return false;
        }
        self.pool
            .retain(|&p| p != pairing.black && p != pairing.white);
        self.playing.push(pairing);
        true
    }

    /// Pairs the waiting players at `now_ms`, each in the order they arrived with the nearest
    /// other waiting player, as [`Arena::join`] and [`Arena::finish`] would have; the pairings
    /// made.
    pub fn pair_waiting(&mut self, now_ms: u64) -> Vec<Pairing> {
        let arrivals = self.pool.clone();
        self.pair_from_pool(&arrivals, now_ms)
    }

    /// Takes `id` out of the pool until they join again (a pause or a withdrawal); a game in
    /// play still counts, and its end does not pool them.
    pub fn leave(&mut self, id: PlayerId) {
        self.pool.retain(|&p| p != id);
        self.away.insert(id);
    }

    /// Records a finished game at `now_ms` and returns the pairings made for its players. A
    /// game the arena is not playing is ignored.
    pub fn finish(&mut self, game: Game, now_ms: u64) -> Vec<Pairing> {
        if !self.end(game) {
            return Vec::new();
        }
        self.pair_from_pool(&[game.black, game.white], now_ms)
    }

    /// Records a finished game without pairing its players (a replay: they wait in the pool,
    /// unless they left). False, and nothing changes, for a game the arena is not playing.
    pub fn end(&mut self, game: Game) -> bool {
        let Some(at) = self
            .playing
            .iter()
            .position(|p| p.black == game.black && p.white == game.white)
        else {
            return false;
        };
        self.playing.swap_remove(at);
        for (id, opp) in [(game.black, game.white), (game.white, game.black)] {
            let row = self.rows.get_mut(&id).expect("a paired player has a row");
            let won = game.winner() == Some(id);
            let got = if won {
                let p = if row.on_fire() { 4 } else { 2 };
                row.streak += 1;
                p
            } else {
                row.streak = 0;
                if game.outcome == Outcome::Jigo {
                    1
                } else {
                    0
                }
            };
            row.points += got;
            row.results.push(got);
            row.games += 1;
            row.last_opponent = Some(opp);
            row.last_black = Some(id == game.black);
            row.colour_balance += if id == game.black { 1 } else { -1 };
        }
        for id in [game.black, game.white] {
            if !self.away.contains(&id) && !self.waiting(id) && self.game_of(id).is_none() {
                self.pool.push(id);
            }
        }
        true
    }

    /// Whether `id` waits in the pool for an opponent.
    pub fn waiting(&self, id: PlayerId) -> bool {
        self.pool.contains(&id)
    }

    /// `id`'s game in play.
    pub fn game_of(&self, id: PlayerId) -> Option<&Pairing> {
        self.playing.iter().find(|p| p.has(id))
    }

    /// `id`'s state.
    pub fn row(&self, id: PlayerId) -> Option<&ArenaRow> {
        self.rows.get(&id)
    }

    /// The standings: points, then rating, then id.
    pub fn standings(&self) -> Vec<&ArenaRow> {
        let mut rows: Vec<&ArenaRow> = self.rows.values().collect();
        rows.sort_by(|a, b| {
            b.points
                .cmp(&a.points)
                .then(b.player.rating.total_cmp(&a.player.rating))
                .then(a.player.id.cmp(&b.player.id))
        });
        rows
    }

    /// Pairs each of `arrivals` still waiting with the nearest waiting player.
    fn pair_from_pool(&mut self, arrivals: &[PlayerId], now_ms: u64) -> Vec<Pairing> {
        let mut made = Vec::new();
        if now_ms >= self.ends_at_ms {
            return made;
        }
        for &id in arrivals {
            if !self.waiting(id) {
                continue;
            }
            let me = &self.rows[&id];
            let distance = |q: &ArenaRow| {
                (
                    me.points.abs_diff(q.points),
                    (me.player.rating - q.player.rating).abs(),
                )
            };
            let others: Vec<&ArenaRow> = self
                .pool
                .iter()
                .filter(|&&q| q != id)
                .map(|q| &self.rows[q])
                .collect();
            let fresh: Vec<&ArenaRow> = others
                .iter()
                .copied()
                .filter(|q| me.last_opponent != Some(q.player.id) && q.last_opponent != Some(id))
                .collect();
            // The last opponent only when nobody else waits or plays.
            let candidates = if !fresh.is_empty() {
                fresh
            } else if self.playing.is_empty() {
                // Rather someone whose own last opponent was me than my last opponent.
                let not_mine: Vec<&ArenaRow> = others
                    .iter()
                    .copied()
                    .filter(|q| me.last_opponent != Some(q.player.id))
                    .collect();
                if not_mine.is_empty() {
                    others
                } else {
                    not_mine
                }
            } else {
                Vec::new()
            };
            let Some(best) = candidates.into_iter().min_by(|a, b| {
                let (da, db) = (distance(a), distance(b));
                da.0.cmp(&db.0)
                    .then(da.1.total_cmp(&db.1))
                    .then(a.player.id.cmp(&b.player.id))
            }) else {
                continue;
            };
            let other = best.player.id;
            let (mb, ob) = (me.colour_balance, best.colour_balance);
            let me_black = if mb != ob {
                mb < ob
            } else if me.last_black != best.last_black {
                // Whoever had white last (or has not played) takes black.
                me.last_black != Some(true)
            } else {
                self.rng.below(2) == 0
            };
            let (black, white) = if me_black { (id, other) } else { (other, id) };
            let pairing = Pairing {
                black,
                white,
                handicap: 0,
                komi: self.komi,
            };
            self.pool.retain(|&p| p != id && p != other);
            self.playing.push(pairing);
            made.push(pairing);
        }
        made
    }
}
