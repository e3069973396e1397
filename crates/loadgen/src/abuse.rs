//! The client side of `baduk bench abuse`: a scripted abuse mix against a running `baduk serve`
//! (floods of game creation, actions with made-up tokens, junk bodies, sockets opened and never
//! read, set-up bombs uploaded as reviews (the old ones, and the escaped and collection bombs),
//! a stored review read over and over (page, analysis, marks, annotated export), "play now" seek
//! floods from two guests, connections that send their headers a byte at a time, watchers'
//! sockets squatting on one game beside its seat holder's own), each abuser on its own loopback
//! address, beside honest games played from addresses of their own (player against player, and
//! player against the server's bot). It reports the honest actions' latency, the bot's replies
//! over its think time, `/healthz`'s latency, any acknowledged action the server lost, what the
//! abusers got back, and the server's resident memory. Bounded in time; loopback only.

use crate::bench::{resident_kib, Latencies};
use baduk_rng::Rng;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What to run.
#[derive(Clone, Debug)]
pub struct AbuseOptions {
    /// The server (a loopback address).
    pub addr: String,
    /// How long the mix runs.
    pub seconds: u64,
    /// Honest games played beside it (two players each, each from its own address).
    pub honest: usize,
    /// Seconds between an honest player's moves.
    pub think: f64,
    /// Abusers of each kind (each from its own address).
    pub abusers: usize,
    /// Sockets each socket abuser keeps open without reading.
    pub sockets_each: usize,
    /// The server's process id, for its resident memory.
    pub server_pid: Option<u32>,
    /// Seed of the honest moves.
    pub seed: u64,
    /// Honest 9×9 games against the server's bot (`baduk`, [`BOT_THINK`] a move) played
    /// beside it, each player from its own address.
    pub bot_games: usize,
}

/// The think time of the bot seats in the honest bot games (`time=1`): a reply's latency is
/// reported over it.
pub const BOT_THINK: Duration = Duration::from_secs(1);

impl Default for AbuseOptions {
    fn default() -> AbuseOptions {
        AbuseOptions {
            addr: "127.0.0.1:8080".into(),
            seconds: 600,
            honest: 20,
            think: 0.5,
            abusers: 4,
            sockets_each: 40,
            server_pid: None,
            seed: 1,
            bot_games: 2,
        }
    }
}

/// What happened.
#[derive(Debug, Default)]
pub struct AbuseReport {
    /// Honest actions acknowledged.
    pub honest_acked: u64,
    /// Honest actions refused (any status but 200).
    pub honest_refused: u64,
    /// Honest refusals by status.
    pub honest_codes: BTreeMap<u16, u64>,
    /// Latency of every acknowledged honest action (µs).
    pub latency: Latencies,
    /// Acknowledged actions not found in the stored games at the end.
    pub lost: u64,
    /// Honest games played (finished ones are replaced).
    pub honest_games: u64,
    /// Honest bot games played (finished ones are replaced).
    pub bot_games: u64,
    /// The bot's replies: from the player's move to the bot's, by the server's own clock (the
    /// actions' `at`), less [`BOT_THINK`] (µs; a reply quicker than its think time counts 0).
    pub bot_over_think: Latencies,
    /// The bot's replies as the player saw them: from the move's acknowledgement to the
    /// bot's move in the game's state, polled every [`BOT_POLL`] (µs).
    pub bot_seen: Latencies,
    /// The bot's replies that had not come within [`BOT_REPLY_LIMIT`].
    pub bot_missing: u64,
    /// Abusive requests sent, by kind, and the statuses they got.
    pub abuse: BTreeMap<String, BTreeMap<u16, u64>>,
    /// Sockets opened and never read (each held 30 s, then replaced).
    pub stuck_opened: u64,
    /// Sockets refused at the upgrade (429).
    pub stuck_refused: u64,
    /// The socket squat on the target game: the squatters' sockets held and refused.
    pub squat: (u64, u64),
    /// The target game's seat holder's own sockets, opened while the squat ran: proved a seat,
    /// and refused (or closed before proving it).
    pub seat_sockets: (u64, u64),
    /// Latency of `/healthz`, polled every 100 ms (µs).
    pub health: Latencies,
    /// `/healthz` polls that failed or took over 5 s.
    pub health_failed: u64,
    /// Slow-header connections opened, and how long the server kept each (µs) before closing.
    pub slow: Latencies,
    /// The server's resident memory: first and largest sample (KiB).
    pub rss_kib: (Option<u64>, Option<u64>),
    /// Seconds it ran.
    pub seconds: f64,
}

impl AbuseReport {
    /// The report as lines of text.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!(
                "honest: {} games, {} actions acknowledged, {} refused {:?}, {} lost",
                self.honest_games,
                self.honest_acked,
                self.honest_refused,
                self.honest_codes,
                self.lost
            ),
            format!(
                "honest ack latency: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
                self.latency.quantile_ms(0.5),
                self.latency.quantile_ms(0.99),
                self.latency.quantile_ms(1.0)
            ),
        ];
        out.push(format!(
            "bot games: {} games, {} replies; reply over its {:.1} s think time (server clock): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; as the player saw it: p50 {:.0} ms, p99 {:.0} ms; {} missing",
            self.bot_games,
            self.bot_over_think.count(),
            BOT_THINK.as_secs_f64(),
            self.bot_over_think.quantile_ms(0.5),
            self.bot_over_think.quantile_ms(0.99),
            self.bot_over_think.quantile_ms(1.0),
            self.bot_seen.quantile_ms(0.5),
            self.bot_seen.quantile_ms(0.99),
            self.bot_missing
        ));
        for (k, codes) in &self.abuse {
            let n: u64 = codes.values().sum();
            out.push(format!("abuse {k}: {n} requests, statuses {codes:?}"));
        }
        out.push(format!(
            "abuse sockets never read: {} opened, {} refused at the upgrade",
            self.stuck_opened, self.stuck_refused
        ));
        out.push(format!(
            "abuse socket squat ({SQUAT_ADDRESSES} addresses × {SQUAT_EACH} sockets on the target game): {} held, {} refused; the seat's own sockets: {} proved the seat, {} refused",
            self.squat.0, self.squat.1, self.seat_sockets.0, self.seat_sockets.1
        ));
        out.push(format!(
            "/healthz: {} polls, p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms, {} failed",
            self.health.0.len(),
            self.health.quantile_ms(0.5),
            self.health.quantile_ms(0.99),
            self.health.quantile_ms(1.0),
            self.health_failed
        ));
        out.push(format!(
            "abuse slow headers (a byte every 2 s): {} connections, held by the server p50 {:.1} s, max {:.1} s",
            self.slow.0.len(),
            self.slow.quantile_ms(0.5) / 1000.0,
            self.slow.quantile_ms(1.0) / 1000.0
        ));
        out.push(match self.rss_kib {
            (Some(a), Some(b)) => format!(
                "server RSS: {:.1} MiB at the start, {:.1} MiB at most",
                a as f64 / 1024.0,
                b as f64 / 1024.0
            ),
            _ => "server RSS: not measured (no --server-pid)".to_string(),
        });
        out.push(format!("ran {:.0} s", self.seconds));
        out
    }
}

/// The loopback address of client number `n` (127.0.0.2 and up; the server is on 127.0.0.1).
fn client_addr(n: usize) -> IpAddr {
    let n = n + 2;
    IpAddr::V4(Ipv4Addr::new(127, 0, (n / 250) as u8, (n % 250) as u8 + 1))
}

fn client(from: IpAddr) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .local_address(from)
        .pool_max_idle_per_host(4)
        .timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| format!("an HTTP client: {e}"))
}

type Codes = Arc<Mutex<BTreeMap<String, BTreeMap<u16, u64>>>>;

fn count(codes: &Codes, kind: &str, code: u16) {
    let mut c = codes.lock().expect("codes lock");
    *c.entry(kind.to_string())
        .or_default()
        .entry(code)
        .or_default() += 1;
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    body: String,
) -> (u16, Value) {
    let mut r = http
        .post(url)
        .header("content-type", "application/json")
        .body(body);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    match r.send().await {
        Ok(resp) => {
            let code = resp.status().as_u16();
            let v = resp.json::<Value>().await.unwrap_or(Value::Null);
            (code, v)
        }
        Err(_) => (0, Value::Null),
    }
}

/// One honest game: both players move in turn at `think` seconds, each from its own address;
/// returns every acknowledged (game, version, action).
async fn honest_game(
    base: String,
    n: usize,
    opts: AbuseOptions,
    stop: Arc<AtomicBool>,
    report: Arc<Mutex<AbuseReport>>,
) -> Result<Vec<(String, i64, String)>, String> {
    let players = [
        client(client_addr(1000 + 2 * n))?,
        client(client_addr(1001 + 2 * n))?,
    ];
    let mut rng = Rng::new(opts.seed ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut acked = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let (code, v) = post(
            &players[0],
            &format!("{base}/api/games"),
            None,
            json!({"game": "go", "size": 19, "rules": "chinese"}).to_string(),
        )
        .await;
        if code != 201 {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        report.lock().expect("report").honest_games += 1;
        let id = v["id"].as_str().unwrap_or_default().to_string();
        let tokens = [
            v["seats"]["black"]["token"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            v["seats"]["white"]["token"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        ];
        let mut legal: Vec<String> = Vec::new();
        for mv in 0..300usize {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            tokio::time::sleep(Duration::from_secs_f64(opts.think)).await;
            let side = mv % 2;
            let action = if legal.is_empty() || mv >= 250 {
                if mv == 0 {
                    "Q16".to_string()
                } else {
                    "pass".to_string()
                }
            } else {
                legal[rng.below(legal.len())].clone()
            };
            let t = Instant::now();
            let (code, st) = post(
                &players[side],
                &format!("{base}/api/games/{id}/actions"),
                Some(&tokens[side]),
                json!({ "action": action }).to_string(),
            )
            .await;
            let us = t.elapsed().as_micros() as u32;
            let mut r = report.lock().expect("report");
            if code == 200 {
                r.honest_acked += 1;
                r.latency.0.push(us);
                let version = st["version"].as_i64().unwrap_or(0);
                acked.push((id.clone(), version, action));
                legal = st["legal"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|m| m.as_str())
                            .filter(|m| *m != "pass")
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                if st["status"] == "finished" || st["phase"] == "marking" {
                    break;
                }
            } else {
                r.honest_refused += 1;
                *r.honest_codes.entry(code).or_default() += 1;
                break;
            }
        }
    }
    Ok(acked)
}

/// How often a bot game's player looks for the bot's reply.
pub const BOT_POLL: Duration = Duration::from_millis(20);
/// How long a bot game's player waits for a reply before counting it missing.
pub const BOT_REPLY_LIMIT: Duration = Duration::from_secs(30);

/// One honest game against the server's bot: a 9×9 game, the player Black from its own
/// address moving at `think` seconds, the bot White at `time=1`; finished games are replaced.
/// Returns every acknowledged (game, version, action) of the player's.
async fn bot_game(
    base: String,
    n: usize,
    opts: AbuseOptions,
    stop: Arc<AtomicBool>,
    report: Arc<Mutex<AbuseReport>>,
) -> Result<Vec<(String, i64, String)>, String> {
    let http = client(client_addr(2000 + n))?;
    let mut rng = Rng::new(opts.seed ^ 0xb07 ^ (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut acked = Vec::new();
    let create = json!({"game": "go", "size": 9, "rules": "japanese",
        "seats": {"black": {"kind": "human"},
                  "white": {"kind": "bot", "bot": "baduk",
                            "options": format!("time={}", BOT_THINK.as_secs_f64())}}});
    while !stop.load(Ordering::Relaxed) {
        let (code, v) = post(
            &http,
            &format!("{base}/api/games"),
            None,
            create.to_string(),
        )
        .await;
        if code != 201 {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        report.lock().expect("report").bot_games += 1;
        let id = v["id"].as_str().unwrap_or_default().to_string();
        let token = v["seats"]["black"]["token"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let mut legal: Vec<String> = vec!["E5".into()];
        for _ in 0..60 {
            if stop.load(Ordering::Relaxed) || legal.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_secs_f64(opts.think)).await;
            let action = legal[rng.below(legal.len())].clone();
            let (code, st) = post(
                &http,
                &format!("{base}/api/games/{id}/actions"),
                Some(&token),
                json!({ "action": action }).to_string(),
            )
            .await;
            if code != 200 {
                let mut r = report.lock().expect("report");
                r.honest_refused += 1;
                *r.honest_codes.entry(code).or_default() += 1;
                break;
            }
            let acked_at = Instant::now();
            let version = st["version"].as_i64().unwrap_or(0);
            acked.push((id.clone(), version, action));
            report.lock().expect("report").honest_acked += 1;
            if st["status"] == "finished" {
                break;
            }
            // The bot's reply: the next action in the game's state.
            let reply = loop {
                if acked_at.elapsed() > BOT_REPLY_LIMIT || stop.load(Ordering::Relaxed) {
                    break None;
                }
                tokio::time::sleep(BOT_POLL).await;
                let st: Value = match http.get(format!("{base}/api/games/{id}")).send().await {
                    Ok(r) => r.json().await.unwrap_or(Value::Null),
                    Err(_) => continue,
                };
                if st["version"].as_i64().unwrap_or(0) > version {
                    break Some(st);
                }
            };
            let Some(st) = reply else {
                if !stop.load(Ordering::Relaxed) {
                    report.lock().expect("report").bot_missing += 1;
                }
                break;
            };
            let seen = acked_at.elapsed();
            let actions = st["actions"].as_array().cloned().unwrap_or_default();
            let at = |v: i64| actions.get((v - 1) as usize).and_then(|a| a["at"].as_i64());
            {
                let mut r = report.lock().expect("report");
                r.bot_seen.push(seen);
                if let (Some(mine), Some(bots)) = (at(version), at(version + 1)) {
                    let over = (bots - mine) - BOT_THINK.as_millis() as i64;
                    r.bot_over_think
                        .push(Duration::from_millis(over.max(0) as u64));
                }
            }
            if st["status"] == "finished" || st["phase"] == "marking" {
                break;
            }
            legal = st["legal"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|m| m.as_str())
                        .filter(|m| *m != "pass")
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
        }
    }
    Ok(acked)
}

/// Opens a WebSocket on a raw stream with a tiny receive window and never reads it.
async fn stuck_socket(server: SocketAddr, from: IpAddr, id: &str) -> Option<tokio::net::TcpStream> {
    let sock = tokio::net::TcpSocket::new_v4().ok()?;
    sock.set_recv_buffer_size(2048).ok()?;
    sock.bind(SocketAddr::new(from, 0)).ok()?;
    let mut s = tokio::time::timeout(Duration::from_secs(5), sock.connect(server))
        .await
        .ok()?
        .ok()?;
    let req = format!(
        "GET /ws/games/{id} HTTP/1.1\r\nHost: {server}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.ok()?;
    let mut head = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(5), s.read_exact(&mut head))
        .await
        .ok()?
        .ok()?;
    head.starts_with(b"HTTP/1.1 101").then_some(s)
}

/// The set-up bomb of issue 39: 4,000 nodes each filling and clearing a 25×25 board.
pub fn setup_bomb() -> String {
    format!("(;SZ[25]{})", ";AB[aa:yy]AE[aa:yy]".repeat(4_000))
}

/// A record at the set-up cap (50 × 361 points on 19×19) with a few moves: legal, the most
/// set-up a review may hold.
pub fn setup_heavy() -> String {
    format!(
        "(;SZ[19]{};B[dd];W[pp];B[dp];W[pd])",
        ";AB[aa:ss]AE[aa:ss]".repeat(25)
    )
}

/// Issue 56's escaped set-up bomb: 19,990 nodes of `AB[\aa:ZZ]` in a variation (220 KB), whose
/// escapes hid each 52×52 rectangle from the old pre-scan.
pub fn escaped_bomb() -> String {
    format!(
        "(;GM[1]SZ[19];B[pd];W[dp](;B[pp])({}))",
        ";AB[\\aa:ZZ]".repeat(19_990)
    )
}

/// Issue 56's collection bomb: 900 games of 11 `AB[aa:ZZ]` each (100 KB), every game under the
/// old per-game set-up cap.
pub fn collection_bomb() -> String {
    format!("(;GM[1]{})", "AB[aa:ZZ]".repeat(11)).repeat(900)
}

/// Abuser `a` uploading the escaped and the collection bombs in turn until `stop`, from its
/// own address.
fn review_bomb_uploads(
    a: usize,
    stop: Arc<AtomicBool>,
    codes: Codes,
    base: String,
) -> Result<tokio::task::JoinHandle<()>, String> {
    let http = client(client_addr(100 + a))?;
    Ok(tokio::spawn(async move {
        let bombs = [escaped_bomb(), collection_bomb()];
        let mut i = 0;
        while !stop.load(Ordering::Relaxed) {
            let c = match http
                .post(format!("{base}/api/reviews"))
                .body(bombs[i % 2].clone())
                .send()
                .await
            {
                Ok(r) => r.status().as_u16(),
                Err(_) => 0,
            };
            count(&codes, "review escaped and collection bombs", c);
            i += 1;
        }
    }))
}

/// Abuser `a` asking for marks (a chain toggled) and the annotated export of the stored review
/// `id` in turn until `stop`, from its own address.
fn review_marks_reads(
    a: usize,
    stop: Arc<AtomicBool>,
    codes: Codes,
    base: String,
    id: String,
) -> Result<tokio::task::JoinHandle<()>, String> {
    let http = client(client_addr(110 + a))?;
    Ok(tokio::spawn(async move {
        let mut i = 0;
        while !stop.load(Ordering::Relaxed) {
            let r = if i % 2 == 0 {
                http.post(format!("{base}/api/reviews/{id}/marks"))
                    .header("content-type", "application/json")
                    .body(r#"{"toggle":"D16"}"#)
                    .send()
                    .await
            } else {
                http.get(format!("{base}/api/reviews/{id}/record?analysis=1"))
                    .send()
                    .await
            };
            let c = match r {
                Ok(r) => {
                    let c = r.status().as_u16();
                    let _ = r.bytes().await;
                    c
                }
                Err(_) => 0,
            };
            count(&codes, "review marks and exports", c);
            i += 1;
        }
    }))
}

/// A guest session of `http`: (cookie header value, CSRF token).
async fn guest_session(http: &reqwest::Client, base: &str) -> Option<(String, String)> {
    let r = http
        .post(format!("{base}/api/auth/guest"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .ok()?;
    let cookie = r
        .headers()
        .get("set-cookie")?
        .to_str()
        .ok()?
        .split(';')
        .next()?
        .to_string();
    let v: Value = r.json().await.ok()?;
    Some((cookie, v["csrf"].as_str()?.to_string()))
}

/// One connection that sends a request's headers a byte every 2 s; how long the server kept
/// it open (µs), at most `limit`.
async fn slow_headers(server: SocketAddr, from: IpAddr, limit: Duration) -> Option<u32> {
    let sock = tokio::net::TcpSocket::new_v4().ok()?;
    sock.bind(SocketAddr::new(from, 0)).ok()?;
    let mut s = tokio::time::timeout(Duration::from_secs(5), sock.connect(server))
        .await
        .ok()?
        .ok()?;
    let req = format!("GET /healthz HTTP/1.1\r\nHost: {server}\r\nX-Slow: ");
    let t = Instant::now();
    let mut bytes = req.bytes().cycle();
    let mut buf = [0u8; 256];
    while t.elapsed() < limit {
        let b = [bytes.next().unwrap_or(b'a')];
        if s.write_all(&b).await.is_err() {
            break;
        }
        // The server closing (or answering 408) ends it.
        match tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Ok(Ok(_)) => break,
            Err(_) => {}
        }
    }
    Some(t.elapsed().as_micros().min(u32::MAX as u128) as u32)
}

/// Addresses of the socket squat, and the sockets each keeps on the target game (issue 56's
/// reproduction: 10 × 10 filled a game's 100 before seats had a room of their own).
pub const SQUAT_ADDRESSES: usize = 10;
/// Sockets each squatting address keeps open on the target game.
pub const SQUAT_EACH: usize = 10;

type SquatWs = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// A game socket to `server` from `from` at `path`, or None when refused or gone.
async fn game_socket(server: SocketAddr, from: IpAddr, path: &str) -> Option<SquatWs> {
    let sock = tokio::net::TcpSocket::new_v4().ok()?;
    sock.bind(SocketAddr::new(from, 0)).ok()?;
    let tcp = tokio::time::timeout(Duration::from_secs(5), sock.connect(server))
        .await
        .ok()?
        .ok()?;
    let plain = tokio_tungstenite::MaybeTlsStream::Plain(tcp);
    let url = format!("ws://{server}{path}");
    let (ws, _) = tokio::time::timeout(
        Duration::from_secs(5),
        tokio_tungstenite::client_async(url, plain),
    )
    .await
    .ok()?
    .ok()?;
    Some(ws)
}

/// One squatter: keeps [`SQUAT_EACH`] sockets on game `id` from `from`, reading them (so they
/// answer the server's pings and stay), replacing any the server closes.
async fn squatter(
    server: SocketAddr,
    from: IpAddr,
    id: String,
    stop: Arc<AtomicBool>,
    report: Arc<Mutex<AbuseReport>>,
) {
    use futures_util::StreamExt;
    let path = format!("/ws/games/{id}");
    let mut held = tokio::task::JoinSet::new();
    while !stop.load(Ordering::Relaxed) {
        if held.len() < SQUAT_EACH {
            match game_socket(server, from, &path).await {
                Some(mut ws) => {
                    report.lock().expect("report").squat.0 += 1;
                    let stop = stop.clone();
                    held.spawn(async move {
                        while !stop.load(Ordering::Relaxed) {
                            match tokio::time::timeout(Duration::from_secs(1), ws.next()).await {
                                Ok(Some(Ok(_))) | Err(_) => {}
                                _ => return,
                            }
                        }
                    });
                }
                None => {
                    report.lock().expect("report").squat.1 += 1;
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        } else {
            let _ = tokio::time::timeout(Duration::from_millis(500), held.join_next()).await;
        }
    }
    held.abort_all();
}

/// The seat holder of game `id` (its `token`) opening its own socket every 2 s while the squat
/// runs, from `from`: each asks for a seat's room and proves the seat with `hello`.
async fn seat_holder(
    server: SocketAddr,
    from: IpAddr,
    id: String,
    token: String,
    stop: Arc<AtomicBool>,
    report: Arc<Mutex<AbuseReport>>,
) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let path = format!("/ws/games/{id}?seat");
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let proved = async {
            let mut ws = game_socket(server, from, &path).await?;
            let hello = json!({"type": "hello", "id": "seat", "token": token}).to_string();
            ws.send(Message::Text(hello.into())).await.ok()?;
            loop {
                let msg = tokio::time::timeout(Duration::from_secs(5), ws.next())
                    .await
                    .ok()??
                    .ok()?;
                if let Message::Text(t) = msg {
                    let v: Value = serde_json::from_str(&t).unwrap_or(Value::Null);
                    if v["id"] == "seat" {
                        return (v["type"] == "hello").then_some(());
                    }
                }
            }
        }
        .await;
        let mut r = report.lock().expect("report");
        match proved {
            Some(()) => r.seat_sockets.0 += 1,
            None => r.seat_sockets.1 += 1,
        }
    }
}

/// Runs the mix for `opts.seconds`; returns the report.
pub async fn run(opts: &AbuseOptions) -> Result<AbuseReport, String> {
    let server: SocketAddr = opts
        .addr
        .parse()
        .map_err(|e| format!("--addr {}: {e}", opts.addr))?;
    if !server.ip().is_loopback() {
        return Err("the abuse mix runs against a loopback address only".into());
    }
    let base = format!("http://{server}");
    let stop = Arc::new(AtomicBool::new(false));
    let report = Arc::new(Mutex::new(AbuseReport::default()));
    let codes: Codes = Arc::new(Mutex::new(BTreeMap::new()));
    let start = Instant::now();
    let first_rss = opts.server_pid.and_then(resident_kib);
    let max_rss = Arc::new(AtomicU64::new(first_rss.unwrap_or(0)));
    // A game for the abusers to aim at.
    let target = {
        let http = client(client_addr(0))?;
        let (code, v) = post(
            &http,
            &format!("{base}/api/games"),
            None,
            json!({"game": "go", "size": 19}).to_string(),
        )
        .await;
        if code != 201 {
            return Err(format!("cannot create the target game: {code} {v}"));
        }
        v
    };
    let target_seat = target["seats"]["black"]["token"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let target = target["id"].as_str().unwrap_or_default().to_string();
    // A review at the set-up cap, for the readers to read.
    let heavy_review = {
        let http = client(client_addr(1))?;
        let r = http
            .post(format!("{base}/api/reviews"))
            .body(setup_heavy())
            .send()
            .await
            .map_err(|e| format!("cannot upload the review: {e}"))?;
        let v: Value = r.json().await.unwrap_or(Value::Null);
        v["id"]
            .as_str()
            .ok_or(format!("cannot upload the review: {v}"))?
            .to_string()
    };
    let mut tasks = Vec::new();
    {
        // /healthz, polled from its own address.
        let (stop, report, base) = (stop.clone(), report.clone(), base.clone());
        let http = client(client_addr(2))?;
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let ok = tokio::time::timeout(
                    Duration::from_secs(5),
                    http.get(format!("{base}/healthz")).send(),
                )
                .await
                .is_ok_and(|r| r.is_ok_and(|r| r.status().is_success()));
                let us = t.elapsed().as_micros() as u32;
                {
                    let mut r = report.lock().expect("report");
                    if ok {
                        r.health.0.push(us);
                    } else {
                        r.health_failed += 1;
                    }
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    // Memory sampler.
    if let Some(pid) = opts.server_pid {
        let (stop, max) = (stop.clone(), max_rss.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                if let Some(k) = resident_kib(pid) {
                    max.fetch_max(k, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }));
    }
    for a in 0..opts.abusers {
        {
            // Creation flood.
            let (stop, codes, base) = (stop.clone(), codes.clone(), base.clone());
            let http = client(client_addr(10 + a))?;
            tasks.push(tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let (c, _) = post(
                        &http,
                        &format!("{base}/api/games"),
                        None,
                        r#"{"game":"go","size":9}"#.into(),
                    )
                    .await;
                    count(&codes, "create flood", c);
                }
            }));
        }
        {
            // Actions with made-up tokens, each a different one.
            let (stop, codes, base, target) =
                (stop.clone(), codes.clone(), base.clone(), target.clone());
            let http = client(client_addr(20 + a))?;
            let seed = opts.seed;
            tasks.push(tokio::spawn(async move {
                let mut rng = Rng::new(seed ^ 0xbad ^ a as u64);
                while !stop.load(Ordering::Relaxed) {
                    let tok = format!(
                        "{:016x}{:016x}{:016x}{:016x}",
                        rng.next_u64(),
                        rng.next_u64(),
                        rng.next_u64(),
                        rng.next_u64()
                    );
                    let (c, _) = post(
                        &http,
                        &format!("{base}/api/games/{target}/actions"),
                        Some(&tok),
                        r#"{"action":"D4"}"#.into(),
                    )
                    .await;
                    count(&codes, "random-token actions", c);
                }
            }));
        }
        {
            // Junk bodies and absurd bot seats.
            let (stop, codes, base) = (stop.clone(), codes.clone(), base.clone());
            let http = client(client_addr(30 + a))?;
            tasks.push(tokio::spawn(async move {
                let junk = [
                    r#"{"game":"wallgo","seats":{"B":{"kind":"bot","bot":"sedol","options":"model=/etc/passwd"}}}"#,
                    r#"{"game":"wallgo","seats":{"B":{"kind":"bot","bot":"expert","options":"nodes=999999999"}}}"#,
                    r#"{"game":"go","seats":{"white":{"kind":"bot","bot":"baduk","options":"time=86400,threads=64"}}}"#,
                    "{",
                    r#"{"game":"go","size":1e999}"#,
                ];
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let (c, _) = post(&http, &format!("{base}/api/games"), None, junk[i % junk.len()].into()).await;
                    count(&codes, "junk bodies", c);
                    i += 1;
                }
            }));
        }
        {
            // Sockets opened and never read.
            let (stop, report, target) = (stop.clone(), report.clone(), target.clone());
            let from = client_addr(40 + a);
            let each = opts.sockets_each;
            tasks.push(tokio::spawn(async move {
                let mut held: Vec<(Instant, tokio::net::TcpStream)> = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    // Each is held half a minute, then let go and replaced (churn).
                    held.retain(|(at, _)| at.elapsed() < Duration::from_secs(30));
                    if held.len() < each {
                        match stuck_socket(server, from, &target).await {
                            Some(s) => {
                                report.lock().expect("report").stuck_opened += 1;
                                held.push((Instant::now(), s));
                            }
                            None => {
                                report.lock().expect("report").stuck_refused += 1;
                                tokio::time::sleep(Duration::from_millis(200)).await;
                            }
                        }
                    } else {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            }));
        }
    }
    for a in 0..opts.abusers {
        tasks.push(review_bomb_uploads(
            a,
            stop.clone(),
            codes.clone(),
            base.clone(),
        )?);
        tasks.push(review_marks_reads(
            a,
            stop.clone(),
            codes.clone(),
            base.clone(),
            heavy_review.clone(),
        )?);
        {
            // Set-up bombs as reviews.
            let (stop, codes, base) = (stop.clone(), codes.clone(), base.clone());
            let http = client(client_addr(50 + a))?;
            tasks.push(tokio::spawn(async move {
                let bomb = setup_bomb();
                while !stop.load(Ordering::Relaxed) {
                    let c = match http
                        .post(format!("{base}/api/reviews"))
                        .body(bomb.clone())
                        .send()
                        .await
                    {
                        Ok(r) => r.status().as_u16(),
                        Err(_) => 0,
                    };
                    count(&codes, "review set-up bombs", c);
                }
            }));
        }
        {
            // The heaviest legal review, read over and over (page, analysis, annotated record).
            let (stop, codes, base, id) = (
                stop.clone(),
                codes.clone(),
                base.clone(),
                heavy_review.clone(),
            );
            let http = client(client_addr(60 + a))?;
            tasks.push(tokio::spawn(async move {
                let paths = [
                    format!("/api/reviews/{id}"),
                    format!("/api/reviews/{id}/analysis"),
                    format!("/api/reviews/{id}/record?analysis=1"),
                ];
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let c = match http.get(format!("{base}{}", paths[i % 3])).send().await {
                        Ok(r) => {
                            let c = r.status().as_u16();
                            let _ = r.bytes().await;
                            c
                        }
                        Err(_) => 0,
                    };
                    count(&codes, "review reads", c);
                    i += 1;
                }
            }));
        }
        {
            // "Play now" flood: two guests of one address seeking in turn.
            let (stop, codes, base) = (stop.clone(), codes.clone(), base.clone());
            let http = client(client_addr(70 + a))?;
            tasks.push(tokio::spawn(async move {
                let mut guests = Vec::new();
                while guests.len() < 2 && !stop.load(Ordering::Relaxed) {
                    match guest_session(&http, &base).await {
                        Some(g) => guests.push(g),
                        None => {
                            count(&codes, "seek flood", 429);
                            tokio::time::sleep(Duration::from_secs(5)).await;
                        }
                    }
                }
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) && guests.len() == 2 {
                    let (cookie, csrf) = &guests[i % 2];
                    let c = match http
                        .post(format!("{base}/api/seeks"))
                        .header("content-type", "application/json")
                        .header("cookie", cookie)
                        .header("x-csrf-token", csrf)
                        .body(r#"{"game":"go","size":9}"#)
                        .send()
                        .await
                    {
                        Ok(r) => r.status().as_u16(),
                        Err(_) => 0,
                    };
                    count(&codes, "seek flood", c);
                    i += 1;
                }
            }));
        }
        {
            // Connections sending their headers a byte every 2 s, 50 at once.
            let (stop, report) = (stop.clone(), report.clone());
            let from = client_addr(80 + a);
            let seconds = opts.seconds;
            tasks.push(tokio::spawn(async move {
                let mut set = tokio::task::JoinSet::new();
                let limit = Duration::from_secs(seconds.min(300));
                while !stop.load(Ordering::Relaxed) {
                    while set.len() < 50 {
                        set.spawn(slow_headers(server, from, limit));
                    }
                    if let Ok(Some(Some(us))) =
                        tokio::time::timeout(Duration::from_secs(1), set.join_next())
                            .await
                            .map(|r| r.map(|x| x.ok().flatten()))
                    {
                        report.lock().expect("report").slow.0.push(us);
                    }
                }
                set.abort_all();
            }));
        }
    }
    // The socket squat on the target game, beside its seat holder's own sockets.
    for n in 0..SQUAT_ADDRESSES {
        let from = client_addr(3000 + n);
        let (stop, report, id) = (stop.clone(), report.clone(), target.clone());
        tasks.push(tokio::spawn(squatter(server, from, id, stop, report)));
    }
    {
        let (stop, report, id) = (stop.clone(), report.clone(), target.clone());
        let seat = target_seat.clone();
        let from = client_addr(3100);
        tasks.push(tokio::spawn(seat_holder(
            server, from, id, seat, stop, report,
        )));
    }
    // Honest games.
    let mut honest = Vec::new();
    for n in 0..opts.honest {
        honest.push(tokio::spawn(honest_game(
            base.clone(),
            n,
            opts.clone(),
            stop.clone(),
            report.clone(),
        )));
    }
    for n in 0..opts.bot_games {
        honest.push(tokio::spawn(bot_game(
            base.clone(),
            n,
            opts.clone(),
            stop.clone(),
            report.clone(),
        )));
    }
    tokio::time::sleep(Duration::from_secs(opts.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut acked = Vec::new();
    for h in honest {
        if let Ok(Ok(a)) = h.await {
            acked.extend(a);
        }
    }
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(10), t).await;
    }
    // Every acknowledged honest action is in the stored game, at its version.
    let http = client(client_addr(5000))?;
    let mut by_game: BTreeMap<String, Vec<(i64, String)>> = BTreeMap::new();
    for (id, v, a) in acked {
        by_game.entry(id).or_default().push((v, a));
    }
    let mut lost = 0;
    for (id, rows) in by_game {
        let st: Value = match http.get(format!("{base}/api/games/{id}")).send().await {
            Ok(r) => r.json().await.unwrap_or(Value::Null),
            Err(_) => Value::Null,
        };
        let stored = st["actions"].as_array().cloned().unwrap_or_default();
        for (v, a) in rows {
            let ok = stored
                .get(v as usize - 1)
                .is_some_and(|x| x["action"].as_str() == Some(a.as_str()));
            if !ok {
                lost += 1;
            }
        }
    }
    let mut r = std::mem::take(&mut *report.lock().expect("report"));
    r.lost = lost;
    r.abuse = std::mem::take(&mut *codes.lock().expect("codes"));
    r.rss_kib = (
        first_rss,
        opts.server_pid.map(|_| max_rss.load(Ordering::Relaxed)),
    );
    r.seconds = start.elapsed().as_secs_f64();
    Ok(r)
}
