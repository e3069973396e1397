//! The notifications sweep: what happened that an account chose to be mailed about, found in
//! the database alone (the schedule columns `games.to_move`, `turn_since` and `deadline`,
//! `seats.account_id`, `challenges`), so it works whichever process made the change and needs
//! no hook in the game's path. Each notification is noted in `mail_sent` first (once: its key is
//! the account, the kind and what it is about), then queued, or kept for the daily digest.
//! Only verified addresses are mailed.

use crate::mail::rows::{self, Mail, Purpose};
use crate::store::{Store, StoreError};
use sqlx::Row;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;
/// How long an unsubscribe link works (ms): a year.
pub const UNSUBSCRIBE_MS: i64 = 365 * DAY_MS;
/// Notifications of one kind one sweep finds at most (the rest wait for the next sweep).
const BATCH: i64 = 500;

/// One notification found: who, about what, the text.
struct Found {
    account_id: String,
    email: String,
    digest: bool,
    kind: &'static str,
    subject_key: String,
    subject: String,
    text: String,
}

/// Runs one sweep at `now` (ms): notes and queues every notification due, and the digests due.
/// `base` is the public URL the links start with. Returns how many notifications it found.
pub async fn sweep(store: &Store, base: &str, now: i64) -> Result<usize, StoreError> {
    let base = base.trim_end_matches('/');
    let mut found = Vec::new();
    // It has been the account's move for the hours it chose.
    let rows = sqlx::query(
        "SELECT g.id, g.turn_since, a.id, a.email, p.digest, p.your_move_hours \
         FROM games g JOIN accounts a ON a.id = g.to_move \
         JOIN mail_prefs p ON p.account_id = a.id \
         WHERE g.status = 'live' AND a.email_verified = 1 AND p.your_move_hours IS NOT NULL \
         AND g.turn_since IS NOT NULL AND g.turn_since + p.your_move_hours * 3600000 <= $1 \
         AND NOT EXISTS (SELECT 1 FROM mail_sent m WHERE m.account_id = a.id \
           AND m.kind = 'your_move' AND m.subject = g.id || ':' || CAST(g.turn_since AS TEXT)) \
         LIMIT $2",
    )
    .bind(now)
    .bind(BATCH)
    .fetch_all(&store.pool)
    .await?;
    for r in rows {
        let (game, since): (String, i64) = (r.try_get(0)?, r.try_get(1)?);
        let hours: i64 = r.try_get(5)?;
        found.push(Found {
            account_id: r.try_get(2)?,
            email: r.try_get(3)?,
            digest: r.try_get::<i64, _>(4)? != 0,
            kind: "your_move",
            subject_key: format!("{game}:{since}"),
            subject: "Your move".into(),
            text: format!(
                "It has been your move for {hours} hours or more in game {base}/g/{game}"
            ),
        });
    }
    // Under a day left on a long clock (one that had a day or more when the turn began), the
    // turn an hour old at least (not a live game's player at the board).
    let rows = sqlx::query(
        "SELECT g.id, g.turn_since, a.id, a.email, p.digest FROM games g \
         JOIN accounts a ON a.id = g.to_move JOIN mail_prefs p ON p.account_id = a.id \
         WHERE g.status = 'live' AND a.email_verified = 1 AND p.clock_low = 1 \
         AND g.deadline IS NOT NULL AND g.turn_since IS NOT NULL AND g.deadline > $1 \
         AND g.deadline <= $1 + 86400000 AND g.deadline - g.turn_since >= 86400000 \
         AND g.turn_since <= $1 - 3600000 \
         AND NOT EXISTS (SELECT 1 FROM mail_sent m WHERE m.account_id = a.id \
           AND m.kind = 'clock_low' AND m.subject = g.id || ':' || CAST(g.turn_since AS TEXT)) \
         LIMIT $2",
    )
    .bind(now)
    .bind(BATCH)
    .fetch_all(&store.pool)
    .await?;
    for r in rows {
        let (game, since): (String, i64) = (r.try_get(0)?, r.try_get(1)?);
        found.push(Found {
            account_id: r.try_get(2)?,
            email: r.try_get(3)?,
            digest: r.try_get::<i64, _>(4)? != 0,
            kind: "clock_low",
            subject_key: format!("{game}:{since}"),
            subject: "Less than a day left on your clock".into(),
            text: format!("Less than 24 hours are left on your clock in game {base}/g/{game}"),
        });
    }
    // A game of the account started (in the last day) while it was away.
    let rows = sqlx::query(
        "SELECT g.id, a.id, a.email, p.digest FROM games g JOIN seats s ON s.game_id = g.id \
         JOIN accounts a ON a.id = s.account_id JOIN mail_prefs p ON p.account_id = a.id \
         WHERE g.status = 'live' AND g.created_at >= $1 - 86400000 AND a.email_verified = 1 \
         AND p.game_start = 1 AND a.seen_at < g.created_at \
         AND NOT EXISTS (SELECT 1 FROM mail_sent m WHERE m.account_id = a.id \
           AND m.kind = 'game_start' AND m.subject = g.id) LIMIT $2",
    )
    .bind(now)
    .bind(BATCH)
    .fetch_all(&store.pool)
    .await?;
    for r in rows {
        let game: String = r.try_get(0)?;
        found.push(Found {
            account_id: r.try_get(1)?,
            email: r.try_get(2)?,
            digest: r.try_get::<i64, _>(3)? != 0,
            kind: "game_start",
            subject_key: game.clone(),
            subject: "Your game has started".into(),
            text: format!("A game of yours has started: {base}/g/{game}"),
        });
    }
    // A challenge received (open, made in the last day) while the account was away.
    let rows = sqlx::query(
        "SELECT c.id, f.name, a.id, a.email, p.digest FROM challenges c \
         JOIN accounts a ON a.id = c.to_id JOIN accounts f ON f.id = c.challenger_id \
         JOIN mail_prefs p ON p.account_id = a.id \
         WHERE c.status = 'open' AND c.expires_at > $1 AND c.created_at >= $1 - 86400000 \
         AND a.email_verified = 1 AND p.challenge = 1 AND a.seen_at < c.created_at \
         AND NOT EXISTS (SELECT 1 FROM mail_sent m WHERE m.account_id = a.id \
           AND m.kind = 'challenge' AND m.subject = c.id) LIMIT $2",
    )
    .bind(now)
    .bind(BATCH)
    .fetch_all(&store.pool)
    .await?;
    for r in rows {
        let (id, from): (String, String) = (r.try_get(0)?, r.try_get(1)?);
        found.push(Found {
            account_id: r.try_get(2)?,
            email: r.try_get(3)?,
            digest: r.try_get::<i64, _>(4)? != 0,
            kind: "challenge",
            subject_key: id.clone(),
            subject: format!("{from} challenges you"),
            text: format!("{from} challenges you to a game: {base}/c/{id}"),
        });
    }
    let n = found.len();
    for f in found {
        // Noted first: a notification is never queued twice, by this process or another.
        let fresh = sqlx::query(
            "INSERT INTO mail_sent (account_id, kind, subject, text, at, digested) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        )
        .bind(&f.account_id)
        .bind(f.kind)
        .bind(&f.subject_key)
        .bind(&f.text)
        .bind(now)
        .bind(if f.digest { 0i64 } else { 1 })
        .execute(&store.writer)
        .await?;
        if fresh.rows_affected() != 1 || f.digest {
            continue;
        }
        let (unsubscribe, link) =
            unsubscribe_links(store, base, &f.account_id, f.kind, now).await?;
        let body = format!(
            "{}\n\n{}\n\n-- \nTo stop these mails ({}), open {link}\nor choose on {base}/me\n",
            f.text,
            "(baduk)",
            f.kind.replace('_', " ")
        );
        let mail = Mail {
            account_id: Some(f.account_id),
            to: f.email,
            subject: format!("baduk: {}", f.subject),
            body,
            unsubscribe: Some(unsubscribe),
        };
        rows::enqueue(store, &mail, now).await?;
    }
    digests(store, base, now).await?;
    Ok(n)
}

/// A fresh unsubscribe token's two links: the one-click POST URL (`List-Unsubscribe`) and the
/// page the mail's text links to.
async fn unsubscribe_links(
    store: &Store,
    base: &str,
    account_id: &str,
    kind: &str,
    now: i64,
) -> Result<(String, String), StoreError> {
    let token = rows::new_link(
        store,
        account_id,
        Purpose::Unsubscribe,
        None,
        Some(kind),
        now,
        UNSUBSCRIBE_MS,
    )
    .await?;
    Ok((
        format!("{base}/api/mail/unsubscribe/{token}"),
        format!("{base}/mail/unsubscribe#{token}"),
    ))
}

/// Queues the daily digest of every account that chose it, has notifications waiting, and
/// had none for a day.
async fn digests(store: &Store, base: &str, now: i64) -> Result<(), StoreError> {
    let rows = sqlx::query(
        "SELECT p.account_id, p.digest_at, a.email FROM mail_prefs p \
         JOIN accounts a ON a.id = p.account_id \
         WHERE p.digest = 1 AND p.digest_at <= $1 AND a.email_verified = 1 \
         AND EXISTS (SELECT 1 FROM mail_sent m WHERE m.account_id = p.account_id \
           AND m.digested = 0) LIMIT $2",
    )
    .bind(now - DAY_MS)
    .bind(BATCH)
    .fetch_all(&store.pool)
    .await?;
    for r in rows {
        let (account, was, email): (String, i64, String) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        // Taken by one sweep only.
        let claim = sqlx::query(
            "UPDATE mail_prefs SET digest_at = $1 WHERE account_id = $2 AND digest_at = $3",
        )
        .bind(now)
        .bind(&account)
        .bind(was)
        .execute(&store.writer)
        .await?;
        if claim.rows_affected() != 1 {
            continue;
        }
        let items = sqlx::query(
            "SELECT text FROM mail_sent WHERE account_id = $1 AND digested = 0 AND at <= $2 \
             ORDER BY at LIMIT 200",
        )
        .bind(&account)
        .bind(now)
        .fetch_all(&store.writer)
        .await?;
        sqlx::query(
            "UPDATE mail_sent SET digested = 1 WHERE account_id = $1 AND digested = 0 AND at <= $2",
        )
        .bind(&account)
        .bind(now)
        .execute(&store.writer)
        .await?;
        let mut body = String::from("Since the last digest:\n\n");
        for i in &items {
            body.push_str("- ");
            body.push_str(&i.try_get::<String, _>(0)?);
            body.push('\n');
        }
        let (unsubscribe, link) = unsubscribe_links(store, base, &account, "all", now).await?;
        body.push_str(&format!(
            "\n-- \nTo stop every notification mail, open {link}\nor choose on {base}/me\n"
        ));
        let mail = Mail {
            account_id: Some(account),
            to: email,
            subject: format!("baduk: your daily digest ({})", items.len()),
            body,
            unsubscribe: Some(unsubscribe),
        };
        rows::enqueue(store, &mail, now).await?;
    }
    Ok(())
}
