//! Owns: the web edge: the routing table and the game and socket handlers (this file), the
//! accept loop (`conn`), rate budgets and client addresses (`limit`), logs (`logs`), counters and
//! `/metrics` (`metrics`), the embedded web pages (`web`). May use every domain. For now
//! `AppState` and the handlers' common answers live here too, and the domains below reach up
//! for them (issue 40 moves them down next).
//!
//! HTTP and WebSocket handlers: parse, authenticate the seat, call the hub, map its errors to
//! status codes. No game logic here.

pub mod conn;
pub mod limit;
pub mod logs;
pub mod metrics;
pub mod web;

use crate::game::hub::{now_ms, Cred, Hub};
use crate::game::room::{ActError, SeatSpec, Settings};
use crate::http::limit::{client_ip, Budget, Cidr, ClientKey, Refused};
use crate::players::Auth;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use baduk_go::{Rules, Size, TimeControl};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The rate budgets of every client.
pub struct Budgets {
    /// Every API and socket request.
    pub requests: Budget,
    /// Games created.
    pub creates: Budget,
    /// Actions (HTTP and WebSocket).
    pub actions: Budget,
    /// WebSocket connections opened.
    pub sockets: Budget,
    /// Sign-in attempts per address.
    pub logins: Budget,
    /// Guest sessions started per address.
    pub guests: Budget,
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The live games.
    pub hub: Arc<Hub>,
    /// Rates per client.
    pub budgets: Arc<Budgets>,
    /// Proxies whose `X-Forwarded-For` is believed.
    pub trusted: Arc<Vec<Cidr>>,
    /// Sockets open now per client.
    pub open_sockets: Arc<Mutex<HashMap<ClientKey, usize>>>,
    /// The limits the server runs under.
    pub limits: Arc<crate::Limits>,
    /// Sign-in attempts per address and account name together (the guessing budget).
    pub login_names: Arc<Budget<(ClientKey, String)>>,
    /// Sign-in attempts per account name from addresses that have not signed in to it lately.
    pub login_accounts: Arc<Budget<String>>,
    /// The addresses that signed in to each account lately (they pass `login_accounts`).
    pub login_known: Arc<crate::http::limit::Known>,
    /// Chat messages per account.
    pub chat_accounts: Arc<Budget<String>>,
    /// Chat messages per address.
    pub chat_clients: Arc<Budget>,
    /// Seekers waiting on this process.
    pub waiters: Arc<crate::players::seeks::Waiters>,
    /// When each account was last noted as seen (ms), so "online" costs a write a minute.
    touched: Arc<Mutex<HashMap<String, i64>>>,
}

impl AppState {
    /// The state of a server configured by `cfg`.
    pub fn new(hub: Arc<Hub>, cfg: &crate::Config) -> AppState {
        let l = &cfg.limits;
        let r = cfg.rate_limit;
        AppState {
            hub,
            budgets: Arc::new(Budgets {
                requests: Budget::new("requests", r, (r * 4.0).ceil() as u32),
                creates: Budget::new(
                    "games created",
                    l.creates_per_minute / 60.0,
                    (l.creates_per_minute / 2.0).ceil() as u32,
                ),
                actions: Budget::new(
                    "actions",
                    l.actions_per_second,
                    (l.actions_per_second * 3.0).ceil() as u32,
                ),
                sockets: Budget::new(
                    "sockets opened",
                    l.sockets_per_minute / 60.0,
                    (l.sockets_per_minute / 3.0).ceil() as u32,
                ),
                logins: Budget::new(
                    "sign-in attempts",
                    l.logins_per_minute / 60.0,
                    l.logins_per_minute.ceil() as u32,
                ),
                guests: Budget::new(
                    "guest sessions",
                    l.guests_per_minute / 60.0,
                    l.guests_per_minute.ceil() as u32,
                ),
            }),
            trusted: Arc::new(l.trusted_proxies.clone()),
            open_sockets: Arc::new(Mutex::new(HashMap::new())),
            limits: Arc::new(l.clone()),
            login_names: Arc::new(Budget::new(
                "sign-in attempts for this account from your address",
                l.logins_per_name_minute / 60.0,
                l.logins_per_name_minute.ceil() as u32,
            )),
            login_accounts: Arc::new(Budget::new(
                "sign-in attempts for this account from new addresses",
                l.logins_per_account_minute / 60.0,
                l.logins_per_account_minute.ceil() as u32,
            )),
            login_known: Arc::new(crate::http::limit::Known::default()),
            chat_accounts: Arc::new(Budget::new("chat messages", l.chat_per_second, 5)),
            chat_clients: Arc::new(Budget::new("chat messages", l.chat_per_second * 4.0, 20)),
            waiters: Arc::new(crate::players::seeks::Waiters::default()),
            touched: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Notes that an account was seen (at most one write a minute an account).
    pub fn touch(&self, account_id: &str) {
        let now = now_ms();
        {
            let mut t = self.touched.lock().expect("touched lock");
            if t.get(account_id).is_some_and(|&at| now - at < 60_000) {
                return;
            }
            if t.len() > 100_000 {
                t.retain(|_, at| now - *at < 60_000);
            }
            t.insert(account_id.to_string(), now);
        }
        let store = self.hub.store.clone();
        let id = account_id.to_string();
        tokio::spawn(async move {
            let _ = store.touch_account(&id).await;
        });
    }

    /// Forgets idle clients of every budget (run now and then: memory stays bounded).
    pub fn forget_idle(&self) {
        for b in [
            &self.budgets.requests,
            &self.budgets.creates,
            &self.budgets.actions,
            &self.budgets.sockets,
            &self.budgets.logins,
            &self.budgets.guests,
            &self.chat_clients,
        ] {
            b.forget_idle();
        }
        self.login_names.forget_idle();
        self.login_accounts.forget_idle();
        self.login_known.forget_idle();
        self.chat_accounts.forget_idle();
    }
}

impl IntoResponse for ActError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self.to_json())).into_response()
    }
}

/// A 429 naming the budget, with `Retry-After`.
pub fn too_many(r: Refused) -> Response {
    let secs = r.retry_secs();
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, secs.to_string())],
        Json(json!({"error": r.message(), "code": "limit.rate", "args": r.args(), "retry_after": secs})),
    )
        .into_response()
}

/// 403: guests play unrated games only (a rated game needs an account).
pub fn guest_unrated() -> ActError {
    ActError::forbidden("rated: guests play unrated games; sign up to play rated ones")
        .with_code("rated.guest", Value::Null)
}

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The router of the whole service.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/games", post(create_game).get(list_games))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/record", get(get_record))
        .route("/api/games/{id}/actions", post(post_action))
        .route("/api/games/{id}/join", post(post_join))
        .route("/api/games/{id}/seats/{seat}/rotate", post(post_rotate))
        .route("/ws/games/{id}", get(ws_game))
        .merge(crate::players::routes())
        .merge(crate::players::seeks::routes())
        .merge(crate::players::chat::routes())
        .merge(crate::review::routes())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::players::identify,
        ))
        // An action for a game another process owns goes there (after this process charged
        // the client's rates, before anything is looked up here).
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::cluster::forward::route,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            rate_limit,
        ));
    let api_service: Router = api.clone().with_state(state.clone());
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(crate::http::metrics::endpoint))
        .route(
            "/internal/forward/{*rest}",
            axum::routing::any(move |State(st): State<AppState>, req: Request| {
                let api = api_service.clone();
                async move { crate::cluster::forward::internal(st, api, req).await }
            }),
        )
        .merge(api)
        .merge(crate::http::web::routes())
        .fallback(not_found)
        .layer(axum::middleware::from_fn(crate::http::logs::log_request))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            |_: Box<dyn std::any::Any + Send>| {
                ActError::internal("the server failed on this request; nothing was changed")
                    .into_response()
            },
        ))
        .layer(axum::middleware::map_response(
            crate::http::web::security_headers,
        ))
        .with_state(state)
}

async fn not_found(req: Request) -> Response {
    let path = req.uri().path().to_string();
    if path.starts_with("/api/") || path.starts_with("/ws/") {
        ActError::not_found(format!("no such route: {path}")).into_response()
    } else {
        crate::http::web::not_found_page(&path)
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let t = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))?;
    let t = t.trim();
    (!t.is_empty()).then_some(t)
}

/// Who the client is: its address (through trusted proxies), never a header it invents.
fn client_key(st: &AppState, peer: SocketAddr, headers: &HeaderMap) -> ClientKey {
    let xff = headers.get("x-forwarded-for").and_then(|v| v.to_str().ok());
    ClientKey::of(client_ip(peer.ip(), xff, &st.trusted))
}

async fn rate_limit(
    State(st): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    mut req: Request,
    next: Next,
) -> Response {
    // A call another process forwarded: that process charged the client already.
    if let Some(f) = req
        .extensions()
        .get::<crate::cluster::forward::Forwarded>()
        .copied()
    {
        req.extensions_mut().insert(f.client);
        return next.run(req).await;
    }
    let key = client_key(&st, addr, req.headers());
    if let Err(r) = st.budgets.requests.check(&key) {
        return too_many(r);
    }
    req.extensions_mut().insert(key);
    next.run(req).await
}

/// A JSON body, or 400 naming what is wrong with it.
pub fn parse_json<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, ActError> {
    if body.is_empty() {
        return Err(ActError::bad_request("the request has no JSON body"));
    }
    serde_json::from_slice(body).map_err(|e| ActError::bad_request(format!("bad JSON body: {e}")))
}

/// The body of `POST /api/games`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateReq {
    game: String,
    #[serde(default)]
    size: Option<Value>,
    #[serde(default)]
    rules: Option<String>,
    #[serde(default)]
    komi: Option<f64>,
    #[serde(default)]
    handicap: Option<u32>,
    #[serde(default)]
    clock: Option<String>,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    turn_seconds: Option<f64>,
    #[serde(default)]
    seats: Option<BTreeMap<String, SeatSpec>>,
    #[serde(default)]
    rated: Option<bool>,
    #[serde(default)]
    listed: Option<bool>,
}

/// The settings a create request's JSON names (the seeks read theirs the same way).
pub fn settings_of(v: &Value) -> Result<Settings, ActError> {
    let r: CreateReq = serde_json::from_value(v.clone())
        .map_err(|e| ActError::bad_request(format!("bad settings: {e}")))?;
    match r.game.as_str() {
        "go" => go_settings(&r),
        "wallgo" => wall_settings(&r),
        g => Err(ActError::bad_request(format!(
            "game `{g}`: expected go or wallgo"
        ))),
    }
}

/// The longest time setting accepted (a week, in seconds).
const MAX_SECONDS: u32 = 7 * 24 * 3600;

fn go_settings(r: &CreateReq) -> Result<Settings, ActError> {
    if r.variant.is_some() || r.turn_seconds.is_some() {
        return Err(ActError::bad_request(
            "variant and turn_seconds are Wall Go settings, not Go",
        ));
    }
    let text = r.rules.as_deref().unwrap_or("japanese");
    if text.len() > 300 {
        return Err(ActError::bad_request("rules: too long"));
    }
    let mut rules = Rules::parse(text).map_err(|e| ActError::bad_request(format!("rules: {e}")))?;
    if let Some(size) = &r.size {
        let (c, w) = match size {
            Value::Number(n) => {
                let n = n.as_u64().unwrap_or(0);
                (n, n)
            }
            Value::Array(a) if a.len() == 2 => {
                (a[0].as_u64().unwrap_or(0), a[1].as_u64().unwrap_or(0))
            }
            _ => {
                return Err(ActError::bad_request(
                    "size: a number (9) or [cols, rows] such as [13, 9]",
                ))
            }
        };
        if !(2..=25).contains(&c) || !(2..=25).contains(&w) {
            return Err(ActError::bad_request(format!(
                "size {c}x{w}: each side must be 2 to 25"
            )));
        }
        let s = Size::new(c as u32, w as u32)
            .map_err(|e| ActError::bad_request(format!("size: {e}")))?;
        rules = rules.with_size(s);
    }
    if let Some(k) = r.komi {
        if !k.is_finite() || k.abs() > 1000.0 {
            return Err(ActError::bad_request(format!(
                "komi {k}: a finite number between -1000 and 1000"
            )));
        }
        rules
            .set("komi", &k.to_string())
            .map_err(|e| ActError::bad_request(format!("komi: {e}")))?;
    }
    if let Some(c) = &r.clock {
        if c.len() > 100 {
            return Err(ActError::bad_request("clock: too long"));
        }
        rules
            .set("time", c)
            .map_err(|e| ActError::bad_request(format!("clock: {e}")))?;
    }
    let nums: Vec<u32> = match rules.time {
        TimeControl::None => vec![],
        TimeControl::Absolute { main } | TimeControl::Ing { main } => vec![main],
        TimeControl::ByoYomi {
            main,
            periods,
            period,
        } => {
            if period == 0 || periods == 0 {
                return Err(ActError::bad_request(
                    "clock: byo-yomi needs at least one period of at least a second",
                ));
            }
            vec![main, periods, period]
        }
        TimeControl::Canadian {
            main,
            stones,
            period,
        } => {
            if period == 0 || stones == 0 {
                return Err(ActError::bad_request(
                    "clock: Canadian overtime needs stones and a period",
                ));
            }
            vec![main, stones, period]
        }
        TimeControl::Fischer { main, increment } => vec![main, increment],
    };
    if nums.iter().any(|&n| n > MAX_SECONDS) {
        return Err(ActError::bad_request(format!(
            "clock {}: every number must be at most {MAX_SECONDS} (a week in seconds)",
            rules.time
        )));
    }
    if matches!(
        rules.time,
        TimeControl::Absolute { main: 0 }
            | TimeControl::Fischer { main: 0, .. }
            | TimeControl::Ing { main: 0 }
    ) {
        return Err(ActError::bad_request(
            "clock: main time must be at least a second",
        ));
    }
    let handicap = r.handicap.unwrap_or(0);
    if handicap > 9 {
        return Err(ActError::bad_request(format!(
            "handicap {handicap}: at most 9 stones"
        )));
    }
    Ok(Settings::Go {
        rules: rules.to_string(),
        handicap,
    })
}

fn wall_settings(r: &CreateReq) -> Result<Settings, ActError> {
    if r.size.is_some()
        || r.rules.is_some()
        || r.komi.is_some()
        || r.handicap.is_some()
        || r.clock.is_some()
    {
        return Err(ActError::bad_request(
            "size, rules, komi, handicap and clock are Go settings, not Wall Go (use variant and turn_seconds)",
        ));
    }
    let text = r.variant.as_deref().unwrap_or("");
    if text.len() > 200 {
        return Err(ActError::bad_request("variant: too long"));
    }
    let mut v: baduk_wallgo::Variant = text
        .parse()
        .map_err(|e: baduk_wallgo::VariantError| ActError::bad_request(format!("variant: {e}")))?;
    let secs = r.turn_seconds.unwrap_or(v.seconds_per_turn as f64);
    if !secs.is_finite() || !(0.0..=3600.0).contains(&secs) || (secs > 0.0 && secs < 1.0) {
        return Err(ActError::bad_request(format!(
            "turn_seconds {secs}: 0 (no limit) or 1 to 3600"
        )));
    }
    v.seconds_per_turn = secs.round() as u32;
    Ok(Settings::Wallgo {
        variant: v.to_string(),
        turn_ms: (secs * 1000.0).round() as i64,
    })
}

async fn create_game(
    State(st): State<AppState>,
    axum::Extension(client): axum::Extension<ClientKey>,
    axum::Extension(auth): axum::Extension<Auth>,
    body: Bytes,
) -> Result<Response, ActError> {
    let req: CreateReq = parse_json(&body)?;
    let (settings, names) = match req.game.as_str() {
        "go" => (go_settings(&req)?, crate::game::go_room::SEATS),
        "wallgo" => (wall_settings(&req)?, crate::game::wall_room::SEATS),
        g => {
            return Err(ActError::bad_request(format!(
                "game `{g}`: expected go or wallgo"
            )))
        }
    };
    let mut seats: [SeatSpec; 2] = [0, 1].map(|_| SeatSpec {
        kind: "human".into(),
        bot: None,
        options: None,
    });
    if let Some(given) = req.seats {
        for (name, spec) in given {
            let i = names.iter().position(|n| *n == name).ok_or_else(|| {
                ActError::bad_request(format!(
                    "seat `{name}`: this game's seats are {} and {}",
                    names[0], names[1]
                ))
            })?;
            seats[i] = spec;
        }
    }
    if req.rated == Some(true) && auth.who.as_ref().is_some_and(|w| w.account.guest) {
        return Err(guest_unrated());
    }
    if let Err(r) = st.budgets.creates.check(&client) {
        return Ok(too_many(r));
    }
    // A signed-in creator holds the first human seat.
    let mut players: [Option<crate::game::room::Player>; 2] = [None, None];
    if let Some(who) = &auth.who {
        if let Some(i) = seats.iter().position(|s| s.kind == "human") {
            let kind = crate::game::ratings::kind_of(&settings);
            players[i] = Some(crate::players::player_of(&st.hub.store, &who.account, kind).await?);
        }
    }
    let listed = req.listed.unwrap_or(true);
    let (id, tokens) = st
        .hub
        .create_game(crate::game::hub::NewGame {
            settings,
            seats,
            client: Some(client),
            players,
            flags: crate::store::GameFlags {
                rated: req.rated.unwrap_or(false),
                listed,
            },
            id: None,
        })
        .await?;
    let mut out = serde_json::Map::new();
    for (i, t) in tokens {
        out.insert(
            names[i].to_string(),
            json!({"token": t, "url": format!("/g/{id}#token={t}")}),
        );
    }
    let mut body = json!({"id": id, "url": format!("/g/{id}"), "seats": out});
    // An unlisted game's open seats are claimed with this secret, never with the id alone.
    // Until it is stored the game's open seats refuse everybody.
    if !listed {
        let secret = crate::game::hub::new_token();
        st.hub
            .store
            .set_invite(&id, &crate::players::accounts::secret_hash(&secret))
            .await
            .map_err(crate::players::accounts::storage)?;
        body["invite"] = json!(format!("/g/{id}#invite={secret}"));
        body["invite_secret"] = json!(secret);
    }
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// 403 `join.invite`: an unlisted game's open seat needs its invite secret.
fn invite_refused() -> ActError {
    ActError::forbidden(
        "join: this game is unlisted; its open seats are taken only with the invite link's secret (`invite`)",
    )
    .with_code("join.invite", Value::Null)
}

/// Whether `invite` opens the seats of game `id`: always for a listed game; for an unlisted
/// one only the secret whose hash it keeps (compared in constant time).
async fn check_invite(st: &AppState, id: &str, invite: Option<&str>) -> Result<(), ActError> {
    use subtle::ConstantTimeEq;
    let found = st
        .hub
        .store
        .invite_of(id)
        .await
        .map_err(crate::players::accounts::storage)?;
    let Some((listed, kept)) = found else {
        // No such game: the join itself answers 404.
        return Ok(());
    };
    if listed {
        return Ok(());
    }
    match (kept, invite) {
        (Some(kept), Some(given)) if given.len() <= 200 => {
            let given = crate::players::accounts::secret_hash(given);
            if bool::from(given.as_bytes().ct_eq(kept.as_bytes())) {
                Ok(())
            } else {
                Err(invite_refused())
            }
        }
        _ => Err(invite_refused()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    limit: Option<i64>,
    #[serde(default)]
    before: Option<String>,
}

async fn list_games(
    State(st): State<AppState>,
    q: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    let status = q.status.unwrap_or_else(|| "live".into());
    if !["open", "live", "finished"].contains(&status.as_str()) {
        return Err(ActError::bad_request(format!(
            "status `{status}`: open, live or finished"
        )));
    }
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ActError::bad_request("limit: 1 to 200"));
    }
    let before = match q.before {
        None => None,
        Some(c) => {
            let (t, id) = c
                .split_once(':')
                .ok_or_else(|| ActError::bad_request("before: a cursor from `next`"))?;
            Some((
                t.parse::<i64>()
                    .map_err(|_| ActError::bad_request("before: a cursor from `next`"))?,
                id.to_string(),
            ))
        }
    };
    let rows = st
        .hub
        .store
        .list(&status, limit, before)
        .await
        .map_err(|e| {
            tracing::error!("lobby query failed: {e}");
            ActError::internal("the lobby could not be read; try again")
        })?;
    let next = (rows.len() as i64 == limit)
        .then(|| rows.last().map(|(id, t, _)| format!("{t}:{id}")))
        .flatten();
    let games: Vec<Value> = rows
        .iter()
        .map(|(_, _, s)| serde_json::from_str(s).unwrap_or(Value::Null))
        .collect();
    Ok(Json(json!({"games": games, "next": next})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameQuery {
    #[serde(default, rename = "move")]
    mv: Option<usize>,
}

async fn get_game(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(auth): axum::Extension<Auth>,
    headers: HeaderMap,
    q: Result<Query<GameQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    let you = match (bearer(&headers), auth.account_id()) {
        (Some(t), _) if !t.starts_with(crate::players::accounts::API_TOKEN_PREFIX) => {
            Some(st.hub.hello(&id, t).await?)
        }
        (_, Some(a)) => st.hub.hello_as(&id, Cred::Account(a)).await.ok(),
        _ => None,
    };
    let h = st.hub.get(&id).await?;
    let room = h.room.lock().await;
    Ok(Json(room.state(now_ms(), q.mv, you)))
}

async fn get_record(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ActError> {
    let h = st.hub.get(&id).await?;
    let room = h.room.lock().await;
    let (ctype, ext) = match room.game_word() {
        "go" => ("application/x-go-sgf; charset=utf-8", "sgf"),
        _ => ("text/plain; charset=utf-8", "wall"),
    };
    let disposition = format!("attachment; filename=\"baduk-{id}.{ext}\"");
    Ok((
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        room.record(),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionReq {
    action: String,
}

/// The query of `POST /api/games/{id}/actions`: `?full=1` answers with the full state (the
/// whole history) instead of the change.
#[derive(Deserialize)]
struct ActionQuery {
    #[serde(default)]
    full: Option<String>,
}

async fn post_action(
    State(st): State<AppState>,
    // The URL: the game, and the query.
    (Path(id), q): (
        Path<String>,
        Result<Query<ActionQuery>, axum::extract::rejection::QueryRejection>,
    ),
    axum::Extension(client): axum::Extension<ClientKey>,
    axum::Extension(auth): axum::Extension<Auth>,
    forwarded: Option<axum::Extension<crate::cluster::forward::Forwarded>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    let full = match q.full.as_deref() {
        None | Some("0" | "false") => false,
        Some("1" | "true" | "") => true,
        Some(v) => {
            return Err(ActError::bad_request(format!(
                "full: `{v}`, expected 1 or 0"
            )))
        }
    };
    if forwarded.is_none() {
        if let Err(r) = st.budgets.actions.check(&client) {
            return Ok(too_many(r));
        }
    }
    let cred = match (bearer(&headers), auth.account_id()) {
        (Some(t), _) if !t.starts_with(crate::players::accounts::API_TOKEN_PREFIX) => {
            Cred::Token(t)
        }
        (_, Some(a)) => Cred::Account(a),
        _ => {
            return Err(ActError::unauthorized(
                "missing Authorization: Bearer <seat token> (or sign in)",
            ))
        }
    };
    let req: ActionReq = parse_json(&body)?;
    if req.action.trim().is_empty() {
        return Err(ActError::bad_request("action: empty"));
    }
    Ok(Json(st.hub.act_as(&id, cred, &req.action, full).await?).into_response())
}

/// `POST /api/games/{id}/seats/{seat}/rotate`: the seat's holder gets a fresh token; the old
/// one is refused from now on.
async fn post_rotate(
    State(st): State<AppState>,
    Path((id, seat)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<Value>, ActError> {
    let token = bearer(&headers).ok_or(ActError::unauthorized(
        "missing Authorization: Bearer <seat token>",
    ))?;
    let (i, fresh) = st.hub.rotate(&id, &seat, token).await?;
    let h = st.hub.get(&id).await?;
    let name = h.room.lock().await.seat_names()[i];
    Ok(Json(
        json!({"seat": name, "token": fresh, "url": format!("/g/{id}#token={fresh}")}),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinReq {
    seat: String,
    /// The invite secret of an unlisted game (from its link's `#invite=`).
    #[serde(default)]
    invite: Option<String>,
}

async fn post_join(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(auth): axum::Extension<Auth>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let req: JoinReq = parse_json(&body)?;
    check_invite(&st, &id, req.invite.as_deref()).await?;
    let player = match &auth.who {
        Some(who) => {
            let kind = {
                let h = st.hub.get(&id).await?;
                let room = h.room.lock().await;
                crate::game::ratings::kind_of(&room.settings)
            };
            Some(crate::players::player_of(&st.hub.store, &who.account, kind).await?)
        }
        None => None,
    };
    let (seat, token) = st.hub.join_as(&id, &req.seat, player).await?;
    let h = st.hub.get(&id).await?;
    let name = h.room.lock().await.seat_names()[seat];
    Ok(Json(
        json!({"seat": name, "token": token, "url": format!("/g/{id}#token={token}")}),
    ))
}

async fn ws_game(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(client): axum::Extension<ClientKey>,
    axum::Extension(auth): axum::Extension<Auth>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ActError> {
    // The client's own credentials, sent along with the actions forwarded for it.
    let text = |n: header::HeaderName| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let creds = crate::cluster::forward::Creds {
        cookie: text(header::COOKIE),
        authorization: text(header::AUTHORIZATION),
        csrf: match &auth.who {
            Some(crate::players::accounts::Identity {
                via: crate::players::accounts::Via::Session { csrf, .. },
                ..
            }) => Some(csrf.clone()),
            _ => None,
        },
    };
    if let Err(r) = st.budgets.sockets.check(&client) {
        return Ok(too_many(r));
    }
    let h = st.hub.get(&id).await?;
    let Some(seat) = SocketSeat::take(&st, client, &h) else {
        return Ok(too_many_sockets());
    };
    // Messages in are small: a 4 KiB read buffer (it grows for a larger frame) instead of the
    // default 128 KiB, which made a two-seat game cost about 300 KiB of memory. Writes are not
    // buffered beyond one message: a client that does not read is dropped (see `watch`).
    Ok(ws
        .max_message_size(BODY_LIMIT)
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(1024 * 1024)
        .on_upgrade(move |socket| watch(socket, st, id, h, client, seat, (auth, creds))))
}

fn too_many_sockets() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, "10".to_string())],
        Json(
            json!({"error": "too many sockets open: close one first (per client or per game)",
            "code": "limit.sockets", "args": null, "retry_after": 10}),
        ),
    )
        .into_response()
}

/// One open socket counted against its client's and its game's caps; dropping it uncounts.
struct SocketSeat {
    st: AppState,
    client: ClientKey,
    h: Arc<crate::game::hub::Handle>,
}

impl SocketSeat {
    /// Counts a socket for `client` on game `h`, or None when either cap is reached.
    fn take(
        st: &AppState,
        client: ClientKey,
        h: &Arc<crate::game::hub::Handle>,
    ) -> Option<SocketSeat> {
        let per_client = st.limits.sockets_per_client;
        let per_game = st.limits.sockets_per_game;
        let mut open = st.open_sockets.lock().expect("sockets lock");
        let mine = open.get(&client).copied().unwrap_or(0);
        if per_client > 0 && mine >= per_client {
            return None;
        }
        if per_game > 0 && h.sockets.load(Ordering::Relaxed) >= per_game {
            return None;
        }
        open.insert(client, mine + 1);
        h.sockets.fetch_add(1, Ordering::Relaxed);
        Some(SocketSeat {
            st: st.clone(),
            client,
            h: h.clone(),
        })
    }
}

impl Drop for SocketSeat {
    fn drop(&mut self) {
        self.h.sockets.fetch_sub(1, Ordering::Relaxed);
        let mut open = self.st.open_sockets.lock().expect("sockets lock");
        if let Some(n) = open.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// A message from a socket client.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WsIn {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    channel: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    on: Option<bool>,
}

/// Sends one message within the send timeout; false: the socket is gone or too slow.
async fn send_within(socket: &mut WebSocket, msg: Message, limit: Duration) -> bool {
    matches!(
        tokio::time::timeout(limit, socket.send(msg)).await,
        Ok(Ok(()))
    )
}

/// The full state as a socket message (on connect, after falling behind, on `sync`).
fn snapshot_json(room: &crate::game::room::Room) -> Value {
    json!({"type": "state", "state": room.state(now_ms(), None, None)})
}

fn snapshot(room: &crate::game::room::Room) -> Message {
    Message::Text(snapshot_json(room).to_string().into())
}

async fn watch(
    mut socket: WebSocket,
    st: AppState,
    id: String,
    h: Arc<crate::game::hub::Handle>,
    client: ClientKey,
    _seat: SocketSeat,
    (auth, creds): (Auth, crate::cluster::forward::Creds),
) {
    let send_limit = st.limits.socket_send_timeout;
    let idle = st.limits.socket_idle;
    let mut rx = h.tx.subscribe();
    let mut chat = h.chat.subscribe();
    // Who this socket is: its account (cookie or API token) and whether it holds a seat (the
    // account's, or one a `hello` with a seat token proved).
    let mut me = SocketIdentity {
        who: auth.who.clone(),
        player: match auth.account_id() {
            Some(a) => h.room.lock().await.seat_of_account(a).is_some(),
            None => false,
        },
        muted: false,
        creds,
    };
    let mut gone = h.gone.subscribe();
    let first = snapshot(&*h.room.lock().await);
    if !send_within(&mut socket, first, send_limit).await {
        return;
    }
    // Ping at a third of the idle time; a client silent (no message, no pong) for the whole
    // idle time is closed.
    let mut ping = tokio::time::interval((idle / 3).max(Duration::from_millis(100)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ping.tick().await;
    let mut heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            ev = rx.recv() => {
                let msg = match ev {
                    Ok(msg) => Message::Text(msg.to_string().into()),
                    // Fallen behind: a fresh state instead of the missed events.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => snapshot(&*h.room.lock().await),
                    Err(_) => return,
                };
                if !send_within(&mut socket, msg, send_limit).await {
                    return; // a slow consumer: dropped; it reconnects and resyncs from the state
                }
            }
            ev = chat.recv() => {
                let msg = match ev {
                    Ok((players_only, msg)) => {
                        if players_only && !me.player { continue; }
                        if !players_only && me.player && me.muted { continue; }
                        Message::Text(msg.to_string().into())
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => return,
                };
                if !send_within(&mut socket, msg, send_limit).await {
                    return;
                }
            }
            _ = gone.changed() => {
                let bye = Message::Close(Some(axum::extract::ws::CloseFrame {
                    code: 1000,
                    reason: "the game is over and closed here; load it again to see it".into(),
                }));
                let _ = send_within(&mut socket, bye, send_limit).await;
                return;
            }
            _ = ping.tick() => {
                if heard.elapsed() >= idle {
                    let bye = Message::Close(Some(axum::extract::ws::CloseFrame {
                        code: 1001,
                        reason: "idle: nothing heard from this socket".into(),
                    }));
                    let _ = send_within(&mut socket, bye, send_limit).await;
                    return;
                }
                if !send_within(&mut socket, Message::Ping(Bytes::new()), send_limit).await {
                    return;
                }
            }
            msg = socket.recv() => {
                let Some(Ok(msg)) = msg else { return };
                heard = tokio::time::Instant::now();
                let text = match msg {
                    Message::Text(t) => t.to_string(),
                    Message::Close(_) => return,
                    _ => continue,
                };
                let reply = ws_reply_as(&st, &id, &text, &client, &mut me).await;
                if !send_within(&mut socket, Message::Text(reply.to_string().into()), send_limit).await {
                    return;
                }
            }
        }
    }
}

/// What a game socket knows of its client.
#[derive(Clone, Debug, Default)]
pub struct SocketIdentity {
    /// The signed-in account, if any.
    pub who: Option<crate::players::accounts::Identity>,
    /// It holds a seat (reads the players' chat).
    pub player: bool,
    /// A player muted the spectators' chat.
    pub muted: bool,
    /// The client's credentials, for actions forwarded to the game's owner.
    pub creds: crate::cluster::forward::Creds,
}

/// The answer to one socket message (`hello`, `ping`, `sync` or an action) from `client`.
pub async fn ws_reply(st: &AppState, id: &str, text: &str, client: &ClientKey) -> Value {
    ws_reply_as(st, id, text, client, &mut SocketIdentity::default()).await
}

/// The answer to one socket message (`hello`, `ping`, `sync`, an action, `chat`, `mute`) from a
/// client the socket knows as `me`.
pub async fn ws_reply_as(
    st: &AppState,
    id: &str,
    text: &str,
    client: &ClientKey,
    me: &mut SocketIdentity,
) -> Value {
    let msg: WsIn = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => {
            return json!({"type": "error", "id": null, "status": 400, "error": format!("bad message: {e}")})
        }
    };
    let mid = msg.id.clone().unwrap_or(Value::Null);
    let budget = if msg.action.is_some() {
        &st.budgets.actions
    } else {
        &st.budgets.requests
    };
    if let Err(r) = budget.check(client) {
        let secs = r.retry_secs();
        return json!({"type": "error", "id": mid, "status": 429, "retry_after": secs,
            "error": r.message(), "code": "limit.rate", "args": r.args()});
    }
    let err = |e: ActError| json!({"type": "error", "id": mid, "status": e.status, "error": e.message, "code": e.code, "args": e.args});
    let account = me.who.as_ref().map(|w| w.account.id.clone());
    match (msg.kind.as_deref(), msg.action.as_deref(), msg.token.as_deref()) {
        (Some("ping"), None, _) => json!({"type": "pong", "id": mid}),
        // The client missed a delta (its `base` was not the version it holds): the full state.
        (Some("sync"), None, _) => match st.hub.get(id).await {
            Ok(h) => {
                let mut v = snapshot_json(&*h.room.lock().await);
                v["id"] = mid.clone();
                v
            }
            Err(e) => err(e),
        },
        (Some("chat"), None, _) => {
            let Some(who) = me.who.clone() else {
                return err(crate::players::accounts::sign_in_first());
            };
            let h = match st.hub.get(id).await {
                Ok(h) => h,
                Err(e) => return err(e),
            };
            match crate::players::chat::post_message(
                st,
                &h,
                &who,
                me.player,
                client,
                msg.channel.as_deref().unwrap_or("spectators"),
                msg.text.as_deref().unwrap_or(""),
            )
            .await
            {
                Ok(m) => json!({"type": "chat_ack", "id": mid, "seq": m["seq"]}),
                Err(e) => err(e),
            }
        }
        (Some("mute"), None, _) => {
            if msg.channel.as_deref().unwrap_or("spectators") != "spectators" {
                return err(ActError::bad_request("mute: only the spectators' channel")
                    .with_code("chat.channel", Value::Null));
            }
            me.muted = msg.on.unwrap_or(true);
            json!({"type": "muted", "id": mid, "channel": "spectators", "on": me.muted})
        }
        (Some("hello"), None, token) if token.is_some() || account.is_some() => {
            let cred = match (token, account.as_deref()) {
                (Some(t), _) => Cred::Token(t),
                (None, Some(a)) => Cred::Account(a),
                (None, None) => unreachable!("guarded above"),
            };
            match st.hub.hello_as(id, cred).await {
                Ok(seat) => {
                    me.player = true;
                    let name = match st.hub.get(id).await {
                        Ok(h) => h.room.lock().await.seat_names()[seat],
                        Err(e) => return err(e),
                    };
                    json!({"type": "hello", "id": mid, "seat": name})
                }
                Err(e) => err(e),
            }
        }
        (None | Some("action"), Some(a), token) if token.is_some() || account.is_some() => {
            if a.trim().is_empty() {
                return err(ActError::bad_request("action: empty"));
            }
            let started = std::time::Instant::now();
            let reply = socket_action(st, id, a, token, account.as_deref(), client, me).await;
            match reply {
                Ok(version) => {
                    st.hub.metrics.ack.observe(started.elapsed());
                    json!({"type": "ack", "id": mid, "version": version})
                }
                Err((status, e)) => {
                    json!({"type": "error", "id": mid, "status": status, "error": e["error"], "code": e["code"], "args": e["args"]})
                }
            }
        }
        (None | Some("action"), Some(_), None) => {
            err(ActError::unauthorized("an action needs the seat's token (or a signed-in socket)"))
        }
        _ => err(ActError::bad_request(
            "expected {\"id\", \"token\", \"action\"}, {\"type\": \"hello\", \"token\"}, {\"type\": \"sync\"} or {\"type\": \"ping\"}",
        )),
    }
}

/// A socket's action, played here or sent to the game's owner: the new version, or the
/// status and body of the refusal.
async fn socket_action(
    st: &AppState,
    id: &str,
    action: &str,
    token: Option<&str>,
    account: Option<&str>,
    client: &ClientKey,
    me: &SocketIdentity,
) -> Result<Value, (u16, Value)> {
    // Another process owns the game: the action goes there with this client's credentials.
    if let Some(answer) =
        crate::cluster::forward::socket_action(st, id, token, &me.creds, client, action).await
    {
        return answer.map(|state| state["version"].clone());
    }
    let cred = match (token, account) {
        (Some(t), _) => Cred::Token(t),
        (None, Some(acc)) => Cred::Account(acc),
        (None, None) => {
            return Err((
                401,
                ActError::unauthorized("an action needs the seat's token (or a signed-in socket)")
                    .to_json(),
            ))
        }
    };
    match st.hub.act_version(id, cred, action).await {
        Ok(v) => Ok(Value::from(v)),
        // The game went to another process meanwhile (nothing was stored): played there.
        Err(e) if e.code == crate::game::hub::MOVED_CODE => {
            match crate::cluster::forward::socket_action(st, id, token, &me.creds, client, action)
                .await
            {
                Some(answer) => answer.map(|state| state["version"].clone()),
                None => Err((e.status, e.to_json())),
            }
        }
        Err(e) => Err((e.status, e.to_json())),
    }
}
