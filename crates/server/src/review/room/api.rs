//! The rooms' HTTP routes (docs/api.md, "Review rooms"): the cursor, control, chat, listing
//! and title, a copy of the current tree (fork), the listing of public rooms, a room of a
//! finished game, and the room's first message (what a socket on another process asks the
//! holder for). Changes are made where the room is held (`cluster::forward` sends them there).

use super::{change, first_message, list_json, rows, tree_link, Change};
use crate::game::hub::now_ms;
use crate::game::room::ActError;
use crate::players::Auth;
use crate::state::limit::ClientKey;
use crate::state::{parse_json, AppState};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

/// The rooms' routes (merged into the reviews' router; `PATCH /api/reviews/{id}` is
/// [`patch`], routed with the review's `GET`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/reviews/{id}/cursor", post(cursor))
        .route("/api/reviews/{id}/control", post(control))
        .route("/api/reviews/{id}/chat", post(chat))
        .route("/api/reviews/{id}/fork", post(fork))
        .route("/api/reviews/{id}/room", get(room))
        .route("/api/review-rooms", get(listing))
        .route("/api/games/{id}/review", post(from_game))
        .route("/ws/reviews/{id}", get(super::socket::ws_room))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CursorReq {
    node: i64,
}

async fn cursor(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let to = |r: CursorReq| Change::Cursor(r.node);
    Ok(Json(asked(&st, &auth, &client, &id, &body, to).await?))
}

/// A signed-in account's change of room `id`, its body read as `R` and made into a change.
async fn asked<R: serde::de::DeserializeOwned>(
    st: &AppState,
    auth: &Auth,
    client: &ClientKey,
    id: &str,
    body: &Bytes,
    to: impl FnOnce(R) -> Change,
) -> Result<Value, ActError> {
    let req: R = parse_json(body)?;
    let who = auth.require()?;
    change(st, id, Some(who), client, to(req)).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlReq {
    to: String,
}

async fn control(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let to = |r: ControlReq| Change::Control(r.to);
    Ok(Json(asked(&st, &auth, &client, &id, &body, to).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatReq {
    text: String,
}

async fn chat(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ActError> {
    let to = |r: ChatReq| Change::Chat(r.text);
    let v = asked(&st, &auth, &client, &id, &body, to).await?;
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetaReq {
    #[serde(default)]
    public: Option<bool>,
    #[serde(default)]
    title: Option<String>,
}

/// `PATCH /api/reviews/{id}` `{"public", "title"}` (the owner).
pub async fn patch(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let to = |r: MetaReq| Change::Meta {
        public: r.public,
        title: r.title,
    };
    Ok(Json(asked(&st, &auth, &client, &id, &body, to).await?))
}

/// `GET /api/reviews/{id}/room`: the room's first message, as its holder has it.
async fn room(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let you = auth.who.as_ref().map(|w| w.account.name.as_str());
    Ok(Json(first_message(&st, &id, you).await?))
}

/// `GET /api/review-rooms`: the public rooms watched now or changed lately.
async fn listing(State(st): State<AppState>) -> Result<Json<Value>, ActError> {
    Ok(Json(list_json(&st).await?))
}

/// `POST /api/reviews/{id}/fork`: a new review of the current tree owned by the asker.
async fn fork(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
) -> Result<Response, ActError> {
    let who = auth.require()?;
    if !super::valid_id(&id) {
        return Err(super::no_room());
    }
    st.budgets
        .creates
        .check(&client)
        .map_err(|r| r.to_error())?;
    let row = rows::load(&st.hub.store, &id)
        .await
        .map_err(super::storage)?
        .ok_or_else(super::no_room)?;
    let text = tree_link::export(&st, &id).await?;
    let title = if row.title.is_empty() {
        None
    } else {
        Some(row.title.as_str())
    };
    let new = tree_link::create(
        &st,
        &text,
        Some(&who.account.id),
        row.source_game.as_deref().map(|g| (g, None)),
        title,
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": new, "url": format!("/r/{new}")})),
    )
        .into_response())
}

/// `POST /api/games/{id}/review`: the room of a finished game (or one paused in review mode,
/// for its players) at its current version, made once; its players and watchers are told on
/// the game's socket.
async fn from_game(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
) -> Result<Response, ActError> {
    let who = auth.require()?;
    let h = st.hub.get(&id).await?;
    let (version, record, go) = {
        let room = h.room.lock().await;
        let state = room.state(now_ms(), None, None);
        let paused = state["review_mode"]["paused"] == json!(true);
        let player = room.seat_of_account(&who.account.id).is_some();
        let over = room.status() == "finished";
        if !over && !paused {
            return Err(ActError::conflict(
                "this game is still being played: a review room opens when it ends (or when both players pause it in review mode)",
            )
            .with_code("review.game_running", Value::Null));
        }
        if !over && !player {
            return Err(ActError::forbidden(
                "only the players open a review of a game paused in review mode",
            )
            .with_code("review.game_running", Value::Null));
        }
        (room.version(), room.record(), room.game_word() == "go")
    };
    if !go {
        return Err(ActError::illegal(
            "review rooms are for Go games; a Wall Go record is reviewed by uploading it",
        )
        .with_code("review.game_kind", Value::Null));
    }
    let store = &st.hub.store;
    if let Some(existing) = rows::source(store, &id, version)
        .await
        .map_err(super::storage)?
    {
        return Ok((StatusCode::OK, Json(json!({"id": existing}))).into_response());
    }
    st.budgets
        .creates
        .check(&client)
        .map_err(|r| r.to_error())?;
    let title = format!("Game {id}");
    let new = tree_link::create(
        &st,
        &record,
        Some(&who.account.id),
        Some((&id, Some(version))),
        Some(&title),
    )
    .await?;
    if !rows::add_source(store, &id, version, &new, now_ms())
        .await
        .map_err(super::storage)?
    {
        // Another ask made the room first: that one is the game's.
        let existing = rows::source(store, &id, version)
            .await
            .map_err(super::storage)?
            .unwrap_or(new);
        return Ok((StatusCode::OK, Json(json!({"id": existing}))).into_response());
    }
    // The game's players and watchers, here and on the other processes, are offered it.
    let event = json!({"type": "review", "id": new}).to_string();
    if let Some(p) = crate::cluster::bus::chat_payload(&id, &st.hub.cluster.node, false, &event) {
        let _ = store.notify_now(&p).await;
    }
    let _ = h.chat.send((false, event.into()));
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": new, "url": format!("/r/{new}")})),
    )
        .into_response())
}
