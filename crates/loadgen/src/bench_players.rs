//! `baduk bench serve --players N`: N signed-in players (each signs up, then keeps its session
//! cookie) press "play now" for a rated 9×9 game at once, are paired by the server, play a few
//! moves over their sockets as accounts (no seat token), and the game ends by resignation, so
//! every pair also runs the rated result's transaction. It measures what a player of the lobby
//! waits for: sign-up, seek → game, and each move's acknowledgement.
//!
//! The moves are chosen with a seeded generator from the legal list of the state a player last
//! saw, so the moves of a game depend only on the seed and on who is paired with whom (which
//! depends on timing): the signature counts players, games and moves, not their hash.

use crate::bench::{closing_lines, cpu_secs, note_failure, resident_kib, Latencies};
use baduk_rng::Rng;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// What to run.
#[derive(Clone, Debug)]
pub struct PlayersOptions {
    /// The server's address, `host:port`.
    pub addr: String,
    /// Players (an even number: they pair up).
    pub players: usize,
    /// Moves played in each game before Black resigns.
    pub moves: usize,
    /// Seed of the move choices and of the names.
    pub seed: u64,
    /// Sign-ups in flight at once.
    pub parallel: usize,
    /// The server's process id (memory, CPU).
    pub server_pid: Option<u32>,
    /// The longest wait for one answer.
    pub timeout: Duration,
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct PlayersReport {
    /// Players asked for.
    pub players: usize,
    /// Players signed up.
    pub signed_up: usize,
    /// Games the server made from seeks.
    pub games: usize,
    /// Moves acknowledged.
    pub actions: u64,
    /// Games that ended (resignation stored, ratings moved).
    pub finished: usize,
    /// Time to sign everybody up.
    pub signup_secs: f64,
    /// From the first seek sent to the last pairing seen.
    pub match_secs: f64,
    /// Seek sent → the player knows its game.
    pub seek_to_game: Latencies,
    /// Move sent → ack.
    pub ack: Latencies,
    /// Failures.
    pub errors: u64,
    /// The first few failures.
    pub error_samples: Vec<String>,
    /// Server CPU seconds over the seek-and-play phase.
    pub server_cpu_secs: Option<f64>,
    /// Server memory after the games (KiB).
    pub rss_end_kib: Option<u64>,
}

impl PlayersReport {
    /// The lines the bench prints: the deterministic signature first.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!(
                "signature: players {} signed-up {} games {} finished {} actions {}",
                self.players, self.signed_up, self.games, self.finished, self.actions
            ),
            format!(
                "matches per second: {:.0} ({} games from {} seeks in {:.2} s; sign-up of {} players {:.2} s)",
                self.games as f64 / self.match_secs.max(1e-9),
                self.games,
                self.signed_up,
                self.match_secs,
                self.signed_up,
                self.signup_secs
            ),
            self.seek_to_game.line("seek → game"),
            self.ack.line("ack"),
            format!("errors: {}", self.errors),
        ];
        out.extend(closing_lines(
            ("seek and play", self.server_cpu_secs),
            ("after the games", self.rss_end_kib),
            &self.error_samples,
        ));
        out
    }

    fn note(&mut self, e: String) {
        note_failure(&mut self.errors, &mut self.error_samples, e);
    }
}

/// A signed-in player: its cookie and CSRF token.
#[derive(Clone)]
pub(crate) struct Player {
    pub(crate) cookie: String,
    pub(crate) csrf: String,
}

type Ws = WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// Signs `name` up at `addr`: its session.
pub(crate) async fn sign_up(
    client: &reqwest::Client,
    addr: &str,
    name: &str,
) -> Result<Player, String> {
    let r = client
        .post(format!("http://{addr}/api/auth/signup"))
        .json(&json!({"username": name, "password": format!("bench-{name}-password")}))
        .send()
        .await
        .map_err(|e| format!("signup: {e}"))?;
    let cookie = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
        .ok_or("signup: no cookie")?;
    let status = r.status();
    let v: Value = r.json().await.map_err(|e| format!("signup: {e}"))?;
    if status.as_u16() != 201 {
        return Err(format!("signup: {status}: {v}"));
    }
    Ok(Player {
        cookie,
        csrf: v["csrf"].as_str().unwrap_or_default().to_string(),
    })
}

async fn socket(addr: &str, path: &str, p: &Player, timeout: Duration) -> Result<Ws, String> {
    let mut req = format!("ws://{addr}{path}")
        .into_client_request()
        .map_err(|e| e.to_string())?;
    let h = req.headers_mut();
    h.insert(
        "cookie",
        p.cookie.parse().map_err(|_| "bad cookie".to_string())?,
    );
    h.insert(
        "origin",
        format!("http://{addr}")
            .parse()
            .map_err(|_| "bad origin".to_string())?,
    );
    let (ws, _) = tokio::time::timeout(timeout, tokio_tungstenite::connect_async(req))
        .await
        .map_err(|_| format!("{path}: no handshake within {timeout:?}"))?
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(ws)
}

/// The next JSON text message within `timeout` (the server's pings do not extend it).
async fn next_json(ws: &mut Ws, timeout: Duration) -> Result<Value, String> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let m = tokio::time::timeout_at(deadline, ws.next())
            .await
            .map_err(|_| format!("no message within {timeout:?}"))?
            .ok_or("closed")?
            .map_err(|e| e.to_string())?;
        match m {
            Message::Text(t) => return serde_json::from_str(t.as_str()).map_err(|e| e.to_string()),
            Message::Close(_) => return Err("closed".into()),
            _ => {}
        }
    }
}

/// Seeks and waits for the game: (game id, seat, seek → game).
async fn seek(
    client: &reqwest::Client,
    addr: &str,
    p: &Player,
    timeout: Duration,
) -> Result<(String, String, Duration), String> {
    let sent = Instant::now();
    let r = client
        .post(format!("http://{addr}/api/seeks"))
        .header("cookie", &p.cookie)
        .header("x-csrf-token", &p.csrf)
        .json(&json!({"game": "go", "size": 9, "rules": "chinese", "clock": "none", "rated": true}))
        .send()
        .await
        .map_err(|e| format!("seek: {e}"))?;
    let status = r.status();
    let v: Value = r.json().await.map_err(|e| format!("seek: {e}"))?;
    if status.as_u16() != 201 {
        return Err(format!("seek: {status}: {v}"));
    }
    let game = if v["game"].is_object() {
        v["game"].clone()
    } else {
        let id = v["id"].as_str().ok_or("seek: no id")?;
        let mut ws = socket(addr, &format!("/ws/seeks/{id}"), p, timeout).await?;
        let wait = async {
            loop {
                let m = next_json(&mut ws, timeout).await?;
                if m["type"] == "matched" {
                    break Ok::<_, String>(m["game"].clone());
                }
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .map_err(|_| format!("seek {id}: not paired within {timeout:?}"))??
    };
    let took = sent.elapsed();
    Ok((
        game["id"].as_str().ok_or("no game id")?.to_string(),
        game["seat"].as_str().ok_or("no seat")?.to_string(),
        took,
    ))
}

/// Plays one side of a game: moves when it is this seat's turn, Black resigns after `moves`.
async fn play(
    addr: String,
    p: Player,
    game: String,
    seat: String,
    moves: usize,
    mut rng: Rng,
    timeout: Duration,
) -> Result<(Latencies, u64, bool), String> {
    let mut ws = socket(&addr, &format!("/ws/games/{game}"), &p, timeout).await?;
    // The seat counts as joined once its player says hello (the game is `open` until both do).
    ws.send(Message::text(json!({"type": "hello"}).to_string()))
        .await
        .map_err(|e| e.to_string())?;
    let mut acks = Latencies::default();
    let mut actions = 0u64;
    let mut next_id = 1u64;
    // A state that came while this player waited for its own ack (the opponent answered fast).
    let mut pending: Option<Value> = None;
    // The version after this player's last acknowledged move: a state older than it is one the
    // socket had queued while the move was handled (the socket answers before it relays).
    let mut floor = 0u64;
    // The legal moves of the newest state or delta read, by its version (a delta may send them
    // as a patch of the ones before).
    let mut held: (u64, Vec<String>) = (0, Vec::new());
    loop {
        let m = match pending.take() {
            Some(m) => m,
            None => {
                let m = next_json(&mut ws, timeout)
                    .await
                    .map_err(|e| format!("game {game} as {seat}, after {actions} moves: {e}"))?;
                absorb(&mut held, &m);
                m
            }
        };
        // A delta carries the same fields as a state but its history (not read here).
        let st = match m["type"].as_str() {
            Some("state") => &m["state"],
            Some("delta") => &m["delta"],
            _ => continue,
        };
        if st["status"] == "finished" {
            return Ok((acks, actions, true));
        }
        if st["to_move"] != json!(seat) || !matches!(st["status"].as_str(), Some("live" | "open")) {
            continue;
        }
        let version = st["version"].as_u64().unwrap_or(0);
        if version < floor {
            continue;
        }
        let action = if version as usize >= moves {
            if seat == "black" {
                "resign".to_string()
            } else {
                "pass".to_string()
            }
        } else {
            let legal: &[String] = if held.0 == version { &held.1 } else { &[] };
            let points: Vec<&str> = legal
                .iter()
                .map(String::as_str)
                .filter(|m| !matches!(*m, "pass" | "resign"))
                .collect();
            if points.is_empty() {
                "pass".into()
            } else {
                points[rng.below(points.len())].to_string()
            }
        };
        let id = next_id;
        next_id += 1;
        let sent = Instant::now();
        ws.send(Message::text(
            json!({"id": id, "action": action}).to_string(),
        ))
        .await
        .map_err(|e| e.to_string())?;
        loop {
            let a = next_json(&mut ws, timeout).await?;
            absorb(&mut held, &a);
            if a["id"] == json!(id) {
                if a["type"] == "ack" {
                    floor = a["version"].as_u64().unwrap_or(floor);
                    acks.push(sent.elapsed());
                    actions += 1;
                    break;
                }
                return Err(format!("game {game} {action}: {a}"));
            }
            if a["type"] == "state" || a["type"] == "delta" {
                if a["state"]["status"] == "finished" || a["delta"]["status"] == "finished" {
                    return Ok((acks, actions, true));
                }
                pending = Some(a);
            }
        }
    }
}

/// Takes the legal moves of a `state` or `delta` message `m` into `held` (version, moves): a
/// state's whole, a delta's patched from those of its base (a delta that does not follow the
/// held version leaves nothing to read: the next full state brings them).
fn absorb(held: &mut (u64, Vec<String>), m: &Value) {
    let (st, full) = match m["type"].as_str() {
        Some("state") => (&m["state"], true),
        Some("delta") => (&m["delta"], false),
        _ => return,
    };
    let version = st["version"].as_u64().unwrap_or(0);
    if let Some(l) = st["legal"].as_array() {
        *held = (
            version,
            l.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
        );
    } else if !full && st["base"].as_u64() == Some(held.0) {
        let legal = crate::bench::patched_legal(&held.1, &st["patch"]["legal"]);
        *held = (version, legal);
    }
}

/// Runs the players bench against the server at `opts.addr` (started with `--no-limits`).
pub async fn run(opts: &PlayersOptions) -> Result<PlayersReport, String> {
    if opts.players < 2 || opts.players % 2 == 1 {
        return Err("--players: an even number, at least 2".into());
    }
    let addr = opts.addr.clone();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(opts.parallel.max(1))
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?;
    let mut report = PlayersReport {
        players: opts.players,
        ..PlayersReport::default()
    };
    // Names unique to this run (the database may hold earlier runs' players).
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let run_tag = format!("{:x}", now_ms % 0xff_ffff);
    let started = Instant::now();
    let gate = Arc::new(tokio::sync::Semaphore::new(opts.parallel.max(1)));
    let mut tasks = Vec::new();
    for i in 0..opts.players {
        let (client, addr, gate) = (client.clone(), addr.clone(), gate.clone());
        let name = format!("b{run_tag}n{i}");
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await.expect("open gate");
            sign_up(&client, &addr, &name).await
        }));
    }
    let mut players = Vec::new();
    for t in tasks {
        match t.await {
            Ok(Ok(p)) => players.push(p),
            Ok(Err(e)) => report.note(e),
            Err(e) => report.note(e.to_string()),
        }
    }
    report.signup_secs = started.elapsed().as_secs_f64();
    report.signed_up = players.len();
    let cpu0 = opts.server_pid.and_then(cpu_secs);

    // Everybody presses "play now" at once, then plays the game it gets.
    let seek_start = Instant::now();
    let base = Rng::new(opts.seed);
    let mut tasks = Vec::new();
    for (i, p) in players.into_iter().enumerate() {
        let (client, addr) = (client.clone(), addr.clone());
        let (moves, timeout, rng) = (opts.moves, opts.timeout, base.fork(i as u64));
        tasks.push(tokio::spawn(async move {
            let (game, seat, took) = seek(&client, &addr, &p, timeout).await?;
            let matched_at = Instant::now();
            let black = seat == "black";
            let (acks, actions, finished) =
                play(addr, p, game.clone(), seat, moves, rng, timeout).await?;
            Ok::<_, String>((game, black, took, matched_at, acks, actions, finished))
        }));
    }
    let mut last_match = seek_start;
    let mut games = std::collections::BTreeSet::new();
    for t in tasks {
        match t.await {
            Ok(Ok((game, black, took, at, acks, actions, finished))) => {
                games.insert(game);
                report.seek_to_game.push(took);
                last_match = last_match.max(at);
                report.ack.0.extend(acks.0);
                report.actions += actions;
                if finished && black {
                    report.finished += 1;
                }
            }
            Ok(Err(e)) => report.note(e),
            Err(e) => report.note(e.to_string()),
        }
    }
    report.games = games.len();
    report.match_secs = (last_match - seek_start).as_secs_f64();
    if let (Some(a), Some(b)) = (cpu0, opts.server_pid.and_then(cpu_secs)) {
        report.server_cpu_secs = Some(b - a);
    }
    report.rss_end_kib = opts.server_pid.and_then(resident_kib);
    Ok(report)
}
