//! Memory holds the games in play: finished games leave after their grace for watchers, idle
//! unfinished ones after the idle time (docs/scaling.md, "Games in memory").

use super::*;

impl Hub {
    /// Drops games from memory (they stay in the database): finished ones once their grace
    /// for watchers has passed, and unfinished ones nobody has used for the idle time, that
    /// no socket watches and no bot is thinking for. Their sockets are closed, so no socket
    /// keeps a game alive; an evicted game loads again on its next request, and the clock
    /// sweep finds it by its stored `wake_at`.
    pub async fn evict(&self) {
        let now = now_ms();
        let grace = self.opts.finished_grace_ms;
        let idle = self.opts.idle_game_ms;
        let gone: Vec<(String, Arc<Handle>)> = self
            .handles()
            .into_iter()
            .filter_map(|h| {
                let room = h.room.try_read()?;
                let go = if room.is_over() {
                    now - room.turn_start >= grace
                } else {
                    idle > 0
                        && now - h.used_at.load(Ordering::Relaxed) >= idle
                        && h.sockets.load(Ordering::Relaxed) == 0
                        && h.tx.receiver_count() == 0
                        && h.chat.receiver_count() == 0
                        && !h.bot_thinking()
                        && bot_to_act(&room).is_none()
                };
                let id = room.id.clone();
                drop(room);
                go.then_some((id, h))
            })
            .collect();
        let mut rooms = self.rooms.lock().expect("rooms lock");
        for (id, h) in gone {
            // Only the handle looked at: one loaded again since stays.
            if rooms.get(&id).is_some_and(|x| Arc::ptr_eq(x, &h)) {
                rooms.remove(&id);
                self.metrics.evicted.fetch_add(1, Ordering::Relaxed);
                let _ = h.gone.send(true);
            }
        }
    }
}
