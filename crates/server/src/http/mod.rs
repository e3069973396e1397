//! Owns: the web edge: the routing table and its middleware (this file), the games' handlers
//! (`games`; a player's conditional moves, `conditional`) and sockets (`sockets`; the lobby's, `lobby`), the accept loop (`conn`), logs (`logs`), `/metrics`
//! (`metrics`), the embedded web pages (`web`). May use every domain; no domain uses it but
//! `lib.rs` (issue 40; `tests/layout.rs` keeps it so).
//!
//! HTTP and WebSocket handlers: parse, authenticate the seat, call the hub, map its errors to
//! status codes. No game logic here.

pub mod conditional;
pub mod conn;
pub mod games;
pub mod lobby;
pub mod logs;
pub mod metrics;
pub mod sockets;
pub mod web;

use crate::game::room::ActError;
use crate::state::limit::{client_ip, ClientKey};
use crate::state::{too_many, AppState, BODY_LIMIT};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderMap};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use games::{create_game, get_game, get_record, list_games, post_action, post_join, post_rotate};
use sockets::ws_game;
use std::net::SocketAddr;

/// The router of the whole service.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/games", post(create_game).get(list_games))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/record", get(get_record))
        .route("/api/games/{id}/actions", post(post_action))
        .route("/api/games/{id}/join", post(post_join))
        .route(
            "/api/games/{id}/conditional",
            get(conditional::get_plan)
                .put(conditional::put_plan)
                .delete(conditional::delete_plan),
        )
        .route("/api/games/{id}/seats/{seat}/rotate", post(post_rotate))
        .route("/ws/games/{id}", get(ws_game))
        .route("/ws/lobby", get(lobby::ws_lobby))
        .merge(crate::players::routes())
        .merge(crate::players::seeks::routes())
        .merge(crate::players::chat::routes())
        .merge(crate::review::routes())
        .merge(crate::challenges::routes())
        .merge(crate::tournaments::routes())
        .merge(crate::tournaments::ladder::routes())
        .merge(crate::botapi::routes())
        .merge(crate::mail::routes())
        // The pages of "forgot password" and of the links in mails (their API: `mail::routes`).
        .route(
            "/forgot",
            get(|| async { crate::http::web::page("mail.html") }),
        )
        .route(
            "/mail/{what}",
            get(|Path(_what): Path<String>| async { crate::http::web::page("mail.html") }),
        )
        // A review's page (the review's API is `review::routes`).
        .route(
            "/r/{id}",
            get(|Path(_id): Path<String>| async { crate::http::web::page("review.html") }),
        )
        // A challenge's page, the link a challenge is shared by (its API is `challenges::routes`).
        .route(
            "/c/{id}",
            get(|Path(_id): Path<String>| async { crate::http::web::page("challenge.html") }),
        )
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
