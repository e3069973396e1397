//! Bot accounts: becoming one (`POST /api/account/bot`), what a bot accepts
//! (`PUT /api/account/bot/accepts`) and the list of bots (`GET /api/bots`). docs/api.md, "Bot API".

use crate::game::room::ActError;
use crate::players::accounts::{self, Account};
use crate::players::Auth;
use crate::state::{parse_json, AppState};
use crate::store::Store;
use axum::body::Bytes;
use axum::extract::State;
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sqlx::Row;

/// Games one bot may play at once, whatever its `max_games` says.
pub const MAX_GAMES: u32 = 32;
/// The board sizes a bot may accept (Go: 2 to 25 lines).
pub const SIZES: std::ops::RangeInclusive<u32> = 2..=25;
/// The games a bot may accept.
pub const GAMES: &[&str] = &["go", "wallgo"];
/// The clock kinds a bot may accept (`none`: no clock).
pub const CLOCKS: &[&str] = &["none", "absolute", "byo-yomi", "canadian", "fischer"];
/// What a bot may say of rated games.
pub const RATED: &[&str] = &["any", "rated", "unrated"];
/// The bots `GET /api/bots` lists at most.
pub const LISTED: i64 = 200;

/// What a bot accepts (ACCEPTS of docs/api.md); a field left out takes its default.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Accepts {
    /// The games (`go`, `wallgo`); default `["go"]`.
    #[serde(default = "default_games")]
    pub games: Vec<String>,
    /// The Go board sizes; default 9, 13 and 19.
    #[serde(default = "default_sizes")]
    pub sizes: Vec<u32>,
    /// The clock kinds ([`CLOCKS`]); default all of them.
    #[serde(default = "default_clocks")]
    pub clocks: Vec<String>,
    /// `any`, `rated` or `unrated`; default `any`.
    #[serde(default = "default_rated")]
    pub rated: String,
    /// Whether other bots may challenge it; default no.
    #[serde(default)]
    pub bots: bool,
    /// Games at once, 1 to [`MAX_GAMES`]; default 4.
    #[serde(default = "default_max_games")]
    pub max_games: u32,
}

fn default_games() -> Vec<String> {
    vec!["go".into()]
}
fn default_sizes() -> Vec<u32> {
    vec![9, 13, 19]
}
fn default_clocks() -> Vec<String> {
    CLOCKS.iter().map(|c| c.to_string()).collect()
}
fn default_rated() -> String {
    "any".into()
}
fn default_max_games() -> u32 {
    4
}

/// 400 `bot.accepts` naming the field and what it takes.
fn bad_accepts(field: &str, what: String) -> ActError {
    ActError::bad_request(format!("accepts.{field}: {what}"))
        .with_code("bot.accepts", json!({"field": field}))
}

impl Accepts {
    /// The same, checked and in a normal form (sorted, no repeats); 400 `bot.accepts` naming
    /// the field otherwise.
    pub fn checked(mut self) -> Result<Accepts, ActError> {
        let list = |field: &str, v: &mut Vec<String>, known: &[&str]| {
            v.sort_by_key(|g| known.iter().position(|k| k == g).unwrap_or(usize::MAX));
            v.dedup();
            match v.iter().find(|g| !known.contains(&g.as_str())) {
                Some(bad) => Err(bad_accepts(
                    field,
                    format!(
                        "`{}` is none of {}",
                        bad.chars().take(20).collect::<String>(),
                        known.join(", ")
                    ),
                )),
                None if v.is_empty() => Err(bad_accepts(
                    field,
                    format!("at least one of {}", known.join(", ")),
                )),
                None => Ok(()),
            }
        };
        list("games", &mut self.games, GAMES)?;
        list("clocks", &mut self.clocks, CLOCKS)?;
        self.sizes.sort_unstable();
        self.sizes.dedup();
        if self.sizes.is_empty() || self.sizes.iter().any(|s| !SIZES.contains(s)) {
            return Err(bad_accepts(
                "sizes",
                format!(
                    "board sizes from {} to {}, at least one",
                    SIZES.start(),
                    SIZES.end()
                ),
            ));
        }
        if !RATED.contains(&self.rated.as_str()) {
            return Err(bad_accepts("rated", format!("one of {}", RATED.join(", "))));
        }
        if !(1..=MAX_GAMES).contains(&self.max_games) {
            return Err(bad_accepts("max_games", format!("1 to {MAX_GAMES}")));
        }
        Ok(self)
    }
}

fn db(e: sqlx::Error) -> ActError {
    accounts::storage(e.into())
}

/// What became of a request to become a bot.
enum Became {
    /// The account is a bot now (or was already).
    Bot,
    /// It has played rated games against people: it stays a person.
    HasGames,
}

/// Makes the account a bot unless it played a rated game against another account (in one
/// statement: a game that ends meanwhile cannot slip past), and drops its open seeks.
async fn become_bot(store: &Store, account: &str) -> Result<Became, ActError> {
    let done = sqlx::query(
        "UPDATE accounts SET bot = 1 WHERE id = $1 AND guest = 0 AND NOT EXISTS (\
         SELECT 1 FROM seats s JOIN games g ON g.id = s.game_id \
         JOIN seats o ON o.game_id = s.game_id AND o.seat <> s.seat \
         WHERE s.account_id = $1 AND g.rated = 1 AND g.status <> 'cancelled' \
         AND o.account_id IS NOT NULL AND o.account_id <> $1)",
    )
    .bind(account)
    .execute(&store.writer)
    .await
    .map_err(db)?;
    if done.rows_affected() == 0 {
        return Ok(Became::HasGames);
    }
    sqlx::query("DELETE FROM seeks WHERE account_id = $1 AND game_id IS NULL")
        .bind(account)
        .execute(&store.writer)
        .await
        .map_err(db)?;
    Ok(Became::Bot)
}

/// `POST /api/account/bot` (the session only): the account becomes a bot, for good. 403
/// `bot.guest` for a guest, 409 `bot.has_games` when it played rated games against people.
pub(super) async fn post_become_bot(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
) -> Result<Json<Value>, ActError> {
    let who = crate::players::tokens::by_session(&auth)?;
    if who.account.guest {
        return Err(
            ActError::forbidden("a guest cannot become a bot: sign up first")
                .with_code("bot.guest", Value::Null),
        );
    }
    if !who.account.bot {
        if let Became::HasGames = become_bot(&st.hub.store, &who.account.id).await? {
            return Err(ActError::conflict(
                "this account has played rated games against people: make a new account for the bot",
            )
            .with_code("bot.has_games", Value::Null));
        }
    }
    let account = Account {
        bot: true,
        ..who.account.clone()
    };
    Ok(Json(json!({
        "account": crate::players::account_json(&st.hub.store, &account).await?,
    })))
}

/// `PUT /api/account/bot/accepts`: what the bot accepts from now on (challenges that do not
/// match are refused before they reach it). 403 `bot.not_bot` for a person's account.
pub(super) async fn put_accepts(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let who = auth.require()?;
    if !who.account.bot {
        return Err(ActError::forbidden(
            "only a bot account says what it accepts (POST /api/account/bot makes one)",
        )
        .with_code("bot.not_bot", Value::Null));
    }
    let raw: Value = parse_json(&body)?;
    let accepts: Accepts =
        serde_json::from_value(raw).map_err(|e| bad_accepts("body", e.to_string()))?;
    let accepts = accepts.checked()?;
    let text = serde_json::to_string(&accepts).expect("accepts serialise");
    sqlx::query("UPDATE accounts SET bot_accepts = $1 WHERE id = $2")
        .bind(&text)
        .bind(&who.account.id)
        .execute(&st.hub.store.writer)
        .await
        .map_err(db)?;
    Ok(Json(json!({ "accepts": accepts })))
}

/// What a bot accepts as stored (None: it has not said, or what it said no longer reads).
pub fn stored_accepts(text: Option<&str>) -> Option<Accepts> {
    text.and_then(|t| serde_json::from_str::<Accepts>(t).ok())
        .and_then(|a| a.checked().ok())
}

/// `GET /api/bots`: the bot accounts (online first: those holding an event stream on this
/// process), each with its ratings, what it accepts and its games in progress; beside them, the
/// server's own bots' ratings by kind (as before bot accounts).
pub(super) async fn list_bots(State(st): State<AppState>) -> Result<Json<Value>, ActError> {
    let store = &st.hub.store;
    let rows = sqlx::query(
        "SELECT id, name, bot_accepts FROM accounts WHERE bot = 1 ORDER BY seen_at DESC LIMIT $1",
    )
    .bind(LISTED)
    .fetch_all(&store.pool)
    .await
    .map_err(db)?;
    let playing = sqlx::query(
        "SELECT s.account_id, COUNT(*) FROM seats s JOIN games g ON g.id = s.game_id \
         JOIN accounts a ON a.id = s.account_id \
         WHERE a.bot = 1 AND g.status IN ('open', 'live') GROUP BY s.account_id",
    )
    .fetch_all(&store.pool)
    .await
    .map_err(db)?;
    let mut counts = std::collections::HashMap::new();
    for r in playing {
        counts.insert(
            r.try_get::<String, _>(0).map_err(db)?,
            r.try_get::<i64, _>(1).map_err(db)?,
        );
    }
    let mut bots = Vec::new();
    for r in rows {
        let id: String = r.try_get(0).map_err(db)?;
        let name: String = r.try_get(1).map_err(db)?;
        let accepts: Option<String> = r.try_get(2).map_err(db)?;
        let online = st.hub.events.listeners(&id) > 0;
        bots.push(json!({
            "name": name, "bot": true, "online": online,
            "ratings": crate::players::ratings_of(store, &id).await?,
            "accepts": stored_accepts(accepts.as_deref()),
            "playing": counts.get(&id).copied().unwrap_or(0),
        }));
    }
    // Online first; otherwise as last seen.
    bots.sort_by_key(|b| !b["online"].as_bool().unwrap_or(false));
    let mut out = crate::players::bot_levels();
    out["bots"] = Value::Array(bots);
    Ok(Json(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> Result<Accepts, ActError> {
        serde_json::from_value::<Accepts>(v)
            .map_err(|e| bad_accepts("body", e.to_string()))?
            .checked()
    }

    #[test]
    fn accepts_are_checked_and_normalised() {
        let a = parse(json!({"sizes": [19, 9, 9], "clocks": ["fischer", "none"]})).unwrap();
        assert_eq!(a.sizes, vec![9, 19]);
        assert_eq!(a.clocks, vec!["none", "fischer"]);
        assert_eq!(a.games, vec!["go"]);
        assert_eq!((a.rated.as_str(), a.bots, a.max_games), ("any", false, 4));
        for (bad, field) in [
            (json!({"sizes": [1]}), "sizes"),
            (json!({"sizes": [26]}), "sizes"),
            (json!({"sizes": []}), "sizes"),
            (json!({"games": ["chess"]}), "games"),
            (json!({"clocks": ["hourglass"]}), "clocks"),
            (json!({"rated": "sometimes"}), "rated"),
            (json!({"max_games": 0}), "max_games"),
            (json!({"max_games": 33}), "max_games"),
            (json!({"colour": "black"}), "body"),
            (json!({"bots": "yes"}), "body"),
        ] {
            let e = parse(bad.clone()).unwrap_err();
            assert_eq!(
                (e.code, e.args["field"].as_str()),
                ("bot.accepts", Some(field)),
                "{bad}"
            );
        }
    }
}
