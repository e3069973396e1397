//! Forwarding between the cluster's processes (docs/scaling.md): an action that reaches a
//! process that does not own its game is sent on to the owner over internal HTTP, with the
//! client's own credentials (seat token, session cookie and its CSRF value, or API token),
//! which the owner checks again; a process never trusts another's word about a seat. The
//! internal endpoint, `/internal/forward/…`, answers only calls that carry the cluster's
//! shared secret (compared in constant time).

use crate::cluster::{owner_of_held, Held, Owner, LEASE_MS};
use crate::game::room::ActError;
use crate::state::limit::ClientKey;
use crate::state::{AppState, BODY_LIMIT};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::Duration;
use subtle::ConstantTimeEq;

/// The header that carries the cluster's secret on internal calls.
pub const SECRET_HEADER: &str = "x-baduk-cluster-secret";
/// The header that names the client's address on internal calls (believed only with the secret).
pub const CLIENT_HEADER: &str = "x-baduk-client";
/// The path prefix of the internal endpoint.
pub const INTERNAL_PREFIX: &str = "/internal/forward";

/// Marks a request that another process of the cluster forwarded (its secret was checked): it
/// is answered here, never forwarded again, and the client's rates were charged by the process
/// it reached first.
#[derive(Clone, Copy, Debug)]
pub struct Forwarded {
    /// The client as the first process saw it.
    pub client: ClientKey,
}

/// The credentials a game socket's client brought (sent along with the actions this process
/// forwards for it).
#[derive(Clone, Debug, Default)]
pub struct Creds {
    /// Its `Cookie` header.
    pub cookie: Option<String>,
    /// Its `Authorization` header (an API token).
    pub authorization: Option<String>,
    /// Its session's CSRF value (the cookie's session was checked when the socket opened).
    pub csrf: Option<String>,
}

/// Whether `headers` carry the cluster's secret (constant-time; never without a secret).
pub fn secret_ok(st: &AppState, headers: &HeaderMap) -> bool {
    let Some(secret) = st.hub.cluster.secret.as_deref() else {
        return false;
    };
    let given = headers
        .get(SECRET_HEADER)
        .map(|v| v.as_bytes())
        .unwrap_or(b"");
    // Equal lengths first leaks only the length, which is not the secret.
    given.len() == secret.len() && bool::from(given.ct_eq(secret.as_bytes()))
}

/// What a request must be answered by the owner of, if anything: a game's action (a player's
/// conditional moves, every method, go there too: the owner keeps them with the game and plays
/// them), or a change to a review room (or its state as the room holds it).
fn owned_route(method: &Method, path: &str) -> Option<Held> {
    if let Some(rest) = path.strip_prefix("/api/reviews/") {
        let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let room = match tail {
            "" => method == Method::PATCH,
            "ops" | "cursor" | "control" | "chat" => method == Method::POST,
            "room" => method == Method::GET,
            _ => false,
        };
        return room.then(|| Held::Room(id.to_string()));
    }
    let rest = path.strip_prefix("/api/games/")?;
    let (id, tail) = rest.split_once('/')?;
    ((tail == "actions" && method == Method::POST) || tail == "conditional")
        .then(|| Held::Game(id.to_string()))
}

/// How long a request waits for a game whose owner died to be taken over.
fn moving_wait() -> Duration {
    Duration::from_millis((LEASE_MS + 3_000) as u64)
}

/// The answer of another process, or why there is none.
enum Sent {
    /// It answered.
    Answer(StatusCode, HeaderMap, Bytes),
    /// It could not be reached (nothing was sent): ask again once ownership moves.
    Unreachable,
    /// It was sent but no answer came: whether it was stored is unknown.
    Lost,
}

/// Sends one internal call to the process at `addr`.
async fn send(
    st: &AppState,
    addr: &str,
    method: Method,
    path_and_query: &str,
    mut headers: HeaderMap,
    client: &ClientKey,
    body: Bytes,
) -> Sent {
    let c = &st.hub.cluster;
    let Some(secret) = c.secret.as_deref() else {
        return Sent::Unreachable;
    };
    for h in [
        header::HOST,
        header::CONTENT_LENGTH,
        header::CONNECTION,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
    ] {
        headers.remove(h);
    }
    headers.remove(SECRET_HEADER);
    headers.remove(CLIENT_HEADER);
    if let Ok(v) = HeaderValue::from_str(secret) {
        headers.insert(HeaderName::from_static(SECRET_HEADER), v);
    }
    if let Ok(v) = HeaderValue::from_str(&client.ip().to_string()) {
        headers.insert(HeaderName::from_static(CLIENT_HEADER), v);
    }
    let url = format!("{addr}{INTERNAL_PREFIX}{path_and_query}");
    let sent = c
        .client
        .request(method, url)
        .headers(headers)
        .body(body)
        .send()
        .await;
    match sent {
        Ok(r) => {
            let status = r.status();
            let headers = r.headers().clone();
            match r.bytes().await {
                Ok(b) => Sent::Answer(status, headers, b),
                Err(_) => Sent::Lost,
            }
        }
        Err(e) if e.is_connect() => Sent::Unreachable,
        Err(_) => Sent::Lost,
    }
}

/// Sends a call for `held` (a game or a review room) to its owner, waiting (a bounded time)
/// for a game whose owner died to be taken over; None: this process owns it, answer here.
async fn to_owner(
    st: &AppState,
    held: &Held,
    method: Method,
    path_and_query: &str,
    headers: &HeaderMap,
    client: &ClientKey,
    body: &Bytes,
) -> Option<Result<(StatusCode, HeaderMap, Bytes), ActError>> {
    let end = tokio::time::Instant::now() + moving_wait();
    loop {
        match owner_of_held(&st.hub, held).await {
            Owner::Here => return None,
            Owner::There(addr) => {
                if st.hub.cluster.secret.is_none() {
                    return Some(Err(ActError::unavailable(
                        "this game is played by another server process, and this one has no cluster secret to reach it",
                    )
                    .with_code("cluster.unreachable", Value::Null)));
                }
                st.hub.metrics.forwarded.fetch_add(1, Ordering::Relaxed);
                match send(
                    st,
                    &addr,
                    method.clone(),
                    path_and_query,
                    headers.clone(),
                    client,
                    body.clone(),
                )
                .await
                {
                    // The owner lost the game meanwhile (its commit was fenced, nothing was
                    // stored): ask the new owner.
                    Sent::Answer(s, _, b) if moved(s, &b) => crate::cluster::forget_held(&st.hub, held),
                    Sent::Answer(s, h, b) => return Some(Ok((s, h, b))),
                    Sent::Unreachable => crate::cluster::forget_held(&st.hub, held),
                    Sent::Lost => {
                        return Some(Err(ActError::unavailable(
                            "the server process playing this game stopped while answering; reload the game to see whether the action was stored",
                        )
                        .with_code("cluster.lost", Value::Null)))
                    }
                }
            }
            Owner::Moving => {}
        }
        if tokio::time::Instant::now() >= end {
            return Some(Err(ActError::unavailable(
                "this game is moving between server processes; try again in a moment",
            )
            .with_code("cluster.moving", Value::Null)));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Whether an answer is `503 cluster.moved`: the process that answered did not own the game
/// any more and stored nothing, so the action may be sent to the new owner.
fn moved(status: StatusCode, body: &[u8]) -> bool {
    status == StatusCode::SERVICE_UNAVAILABLE
        && serde_json::from_slice::<Value>(body)
            .is_ok_and(|v| v["code"] == crate::game::hub::MOVED_CODE)
}

/// Middleware: an action for a game another process owns goes to that process.
pub async fn route(State(st): State<AppState>, req: Request, next: Next) -> Response {
    if req.extensions().get::<Forwarded>().is_some() {
        return next.run(req).await;
    }
    let Some(held) = owned_route(req.method(), req.uri().path()) else {
        return next.run(req).await;
    };
    // An action from a client: its acknowledgement's latency is measured here, where it
    // arrived, whichever process plays it.
    let started = std::time::Instant::now();
    let action = matches!(held, Held::Game(_)) && req.uri().path().ends_with("/actions");
    let resp = play_or_forward(&st, held, req, next).await;
    if action && resp.status().is_success() {
        st.hub.metrics.ack.observe(started.elapsed());
    }
    resp
}

/// An action played here (this process owns its game or room) or sent to the owner; one played
/// here that finds it gone to another process meanwhile (nothing stored) is sent there.
async fn play_or_forward(st: &AppState, held: Held, req: Request, next: Next) -> Response {
    let client = req.extensions().get::<ClientKey>().copied();
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return ActError::bad_request("the request body is too large or unreadable")
            .into_response();
    };
    if matches!(owner_of_held(&st.hub, &held).await, Owner::Here) {
        let resp = next
            .clone()
            .run(Request::from_parts(
                parts.clone(),
                Body::from(bytes.clone()),
            ))
            .await;
        if resp.status() != StatusCode::SERVICE_UNAVAILABLE {
            return resp;
        }
        let (rparts, rbody) = resp.into_parts();
        let Ok(rbytes) = axum::body::to_bytes(rbody, BODY_LIMIT).await else {
            return ActError::internal("the answer could not be read").into_response();
        };
        if !moved(rparts.status, &rbytes) {
            return Response::from_parts(rparts, Body::from(rbytes));
        }
    }
    let client = client.unwrap_or_else(|| ClientKey::of(std::net::Ipv4Addr::LOCALHOST.into()));
    let pq = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    match to_owner(
        st,
        &held,
        parts.method.clone(),
        &pq,
        &parts.headers,
        &client,
        &bytes,
    )
    .await
    {
        None => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Some(Ok((status, headers, body))) => {
            let mut resp = Response::new(Body::from(body));
            *resp.status_mut() = status;
            for name in [
                header::CONTENT_TYPE,
                header::RETRY_AFTER,
                header::SET_COOKIE,
                header::CACHE_CONTROL,
            ] {
                for v in headers.get_all(&name) {
                    resp.headers_mut().append(name.clone(), v.clone());
                }
            }
            resp
        }
        Some(Err(e)) => e.into_response(),
    }
}

/// `ANY /internal/forward/{path}`: a call another process forwarded, answered by the public
/// API here as if the client had come here. 403 without the cluster's secret.
pub async fn internal(st: AppState, api: axum::Router, req: Request) -> Response {
    if !secret_ok(&st, req.headers()) {
        return ActError::forbidden("internal endpoint: the cluster's secret is missing or wrong")
            .with_code("cluster.secret", Value::Null)
            .into_response();
    }
    let (mut parts, body) = req.into_parts();
    let pq = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("")
        .strip_prefix(INTERNAL_PREFIX)
        .unwrap_or("")
        .to_string();
    if !pq.starts_with("/api/games/") && !pq.starts_with("/api/reviews/") {
        return ActError::not_found(
            "internal endpoint: only game and review room requests are forwarded",
        )
        .into_response();
    }
    let Ok(uri) = pq.parse() else {
        return ActError::bad_request("internal endpoint: bad path").into_response();
    };
    parts.uri = uri;
    let ip = parts
        .headers
        .get(CLIENT_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<std::net::IpAddr>().ok())
        .unwrap_or(std::net::Ipv4Addr::LOCALHOST.into());
    parts.headers.remove(SECRET_HEADER);
    parts.headers.remove(CLIENT_HEADER);
    // A fresh request for the API router: the peer's address, and the mark; nothing this
    // route's own matching left behind (its path parameters).
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .copied();
    parts.extensions = axum::http::Extensions::new();
    if let Some(p) = peer {
        parts.extensions.insert(p);
    }
    parts.extensions.insert(Forwarded {
        client: ClientKey::of(ip),
    });
    let req = Request::from_parts(parts, body);
    match tower::ServiceExt::oneshot(api, req).await {
        Ok(r) => r,
        Err(e) => match e {},
    }
}

/// A socket's action for game `id`: sent to the owner with the socket's credentials when
/// another process owns the game; None: this process owns it, play it here. A refusal comes
/// back as its status and JSON body.
pub async fn socket_action(
    st: &AppState,
    id: &str,
    token: Option<&str>,
    creds: &Creds,
    client: &ClientKey,
    action: &str,
) -> Option<Result<Value, (u16, Value)>> {
    // The socket's `ack` needs the version alone: the owner builds and sends no state.
    let path = format!("/api/games/{id}/actions?ack=1");
    let body = json!({ "action": action });
    let held = Held::Game(id.to_string());
    socket_call(st, &held, token, creds, client, Method::POST, &path, &body).await
}

/// A socket's call (`method` on `path` with JSON `body`) for `held`: sent to its owner with the
/// socket's credentials (a seat's or API `token`, else its cookie, CSRF value and
/// authorization) when another process owns it; None: answer here. A refusal comes back as its
/// status and JSON body.
#[allow(clippy::too_many_arguments)]
pub async fn socket_call(
    st: &AppState,
    held: &Held,
    token: Option<&str>,
    creds: &Creds,
    client: &ClientKey,
    method: Method,
    path: &str,
    body: &Value,
) -> Option<Result<Value, (u16, Value)>> {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let set = |h: &mut HeaderMap, name: HeaderName, v: &str| {
        if let Ok(v) = HeaderValue::from_str(v) {
            h.insert(name, v);
        }
    };
    match token {
        Some(t) => set(&mut headers, header::AUTHORIZATION, &format!("Bearer {t}")),
        None => {
            if let Some(a) = &creds.authorization {
                set(&mut headers, header::AUTHORIZATION, a);
            }
            if let Some(c) = &creds.cookie {
                set(&mut headers, header::COOKIE, c);
            }
            if let Some(c) = &creds.csrf {
                set(&mut headers, HeaderName::from_static("x-csrf-token"), c);
            }
        }
    }
    let body = if method == Method::GET {
        Bytes::new()
    } else {
        Bytes::from(body.to_string())
    };
    let answer = to_owner(st, held, method, path, &headers, client, &body).await?;
    Some(match answer {
        Ok((status, _, body)) => {
            let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if status.is_success() {
                Ok(v)
            } else {
                Err((status.as_u16(), v))
            }
        }
        Err(e) => Err((e.status, e.to_json())),
    })
}
