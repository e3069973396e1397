//! `baduk bench bots`: many games at once against bots brought by `baduk bot connect`, on one
//! running server. Bot accounts are made, each with a bridge process running one engine per
//! game; players (accounts of their own) challenge them and play a seeded random move as soon
//! as the game's stream says it is their turn, then resign. It reports the moves a second, the
//! server's CPU per bot move and the bridges' own CPU per bot move (the engines' apart).

use crate::bench::cpu_secs;
use crate::bench_players::{sign_up, Player};
use baduk_bridge::server::Server;
use baduk_rng::Rng;
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub struct BotsOptions {
    /// The server, `host:port` (started with `--no-limits`: the bench signs many accounts up).
    pub addr: String,
    /// Games at once.
    pub games: usize,
    /// Bot accounts, each with its bridge (games are spread over them).
    pub bridges: usize,
    /// The player's moves in each game before it resigns.
    pub moves: usize,
    /// The `baduk` binary that runs the bridges and their engines.
    pub bin: String,
    /// The engine's options (`baduk go gtp --bot …`).
    pub engine: String,
    /// The server's process id, for its CPU.
    pub server_pid: Option<u32>,
    /// Seed of the players' moves and of the accounts' names.
    pub seed: u64,
}

/// What happened.
#[derive(Debug, Default)]
pub struct BotsReport {
    /// Games played to the player's resignation.
    pub games: u64,
    /// Moves the bots played.
    pub bot_moves: u64,
    /// Moves the players played.
    pub player_moves: u64,
    /// Seconds from the first challenge to the last game's end.
    pub seconds: f64,
    /// The server's CPU seconds over that time.
    pub server_cpu: Option<f64>,
    /// The bridges' CPU seconds over that time (their engines not counted).
    pub bridge_cpu: f64,
    /// Errors, the first few.
    pub errors: Vec<String>,
}

impl BotsReport {
    /// The report as lines of text.
    pub fn lines(&self) -> Vec<String> {
        let moves = (self.bot_moves + self.player_moves) as f64;
        let per = |cpu: f64| cpu * 1000.0 / self.bot_moves.max(1) as f64;
        let mut out = vec![
            format!(
                "signature: {} games, {} bot moves, {} player moves",
                self.games, self.bot_moves, self.player_moves
            ),
            format!(
                "rate: {:.1} moves/s ({:.1} bot moves/s) over {:.1} s",
                moves / self.seconds.max(1e-9),
                self.bot_moves as f64 / self.seconds.max(1e-9),
                self.seconds
            ),
            format!(
                "bridges' CPU: {:.2} ms a bot move ({:.1} s in all)",
                per(self.bridge_cpu),
                self.bridge_cpu
            ),
        ];
        if let Some(c) = self.server_cpu {
            out.push(format!(
                "server's CPU: {:.2} ms a bot move ({:.1} s in all, both sides' moves and the streams)",
                per(c),
                c
            ));
        }
        for e in &self.errors {
            out.push(format!("error: {e}"));
        }
        out
    }
}

struct Bridges(Vec<Child>);

impl Drop for Bridges {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// An API token for `p` with `scopes`.
async fn token(
    http: &reqwest::Client,
    addr: &str,
    p: &Player,
    scopes: Value,
) -> Result<String, String> {
    let v: Value = http
        .post(format!("http://{addr}/api/tokens"))
        .header("cookie", &p.cookie)
        .header("x-csrf-token", &p.csrf)
        .json(&json!({"label": "bench", "scopes": scopes}))
        .send()
        .await
        .map_err(|e| format!("token: {e}"))?
        .json()
        .await
        .map_err(|e| format!("token: {e}"))?;
    v["token"]
        .as_str()
        .map(str::to_string)
        .ok_or(format!("token: {v}"))
}

/// Runs the bench.
pub async fn run(opts: &BotsOptions) -> Result<BotsReport, String> {
    let http = reqwest::Client::new();
    let base = format!("http://{}", opts.addr);
    // Names of their own for each run (a server keeps the accounts of earlier runs).
    let tag = format!("{:x}", std::process::id() % 0x10000);
    let bridges_n = opts.bridges.max(1);
    let per_bridge = opts.games.div_ceil(bridges_n).clamp(1, 32);
    let mut bots = Vec::new();
    let mut children = Bridges(Vec::new());
    for b in 0..bridges_n {
        let name = format!("benchbot{tag}{b}");
        let p = sign_up(&http, &opts.addr, &name).await?;
        let r = http
            .post(format!("{base}/api/account/bot"))
            .header("cookie", &p.cookie)
            .header("x-csrf-token", &p.csrf)
            .send()
            .await
            .map_err(|e| format!("becoming a bot: {e}"))?;
        if !r.status().is_success() {
            return Err(format!("becoming a bot: {}", r.status()));
        }
        let t = token(&http, &opts.addr, &p, json!(["bot"])).await?;
        let mut engine: Vec<String> = vec![opts.bin.clone(), "go".into(), "gtp".into()];
        if !opts.engine.is_empty() {
            engine.extend(["--bot".to_string(), opts.engine.clone()]);
        }
        let child = Command::new(&opts.bin)
            .args(["bot", "connect", "--server", &base, "--sizes", "9"])
            .args([
                "--max-games",
                &per_bridge.to_string(),
                "--log-format",
                "json",
                "--",
            ])
            .args(&engine)
            .env("BADUK_BOT_TOKEN", &t)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", opts.bin))?;
        children.0.push(child);
        bots.push(name);
    }
    // Every bot online.
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let v: Value = http
            .get(format!("{base}/api/bots"))
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .unwrap_or(Value::Null);
        let online = v["bots"].as_array().map_or(0, |a| {
            a.iter()
                .filter(|b| b["online"] == true && bots.iter().any(|n| b["name"] == n.as_str()))
                .count()
        });
        if online == bots.len() {
            break;
        }
        if Instant::now() > end {
            return Err(format!("{online} of {} bots came online", bots.len()));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut players = Vec::new();
    for g in 0..opts.games {
        let p = sign_up(&http, &opts.addr, &format!("benchp{tag}{g}")).await?;
        players.push(token(&http, &opts.addr, &p, json!(["read", "play", "challenge"])).await?);
    }
    let pids: Vec<u32> = children.0.iter().map(|c| c.id()).collect();
    let cpu0: f64 = pids.iter().filter_map(|&p| cpu_secs(p)).sum();
    let server0 = opts.server_pid.and_then(cpu_secs);
    let bot_moves = Arc::new(AtomicU64::new(0));
    let player_moves = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (g, t) in players.into_iter().enumerate() {
        let (base, bot, opts) = (base.clone(), bots[g % bots.len()].clone(), opts.clone());
        let (bm, pm) = (bot_moves.clone(), player_moves.clone());
        tasks.push(tokio::spawn(async move {
            play_one(&base, &t, &bot, g, &opts, &bm, &pm).await
        }));
    }
    let mut report = BotsReport::default();
    for t in tasks {
        match t.await.map_err(|e| e.to_string()).and_then(|r| r) {
            Ok(()) => report.games += 1,
            Err(e) if report.errors.len() < 5 => report.errors.push(e),
            Err(_) => {}
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.bridge_cpu = pids.iter().filter_map(|&p| cpu_secs(p)).sum::<f64>() - cpu0;
    report.server_cpu = opts
        .server_pid
        .and_then(cpu_secs)
        .zip(server0)
        .map(|(a, b)| a - b);
    report.bot_moves = bot_moves.load(Ordering::Relaxed);
    report.player_moves = player_moves.load(Ordering::Relaxed);
    Ok(report)
}

/// One player (from a loopback address of its own): challenges `bot` (9×9, no clock, Black),
/// plays its moves from the game's stream, then resigns.
async fn play_one(
    base: &str,
    token: &str,
    bot: &str,
    g: usize,
    opts: &BotsOptions,
    bot_moves: &AtomicU64,
    player_moves: &AtomicU64,
) -> Result<(), String> {
    // Each player from a loopback address of its own, as players come from theirs (open
    // challenges are capped per address).
    let n = 5000 + g;
    let from = std::net::Ipv4Addr::new(127, 1, (n / 250) as u8, (n % 250) as u8 + 1);
    let http = reqwest::Client::builder()
        .local_address(std::net::IpAddr::V4(from))
        .build()
        .map_err(|e| format!("an HTTP client: {e}"))?;
    let server = Server::with_client(http, base, token);
    let c = server
        .post(
            "/api/challenges",
            &json!({"to": bot, "game": "go", "size": 9, "rules": "chinese", "colour": "black"}),
        )
        .await
        .map_err(|e| format!("challenge: {e}"))?;
    let cid = c["challenge"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let end = Instant::now() + Duration::from_secs(120);
    let id = loop {
        let v = server
            .get(&format!("/api/challenges/{cid}"))
            .await
            .map_err(|e| format!("challenge {cid}: {e}"))?;
        if let Some(id) = v["challenge"]["game"].as_str() {
            break id.to_string();
        }
        if v["challenge"]["status"] != "open" || Instant::now() > end {
            return Err(format!("challenge {cid}: {}", v["challenge"]["status"]));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut rng = Rng::new(opts.seed ^ (g as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut stream = server
        .stream(&format!("/api/stream/games/{id}"))
        .await
        .map_err(|e| format!("game {id}: {e}"))?;
    let mut mine = 0usize;
    let mut last_version = -1;
    while let Some(line) = stream.next().await {
        let st = &line["state"];
        if st["status"] == "finished" {
            break;
        }
        let version = st["version"].as_i64().unwrap_or(0);
        if st["to_move"] != "black" || version <= last_version {
            continue;
        }
        last_version = version;
        let moves = st["moves"].as_array().map_or(0, |m| m.len());
        if moves > 0 && moves % 2 == 0 {
            bot_moves.fetch_add(1, Ordering::Relaxed);
        }
        let legal: Vec<&str> = st["legal"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| m.as_str())
                    .filter(|m| *m != "pass")
                    .collect()
            })
            .unwrap_or_default();
        let action = if mine >= opts.moves || legal.is_empty() {
            "resign".to_string()
        } else {
            legal[rng.below(legal.len())].to_string()
        };
        server
            .post(
                &format!("/api/games/{id}/actions?ack=1"),
                &json!({ "action": action }),
            )
            .await
            .map_err(|e| format!("game {id}: {action}: {e}"))?;
        if action == "resign" {
            return Ok(());
        }
        mine += 1;
        player_moves.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}
