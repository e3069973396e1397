//! Time as every process counts it (the database's clock, kept in `store::time` and re-exported
//! here), the heartbeat that tells an outage, and the clock sweep of the games this process owns.

use super::*;

pub use crate::store::time::{local_ms, now_ms, set_clock_offset};

/// Heartbeats are written this often (ms); a gap of more than [`OUTAGE_MS`] without one is an
/// outage, whose time is charged to nobody.
pub const HEARTBEAT_MS: i64 = 2_000;
/// The shortest gap between heartbeats that counts as an outage (no process was running).
pub const OUTAGE_MS: i64 = 5_000;
/// The most due games one call of [`Hub::wake_due`] loads.
pub const WAKE_BATCH: i64 = 500;

impl Hub {
    /// Applies every clock that has run out in the games this process owns.
    pub async fn sweep_clocks(self: &Arc<Self>) {
        let now = now_ms();
        for h in self.handles() {
            if !h.owned() {
                continue;
            }
            // Not due yet and untouched since the last look, or busy: the next sweep looks.
            let Some(mut room) = h.room.lock_if_due(now) else {
                continue;
            };
            if let Some((seat, action)) = room.timeout_action(now) {
                if let Err(e) = self
                    .commit(&h, &mut room, seat, &action, now, Origin::Clock)
                    .await
                {
                    tracing::debug!("game {}: timeout not stored here: {e}", room.id);
                }
            }
            h.room.set_due(&room);
        }
    }

    /// Wakes the stored games this process owns whose `wake_at` has come (a clock or policy
    /// end, a bot to move), loading those not in memory: their end is then applied by
    /// [`Hub::sweep_clocks`] and their bot starts. One that is not due (its `wake_at` was early)
    /// gets its true one stored. At most [`WAKE_BATCH`] a call, the soonest first.
    pub async fn wake_due(self: &Arc<Self>) {
        let now = now_ms();
        let due = match self
            .store
            .due_games(now, &self.cluster.node, WAKE_BATCH)
            .await
        {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!("due games not read: {e}");
                return;
            }
        };
        for id in due {
            let h = match self.get(&id).await {
                Ok(h) => h,
                Err(e) => {
                    tracing::warn!("game {id}: due but not loaded: {e}");
                    continue;
                }
            };
            self.metrics.woken.fetch_add(1, Ordering::Relaxed);
            if !h.owned() || h.bot_thinking() {
                continue;
            }
            let mut room = h.room.lock().await;
            self.refresh_away(&h, &mut room).await;
            let now = now_ms();
            if let Some((seat, action)) = room.timeout_action(now) {
                if let Err(e) = self
                    .commit(&h, &mut room, seat, &action, now, Origin::Clock)
                    .await
                {
                    tracing::debug!("game {id}: timeout not stored here: {e}");
                }
                continue;
            }
            let schedule = room.schedule();
            if schedule.wake_at.is_none_or(|w| w > now) {
                if let Err(e) = self.store.set_schedule(&id, &schedule).await {
                    tracing::warn!("game {id}: schedule not stored: {e}");
                }
            }
        }
    }

    /// Sends every watched game with a running clock its clocks (once a second).
    pub async fn tick_clocks(&self) {
        let now = now_ms();
        for h in self.handles() {
            if h.tx.receiver_count() == 0 {
                continue;
            }
            let Some(room) = h.room.try_read() else {
                continue;
            };
            if room.deadline().is_none() {
                continue;
            }
            // The clocks alone, never the whole state (its history grows with the game).
            let to_move = room.to_move().map(|s| room.seat_names()[s]);
            let msg = json!({"type": "clock", "clocks": room.clocks_json(now), "to_move": to_move, "now": now});
            let _ = h.tx.send(msg.to_string().into());
        }
    }
}
