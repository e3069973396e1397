//! Ratings on the server: which rating a game counts for (`kind_of`, kept with the settings in
//! `store::types`), the bots' fixed ratings, and the Glicko-2 update of a rated game's players,
//! which the store runs inside the transaction that stores its result ([`RatingUpdate`]).

use crate::game::room::{Core, Room, Settings};
pub use crate::store::types::{kind_of, RatingChange, KINDS};
use crate::store::{InTransaction, Pending, RatingUpdate, StoreError};
use baduk_rating::{go_rank, Config, Game, Rating};
use serde_json::{json, Value};
use sqlx::Row;

/// The level of a Go bot seat from its options (`level=N`; 10 when not given).
fn level_of(options: Option<&str>) -> u32 {
    options
        .unwrap_or("")
        .split(',')
        .filter_map(|kv| kv.trim().strip_prefix("level="))
        .filter_map(|v| v.trim().parse().ok())
        .next()
        .unwrap_or(10)
}

/// The fixed rating of a bot for a kind (docs/api.md, "Ratings"): Go levels 1–10 measured by
/// arena matches against each other and GNU Go, Wall Go bots by their own arena; None for a bot
/// that plays no rated games (the test bots).
pub fn bot_rating(kind: &str, bot: &str, options: Option<&str>) -> Option<Rating> {
    let rating = match (kind, bot) {
        ("go19" | "go-small" | "go-corr", "baduk") => {
            // From docs/bot.md's level matches, anchored at GNU Go 3.8 level 10 = 1400 (7k);
            // docs/api.md, "Ratings", shows the arithmetic.
            const GO: [f64; 10] = [
                100.0, 310.0, 640.0, 960.0, 1450.0, 1500.0, 1550.0, 1600.0, 1780.0, 1950.0,
            ];
            let l = level_of(options).clamp(1, 10) as usize;
            let r = GO[l - 1];
            // Correspondence games are mostly 19×19: that pool takes 19×19's figures.
            if kind != "go-small" {
                r - 300.0
            } else {
                r
            }
        }
        // docs/bot.md, "The bots' ratings": each bot against the next, anchored at medium = 1500.
        ("wallgo", "random") => 630.0,
        ("wallgo", "easy") => 1275.0,
        ("wallgo", "medium") => 1500.0,
        ("wallgo", "expert") => 2145.0,
        ("wallgo", "sedol") => 2325.0,
        _ => return None,
    };
    Some(Rating {
        rating,
        deviation: 60.0,
        volatility: 0.06,
    })
}

/// The first option of a bot seat (in normal form, `key=value,…`) that a rated game may not
/// carry: every option but Go's `level` changes the bot's strength or when it resigns, and its
/// fixed rating holds only for the level's own settings (`time=1`, a seat's own second a move,
/// which the lobby's form names, is one of them).
pub fn unrated_option(options: Option<&str>) -> Option<&str> {
    options
        .unwrap_or("")
        .split(',')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k.trim(), v.trim())
        })
        .find(|&(k, v)| !k.is_empty() && k != "level" && !(k == "time" && v == SEAT_TIME))
        .map(|(k, _)| k)
}

/// A bot seat's own thinking time, in seconds, as the options' normal form writes it.
const SEAT_TIME: &str = "1";

/// The bots a seek may be offered, for a kind: (bot, options, rating).
pub fn bots_for(kind: &str) -> Vec<(&'static str, String, f64)> {
    if kind == "wallgo" {
        ["random", "easy", "medium", "expert", "sedol"]
            .iter()
            .filter_map(|b| bot_rating(kind, b, None).map(|r| (*b, String::new(), r.rating)))
            .collect()
    } else {
        (1..=10)
            .filter_map(|l| {
                let o = format!("level={l}");
                bot_rating(kind, "baduk", Some(&o)).map(|r| ("baduk", o, r.rating))
            })
            .collect()
    }
}

/// A rating as the API shows it: number, deviation, games, and a Go rank (`?` while the
/// deviation is above 110: provisional).
pub fn rating_json(kind: &str, r: &Rating, games: i64) -> Value {
    let rank = kind.starts_with("go").then(|| {
        let mut s = go_rank(r.rating);
        if r.deviation > 110.0 {
            s.push('?');
        }
        s
    });
    json!({"rating": r.rating.round(), "deviation": r.deviation.round(), "games": games, "rank": rank})
}

/// Who sits in a rated game's seat.
#[derive(Clone, Debug)]
pub enum RatedSeat {
    /// An account: its rating moves.
    Account(String),
    /// A bot with its fixed rating.
    Bot(Rating),
}

/// A rated game that just ended: what its players' ratings need.
#[derive(Clone, Debug)]
pub struct RatedEnd {
    /// The rating kind.
    pub kind: &'static str,
    /// Seat 0 (Black / A) and seat 1.
    pub seats: [RatedSeat; 2],
    /// Seat 0's score: 1 a win, 0.5 a draw, 0 a loss.
    pub score: f64,
    /// Handicap stones Black received (each counts as 100 rating points to Black).
    pub handicap: u32,
}

impl RatingChange {
    /// The API's view: `{"kind", "before", "after", "rank_before", "rank_after"}`.
    pub fn to_json(&self) -> Value {
        let rank = |r: f64| self.kind.starts_with("go").then(|| go_rank(r));
        json!({"kind": self.kind, "before": self.before.rating.round(), "after": self.after.rating.round(),
            "deviation": self.after.deviation.round(),
            "rank_before": rank(self.before.rating), "rank_after": rank(self.after.rating)})
    }
}

/// Moves each player must have played for a rated game to count (lichess's rule: a game
/// with fewer is aborted for ratings), so a resignation after one move moves no rating.
pub const MIN_RATED_MOVES: usize = 2;

/// Rated games between the same two accounts that count in 24 hours; later ones are played as
/// rated but move no rating, so two accounts cannot farm points from each other.
pub const RATED_PAIR_PER_DAY: i64 = 3;

/// What a finished rated room needs rating: None when it is not rated, not over, ended with
/// no result (cancelled, void, disputed), ended before each player made [`MIN_RATED_MOVES`]
/// moves, or has a bot with options beyond its level.
pub fn rated_end(room: &Room) -> Option<RatedEnd> {
    if !room.rated || !room.is_over() {
        return None;
    }
    if room.moves_by_seat().iter().any(|&n| n < MIN_RATED_MOVES) {
        return None;
    }
    let kind = kind_of(&room.settings)?;
    let names = room.seat_names();
    let result = match &room.core {
        Core::Go(g) => g.result_json(),
        Core::Wall(w) => w.result_json(),
    };
    let reason = result["reason"].as_str().unwrap_or("");
    if matches!(reason, "cancelled" | "disputed") {
        return None;
    }
    let score = match result["winner"].as_str() {
        Some(w) if w == names[0] => 1.0,
        Some(w) if w == names[1] => 0.0,
        Some(_) => return None,
        None if reason == "score" && result["text"] != "Void" => 0.5,
        None => return None,
    };
    let seat = |i: usize| -> Option<RatedSeat> {
        let s = &room.seats[i];
        match (&s.player, &s.spec.bot) {
            (Some(p), _) => Some(RatedSeat::Account(p.id.clone())),
            // A bot stored with options beyond its level (a game made before they were
            // refused) plays at a strength its rating does not measure: no rating moves.
            (None, Some(_)) if unrated_option(s.spec.options.as_deref()).is_some() => None,
            (None, Some(b)) => bot_rating(kind, b, s.spec.options.as_deref()).map(RatedSeat::Bot),
            _ => None,
        }
    };
    let handicap = match &room.settings {
        Settings::Go { handicap, .. } => *handicap,
        _ => 0,
    };
    Some(RatedEnd {
        kind,
        seats: [seat(0)?, seat(1)?],
        score,
        handicap,
    })
}

/// Periods of 30 days without a game each widen a rating's deviation (Glicko-2's step 6).
const IDLE_PERIOD_MS: i64 = 30 * 24 * 3_600_000;

/// Updates the players' ratings of a rated game inside the transaction that stores its result
/// (rows locked on PostgreSQL, in a fixed order); returns the changes.
pub(crate) async fn apply(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    postgres: bool,
    game_id: &str,
    end: &RatedEnd,
    now: i64,
) -> Result<Vec<RatingChange>, StoreError> {
    let cfg = Config::default();
    let mut before: [Option<(Rating, i64)>; 2] = [None, None];
    let mut order: Vec<(usize, &String)> = end
        .seats
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            RatedSeat::Account(a) => Some((i, a)),
            RatedSeat::Bot(_) => None,
        })
        .collect();
    order.sort_by(|a, b| a.1.cmp(b.1));
    // Guests are never rated (a guest seat of an old rated game, or one that slipped in).
    for (_, account) in &order {
        let guest: i64 = sqlx::query("SELECT guest FROM accounts WHERE id = $1")
            .bind(*account)
            .fetch_optional(&mut **tx)
            .await?
            .map_or(Ok(1), |r| r.try_get(0))?;
        if guest != 0 {
            return Ok(Vec::new());
        }
    }
    // The same two accounts: at most RATED_PAIR_PER_DAY games a day move their ratings.
    if let [(_, a), (_, b)] = order[..] {
        let since = now - 24 * 3_600_000;
        let n: i64 = sqlx::query(
            "SELECT COUNT(*) FROM rating_history x JOIN rating_history y \
             ON x.game_id = y.game_id AND x.kind = y.kind \
             WHERE x.account_id = $1 AND y.account_id = $2 AND x.kind = $3 AND x.at > $4",
        )
        .bind(a)
        .bind(b)
        .bind(end.kind)
        .bind(since)
        .fetch_one(&mut **tx)
        .await?
        .try_get(0)?;
        if n >= RATED_PAIR_PER_DAY {
            return Ok(Vec::new());
        }
    }
    let lock = if postgres { " FOR UPDATE" } else { "" };
    for (i, account) in &order {
        let d = Rating::default();
        sqlx::query(
            "INSERT INTO ratings (account_id, kind, rating, deviation, volatility, games, updated_at) \
             VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT (account_id, kind) DO NOTHING",
        )
        .bind(*account)
        .bind(end.kind)
        .bind(d.rating)
        .bind(d.deviation)
        .bind(d.volatility)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        let r = sqlx::query(&format!(
            "SELECT rating, deviation, volatility, games, updated_at FROM ratings \
             WHERE account_id = $1 AND kind = $2{lock}"
        ))
        .bind(*account)
        .bind(end.kind)
        .fetch_one(&mut **tx)
        .await?;
        let mut rating = Rating {
            rating: r.try_get(0)?,
            deviation: r.try_get(1)?,
            volatility: r.try_get(2)?,
        };
        let games: i64 = r.try_get(3)?;
        let updated: i64 = r.try_get(4)?;
        if games > 0 {
            let idle = ((now - updated) / IDLE_PERIOD_MS).clamp(0, 12);
            for _ in 0..idle {
                rating = rating.idle(&cfg);
            }
        }
        before[*i] = Some((rating, games));
    }
    let pre = |i: usize| -> Rating {
        match &end.seats[i] {
            RatedSeat::Bot(r) => *r,
            RatedSeat::Account(_) => before[i].map(|b| b.0).unwrap_or_default(),
        }
    };
    let shift = 100.0 * end.handicap as f64;
    let mut changes = Vec::new();
    for (i, account) in &order {
        let (me, games) = before[*i].expect("read above");
        let mut opponent = pre(1 - i);
        // A handicap makes Black's opponent look weaker to Black, and Black stronger to White.
        opponent.rating += if *i == 0 { -shift } else { shift };
        let score = if *i == 0 { end.score } else { 1.0 - end.score };
        let after = me.update(&[Game { opponent, score }], &cfg);
        sqlx::query(
            "UPDATE ratings SET rating = $1, deviation = $2, volatility = $3, games = $4, \
             updated_at = $5 WHERE account_id = $6 AND kind = $7",
        )
        .bind(after.rating)
        .bind(after.deviation)
        .bind(after.volatility)
        .bind(games + 1)
        .bind(now)
        .bind(*account)
        .bind(end.kind)
        .execute(&mut **tx)
        .await?;
        sqlx::query(
            "INSERT INTO rating_history (account_id, kind, game_id, at, rating_before, \
             deviation_before, rating, deviation) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(*account)
        .bind(end.kind)
        .bind(game_id)
        .bind(now)
        .bind(me.rating)
        .bind(me.deviation)
        .bind(after.rating)
        .bind(after.deviation)
        .execute(&mut **tx)
        .await?;
        changes.push(RatingChange {
            seat: *i,
            kind: end.kind.to_string(),
            before: me,
            after,
        });
    }
    changes.sort_by_key(|c| c.seat);
    Ok(changes)
}

impl RatingUpdate for RatedEnd {
    fn apply<'t>(&'t self, at: InTransaction<'t>) -> Pending<'t, Vec<RatingChange>> {
        Box::pin(apply(at.tx, at.postgres, at.game_id, self, at.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bot_offered_has_a_rating_and_levels_climb() {
        let go = bots_for("go-small");
        assert_eq!(go.len(), 10);
        assert!(go.windows(2).all(|w| w[0].2 < w[1].2));
        assert_eq!(bots_for("wallgo").len(), 5);
        assert!(bot_rating("go19", "panic", None).is_none());
    }

    #[test]
    fn a_rated_bot_keeps_its_level_and_its_own_second_a_move_only() {
        assert_eq!(unrated_option(None), None);
        assert_eq!(unrated_option(Some("level=3")), None);
        assert_eq!(unrated_option(Some("level=3,time=1")), None);
        assert_eq!(unrated_option(Some("level=3,time=0.05")), Some("time"));
        assert_eq!(unrated_option(Some("level=3,time=10")), Some("time"));
        assert_eq!(unrated_option(Some("level=3,resign=0.7")), Some("resign"));
        assert_eq!(unrated_option(Some("playouts=10")), Some("playouts"));
    }
}
