//! The seekers waiting on this process (`Waiters`): each seek's socket, told of its game the
//! moment a pairing made here finds it, and the client that made the seek. Part of the handlers'
//! shared state; `players::seeks` does the pairing.

use crate::game::hub::now_ms;
use crate::net::ClientKey;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::watch;

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
