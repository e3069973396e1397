//! Tournaments in the database (migration 0021): the event, its players and the boards of its
//! rounds, and the claims that let one process alone start a round.

use crate::game::room::{ActError, Settings};
use crate::players::accounts::storage;
use crate::store::{Store, StoreError};
use serde::{Deserialize, Serialize};
use sqlx::Row;

fn e(x: sqlx::Error) -> ActError {
    storage(StoreError::from(x))
}

/// A server bot level entered as a player: the bot and its options (`baduk` `level=3`,
/// `random`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotLevel {
    /// The bot.
    pub bot: String,
    /// Its options (the level).
    #[serde(default)]
    pub options: String,
}

impl BotLevel {
    /// The name it plays under in the event (`baduk level=3`, `random`).
    pub fn name(&self) -> String {
        if self.options.is_empty() {
            self.bot.clone()
        } else {
            format!("{} {}", self.bot, self.options)
        }
    }
}

/// An event's options beyond its format and game settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// The weakest rank that may register (30k = 0 … 9d = 38).
    pub rank_min: Option<i32>,
    /// The strongest rank that may register.
    pub rank_max: Option<i32>,
    /// McMahon: handicap by the difference in McMahon score.
    pub handicap: bool,
    /// McMahon's bar and floor (the 30k = 0 scale).
    pub bar: Option<i32>,
    /// McMahon's floor.
    pub floor: Option<i32>,
    /// The most players.
    pub max_players: i64,
    /// The bot level that fills an odd field at the start instead of a bye.
    pub fill_bot: Option<BotLevel>,
    /// How long a player may keep a round's game waiting before losing it (ms).
    pub no_show_ms: i64,
    /// How long before the start check-in opens (minutes; 0: no check-in).
    #[serde(default)]
    pub checkin_minutes: i64,
    /// The bot account that fills an odd field instead of a bot level (its id).
    #[serde(default)]
    pub fill_account: Option<String>,
}

/// An event as stored.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The account that made it.
    pub organiser_id: String,
    /// `swiss`, `mcmahon`, `round-robin` or `arena`.
    pub format: String,
    /// How many rounds (a round robin's count is set at the start).
    pub rounds: i64,
    /// An arena's length in minutes.
    pub minutes: i64,
    /// When it starts by itself (ms).
    pub starts_at: i64,
    /// The settings of every game.
    pub settings: Settings,
    /// Its games are rated.
    pub rated: bool,
    /// Rank limits, handicap, size, bot filling, no-show wait.
    pub options: Options,
    /// `upcoming`, `running` or `finished`.
    pub status: String,
    /// The rounds paired so far.
    pub round: i64,
    /// When it was made (ms).
    pub created_at: i64,
    /// When it ended (ms).
    pub ended_at: Option<i64>,
}

/// A player of an event: an account or a server bot level.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Its number in the event (the pairing's id).
    pub seq: i64,
    /// The account; None for a server bot level.
    pub account_id: Option<String>,
    /// The bot level, for a server bot.
    pub bot: Option<BotLevel>,
    /// The name shown.
    pub name: String,
    /// The rank on the 30k = 0 scale.
    pub rank: i32,
    /// The rating when it registered.
    pub rating: i64,
    /// `in`, `withdrawn`, or `absent` (registered, not checked in at the start).
    pub status: String,
    /// When it entered (ms).
    pub joined_at: i64,
    /// When it checked in, if the event asks for that.
    pub checked_in_at: Option<i64>,
    /// When it withdrew.
    pub left_at: Option<i64>,
}

/// One board of a round as paired (`white` None: the bye).
#[derive(Clone, Debug)]
pub struct Board {
    /// The round, from 1.
    pub round: i64,
    /// The board, from 1.
    pub board: i64,
    /// Black's number.
    pub black: i64,
    /// White's number; None for the bye.
    pub white: Option<i64>,
    /// The handicap the pairing gave.
    pub handicap: i64,
    /// The game made for it.
    pub game_id: Option<String>,
    /// `black`, `white`, `jigo` or `unplayed` once known.
    pub result: Option<String>,
    /// Who set the result by hand (an account id, or `no-show`).
    pub set_by: Option<String>,
    /// When it was paired (ms).
    pub created_at: i64,
    /// When its result became known (ms).
    pub ended_at: Option<i64>,
}

const COLUMNS: &str = "id, name, organiser_id, format, rounds, minutes, starts_at, settings, \
     rated, options, status, round, created_at, ended_at";

fn of_row(r: &sqlx::any::AnyRow) -> Result<Tournament, ActError> {
    let settings: String = r.try_get(7).map_err(e)?;
    let options: String = r.try_get(9).map_err(e)?;
    let bad = |x: serde_json::Error| ActError::internal(format!("a stored tournament: {x}"));
    Ok(Tournament {
        id: r.try_get(0).map_err(e)?,
        name: r.try_get(1).map_err(e)?,
        organiser_id: r.try_get(2).map_err(e)?,
        format: r.try_get(3).map_err(e)?,
        rounds: r.try_get(4).map_err(e)?,
        minutes: r.try_get(5).map_err(e)?,
        starts_at: r.try_get(6).map_err(e)?,
        settings: serde_json::from_str(&settings).map_err(bad)?,
        rated: r.try_get::<i64, _>(8).map_err(e)? != 0,
        options: serde_json::from_str(&options).map_err(bad)?,
        status: r.try_get(10).map_err(e)?,
        round: r.try_get(11).map_err(e)?,
        created_at: r.try_get(12).map_err(e)?,
        ended_at: r.try_get(13).map_err(e)?,
    })
}

/// Stores a new event.
pub async fn insert(store: &Store, t: &Tournament) -> Result<(), ActError> {
    sqlx::query(
        "INSERT INTO tournaments (id, name, organiser_id, format, rounds, minutes, starts_at, \
         settings, rated, options, status, round, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'upcoming', 0, $11)",
    )
    .bind(&t.id)
    .bind(&t.name)
    .bind(&t.organiser_id)
    .bind(&t.format)
    .bind(t.rounds)
    .bind(t.minutes)
    .bind(t.starts_at)
    .bind(serde_json::to_string(&t.settings).expect("settings serialise"))
    .bind(t.rated as i64)
    .bind(serde_json::to_string(&t.options).expect("options serialise"))
    .bind(t.created_at)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(())
}

/// The event `id`, if there is one.
pub async fn load(store: &Store, id: &str) -> Result<Option<Tournament>, ActError> {
    if id.is_empty() || id.len() > 40 {
        return Ok(None);
    }
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM tournaments WHERE id = $1"))
        .bind(id)
        .fetch_optional(&store.pool)
        .await
        .map_err(e)?;
    row.as_ref().map(of_row).transpose()
}

/// The events of one status, soonest (upcoming) or latest (the others) first, at most 100.
pub async fn of_status(store: &Store, status: &str) -> Result<Vec<Tournament>, ActError> {
    let order = if status == "upcoming" {
        "starts_at, id"
    } else {
        "starts_at DESC, id"
    };
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM tournaments WHERE status = $1 ORDER BY {order} LIMIT 100"
    ))
    .bind(status)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter().map(of_row).collect()
}

/// The ids of the events a sweep looks at: running ones, and upcoming ones whose start came.
pub async fn due(store: &Store, now: i64) -> Result<Vec<String>, ActError> {
    let rows = sqlx::query(
        "SELECT id FROM tournaments WHERE status = 'running' \
         OR (status = 'upcoming' AND starts_at <= $1) ORDER BY id",
    )
    .bind(now)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter().map(|r| r.try_get(0).map_err(e)).collect()
}

fn entrant_of(r: &sqlx::any::AnyRow) -> Result<Entrant, ActError> {
    let bot: Option<String> = r.try_get(2).map_err(e)?;
    Ok(Entrant {
        seq: r.try_get(0).map_err(e)?,
        account_id: r.try_get(1).map_err(e)?,
        bot: bot.and_then(|b| serde_json::from_str(&b).ok()),
        name: r.try_get(3).map_err(e)?,
        rank: r.try_get::<i64, _>(4).map_err(e)? as i32,
        rating: r.try_get(5).map_err(e)?,
        status: r.try_get(6).map_err(e)?,
        joined_at: r.try_get(7).map_err(e)?,
        checked_in_at: r.try_get(8).map_err(e)?,
        left_at: r.try_get(9).map_err(e)?,
    })
}

/// The players of event `id`, by number.
pub async fn entrants(store: &Store, id: &str) -> Result<Vec<Entrant>, ActError> {
    let rows = sqlx::query(
        "SELECT seq, account_id, bot, name, rank, rating, status, joined_at, checked_in_at, left_at \
         FROM tournament_players \
         WHERE tournament_id = $1 ORDER BY seq",
    )
    .bind(id)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter().map(entrant_of).collect()
}

/// Adds a player to event `id` with the next number, only while the event has `status` and
/// fewer than `max` players in; false when either no longer holds. Two entries taking the same
/// number at once: the later tries again.
pub async fn add_entrant(
    store: &Store,
    id: &str,
    status: &str,
    max: i64,
    en: &Entrant,
    now: i64,
) -> Result<bool, ActError> {
    let mut tries = 0;
    loop {
        let done = sqlx::query(
            "INSERT INTO tournament_players (tournament_id, seq, account_id, bot, name, rank, \
             rating, status, joined_at, checked_in_at) SELECT $1, (SELECT COALESCE(MAX(seq), 0) + 1 \
             FROM tournament_players WHERE tournament_id = $1), $2, $3, $4, $5, $6, 'in', $7, $10 \
             WHERE EXISTS (SELECT 1 FROM tournaments WHERE id = $1 AND status = $8) \
             AND (SELECT COUNT(*) FROM tournament_players WHERE tournament_id = $1 AND status = 'in') < $9",
        )
        .bind(id)
        .bind(&en.account_id)
        .bind(
            en.bot
                .as_ref()
                .map(|b| serde_json::to_string(b).expect("a bot level serialises")),
        )
        .bind(&en.name)
        .bind(en.rank as i64)
        .bind(en.rating)
        .bind(now)
        .bind(status)
        .bind(max)
        .bind(en.checked_in_at.map(|_| now))
        .execute(&store.writer)
        .await;
        match done {
            Ok(done) => return Ok(done.rows_affected() == 1),
            Err(sqlx::Error::Database(d)) if d.is_unique_violation() && tries < 5 => tries += 1,
            Err(x) => return Err(e(x)),
        }
    }
}

/// Marks `account`'s entry in event `id` checked in (the first time counts), only while the
/// event is upcoming; false when it is not in or the event has started.
pub async fn check_in(store: &Store, id: &str, account: &str, now: i64) -> Result<bool, ActError> {
    let done = sqlx::query(
        "UPDATE tournament_players SET checked_in_at = COALESCE(checked_in_at, $3) \
         WHERE tournament_id = $1 AND account_id = $2 AND status = 'in' \
         AND EXISTS (SELECT 1 FROM tournaments WHERE id = $1 AND status = 'upcoming')",
    )
    .bind(id)
    .bind(account)
    .bind(now)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(done.rows_affected() > 0)
}

/// Sets the players of running event `id` who did not check in `absent` (before round 1).
pub async fn mark_absent(store: &Store, id: &str) -> Result<(), ActError> {
    sqlx::query(
        "UPDATE tournament_players SET status = 'absent' WHERE tournament_id = $1 \
         AND status = 'in' AND checked_in_at IS NULL \
         AND EXISTS (SELECT 1 FROM tournaments WHERE id = $1 AND status = 'running' AND round = 0)",
    )
    .bind(id)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(())
}

/// The numbers of event `id`'s players that are bot accounts (the Bot API's).
pub async fn bot_accounts(store: &Store, id: &str) -> Result<Vec<i64>, ActError> {
    let rows = sqlx::query(
        "SELECT p.seq FROM tournament_players p JOIN accounts a ON a.id = p.account_id \
         WHERE p.tournament_id = $1 AND a.bot <> 0 ORDER BY p.seq",
    )
    .bind(id)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter().map(|r| r.try_get(0).map_err(e)).collect()
}

/// Marks `account`'s entry in event `id` withdrawn; false when it was not in.
pub async fn withdraw(store: &Store, id: &str, account: &str) -> Result<bool, ActError> {
    let done = sqlx::query(
        "UPDATE tournament_players SET status = 'withdrawn', left_at = $3 \
         WHERE tournament_id = $1 AND account_id = $2 AND status = 'in'",
    )
    .bind(id)
    .bind(account)
    .bind(crate::game::hub::now_ms())
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(done.rows_affected() > 0)
}

/// The other unfinished events `account` is entered in (at most 50).
pub async fn other_events_of(
    store: &Store,
    account: &str,
    except: &str,
) -> Result<Vec<Tournament>, ActError> {
    let cols: Vec<String> = COLUMNS.split(", ").map(|c| format!("t.{c}")).collect();
    let rows = sqlx::query(&format!(
        "SELECT {} FROM tournaments t JOIN tournament_players p ON p.tournament_id = t.id \
         WHERE p.account_id = $1 AND p.status = 'in' AND t.status <> 'finished' AND t.id <> $2 \
         ORDER BY t.id LIMIT 50",
        cols.join(", ")
    ))
    .bind(account)
    .bind(except)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter().map(of_row).collect()
}

fn board_of(r: &sqlx::any::AnyRow) -> Result<Board, ActError> {
    Ok(Board {
        round: r.try_get(0).map_err(e)?,
        board: r.try_get(1).map_err(e)?,
        black: r.try_get(2).map_err(e)?,
        white: r.try_get(3).map_err(e)?,
        handicap: r.try_get(4).map_err(e)?,
        game_id: r.try_get(5).map_err(e)?,
        result: r.try_get(6).map_err(e)?,
        set_by: r.try_get(7).map_err(e)?,
        created_at: r.try_get(8).map_err(e)?,
        ended_at: r.try_get(9).map_err(e)?,
    })
}

/// The boards of event `id`, by round and board.
pub async fn boards(store: &Store, id: &str) -> Result<Vec<Board>, ActError> {
    let rows = sqlx::query(
        "SELECT round, board, black, white, handicap, game_id, result, set_by, created_at, \
         ended_at FROM tournament_games WHERE tournament_id = $1 ORDER BY round, board",
    )
    .bind(id)
    .fetch_all(&store.pool)
    .await
    .map_err(e)?;
    rows.iter().map(board_of).collect()
}

/// Starts event `id` (from `upcoming`): true for the one process whose claim wins; its round
/// stays 0 until round 1 is paired, and `starts_at` becomes `now`.
pub async fn claim_start(store: &Store, id: &str, now: i64) -> Result<bool, ActError> {
    let done = sqlx::query(
        "UPDATE tournaments SET status = 'running', starts_at = $2 \
         WHERE id = $1 AND status = 'upcoming'",
    )
    .bind(id)
    .bind(now)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(done.rows_affected() == 1)
}

/// Sets the rounds of running event `id` before its round 1 (a round robin's count is its
/// field's).
pub async fn set_rounds(store: &Store, id: &str, rounds: i64) -> Result<(), ActError> {
    sqlx::query("UPDATE tournaments SET rounds = $2 WHERE id = $1 AND round = 0")
        .bind(id)
        .bind(rounds)
        .execute(&store.writer)
        .await
        .map_err(e)?;
    Ok(())
}

/// Stores a round's boards at once: false when another process stored that round first (the
/// boards' key is the claim on pairing it).
pub async fn insert_boards(store: &Store, id: &str, boards: &[Board]) -> Result<bool, ActError> {
    if boards.is_empty() {
        return Ok(true);
    }
    let values: Vec<String> = (0..boards.len())
        .map(|i| {
            let p: Vec<String> = (1..=10).map(|k| format!("${}", i * 10 + k)).collect();
            format!("({})", p.join(", "))
        })
        .collect();
    let sql = format!(
        "INSERT INTO tournament_games (tournament_id, round, board, black, white, handicap, \
         game_id, result, set_by, created_at) VALUES {}",
        values.join(", ")
    );
    let mut q = sqlx::query(&sql);
    for b in boards {
        q = q
            .bind(id)
            .bind(b.round)
            .bind(b.board)
            .bind(b.black)
            .bind(b.white)
            .bind(b.handicap)
            .bind(&b.game_id)
            .bind(&b.result)
            .bind(&b.set_by)
            .bind(b.created_at);
    }
    match q.execute(&store.writer).await {
        Ok(_) => Ok(true),
        Err(sqlx::Error::Database(d)) if d.is_unique_violation() => Ok(false),
        Err(x) => Err(e(x)),
    }
}

/// Shows round `from + 1` (its boards stored and games made): the event's round counter moves.
pub async fn advance_round(store: &Store, id: &str, from: i64) -> Result<bool, ActError> {
    let done = sqlx::query("UPDATE tournaments SET round = round + 1 WHERE id = $1 AND round = $2")
        .bind(id)
        .bind(from)
        .execute(&store.writer)
        .await
        .map_err(e)?;
    Ok(done.rows_affected() == 1)
}

/// Sets a board's result; with `only_open`, only where none is known yet. True when it changed.
pub async fn set_result(
    store: &Store,
    id: &str,
    round: i64,
    board: i64,
    result: &str,
    set_by: Option<&str>,
    only_open: bool,
) -> Result<bool, ActError> {
    let open = if only_open { " AND result IS NULL" } else { "" };
    let done = sqlx::query(&format!(
        "UPDATE tournament_games SET result = $4, set_by = $5, ended_at = $6 \
         WHERE tournament_id = $1 AND round = $2 AND board = $3{open}"
    ))
    .bind(id)
    .bind(round)
    .bind(board)
    .bind(result)
    .bind(set_by)
    .bind(crate::game::hub::now_ms())
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(done.rows_affected() > 0)
}

/// Ends event `id` (unless it has ended); true when this call ended it.
pub async fn finish(store: &Store, id: &str, now: i64) -> Result<bool, ActError> {
    let done = sqlx::query(
        "UPDATE tournaments SET status = 'finished', ended_at = $2 \
         WHERE id = $1 AND status <> 'finished'",
    )
    .bind(id)
    .bind(now)
    .execute(&store.writer)
    .await
    .map_err(e)?;
    Ok(done.rows_affected() == 1)
}

/// A stored game's status, move count and winner's seat name, from its summary.
pub async fn game_outcome(
    store: &Store,
    game: &str,
) -> Result<Option<(String, i64, Option<String>, bool)>, ActError> {
    let row = sqlx::query("SELECT status, summary FROM games WHERE id = $1")
        .bind(game)
        .fetch_optional(&store.pool)
        .await
        .map_err(e)?;
    let Some(r) = row else { return Ok(None) };
    let status: String = r.try_get(0).map_err(e)?;
    let summary: String = r.try_get(1).map_err(e)?;
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap_or_default();
    Ok(Some((
        status,
        v["moves"].as_i64().unwrap_or(0),
        v["winner"].as_str().map(str::to_string),
        v["aborted"].as_bool().unwrap_or(false),
    )))
}
