//! `baduk bench serve`: many concurrent human-versus-human Go games played over WebSocket
//! against a running server, as two players per game would play them, measuring what a player
//! waits for.
//!
//! Each game (9×9, `chinese`, no clock, both seats human) is created with `POST /api/games`;
//! each seat opens its own socket `GET /ws/games/{id}` and says `hello` with its token. Then the
//! seats alternate moves chosen with a seeded generator from the `legal` list of the last state
//! they saw (never `pass` or `resign`), sent as `{"id", "token", "action"}`. For every move two
//! latencies are taken from the moment it is sent: until the mover's socket gets its `ack`, and
//! until the other seat's socket gets the `delta` (or `state`) of the new version. The choice of
//! moves only depends on the seed, so the moves played (and their hash) are the same on every
//! run.

use baduk_rng::Rng;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The server's address, `host:port`; several processes of one cluster: their addresses
    /// separated by commas (game i is created at the i-th, modulo their number, and its two
    /// seats' sockets open at the next two, so that with two or more processes most sockets
    /// and actions reach a process that does not own their game).
    pub addr: String,
    /// Number of concurrent games.
    pub games: usize,
    /// Moves played in each game.
    pub moves: usize,
    /// Seed of the move choices.
    pub seed: u64,
    /// Actions a second offered over all games; 0: every game moves as soon as it has seen
    /// the last move (as fast as the server answers).
    pub rate: f64,
    /// The server's process ids (one per process of a cluster), to read their resident
    /// memory and CPU (summed).
    pub server_pids: Vec<u32>,
    /// Setup requests (create, connect) in flight at once.
    pub parallel: usize,
    /// The longest wait for one answer before the game counts an error and stops.
    pub timeout: Duration,
    /// One socket a game instead of two: Black's socket says hello and sends both seats'
    /// actions, each with its seat's token, and the new state is awaited on it too. Half the
    /// descriptors (10,000 games fit a limit of 20,000 open files on each side).
    pub one_socket: bool,
    /// Where a game's sockets open among a cluster's processes.
    pub sockets_at: SocketsAt,
}

/// Where a game's sockets open among a cluster's processes (game i is created at the i-th).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SocketsAt {
    /// Black's at the next process, White's at the one after (most reach a non-owner).
    #[default]
    Spread,
    /// Both at the process that created the game (the owner, unless the load placed it elsewhere).
    Creator,
    /// Both at the next process (a non-owner, unless the load placed the game there).
    Next,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            addr: "127.0.0.1:8080".into(),
            games: 100,
            moves: 40,
            seed: 1,
            rate: 0.0,
            server_pids: Vec::new(),
            parallel: 64,
            timeout: Duration::from_secs(30),
            one_socket: false,
            sockets_at: SocketsAt::Spread,
        }
    }
}

/// Latencies in microseconds.
#[derive(Clone, Debug, Default)]
pub struct Latencies(pub Vec<u32>);

impl Latencies {
    /// Adds one sample.
    pub fn push(&mut self, d: Duration) {
        self.0.push(d.as_micros().min(u32::MAX as u128) as u32);
    }

    /// Number of samples.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The `q` quantile (0..=1) in milliseconds (nearest rank), 0 without samples.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        let mut v = self.0.clone();
        v.sort_unstable();
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1] as f64 / 1000.0
    }

    /// `WHAT latency: p50 … p99 … max …`.
    pub fn line(&self, what: &str) -> String {
        format!(
            "{what} latency: p50 {:.2} ms p99 {:.2} ms max {:.2} ms ({} samples)",
            self.quantile_ms(0.5),
            self.quantile_ms(0.99),
            self.quantile_ms(1.0),
            self.count()
        )
    }
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct BenchReport {
    /// The options' games, moves, seed and rate.
    pub games: usize,
    /// Moves planned per game.
    pub moves: usize,
    /// The seed.
    pub seed: u64,
    /// The offered rate (0: flat out).
    pub rate: f64,
    /// Games set up (created, their sockets said hello).
    pub games_ready: usize,
    /// Sockets a game: 2 (one a seat) or 1 (`one_socket`).
    pub sockets_per_game: usize,
    /// Actions the server acknowledged (stored).
    pub actions: u64,
    /// A hash of every move played, game by game (the same on every run of the same seed).
    pub moves_hash: u64,
    /// Time from the first move sent to the last answer.
    pub play_secs: f64,
    /// Time to create the games and open their sockets.
    pub setup_secs: f64,
    /// Request to `ack` on the mover's socket.
    pub ack: Latencies,
    /// Request to the new `delta` (or `state`) on the other seat's socket (the mover's own
    /// with one socket a game).
    pub broadcast: Latencies,
    /// Acks slower than 50 ms, by the second of play their move was sent in: (second, count),
    /// the busiest seconds first (at most ten).
    pub slow_seconds: Vec<(u64, u64)>,
    /// Failed requests, refused actions, closed sockets and timeouts.
    pub errors: u64,
    /// `429` answers (retried after a pause; not errors).
    pub throttled: u64,
    /// The first few errors, as text.
    pub error_samples: Vec<String>,
    /// Server resident memory (KiB) before the games were created.
    pub rss_start_kib: Option<u64>,
    /// … with every game set up and its sockets open.
    pub rss_live_kib: Option<u64>,
    /// … after the moves, sockets still open.
    pub rss_end_kib: Option<u64>,
    /// CPU seconds the server spent during the play phase (user and system; every process).
    pub server_cpu_secs: Option<f64>,
    /// Server processes measured.
    pub processes: usize,
    /// Statements the server processes ran on the games' tables during the play phase
    /// (`baduk_db_queries_total` of their `/metrics`): SELECTs, writes, NOTIFYs.
    pub db_queries: Option<[u64; 3]>,
    /// CPU seconds this process (the bench client) spent during the play phase.
    pub client_cpu_secs: Option<f64>,
    /// The moves' messages the sockets received during the play phase (`delta`, or `state`
    /// when a socket was sent the whole state): how many, and their bytes.
    pub move_messages: (u64, u64),
}

/// Messages of the moves (`delta`, `state`) the bench's sockets received, and their bytes.
static MOVE_MESSAGES: [std::sync::atomic::AtomicU64; 2] = [
    std::sync::atomic::AtomicU64::new(0),
    std::sync::atomic::AtomicU64::new(0),
];

/// (messages, bytes) of [`MOVE_MESSAGES`] so far.
fn move_messages() -> (u64, u64) {
    use std::sync::atomic::Ordering::Relaxed;
    (
        MOVE_MESSAGES[0].load(Relaxed),
        MOVE_MESSAGES[1].load(Relaxed),
    )
}

impl BenchReport {
    /// Stored actions a second during the play phase.
    pub fn actions_per_second(&self) -> f64 {
        self.actions as f64 / self.play_secs.max(1e-9)
    }

    /// The lines `baduk bench serve` prints: the deterministic signature first.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!(
                "signature: games {} moves {} seed {} actions {} moves-hash {:016x}",
                self.games, self.moves, self.seed, self.actions, self.moves_hash
            ),
            format!(
                "actions per second: {:.0} ({} stored actions in {:.2} s{}; setup of {} games and {} sockets {:.2} s)",
                self.actions_per_second(),
                self.actions,
                self.play_secs,
                if self.rate > 0.0 {
                    format!(", {:.0} a second offered", self.rate)
                } else {
                    ", flat out".to_string()
                },
                self.games_ready,
                self.sockets_per_game * self.games_ready,
                self.setup_secs
            ),
            self.ack.line("ack"),
            self.broadcast.line("broadcast"),
            format!(
                "acks over 50 ms by second of play (second:count, busiest first): {}",
                if self.slow_seconds.is_empty() {
                    "none".to_string()
                } else {
                    self.slow_seconds
                        .iter()
                        .map(|(s, n)| format!("{s}:{n}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            ),
            format!("errors: {} (throttled and retried: {})", self.errors, self.throttled),
        ];
        if let (Some(srv), Some(cli)) = (self.server_cpu_secs, self.client_cpu_secs) {
            let n = self.actions.max(1) as f64;
            out.push(format!(
                "cpu per action: server {:.0} µs{}, bench client {:.0} µs ({:.2} s and {:.2} s over {:.2} s of play)",
                srv * 1e6 / n,
                if self.processes > 1 {
                    format!(" (all {} processes)", self.processes)
                } else {
                    String::new()
                },
                cli * 1e6 / n,
                srv,
                cli,
                self.play_secs
            ));
        }
        let (msgs, bytes) = self.move_messages;
        if msgs > 0 {
            out.push(format!(
                "watchers' messages of the moves: {msgs} (delta or state), {:.0} bytes each on average, {:.0} bytes per move per watching socket",
                bytes as f64 / msgs as f64,
                bytes as f64 / self.actions.max(1) as f64 / self.sockets_per_game.max(1) as f64
            ));
        }
        if let Some([sel, wr, no]) = self.db_queries {
            let n = self.actions.max(1) as f64;
            out.push(format!(
                "database statements per action: {:.2} SELECTs, {:.2} writes, {:.2} NOTIFYs (every process's /metrics)",
                sel as f64 / n,
                wr as f64 / n,
                no as f64 / n
            ));
        }
        for e in &self.error_samples {
            out.push(format!("  error: {e}"));
        }
        out.push(match (self.rss_start_kib, self.rss_live_kib, self.rss_end_kib) {
            (Some(s), Some(l), Some(e)) => {
                let n = self.games_ready.max(1) as f64;
                format!(
                    "server memory: {:.1} MiB at start, {:.1} MiB with {} live games ({:.1} KiB a game), {:.1} MiB after the moves ({:.1} KiB a game)",
                    s as f64 / 1024.0,
                    l as f64 / 1024.0,
                    self.games_ready,
                    l.saturating_sub(s) as f64 / n,
                    e as f64 / 1024.0,
                    e.saturating_sub(s) as f64 / n,
                )
            }
            _ => "server memory: not measured (give --server-pid)".to_string(),
        });
        out
    }
}

/// The sum of `pid`'s readings by `f`; None when any is unreadable or there are none.
fn summed<T: std::iter::Sum>(pids: &[u32], f: impl Fn(u32) -> Option<T>) -> Option<T> {
    if pids.is_empty() {
        return None;
    }
    pids.iter().map(|&p| f(p)).sum()
}

/// The `baduk_db_queries_total` counters (select, write, notify) of the process at `addr`.
async fn db_queries(client: &reqwest::Client, addr: &str) -> Option<[u64; 3]> {
    let text = client
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    let mut out = [0u64; 3];
    for (i, kind) in ["select", "write", "notify"].iter().enumerate() {
        let key = format!("baduk_db_queries_total{{kind=\"{kind}\"}} ");
        let line = text.lines().find(|l| l.starts_with(&key))?;
        out[i] = line[key.len()..].trim().parse().ok()?;
    }
    Some(out)
}

/// The counters of every process, summed.
async fn db_queries_all(client: &reqwest::Client, addrs: &[String]) -> Option<[u64; 3]> {
    let mut sum = [0u64; 3];
    for a in addrs {
        let q = db_queries(client, a).await?;
        for i in 0..3 {
            sum[i] += q[i];
        }
    }
    Some(sum)
}

/// The resident memory of process `pid` in KiB (`VmRSS` of `/proc/PID/status`).
pub fn resident_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU seconds (user and system) process `pid` has used (`/proc/PID/stat`, 100 ticks a second).
pub fn cpu_secs(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; the fields after it are plain numbers.
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

type Ws = WebSocketStream<TcpStream>;

/// A message from the server, with only the fields the bench reads.
#[derive(Deserialize)]
struct Incoming {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    error: Option<String>,
    /// A `state` message's full state.
    #[serde(default)]
    state: Option<StateIn>,
    /// A `delta` message's change (the fields read here are the same).
    #[serde(default)]
    delta: Option<StateIn>,
}

impl Incoming {
    /// The state a `state` or `delta` message carries (its version and legal moves).
    fn seen(self) -> Option<StateIn> {
        self.state.or(self.delta)
    }
}

#[derive(Deserialize)]
struct StateIn {
    version: i64,
    /// The legal moves, when sent whole.
    #[serde(default)]
    legal: Option<Vec<String>>,
    /// A delta's arrays sent as patches of the previous delta's (docs/api.md, "Changes").
    #[serde(default)]
    patch: Option<serde_json::Value>,
}

impl StateIn {
    /// The legal moves after this state or delta, from `held`, those of the version before.
    fn legal_after(self, held: &[String]) -> Vec<String> {
        match (self.legal, &self.patch) {
            (Some(l), _) => l,
            (None, Some(p)) => patched_legal(held, &p["legal"]),
            (None, None) => held.to_vec(),
        }
    }
}

/// The legal moves `held` with a delta's patch `p` of them applied (docs/api.md, "Changes";
/// null: unchanged).
pub(crate) fn patched_legal(held: &[String], p: &serde_json::Value) -> Vec<String> {
    let idx = |v: &serde_json::Value| v.as_u64().unwrap_or(u64::MAX) as usize;
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let mut out = held.to_vec();
    if let Some(set) = p["set"].as_array() {
        for e in set {
            if let Some(slot) = out.get_mut(idx(&e[0])) {
                *slot = text(&e[1]);
            }
        }
        return out;
    }
    let gone: std::collections::HashSet<usize> = p["remove"]
        .as_array()
        .map(|r| r.iter().map(idx).collect())
        .unwrap_or_default();
    out = out
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, m)| m)
        .collect();
    for e in p["insert"].as_array().into_iter().flatten() {
        let k = idx(&e[0]).min(out.len());
        out.insert(k, text(&e[1]));
    }
    out
}

/// A game ready to play: its id, its sockets (Black's and White's, or one for both) and
/// both seats' tokens, and the legal moves of Black.
struct Ready {
    id: String,
    ws: Vec<Ws>,
    tokens: [String; 2],
    legal: Vec<String>,
}

/// An ack slower than this is counted by the second of play its move was sent in.
const SLOW_ACK: Duration = Duration::from_millis(50);

/// What one game's play gave.
#[derive(Default)]
struct Played {
    ack: Latencies,
    broadcast: Latencies,
    actions: u64,
    moves_hash: u64,
    errors: u64,
    throttled: u64,
    error: Option<String>,
    first_send: Option<Instant>,
    /// When each ack slower than [`SLOW_ACK`] was sent.
    slow_sent: Vec<Instant>,
    last_answer: Option<Instant>,
    sockets: Vec<Ws>,
}

/// FNV-1a over `bytes`, continuing from `h`.
fn fnv(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

async fn create_game(
    client: &reqwest::Client,
    addr: &str,
) -> Result<(String, [String; 2]), String> {
    let body = json!({"game": "go", "size": 9, "rules": "chinese", "clock": "none",
        "seats": {"black": {"kind": "human"}, "white": {"kind": "human"}}});
    let r = client
        .post(format!("http://{addr}/api/games"))
        .json(&body)
        .send()
        .await
        .map_err(|e| format!("POST /api/games: {e}"))?;
    let status = r.status();
    let v: serde_json::Value = r
        .json()
        .await
        .map_err(|e| format!("POST /api/games: {status}: {e}"))?;
    if status.as_u16() != 201 {
        return Err(format!("POST /api/games: {status}: {v}"));
    }
    let token = |seat: &str| {
        v["seats"][seat]["token"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("POST /api/games: no token for {seat} in {v}"))
    };
    let id = v["id"]
        .as_str()
        .ok_or_else(|| format!("POST /api/games: no id in {v}"))?;
    Ok((id.to_string(), [token("black")?, token("white")?]))
}

/// Reads the next message (text) within `timeout`.
async fn next_message(ws: &mut Ws, timeout: Duration) -> Result<Incoming, String> {
    loop {
        let msg = tokio::time::timeout(timeout, ws.next())
            .await
            .map_err(|_| format!("no message within {timeout:?}"))?
            .ok_or("the server closed the socket")?
            .map_err(|e| format!("socket: {e}"))?;
        match msg {
            Message::Text(t) => {
                let m: Incoming = serde_json::from_str(t.as_str())
                    .map_err(|e| format!("unreadable message: {e}"))?;
                if m.kind == "delta" || m.kind == "state" {
                    use std::sync::atomic::Ordering::Relaxed;
                    MOVE_MESSAGES[0].fetch_add(1, Relaxed);
                    MOVE_MESSAGES[1].fetch_add(t.len() as u64, Relaxed);
                }
                return Ok(m);
            }
            Message::Close(_) => return Err("the server closed the socket".into()),
            _ => continue,
        }
    }
}

/// Opens one seat's socket, says hello; returns it with the legal moves of the last state seen.
async fn connect_seat(
    addr: &str,
    id: &str,
    token: &str,
    timeout: Duration,
) -> Result<(Ws, Vec<String>), String> {
    let tcp = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    tcp.set_nodelay(true)
        .map_err(|e| format!("connect {addr}: {e}"))?;
    let (mut ws, _) = tokio::time::timeout(
        timeout,
        tokio_tungstenite::client_async(format!("ws://{addr}/ws/games/{id}"), tcp),
    )
    .await
    .map_err(|_| format!("WebSocket handshake for {id}: no answer within {timeout:?}"))?
    .map_err(|e| format!("WebSocket handshake for {id}: {e}"))?;
    let legal = say_hello(&mut ws, token, timeout).await?;
    Ok((ws, legal))
}

/// Says `hello` with a seat's token on an open socket (which joins the seat); returns the
/// legal moves of the last state seen before the answer.
async fn say_hello(ws: &mut Ws, token: &str, timeout: Duration) -> Result<Vec<String>, String> {
    ws.send(Message::text(
        json!({"type": "hello", "token": token}).to_string(),
    ))
    .await
    .map_err(|e| format!("hello: {e}"))?;
    let mut legal = Vec::new();
    loop {
        let m = next_message(ws, timeout).await?;
        match m.kind.as_str() {
            "state" | "delta" => {
                if let Some(s) = m.seen() {
                    legal = s.legal_after(&legal);
                }
            }
            "hello" => return Ok(legal),
            "error" => {
                return Err(format!(
                    "hello: {} {}",
                    m.status.unwrap_or(0),
                    m.error.unwrap_or_default()
                ))
            }
            _ => {}
        }
    }
}

/// Creates one game at `addrs[0]` and opens Black's socket at `addrs[1]`, White's at
/// `addrs[2]` (one process: the same address thrice); with `one_socket`, Black's alone.
async fn set_up(
    client: reqwest::Client,
    addrs: [&str; 3],
    timeout: Duration,
    one_socket: bool,
) -> Result<Ready, String> {
    let (id, tokens) = create_game(&client, addrs[0]).await?;
    let (mut b, legal) = connect_seat(addrs[1], &id, &tokens[0], timeout).await?;
    if one_socket {
        // White joins now, as its own socket's hello would, not at its first move.
        say_hello(&mut b, &tokens[1], timeout).await?;
    }
    let mut ws = vec![b];
    if !one_socket {
        ws.push(connect_seat(addrs[2], &id, &tokens[1], timeout).await?.0);
    }
    Ok(Ready {
        id,
        ws,
        tokens,
        legal,
    })
}

/// Waits on the mover's socket for the answer to action `id`: the time of the ack, or the
/// error's status and text.
async fn wait_ack(ws: &mut Ws, id: u64, timeout: Duration) -> Result<Instant, (u16, String)> {
    loop {
        let m = next_message(ws, timeout).await.map_err(|e| (0, e))?;
        let mine = m.id.as_ref().and_then(|v| v.as_u64()) == Some(id);
        match m.kind.as_str() {
            "ack" if mine => return Ok(Instant::now()),
            "error" if mine || matches!(m.id, None | Some(serde_json::Value::Null)) => {
                return Err((
                    m.status.unwrap_or(0),
                    m.error.unwrap_or_else(|| "error".into()),
                ))
            }
            _ => {}
        }
    }
}

/// Waits on a socket for the state of `version`; returns when it came and the state (or delta).
async fn wait_state(
    ws: &mut Ws,
    version: i64,
    timeout: Duration,
) -> Result<(Instant, StateIn), String> {
    loop {
        let m = next_message(ws, timeout).await?;
        if m.kind != "state" && m.kind != "delta" {
            continue;
        }
        if let Some(s) = m.seen() {
            if s.version >= version {
                if s.version > version {
                    return Err(format!(
                        "state {} came while {version} was awaited",
                        s.version
                    ));
                }
                return Ok((Instant::now(), s));
            }
        }
    }
}

/// Picks a move (never pass or resign) from `legal`; `pass` when there is none.
fn pick(legal: &[String], rng: &mut Rng) -> String {
    let points: Vec<&String> = legal
        .iter()
        .filter(|m| !matches!(m.as_str(), "pass" | "resign"))
        .collect();
    if points.is_empty() {
        "pass".into()
    } else {
        points[rng.below(points.len())].clone()
    }
}

/// One socket for both seats: waits on it for the answer to action `id` and for the state of
/// `version`, which may come in either order; returns when each came and the new legal moves.
async fn wait_ack_and_state(
    ws: &mut Ws,
    id: u64,
    version: i64,
    timeout: Duration,
) -> Result<(Instant, Instant, StateIn), (u16, String)> {
    let mut acked = None;
    let mut seen = None;
    loop {
        let m = next_message(ws, timeout).await.map_err(|e| (0, e))?;
        let mine = m.id.as_ref().and_then(|v| v.as_u64()) == Some(id);
        match m.kind.as_str() {
            "ack" if mine => acked = Some(Instant::now()),
            "error" if mine || matches!(m.id, None | Some(serde_json::Value::Null)) => {
                return Err((
                    m.status.unwrap_or(0),
                    m.error.unwrap_or_else(|| "error".into()),
                ))
            }
            "state" | "delta" => match m.seen() {
                Some(s) if s.version > version => {
                    return Err((
                        0,
                        format!("state {} came while {version} was awaited", s.version),
                    ))
                }
                Some(s) if s.version == version => seen = Some((Instant::now(), s)),
                _ => {}
            },
            _ => {}
        }
        if let (Some(a), Some(_)) = (acked, seen.as_ref()) {
            let (at, legal) = seen.take().expect("checked above");
            return Ok((a, at, legal));
        }
    }
}

/// One move sent and answered: when it was (last) sent, acknowledged and seen by the other
/// seat, the legal moves after it, and the 429s retried.
type Exchange = (Instant, Instant, Instant, StateIn, u64);

/// What the mover's socket is awaited for after a send (its ack, and with one socket a game
/// the new state too).
type Await<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, (u16, String)>> + Send + 'a>>;

/// Sends `text` on `ws` and awaits `answer` on it; a 429 is retried after a pause (the
/// socket's own limit). Returns when it was last sent, the answer and the 429s retried.
async fn send_retrying<T>(
    ws: &mut Ws,
    text: &str,
    mut answer: impl for<'a> FnMut(&'a mut Ws) -> Await<'a, T>,
) -> Result<(Instant, T, u64), (u16, String)> {
    let mut throttled = 0u64;
    loop {
        let sent = Instant::now();
        ws.send(Message::text(text.to_owned()))
            .await
            .map_err(|e| (0, format!("send: {e}")))?;
        match answer(ws).await {
            Ok(v) => return Ok((sent, v, throttled)),
            Err((429, _)) => {
                throttled += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Sends a move on the mover's socket and waits for its ack there and for the new state on
/// `other` (the other seat's socket, or the mover's own when the game has one); the latency
/// counts from the last send.
async fn exchange(
    mover: &mut Ws,
    other: Option<&mut Ws>,
    text: &str,
    id: u64,
    version: i64,
    timeout: Duration,
) -> Result<Exchange, (u16, String)> {
    let Some(other) = other else {
        let (sent, (acked, seen, legal), throttled) = send_retrying(mover, text, |ws| {
            Box::pin(wait_ack_and_state(ws, id, version, timeout))
        })
        .await?;
        return Ok((sent, acked, seen, legal, throttled));
    };
    // The mover's ack and the other seat's state are awaited together.
    let acked = send_retrying(mover, text, |ws| Box::pin(wait_ack(ws, id, timeout)));
    let seen = async {
        wait_state(other, version, timeout)
            .await
            .map_err(|e| (0, format!("the other seat: {e}")))
    };
    let ((sent, acked_at, throttled), (seen_at, legal)) = tokio::try_join!(acked, seen)?;
    Ok((sent, acked_at, seen_at, legal, throttled))
}

/// Plays one game's moves; the sockets come back open.
async fn play(
    g: Ready,
    moves: usize,
    mut rng: Rng,
    schedule: Option<(Instant, Duration)>,
    timeout: Duration,
) -> Played {
    let mut out = Played {
        moves_hash: FNV_START,
        ..Played::default()
    };
    let Ready {
        id: game_id,
        mut ws,
        tokens,
        mut legal,
    } = g;
    for k in 0..moves {
        if let Some((start, every)) = schedule {
            tokio::time::sleep_until((start + every * k as u32).into()).await;
        }
        let seat = k % 2;
        let (mover, other) = match ws.as_mut_slice() {
            [b, w] if seat == 0 => (b, Some(w)),
            [b, w] => (w, Some(b)),
            [one] => (one, None),
            _ => unreachable!("a game has one socket or two"),
        };
        let mv = pick(&legal, &mut rng);
        out.moves_hash = fnv(out.moves_hash, mv.as_bytes());
        out.moves_hash = fnv(out.moves_hash, b";");
        let id = k as u64 + 1;
        let text = json!({"id": id, "token": tokens[seat], "action": mv}).to_string();
        let version = k as i64 + 1;
        let (sent, acked_at, seen_at, next_legal, throttled) =
            match exchange(mover, other, &text, id, version, timeout).await {
                Ok(x) => x,
                Err((status, e)) => {
                    out.errors += 1;
                    out.error = Some(format!("game {game_id} move {id} {mv}: {status} {e}"));
                    break;
                }
            };
        out.throttled += throttled;
        out.actions += 1;
        out.first_send.get_or_insert(sent);
        let done = acked_at.max(seen_at);
        out.last_answer = Some(out.last_answer.map_or(done, |l| l.max(done)));
        out.ack.push(acked_at - sent);
        if acked_at - sent > SLOW_ACK {
            out.slow_sent.push(sent);
        }
        out.broadcast.push(seen_at.saturating_duration_since(sent));
        legal = next_legal.legal_after(&legal);
    }
    out.sockets = ws;
    out
}

/// Runs the bench against the server at `opts.addr`.
pub async fn run(opts: &BenchOptions) -> Result<BenchReport, String> {
    if opts.games == 0 {
        return Err("--games: at least 1".into());
    }
    if !opts.rate.is_finite() || opts.rate < 0.0 {
        return Err("--rate: actions a second, 0 (flat out) or more".into());
    }
    let addrs: Arc<Vec<String>> = Arc::new(
        opts.addr
            .split(',')
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
            .collect(),
    );
    if addrs.is_empty() {
        return Err("--addr: at least one host:port".into());
    }
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(opts.parallel.max(1))
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?;
    for addr in addrs.iter() {
        let health = client
            .get(format!("http://{addr}/healthz"))
            .send()
            .await
            .map_err(|e| format!("no server at {addr}: {e}"))?;
        if !health.status().is_success() {
            return Err(format!("{addr}/healthz answered {}", health.status()));
        }
    }
    let rss = || summed(&opts.server_pids, resident_kib);
    let mut report = BenchReport {
        games: opts.games,
        moves: opts.moves,
        seed: opts.seed,
        rate: opts.rate,
        moves_hash: FNV_START,
        processes: addrs.len(),
        sockets_per_game: if opts.one_socket { 1 } else { 2 },
        rss_start_kib: rss(),
        ..BenchReport::default()
    };

    // Setup: create every game and open its two sockets, `parallel` games at a time.
    let setup_start = Instant::now();
    let gate = Arc::new(tokio::sync::Semaphore::new(opts.parallel.max(1)));
    let mut setups = Vec::with_capacity(opts.games);
    for i in 0..opts.games {
        let (client, addrs, gate) = (client.clone(), addrs.clone(), gate.clone());
        let (timeout, one_socket, sockets_at) = (opts.timeout, opts.one_socket, opts.sockets_at);
        setups.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await.expect("the gate stays open");
            let at = |k: usize| addrs[(i + k) % addrs.len()].as_str();
            let seats = match sockets_at {
                SocketsAt::Spread => [at(1), at(2)],
                SocketsAt::Creator => [at(0), at(0)],
                SocketsAt::Next => [at(1), at(1)],
            };
            set_up(client, [at(0), seats[0], seats[1]], timeout, one_socket).await
        }));
    }
    let mut ready = Vec::with_capacity(opts.games);
    for s in setups {
        match s.await {
            Ok(Ok(g)) => ready.push(g),
            Ok(Err(e)) => report.note_error(e),
            Err(e) => report.note_error(format!("setup task: {e}")),
        }
    }
    report.setup_secs = setup_start.elapsed().as_secs_f64();
    report.games_ready = ready.len();
    report.rss_live_kib = rss();

    // Play: every game at once; with a rate, each game moves on its own schedule, spread so
    // that the games together offer `rate` actions a second.
    let base = Rng::new(opts.seed);
    let every = (opts.rate > 0.0).then(|| Duration::from_secs_f64(opts.games as f64 / opts.rate));
    let mut spread = base.fork(u64::MAX);
    let start = Instant::now() + Duration::from_millis(10);
    let cpu = || summed(&opts.server_pids, cpu_secs).zip(cpu_secs(std::process::id()));
    let queries_before = db_queries_all(&client, &addrs).await;
    let cpu_before = cpu();
    let messages_before = move_messages();
    let mut games = Vec::with_capacity(ready.len());
    for (i, g) in ready.into_iter().enumerate() {
        let rng = base.fork(i as u64);
        let schedule = every.map(|e| (start + e.mul_f64(spread.unit()), e));
        games.push(tokio::spawn(play(
            g,
            opts.moves,
            rng,
            schedule,
            opts.timeout,
        )));
    }
    let mut first: Option<Instant> = None;
    let mut last: Option<Instant> = None;
    let mut sockets = Vec::new();
    let mut slow = Vec::new();
    for (i, g) in games.into_iter().enumerate() {
        let p = match g.await {
            Ok(p) => p,
            Err(e) => {
                report.note_error(format!("game task: {e}"));
                continue;
            }
        };
        report.actions += p.actions;
        report.errors += p.errors;
        report.throttled += p.throttled;
        if let Some(e) = p.error {
            if report.error_samples.len() < 5 {
                report.error_samples.push(e);
            }
        }
        report.ack.0.extend(p.ack.0);
        report.broadcast.0.extend(p.broadcast.0);
        report.moves_hash = fnv(report.moves_hash, &(i as u64).to_le_bytes());
        report.moves_hash = fnv(report.moves_hash, &p.moves_hash.to_le_bytes());
        first = match (first, p.first_send) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        last = last.max(p.last_answer);
        sockets.extend(p.sockets);
        slow.extend(p.slow_sent);
    }
    if let Some(first) = first {
        let mut by_second = std::collections::BTreeMap::<u64, u64>::new();
        for t in slow {
            *by_second
                .entry(t.saturating_duration_since(first).as_secs())
                .or_default() += 1;
        }
        let mut busiest: Vec<(u64, u64)> = by_second.into_iter().collect();
        busiest.sort_by_key(|&(s, n)| (std::cmp::Reverse(n), s));
        busiest.truncate(10);
        report.slow_seconds = busiest;
    }
    report.play_secs = match (first, last) {
        (Some(a), Some(b)) => (b - a).as_secs_f64(),
        _ => 0.0,
    };
    report.rss_end_kib = rss();
    let messages = move_messages();
    report.move_messages = (
        messages.0 - messages_before.0,
        messages.1 - messages_before.1,
    );
    if let (Some((s0, c0)), Some((s1, c1))) = (cpu_before, cpu()) {
        report.server_cpu_secs = Some(s1 - s0);
        report.client_cpu_secs = Some(c1 - c0);
    }
    if let (Some(q0), Some(q1)) = (queries_before, db_queries_all(&client, &addrs).await) {
        report.db_queries = Some(std::array::from_fn(|i| q1[i].saturating_sub(q0[i])));
    }
    for mut s in sockets {
        let _ = s.close(None).await;
    }
    Ok(report)
}

/// Notes one failure: counted, and kept among the first few samples.
pub fn note_failure(errors: &mut u64, samples: &mut Vec<String>, e: String) {
    *errors += 1;
    if samples.len() < 5 {
        samples.push(e);
    }
}

/// The closing lines of a report: the server's CPU over `cpu.0` and its memory `rss.0` (when
/// measured), then the failures' samples.
pub fn closing_lines(
    cpu: (&str, Option<f64>),
    rss: (&str, Option<u64>),
    samples: &[String],
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = cpu.1 {
        out.push(format!("server cpu over {}: {c:.2} s", cpu.0));
    }
    if let Some(r) = rss.1 {
        out.push(format!(
            "server memory {}: {:.1} MiB",
            rss.0,
            r as f64 / 1024.0
        ));
    }
    out.extend(samples.iter().map(|e| format!("  error: {e}")));
    out
}

impl BenchReport {
    fn note_error(&mut self, e: String) {
        self.errors += 1;
        if self.error_samples.len() < 5 {
            self.error_samples.push(e);
        }
    }
}
