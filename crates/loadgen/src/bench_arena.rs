//! `baduk bench arena`'s load against running `baduk serve` processes (one, or several of one
//! PostgreSQL cluster): an organiser signs up, makes an arena of server bot levels, starts it,
//! and every second the processes' `/metrics` (tournament pairings, the pairing latency
//! histogram, the sweep's seconds) and their CPU and resident memory are read; at the end the
//! arena is ended and what the processes counted is summed.

use crate::bench::{cpu_secs, resident_kib};
use crate::bench_players::{sign_up, Player};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub struct ArenaOptions {
    /// The processes' addresses (`host:port`); the first makes the arena.
    pub addrs: Vec<String>,
    /// Their process ids (CPU, memory), in the same order.
    pub pids: Vec<u32>,
    /// Players: server bot levels, each entry a player of its own.
    pub players: usize,
    /// The `baduk` bot's level (`level=N`).
    pub level: u32,
    /// The Go board's size.
    pub size: u32,
    /// How long the arena runs before it is ended (minutes; it is made with at least 10, the
    /// API's least, and ended by the organiser when this is shorter).
    pub minutes: f64,
}

/// One process's tournament counters from its `/metrics`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    /// `baduk_tournament_pairings_total`.
    pub pairings: u64,
    /// `baduk_tournament_sweep_seconds_total`.
    pub sweep_secs: f64,
    /// `baduk_tournament_pairing_latency_seconds_bucket`: (upper bound, cumulative count).
    pub latency: Vec<(f64, u64)>,
    /// `baduk_tournament_pairing_latency_seconds_sum`.
    pub latency_sum: f64,
    /// `baduk_bot_searches_total`.
    pub bot_searches: u64,
}

impl Counters {
    /// Reads them from the text of `/metrics`.
    pub fn parse(text: &str) -> Counters {
        let mut c = Counters::default();
        let num = |l: &str| {
            l.rsplit(' ')
                .next()
                .and_then(|v| v.trim().parse::<f64>().ok())
        };
        for l in text.lines() {
            if l.starts_with("baduk_tournament_pairings_total ") {
                c.pairings = num(l).unwrap_or(0.0) as u64;
            } else if l.starts_with("baduk_tournament_sweep_seconds_total ") {
                c.sweep_secs = num(l).unwrap_or(0.0);
            } else if l.starts_with("baduk_bot_searches_total ") {
                c.bot_searches = num(l).unwrap_or(0.0) as u64;
            } else if l.starts_with("baduk_tournament_pairing_latency_seconds_sum ") {
                c.latency_sum = num(l).unwrap_or(0.0);
            } else if let Some(rest) =
                l.strip_prefix("baduk_tournament_pairing_latency_seconds_bucket{le=\"")
            {
                let le = rest.split('"').next().unwrap_or("");
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().unwrap_or(f64::INFINITY)
                };
                c.latency.push((le, num(l).unwrap_or(0.0) as u64));
            }
        }
        c
    }

    /// These counters less `before`'s (a run's share), summed with nothing else.
    pub fn since(&self, before: &Counters) -> Counters {
        let latency = self
            .latency
            .iter()
            .map(|&(le, n)| {
                let was = before.latency.iter().find(|b| b.0 == le).map_or(0, |b| b.1);
                (le, n.saturating_sub(was))
            })
            .collect();
        Counters {
            pairings: self.pairings.saturating_sub(before.pairings),
            sweep_secs: self.sweep_secs - before.sweep_secs,
            latency,
            latency_sum: self.latency_sum - before.latency_sum,
            bot_searches: self.bot_searches.saturating_sub(before.bot_searches),
        }
    }

    /// The sum of `all`'s counters (the processes of a cluster).
    pub fn sum(all: &[Counters]) -> Counters {
        let mut out = Counters::default();
        for c in all {
            out.pairings += c.pairings;
            out.sweep_secs += c.sweep_secs;
            out.latency_sum += c.latency_sum;
            out.bot_searches += c.bot_searches;
            for &(le, n) in &c.latency {
                match out.latency.iter_mut().find(|b| b.0 == le) {
                    Some(b) => b.1 += n,
                    None => out.latency.push((le, n)),
                }
            }
        }
        out.latency.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    }

    /// Latencies observed.
    pub fn latency_count(&self) -> u64 {
        self.latency.last().map_or(0, |b| b.1)
    }

    /// The bucket bound at or under which a fraction `q` of the latencies fall (s).
    pub fn latency_bound(&self, q: f64) -> Option<f64> {
        let total = self.latency_count();
        if total == 0 {
            return None;
        }
        self.latency
            .iter()
            .find(|b| b.1 as f64 >= q * total as f64)
            .map(|b| b.0)
    }
}

/// One second's reading.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// Seconds since the start of the arena.
    pub t: f64,
    /// Pairings so far over all processes (this run's).
    pub pairings: u64,
    /// CPU seconds of all processes since the start.
    pub cpu_secs: f64,
    /// Resident memory of all processes (KiB).
    pub rss_kib: u64,
}

/// What the run measured.
#[derive(Clone, Debug, Default)]
pub struct ArenaReport {
    /// The arena's id.
    pub id: String,
    /// Seconds to sign up, make the arena and enter its players.
    pub setup_secs: f64,
    /// Seconds from its start to its end.
    pub run_secs: f64,
    /// Each process's counters over the run.
    pub per_process: Vec<Counters>,
    /// All processes' counters over the run.
    pub total: Counters,
    /// CPU seconds of all processes over the run.
    pub cpu_secs: f64,
    /// The most resident memory of all processes together at a sample (KiB).
    pub rss_max_kib: u64,
    /// Boards stored, and boards with a result, when it ended.
    pub boards: (usize, usize),
    /// A reading a second.
    pub samples: Vec<Sample>,
}

/// An organiser's POST; the answer's JSON, or why not.
async fn post(
    c: &reqwest::Client,
    addr: &str,
    who: &Player,
    path: &str,
    body: Value,
) -> Result<Value, String> {
    let r = c
        .post(format!("http://{addr}{path}"))
        .header("cookie", &who.cookie)
        .header("x-csrf-token", &who.csrf)
        .json(&body)
        .send()
        .await
        .map_err(|e| format!("{path}: {e}"))?;
    let status = r.status();
    let v: Value = r.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(format!("{path}: {status} {v}"));
    }
    Ok(v)
}

/// The counters of the process at `addr` (empty when it does not answer).
async fn counters(c: &reqwest::Client, addr: &str) -> Counters {
    let text = match c.get(format!("http://{addr}/metrics")).send().await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    Counters::parse(&text)
}

async fn all_counters(c: &reqwest::Client, addrs: &[String]) -> Vec<Counters> {
    let mut out = Vec::new();
    for a in addrs {
        out.push(counters(c, a).await);
    }
    out
}

fn cpu_all(pids: &[u32]) -> f64 {
    pids.iter().filter_map(|&p| cpu_secs(p)).sum()
}

/// Runs the arena: set-up, the start, a reading a second for `minutes`, the end.
pub async fn run(o: &ArenaOptions) -> Result<ArenaReport, String> {
    let c = reqwest::Client::new();
    let home = o.addrs.first().ok_or("no server")?.clone();
    let set_up = Instant::now();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = format!("arenaorg{}", nanos % 10_000_000);
    let org = sign_up(&c, &home, &name).await?;
    let arena_minutes = o.minutes.ceil().max(10.0) as i64;
    let made = post(
        &c,
        &home,
        &org,
        "/api/tournaments",
        json!({"name": "Bench arena", "format": "arena", "minutes": arena_minutes,
            "game": "go", "size": o.size, "rules": "chinese", "clock": "none",
            "max_players": o.players,
            "no_show_minutes": 60}),
    )
    .await?;
    let id = made["id"].as_str().ok_or("no tournament id")?.to_string();
    let bots = format!("/api/tournaments/{id}/bots");
    let level = json!({"bot": "baduk", "options": format!("level={}", o.level)});
    for _ in 0..o.players {
        post(&c, &home, &org, &bots, level.clone()).await?;
    }
    let mut report = ArenaReport {
        id: id.clone(),
        setup_secs: set_up.elapsed().as_secs_f64(),
        ..Default::default()
    };
    let before = all_counters(&c, &o.addrs).await;
    let cpu0 = cpu_all(&o.pids);
    let start = Instant::now();
    post(
        &c,
        &home,
        &org,
        &format!("/api/tournaments/{id}/start"),
        json!({}),
    )
    .await?;
    let span = Duration::from_secs_f64(o.minutes * 60.0);
    let mut next = Duration::ZERO;
    while start.elapsed() < span {
        if start.elapsed() >= next {
            let now = all_counters(&c, &o.addrs).await;
            let run: Vec<Counters> = now.iter().zip(&before).map(|(a, b)| a.since(b)).collect();
            let rss: u64 = o.pids.iter().filter_map(|&p| resident_kib(p)).sum();
            report.rss_max_kib = report.rss_max_kib.max(rss);
            report.samples.push(Sample {
                t: start.elapsed().as_secs_f64(),
                pairings: Counters::sum(&run).pairings,
                cpu_secs: cpu_all(&o.pids) - cpu0,
                rss_kib: rss,
            });
            next += Duration::from_secs(1);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The end: the organiser ends it (409 once it ended by itself, a run of its whole length);
    // its counters once a sweep pass that was under way has finished.
    let _ = post(
        &c,
        &home,
        &org,
        &format!("/api/tournaments/{id}/end"),
        json!({}),
    )
    .await;
    report.cpu_secs = cpu_all(&o.pids) - cpu0;
    report.run_secs = start.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let after = all_counters(&c, &o.addrs).await;
    report.per_process = after.iter().zip(&before).map(|(a, b)| a.since(b)).collect();
    report.total = Counters::sum(&report.per_process);
    let v: Value = c
        .get(format!("http://{home}/api/tournaments/{id}"))
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())?;
    let boards = v["rounds"][0]["pairings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let done = boards.iter().filter(|b| !b["result"].is_null()).count();
    report.boards = (boards.len(), done);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::Counters;

    #[test]
    fn metrics_text_reads_into_counters_and_quantile_bounds() {
        let text = "baduk_tournament_pairings_total 7\n\
            baduk_tournament_pairing_latency_seconds_bucket{le=\"0.5\"} 2\n\
            baduk_tournament_pairing_latency_seconds_bucket{le=\"1\"} 9\n\
            baduk_tournament_pairing_latency_seconds_bucket{le=\"+Inf\"} 10\n\
            baduk_tournament_pairing_latency_seconds_sum 6.5\n\
            baduk_tournament_sweep_seconds_total 0.25\n";
        let c = Counters::parse(text);
        assert_eq!(c.pairings, 7);
        assert_eq!(c.latency_count(), 10);
        assert_eq!(c.latency_bound(0.5), Some(1.0));
        assert_eq!(c.latency_bound(0.99), Some(f64::INFINITY));
        let two = Counters::sum(&[c.clone(), c.since(&Counters::default())]);
        assert_eq!((two.pairings, two.latency_count()), (14, 20));
        assert_eq!(c.since(&c).latency_count(), 0);
    }
}
