//! Owns: people: accounts, passwords and sessions (`accounts`), the players' pages and API (this
//! file), seeks and their matching (`seeks`), chat (`chat`). May use: `game`, `store`, `cluster`
//! and the web side's shared state (`state`). Never `crate::http` or `crate::review`.
//!
//! The players' HTTP side: who a request is (session cookie with CSRF, or API token), sign-up,
//! sign-in and guests, API tokens, profiles, the account's games (`my_games`), the players
//! online, handicap suggestions and the bots' ratings. docs/api.md, "Players".

pub mod accounts;
pub mod away;
pub mod chat;
mod my_games;
pub mod seeks;
pub mod tokens;

use crate::game::ratings::{bots_for, kind_of, rating_json, KINDS};
use crate::game::room::{ActError, Player, Room};
use crate::players::accounts::{
    csrf_refused, session_ended, sign_in_first, wrong_login, Account, Identity, SessionLookup, Via,
    COOKIE, SESSION_MS,
};
use crate::state::limit::ClientKey;
use crate::state::{parse_json as parse, too_many, AppState};
use crate::store::Store;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Extension, Json, Router};
use baduk_rating::{go_rank, Rating};
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::Row;
use std::collections::BTreeMap;
use subtle::ConstantTimeEq;
use unicode_normalization::UnicodeNormalization;

/// Who is asking, as the middleware found out.
#[derive(Clone, Debug, Default)]
pub struct Auth {
    /// The account, if the request proved one.
    pub who: Option<Identity>,
    /// The request carried a session cookie that no longer works.
    pub ended: bool,
}

impl Auth {
    /// The identity, or 401 (`auth.ended` for a dead session, else `auth.required`).
    pub fn require(&self) -> Result<&Identity, ActError> {
        match (&self.who, self.ended) {
            (Some(i), _) => Ok(i),
            (None, true) => Err(session_ended()),
            (None, false) => Err(sign_in_first()),
        }
    }

    /// The account's id, if signed in.
    pub fn account_id(&self) -> Option<&str> {
        self.who.as_ref().map(|i| i.account.id.as_str())
    }
}

/// The routes of accounts, tokens and profiles (under the API's rate limit and identity layer).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/auth/signup", post(signup))
        .route("/api/auth/login", post(login))
        .route("/api/auth/guest", post(guest))
        .route("/api/auth/logout", post(logout))
        .route("/api/auth/logout-all", post(logout_all))
        .route("/api/me", get(me))
        .route("/api/me/games", get(my_games::my_games))
        .route(
            "/api/tokens",
            get(tokens::list_tokens).post(tokens::create_token),
        )
        .route("/api/tokens/{id}", delete(tokens::revoke_token))
        .route("/api/players", get(players_online))
        .route("/api/players/{name}", get(profile))
        .route("/api/players/{name}/games.sgf", get(games_sgf))
        .route("/api/suggest", get(suggest))
        .merge(away::routes())
}

fn cookie_value<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

/// The `Authorization: Bearer` credential of a request (an API token or a seat token).
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let t = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))?;
    Some(t.trim())
}

/// Routes a stale cookie does not block: they make a new session.
pub(crate) const SESSION_MAKERS: &[&str] =
    &["/api/auth/signup", "/api/auth/login", "/api/auth/guest"];

fn same_origin(headers: &HeaderMap) -> bool {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    match (host, origin) {
        (Some(h), Some(o)) => o
            .split_once("://")
            .is_some_and(|(_, rest)| rest.trim_end_matches('/') == h),
        // Non-browser clients send no Origin: they cannot be a forged cross-site socket.
        (_, None) => true,
        _ => false,
    }
}

/// Login CSRF: a page on another site must not sign its visitor in (as the attacker) or swap
/// their session. Sign-up, sign-in and guest are refused `403` `auth.origin` when the browser
/// says the request is not from this server's own pages (`Origin` other than `Host`, the same
/// test as a socket's, or `Sec-Fetch-Site` of `cross-site` or `same-site`: the server's pages are
/// `same-origin`, and a sibling subdomain is not the server), and `415` `auth.content_type` for a
/// body that is not `application/json` (a cross-site form can send only `text/plain`, urlencoded
/// or multipart without a preflight; guest may have no body at all). A client that sends neither
/// header is no browser, so no victim's cookie rides on it: the CLI, bots and scripts pass.
fn session_maker_refused(headers: &HeaderMap, path: &str) -> Option<ActError> {
    let fetch_site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase());
    if !same_origin(headers) || matches!(fetch_site.as_deref(), Some("cross-site" | "same-site")) {
        return Some(
            ActError::forbidden(
                "sign-up, sign-in and guest are accepted only from this server's own pages \
                 (Origin and Sec-Fetch-Site); nothing was changed",
            )
            .with_code("auth.origin", Value::Null),
        );
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or(""));
    let json = content_type.is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    let body_less_guest = path == "/api/auth/guest" && content_type.is_none();
    if !json && !body_less_guest {
        return Some(
            ActError::new(
                415,
                "sign-up, sign-in and guest take only Content-Type: application/json",
            )
            .with_code("auth.content_type", Value::Null),
        );
    }
    None
}

/// The identity layer of `/api/` and `/ws/`: reads the API token or the session cookie, checks
/// the CSRF token of every state change made with the cookie, and leaves [`Auth`] for the
/// handlers.
pub async fn identify(State(st): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    if !(path.starts_with("/api/") || path.starts_with("/ws/")) {
        return next.run(req).await;
    }
    // Only a trusted proxy says how the client came in (TLS or not): a stranger's header goes.
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    if !peer.is_some_and(|ip| st.trusted.iter().any(|c| c.contains(ip))) {
        req.headers_mut().remove("x-forwarded-proto");
    }
    let headers = req.headers();
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes && SESSION_MAKERS.contains(&path.as_str()) {
        if let Some(e) = session_maker_refused(headers, &path) {
            return e.into_response();
        }
    }
    let mut auth = Auth::default();
    match bearer(headers) {
        Some(t) if t.starts_with(accounts::API_TOKEN_PREFIX) => {
            match st.hub.store.api_token_account(t).await {
                Ok(Some((account, scopes))) => {
                    let who = Identity {
                        account,
                        via: Via::ApiToken { scopes },
                    };
                    if let Err(e) = tokens::token_may(&who, req.method(), &path) {
                        return e.into_response();
                    }
                    auth.who = Some(who);
                }
                Ok(None) => {
                    return ActError::unauthorized("unknown or revoked API token")
                        .with_code("auth.token", Value::Null)
                        .into_response()
                }
                Err(e) => return accounts::storage(e).into_response(),
            }
        }
        // A seat token: the cookie plays no part in this request.
        Some(_) => {}
        None => {
            if let Some(c) = cookie_value(headers, COOKIE) {
                match st.hub.store.session(c).await {
                    Ok(SessionLookup::Live(id)) => auth.who = Some(id),
                    Ok(SessionLookup::Ended | SessionLookup::Unknown) => auth.ended = true,
                    Err(e) => return accounts::storage(e).into_response(),
                }
            }
        }
    }
    if let Some(Identity {
        via: Via::Session { csrf, .. },
        ..
    }) = &auth.who
    {
        if changes {
            let given = headers
                .get("x-csrf-token")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            if !bool::from(given.as_bytes().ct_eq(csrf.as_bytes())) {
                return csrf_refused().into_response();
            }
        } else if path.starts_with("/ws/") && !same_origin(headers) {
            // A cross-site page cannot ride the cookie into a socket: it watches as a stranger.
            auth.who = None;
        }
    }
    if changes && auth.ended && auth.who.is_none() && !SESSION_MAKERS.contains(&path.as_str()) {
        return session_ended().into_response();
    }
    if let Some(id) = &auth.who {
        if let Err(e) = tokens::bot_may(id, req.method(), &path) {
            return e.into_response();
        }
        st.touch(&id.account.id);
    }
    req.extensions_mut().insert(auth);
    next.run(req).await
}

fn set_cookie(st: &AppState, headers: &HeaderMap, token: &str, max_age: i64) -> HeaderValue {
    let tls = st.limits.secure_cookies
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|p| p.eq_ignore_ascii_case("https"));
    let secure = if tls { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}"
    ))
    .expect("a cookie of hex digits is a header value")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credentials {
    username: String,
    password: String,
}

/// An account's ratings: `{KIND: {"rating", "deviation", "games", "rank"}}`.
pub async fn ratings_of(store: &Store, account_id: &str) -> Result<Value, ActError> {
    let rows = sqlx::query(
        "SELECT kind, rating, deviation, volatility, games FROM ratings WHERE account_id = $1",
    )
    .bind(account_id)
    .fetch_all(&store.pool)
    .await
    .map_err(|e| accounts::storage(e.into()))?;
    let mut m = serde_json::Map::new();
    for r in rows {
        let kind: String = r.try_get(0).map_err(|e| accounts::storage(e.into()))?;
        let rating = Rating {
            rating: r.try_get(1).map_err(|e| accounts::storage(e.into()))?,
            deviation: r.try_get(2).map_err(|e| accounts::storage(e.into()))?,
            volatility: r.try_get(3).map_err(|e| accounts::storage(e.into()))?,
        };
        let games: i64 = r.try_get(4).map_err(|e| accounts::storage(e.into()))?;
        m.insert(kind.clone(), rating_json(&kind, &rating, games));
    }
    Ok(Value::Object(m))
}

/// One rating of an account (a new player's when it has none): (rating, deviation, games).
pub async fn rating_for(
    store: &Store,
    account_id: &str,
    kind: &str,
) -> Result<(f64, f64, i64), ActError> {
    let row = sqlx::query(
        "SELECT rating, deviation, games FROM ratings WHERE account_id = $1 AND kind = $2",
    )
    .bind(account_id)
    .bind(kind)
    .fetch_optional(&store.pool)
    .await
    .map_err(|e| accounts::storage(e.into()))?;
    Ok(match row {
        Some(r) => (
            r.try_get(0).map_err(|e| accounts::storage(e.into()))?,
            r.try_get(1).map_err(|e| accounts::storage(e.into()))?,
            r.try_get(2).map_err(|e| accounts::storage(e.into()))?,
        ),
        None => (1500.0, 350.0, 0),
    })
}

/// An account as a seat shows it, with its rating for `kind`.
pub async fn player_of(
    store: &Store,
    account: &Account,
    kind: Option<&str>,
) -> Result<Player, ActError> {
    let rating = match kind {
        Some(k) => Some(rating_for(store, &account.id, k).await?),
        None => None,
    };
    Ok(Player {
        id: account.id.clone(),
        name: account.name.clone(),
        rating,
        bot: account.bot,
        away: store
            .away_of(&account.id)
            .await
            .map_err(accounts::storage)?,
    })
}

/// An account as its owner reads it: `{"name", "guest", "bot", "created_at", "ratings"}`.
pub(crate) async fn account_json(store: &Store, a: &Account) -> Result<Value, ActError> {
    Ok(
        json!({"name": a.name, "guest": a.guest, "bot": a.bot, "created_at": a.created_at,
        "ratings": ratings_of(store, &a.id).await?}),
    )
}

async fn signed_in(
    st: &AppState,
    headers: &HeaderMap,
    account: &Account,
    status: StatusCode,
) -> Result<Response, ActError> {
    let (token, csrf) = st
        .hub
        .store
        .create_session(&account.id)
        .await
        .map_err(accounts::storage)?;
    let body = json!({"account": account_json(&st.hub.store, account).await?, "csrf": csrf});
    Ok((
        status,
        [(
            header::SET_COOKIE,
            set_cookie(st, headers, &token, SESSION_MS / 1000),
        )],
        Json(body),
    )
        .into_response())
}

/// Sign-ups and sign-ins that may wait for a password hash at once; more are answered 503.
pub const HASH_QUEUE: usize = 256;

/// Password hashes running at once: one a core. Each holds argon2's 19 MiB on its own blocking
/// thread, so without this cap a burst of sign-ups took a thread and its memory each (1,000 at
/// once left the server at 9.6 GiB).
fn hashing() -> &'static tokio::sync::Semaphore {
    static HASHING: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    HASHING.get_or_init(|| {
        tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    })
}

/// Requests waiting for a hash now (see [`HASH_QUEUE`]).
static HASH_WAITING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Counts one waiter while it lives (a client that hangs up leaves the queue).
struct Waiting;

impl Drop for Waiting {
    fn drop(&mut self) {
        HASH_WAITING.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Runs a password hash or check on a blocking thread, at most one a core at once.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ActError> {
    use std::sync::atomic::Ordering;
    let waiting = Waiting;
    if HASH_WAITING.fetch_add(1, Ordering::Relaxed) >= HASH_QUEUE {
        return Err(ActError::busy(
            "the server is busy checking passwords: try again in a few seconds",
        ));
    }
    let permit = hashing()
        .acquire()
        .await
        .expect("the semaphore is never closed");
    drop(waiting);
    let out = tokio::task::spawn_blocking(f)
        .await
        .expect("a password hash does not panic");
    drop(permit);
    Ok(out)
}

async fn signup(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    Extension(auth): Extension<Auth>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ActError> {
    let req: Credentials = parse(&body)?;
    let (name, key) = accounts::normalise_name(&req.username)?;
    accounts::check_password(&req.password)?;
    if let Err(r) = st.budgets.signups.take(&client).await {
        return Ok(too_many(r));
    }
    // A name that looks like another account's (`aIice` beside `alice`) is refused.
    if let Some(other) = st
        .hub
        .store
        .look_alike_of(&name, &key)
        .await
        .map_err(accounts::storage)?
    {
        return Err(accounts::look_alike(&other));
    }
    let password = req.password.clone();
    let hash = blocking(move || accounts::hash_password(&password)).await?;
    let taken =
        || ActError::conflict("that username is taken").with_code("auth.taken", Value::Null);
    let account = match auth.who.as_ref() {
        // A guest keeps its games: it becomes this account.
        Some(Identity {
            account: a,
            via: Via::Session { token_hash, .. },
        }) if a.guest => {
            match st.hub.store.upgrade_guest(&a.id, &name, &key, &hash).await {
                Ok(true) => {}
                Ok(false) => {
                    return Err(ActError::conflict("this guest is already a named account"))
                }
                Err(crate::store::StoreError::Conflict) => return Err(taken()),
                Err(e) => return Err(accounts::storage(e)),
            }
            let _ = st.hub.store.end_session(token_hash).await;
            st.hub.renamed(&a.id, &name).await;
            Account {
                name,
                guest: false,
                ..a.clone()
            }
        }
        _ => match st
            .hub
            .store
            .create_account(&name, &key, Some(&hash), false)
            .await
        {
            Ok(a) => a,
            Err(crate::store::StoreError::Conflict) => return Err(taken()),
            Err(e) => return Err(accounts::storage(e)),
        },
    };
    signed_in(&st, &headers, &account, StatusCode::CREATED).await
}

async fn login(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    Extension(auth): Extension<Auth>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ActError> {
    let req: Credentials = parse(&body)?;
    if let Err(r) = st.budgets.logins.take(&client).await {
        return Ok(too_many(r));
    }
    let key: String = req
        .username
        .trim()
        .nfkc()
        .collect::<String>()
        .to_lowercase();
    if key.len() > 100 || req.password.len() > accounts::PASSWORD_MAX {
        return Err(wrong_login());
    }
    // Guessing is throttled per address and name; the name's own budget (all addresses) only
    // holds back addresses that have not signed in to it lately, so its owner is never locked out.
    if let Err(r) = st.login_names.take(&(client, key.clone())).await {
        return Ok(too_many(r));
    }
    if !st.login_known.contains(&key, &client) {
        if let Err(r) = st.login_accounts.take(&key).await {
            return Ok(too_many(r));
        }
    }
    let found = st
        .hub
        .store
        .account_by_key(&key)
        .await
        .map_err(accounts::storage)?;
    let (account, hash) = match found {
        Some((a, h)) => (Some(a), h),
        None => (None, None),
    };
    let password = req.password.clone();
    let ok = blocking(move || accounts::verify_password(&password, hash.as_deref())).await?;
    let Some(account) = account.filter(|_| ok) else {
        return Err(wrong_login());
    };
    st.login_known.insert(&key, client);
    if let Some(Identity {
        via: Via::Session { token_hash, .. },
        ..
    }) = &auth.who
    {
        let _ = st.hub.store.end_session(token_hash).await;
    }
    signed_in(&st, &headers, &account, StatusCode::OK).await
}

async fn guest(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    headers: HeaderMap,
) -> Result<Response, ActError> {
    if let Err(r) = st.budgets.guests.take(&client).await {
        return Ok(too_many(r));
    }
    for _ in 0..5 {
        let name = format!("guest-{}", &crate::game::hub::new_id()[..6]);
        match st.hub.store.create_account(&name, &name, None, true).await {
            Ok(a) => return signed_in(&st, &headers, &a, StatusCode::CREATED).await,
            Err(crate::store::StoreError::Conflict) => continue,
            Err(e) => return Err(accounts::storage(e)),
        }
    }
    Err(ActError::internal("no free guest name; try again"))
}

fn cleared(st: &AppState, headers: &HeaderMap) -> Response {
    (
        StatusCode::OK,
        [(header::SET_COOKIE, set_cookie(st, headers, "", 0))],
        Json(json!({"ok": true})),
    )
        .into_response()
}

async fn logout(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    headers: HeaderMap,
) -> Result<Response, ActError> {
    let who = auth.require()?;
    if let Via::Session { token_hash, .. } = &who.via {
        st.hub
            .store
            .end_session(token_hash)
            .await
            .map_err(accounts::storage)?;
    }
    Ok(cleared(&st, &headers))
}

async fn logout_all(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    headers: HeaderMap,
) -> Result<Response, ActError> {
    let who = tokens::by_session(&auth)?;
    st.hub
        .store
        .end_sessions(&who.account.id)
        .await
        .map_err(accounts::storage)?;
    Ok(cleared(&st, &headers))
}

async fn me(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    let csrf = match &who.via {
        Via::Session { csrf, .. } => Value::String(csrf.clone()),
        Via::ApiToken { .. } => Value::Null,
    };
    let mut body =
        json!({"account": account_json(&st.hub.store, &who.account).await?, "csrf": csrf});
    body["account"]["vacation"] = away::vacation_now(&st.hub.store, &who.account.id).await?;
    if let Via::ApiToken { scopes } = &who.via {
        body["scopes"] = json!(scopes);
    }
    Ok(Json(body))
}

/// Accounts seen within this long are online (ms).
pub const ONLINE_MS: i64 = 120_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OnlineQuery {
    #[serde(default)]
    online: Option<bool>,
}

async fn players_online(
    State(st): State<AppState>,
    q: Result<Query<OnlineQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    if q.online == Some(false) {
        return Err(ActError::bad_request(
            "online: only the players online are listed",
        ));
    }
    let accounts = st
        .hub
        .store
        .online(crate::game::hub::now_ms() - ONLINE_MS, 100)
        .await
        .map_err(accounts::storage)?;
    let mut out = Vec::new();
    for a in accounts {
        out.push(json!({"name": a.name, "guest": a.guest, "bot": a.bot, "ratings": ratings_of(&st.hub.store, &a.id).await?}));
    }
    Ok(Json(json!({ "players": out })))
}

/// The lookup key of a player's name (404 when it cannot be one).
pub(crate) fn name_key(name: &str) -> Result<String, ActError> {
    if name.is_empty() || name.len() > 100 {
        return Err(ActError::not_found("no such player"));
    }
    Ok(name.trim().nfkc().collect::<String>().to_lowercase())
}

async fn named(st: &AppState, name: &str) -> Result<Account, ActError> {
    let key = name_key(name)?;
    match st
        .hub
        .store
        .account_by_key(&key)
        .await
        .map_err(accounts::storage)?
    {
        Some((a, _)) if !a.guest => Ok(a),
        _ => Err(ActError::not_found(format!("no player `{}`", key))
            .with_code("player.none", Value::Null)),
    }
}

/// The SQL condition on `g` (games) of what a profile shows: every game to the account itself,
/// only the listed ones to anybody else (an unlisted game appears nowhere but to its players).
fn shown_to(viewer: &Auth, account: &Account) -> &'static str {
    if viewer.account_id() == Some(account.id.as_str()) {
        "1 = 1"
    } else {
        "g.listed = 1"
    }
}

async fn profile(
    State(st): State<AppState>,
    Path(name): Path<String>,
    Extension(viewer): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let a = named(&st, &name).await?;
    let store = &st.hub.store;
    let e = |e: sqlx::Error| accounts::storage(e.into());
    let own = viewer.account_id() == Some(a.id.as_str());
    let hist = sqlx::query(
        "SELECT h.kind, h.at, h.rating, h.deviation, h.game_id, COALESCE(g.listed, 1), \
         h.rating_before, h.deviation_before FROM rating_history h LEFT JOIN games g ON g.id = h.game_id WHERE h.account_id = $1 \
         ORDER BY h.at LIMIT 2000",
    )
    .bind(&a.id)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    let mut history: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for r in hist {
        let kind: String = r.try_get(0).map_err(e)?;
        // The rating change shows; an unlisted game's id does not (but to the player).
        let listed = r.try_get::<i64, _>(5).map_err(e)? != 0;
        let game = r.try_get::<String, _>(4).map_err(e)?;
        history.entry(kind).or_default().push(json!({
            "at": r.try_get::<i64, _>(1).map_err(e)?,
            "rating": r.try_get::<f64, _>(2).map_err(e)?.round(),
            "deviation": r.try_get::<f64, _>(3).map_err(e)?.round(),
            "game": (listed || own).then_some(game),
            // Where this game started from: the first one's is the initial rating.
            "rating_before": r.try_get::<f64, _>(6).map_err(e)?.round(),
            "deviation_before": r.try_get::<f64, _>(7).map_err(e)?.round(),
        }));
    }
    let rows = sqlx::query(&format!(
        "SELECT g.summary, s.seat, g.status FROM games g JOIN seats s ON s.game_id = g.id \
         WHERE s.account_id = $1 AND g.status <> 'cancelled' AND {} \
         ORDER BY g.updated_at DESC LIMIT 500",
        shown_to(&viewer, &a)
    ))
    .bind(&a.id)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    let mut games = Vec::new();
    let mut opponents: BTreeMap<String, [u32; 3]> = BTreeMap::new();
    for r in rows {
        let summary: String = r.try_get(0).map_err(e)?;
        let seat: i64 = r.try_get(1).map_err(e)?;
        let status: String = r.try_get(2).map_err(e)?;
        let mut v: Value = serde_json::from_str(&summary).unwrap_or(Value::Null);
        let (mine, theirs) = match v["game"].as_str() {
            Some("go") => (
                ["black", "white"][seat as usize % 2],
                ["white", "black"][seat as usize % 2],
            ),
            _ => (["A", "B"][seat as usize % 2], ["B", "A"][seat as usize % 2]),
        };
        // The profile's player's seat: the summary keeps the name a seat had when the game
        // was played (a guest's, before it signed up), so a page cannot find it by name.
        if v.is_object() {
            v["seat"] = json!(mine);
        }
        if status == "finished" {
            let other = v["seats"][theirs]["player"]["name"]
                .as_str()
                .map(str::to_string)
                .or_else(|| {
                    v["seats"][theirs]["bot"]
                        .as_str()
                        .map(|b| format!("{b} (bot)"))
                });
            if let Some(o) = other {
                let t = opponents.entry(o).or_default();
                match v["winner"].as_str() {
                    Some(w) if w == mine => t[0] += 1,
                    Some(_) => t[1] += 1,
                    None => t[2] += 1,
                }
            }
        }
        if games.len() < 50 {
            games.push(v);
        }
    }
    let opponents: Vec<Value> = opponents
        .into_iter()
        .map(|(n, t)| json!({"name": n, "wins": t[0], "losses": t[1], "draws": t[2]}))
        .collect();
    let seen = store.seen_at(&a.id).await.map_err(accounts::storage)?;
    Ok(Json(json!({
        "name": a.name, "guest": a.guest, "bot": a.bot, "created_at": a.created_at,
        "online": crate::game::hub::now_ms() - seen < ONLINE_MS,
        "vacation": away::vacation_now(store, &a.id).await?["on"],
        "ratings": ratings_of(store, &a.id).await?,
        "history": history, "games": games, "opponents": opponents,
    })))
}

/// The most games one SGF collection download holds.
pub const SGF_COLLECTION_MAX: i64 = 100;

async fn games_sgf(
    State(st): State<AppState>,
    Path(name): Path<String>,
    Extension(viewer): Extension<Auth>,
) -> Result<Response, ActError> {
    let a = named(&st, &name).await?;
    let store = &st.hub.store;
    let e = |e: sqlx::Error| accounts::storage(e.into());
    let ids = sqlx::query(&format!(
        "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id WHERE s.account_id = $1 \
         AND g.status = 'finished' AND g.game = 'go' AND {} ORDER BY g.updated_at DESC LIMIT $2",
        shown_to(&viewer, &a)
    ))
    .bind(&a.id)
    .bind(SGF_COLLECTION_MAX)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    let mut games = Vec::new();
    for r in ids {
        let id: String = r.try_get(0).map_err(e)?;
        if let Ok(Some(g)) = store.load(&id).await {
            games.push((id, g));
        }
    }
    // Replaying and writing up to a hundred games is CPU work: off the runtime.
    let out = crate::game::work::heavy()
        .run(move || {
            let mut out = String::new();
            for (id, g) in games {
                if let Ok(room) = Room::from_stored(&id, g) {
                    out.push_str(room.record().trim_end());
                    out.push('\n');
                }
            }
            out
        })
        .await?;
    let file = format!(
        "attachment; filename=\"baduk-{}.sgf\"",
        a.name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect::<String>()
    );
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-go-sgf; charset=utf-8".to_string(),
            ),
            (header::CONTENT_DISPOSITION, file),
        ],
        out,
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SuggestQuery {
    opponent: String,
    #[serde(default)]
    kind: Option<String>,
}

/// Handicap stones and komi for a rank gap of `gap` ranks (100 rating points a rank): even below
/// one rank; komi 0.5 (Black plays first, no komi) at one rank; beyond that one stone a rank, at
/// most 9, with komi 0.5.
pub fn handicap_for_gap(gap: f64) -> (u32, Option<f64>) {
    let ranks = (gap.abs() / 100.0).round() as u32;
    match ranks {
        0 => (0, None),
        1 => (0, Some(0.5)),
        n => (n.min(9), Some(0.5)),
    }
}

async fn suggest(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    q: Result<Query<SuggestQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    let who = auth.require()?;
    let kind = q.kind.unwrap_or_else(|| "go19".into());
    if !KINDS.contains(&kind.as_str()) || kind == "wallgo" {
        return Err(ActError::bad_request("kind: go19 or go-small"));
    }
    let other = named(&st, &q.opponent).await?;
    let mine = rating_for(&st.hub.store, &who.account.id, &kind).await?;
    let theirs = rating_for(&st.hub.store, &other.id, &kind).await?;
    let (handicap, komi) = handicap_for_gap(mine.0 - theirs.0);
    let black = if mine.0 <= theirs.0 {
        &who.account.name
    } else {
        &other.name
    };
    Ok(Json(
        json!({"handicap": handicap, "komi": komi, "black": black,
        "ranks": [go_rank(mine.0), go_rank(theirs.0)]}),
    ))
}

/// The server's own bots' ratings by kind: `{KIND: [{"bot", "options", "rating", "rank"}…]}`
/// (`GET /api/bots` carries them beside the bot accounts).
pub fn bot_levels() -> Value {
    let mut m = serde_json::Map::new();
    for kind in KINDS {
        let list: Vec<Value> = bots_for(kind)
            .into_iter()
            .map(|(b, o, r)| {
                json!({"bot": b, "options": o, "rating": r,
                    "rank": kind.starts_with("go").then(|| go_rank(r))})
            })
            .collect();
        m.insert(kind.to_string(), Value::Array(list));
    }
    Value::Object(m)
}

/// The rating kind of a game's settings as the API names it (for seats and seeks).
pub fn kind_name(settings: &crate::game::room::Settings) -> Option<&'static str> {
    kind_of(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handicap_is_one_stone_a_rank_beyond_the_first() {
        assert_eq!(handicap_for_gap(30.0), (0, None));
        assert_eq!(handicap_for_gap(-110.0), (0, Some(0.5)));
        assert_eq!(handicap_for_gap(420.0), (4, Some(0.5)));
        assert_eq!(handicap_for_gap(2000.0), (9, Some(0.5)));
    }
}
