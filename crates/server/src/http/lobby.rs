//! The lobby's WebSocket (`/ws/lobby`): the open seeks, sent on connect and again whenever they
//! change, so a seek made, taken or cancelled shows on every lobby page at once (docs/api.md,
//! "Play now"); for a signed-in (named, human) player also its open challenges on connect and
//! its account's events live (docs/api.md, "Challenges"); the public review rooms
//! (`{"type": "review_rooms", "rooms"}`, on connect and when the list changes); the
//! tournaments' standings as they change (docs/api.md, "Tournaments"); and the ladders' order as
//! it changes (`{"type": "ladder", …}`, docs/api.md, "Ladders").

use super::sockets::{ping_or_close, send_within, too_many_sockets, SocketSeat};
use crate::game::room::ActError;
use crate::state::limit::ClientKey;
use crate::state::{too_many, AppState};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::Extension;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// Opens a lobby socket, counted against the client's socket rate and cap like a game's.
pub(super) async fn ws_lobby(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    Extension(auth): Extension<crate::players::Auth>,
    ws: WebSocketUpgrade,
) -> Result<Response, ActError> {
    // A named player's challenges and events come too (a bot's stream is its event stream).
    let account = auth
        .who
        .filter(|w| !w.account.guest && !w.account.bot)
        .map(|w| w.account.id);
    if let Err(r) = st.budgets.sockets.check(&client) {
        return Ok(too_many(r));
    }
    let Some(seat) = SocketSeat::take(&st, client, None) else {
        return Ok(too_many_sockets());
    };
    // Only pings come in: small frames and buffers.
    Ok(ws
        .max_message_size(1024)
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(1024 * 1024)
        .on_upgrade(move |socket| follow(socket, st, client, seat, account)))
}

/// The seeks as a socket message.
fn seeks_message(list: &Value) -> Message {
    let mut v = list.clone();
    v["type"] = json!("seeks");
    Message::Text(v.to_string().into())
}

/// The public review rooms as a socket message.
fn review_rooms_message(rooms: &Value) -> Message {
    Message::Text(
        json!({"type": "review_rooms", "rooms": rooms})
            .to_string()
            .into(),
    )
}

/// The account's open challenges as a socket message (`{"type": "challenges", "incoming",
/// "outgoing"}`), or the error that kept them.
async fn challenges_message(st: &AppState, account: &str) -> Message {
    let v = match crate::challenges::lists_json(st, account).await {
        Ok(mut v) => {
            v["type"] = json!("challenges");
            v
        }
        Err(e) => json!({"type": "error", "status": e.status, "error": e.message, "code": e.code}),
    };
    Message::Text(v.to_string().into())
}

/// The account's events, or none for a visitor.
async fn next_event(
    rx: &mut Option<tokio::sync::broadcast::Receiver<Value>>,
) -> Result<Value, tokio::sync::broadcast::error::RecvError> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn follow(
    mut socket: WebSocket,
    st: AppState,
    client: ClientKey,
    _seat: SocketSeat,
    account: Option<String>,
) {
    let send_limit = st.limits.socket_send_timeout;
    let idle = st.limits.socket_idle;
    let mut events = account.as_deref().map(|a| st.hub.events.subscribe(a));
    let mut rx = st.seek_list.subscribe();
    rx.borrow_and_update();
    let mut listed = crate::review::room::rooms(&st).listing.subscribe();
    listed.borrow_and_update();
    let mut news = st.tournament_news.subscribe();
    // The list as it is now (the one held may be older: nobody followed it).
    let first = match crate::players::seeks::list_json(&st.hub.store).await {
        Ok(v) => v,
        Err(e) => json!({"type": "error", "status": e.status, "error": e.message, "code": e.code}),
    };
    let first = if first.get("seeks").is_some() {
        seeks_message(&first)
    } else {
        Message::Text(first.to_string().into())
    };
    if !send_within(&mut socket, first, send_limit).await {
        return;
    }
    if let Some(a) = &account {
        if !send_within(&mut socket, challenges_message(&st, a).await, send_limit).await {
            return;
        }
    }
    // The public review rooms as they are now.
    let rooms = match crate::review::room::list_json(&st).await {
        Ok(v) => v["rooms"].clone(),
        Err(_) => json!([]),
    };
    if !send_within(&mut socket, review_rooms_message(&rooms), send_limit).await {
        return;
    }
    let mut ping = tokio::time::interval((idle / 3).max(Duration::from_millis(100)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ping.tick().await;
    let mut heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            changed = rx.changed() => {
                if changed.is_err() { return; }
                let msg = seeks_message(&rx.borrow_and_update().clone());
                if !send_within(&mut socket, msg, send_limit).await {
                    return;
                }
            }
            changed = listed.changed() => {
                if changed.is_err() { return; }
                let v = listed.borrow_and_update().clone();
                if !send_within(&mut socket, review_rooms_message(&v["rooms"]), send_limit).await {
                    return;
                }
            }
            ev = next_event(&mut events) => {
                let msg = match (ev, &account) {
                    (Ok(v), _) => Message::Text(v.to_string().into()),
                    // Events were missed: the challenges as they are now.
                    (Err(RecvError::Lagged(_)), Some(a)) => challenges_message(&st, a).await,
                    _ => return,
                };
                if !send_within(&mut socket, msg, send_limit).await {
                    return;
                }
            }
            // A tournament's standings changed (a missed one is followed by the next).
            n = news.recv() => {
                let v = match n {
                    Ok(v) => v,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(_) => return,
                };
                if !send_within(&mut socket, Message::Text(v.to_string().into()), send_limit).await {
                    return;
                }
            }
            _ = ping.tick() => {
                if !ping_or_close(&mut socket, heard, idle, send_limit).await {
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
                let reply = match st.budgets.requests.check(&client) {
                    Err(r) => json!({"type": "error", "status": 429, "retry_after": r.retry_secs(),
                        "error": r.message(), "code": "limit.rate", "args": r.args()}),
                    Ok(()) => match serde_json::from_str::<Value>(&text) {
                        Ok(v) if v["type"] == "ping" => json!({"type": "pong"}),
                        _ => json!({"type": "error", "status": 400,
                            "error": "expected {\"type\": \"ping\"}: the lobby's socket only sends"}),
                    },
                };
                if !send_within(&mut socket, Message::Text(reply.to_string().into()), send_limit).await {
                    return;
                }
            }
        }
    }
}
