//! Appending an action: the version and owner check, the row, the game's schedule and lobby
//! line in one UPDATE, a rated game's end in the same transaction, and the event for the other
//! processes (alone, or queued for the group commit in `group.rs`).

use super::types::Schedule;
use super::{
    group, payload, ActionRow, InTransaction, RatingChange, RatingUpdate, Store, StoreError,
};
use sqlx::Row;

impl Store {
    /// Appends one action if the game is still at `row.seq - 1` stored actions and `owner`
    /// still owns it; otherwise [`StoreError::Conflict`] (or [`StoreError::Fenced`]) and
    /// nothing changes.
    pub async fn append(
        &self,
        id: &str,
        row: &ActionRow,
        status: &str,
        summary: &str,
        owner: &str,
    ) -> Result<(), StoreError> {
        self.append_rated(
            id,
            row,
            (status, summary, &Schedule::default()),
            None,
            owner,
        )
        .await
        .map(|_| ())
    }

    /// [`Store::append`], and when `rated` is given (a rated game's last action) the players'
    /// new ratings in the same transaction; returns the rating changes. The lease check (the
    /// game's `owner` is `owner`) is part of the same UPDATE: a node that lost the game stores
    /// nothing.
    pub async fn append_rated(
        &self,
        id: &str,
        row: &ActionRow,
        (status, summary, schedule): (&str, &str, &Schedule),
        rated: Option<&dyn RatingUpdate>,
        owner: &str,
    ) -> Result<Vec<RatingChange>, StoreError> {
        // Actions of several games that arrive together share one transaction (group commit,
        // with each one's event on PostgreSQL); each is answered once its batch committed.
        if let (Some(tx), None) = (&self.batcher, rated) {
            let (done, answer) = tokio::sync::oneshot::channel();
            let job = group::AppendJob {
                id: id.to_string(),
                row: row.clone(),
                status: status.to_string(),
                summary: summary.to_string(),
                schedule: schedule.clone(),
                owner: owner.to_string(),
                done,
            };
            if tx.send(job).is_ok() {
                return match answer.await {
                    Ok(r) => r.map(|()| Vec::new()),
                    Err(_) => Err(StoreError::Db("the group commit stopped".into())),
                };
            }
        }
        self.append_alone(id, row, (status, summary, schedule), rated, owner)
            .await
    }

    /// One action in its own transaction (PostgreSQL, a rated game's end, or a batch that
    /// failed and is retried one action at a time).
    pub(super) async fn append_alone(
        &self,
        id: &str,
        row: &ActionRow,
        line: (&str, &str, &Schedule),
        rated: Option<&dyn RatingUpdate>,
        owner: &str,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let mut tx = self.write().begin().await?;
        self.append_in(&mut tx, id, row, line, owner).await??;
        let changes = match rated {
            Some(end) => {
                end.apply(InTransaction {
                    tx: &mut tx,
                    postgres: self.postgres,
                    game_id: id,
                    now: row.at,
                })
                .await?
            }
            None => Vec::new(),
        };
        // The event carries the action itself: the other processes apply it without reading
        // the game. A rated game's end carries rating changes too: those are read again.
        match payload::action_payload(id, row).filter(|_| rated.is_none()) {
            Some(payload) => self.notify_payload(&mut tx, &payload).await?,
            None => self.notify(&mut tx, id).await?,
        }
        tx.commit().await.map_err(|e| match &e {
            sqlx::Error::Database(d) if d.is_unique_violation() => StoreError::Conflict,
            _ => e.into(),
        })?;
        Ok(changes)
    }

    /// The statements of one action inside `tx`: the version and owner check, then the row.
    /// The inner error is a refusal that changed nothing (another action first, or the game
    /// moved); the outer one leaves the transaction unusable (roll it back).
    pub(super) async fn append_in(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        id: &str,
        row: &ActionRow,
        (status, summary, schedule): (&str, &str, &Schedule),
        owner: &str,
    ) -> Result<Result<(), StoreError>, StoreError> {
        let done = sqlx::query(
            "UPDATE games SET version = $1, status = $2, summary = $3, updated_at = $4, \
             to_move = $8, turn_since = $9, deadline = $10, wake_at = $11 \
             WHERE id = $5 AND version = $6 AND owner = $7",
        )
        .bind(row.seq)
        .bind(status)
        .bind(summary)
        .bind(row.at)
        .bind(id)
        .bind(row.seq - 1)
        .bind(owner)
        .bind(schedule.to_move.as_deref())
        .bind(schedule.turn_since)
        .bind(schedule.deadline)
        .bind(schedule.wake_at)
        .execute(&mut **tx)
        .await?;
        if done.rows_affected() != 1 {
            self.counted_select();
            let now_owner = sqlx::query("SELECT owner FROM games WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?;
            let now_owner: Option<String> = match now_owner {
                Some(r) => r.try_get(0)?,
                None => None,
            };
            return Ok(Err(if now_owner.as_deref() == Some(owner) {
                StoreError::Conflict
            } else {
                StoreError::Fenced
            }));
        }
        let inserted = sqlx::query(
            "INSERT INTO actions (game_id, seq, seat, action, at, auto, clocks) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(id)
        .bind(row.seq)
        .bind(row.seat as i64)
        .bind(&row.action)
        .bind(row.at)
        .bind(row.auto as i64)
        .bind(serde_json::to_string(&row.clocks).expect("clocks serialise"))
        .execute(&mut **tx)
        .await;
        match inserted {
            Ok(_) => Ok(Ok(())),
            // The game's row was updated already: the caller rolls back.
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(StoreError::Conflict),
            Err(e) => Err(e.into()),
        }
    }
}
