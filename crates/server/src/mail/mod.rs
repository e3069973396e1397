//! Owns: email: an account's address and its verification (this file), "forgot password"
//! (`password`), the notifications sweep (`sweep`), the outbox and its sender (`send`), their SQL
//! (`rows`). May use: `players` (accounts, sessions, password hashes), `state`, `config`, `game`
//! and `store`. Never `crate::http`, `crate::botapi` or `crate::challenges` (it reads the
//! challenges' table, not their code).
//!
//! Every mail is queued in the database and sent by a background worker with retries and
//! backoff (never on a request's path); with no `--smtp` email is off and nothing is queued.
//! docs/api.md, "Email".

pub mod password;
pub mod rows;
pub mod send;
pub mod sweep;

use crate::config::MailConfig;
use crate::game::hub::now_ms;
use crate::game::room::ActError;
use crate::mail::rows::{Mail, Prefs, Purpose};
use crate::players::{accounts, tokens, Auth};
use crate::state::{parse_json as parse, AppState};
use crate::store::{Store, StoreError};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// An hour in ms.
pub const HOUR_MS: i64 = 3_600_000;
/// How long a verification link works (ms): a day.
pub const VERIFY_MS: i64 = 24 * HOUR_MS;
/// Verification mails one account may be sent an hour.
pub const VERIFY_PER_HOUR: i64 = 5;
/// The longest address taken (RFC 5321's path limit).
pub const ADDRESS_MAX: usize = 254;
/// "Your move" mails wait at most this many hours.
pub const YOUR_MOVE_HOURS_MAX: i64 = 168;

/// The routes of email and password reset (under the API's rate limit and identity layer).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/mail", get(status))
        .route("/api/mail/email", put(set_email).delete(clear_email))
        .route("/api/mail/verify", post(verify))
        .route("/api/mail/prefs", put(set_prefs))
        .route("/api/mail/unsubscribe/{token}", post(unsubscribe))
        .route("/api/password/forgot", post(password::forgot))
        .route("/api/password/reset", post(password::reset))
}

/// Checks the mail settings before the server starts (a bad `--smtp` or `--mail-from`).
pub fn check(cfg: &MailConfig) -> Result<(), String> {
    if let Some(url) = cfg.smtp.as_deref().filter(|s| !s.is_empty()) {
        send::transport(url)?;
        send::sender(cfg)?;
    }
    Ok(())
}

/// Starts the background sweep (each minute) and sender (every 5 s) when email is on and the
/// configuration does not leave them to its caller.
pub fn spawn(store: Store, cfg: Arc<MailConfig>) {
    if !cfg.enabled() || cfg.manual {
        return;
    }
    let (s, c) = (store.clone(), cfg.clone());
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            if let Err(e) = send::send_due(&s, &c, now_ms()).await {
                tracing::warn!("mail: the outbox could not be read: {e}");
            }
        }
    });
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let base = cfg.public_url.clone().unwrap_or_default();
        let mut n = 0u64;
        loop {
            every.tick().await;
            if let Err(e) = sweep::sweep(&store, &base, now_ms()).await {
                tracing::warn!("mail: the notifications sweep failed: {e}");
            }
            // Once an hour: expired tokens and old rows go.
            if n.is_multiple_of(60) {
                if let Err(e) = sweep::forget_old(&store, now_ms()).await {
                    tracing::warn!("mail: old rows could not be forgotten: {e}");
                }
            }
            n += 1;
        }
    });
}

/// The public base URL of the links in mails (no trailing `/`).
pub(crate) fn base(st: &AppState) -> String {
    st.mail
        .public_url
        .as_deref()
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string()
}

/// 500 for a failed store (nothing was changed).
pub(crate) fn storage(e: StoreError) -> ActError {
    accounts::storage(e)
}

/// 409 `mail.off`: the server has no SMTP server (`--smtp`): nothing is sent or queued.
pub fn mail_off() -> ActError {
    ActError::conflict("email is off on this server (it has no --smtp): nothing was sent")
        .with_code("mail.off", Value::Null)
}

/// 400 `mail.token`: a link unknown, used or expired (all alike).
pub fn bad_link() -> ActError {
    ActError::bad_request("this link is unknown, used or expired; ask for a new one")
        .with_code("mail.token", Value::Null)
}

/// An email address as typed, checked (at most 254 bytes, one `@`, a domain); 400
/// `mail.address` otherwise.
pub fn address(raw: &str) -> Result<String, ActError> {
    let a = raw.trim();
    let bad = || {
        ActError::bad_request(format!(
            "email: an address like name@example.org, at most {ADDRESS_MAX} characters"
        ))
        .with_code("mail.address", json!({"max": ADDRESS_MAX}))
    };
    if a.is_empty() || a.len() > ADDRESS_MAX || a.chars().any(|c| c.is_control() || c == ' ') {
        return Err(bad());
    }
    let parsed: lettre::Address = a.parse().map_err(|_| bad())?;
    if !parsed.domain().contains('.') {
        return Err(bad());
    }
    Ok(a.to_string())
}

/// The signed-in person's account for an email setting: a session, not a guest.
fn owner(auth: &Auth) -> Result<&accounts::Identity, ActError> {
    let who = tokens::by_session(auth)?;
    if who.account.guest {
        return Err(ActError::forbidden(
            "guests have no email: sign up first (a guest has no password to reset)",
        )
        .with_code("mail.guest", Value::Null));
    }
    Ok(who)
}

/// What `GET /api/mail` shows of an account: its address, whether verified, its choices.
async fn shown(st: &AppState, account_id: &str) -> Result<Value, ActError> {
    let store = &st.hub.store;
    let (email, verified) = rows::address_of(store, account_id).await.map_err(storage)?;
    let prefs = rows::prefs(store, account_id).await.map_err(storage)?;
    Ok(
        json!({"enabled": st.mail.enabled(), "email": email, "verified": verified,
        "prefs": prefs}),
    )
}

/// `GET /api/mail`: whether email is on; signed in, the account's address and choices too.
async fn status(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    match &auth.who {
        Some(who) if !who.account.guest => Ok(Json(shown(&st, &who.account.id).await?)),
        _ => Ok(Json(json!({"enabled": st.mail.enabled()}))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewAddress {
    email: String,
}

/// `PUT /api/mail/email {"email"}`: sets the account's address (unverified) and queues the
/// verification link (24 h, once). 202.
async fn set_email(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    body: Bytes,
) -> Result<Response, ActError> {
    let who = owner(&auth)?;
    let req: NewAddress = parse(&body)?;
    if !st.mail.enabled() {
        return Err(mail_off());
    }
    let email = address(&req.email)?;
    let store = &st.hub.store;
    let now = now_ms();
    let id = &who.account.id;
    let sent = rows::links_since(store, id, Purpose::Verify, now - HOUR_MS)
        .await
        .map_err(storage)?;
    if sent >= VERIFY_PER_HOUR {
        return Err(ActError::new(
            429,
            format!("at most {VERIFY_PER_HOUR} verification mails an hour; try again later"),
        )
        .with_code("mail.rate", json!({"per_hour": VERIFY_PER_HOUR})));
    }
    rows::set_address(store, id, Some(&email))
        .await
        .map_err(storage)?;
    let token = rows::new_link(
        store,
        id,
        Purpose::Verify,
        Some(&email),
        None,
        now,
        VERIFY_MS,
    )
    .await
    .map_err(storage)?;
    let base = base(&st);
    let mail = Mail {
        account_id: Some(id.clone()),
        to: email,
        subject: "baduk: verify your email address".into(),
        body: format!(
            "Hello {},\n\nto use this address for your baduk account, open\n\
             {base}/mail/verify#{token}\n\nThe link works once, for 24 hours. If you did not \
             ask for it, ignore this mail.\n",
            who.account.name
        ),
        unsubscribe: None,
    };
    rows::enqueue(store, &mail, now).await.map_err(storage)?;
    Ok((StatusCode::ACCEPTED, Json(shown(&st, id).await?)).into_response())
}

/// `DELETE /api/mail/email`: forgets the account's address (nothing is mailed any more).
async fn clear_email(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let who = owner(&auth)?;
    rows::set_address(&st.hub.store, &who.account.id, None)
        .await
        .map_err(storage)?;
    Ok(Json(shown(&st, &who.account.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkToken {
    token: String,
}

/// `POST /api/mail/verify {"token"}`: the address the link was sent to is verified (if it is
/// still the account's). A link guessed, used or expired: 400 `mail.token`.
async fn verify(State(st): State<AppState>, body: Bytes) -> Result<Json<Value>, ActError> {
    let req: LinkToken = parse(&body)?;
    let store = &st.hub.store;
    let taken = rows::take(store, &req.token, Purpose::Verify, now_ms())
        .await
        .map_err(storage)?
        .ok_or_else(bad_link)?;
    let email = taken.email.unwrap_or_default();
    if !rows::verify_address(store, &taken.account_id, &email)
        .await
        .map_err(storage)?
    {
        return Err(bad_link());
    }
    Ok(Json(json!({"email": email, "verified": true})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrefsBody {
    your_move: Option<i64>,
    game_start: bool,
    clock_low: bool,
    challenge: bool,
    digest: bool,
}

/// `PUT /api/mail/prefs`: which notifications the account is mailed (`your_move` after 1 to
/// 168 hours or null for never) and whether in one daily digest. 400 `mail.prefs` otherwise.
async fn set_prefs(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = owner(&auth)?;
    let req: PrefsBody = parse(&body)?;
    if req
        .your_move
        .is_some_and(|h| !(1..=YOUR_MOVE_HOURS_MAX).contains(&h))
    {
        return Err(ActError::bad_request(format!(
            "your_move: after 1 to {YOUR_MOVE_HOURS_MAX} hours, or null for never"
        ))
        .with_code("mail.prefs", json!({"min": 1, "max": YOUR_MOVE_HOURS_MAX})));
    }
    let p = Prefs {
        your_move_hours: req.your_move,
        game_start: req.game_start,
        clock_low: req.clock_low,
        challenge: req.challenge,
        digest: req.digest,
    };
    rows::set_prefs(&st.hub.store, &who.account.id, &p)
        .await
        .map_err(storage)?;
    Ok(Json(shown(&st, &who.account.id).await?))
}

/// `POST /api/mail/unsubscribe/{token}` (the one-click `List-Unsubscribe` URL, any body): that
/// kind of mail stops. A link guessed or expired: 400 `mail.token`.
async fn unsubscribe(
    State(st): State<AppState>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ActError> {
    let store = &st.hub.store;
    let taken = rows::take(store, &token, Purpose::Unsubscribe, now_ms())
        .await
        .map_err(storage)?
        .ok_or_else(bad_link)?;
    let kind = taken.kind.unwrap_or_else(|| "all".into());
    rows::unsubscribe(store, &taken.account_id, &kind)
        .await
        .map_err(storage)?;
    Ok(Json(json!({"kind": kind})))
}
