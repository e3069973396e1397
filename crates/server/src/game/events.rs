//! Events addressed to an account rather than a game (a challenge to it, a game of its
//! starting or finishing): every stream an account holds open on this process receives them
//! (`/api/stream/events`, the lobby's socket). In memory only: a stream that (re)connects
//! reads what is still open from the database first, so nothing is lost across a restart.

use crate::game::room::Room;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::broadcast;

/// Events queued for one slow listener before it misses some (it is told, and resyncs).
pub const EVENTS_QUEUED: usize = 64;

/// The account events of this process: one channel per account with a listener.
#[derive(Default)]
pub struct AccountEvents {
    channels: Mutex<HashMap<String, broadcast::Sender<Value>>>,
}

impl AccountEvents {
    /// Sends `event` to every listener of `account` on this process (none: dropped).
    pub fn publish(&self, account: &str, event: Value) {
        let mut ch = self.channels.lock().expect("account events lock");
        if let Some(tx) = ch.get(account) {
            if tx.send(event).is_err() {
                // Every listener left.
                ch.remove(account);
            }
        }
    }

    /// A listener of `account`'s events from now on.
    pub fn subscribe(&self, account: &str) -> broadcast::Receiver<Value> {
        let mut ch = self.channels.lock().expect("account events lock");
        ch.entry(account.to_string())
            .or_insert_with(|| broadcast::channel(EVENTS_QUEUED).0)
            .subscribe()
    }

    /// Listeners of `account` open now on this process.
    pub fn listeners(&self, account: &str) -> usize {
        let ch = self.channels.lock().expect("account events lock");
        ch.get(account).map_or(0, |tx| tx.receiver_count())
    }
}

/// A game as an account's events show it to the holder of `seat` (GAMEINFO):
/// `{"id","url","seat","opponent","settings","status","result"}`; the opponent is the account
/// in the other seat (a server bot: its name and `"bot": true`; an anonymous seat: null).
pub fn game_info(room: &Room, seat: usize) -> Value {
    let kind = crate::game::ratings::kind_of(&room.settings);
    let other = &room.seats[1 - seat];
    let opponent = match (&other.player, other.spec.is_bot()) {
        (Some(p), _) => p.to_json(kind),
        (None, true) => json!({"name": other.spec.bot, "rating": null, "deviation": null,
            "rank": null, "bot": true}),
        (None, false) => Value::Null,
    };
    let summary = room.summary();
    json!({
        "id": room.id,
        "url": format!("/g/{}", room.id),
        "seat": room.seat_names()[seat],
        "opponent": opponent,
        "settings": crate::game::settings::settings_json(&room.settings, room.rated),
        "status": room.status(),
        "result": summary["result"],
    })
}

/// Whether every seat of `room` is taken (none still open to join): the game has started.
pub fn all_seated(room: &Room) -> bool {
    room.seats
        .iter()
        .all(|s| s.spec.kind != "open" || s.token_hash.is_some())
}

impl AccountEvents {
    /// Sends `{"type": kind, "game": GAMEINFO}` to each account seated in `room`
    /// (`gameStart`, `gameFinish`).
    pub fn announce(&self, room: &Room, kind: &str) {
        for (i, s) in room.seats.iter().enumerate() {
            if let Some(p) = &s.player {
                if self.listeners(&p.id) > 0 {
                    self.publish(&p.id, json!({"type": kind, "game": game_info(room, i)}));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_event_reaches_the_accounts_listeners_only() {
        let ev = AccountEvents::default();
        let mut a = ev.subscribe("a");
        let mut b = ev.subscribe("b");
        ev.publish("a", json!({"type": "challenge"}));
        ev.publish("nobody", json!({"type": "lost"}));
        assert_eq!(a.try_recv().unwrap()["type"], "challenge");
        assert!(b.try_recv().is_err());
        assert_eq!(ev.listeners("a"), 1);
        drop(a);
        ev.publish("a", json!({"type": "gone"}));
        assert_eq!(ev.listeners("a"), 0);
    }
}
