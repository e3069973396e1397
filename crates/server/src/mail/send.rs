//! Sending: the worker takes due mails from `mail_outbox` and hands them to the SMTP server
//! (lettre); a failure leaves the mail queued and tries again later, each time waiting twice as
//! long (1 minute, 2, 4 … at most 6 hours; given up after [`MAX_ATTEMPTS`]). Never on a
//! request's path: a request only queues.

use crate::config::MailConfig;
use crate::mail::rows::Mail;
use crate::store::{Store, StoreError};
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use sqlx::Row;
use std::time::Duration;

/// Tries a mail gets before it is given up (its row stays, with the last error).
pub const MAX_ATTEMPTS: i64 = 12;
/// The first wait after a failure (ms); each further failure doubles it.
pub const FIRST_RETRY_MS: i64 = 60_000;
/// The longest wait between two tries (ms).
pub const MAX_RETRY_MS: i64 = 6 * 3_600_000;
/// How long a mail taken by a sender is left to it before another may try (ms).
const CLAIM_MS: i64 = 5 * 60_000;
/// Mails one round of the worker sends at most.
const BATCH: i64 = 50;

/// The wait before the next try after `attempts` failed ones (ms).
pub fn backoff_ms(attempts: i64) -> i64 {
    let doublings = (attempts - 1).clamp(0, 20) as u32;
    FIRST_RETRY_MS
        .saturating_mul(1i64 << doublings)
        .min(MAX_RETRY_MS)
}

/// The SMTP transport of `url`: `smtp://` tries STARTTLS when the server offers it unless the
/// URL says `?tls=…`; `smtps://` is TLS from the start.
pub fn transport(url: &str) -> Result<AsyncSmtpTransport<Tokio1Executor>, String> {
    let url = url.trim();
    let full = if url.starts_with("smtp://") && !url.contains("tls=") {
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}tls=opportunistic")
    } else {
        url.to_string()
    };
    let b = AsyncSmtpTransport::<Tokio1Executor>::from_url(&full)
        .map_err(|e| format!("--smtp: expected smtp://USER:PASS@HOST:PORT or smtps://…: {e}"))?;
    Ok(b.timeout(Some(Duration::from_secs(20))).build())
}

/// The From mailbox of the server's mails.
pub fn sender(cfg: &MailConfig) -> Result<Mailbox, String> {
    let from = match &cfg.from {
        Some(f) => f.clone(),
        None => {
            let host = cfg
                .smtp
                .as_deref()
                .and_then(|u| u.split_once("://"))
                .map(|(_, rest)| rest.rsplit('@').next().unwrap_or(rest))
                .map(|h| h.split([':', '/', '?']).next().unwrap_or(h))
                .filter(|h| !h.is_empty())
                .unwrap_or("localhost");
            format!("baduk <baduk@{host}>")
        }
    };
    from.parse()
        .map_err(|e| format!("--mail-from: `{from}` is not an address: {e}"))
}

/// The message of a queued mail.
fn message(from: &Mailbox, m: &Mail, id: &str) -> Result<Message, String> {
    let to: Mailbox = m.to.parse().map_err(|e| format!("not an address: {e}"))?;
    let mut b = Message::builder()
        .from(from.clone())
        .to(to)
        .subject(m.subject.clone())
        .message_id(Some(format!("<{id}@{}>", from.email.domain())))
        .header(ContentType::TEXT_PLAIN);
    if let Some(u) = &m.unsubscribe {
        b = b
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe"),
                format!("<{u}>"),
            ))
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                "List-Unsubscribe=One-Click".to_string(),
            ));
    }
    b.body(m.body.clone()).map_err(|e| e.to_string())
}

/// One round of the worker at `now`: sends the mails due (each taken by one sender only, also
/// over a cluster), notes each one sent or its failure and next try. Returns how many were sent.
pub async fn send_due(store: &Store, cfg: &MailConfig, now: i64) -> Result<usize, StoreError> {
    let Some(url) = cfg.smtp.as_deref().filter(|s| !s.is_empty()) else {
        return Ok(0);
    };
    let rows = sqlx::query(
        "SELECT id, account_id, to_addr, subject, body, unsubscribe, attempts, next_try_at \
         FROM mail_outbox WHERE sent_at IS NULL AND next_try_at <= $1 AND attempts < $2 \
         ORDER BY next_try_at LIMIT $3",
    )
    .bind(now)
    .bind(MAX_ATTEMPTS)
    .bind(BATCH)
    .fetch_all(&store.pool)
    .await?;
    if rows.is_empty() {
        return Ok(0);
    }
    let (mailer, from) = match (transport(url), sender(cfg)) {
        (Ok(t), Ok(f)) => (t, f),
        (Err(e), _) | (_, Err(e)) => {
            tracing::warn!("mail: {e}");
            return Ok(0);
        }
    };
    let mut sent = 0;
    for r in rows {
        let id: String = r.try_get(0)?;
        let attempts: i64 = r.try_get(6)?;
        let was: i64 = r.try_get(7)?;
        // Taken: another sender (a process of the cluster, a round still running) leaves it.
        let claim = sqlx::query(
            "UPDATE mail_outbox SET next_try_at = $1 WHERE id = $2 AND next_try_at = $3 \
             AND sent_at IS NULL",
        )
        .bind(now + CLAIM_MS)
        .bind(&id)
        .bind(was)
        .execute(&store.writer)
        .await?;
        if claim.rows_affected() != 1 {
            continue;
        }
        let mail = Mail {
            account_id: r.try_get(1)?,
            to: r.try_get(2)?,
            subject: r.try_get(3)?,
            body: r.try_get(4)?,
            unsubscribe: r.try_get(5)?,
        };
        let outcome = match message(&from, &mail, &id) {
            Ok(msg) => mailer
                .send(msg)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        match outcome {
            Ok(()) => {
                sqlx::query(
                    "UPDATE mail_outbox SET sent_at = $1, attempts = $2, error = NULL WHERE id = $3",
                )
                .bind(now)
                .bind(attempts + 1)
                .bind(&id)
                .execute(&store.writer)
                .await?;
                sent += 1;
            }
            Err(e) => {
                tracing::warn!("mail {id} not sent (try {}): {e}", attempts + 1);
                let e: String = e.chars().take(500).collect();
                sqlx::query(
                    "UPDATE mail_outbox SET attempts = $1, next_try_at = $2, error = $3 WHERE id = $4",
                )
                .bind(attempts + 1)
                .bind(now + backoff_ms(attempts + 1))
                .bind(e)
                .bind(&id)
                .execute(&store.writer)
                .await?;
            }
        }
    }
    Ok(sent)
}

/// A mail of the outbox as the operator (and the tests) see it.
#[derive(Clone, Debug)]
pub struct Queued {
    /// The address it goes to.
    pub to: String,
    /// Its subject line.
    pub subject: String,
    /// Tries made.
    pub attempts: i64,
    /// When it may be tried next (ms).
    pub next_try_at: i64,
    /// When it was sent (ms), if it was.
    pub sent_at: Option<i64>,
    /// Why the last try failed.
    pub error: Option<String>,
}

/// The outbox, oldest mail first (at most 1,000).
pub async fn outbox(store: &Store) -> Result<Vec<Queued>, StoreError> {
    let rows = sqlx::query(
        "SELECT to_addr, subject, attempts, next_try_at, sent_at, error FROM mail_outbox \
         ORDER BY created_at, id LIMIT 1000",
    )
    .fetch_all(&store.pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Queued {
                to: r.try_get(0)?,
                subject: r.try_get(1)?,
                attempts: r.try_get(2)?,
                next_try_at: r.try_get(3)?,
                sent_at: r.try_get(4)?,
                error: r.try_get(5)?,
            })
        })
        .collect()
}
