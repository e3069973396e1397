//! Owns: tournaments — an event a signed-in player organises (Swiss, McMahon, round robin,
//! arena), registration with its limits (no two events at once by their time windows,
//! `window`) and check-in, rounds that start themselves with their games made and seated
//! (`rounds`), results read as games end, the organiser's hand (a late player or bot account, a
//! bot level, a result set by hand, the end), the standings with their tie-breaks live on the
//! lobby's socket, and the CSV and EGF exports (`rows` keeps them in the database,
//! `organiser` the organiser's and players' actions); and the standing ladders, one a kind
//! (`ladder`). docs/api.md, "Tournaments" and "Ladders".
//!
//! May use: `challenges`, `mail`, `review`, `players`, `cluster`, `state`, `config`, `game`,
//! `store`, `net` (below it). Never `http` or `botapi` (`tests/layout.rs` keeps it so).

pub mod arena;
pub mod ladder;
mod organiser;
pub mod rounds;
pub mod rows;
pub mod window;

use crate::game::hub::{new_id, now_ms};
use crate::game::room::{ActError, Settings};
use crate::game::settings::{settings_json, settings_of, unrated_kind};
use crate::players::accounts::{storage, Account};
use crate::players::Auth;
use crate::state::{parse_json, AppState};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use baduk_pairing::Rank;
use rows::{BotLevel, Entrant, Options, Tournament};
use serde_json::{json, Map, Value};

pub use rounds::spawn;

/// The formats an event may have.
pub const FORMATS: [&str; 4] = ["swiss", "mcmahon", "round-robin", "arena"];
/// The most rounds of a Swiss or McMahon.
pub const MAX_ROUNDS: i64 = 15;
/// The most players of an event.
pub const MAX_PLAYERS: i64 = 512;
/// The longest name of an event (characters).
pub const NAME_MAX: usize = 80;
/// How far ahead an event may be announced (ms): a year.
pub const AHEAD_MAX_MS: i64 = 366 * 24 * 3_600_000;

/// The tournaments' routes (`/api/tournaments…`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/tournaments", post(create).get(list))
        .route("/api/tournaments/{id}", get(read))
        .route("/api/tournaments/{id}/join", post(organiser::join))
        .route("/api/tournaments/{id}/withdraw", post(organiser::withdraw))
        .route("/api/tournaments/{id}/checkin", post(organiser::checkin))
        .route("/api/tournaments/{id}/start", post(organiser::start))
        .route("/api/tournaments/{id}/players", post(organiser::add_player))
        .route("/api/tournaments/{id}/bots", post(organiser::add_bot))
        .route("/api/tournaments/{id}/result", post(organiser::set_result))
        .route("/api/tournaments/{id}/end", post(organiser::end))
        .route(
            "/api/tournaments/{id}/export.csv",
            get(organiser::export_csv),
        )
        .route(
            "/api/tournaments/{id}/export.egf",
            get(organiser::export_egf),
        )
}

/// An error with its code.
fn refused(status: u16, code: &'static str, message: impl Into<String>, args: Value) -> ActError {
    ActError::new(status, message).with_code(code, args)
}

/// 400 with `code`, naming the field.
fn bad(code: &'static str, message: impl Into<String>) -> ActError {
    refused(400, code, message, Value::Null)
}

/// The event `id`, or 404 `tournament.not_found`.
async fn found(st: &AppState, id: &str) -> Result<Tournament, ActError> {
    rows::load(&st.hub.store, id).await?.ok_or_else(|| {
        refused(
            404,
            "tournament.not_found",
            "no such tournament",
            Value::Null,
        )
    })
}

/// The rating kind of the event's games, or the pool its bots are rated in.
fn kind_of(settings: &Settings) -> &'static str {
    crate::game::ratings::kind_of(settings).unwrap_or(match settings {
        Settings::Go { .. } => "go-small",
        Settings::Wallgo { .. } => "wallgo",
    })
}

/// The rank of a rating on the 30k = 0 scale.
fn rank_of(rating: f64) -> i32 {
    baduk_rating::go_rank(rating)
        .parse::<Rank>()
        .map(Rank::value)
        .unwrap_or(0)
}

/// The most minutes check-in may open before the start.
pub const CHECKIN_MAX: i64 = 120;

/// The account's entry: its name, its rating in the event's kind and the rank it gives; a bot
/// account counts as checked in.
async fn account_entrant(st: &AppState, t: &Tournament, a: &Account) -> Result<Entrant, ActError> {
    let (rating, _, _) =
        crate::players::rating_for(&st.hub.store, &a.id, kind_of(&t.settings)).await?;
    Ok(Entrant {
        seq: 0,
        account_id: Some(a.id.clone()),
        bot: None,
        name: a.name.clone(),
        rank: rank_of(rating),
        rating: rating.round() as i64,
        status: "in".into(),
        joined_at: 0,
        checked_in_at: a.bot.then(now_ms),
        left_at: None,
    })
}

/// A server bot level's entry (its fixed rating; 1500 for a bot without one), checked in.
pub fn bot_entrant(t: &Tournament, level: &BotLevel) -> Entrant {
    let opts = (!level.options.is_empty()).then_some(level.options.as_str());
    let rating = crate::game::ratings::bot_rating(kind_of(&t.settings), &level.bot, opts)
        .map_or(1500.0, |r| r.rating);
    Entrant {
        seq: 0,
        account_id: None,
        bot: Some(level.clone()),
        name: level.name(),
        rank: rank_of(rating),
        rating: rating.round() as i64,
        status: "in".into(),
        joined_at: 0,
        checked_in_at: Some(now_ms()),
        left_at: None,
    }
}

/// Checks a bot level against the server's levels for `settings`: 400 `tournament.bot`.
fn checked_bot(settings: &Settings, v: &Value) -> Result<BotLevel, ActError> {
    let level: BotLevel = serde_json::from_value(v.clone()).map_err(|e| {
        bad(
            "tournament.bot",
            format!("a bot level: {{\"bot\", \"options\"}}: {e}"),
        )
    })?;
    let kind = kind_of(settings);
    let known = crate::game::ratings::bots_for(kind);
    if !known
        .iter()
        .any(|(b, o, _)| *b == level.bot && *o == level.options)
    {
        let names: Vec<String> = known
            .iter()
            .map(|(b, o, _)| {
                BotLevel {
                    bot: b.to_string(),
                    options: o.clone(),
                }
                .name()
            })
            .collect();
        return Err(refused(
            400,
            "tournament.bot",
            format!(
                "no such bot level for these games: one of {}",
                names.join(", ")
            ),
            json!({"levels": names}),
        ));
    }
    Ok(level)
}

/// A rank field (`"5k"`, `"3d"`), or 400 `tournament.rank`.
fn rank_field(v: &Value, field: &str) -> Result<Option<i32>, ActError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => s
            .parse::<Rank>()
            .map(|r| Some(r.value()))
            .map_err(|_| bad("tournament.rank", format!("{field}: a rank from 30k to 9d"))),
        _ => Err(bad(
            "tournament.rank",
            format!("{field}: a rank from 30k to 9d"),
        )),
    }
}

/// An integer field within `lo..=hi`, or 400 with `code`.
fn int_field(
    v: &Value,
    field: &str,
    lo: i64,
    hi: i64,
    code: &'static str,
) -> Result<Option<i64>, ActError> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_i64() {
            Some(x) if (lo..=hi).contains(&x) => Ok(Some(x)),
            _ => Err(refused(
                400,
                code,
                format!("{field}: a whole number from {lo} to {hi}"),
                json!({"min": lo, "max": hi}),
            )),
        },
        _ => Err(refused(
            400,
            code,
            format!("{field}: a whole number from {lo} to {hi}"),
            json!({"min": lo, "max": hi}),
        )),
    }
}

/// The event a create request describes, checked field by field.
fn described(body: Map<String, Value>, organiser: &str, now: i64) -> Result<Tournament, ActError> {
    let mut game = body;
    let mut take = |k: &str| game.remove(k).unwrap_or(Value::Null);
    let name = match take("name") {
        Value::String(s) => s.trim().to_string(),
        _ => String::new(),
    };
    if name.is_empty() || name.chars().count() > NAME_MAX || name.chars().any(char::is_control) {
        return Err(bad(
            "tournament.name",
            format!("name: 1 to {NAME_MAX} characters, no control characters"),
        ));
    }
    let format = take("format").as_str().unwrap_or("").to_string();
    if !FORMATS.contains(&format.as_str()) {
        return Err(refused(
            400,
            "tournament.format",
            format!("format: one of {}", FORMATS.join(", ")),
            json!({"allowed": FORMATS}),
        ));
    }
    let rounds = int_field(
        &take("rounds"),
        "rounds",
        1,
        MAX_ROUNDS,
        "tournament.rounds",
    )?;
    let minutes = int_field(
        &take("minutes"),
        "minutes",
        10,
        24 * 60,
        "tournament.minutes",
    )?;
    let starts_at = int_field(
        &take("starts_at"),
        "starts_at",
        now - 60_000,
        now + AHEAD_MAX_MS,
        "tournament.starts_at",
    )?
    .unwrap_or(now + 3_600_000);
    let max_players = int_field(
        &take("max_players"),
        "max_players",
        2,
        MAX_PLAYERS,
        "tournament.max_players",
    )?
    .unwrap_or(64);
    let no_show = int_field(
        &take("no_show_minutes"),
        "no_show_minutes",
        1,
        60,
        "tournament.no_show",
    )?
    .unwrap_or(5);
    let (rank_min, rank_max) = (
        rank_field(&take("rank_min"), "rank_min")?,
        rank_field(&take("rank_max"), "rank_max")?,
    );
    if let (Some(lo), Some(hi)) = (rank_min, rank_max) {
        if lo > hi {
            return Err(bad("tournament.rank", "rank_min is stronger than rank_max"));
        }
    }
    let (bar, floor) = (
        rank_field(&take("bar"), "bar")?,
        rank_field(&take("floor"), "floor")?,
    );
    let handicap = match take("handicap_by_rank") {
        Value::Null => false,
        Value::Bool(b) => b,
        _ => {
            return Err(bad(
                "tournament.handicap",
                "handicap_by_rank: true or false",
            ))
        }
    };
    let rated = match take("rated") {
        Value::Null => false,
        Value::Bool(b) => b,
        _ => return Err(bad("tournament.settings", "rated: true or false")),
    };
    let checkin = int_field(
        &take("checkin_minutes"),
        "checkin_minutes",
        0,
        CHECKIN_MAX,
        "tournament.checkin",
    )?
    .unwrap_or(0);
    let fill = take("fill_bot");
    if game.contains_key("seats") || game.contains_key("listed") {
        return Err(bad(
            "tournament.settings",
            "the event seats its players: no seats or listed in its settings",
        ));
    }
    game.entry("game").or_insert_with(|| json!("go"));
    let settings = settings_of(&Value::Object(game)).map_err(|x| {
        let m = x.message.clone();
        bad("tournament.settings", m)
    })?;
    if rated && crate::game::ratings::kind_of(&settings).is_none() {
        return Err(unrated_kind());
    }
    // A bot account's name is looked up by `create`; a level is checked here.
    let (fill_bot, fill_account) = match fill {
        Value::Null => (None, None),
        Value::Object(o) if o.contains_key("account") => match o.get("account") {
            Some(Value::String(name)) if o.len() == 1 => (None, Some(name.clone())),
            _ => return Err(bad("tournament.bot", "fill_bot: {\"account\": NAME}")),
        },
        v => (Some(checked_bot(&settings, &v)?), None),
    };
    let rounds = match format.as_str() {
        "swiss" | "mcmahon" => rounds.ok_or_else(|| {
            bad(
                "tournament.rounds",
                format!("rounds: a whole number from 1 to {MAX_ROUNDS}"),
            )
        })?,
        _ => 0,
    };
    if format == "arena" && minutes.is_none() {
        return Err(bad(
            "tournament.minutes",
            "minutes: an arena's length, 10 to 1440",
        ));
    }
    Ok(Tournament {
        id: new_id(),
        name,
        organiser_id: organiser.to_string(),
        format,
        rounds,
        minutes: minutes.unwrap_or(0),
        starts_at,
        settings,
        rated,
        options: Options {
            rank_min,
            rank_max,
            handicap,
            bar,
            floor,
            max_players,
            fill_bot,
            no_show_ms: no_show * 60_000,
            checkin_minutes: checkin,
            fill_account,
        },
        status: "upcoming".into(),
        round: 0,
        created_at: now,
        ended_at: None,
    })
}

/// The bot account (the Bot API's) named `name`, or 400 `tournament.bot` (`{"account"}`).
async fn bot_account(st: &AppState, name: &str) -> Result<Account, ActError> {
    let missing = || {
        refused(
            400,
            "tournament.bot",
            "fill_bot: no bot account of that name",
            json!({"account": name.chars().take(40).collect::<String>()}),
        )
    };
    let key = crate::players::accounts::normalise_name(name)
        .map_err(|_| missing())?
        .1;
    match st.hub.store.account_by_key(&key).await.map_err(storage)? {
        Some((a, _)) if a.bot => Ok(a),
        _ => Err(missing()),
    }
}

/// 403 `tournament.guest`: guests neither organise nor play in events.
fn guest_refused() -> ActError {
    refused(
        403,
        "tournament.guest",
        "tournaments are for named accounts (sign up first)",
        Value::Null,
    )
}

/// `POST /api/tournaments`.
async fn create(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    body: Bytes,
) -> Result<Response, ActError> {
    let who = auth.require()?.clone();
    if who.account.guest || who.account.bot {
        return Err(guest_refused());
    }
    let body: Map<String, Value> = parse_json(&body)?;
    let mut t = described(body, &who.account.id, now_ms())?;
    if let Some(name) = t.options.fill_account.take() {
        t.options.fill_account = Some(bot_account(&st, &name).await?.id);
    }
    rows::insert(&st.hub.store, &t).await?;
    Ok((StatusCode::CREATED, Json(json!({"id": t.id}))).into_response())
}

/// An event in a list: `{"id", "name", "format", "status", "starts_at", "rounds", "round",
/// "players", "settings"}`.
async fn summary_json(st: &AppState, t: &Tournament) -> Result<Value, ActError> {
    let players = rows::entrants(&st.hub.store, &t.id)
        .await?
        .iter()
        .filter(|e| e.status == "in")
        .count();
    Ok(
        json!({"id": t.id, "name": t.name, "format": t.format, "status": t.status,
        "starts_at": t.starts_at, "rounds": t.rounds, "round": t.round, "players": players,
        "max_players": t.options.max_players, "settings": settings_json(&t.settings, t.rated)}),
    )
}

/// `GET /api/tournaments`: `{"upcoming", "running", "finished"}` (at most 100 each).
async fn list(State(st): State<AppState>) -> Result<Json<Value>, ActError> {
    let mut out = json!({});
    for status in ["upcoming", "running", "finished"] {
        let mut v = Vec::new();
        for t in rows::of_status(&st.hub.store, status).await? {
            v.push(summary_json(&st, &t).await?);
        }
        out[status] = json!(v);
    }
    Ok(Json(out))
}

/// The name of the account `id` (empty if it vanished).
async fn name_of(st: &AppState, id: &str) -> Result<String, ActError> {
    Ok(st
        .hub
        .store
        .account_by_id(id)
        .await
        .map_err(storage)?
        .map(|a| a.name)
        .unwrap_or_default())
}

/// The whole event as `GET /api/tournaments/{id}` shows it (docs/api.md, "Tournaments").
pub async fn to_json(st: &AppState, t: &Tournament) -> Result<Value, ActError> {
    let store = &st.hub.store;
    let entrants = rows::entrants(store, &t.id).await?;
    let boards = rows::boards(store, &t.id).await?;
    let organiser = name_of(st, &t.organiser_id).await?;
    let name = |seq: i64| {
        entrants
            .iter()
            .find(|e| e.seq == seq)
            .map(|e| e.name.clone())
    };
    let bot_accounts = rows::bot_accounts(store, &t.id).await?;
    let no_checkin = t.options.checkin_minutes == 0;
    let players: Vec<Value> = entrants
        .iter()
        .map(|e| {
            let account_bot = bot_accounts.contains(&e.seq);
            json!({"id": e.seq, "name": e.name, "rank": Rank::from_value(e.rank).map(|r| r.to_string()),
                "rating": e.rating, "bot": e.bot.is_some() || account_bot,
                "account_bot": account_bot, "status": e.status,
                "checked_in": no_checkin || e.checked_in_at.is_some()})
        })
        .collect();
    let mut rounds = Vec::new();
    for r in 1..=t.round {
        let mut pairings = Vec::new();
        let mut bye = Value::Null;
        for b in boards.iter().filter(|b| b.round == r) {
            match b.white {
                None => bye = json!(name(b.black)),
                Some(w) => {
                    let set_by = match b.set_by.as_deref() {
                        Some(x) if x == t.organiser_id => json!(organiser),
                        x => json!(x),
                    };
                    pairings.push(
                        json!({"board": b.board, "black": name(b.black), "white": name(w),
                        "black_id": b.black, "white_id": w, "game": b.game_id,
                        "handicap": b.handicap, "result": b.result, "set_by": set_by}),
                    );
                }
            }
        }
        rounds.push(json!({"round": r, "pairings": pairings, "bye": bye}));
    }
    let standings =
        rounds::off_runtime(t, entrants.clone(), boards.clone(), rounds::standings_value).await?;
    let o = &t.options;
    let rank = |v: Option<i32>| v.and_then(Rank::from_value).map(|r| r.to_string());
    let fill_bot = match &o.fill_account {
        Some(a) => json!({"account": name_of(st, a).await?}),
        None => json!(o.fill_bot),
    };
    Ok(json!({
        "id": t.id, "name": t.name, "format": t.format, "status": t.status,
        "organiser": organiser, "starts_at": t.starts_at, "ended_at": t.ended_at,
        "total_rounds": t.rounds, "round": t.round, "minutes": t.minutes,
        "expected_end": window::expected_end(t),
        "ends_at": (t.format == "arena").then(|| arena::ends_at(t)),
        "settings": settings_json(&t.settings, t.rated),
        "options": {"rank_min": rank(o.rank_min), "rank_max": rank(o.rank_max),
            "handicap_by_rank": o.handicap, "bar": rank(o.bar), "floor": rank(o.floor),
            "max_players": o.max_players, "fill_bot": fill_bot,
            "no_show_minutes": o.no_show_ms / 60_000, "checkin_minutes": o.checkin_minutes},
        "players": players,
        "rounds": rounds,
        "standings": standings,
    }))
}

/// `GET /api/tournaments/{id}`: anyone.
async fn read(State(st): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ActError> {
    let t = found(&st, &id).await?;
    Ok(Json(to_json(&st, &t).await?))
}

/// The lobby's message for event `id`: `{"type": "tournament", "id", "name", "status",
/// "round", "standings"}`.
pub async fn lobby_message(st: &AppState, id: &str) -> Result<Value, ActError> {
    let t = found(st, id).await?;
    let store = &st.hub.store;
    let entrants = rows::entrants(store, id).await?;
    let boards = rows::boards(store, id).await?;
    Ok(
        json!({"type": "tournament", "id": t.id, "name": t.name, "status": t.status,
        "round": t.round, "standings": rounds::off_runtime(&t, entrants, boards,
            rounds::standings_value).await?}),
    )
}

/// Parses a small JSON body (an empty one reads as `{}`).
fn body_of(body: &Bytes) -> Result<Value, ActError> {
    if body.is_empty() {
        return Ok(json!({}));
    }
    parse_json(body)
}
