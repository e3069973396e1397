//! Conditional moves in the database (`conditional_moves`, migration 0018): a seat's plan of
//! replies (JSON text the game reads), stamped with the game's version it is valid at, and the
//! commit of an opponent's move together with the planned reply and the plan after them.

use super::{RatingUpdate, Store, StoreError};
use crate::store::types::{ActionRow, RatingChange, Schedule};
use sqlx::Row;

/// A seat's plan after a commit: `Some((version, json))` keeps it, None ends it.
pub type PlanAfter<'a> = Option<(i64, &'a str)>;

impl Store {
    /// Stores `seat`'s plan for game `id` at `version` if the game is still there and `owner`
    /// owns it (else [`StoreError::Conflict`] or [`StoreError::Fenced`], nothing stored).
    pub async fn save_plan(
        &self,
        id: &str,
        seat: usize,
        version: i64,
        plan: &str,
        owner: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().begin().await?;
        // The same check as an action's (and on PostgreSQL the game's row stays locked until
        // the commit, so no action slips in between).
        let held = sqlx::query(
            "UPDATE games SET version = version WHERE id = $1 AND version = $2 AND owner = $3",
        )
        .bind(id)
        .bind(version)
        .bind(owner)
        .execute(&mut *tx)
        .await?;
        if held.rows_affected() != 1 {
            let now_owner = sqlx::query("SELECT owner FROM games WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
            let now_owner: Option<String> = match now_owner {
                Some(r) => r.try_get(0)?,
                None => None,
            };
            return Err(if now_owner.as_deref() == Some(owner) {
                StoreError::Conflict
            } else {
                StoreError::Fenced
            });
        }
        put_plan(&mut tx, id, seat, Some((version, plan))).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Deletes `seat`'s plan of game `id` (every seat's with None).
    pub async fn drop_plan(&self, id: &str, seat: Option<usize>) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM conditional_moves WHERE game_id = $1 AND (seat = $2 OR $3 = 1)")
            .bind(id)
            .bind(seat.unwrap_or(0) as i64)
            .bind(seat.is_none() as i64)
            .execute(self.write())
            .await?;
        Ok(())
    }

    /// The plans stored for game `id`: (seat, version, JSON).
    pub async fn plans(&self, id: &str) -> Result<Vec<(usize, i64, String)>, StoreError> {
        let rows =
            sqlx::query("SELECT seat, version, plan FROM conditional_moves WHERE game_id = $1")
                .bind(id)
                .fetch_all(self.read())
                .await?;
        rows.into_iter()
            .map(|r| {
                let seat: i64 = r.try_get(0)?;
                Ok((seat as usize, r.try_get(1)?, r.try_get(2)?))
            })
            .collect()
    }

    /// Stores an opponent's move and the reply `seat` planned for it in one transaction, with
    /// that seat's plan after them (and, at a rated game's end, the ratings); each action is
    /// checked as [`Store::append`] checks one, and `line` is the game's after both. Returns
    /// the rating changes.
    pub async fn append_with_reply(
        &self,
        id: &str,
        rows: [&ActionRow; 2],
        line: (&str, &str, &Schedule),
        plan: (usize, PlanAfter<'_>),
        rated: Option<&dyn RatingUpdate>,
        owner: &str,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let mut tx = self.write().begin().await?;
        for row in rows {
            self.append_in(&mut tx, id, row, line, owner).await??;
        }
        put_plan(&mut tx, id, plan.0, plan.1).await?;
        self.end_append(tx, id, &rows, rated).await
    }
}

/// Replaces (or with None deletes) `seat`'s plan inside `tx`.
async fn put_plan(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    seat: usize,
    plan: PlanAfter<'_>,
) -> Result<(), StoreError> {
    match plan {
        Some((version, text)) => {
            sqlx::query(
                "INSERT INTO conditional_moves (game_id, seat, version, plan) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (game_id, seat) DO UPDATE SET version = excluded.version, plan = excluded.plan",
            )
            .bind(id)
            .bind(seat as i64)
            .bind(version)
            .bind(text)
            .execute(&mut **tx)
            .await?;
        }
        None => {
            sqlx::query("DELETE FROM conditional_moves WHERE game_id = $1 AND seat = $2")
                .bind(id)
                .bind(seat as i64)
                .execute(&mut **tx)
                .await?;
        }
    }
    Ok(())
}
