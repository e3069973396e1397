//! `baduk bench million`'s load against a running server whose database holds copies of two
//! template games (made by `baduk bench million` itself): moves at a steady rate, each on a
//! running game nobody touched yet (a cold game: loaded from the database by that move), the
//! server's resident memory against the games it holds, and how late the clocks that ran out
//! during the run were ended.

use crate::bench::{resident_kib, Latencies};
use baduk_rng::Rng;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The moves of the running template (19×19), then the move every cold game gets: legal
/// after them, Black to play.
pub const TEMPLATE_MOVES: [&str; 10] = [
    "D4", "Q16", "Q4", "D16", "C10", "R10", "K4", "K16", "K10", "J10",
];
/// The move the load plays on each cold copy (Black's, legal after [`TEMPLATE_MOVES`]).
pub const COLD_MOVE: &str = "C3";

/// The two templates made on a fresh server.
#[derive(Clone, Debug)]
pub struct Templates {
    /// The running correspondence game (Black to move after [`TEMPLATE_MOVES`]).
    pub running: String,
    /// Its Black seat's token (every copy has the same seats).
    pub black_token: String,
    /// A finished 9×9 game.
    pub finished: String,
}

async fn post(
    c: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    body: Value,
) -> Result<Value, String> {
    let mut r = c.post(url).json(&body);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let resp = r.send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = resp.status();
    let v: Value = resp.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(format!("{url}: {status} {v}"));
    }
    Ok(v)
}

/// Makes the templates on the server at `addr` (started with `--no-limits`): a 19×19 game on
/// `clock` after [`TEMPLATE_MOVES`], and a 9×9 game Black won by resignation.
pub async fn templates(addr: &str, clock: &str) -> Result<Templates, String> {
    let c = reqwest::Client::new();
    let base = format!("http://{addr}");
    let games = format!("{base}/api/games");
    let make = |body: Value| post(&c, &games, None, body);
    let g = make(json!({"game": "go", "size": 19, "rules": "japanese", "clock": clock})).await?;
    let id = g["id"].as_str().ok_or("no id")?.to_string();
    let tok = |seat: &str| g["seats"][seat]["token"].as_str().unwrap_or("").to_string();
    let (b, w) = (tok("black"), tok("white"));
    for (i, m) in TEMPLATE_MOVES.iter().enumerate() {
        let t = if i % 2 == 0 { &b } else { &w };
        post(
            &c,
            &format!("{base}/api/games/{id}/actions"),
            Some(t),
            json!({"action": m}),
        )
        .await?;
    }
    let f = make(json!({"game": "go", "size": 9, "rules": "chinese"})).await?;
    let fid = f["id"].as_str().ok_or("no id")?.to_string();
    let ftok = |seat: &str| f["seats"][seat]["token"].as_str().unwrap_or("").to_string();
    for (t, m) in [
        (ftok("black"), "E5"),
        (ftok("white"), "C3"),
        (ftok("black"), "G7"),
        (ftok("white"), "resign"),
    ] {
        post(
            &c,
            &format!("{base}/api/games/{fid}/actions"),
            Some(&t),
            json!({"action": m}),
        )
        .await?;
    }
    Ok(Templates {
        running: id,
        black_token: b,
        finished: fid,
    })
}

/// The load to run.
#[derive(Clone, Debug)]
pub struct MillionLoad {
    /// The server, `host:port`.
    pub addr: String,
    /// Its `/metrics` address.
    pub metrics_addr: String,
    /// Its process id (resident memory).
    pub pid: u32,
    /// Running copies' ids: `PREFIX` and a 7-digit number.
    pub prefix: String,
    /// The running copies' numbers the load may move (their clocks run out after the run).
    pub cold: std::ops::Range<i64>,
    /// Black's token in every copy.
    pub token: String,
    /// Moves a second.
    pub rate: f64,
    /// How long.
    pub seconds: f64,
    /// Seed of the order the cold games are taken in.
    pub seed: u64,
}

/// What the load saw.
#[derive(Debug, Default)]
pub struct MillionReport {
    /// Latency of a move on a cold game (request to answer).
    pub cold: Latencies,
    /// Moves refused or failed, the first few.
    pub errors: Vec<String>,
    /// Moves that failed.
    pub failed: u64,
    /// (seconds since the start, resident KiB, games loaded) once a second.
    pub samples: Vec<(f64, u64, u64)>,
}

/// `baduk_games_loaded` from `/metrics`.
async fn games_loaded(c: &reqwest::Client, metrics_addr: &str) -> Option<u64> {
    let text = c
        .get(format!("http://{metrics_addr}/metrics"))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("baduk_games_loaded "))
        .and_then(|v| v.trim().parse().ok())
}

/// Plays [`COLD_MOVE`] on cold copies at `rate` a second for `seconds`, sampling the server's
/// memory and loaded games every second.
pub async fn run(o: &MillionLoad) -> MillionReport {
    let c = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()
        .expect("an HTTP client");
    let mut order: Vec<i64> = o.cold.clone().collect();
    let mut rng = Rng::new(o.seed);
    rng.shuffle(&mut order);
    let total = ((o.rate * o.seconds) as usize).min(order.len());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Result<Duration, String>>();
    let start = Instant::now();
    let mut report = MillionReport::default();
    let gap = Duration::from_secs_f64(1.0 / o.rate.max(0.001));
    let mut next_sample = Duration::ZERO;
    for (k, n) in order.into_iter().take(total).enumerate() {
        let due = gap * k as u32;
        while start.elapsed() < due {
            if start.elapsed() >= next_sample {
                let rss = resident_kib(o.pid).unwrap_or(0);
                let loaded = games_loaded(&c, &o.metrics_addr).await.unwrap_or(0);
                report
                    .samples
                    .push((start.elapsed().as_secs_f64(), rss, loaded));
                next_sample += Duration::from_secs(1);
            }
            tokio::time::sleep((due.saturating_sub(start.elapsed())).min(Duration::from_millis(5)))
                .await;
        }
        let url = format!("http://{}/api/games/{}{n:07}/actions", o.addr, o.prefix);
        let (c, tx, token) = (c.clone(), tx.clone(), o.token.clone());
        tokio::spawn(async move {
            let t = Instant::now();
            let r = post(&c, &url, Some(&token), json!({"action": COLD_MOVE})).await;
            let _ = tx.send(r.map(|_| t.elapsed()));
        });
    }
    drop(tx);
    while let Some(r) = rx.recv().await {
        match r {
            Ok(d) => report.cold.push(d),
            Err(e) => {
                report.failed += 1;
                if report.errors.len() < 5 {
                    report.errors.push(e);
                }
            }
        }
    }
    let rss = resident_kib(o.pid).unwrap_or(0);
    let loaded = games_loaded(&c, &o.metrics_addr).await.unwrap_or(0);
    report
        .samples
        .push((start.elapsed().as_secs_f64(), rss, loaded));
    report
}

/// How late the server ended the clocks that ran out: for each (game id, deadline ms), the
/// `at` of its stored `timeout` minus the deadline (ms); None for a game not ended by time.
pub async fn lateness(addr: &str, due: &[(String, i64)]) -> Vec<Option<i64>> {
    let c = reqwest::Client::new();
    let mut out = Vec::with_capacity(due.len());
    for (id, deadline) in due {
        let st: Option<Value> = match c.get(format!("http://{addr}/api/games/{id}")).send().await {
            Ok(r) => r.json().await.ok(),
            Err(_) => None,
        };
        let last = st
            .as_ref()
            .and_then(|s| s["actions"].as_array())
            .and_then(|a| a.last())
            .filter(|a| a["action"] == "timeout")
            .and_then(|a| a["at"].as_i64());
        out.push(last.map(|at| at - deadline));
    }
    out
}
