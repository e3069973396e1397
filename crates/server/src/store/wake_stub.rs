//! A stand-in for the schedule branch's `Store::wake_games_of` until it lands (migration 0015).

use super::{Store, StoreError};

impl Store {
    /// Makes the clock sweep look again at every game `account_id` sits in (stand-in: the sweep
    /// looks at every loaded game already).
    pub async fn wake_games_of(&self, account_id: &str, now: i64) -> Result<(), StoreError> {
        let _ = (account_id, now);
        Ok(())
    }
}
