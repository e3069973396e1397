//! `baduk bench million`: a database of a million stored games (most finished, some running
//! correspondence games), the server's start-up time on it, moves on cold games at a steady
//! rate, its memory against the games it holds, and how late clocks that ran out were ended.

use crate::error::CliError;
use baduk_loadgen::bench_million as m;
use baduk_server::store::seed::Copies;
use baduk_server::store::Store;
use clap::Args;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `baduk bench million` arguments.
#[derive(Args, Debug)]
pub struct MillionArgs {
    /// The database to fill (`sqlite:PATH` or `postgres://…`); it must hold no games yet.
    #[arg(long)]
    pub database: String,
    /// Stored games in all.
    #[arg(long, default_value_t = 1_000_000)]
    pub games: i64,
    /// Of them, running correspondence games (the rest are finished).
    #[arg(long, default_value_t = 100_000)]
    pub running: i64,
    /// Running games whose clock runs out during the load (spread evenly over it).
    #[arg(long, default_value_t = 600)]
    pub due: i64,
    /// Moves a second on cold games.
    #[arg(long, default_value_t = 100.0)]
    pub rate: f64,
    /// How long the load runs (s).
    #[arg(long, default_value_t = 60.0)]
    pub seconds: f64,
    /// The running games' clock.
    #[arg(long, default_value = "correspondence:1:3")]
    pub clock: String,
    /// The server's `--idle-game-seconds` (games idle this long leave its memory).
    #[arg(long, default_value_t = 30.0)]
    pub idle_game_seconds: f64,
    /// Seconds from the running games' seeding to the first deadline (seeding them and the
    /// server's start-up must fit in it).
    #[arg(long, default_value_t = 45.0)]
    pub lead_seconds: f64,
    /// Seed of the order cold games are moved in.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// A free loopback port.
pub(crate) fn free_addr() -> Result<String, CliError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| CliError::input(format!("a free port: {e}")))?;
    Ok(l.local_addr()
        .map_err(|e| CliError::input(e.to_string()))?
        .to_string())
}

/// Starts `baduk serve` on `db` at `addr` with `extra` flags.
fn serve(db: &str, addr: &str, extra: &[String]) -> Result<Child, CliError> {
    let bin =
        std::env::current_exe().map_err(|e| CliError::input(format!("the baduk binary: {e}")))?;
    Command::new(bin)
        .args(["serve", "--no-limits", "--database", db, "--addr", addr])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| CliError::input(format!("baduk serve: {e}")))
}

/// Waits until the server at `addr` answers `/healthz`; the time it took.
pub(crate) fn wait_healthy(addr: &str, since: Instant) -> Result<Duration, CliError> {
    loop {
        if let Ok(mut s) = std::net::TcpStream::connect(addr) {
            use std::io::{Read, Write};
            let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = write!(
                s,
                "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            );
            let mut buf = [0u8; 12];
            if s.read_exact(&mut buf).is_ok() && buf.starts_with(b"HTTP/1.1 200") {
                return Ok(since.elapsed());
            }
        }
        if since.elapsed() > Duration::from_secs(600) {
            return Err(CliError::input(format!(
                "the server at {addr} did not start"
            )));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Stops a server child with SIGTERM (it hands its games back) and waits for it.
pub(crate) fn stop(mut child: Child) {
    #[cfg(target_os = "linux")]
    unsafe {
        // SAFETY: a plain signal to our own child's process id.
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs `bench million` and prints its report.
pub fn bench_million(a: MillionArgs) -> Result<(), CliError> {
    let err = |what: &str| {
        let what = what.to_string();
        move |e: String| CliError::input(format!("baduk bench million: {what}: {e}"))
    };
    if a.running > a.games || a.due > a.running || a.running < 1 {
        return Err(CliError::input(
            "--due ≤ --running ≤ --games, --running ≥ 1",
        ));
    }
    // 1. The templates, made by a server of their own.
    let addr = free_addr()?;
    let child = serve(&a.database, &addr, &[])?;
    wait_healthy(&addr, Instant::now())?;
    let t = baduk_server::block_on(m::templates(&addr, &a.clock)).map_err(err("templates"));
    stop(child);
    let t = t?;
    // 2. The copies, straight into the database; the first `due` run out during the load.
    let lead_ms = (a.lead_seconds * 1000.0) as i64;
    let span_ms = (a.seconds * 1000.0) as i64;
    let seeded = Instant::now();
    let due = baduk_server::block_on(async {
        let store = Store::open(&a.database).await?;
        let sched = store
            .schedule_of(&t.running)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the running template is gone")?;
        let deadline = sched.deadline.ok_or("the running template has no clock")?;
        store
            .copy_game(&Copies {
                template: &t.finished,
                prefix: "f",
                count: a.games - a.running,
                shifted: 0,
                shift_base: 0,
                shift_step: 0,
            })
            .await
            .map_err(|e| e.to_string())?;
        let t0 = baduk_server::game::hub::now_ms();
        let step = span_ms / a.due.max(1);
        let base = t0 + lead_ms - deadline;
        store
            .copy_game(&Copies {
                template: &t.running,
                prefix: "r",
                count: a.running,
                shifted: a.due,
                shift_base: base,
                shift_step: step,
            })
            .await
            .map_err(|e| e.to_string())?;
        // The seeding stands in for a running process: without this heartbeat the time since
        // the templates' server stopped is an outage, charged to nobody, and every clock
        // would run out that much later.
        store
            .heartbeat(baduk_server::game::hub::now_ms())
            .await
            .map_err(|e| e.to_string())?;
        let due: Vec<(String, i64)> = (0..a.due)
            .map(|i| (format!("r{i:07}"), deadline + base + i * step))
            .collect();
        Ok::<_, String>(due)
    })
    .map_err(err("seeding"))?;
    let seed_secs = seeded.elapsed().as_secs_f64();
    // 3. The server on a million games: its start-up, then the load.
    let addr = free_addr()?;
    let metrics = free_addr()?;
    let started = Instant::now();
    let child = serve(
        &a.database,
        &addr,
        &[
            "--metrics-addr".into(),
            metrics.clone(),
            "--idle-game-seconds".into(),
            a.idle_game_seconds.to_string(),
        ],
    )?;
    let startup = wait_healthy(&addr, started)?;
    let pid = child.id();
    let rss_start = baduk_loadgen::bench::resident_kib(pid).unwrap_or(0);
    let load = m::MillionLoad {
        addr: addr.clone(),
        metrics_addr: metrics.clone(),
        pid,
        prefix: "r".into(),
        cold: a.due..a.running,
        token: t.black_token.clone(),
        rate: a.rate,
        seconds: a.seconds,
        seed: a.seed,
    };
    let report = baduk_server::block_on(m::run(&load));
    // Every deadline has passed (a few seconds' margin) before they are read.
    let last = due.last().map_or(0, |d| d.1);
    while baduk_server::game::hub::now_ms() < last + 3_000 {
        std::thread::sleep(Duration::from_millis(200));
    }
    let late = baduk_server::block_on(m::lateness(&addr, &due));
    let rss_end = baduk_loadgen::bench::resident_kib(pid).unwrap_or(0);
    stop(child);
    // 4. The report.
    println!(
        "signature: {} games ({} running, {} due during the load), clock {}, {} cold moves at {}/s, seed {}, database {}",
        a.games,
        a.running,
        a.due,
        a.clock,
        report.cold.count() as u64 + report.failed,
        a.rate,
        a.seed,
        if a.database.starts_with("postgres") { "PostgreSQL" } else { "SQLite" }
    );
    println!("seeding: {seed_secs:.1} s");
    println!(
        "start-up: {:.0} ms to the first /healthz answer",
        startup.as_secs_f64() * 1000.0
    );
    println!("{}", report.cold.line("cold move"));
    println!("failed moves: {} {:?}", report.failed, report.errors);
    let (max_rss, max_loaded) = report
        .samples
        .iter()
        .fold((0, 0), |(r, l), s| (r.max(s.1), l.max(s.2)));
    println!(
        "memory: {:.1} MiB after start-up, {:.1} MiB at most with {} games loaded at most ({:.1} KiB a loaded game over the start), {:.1} MiB at the end",
        rss_start as f64 / 1024.0,
        max_rss as f64 / 1024.0,
        max_loaded,
        (max_rss.saturating_sub(rss_start)) as f64 / max_loaded.max(1) as f64,
        rss_end as f64 / 1024.0
    );
    for s in report.samples.iter().step_by(10) {
        println!(
            "  t={:.0}s rss={:.1} MiB loaded={}",
            s.0,
            s.1 as f64 / 1024.0,
            s.2
        );
    }
    let mut ended: Vec<i64> = late.iter().flatten().copied().collect();
    ended.sort_unstable();
    let q = |p: f64| {
        ended
            .get(((p * ended.len() as f64).ceil() as usize).clamp(1, ended.len().max(1)) - 1)
            .copied()
            .unwrap_or(0)
    };
    println!(
        "deadlines: {} of {} ended by time; lateness p50 {} ms p99 {} ms max {} ms",
        ended.len(),
        due.len(),
        q(0.5),
        q(0.99),
        ended.last().copied().unwrap_or(0)
    );
    Ok(())
}
