//! `baduk bench arena`: a tournament arena of server bot levels on fresh `baduk serve`
//! processes — one on a new SQLite file, or `--processes N` on one PostgreSQL database — for a
//! number of minutes: the pairings made, the pairing latency after a game ends (from the
//! processes' histogram, and recomputed from the stored boards and games as a cross-check), the
//! sweep's time and the processes' whole CPU per pairing, and their memory.

use crate::error::CliError;
use crate::million_cmd::{free_addr, stop, wait_healthy};
use baduk_loadgen::bench_arena::{self as b, ArenaReport};
use baduk_server::store::Store;
use baduk_server::tournaments::{arena, rows};
use clap::Args;
use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

/// `baduk bench arena` arguments.
#[derive(Args, Debug)]
pub struct ArenaBenchArgs {
    /// Players: entries of the `baduk` bot's level, each a player of its own (at most 512).
    #[arg(long, default_value_t = 500)]
    pub players: usize,
    /// How long it runs (minutes; below 10 the arena, made with 10, is ended early).
    #[arg(long, default_value_t = 10.0)]
    pub minutes: f64,
    /// The bot's level (1–9; level 2 plays 30 playouts a move and level 3 80: 2 is the nearest
    /// to 50).
    #[arg(long, default_value_t = 2)]
    pub level: u32,
    /// The Go board's size.
    #[arg(long, default_value_t = 9)]
    pub size: u32,
    /// `baduk serve` processes; more than one share a PostgreSQL database.
    #[arg(long, default_value_t = 1)]
    pub processes: usize,
    /// The database (`postgres://…`, else BADUK_PG_URL; with several processes also
    /// scripts/with-postgres's BADUK_TEST_POSTGRES); without one, one process on a new SQLite
    /// file.
    #[arg(long)]
    pub database_url: Option<String>,
}

/// `baduk serve` for the bench on `db` at `addr`: no limits, bot against bot allowed, one
/// cluster secret.
fn serve(db: &str, addr: &str, secret: &str) -> Result<Child, CliError> {
    let bin =
        std::env::current_exe().map_err(|e| CliError::input(format!("the baduk binary: {e}")))?;
    Command::new(bin)
        .args(["serve", "--no-limits", "--allow-bot-games"])
        .args(["--database", db, "--addr", addr])
        .env("BADUK_CLUSTER_SECRET", secret)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| CliError::input(format!("baduk serve: {e}")))
}

/// The pairing latencies recomputed from the database (ms): for each board, each player's
/// time from the stored end of their previous game to the board's storing.
async fn stored_latencies(db: &str, id: &str) -> Result<Vec<i64>, String> {
    let store = Store::open(db).await?;
    let boards = rows::boards(&store, id).await.map_err(|e| e.message)?;
    let ids: Vec<&str> = boards.iter().filter_map(|b| b.game_id.as_deref()).collect();
    let ends = arena::game_ends(&store, &ids)
        .await
        .map_err(|e| e.message)?;
    let mut last: HashMap<i64, &rows::Board> = HashMap::new();
    let mut out = Vec::new();
    for bd in &boards {
        for p in [Some(bd.black), bd.white].into_iter().flatten() {
            if let Some(prev) = last.get(&p) {
                if let Some(end) = arena::end_of(prev, &ends) {
                    out.push(bd.created_at - end);
                }
            }
            last.insert(p, bd);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// The `q` quantile of sorted `v`.
fn quantile(v: &[i64], q: f64) -> i64 {
    if v.is_empty() {
        return 0;
    }
    v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]
}

/// A histogram bound as text (`≤ 1 s`, `> 10 s`).
fn bound(r: &ArenaReport, q: f64) -> String {
    match r.total.latency_bound(q) {
        Some(s) if s.is_finite() => format!("≤ {s} s"),
        Some(_) => "> 10 s".into(),
        None => "-".into(),
    }
}

/// Runs `bench arena` and prints its report.
pub fn bench_arena(a: ArenaBenchArgs) -> Result<(), CliError> {
    let err = |what: &str| {
        let what = what.to_string();
        move |e: String| CliError::input(format!("baduk bench arena: {what}: {e}"))
    };
    if !(2..=512).contains(&a.players) || !(1..=9).contains(&a.level) {
        return Err(CliError::input("--players 2 to 512, --level 1 to 9"));
    }
    if !(a.minutes > 0.0 && a.minutes <= 60.0) || a.processes == 0 || a.processes > 8 {
        return Err(CliError::input(
            "--minutes over 0 up to 60, --processes 1 to 8",
        ));
    }
    let env = |k: &str| std::env::var(k).ok();
    let url = a
        .database_url
        .clone()
        .or_else(|| env("BADUK_PG_URL"))
        .or_else(|| env("BADUK_TEST_POSTGRES").filter(|_| a.processes > 1))
        .filter(|u| !u.is_empty());
    let mut temp = None;
    let db =
        match url {
            Some(u) => u,
            None if a.processes == 1 => {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                let dir = std::env::temp_dir().join(format!("baduk-bench-arena-{nanos}"));
                std::fs::create_dir_all(&dir)
                    .map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
                let db = format!("sqlite:{}", dir.join("arena.db").display());
                temp = Some(dir);
                db
            }
            None => return Err(CliError::input(
                "--processes 2 or more share a PostgreSQL database: --database-url postgres://… \
                 (or BADUK_PG_URL; scripts/with-postgres sets BADUK_TEST_POSTGRES)",
            )),
        };
    let postgres = db.starts_with("postgres");
    if a.processes > 1 && !postgres {
        return Err(CliError::input(
            "--processes 2 or more need a postgres:// database",
        ));
    }
    let secret = format!("bench-arena-{}", std::process::id());
    let mut children = Vec::new();
    let mut addrs = Vec::new();
    let started = Instant::now();
    for _ in 0..a.processes {
        let addr = free_addr()?;
        children.push(serve(&db, &addr, &secret)?);
        wait_healthy(&addr, started)?;
        addrs.push(addr);
    }
    // Every process has renewed its lease once before games are placed.
    if a.processes > 1 {
        std::thread::sleep(std::time::Duration::from_millis(1500));
    }
    let opts = b::ArenaOptions {
        addrs: addrs.clone(),
        pids: children.iter().map(Child::id).collect(),
        players: a.players,
        level: a.level,
        size: a.size,
        minutes: a.minutes,
    };
    let report = baduk_server::block_on(b::run(&opts));
    for c in children {
        stop(c);
    }
    let report = report.map_err(err("the run"))?;
    let stored = baduk_server::block_on(stored_latencies(&db, &report.id));
    if let Some(dir) = temp {
        let _ = std::fs::remove_dir_all(dir);
    }
    let stored = stored.map_err(err("the stored boards"))?;
    print(&a, postgres, &report, &stored);
    Ok(())
}

/// The report: the signature, then one line a figure.
fn print(a: &ArenaBenchArgs, postgres: bool, r: &ArenaReport, stored: &[i64]) {
    let playouts = baduk_search::go::LEVEL_PLAYOUTS[(a.level - 1) as usize];
    println!(
        "signature: arena of {} players (baduk level={}, {} playouts a move), go {}x{} chinese, no clock, {} min, {} process{} on {}; no seed of its own (the arena's colour coin is seeded from its id, each bot from its game's id)",
        a.players,
        a.level,
        playouts,
        a.size,
        a.size,
        a.minutes,
        a.processes,
        if a.processes == 1 { "" } else { "es" },
        if postgres { "PostgreSQL" } else { "SQLite" },
    );
    println!(
        "set-up: {:.1} s (organiser, arena, {} entries); run {:.1} s",
        r.setup_secs, a.players, r.run_secs
    );
    let t = &r.total;
    println!(
        "pairings made: {} ({:.1}/s); boards stored {}, games finished {}",
        t.pairings,
        t.pairings as f64 / r.run_secs.max(0.001),
        r.boards.0,
        r.boards.1
    );
    if r.per_process.len() > 1 {
        let each: Vec<String> = r
            .per_process
            .iter()
            .map(|c| format!("{}", c.pairings))
            .collect();
        println!("pairings by process: {}", each.join(" / "));
    }
    let count = t.latency_count();
    println!(
        "pairing latency after a game ends (histogram, {count} players paired again): p50 {} p99 {} mean {:.0} ms",
        bound(r, 0.5),
        bound(r, 0.99),
        1000.0 * t.latency_sum / count.max(1) as f64
    );
    println!(
        "pairing latency from the database (game's stored end → next board stored, {} players): p50 {} ms p99 {} ms max {} ms",
        stored.len(),
        quantile(stored, 0.5),
        quantile(stored, 0.99),
        stored.last().copied().unwrap_or(0)
    );
    let per = |x: f64| 1000.0 * x / t.pairings.max(1) as f64;
    println!(
        "sweep: {:.2} s in all, {:.2} ms a pairing (wall time of its passes, which bounds its CPU)",
        t.sweep_secs,
        per(t.sweep_secs)
    );
    println!(
        "server CPU: {:.1} s over all processes, {:.1} ms a pairing (everything: the bots' thinking ({} searches) included)",
        r.cpu_secs,
        per(r.cpu_secs),
        t.bot_searches
    );
    println!(
        "memory: {:.1} MiB resident at most (all processes together)",
        r.rss_max_kib as f64 / 1024.0
    );
    for s in r.samples.iter().step_by(60) {
        println!(
            "  t={:.0}s pairings={} cpu={:.1}s rss={:.1} MiB",
            s.t,
            s.pairings,
            s.cpu_secs,
            s.rss_kib as f64 / 1024.0
        );
    }
}
