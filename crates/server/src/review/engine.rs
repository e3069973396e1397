//! The engine's review: every position of a record's main line searched once, on the bots'
//! pool (one search thread a position, waiting its turn with the seats' moves), under the
//! operator's budget (`--review-playouts`, `--review-seconds` a position, at most
//! `--review-threads` of the pool), each result stored as it arrives — a restarted server goes
//! on from the first position without one.
//!
//! A Go position's search reads the played move's value in the same tree as the best move's
//! (the played move gets a tenth of the playouts at least), so a move's loss is one search's
//! judgement, and the tree goes on to the next position (the played move's subtree): a review
//! keeps its tree between positions while it is one of the [`KEPT_TREES`] most recent.
//!
//! Fair: reviews wait in one queue and take one position each in turn (round robin), so a long
//! game does not hold the pool while a short one waits; the answer says where a review stands in
//! that queue. Go positions are searched by the Go bot (its win rate, score lead, preferred move
//! and principal variation); Wall Go positions by `expert`'s alpha-beta search (its value for A,
//! the secured areas and its best turn).

use crate::game::room::ActError;
use crate::state::limit::ClientKey;
use crate::state::AppState;
use baduk_go::{Move, Rules, SgfGame, Size};
use baduk_search::go::review::{ReviewConfig, Reviewer};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sqlx::Row;
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::config::{DEFAULT_PLAYOUTS, PER_CLIENT};

/// Nodes a Wall Go position gets (`expert`'s search; the time cap applies too).
pub const WALL_NODES: u64 = 20_000;

/// Reviews queued or running at once, from all clients; past this a request gets a 503.
pub const MAX_QUEUED: usize = 32;
/// Go reviews whose tree is kept for their next position; an older one starts its next
/// position afresh (the same figures, less work shared).
pub const KEPT_TREES: usize = 8;
/// The memory one kept review tree may hold (its nodes), so the kept trees hold at most
/// [`KEPT_TREES`] times this.
pub const REVIEW_TREE_BYTES: usize = 32 << 20;

/// A review nobody has looked at (page, poll or download) for this long stops after its
/// current position; looking at it again resumes it.
pub const UNWATCHED: Duration = Duration::from_secs(120);

/// The queue of reviews waiting for their next position, and the ones being searched now.
#[derive(Default)]
pub struct Engine {
    queue: Mutex<VecDeque<String>>,
    running: Mutex<HashSet<String>>,
    workers: Mutex<usize>,
    wake: tokio::sync::Notify,
    /// Who asked for each queued review (its client: the one that started it, or whose read
    /// resumed it), and when someone last looked at it.
    owners: Mutex<std::collections::HashMap<String, (ClientKey, Instant)>>,
    /// The Go reviews' kept trees, most recently used last.
    trees: Mutex<VecDeque<(String, Reviewer)>>,
    /// The operator's external analysis engine (`--analysis-engine`), made on first use.
    external: std::sync::OnceLock<Option<Arc<super::katago::KataGo>>>,
    /// Reviews whose external engine failed, with the reason (our own engine took over),
    /// the most recent [`FELL_BACK`].
    fell_back: Mutex<VecDeque<(String, String)>>,
}

/// A position whose search (with its wait for a thread) takes longer is logged.
const SLOW_STEP: Duration = Duration::from_secs(10);

/// Reviews whose external engine's failure is remembered (their status says why).
pub const FELL_BACK: usize = 256;

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

    /// Notes that someone looked at review `id` (it keeps running while looked at).
    pub fn watched(&self, id: &str) {
        if let Some(o) = self.owners.lock().expect("engine lock").get_mut(id) {
            o.1 = Instant::now();
        }
    }

    /// Queues review `id` (once), charged to `client` (who started it, or whose read resumes
    /// it), and makes sure the workers run; refused past [`MAX_QUEUED`] reviews in all or the
    /// operator's `reviews_per_client` (0: no cap) of one client.
    pub fn enqueue(
        self: &Arc<Self>,
        st: &AppState,
        id: &str,
        client: ClientKey,
    ) -> Result<(), ActError> {
        if self.place(id) == Place::Idle {
            let mut owners = self.owners.lock().expect("engine lock");
            if owners.len() >= MAX_QUEUED {
                return Err(ActError::busy(format!(
                    "the engine's queue is full ({MAX_QUEUED} reviews): try again later"
                ))
                .with_code("review.queue_full", json!({"max": MAX_QUEUED})));
            }
            let cap = st.limits.reviews_per_client;
            if cap > 0 {
                let mine = owners.values().filter(|(o, _)| *o == client).count();
                if mine >= cap {
                    return Err(ActError::too_many(format!(
                        "the engine reviews at most {cap} records of one client at once: \
                         wait until one is done"
                    ))
                    .with_code("review.per_client", json!({"max": cap})));
                }
            }
            owners.insert(id.to_string(), (client, Instant::now()));
            drop(owners);
            self.queue
                .lock()
                .expect("engine lock")
                .push_back(id.to_string());
        }
        let all = st.hub.bots.limits.threads.max(1);
        let want = match st.limits.review_threads {
            0 => all,
            n => n.min(all),
        };
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
        Ok(())
    }

    /// The external analysis engine's client, if the operator named one.
    fn external(&self, st: &AppState) -> Option<Arc<super::katago::KataGo>> {
        self.external
            .get_or_init(|| {
                st.limits
                    .analysis_engine
                    .as_ref()
                    .map(|e| Arc::new(super::katago::KataGo::new(e.argv.clone())))
            })
            .clone()
    }

    /// Why the external engine failed review `id`, if it did.
    fn fell_back(&self, id: &str) -> Option<String> {
        let f = self.fell_back.lock().expect("engine lock");
        f.iter().find(|(k, _)| k == id).map(|(_, why)| why.clone())
    }

    /// Which engine reviews `id`'s Go positions, and why not the operator's if it failed.
    fn source(&self, st: &AppState, id: &str) -> (&'static str, Option<String>) {
        match (&st.limits.analysis_engine, self.fell_back(id)) {
            (Some(_), None) => ("katago", None),
            (Some(_), Some(why)) => ("baduk", Some(why)),
            (None, _) => ("baduk", None),
        }
    }

    /// Whether review `id` was looked at recently enough to go on.
    fn still_watched(&self, id: &str) -> bool {
        self.owners
            .lock()
            .expect("engine lock")
            .get(id)
            .is_some_and(|(_, at)| at.elapsed() < UNWATCHED)
    }

    /// Review `id`'s kept tree, taken out of the cache.
    fn take_tree(&self, id: &str) -> Option<Reviewer> {
        let mut t = self.trees.lock().expect("engine lock");
        let i = t.iter().position(|(k, _)| k == id)?;
        t.remove(i).map(|(_, r)| r)
    }

    /// Keeps review `id`'s tree for its next position, dropping the oldest past [`KEPT_TREES`].
    fn keep_tree(&self, id: &str, r: Reviewer) {
        let mut t = self.trees.lock().expect("engine lock");
        t.push_back((id.to_string(), r));
        while t.len() > KEPT_TREES {
            t.pop_front();
        }
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
            let more = if self.still_watched(&id) {
                // A node of a review's tree (`id@node`) is one search; a review, its next
                // position.
                let done = match id.split_once('@') {
                    Some((review, node)) => super::node::step(&st, review, node).await,
                    None => step(&st, &self, &id).await,
                };
                match done {
                    Ok(more) => more,
                    Err(e) => {
                        tracing::warn!("review {id}: analysis stopped: {e}");
                        false
                    }
                }
            } else {
                tracing::info!("review {id}: nobody looks at it; paused");
                false
            };
            let mut q = self.queue.lock().expect("engine lock");
            self.running.lock().expect("engine lock").remove(&id);
            if more {
                q.push_back(id);
            } else {
                self.owners.lock().expect("engine lock").remove(&id);
                self.take_tree(&id);
            }
        }
    }
}

/// The rule set a record that names none is read under, by the review page's picker and the
/// engine alike.
const DEFAULT_REVIEW_RULES: &str = "japanese";

/// The rules a Go review is searched under and how many positions (from the start) it has:
/// the record's own rules if they accept it, else [`DEFAULT_REVIEW_RULES`] if they do, else the
/// first rule set that does, else the record's rules up to their first illegal move.
pub(super) fn go_plan(summary: &Value, g: &SgfGame) -> (Rules, usize) {
    let verdicts = summary["legality"].as_array().cloned().unwrap_or_default();
    let named = summary["info"]["rules"].as_str();
    let accepts = |v: &&Value, label: Option<&str>| {
        v["accepts"] == true && Some(v["rules"].as_str().unwrap_or("")) == label
    };
    let pick = verdicts
        .iter()
        .find(|v| accepts(v, named))
        .or_else(|| {
            verdicts
                .iter()
                .find(|v| accepts(v, Some(DEFAULT_REVIEW_RULES)))
        })
        .or_else(|| verdicts.iter().find(|v| v["accepts"] == true))
        .or_else(|| verdicts.iter().find(|v| v["rules"].as_str() == named))
        .or_else(|| verdicts.first());
    let label = pick
        .and_then(|v| v["rules"].as_str())
        .unwrap_or(DEFAULT_REVIEW_RULES);
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

/// What the engine's review of a record has to do: how many positions (from the start) and,
/// for Go, the rules it searches under (their label). Computed once, at upload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Positions to search.
    pub positions: usize,
    /// The rules' label (Go); None for Wall Go.
    pub rules: Option<String>,
}

/// The plan of a Wall Go review from its summary.
pub fn wall_plan(summary: &Value) -> Plan {
    Plan {
        positions: summary["positions"].as_array().map_or(0, Vec::len),
        rules: None,
    }
}

/// The plan of a Go record already read.
pub fn go_plan_of(summary: &Value, g: &SgfGame) -> Plan {
    let (rules, n) = go_plan(summary, g);
    Plan {
        positions: n,
        rules: Some(crate::game::go_room::rules_label(&rules)),
    }
}

/// The stored plan of review `id`, or (a review stored before plans were) the plan computed
/// once on the heavy pool, from the stored game (`game`, Go) or the summary, and stored.
pub async fn stored_plan(
    st: &AppState,
    id: &str,
    stored: Option<&str>,
    kind: &str,
    summary: &str,
    game: Option<&str>,
) -> Result<Plan, ActError> {
    if let Some(p) = stored.and_then(|t| serde_json::from_str::<Plan>(t).ok()) {
        return Ok(p);
    }
    let go = kind == "go";
    let (summary, game) = (summary.to_string(), game.unwrap_or_default().to_string());
    let p = crate::game::work::heavy()
        .run(move || {
            let summary: Value = serde_json::from_str(&summary).unwrap_or(Value::Null);
            match go.then(|| super::stored::from_json(&game)) {
                Some(Ok(g)) => go_plan_of(&summary, &g),
                Some(Err(_)) => Plan {
                    positions: 0,
                    rules: None,
                },
                None => wall_plan(&summary),
            }
        })
        .await?;
    let text = serde_json::to_string(&p).expect("a plan serialises");
    if let Err(e) = sqlx::query("UPDATE reviews SET plan = $1 WHERE id = $2")
        .bind(&text)
        .bind(id)
        .execute(st.hub.store.writer_pool())
        .await
    {
        tracing::warn!("review {id}: plan not stored: {e}");
    }
    Ok(p)
}

/// Searches the first position of review `id` without a stored result and stores it; whether
/// positions remain after it.
async fn step(st: &AppState, engine: &Engine, id: &str) -> Result<bool, String> {
    let store = &st.hub.store;
    let row = sqlx::query(
        "SELECT kind, record, game_index, summary, plan, game FROM reviews WHERE id = $1",
    )
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
    let summary: String = row.try_get("summary").map_err(|e| e.to_string())?;
    let stored: Option<String> = row.try_get("plan").map_err(|e| e.to_string())?;
    let game: Option<String> = row.try_get("game").map_err(|e| e.to_string())?;
    let game = super::stored::game(st, id, game, &kind, &record, index)
        .await
        .map_err(|e| e.message)?
        .unwrap_or_default();
    let done: HashSet<i64> =
        sqlx::query("SELECT position FROM review_analysis WHERE review_id = $1")
            .bind(id)
            .fetch_all(store.read_pool())
            .await
            .map_err(|e| e.to_string())?
            .iter()
            .filter_map(|r| r.try_get::<i64, _>("position").ok())
            .collect();
    let total = stored_plan(st, id, stored.as_deref(), &kind, &summary, Some(&game))
        .await
        .map_err(|e| e.message)?
        .positions;
    let Some(k) = (0..total).find(|k| !done.contains(&(*k as i64))) else {
        return Ok(false);
    };
    tracing::debug!("review {id}: position {k} of {total}");
    // The operator's external engine reviews Go positions in batches; once it fails a review,
    // our own engine takes over that review (its status says why).
    if let Some(ext) = engine.external(st).filter(|_| kind == "go") {
        if engine.fell_back(id).is_none() {
            let is_done = |t: usize| done.contains(&(t as i64));
            let ask = (game.as_str(), summary.as_str());
            match super::katago::review_batch(&ext, &st.limits, ask, k, total, &is_done).await {
                Ok(found) => {
                    for (t, v) in &found {
                        store_position(st, id, *t, v).await?;
                    }
                    return Ok(done.len() + found.len() < total);
                }
                Err(why) => {
                    let mut f = engine.fell_back.lock().expect("engine lock");
                    f.push_back((id.to_string(), why));
                    while f.len() > FELL_BACK {
                        f.pop_front();
                    }
                }
            }
        }
    }
    let asked = Instant::now();
    let permit = st.hub.bots.review_thread().await?;
    let waited = asked.elapsed();
    tracing::debug!("review {id}: position {k}: a thread after {waited:?}");
    let limits = st.limits.clone();
    let config = go_config(st, id);
    // The tree searched at the position before this one goes on; any other starts afresh.
    let kept = engine
        .take_tree(id)
        .filter(|r| k > 0 && r.at() == Some(k - 1));
    let (result, reviewer) = tokio::task::spawn_blocking(move || {
        let time = limits.review_time.unwrap_or(limits.bots.max_time);
        if kind == "go" {
            let summary: Value = serde_json::from_str(&summary).map_err(|e| e.to_string())?;
            let g = super::stored::from_json(&game).map_err(|e| e.message)?;
            let mut r = kept.unwrap_or_else(|| Reviewer::new(config(g.size)));
            let v = search_go(&g, &summary, k, &mut r)?;
            Ok::<_, String>((v, Some(r)))
        } else {
            Ok((search_wall(&record, k, time)?, None))
        }
    })
    .await
    .map_err(|e| format!("the search failed: {e}"))??;
    drop(permit);
    if asked.elapsed() > SLOW_STEP {
        tracing::warn!(
            "review {id}: position {k} took {:.1} s ({:.1} s waiting for a thread of the bots' pool)",
            asked.elapsed().as_secs_f64(),
            waited.as_secs_f64()
        );
    }
    tracing::debug!(
        "review {id}: position {k}: searched in {:?}",
        asked.elapsed()
    );
    if let Some(r) = reviewer.filter(|_| done.len() + 1 < total) {
        engine.keep_tree(id, r);
    }
    store_position(st, id, k, &result).await?;
    tracing::debug!("review {id}: position {k}: stored");
    Ok(done.len() + 1 < total)
}

/// The Go reviewer's settings for review `id` on a board of a given size: the operator's
/// budget (playouts, time), its patterns or the built-in ones (None would mean the
/// hand-written priors, and no network: what every server without `--go-model` reviewed with
/// until 2026-12-05) and, on 19×19 only, its network.
pub(super) fn go_config(st: &AppState, id: &str) -> impl FnOnce(Size) -> ReviewConfig + Send {
    let limits = st.limits.clone();
    let model = Some(
        st.hub
            .bots
            .go_model()
            .unwrap_or_else(baduk_search::go::patterns::Model::builtin),
    );
    let go_net = st.hub.bots.go_net();
    let seed = crate::game::room::seed_of(id);
    move |size: Size| ReviewConfig {
        playouts: limits
            .review_playouts
            .clamp(1, crate::game::bots::MAX_GO_PLAYOUTS),
        time: Some(limits.review_time.unwrap_or(limits.bots.max_time)),
        seed,
        model,
        net: (size.cols() == 19 && size.rows() == 19).then_some(go_net),
        max_nodes: REVIEW_TREE_BYTES / baduk_search::go::mcts::NODE_BYTES,
        ..ReviewConfig::default()
    }
}

/// Stores the result of review `id`'s position `k` (kept if one is there already).
async fn store_position(st: &AppState, id: &str, k: usize, result: &Value) -> Result<(), String> {
    sqlx::query(
        "INSERT INTO review_analysis (review_id, position, result) VALUES ($1, $2, $3) \
         ON CONFLICT (review_id, position) DO NOTHING",
    )
    .bind(id)
    .bind(k as i64)
    .bind(result.to_string())
    .execute(st.hub.store.writer_pool())
    .await
    .map_err(|e| e.to_string())?;
    Ok(())
}

/// A move as the review stores it: `D4`, or `pass`.
pub(super) fn mv_text(m: Move) -> String {
    match m {
        Move::Play(p) => p.to_string(),
        Move::Pass => "pass".into(),
    }
}

/// `x` rounded to the nearest `1 / per` (`per` 10: tenths) for the stored review, a negative
/// zero made zero (a lead of −0.04 is 0, not −0, which would read `B+-0`).
pub fn rounded(x: f64, per: f64) -> f64 {
    (x * per).round() / per + 0.0
}

/// The Go bot's opinion of the position after `k` moves and of the move played there, from
/// one search (`r`'s tree, kept from position `k − 1` when it was searched there): Black's win
/// rate and score lead with its band, the preferred move and its principal variation, and what
/// the played move lost against it (win rate and points, for the side that played it).
pub(super) fn search_go(
    g: &SgfGame,
    summary: &Value,
    k: usize,
    r: &mut Reviewer,
) -> Result<Value, String> {
    let (rules, _) = go_plan(summary, g);
    let game = g.replay(rules, Some(k)).map_err(|e| e.to_string())?;
    let played = g.moves.get(k).map(|m| m.mv);
    let v = r.review(&game, k, played);
    // As `rounded`, in f32 as the search gives them (a negative zero made zero).
    let round = |x: f32, per: f32| (x * per).round() / per + 0.0;
    Ok(json!({
        "position": k,
        "to_move": v.to_move.letter().to_string(),
        "winrate": round(v.winrate, 10_000.0),
        // Black's lead counted from ownership, with its band (one standard deviation), and
        // the playouts' mean margin with its spread.
        "score": round(v.owned_score, 10.0),
        "score_band": round(v.owned_sd, 10.0),
        "unsettled": v.unsettled,
        "playout_score": round(v.score, 10.0),
        "score_sd": round(v.score_sd, 10.0),
        "best": mv_text(v.best),
        "pv": v.pv.iter().take(12).map(|&m| mv_text(m)).collect::<Vec<_>>(),
        "best_winrate": round(v.best_winrate, 10_000.0),
        "played": played.map(mv_text),
        "played_winrate": v.played_winrate.map(|w| round(w, 10_000.0)),
        "played_visits": v.played_visits,
        "loss": round(v.loss, 10_000.0),
        "points_lost": round(v.points_lost, 10.0),
        "visits": v.playouts,
        "priors": r.priors(),
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
    let room = crate::game::wall_room::WallRoom::new(game.variant());
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

/// `POST /api/reviews/{id}/analysis` from `client`: queues the engine's review of `id` unless
/// it has begun (charged to the client's creations and its share of the queue); answers the
/// analysis as [`status`] gives it.
pub async fn start(
    st: &AppState,
    engine: &Arc<Engine>,
    id: &str,
    plan: &Plan,
    client: ClientKey,
) -> Result<Value, ActError> {
    let now = status(st, engine, id, plan, client).await?;
    if now["status"] == "none" {
        if let Err(r) = st.budgets.creates.check(&client) {
            return Err(r.to_error());
        }
        engine.enqueue(st, id, client)?;
    }
    status(st, engine, id, plan, client).await
}

/// The analysis as `GET /api/reviews/{id}` serves it to `client`: the stored positions in
/// order, how many there are to do (the review's plan), and where the review stands in the
/// queue.
pub async fn status(
    st: &AppState,
    engine: &Arc<Engine>,
    id: &str,
    plan: &Plan,
    client: ClientKey,
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
    let total = plan.positions;
    engine.watched(id);
    // A review left half done (a restart, or paused unwatched) goes on as soon as someone
    // looks at it, while the queue has room, charged to the reader as a new request is: past
    // the reader's `reviews_per_client` it stays `partial` (`paused` says why).
    let mut paused = None;
    if !positions.is_empty() && positions.len() < total && engine.place(id) == Place::Idle {
        if let Err(e) = engine.enqueue(st, id, client) {
            paused = Some(json!({"code": e.code, "error": e.message, "args": e.args}));
        }
    }
    let (state, queue) = match engine.place(id) {
        Place::Running => ("running", None),
        Place::Queued(i) => ("queued", Some(i)),
        Place::Idle if positions.len() >= total && total > 0 => ("done", None),
        Place::Idle if positions.is_empty() => ("none", None),
        Place::Idle => ("partial", None),
    };
    let (source, engine_error) = engine.source(st, id);
    let visits = st
        .limits
        .analysis_engine
        .as_ref()
        .map(|e| e.visits.unwrap_or(st.limits.review_playouts));
    Ok(json!({
        "status": state,
        "paused": paused,
        "engine_error": engine_error,
        "queue_position": queue,
        "done": positions.len(),
        "total": total,
        "rules": plan.rules,
        "budget": {"playouts": st.limits.review_playouts, "max_ms": st.limits.review_time.unwrap_or(st.limits.bots.max_time).as_millis() as u64, "wall_nodes": WALL_NODES, "engine": source, "visits": visits},
        "positions": positions,
    }))
}
