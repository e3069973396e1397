//! The games' schedule columns read and moved outside an action: the due games the clock sweep
//! loads, and the games of an account whose end may have moved (a vacation turned on or off).

use super::{Store, StoreError};
use sqlx::Row;

impl Store {
    /// Makes the clock sweep look again at every unfinished game where `account` holds a seat
    /// (its `wake_at` set to `now`; an early look is always safe).
    pub async fn wake_games_of(&self, account: &str, now: i64) -> Result<u64, StoreError> {
        self.counted_write();
        let done = sqlx::query(
            "UPDATE games SET wake_at = $2 WHERE status IN ('open', 'live') \
             AND id IN (SELECT game_id FROM seats WHERE account_id = $1)",
        )
        .bind(account)
        .bind(now)
        .execute(self.write())
        .await?;
        Ok(done.rows_affected())
    }

    /// Stores game `id`'s schedule as its room computes it now (after a wake that found
    /// nothing due: a vacation or a time zone may have moved its deadline).
    pub async fn set_schedule(
        &self,
        id: &str,
        s: &super::types::Schedule,
    ) -> Result<(), StoreError> {
        self.counted_write();
        sqlx::query(
            "UPDATE games SET to_move = $2, turn_since = $3, deadline = $4, wake_at = $5 \
             WHERE id = $1",
        )
        .bind(id)
        .bind(s.to_move.as_deref())
        .bind(s.turn_since)
        .bind(s.deadline)
        .bind(s.wake_at)
        .execute(self.write())
        .await?;
        Ok(())
    }

    /// Unfinished games due at `now` (`wake_at <= now`) that `owner` owns, the soonest first,
    /// `limit` at most. Served by the `wake_at` index.
    pub async fn due_games(
        &self,
        now: i64,
        owner: &str,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        self.counted_select();
        let rows = sqlx::query(
            "SELECT id FROM games WHERE wake_at <= $1 AND status IN ('open', 'live') \
             AND owner = $3 ORDER BY wake_at LIMIT $2",
        )
        .bind(now)
        .bind(limit)
        .bind(owner)
        .fetch_all(self.read())
        .await?;
        rows.iter()
            .map(|r| r.try_get::<String, _>(0).map_err(Into::into))
            .collect()
    }
}

impl Store {
    /// The stored schedule of game `id` (None: no such game).
    pub async fn schedule_of(
        &self,
        id: &str,
    ) -> Result<Option<super::types::Schedule>, StoreError> {
        self.counted_select();
        let row =
            sqlx::query("SELECT to_move, turn_since, deadline, wake_at FROM games WHERE id = $1")
                .bind(id)
                .fetch_optional(self.read())
                .await?;
        row.map(|r| {
            Ok(super::types::Schedule {
                to_move: r.try_get(0)?,
                turn_since: r.try_get(1)?,
                deadline: r.try_get(2)?,
                wake_at: r.try_get(3)?,
            })
        })
        .transpose()
    }
}
