//! `baduk serve` (the game server), `baduk wall export` (finished games as records) and
//! `baduk bench serve` (concurrent games against a running server).

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Database: `sqlite:PATH` (an embedded file, created if missing) or `postgres://USER@HOST/DB`.
    #[arg(long, default_value = "sqlite:./baduk.db")]
    pub database: String,
    /// API and socket requests a second allowed per client address (IPv6: per /64); 0 turns the limit off.
    #[arg(long, default_value_t = 50.0)]
    pub rate_limit: f64,
    /// Games one client address may create a minute (0: no limit).
    #[arg(long, default_value_t = 10.0)]
    pub creates_per_minute: f64,
    /// Actions one client address may send a second, HTTP and WebSocket together (0: no limit).
    #[arg(long, default_value_t = 10.0)]
    pub actions_per_second: f64,
    /// WebSocket connections one client address may open a minute (0: no limit).
    #[arg(long, default_value_t = 30.0)]
    pub sockets_per_minute: f64,
    /// Open (unstarted) games one client address may have at once (0: no cap).
    #[arg(long, default_value_t = 5)]
    pub open_games_per_client: usize,
    /// WebSockets one client address may hold open at once (0: no cap).
    #[arg(long, default_value_t = 20)]
    pub sockets_per_client: usize,
    /// Watchers' WebSockets one game may have open at once, a tenth of them per address (0: no
    /// cap); the seats' sockets have their own room.
    #[arg(long, default_value_t = 100)]
    pub sockets_per_game: usize,
    /// A proxy (address or range, e.g. 127.0.0.1 or 10.0.0.0/8) whose X-Forwarded-For names the
    /// client; repeat for several. Without it the header is ignored.
    #[arg(long = "trusted-proxy", value_name = "CIDR")]
    pub trusted_proxy: Vec<String>,
    /// The Go bot's move-prior model file (default: the built-in one). Clients never name files.
    #[arg(long, value_name = "PATH")]
    pub go_model: Option<String>,
    /// The Go policy network's weights file (default: the built-in one, models/go-policy.bin):
    /// what seats with `priors=net` and 19×19 reviews use. Checked at start: a missing,
    /// truncated or foreign file stops the server, naming the file and what is wrong.
    #[arg(long, value_name = "PATH")]
    pub go_net: Option<String>,
    /// `sedol`'s evaluation model file (default: the built-in one).
    #[arg(long, value_name = "PATH")]
    pub wall_model: Option<String>,
    /// Longest a bot thinks about one move, in seconds (bot options and clocks only lower it).
    #[arg(long, default_value_t = 3.0)]
    pub bot_max_time: f64,
    /// Search threads all bots together may use at once; more searches wait their turn, oldest
    /// first (default: the machine's cores).
    #[arg(long)]
    pub bot_threads: Option<usize>,
    /// Playouts the engine's review gives each Go position of a record (at most the bots'
    /// maximum time too); one search thread of the bots' pool a position.
    #[arg(long, default_value_t = baduk_server::review::engine::DEFAULT_PLAYOUTS)]
    pub review_playouts: u64,
    /// An external analysis engine for Go reviews, speaking KataGo's JSON analysis protocol:
    /// its command line, split as a shell would, e.g. `"/opt/katago analysis -model M -config
    /// C"` (default: our own engine). Only the operator names it; see docs/operating.md.
    #[arg(long, value_name = "COMMAND")]
    pub analysis_engine: Option<String>,
    /// Visits the external analysis engine gives each position (default: --review-playouts).
    #[arg(long, value_name = "N")]
    pub analysis_visits: Option<u64>,
    /// The longest one review position may take, in seconds (0: `--bot-max-time`).
    #[arg(long, default_value_t = 0.0)]
    pub review_seconds: f64,
    /// Search threads of the bots' pool that reviews may hold at once, the rest kept for the
    /// bot seats (0: all of them, shared with the seats oldest first).
    #[arg(long, default_value_t = 0)]
    pub review_threads: usize,
    /// Allow games with a bot in both seats (at the same budget).
    #[arg(long)]
    pub allow_bot_games: bool,
    /// An untimed game with no action for this many hours is lost by the side to move (abandonment).
    #[arg(long, default_value_t = 168.0)]
    pub abandon_hours: f64,
    /// A game whose human seat nobody joined for this many hours is cancelled and unlisted.
    #[arg(long, default_value_t = 24.0)]
    pub unstarted_hours: f64,
    /// The dead-stone phase's clock in seconds; when it runs out the marks as they stand count.
    #[arg(long, default_value_t = 120.0)]
    pub marking_seconds: f64,
    /// An unfinished game nobody moves or watches for this many seconds leaves memory (it stays
    /// in the database and loads again when asked for or due).
    #[arg(long, default_value_t = 600.0)]
    pub idle_game_seconds: f64,
    /// A WebSocket that sends nothing (not even a pong to the server's ping) this many seconds is closed.
    #[arg(long, default_value_t = 60.0)]
    pub socket_idle_seconds: f64,
    /// Sign-in attempts one client address may make a minute, whatever the names (0: no limit).
    #[arg(long, default_value_t = 10.0)]
    pub logins_per_minute: f64,
    /// Guest sessions one client address may start a minute ("play as a guest").
    #[arg(long, default_value_t = 3.0)]
    pub guests_per_minute: f64,
    /// Reviews one client address may have queued or running in the engine at once (0: no cap).
    #[arg(long, default_value_t = 2)]
    pub reviews_per_client: usize,
    /// Sign-in attempts one client address may make a minute for one account name (NFKC,
    /// case-folded), so guesses from one address never lock the owner out elsewhere (0: no limit).
    #[arg(long, default_value_t = 5.0)]
    pub logins_per_name_minute: f64,
    /// Sign-in attempts one account name may take a minute from all addresses that have not
    /// signed in to it lately, together; an address that has passes (0: no limit).
    #[arg(long, default_value_t = 60.0)]
    pub logins_per_account_minute: f64,
    /// Seconds a connection has to send a request's head (from its first byte; a new
    /// connection from connecting); slower ones are closed.
    #[arg(long, default_value_t = 10.0)]
    pub header_timeout_seconds: f64,
    /// Seconds a request's body has to arrive, from the end of its head (then 400).
    #[arg(long, default_value_t = 30.0)]
    pub body_timeout_seconds: f64,
    /// Seconds a keep-alive connection may wait for its next request before it is closed
    /// (a WebSocket has --socket-idle-seconds instead).
    #[arg(long, default_value_t = 60.0)]
    pub idle_timeout_seconds: f64,
    /// Connections one client address may hold at once, WebSockets included (a trusted proxy's
    /// are exempt); more are answered 503 and closed (0: no cap).
    #[arg(long, default_value_t = 200)]
    pub connections_per_address: usize,
    /// Connections the server holds at once; more are answered 503 and closed (0: no cap).
    #[arg(long, default_value_t = 10_000)]
    pub max_connections: usize,
    /// Seconds a "play now" seek waits for a person before the closest bot is offered.
    #[arg(long, default_value_t = 20.0)]
    pub seek_bot_seconds: f64,
    /// Mark the session cookie Secure (the server is reached over TLS, through a proxy).
    #[arg(long)]
    pub secure_cookies: bool,
    /// Switch every per-client rate and cap off (benchmarks and tests with every client on one
    /// address); bot budgets, socket timeouts and the ends of games stay.
    #[arg(long)]
    pub no_limits: bool,
    /// Accept the test-only bot `panic` (for tests of fault isolation).
    #[arg(long, hide = true)]
    pub test_bots: bool,
    /// How log lines on standard error look: `text`, or `json` (one object a line).
    #[arg(long, default_value = "text")]
    pub log_format: baduk_server::http::logs::LogFormat,
    /// Which events are logged, as RUST_LOG reads it (default: RUST_LOG, else `info`); e.g.
    /// `info,baduk::http=debug` adds a line for every request.
    #[arg(long)]
    pub log: Option<String>,
    /// The secret every process of one cluster (one PostgreSQL database) shares: actions for a
    /// game another process owns are forwarded to it with this secret (docs/scaling.md). Also
    /// read from BADUK_CLUSTER_SECRET, which keeps it out of the process list.
    #[arg(long)]
    pub cluster_secret: Option<String>,
    /// A new game is owned by the process it was created at, not by the least loaded live
    /// process of the cluster: for a load balancer that keeps each client on one process
    /// (fewer forwarded actions), and to measure forwarding (scripts/bench-cluster).
    #[arg(long)]
    pub place_games_here: bool,
    /// The base URL the cluster's other processes reach this one at (default: http:// and the
    /// address it listens on).
    #[arg(long)]
    pub advertise: Option<String>,
    /// Serve /metrics apart on this address (e.g. 127.0.0.1:9100 or a private one) for
    /// Prometheus. Default: none, and the main address answers /metrics only to a loopback
    /// client that came direct (not through a proxy), or with --metrics-token.
    #[arg(long, value_name = "ADDR")]
    pub metrics_addr: Option<String>,
    /// A bearer token that reads /metrics on the main address from anywhere (default: none).
    /// Also read from BADUK_METRICS_TOKEN, which keeps it out of the process list.
    #[arg(long, value_name = "TOKEN")]
    pub metrics_token: Option<String>,
    /// Send email through this SMTP server (default: none, email is off):
    /// `smtp://USER:PASS@HOST:PORT` (STARTTLS when offered; add `?tls=required` to insist) or
    /// `smtps://USER:PASS@HOST:PORT`. Also read from BADUK_SMTP, which keeps the password out
    /// of the process list.
    #[arg(long, value_name = "URL")]
    pub smtp: Option<String>,
    /// The From address of the server's mails (default: baduk@ and the SMTP host).
    #[arg(long, value_name = "ADDRESS")]
    pub mail_from: Option<String>,
    /// The public base URL of this server for the links in mails, e.g. https://go.example.org
    /// (default: http:// and the address it listens on).
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
}

/// A positive, finite number of seconds from the flag `name`.
fn seconds(name: &str, v: f64, lo: f64, hi: f64) -> Result<std::time::Duration, CliError> {
    if !v.is_finite() || v < lo || v > hi {
        return Err(CliError::input(format!(
            "{name}: a number from {lo} to {hi}"
        )));
    }
    Ok(std::time::Duration::from_secs_f64(v))
}

/// Runs `serve` until Ctrl-C or SIGTERM.
pub fn serve(a: ServeArgs) -> Result<(), CliError> {
    crate::huge_pages::turn_off();
    baduk_server::http::logs::init(a.log_format, a.log.as_deref()).map_err(CliError::input)?;
    for (name, v) in [
        ("--rate-limit", a.rate_limit),
        ("--creates-per-minute", a.creates_per_minute),
        ("--actions-per-second", a.actions_per_second),
        ("--sockets-per-minute", a.sockets_per_minute),
        ("--logins-per-minute", a.logins_per_minute),
        ("--guests-per-minute", a.guests_per_minute),
        ("--logins-per-name-minute", a.logins_per_name_minute),
        ("--logins-per-account-minute", a.logins_per_account_minute),
    ] {
        if !v.is_finite() || v < 0.0 {
            return Err(CliError::input(format!(
                "{name}: a rate, 0 (no limit) or more"
            )));
        }
    }
    let mut trusted = Vec::new();
    for t in &a.trusted_proxy {
        trusted.push(
            t.parse::<baduk_server::state::limit::Cidr>()
                .map_err(|e| CliError::input(format!("--trusted-proxy {e}")))?,
        );
    }
    let hour = 3600.0;
    let ends = baduk_server::game::room::Ends {
        abandon_ms: seconds("--abandon-hours", a.abandon_hours, 1.0 / 60.0, 24.0 * 365.0)?
            .mul_f64(hour)
            .as_millis() as i64,
        unstarted_ms: seconds(
            "--unstarted-hours",
            a.unstarted_hours,
            1.0 / 60.0,
            24.0 * 365.0,
        )?
        .mul_f64(hour)
        .as_millis() as i64,
        marking_ms: seconds("--marking-seconds", a.marking_seconds, 5.0, 86_400.0)?.as_millis()
            as i64,
    };
    let mut bots = baduk_server::game::bots::BotLimits {
        max_time: seconds("--bot-max-time", a.bot_max_time, 0.05, 600.0)?,
        allow_bot_games: a.allow_bot_games,
        ..Default::default()
    };
    if let Some(n) = a.bot_threads {
        if n == 0 || n > 1024 {
            return Err(CliError::input("--bot-threads: 1 to 1024"));
        }
        bots.threads = n;
    }
    if a.review_playouts == 0 || a.review_playouts > baduk_server::game::bots::MAX_GO_PLAYOUTS {
        return Err(CliError::input(format!(
            "--review-playouts: 1 to {}",
            baduk_server::game::bots::MAX_GO_PLAYOUTS
        )));
    }
    if a.analysis_visits.is_some_and(|v| v == 0 || v > 1_000_000) {
        return Err(CliError::input("--analysis-visits: 1 to 1000000"));
    }
    let analysis_engine = match &a.analysis_engine {
        Some(cmd) => Some(baduk_server::review::katago::ExternalEngine {
            argv: baduk_server::review::katago::split_command(cmd)
                .map_err(|e| CliError::input(format!("--analysis-engine: {e}")))?,
            visits: a.analysis_visits,
        }),
        None => None,
    };
    let review_time = if a.review_seconds == 0.0 {
        None
    } else {
        Some(seconds("--review-seconds", a.review_seconds, 0.01, 3600.0)?)
    };
    let limits = baduk_server::Limits {
        creates_per_minute: a.creates_per_minute,
        review_playouts: a.review_playouts,
        analysis_engine,
        review_time,
        review_threads: a.review_threads,
        actions_per_second: a.actions_per_second,
        sockets_per_minute: a.sockets_per_minute,
        open_games_per_client: a.open_games_per_client,
        sockets_per_client: a.sockets_per_client,
        sockets_per_game: a.sockets_per_game,
        trusted_proxies: trusted,
        bots,
        ends,
        socket_idle: seconds(
            "--socket-idle-seconds",
            a.socket_idle_seconds,
            1.0,
            86_400.0,
        )?,
        idle_game: seconds("--idle-game-seconds", a.idle_game_seconds, 1.0, 86_400.0)?,
        logins_per_minute: a.logins_per_minute,
        guests_per_minute: a.guests_per_minute,
        reviews_per_client: a.reviews_per_client,
        logins_per_name_minute: a.logins_per_name_minute,
        logins_per_account_minute: a.logins_per_account_minute,
        header_timeout: seconds(
            "--header-timeout-seconds",
            a.header_timeout_seconds,
            0.1,
            3600.0,
        )?,
        body_timeout: seconds(
            "--body-timeout-seconds",
            a.body_timeout_seconds,
            0.1,
            3600.0,
        )?,
        idle_timeout: seconds(
            "--idle-timeout-seconds",
            a.idle_timeout_seconds,
            0.1,
            86_400.0,
        )?,
        connections_per_address: a.connections_per_address,
        max_connections: a.max_connections,
        seek_bot_after: seconds("--seek-bot-seconds", a.seek_bot_seconds, 1.0, 3600.0)?,
        secure_cookies: a.secure_cookies,
        metrics_addr: a.metrics_addr.clone(),
        metrics_token: a
            .metrics_token
            .clone()
            .or_else(|| std::env::var("BADUK_METRICS_TOKEN").ok())
            .filter(|s| !s.is_empty()),
        ..Default::default()
    };
    let limits = if a.no_limits {
        baduk_server::Limits {
            bots: limits.bots.clone(),
            ends: limits.ends,
            socket_idle: limits.socket_idle,
            idle_game: limits.idle_game,
            trusted_proxies: limits.trusted_proxies.clone(),
            seek_bot_after: limits.seek_bot_after,
            secure_cookies: limits.secure_cookies,
            review_playouts: limits.review_playouts,
            analysis_engine: limits.analysis_engine.clone(),
            review_time: limits.review_time,
            review_threads: limits.review_threads,
            header_timeout: limits.header_timeout,
            body_timeout: limits.body_timeout,
            idle_timeout: limits.idle_timeout,
            metrics_addr: limits.metrics_addr.clone(),
            metrics_token: limits.metrics_token.clone(),
            ..baduk_server::Limits::unlimited()
        }
    } else {
        limits
    };
    let cfg = baduk_server::Config {
        addr: a.addr,
        database: a.database,
        rate_limit: if a.no_limits { 0.0 } else { a.rate_limit },
        test_bots: a.test_bots,
        limits,
        go_model: a.go_model,
        go_net: a.go_net,
        wall_model: a.wall_model,
        cluster_secret: a
            .cluster_secret
            .or_else(|| std::env::var("BADUK_CLUSTER_SECRET").ok())
            .filter(|s| !s.is_empty()),
        advertise: a.advertise,
        place_here: a.place_games_here,
        mail: baduk_server::config::MailConfig {
            smtp: a
                .smtp
                .or_else(|| std::env::var("BADUK_SMTP").ok())
                .filter(|s| !s.is_empty()),
            from: a.mail_from,
            public_url: a.public_url,
            manual: false,
        },
    };
    baduk_server::block_on(baduk_server::serve(cfg))
        .map_err(|e| CliError::input(format!("baduk serve: {e}")))
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The server's database URL.
    #[arg(long)]
    pub database: String,
    /// Folder to write the records to (one `<id>.wall` per game).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `wall export`.
pub fn export(a: ExportArgs) -> Result<(), CliError> {
    let n = baduk_server::block_on(baduk_server::game::export::export_wall(&a.database, &a.out))
        .map_err(CliError::input)?;
    println!("{n} finished Wall Go games written to {}", a.out.display());
    Ok(())
}

#[derive(Args, Debug)]
pub struct BackupArgs {
    /// The server's database URL (`sqlite:PATH`).
    #[arg(long)]
    pub database: String,
    /// The new file to write (never overwritten).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `backup`.
pub fn backup(a: BackupArgs) -> Result<(), CliError> {
    let bytes = baduk_server::block_on(baduk_server::store::backup::backup(&a.database, &a.out))
        .map_err(CliError::input)?;
    println!("{} written ({bytes} bytes)", a.out.display());
    Ok(())
}

/// Arguments of `bench serve`.
#[derive(Args, Debug)]
pub struct BenchServeArgs {
    /// Address of the running server (start it with `--no-limits`); the processes of a
    /// cluster: their addresses separated by commas.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Concurrent games (9×9, chinese, no clock, two human seats; two sockets each, or one
    /// with `--one-socket`).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Moves played in each game.
    #[arg(long, default_value_t = 40)]
    pub moves: usize,
    /// Random seed of the moves (the printed moves-hash is a signature of it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Actions a second offered over all games; 0: each game moves as soon as it sees the
    /// last move.
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// The server's process id, to print its resident memory per live game and its CPU per
    /// action; a cluster's: every process's, separated by commas (summed).
    #[arg(long, value_delimiter = ',')]
    pub server_pid: Vec<u32>,
    /// Games set up (created, sockets opened) at once.
    #[arg(long, default_value_t = 64)]
    pub parallel: usize,
    /// One socket a game, sending both seats' actions with their tokens and getting the new
    /// states (half the open files of two: 10,000 games within a limit of 20,000).
    #[arg(long)]
    pub one_socket: bool,
    /// Where a game's sockets open over a cluster's processes (game i is created at the
    /// i-th): `spread` (Black's at the next, White's at the one after), `creator` (both
    /// where it was created, mostly its owner) or `next` (both at the next, mostly not).
    #[arg(long, default_value = "spread", value_parser = ["spread", "creator", "next"])]
    pub sockets_at: String,
    /// The accounts mode: this many players sign up, press "play now" for a rated 9×9 game,
    /// are paired and play `--moves` moves before Black resigns (`--games` is then unused).
    #[arg(long)]
    pub players: Option<usize>,
}

/// Runs `bench serve`: prints the signature, then the rate, latencies, errors and memory.
pub fn bench_serve(a: BenchServeArgs) -> Result<(), CliError> {
    // The load's own stalls would count as the server's latency.
    crate::huge_pages::turn_off();
    if let Some(players) = a.players {
        let opts = baduk_loadgen::bench_players::PlayersOptions {
            addr: a.addr,
            players,
            moves: a.moves,
            seed: a.seed,
            parallel: a.parallel,
            server_pid: a.server_pid.first().copied(),
            timeout: std::time::Duration::from_secs(60),
        };
        let report = baduk_server::block_on(baduk_loadgen::bench_players::run(&opts))
            .map_err(|e| CliError::input(format!("baduk bench serve --players: {e}")))?;
        for line in report.lines() {
            println!("{line}");
        }
        return Ok(());
    }
    let opts = baduk_loadgen::bench::BenchOptions {
        addr: a.addr,
        games: a.games,
        moves: a.moves,
        seed: a.seed,
        rate: a.rate,
        server_pids: a.server_pid,
        parallel: a.parallel,
        one_socket: a.one_socket,
        sockets_at: match a.sockets_at.as_str() {
            "creator" => baduk_loadgen::bench::SocketsAt::Creator,
            "next" => baduk_loadgen::bench::SocketsAt::Next,
            _ => baduk_loadgen::bench::SocketsAt::Spread,
        },
        ..Default::default()
    };
    let report = baduk_server::block_on(baduk_loadgen::bench::run(&opts))
        .map_err(|e| CliError::input(format!("baduk bench serve: {e}")))?;
    for line in report.lines() {
        println!("{line}");
    }
    Ok(())
}

/// Arguments of `bench review-rooms`.
#[derive(Args, Debug)]
pub struct BenchReviewArgs {
    /// Address of the running server.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Review rooms (each with an owner).
    #[arg(long, default_value_t = 50)]
    pub rooms: usize,
    /// Watchers in all, spread evenly over the rooms.
    #[arg(long, default_value_t = 1000)]
    pub watchers: usize,
    /// Changes each owner makes (new branches and cursor moves, alternately).
    #[arg(long, default_value_t = 20)]
    pub changes: usize,
    /// Sockets opened at once while setting up.
    #[arg(long, default_value_t = 64)]
    pub parallel: usize,
    /// The server's process id, to print its memory and CPU.
    #[arg(long)]
    pub server_pid: Option<u32>,
}

/// Runs `bench review-rooms`: prints the signature, then the rates, bytes and latencies.
pub fn bench_review(a: BenchReviewArgs) -> Result<(), CliError> {
    crate::huge_pages::turn_off();
    let opts = baduk_loadgen::bench_review::ReviewOptions {
        addr: a.addr,
        rooms: a.rooms.max(1),
        watchers: a.watchers,
        changes: a.changes,
        parallel: a.parallel,
        server_pid: a.server_pid,
        timeout: std::time::Duration::from_secs(60),
    };
    let report = baduk_server::block_on(baduk_loadgen::bench_review::run(&opts))
        .map_err(|e| CliError::input(format!("baduk bench review-rooms: {e}")))?;
    for line in report.lines() {
        println!("{line}");
    }
    Ok(())
}

/// Arguments of `bench abuse`.
#[derive(Args, Debug)]
pub struct BenchAbuseArgs {
    /// Address of the running server (loopback only; the abusers use 127.0.0.2 and up).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// How long the mix runs, in seconds.
    #[arg(long, default_value_t = 600)]
    pub seconds: u64,
    /// Honest 19×19 games played beside it.
    #[arg(long, default_value_t = 20)]
    pub honest: usize,
    /// Seconds between an honest player's moves.
    #[arg(long, default_value_t = 0.5)]
    pub think: f64,
    /// Abusers of each kind.
    #[arg(long, default_value_t = 4)]
    pub abusers: usize,
    /// Sockets each socket abuser keeps open without reading.
    #[arg(long, default_value_t = 40)]
    pub sockets_each: usize,
    /// The server's process id, to sample its resident memory.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Seed of the honest moves.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Honest 9×9 games against the server's bot (1 s a move) played beside it.
    #[arg(long, default_value_t = 2)]
    pub bot_games: usize,
}

/// Runs `bench abuse` and prints its report.
pub fn bench_abuse(a: BenchAbuseArgs) -> Result<(), CliError> {
    if !a.think.is_finite() || a.think < 0.0 {
        return Err(CliError::input("--think: seconds, 0 or more"));
    }
    let opts = baduk_loadgen::abuse::AbuseOptions {
        addr: a.addr,
        seconds: a.seconds,
        honest: a.honest,
        think: a.think,
        abusers: a.abusers,
        sockets_each: a.sockets_each,
        server_pid: a.server_pid,
        seed: a.seed,
        bot_games: a.bot_games,
    };
    let report = baduk_server::block_on(baduk_loadgen::abuse::run(&opts))
        .map_err(|e| CliError::input(format!("baduk bench abuse: {e}")))?;
    for line in report.lines() {
        println!("{line}");
    }
    Ok(())
}
