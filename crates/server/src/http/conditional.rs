//! Conditional moves over HTTP: `GET`, `PUT` and `DELETE /api/games/{id}/conditional` (the
//! asker's own plan; docs/api.md, "Conditional moves"). The checks and the play are the game's
//! (`game::conditional`, the hub); a request for a game another process owns was forwarded
//! there before it reaches this (`cluster::forward`).

use super::games::seat_cred;
use crate::game::room::ActError;
use crate::players::Auth;
use crate::state::{parse_json, AppState};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use serde_json::Value;

/// The body of a `PUT`: the plan's tree.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanReq {
    /// `{"E5": {"reply": "C3", "then": {…}}}`.
    moves: Value,
}

/// `GET /api/games/{id}/conditional`: the asker's plan.
pub(super) async fn get_plan(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(auth): axum::Extension<Auth>,
    headers: HeaderMap,
) -> Result<Json<Value>, ActError> {
    let cred = seat_cred(&headers, &auth)?;
    Ok(Json(st.hub.plan_of(&id, cred).await?))
}

/// `PUT /api/games/{id}/conditional`: replaces the asker's plan.
pub(super) async fn put_plan(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(auth): axum::Extension<Auth>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let cred = seat_cred(&headers, &auth)?;
    let req: PlanReq = parse_json(&body)?;
    Ok(Json(st.hub.set_plan(&id, cred, &req.moves).await?))
}

/// `DELETE /api/games/{id}/conditional`: clears the asker's plan.
pub(super) async fn delete_plan(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(auth): axum::Extension<Auth>,
    headers: HeaderMap,
) -> Result<Json<Value>, ActError> {
    let cred = seat_cred(&headers, &auth)?;
    Ok(Json(st.hub.clear_plan(&id, cred).await?))
}
