//! Challenges in the database (`challenges`, migration 0014): one row each, from asking to
//! its answer, and the counts the limits read.

use crate::game::hub::now_ms;
use crate::game::room::{ActError, Settings};
use crate::players::accounts::storage;
use crate::store::{Store, StoreError};
use serde_json::Value;
use sqlx::Row;

/// A challenge as stored.
#[derive(Clone, Debug)]
pub struct Challenge {
    /// Its id (the link is `/c/ID`).
    pub id: String,
    /// The account that asked.
    pub challenger_id: String,
    /// The account asked; None: open to anyone with the link.
    pub to_id: Option<String>,
    /// The game's settings.
    pub settings: Settings,
    /// Rated.
    pub rated: bool,
    /// The challenger's colour: `black`, `white` or `random`.
    pub colour: String,
    /// `open`, `accepted`, `declined` or `canceled`.
    pub status: String,
    /// The game an accepted challenge made.
    pub game_id: Option<String>,
    /// A decline's reason: `{"code", "text"}`.
    pub reason: Option<Value>,
    /// The finished game this is a rematch of.
    pub rematch_of: Option<String>,
    /// When it was made (ms).
    pub created_at: i64,
    /// When an open one lapses (ms).
    pub expires_at: i64,
}

impl Challenge {
    /// Still open to an answer at `now` (not answered, not lapsed).
    pub fn is_open(&self, now: i64) -> bool {
        self.status == "open" && self.expires_at > now
    }
}

fn e(x: sqlx::Error) -> ActError {
    storage(StoreError::from(x))
}

const COLUMNS: &str =
    "id, challenger_id, to_id, settings, rated, colour, status, game_id, reason, \
                       rematch_of, created_at, expires_at";

fn of_row(r: &sqlx::any::AnyRow) -> Result<Challenge, ActError> {
    let settings: String = r.try_get(3).map_err(e)?;
    let reason: Option<String> = r.try_get(8).map_err(e)?;
    Ok(Challenge {
        id: r.try_get(0).map_err(e)?,
        challenger_id: r.try_get(1).map_err(e)?,
        to_id: r.try_get(2).map_err(e)?,
        settings: serde_json::from_str(&settings)
            .map_err(|x| ActError::internal(format!("a stored challenge's settings: {x}")))?,
        rated: r.try_get::<i64, _>(4).map_err(e)? != 0,
        colour: r.try_get(5).map_err(e)?,
        status: r.try_get(6).map_err(e)?,
        game_id: r.try_get(7).map_err(e)?,
        reason: reason.and_then(|t| serde_json::from_str(&t).ok()),
        rematch_of: r.try_get(9).map_err(e)?,
        created_at: r.try_get(10).map_err(e)?,
        expires_at: r.try_get(11).map_err(e)?,
    })
}

/// Stores a new open challenge, made by the client `client` (a hash).
pub async fn insert(store: &Store, c: &Challenge, client: &str) -> Result<(), ActError> {
    sqlx::query(
        "INSERT INTO challenges (id, challenger_id, to_id, settings, rated, colour, status, client, \
         rematch_of, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $9, $10)",
    )
    .bind(&c.id)
    .bind(&c.challenger_id)
    .bind(&c.to_id)
    .bind(serde_json::to_string(&c.settings).expect("settings serialise"))
    .bind(c.rated as i64)
    .bind(&c.colour)
    .bind(client)
    .bind(&c.rematch_of)
    .bind(c.created_at)
    .bind(c.expires_at)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(())
}

/// The challenge `id`, if there is one.
pub async fn load(store: &Store, id: &str) -> Result<Option<Challenge>, ActError> {
    if id.is_empty() || id.len() > 40 {
        return Ok(None);
    }
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM challenges WHERE id = $1"))
        .bind(id)
        .fetch_optional(&store.pool)
        .await
        .map_err(e)?;
    row.as_ref().map(of_row).transpose()
}

/// The open challenges to (`incoming`) or from an account, oldest first (at most 100).
pub async fn open_of(
    store: &Store,
    account: &str,
    incoming: bool,
) -> Result<Vec<Challenge>, ActError> {
    let col = if incoming { "to_id" } else { "challenger_id" };
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM challenges WHERE {col} = $1 AND status = 'open' AND expires_at > $2 \
         ORDER BY created_at, id LIMIT 100"
    ))
    .bind(account)
    .bind(now_ms())
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter().map(of_row).collect()
}

/// Open challenges made by the account (`by_client` false) or by the client hash.
pub async fn open_count(store: &Store, who: &str, by_client: bool) -> Result<i64, ActError> {
    let col = if by_client { "client" } else { "challenger_id" };
    let n: i64 = sqlx::query(&format!(
        "SELECT COUNT(*) FROM challenges WHERE {col} = $1 AND status = 'open' AND expires_at > $2"
    ))
    .bind(who)
    .bind(now_ms())
    .fetch_one(&store.pool)
    .await
    .map_err(e)?
    .try_get(0)
    .map_err(e)?;
    Ok(n)
}

/// When `to` last declined a challenge of `from` after `since` (ms), if it did.
pub async fn declined_since(
    store: &Store,
    from: &str,
    to: &str,
    since: i64,
) -> Result<Option<i64>, ActError> {
    let row = sqlx::query(
        "SELECT closed_at FROM challenges WHERE challenger_id = $1 AND to_id = $2 \
         AND status = 'declined' AND closed_at > $3 ORDER BY closed_at DESC LIMIT 1",
    )
    .bind(from)
    .bind(to)
    .bind(since)
    .fetch_optional(&store.pool)
    .await
    .map_err(e)?;
    row.map(|r| r.try_get::<i64, _>(0).map_err(e)).transpose()
}

/// Closes an open challenge as `status` (`declined` with its reason, `canceled`); false if
/// it was no longer open.
pub async fn close(
    store: &Store,
    id: &str,
    status: &str,
    reason: Option<&Value>,
) -> Result<bool, ActError> {
    let now = now_ms();
    let done = sqlx::query(
        "UPDATE challenges SET status = $1, reason = $2, closed_at = $3 \
         WHERE id = $4 AND status = 'open' AND expires_at > $3",
    )
    .bind(status)
    .bind(reason.map(Value::to_string))
    .bind(now)
    .bind(id)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(done.rows_affected() == 1)
}

/// Marks an open challenge accepted by `by` with the game `game` (made next); false if it was
/// no longer open (another answer came first: no challenge makes two games).
pub async fn take(store: &Store, id: &str, by: &str, game: &str) -> Result<bool, ActError> {
    let now = now_ms();
    // `accepting` until its game exists ([`made`]): no reader sees a game id before the game.
    let done = sqlx::query(
        "UPDATE challenges SET status = 'accepting', to_id = $1, game_id = $2, closed_at = $3 \
         WHERE id = $4 AND status = 'open' AND expires_at > $3",
    )
    .bind(by)
    .bind(game)
    .bind(now)
    .bind(id)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(done.rows_affected() == 1)
}

/// A taken challenge's game exists: the challenge is accepted.
pub async fn made(store: &Store, id: &str) -> Result<(), ActError> {
    sqlx::query("UPDATE challenges SET status = 'accepted' WHERE id = $1 AND status = 'accepting'")
        .bind(id)
        .execute(&store.writer)
        .await
        .map_err(e)?;
    Ok(())
}

/// Opens a taken challenge again (its game could not be made), as it was.
pub async fn untake(store: &Store, c: &Challenge) {
    let r = sqlx::query(
        "UPDATE challenges SET status = 'open', to_id = $1, game_id = NULL, closed_at = NULL \
         WHERE id = $2",
    )
    .bind(&c.to_id)
    .bind(&c.id)
    .execute(&store.writer)
    .await;
    if let Err(x) = r {
        tracing::warn!("challenge {}: could not be opened again: {x}", c.id);
    }
}

/// A bot's ACCEPTS as stored (None: it said nothing yet).
pub async fn bot_accepts(store: &Store, account: &str) -> Result<Option<String>, ActError> {
    let row = sqlx::query("SELECT bot_accepts FROM accounts WHERE id = $1")
        .bind(account)
        .fetch_optional(&store.pool)
        .await
        .map_err(e)?;
    Ok(row
        .map(|r| r.try_get::<Option<String>, _>(0).map_err(e))
        .transpose()?
        .flatten())
}

/// The games the account holds a seat in that are not finished (oldest first, at most 200).
pub async fn unfinished_games(store: &Store, account: &str) -> Result<Vec<String>, ActError> {
    let rows = sqlx::query(
        "SELECT g.id FROM seats s JOIN games g ON g.id = s.game_id \
         WHERE s.account_id = $1 AND g.status IN ('open', 'live') ORDER BY g.created_at, g.id LIMIT 200",
    )
    .bind(account)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter()
        .map(|r| r.try_get::<String, _>(0).map_err(e))
        .collect()
}

/// How long an answered challenge is kept (its link still says what became of it), ms.
pub const KEPT_MS: i64 = 7 * 24 * 3_600_000;

/// Closes lapsed open challenges and forgets answered ones older than [`KEPT_MS`].
pub async fn sweep(store: &Store) {
    let now = now_ms();
    let lapsed = sqlx::query(
        "UPDATE challenges SET status = 'canceled', closed_at = $1 \
         WHERE status = 'open' AND expires_at <= $1",
    )
    .bind(now)
    .execute(&store.writer)
    .await;
    let old = sqlx::query("DELETE FROM challenges WHERE status <> 'open' AND closed_at < $1")
        .bind(now - KEPT_MS)
        .execute(&store.writer)
        .await;
    // A challenge left `accepting` by a process that stopped while making its game: accepted
    // if the game was made, else canceled (its challenger may ask again).
    let stuck = now - ACCEPTING_MS;
    let made = sqlx::query(
        "UPDATE challenges SET status = 'accepted' WHERE status = 'accepting' AND closed_at < $1 \
         AND game_id IN (SELECT id FROM games)",
    )
    .bind(stuck)
    .execute(&store.writer)
    .await;
    let lost = sqlx::query(
        "UPDATE challenges SET status = 'canceled', game_id = NULL \
         WHERE status = 'accepting' AND closed_at < $1",
    )
    .bind(stuck)
    .execute(&store.writer)
    .await;
    for r in [lapsed, old, made, lost] {
        if let Err(x) = r {
            tracing::warn!("challenge sweep failed: {x}");
        }
    }
}

/// How long a challenge may stay `accepting` (its game being made) before the sweep settles it.
pub const ACCEPTING_MS: i64 = 60_000;
