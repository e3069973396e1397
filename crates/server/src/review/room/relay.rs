//! Rooms between processes: the holder announces each event on the bus (`room:{"id","node",
//! "e":EVENT}`, or `"resync":true` for one too large for NOTIFY: the watchers elsewhere get the
//! room whole again), and every process announces how many watch a room there (`"w":N`) when
//! it changes; each process passes the events on to its own watchers and counts everyone.
//! Once a second the task here lets go of the rooms held without a lease and those another
//! process holds now, and of rooms nobody watched for a while; every few seconds it reads the
//! lobby's list of public rooms again.

use super::{rooms, rows, Local, Rooms, Seq};
use crate::cluster::bus::MAX_PAYLOAD;
use crate::game::hub::now_ms;
use crate::state::AppState;
use serde::Deserialize;
use serde_json::json;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// A room nobody watches here and nobody changed leaves this process's memory after this long
/// (ms); it is stored, and the next request takes it again.
const IDLE_MS: i64 = 60_000;
/// How often the lobby's list of public rooms is read again.
const LISTING_EVERY: Duration = Duration::from_secs(5);

/// What a `room:` notification says.
#[derive(Deserialize)]
struct Note {
    id: String,
    node: String,
    #[serde(default)]
    e: Option<String>,
    #[serde(default)]
    v: Option<i64>,
    #[serde(default)]
    tree: bool,
    #[serde(default)]
    w: Option<usize>,
    #[serde(default)]
    resync: bool,
}

async fn notify(st: &AppState, payload: String) {
    if let Err(e) = st.hub.store.notify_now(&payload).await {
        tracing::warn!("review room event not announced: {e}");
    }
}

/// Announces event `text` of room `id` to the other processes (PostgreSQL).
pub(super) async fn announce(st: &AppState, id: &str, text: &str) {
    if !st.hub.store.is_postgres() {
        return;
    }
    let node = &st.hub.cluster.node;
    // Where it falls, so a watcher elsewhere that just got the room whole drops it.
    let seq = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| Some((v["type"] == "op", v["v"].as_i64()?)));
    let (tree, v) = seq.map_or((false, None), |(t, v)| (t, Some(v)));
    let p = format!(
        "room:{}",
        json!({"id": id, "node": node, "e": text, "v": v, "tree": tree})
    );
    let p = if p.len() <= MAX_PAYLOAD {
        p
    } else {
        format!("room:{}", json!({"id": id, "node": node, "resync": true}))
    };
    notify(st, p).await;
}

/// Announces how many watch room `id` on this process (PostgreSQL).
async fn announce_watchers(st: &AppState, id: &str, n: usize) {
    if !st.hub.store.is_postgres() {
        return;
    }
    let node = &st.hub.cluster.node;
    notify(
        st,
        format!("room:{}", json!({"id": id, "node": node, "w": n})),
    )
    .await;
}

/// Sends the room's watchers here its count of watchers if it changed (and stores it for the
/// listing when this process holds the room).
fn watchers_changed(st: &AppState, local: &Arc<Local>) {
    let n = local.watchers();
    if local.sent.swap(n, Ordering::Relaxed) == n {
        return;
    }
    local.send(
        Seq::Always,
        json!({"type": "watchers", "n": n}).to_string().into(),
    );
    let held = local.live.try_lock().map_or(true, |g| g.is_some());
    if held {
        let st = st.clone();
        let id = local.id.clone();
        tokio::spawn(async move {
            let _ = rows::set_watchers(&st.hub.store, &id, n).await;
        });
    }
}

/// A socket starts (or stops) watching room `local` here: everyone is told the new count.
pub(super) async fn socket_moved(st: &AppState, local: &Arc<Local>, up: bool) {
    let n = if up {
        local.sockets.fetch_add(1, Ordering::Relaxed) + 1
    } else {
        local.sockets.fetch_sub(1, Ordering::Relaxed) - 1
    };
    local.used_at.store(now_ms(), Ordering::Relaxed);
    watchers_changed(st, local);
    announce_watchers(st, &local.id, n).await;
    if !up && n == 0 {
        rooms(st).forget_if_idle(&local.id);
    }
}

/// Reads one notification from another process.
async fn heard(st: &AppState, r: &Rooms, json: &str) {
    let Ok(note) = serde_json::from_str::<Note>(json) else {
        return;
    };
    if note.node == st.hub.cluster.node {
        return;
    }
    let Some(local) = r.find(&note.id) else {
        return;
    };
    if note.e.is_some() || note.resync {
        // Another process holds the room now: a copy held here is stale.
        if let Ok(mut g) = local.live.try_lock() {
            *g = None;
        }
    }
    if let Some(e) = note.e {
        let seq = match (note.tree, note.v) {
            (true, Some(v)) => Seq::Tree(v),
            (false, Some(v)) => Seq::Room(v),
            _ => Seq::Always,
        };
        local.send(seq, e.into());
    }
    if note.resync {
        local.send(Seq::Resync, "".into());
    }
    if let Some(n) = note.w {
        let known = {
            let mut others = local.others.lock().expect("others lock");
            let known = others.contains_key(&note.node);
            if n == 0 {
                others.remove(&note.node);
            } else {
                others.insert(note.node.clone(), n);
            }
            known
        };
        watchers_changed(st, &local);
        // A process new to this room learns how many watch it here.
        let mine = local.sockets.load(Ordering::Relaxed);
        if !known && mine > 0 {
            announce_watchers(st, &local.id, mine).await;
        }
    }
}

/// Starts following the other processes' room events and the leases.
pub(super) fn spawn(st: AppState, r: Arc<Rooms>) {
    let mut rx = st.hub.cluster.room_events.subscribe();
    let (st2, r2) = (st.clone(), r.clone());
    tokio::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(json) => heard(&st2, &r2, &json).await,
                Err(RecvError::Lagged(_)) => {
                    for l in r2.all() {
                        l.send(Seq::Resync, "".into());
                    }
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(crate::cluster::RENEW_MS));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut n = 0u64;
        loop {
            every.tick().await;
            n += 1;
            tend(&st, &r).await;
            if n == 1 || n.is_multiple_of(LISTING_EVERY.as_secs()) {
                match super::list_json(&st).await {
                    Ok(v) => {
                        let v = Arc::new(v);
                        r.listing.send_if_modified(|old| {
                            let changed = **old != *v;
                            if changed {
                                *old = v.clone();
                            }
                            changed
                        });
                    }
                    Err(e) => tracing::warn!("review rooms not listed: {}", e.message),
                }
            }
        }
    });
}

/// Lets go of the rooms held here without a lease, those another process holds as stored, and
/// those idle (stored as let go).
async fn tend(st: &AppState, r: &Rooms) {
    let now = now_ms();
    let lease = st.hub.cluster.lease_holds(now);
    let me = &st.hub.cluster.node;
    let mut held = Vec::new();
    for l in r.all() {
        let Ok(mut g) = l.live.try_lock() else {
            continue;
        };
        if g.is_none() {
            continue;
        }
        let idle = l.sockets.load(Ordering::Relaxed) == 0
            && now - l.used_at.load(Ordering::Relaxed) > IDLE_MS;
        if !lease {
            *g = None;
        } else if idle {
            *g = None;
            let _ = rows::release(&st.hub.store, &l.id, me).await;
            drop(g);
            r.forget_if_idle(&l.id);
        } else {
            held.push(l.id.clone());
        }
    }
    if held.is_empty() || !st.hub.store.is_postgres() {
        return;
    }
    let Ok(still) = rows::held_by(&st.hub.store, &held, me).await else {
        return;
    };
    for id in held.iter().filter(|id| !still.contains(id)) {
        if let Some(l) = r.find(id) {
            if let Ok(mut g) = l.live.try_lock() {
                *g = None;
            }
        }
    }
}
