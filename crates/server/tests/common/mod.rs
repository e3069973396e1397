//! Helpers of the server's integration tests: a server on a loopback port over a fresh
//! database (SQLite always; PostgreSQL too when `BADUK_TEST_POSTGRES` names one), and small
//! HTTP and WebSocket clients.
#![allow(dead_code)]

pub mod accounts;

use baduk_server::{start, Config};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// The cluster secret of the test servers.
pub const CLUSTER_SECRET: &str = "test-cluster-secret";

/// A PostgreSQL URL of its own for a test's server: the test script's database with a fresh
/// schema first in the search path, so the servers of different tests are separate clusters
/// (each would otherwise place games on, and take over games from, the others). A URL that
/// names its schema already (a second server of the same test: `hub.store.url()`), or a SQLite
/// one, is kept.
pub async fn fresh_schema(db: &str) -> String {
    if !db.starts_with("postgres") || db.contains("search_path") {
        return db.to_string();
    }
    let schema = format!("t_{}", baduk_server::game::hub::new_id());
    use sqlx::Connection;
    let mut conn = sqlx::postgres::PgConnection::connect(db)
        .await
        .expect("the test database opens");
    sqlx::query(&format!("CREATE SCHEMA {schema}"))
        .execute(&mut conn)
        .await
        .expect("a schema");
    let _ = conn.close().await;
    let sep = if db.contains('?') { '&' } else { '?' };
    format!("{db}{sep}options[search_path]={schema}")
}

/// A running test server.
pub struct Server {
    pub base: String,
    pub ws: String,
    pub http: reqwest::Client,
    /// The server's address.
    pub addr: std::net::SocketAddr,
    /// The server's live games (for counters: sockets, bots).
    pub hub: std::sync::Arc<baduk_server::game::hub::Hub>,
    _dir: Option<tempfile::TempDir>,
}

/// The databases every test runs on: a temporary SQLite file, and PostgreSQL when the test
/// script started one (`BADUK_TEST_POSTGRES=postgres://…`).
pub fn databases() -> Vec<String> {
    let mut v = vec!["sqlite".to_string()];
    if let Ok(url) = std::env::var("BADUK_TEST_POSTGRES") {
        if !url.is_empty() {
            v.push(url);
        }
    }
    v
}

impl Server {
    /// A server on `db` (`sqlite` for a fresh temporary file) with `rate_limit` a second.
    pub async fn start_with(db: &str, rate_limit: f64, test_bots: bool) -> Server {
        Server::start_config(db, |c| {
            c.rate_limit = rate_limit;
            c.test_bots = test_bots;
        })
        .await
    }

    /// A server on `db` whose configuration (no limits, test bots) `change` adjusts first.
    pub async fn start_config(db: &str, change: impl FnOnce(&mut Config)) -> Server {
        let (url, dir) = if db == "sqlite" {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let url = format!("sqlite:{}", dir.path().join("test.db").display());
            (url, Some(dir))
        } else {
            (fresh_schema(db).await, None)
        };
        let mut cfg = Config {
            addr: "127.0.0.1:0".into(),
            database: url,
            rate_limit: 0.0,
            test_bots: true,
            limits: baduk_server::Limits::unlimited(),
            cluster_secret: Some(CLUSTER_SECRET.into()),
            ..Default::default()
        };
        change(&mut cfg);
        let running = start(cfg).await.expect("the server starts");
        let addr = running.addr;
        Server {
            base: format!("http://{addr}"),
            ws: format!("ws://{addr}"),
            http: reqwest::Client::new(),
            addr,
            hub: running.hub,
            _dir: dir,
        }
    }

    /// A server on `db` without a rate limit.
    pub async fn start(db: &str) -> Server {
        Server::start_with(db, 0.0, true).await
    }

    /// POST JSON; returns (status, body).
    pub async fn post(&self, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
        let mut r = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        let resp = r.send().await.expect("the request is answered");
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// GET; returns (status, body as JSON or a string).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("the request is answered");
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// Creates a game from a JSON body; returns (id, tokens by seat name).
    pub async fn create(&self, body: Value) -> (String, Value) {
        let (s, v) = self.post("/api/games", None, &body.to_string()).await;
        assert_eq!(s, 201, "create {body}: {v}");
        (v["id"].as_str().unwrap().to_string(), v["seats"].clone())
    }

    /// One action; returns (status, body).
    pub async fn act(&self, id: &str, token: &str, action: &str) -> (u16, Value) {
        self.post(
            &format!("/api/games/{id}/actions"),
            Some(token),
            &json!({ "action": action }).to_string(),
        )
        .await
    }

    /// One action that must succeed; returns its reply: the new state without its history
    /// (`actions`, `moves`), plus `base`, `log` and `history` (docs/api.md, "Changes").
    pub async fn ok(&self, id: &str, token: &str, action: &str) -> Value {
        let (s, v) = self.act(id, token, action).await;
        assert_eq!(s, 200, "{action}: {v}");
        assert!(
            v.get("actions").is_none() && v.get("moves").is_none(),
            "lean: {v}"
        );
        v
    }

    /// The state of a game.
    pub async fn state(&self, id: &str) -> Value {
        let (s, v) = self.get(&format!("/api/games/{id}")).await;
        assert_eq!(s, 200, "{v}");
        v
    }

    /// Polls the state until `pred` holds (at most `secs` seconds).
    pub async fn wait_for(&self, id: &str, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
        let end = std::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let st = self.state(id).await;
            if pred(&st) {
                return st;
            }
            assert!(
                std::time::Instant::now() < end,
                "condition not reached in {secs} s; last state: {st}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A WebSocket watching game `id`.
    pub async fn watch(&self, id: &str) -> Watcher {
        let (ws, _) = tokio_tungstenite::connect_async(format!("{}/ws/games/{id}", self.ws))
            .await
            .expect("the socket opens");
        Watcher {
            ws,
            held: None,
            syncs: 0,
            deltas: 0,
        }
    }
}

/// The full state a client rebuilds from the state `held` (of version `delta["base"]`) and a
/// change (a socket's `delta`, or the reply to an action): the change's fields replace the
/// state's, its `log` is appended to `actions`, and each history array keeps its first
/// `history.keep` entries and takes the ones given.
pub fn merge(held: &Value, delta: &Value) -> Value {
    assert_eq!(
        held["version"], delta["base"],
        "a change applies to its base only"
    );
    // The change's fields replace the held state's; one it leaves out keeps its value.
    let mut next = held.clone();
    let obj = next.as_object_mut().expect("a state is an object");
    for (k, v) in delta.as_object().expect("a change is an object") {
        if !["base", "log", "history", "patch"].contains(&k.as_str()) {
            obj.insert(k.clone(), v.clone());
        }
    }
    // Arrays sent as patches of the held ones (docs/api.md, "Changes").
    if let Some(patches) = delta["patch"].as_object() {
        for (k, p) in patches {
            let old = held[k].as_array().cloned().unwrap_or_default();
            obj.insert(k.clone(), Value::Array(patched(&old, p)));
        }
    }
    let mut actions = held["actions"].as_array().cloned().unwrap_or_default();
    actions.extend(delta["log"].as_array().cloned().unwrap_or_default());
    obj.insert("actions".into(), Value::Array(actions));
    let history = delta["history"]
        .as_object()
        .expect("a change has its history");
    let keep = history["keep"].as_u64().expect("history.keep") as usize;
    for (k, add) in history.iter().filter(|(k, _)| *k != "keep") {
        let mut arr = held[k].as_array().cloned().unwrap_or_default();
        arr.truncate(keep);
        arr.extend(add.as_array().cloned().unwrap_or_default());
        obj.insert(k.clone(), Value::Array(arr));
    }
    next
}

/// An array patched as docs/api.md says: `set` in place, or `remove` then `insert`.
pub fn patched(old: &[Value], p: &Value) -> Vec<Value> {
    let idx = |v: &Value| v.as_u64().expect("an index") as usize;
    let mut out = old.to_vec();
    if let Some(set) = p["set"].as_array() {
        for e in set {
            out[idx(&e[0])] = e[1].clone();
        }
        return out;
    }
    let gone: Vec<usize> = p["remove"]
        .as_array()
        .expect("remove")
        .iter()
        .map(idx)
        .collect();
    out = out
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, v)| v)
        .collect();
    for e in p["insert"].as_array().expect("insert") {
        let k = idx(&e[0]).min(out.len());
        out.insert(k, e[1].clone());
    }
    out
}

/// Two states compared without what depends on the moment they were taken (`now`, and the
/// `clocks`, whose running one counts down); `you` too (it says who asked).
pub fn assert_same_state(a: &Value, b: &Value, what: &str) {
    let strip = |v: &Value| {
        let mut v = v.clone();
        for k in ["now", "clocks", "you"] {
            v.as_object_mut().expect("a state").remove(k);
        }
        v
    };
    let (a, b) = (strip(a), strip(b));
    if a != b {
        let ao = a.as_object().unwrap();
        let bo = b.as_object().unwrap();
        let differ: Vec<&String> = ao
            .keys()
            .chain(bo.keys())
            .filter(|k| ao.get(*k) != bo.get(*k))
            .collect();
        panic!("{what}: the states differ in {differ:?}\n{a}\n{b}");
    }
}

/// A WebSocket client.
pub struct Watcher {
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    /// The state this watcher holds, as a client keeps it: the last full `state`, with every
    /// `delta` since applied to it.
    pub held: Option<Value>,
    /// `sync` requests sent because a delta did not follow the state held.
    pub syncs: usize,
    /// Deltas applied to the state held.
    pub deltas: usize,
}

impl Watcher {
    /// The next JSON message (fails the test after 10 s); a `state` or `delta` also updates
    /// the state held (a delta that does not follow it asks the server for the full state).
    pub async fn next(&mut self) -> Value {
        let v = self.next_raw().await;
        match v["type"].as_str() {
            Some("state") => {
                let st = &v["state"];
                if self
                    .held
                    .as_ref()
                    .is_none_or(|h| st["version"].as_i64() >= h["version"].as_i64())
                {
                    self.held = Some(st.clone());
                }
            }
            Some("delta") => {
                let d = &v["delta"];
                let held_version = self.held.as_ref().and_then(|h| h["version"].as_i64());
                if held_version.is_some_and(|h| d["version"].as_i64() <= Some(h)) {
                    // Already held (the first state came after this action).
                } else if held_version.is_some() && held_version == d["base"].as_i64() {
                    self.held = Some(merge(self.held.as_ref().unwrap(), d));
                    self.deltas += 1;
                } else {
                    self.syncs += 1;
                    self.send(json!({"type": "sync"})).await;
                }
            }
            _ => {}
        }
        v
    }

    /// The next JSON message as it came (fails the test after 10 s).
    pub async fn next_raw(&mut self) -> Value {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(10), self.ws.next())
                .await
                .expect("a message within 10 s")
                .expect("the socket stays open")
                .expect("a readable message");
            if let Message::Text(t) = m {
                return serde_json::from_str(&t).expect("JSON from the server");
            }
        }
    }

    /// The next message whose `type` is `kind` (others are skipped).
    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == kind {
                return v;
            }
        }
    }

    /// The state held (full states and the deltas applied to them) once it satisfies `pred`.
    pub async fn state_where(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            if let Some(st) = self.held.as_ref().filter(|st| pred(st)) {
                return st.clone();
            }
            self.next().await;
        }
    }

    /// Sends a JSON message.
    pub async fn send(&mut self, v: Value) {
        self.send_text(&v.to_string()).await;
    }

    /// Sends a text message as it is (JSON or not).
    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.to_string().into()))
            .await
            .expect("the socket takes the message");
    }
}

/// A WebSocket opened by hand on a raw TCP stream (a receive buffer of `rcvbuf` bytes) that
/// then neither reads nor writes: the hostile watcher. Returns the stream after the 101.
pub async fn raw_socket(
    addr: std::net::SocketAddr,
    id: &str,
    rcvbuf: u32,
) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let sock = tokio::net::TcpSocket::new_v4().expect("a socket");
    sock.set_recv_buffer_size(rcvbuf)
        .expect("a receive buffer size");
    let mut s = sock.connect(addr).await.expect("connects");
    let req = format!(
        "GET /ws/games/{id} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(req.as_bytes())
        .await
        .expect("the handshake is sent");
    // Read the answer's head byte by byte, so nothing after it is taken.
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        let n = s.read(&mut b).await.expect("the handshake is answered");
        assert!(
            n == 1,
            "closed during the handshake: {}",
            String::from_utf8_lossy(&head)
        );
        head.push(b[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    s
}

/// Reads (and drops) whatever `s` brings until the peer closes; true if it closed within `secs`.
pub async fn closes_within(s: &mut tokio::net::TcpStream, secs: u64) -> bool {
    use tokio::io::AsyncReadExt;
    let end = tokio::time::Instant::now() + Duration::from_secs(secs);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match tokio::time::timeout_at(end, s.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

/// Polls `f` until it holds (at most `secs` seconds); false if it never did.
pub async fn eventually(secs: u64, f: impl Fn() -> bool) -> bool {
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    f()
}

/// The token of a seat from a create answer.
pub fn token(seats: &Value, seat: &str) -> String {
    seats[seat]["token"].as_str().expect("a token").to_string()
}
