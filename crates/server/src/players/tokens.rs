//! Personal API tokens over HTTP: what a token may do (its scopes, and the account-level routes
//! that need the session cookie), and making, listing and revoking tokens. docs/api.md, "API
//! tokens".

use crate::game::room::ActError;
use crate::players::accounts::{self, Identity, Via};
use crate::players::{Auth, SESSION_MAKERS};
use crate::state::{parse_json as parse, AppState};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};

/// Account-level routes (signing out everywhere, the API tokens): the session cookie only.
const SESSION_ONLY: &[&str] = &["/api/auth/logout-all", "/api/tokens"];

/// Whether an API token may make this request: the account-level routes need the cookie
/// (`403` `auth.session_only`); a game socket or a seek's, and every GET, need `read` (a seek's
/// socket `play`: it waits to be paired); challenges need `challenge` or `bot` (their GETs
/// `read` too) and the event stream `read`, `challenge` or `bot`; every other change needs
/// `play` (`403` `auth.scope`).
/// Sign-up, sign-in, guest and sign-out make or end sessions: no scope. The socket checks `play`
/// again before it acts or chats for the account.
pub(crate) fn token_may(who: &Identity, method: &Method, path: &str) -> Result<(), ActError> {
    let under = |p: &str| path == p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/'));
    // Becoming a bot is the owner's act (`/api/account/bot` itself; its `/accepts` is a bot token's).
    if SESSION_ONLY.iter().any(|p| under(p)) || path == "/api/account/bot" {
        return Err(accounts::session_only());
    }
    if SESSION_MAKERS.contains(&path) || path == "/api/auth/logout" {
        return Ok(());
    }
    // The Bot API: a `bot` token does its own list of things (below).
    if who.bot_token() {
        return bot_token_may(method, path);
    }
    if path.starts_with("/ws/seeks/") {
        return who.may(accounts::PLAY);
    }
    // Challenges: `challenge` or `bot` (a GET, `read` too); the account's event stream reads.
    if under("/api/challenges") {
        return if matches!(*method, Method::GET | Method::HEAD) {
            who.may_any(&[accounts::CHALLENGE, accounts::BOT, accounts::READ])
        } else {
            who.may_any(&[accounts::CHALLENGE, accounts::BOT])
        };
    }
    if path == "/api/stream/events" {
        return who.may_any(&[accounts::READ, accounts::CHALLENGE, accounts::BOT]);
    }
    if path.starts_with("/ws/") || matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return who.may(accounts::READ);
    }
    who.may(accounts::PLAY)
}

/// The changes a `bot` token makes besides reading: actions and chat in its account's games
/// (`/api/games/{id}/actions`, `/api/games/{id}/chat`), challenges, what its bot accepts, and
/// entering tournaments (`/api/tournaments/{id}/join`, `…/checkin`, `…/withdraw`).
fn bot_token_change(path: &str) -> bool {
    let under = |p: &str| path == p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/'));
    if under("/api/challenges") || path == "/api/account/bot/accepts" {
        return true;
    }
    let event = path.strip_prefix("/api/tournaments/").unwrap_or("");
    if matches!(event.split_once('/'), Some((id, "join" | "checkin" | "withdraw")) if !id.is_empty() && !id.contains('/'))
    {
        return true;
    }
    let game = path.strip_prefix("/api/games/").unwrap_or("");
    matches!(game.split_once('/'), Some((id, "actions" | "chat")) if !id.is_empty() && !id.contains('/'))
}

/// What a `bot`-scope token may do: read (GETs, streams and game sockets), act and chat in its
/// account's games, challenges, `PUT /api/account/bot/accepts`, enter tournaments; never seek (`403` `seek.bot`);
/// anything else `403` `auth.scope`.
fn bot_token_may(method: &Method, path: &str) -> Result<(), ActError> {
    if path.starts_with("/ws/seeks/") || path == "/api/seeks" || path.starts_with("/api/seeks/") {
        return Err(bots_never_seek());
    }
    if path.starts_with("/ws/")
        || matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
        || bot_token_change(path)
    {
        return Ok(());
    }
    Err(ActError::forbidden(
        "a bot token plays its account's games (actions, chat), challenges and streams; \
         it does not do this",
    )
    .with_code(
        "auth.scope",
        json!({"scope": "play", "scopes": [accounts::BOT]}),
    ))
}

/// 403 `seek.bot`: bots never seek ("play now"); people challenge them.
pub(crate) fn bots_never_seek() -> ActError {
    ActError::forbidden("a bot account never seeks: people challenge it")
        .with_code("seek.bot", Value::Null)
}

/// What a bot account may do with this request, whatever proved it: no seeks (`403`
/// `seek.bot`), and making games, joining, acting and chatting through a `bot` token only (`403`
/// `bot.token_only`). Anyone else: no limit here.
pub(crate) fn bot_may(who: &Identity, method: &Method, path: &str) -> Result<(), ActError> {
    if !who.account.bot {
        return Ok(());
    }
    if path.starts_with("/ws/seeks/") || (path == "/api/seeks" && *method == Method::POST) {
        return Err(bots_never_seek());
    }
    if who.bot_token() || matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    let game = path.strip_prefix("/api/games/").unwrap_or("");
    let plays = path == "/api/games"
        || matches!(game.split_once('/'), Some((_, "actions" | "join" | "chat")));
    if plays {
        return Err(accounts::bot_token_only());
    }
    Ok(())
}

/// The account behind a session (the cookie): an API token does no account-level action, so
/// a stolen one cannot breed more tokens or sign its owner out (the identity layer refuses it
/// already; this holds whatever routes the request).
pub(crate) fn by_session(auth: &Auth) -> Result<&Identity, ActError> {
    let who = auth.require()?;
    match who.via {
        Via::Session { .. } => Ok(who),
        Via::ApiToken { .. } => Err(accounts::session_only()),
    }
}

/// `GET /api/tokens`: the account's live tokens and their scopes.
pub(crate) async fn list_tokens(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let who = by_session(&auth)?;
    let tokens = st
        .hub
        .store
        .api_tokens(&who.account.id)
        .await
        .map_err(accounts::storage)?;
    Ok(Json(json!({ "tokens": tokens })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenReq {
    #[serde(default)]
    label: Option<String>,
    /// The token's scopes ([`accounts::SCOPES`]); absent: `read` and `play`.
    #[serde(default)]
    scopes: Option<Vec<String>>,
}

/// `POST /api/tokens`: a new token holding the chosen scopes (shown this once).
pub(crate) async fn create_token(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    body: Bytes,
) -> Result<Response, ActError> {
    let who = by_session(&auth)?;
    if who.account.guest {
        return Err(
            ActError::forbidden("guests have no API tokens: sign up first")
                .with_code("auth.guest", Value::Null),
        );
    }
    let req: TokenReq = if body.is_empty() {
        TokenReq {
            label: None,
            scopes: None,
        }
    } else {
        parse(&body)?
    };
    let label: String = req.label.unwrap_or_default().trim().chars().collect();
    if label.chars().count() > 60 || label.chars().any(char::is_control) {
        return Err(ActError::bad_request(
            "label: at most 60 characters, no control characters",
        ));
    }
    let scopes = accounts::chosen_scopes(req.scopes.as_deref())?;
    if scopes.contains(&accounts::BOT) && !who.account.bot {
        return Err(ActError::forbidden(
            "the `bot` scope is for bot accounts only (POST /api/account/bot makes one)",
        )
        .with_code("auth.bot_scope", Value::Null));
    }
    match st
        .hub
        .store
        .create_api_token(&who.account.id, &label, &scopes)
        .await
        .map_err(accounts::storage)?
    {
        Some((id, token)) => Ok((
            StatusCode::CREATED,
            Json(json!({"id": id, "label": label, "scopes": scopes, "token": token})),
        )
            .into_response()),
        None => Err(ActError::too_many(format!(
            "at most {} API tokens: revoke one first",
            accounts::API_TOKENS_MAX
        ))),
    }
}

/// `DELETE /api/tokens/{id}`: revokes one of the account's tokens.
pub(crate) async fn revoke_token(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = by_session(&auth)?;
    if id.len() > 40
        || !st
            .hub
            .store
            .revoke_api_token(&who.account.id, &id)
            .await
            .map_err(accounts::storage)?
    {
        return Err(ActError::not_found("no such API token of yours"));
    }
    Ok(Json(json!({"ok": true})))
}
