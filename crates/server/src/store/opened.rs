//! Which client opened which game, for the cap on a client's unstarted games: in the database,
//! so the cap holds across the cluster's processes (migration 0009).

use super::{Store, StoreError};
use sqlx::Row;

impl Store {
    /// How many games `client` (a hash of its address) opened that are still open.
    pub async fn open_games_of(&self, client: &str) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) FROM opened_games o JOIN games g ON g.id = o.game_id \
             WHERE o.client = $1 AND g.status = 'open'",
        )
        .bind(client)
        .fetch_one(self.read())
        .await?;
        Ok(row.try_get::<i64, _>(0)?)
    }

    /// Notes that `client` opened game `id` (once).
    pub async fn note_opened(&self, id: &str, client: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO opened_games (game_id, client) VALUES ($1, $2) \
             ON CONFLICT (game_id, client) DO NOTHING",
        )
        .bind(id)
        .bind(client)
        .execute(self.write())
        .await?;
        Ok(())
    }
}
