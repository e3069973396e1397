//! Ladders: one standing ladder per kind (`go9`, `go13`, `go19`, `wallgo`). A named account
//! joins at the bottom and challenges someone up to [`REACH`] places above; the game is made at
//! once (the challenger Black, the kind's default rules, [`GO_CLOCK`] or [`WALL_TURN_SECONDS`]);
//! the sweep records its result when it ends (the winner takes the higher place, the pairing
//! core's `Ladder::record`; a challenge that no longer holds then moves nobody) and drops a
//! player inactive for [`INACTIVITY_DAYS`] by one place. A player with an open game of a ladder
//! may not leave it. The order is stored as one row per kind written `WHERE version = n`
//! (migration 0022); a change goes to the lobby's sockets as `{"type": "ladder", …}`.
//! docs/api.md, "Ladders".

use super::refused;
use crate::game::hub::{now_ms, NewGame};
use crate::game::room::{ActError, SeatSpec, Settings};
use crate::game::settings::settings_of;
use crate::players::accounts::storage;
use crate::players::{player_of, Auth};
use crate::state::{parse_json, AppState};
use crate::store::{GameFlags, Store, StoreError};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use baduk_pairing::ladder::{Ladder, LadderError};
use serde_json::{json, Value};
use sqlx::Row;
use std::collections::HashMap;

/// The ladders' kinds.
pub const KINDS: [&str; 4] = ["go9", "go13", "go19", "wallgo"];
/// How many places above a player may challenge.
pub const REACH: usize = 3;
/// The days between two ladder games of the same two players.
pub const COOLDOWN_DAYS: u64 = 1;
/// The days without a ladder game after which a player drops one place.
pub const INACTIVITY_DAYS: u64 = 14;
/// The clock of a ladder's Go games.
pub const GO_CLOCK: &str = "byo-yomi:600:3:30";
/// The seconds a turn of a ladder's Wall Go games.
pub const WALL_TURN_SECONDS: u64 = 60;
const DAY_MS: u64 = 24 * 3_600_000;

fn e(x: sqlx::Error) -> ActError {
    storage(StoreError::from(x))
}

/// The ladders' routes (`/api/ladders…`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/ladders", get(list))
        .route("/api/ladders/{kind}", get(read))
        .route("/api/ladders/{kind}/join", post(join))
        .route("/api/ladders/{kind}/leave", post(leave))
        .route("/api/ladders/{kind}/challenge", post(challenge))
}

/// The games' settings of ladder `kind`.
fn settings(kind: &str) -> Result<Settings, ActError> {
    let v = match kind {
        "wallgo" => json!({"game": "wallgo", "turn_seconds": WALL_TURN_SECONDS}),
        k => {
            let size: u32 = k.trim_start_matches("go").parse().unwrap_or(19);
            json!({"game": "go", "size": size, "clock": GO_CLOCK})
        }
    };
    settings_of(&v)
}

/// The kind named in the path, or 404 `tournament.ladder_kind`.
fn kind_of(kind: &str) -> Result<&'static str, ActError> {
    KINDS.into_iter().find(|k| *k == kind).ok_or_else(|| {
        refused(
            404,
            "tournament.ladder_kind",
            format!("no such ladder: one of {}", KINDS.join(", ")),
            json!({"allowed": KINDS}),
        )
    })
}

/// A ladder as read from its row: the pairing core's ladder, the account id of each of its
/// players (`ids[p]` for player `p`) and the row's version.
struct Stored {
    ladder: Ladder,
    ids: Vec<String>,
    version: i64,
}

impl Stored {
    /// The player number of account `id`, added when new.
    fn player(&mut self, id: &str) -> u32 {
        match self.ids.iter().position(|x| x == id) {
            Some(p) => p as u32,
            None => {
                self.ids.push(id.to_string());
                (self.ids.len() - 1) as u32
            }
        }
    }

    /// The player number of account `id` if it has one.
    fn known(&self, id: &str) -> Option<u32> {
        self.ids.iter().position(|x| x == id).map(|p| p as u32)
    }

    /// The state as stored.
    fn state(&self) -> Value {
        let players: Vec<Value> = self
            .ladder
            .order()
            .iter()
            .map(|&p| {
                json!([
                    self.ids[p as usize],
                    self.ladder.active_since(p).unwrap_or(0)
                ])
            })
            .collect();
        let mut pairs = self.ladder.last_played();
        pairs.sort_unstable();
        let pairs: Vec<Value> = pairs
            .iter()
            .map(|&(a, b, at)| json!([self.ids[a as usize], self.ids[b as usize], at]))
            .collect();
        json!({"players": players, "pairs": pairs})
    }
}

/// Reads ladder `kind`.
async fn load(store: &Store, kind: &str) -> Result<Stored, ActError> {
    let row = sqlx::query("SELECT version, state FROM ladders WHERE kind = $1")
        .bind(kind)
        .fetch_one(&store.pool)
        .await
        .map_err(e)?;
    let version: i64 = row.try_get(0).map_err(e)?;
    let state: String = row.try_get(1).map_err(e)?;
    let v: Value = serde_json::from_str(&state).unwrap_or_default();
    let mut s = Stored {
        ladder: Ladder::new(REACH, COOLDOWN_DAYS * DAY_MS, INACTIVITY_DAYS * DAY_MS),
        ids: Vec::new(),
        version,
    };
    for p in v["players"].as_array().into_iter().flatten() {
        let id = s.player(p[0].as_str().unwrap_or_default());
        s.ladder.join(id, p[1].as_u64().unwrap_or(0));
    }
    for p in v["pairs"].as_array().into_iter().flatten() {
        let a = s.player(p[0].as_str().unwrap_or_default());
        let b = s.player(p[1].as_str().unwrap_or_default());
        s.ladder.set_last_played(a, b, p[2].as_u64().unwrap_or(0));
    }
    Ok(s)
}

/// Writes ladder `kind` if nobody changed it since it was read; false when someone did.
async fn save(store: &Store, kind: &str, s: &Stored) -> Result<bool, ActError> {
    let n = sqlx::query(
        "UPDATE ladders SET state = $1, version = version + 1 WHERE kind = $2 AND version = $3",
    )
    .bind(s.state().to_string())
    .bind(kind)
    .bind(s.version)
    .execute(&store.pool)
    .await
    .map_err(e)?
    .rows_affected();
    Ok(n == 1)
}

/// Applies `change` to ladder `kind` and stores it, again on a fresh read while another
/// process's write came first. `change` returns false to store nothing.
async fn update<T>(
    store: &Store,
    kind: &str,
    mut change: impl FnMut(&mut Stored) -> Result<(bool, T), ActError>,
) -> Result<T, ActError> {
    for _ in 0..20 {
        let mut s = load(store, kind).await?;
        let (write, out) = change(&mut s)?;
        if !write || save(store, kind, &s).await? {
            return Ok(out);
        }
    }
    Err(ActError::internal("the ladder changed too often to update"))
}

/// The signed-in named account, or 403 `tournament.ladder_guest`.
fn named(auth: &Auth) -> Result<crate::players::accounts::Account, ActError> {
    let who = auth.require()?;
    if who.account.guest || who.account.bot {
        return Err(refused(
            403,
            "tournament.ladder_guest",
            "ladders are for named accounts (sign up first)",
            Value::Null,
        ));
    }
    Ok(who.account.clone())
}

/// `GET /api/ladders`: `{"ladders": [{"kind", "players", "reach", "cooldown_days",
/// "inactivity_days"}]}`.
async fn list(State(st): State<AppState>) -> Result<Json<Value>, ActError> {
    let mut out = Vec::new();
    for kind in KINDS {
        let s = load(&st.hub.store, kind).await?;
        out.push(
            json!({"kind": kind, "players": s.ladder.order().len(), "reach": REACH,
            "cooldown_days": COOLDOWN_DAYS, "inactivity_days": INACTIVITY_DAYS}),
        );
    }
    Ok(Json(json!({"ladders": out})))
}

/// A ladder game as listed: (game, challenger, target, created_at).
type Listed = (String, String, String, i64);

/// The rows of a `SELECT game_id, challenger, target, created_at` on `ladder_games`.
fn listed(rows: &[sqlx::any::AnyRow]) -> Result<Vec<Listed>, ActError> {
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)))
        .collect::<Result<_, sqlx::Error>>()
        .map_err(e)
}

/// The open games of ladder `kind`: (game, challenger, target).
async fn open_games(store: &Store, kind: &str) -> Result<Vec<(String, String, String)>, ActError> {
    let rows = sqlx::query(
        "SELECT game_id, challenger, target, created_at FROM ladder_games \
         WHERE kind = $1 AND result IS NULL ORDER BY created_at, game_id",
    )
    .bind(kind)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    Ok(listed(&rows)?
        .into_iter()
        .map(|(g, c, t, _)| (g, c, t))
        .collect())
}

/// The open ladder games of every kind (a player has at most one).
async fn open_anywhere(store: &Store) -> Result<Vec<Listed>, ActError> {
    let rows = sqlx::query(
        "SELECT game_id, challenger, target, created_at FROM ladder_games \
         WHERE result IS NULL ORDER BY created_at, game_id",
    )
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    listed(&rows)
}

/// The recorded games of ladder `kind`, newest first (the last 1,000).
async fn recorded(store: &Store, kind: &str) -> Result<Vec<Listed>, ActError> {
    let rows = sqlx::query(
        "SELECT game_id, challenger, target, created_at FROM ladder_games \
         WHERE kind = $1 AND result IS NOT NULL ORDER BY created_at DESC, game_id DESC LIMIT 1000",
    )
    .bind(kind)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    listed(&rows)
}

/// Account ids read in one query at most, so a statement stays under every database's limit
/// on bound values.
const PEOPLE_CHUNK: usize = 500;

/// The name and the (rating, deviation) in `rating_kind` of each account of `ids` (unrated:
/// 1500 and 350; a vanished account is left out): one query per [`PEOPLE_CHUNK`] ids, not two
/// per player, since a ladder's page lists everyone on it.
async fn people(
    store: &Store,
    ids: &[&str],
    rating_kind: &str,
) -> Result<HashMap<String, (String, f64, f64)>, ActError> {
    let mut out = HashMap::new();
    for chunk in ids.chunks(PEOPLE_CHUNK) {
        let marks: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT a.id, a.name, r.rating, r.deviation FROM accounts a \
             LEFT JOIN ratings r ON r.account_id = a.id AND r.kind = $1 WHERE a.id IN ({})",
            marks.join(", ")
        );
        let mut q = sqlx::query(&sql).bind(rating_kind);
        for id in chunk {
            q = q.bind(*id);
        }
        for r in q.fetch_all(&store.pool).await.map_err(e)? {
            let id: String = r.try_get(0).map_err(e)?;
            let name: String = r.try_get(1).map_err(e)?;
            let rating: Option<f64> = r.try_get(2).map_err(e)?;
            let deviation: Option<f64> = r.try_get(3).map_err(e)?;
            out.insert(
                id,
                (name, rating.unwrap_or(1500.0), deviation.unwrap_or(350.0)),
            );
        }
    }
    Ok(out)
}

/// Ladder `kind` as `GET /api/ladders/{kind}` shows it; with `viewer` (an account id) also
/// `"you"`: its place, its open ladder game and its cooldowns.
async fn to_json(store: &Store, kind: &str, viewer: Option<&str>) -> Result<Value, ActError> {
    let s = load(store, kind).await?;
    let rating_kind = crate::game::ratings::kind_of(&settings(kind)?).unwrap_or(kind);
    let open = open_anywhere(store).await?;
    let playing = |id: &str| {
        open.iter()
            .find(|(_, c, t, _)| c == id || t == id)
            .map(|(g, ..)| g.clone())
    };
    let last = recorded(store, kind).await?;
    let here = open_games(store, kind).await?;
    // Everyone this page names: the ladder's players and those of its games.
    let mut ids: Vec<&str> = s.ids.iter().map(String::as_str).collect();
    ids.extend(
        last.iter()
            .flat_map(|(_, c, t, _)| [c.as_str(), t.as_str()]),
    );
    ids.extend(here.iter().flat_map(|(_, c, t)| [c.as_str(), t.as_str()]));
    ids.sort_unstable();
    ids.dedup();
    let known = people(store, &ids, rating_kind).await?;
    let name = |id: &str| known.get(id).map(|k| k.0.clone()).unwrap_or_default();
    let mut players = Vec::new();
    for (place, &p) in s.ladder.order().iter().enumerate() {
        let id = &s.ids[p as usize];
        let (rating, deviation) = known.get(id).map_or((1500.0, 350.0), |k| (k.1, k.2));
        let last_game = match last.iter().find(|(_, c, t, _)| c == id || t == id) {
            Some((g, c, t, at)) => {
                let other = if c == id { t } else { c };
                json!({"game": g, "opponent": name(other), "at": at})
            }
            None => Value::Null,
        };
        players.push(json!({"place": place + 1, "name": name(id),
            "rating": rating.round(), "provisional": deviation > 110.0,
            "active_since": s.ladder.active_since(p), "last_game": last_game,
            "playing": playing(id)}));
    }
    let listed_here: Vec<Value> = here
        .iter()
        .map(|(game, c, t)| json!({"game": game, "challenger": name(c), "opponent": name(t)}))
        .collect();
    let mut v = json!({"kind": kind, "reach": REACH, "cooldown_days": COOLDOWN_DAYS,
        "inactivity_days": INACTIVITY_DAYS, "players": players, "challenges": listed_here});
    if let Some(me) = viewer {
        let now = now_ms().max(0) as u64;
        let mut cooldowns = serde_json::Map::new();
        if let Some(p) = s.known(me) {
            for (a, b, at) in s.ladder.last_played() {
                let until = at.saturating_add(COOLDOWN_DAYS * DAY_MS);
                if (a == p || b == p) && until > now {
                    let other = if a == p { b } else { a };
                    cooldowns.insert(name(&s.ids[other as usize]), json!(until));
                }
            }
        }
        let place = s
            .known(me)
            .and_then(|p| s.ladder.position(p))
            .map(|x| x + 1);
        v["you"] = json!({"place": place, "playing": playing(me), "cooldowns": cooldowns});
    }
    Ok(v)
}

/// `GET /api/ladders/{kind}`: the order, top first, and the open challenges (signed in: also
/// the asker's own place, game and cooldowns).
async fn read(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(kind): Path<String>,
) -> Result<Json<Value>, ActError> {
    let kind = kind_of(&kind)?;
    let viewer = auth.who.as_ref().map(|w| w.account.id.clone());
    Ok(Json(to_json(&st.hub.store, kind, viewer.as_deref()).await?))
}

/// `POST /api/ladders/{kind}/join`: at the bottom (already on: no change).
async fn join(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(kind): Path<String>,
) -> Result<Json<Value>, ActError> {
    let kind = kind_of(&kind)?;
    let who = named(&auth)?;
    let now = now_ms().max(0) as u64;
    update(&st.hub.store, kind, |s| {
        let p = s.player(&who.id);
        let new = s.ladder.position(p).is_none();
        s.ladder.join(p, now);
        Ok((new, ()))
    })
    .await?;
    Ok(Json(to_json(&st.hub.store, kind, Some(&who.id)).await?))
}

/// `POST /api/ladders/{kind}/leave`: those below move up one. Refused with 409
/// `tournament.ladder_busy` (`{"game"}`) while the player has an open game of this ladder: it is
/// played out (or resigned) first.
async fn leave(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(kind): Path<String>,
) -> Result<Json<Value>, ActError> {
    let kind = kind_of(&kind)?;
    let who = named(&auth)?;
    let open = open_games(&st.hub.store, kind).await?;
    if let Some((game, ..)) = open.iter().find(|(_, c, t)| *c == who.id || *t == who.id) {
        return Err(refused(
            409,
            "tournament.ladder_busy",
            "you have an open game on this ladder: finish or resign it first",
            json!({"game": game}),
        ));
    }
    update(&st.hub.store, kind, |s| {
        let on = s.known(&who.id).and_then(|p| s.ladder.position(p));
        let Some(place) = on else {
            return Err(not_on());
        };
        let p = s.ladder.order()[place];
        s.ladder.leave(p);
        Ok((true, ()))
    })
    .await?;
    Ok(Json(to_json(&st.hub.store, kind, Some(&who.id)).await?))
}

/// 409 `tournament.ladder_not_on`.
fn not_on() -> ActError {
    refused(
        409,
        "tournament.ladder_not_on",
        "a player is not on this ladder",
        Value::Null,
    )
}

/// A refused challenge with its code.
fn challenge_refused(x: LadderError) -> ActError {
    let (code, args) = match x {
        LadderError::NotOnLadder(_) => return not_on(),
        LadderError::SamePlayer => ("tournament.ladder_self", Value::Null),
        LadderError::NotAbove => ("tournament.ladder_not_above", Value::Null),
        LadderError::TooFar => ("tournament.ladder_reach", json!({"reach": REACH})),
        LadderError::Cooldown { until_ms } => {
            ("tournament.ladder_cooldown", json!({"until": until_ms}))
        }
    };
    refused(409, code, x.to_string(), args)
}

/// `POST /api/ladders/{kind}/challenge {"opponent"}`: makes the game between the two at once,
/// the challenger Black; `201 {"game"}`.
async fn challenge(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(kind): Path<String>,
    body: Bytes,
) -> Result<Response, ActError> {
    let kind = kind_of(&kind)?;
    let who = named(&auth)?;
    let body: Value = parse_json(&body)?;
    let name = body["opponent"].as_str().unwrap_or_default();
    let store = &st.hub.store;
    let missing = || {
        refused(
            404,
            "tournament.ladder_opponent",
            "opponent: the name of a player on this ladder",
            Value::Null,
        )
    };
    let key = crate::players::name_key(name).map_err(|_| missing())?;
    let (them, _) = store
        .account_by_key(&key)
        .await
        .map_err(storage)?
        .ok_or_else(missing)?;
    let now = now_ms().max(0) as u64;
    let game = crate::game::hub::new_id();
    let mut s = load(store, kind).await?;
    let (c, t) = (s.player(&who.id), s.player(&them.id));
    s.ladder
        .can_challenge(c, t, now)
        .map_err(challenge_refused)?;
    // Claimed first, then checked: of two games claimed at once for the same player, the
    // earlier (by time, then id) stays and the later backs out.
    sqlx::query(
        "INSERT INTO ladder_games (game_id, kind, challenger, target, created_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&game)
    .bind(kind)
    .bind(&who.id)
    .bind(&them.id)
    .bind(now as i64)
    .execute(&store.pool)
    .await
    .map_err(e)?;
    let first: Option<String> = sqlx::query_scalar(
        "SELECT game_id FROM ladder_games WHERE result IS NULL \
         AND (challenger IN ($1, $2) OR target IN ($3, $4)) ORDER BY created_at, game_id",
    )
    .bind(&who.id)
    .bind(&them.id)
    .bind(&who.id)
    .bind(&them.id)
    .fetch_optional(&store.pool)
    .await
    .map_err(e)?;
    let busy = first.as_deref() != Some(game.as_str());
    if busy {
        drop_claim(store, &game).await?;
        return Err(refused(
            409,
            "tournament.ladder_busy",
            "one of you already has an open ladder game",
            Value::Null,
        ));
    }
    let settings = settings(kind)?;
    let rating_kind = crate::game::ratings::kind_of(&settings);
    let human = || SeatSpec {
        kind: "human".into(),
        bot: None,
        options: None,
    };
    let made = st
        .hub
        .create_joined(NewGame {
            settings,
            seats: [human(), human()],
            client: None,
            players: [
                Some(player_of(store, &who, rating_kind).await?),
                Some(player_of(store, &them, rating_kind).await?),
            ],
            flags: GameFlags {
                rated: true,
                listed: true,
            },
            id: Some(game.clone()),
        })
        .await;
    if let Err(x) = made {
        drop_claim(store, &game).await?;
        return Err(x);
    }
    Ok((StatusCode::CREATED, Json(json!({"game": game}))).into_response())
}

/// Takes back the claim of a game that was not made.
async fn drop_claim(store: &Store, game: &str) -> Result<(), ActError> {
    sqlx::query("DELETE FROM ladder_games WHERE game_id = $1")
        .bind(game)
        .execute(&store.pool)
        .await
        .map_err(e)?;
    Ok(())
}

/// Records the ladder games that ended and applies the inactivity drops; every process runs
/// it each second (a game's result is claimed by one process, a change written by version).
pub async fn sweep(st: &AppState) -> Result<(), ActError> {
    let store = &st.hub.store;
    for kind in KINDS {
        for (game, c, t) in open_games(store, kind).await? {
            let Some((status, _, winner, _)) = super::rows::game_outcome(store, &game).await?
            else {
                continue;
            };
            if status != "finished" {
                continue;
            }
            let seats = match kind {
                "wallgo" => crate::game::wall_room::SEATS,
                _ => crate::game::go_room::SEATS,
            };
            let won = match winner.as_deref() {
                Some(w) if w == seats[0] => Some(c.clone()),
                Some(w) if w == seats[1] => Some(t.clone()),
                _ => None,
            };
            let result =
                won.as_deref()
                    .map_or("none", |w| if w == c { "challenger" } else { "opponent" });
            let claimed = sqlx::query(
                "UPDATE ladder_games SET result = $1 WHERE game_id = $2 AND result IS NULL",
            )
            .bind(result)
            .bind(&game)
            .execute(&store.pool)
            .await
            .map_err(e)?
            .rows_affected();
            if claimed != 1 {
                continue;
            }
            let now = now_ms().max(0) as u64;
            update(store, kind, |s| {
                let (a, b) = (s.player(&c), s.player(&t));
                let w = won.as_deref().map(|w| s.player(w));
                // A player who left meanwhile: nothing moves.
                Ok((s.ladder.record(a, b, w, now).is_ok(), ()))
            })
            .await?;
        }
        let now = now_ms().max(0) as u64;
        update(store, kind, |s| Ok((!s.ladder.decay(now).is_empty(), ()))).await?;
    }
    Ok(())
}

/// What the lobby is told of ladder `kind` when it changes: its order (ids, top first) and its
/// open games, and the message `{"type": "ladder", "kind", "top": [the first 10 names],
/// "players", "challenges"}`.
async fn news(store: &Store, kind: &str) -> Result<(String, Value), ActError> {
    let s = load(store, kind).await?;
    let open = open_games(store, kind).await?;
    let order: Vec<&str> = s
        .ladder
        .order()
        .iter()
        .map(|&p| s.ids[p as usize].as_str())
        .collect();
    let games: Vec<&str> = open.iter().map(|(g, ..)| g.as_str()).collect();
    let mark = format!("{}|{}", order.join(","), games.join(","));
    let first: Vec<&str> = order.iter().take(10).copied().collect();
    let known = people(store, &first, "").await?;
    let top: Vec<String> = first
        .iter()
        .map(|id| known.get(*id).map(|k| k.0.clone()).unwrap_or_default())
        .collect();
    let msg = json!({"type": "ladder", "kind": kind, "top": top, "players": order.len(),
        "challenges": games.len()});
    Ok((mark, msg))
}

/// Runs [`sweep`] every second on every process, and tells the lobby's sockets of a ladder
/// whose order or open games changed since the last second (by any process).
pub fn spawn(st: AppState) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut seen: HashMap<&str, String> = Default::default();
        loop {
            every.tick().await;
            if let Err(x) = sweep(&st).await {
                tracing::warn!("ladders sweep: {}", x.message);
            }
            for kind in KINDS {
                match news(&st.hub.store, kind).await {
                    // The first look only notes the ladder: nothing changed that anyone saw.
                    Ok((mark, msg)) if seen.get(kind) != Some(&mark) => {
                        if seen.insert(kind, mark).is_some() {
                            let _ = st.tournament_news.send(msg);
                        }
                    }
                    Ok(_) => {}
                    Err(x) => tracing::warn!("ladder {kind}: {}", x.message),
                }
            }
        }
    });
}
