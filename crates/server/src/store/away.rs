//! What stops an account's correspondence clocks, as stored (migration 0016): its time zone and
//! its vacations, with the vacation bank that accrues a day a week up to a cap.

use super::types::{Away, Player};
use super::{Store, StoreError};
use sqlx::Row;

/// A day in ms.
const DAY_MS: i64 = 86_400_000;
/// The bank accrues [`VACATION_ACCRUAL_MS`] every this long.
pub const VACATION_EVERY_MS: i64 = 7 * DAY_MS;
/// What the bank gains each [`VACATION_EVERY_MS`].
pub const VACATION_ACCRUAL_MS: i64 = DAY_MS;
/// The most the bank holds.
pub const VACATION_MAX_MS: i64 = 30 * DAY_MS;
/// The least a vacation takes from the bank (turning on with less is refused).
pub const VACATION_MIN_MS: i64 = 3_600_000;
/// The most vacations a game's seat is loaded with (the latest ones).
const VACATIONS_LOADED: i64 = 200;

/// An account's vacation as it stands at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vacation {
    /// The bank now (while on: what it held when the vacation began, less nothing yet).
    pub bank_ms: i64,
    /// The running vacation's start and end (its bank runs out then), if one runs.
    pub running: Option<(i64, i64)>,
    /// The account's time zone, in minutes east of UTC.
    pub tz_min: i32,
}

/// The bank `bank` as of `at` after accruing up to `now`: (bank, new `at`).
fn accrue(bank: i64, at: i64, now: i64) -> (i64, i64) {
    let weeks = ((now - at) / VACATION_EVERY_MS).max(0);
    (
        (bank + weeks * VACATION_ACCRUAL_MS).min(VACATION_MAX_MS),
        at + weeks * VACATION_EVERY_MS,
    )
}

/// What a vacation from `since` ending by `until` (its bank's end) took when stopped at `now`.
fn used(since: i64, until: i64, now: i64) -> i64 {
    (now.min(until) - since).max(VACATION_MIN_MS.min(until - since))
}

/// An account's vacation columns: bank, accrual time, the running vacation's start, tz.
type Row4 = (i64, i64, Option<i64>, i32);

/// What the vacation columns become at `now` when the vacation is turned on or off (`on`), or
/// only looked at (None): a vacation whose bank ran out ended then.
struct Step {
    /// The bank to store, and its accrual time.
    bank: i64,
    at: i64,
    /// The vacation as it then stands.
    vacation: Vacation,
    /// A vacation that ended: its start and end.
    closed: Option<(i64, i64)>,
    /// A vacation that began: its start and the end its bank gives it.
    opened: Option<(i64, i64)>,
}

fn step((mut bank, mut at, since, tz_min): Row4, on: Option<bool>, now: i64) -> Step {
    let mut s = Step {
        bank,
        at,
        vacation: Vacation {
            bank_ms: bank,
            running: None,
            tz_min,
        },
        closed: None,
        opened: None,
    };
    if let Some(start) = since {
        let end = start + bank;
        if end > now && on != Some(false) {
            s.vacation.running = Some((start, end));
            return s;
        }
        // Ends by itself when its bank is spent, or now when it is turned off.
        let took = used(start, end, now);
        s.closed = Some((start, start + took));
        bank -= took;
    }
    (bank, at) = accrue(bank, at, now);
    (s.bank, s.at, s.vacation.bank_ms) = (bank, at, bank);
    if on == Some(true) && bank >= VACATION_MIN_MS {
        s.opened = Some((now, now + bank));
        s.vacation.running = s.opened;
    }
    s
}

impl Store {
    /// `account`'s time zone and latest vacations (oldest first).
    pub async fn away_of(&self, account: &str) -> Result<Away, StoreError> {
        let tz: Option<i64> = sqlx::query("SELECT tz FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_optional(self.read())
            .await?
            .map(|r| r.try_get(0))
            .transpose()?;
        let rows = sqlx::query(
            "SELECT started_at, ended_at FROM vacations WHERE account_id = $1 \
             ORDER BY started_at DESC LIMIT $2",
        )
        .bind(account)
        .bind(VACATIONS_LOADED)
        .fetch_all(self.read())
        .await?;
        let mut vacations = rows
            .iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<Vec<(i64, i64)>, sqlx::Error>>()?;
        vacations.reverse();
        Ok(Away {
            tz_min: tz.unwrap_or(0) as i32,
            vacations,
        })
    }

    /// Fills in the time zones and vacations of a game's players.
    pub(crate) async fn fill_away(&self, players: &mut [Option<Player>]) -> Result<(), StoreError> {
        for p in players.iter_mut().flatten() {
            p.away = self.away_of(&p.id).await?;
        }
        Ok(())
    }

    /// The vacation columns of `account`: (bank, its accrual time, the running one's start, tz).
    async fn vacation_row<'e, E: sqlx::Executor<'e, Database = sqlx::Any>>(
        ex: E,
        account: &str,
    ) -> Result<Row4, StoreError> {
        let r = sqlx::query(
            "SELECT vacation_ms, COALESCE(vacation_at, created_at), vacation_since, tz \
             FROM accounts WHERE id = $1",
        )
        .bind(account)
        .fetch_one(ex)
        .await?;
        Ok((
            r.try_get(0)?,
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get::<i64, _>(3)? as i32,
        ))
    }

    /// `account`'s vacation at `now` (nothing written).
    pub async fn vacation(&self, account: &str, now: i64) -> Result<Vacation, StoreError> {
        let row = Self::vacation_row(self.read(), account).await?;
        Ok(step(row, None, now).vacation)
    }

    /// Turns `account`'s vacation on or off at `now` and returns it; turning on with less than
    /// [`VACATION_MIN_MS`] in the bank leaves it off, turning on or off again changes nothing.
    pub async fn set_vacation(
        &self,
        account: &str,
        on: bool,
        now: i64,
    ) -> Result<Vacation, StoreError> {
        let mut tx = self.write().begin().await?;
        let row = Self::vacation_row(&mut *tx, account).await?;
        let s = step(row, Some(on), now);
        if let Some((start, end)) = s.closed {
            sqlx::query(
                "UPDATE vacations SET ended_at = $3 WHERE account_id = $1 AND started_at = $2",
            )
            .bind(account)
            .bind(start)
            .bind(end)
            .execute(&mut *tx)
            .await?;
        }
        if let Some((start, end)) = s.opened {
            sqlx::query(
                "INSERT INTO vacations (account_id, started_at, ended_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (account_id, started_at) DO UPDATE SET ended_at = excluded.ended_at",
            )
            .bind(account)
            .bind(start)
            .bind(end)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(
            "UPDATE accounts SET vacation_ms = $2, vacation_at = $3, vacation_since = $4 \
             WHERE id = $1",
        )
        .bind(account)
        .bind(s.bank)
        .bind(s.at)
        .bind(s.vacation.running.map(|r| r.0))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(s.vacation)
    }

    /// Sets `account`'s time zone (minutes east of UTC).
    pub async fn set_tz(&self, account: &str, tz_min: i32) -> Result<(), StoreError> {
        sqlx::query("UPDATE accounts SET tz = $2 WHERE id = $1")
            .bind(account)
            .bind(tz_min as i64)
            .execute(self.write())
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bank_accrues_a_day_a_whole_week_up_to_thirty_days() {
        assert_eq!(accrue(0, 0, VACATION_EVERY_MS - 1), (0, 0));
        assert_eq!(
            accrue(0, 0, 3 * VACATION_EVERY_MS + 5),
            (3 * DAY_MS, 3 * VACATION_EVERY_MS)
        );
        assert_eq!(
            accrue(29 * DAY_MS, 0, 52 * VACATION_EVERY_MS).0,
            VACATION_MAX_MS
        );
    }

    #[test]
    fn a_vacation_takes_at_least_an_hour_and_at_most_its_bank() {
        assert_eq!(used(0, DAY_MS, 60_000), VACATION_MIN_MS);
        assert_eq!(used(0, DAY_MS, 2 * DAY_MS), DAY_MS);
        assert_eq!(used(0, DAY_MS, 5 * VACATION_MIN_MS), 5 * VACATION_MIN_MS);
    }
}
