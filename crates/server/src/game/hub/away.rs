//! An account's time zone or vacation changed: the loaded games it sits in take the new one, so
//! their correspondence clocks stop or run again and their deadlines move at once.

use super::*;
use crate::store::types::Away;

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
}
