//! The limits over the whole cluster (issue 43): once a second each process reports on the bus
//! what each client used of the rate budgets there since its last report (the per-address
//! ones, and the per-account ones of sign-in and chat, under their own tags), and how
//! many sockets each client holds open there; every other process charges the use to its own
//! buckets at the client's next request and counts the sockets against the client's cap. A
//! client that spreads its requests over N processes gets the budget once, not N times (within
//! a second's lag: at most one burst more a process). Clients are named by a hash keyed by the
//! cluster's secret (`net::RemoteUse`), never by address.

use crate::game::hub::now_ms;
use crate::state::AppState;
use crate::store::payload::{sockets_payloads, use_payloads};
use std::collections::HashSet;
use std::time::Duration;

/// How often a process reports its clients' use (ms).
pub const REPORT_MS: u64 = 1_000;

/// Reports this process's use once a second (PostgreSQL only: on SQLite there is one process).
pub fn spawn(st: AppState) {
    if !st.hub.store.is_postgres() {
        return;
    }
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(REPORT_MS));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        // The clients the last report listed with sockets: one that has none left is listed
        // once more with 0, so the others stop counting its sockets at once rather than when
        // the report expires.
        let mut listed = HashSet::new();
        loop {
            every.tick().await;
            if let Err(e) = report(&st, &mut listed).await {
                tracing::warn!("reporting the limits' use to the cluster failed: {e}");
            }
        }
    });
}

/// One report: every shared budget's use since the last, then the open sockets.
async fn report(st: &AppState, listed: &mut HashSet<u64>) -> Result<(), crate::store::StoreError> {
    let hub = &st.hub;
    let remote = &hub.cluster.remote_use;
    remote.expire(now_ms());
    let node = hub.cluster.node.as_str();
    for b in st.shared_budgets() {
        let Some(tag) = b.tag() else { continue };
        let used = b.take_reported();
        for p in use_payloads(node, tag, &used) {
            hub.store.notify_now(&p).await?;
        }
    }
    let mut open: Vec<(u64, u32)> = st
        .open_sockets
        .lock()
        .expect("sockets lock")
        .iter()
        .map(|(k, &n)| (remote.hash(k), n as u32))
        .collect();
    let now: HashSet<u64> = open.iter().map(|o| o.0).collect();
    open.extend(listed.difference(&now).map(|&h| (h, 0)));
    *listed = now;
    for p in sockets_payloads(node, &open) {
        hub.store.notify_now(&p).await?;
    }
    Ok(())
}
