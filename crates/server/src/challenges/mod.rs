//! Owns: challenges between players — to a named account or open by link — from asking to the
//! game both are seated in (create, accept, decline with a reason, cancel; limits and the
//! cooldown after a decline) and the rematch at a game's end; what a bot accepts (`accepts`),
//! the rows (`rows`), and the account's event stream (`stream`). docs/api.md, "Challenges" and
//! "Event stream".
//!
//! May use: `players`, `state`, `config`, `game`, `store`, `net` (below it). Never `http` or
//! `botapi` (`tests/layout.rs` keeps it so).

pub mod accepts;
mod answer;
pub mod rows;
pub mod stream;

use crate::game::hub::{client_hash, new_id, now_ms};
use crate::game::room::{ActError, Settings};
use crate::game::settings::{checked, settings_json, unrated_kind, CreateReq};
use crate::players::accounts::{normalise_name, storage, Account, Identity};
use crate::players::{player_of, Auth};
use crate::state::limit::ClientKey;
use crate::state::{parse_json, too_many, AppState};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use rows::Challenge;
use serde::Deserialize;
use serde_json::{json, Value};

/// Open challenges one account may have made at once.
pub const OPEN_PER_ACCOUNT: i64 = 10;
/// Open challenges one client address may have made at once (over all its accounts).
pub const OPEN_PER_ADDRESS: i64 = 20;
/// After a decline, the challenger may not challenge that account again for this long (ms).
pub const COOLDOWN_MS: i64 = 10 * 60_000;
/// An open challenge lapses this long after it was made (ms).
pub const EXPIRES_MS: i64 = 24 * 3_600_000;

/// The challenges' routes (`/api/challenges…`, `/api/stream/events`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/challenges", post(create).get(list))
        .route("/api/challenges/{id}", get(read))
        .route("/api/challenges/{id}/accept", post(answer::accept))
        .route("/api/challenges/{id}/decline", post(answer::decline))
        .route("/api/challenges/{id}/cancel", post(answer::cancel))
        .route("/api/stream/events", get(stream::events))
}

/// The challenges still open to `account` (each as the `challenge` event of the event stream
/// shows it), oldest first: what a stream (re)connecting reads before the live events.
pub async fn open_to(st: &AppState, account: &str) -> Result<Vec<Value>, String> {
    let rows = rows::open_of(&st.hub.store, account, true)
        .await
        .map_err(|x| x.message)?;
    let mut out = Vec::new();
    for c in &rows {
        let v = to_json(st, c).await.map_err(|x| x.message)?;
        out.push(json!({"type": "challenge", "challenge": v}));
    }
    Ok(out)
}

/// The account's open challenges: `{"incoming": [CHALLENGE…], "outgoing": [CHALLENGE…]}`
/// (`GET /api/challenges` and the lobby's socket).
pub async fn lists_json(st: &AppState, account: &str) -> Result<Value, ActError> {
    let mut out = json!({});
    for (key, incoming) in [("incoming", true), ("outgoing", false)] {
        let mut list = Vec::new();
        for c in rows::open_of(&st.hub.store, account, incoming).await? {
            list.push(to_json(st, &c).await?);
        }
        out[key] = json!(list);
    }
    Ok(out)
}

/// An error with its code.
fn refused(status: u16, code: &'static str, message: impl Into<String>, args: Value) -> ActError {
    ActError::new(status, message).with_code(code, args)
}

/// 403 `challenge.guest`: guests neither challenge nor are challenged.
fn guest_refused() -> ActError {
    refused(
        403,
        "challenge.guest",
        "challenges are between named accounts: guests neither challenge nor are challenged (sign up first)",
        Value::Null,
    )
}

/// The account with this id (it exists: a challenge names it).
async fn account(st: &AppState, id: &str) -> Result<Account, ActError> {
    st.hub
        .store
        .account_by_id(id)
        .await
        .map_err(storage)?
        .ok_or_else(|| ActError::internal("a challenge's account vanished"))
}

/// The CHALLENGE object of `c` (docs/api.md, "Challenges").
pub async fn to_json(st: &AppState, c: &Challenge) -> Result<Value, ActError> {
    let kind = crate::game::ratings::kind_of(&c.settings);
    let challenger = player_of(&st.hub.store, &account(st, &c.challenger_id).await?, kind).await?;
    let to = match &c.to_id {
        Some(id) => Some(player_of(&st.hub.store, &account(st, id).await?, kind).await?),
        None => None,
    };
    // A lapsed challenge not yet swept reads as the sweep will leave it.
    let status = if c.status == "open" && !c.is_open(now_ms()) {
        "canceled"
    } else if c.status == "accepting" {
        // Its game is being made: open until it exists.
        "open"
    } else {
        c.status.as_str()
    };
    let game = c.game_id.as_ref().filter(|_| status == "accepted");
    let settings = settings_json(&c.settings, c.rated);
    Ok(json!({
        "id": c.id,
        "url": format!("/c/{}", c.id),
        "status": status,
        "challenger": challenger.to_json(kind),
        "to": to.map(|p| p.to_json(kind)),
        "settings": settings,
        "colour": c.colour,
        "game": game,
        "reason": c.reason,
        "created_at": c.created_at,
        "expires_at": c.expires_at,
        "rematch_of": c.rematch_of,
    }))
}

/// Sends `{"type": kind, "challenge": …}` to the challenger and the one challenged.
async fn tell_both(st: &AppState, c: &Challenge, kind: &str) -> Result<Value, ActError> {
    let v = to_json(st, c).await?;
    let event = json!({"type": kind, "challenge": v});
    st.hub.events.publish(&c.challenger_id, event.clone());
    if let Some(to) = &c.to_id {
        st.hub.events.publish(to, event);
    }
    Ok(v)
}

/// The body of `POST /api/challenges`: the target, the settings of `POST /api/games`, the
/// challenger's colour, or the finished game to play again.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChallengeReq {
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    game: Option<String>,
    #[serde(default)]
    size: Option<Value>,
    #[serde(default)]
    rules: Option<String>,
    #[serde(default)]
    komi: Option<f64>,
    #[serde(default)]
    handicap: Option<u32>,
    #[serde(default)]
    clock: Option<String>,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    turn_seconds: Option<f64>,
    #[serde(default)]
    rated: Option<bool>,
    #[serde(default)]
    colour: Option<String>,
    #[serde(default)]
    rematch_of: Option<String>,
}

/// A challenge's terms before the limits are checked.
struct Terms {
    to: Option<Account>,
    settings: Settings,
    rated: bool,
    colour: String,
    rematch_of: Option<String>,
}

/// The account named `name`, or 404 `challenge.no_account`.
async fn named(st: &AppState, name: &str) -> Result<Account, ActError> {
    let missing = || {
        refused(
            404,
            "challenge.no_account",
            "no account of that name",
            json!({"name": name.chars().take(40).collect::<String>()}),
        )
    };
    if name.len() > 100 {
        return Err(missing());
    }
    // A guest's name (`guest-…`) is no name one may choose, but it names an account.
    let key = match normalise_name(name) {
        Ok((_, key)) => key,
        Err(_) if name.trim().to_ascii_lowercase().starts_with("guest-") => {
            name.trim().to_ascii_lowercase()
        }
        Err(_) => return Err(missing()),
    };
    match st.hub.store.account_by_key(&key).await.map_err(storage)? {
        Some((a, _)) => Ok(a),
        None => Err(missing()),
    }
}

/// The terms of a rematch of `game`: the other player, the same settings, colours swapped.
async fn rematch_terms(st: &AppState, who: &Identity, game: &str) -> Result<Terms, ActError> {
    let bad = |m: &str| refused(422, "challenge.rematch", m, json!({"game": game}));
    let h = st
        .hub
        .get(game)
        .await
        .map_err(|_| bad("rematch_of: no such game"))?;
    let room = h.room.lock().await;
    if room.status() != "finished" {
        return Err(bad("rematch_of: that game is not finished"));
    }
    let Some(mine) = room.seat_of_account(&who.account.id) else {
        return Err(bad(
            "rematch_of: only a player of that game asks for its rematch",
        ));
    };
    let Some(other) = room.seats[1 - mine].player.clone() else {
        return Err(bad("rematch_of: the other seat held no account"));
    };
    let (settings, rated) = (room.settings.clone(), room.rated);
    drop(room);
    let to = account(st, &other.id).await?;
    Ok(Terms {
        to: Some(to),
        settings,
        rated,
        // Colours swapped: who had Black takes White.
        colour: if mine == 0 { "white" } else { "black" }.into(),
        rematch_of: Some(game.to_string()),
    })
}

/// The terms a request names, checked as `POST /api/games` checks its settings.
async fn terms_of(st: &AppState, who: &Identity, req: ChallengeReq) -> Result<Terms, ActError> {
    if let Some(game) = &req.rematch_of {
        let terms = rematch_terms(st, who, game).await?;
        if let (Some(asked), Some(to)) = (&req.to, &terms.to) {
            if named(st, asked).await?.id != to.id {
                return Err(refused(
                    422,
                    "challenge.rematch",
                    "rematch_of: a rematch is with the other player of that game",
                    json!({"game": game}),
                ));
            }
        }
        return Ok(terms);
    }
    let colour = req.colour.unwrap_or_else(|| "random".into());
    if !["black", "white", "random"].contains(&colour.as_str()) {
        return Err(ActError::bad_request("colour: black, white or random")
            .with_code("challenge.colour", Value::Null));
    }
    let settings = checked(&CreateReq {
        game: req.game.unwrap_or_else(|| "go".into()),
        size: req.size,
        rules: req.rules,
        komi: req.komi,
        handicap: req.handicap,
        clock: req.clock,
        pause_weekends: None,
        variant: req.variant,
        turn_seconds: req.turn_seconds,
        seats: None,
        rated: None,
        listed: None,
    })?;
    let rated = req.rated.unwrap_or(false);
    if rated && crate::game::ratings::kind_of(&settings).is_none() {
        return Err(unrated_kind());
    }
    let to = match &req.to {
        Some(name) => Some(named(st, name).await?),
        None => None,
    };
    Ok(Terms {
        to,
        settings,
        rated,
        colour,
        rematch_of: None,
    })
}

/// What a challenge asks of a bot, for [`accepts::refusal`].
fn asked_of<'a>(
    settings: &'a Settings,
    rated: bool,
    from_bot: bool,
    playing: u32,
    clock: &'a str,
) -> accepts::Asked<'a> {
    let (game, size, clock) = match settings {
        Settings::Go { rules, .. } => {
            let size = baduk_go::Rules::parse(rules)
                .ok()
                .map(|r| (r.size.cols(), r.size.rows()));
            ("go", size, Some(clock))
        }
        Settings::Wallgo { .. } => ("wallgo", None, None),
    };
    accepts::Asked {
        game,
        size,
        clock,
        rated,
        from_bot,
        playing,
    }
}

/// The kind of a Go game's clock (`none`, `byo-yomi`…), as bots' ACCEPTS name them.
fn clock_kind(settings: &Settings) -> String {
    match settings {
        Settings::Go { rules, .. } => baduk_go::Rules::parse(rules)
            .map(|r| {
                let t = r.time.to_string();
                t.split(':').next().unwrap_or("none").to_string()
            })
            .unwrap_or_else(|_| "none".into()),
        Settings::Wallgo { .. } => "none".into(),
    }
}

/// Refuses a challenge to a bot that is offline, or whose ACCEPTS refuse the terms; a bot
/// challenging a bot needs both to accept bots.
async fn check_bot(
    st: &AppState,
    who: &Identity,
    to: &Account,
    terms: &Terms,
) -> Result<(), ActError> {
    let store = &st.hub.store;
    if who.account.bot
        && !accepts::plays_bots(rows::bot_accepts(store, &who.account.id).await?.as_deref())
    {
        return Err(refused(
            422,
            "challenge.not_accepted",
            "bot against bot: your own accepts must say `bots: true`",
            json!({"what": "bots", "side": "challenger"}),
        ));
    }
    if !to.bot {
        return Ok(());
    }
    if st.hub.events.listeners(&to.id) == 0 {
        return Err(refused(
            409,
            "challenge.bot_offline",
            format!(
                "{} is a bot with no event stream open: it cannot answer now",
                to.name
            ),
            json!({"name": to.name}),
        ));
    }
    let said = rows::bot_accepts(store, &to.id).await?;
    let playing = rows::unfinished_games(store, &to.id).await?.len() as u32;
    let clock = clock_kind(&terms.settings);
    let asked = asked_of(
        &terms.settings,
        terms.rated,
        who.account.bot,
        playing,
        &clock,
    );
    if let Some(args) = accepts::refusal(said.as_deref(), &asked) {
        let what = args["what"].as_str().unwrap_or("game").to_string();
        return Err(refused(
            422,
            "challenge.not_accepted",
            format!("{} does not accept these settings ({what})", to.name),
            args,
        ));
    }
    Ok(())
}

/// `POST /api/challenges`.
async fn create(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    body: Bytes,
) -> Result<Response, ActError> {
    let who = auth.require()?.clone();
    if who.account.guest {
        return Err(guest_refused());
    }
    let req: ChallengeReq = parse_json(&body)?;
    let terms = terms_of(&st, &who, req).await?;
    if let Some(to) = &terms.to {
        if to.id == who.account.id {
            return Err(refused(
                422,
                "challenge.self",
                "you cannot challenge yourself",
                Value::Null,
            ));
        }
        if to.guest {
            return Err(guest_refused());
        }
        check_bot(&st, &who, to, &terms).await?;
        let now = now_ms();
        if let Some(at) =
            rows::declined_since(&st.hub.store, &who.account.id, &to.id, now - COOLDOWN_MS).await?
        {
            let until = at + COOLDOWN_MS;
            return Err(refused(
                429,
                "challenge.cooldown",
                format!(
                    "{} declined your challenge lately: wait before asking again",
                    to.name
                ),
                json!({"until": until}),
            ));
        }
    }
    let store = &st.hub.store;
    let hash = client_hash(&client);
    for (n, cap, per) in [
        (
            rows::open_count(store, &who.account.id, false).await?,
            OPEN_PER_ACCOUNT,
            "account",
        ),
        (
            rows::open_count(store, &hash, true).await?,
            OPEN_PER_ADDRESS,
            "address",
        ),
    ] {
        if n >= cap {
            return Err(refused(
                429,
                "challenge.too_many",
                format!("at most {cap} open challenges per {per}: cancel one, or wait for answers"),
                json!({"cap": cap, "per": per}),
            ));
        }
    }
    if let Err(r) = st.budgets.creates.check(&client) {
        return Ok(too_many(r));
    }
    let now = now_ms();
    let c = Challenge {
        id: new_id(),
        challenger_id: who.account.id.clone(),
        to_id: terms.to.as_ref().map(|a| a.id.clone()),
        settings: terms.settings,
        rated: terms.rated,
        colour: terms.colour,
        status: "open".into(),
        game_id: None,
        reason: None,
        rematch_of: terms.rematch_of,
        created_at: now,
        expires_at: now + EXPIRES_MS,
    };
    rows::insert(store, &c, &hash).await?;
    let v = tell_both(&st, &c, "challenge").await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": c.id, "challenge": v})),
    )
        .into_response())
}

/// `GET /api/challenges`: the asker's open challenges.
async fn list(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    Ok(Json(lists_json(&st, &who.account.id).await?))
}

/// The challenge `id`, or 404 `challenge.not_found`.
async fn found(st: &AppState, id: &str) -> Result<Challenge, ActError> {
    rows::load(&st.hub.store, id)
        .await?
        .ok_or_else(|| refused(404, "challenge.not_found", "no such challenge", Value::Null))
}

/// `GET /api/challenges/{id}`: anyone with the id.
async fn read(State(st): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ActError> {
    let c = found(&st, &id).await?;
    Ok(Json(json!({"challenge": to_json(&st, &c).await?})))
}

/// Sweeps the challenges now and then (lapsed ones close, old answered ones go).
pub async fn sweep(store: &crate::store::Store) {
    rows::sweep(store).await;
}
