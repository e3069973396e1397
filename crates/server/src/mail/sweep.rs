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

/// The game (`g`, its side to move an account: not over) has another account seated: an
/// opponent to wait for (not an open seat nobody took yet, not a server bot).
const OPPONENT: &str = "EXISTS (SELECT 1 FROM seats o WHERE o.game_id = g.id \
    AND o.account_id IS NOT NULL AND o.account_id <> g.to_move)";

/// What a game's turn is noted by (`g` the game): its id and when the turn began.
const TURN: &str = "g.id || ':' || CAST(g.turn_since AS TEXT)";

/// The notification kinds and the query that finds those due at `$1` (at most `$2`), each
/// row `(key, game or challenge id, detail, account id, address, digest)`; not yet noted, for a
/// verified address, of a kind the account chose.
fn queries() -> [(&'static str, String); 4] {
    let not_sent = |kind: &str, key: &str| {
        format!(
            "a.email_verified = 1 AND NOT EXISTS (SELECT 1 FROM mail_sent m \
             WHERE m.account_id = a.id AND m.kind = '{kind}' AND m.subject = {key}) LIMIT $2"
        )
    };
    let to_move = "FROM games g JOIN accounts a ON a.id = g.to_move \
        JOIN mail_prefs p ON p.account_id = a.id";
    [
        // It has been the account's move for the hours it chose.
        (
            "your_move",
            format!(
                "SELECT {TURN}, g.id, CAST(p.your_move_hours AS TEXT), a.id, a.email, p.digest \
                 {to_move} WHERE p.your_move_hours IS NOT NULL AND {OPPONENT} \
                 AND g.turn_since IS NOT NULL \
                 AND g.turn_since + p.your_move_hours * 3600000 <= $1 AND {}",
                not_sent("your_move", TURN)
            ),
        ),
        // Under a day left on a long clock (one that had a day or more when the turn began),
        // the turn an hour old at least (not a live game's player at the board).
        (
            "clock_low",
            format!(
                "SELECT {TURN}, g.id, '', a.id, a.email, p.digest {to_move} \
                 WHERE p.clock_low = 1 AND {OPPONENT} AND g.deadline IS NOT NULL \
                 AND g.turn_since IS NOT NULL AND g.deadline > $1 \
                 AND g.deadline <= $1 + 86400000 AND g.deadline - g.turn_since >= 86400000 \
                 AND g.turn_since <= $1 - 3600000 AND {}",
                not_sent("clock_low", TURN)
            ),
        ),
        // A game of the account, with another account seated, began in the last day while it
        // was away.
        (
            "game_start",
            format!(
                "SELECT g.id, g.id, '', a.id, a.email, p.digest FROM games g \
                 JOIN seats s ON s.game_id = g.id JOIN accounts a ON a.id = s.account_id \
                 JOIN mail_prefs p ON p.account_id = a.id \
                 WHERE g.status IN ('open', 'live') AND g.created_at >= $1 - 86400000 \
                 AND EXISTS (SELECT 1 FROM seats o WHERE o.game_id = g.id \
                   AND o.account_id IS NOT NULL AND o.account_id <> a.id) \
                 AND p.game_start = 1 AND a.seen_at < g.created_at AND {}",
                not_sent("game_start", "g.id")
            ),
        ),
        // A challenge received (open, made in the last day) while the account was away.
        (
            "challenge",
            format!(
                "SELECT c.id, c.id, f.name, a.id, a.email, p.digest FROM challenges c \
                 JOIN accounts a ON a.id = c.to_id JOIN accounts f ON f.id = c.challenger_id \
                 JOIN mail_prefs p ON p.account_id = a.id \
                 WHERE c.status = 'open' AND c.expires_at > $1 \
                 AND c.created_at >= $1 - 86400000 AND p.challenge = 1 \
                 AND a.seen_at < c.created_at AND {}",
                not_sent("challenge", "c.id")
            ),
        ),
    ]
}

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
    for (kind, sql) in queries() {
        let rows = sqlx::query(&sql)
            .bind(now)
            .bind(BATCH)
            .fetch_all(&store.pool)
            .await?;
        for r in rows {
            let (id, detail): (String, String) = (r.try_get(1)?, r.try_get(2)?);
            let (subject, text) = match kind {
                "your_move" => (
                    "Your move".to_string(),
                    format!(
                        "It has been your move for {detail} hours or more in game {base}/g/{id}"
                    ),
                ),
                "clock_low" => (
                    "Less than a day left on your clock".to_string(),
                    format!("Less than 24 hours are left on your clock in game {base}/g/{id}"),
                ),
                "game_start" => (
                    "Your game has started".to_string(),
                    format!("A game of yours has started: {base}/g/{id}"),
                ),
                _ => (
                    format!("{detail} challenges you"),
                    format!("{detail} challenges you to a game: {base}/c/{id}"),
                ),
            };
            found.push(Found {
                subject_key: r.try_get(0)?,
                account_id: r.try_get(3)?,
                email: r.try_get(4)?,
                digest: r.try_get::<i64, _>(5)? != 0,
                kind,
                subject,
                text,
            });
        }
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

/// How long the notes of notifications sent are kept (ms): longer than any turn they are about.
pub const KEEP_SENT_MS: i64 = 90 * DAY_MS;
/// How long mails sent (or given up) stay in the outbox (ms).
pub const KEEP_OUTBOX_MS: i64 = 30 * DAY_MS;

/// Forgets what is no longer of use at `now`: expired tokens, old notes of notifications sent,
/// old mails of the outbox that were sent or given up.
pub async fn forget_old(store: &Store, now: i64) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM mail_tokens WHERE expires_at < $1")
        .bind(now - DAY_MS)
        .execute(&store.writer)
        .await?;
    sqlx::query("DELETE FROM mail_sent WHERE at < $1 AND digested = 1")
        .bind(now - KEEP_SENT_MS)
        .execute(&store.writer)
        .await?;
    sqlx::query(
        "DELETE FROM mail_outbox WHERE created_at < $1 AND (sent_at IS NOT NULL OR attempts >= $2)",
    )
    .bind(now - KEEP_OUTBOX_MS)
    .bind(crate::mail::send::MAX_ATTEMPTS)
    .execute(&store.writer)
    .await?;
    Ok(())
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
