//! The game server behind `baduk serve`: live games of Go and Wall Go over HTTP and WebSocket,
//! clocks kept by the server, bots in seats, storage in an embedded SQLite file or in
//! PostgreSQL (several processes on one database), and the web UI embedded in the binary.
//!
//! It is an adapter: every move is checked by the rules libraries (`baduk-go`, `baduk-wallgo`),
//! stored, then broadcast; the bots come from `baduk-search`. The public API is `docs/api.md`.
//!
//! The domain folders import one way (`tests/layout.rs`): `http` → `botapi` → `tournaments` →
//! `challenges` → `mail` → `review` → `players`, `cluster` → `state` → `config` → `game` →
//! `store` → `net`.

pub mod botapi;
pub mod challenges;
pub mod cluster;
pub mod config;
pub mod game;
pub mod http;
pub mod mail;
pub mod net;
pub mod players;
pub mod review;
pub mod state;
pub mod store;
pub mod tournaments;

use bots::Models;
use cluster::bus;
use game::{bots, hub};
use http::{conn, metrics};
use hub::{Hub, HubOptions};
use players::seeks;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use store::Store;

pub use config::{Config, Limits};

/// Why the server could not start (the message names the address or database and the reason).
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A started server: its address and the task serving it.
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// The hub (live games).
    pub hub: Arc<Hub>,
    /// Where `/metrics` is served apart (`--metrics-addr`), if anywhere.
    pub metrics_addr: Option<SocketAddr>,
    /// Resolves when the server stops.
    pub task: tokio::task::JoinHandle<()>,
    /// The connections it holds now.
    pub connections: Arc<conn::Counts>,
}

/// Opens the database, binds the address and starts serving in the background.
pub async fn start(mut cfg: Config) -> Result<Running, StartError> {
    mail::check(&cfg.mail).map_err(StartError)?;
    let store = Store::open(&cfg.database).await.map_err(StartError)?;
    // With PostgreSQL, listen before serving: what other processes store from now on reaches
    // this one's watchers.
    let listener_pg =
        if store.is_postgres() {
            Some(bus::listen(&cfg.database).await.map_err(|e| {
                StartError(format!("database {}: cannot LISTEN: {e}", cfg.database))
            })?)
        } else {
            None
        };
    let listener = tokio::net::TcpListener::bind(&cfg.addr)
        .await
        .map_err(|e| StartError(format!("cannot listen on {}: {e}", cfg.addr)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| StartError(format!("cannot listen on {}: {e}", cfg.addr)))?;
    let models = Models::load(
        cfg.go_model.as_deref(),
        cfg.go_net.as_deref(),
        cfg.wall_model.as_deref(),
    )
    .map_err(StartError)?;
    let db_err = |e: store::StoreError| StartError(format!("database {}: {e}", cfg.database));
    hub::set_clock_offset(store.clock_offset().await.map_err(db_err)?);
    let last_alive = store.last_alive().await.map_err(db_err)?;
    let lim = &cfg.limits;
    let hub = Hub::new(
        store.clone(),
        HubOptions {
            test_bots: cfg.test_bots,
            bots: lim.bots.clone(),
            models,
            ends: lim.ends,
            open_games_per_client: lim.open_games_per_client,
            finished_grace_ms: lim.finished_grace.as_millis() as i64,
            idle_game_ms: lim.idle_game.as_millis() as i64,
            cluster_secret: cfg.cluster_secret.clone(),
            place_here: cfg.place_here,
        },
        last_alive,
    );
    hub.cluster.set_addr(
        cfg.advertise
            .as_deref()
            .map(|a| a.trim_end_matches('/').to_string())
            .unwrap_or_else(|| format!("http://{addr}"))
            .as_str(),
    );
    store.heartbeat(hub.started_at()).await.map_err(db_err)?;
    // Join the cluster: the lease, then the games nobody plays (all of them on SQLite).
    cluster::join(&hub).await.map_err(db_err)?;
    spawn_background(&hub, &cfg, listener_pg);
    cluster::spawn(&hub);
    let metrics_addr = match &cfg.limits.metrics_addr {
        Some(a) => Some(metrics::listen(a, hub.clone()).await.map_err(StartError)?),
        None => None,
    };
    // The links in mails start with the public URL (by default the address served).
    if cfg.mail.public_url.is_none() {
        if cfg.mail.enabled() {
            tracing::warn!(
                "--smtp without --public-url: the links in mails start with http://{addr}"
            );
        }
        cfg.mail.public_url = Some(format!("http://{addr}"));
    }
    let state = state::AppState::new(hub.clone(), &cfg);
    // Email: the notifications sweep and the outbox's sender (when --smtp is given).
    mail::spawn(hub.store.clone(), state.mail.clone());
    // On PostgreSQL: the rate budgets and the socket cap over every process.
    cluster::usage::spawn(state.clone());
    // The seeks the lobby's sockets follow, read again when they change.
    tokio::spawn(seeks::publish(state.clone()));
    // The tournaments' rounds: started, results read, the next paired (one process each).
    tournaments::spawn(state.clone());
    tournaments::ladder::spawn(state.clone());
    // The rate budgets remember every client they saw: forget the idle ones now and then, so
    // a stream of new addresses cannot grow them without bound.
    let budgets = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            budgets.forget_idle();
            // The cluster's buckets that are full again (PostgreSQL only: see state::limit).
            let store = &budgets.hub.store;
            if store.is_postgres() {
                if let Err(e) = store.forget_full_buckets(game::hub::now_ms()).await {
                    tracing::warn!("forgetting the full rate buckets failed: {e}");
                }
            }
        }
    });
    let app = http::router(state);
    let conn_limits = conn::ConnLimits {
        header_timeout: lim.header_timeout,
        body_timeout: lim.body_timeout,
        idle_timeout: lim.idle_timeout,
        per_address: lim.connections_per_address,
        total: lim.max_connections,
        trusted: lim.trusted_proxies.clone(),
    };
    let connections = Arc::new(conn::Counts::default());
    let counts = connections.clone();
    let leaving = hub.clone();
    let task = tokio::spawn(async move {
        conn::serve(listener, app, conn_limits, counts, shutdown_signal()).await;
        // Stopped: the others take this process's games at once instead of after its lease.
        cluster::leave(&leaving).await;
    });
    Ok(Running {
        addr,
        hub,
        metrics_addr,
        task,
        connections,
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

fn spawn_background(hub: &Arc<Hub>, cfg: &Config, listener: Option<sqlx::postgres::PgListener>) {
    let h = hub.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(100));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut n = 0u64;
        loop {
            every.tick().await;
            // The stored games whose time came load (twice a second); the loaded ones' clocks
            // are looked at every tick.
            if n.is_multiple_of(5) {
                h.wake_due().await;
            }
            n += 1;
            h.sweep_clocks().await;
        }
    });
    // Seeks nobody watches any more go; so do lapsed challenges (a minute late at most).
    let store = hub.store.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut n = 0u64;
        loop {
            every.tick().await;
            seeks::sweep(&store).await;
            if n.is_multiple_of(12) {
                challenges::sweep(&store).await;
            }
            n += 1;
        }
    });
    let h = hub.clone();
    let evict_every = (cfg.limits.finished_grace.as_secs() / 4).clamp(1, 15);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(1));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut n = 0u64;
        loop {
            every.tick().await;
            h.tick_clocks().await;
            n += 1;
            if n.is_multiple_of(evict_every) {
                h.evict().await;
            }
        }
    });
    // The heartbeat (outages are charged to nobody) and, on PostgreSQL, the database's clock.
    let h = hub.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(hub::HEARTBEAT_MS as u64));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut n = 0u64;
        loop {
            every.tick().await;
            if let Err(e) = h.store.heartbeat(hub::now_ms()).await {
                tracing::warn!("heartbeat not stored: {e}");
            }
            n += 1;
            if n.is_multiple_of(30) {
                if let Ok(off) = h.store.clock_offset().await {
                    hub::set_clock_offset(off);
                }
            }
        }
    });
    if let Some(l) = listener {
        let h = hub.clone();
        let url = cfg.database.clone();
        tokio::spawn(async move { bus::follow(h, url, l).await });
        // A safety net for events missed while a LISTEN connection was being re-made.
        let h = hub.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(2));
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                every.tick().await;
                h.resync_settled().await;
            }
        });
    }
}

/// Runs the server until it is stopped, printing the URL to open.
pub async fn serve(cfg: Config) -> Result<(), StartError> {
    let db = cfg.database.clone();
    // One process a SQLite file: held until this process exits (after the last blocking task
    // it waits for), so a new process cannot start while the old one still works on the file.
    if let Some(lock) = store::lock::lock_sqlite(&db).map_err(StartError)? {
        std::mem::forget(lock);
    }
    let running = start(cfg).await?;
    println!(
        "baduk serve: open http://{}/ (database {db}; Ctrl-C stops)",
        running.addr
    );
    if let Some(m) = running.metrics_addr {
        println!("baduk serve: metrics on http://{m}/metrics");
    }
    running
        .task
        .await
        .map_err(|e| StartError(format!("server task failed: {e}")))
}

/// Runs `f` on a fresh multi-threaded runtime (for the command line).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts")
        .block_on(f)
}
