//! The answers to a challenge: accept (the game, made through the hub as `POST /api/games`
//! makes one, with both accounts seated and joined), decline with a reason, cancel.

use super::rows::{self, Challenge};
use super::{account, found, guest_refused, refused, tell_both};
use crate::game::hub::{new_id, now_ms, NewGame};
use crate::game::room::{seed_of, ActError, SeatSpec, Settings};
use crate::players::{player_of, Auth};
use crate::state::AppState;
use crate::store::GameFlags;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};

/// The reasons a decline may give.
pub const REASONS: [&str; 12] = [
    "generic",
    "later",
    "too_fast",
    "too_slow",
    "time_control",
    "rated",
    "casual",
    "size",
    "rules",
    "no_bot",
    "only_bot",
    "busy",
];

/// 409 `challenge.not_open`: answered, cancelled or lapsed already.
fn not_open(c: &Challenge) -> ActError {
    refused(
        409,
        "challenge.not_open",
        "this challenge is no longer open",
        json!({"status": c.status}),
    )
}

/// 403 `challenge.not_yours`: the answer is someone else's to give.
fn not_yours(what: &str) -> ActError {
    refused(
        403,
        "challenge.not_yours",
        format!("only {what} may do that"),
        Value::Null,
    )
}

/// The seat (0 Black, 1 White) the challenger takes: its colour, or for `random` a choice
/// seeded by the challenge's id.
pub fn challenger_seat(c: &Challenge) -> usize {
    match c.colour.as_str() {
        "black" => 0,
        "white" => 1,
        _ => (seed_of(&c.id) % 2) as usize,
    }
}

/// `POST /api/challenges/{id}/accept`.
pub(super) async fn accept(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?.clone();
    if who.account.guest {
        return Err(guest_refused());
    }
    let c = found(&st, &id).await?;
    if !c.is_open(now_ms()) {
        return Err(not_open(&c));
    }
    match &c.to_id {
        Some(to) if *to != who.account.id => return Err(not_yours("the player challenged")),
        None if c.challenger_id == who.account.id => {
            return Err(refused(
                422,
                "challenge.self",
                "you cannot accept your own challenge",
                Value::Null,
            ))
        }
        _ => {}
    }
    let store = &st.hub.store;
    let game = new_id();
    if !rows::take(store, &c.id, &who.account.id, &game).await? {
        return Err(not_open(&found(&st, &id).await?));
    }
    let mine = 1 - challenger_seat(&c);
    let made = make_game(&st, &c, &who.account.id, mine, &game).await;
    if let Err(x) = made {
        rows::untake(store, &c).await;
        return Err(x);
    }
    rows::made(store, &c.id).await?;
    let accepted = Challenge {
        status: "accepted".into(),
        to_id: Some(who.account.id.clone()),
        game_id: Some(game.clone()),
        ..c
    };
    let v = tell_both(&st, &accepted, "challengeAccepted").await?;
    let seat = match accepted.settings {
        Settings::Go { .. } => crate::game::go_room::SEATS[mine],
        Settings::Wallgo { .. } => crate::game::wall_room::SEATS[mine],
    };
    Ok(Json(json!({"challenge": v, "game": game, "seat": seat})))
}

/// Makes the game of an accepted challenge with the id `game`: the challenger in its seat,
/// the acceptor (`by`) in `by_seat`, both joined.
async fn make_game(
    st: &AppState,
    c: &Challenge,
    by: &str,
    by_seat: usize,
    game: &str,
) -> Result<(), ActError> {
    let store = &st.hub.store;
    let kind = crate::game::ratings::kind_of(&c.settings);
    let mut players = [None, None];
    players[1 - by_seat] =
        Some(player_of(store, &account(st, &c.challenger_id).await?, kind).await?);
    players[by_seat] = Some(player_of(store, &account(st, by).await?, kind).await?);
    let human = SeatSpec {
        kind: "human".into(),
        bot: None,
        options: None,
    };
    // Both agreed to the game: both seats are joined from the start (its clock runs).
    st.hub
        .create_joined(NewGame {
            settings: c.settings.clone(),
            seats: [human.clone(), human],
            client: None,
            players,
            flags: GameFlags {
                rated: c.rated,
                listed: true,
            },
            id: Some(game.to_string()),
        })
        .await?;
    Ok(())
}

/// The body of a decline: a reason from [`REASONS`] and a short text, both optional.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DeclineReq {
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

/// The longest text a decline carries (characters).
pub const REASON_TEXT_MAX: usize = 200;

/// `POST /api/challenges/{id}/decline`.
pub(super) async fn decline(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?.clone();
    let req: DeclineReq = if body.is_empty() {
        DeclineReq::default()
    } else {
        crate::state::parse_json(&body)?
    };
    let code = req.reason.unwrap_or_else(|| "generic".into());
    if !REASONS.contains(&code.as_str()) {
        return Err(refused(
            400,
            "challenge.reason",
            format!("reason: one of {}", REASONS.join(", ")),
            json!({"allowed": REASONS}),
        ));
    }
    let text: String = req.text.unwrap_or_default().trim().to_string();
    if text.chars().count() > REASON_TEXT_MAX || text.chars().any(char::is_control) {
        return Err(refused(
            400,
            "challenge.reason",
            format!("text: at most {REASON_TEXT_MAX} characters, no control characters"),
            json!({"allowed": REASONS}),
        ));
    }
    let c = found(&st, &id).await?;
    if c.to_id.as_deref() != Some(who.account.id.as_str()) {
        return Err(not_yours("the player challenged"));
    }
    let reason = json!({"code": code, "text": text});
    if !rows::close(&st.hub.store, &c.id, "declined", Some(&reason)).await? {
        return Err(not_open(&c));
    }
    let declined = Challenge {
        status: "declined".into(),
        reason: Some(reason),
        ..c
    };
    let v = tell_both(&st, &declined, "challengeDeclined").await?;
    Ok(Json(json!({"challenge": v})))
}

/// `POST /api/challenges/{id}/cancel`.
pub(super) async fn cancel(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?.clone();
    let c = found(&st, &id).await?;
    if c.challenger_id != who.account.id {
        return Err(not_yours("the challenger"));
    }
    if !rows::close(&st.hub.store, &c.id, "canceled", None).await? {
        return Err(not_open(&c));
    }
    let canceled = Challenge {
        status: "canceled".into(),
        ..c
    };
    let v = tell_both(&st, &canceled, "challengeCanceled").await?;
    Ok(Json(json!({"challenge": v})))
}
