//! `GET /api/stream/games/{id}`: one game as NDJSON, for bots (and anyone reading): the full
//! state first, the full state again after every change, the chat lines the reader may read,
//! an empty line when nothing else was sent for [`KEEP_ALIVE`]; the stream ends after the game
//! finished. It follows the same channels as the game's WebSocket (`Handle::tx`, `chat`, `gone`)
//! and counts against the client's sockets (`--sockets-per-client`). docs/api.md, "Bot API".

use crate::game::hub::{now_ms, Cred, Handle};
use crate::game::room::ActError;
use crate::players::Auth;
use crate::state::limit::ClientKey;
use crate::state::{too_many, AppState, ClientSocket};
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

/// The longest silence of a stream: an empty line is sent after it.
pub const KEEP_ALIVE: Duration = Duration::from_secs(7);
/// The NDJSON content type of the streams.
pub const NDJSON: &str = "application/x-ndjson";

/// 429 `limit.sockets`: the client holds as many sockets and streams as it may.
fn too_many_streams() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, "10".to_string())],
        Json(
            json!({"error": "too many sockets and streams open: close one first",
            "code": "limit.sockets", "args": null, "retry_after": 10}),
        ),
    )
        .into_response()
}

/// The seat of the reader, if it holds one: its account's, or a seat token's.
async fn reader_seat(
    st: &AppState,
    id: &str,
    auth: &Auth,
    headers: &HeaderMap,
) -> Result<Option<usize>, ActError> {
    match (crate::players::bearer(headers), auth.account_id()) {
        (Some(t), _) if !t.starts_with(crate::players::accounts::API_TOKEN_PREFIX) => {
            Ok(Some(st.hub.hello(id, t).await?))
        }
        (_, Some(a)) => Ok(st.hub.hello_as(id, Cred::Account(a)).await.ok()),
        _ => Ok(None),
    }
}

/// `GET /api/stream/games/{id}`.
pub(super) async fn game_stream(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Extension(client): Extension<ClientKey>,
    Extension(auth): Extension<Auth>,
    headers: HeaderMap,
) -> Result<Response, ActError> {
    if let Err(r) = st.budgets.sockets.check(&client) {
        return Ok(too_many(r));
    }
    let h = st.hub.get(&id).await?;
    let seat = reader_seat(&st, &id, &auth, &headers).await?;
    let Some(counted) = ClientSocket::take(&st, client) else {
        return Ok(too_many_streams());
    };
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(8);
    let limit = st.limits.socket_send_timeout;
    tokio::spawn(async move {
        follow(h, seat, tx, limit).await;
        drop(counted);
    });
    let body = Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|line| (line, rx))
    }));
    Ok((
        [
            (header::CONTENT_TYPE, NDJSON),
            (header::CACHE_CONTROL, "no-store"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        body,
    )
        .into_response())
}

/// One line of the stream (a JSON value, or the empty keep-alive line).
fn line(v: Option<&Value>) -> Bytes {
    match v {
        Some(v) => Bytes::from(format!("{v}\n")),
        None => Bytes::from_static(b"\n"),
    }
}

/// `{"type": kind, "state": STATE}` as the reader sees the game now; and whether it is over.
async fn state_line(h: &Handle, kind: &str, seat: Option<usize>) -> (Value, bool) {
    let room = h.room.lock().await;
    (
        json!({"type": kind, "state": room.state(now_ms(), None, seat)}),
        room.is_over(),
    )
}

/// A chat event of the game's channel as the stream's line, if the reader may read it.
fn chat_line(players_only: bool, event: &str, player: bool) -> Option<Value> {
    if players_only && !player {
        return None;
    }
    let v: Value = serde_json::from_str(event).ok()?;
    let m = &v["message"];
    Some(json!({"type": "chat", "channel": m["channel"], "name": m["name"], "text": m["text"]}))
}

/// Writes the game to `out` until it finished, the reader left or fell too far behind.
async fn follow(
    h: Arc<Handle>,
    seat: Option<usize>,
    out: mpsc::Sender<Result<Bytes, Infallible>>,
    limit: Duration,
) {
    // Subscribed before the first state: no change falls between them.
    let mut changes = h.tx.subscribe();
    let mut chat = h.chat.subscribe();
    let mut gone = h.gone.subscribe();
    let send = |v: Option<Value>| {
        let out = out.clone();
        async move { out.send_timeout(Ok(line(v.as_ref())), limit).await.is_ok() }
    };
    let (first, over) = state_line(&h, "gameFull", seat).await;
    if !send(Some(first)).await || over {
        return;
    }
    let mut due = tokio::time::Instant::now() + KEEP_ALIVE;
    loop {
        let (next, last) = tokio::select! {
            ev = changes.recv() => match ev {
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    let (v, over) = state_line(&h, "gameState", seat).await;
                    (Some(v), over)
                }
                Err(RecvError::Closed) => return,
            },
            ev = chat.recv() => match ev {
                Ok((players_only, event)) => match chat_line(players_only, &event, seat.is_some()) {
                    Some(v) => (Some(v), false),
                    None => continue,
                },
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
            // The game left this process's memory: its last state, then the end.
            _ = gone.changed() => (Some(state_line(&h, "gameState", seat).await.0), true),
            _ = tokio::time::sleep_until(due) => (None, false),
        };
        if !send(next).await || last {
            return;
        }
        due = tokio::time::Instant::now() + KEEP_ALIVE;
    }
}
