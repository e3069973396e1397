//! Play now: seeks in the database, paired atomically (on PostgreSQL with `FOR UPDATE SKIP
//! LOCKED`, so no seek is matched twice even when several processes pair at once), the seeker's
//! socket that learns of its game, and the bot offered when no person comes. docs/api.md,
//! "Play now".

use crate::game::hub::{new_id, now_ms, NewGame};
use crate::game::ratings::{bots_for, kind_of};
use crate::game::room::{ActError, SeatSpec, Settings};
use crate::players::accounts::{self, Identity};
use crate::players::{player_of, rating_for, Auth};
use crate::state::limit::ClientKey;
use crate::state::AppState;
use crate::store::{GameFlags, Store, StoreError};
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::Row;
use std::time::Duration;

/// A seek without a watching socket this long after it was made is dropped (ms).
pub const UNWATCHED_MS: i64 = 10_000;
/// A watching socket refreshes its seek this often; a seek not refreshed for three times this
/// long lost its socket (a process died) and is dropped (ms).
pub const WATCH_BEAT_MS: i64 = 10_000;

pub use crate::state::waiters::Waiters;

/// The routes of seeks.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/seeks", post(create).get(list))
        .route("/api/seeks/{id}", delete(remove))
        .route("/ws/seeks/{id}", get(socket))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeekReq {
    game: String,
    #[serde(default)]
    size: Option<u32>,
    #[serde(default)]
    rules: Option<String>,
    #[serde(default)]
    clock: Option<String>,
    #[serde(default)]
    turn_seconds: Option<f64>,
    #[serde(default)]
    rated: Option<bool>,
    #[serde(default)]
    range: Option<[f64; 2]>,
}

/// A seek as stored: what game it wants and from whom.
#[derive(Clone, Debug)]
struct Seek {
    id: String,
    account_id: String,
    settings: Settings,
    rated: bool,
    rating: f64,
}

fn e(err: sqlx::Error) -> StoreError {
    err.into()
}

/// The default rating range of a seek: ± this much of one's rating.
pub const DEFAULT_RANGE: f64 = 300.0;

async fn create(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    body: Bytes,
) -> Result<Response, ActError> {
    let who = auth.require()?.clone();
    if who.account.bot {
        return Err(crate::players::tokens::bots_never_seek());
    }
    if body.is_empty() {
        return Err(ActError::bad_request("the request has no JSON body"));
    }
    let req: SeekReq = serde_json::from_slice(&body)
        .map_err(|e| ActError::bad_request(format!("bad JSON body: {e}")))?;
    let mut spec = json!({"game": req.game});
    match req.game.as_str() {
        "go" => {
            let size = req.size.unwrap_or(19);
            if ![9, 13, 19].contains(&size) {
                return Err(ActError::bad_request("size: 9, 13 or 19 for play now")
                    .with_code("seek.size", Value::Null));
            }
            spec["size"] = json!(size);
            spec["rules"] = json!(req.rules.clone().unwrap_or_else(|| "japanese".into()));
            if let Some(c) = &req.clock {
                spec["clock"] = json!(c);
            }
            if req.turn_seconds.is_some() {
                return Err(ActError::bad_request("turn_seconds is a Wall Go setting"));
            }
        }
        "wallgo" => {
            if req.size.is_some() || req.rules.is_some() || req.clock.is_some() {
                return Err(ActError::bad_request(
                    "size, rules and clock are Go settings (Wall Go takes turn_seconds)",
                ));
            }
            if let Some(t) = req.turn_seconds {
                spec["turn_seconds"] = json!(t);
            }
        }
        g => {
            return Err(ActError::bad_request(format!(
                "game `{g}`: expected go or wallgo"
            )))
        }
    }
    let settings = crate::game::settings::settings_of(&spec)?;
    let rated = req.rated.unwrap_or(false);
    if rated && who.account.guest {
        return Err(crate::state::guest_unrated());
    }
    let kind = kind_of(&settings);
    let kind_for_rating = match (rated, kind) {
        (true, None) => {
            return Err(ActError::bad_request("rated: this game has no rating")
                .with_code("rated.kind", Value::Null))
        }
        (_, k) => k.unwrap_or(if req.game == "go" { "go19" } else { "wallgo" }),
    };
    let (rating, _, _) = rating_for(&st.hub.store, &who.account.id, kind_for_rating).await?;
    let (lo, hi) = match req.range {
        None => (rating - DEFAULT_RANGE, rating + DEFAULT_RANGE),
        Some([a, b]) if a.is_finite() && b.is_finite() && a <= b && b - a <= 5000.0 => (a, b),
        Some(_) => {
            return Err(ActError::bad_request(
                "range: [min, max], finite, min ≤ max, at most 5000 apart",
            )
            .with_code("seek.range", Value::Null))
        }
    };
    if !(lo..=hi).contains(&rating) {
        return Err(
            ActError::bad_request("range: your own rating must be inside it")
                .with_code("seek.range", Value::Null),
        );
    }
    let pool = format!(
        "{}|{}",
        serde_json::to_string(&settings).expect("settings serialise"),
        rated
    );
    spec["rated"] = json!(rated);
    // A seek makes a game: it costs what creating one does, and the client's unstarted games
    // (paired ones included) stay under the open-games cap.
    if let Err(r) = st.budgets.creates.check(&client) {
        return Ok(crate::state::too_many(r));
    }
    st.hub.check_open_cap(Some(client)).await?;
    let seek = Seek {
        id: new_id(),
        account_id: who.account.id.clone(),
        settings,
        rated,
        rating,
    };
    let store = &st.hub.store;
    // One seek an account: a new one replaces the old.
    sqlx::query("DELETE FROM seeks WHERE account_id = $1 AND game_id IS NULL")
        .bind(&seek.account_id)
        .execute(&store.writer)
        .await
        .map_err(|x| accounts::storage(e(x)))?;
    sqlx::query(
        "INSERT INTO seeks (id, account_id, pool, spec, rating, lo, hi, created_at, watched_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)",
    )
    .bind(&seek.id)
    .bind(&seek.account_id)
    .bind(&pool)
    .bind(spec.to_string())
    .bind(rating)
    .bind(lo)
    .bind(hi)
    .bind(now_ms())
    .execute(&store.writer)
    .await
    .map_err(|x| accounts::storage(e(x)))?;
    st.waiters.note_client(&seek.id, client);
    st.seek_list.changed();
    let game = try_match(&st, &seek.id).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": seek.id, "game": game})),
    )
        .into_response())
}

async fn load_seek(
    store: &Store,
    id: &str,
) -> Result<Option<(Seek, Option<(String, i64)>)>, StoreError> {
    let row =
        sqlx::query("SELECT id, account_id, pool, rating, game_id, seat FROM seeks WHERE id = $1")
            .bind(id)
            .fetch_optional(&store.pool)
            .await?;
    let Some(r) = row else { return Ok(None) };
    let pool: String = r.try_get(2)?;
    let (settings, rated) = pool
        .rsplit_once('|')
        .ok_or_else(|| StoreError::Db(format!("seek {id}: bad pool")))?;
    let settings: Settings = serde_json::from_str(settings)
        .map_err(|x| StoreError::Db(format!("seek {id}: bad settings: {x}")))?;
    let game: Option<String> = r.try_get(4)?;
    let seat: Option<i64> = r.try_get(5)?;
    Ok(Some((
        Seek {
            id: r.try_get(0)?,
            account_id: r.try_get(1)?,
            settings,
            rated: rated == "true",
            rating: r.try_get(3)?,
        },
        game.zip(seat),
    )))
}

fn game_json(id: &str, settings: &Settings, seat: usize) -> Value {
    let names = match settings {
        Settings::Go { .. } => crate::game::go_room::SEATS,
        Settings::Wallgo { .. } => crate::game::wall_room::SEATS,
    };
    json!({"id": id, "url": format!("/g/{id}"), "seat": names[seat]})
}

/// Pairs seek `id` with a compatible open seek, if there is one: both are marked with a new
/// game's id in one transaction (no seek is matched twice), then the game is made. Returns the
/// game as the seeker sees it.
async fn try_match(st: &AppState, id: &str) -> Result<Option<Value>, ActError> {
    let store = &st.hub.store;
    let lock = if store.postgres {
        " FOR UPDATE SKIP LOCKED"
    } else {
        ""
    };
    let matched = async {
        let mut tx = store.writer.begin().await?;
        let mine = sqlx::query(&format!(
            "SELECT account_id, pool, rating, lo, hi FROM seeks WHERE id = $1 AND game_id IS NULL{lock}"
        ))
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(mine) = mine else {
            tx.rollback().await?;
            return Ok::<_, StoreError>(None);
        };
        let account: String = mine.try_get(0)?;
        let pool: String = mine.try_get(1)?;
        let rating: f64 = mine.try_get(2)?;
        let (lo, hi): (f64, f64) = (mine.try_get(3)?, mine.try_get(4)?);
        let other = sqlx::query(&format!(
            "SELECT id, account_id, rating FROM seeks WHERE pool = $1 AND game_id IS NULL \
             AND id <> $2 AND account_id <> $3 AND rating >= $4 AND rating <= $5 \
             AND lo <= $6 AND hi >= $7 ORDER BY created_at, id LIMIT 1{lock}"
        ))
        .bind(&pool)
        .bind(id)
        .bind(&account)
        .bind(lo)
        .bind(hi)
        .bind(rating)
        .bind(rating)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(other) = other else {
            tx.rollback().await?;
            return Ok(None);
        };
        let other_id: String = other.try_get(0)?;
        let other_rating: f64 = other.try_get(2)?;
        let game = new_id();
        // The lower rating takes Black (A); equal ratings, the game id's seed decides.
        let mine_first = if rating == other_rating {
            crate::game::room::seed_of(&game).is_multiple_of(2)
        } else {
            rating < other_rating
        };
        let (my_seat, their_seat) = if mine_first { (0, 1) } else { (1, 0) };
        for (sid, seat) in [(id, my_seat), (other_id.as_str(), their_seat)] {
            let done = sqlx::query(
                "UPDATE seeks SET game_id = $1, seat = $2 WHERE id = $3 AND game_id IS NULL",
            )
            .bind(&game)
            .bind(seat as i64)
            .bind(sid)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() != 1 {
                tx.rollback().await?;
                return Ok(None);
            }
        }
        tx.commit().await?;
        st.seek_list.changed();
        Ok(Some((game, other_id, my_seat)))
    }
    .await;
    let (game, other_id, my_seat) = match matched {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(None),
        // A deadlock or a serialisation failure between processes: the next attempt pairs.
        Err(StoreError::Db(m)) => {
            tracing::warn!("seek {id}: pairing failed, will retry: {m}");
            return Ok(None);
        }
        Err(StoreError::Conflict | StoreError::Fenced) => return Ok(None),
    };
    let (Some((mine, _)), Some((theirs, _))) = (
        load_seek(store, id).await.map_err(accounts::storage)?,
        load_seek(store, &other_id)
            .await
            .map_err(accounts::storage)?,
    ) else {
        return Err(ActError::internal("a matched seek vanished"));
    };
    let mut accounts_by_seat: [Option<&Seek>; 2] = [None, None];
    accounts_by_seat[my_seat] = Some(&mine);
    accounts_by_seat[1 - my_seat] = Some(&theirs);
    let kind = kind_of(&mine.settings);
    let mut players = [None, None];
    for (i, s) in accounts_by_seat.iter().enumerate() {
        let s = s.expect("both seats set");
        let account = account_by_id(store, &s.account_id).await?;
        players[i] = Some(player_of(store, &account, kind).await?);
    }
    let human = SeatSpec {
        kind: "human".into(),
        bot: None,
        options: None,
    };
    let made = st
        .hub
        .create_game(NewGame {
            settings: mine.settings.clone(),
            seats: [human.clone(), human],
            client: None,
            players,
            flags: GameFlags {
                rated: mine.rated,
                listed: true,
            },
            id: Some(game.clone()),
        })
        .await;
    if let Err(err) = made {
        // The game could not be made: both seeks are open again.
        let _ = sqlx::query("UPDATE seeks SET game_id = NULL, seat = NULL WHERE game_id = $1")
            .bind(&game)
            .execute(&store.writer)
            .await;
        st.seek_list.changed();
        return Err(err);
    }
    // The game counts as opened by both seekers' clients (known where the seek was made here).
    for sid in [id, other_id.as_str()] {
        if let Some(c) = st.waiters.take_client(sid) {
            st.hub.note_opened(Some(c), &game).await;
        }
    }
    let theirs_json = game_json(&game, &mine.settings, 1 - my_seat);
    st.waiters.tell(&other_id, &theirs_json);
    let mine_json = game_json(&game, &mine.settings, my_seat);
    st.waiters.tell(id, &mine_json);
    Ok(Some(mine_json))
}

async fn account_by_id(store: &Store, id: &str) -> Result<accounts::Account, ActError> {
    store
        .account_by_id(id)
        .await
        .map_err(accounts::storage)?
        .ok_or_else(|| ActError::internal("a seeker's account vanished"))
}

async fn list(State(st): State<AppState>) -> Result<Json<Value>, ActError> {
    Ok(Json(list_json(&st.hub.store).await?))
}

/// The open seeks, newest first (at most 100): `{"seeks": [...]}`, as `GET /api/seeks` and the
/// lobby's socket show them.
pub async fn list_json(store: &Store) -> Result<Value, ActError> {
    let rows = sqlx::query(
        "SELECT s.id, a.name, s.spec, s.rating, s.lo, s.hi, s.created_at FROM seeks s \
         JOIN accounts a ON a.id = s.account_id WHERE s.game_id IS NULL \
         ORDER BY s.created_at DESC LIMIT 100",
    )
    .fetch_all(&store.pool)
    .await
    .map_err(|x| accounts::storage(e(x)))?;
    let get = |x: sqlx::Error| accounts::storage(e(x));
    let mut out = Vec::new();
    for r in rows {
        let spec: String = r.try_get(2).map_err(get)?;
        let mut v: Value = serde_json::from_str(&spec).unwrap_or(Value::Null);
        v["id"] = json!(r.try_get::<String, _>(0).map_err(get)?);
        v["player"] = json!(r.try_get::<String, _>(1).map_err(get)?);
        v["rating"] = json!(r.try_get::<f64, _>(3).map_err(get)?.round());
        v["range"] = json!([
            r.try_get::<f64, _>(4).map_err(get)?.round(),
            r.try_get::<f64, _>(5).map_err(get)?.round()
        ]);
        v["created_at"] = json!(r.try_get::<i64, _>(6).map_err(get)?);
        out.push(v);
    }
    Ok(json!({ "seeks": out }))
}

/// How often the lobby's seek list is read again when nothing here said it changed: it
/// catches seeks made on another process and those the sweep dropped (ms).
pub const LIST_REFRESH_MS: u64 = 5_000;

/// Keeps the list the lobby's sockets follow (`AppState::seek_list`) fresh: read again at
/// once after a change made here, and every [`LIST_REFRESH_MS`] while a socket follows it.
pub async fn publish(st: AppState) {
    loop {
        tokio::select! {
            _ = st.seek_list.nudged() => {}
            _ = tokio::time::sleep(Duration::from_millis(LIST_REFRESH_MS)) => {}
        }
        if !st.seek_list.followed() {
            continue;
        }
        match list_json(&st.hub.store).await {
            Ok(v) => st.seek_list.publish(v),
            Err(x) => tracing::warn!("the lobby's seek list could not be read: {}", x.message),
        }
    }
}

async fn drop_seek(st: &AppState, id: &str, account: &str) -> Result<bool, ActError> {
    let done =
        sqlx::query("DELETE FROM seeks WHERE id = $1 AND account_id = $2 AND game_id IS NULL")
            .bind(id)
            .bind(account)
            .execute(&st.hub.store.writer)
            .await
            .map_err(|x| accounts::storage(e(x)))?;
    let dropped = done.rows_affected() == 1;
    if dropped {
        st.seek_list.changed();
    }
    Ok(dropped)
}

async fn remove(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    if id.len() > 40 || !drop_seek(&st, &id, &who.account.id).await? {
        return Err(ActError::not_found("no open seek of yours with that id"));
    }
    Ok(Json(json!({"ok": true})))
}

/// Drops seeks nobody watches (never watched within [`UNWATCHED_MS`], or whose socket's
/// process stopped refreshing them) and old matched ones.
pub async fn sweep(store: &Store) {
    let now = now_ms();
    let r = sqlx::query(
        "DELETE FROM seeks WHERE (game_id IS NULL AND ((watched_at = 0 AND created_at < $1) \
         OR (watched_at > 0 AND watched_at < $2))) OR (game_id IS NOT NULL AND created_at < $3)",
    )
    .bind(now - UNWATCHED_MS)
    .bind(now - 3 * WATCH_BEAT_MS)
    .bind(now - 3_600_000)
    .execute(&store.writer)
    .await;
    if let Err(x) = r {
        tracing::warn!("seek sweep failed: {x}");
    }
}

async fn socket(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
    ws: WebSocketUpgrade,
) -> Result<Response, ActError> {
    let who = auth.require()?.clone();
    if id.len() > 40 {
        return Err(ActError::not_found("no such seek"));
    }
    let Some((seek, _)) = load_seek(&st.hub.store, &id)
        .await
        .map_err(accounts::storage)?
    else {
        return Err(ActError::not_found("no such seek (it may have expired)"));
    };
    if seek.account_id != who.account.id {
        return Err(ActError::forbidden("this seek is not yours"));
    }
    Ok(ws
        .max_message_size(4096)
        .on_upgrade(move |socket| follow(socket, st, seek, who)))
}

async fn send(socket: &mut WebSocket, v: Value) -> bool {
    matches!(
        tokio::time::timeout(
            Duration::from_secs(10),
            socket.send(Message::Text(v.to_string().into()))
        )
        .await,
        Ok(Ok(()))
    )
}

/// The closest rated bot to `rating` for a seek's game: (bot, options, rating).
fn closest_bot(settings: &Settings, rating: f64) -> (String, String, f64) {
    let kind = kind_of(settings).unwrap_or(match settings {
        Settings::Go { .. } => "go-small",
        Settings::Wallgo { .. } => "wallgo",
    });
    bots_for(kind)
        .into_iter()
        .min_by(|a, b| (a.2 - rating).abs().total_cmp(&(b.2 - rating).abs()))
        .map(|(b, o, r)| (b.to_string(), o, r))
        .expect("every kind has bots")
}

/// A game against the offered bot for the seeker.
async fn bot_game(st: &AppState, seek: &Seek, who: &Identity) -> Result<Value, ActError> {
    let (bot, options, bot_rating) = closest_bot(&seek.settings, seek.rating);
    let kind = kind_of(&seek.settings);
    let player = player_of(&st.hub.store, &who.account, kind).await?;
    let human = SeatSpec {
        kind: "human".into(),
        bot: None,
        options: None,
    };
    let bot_seat = SeatSpec {
        kind: "bot".into(),
        bot: Some(bot),
        options: (!options.is_empty()).then_some(options),
    };
    // The weaker side takes Black (A).
    let me_first = seek.rating <= bot_rating;
    let (seats, players) = if me_first {
        ([human, bot_seat], [Some(player), None])
    } else {
        ([bot_seat, human], [None, Some(player)])
    };
    let (id, _) = st
        .hub
        .create_game(NewGame {
            settings: seek.settings.clone(),
            seats,
            client: None,
            players,
            flags: GameFlags {
                rated: seek.rated,
                listed: true,
            },
            id: None,
        })
        .await?;
    Ok(game_json(&id, &seek.settings, if me_first { 0 } else { 1 }))
}

async fn follow(mut socket: WebSocket, st: AppState, seek: Seek, who: Identity) {
    let store = st.hub.store.clone();
    let mut rx = st.waiters.register(&seek.id);
    let beat = |store: Store, id: String| async move {
        let _ = sqlx::query("UPDATE seeks SET watched_at = $1 WHERE id = $2")
            .bind(now_ms())
            .bind(&id)
            .execute(&store.writer)
            .await;
    };
    beat(store.clone(), seek.id.clone()).await;
    let bot_after = st.limits.seek_bot_after;
    let offer_at = tokio::time::Instant::now() + bot_after;
    let mut offered = false;
    // Jitter keeps two processes' sockets from retrying in step.
    let jitter = Duration::from_millis(crate::game::room::seed_of(&seek.id) % 500);
    let mut retry = tokio::time::interval(Duration::from_millis(1_000) + jitter);
    retry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    retry.tick().await;
    let mut last_beat = now_ms();
    let outcome: Option<Value> = loop {
        tokio::select! {
            changed = rx.changed() => {
                if changed.is_err() { break None; }
                let v = rx.borrow().clone();
                if let Some(g) = v { break Some(g); }
            }
            _ = retry.tick() => {
                // Matched by another process? Else try pairing again.
                match load_seek(&store, &seek.id).await {
                    Ok(Some((s, Some((game, seat))))) => break Some(game_json(&game, &s.settings, seat as usize)),
                    Ok(Some(_)) => {}
                    Ok(None) => {
                        let _ = send(&mut socket, json!({"type": "expired"})).await;
                        break None;
                    }
                    Err(_) => {}
                }
                match try_match(&st, &seek.id).await {
                    Ok(Some(g)) => break Some(g),
                    Ok(None) => {}
                    Err(x) => tracing::warn!("seek {}: {x}", seek.id),
                }
                if now_ms() - last_beat >= WATCH_BEAT_MS {
                    beat(store.clone(), seek.id.clone()).await;
                    last_beat = now_ms();
                }
                if !offered && tokio::time::Instant::now() >= offer_at {
                    offered = true;
                    let (bot, options, rating) = closest_bot(&seek.settings, seek.rating);
                    let level = options.strip_prefix("level=").and_then(|l| l.parse::<u32>().ok());
                    if !send(&mut socket, json!({"type": "bot_offer", "bot": bot, "options": options,
                        "level": level, "rating": rating.round()})).await {
                        break None;
                    }
                }
            }
            msg = socket.recv() => {
                let Some(Ok(msg)) = msg else { break None };
                let text = match msg {
                    Message::Text(t) => t.to_string(),
                    Message::Close(_) => break None,
                    _ => continue,
                };
                let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                match v["type"].as_str() {
                    Some("ping") => { if !send(&mut socket, json!({"type": "pong"})).await { break None; } }
                    Some("accept_bot") => {
                        // Paired with a person in the meantime (nothing dropped): the next tick tells.
                        if let Ok(true) = drop_seek(&st, &seek.id, &seek.account_id).await {
                            match bot_game(&st, &seek, &who).await {
                                Ok(g) => break Some(g),
                                Err(x) => {
                                    let _ = send(&mut socket, json!({"type": "error", "status": x.status, "error": x.message, "code": x.code})).await;
                                    break None;
                                }
                            }
                        }
                    }
                    _ => {
                        let bad = json!({"type": "error", "status": 400, "error": "expected {\"type\": \"accept_bot\"} or {\"type\": \"ping\"}"});
                        if !send(&mut socket, bad).await { break None; }
                    }
                }
            }
        }
    };
    st.waiters.remove(&seek.id);
    match outcome {
        Some(g) => {
            let _ = send(&mut socket, json!({"type": "matched", "game": g})).await;
            let _ = socket.send(Message::Close(None)).await;
        }
        None => {
            // The socket went: so does the seek (unless it was paired meanwhile).
            let _ = drop_seek(&st, &seek.id, &seek.account_id).await;
        }
    }
}
