//! This process as a node of the cluster (`Cluster`: its id, address, lease and the owners it
//! remembers), which the hub holds, and where a new game is placed (`place`, on the database's
//! least loaded live node). What the cluster does with them (leases, takeover, handoff,
//! forwarding) is `crate::cluster`'s, above the game.

use crate::game::hub::{new_id, now_ms, Hub};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// This process as a node of the cluster.
pub struct Cluster {
    /// Its id (fresh at every start).
    pub node: String,
    /// The base URL other nodes reach it at (`http://host:port`).
    pub(crate) addr: Mutex<String>,
    /// The secret shared by the cluster's processes (None: no internal calls either way).
    pub secret: Option<String>,
    /// Until when its lease holds, as last stored (ms, the database's clock; 0: none yet).
    pub(crate) lease_until: AtomicI64,
    /// The HTTP client for forwarded requests.
    pub client: reqwest::Client,
    /// It left the cluster (shutting down): no more renewals or takeovers.
    pub(crate) left: AtomicBool,
    /// Where other nodes' games were last found (read, or loaded with the game): game id →
    /// the owner's node id. A forward reads no database while that node's lease holds
    /// ([`Cluster::leases`]); at most [`crate::cluster::OWNER_CACHE`] games (emptied when
    /// full).
    pub(crate) owners: Mutex<HashMap<String, String>>,
    /// The live nodes' leases as last read: node id → (its address, until when its lease
    /// holds: ms, the database's clock), read again at each renewal of this node's own.
    pub(crate) leases: Mutex<HashMap<String, (String, i64)>>,
    /// What the other processes report of each client's use of the limits.
    pub remote_use: std::sync::Arc<crate::net::RemoteUse>,
    /// The review rooms' events other processes announced (`room:` payloads, their JSON
    /// text), passed on by the bus to whoever follows rooms here (`review::room`).
    pub room_events: tokio::sync::broadcast::Sender<std::sync::Arc<str>>,
}

/// The most games whose owner a node remembers.
pub const OWNER_CACHE: usize = 100_000;

/// Review rooms' events from other processes held for the rooms' follower before it lags (it
/// then sends every room here whole again).
const ROOM_EVENTS: usize = 8_192;

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("node", &self.node).finish()
    }
}

impl Cluster {
    /// A node with a fresh id and no address yet.
    pub fn new(secret: Option<String>) -> Cluster {
        Cluster {
            remote_use: std::sync::Arc::new(crate::net::RemoteUse::new(secret.as_deref())),
            node: new_id(),
            addr: Mutex::new(String::new()),
            secret: secret.filter(|s| !s.is_empty()),
            lease_until: AtomicI64::new(0),
            left: AtomicBool::new(false),
            owners: Mutex::new(HashMap::new()),
            leases: Mutex::new(HashMap::new()),
            room_events: tokio::sync::broadcast::channel(ROOM_EVENTS).0,
            client: reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(1))
                .timeout(Duration::from_secs(30))
                .build()
                .expect("an HTTP client"),
        }
    }

    /// The base URL other nodes reach this one at.
    pub fn addr(&self) -> String {
        self.addr.lock().expect("addr lock").clone()
    }

    /// Sets the base URL other nodes reach this one at.
    pub fn set_addr(&self, addr: &str) {
        *self.addr.lock().expect("addr lock") = addr.to_string();
    }

    /// Remembers that node `node` owns game `id` (another node: read, or loaded with the
    /// game); at most [`crate::cluster::OWNER_CACHE`] games, emptied when full.
    pub(crate) fn remember_owner(&self, id: &str, node: &str) {
        if node == self.node {
            return;
        }
        let mut owners = self.owners.lock().expect("owners lock");
        if owners.len() >= OWNER_CACHE {
            owners.clear();
        }
        owners.insert(id.to_string(), node.to_string());
    }

    /// Whether this node's lease holds at `now` (as far as its last renewal says).
    pub fn lease_holds(&self, now: i64) -> bool {
        !self.left.load(Ordering::Relaxed) && self.lease_until.load(Ordering::Relaxed) > now
    }
}

/// Where new game's owner is: the least loaded live node, or this one (always this one with
/// `place_here`).
pub async fn place(hub: &Hub) -> String {
    let me = &hub.cluster.node;
    if hub.place_here() {
        return me.clone();
    }
    match hub.store.place(me, now_ms()).await {
        Ok(Some(n)) => n,
        Ok(None) => me.clone(),
        Err(e) => {
            tracing::warn!("placing a game failed, it stays here: {e}");
            me.clone()
        }
    }
}
