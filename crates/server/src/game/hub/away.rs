//! An account's time zone or vacation changed: the loaded games it sits in take the new one, so
//! their correspondence clocks stop or run again and their deadlines move at once.

use super::*;
use crate::store::types::{is_correspondence, Away};

impl Hub {
    /// Gives every loaded game `account_id` sits in its new time zone and vacations: the clock
    /// sweep's next look and the watchers' state follow.
    pub async fn away_changed(&self, account_id: &str, away: &Away) {
        for h in self.handles() {
            let mut room = h.room.lock().await;
            if room.set_away(account_id, away) {
                h.room.set_due(&room);
                let _ = h.tx.send(state_message(&room));
            }
        }
    }

    /// Reads again the time zones and vacations of a correspondence game's accounts before its
    /// clock is judged (a process that did not load it may have changed them: it only woke
    /// the game); the watchers get the state if they changed.
    pub(super) async fn refresh_away(&self, h: &Handle, room: &mut Room) {
        if !is_correspondence(&room.settings) {
            return;
        }
        let ids: Vec<String> = room
            .seats
            .iter()
            .filter_map(|s| s.player.as_ref())
            .map(|p| p.id.clone())
            .collect();
        let mut changed = false;
        for id in ids {
            match self.store.away_of(&id).await {
                Ok(away) => changed |= room.set_away(&id, &away),
                Err(e) => tracing::warn!("game {}: vacations not read: {e}", room.id),
            }
        }
        if changed {
            let _ = h.tx.send(state_message(room));
        }
    }
}
