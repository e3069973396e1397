//! Accounts: usernames and the password policy, argon2id password hashes, sessions (a cookie
//! naming a server-side row), personal API tokens, and the SQL behind them (one schema for
//! SQLite and PostgreSQL). docs/api.md, "Players".

use crate::game::hub::{hash_token, new_id, new_token, now_ms};
use crate::game::room::ActError;
use crate::store::{Store, StoreError};
use serde_json::{json, Value};
use sqlx::Row;
use std::sync::{Mutex, OnceLock};
use unicode_normalization::UnicodeNormalization;

pub use crate::game::room::sign_in_first;

/// The session cookie's name.
pub const COOKIE: &str = "baduk_session";
/// How long a session lasts (ms): 30 days.
pub const SESSION_MS: i64 = 30 * 24 * 3_600_000;
/// Usernames: at least this many characters (after NFKC).
pub const NAME_MIN: usize = 3;
/// Usernames: at most this many characters (after NFKC).
pub const NAME_MAX: usize = 20;
/// Passwords: at least this many characters.
pub const PASSWORD_MIN: usize = 8;
/// Passwords: at most this many bytes (the hash's work stays bounded).
pub const PASSWORD_MAX: usize = 256;
/// Prefix of personal API tokens (seat tokens are bare hex).
pub const API_TOKEN_PREFIX: &str = "bdk_";
/// API tokens an account may hold at once.
pub const API_TOKENS_MAX: i64 = 20;
/// The scopes an API token may hold: `read` (GETs and opening sockets), `play` (every change:
/// moves, chat, seeks, games), `challenge` and `bot` (accepted and kept for later use).
pub const SCOPES: [&str; 4] = ["read", "play", "challenge", "bot"];
/// The scope that reads: own games, profile, streams.
pub const READ: &str = "read";
/// The scope that plays in one's own seats: moves, chat, seeks, games created.
pub const PLAY: &str = "play";
/// The scope that challenges and answers challenges (`/api/challenges…`).
pub const CHALLENGE: &str = "challenge";
/// The scope of a bot account's tokens (the Bot API): its games, challenges and streams only.
pub const BOT: &str = "bot";
/// The scopes of a token made without a choice, and of tokens made before scopes existed.
pub const DEFAULT_SCOPES: [&str; 2] = [READ, PLAY];

/// An account as the server knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Account {
    /// Its id (never shown to others).
    pub id: String,
    /// Its name as chosen (NFKC).
    pub name: String,
    /// A guest (no password; can become a named account).
    pub guest: bool,
    /// A bot account (the Bot API; one way): it plays through `bot` tokens only.
    pub bot: bool,
    /// When it was made (ms since 1970).
    pub created_at: i64,
}

/// How a request proved who it is.
#[derive(Clone, Debug)]
pub enum Via {
    /// The session cookie (state changes need the CSRF token).
    Session {
        /// SHA-256 (hex) of the cookie's token.
        token_hash: String,
        /// The session's CSRF token.
        csrf: String,
    },
    /// A personal API token and its scopes.
    ApiToken {
        /// What it may do ([`SCOPES`]).
        scopes: Vec<String>,
    },
}

/// The account behind a request and how it proved it.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The account.
    pub account: Account,
    /// Cookie or API token.
    pub via: Via,
}

impl Identity {
    /// Whether this request may do what `scope` covers: a session may do anything, an API token
    /// what its scopes say; else 403 `auth.scope` naming the missing scope.
    pub fn may(&self, scope: &'static str) -> Result<(), ActError> {
        self.may_any(&[scope])
    }

    /// Whether the identity holds one of `scopes` (a session holds every scope); 403
    /// `auth.scope` naming the first otherwise.
    pub fn may_any(&self, wanted: &[&'static str]) -> Result<(), ActError> {
        let scope = wanted.first().copied().unwrap_or(READ);
        match &self.via {
            Via::Session { .. } => Ok(()),
            Via::ApiToken { scopes } if scopes.iter().any(|s| wanted.contains(&s.as_str())) => Ok(()),
            Via::ApiToken { scopes } => Err(ActError::forbidden(format!(
                "this API token lacks the `{scope}` scope (it holds: {}); make a token with it on /me",
                if scopes.is_empty() { "none".to_string() } else { scopes.join(", ") }
            ))
            .with_code("auth.scope", json!({"scope": scope, "scopes": scopes}))),
        }
    }
}

impl Identity {
    /// Whether this request is a bot account's, with an API token holding the `bot` scope (a
    /// person's token made with it before bot accounts existed means nothing more).
    pub fn bot_token(&self) -> bool {
        self.account.bot
            && matches!(&self.via, Via::ApiToken { scopes } if scopes.iter().any(|s| s == BOT))
    }

    /// Whether this request may play for its account (act in its seats, chat, join, seek): a
    /// person's session or `play` token (else 403 `auth.scope`); a bot account's `bot` token
    /// only (else 403 `bot.token_only`).
    pub fn may_play(&self) -> Result<(), ActError> {
        match (self.account.bot, self.bot_token()) {
            (true, true) => Ok(()),
            (true, false) => Err(bot_token_only()),
            (false, _) => self.may(PLAY),
        }
    }
}

/// 403 `bot.token_only`: a bot account plays (acts, chats, joins) through a `bot` token only.
pub fn bot_token_only() -> ActError {
    ActError::forbidden(
        "this is a bot account: it plays only through an API token with the `bot` scope \
         (its session and other tokens read, but do not act, chat, join or seek)",
    )
    .with_code("bot.token_only", Value::Null)
}

/// 403 `auth.session_only`: an account-level action (sign out everywhere, API tokens) needs
/// the session cookie; an API token, whatever its scopes, does not do it.
pub fn session_only() -> ActError {
    ActError::forbidden(
        "account-level actions (sign out everywhere, making, listing and revoking API tokens) \
         need a signed-in session (the cookie), not an API token",
    )
    .with_code("auth.session_only", Value::Null)
}

/// The scopes chosen for a new token, in [`SCOPES`]' order without repeats (None: the
/// default, [`DEFAULT_SCOPES`]); 400 `auth.scopes` naming the allowed ones otherwise.
pub fn chosen_scopes(asked: Option<&[String]>) -> Result<Vec<&'static str>, ActError> {
    let Some(asked) = asked else {
        return Ok(DEFAULT_SCOPES.to_vec());
    };
    let bad =
        |m: String| ActError::bad_request(m).with_code("auth.scopes", json!({"allowed": SCOPES}));
    if asked.len() > SCOPES.len() * 2 {
        return Err(bad(format!(
            "scopes: at most {} of {}",
            SCOPES.len(),
            SCOPES.join(", ")
        )));
    }
    if let Some(unknown) = asked.iter().find(|a| !SCOPES.contains(&a.as_str())) {
        let shown: String = unknown.chars().take(20).collect();
        return Err(bad(format!(
            "scopes: `{shown}` is none of {}",
            SCOPES.join(", ")
        )));
    }
    let chosen: Vec<&'static str> = SCOPES
        .into_iter()
        .filter(|s| asked.iter().any(|a| a == s))
        .collect();
    if chosen.is_empty() {
        return Err(bad(format!(
            "scopes: choose at least one of {}",
            SCOPES.join(", ")
        )));
    }
    Ok(chosen)
}

/// A stored scope list (comma-separated) as the scopes it names.
fn scopes_of(stored: &str) -> Vec<String> {
    stored
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// What a session cookie names.
pub enum SessionLookup {
    /// A live session.
    Live(Identity),
    /// A session that was signed out, revoked or expired.
    Ended,
    /// No session of this server.
    Unknown,
}

fn hex(h: &[u8; 32]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 (hex) of a secret (cookie token or API token): what the database keeps.
pub fn secret_hash(secret: &str) -> String {
    hex(&hash_token(secret))
}

fn is_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

/// A username in normal form and its uniqueness key (NFKC, then lower case); 400 `auth.name`
/// naming the rule otherwise.
pub fn normalise_name(raw: &str) -> Result<(String, String), ActError> {
    let bad = || {
        ActError::bad_request(format!(
            "username: {NAME_MIN} to {NAME_MAX} characters of a-z A-Z 0-9 _ - or Hangul syllables, starting with a letter or a syllable"
        ))
        .with_code("auth.name", json!({"min": NAME_MIN, "max": NAME_MAX}))
    };
    if raw.len() > 200 {
        return Err(bad());
    }
    let name: String = raw.trim().nfkc().collect();
    let count = name.chars().count();
    let ok = (NAME_MIN..=NAME_MAX).contains(&count)
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || is_syllable(c))
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || is_syllable(c));
    if !ok {
        return Err(bad());
    }
    let key = name.to_lowercase();
    if key.starts_with("guest") {
        return Err(ActError::bad_request(
            "username: names starting with `guest` are the server's",
        )
        .with_code("auth.name", json!({"min": NAME_MIN, "max": NAME_MAX})));
    }
    Ok((name, key))
}

/// The confusable skeleton of a username (UTS #39), case folded: `aIice`, `a1ice` and `ALICE`
/// all have `alice`'s. Two names with one skeleton look alike.
pub fn skeleton(name: &str) -> String {
    let once: String = unicode_security::confusable_detection::skeleton(name).collect();
    unicode_security::confusable_detection::skeleton(&once.to_lowercase()).collect()
}

/// 409 `auth.lookalike`: the name looks like `existing`'s (UTS #39 skeletons are equal).
pub fn look_alike(existing: &str) -> ActError {
    ActError::conflict(format!(
        "username: looks like the existing account `{existing}` (confusable letters, Unicode TS #39); choose another"
    ))
    .with_code("auth.lookalike", json!({"name": existing}))
}

/// Whether `password` is one of the 1,000 most common passwords (zxcvbn's ranked list of
/// leaked passwords: the whole password is one entry of rank ≤ 1000, in any letter case).
pub fn is_common_password(password: &str) -> bool {
    if password.chars().count() > 64 {
        return false;
    }
    let e = zxcvbn::zxcvbn(password, &[]);
    let seq = e.sequence();
    seq.len() == 1
        && match &seq[0].pattern {
            zxcvbn::matching::patterns::MatchPattern::Dictionary(d) => {
                format!("{:?}", d.dictionary_name) == "Passwords"
                    && d.rank <= 1000
                    && !d.reversed
                    && !d.l33t
            }
            _ => false,
        }
}

/// The password policy: at least 8 characters, at most 256 bytes, not a common password.
pub fn check_password(password: &str) -> Result<(), ActError> {
    if password.chars().count() < PASSWORD_MIN {
        return Err(
            ActError::bad_request(format!("password: at least {PASSWORD_MIN} characters"))
                .with_code("auth.password_short", json!({"min": PASSWORD_MIN})),
        );
    }
    if password.len() > PASSWORD_MAX {
        return Err(ActError::bad_request(format!(
            "password: at most {PASSWORD_MAX} bytes"
        )));
    }
    if is_common_password(password) {
        return Err(ActError::bad_request(
            "password: one of the 1,000 most common passwords; choose another",
        )
        .with_code("auth.password_common", Value::Null));
    }
    Ok(())
}

/// Runs `f` on a reusable argon2 work area of `blocks` blocks. Areas are kept (at most one a
/// core) instead of freed: the allocator kept most of each freed 19 MiB area, so 400 sign-ups
/// left the server at 860 MiB; now hashing holds at most 19 MiB a core.
fn with_area<R>(blocks: usize, f: impl FnOnce(&mut [argon2::Block]) -> R) -> R {
    static AREAS: Mutex<Vec<Vec<argon2::Block>>> = Mutex::new(Vec::new());
    let taken = {
        let mut areas = AREAS.lock().unwrap_or_else(|p| p.into_inner());
        let i = areas.iter().position(|a| a.len() == blocks);
        i.map(|i| areas.swap_remove(i))
    };
    let mut area = taken.unwrap_or_else(|| vec![argon2::Block::default(); blocks]);
    let out = f(&mut area);
    let keep = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut areas = AREAS.lock().unwrap_or_else(|p| p.into_inner());
    if areas.len() < keep {
        areas.push(area);
    }
    out
}

/// The hash of `password` under `argon` with `salt`, as PHC's hash part.
fn argon2_output(
    argon: &argon2::Argon2<'_>,
    params: &argon2::Params,
    password: &str,
    salt: argon2::password_hash::Salt<'_>,
) -> argon2::password_hash::Result<argon2::password_hash::Output> {
    let mut salt_buf = [0u8; 64];
    let salt = salt.decode_b64(&mut salt_buf)?;
    let len = params
        .output_len()
        .unwrap_or(argon2::Params::DEFAULT_OUTPUT_LEN);
    with_area(params.block_count(), |area| {
        argon2::password_hash::Output::init_with(len, |out| {
            Ok(argon.hash_password_into_with_memory(password.as_bytes(), salt, out, area)?)
        })
    })
}

/// An argon2id hash (PHC string) of `password` with a fresh salt (argon2's default parameters:
/// m=19 MiB, t=2, p=1). Slow on purpose: run it on a blocking thread.
pub fn hash_password(password: &str) -> String {
    use argon2::password_hash::{ParamsString, PasswordHash, SaltString};
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system gives random bytes");
    let salt = SaltString::encode_b64(&salt).expect("16 bytes make a salt");
    let params = argon2::Params::default();
    let argon = argon2::Argon2::new(
        argon2::Algorithm::Argon2id,
        argon2::Version::V0x13,
        params.clone(),
    );
    let hash = argon2_output(&argon, &params, password, salt.as_salt())
        .expect("argon2 hashes any password");
    PasswordHash {
        algorithm: argon2::Algorithm::Argon2id.ident(),
        version: Some(argon2::Version::V0x13.into()),
        params: ParamsString::try_from(&params).expect("the default parameters print"),
        salt: Some(salt.as_salt()),
        hash: Some(hash),
    }
    .to_string()
}

/// Whether `password` matches the stored hash (`None`: a made-up hash, so an unknown name costs
/// the same time as a known one).
pub fn verify_password(password: &str, stored: Option<&str>) -> bool {
    use argon2::password_hash::PasswordHash;
    static DUMMY: OnceLock<String> = OnceLock::new();
    let (phc, real) = match stored {
        Some(h) => (h, true),
        None => (
            DUMMY
                .get_or_init(|| hash_password("not a password of anyone"))
                .as_str(),
            false,
        ),
    };
    let Ok(parsed) = PasswordHash::new(phc) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(params)) = (
        argon2::Algorithm::try_from(parsed.algorithm),
        argon2::Params::try_from(&parsed),
    ) else {
        return false;
    };
    let version = match parsed.version.map(argon2::Version::try_from) {
        None => argon2::Version::default(),
        Some(Ok(v)) => v,
        Some(Err(_)) => return false,
    };
    let argon = argon2::Argon2::new(algorithm, version, params.clone());
    // `Output`'s equality is constant-time.
    let ok = argon2_output(&argon, &params, password, salt).is_ok_and(|h| h == expected);
    ok && real
}

/// 401 `auth.wrong`: the same answer whether or not the name exists.
pub fn wrong_login() -> ActError {
    ActError::unauthorized("wrong username or password").with_code("auth.wrong", Value::Null)
}

/// 401 `auth.ended`.
pub fn session_ended() -> ActError {
    ActError::unauthorized("this session has ended: sign in again")
        .with_code("auth.ended", Value::Null)
}

/// 403 `auth.csrf`.
pub fn csrf_refused() -> ActError {
    ActError::forbidden(
        "missing or wrong X-CSRF-Token for this session; reload the page (nothing was changed)",
    )
    .with_code("auth.csrf", Value::Null)
}

fn db(e: StoreError) -> ActError {
    match e {
        StoreError::Conflict | StoreError::Fenced => {
            ActError::conflict("that was changed at the same moment; try again")
        }
        StoreError::Db(m) => {
            tracing::error!("accounts storage failed: {m}");
            ActError::internal("storage failed, nothing was changed; try again")
        }
    }
}

/// Maps a storage error of the accounts to a client's error (the database's words are logged).
pub fn storage(e: StoreError) -> ActError {
    db(e)
}

fn account_of(r: &sqlx::any::AnyRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        guest: r.try_get::<i64, _>("guest")? != 0,
        bot: r.try_get::<i64, _>("bot")? != 0,
        created_at: r.try_get("created_at")?,
    })
}

fn unique(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => StoreError::Conflict,
        _ => e.into(),
    }
}

impl Store {
    /// Makes an account; [`StoreError::Conflict`] when the name's key is taken.
    pub async fn create_account(
        &self,
        name: &str,
        key: &str,
        password_hash: Option<&str>,
        guest: bool,
    ) -> Result<Account, StoreError> {
        let id = new_token()[..24].to_string();
        let now = now_ms();
        sqlx::query(
            "INSERT INTO accounts (id, name, name_key, password_hash, guest, created_at, seen_at, skeleton) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&id)
        .bind(name)
        .bind(key)
        .bind(password_hash)
        .bind(guest as i64)
        .bind(now)
        .bind(now)
        .bind(skeleton(name))
        .execute(&self.writer)
        .await
        .map_err(unique)?;
        Ok(Account {
            id,
            name: name.to_string(),
            guest,
            bot: false,
            created_at: now,
        })
    }

    /// The account named `key` (lower-case NFKC) and its password hash.
    pub async fn account_by_key(
        &self,
        key: &str,
    ) -> Result<Option<(Account, Option<String>)>, StoreError> {
        let row = sqlx::query(
            "SELECT id, name, guest, bot, created_at, password_hash FROM accounts WHERE name_key = $1",
        )
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            None => Ok(None),
            Some(r) => Ok(Some((account_of(&r)?, r.try_get("password_hash")?))),
        }
    }

    /// Turns a guest into a named account (its games and ratings stay its own).
    pub async fn upgrade_guest(
        &self,
        id: &str,
        name: &str,
        key: &str,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE accounts SET name = $1, name_key = $2, password_hash = $3, guest = 0, \
             skeleton = $4 WHERE id = $5 AND guest = 1",
        )
        .bind(name)
        .bind(key)
        .bind(password_hash)
        .bind(skeleton(name))
        .bind(id)
        .execute(&self.writer)
        .await
        .map_err(unique)?;
        Ok(done.rows_affected() == 1)
    }

    /// The name of another account that looks like `name` (the same [`skeleton`], another
    /// key); None when there is none. The same key is left to the insert (`auth.taken`).
    pub async fn look_alike_of(&self, name: &str, key: &str) -> Result<Option<String>, StoreError> {
        let row =
            sqlx::query("SELECT name FROM accounts WHERE skeleton = $1 AND name_key <> $2 LIMIT 1")
                .bind(skeleton(name))
                .bind(key)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|r| r.try_get(0)).transpose()?)
    }

    /// Notes the skeleton of every account that has none yet (those made before skeletons
    /// were kept); run at start, a no-op after the first time.
    pub async fn fill_skeletons(&self) -> Result<(), StoreError> {
        loop {
            let rows =
                sqlx::query("SELECT id, name FROM accounts WHERE skeleton IS NULL LIMIT 1000")
                    .fetch_all(&self.pool)
                    .await?;
            if rows.is_empty() {
                return Ok(());
            }
            for r in rows {
                let (id, name): (String, String) = (r.try_get(0)?, r.try_get(1)?);
                sqlx::query("UPDATE accounts SET skeleton = $1 WHERE id = $2")
                    .bind(skeleton(&name))
                    .bind(&id)
                    .execute(&self.writer)
                    .await?;
            }
        }
    }

    /// Starts a session; returns the cookie's token and the CSRF token.
    pub async fn create_session(&self, account_id: &str) -> Result<(String, String), StoreError> {
        let token = new_token();
        let csrf = new_token();
        let now = now_ms();
        sqlx::query(
            "INSERT INTO sessions (token_hash, account_id, csrf, created_at, expires_at, ended) \
             VALUES ($1, $2, $3, $4, $5, 0)",
        )
        .bind(secret_hash(&token))
        .bind(account_id)
        .bind(&csrf)
        .bind(now)
        .bind(now + SESSION_MS)
        .execute(&self.writer)
        .await?;
        Ok((token, csrf))
    }

    /// What a session cookie's token names.
    pub async fn session(&self, token: &str) -> Result<SessionLookup, StoreError> {
        if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(SessionLookup::Unknown);
        }
        let h = secret_hash(token);
        let row = sqlx::query(
            "SELECT a.id, a.name, a.guest, a.bot, a.created_at, s.csrf, s.expires_at, s.ended \
             FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = $1",
        )
        .bind(&h)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else {
            return Ok(SessionLookup::Unknown);
        };
        let ended: i64 = r.try_get("ended")?;
        let expires: i64 = r.try_get("expires_at")?;
        if ended != 0 || expires <= now_ms() {
            return Ok(SessionLookup::Ended);
        }
        Ok(SessionLookup::Live(Identity {
            account: account_of(&r)?,
            via: Via::Session {
                token_hash: h,
                csrf: r.try_get("csrf")?,
            },
        }))
    }

    /// Ends one session.
    pub async fn end_session(&self, token_hash: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET ended = 1 WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// Ends every session of an account and revokes its API tokens ("sign out everywhere").
    pub async fn end_sessions(&self, account_id: &str) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        sqlx::query("UPDATE sessions SET ended = 1 WHERE account_id = $1")
            .bind(account_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE api_tokens SET revoked = 1 WHERE account_id = $1")
            .bind(account_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Makes a personal API token holding `scopes`; returns (id, token). None: the account
    /// holds the most.
    pub async fn create_api_token(
        &self,
        account_id: &str,
        label: &str,
        scopes: &[&str],
    ) -> Result<Option<(String, String)>, StoreError> {
        let n: i64 =
            sqlx::query("SELECT COUNT(*) FROM api_tokens WHERE account_id = $1 AND revoked = 0")
                .bind(account_id)
                .fetch_one(&self.pool)
                .await?
                .try_get(0)?;
        if n >= API_TOKENS_MAX {
            return Ok(None);
        }
        let id = new_id();
        let token = format!("{API_TOKEN_PREFIX}{}", new_token());
        sqlx::query(
            "INSERT INTO api_tokens (id, token_hash, account_id, label, created_at, revoked, scopes) \
             VALUES ($1, $2, $3, $4, $5, 0, $6)",
        )
        .bind(&id)
        .bind(secret_hash(&token))
        .bind(account_id)
        .bind(label)
        .bind(now_ms())
        .bind(scopes.join(","))
        .execute(&self.writer)
        .await?;
        Ok(Some((id, token)))
    }

    /// The live API tokens of an account: (id, label, created_at, scopes).
    pub async fn api_tokens(&self, account_id: &str) -> Result<Vec<Value>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, label, created_at, scopes FROM api_tokens WHERE account_id = $1 \
             AND revoked = 0 ORDER BY created_at",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(
                    json!({"id": r.try_get::<String, _>(0)?, "label": r.try_get::<String, _>(1)?,
                    "created_at": r.try_get::<i64, _>(2)?,
                    "scopes": scopes_of(&r.try_get::<String, _>(3)?)}),
                )
            })
            .collect()
    }

    /// Revokes an API token of an account; false if it had none of that id.
    pub async fn revoke_api_token(&self, account_id: &str, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE api_tokens SET revoked = 1 WHERE id = $1 AND account_id = $2 AND revoked = 0",
        )
        .bind(id)
        .bind(account_id)
        .execute(&self.writer)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The account a personal API token belongs to and the token's scopes, if it is live.
    pub async fn api_token_account(
        &self,
        token: &str,
    ) -> Result<Option<(Account, Vec<String>)>, StoreError> {
        let row = sqlx::query(
            "SELECT a.id, a.name, a.guest, a.bot, a.created_at, t.scopes FROM api_tokens t \
             JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = $1 AND t.revoked = 0",
        )
        .bind(secret_hash(token))
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        Ok(Some((
            account_of(&r)?,
            scopes_of(&r.try_get::<String, _>("scopes")?),
        )))
    }

    /// Notes that an account was seen now (for "online").
    pub async fn touch_account(&self, account_id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE accounts SET seen_at = $1 WHERE id = $2")
            .bind(now_ms())
            .bind(account_id)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    /// The account with this id, if there is one.
    pub async fn account_by_id(&self, id: &str) -> Result<Option<Account>, StoreError> {
        let row =
            sqlx::query("SELECT id, name, guest, bot, created_at FROM accounts WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.as_ref().map(account_of).transpose()?)
    }

    /// Named accounts seen since `since` (ms), newest first, at most `limit`.
    pub async fn online(&self, since: i64, limit: i64) -> Result<Vec<Account>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, name, guest, bot, created_at FROM accounts WHERE seen_at >= $1 \
             ORDER BY seen_at DESC LIMIT $2",
        )
        .bind(since)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| account_of(r).map_err(Into::into))
            .collect()
    }

    /// When an account was last seen (ms).
    pub async fn seen_at(&self, account_id: &str) -> Result<i64, StoreError> {
        Ok(sqlx::query("SELECT seen_at FROM accounts WHERE id = $1")
            .bind(account_id)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get::<i64, _>(0))
            .transpose()?
            .unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_are_nfkc_case_folded_and_charset_checked() {
        assert_eq!(
            normalise_name("Lee_Sedol").unwrap(),
            ("Lee_Sedol".into(), "lee_sedol".into())
        );
        // Full-width letters are the ASCII ones after NFKC: the same key, no look-alike.
        assert_eq!(normalise_name("Ｌｅｅ_Sedol").unwrap().1, "lee_sedol");
        assert_eq!(normalise_name("이세돌").unwrap().1, "이세돌");
        for bad in [
            "ab",
            "1abc",
            "a b c",
            "Lее",
            "abc<script>",
            "",
            "a".repeat(21).as_str(),
        ] {
            let e = normalise_name(bad).unwrap_err();
            assert_eq!(e.code, "auth.name", "{bad}");
        }
        assert!(normalise_name("Guest-12").is_err());
    }

    #[test]
    fn scopes_are_four_kept_in_one_order_and_none_is_no_choice() {
        let ask = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(chosen_scopes(None).unwrap(), vec!["read", "play"]);
        assert_eq!(
            chosen_scopes(Some(&ask(&["bot", "read", "bot"]))).unwrap(),
            vec!["read", "bot"]
        );
        for bad in [
            &[][..],
            &["admin"][..],
            &["read", "Play"][..],
            &["read"; 9][..],
        ] {
            let e = chosen_scopes(Some(&ask(bad))).unwrap_err();
            assert_eq!((e.status, e.code), (400, "auth.scopes"), "{bad:?}");
        }
        assert_eq!(scopes_of("read,play"), vec!["read", "play"]);
        assert_eq!(scopes_of(""), Vec::<String>::new());
    }

    #[test]
    fn common_passwords_are_refused_and_short_ones_too() {
        for p in [
            "password",
            "12345678",
            "baseball",
            "football",
            "Superman",
            "qwertyuiop",
        ] {
            assert!(is_common_password(p), "{p}");
        }
        for p in [
            "correct horse battery",
            "tengen-hoshi-komoku",
            "baduk4life!x",
        ] {
            assert!(!is_common_password(p), "{p}");
        }
        assert_eq!(
            check_password("short").unwrap_err().code,
            "auth.password_short"
        );
        assert_eq!(
            check_password("password").unwrap_err().code,
            "auth.password_common"
        );
        assert!(check_password("tengen-hoshi-komoku").is_ok());
    }

    #[test]
    fn argon2id_hashes_verify_and_an_unknown_name_never_does() {
        let h = hash_password("tengen-hoshi-komoku");
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_password("tengen-hoshi-komoku", Some(&h)));
        assert!(!verify_password("tengen-hoshi-komokU", Some(&h)));
        assert!(!verify_password("not a password of anyone", None));
        assert!(!verify_password(
            "tengen-hoshi-komoku",
            Some("$argon2id$garbage")
        ));
    }

    #[test]
    fn hashes_made_in_reused_areas_are_the_argon2_crates_own() {
        use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
        // Ours, checked by the crate's verifier (the stored hashes stay portable).
        let ours = hash_password("hoshi-and-komoku");
        let parsed = PasswordHash::new(&ours).expect("a PHC string");
        assert!(argon2::Argon2::default()
            .verify_password(b"hoshi-and-komoku", &parsed)
            .is_ok());
        // The crate's (as stored before the areas were reused), checked by ours, twice (the
        // second run reuses the first one's area).
        let salt = SaltString::encode_b64(b"sixteen bytes!!!").expect("a salt");
        let theirs = argon2::Argon2::default()
            .hash_password(b"sansan-point", &salt)
            .expect("a hash")
            .to_string();
        assert!(verify_password("sansan-point", Some(&theirs)));
        assert!(verify_password("sansan-point", Some(&theirs)));
        assert!(!verify_password("sansan-poinT", Some(&theirs)));
        // Other parameters (a smaller area) verify too.
        let small = argon2::Argon2::new(
            argon2::Algorithm::Argon2id,
            argon2::Version::V0x13,
            argon2::Params::new(1024, 1, 1, None).expect("params"),
        )
        .hash_password(b"sansan-point", &salt)
        .expect("a hash")
        .to_string();
        assert!(verify_password("sansan-point", Some(&small)));
    }
}
