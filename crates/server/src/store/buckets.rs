//! The cluster-wide rate buckets of the security-critical budgets (migration 0012): one row a
//! budget and client holding its GCRA time, taken from by one atomic upsert, so N processes
//! grant one burst between them, not one each.

use super::{Store, StoreError};
use sqlx::Row;

impl Store {
    /// Takes one from the bucket of `client` in `budget` (GCRA: one every `every_ms`, at most
    /// `burst` at once) at `now` (ms): None when granted, else how long (ms) until one is.
    pub async fn take_from_bucket(
        &self,
        budget: &str,
        client: &str,
        now: i64,
        every_ms: i64,
        burst: i64,
    ) -> Result<Option<i64>, StoreError> {
        let every = every_ms.max(1);
        let tolerance = every.saturating_mul(burst.max(1));
        // The row is locked by the upsert: two processes taking at once are serialised, and
        // the condition is read again on the row as the first left it.
        let granted = sqlx::query(
            "INSERT INTO rate_buckets (budget, client, tat) VALUES ($1, $2, $3 + $4) \
             ON CONFLICT (budget, client) DO UPDATE SET tat = \
             (CASE WHEN rate_buckets.tat > $3 THEN rate_buckets.tat ELSE $3 END) + $4 \
             WHERE (CASE WHEN rate_buckets.tat > $3 THEN rate_buckets.tat ELSE $3 END) + $4 \
             <= $3 + $5 RETURNING tat",
        )
        .bind(budget)
        .bind(client)
        .bind(now)
        .bind(every)
        .bind(tolerance)
        .fetch_optional(self.write())
        .await?;
        if granted.is_some() {
            return Ok(None);
        }
        let tat: i64 =
            sqlx::query("SELECT tat FROM rate_buckets WHERE budget = $1 AND client = $2")
                .bind(budget)
                .bind(client)
                .fetch_optional(self.read())
                .await?
                .map(|r| r.try_get(0))
                .transpose()?
                .unwrap_or(now);
        Ok(Some((tat.max(now) + every - now - tolerance).max(1)))
    }

    /// Deletes the buckets that are full again (their time passed before `now`): the table
    /// holds only the clients of the last burst's length.
    pub async fn forget_full_buckets(&self, now: i64) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM rate_buckets WHERE tat < $1")
            .bind(now)
            .execute(self.write())
            .await?;
        Ok(done.rows_affected())
    }
}
