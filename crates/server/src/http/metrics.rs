//! Counters of one server process and `GET /metrics` (Prometheus' text format,
//! docs/api.md "Metrics"; docs/scaling.md says what the cluster's counters mean).

use crate::game::hub::Hub;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::fmt::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A labelled counter: its name, help, label and (label value, value) samples.
type Family<'a> = (&'a str, &'a str, &'a str, [(&'a str, u64); 3]);

/// The text of `GET /metrics`.
pub fn render(hub: &Hub) -> String {
    let m = &hub.metrics;
    let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let mut out = String::new();
    let q = &hub.store.queries;
    // name, kind, help, value: one metric each.
    let rows: [(&str, &str, &str, u64); 19] = [
        ("baduk_games_owned", "gauge", "Unfinished games this process owns and holds in memory now (it runs their clocks and bots; the others it owns wait in the database until due or asked for).", hub.owned_live() as u64),
        ("baduk_games_loaded", "gauge", "Games in this process's memory (owned, or watched here).", hub.loaded() as u64),
        ("baduk_sockets", "gauge", "Game WebSockets open on this process.", hub.sockets() as u64),
        ("baduk_bot_queue_depth", "gauge", "Bot searches waiting for a thread.", hub.bots.waiting() as u64),
        ("baduk_bot_searches_running", "gauge", "Bot searches and review positions holding a thread of the bots' pool now.", hub.bots.busy() as u64),
        ("baduk_bot_searches_total", "counter", "Bot searches started by this process.", g(&m.bot_searches)),
        ("baduk_lease_renewals_total", "counter", "Renewals of this process's lease stored.", g(&m.lease_renewals)),
        ("baduk_takeovers_total", "counter", "Games this process took over from a node whose lease ran out.", g(&m.takeovers)),
        ("baduk_games_evicted_total", "counter", "Idle unfinished games dropped from memory (they stay in the database and load again on demand).", g(&m.evicted)),
        ("baduk_games_woken_total", "counter", "Games the clock sweep loaded or looked at because their stored wake_at came.", g(&m.woken)),
        ("baduk_handoffs_total", "counter", "Games this process handed to a less loaded node.", g(&m.handoffs)),
        ("baduk_forwarded_total", "counter", "Requests this process forwarded to the owner of their game.", g(&m.forwarded)),
        ("baduk_fenced_total", "counter", "Commits refused because this process no longer owned the game.", g(&m.fenced)),
        ("baduk_events_applied_total", "counter", "Other processes' actions applied here from their events, without reading the game.", g(&m.events_applied)),
        ("baduk_event_reloads_total", "counter", "Loaded games read again from the database to catch up (all reasons; baduk_event_reloads_by_reason_total splits them).", g(&m.event_reloads)),
        ("baduk_joins_applied_total", "counter", "Other processes' joins of a seat applied here from their events, without reading the game.", g(&m.joins_applied)),
        ("baduk_group_commits_total", "counter", "Transactions that stored a batch of actions (group commit; both databases).", g(&q.group_commits)),
        ("baduk_group_commit_actions_total", "counter", "Actions stored by group commits.", g(&q.group_commit_actions)),
        ("baduk_tournament_pairings_total", "counter", "Tournament boards of two players stored by this process's pairing (all formats; byes not counted).", g(&m.tournament_pairings)),
    ];
    for (name, kind, help, value) in rows {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
        );
    }
    // name, help, label, (label value, value)…: one labelled counter each.
    let families: [Family; 3] = [
        ("baduk_actions_total", "Actions this process stored, by who made them.", "source",
            [("player", g(&m.actions_player)), ("bot", g(&m.actions_bot)), ("clock", g(&m.actions_clock))]),
        ("baduk_db_queries_total", "Statements this process ran on the games' tables, by kind.", "kind",
            [("select", g(&q.select)), ("write", g(&q.write)), ("notify", g(&q.notify))]),
        ("baduk_event_reloads_by_reason_total", "Loaded games read again, by why: an event without its change, a gap (events missed), a resync that found the copy behind.", "reason",
            [("change", g(&m.reloads_change)), ("gap", g(&m.reloads_gap)), ("resync", g(&m.reloads_resync))]),
    ];
    for (name, help, label, samples) in families {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
        for (v, n) in samples {
            let _ = writeln!(out, "{name}{{{label}=\"{v}\"}} {n}");
        }
    }
    m.ack.render(
        &mut out,
        "baduk_ack_seconds",
        "Time from an action's arrival at this process (HTTP or WebSocket, forwarded on or played here) to its acknowledgement.",
    );
    m.event_delivery.render(
        &mut out,
        "baduk_event_delivery_seconds",
        "Time from an action (the time it was stored with) to its event's arrival here over the bus; this process's own actions, which it hears too, included.",
    );
    m.event_queue.render(
        &mut out,
        "baduk_event_queue_seconds",
        "Time from an event's arrival here to its application to this process's copy of the game (waiting in its game's queue included).",
    );
    m.tournament_pairing_latency.render(
        &mut out,
        "baduk_tournament_pairing_latency_seconds",
        "Arenas: time from the end of a player's game (its stored end) to the storing of that player's next board by this process.",
    );
    let sweep = g(&m.tournament_sweep_us) as f64 / 1e6;
    let _ = writeln!(
        out,
        "# HELP baduk_tournament_sweep_seconds_total Time this process spent in the tournaments' sweep (wall time of its passes, which bounds the CPU they used).\n# TYPE baduk_tournament_sweep_seconds_total counter\nbaduk_tournament_sweep_seconds_total {sweep}"
    );
    out
}

/// The metrics as Prometheus reads them.
fn text(hub: &Hub) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        render(hub),
    )
        .into_response()
}

/// Whether a request on the server's own address may read `/metrics`: with the
/// `--metrics-token` as its bearer; else, when no `--metrics-addr` serves them apart, a client
/// on a loopback address that came direct (no proxy's forwarding header: Prometheus beside the
/// server, not a stranger through nginx).
pub fn may_read(limits: &crate::config::Limits, peer: SocketAddr, headers: &HeaderMap) -> bool {
    use subtle::ConstantTimeEq;
    if let Some(want) = &limits.metrics_token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("")
            .trim();
        if bool::from(given.as_bytes().ct_eq(want.as_bytes())) {
            return true;
        }
    }
    let proxied = ["x-forwarded-for", "forwarded", "x-real-ip"]
        .iter()
        .any(|h| headers.contains_key(*h));
    limits.metrics_addr.is_none() && peer.ip().is_loopback() && !proxied
}

/// `GET /metrics` on the server's own address: the counters to whom [`may_read`] allows,
/// else 403 `metrics.private` naming the rule.
pub async fn endpoint(
    State(st): State<crate::state::AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    if may_read(&st.limits, peer, &headers) {
        return text(&st.hub);
    }
    (
        StatusCode::FORBIDDEN,
        Json(serde_json::json!({
            "error": "metrics: not on this address to this client; they are on --metrics-addr, \
                      or here to a loopback client that came direct, or with the --metrics-token as bearer",
            "code": "metrics.private", "args": null})),
    )
        .into_response()
}

/// Serves `/metrics` (and `/healthz`) alone on `addr` (`--metrics-addr`), for a Prometheus on
/// a private address; returns the address it listens on.
pub async fn listen(addr: &str, hub: Arc<Hub>) -> Result<SocketAddr, String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on --metrics-addr {addr}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on --metrics-addr {addr}: {e}"))?;
    let app = axum::Router::new()
        .route(
            "/metrics",
            axum::routing::get(|State(h): State<Arc<Hub>>| async move { text(&h) }),
        )
        .route("/healthz", axum::routing::get(|| async { "ok" }))
        .layer(axum::middleware::map_response(
            crate::http::web::security_headers,
        ))
        .with_state(hub);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!("the metrics listener stopped: {e}");
        }
    });
    Ok(bound)
}
