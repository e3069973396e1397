//! `baduk bench review-rooms`: R review rooms, each with an owner and W/R watchers on its socket
//! (guest accounts). Every owner makes C changes over its socket, one after another (a new
//! branch from move 2, then the shared cursor on it), all rooms at once. It measures what a
//! watcher pays and waits for: the bytes of each change's delta, and the time from the owner's
//! change to each watcher, and to the last watcher of its room.
//!
//! The changes are the same for a seed whatever the timing, so the signature counts rooms,
//! watchers, changes and deltas delivered.

use crate::bench::{closing_lines, cpu_secs, note_failure, resident_kib, Latencies};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// What to run.
#[derive(Clone, Debug)]
pub struct ReviewOptions {
    /// The server's address, `host:port`.
    pub addr: String,
    /// Rooms.
    pub rooms: usize,
    /// Watchers in all (spread evenly over the rooms).
    pub watchers: usize,
    /// Changes each owner makes (half new branches, half cursor moves).
    pub changes: usize,
    /// Sockets opened at once while setting up.
    pub parallel: usize,
    /// The server's process id (memory, CPU).
    pub server_pid: Option<u32>,
    /// The longest wait for one answer.
    pub timeout: Duration,
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct ReviewReport {
    /// Rooms made.
    pub rooms: usize,
    /// Watchers that got their room.
    pub watchers: usize,
    /// Changes the owners made (acknowledged).
    pub changes: u64,
    /// Deltas (`op`, `cursor`) the watchers received.
    pub delivered: u64,
    /// Their bytes (the messages' text).
    pub delta_bytes: u64,
    /// Seconds the changes took, all rooms together.
    pub secs: f64,
    /// The owner's change → each watcher.
    pub to_watcher: Latencies,
    /// The owner's change → the last watcher of its room.
    pub to_last: Latencies,
    /// The owner's change → its `ack`.
    pub ack: Latencies,
    /// Failures.
    pub errors: u64,
    /// The first few failures.
    pub error_samples: Vec<String>,
    /// Server CPU seconds over the changes.
    pub server_cpu_secs: Option<f64>,
    /// Server memory with every socket open (KiB).
    pub rss_kib: Option<u64>,
}

impl ReviewReport {
    /// The lines the bench prints: the deterministic signature first.
    pub fn lines(&self) -> Vec<String> {
        let per = (self.delivered as f64).max(1.0);
        let mut out = vec![
            format!(
                "signature: rooms {} watchers {} changes {} delivered {}",
                self.rooms, self.watchers, self.changes, self.delivered
            ),
            format!(
                "changes per second: {:.0}; deltas delivered per second: {:.0} ({:.2} s)",
                self.changes as f64 / self.secs.max(1e-9),
                self.delivered as f64 / self.secs.max(1e-9),
                self.secs
            ),
            format!(
                "bytes per change per watcher: {:.0} (target ≤ 300)",
                self.delta_bytes as f64 / per
            ),
            self.to_watcher.line("change → watcher"),
            self.to_last.line("change → last watcher of its room"),
            self.ack.line("change → owner's ack"),
            format!("errors: {}", self.errors),
        ];
        out.extend(closing_lines(
            ("the changes", self.server_cpu_secs),
            ("with every socket open", self.rss_kib),
            &self.error_samples,
        ));
        out
    }

    fn note(&mut self, e: String) {
        note_failure(&mut self.errors, &mut self.error_samples, e);
    }
}

/// The record every room starts from: two moves on 19×19.
const SGF: &str = "(;GM[1]FF[4]SZ[19]KM[6.5];B[pd];W[dp])";

/// The points the owners' new branches are played at (first three rows: all empty).
fn point(k: usize) -> String {
    const COLS: &[u8] = b"ABCDEFGHJKLMNOPQRST";
    let col = COLS[k % COLS.len()] as char;
    let row = 1 + (k / COLS.len()) % 3;
    format!("{col}{row}")
}

type Ws = WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// A guest's session: (cookie, CSRF token).
async fn guest(client: &reqwest::Client, addr: &str) -> Result<(String, String), String> {
    let r = client
        .post(format!("http://{addr}/api/auth/guest"))
        .send()
        .await
        .map_err(|e| format!("guest: {e}"))?;
    let cookie = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
        .ok_or("guest: no cookie")?;
    let v: Value = r.json().await.map_err(|e| format!("guest: {e}"))?;
    Ok((cookie, v["csrf"].as_str().unwrap_or_default().to_string()))
}

async fn socket(addr: &str, path: &str, cookie: &str, timeout: Duration) -> Result<Ws, String> {
    let mut req = format!("ws://{addr}{path}")
        .into_client_request()
        .map_err(|e| e.to_string())?;
    let h = req.headers_mut();
    h.insert("cookie", cookie.parse().map_err(|_| "bad cookie")?);
    h.insert(
        "origin",
        format!("http://{addr}").parse().map_err(|_| "bad origin")?,
    );
    let (ws, _) = tokio::time::timeout(timeout, tokio_tungstenite::connect_async(req))
        .await
        .map_err(|_| format!("{path}: no handshake within {timeout:?}"))?
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(ws)
}

/// The next JSON text message (and its size) within `timeout`.
async fn next_json(ws: &mut Ws, timeout: Duration) -> Result<(Value, usize), String> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let m = tokio::time::timeout_at(deadline, ws.next())
            .await
            .map_err(|_| format!("no message within {timeout:?}"))?
            .ok_or("closed")?
            .map_err(|e| e.to_string())?;
        match m {
            Message::Text(t) => {
                let n = t.len();
                return Ok((
                    serde_json::from_str(t.as_str()).map_err(|e| e.to_string())?,
                    n,
                ));
            }
            Message::Close(_) => return Err("closed".into()),
            _ => {}
        }
    }
}

/// Makes a room: uploads the record as the owner, opens its socket; (review id, socket, the
/// node after move 2).
async fn make_room(
    client: &reqwest::Client,
    o: &ReviewOptions,
) -> Result<(String, String, Ws, i64), String> {
    let (cookie, csrf) = guest(client, &o.addr).await?;
    let r = client
        .post(format!("http://{}/api/reviews", o.addr))
        .header("cookie", &cookie)
        .header("x-csrf-token", &csrf)
        .body(SGF)
        .send()
        .await
        .map_err(|e| format!("upload: {e}"))?;
    let v: Value = r.json().await.map_err(|e| format!("upload: {e}"))?;
    let id = v["id"].as_str().ok_or(format!("upload: {v}"))?.to_string();
    let mut ws = socket(&o.addr, &format!("/ws/reviews/{id}"), &cookie, o.timeout).await?;
    let (first, _) = next_json(&mut ws, o.timeout).await?;
    let tree = &first["tree"];
    let nodes = tree["nodes"].as_array().ok_or(format!("room: {first}"))?;
    let at = nodes
        .iter()
        .find(|n| n["number"] == 2)
        .and_then(|n| n["id"].as_i64())
        .ok_or("room: no move 2")?;
    Ok((id, cookie, ws, at))
}

/// A change: (room, a tree op (else a cursor move), its `v`).
type ChangeKey = (usize, bool, i64);

/// When each change was sent.
type Sent = Arc<Mutex<HashMap<ChangeKey, Instant>>>;

/// A delta a watcher received: (room, kind, v, when, bytes).
type Seen = (usize, bool, i64, Instant, usize);

/// Follows a room as a watcher until `want` deltas came.
async fn watch(
    mut ws: Ws,
    room: usize,
    want: usize,
    timeout: Duration,
) -> (Vec<Seen>, Option<String>) {
    let mut seen = Vec::with_capacity(want);
    while seen.len() < want {
        match next_json(&mut ws, timeout).await {
            Ok((v, n)) => {
                let op = v["type"] == "op";
                if op || v["type"] == "cursor" {
                    seen.push((room, op, v["v"].as_i64().unwrap_or(-1), Instant::now(), n));
                }
            }
            Err(e) => return (seen, Some(format!("watcher of room {room}: {e}"))),
        }
    }
    (seen, None)
}

/// Runs the bench.
pub async fn run(o: &ReviewOptions) -> Result<ReviewReport, String> {
    let client = reqwest::Client::new();
    let mut report = ReviewReport::default();
    // The rooms.
    let mut rooms = Vec::new();
    for _ in 0..o.rooms {
        rooms.push(make_room(&client, o).await?);
    }
    report.rooms = rooms.len();
    // The watchers, each room's share.
    let sem = Arc::new(tokio::sync::Semaphore::new(o.parallel.max(1)));
    let mut opening = Vec::new();
    for w in 0..o.watchers {
        let room = w % rooms.len();
        let id = rooms[room].0.clone();
        let (addr, timeout, client, sem) = (o.addr.clone(), o.timeout, client.clone(), sem.clone());
        opening.push(tokio::spawn(async move {
            let _p = sem.acquire().await;
            let (cookie, _) = guest(&client, &addr).await?;
            let mut ws = socket(&addr, &format!("/ws/reviews/{id}"), &cookie, timeout).await?;
            let (first, _) = next_json(&mut ws, timeout).await?;
            if first["type"] != "room" {
                return Err(format!("watcher: {first}"));
            }
            Ok::<_, String>((room, ws))
        }));
    }
    let mut watchers = Vec::new();
    for t in opening {
        match t.await {
            Ok(Ok(w)) => watchers.push(w),
            Ok(Err(e)) => report.note(e),
            Err(e) => report.note(e.to_string()),
        }
    }
    report.watchers = watchers.len();
    report.rss_kib = o.server_pid.and_then(resident_kib);
    let want = o.changes;
    let follow: Vec<_> = watchers
        .into_iter()
        .map(|(room, ws)| tokio::spawn(watch(ws, room, want, o.timeout)))
        .collect();
    // The owners' changes, every room at once.
    let sent: Sent = Default::default();
    let cpu0 = o.server_pid.and_then(cpu_secs);
    let start = Instant::now();
    let mut owners = Vec::new();
    for (room, (_, _, mut ws, parent)) in rooms.into_iter().enumerate() {
        let (sent, timeout) = (sent.clone(), o.timeout);
        owners.push(tokio::spawn(async move {
            let mut acks = Latencies::default();
            let mut node = parent;
            for k in 0..want {
                let op = k % 2 == 0;
                let msg = if op {
                    json!({"id": k, "op": {"op": "move", "parent": parent, "color": "B", "point": point(room + k / 2)}})
                } else {
                    json!({"id": k, "cursor": node})
                };
                let t0 = Instant::now();
                ws.send(Message::Text(msg.to_string().into()))
                    .await
                    .map_err(|e| e.to_string())?;
                let ack = loop {
                    let (v, _) = next_json(&mut ws, timeout).await?;
                    if v["type"] == "ack" || v["type"] == "error" {
                        break v;
                    }
                };
                if ack["type"] != "ack" {
                    return Err(format!("owner of room {room}: {ack}"));
                }
                acks.push(t0.elapsed());
                let v = if op {
                    node = ack["node"].as_i64().unwrap_or(node);
                    ack["version"].as_i64().unwrap_or(-1)
                } else {
                    ack["v"].as_i64().unwrap_or(-1)
                };
                sent.lock().expect("sent lock").insert((room, op, v), t0);
            }
            Ok::<_, String>((acks, ws))
        }));
    }
    let mut keep = Vec::new();
    for t in owners {
        match t.await {
            Ok(Ok((acks, ws))) => {
                report.changes += acks.count() as u64;
                report.ack.0.extend(acks.0);
                keep.push(ws);
            }
            Ok(Err(e)) => report.note(e),
            Err(e) => report.note(e.to_string()),
        }
    }
    let mut last: HashMap<ChangeKey, Instant> = HashMap::new();
    for t in follow {
        let (seen, err) = t.await.map_err(|e| e.to_string())?;
        if let Some(e) = err {
            report.note(e);
        }
        for (room, op, v, at, n) in seen {
            report.delivered += 1;
            report.delta_bytes += n as u64;
            let sent = sent.lock().expect("sent lock");
            if let Some(t0) = sent.get(&(room, op, v)) {
                report.to_watcher.push(at.duration_since(*t0));
                let l = last.entry((room, op, v)).or_insert(at);
                if at > *l {
                    *l = at;
                }
            }
        }
    }
    report.secs = start.elapsed().as_secs_f64();
    let sent = sent.lock().expect("sent lock");
    for (k, at) in last {
        if let Some(t0) = sent.get(&k) {
            report.to_last.push(at.duration_since(*t0));
        }
    }
    if let (Some(a), Some(b)) = (cpu0, o.server_pid.and_then(cpu_secs)) {
        report.server_cpu_secs = Some(b - a);
    }
    drop(keep);
    Ok(report)
}
