//! How the server runs: `Config` (the address, the database, the cluster's secret…) and the
//! `Limits` on what one client, one game and the bots may take, with their defaults. Below the
//! domains that read them (`http`, `state`, …) and above the ones that own their parts (`game`'s
//! bot budget and ends of games, `net`'s address ranges); `lib.rs` re-exports both.

use crate::game::bots::BotLimits;
use crate::game::room::Ends;
use crate::net::Cidr;
use std::time::Duration;

/// Playouts a Go position gets by default (`baduk serve --review-playouts`).
pub const DEFAULT_PLAYOUTS: u64 = 1_000;
/// Reviews one client (address) may have queued or running at once, by default
/// (`--reviews-per-client`).
pub const PER_CLIENT: usize = 2;

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
    /// The Go policy network, chosen by the operator (None: built in).
    pub go_net: Option<String>,
    /// `sedol`'s evaluation, chosen by the operator (None: built in).
    pub wall_model: Option<String>,
    /// The secret the processes of one cluster share (`--cluster-secret`); None: this process
    /// forwards nothing to another and refuses every internal call (docs/scaling.md).
    pub cluster_secret: Option<String>,
    /// The base URL other processes reach this one at (`--advertise`); None: `http://` and
    /// the address it listens on.
    pub advertise: Option<String>,
    /// A new game is owned by the process it was created at, not by the least loaded one
    /// (`--place-games-here`: for a load balancer that keeps each client on one process).
    pub place_here: bool,
    /// Email: the SMTP server, the sender and the links' base (`--smtp`; off by default).
    pub mail: MailConfig,
}

/// How the server sends email (docs/api.md, "Email"); no SMTP URL: email is off.
#[derive(Clone, Debug, Default)]
pub struct MailConfig {
    /// `smtp://user:pass@host:port` (STARTTLS when offered; `?tls=required`) or `smtps://…`.
    pub smtp: Option<String>,
    /// The From address (default: `baduk@` and the SMTP host).
    pub from: Option<String>,
    /// The public base URL of the links in mails (default: http:// and the listening address).
    pub public_url: Option<String>,
    /// The sweep and the sender are left to the caller (tests run them at a `now` of their own).
    pub manual: bool,
}

impl MailConfig {
    /// Whether the server sends email at all.
    pub fn enabled(&self) -> bool {
        self.smtp.as_deref().is_some_and(|s| !s.is_empty())
    }
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
            go_net: None,
            wall_model: None,
            cluster_secret: None,
            advertise: None,
            place_here: false,
            mail: MailConfig::default(),
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
    /// Watchers' WebSockets one game may have at once (a tenth of them per address); the
    /// seats' sockets have their own room.
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
    /// How long an unfinished game nobody moves or watches stays in memory (then it lives in
    /// the database only and loads again on demand).
    pub idle_game: Duration,
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
    /// The operator's external analysis engine for Go reviews (`--analysis-engine`, KataGo's
    /// JSON protocol); None: our own engine.
    pub analysis_engine: Option<ExternalEngine>,
    /// The longest one review position may take (None: the bots' maximum time).
    pub review_time: Option<Duration>,
    /// Search threads of the bots' pool reviews may hold at once (0: all of them).
    pub review_threads: usize,
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
            idle_game: Duration::from_secs(600),
            logins_per_minute: 10.0,
            guests_per_minute: 3.0,
            reviews_per_client: PER_CLIENT,
            logins_per_name_minute: 5.0,
            logins_per_account_minute: 60.0,
            chat_per_second: 1.0,
            seek_bot_after: Duration::from_secs(20),
            secure_cookies: false,
            review_playouts: DEFAULT_PLAYOUTS,
            analysis_engine: None,
            review_time: None,
            review_threads: 0,
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

/// The operator's external analysis engine: its command line and the visits a position gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalEngine {
    /// The program and its arguments (`--analysis-engine`, split as a shell would).
    pub argv: Vec<String>,
    /// `maxVisits` of each position (`--analysis-visits`; None: `--review-playouts`).
    pub visits: Option<u64>,
}
