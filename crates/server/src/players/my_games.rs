//! "Your move" across games: `GET /api/me/games`, the account's unfinished games, those where
//! it is the account's move first, then by deadline (soonest first, none last), then id. Read
//! from the database (the account's seats and each game's schedule columns, `games.to_move`,
//! `games.deadline`, `games.turn_since`), never by loading the games. docs/api.md, "Your games".

use crate::game::room::ActError;
use crate::players::Auth;
use crate::state::AppState;
use axum::extract::State;
use axum::{Extension, Json};
use serde_json::{json, Value};
use sqlx::Row;

/// The most games one answer lists.
pub const MY_GAMES_MAX: i64 = 500;

/// `GET /api/me/games` (a session, or a token with `read` or `bot`).
pub(super) async fn my_games(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    let me = who.account.id.as_str();
    let rows = sqlx::query(
        "SELECT g.id, g.game, s.seat, g.to_move, g.deadline, g.turn_since, g.status, g.summary \
         FROM seats s JOIN games g ON g.id = s.game_id \
         WHERE s.account_id = $1 AND g.status IN ('open', 'live') \
         ORDER BY CASE WHEN g.to_move = $2 THEN 0 ELSE 1 END, \
         CASE WHEN g.deadline IS NULL THEN 1 ELSE 0 END, g.deadline, g.id LIMIT $3",
    )
    .bind(me)
    .bind(me)
    .bind(MY_GAMES_MAX)
    .fetch_all(st.hub.store.read_pool())
    .await
    .map_err(|e| crate::players::accounts::storage(e.into()))?;
    let mut games = Vec::with_capacity(rows.len());
    for r in rows {
        let row = || -> Result<Value, sqlx::Error> {
            let id: String = r.try_get(0)?;
            let game: String = r.try_get(1)?;
            let seat: i64 = r.try_get(2)?;
            let to_move: Option<String> = r.try_get(3)?;
            let deadline: Option<i64> = r.try_get(4)?;
            let turn_since: Option<i64> = r.try_get(5)?;
            let status: String = r.try_get(6)?;
            let summary: Value =
                serde_json::from_str(&r.try_get::<String, _>(7)?).unwrap_or_default();
            Ok(entry(
                &id,
                &game,
                seat as usize,
                to_move.as_deref() == Some(me),
                (deadline, turn_since),
                &status,
                &summary,
            ))
        };
        games.push(row().map_err(|e| crate::players::accounts::storage(e.into()))?);
    }
    Ok(Json(json!({ "games": games })))
}

/// One game of the answer, from its row and its lobby line (`summary`).
fn entry(
    id: &str,
    game: &str,
    seat: usize,
    your_turn: bool,
    (deadline, turn_since): (Option<i64>, Option<i64>),
    status: &str,
    summary: &Value,
) -> Value {
    let names = if game == "wallgo" {
        crate::game::wall_room::SEATS
    } else {
        crate::game::go_room::SEATS
    };
    let seat = seat.min(1);
    let other = &summary["seats"][names[1 - seat]];
    let opponent = other["player"]["name"]
        .as_str()
        .or_else(|| other["bot"].as_str())
        .map(str::to_string);
    json!({
        "id": id,
        "url": format!("/g/{id}"),
        "game": game,
        "seat": names[seat],
        "opponent": opponent,
        "your_turn": your_turn,
        "deadline": deadline,
        "turn_since": turn_since,
        "clock": summary["clock"].as_str().unwrap_or("none"),
        "moves": summary["moves"].as_u64().unwrap_or(0),
        "status": status,
    })
}
