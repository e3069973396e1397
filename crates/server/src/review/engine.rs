//! The engine's review: every position of a record's main line searched once, on the bots'
//! pool (one search thread a position, waiting its turn with the seats' moves), under the
//! operator's budget (`--review-playouts`, and never longer than `--bot-max-time`), each result
//! stored as it arrives — a restarted server goes on from the first position without one.
//!
//! Fair: reviews wait in one queue and take one position each in turn (round robin), so a long
//! game does not hold the pool while a short one waits; the answer says where a review stands in
//! that queue. Go positions are searched by the Go bot (its win rate, score lead, preferred move
//! and principal variation); Wall Go positions by `expert`'s alpha-beta search (its value for A,
//! the secured areas and its best turn).

use crate::http::AppState;
use crate::room::ActError;
use baduk_go::{Color, Move, Rules, SgfGame};
use serde_json::{json, Value};
use sqlx::Row;
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Playouts a Go position gets by default (`baduk serve --review-playouts`).
pub const DEFAULT_PLAYOUTS: u64 = 1_000;
/// Nodes a Wall Go position gets (`expert`'s search; the time cap applies too).
pub const WALL_NODES: u64 = 20_000;

/// The queue of reviews waiting for their next position, and the ones being searched now.
#[derive(Default)]
pub struct Engine {
    queue: Mutex<VecDeque<String>>,
    running: Mutex<HashSet<String>>,
    workers: Mutex<usize>,
    wake: tokio::sync::Notify,
}

/// Where a review stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Not queued.
    Idle,
    /// Waiting: this many reviews go first.
    Queued(usize),
    /// A position of it is being searched now.
    Running,
}

impl Engine {
    /// Where review `id` stands.
    pub fn place(&self, id: &str) -> Place {
        if self.running.lock().expect("engine lock").contains(id) {
            return Place::Running;
        }
        match self
            .queue
            .lock()
            .expect("engine lock")
            .iter()
            .position(|q| q == id)
        {
            Some(i) => Place::Queued(i),
            None => Place::Idle,
        }
    }

    /// Queues review `id` (once) and makes sure the workers run.
    pub fn enqueue(self: &Arc<Self>, st: &AppState, id: &str) {
        if self.place(id) == Place::Idle {
            self.queue
                .lock()
                .expect("engine lock")
                .push_back(id.to_string());
        }
        let want = st.hub.bots.limits.threads.max(1);
        let mut n = self.workers.lock().expect("engine lock");
        while *n < want {
            *n += 1;
            let me = self.clone();
            let st = st.clone();
            tokio::spawn(async move { me.work(st).await });
        }
        drop(n);
        self.wake.notify_waiters();
        self.wake.notify_one();
    }

    async fn work(self: Arc<Self>, st: AppState) {
        loop {
            let next = {
                let mut q = self.queue.lock().expect("engine lock");
                let id = q.pop_front();
                if let Some(id) = &id {
                    self.running.lock().expect("engine lock").insert(id.clone());
                }
                id
            };
            let Some(id) = next else {
                self.wake.notified().await;
                continue;
            };
            let more = match step(&st, &id).await {
                Ok(more) => more,
                Err(e) => {
                    tracing::warn!("review {id}: analysis stopped: {e}");
                    false
                }
            };
            let mut q = self.queue.lock().expect("engine lock");
            self.running.lock().expect("engine lock").remove(&id);
            if more {
                q.push_back(id);
            }
        }
    }
}

/// The rules a Go review is searched under and how many positions (from the start) it has:
/// the record's own rules if they accept it, else the first rule set that does, else the
/// record's rules up to their first illegal move.
fn go_plan(summary: &Value, g: &SgfGame) -> (Rules, usize) {
    let verdicts = summary["legality"].as_array().cloned().unwrap_or_default();
    let named = summary["info"]["rules"].as_str();
    let pick = verdicts
        .iter()
        .find(|v| v["accepts"] == true && Some(v["rules"].as_str().unwrap_or("")) == named)
        .or_else(|| verdicts.iter().find(|v| v["accepts"] == true))
        .or_else(|| verdicts.iter().find(|v| v["rules"].as_str() == named))
        .or_else(|| verdicts.first());
    let label = pick.and_then(|v| v["rules"].as_str()).unwrap_or("japanese");
    let mut rules = Rules::parse(label).unwrap_or_default().with_size(g.size);
    if let Some(k) = g.komi {
        rules.komi = k;
    }
    // Positions 0 to the last one before an illegal move; a game over at the end (two passes)
    // has nothing left to search in its final position.
    match pick.and_then(|v| v["illegal"]["number"].as_u64()) {
        Some(n) => (rules, n as usize),
        None => {
            let over = g.replay(rules, None).is_ok_and(|game| game.end().is_some());
            (rules, g.moves.len() + usize::from(!over))
        }
    }
}

/// Positions a review has to search, and the rules (Go).
pub fn plan(kind: &str, summary: &Value, record: &str, index: usize) -> (usize, Option<String>) {
    if kind == "go" {
        match SgfGame::parse_game(record, index) {
            Ok(g) => {
                let (rules, n) = go_plan(summary, &g);
                (n, Some(crate::go_room::rules_label(&rules)))
            }
            Err(_) => (0, None),
        }
    } else {
        (summary["positions"].as_array().map_or(0, Vec::len), None)
    }
}

/// Searches the first position of review `id` without a stored result and stores it; whether
/// positions remain after it.
async fn step(st: &AppState, id: &str) -> Result<bool, String> {
    let store = &st.hub.store;
    let row = sqlx::query("SELECT kind, record, game_index, summary FROM reviews WHERE id = $1")
        .bind(id)
        .fetch_optional(store.read_pool())
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the review is gone")?;
    let kind: String = row.try_get("kind").map_err(|e| e.to_string())?;
    let record: String = row.try_get("record").map_err(|e| e.to_string())?;
    let index = row
        .try_get::<i64, _>("game_index")
        .map_err(|e| e.to_string())? as usize;
    let summary: Value = serde_json::from_str(
        &row.try_get::<String, _>("summary")
            .map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let done: HashSet<i64> =
        sqlx::query("SELECT position FROM review_analysis WHERE review_id = $1")
            .bind(id)
            .fetch_all(store.read_pool())
            .await
            .map_err(|e| e.to_string())?
            .iter()
            .filter_map(|r| r.try_get::<i64, _>("position").ok())
            .collect();
    let (total, _) = plan(&kind, &summary, &record, index);
    let Some(k) = (0..total).find(|k| !done.contains(&(*k as i64))) else {
        return Ok(false);
    };
    let permit = st.hub.bots.review_thread().await?;
    let limits = st.limits.clone();
    let model = st.hub.bots.go_model();
    let seed = crate::room::seed_of(id) ^ (k as u64).wrapping_mul(0x9E37_79B9);
    let result = tokio::task::spawn_blocking(move || {
        let time = limits.bots.max_time;
        if kind == "go" {
            let g = SgfGame::parse_game(&record, index).map_err(|e| e.to_string())?;
            search_go(&g, &summary, k, limits.review_playouts, time, seed, model)
        } else {
            search_wall(&record, k, time)
        }
    })
    .await
    .map_err(|e| format!("the search failed: {e}"))??;
    drop(permit);
    sqlx::query(
        "INSERT INTO review_analysis (review_id, position, result) VALUES ($1, $2, $3) \
         ON CONFLICT (review_id, position) DO NOTHING",
    )
    .bind(id)
    .bind(k as i64)
    .bind(result.to_string())
    .execute(store.writer_pool())
    .await
    .map_err(|e| e.to_string())?;
    Ok(done.len() + 1 < total)
}

fn mv_text(m: Move) -> String {
    match m {
        Move::Play(p) => p.to_string(),
        Move::Pass => "pass".into(),
    }
}

/// The Go bot's opinion of the position after `k` moves: Black's win rate and score lead, the
/// preferred move and its principal variation.
fn search_go(
    g: &SgfGame,
    summary: &Value,
    k: usize,
    playouts: u64,
    time: Duration,
    seed: u64,
    model: Option<Arc<baduk_search::go::patterns::Model>>,
) -> Result<Value, String> {
    use baduk_search::go::lib_game;
    let (rules, _) = go_plan(summary, g);
    let game = g.replay(rules, Some(k)).map_err(|e| e.to_string())?;
    let to_move = game.to_move();
    let m = lib_game::mirror(&game);
    let fb = m.board().clone();
    let mut cfg = baduk_search::go::BotConfig {
        seed,
        ..Default::default()
    };
    cfg.model = model;
    let mut bot = baduk_search::go::Bot::new(cfg);
    let req = baduk_search::go::SearchRequest {
        root_moves: Some(lib_game::root_moves(&game, &fb)),
        playouts: Some(playouts.clamp(1, crate::bots::MAX_GO_PLAYOUTS)),
        time: Some(time),
        ..Default::default()
    };
    let stats = bot.search(&m, &req);
    let best = stats.first().ok_or("the search found no move")?;
    let mine = |v: f64| if to_move == Color::Black { v } else { -v };
    let wr = if to_move == Color::Black {
        best.winrate as f64
    } else {
        1.0 - best.winrate as f64
    };
    Ok(json!({
        "position": k,
        "to_move": to_move.letter().to_string(),
        "winrate": (wr * 10_000.0).round() / 10_000.0,
        "score": (mine(best.score_mean as f64) * 10.0).round() / 10.0,
        "best": mv_text(lib_game::move_of(&fb, best.mv)),
        "pv": best.pv.iter().take(12).map(|&i| mv_text(lib_game::move_of(&fb, i))).collect::<Vec<_>>(),
        "visits": stats.iter().map(|s| s.visits as u64).sum::<u64>(),
    }))
}

/// `expert`'s opinion of the Wall Go position after `k` actions: its value for A (the
/// evaluation: secured areas and pieces' room), each side's secured area and its best turn.
fn search_wall(record: &str, k: usize, time: Duration) -> Result<Value, String> {
    use baduk_search::wall::{eval::Evaluator, search};
    let game = baduk_wallgo::Game::from_record(record).map_err(|e| e.to_string())?;
    let mut pos = baduk_wallgo::Position::new(game.variant());
    for &a in &game.actions()[..k.min(game.actions().len())] {
        pos.apply(a).map_err(|e| e.to_string())?;
    }
    let terr = baduk_search::wall::features::territory(&pos);
    let me = pos.to_move();
    let sign = if me == baduk_wallgo::Player::A { 1 } else { -1 };
    if pos.is_over() {
        let v = Evaluator::HandTerritory.value(&pos, baduk_wallgo::Player::A);
        return Ok(
            json!({"position": k, "to_move": null, "value": v, "area": {"A": terr[0], "B": terr[1]}, "best": null}),
        );
    }
    let cfg = search::SearchConfig {
        max_depth: 60,
        nodes: Some(WALL_NODES),
        ms: Some(time.as_millis() as u64),
        tt_bits: 16,
        safe_pruning: true,
        late_move_reductions: true,
    };
    let mut s = search::Searcher::new(cfg, Evaluator::HandTerritory);
    let (best, info) = s.search(&pos);
    let room = crate::wall_room::WallRoom::new(game.variant());
    Ok(json!({
        "position": k,
        "to_move": if me == baduk_wallgo::Player::A { "A" } else { "B" },
        "value": sign * info.score,
        "area": {"A": terr[0], "B": terr[1]},
        "best": best.map(|a| room.notation(a)),
        "depth": info.depth,
        "nodes": info.nodes,
    }))
}

/// The analysis as `GET /api/reviews/{id}` serves it: the stored positions in order, how many
/// there are to do, and where the review stands in the queue.
pub async fn status(
    st: &AppState,
    engine: &Arc<Engine>,
    id: &str,
    kind: &str,
    summary: &Value,
    record: &str,
    index: usize,
) -> Result<Value, ActError> {
    let rows = sqlx::query(
        "SELECT position, result FROM review_analysis WHERE review_id = $1 ORDER BY position",
    )
    .bind(id)
    .fetch_all(st.hub.store.read_pool())
    .await
    .map_err(|e| {
        tracing::error!("reviews: database: {e}");
        ActError::internal("the analysis could not be read")
    })?;
    let positions: Vec<Value> = rows
        .iter()
        .filter_map(|r| r.try_get::<String, _>("result").ok())
        .filter_map(|t| serde_json::from_str(&t).ok())
        .collect();
    let (total, rules) = plan(kind, summary, record, index);
    // A review left half done (a restart) goes on as soon as someone looks at it.
    if !positions.is_empty() && positions.len() < total && engine.place(id) == Place::Idle {
        engine.enqueue(st, id);
    }
    let (state, queue) = match engine.place(id) {
        Place::Running => ("running", None),
        Place::Queued(i) => ("queued", Some(i)),
        Place::Idle if positions.len() >= total && total > 0 => ("done", None),
        Place::Idle if positions.is_empty() => ("none", None),
        Place::Idle => ("partial", None),
    };
    Ok(json!({
        "status": state,
        "queue_position": queue,
        "done": positions.len(),
        "total": total,
        "rules": rules,
        "budget": {"playouts": st.limits.review_playouts, "max_ms": st.limits.bots.max_time.as_millis() as u64, "wall_nodes": WALL_NODES},
        "positions": positions,
    }))
}
