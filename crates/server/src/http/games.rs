//! The games' handlers: create, list, read, record, act, rotate, join.

use super::bearer;
use crate::game::hub::{now_ms, Cred};
use crate::game::room::{ActError, SeatSpec};
use crate::game::settings::{checked, CreateReq};
use crate::players::Auth;
use crate::state::limit::ClientKey;
use crate::state::{guest_unrated, parse_json, too_many, AppState};
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

pub(super) async fn create_game(
    State(st): State<AppState>,
    axum::Extension(client): axum::Extension<ClientKey>,
    axum::Extension(auth): axum::Extension<Auth>,
    body: Bytes,
) -> Result<Response, ActError> {
    let req: CreateReq = parse_json(&body)?;
    let settings = checked(&req)?;
    let names = match settings {
        crate::game::room::Settings::Go { .. } => crate::game::go_room::SEATS,
        crate::game::room::Settings::Wallgo { .. } => crate::game::wall_room::SEATS,
    };
    let mut seats: [SeatSpec; 2] = [0, 1].map(|_| SeatSpec {
        kind: "human".into(),
        bot: None,
        options: None,
    });
    if let Some(given) = req.seats {
        for (name, spec) in given {
            let i = names.iter().position(|n| *n == name).ok_or_else(|| {
                ActError::bad_request(format!(
                    "seat `{name}`: this game's seats are {} and {}",
                    names[0], names[1]
                ))
            })?;
            seats[i] = spec;
        }
    }
    if req.rated == Some(true) && auth.who.as_ref().is_some_and(|w| w.account.guest) {
        return Err(guest_unrated());
    }
    if let Err(r) = st.budgets.creates.check(&client) {
        return Ok(too_many(r));
    }
    // A signed-in creator holds the first human seat.
    let mut players: [Option<crate::game::room::Player>; 2] = [None, None];
    if let Some(who) = &auth.who {
        if let Some(i) = seats.iter().position(|s| s.kind == "human") {
            let kind = crate::game::ratings::kind_of(&settings);
            players[i] = Some(crate::players::player_of(&st.hub.store, &who.account, kind).await?);
        }
    }
    let listed = req.listed.unwrap_or(true);
    let (id, tokens) = st
        .hub
        .create_game(crate::game::hub::NewGame {
            settings,
            seats,
            client: Some(client),
            players,
            flags: crate::store::GameFlags {
                rated: req.rated.unwrap_or(false),
                listed,
            },
            id: None,
        })
        .await?;
    let mut out = serde_json::Map::new();
    for (i, t) in tokens {
        out.insert(
            names[i].to_string(),
            json!({"token": t, "url": format!("/g/{id}#token={t}")}),
        );
    }
    let mut body = json!({"id": id, "url": format!("/g/{id}"), "seats": out});
    // An unlisted game's open seats are claimed with this secret, never with the id alone.
    // Until it is stored the game's open seats refuse everybody.
    if !listed {
        let secret = crate::game::hub::new_token();
        st.hub
            .store
            .set_invite(&id, &crate::players::accounts::secret_hash(&secret))
            .await
            .map_err(crate::players::accounts::storage)?;
        body["invite"] = json!(format!("/g/{id}#invite={secret}"));
        body["invite_secret"] = json!(secret);
    }
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// 403 `join.invite`: an unlisted game's open seat needs its invite secret.
fn invite_refused() -> ActError {
    ActError::forbidden(
        "join: this game is unlisted; its open seats are taken only with the invite link's secret (`invite`)",
    )
    .with_code("join.invite", Value::Null)
}

/// Whether `invite` opens the seats of game `id`: always for a listed game; for an unlisted
/// one only the secret whose hash it keeps (compared in constant time).
async fn check_invite(st: &AppState, id: &str, invite: Option<&str>) -> Result<(), ActError> {
    use subtle::ConstantTimeEq;
    let found = st
        .hub
        .store
        .invite_of(id)
        .await
        .map_err(crate::players::accounts::storage)?;
    let Some((listed, kept)) = found else {
        // No such game: the join itself answers 404.
        return Ok(());
    };
    if listed {
        return Ok(());
    }
    match (kept, invite) {
        (Some(kept), Some(given)) if given.len() <= 200 => {
            let given = crate::players::accounts::secret_hash(given);
            if bool::from(given.as_bytes().ct_eq(kept.as_bytes())) {
                Ok(())
            } else {
                Err(invite_refused())
            }
        }
        _ => Err(invite_refused()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ListQuery {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    limit: Option<i64>,
    #[serde(default)]
    before: Option<String>,
}

pub(super) async fn list_games(
    State(st): State<AppState>,
    q: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    let status = q.status.unwrap_or_else(|| "live".into());
    if !["open", "live", "finished"].contains(&status.as_str()) {
        return Err(ActError::bad_request(format!(
            "status `{status}`: open, live or finished"
        )));
    }
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ActError::bad_request("limit: 1 to 200"));
    }
    let before = match q.before {
        None => None,
        Some(c) => {
            let (t, id) = c
                .split_once(':')
                .ok_or_else(|| ActError::bad_request("before: a cursor from `next`"))?;
            Some((
                t.parse::<i64>()
                    .map_err(|_| ActError::bad_request("before: a cursor from `next`"))?,
                id.to_string(),
            ))
        }
    };
    let rows = st
        .hub
        .store
        .list(&status, limit, before)
        .await
        .map_err(|e| {
            tracing::error!("lobby query failed: {e}");
            ActError::internal("the lobby could not be read; try again")
        })?;
    let next = (rows.len() as i64 == limit)
        .then(|| rows.last().map(|(id, t, _)| format!("{t}:{id}")))
        .flatten();
    let games: Vec<Value> = rows
        .iter()
        .map(|(_, _, s)| serde_json::from_str(s).unwrap_or(Value::Null))
        .collect();
    Ok(Json(json!({"games": games, "next": next})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GameQuery {
    #[serde(default, rename = "move")]
    mv: Option<usize>,
}

pub(super) async fn get_game(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(auth): axum::Extension<Auth>,
    headers: HeaderMap,
    q: Result<Query<GameQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    let you = match (bearer(&headers), auth.account_id()) {
        (Some(t), _) if !t.starts_with(crate::players::accounts::API_TOKEN_PREFIX) => {
            Some(st.hub.hello(&id, t).await?)
        }
        (_, Some(a)) => st.hub.hello_as(&id, Cred::Account(a)).await.ok(),
        _ => None,
    };
    let h = st.hub.get(&id).await?;
    let room = h.room.lock().await;
    Ok(Json(room.state(now_ms(), q.mv, you)))
}

pub(super) async fn get_record(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ActError> {
    let h = st.hub.get(&id).await?;
    let room = h.room.lock().await;
    let (ctype, ext) = match room.game_word() {
        "go" => ("application/x-go-sgf; charset=utf-8", "sgf"),
        _ => ("text/plain; charset=utf-8", "wall"),
    };
    let disposition = format!("attachment; filename=\"baduk-{id}.{ext}\"");
    Ok((
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        room.record(),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ActionReq {
    action: String,
}

/// The query of `POST /api/games/{id}/actions`: `?full=1` answers with the full state (the
/// whole history) instead of the change.
#[derive(Deserialize)]
pub(super) struct ActionQuery {
    #[serde(default)]
    full: Option<String>,
    /// The new version alone (what a socket's `ack` needs; a forwarded socket action asks it).
    #[serde(default)]
    ack: Option<String>,
}

/// A yes/no query value: absent, `0`, `false` no; `1`, `true` or empty yes; else a 400.
fn flag(name: &str, v: Option<&str>) -> Result<bool, ActError> {
    match v {
        None | Some("0" | "false") => Ok(false),
        Some("1" | "true" | "") => Ok(true),
        Some(v) => Err(ActError::bad_request(format!(
            "{name}: `{v}`, expected 1 or 0"
        ))),
    }
}

pub(super) async fn post_action(
    State(st): State<AppState>,
    // The URL: the game, and the query.
    (Path(id), q): (
        Path<String>,
        Result<Query<ActionQuery>, axum::extract::rejection::QueryRejection>,
    ),
    axum::Extension(client): axum::Extension<ClientKey>,
    axum::Extension(auth): axum::Extension<Auth>,
    forwarded: Option<axum::Extension<crate::cluster::forward::Forwarded>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(e.body_text()))?;
    let full = flag("full", q.full.as_deref())?;
    let ack = flag("ack", q.ack.as_deref())?;
    if full && ack {
        return Err(ActError::bad_request("full and ack: ask for one answer"));
    }
    if forwarded.is_none() {
        if let Err(r) = st.budgets.actions.check(&client) {
            return Ok(too_many(r));
        }
    }
    let cred = seat_cred(&headers, &auth)?;
    let req: ActionReq = parse_json(&body)?;
    if req.action.trim().is_empty() {
        return Err(ActError::bad_request("action: empty"));
    }
    if ack {
        let version = st.hub.act_version(&id, cred, &req.action).await?;
        return Ok(Json(json!({ "version": version })).into_response());
    }
    Ok(Json(st.hub.act_as(&id, cred, &req.action, full).await?).into_response())
}

/// How a request proves its seat: a seat token, else the signed-in account; 401 with neither.
pub(super) fn seat_cred<'a>(headers: &'a HeaderMap, auth: &'a Auth) -> Result<Cred<'a>, ActError> {
    match (bearer(headers), auth.account_id()) {
        (Some(t), _) if !t.starts_with(crate::players::accounts::API_TOKEN_PREFIX) => {
            Ok(Cred::Token(t))
        }
        (_, Some(a)) => Ok(Cred::Account(a)),
        _ => Err(ActError::unauthorized(
            "missing Authorization: Bearer <seat token> (or sign in)",
        )),
    }
}

/// `POST /api/games/{id}/seats/{seat}/rotate`: the seat's holder gets a fresh token; the old
/// one is refused from now on.
pub(super) async fn post_rotate(
    State(st): State<AppState>,
    Path((id, seat)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<Value>, ActError> {
    let token = bearer(&headers).ok_or(ActError::unauthorized(
        "missing Authorization: Bearer <seat token>",
    ))?;
    let (i, fresh) = st.hub.rotate(&id, &seat, token).await?;
    let h = st.hub.get(&id).await?;
    let name = h.room.lock().await.seat_names()[i];
    Ok(Json(
        json!({"seat": name, "token": fresh, "url": format!("/g/{id}#token={fresh}")}),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JoinReq {
    seat: String,
    /// The invite secret of an unlisted game (from its link's `#invite=`).
    #[serde(default)]
    invite: Option<String>,
}

pub(super) async fn post_join(
    State(st): State<AppState>,
    Path(id): Path<String>,
    axum::Extension(auth): axum::Extension<Auth>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let req: JoinReq = parse_json(&body)?;
    check_invite(&st, &id, req.invite.as_deref()).await?;
    let player = match &auth.who {
        Some(who) => {
            let kind = {
                let h = st.hub.get(&id).await?;
                let room = h.room.lock().await;
                crate::game::ratings::kind_of(&room.settings)
            };
            Some(crate::players::player_of(&st.hub.store, &who.account, kind).await?)
        }
        None => None,
    };
    let (seat, token) = st.hub.join_as(&id, &req.seat, player).await?;
    let h = st.hub.get(&id).await?;
    let name = h.room.lock().await.seat_names()[seat];
    Ok(Json(
        json!({"seat": name, "token": token, "url": format!("/g/{id}#token={token}")}),
    ))
}
