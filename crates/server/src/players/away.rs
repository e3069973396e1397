//! An account's vacation and time zone over HTTP (docs/api.md, "Vacation and time zone"):
//! `GET`/`PUT /api/me/vacation` and `PUT /api/me/timezone`. A change stops or restarts the
//! account's correspondence clocks at once: its loaded games recompute, its stored games are
//! woken for the clock sweep.

use crate::game::calendar::TZ_RANGE;
use crate::game::hub::now_ms;
use crate::game::room::ActError;
use crate::players::{accounts, Auth};
use crate::state::{parse_json as parse, AppState};
use crate::store::away::{
    Vacation, VACATION_ACCRUAL_MS, VACATION_EVERY_MS, VACATION_MAX_MS, VACATION_MIN_MS,
};
use crate::store::Store;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::{get, put};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

/// The routes of vacations and time zones.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/me/vacation", get(get_vacation).put(put_vacation))
        .route("/api/me/timezone", put(put_timezone))
}

/// `{"on", "since", "until", "bank_ms", "max_ms", "min_ms", "accrual_ms", "every_ms", "tz"}`:
/// while on, `bank_ms` is what is left of it.
pub fn vacation_json(v: &Vacation, now: i64) -> Value {
    let (since, until) = v.running.unzip();
    json!({"on": v.running.is_some(), "since": since, "until": until,
        "bank_ms": until.map_or(v.bank_ms, |u| (u - now).max(0)),
        "max_ms": VACATION_MAX_MS, "min_ms": VACATION_MIN_MS,
        "accrual_ms": VACATION_ACCRUAL_MS, "every_ms": VACATION_EVERY_MS, "tz": v.tz_min})
}

/// The vacation of `account` now, as [`vacation_json`] shows it.
pub async fn vacation_now(store: &Store, account: &str) -> Result<Value, ActError> {
    let now = now_ms();
    let v = store
        .vacation(account, now)
        .await
        .map_err(accounts::storage)?;
    Ok(vacation_json(&v, now))
}

async fn get_vacation(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    Ok(Json(vacation_now(&st.hub.store, &who.account.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VacationReq {
    on: bool,
}

async fn put_vacation(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    let req: VacationReq = parse(&body)?;
    let store = &st.hub.store;
    let id = &who.account.id;
    let now = now_ms();
    let before = store.vacation(id, now).await.map_err(accounts::storage)?;
    if req.on && before.running.is_none() && before.bank_ms < VACATION_MIN_MS {
        return Err(ActError::illegal(format!(
            "vacation: the bank holds {} min; a vacation needs at least {} min (a day accrues each week)",
            before.bank_ms / 60_000,
            VACATION_MIN_MS / 60_000
        ))
        .with_code(
            "vacation.empty",
            json!({"bank_ms": before.bank_ms, "min_ms": VACATION_MIN_MS}),
        ));
    }
    let after = store
        .set_vacation(id, req.on, now)
        .await
        .map_err(accounts::storage)?;
    if after.running != before.running {
        away_changed(&st, id, now).await?;
    }
    Ok(Json(vacation_json(&after, now)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimezoneReq {
    tz: Value,
}

async fn put_timezone(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    let req: TimezoneReq = parse(&body)?;
    let tz = req
        .tz
        .as_i64()
        .filter(|m| (*TZ_RANGE.start() as i64..=*TZ_RANGE.end() as i64).contains(m))
        .ok_or_else(|| {
            ActError::bad_request(format!(
                "tz {}: minutes east of UTC, from {} to {}",
                req.tz,
                TZ_RANGE.start(),
                TZ_RANGE.end()
            ))
            .with_code(
                "tz.range",
                json!({"field": "tz", "value": req.tz, "min": TZ_RANGE.start(), "max": TZ_RANGE.end()}),
            )
        })?;
    let store = &st.hub.store;
    let id = &who.account.id;
    store
        .set_tz(id, tz as i32)
        .await
        .map_err(accounts::storage)?;
    away_changed(&st, id, now_ms()).await?;
    Ok(Json(vacation_now(store, id).await?))
}

/// The account's games take its new time zone or vacation: the loaded ones at once, the stored
/// ones at the clock sweep's next look.
async fn away_changed(st: &AppState, id: &str, now: i64) -> Result<(), ActError> {
    let store = &st.hub.store;
    store
        .wake_games_of(id, now)
        .await
        .map_err(accounts::storage)?;
    let away = store.away_of(id).await.map_err(accounts::storage)?;
    st.hub.away_changed(id, &away).await;
    Ok(())
}
