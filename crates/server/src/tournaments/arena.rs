//! An arena (lichess's): for `minutes` from its start, a player whose game ends is paired again
//! at once by the pairing core's [`Arena`], 2 points a win, doubled on a streak.
//!
//! The arena is never held in memory between sweeps: every sweep replays it from the stored
//! boards (everyone joined at the start, each finished game in the order its result became
//! known), so any process of a cluster, or one started later, pairs it as the first did. Its
//! boards all sit in round 1; the new ones are stored under their keys first (the claim), then
//! their games made.

use super::rounds::{boards_of, field, komi_of, outcome, pairing_player, seat};
use super::rows::{self, Board, Entrant, Tournament};
use crate::game::hub::now_ms;
use crate::game::room::{seed_of, ActError};
use crate::state::AppState;
use baduk_pairing::{Arena, Game, Pairing, PlayerId};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// When arena `t` stops pairing (ms).
pub fn ends_at(t: &Tournament) -> i64 {
    t.starts_at + t.minutes * 60_000
}

/// The arena as the stored boards leave it.
pub fn replay(t: &Tournament, entrants: &[Entrant], boards: &[Board]) -> Arena {
    let start = t.starts_at.max(0) as u64;
    let mut a = Arena::new(
        ends_at(t).max(0) as u64,
        komi_of(&t.settings),
        seed_of(&t.id),
    );
    for e in field(entrants, boards) {
        a.join(pairing_player(e), start);
    }
    let mut done: Vec<(&Board, i64)> = boards
        .iter()
        .filter_map(|b| Some((b, b.white?)))
        .filter(|(b, _)| outcome(b.result.as_deref()).is_some())
        .collect();
    done.sort_by_key(|(b, _)| (b.ended_at.unwrap_or(0), b.board));
    for (b, w) in done {
        let Some(o) = outcome(b.result.as_deref()) else {
            continue;
        };
        let game = Game {
            black: b.black as PlayerId,
            white: w as PlayerId,
            outcome: o,
            handicap: 0,
            komi: komi_of(&t.settings),
        };
        a.finish(game, b.ended_at.unwrap_or(t.starts_at).max(0) as u64);
    }
    a
}

/// Moves arena `t` on: the games the arena has in play that no board holds yet are stored and
/// made; after its end, once no game is open, it finishes.
pub async fn tick(st: &AppState, t: &Tournament) -> Result<(), ActError> {
    let store = &st.hub.store;
    let entrants = rows::entrants(store, &t.id).await?;
    let boards = rows::boards(store, &t.id).await?;
    let a = replay(t, &entrants, &boards);
    let open: HashSet<(i64, i64)> = boards
        .iter()
        .filter(|b| b.result.is_none())
        .filter_map(|b| Some((b.black, b.white?)))
        .collect();
    let mut new: Vec<Pairing> = Vec::new();
    for e in &entrants {
        if let Some(p) = a.game_of(e.seq as PlayerId) {
            let key = (p.black as i64, p.white as i64);
            if !open.contains(&key) && !new.iter().any(|n| n.black == p.black && n.white == p.white)
            {
                new.push(*p);
            }
        }
    }
    if new.is_empty() {
        if open.is_empty() && now_ms() >= ends_at(t) {
            rows::finish(store, &t.id, now_ms()).await?;
        }
        return Ok(());
    }
    let by_seq: HashMap<i64, &Entrant> = entrants.iter().map(|e| (e.seq, e)).collect();
    let first = boards.iter().map(|b| b.board).max().unwrap_or(0) + 1;
    let (paired, seats) = boards_of(1, first, &new, &by_seq, now_ms());
    if rows::insert_boards(store, &t.id, &paired).await? {
        seat(st, t, &paired, &seats).await?;
    }
    Ok(())
}

/// The arena's standings as the API shows them: `[{"place", "player", "name", "rank", "score",
/// "games", "streak", "on_fire", "results", "sos": null}]`.
pub fn standings_json(t: &Tournament, entrants: &[Entrant], boards: &[Board]) -> Value {
    let a = replay(t, entrants, boards);
    let names: HashMap<PlayerId, &str> = entrants
        .iter()
        .map(|e| (e.seq as PlayerId, e.name.as_str()))
        .collect();
    let rows: Vec<Value> = a
        .standings()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({"place": i + 1, "player": r.player.id, "name": names.get(&r.player.id),
                "rank": r.player.rank.to_string(), "score": r.points, "games": r.games,
                "streak": r.streak, "on_fire": r.on_fire(), "results": r.results,
                "sos": null, "sosos": null, "sodos": null})
        })
        .collect();
    json!(rows)
}

/// The arena's table as CSV: `place,name,rank,score,games,results`.
pub fn to_csv(t: &Tournament, entrants: &[Entrant], boards: &[Board]) -> String {
    let mut out = String::from("place,name,rank,score,games,results\n");
    let v = standings_json(t, entrants, boards);
    for r in v.as_array().into_iter().flatten() {
        let name = r["name"].as_str().unwrap_or("");
        let name = if name.contains([',', '"', '\n']) {
            format!("\"{}\"", name.replace('"', "\"\""))
        } else {
            name.to_string()
        };
        let results: Vec<String> = r["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| x.to_string())
            .collect();
        out += &format!(
            "{},{},{},{},{},{}\n",
            r["place"],
            name,
            r["rank"].as_str().unwrap_or(""),
            r["score"],
            r["games"],
            results.join(" ")
        );
    }
    out
}
