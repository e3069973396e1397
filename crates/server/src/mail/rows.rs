//! The SQL of email (one schema for SQLite and PostgreSQL, migration 0017): addresses,
//! preferences, one-time tokens (their hash only) and the outbox.

use crate::game::hub::{new_id, new_token};
use crate::players::accounts::secret_hash;
use crate::store::{Store, StoreError};
use serde_json::{json, Value};
use sqlx::Row;

/// What a token is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Verifies the address it was sent to (24 h, once).
    Verify,
    /// Sets a new password (1 h, once).
    Reset,
    /// Turns one kind of notification off (one click, any number of times).
    Unsubscribe,
}

impl Purpose {
    fn name(self) -> &'static str {
        match self {
            Purpose::Verify => "verify",
            Purpose::Reset => "reset",
            Purpose::Unsubscribe => "unsubscribe",
        }
    }
}

/// What a live token names: its account, the address (verify) or the kind (unsubscribe).
#[derive(Clone, Debug)]
pub struct Taken {
    /// The account it was made for.
    pub account_id: String,
    /// The address a verification token was sent to.
    pub email: Option<String>,
    /// The notification kind an unsubscribe token turns off.
    pub kind: Option<String>,
}

/// One mail to queue.
#[derive(Clone, Debug)]
pub struct Mail {
    /// The account it is for, if any.
    pub account_id: Option<String>,
    /// The address it goes to.
    pub to: String,
    /// Its subject line.
    pub subject: String,
    /// Its plain-text body.
    pub body: String,
    /// The one-click unsubscribe URL (`List-Unsubscribe`), for notifications.
    pub unsubscribe: Option<String>,
}

/// The notification kinds an account chooses, as the API names them.
pub const KINDS: [&str; 4] = ["your_move", "game_start", "clock_low", "challenge"];

/// An account's address and whether it is verified.
pub async fn address_of(
    store: &Store,
    account_id: &str,
) -> Result<(Option<String>, bool), StoreError> {
    let row = sqlx::query("SELECT email, email_verified FROM accounts WHERE id = $1")
        .bind(account_id)
        .fetch_optional(&store.pool)
        .await?;
    Ok(match row {
        Some(r) => (r.try_get(0)?, r.try_get::<i64, _>(1)? != 0),
        None => (None, false),
    })
}

/// Sets (or clears) an account's address, unverified.
pub async fn set_address(
    store: &Store,
    account_id: &str,
    email: Option<&str>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE accounts SET email = $1, email_key = $2, email_verified = 0 WHERE id = $3")
        .bind(email)
        .bind(email.map(str::to_lowercase))
        .bind(account_id)
        .execute(&store.writer)
        .await?;
    Ok(())
}

/// Marks the account's address verified if it is still `email`; false otherwise. A first
/// verification gets the default preferences.
pub async fn verify_address(
    store: &Store,
    account_id: &str,
    email: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE accounts SET email_verified = 1 WHERE id = $1 AND email = $2")
        .bind(account_id)
        .bind(email)
        .execute(&store.writer)
        .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO mail_prefs (account_id, your_move_hours) VALUES ($1, 24) \
         ON CONFLICT (account_id) DO NOTHING",
    )
    .bind(account_id)
    .execute(&store.writer)
    .await?;
    Ok(true)
}

/// The accounts whose verified address is `email` (any letter case), at most a few: (id,
/// name, the address as stored).
pub async fn accounts_at(
    store: &Store,
    email: &str,
) -> Result<Vec<(String, String, String)>, StoreError> {
    let rows = sqlx::query(
        "SELECT id, name, email FROM accounts WHERE email_key = $1 AND email_verified = 1 \
         AND guest = 0 LIMIT 5",
    )
    .bind(email.to_lowercase())
    .fetch_all(&store.pool)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
        .collect()
}

/// A fresh token for `purpose`, valid `ttl_ms` from `now`; returns the token (kept: its hash).
pub async fn new_link(
    store: &Store,
    account_id: &str,
    purpose: Purpose,
    email: Option<&str>,
    kind: Option<&str>,
    now: i64,
    ttl_ms: i64,
) -> Result<String, StoreError> {
    let token = new_token();
    sqlx::query(
        "INSERT INTO mail_tokens (token_hash, account_id, purpose, email, kind, created_at, \
         expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(secret_hash(&token))
    .bind(account_id)
    .bind(purpose.name())
    .bind(email)
    .bind(kind)
    .bind(now)
    .bind(now + ttl_ms)
    .execute(&store.writer)
    .await?;
    Ok(token)
}

/// Tokens of `purpose` made for an account since `since` (the rate of links it is sent).
pub async fn links_since(
    store: &Store,
    account_id: &str,
    purpose: Purpose,
    since: i64,
) -> Result<i64, StoreError> {
    Ok(sqlx::query(
        "SELECT COUNT(*) FROM mail_tokens WHERE account_id = $1 AND purpose = $2 \
         AND created_at >= $3",
    )
    .bind(account_id)
    .bind(purpose.name())
    .bind(since)
    .fetch_one(&store.pool)
    .await?
    .try_get(0)?)
}

/// What a live token of `purpose` names; a one-time token (verify, reset) is used up by this
/// call. None for a token unknown, used, expired or of another purpose: all refused alike.
pub async fn take(
    store: &Store,
    token: &str,
    purpose: Purpose,
    now: i64,
) -> Result<Option<Taken>, StoreError> {
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    let hash = secret_hash(&token.to_ascii_lowercase());
    if purpose != Purpose::Unsubscribe {
        let done = sqlx::query(
            "UPDATE mail_tokens SET used_at = $1 WHERE token_hash = $2 AND purpose = $3 \
             AND used_at IS NULL AND expires_at > $1",
        )
        .bind(now)
        .bind(&hash)
        .bind(purpose.name())
        .execute(&store.writer)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(None);
        }
    }
    let row = sqlx::query(
        "SELECT account_id, email, kind FROM mail_tokens WHERE token_hash = $1 AND purpose = $2 \
         AND expires_at > $3",
    )
    .bind(&hash)
    .bind(purpose.name())
    .bind(if purpose == Purpose::Unsubscribe {
        now
    } else {
        i64::MIN
    })
    .fetch_optional(&store.writer)
    .await?;
    let Some(r) = row else { return Ok(None) };
    Ok(Some(Taken {
        account_id: r.try_get(0)?,
        email: r.try_get(1)?,
        kind: r.try_get(2)?,
    }))
}

/// Uses up every live token of `purpose` of an account (a reset ends the other reset links).
pub async fn spend_all(
    store: &Store,
    account_id: &str,
    purpose: Purpose,
    now: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE mail_tokens SET used_at = $1 WHERE account_id = $2 AND purpose = $3 \
         AND used_at IS NULL",
    )
    .bind(now)
    .bind(account_id)
    .bind(purpose.name())
    .execute(&store.writer)
    .await?;
    Ok(())
}

/// Sets an account's password hash (a reset); false for no such named account.
pub async fn set_password(store: &Store, account_id: &str, hash: &str) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE accounts SET password_hash = $1 WHERE id = $2 AND guest = 0")
        .bind(hash)
        .bind(account_id)
        .execute(&store.writer)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Queues a mail to be sent by the worker from `now` on.
pub async fn enqueue(store: &Store, mail: &Mail, now: i64) -> Result<String, StoreError> {
    let id = new_id();
    sqlx::query(
        "INSERT INTO mail_outbox (id, account_id, to_addr, subject, body, unsubscribe, \
         created_at, attempts, next_try_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $7)",
    )
    .bind(&id)
    .bind(&mail.account_id)
    .bind(&mail.to)
    .bind(&mail.subject)
    .bind(&mail.body)
    .bind(&mail.unsubscribe)
    .bind(now)
    .execute(&store.writer)
    .await?;
    Ok(id)
}

/// An account's notification choices as the API shows them (the defaults when it has none).
pub async fn prefs(store: &Store, account_id: &str) -> Result<Value, StoreError> {
    let row = sqlx::query(
        "SELECT your_move_hours, game_start, clock_low, challenge, digest FROM mail_prefs \
         WHERE account_id = $1",
    )
    .bind(account_id)
    .fetch_optional(&store.pool)
    .await?;
    let Some(r) = row else {
        return Ok(
            json!({"your_move": 24, "game_start": true, "clock_low": true,
            "challenge": true, "digest": false}),
        );
    };
    let on = |i: usize| -> Result<bool, sqlx::Error> { Ok(r.try_get::<i64, _>(i)? != 0) };
    Ok(json!({
        "your_move": r.try_get::<Option<i64>, _>(0)?,
        "game_start": on(1)?, "clock_low": on(2)?, "challenge": on(3)?, "digest": on(4)?,
    }))
}

/// An account's notification choices, as checked by the handler.
#[derive(Clone, Copy, Debug)]
pub struct Prefs {
    /// Mail "your move" after this many hours (None: never).
    pub your_move_hours: Option<i64>,
    /// Mail when a game of the account starts.
    pub game_start: bool,
    /// Mail when a correspondence clock falls under a day.
    pub clock_low: bool,
    /// Mail when the account is challenged.
    pub challenge: bool,
    /// One mail a day with all of them instead.
    pub digest: bool,
}

/// Stores an account's notification choices.
pub async fn set_prefs(store: &Store, account_id: &str, p: &Prefs) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO mail_prefs (account_id, your_move_hours, game_start, clock_low, challenge, \
         digest) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id) DO UPDATE SET \
         your_move_hours = $2, game_start = $3, clock_low = $4, challenge = $5, digest = $6",
    )
    .bind(account_id)
    .bind(p.your_move_hours)
    .bind(p.game_start as i64)
    .bind(p.clock_low as i64)
    .bind(p.challenge as i64)
    .bind(p.digest as i64)
    .execute(&store.writer)
    .await?;
    Ok(())
}

/// Turns one kind of notification off (`all`: every kind and the digest).
pub async fn unsubscribe(store: &Store, account_id: &str, kind: &str) -> Result<(), StoreError> {
    let set = match kind {
        "your_move" => "your_move_hours = NULL",
        "game_start" => "game_start = 0",
        "clock_low" => "clock_low = 0",
        "challenge" => "challenge = 0",
        _ => "your_move_hours = NULL, game_start = 0, clock_low = 0, challenge = 0, digest = 0",
    };
    sqlx::query(&format!(
        "UPDATE mail_prefs SET {set} WHERE account_id = $1"
    ))
    .bind(account_id)
    .execute(&store.writer)
    .await?;
    Ok(())
}
