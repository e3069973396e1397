//! A game's WebSocket: seats and watchers, the messages they send and what they are sent. A
//! seat's sockets never wait behind watchers: they have their own room on each game
//! ([`SEAT_SOCKETS`]), and the watchers share the game's (`--sockets-per-game`) per address.

use crate::game::hub::{now_ms, Cred};
use crate::game::room::ActError;
use crate::players::Auth;
use crate::state::limit::ClientKey;
use crate::state::{too_many, AppState, GameSockets, BODY_LIMIT};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

pub(super) async fn ws_game(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(client): axum::Extension<ClientKey>,
    axum::Extension(auth): axum::Extension<Auth>,
    RawQuery(query): RawQuery,
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
    // A seat's account is a seat's socket from the start; `?seat` asks for a seat's room, to
    // be proved with a seat token's `hello`; anyone else watches.
    let seated = match auth.account_id() {
        Some(a) => h.room.lock().await.seat_of_account(a).is_some(),
        None => false,
    };
    let asks_seat = query
        .as_deref()
        .is_some_and(|q| q.split('&').any(|kv| kv.split('=').next() == Some("seat")));
    let role = if seated {
        Role::Seat
    } else if asks_seat {
        Role::Proving
    } else {
        Role::Watcher
    };
    let Some(seat) = SocketSeat::take(&st, client, Some((&h, &id, role))) else {
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

pub(super) use crate::state::too_many_sockets;

/// Sockets a seat holder's address may hold on one game at once on a process (tabs, devices):
/// they never wait behind watchers, however many watch, nor behind the other seat's holder.
pub const SEAT_SOCKETS: usize = 16;

/// How long a socket that asked for a seat's room (`?seat`) has to prove a seat with `hello`
/// before it is counted as a watcher (or closed, when the watchers' room is full).
pub const SEAT_PROOF: Duration = Duration::from_secs(5);

/// The most watchers' sockets one address may hold on one game: a tenth of the game's room,
/// at least 4 (a household's tabs) unless the room is smaller, so a few addresses cannot take
/// all of it.
pub fn watcher_share(per_game: usize) -> usize {
    let share = (per_game / 10).max(4);
    if share > per_game {
        per_game
    } else {
        share
    }
}

/// Who a game socket counts as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A seat's holder: its account, or a socket that proved a seat with `hello`.
    Seat,
    /// A watcher: the game's watchers share its room, each address up to [`watcher_share`].
    Watcher,
    /// Asked for a seat's room (`?seat`); counted on no game until it proves one.
    Proving,
}

/// Adds one to (or takes one from) `key`'s count in `map`, forgetting a count of zero.
fn bump<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: K, up: bool) {
    if up {
        *map.entry(key).or_insert(0) += 1;
    } else if let Some(n) = map.get_mut(&key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(&key);
        }
    }
}

/// Counts a socket of `role` on game `id` in (or out of) `g`.
fn count(g: &mut GameSockets, id: &str, client: ClientKey, role: Role, up: bool) {
    match role {
        Role::Seat => bump(&mut g.seats, (id.to_string(), client), up),
        Role::Watcher => {
            bump(&mut g.watchers, id.to_string(), up);
            bump(&mut g.watchers_of, (id.to_string(), client), up);
        }
        Role::Proving => {}
    }
}

/// Whether game `id` has room for one more socket of `role` from `client` (0: no cap).
fn admits(g: &GameSockets, id: &str, client: ClientKey, role: Role, per_game: usize) -> bool {
    if per_game == 0 {
        return true;
    }
    match role {
        Role::Seat => {
            let key = (id.to_string(), client);
            g.seats.get(&key).copied().unwrap_or(0) < SEAT_SOCKETS
        }
        Role::Proving => true,
        Role::Watcher => {
            g.watchers.get(id).copied().unwrap_or(0) < per_game
                && g.watchers_of
                    .get(&(id.to_string(), client))
                    .copied()
                    .unwrap_or(0)
                    < watcher_share(per_game)
        }
    }
}

/// One open socket counted against its client's cap and, for a game's, the game's room of its
/// role; dropping it uncounts.
pub(super) struct SocketSeat {
    st: AppState,
    client: ClientKey,
    h: Option<Arc<crate::game::hub::Handle>>,
    game: Option<(String, Role)>,
    _counted: crate::state::ClientSocket,
}

impl SocketSeat {
    /// Counts a socket for `client` (on a game, as `role`), or None when a cap is reached.
    pub(super) fn take(
        st: &AppState,
        client: ClientKey,
        on: Option<(&Arc<crate::game::hub::Handle>, &str, Role)>,
    ) -> Option<SocketSeat> {
        let per_game = st.limits.sockets_per_game;
        let counted = crate::state::ClientSocket::take(st, client)?;
        if let Some((_, id, role)) = on {
            let mut g = st.game_sockets.lock().expect("game sockets lock");
            if !admits(&g, id, client, role, per_game) {
                return None;
            }
            count(&mut g, id, client, role, true);
        }
        if let Some((h, _, _)) = on {
            h.sockets.fetch_add(1, Ordering::Relaxed);
        }
        Some(SocketSeat {
            st: st.clone(),
            client,
            h: on.map(|(h, _, _)| h.clone()),
            game: on.map(|(_, id, role)| (id.to_string(), role)),
            _counted: counted,
        })
    }

    /// What the socket counts as on its game (a lobby's: a watcher).
    pub(super) fn role(&self) -> Role {
        self.game.as_ref().map_or(Role::Watcher, |g| g.1)
    }

    /// Counts the socket as `to` from now on if the game has room for it; false if not (it
    /// stays what it was).
    pub(super) fn count_as(&mut self, to: Role) -> bool {
        let Some((id, role)) = &mut self.game else {
            return false;
        };
        if *role == to {
            return true;
        }
        let mut g = self.st.game_sockets.lock().expect("game sockets lock");
        if !admits(&g, id, self.client, to, self.st.limits.sockets_per_game) {
            return false;
        }
        count(&mut g, id, self.client, *role, false);
        count(&mut g, id, self.client, to, true);
        *role = to;
        true
    }
}

impl Drop for SocketSeat {
    fn drop(&mut self) {
        if let Some(h) = &self.h {
            h.sockets.fetch_sub(1, Ordering::Relaxed);
        }
        if let Some((id, role)) = &self.game {
            let mut g = self.st.game_sockets.lock().expect("game sockets lock");
            count(&mut g, id, self.client, *role, false);
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

pub(super) use crate::state::ws::{ping_or_close, send_within};

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
    mut seat: SocketSeat,
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
        player: seat.role() == Role::Seat,
        muted: false,
        creds,
    };
    let proof_due = tokio::time::Instant::now() + SEAT_PROOF;
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
                if !ping_or_close(&mut socket, heard, idle, send_limit).await {
                    return;
                }
            }
            // Asked for a seat's room and proved none in time: a watcher, if watchers have room.
            _ = tokio::time::sleep_until(proof_due), if seat.role() == Role::Proving => {
                if !seat.count_as(Role::Watcher) {
                    let bye = Message::Close(Some(axum::extract::ws::CloseFrame {
                        code: 1008,
                        reason: "limit.sockets: no seat proved, and the game's watchers are full".into(),
                    }));
                    let _ = send_within(&mut socket, bye, send_limit).await;
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
                // A seat proved (`hello`): counted with the seats, out of the watchers' room.
                if me.player && seat.role() != Role::Seat {
                    seat.count_as(Role::Seat);
                }
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
    // An API token without `play` reads over the socket but neither acts nor chats for its
    // account (a seat token still acts: it is the seat's own credential); a bot account acts
    // and chats with its `bot` token only.
    let no_play = me.who.as_ref().and_then(|w| w.may_play().err());
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
            if let Some(e) = no_play {
                return err(e);
            }
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
            let cred = match (token, account.as_deref(), no_play) {
                (Some(t), _, _) => Cred::Token(t),
                (None, Some(_), Some(e)) => return err(e),
                (None, Some(a), None) => Cred::Account(a),
                (None, None, _) => unreachable!("guarded above"),
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
            if let (None, Some(e)) = (token, no_play) {
                return err(e);
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
