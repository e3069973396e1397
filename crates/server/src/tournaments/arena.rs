//! An arena (lichess's): for `minutes` from its start, a player whose game ends is paired again
//! at once by the pairing core's [`Arena`], 2 points a win, doubled on a streak.
//!
//! The arena is never held in memory between sweeps: every sweep replays it from what is
//! stored, in time order: each player joins at `max(joined_at, starts_at)`, each board is
//! seated when it was stored and ends when its result became known, and a player who
//! withdrew leaves at `left_at` (a game in play still counts; they are never paired again).
//! Whoever waits after that is paired, so any process of a cluster, or one started later,
//! pairs it as the first would have. Its boards all sit in round 1; the new ones are stored
//! under their keys first (the claim), then their games made.

use super::rounds::{boards_of, komi_of, off_runtime, outcome, pairing_player, people_of, seat};
use super::rows::{self, Board, Entrant, Tournament};
use crate::game::hub::now_ms;
use crate::game::room::{seed_of, ActError};
use crate::players::accounts::storage;
use crate::state::AppState;
use crate::store::{Store, StoreError};
use baduk_pairing::{Arena, Cell, Game, Person, PlayerId, Row, Standings, TieBreak};
use serde_json::{json, Value};
use sqlx::Row as _;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// When arena `t` stops pairing (ms).
pub fn ends_at(t: &Tournament) -> i64 {
    t.starts_at + t.minutes * 60_000
}

/// A board's game once its result is known (none for the bye).
fn game_of(b: &Board, komi: f64) -> Option<Game> {
    Some(Game {
        black: b.black as PlayerId,
        white: b.white? as PlayerId,
        outcome: outcome(b.result.as_deref())?,
        handicap: 0,
        komi,
    })
}

/// When a board's game ended: the game's stored end among `ends` (from [`game_ends`]), else
/// when its result was set (a board without a game).
pub fn end_of(b: &Board, ends: &HashMap<String, i64>) -> Option<i64> {
    let stored = b.game_id.as_ref().and_then(|g| ends.get(g).copied());
    stored.or(b.ended_at)
}

/// One stored happening of an arena, replayed in time order.
enum Step<'a> {
    /// A player enters the pool.
    Join(&'a Entrant),
    /// A stored board's game begins.
    Seat(&'a Board),
    /// A board's result became known.
    End(Game),
    /// A player withdrew.
    Leave(i64),
}

/// The arena as the stored players and boards leave it: who played what, who plays now, who
/// waits (nobody is paired by the replay itself: [`Arena::pair_waiting`] does that).
pub fn replay(t: &Tournament, entrants: &[Entrant], boards: &[Board]) -> Arena {
    let start = t.starts_at.max(0);
    let komi = komi_of(&t.settings);
    // A fresh coin for each batch of new boards, the same on every process.
    let seed = seed_of(&t.id) ^ (boards.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut a = Arena::new(ends_at(t).max(0) as u64, komi, seed);
    // (time, phase, board, order): joins, then boards (each seated before it ends; by number,
    // so a player's earlier game ends before the next is seated), then withdrawals.
    let mut steps: Vec<((i64, u8, i64, u8), Step)> = Vec::new();
    // Those in, and everyone who played (as `rounds::field`, once over the boards).
    let played: HashSet<i64> = boards
        .iter()
        .flat_map(|b| [Some(b.black), b.white])
        .flatten()
        .collect();
    let field = entrants
        .iter()
        .filter(|e| e.status == "in" || played.contains(&e.seq));
    for e in field {
        let joined = e.joined_at.max(start);
        steps.push(((joined, 0, 0, 0), Step::Join(e)));
        let left = e
            .left_at
            .or_else(|| (e.status != "in").then_some(e.joined_at));
        if let Some(l) = left {
            steps.push(((l.max(joined), 2, e.seq, 0), Step::Leave(e.seq)));
        }
    }
    for b in boards {
        if b.white.is_none() {
            continue;
        }
        steps.push(((b.created_at, 1, b.board, 0), Step::Seat(b)));
        if let Some(game) = game_of(b, komi) {
            let at = b.ended_at.unwrap_or(b.created_at).max(b.created_at);
            steps.push(((at, 1, b.board, 1), Step::End(game)));
        }
    }
    steps.sort_by_key(|(k, _)| *k);
    for (_, step) in steps {
        match step {
            Step::Join(e) => {
                a.enter(pairing_player(e));
            }
            Step::Seat(b) => {
                if let Some(w) = b.white {
                    a.seat(baduk_pairing::Pairing {
                        black: b.black as PlayerId,
                        white: w as PlayerId,
                        handicap: 0,
                        komi,
                    });
                }
            }
            Step::End(game) => {
                a.end(game);
            }
            Step::Leave(seq) => a.leave(seq as PlayerId),
        }
    }
    a
}

/// The stored end (ms) of each of `games` that finished: the time of its last action.
pub async fn game_ends(store: &Store, games: &[&str]) -> Result<HashMap<String, i64>, ActError> {
    let bad = |x: sqlx::Error| storage(StoreError::from(x));
    let mut out = HashMap::new();
    for chunk in games.chunks(500) {
        let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT id, updated_at FROM games WHERE status = 'finished' AND id IN ({})",
            marks.join(", ")
        );
        let mut q = sqlx::query(&sql);
        for g in chunk {
            q = q.bind(*g);
        }
        for r in q.fetch_all(&store.pool).await.map_err(bad)? {
            out.insert(r.try_get(0).map_err(bad)?, r.try_get(1).map_err(bad)?);
        }
    }
    Ok(out)
}

/// Each player's last board (by number) among `boards`.
fn last_boards(boards: &[Board]) -> HashMap<i64, &Board> {
    let mut last: HashMap<i64, &Board> = HashMap::new();
    for b in boards {
        for seq in [Some(b.black), b.white].into_iter().flatten() {
            if last.get(&seq).is_none_or(|l| l.board < b.board) {
                last.insert(seq, b);
            }
        }
    }
    last
}

/// Records, for each player of the `paired` boards just stored at `now`, the time from the
/// end of their previous game (the game's own stored end; a board without a game: when its
/// result was set) to now, in `baduk_tournament_pairing_latency_seconds`.
async fn observe_latency(
    st: &AppState,
    boards: &[Board],
    paired: &[Board],
    now: i64,
) -> Result<(), ActError> {
    let last = last_boards(boards);
    let before: Vec<&Board> = paired
        .iter()
        .flat_map(|b| [Some(b.black), b.white])
        .flatten()
        .filter_map(|seq| last.get(&seq).copied())
        .collect();
    let games: Vec<&str> = before.iter().filter_map(|b| b.game_id.as_deref()).collect();
    let ends = game_ends(&st.hub.store, &games).await?;
    for b in before {
        if let Some(end) = end_of(b, &ends) {
            let ms = (now - end).max(0) as u64;
            st.hub
                .metrics
                .tournament_pairing_latency
                .observe(Duration::from_millis(ms));
        }
    }
    Ok(())
}

/// Adds the time until it is dropped to `baduk_tournament_sweep_seconds_total`.
pub(super) struct SweepTimer<'a>(&'a AppState, std::time::Instant);

impl<'a> SweepTimer<'a> {
    /// Starts timing a pass of the sweep.
    pub(super) fn start(st: &'a AppState) -> SweepTimer<'a> {
        SweepTimer(st, std::time::Instant::now())
    }
}

impl Drop for SweepTimer<'_> {
    fn drop(&mut self) {
        let us = self.1.elapsed().as_micros() as u64;
        let m = &self.0.hub.metrics.tournament_sweep_us;
        m.fetch_add(us, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Counts the boards with two players just stored in `baduk_tournament_pairings_total`.
pub(super) fn count_pairings(st: &AppState, paired: &[Board]) {
    let made = paired.iter().filter(|b| b.white.is_some()).count() as u64;
    let m = &st.hub.metrics.tournament_pairings;
    m.fetch_add(made, Ordering::Relaxed);
}

/// Moves arena `t` on: whoever waits is paired, the boards stored and their games made; after
/// its end, once no game is open, it finishes.
pub async fn tick(st: &AppState, t: &Tournament) -> Result<(), ActError> {
    let store = &st.hub.store;
    let entrants = rows::entrants(store, &t.id).await?;
    let boards = rows::boards(store, &t.id).await?;
    let now = now_ms();
    let new = off_runtime(t, entrants.clone(), boards.clone(), move |t, e, b| {
        replay(t, e, b).pair_waiting(now.max(0) as u64)
    })
    .await?;
    if new.is_empty() {
        let open = boards
            .iter()
            .any(|b| b.white.is_some() && b.result.is_none());
        if !open && now >= ends_at(t) {
            rows::finish(store, &t.id, now).await?;
        }
        return Ok(());
    }
    let by_seq: HashMap<i64, &Entrant> = entrants.iter().map(|e| (e.seq, e)).collect();
    let first = boards.iter().map(|b| b.board).max().unwrap_or(0) + 1;
    let (paired, seats) = boards_of(1, first, &new, &by_seq, now);
    if !rows::insert_boards(store, &t.id, &paired).await? {
        return Ok(());
    }
    count_pairings(st, &paired);
    observe_latency(st, &boards, &paired, now_ms()).await?;
    // A player who withdrew since the read is not seated: that board is lost without a game,
    // as `boards_of` decides for one who had withdrawn before.
    let still: HashSet<i64> = rows::entrants(store, &t.id)
        .await?
        .iter()
        .filter(|e| e.status == "in")
        .map(|e| e.seq)
        .collect();
    let (mut play, mut players) = (Vec::new(), Vec::new());
    for (b, who) in paired.iter().zip(seats) {
        let (black, white) = (
            still.contains(&b.black),
            b.white.is_some_and(|w| still.contains(&w)),
        );
        if b.game_id.is_none() || (black && white) {
            play.push(b.clone());
            players.push(who);
            continue;
        }
        let result = match (black, white) {
            (true, _) => "black",
            (_, true) => "white",
            _ => "unplayed",
        };
        rows::set_result(
            store,
            &t.id,
            b.round,
            b.board,
            result,
            Some("withdrawn"),
            true,
        )
        .await?;
    }
    seat(st, t, &play, &players).await
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

/// The arena as an EGF results table: its standings with the points as the score, and each
/// player's games in the order played as the rounds (the k-th column is the player's k-th
/// game; `0-` where a player has fewer games).
pub fn egf_table(
    t: &Tournament,
    entrants: &[Entrant],
    boards: &[Board],
) -> (Standings, HashMap<PlayerId, Person>) {
    let a = replay(t, entrants, boards);
    let komi = komi_of(&t.settings);
    let mut cells: HashMap<PlayerId, Vec<Cell>> = HashMap::new();
    for game in boards.iter().filter_map(|b| game_of(b, komi)) {
        for id in [game.black, game.white] {
            let cell = if game.outcome == baduk_pairing::Outcome::Unplayed {
                Cell::Unplayed {
                    opponent: game.opponent(id),
                }
            } else {
                Cell::Game {
                    opponent: game.opponent(id),
                    points: game.points(id),
                    black: id == game.black,
                    handicap: 0,
                }
            };
            cells.entry(id).or_default().push(cell);
        }
    }
    let games = cells.values().map(Vec::len).max().unwrap_or(0);
    let rows = a
        .standings()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut c = cells.remove(&r.player.id).unwrap_or_default();
            c.resize(games, Cell::Absent);
            Row {
                place: i + 1,
                player: r.player,
                score: r.points as f64,
                sos: 0.0,
                sosos: 0.0,
                sodos: 0.0,
                cells: c,
            }
        })
        .collect();
    let s = Standings {
        rows,
        order: vec![TieBreak::Score],
        score_label: "Pts".into(),
    };
    (s, people_of(entrants))
}
