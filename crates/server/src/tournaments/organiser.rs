//! What players and the organiser do to an event: register, check in and withdraw, start it,
//! add a late player (an account, a bot account) or a bot level, set a result by hand, end it;
//! and its exports (CSV, EGF).

use super::rows::{self, Entrant, Tournament};
use super::window;
use super::{
    account_entrant, body_of, bot_entrant, checked_bot, found, guest_refused, refused, rounds,
    to_json,
};
use crate::game::hub::now_ms;
use crate::game::room::ActError;
use crate::players::accounts::{normalise_name, storage, Account, Identity};
use crate::players::Auth;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use baduk_pairing::{EgfHeader, Rank};
use serde_json::{json, Value};

/// 403 `tournament.not_organiser`.
fn not_organiser() -> ActError {
    refused(
        403,
        "tournament.not_organiser",
        "only the tournament's organiser may do that",
        Value::Null,
    )
}

/// The signed-in named account, or 401/403.
fn named(auth: &Auth) -> Result<Identity, ActError> {
    let who = auth.require()?.clone();
    if who.account.guest {
        return Err(guest_refused());
    }
    Ok(who)
}

/// The event, if `who` organises it.
async fn organised(st: &AppState, id: &str, who: &Identity) -> Result<Tournament, ActError> {
    let t = found(st, id).await?;
    if t.organiser_id != who.account.id {
        return Err(not_organiser());
    }
    Ok(t)
}

/// Whether running event `t` takes a player now: a Swiss or McMahon from the organiser (`late`),
/// an arena from anyone until its end; a round robin never (it is laid out from its field).
fn takes_late(t: &Tournament, late: bool) -> bool {
    match t.format.as_str() {
        "arena" => now_ms() < super::arena::ends_at(t),
        "round-robin" => false,
        _ => late,
    }
}

/// Whether event `t` takes a player now (`late`: the organiser adds it): 409
/// `tournament.finished` or `tournament.started` when it does not.
fn open_to_entries(t: &Tournament, late: bool) -> Result<(), ActError> {
    match t.status.as_str() {
        "upcoming" => Ok(()),
        "running" if takes_late(t, late) => Ok(()),
        "finished" => Err(finished()),
        _ => Err(started(
            "the tournament has started: it takes no more players (a round robin none after its \
             start, an arena none after its end)",
            json!({"status": t.status}),
        )),
    }
}

/// The most entries one account makes in one event (a withdrawal and a new entry count again).
pub const ENTRIES_PER_ACCOUNT: usize = 3;

/// 409 `tournament.started`: too late for that.
fn started(message: &str, args: Value) -> ActError {
    refused(409, "tournament.started", message, args)
}

/// 409 `tournament.finished`.
fn finished() -> ActError {
    refused(
        409,
        "tournament.finished",
        "the tournament has ended",
        Value::Null,
    )
}

/// Enters account `a` in `t` (registration while upcoming, or while an arena runs; the
/// organiser's late player while a Swiss or McMahon runs), after the limits: rank, no other
/// event at the same time, room left.
async fn enter(st: &AppState, t: &Tournament, a: &Account, late: bool) -> Result<(), ActError> {
    let store = &st.hub.store;
    open_to_entries(t, late)?;
    let entrants = rows::entrants(store, &t.id).await?;
    if entrants
        .iter()
        .any(|e| e.account_id.as_deref() == Some(a.id.as_str()) && e.status == "in")
    {
        return Err(refused(
            409,
            "tournament.already",
            format!("{} is registered already", a.name),
            json!({"name": a.name}),
        ));
    }
    // Each entry is a row the sweep reads for the event's life: a join and withdraw loop must
    // not grow them without end.
    let before = entrants
        .iter()
        .filter(|e| e.account_id.as_deref() == Some(a.id.as_str()))
        .count();
    if before >= ENTRIES_PER_ACCOUNT {
        return Err(refused(
            409,
            "tournament.reentries",
            format!(
                "{} has entered this tournament {ENTRIES_PER_ACCOUNT} times: no more",
                a.name
            ),
            json!({"max": ENTRIES_PER_ACCOUNT}),
        ));
    }
    let mut en = account_entrant(st, t, a).await?;
    if t.status == "running" {
        en.checked_in_at = Some(now_ms());
    }
    let o = &t.options;
    if o.rank_min.is_some_and(|lo| en.rank < lo) || o.rank_max.is_some_and(|hi| en.rank > hi) {
        let rank = |v: Option<i32>| v.and_then(Rank::from_value).map(|r| r.to_string());
        return Err(refused(
            422,
            "tournament.rank_limit",
            format!("{}'s rank is outside the tournament's limits", a.name),
            json!({"rank": rank(Some(en.rank)), "rank_min": rank(o.rank_min), "rank_max": rank(o.rank_max)}),
        ));
    }
    let clashing: Vec<String> = rows::other_events_of(store, &a.id, &t.id)
        .await?
        .iter()
        .filter(|other| window::clash(t, other))
        .map(|other| other.id.clone())
        .collect();
    if !clashing.is_empty() {
        return Err(refused(
            409,
            "tournament.overlap",
            format!(
                "{} is in another tournament running or expected to run at the same time",
                a.name
            ),
            json!({"tournaments": clashing}),
        ));
    }
    add(st, t, &en).await
}

/// Stores an entry while the event keeps its status and has room: else 409 `tournament.full`
/// (or the status changed under it).
async fn add(st: &AppState, t: &Tournament, en: &Entrant) -> Result<(), ActError> {
    if rows::add_entrant(
        &st.hub.store,
        &t.id,
        &t.status,
        t.options.max_players,
        en,
        now_ms(),
    )
    .await?
    {
        return Ok(());
    }
    let now = found(st, &t.id).await?;
    if now.status != t.status {
        return Err(started(
            "the tournament's status changed: try again",
            json!({"status": now.status}),
        ));
    }
    Err(refused(
        409,
        "tournament.full",
        format!("the tournament is full ({} players)", t.options.max_players),
        json!({"max_players": t.options.max_players}),
    ))
}

/// The event as the answer of an action.
async fn answer(st: &AppState, id: &str) -> Result<Json<Value>, ActError> {
    let t = found(st, id).await?;
    Ok(Json(json!({"tournament": to_json(st, &t).await?})))
}

/// `POST /api/tournaments/{id}/join`.
pub(super) async fn join(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = found(&st, &id).await?;
    enter(&st, &t, &who.account, false).await?;
    answer(&st, &id).await
}

/// `POST /api/tournaments/{id}/withdraw`: out of the rounds not yet paired (a game being
/// played stays as it is).
pub(super) async fn withdraw(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = found(&st, &id).await?;
    if t.status == "finished" {
        return Err(finished());
    }
    if !rows::withdraw(&st.hub.store, &id, &who.account.id).await? {
        return Err(not_in());
    }
    answer(&st, &id).await
}

/// `POST /api/tournaments/{id}/checkin`: a registered player says it is here, in the window
/// `[starts_at - checkin_minutes, starts_at)` while the event is upcoming.
pub(super) async fn checkin(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = found(&st, &id).await?;
    let minutes = t.options.checkin_minutes;
    if minutes == 0 {
        return Err(refused(
            409,
            "tournament.no_checkin",
            "this tournament has no check-in",
            Value::Null,
        ));
    }
    let (opens_at, closes_at) = (t.starts_at - minutes * 60_000, t.starts_at);
    let closed = || {
        refused(
            409,
            "tournament.checkin_closed",
            "check-in is open only in the minutes before the start",
            json!({"opens_at": opens_at, "closes_at": closes_at}),
        )
    };
    let now = now_ms();
    if t.status != "upcoming" || now < opens_at || now >= closes_at {
        return Err(closed());
    }
    if !rows::check_in(&st.hub.store, &id, &who.account.id, now).await? {
        if found(&st, &id).await?.status != "upcoming" {
            return Err(closed());
        }
        return Err(not_in());
    }
    answer(&st, &id).await
}

/// 409 `tournament.not_in`.
fn not_in() -> ActError {
    refused(
        409,
        "tournament.not_in",
        "you are not registered in this tournament",
        Value::Null,
    )
}

/// `POST /api/tournaments/{id}/start`: the organiser starts it before its time.
pub(super) async fn start(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = organised(&st, &id, &who).await?;
    if t.status != "upcoming" {
        return Err(started(
            "the tournament has started already",
            json!({"status": t.status}),
        ));
    }
    let n = rounds::present(&t, &rows::entrants(&st.hub.store, &id).await?);
    let fill = t.options.fill_bot.is_some() || t.options.fill_account.is_some();
    let filled = n + (n % 2 == 1 && fill) as usize;
    if filled < 2 {
        return Err(refused(
            409,
            "tournament.too_few",
            "a tournament needs two players at least",
            json!({"players": n}),
        ));
    }
    if !rounds::start(&st, &t).await? {
        return Err(started("the tournament has started already", Value::Null));
    }
    answer(&st, &id).await
}

/// `POST /api/tournaments/{id}/players` `{"name"}`: the organiser adds a player (late, too): an
/// account or a bot account.
pub(super) async fn add_player(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = organised(&st, &id, &who).await?;
    let v = body_of(&body)?;
    let name = v["name"].as_str().unwrap_or("");
    let missing = || {
        refused(
            404,
            "tournament.no_account",
            "no account of that name",
            json!({"name": name.chars().take(40).collect::<String>()}),
        )
    };
    let key = normalise_name(name).map_err(|_| missing())?.1;
    let (a, _) = st
        .hub
        .store
        .account_by_key(&key)
        .await
        .map_err(storage)?
        .ok_or_else(missing)?;
    if a.guest {
        return Err(guest_refused());
    }
    enter(&st, &t, &a, true).await?;
    answer(&st, &id).await
}

/// `POST /api/tournaments/{id}/bots` `{"bot", "options"}`: the organiser enters a server bot
/// level as a player.
pub(super) async fn add_bot(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = organised(&st, &id, &who).await?;
    let level = checked_bot(&t.settings, &body_of(&body)?)?;
    open_to_entries(&t, true)?;
    // The same level entered again is another player: numbered, so the tables tell them apart.
    let mut en = bot_entrant(&t, &level);
    let entrants = rows::entrants(&st.hub.store, &id).await?;
    let same = entrants.iter().filter(|e| e.bot.as_ref() == Some(&level));
    if let n @ 1.. = same.count() {
        en.name = format!("{} #{}", en.name, n + 1);
    }
    add(&st, &t, &en).await?;
    answer(&st, &id).await
}

/// The results a board may be given by hand.
pub const RESULTS: [&str; 4] = ["black", "white", "jigo", "unplayed"];

/// `POST /api/tournaments/{id}/result` `{"round", "board", "result"}`: the organiser's
/// adjudication, stored with who set it.
pub(super) async fn set_result(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = organised(&st, &id, &who).await?;
    let v = body_of(&body)?;
    let result = v["result"].as_str().unwrap_or("");
    if !RESULTS.contains(&result) {
        return Err(refused(
            400,
            "tournament.result",
            format!("result: one of {}", RESULTS.join(", ")),
            json!({"allowed": RESULTS}),
        ));
    }
    if t.status == "finished" {
        return Err(finished());
    }
    let (round, board) = (v["round"].as_i64(), v["board"].as_i64());
    let boards = rows::boards(&st.hub.store, &id).await?;
    let Some(b) = boards
        .iter()
        .find(|b| Some(b.round) == round && Some(b.board) == board && b.white.is_some())
    else {
        return Err(refused(
            404,
            "tournament.no_board",
            "no such board: round and board of a paired game",
            json!({"round": round, "board": board}),
        ));
    };
    // An arena replays its games in the order their results came: a known one stays.
    let arena = t.format == "arena";
    if !rows::set_result(
        &st.hub.store,
        &id,
        b.round,
        b.board,
        result,
        Some(&who.account.id),
        arena,
    )
    .await?
    {
        return Err(refused(
            409,
            "tournament.result_known",
            "an arena's game with a result keeps it",
            json!({"round": b.round, "board": b.board}),
        ));
    }
    answer(&st, &id).await
}

/// `POST /api/tournaments/{id}/end`: the organiser ends the event (its table stays).
pub(super) async fn end(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let who = named(&auth)?;
    let t = organised(&st, &id, &who).await?;
    if !rows::finish(&st.hub.store, &t.id, now_ms()).await? {
        return Err(finished());
    }
    answer(&st, &id).await
}

/// A text download.
fn download(kind: &'static str, name: String, text: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        text,
    )
        .into_response()
}

/// `GET /api/tournaments/{id}/export.csv`: the table and crosstable as CSV.
pub(super) async fn export_csv(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ActError> {
    let t = found(&st, &id).await?;
    let store = &st.hub.store;
    let (entrants, boards) = (
        rows::entrants(store, &id).await?,
        rows::boards(store, &id).await?,
    );
    let text = rounds::off_runtime(&t, entrants, boards, |t, entrants, boards| {
        if t.format == "arena" {
            super::arena::to_csv(t, entrants, boards)
        } else {
            let (s, people) = rounds::standings(t, entrants, boards);
            s.to_csv(&people)
        }
    })
    .await?;
    Ok(download(
        "text/csv; charset=utf-8",
        format!("tournament-{id}.csv"),
        text,
    ))
}

/// `GET /api/tournaments/{id}/export.egf`: the table as an EGF results file (an arena's
/// rounds are each player's games in the order played).
pub(super) async fn export_egf(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ActError> {
    let t = found(&st, &id).await?;
    let store = &st.hub.store;
    let (entrants, boards) = (
        rows::entrants(store, &id).await?,
        rows::boards(store, &id).await?,
    );
    let (s, people) = rounds::off_runtime(&t, entrants, boards, |t, entrants, boards| {
        if t.format == "arena" {
            super::arena::egf_table(t, entrants, boards)
        } else {
            rounds::standings(t, entrants, boards)
        }
    })
    .await?;
    let day = |ms: i64| date_of(ms);
    let header = EgfHeader {
        class: "D".into(),
        event: t.name.clone(),
        place: String::new(),
        dates: format!(
            "{},{}",
            day(t.starts_at),
            day(t.ended_at.unwrap_or(t.starts_at))
        ),
        handicap: if t.format == "mcmahon" && t.options.handicap {
            "h9".into()
        } else {
            "h0".into()
        },
        komi: format!("{}", rounds::komi_of(&t.settings)),
        time: String::new(),
    };
    Ok(download(
        "text/plain; charset=utf-8",
        format!("tournament-{id}.egf.txt"),
        s.to_egf(&header, &people),
    ))
}

/// `YYYY-MM-DD` (UTC) of a time in ms.
fn date_of(ms: i64) -> String {
    // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::date_of;

    #[test]
    fn dates_are_civil_utc_days() {
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(date_of(951_782_400_000), "2000-02-29");
        assert_eq!(date_of(1_796_083_200_000), "2026-12-01");
    }
}
