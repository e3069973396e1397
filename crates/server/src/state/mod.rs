//! What every handler shares: `AppState` (the hub, the rate budgets, the limits, the seekers
//! waiting here), and the common answers of the web side (a JSON body or 400, a 429 naming its
//! budget, an `ActError` as a response). Below the domains that serve requests (`http`,
//! `botapi`, `challenges`, `players`, `review`, `cluster`); it names none of them. May use:
//! `config`, `game` (the hub) and `net`.

pub mod limit;
pub mod waiters;
pub mod ws;

use crate::game::hub::{now_ms, Hub};
use crate::game::room::ActError;
use crate::state::limit::{Budget, Cidr, ClientKey, Refused};
use axum::body::Bytes;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The rate budgets of every client.
pub struct Budgets {
    /// Every API and socket request.
    pub requests: Budget,
    /// Games created.
    pub creates: Budget,
    /// Actions (HTTP and WebSocket).
    pub actions: Budget,
    /// WebSocket connections opened.
    pub sockets: Budget,
    /// Sign-in attempts per address.
    pub logins: Budget,
    /// Guest sessions started per address.
    pub guests: Budget,
    /// Accounts created per address (sign-ups).
    pub signups: Budget,
}

/// The sockets open on each game of this process, by who holds them (`http::sockets` counts
/// them): a seat's never wait behind watchers, and watchers share the game's room per address.
#[derive(Debug, Default)]
pub struct GameSockets {
    /// Sockets of the seats' holders, per game and address.
    pub seats: HashMap<(String, ClientKey), usize>,
    /// Watchers' sockets, per game.
    pub watchers: HashMap<String, usize>,
    /// Watchers' sockets, per game and address.
    pub watchers_of: HashMap<(String, ClientKey), usize>,
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The live games.
    pub hub: Arc<Hub>,
    /// Rates per client.
    pub budgets: Arc<Budgets>,
    /// Proxies whose `X-Forwarded-For` is believed.
    pub trusted: Arc<Vec<Cidr>>,
    /// Sockets open now per client.
    pub open_sockets: Arc<Mutex<HashMap<ClientKey, usize>>>,
    /// Game sockets open now, by game: the seats' and each address's watchers'.
    pub game_sockets: Arc<Mutex<GameSockets>>,
    /// The limits the server runs under.
    pub limits: Arc<crate::config::Limits>,
    /// Sign-in attempts per address and account name together (the guessing budget).
    pub login_names: Arc<Budget<(ClientKey, String)>>,
    /// Sign-in attempts per account name from addresses that have not signed in to it lately.
    pub login_accounts: Arc<Budget<String>>,
    /// The addresses that signed in to each account lately (they pass `login_accounts`).
    pub login_known: Arc<crate::state::limit::Known>,
    /// Chat messages per account.
    pub chat_accounts: Arc<Budget<String>>,
    /// Chat messages per address.
    pub chat_clients: Arc<Budget>,
    /// Seekers waiting on this process.
    pub waiters: Arc<crate::state::waiters::Waiters>,
    /// The open seeks the lobby's sockets follow.
    pub seek_list: Arc<crate::state::waiters::SeekList>,
    /// How email is sent (`mail`), or that it is off.
    pub mail: Arc<crate::config::MailConfig>,
    /// The tournaments' changes the lobby's sockets pass on (`{"type": "tournament", …}`).
    pub tournament_news: tokio::sync::broadcast::Sender<serde_json::Value>,
    /// When each account was last noted as seen (ms), so "online" costs a write a minute.
    touched: Arc<Mutex<HashMap<String, i64>>>,
}

impl AppState {
    /// The state of a server configured by `cfg`.
    pub fn new(hub: Arc<Hub>, cfg: &crate::config::Config) -> AppState {
        let l = &cfg.limits;
        let r = cfg.rate_limit;
        // On PostgreSQL (a cluster of processes) the per-address budgets are shared: each
        // process charges what the client used on the others (cluster::usage).
        let remote = hub
            .store
            .is_postgres()
            .then(|| hub.cluster.remote_use.clone());
        // A budget shared under `tag` (on PostgreSQL; as it is on SQLite).
        fn shared_as<K: std::hash::Hash + Eq + Clone>(
            remote: &Option<Arc<crate::net::RemoteUse>>,
            tag: &'static str,
            b: Budget<K>,
        ) -> Budget<K> {
            match remote {
                Some(r) => b.shared(r.clone(), tag),
                None => b,
            }
        }
        let share = |b: Budget| {
            let tag = b.name();
            shared_as(&remote, tag, b)
        };
        // The security-critical budgets (sign-in attempts, guest sessions, accounts created)
        // hold exactly over the cluster, bursts included: a bucket in the database that every
        // process takes from (docs/scaling.md, "Limits over the cluster").
        let store = hub.store.clone();
        fn exact_as<K: std::hash::Hash + Eq + Clone>(
            remote: &Option<Arc<crate::net::RemoteUse>>,
            store: &crate::store::Store,
            tag: &'static str,
            b: Budget<K>,
        ) -> Budget<K> {
            match remote {
                Some(r) => b.exact(store.clone(), r.clone(), tag),
                None => b,
            }
        }
        let exact = |b: Budget, tag: &'static str| exact_as(&remote, &store, tag, b);
        AppState {
            budgets: Arc::new(Budgets {
                requests: share(Budget::new("requests", r, (r * 4.0).ceil() as u32)),
                creates: share(Budget::new(
                    "games created",
                    l.creates_per_minute / 60.0,
                    (l.creates_per_minute / 2.0).ceil() as u32,
                )),
                actions: share(Budget::new(
                    "actions",
                    l.actions_per_second,
                    (l.actions_per_second * 3.0).ceil() as u32,
                )),
                sockets: share(Budget::new(
                    "sockets opened",
                    l.sockets_per_minute / 60.0,
                    (l.sockets_per_minute / 3.0).ceil() as u32,
                )),
                logins: exact(
                    share(Budget::new(
                        "sign-in attempts",
                        l.logins_per_minute / 60.0,
                        l.logins_per_minute.ceil() as u32,
                    )),
                    "sign-in attempts",
                ),
                guests: exact(
                    share(Budget::new(
                        "guest sessions",
                        l.guests_per_minute / 60.0,
                        l.guests_per_minute.ceil() as u32,
                    )),
                    "guest sessions",
                ),
                // The size of games created, a budget of its own.
                signups: exact(
                    Budget::new(
                        "accounts created",
                        l.creates_per_minute / 60.0,
                        (l.creates_per_minute / 2.0).ceil() as u32,
                    ),
                    "accounts created",
                ),
            }),
            hub,
            trusted: Arc::new(l.trusted_proxies.clone()),
            open_sockets: Arc::new(Mutex::new(HashMap::new())),
            game_sockets: Arc::new(Mutex::new(GameSockets::default())),
            limits: Arc::new(l.clone()),
            // The per-account budgets (and the chat's per address) too, under their own tags.
            login_names: Arc::new(exact_as(
                &remote,
                &store,
                "sign-in attempts for a name",
                shared_as(
                    &remote,
                    "sign-in attempts for a name",
                    Budget::new(
                        "sign-in attempts for this account from your address",
                        l.logins_per_name_minute / 60.0,
                        l.logins_per_name_minute.ceil() as u32,
                    ),
                ),
            )),
            login_accounts: Arc::new(exact_as(
                &remote,
                &store,
                "sign-in attempts for an account",
                shared_as(
                    &remote,
                    "sign-in attempts for an account",
                    Budget::new(
                        "sign-in attempts for this account from new addresses",
                        l.logins_per_account_minute / 60.0,
                        l.logins_per_account_minute.ceil() as u32,
                    ),
                ),
            )),
            login_known: Arc::new(crate::state::limit::Known::default()),
            chat_accounts: Arc::new(shared_as(
                &remote,
                "chat messages of an account",
                Budget::new("chat messages", l.chat_per_second, 5),
            )),
            chat_clients: Arc::new(shared_as(
                &remote,
                "chat messages from an address",
                Budget::new("chat messages", l.chat_per_second * 4.0, 20),
            )),
            waiters: Arc::new(crate::state::waiters::Waiters::default()),
            seek_list: Arc::new(crate::state::waiters::SeekList::default()),
            tournament_news: tokio::sync::broadcast::channel(64).0,
            touched: Arc::new(Mutex::new(HashMap::new())),
            mail: Arc::new(cfg.mail.clone()),
        }
    }

    /// Notes that an account was seen (at most one write a minute an account).
    pub fn touch(&self, account_id: &str) {
        let now = now_ms();
        {
            let mut t = self.touched.lock().expect("touched lock");
            if t.get(account_id).is_some_and(|&at| now - at < 60_000) {
                return;
            }
            if t.len() > 100_000 {
                t.retain(|_, at| now - *at < 60_000);
            }
            t.insert(account_id.to_string(), now);
        }
        let store = self.hub.store.clone();
        let id = account_id.to_string();
        tokio::spawn(async move {
            let _ = store.touch_account(&id).await;
        });
    }

    /// The budgets shared over a cluster (their use is reported to the other processes).
    pub fn shared_budgets(&self) -> [&dyn crate::state::limit::Reported; 10] {
        let b = &self.budgets;
        [
            &b.requests,
            &b.creates,
            &b.actions,
            &b.sockets,
            &b.logins,
            &b.guests,
            &*self.login_names,
            &*self.login_accounts,
            &*self.chat_accounts,
            &*self.chat_clients,
        ]
    }

    /// Forgets idle clients of every budget (run now and then: memory stays bounded).
    pub fn forget_idle(&self) {
        for b in [
            &self.budgets.requests,
            &self.budgets.creates,
            &self.budgets.actions,
            &self.budgets.sockets,
            &self.budgets.logins,
            &self.budgets.guests,
            &self.budgets.signups,
            &self.chat_clients,
        ] {
            b.forget_idle();
        }
        self.login_names.forget_idle();
        self.login_accounts.forget_idle();
        self.login_known.forget_idle();
        self.chat_accounts.forget_idle();
    }
}

/// 429 `limit.sockets`: the client (or the game) has as many sockets and streams open as it may.
pub fn too_many_sockets() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, "10".to_string())],
        Json(
            json!({"error": "too many sockets open: close one first (per client, or a game's watchers: per game and per address on it)",
            "code": "limit.sockets", "args": null, "retry_after": 10}),
        ),
    )
        .into_response()
}

/// One open socket or stream counted against its client's cap (`--sockets-per-client`, the
/// client's sockets on the cluster's other processes included); dropping it uncounts.
pub struct ClientSocket {
    open: Arc<Mutex<HashMap<ClientKey, usize>>>,
    client: ClientKey,
}

impl ClientSocket {
    /// Counts one more socket (or stream) of `client`, or None when it holds its most.
    pub fn take(st: &AppState, client: ClientKey) -> Option<ClientSocket> {
        let per_client = st.limits.sockets_per_client;
        let elsewhere = if per_client > 0 {
            st.hub.cluster.remote_use.sockets_of(&client, now_ms())
        } else {
            0
        };
        let mut open = st.open_sockets.lock().expect("sockets lock");
        let mine = open.get(&client).copied().unwrap_or(0);
        if per_client > 0 && mine + elsewhere >= per_client {
            return None;
        }
        open.insert(client, mine + 1);
        Some(ClientSocket {
            open: st.open_sockets.clone(),
            client,
        })
    }
}

impl Drop for ClientSocket {
    fn drop(&mut self) {
        let mut open = self.open.lock().expect("sockets lock");
        if let Some(n) = open.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.client);
            }
        }
    }
}

impl IntoResponse for ActError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self.to_json())).into_response()
    }
}

/// A 429 naming the budget, with `Retry-After`.
pub fn too_many(r: Refused) -> Response {
    let secs = r.retry_secs();
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, secs.to_string())],
        Json(json!({"error": r.message(), "code": "limit.rate", "args": r.args(), "retry_after": secs})),
    )
        .into_response()
}

/// 403: guests play unrated games only (a rated game needs an account).
pub fn guest_unrated() -> ActError {
    ActError::forbidden("rated: guests play unrated games; sign up to play rated ones")
        .with_code("rated.guest", Value::Null)
}

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 16 * 1024;

/// A JSON body, or 400 naming what is wrong with it.
pub fn parse_json<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, ActError> {
    if body.is_empty() {
        return Err(ActError::bad_request("the request has no JSON body"));
    }
    serde_json::from_slice(body).map_err(|e| ActError::bad_request(format!("bad JSON body: {e}")))
}
