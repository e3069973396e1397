//! The game server behind `baduk serve`: live games of Go and Wall Go over HTTP and WebSocket,
//! clocks kept by the server, bots in seats, storage in an embedded SQLite file or in
//! PostgreSQL (several processes on one database), and the web UI embedded in the binary.
//!
//! It is an adapter: every move is checked by the rules libraries (`baduk-go`, `baduk-wallgo`),
//! stored, then broadcast; the bots come from `baduk-search`. The public API is `docs/api.md`.

pub mod cluster;
pub mod game;
pub mod http;
pub mod net;
pub mod players;
pub mod review;
pub mod state;
pub mod store;

use bots::{BotLimits, Models};
use cluster::bus;
use game::{bots, hub, room};
use http::{conn, metrics};
use hub::{Hub, HubOptions};
use limit::Cidr;
use players::seeks;
use room::Ends;
use state::limit;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use store::Store;

/// How to run the server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on.
    pub addr: String,
    /// Database URL: `sqlite:PATH` or `postgres://…`.
    pub database: String,
    /// Requests a second allowed per client (0: no limit).
    pub rate_limit: f64,
    /// Accept the test-only bot `panic`.
    pub test_bots: bool,
    /// Every other limit: per client, per game, bots, sockets and when games end.
    pub limits: Limits,
    /// The Go bot's move priors, chosen by the operator (None: built in).
    pub go_model: Option<String>,
    /// `sedol`'s evaluation, chosen by the operator (None: built in).
    pub wall_model: Option<String>,
    /// The secret the processes of one cluster share (`--cluster-secret`); None: this process
    /// forwards nothing to another and refuses every internal call (docs/scaling.md).
    pub cluster_secret: Option<String>,
    /// The base URL other processes reach this one at (`--advertise`); None: `http://` and
    /// the address it listens on.
    pub advertise: Option<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            addr: "127.0.0.1:8080".into(),
            database: "sqlite:./baduk.db".into(),
            rate_limit: 50.0,
            test_bots: false,
            limits: Limits::default(),
            go_model: None,
            wall_model: None,
            cluster_secret: None,
            advertise: None,
        }
    }
}

/// What one client, one game and the bots may take (docs/api.md, "Limits"). Rates are per
/// client address (IPv6 by /64); 0 switches a rate or a cap off.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Games a client may create a minute.
    pub creates_per_minute: f64,
    /// Actions a client may send a second (HTTP and WebSocket together).
    pub actions_per_second: f64,
    /// WebSocket connections a client may open a minute.
    pub sockets_per_minute: f64,
    /// Open (unstarted) games a client may have at once.
    pub open_games_per_client: usize,
    /// WebSockets a client may hold open at once.
    pub sockets_per_client: usize,
    /// WebSockets one game may have at once.
    pub sockets_per_game: usize,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<Cidr>,
    /// The bots' budget.
    pub bots: BotLimits,
    /// When games nobody finishes end.
    pub ends: Ends,
    /// A socket that sends nothing (not even a pong) for this long is closed.
    pub socket_idle: Duration,
    /// A socket that does not take a message within this long is dropped (a slow consumer).
    pub socket_send_timeout: Duration,
    /// How long a finished game stays in memory for its watchers.
    pub finished_grace: Duration,
    /// Sign-in attempts a client address may make a minute.
    pub logins_per_minute: f64,
    /// Guest sessions a client address may start a minute.
    pub guests_per_minute: f64,
    /// Reviews one client address may have queued or running in the engine at once.
    pub reviews_per_client: usize,
    /// Sign-in attempts one address may make a minute for one account name (NFKC, case-folded).
    pub logins_per_name_minute: f64,
    /// Sign-in attempts one account name may receive a minute from all the addresses that have
    /// not signed in to it lately together (an address that has passes).
    pub logins_per_account_minute: f64,
    /// Chat messages an account (and an address) may send a second.
    pub chat_per_second: f64,
    /// How long a seek waits for a person before the closest bot is offered.
    pub seek_bot_after: Duration,
    /// Mark the session cookie `Secure` on every response (the server is behind TLS).
    pub secure_cookies: bool,
    /// Playouts the engine's review gives each Go position (capped by the bots' time too).
    pub review_playouts: u64,
    /// Time a connection has to send a request's head (from its first byte; a new connection
    /// from connecting).
    pub header_timeout: Duration,
    /// Time a request's body has to arrive, from the end of its head.
    pub body_timeout: Duration,
    /// Time a keep-alive connection may wait for its next request.
    pub idle_timeout: Duration,
    /// Connections one client address may hold at once (a trusted proxy's are exempt).
    pub connections_per_address: usize,
    /// Connections the server holds at once.
    pub max_connections: usize,
    /// Serve `/metrics` apart on this address (`--metrics-addr`); then the main address
    /// answers them only with the token. None: the main address answers loopback clients.
    pub metrics_addr: Option<String>,
    /// A bearer token that reads `/metrics` on the main address from anywhere.
    pub metrics_token: Option<String>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            creates_per_minute: 10.0,
            actions_per_second: 10.0,
            sockets_per_minute: 30.0,
            open_games_per_client: 5,
            sockets_per_client: 20,
            sockets_per_game: 100,
            trusted_proxies: Vec::new(),
            bots: BotLimits::default(),
            ends: Ends::default(),
            socket_idle: Duration::from_secs(60),
            socket_send_timeout: Duration::from_secs(10),
            finished_grace: Duration::from_secs(60),
            logins_per_minute: 10.0,
            guests_per_minute: 3.0,
            reviews_per_client: review::engine::PER_CLIENT,
            logins_per_name_minute: 5.0,
            logins_per_account_minute: 60.0,
            chat_per_second: 1.0,
            seek_bot_after: Duration::from_secs(20),
            secure_cookies: false,
            review_playouts: review::engine::DEFAULT_PLAYOUTS,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            connections_per_address: 200,
            max_connections: 10_000,
            metrics_addr: None,
            metrics_token: None,
        }
    }
}

impl Limits {
    /// No rate or cap (the integration tests' servers, which make many games from one address),
    /// and bot-against-bot games allowed; the bots' budget, sockets' timeouts and the ends of
    /// games keep their defaults.
    pub fn unlimited() -> Limits {
        Limits {
            creates_per_minute: 0.0,
            actions_per_second: 0.0,
            sockets_per_minute: 0.0,
            open_games_per_client: 0,
            sockets_per_client: 0,
            sockets_per_game: 0,
            logins_per_minute: 0.0,
            guests_per_minute: 0.0,
            reviews_per_client: 0,
            logins_per_name_minute: 0.0,
            logins_per_account_minute: 0.0,
            chat_per_second: 0.0,
            connections_per_address: 0,
            max_connections: 0,
            bots: BotLimits {
                allow_bot_games: true,
                ..BotLimits::default()
            },
            ..Limits::default()
        }
    }
}

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
pub async fn start(cfg: Config) -> Result<Running, StartError> {
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
    let models =
        Models::load(cfg.go_model.as_deref(), cfg.wall_model.as_deref()).map_err(StartError)?;
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
            cluster_secret: cfg.cluster_secret.clone(),
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
    let state = state::AppState::new(hub.clone(), &cfg);
    // The rate budgets remember every client they saw: forget the idle ones now and then, so
    // a stream of new addresses cannot grow them without bound.
    let budgets = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            budgets.forget_idle();
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
        loop {
            every.tick().await;
            h.sweep_clocks().await;
        }
    });
    // Seeks nobody watches any more go.
    let store = hub.store.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            seeks::sweep(&store).await;
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
                h.evict_finished().await;
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
