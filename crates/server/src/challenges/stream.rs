//! `GET /api/stream/events`: an account's events as NDJSON, kept open. First what the database
//! says is going on (a `gameStart` for each of its games not finished, a `challenge` for each
//! challenge open to it), so a reconnect or a restart loses nothing; then the live events of
//! `hub.events`; an empty line when nothing was sent for [`KEEP_ALIVE`].

use crate::game::room::ActError;
use crate::players::Auth;
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// Streams one account may hold open on this process at once.
pub const STREAMS_PER_ACCOUNT: usize = 4;
/// The longest silence on a stream: then an empty line.
pub const KEEP_ALIVE: Duration = Duration::from_secs(7);

/// The streams open on this process, by account.
fn open_streams() -> &'static Mutex<HashMap<String, usize>> {
    static OPEN: OnceLock<Mutex<HashMap<String, usize>>> = OnceLock::new();
    OPEN.get_or_init(Default::default)
}

/// One account's place among the open streams, given back when the stream ends.
struct Slot(String);

impl Slot {
    fn take(account: &str) -> Option<Slot> {
        let mut open = open_streams().lock().expect("streams lock");
        let n = open.entry(account.to_string()).or_insert(0);
        if *n >= STREAMS_PER_ACCOUNT {
            return None;
        }
        *n += 1;
        Some(Slot(account.to_string()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = open_streams().lock().expect("streams lock");
        if let Some(n) = open.get_mut(&self.0) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.0);
            }
        }
    }
}

/// What the database says is going on for `account`: a `gameStart` for each game of it that
/// started and is not finished, then a `challenge` for each challenge open to it.
pub async fn snapshot(st: &AppState, account: &str) -> Result<Vec<Value>, ActError> {
    let mut out = Vec::new();
    for id in super::rows::unfinished_games(&st.hub.store, account).await? {
        let Ok(h) = st.hub.get(&id).await else {
            continue;
        };
        let room = h.room.lock().await;
        if room.is_over() || !crate::game::events::all_seated(&room) {
            continue;
        }
        if let Some(seat) = room.seat_of_account(account) {
            out.push(
                json!({"type": "gameStart", "game": crate::game::events::game_info(&room, seat)}),
            );
        }
    }
    out.extend(
        super::open_to(st, account)
            .await
            .map_err(ActError::internal)?,
    );
    Ok(out)
}

/// A stream's state between the lines it sends.
struct Feed {
    st: AppState,
    account: String,
    pending: VecDeque<Value>,
    rx: tokio::sync::broadcast::Receiver<Value>,
    quiet: tokio::time::Interval,
    _slot: Slot,
}

fn line(v: &Value) -> Bytes {
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

impl Feed {
    /// The next line to send (None: the stream ends).
    async fn next(&mut self) -> Option<Bytes> {
        if let Some(v) = self.pending.pop_front() {
            self.quiet.reset();
            return Some(line(&v));
        }
        tokio::select! {
            got = self.rx.recv() => {
                self.quiet.reset();
                match got {
                    Ok(v) => Some(line(&v)),
                    // Events were missed: what is going on is read again and sent.
                    Err(RecvError::Lagged(_)) => {
                        self.pending = snapshot(&self.st, &self.account).await.ok()?.into();
                        match self.pending.pop_front() {
                            Some(v) => Some(line(&v)),
                            None => Some(Bytes::from_static(b"\n")),
                        }
                    }
                    Err(RecvError::Closed) => None,
                }
            }
            _ = self.quiet.tick() => Some(Bytes::from_static(b"\n")),
        }
    }
}

/// `GET /api/stream/events`.
pub(super) async fn events(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Response, ActError> {
    let who = auth.require()?;
    let account = who.account.id.clone();
    let Some(slot) = Slot::take(&account) else {
        return Err(ActError::too_many(format!(
            "at most {STREAMS_PER_ACCOUNT} event streams an account: close one first"
        ))
        .with_code("stream.too_many", json!({"cap": STREAMS_PER_ACCOUNT})));
    };
    // Listening before reading: an event between the two is sent (perhaps twice), never lost.
    let rx = st.hub.events.subscribe(&account);
    let pending = snapshot(&st, &account).await?.into();
    let mut quiet = tokio::time::interval(KEEP_ALIVE);
    quiet.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    quiet.reset();
    let feed = Feed {
        st,
        account,
        pending,
        rx,
        quiet,
        _slot: slot,
    };
    let body = futures_util::stream::unfold(feed, |mut f| async move {
        f.next()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), f))
    });
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        Body::from_stream(body),
    )
        .into_response())
}
