//! "Forgot password": a reset link mailed to an account's verified address (one hour, once),
//! the same answer whether or not an account has the address; the reset sets the password and
//! ends every session and API token of the account. docs/api.md, "Email".

use crate::game::hub::now_ms;
use crate::game::room::ActError;
use crate::mail::rows::{self, Mail, Purpose};
use crate::mail::{address, bad_link, mail_off, storage, HOUR_MS};
use crate::players::accounts;
use crate::state::limit::ClientKey;
use crate::state::{parse_json as parse, too_many, AppState};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::json;

/// Reset links one account is sent an hour at most (more asks are answered alike, unsent).
pub const RESETS_PER_HOUR: i64 = 3;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Forgot {
    email: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reset {
    token: String,
    password: String,
}

/// `POST /api/password/forgot {"email"}`: 202 whatever the address (a link is queued for each
/// account that has it verified, at most [`RESETS_PER_HOUR`] an hour each).
pub(crate) async fn forgot(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    body: Bytes,
) -> Result<Response, ActError> {
    let req: Forgot = parse(&body)?;
    if !st.mail.enabled() {
        return Err(mail_off());
    }
    let email = address(&req.email)?;
    // Per client address: the sign-in attempts' budget.
    if let Err(r) = st.budgets.logins.take(&client).await {
        return Ok(too_many(r));
    }
    let store = &st.hub.store;
    let base = crate::mail::base(&st);
    let now = now_ms();
    for (id, name, to) in rows::accounts_at(store, &email).await.map_err(storage)? {
        let sent = rows::links_since(store, &id, Purpose::Reset, now - HOUR_MS)
            .await
            .map_err(storage)?;
        if sent >= RESETS_PER_HOUR {
            continue;
        }
        let token = rows::new_link(store, &id, Purpose::Reset, None, None, now, HOUR_MS)
            .await
            .map_err(storage)?;
        let mail = Mail {
            account_id: Some(id),
            to,
            subject: "baduk: reset your password".into(),
            body: format!(
                "Hello {name},\n\nto choose a new password for your baduk account, open\n\
                 {base}/mail/reset#{token}\n\nThe link works once, for one hour. If you did not \
                 ask for it, ignore this mail: your password stays as it is.\n"
            ),
            unsubscribe: None,
        };
        rows::enqueue(store, &mail, now).await.map_err(storage)?;
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(
            json!({"ok": true, "message": "if an account has this address verified, a link to \
            reset its password is on its way"}),
        ),
    )
        .into_response())
}

/// `POST /api/password/reset {"token", "password"}`: sets the password, ends every session and
/// API token of the account, uses the link up. A link guessed, used or expired: 400
/// `mail.token`, alike.
pub(crate) async fn reset(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    body: Bytes,
) -> Result<Response, ActError> {
    let req: Reset = parse(&body)?;
    if let Err(r) = st.budgets.logins.take(&client).await {
        return Ok(too_many(r));
    }
    accounts::check_password(&req.password)?;
    // Hashed before the link is used: a busy server (503) leaves the link working.
    let password = req.password.clone();
    let hash = crate::players::blocking(move || accounts::hash_password(&password)).await?;
    let store = &st.hub.store;
    let now = now_ms();
    let taken = rows::take(store, &req.token, Purpose::Reset, now)
        .await
        .map_err(storage)?
        .ok_or_else(bad_link)?;
    if !rows::set_password(store, &taken.account_id, &hash)
        .await
        .map_err(storage)?
    {
        return Err(bad_link());
    }
    store
        .end_sessions(&taken.account_id)
        .await
        .map_err(storage)?;
    rows::spend_all(store, &taken.account_id, Purpose::Reset, now)
        .await
        .map_err(storage)?;
    let name = store
        .account_by_id(&taken.account_id)
        .await
        .map_err(storage)?
        .map(|a| a.name);
    Ok(Json(json!({"ok": true, "name": name})).into_response())
}
