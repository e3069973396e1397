//! Swiss and McMahon pairing: one round at a time, by score (the McMahon score in a McMahon)
//! and then rating.
//!
//! Both share one engine. The players are ordered by score, then rating, then rank, then id.
//! The round is a perfect matching of that field (plus a bye vertex when the count is odd) under
//! the strictest of these constraint levels that the whole field can meet:
//!
//! 0. no rematch, colour balance kept within one, a bye only to a player without one;
//! 1. no rematch, a bye only to a player without one (colours may reach two);
//! 2. a bye only to a player without one (rematches allowed);
//! 3. anything.
//!
//! Within that level the bye is given first — to the lowest score group's lowest-ranked player
//! (then lowest-rated) for whom the rest still pairs — and then, top-down, each player is paired
//! with the first opponent that keeps the rest pairable, preferring the nearest score (so a
//! score group pairs within itself and only its leftover floats down to the next one), then a
//! colour-compatible opponent, then one not met before, then the nearest rating.
//!
//! The exact guarantees (the property tests check them by brute force):
//! - a rematch is paired only when no pairing of the field without one exists (with the byes
//!   of this round given to players without one);
//! - a player's colour balance (blacks minus whites over even games) leaves −1…1 only when no
//!   rematch-free pairing keeping every balance in −1…1 exists;
//! - when the highest player still unpaired is paired outside their score group, no opponent in
//!   their group could have been paired with them while the rest still paired at that level;
//! - a bye goes to a player who already had one only when every player has had one.

use crate::matching::pair_greedy;
use crate::standings::Standings;
use crate::{History, Pairing, Player, PlayerId, Rank, RoundPairings, TieBreak};
use baduk_rng::Rng;
use std::collections::HashSet;

/// A Swiss: score is points (1 a win, ½ a jigo, the bye's points a bye).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Swiss {
    /// Points for a bye (default 1).
    pub bye_points: f64,
    /// Komi of every game (all games are even).
    pub komi: f64,
    /// Seed for the colour of two players with equal colour balance.
    pub seed: u64,
}

impl Default for Swiss {
    fn default() -> Swiss {
        Swiss {
            bye_points: 1.0,
            komi: 6.5,
            seed: 0,
        }
    }
}

impl Swiss {
    /// `id`'s score after `history`.
    pub fn score(&self, id: PlayerId, history: &History) -> f64 {
        points(id, history, self.bye_points)
    }

    /// The next round's pairings for `players` (those taking part in it) after `history`.
    pub fn pair(&self, players: &[Player], history: &History) -> RoundPairings {
        let scores: Vec<f64> = players.iter().map(|p| self.score(p.id, history)).collect();
        pair_field(players, &scores, history, self.seed, |_, _| (0, self.komi))
    }

    /// The standings of `players` (everyone who played) after `history`: score, SOS, SOSOS,
    /// SODOS.
    pub fn standings(&self, players: &[Player], history: &History) -> Standings {
        Standings::compute(
            players,
            history,
            |_| 0.0,
            self.bye_points,
            "Score",
            &[
                TieBreak::Score,
                TieBreak::Sos,
                TieBreak::Sosos,
                TieBreak::Sodos,
            ],
        )
    }
}

/// How a McMahon gives handicap: by the difference in McMahon score.
///
/// The handicap is ⌊|MMS difference|⌋ − `reduction`, capped at `max`; 0 or less is an even game
/// (colours by balance, the event's komi); 1 is black without komi; 2 and more are stones. The
/// weaker player (lower MMS, then lower rating) takes black, and komi is 0.5 in every handicap
/// game. (The EGF results file records each game's handicap itself, `5-/b2`, whatever the
/// rule.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandicapRule {
    /// Subtracted from the MMS difference.
    pub reduction: i32,
    /// The largest handicap (at most 9).
    pub max: u8,
}

/// A McMahon as the EGF runs it.
///
/// The start McMahon score (MMS) is the rank's value on the 30k = 0 scale (1k = 29, 1d = 30),
/// raised to the floor's and lowered to the bar's: everyone at or above the bar starts equal,
/// everyone at or below the floor too. A win adds 1, a jigo ½, a bye [`McMahon::bye_points`]
/// (default ½, as the EGF results file's `0=`), an unplayed or missed round nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McMahon {
    /// The bar: players at or above it start at its score.
    pub bar: Rank,
    /// The floor: players at or below it start at its score.
    pub floor: Rank,
    /// Handicap by MMS difference, or `None` for even games only.
    pub handicap: Option<HandicapRule>,
    /// Komi of even games.
    pub komi: f64,
    /// MMS points for a bye (default ½).
    pub bye_points: f64,
    /// Seed for the colour of two players with equal colour balance.
    pub seed: u64,
}

impl McMahon {
    /// A McMahon with this bar and floor, no handicap, komi 6.5 and a bye worth ½.
    pub fn new(bar: Rank, floor: Rank) -> McMahon {
        McMahon {
            bar,
            floor,
            handicap: None,
            komi: 6.5,
            bye_points: 0.5,
            seed: 0,
        }
    }

    /// The McMahon score at the start for `rank`.
    pub fn start_score(&self, rank: Rank) -> f64 {
        rank.value()
            .clamp(self.floor.value(), self.bar.value().max(self.floor.value())) as f64
    }

    /// `player`'s McMahon score after `history`.
    pub fn score(&self, player: &Player, history: &History) -> f64 {
        self.start_score(player.rank) + points(player.id, history, self.bye_points)
    }

    /// Handicap and komi for two players with these McMahon scores (see [`HandicapRule`]).
    pub fn handicap(&self, mms_a: f64, mms_b: f64) -> (u8, f64) {
        match self.handicap {
            Some(rule) => {
                let h = (mms_a - mms_b).abs().floor() as i32 - rule.reduction;
                if h <= 0 {
                    (0, self.komi)
                } else {
                    (h.min(rule.max.min(9) as i32) as u8, 0.5)
                }
            }
            None => (0, self.komi),
        }
    }

    /// The next round's pairings for `players` (those taking part in it) after `history`.
    pub fn pair(&self, players: &[Player], history: &History) -> RoundPairings {
        let scores: Vec<f64> = players.iter().map(|p| self.score(p, history)).collect();
        pair_field(players, &scores, history, self.seed, |a, b| {
            self.handicap(a, b)
        })
    }

    /// The standings of `players` (everyone who played) after `history`: MMS, SOS, SOSOS,
    /// SODOS, each over McMahon scores.
    pub fn standings(&self, players: &[Player], history: &History) -> Standings {
        Standings::compute(
            players,
            history,
            |p| self.start_score(p.rank),
            self.bye_points,
            "MMS",
            &[
                TieBreak::Score,
                TieBreak::Sos,
                TieBreak::Sosos,
                TieBreak::Sodos,
            ],
        )
    }
}

/// `id`'s points from games and byes (no start score).
pub(crate) fn points(id: PlayerId, history: &History, bye_points: f64) -> f64 {
    let mut total = 0.0;
    for round in &history.rounds {
        if round.bye == Some(id) {
            total += bye_points;
        } else if let Some(g) = round.game_of(id) {
            total += g.points(id);
        }
    }
    total
}

/// The shared engine: pairs `players` with their `scores` (see the module's doc).
fn pair_field(
    players: &[Player],
    scores: &[f64],
    history: &History,
    seed: u64,
    handicap: impl Fn(f64, f64) -> (u8, f64),
) -> RoundPairings {
    let n = players.len();
    if n == 0 {
        return RoundPairings::default();
    }
    // Sorted: score, rating, rank down; id up.
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then(players[b].rating.total_cmp(&players[a].rating))
            .then(players[b].rank.cmp(&players[a].rank))
            .then(players[a].id.cmp(&players[b].id))
    });
    let ps: Vec<Player> = idx.iter().map(|&i| players[i]).collect();
    let sc: Vec<f64> = idx.iter().map(|&i| scores[i]).collect();
    let balance: Vec<i32> = ps.iter().map(|p| history.colour_balance(p.id)).collect();
    let had_bye: Vec<bool> = ps.iter().map(|p| history.byes(p.id) > 0).collect();
    let met_pairs: HashSet<(PlayerId, PlayerId)> = history
        .rounds
        .iter()
        .flat_map(|r| &r.games)
        .map(|g| (g.black.min(g.white), g.black.max(g.white)))
        .collect();
    let met = |i: usize, j: usize| {
        let (a, b) = (ps[i].id, ps[j].id);
        met_pairs.contains(&(a.min(b), a.max(b)))
    };
    let hc: Vec<Vec<(u8, f64)>> = (0..n)
        .map(|i| (0..n).map(|j| handicap(sc[i], sc[j])).collect())
        .collect();
    let colour_ok = |i: usize, j: usize| {
        hc[i][j].0 > 0 || balance[i] == 0 || balance[j] == 0 || balance[i] != balance[j]
    };
    let bye = if n % 2 == 1 { Some(n) } else { None };
    let total = n + bye.map_or(0, |_| 1);
    let edge = |level: usize, i: usize, j: usize| {
        let (i, j) = (i.min(j), i.max(j));
        if Some(j) == bye {
            return level >= 3 || !had_bye[i];
        }
        (level >= 2 || !met(i, j)) && (level >= 1 || colour_ok(i, j))
    };
    let mut order: Vec<usize> = bye.into_iter().collect();
    order.extend(0..n);
    let prefs = |v: usize| -> Vec<usize> {
        if Some(v) == bye {
            // Lowest score, then lowest rank, then lowest rating first.
            let mut c: Vec<usize> = (0..n).collect();
            c.sort_by(|&a, &b| {
                sc[a]
                    .total_cmp(&sc[b])
                    .then(ps[a].rank.cmp(&ps[b].rank))
                    .then(ps[a].rating.total_cmp(&ps[b].rating))
                    .then(ps[b].id.cmp(&ps[a].id))
            });
            return c;
        }
        let mut c: Vec<usize> = (0..n).filter(|&w| w != v).collect();
        c.sort_by(|&a, &b| {
            let key = |w: usize| {
                (
                    (sc[v] - sc[w]).abs(),
                    !colour_ok(v, w),
                    met(v, w),
                    (ps[v].rating - ps[w].rating).abs(),
                    w,
                )
            };
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0)
                .then(ka.1.cmp(&kb.1))
                .then(ka.2.cmp(&kb.2))
                .then(ka.3.total_cmp(&kb.3))
                .then(ka.4.cmp(&kb.4))
        });
        c
    };
    let (pairs, _level) = pair_greedy(total, 4, edge, &order, prefs);
    let mut rng = Rng::new(seed).fork(history.rounds.len() as u64);
    let mut out = RoundPairings::default();
    for (a, b) in pairs {
        if Some(a) == bye || Some(b) == bye {
            out.bye = Some(ps[a.min(b)].id);
            continue;
        }
        let (h, komi) = hc[a][b];
        let a_black = if h > 0 {
            // The weaker (lower score, then lower rating: later in the order) takes black.
            a > b
        } else if balance[a] != balance[b] {
            balance[a] < balance[b]
        } else {
            rng.below(2) == 0
        };
        let (black, white) = if a_black { (a, b) } else { (b, a) };
        out.pairings.push(Pairing {
            black: ps[black].id,
            white: ps[white].id,
            handicap: h,
            komi,
        });
    }
    out
}
