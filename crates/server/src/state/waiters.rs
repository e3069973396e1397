//! The seekers waiting on this process (`Waiters`): each seek's socket, told of its game the
//! moment a pairing made here finds it, and the client that made the seek; and the open seeks
//! the lobby's sockets follow (`SeekList`). Part of the handlers' shared state; `players::seeks`
//! does the pairing and reads the list.

use crate::game::hub::now_ms;
use crate::net::ClientKey;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{watch, Notify};

/// The seeks this process's sockets wait on: a match made here reaches them at once.
#[derive(Default)]
pub struct Waiters {
    map: Mutex<HashMap<String, watch::Sender<Option<Value>>>>,
    /// The client (address) that made each seek made here, so the game a pairing makes counts
    /// against both sides' open-games caps.
    clients: Mutex<HashMap<String, (ClientKey, i64)>>,
}

/// Seeks whose clients this process remembers at most (older ones are forgotten first).
const CLIENTS_KEPT: usize = 100_000;

impl Waiters {
    pub(crate) fn note_client(&self, id: &str, client: ClientKey) {
        let mut m = self.clients.lock().expect("waiters lock");
        if m.len() >= CLIENTS_KEPT {
            // Seeks live seconds: whatever is older than their longest life is stale.
            let old = now_ms() - 3_600_000;
            m.retain(|_, (_, at)| *at > old);
            if m.len() >= CLIENTS_KEPT {
                m.clear();
            }
        }
        m.insert(id.to_string(), (client, now_ms()));
    }

    pub(crate) fn take_client(&self, id: &str) -> Option<ClientKey> {
        self.clients
            .lock()
            .expect("waiters lock")
            .remove(id)
            .map(|(c, _)| c)
    }

    pub(crate) fn register(&self, id: &str) -> watch::Receiver<Option<Value>> {
        let (tx, rx) = watch::channel(None);
        self.map
            .lock()
            .expect("waiters lock")
            .insert(id.to_string(), tx);
        rx
    }

    pub(crate) fn remove(&self, id: &str) {
        self.map.lock().expect("waiters lock").remove(id);
    }

    pub(crate) fn tell(&self, id: &str, game: &Value) {
        if let Some(tx) = self.map.lock().expect("waiters lock").get(id) {
            let _ = tx.send(Some(game.clone()));
        }
    }
}

/// The open seeks as the lobby's sockets are sent them (`/ws/lobby`): the latest list, and a
/// nudge to read it again after a seek was made, taken, cancelled or dropped here.
pub struct SeekList {
    tx: watch::Sender<Arc<Value>>,
    changed: Notify,
}

impl Default for SeekList {
    fn default() -> SeekList {
        SeekList {
            tx: watch::channel(Arc::new(Value::Null)).0,
            changed: Notify::new(),
        }
    }
}

impl SeekList {
    /// Says the list changed: it is read again at once (nudges in between make one read).
    pub fn changed(&self) {
        self.changed.notify_one();
    }

    /// Waits for a nudge (or returns at once when one came since the last wait).
    pub async fn nudged(&self) {
        self.changed.notified().await;
    }

    /// The latest list, and every later one that differs from it.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Value>> {
        self.tx.subscribe()
    }

    /// Whether any socket follows the list.
    pub fn followed(&self) -> bool {
        self.tx.receiver_count() > 0
    }

    /// Sends `list` to the followers when it differs from the last one sent.
    pub fn publish(&self, list: Value) {
        self.tx.send_if_modified(|old| {
            if **old == list {
                false
            } else {
                *old = Arc::new(list);
                true
            }
        });
    }
}
