//! A review room's WebSocket, `GET /ws/reviews/{id}` (docs/api.md, "Review rooms"): the room
//! whole first, then its events; the client's ops, cursor moves and chat lines are made where
//! the room is held (forwarded there with the client's own credentials when that is another
//! process) and answered `ack` or `error`; the socket stays open after an error.

use super::{first_message, relay, rooms, valid_id, Change, Ev, Seq};
use crate::cluster::forward::{socket_call, Creds};
use crate::cluster::Held;
use crate::game::hub::MOVED_CODE;
use crate::game::room::ActError;
use crate::players::accounts::{Identity, Via, API_TOKEN_PREFIX};
use crate::players::Auth;
use crate::state::limit::ClientKey;
use crate::state::ws::{ping_or_close, send_within};
use crate::state::{too_many, too_many_sockets, AppState, ClientSocket};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, Method};
use axum::response::Response;
use axum::Extension;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// The largest message a client may send (bytes): a comment op at its cap fits.
pub const MESSAGE_MAX: usize = 32 * 1024;
/// The largest frame read at all (a larger one closes the socket).
const FRAME_MAX: usize = 64 * 1024;

/// Who a room's socket is, and the credentials its forwarded changes carry.
struct SocketWho {
    who: Option<Identity>,
    token: Option<String>,
    creds: Creds,
}

/// `?token=` of the query (an API token), if any.
fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v.to_string())
}

/// `GET /ws/reviews/{id}`: a room's socket (cookie, or `?token=` an API token).
pub async fn ws_room(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Extension(client): Extension<ClientKey>,
    Extension(auth): Extension<Auth>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ActError> {
    if !valid_id(&id)
        || !super::rows::exists(&st.hub.store, &id)
            .await
            .map_err(super::storage)?
    {
        return Err(ActError::not_found("no such review"));
    }
    let text = |n: header::HeaderName| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let mut me = SocketWho {
        who: auth.who.clone(),
        token: None,
        creds: Creds {
            cookie: text(header::COOKIE),
            authorization: text(header::AUTHORIZATION),
            csrf: match &auth.who {
                Some(Identity {
                    via: Via::Session { csrf, .. },
                    ..
                }) => Some(csrf.clone()),
                _ => None,
            },
        },
    };
    if let Some(t) = query_token(query.as_deref()) {
        if !t.starts_with(API_TOKEN_PREFIX) {
            return Err(ActError::unauthorized("?token= takes an API token")
                .with_code("auth.token", Value::Null));
        }
        match st.hub.store.api_token_account(&t).await {
            Ok(Some((account, scopes))) => {
                me.who = Some(Identity {
                    account,
                    via: Via::ApiToken { scopes },
                });
                me.token = Some(t);
            }
            Ok(None) => {
                return Err(ActError::unauthorized("unknown or revoked API token")
                    .with_code("auth.token", Value::Null))
            }
            Err(e) => return Err(super::storage(e)),
        }
    }
    if let Err(r) = st.budgets.sockets.check(&client) {
        return Ok(too_many(r));
    }
    let Some(counted) = ClientSocket::take(&st, client) else {
        return Ok(too_many_sockets());
    };
    Ok(ws
        .max_message_size(FRAME_MAX)
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(1024 * 1024)
        .on_upgrade(move |socket| async move {
            let _counted = counted;
            follow(socket, st, id, client, me).await
        }))
}

/// The room whole, from where it is held: (message, tree version, room counter).
async fn snapshot(
    st: &AppState,
    id: &str,
    me: &SocketWho,
    client: &ClientKey,
) -> Result<(Value, i64, i64), Value> {
    let you = me.who.as_ref().map(|w| w.account.name.as_str());
    let held = Held::Room(id.to_string());
    let mut v = None;
    for _ in 0..2 {
        let path = format!("/api/reviews/{id}/room");
        let got = match socket_call(
            st,
            &held,
            me.token.as_deref(),
            &me.creds,
            client,
            Method::GET,
            &path,
            &Value::Null,
        )
        .await
        {
            Some(Ok(v)) => Ok(v),
            Some(Err((_, v))) => Err(v),
            None => first_message(st, id, you).await.map_err(|e| e.to_json()),
        };
        match got {
            Err(e) if e["code"] == MOVED_CODE => continue,
            other => {
                v = Some(other);
                break;
            }
        }
    }
    let mut v = v.unwrap_or_else(|| Err(super::moved().to_json()))?;
    // The count as this process knows it (its later deltas count the same way).
    let local = rooms(st).local(id);
    v["watchers"] = json!(local.watchers());
    let version = v["version"].as_i64().unwrap_or(0);
    let rev = v["rev"].as_i64().unwrap_or(0);
    Ok((v, version, rev))
}

/// A client's message.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct In {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    op: Option<Value>,
    #[serde(default)]
    version: Option<i64>,
    #[serde(default)]
    cursor: Option<i64>,
    #[serde(default)]
    chat: Option<String>,
}

fn error_reply(id: &Value, status: u16, body: &Value) -> Value {
    json!({"type": "error", "id": id, "status": status, "code": body["code"],
        "message": body["error"], "args": body["args"]})
}

/// Makes a client's change where the room is held; the `ack` or `error` to send back.
async fn act(st: &AppState, room: &str, me: &SocketWho, client: &ClientKey, msg: In) -> Value {
    let id = msg.id.clone().unwrap_or(Value::Null);
    let (change, path, body) = match (&msg.op, msg.cursor, &msg.chat) {
        (Some(op), None, None) => (
            Change::Op {
                op: op.clone(),
                version: msg.version,
            },
            "ops",
            json!({"op": op, "version": msg.version}),
        ),
        (None, Some(n), None) => (Change::Cursor(n), "cursor", json!({ "node": n })),
        (None, None, Some(t)) => (Change::Chat(t.clone()), "chat", json!({ "text": t })),
        _ => {
            let e = ActError::bad_request(
                "expected {\"id\", \"op\"}, {\"id\", \"cursor\"}, {\"id\", \"chat\"} or {\"type\": \"ping\"}",
            )
            .with_code("review.message", Value::Null);
            return error_reply(&id, e.status, &e.to_json());
        }
    };
    if let Err(r) = st.budgets.actions.check(client) {
        let e = r.to_error();
        return error_reply(&id, e.status, &e.to_json());
    }
    let held = Held::Room(room.to_string());
    let path = format!("/api/reviews/{room}/{path}");
    // A token's scopes hold over the socket as over HTTP (a `read` token only reads).
    if let Some(w) = &me.who {
        if let Err(e) = crate::players::tokens::token_may(w, &Method::POST, &path) {
            return error_reply(&id, e.status, &e.to_json());
        }
    }
    for attempt in 0..2 {
        let forwarded = socket_call(
            st,
            &held,
            me.token.as_deref(),
            &me.creds,
            client,
            Method::POST,
            &path,
            &body,
        )
        .await;
        let answer = match forwarded {
            Some(r) => r,
            None => super::change(st, room, me.who.as_ref(), client, change.clone())
                .await
                .map_err(|e| (e.status, e.to_json())),
        };
        match answer {
            Err((_, e)) if e["code"] == MOVED_CODE && attempt == 0 => continue,
            Ok(mut v) => {
                v["type"] = json!("ack");
                v["id"] = id;
                return v;
            }
            Err((status, e)) => return error_reply(&id, status, &e),
        }
    }
    let e = super::moved();
    error_reply(&id, e.status, &e.to_json())
}

/// Uncounts the socket when it ends.
struct Watching {
    st: AppState,
    local: std::sync::Arc<super::Local>,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let (st, local) = (self.st.clone(), self.local.clone());
        tokio::spawn(async move { relay::socket_moved(&st, &local, false).await });
    }
}

async fn follow(mut socket: WebSocket, st: AppState, id: String, client: ClientKey, me: SocketWho) {
    let send_limit = st.limits.socket_send_timeout;
    let idle = st.limits.socket_idle;
    let local = rooms(&st).local(&id);
    let mut rx = local.tx.subscribe();
    relay::socket_moved(&st, &local, true).await;
    let _watching = Watching {
        st: st.clone(),
        local: local.clone(),
    };
    let (first, mut version, mut rev) = match snapshot(&st, &id, &me, &client).await {
        Ok(s) => s,
        Err(e) => {
            let status = if e["code"] == MOVED_CODE { 503 } else { 500 };
            let _ = send_within(
                &mut socket,
                Message::Text(error_reply(&Value::Null, status, &e).to_string().into()),
                send_limit,
            )
            .await;
            return;
        }
    };
    if !send_within(
        &mut socket,
        Message::Text(first.to_string().into()),
        send_limit,
    )
    .await
    {
        return;
    }
    let mut ping = tokio::time::interval((idle / 3).max(Duration::from_millis(100)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ping.tick().await;
    let mut heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            ev = rx.recv() => {
                let ev: Ev = match ev {
                    Ok(ev) => ev,
                    Err(RecvError::Lagged(_)) => Ev { seq: Seq::Resync, text: "".into() },
                    Err(RecvError::Closed) => return,
                };
                let text = match ev.seq {
                    Seq::Tree(v) if v <= version => continue,
                    Seq::Room(v) if v <= rev => continue,
                    Seq::Tree(v) => { version = v; ev.text }
                    Seq::Room(v) => { rev = v; ev.text }
                    Seq::Always => ev.text,
                    Seq::Resync => match snapshot(&st, &id, &me, &client).await {
                        Ok((v, ver, r)) => {
                            (version, rev) = (ver, r);
                            v.to_string().into()
                        }
                        Err(_) => return,
                    },
                };
                if !send_within(&mut socket, Message::Text(text.to_string().into()), send_limit).await {
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
                let reply = reply_to(&st, &id, &me, &client, &text).await;
                if !send_within(&mut socket, Message::Text(reply.to_string().into()), send_limit).await {
                    return;
                }
            }
        }
    }
}

/// The answer to one text message of a client.
async fn reply_to(
    st: &AppState,
    room: &str,
    me: &SocketWho,
    client: &ClientKey,
    text: &str,
) -> Value {
    if text.len() > MESSAGE_MAX {
        let e = ActError::new(413, format!("a message is at most {MESSAGE_MAX} bytes"))
            .with_code("review.message_size", json!({"max": MESSAGE_MAX}));
        return error_reply(&Value::Null, e.status, &e.to_json());
    }
    if let Err(r) = st.budgets.requests.check(client) {
        let e = r.to_error();
        return error_reply(&Value::Null, e.status, &e.to_json());
    }
    match serde_json::from_str::<In>(text) {
        Ok(m) if m.kind.as_deref() == Some("ping") => json!({"type": "pong"}),
        Ok(m) if m.kind.is_none() => act(st, room, me, client, m).await,
        Ok(m) => {
            let e = ActError::bad_request("unknown message type")
                .with_code("review.message", Value::Null);
            error_reply(&m.id.unwrap_or(Value::Null), e.status, &e.to_json())
        }
        Err(err) => {
            let e = ActError::bad_request(format!("bad message: {err}"))
                .with_code("review.message", Value::Null);
            error_reply(&Value::Null, e.status, &e.to_json())
        }
    }
}
