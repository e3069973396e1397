//! Owns: the schema (`migrations/`), its migrations and the queries of games, seats and actions;
//! the plain data it keeps for a game (`types`: settings, seats, players, the action log with its
//! clocks, rating changes); SQLite's group commit (`group`); `backup` of a database; the payloads
//! it notifies the other processes with (`payload`; `cluster::bus` reads them); the database's
//! clock (`time`; the hub charges clocks by it); the one-process `lock` of a SQLite file. May use
//! `net` alone, nothing above it (`tests/layout.rs` keeps it so): a rated game's rating update
//! comes from `game::ratings` through [`RatingUpdate`], run in the store's transaction.
//!
//! Storage: one schema and one set of queries over SQLite (an embedded file, the default) or
//! PostgreSQL (several server processes on one database). Games, seats with token hashes, and
//! the append-only action log; a version column makes two processes unable to store two actions
//! for the same turn.

mod append;
pub mod away;
pub mod backup;
mod buckets;
mod conditional;
mod group;
pub mod lock;
mod opened;
pub mod payload;
mod schedule;
pub mod seed;
pub mod time;
pub mod types;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Executor, Row};
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use types::{ActionRow, Clocks, Player, RatingChange, SeatSpec, Settings};

/// The schema's migrations, in order (the same SQL serves both databases).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "games seats actions",
        include_str!("../../migrations/0001_games.sql"),
    ),
    (
        2,
        "heartbeat",
        include_str!("../../migrations/0002_heartbeat.sql"),
    ),
    (
        3,
        "finished by end",
        include_str!("../../migrations/0003_finished_by_end.sql"),
    ),
    (
        4,
        "accounts",
        include_str!("../../migrations/0004_accounts.sql"),
    ),
    (
        5,
        "reviews",
        include_str!("../../migrations/0005_reviews.sql"),
    ),
    (
        6,
        "cluster",
        include_str!("../../migrations/0006_cluster.sql"),
    ),
    (
        7,
        "review plan",
        include_str!("../../migrations/0007_review_plan.sql"),
    ),
    (
        8,
        "invites and name skeletons",
        include_str!("../../migrations/0008_invites_skeletons.sql"),
    ),
    (
        9,
        "opened games",
        include_str!("../../migrations/0009_opened_games.sql"),
    ),
    (
        10,
        "review game",
        include_str!("../../migrations/0010_review_game.sql"),
    ),
    (
        11,
        "token scopes",
        include_str!("../../migrations/0011_token_scopes.sql"),
    ),
    (
        12,
        "rate buckets",
        include_str!("../../migrations/0012_rate_buckets.sql"),
    ),
    (
        13,
        "bot accounts",
        include_str!("../../migrations/0013_bot_accounts.sql"),
    ),
    (
        14,
        "challenges",
        include_str!("../../migrations/0014_challenges.sql"),
    ),
    (
        15,
        "game schedule",
        include_str!("../../migrations/0015_schedule.sql"),
    ),
    (
        16,
        "correspondence",
        include_str!("../../migrations/0016_correspondence.sql"),
    ),
    (17, "mail", include_str!("../../migrations/0017_mail.sql")),
    (
        18,
        "conditional moves",
        include_str!("../../migrations/0018_conditional.sql"),
    ),
    (
        19,
        "review tree",
        include_str!("../../migrations/0019_review_tree.sql"),
    ),
    (
        20,
        "review rooms",
        include_str!("../../migrations/0020_review_rooms.sql"),
    ),
    (
        21,
        "tournaments",
        include_str!("../../migrations/0021_tournaments.sql"),
    ),
    (
        22,
        "ladders",
        include_str!("../../migrations/0022_ladders.sql"),
    ),
    (
        23,
        "tournament_times",
        include_str!("../../migrations/0023_tournament_times.sql"),
    ),
];

/// The database behind the server.
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) pool: AnyPool,
    /// Where writes go: SQLite has one writer at a time, so one connection takes them all
    /// (several would wait on each other's lock); PostgreSQL writes through the shared pool.
    pub(crate) writer: AnyPool,
    pub(crate) postgres: bool,
    url: String,
    /// Statements run on the games' tables, for `/metrics` (`baduk_db_queries_total`).
    pub queries: std::sync::Arc<QueryCounts>,
    /// The queue of the group commit (None in the group commit's own copy of the store).
    batcher: Option<tokio::sync::mpsc::UnboundedSender<group::AppendJob>>,
}

/// Statements the store and the cluster ran since the process started (the games, actions,
/// seats and nodes tables; accounts, chat and reviews are not counted).
#[derive(Debug, Default)]
pub struct QueryCounts {
    /// SELECTs (reads).
    pub select: std::sync::atomic::AtomicU64,
    /// Transactions that write (a commit of an action, a join, a lease renewal…).
    pub write: std::sync::atomic::AtomicU64,
    /// NOTIFYs sent (PostgreSQL).
    pub notify: std::sync::atomic::AtomicU64,
    /// Group commits: transactions that stored a batch of actions.
    pub group_commits: std::sync::atomic::AtomicU64,
    /// Actions stored by group commits.
    pub group_commit_actions: std::sync::atomic::AtomicU64,
}

/// A future the store awaits inside one of its transactions.
pub type Pending<'t, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 't>>;

/// The rating update of a rated game's end, run inside the transaction that stores its last
/// action (after the action's row, before the commit): `game::ratings` implements it for its
/// `RatedEnd`, so the store commits new ratings without knowing how they move.
pub trait RatingUpdate: Send + Sync {
    /// Updates the ratings of the game's players in its transaction; returns the changes.
    fn apply<'t>(&'t self, at: InTransaction<'t>) -> Pending<'t, Vec<RatingChange>>;
}

/// Where a [`RatingUpdate`] runs: the transaction storing a game's last action.
pub struct InTransaction<'t> {
    /// The open transaction (the action's row is in it).
    pub tx: &'t mut sqlx::Transaction<'static, sqlx::Any>,
    /// Whether the database is PostgreSQL (rows are locked in a fixed order there).
    pub postgres: bool,
    /// The game.
    pub game_id: &'t str,
    /// The action's time (ms): when the ratings moved.
    pub now: i64,
}

/// A stored game, as read back.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// Its settings.
    pub settings: Settings,
    /// When it was created.
    pub created_at: i64,
    /// Seat specs, token hashes and whether each was joined.
    pub seats: Vec<(SeatSpec, Option<[u8; 32]>, bool)>,
    /// The action log.
    pub actions: Vec<ActionRow>,
    /// The accounts holding the seats (as many as `seats`).
    pub players: Vec<Option<Player>>,
    /// Whether the game is rated.
    pub rated: bool,
    /// The rating changes its result made.
    pub rating_changes: Vec<RatingChange>,
    /// The node that owns it now (None: nobody yet, or its owner left).
    pub owner: Option<String>,
}

/// A new game's seat as stored: who sits there, its token's hash, the account holding it.
pub type NewSeat = (SeatSpec, Option<[u8; 32]>, Option<String>);

/// A new game's first row: its status and lobby line, when it was made, and its flags.
#[derive(Clone, Copy, Debug)]
pub struct FirstRow<'a> {
    /// `open` or `live`.
    pub status: &'a str,
    /// The lobby line (JSON).
    pub summary: &'a str,
    /// When it was made (ms).
    pub now: i64,
    /// Rated and listed.
    pub flags: GameFlags,
    /// The node that will own it (docs/scaling.md).
    pub owner: &'a str,
    /// Its schedule (whose move, when it must be looked at).
    pub schedule: &'a types::Schedule,
}

/// How a new game is listed and counted.
#[derive(Clone, Copy, Debug)]
pub struct GameFlags {
    /// The result moves the players' ratings.
    pub rated: bool,
    /// Shown in the lobby (false: invite-only).
    pub listed: bool,
}

impl Default for GameFlags {
    fn default() -> GameFlags {
        GameFlags {
            rated: false,
            listed: true,
        }
    }
}

/// What went wrong with storage.
#[derive(Debug)]
pub enum StoreError {
    /// Another action was stored for this turn first (another process or request).
    Conflict,
    /// This node no longer owns the game (another took it over): nothing was stored.
    Fenced,
    /// The database failed.
    Db(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Conflict => f.write_str("another action was stored for this turn first"),
            StoreError::Fenced => f.write_str("this process no longer owns the game"),
            StoreError::Db(e) => write!(f, "database: {e}"),
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        StoreError::Db(e.to_string())
    }
}

fn hex(h: &[u8; 32]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// A token hash from its hex form (as stored and as a join's event carries it).
pub(crate) fn unhex(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// Normalises a database URL: `sqlite:PATH` opens (and creates) a file.
fn normalise(url: &str) -> Result<String, String> {
    if let Some(rest) = url.strip_prefix("sqlite:") {
        let rest = rest.trim_start_matches("//");
        if rest.is_empty() {
            return Err("sqlite: URL names no file (use sqlite:./baduk.db)".into());
        }
        if rest.starts_with(":memory:") {
            return Err(
                "an in-memory database would lose every game at exit; name a file (sqlite:./baduk.db)"
                    .into(),
            );
        }
        let sep = if rest.contains('?') { '&' } else { '?' };
        Ok(if rest.contains("mode=") {
            format!("sqlite://{rest}")
        } else {
            format!("sqlite://{rest}{sep}mode=rwc")
        })
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(url.to_string())
    } else {
        Err("expected sqlite:PATH or postgres://USER@HOST/DB".into())
    }
}

impl Store {
    /// Opens the database at `url` and applies the migrations; the error names the URL and why.
    pub async fn open(url: &str) -> Result<Store, String> {
        sqlx::any::install_default_drivers();
        let full = normalise(url).map_err(|e| format!("database {url}: {e}"))?;
        let postgres = !full.starts_with("sqlite:");
        let opts =
            AnyConnectOptions::from_str(&full).map_err(|e| format!("database {url}: {e}"))?;
        let connect = |max: u32| {
            AnyPoolOptions::new()
                .max_connections(max)
                .after_connect(move |conn, _| {
                    Box::pin(async move {
                        if !postgres {
                            // WAL with synchronous=NORMAL survives a killed process: a committed
                            // transaction is in the WAL before the answer goes out.
                            conn.execute("PRAGMA journal_mode=WAL").await?;
                            conn.execute("PRAGMA synchronous=NORMAL").await?;
                            conn.execute("PRAGMA busy_timeout=10000").await?;
                            conn.execute("PRAGMA foreign_keys=ON").await?;
                        }
                        Ok(())
                    })
                })
                .connect_with(opts.clone())
        };
        let pool = connect(if postgres { 10 } else { 4 })
            .await
            .map_err(|e| format!("database {url}: cannot open: {e}"))?;
        let writer = if postgres {
            pool.clone()
        } else {
            connect(1)
                .await
                .map_err(|e| format!("database {url}: cannot open: {e}"))?
        };
        let migrator = Migrator {
            migrations: Cow::Owned(
                MIGRATIONS
                    .iter()
                    .map(|&(v, d, sql)| {
                        Migration::new(
                            v,
                            Cow::Borrowed(d),
                            MigrationType::Simple,
                            Cow::Borrowed(sql),
                            false,
                        )
                    })
                    .collect(),
            ),
            ..Migrator::DEFAULT
        };
        migrator
            .run(&pool)
            .await
            .map_err(|e| format!("database {url}: cannot migrate: {e}"))?;
        let mut store = Store {
            pool,
            writer,
            postgres,
            url: url.to_string(),
            queries: Default::default(),
            batcher: None,
        };
        store
            .fill_skeletons()
            .await
            .map_err(|e| format!("database {url}: cannot note the names' skeletons: {e}"))?;
        // Both databases: actions that wait for the writer share one transaction.
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(group::group_commits(store.clone(), rx));
        store.batcher = Some(tx);
        Ok(store)
    }

    /// The pool for a counted read.
    pub(crate) fn read(&self) -> &AnyPool {
        self.counted_select();
        &self.pool
    }

    /// The pool for a counted write.
    pub(crate) fn write(&self) -> &AnyPool {
        self.counted_write();
        &self.writer
    }

    /// Counts one SELECT (for `/metrics`).
    pub(crate) fn counted_select(&self) {
        self.queries
            .select
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Counts one writing statement or transaction (for `/metrics`).
    pub(crate) fn counted_write(&self) {
        self.queries
            .write
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether this is PostgreSQL (events cross processes by LISTEN/NOTIFY).
    pub fn is_postgres(&self) -> bool {
        self.postgres
    }

    /// The URL it was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stores a new game with its seats.
    pub async fn create_game(
        &self,
        id: &str,
        settings: &Settings,
        seats: &[NewSeat; 2],
        first: &FirstRow<'_>,
    ) -> Result<(), StoreError> {
        let FirstRow {
            status,
            summary,
            now,
            flags,
            owner,
            schedule,
        } = *first;
        let mut tx = self.write().begin().await?;
        let settings_json = serde_json::to_string(settings).expect("settings serialise");
        let game = match settings {
            Settings::Go { .. } => "go",
            Settings::Wallgo { .. } => "wallgo",
        };
        sqlx::query(
            "INSERT INTO games (id, game, settings, status, version, summary, created_at, updated_at, rated, listed, owner, \
             to_move, turn_since, deadline, wake_at) \
             VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        )
        .bind(id)
        .bind(game)
        .bind(settings_json)
        .bind(status)
        .bind(summary)
        .bind(now)
        .bind(now)
        .bind(flags.rated as i64)
        .bind(flags.listed as i64)
        .bind(owner)
        .bind(schedule.to_move.as_deref())
        .bind(schedule.turn_since)
        .bind(schedule.deadline)
        .bind(schedule.wake_at)
        .execute(&mut *tx)
        .await?;
        for (i, (spec, hash, account)) in seats.iter().enumerate() {
            sqlx::query(
                "INSERT INTO seats (game_id, seat, spec, token_hash, joined, account_id) VALUES ($1, $2, $3, $4, 0, $5)",
            )
            .bind(id)
            .bind(i as i64)
            .bind(serde_json::to_string(spec).expect("seat spec serialises"))
            .bind(hash.as_ref().map(hex))
            .bind(account.as_deref())
            .execute(&mut *tx)
            .await?;
        }
        // No event of its own: no other process has a game that did not exist loaded; its
        // owner hears of it by `own:`.
        self.notify_owner(&mut tx, id, owner).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn notify(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        id: &str,
    ) -> Result<(), StoreError> {
        self.notify_payload(tx, id).await
    }

    /// Sends `payload` on the bus at once, outside any transaction (PostgreSQL; nothing on
    /// SQLite).
    pub async fn notify_now(&self, payload: &str) -> Result<(), StoreError> {
        let mut tx = self.write().begin().await?;
        self.notify_payload(&mut tx, payload).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Sends `payload` on the bus (PostgreSQL; delivered when the transaction commits).
    pub(crate) async fn notify_payload(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        payload: &str,
    ) -> Result<(), StoreError> {
        if self.postgres {
            self.queries
                .notify
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sqlx::query("SELECT pg_notify('baduk_games', $1)")
                .bind(payload)
                .execute(&mut **tx)
                .await?;
        }
        Ok(())
    }

    /// Marks a seat as joined (and refreshes the lobby line); the event carries the seat's
    /// token hash and player, so the other processes apply it without reading the game.
    pub async fn join(
        &self,
        id: &str,
        seat: usize,
        (status, summary, schedule): (&str, &str, &types::Schedule),
        holder: (Option<&[u8; 32]>, Option<&Player>),
    ) -> Result<(), StoreError> {
        let mut tx = self.write().begin().await?;
        sqlx::query("UPDATE seats SET joined = 1 WHERE game_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat as i64)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE games SET status = $1, summary = $2, to_move = $4, turn_since = $5, \
             deadline = $6, wake_at = $7 WHERE id = $3",
        )
        .bind(status)
        .bind(summary)
        .bind(id)
        .bind(schedule.to_move.as_deref())
        .bind(schedule.turn_since)
        .bind(schedule.deadline)
        .bind(schedule.wake_at)
        .execute(&mut *tx)
        .await?;
        let (hash, player) = holder;
        match payload::join_payload(id, seat, hash.map(hex).as_deref(), player) {
            Some(p) => self.notify_payload(&mut tx, &p).await?,
            None => self.notify(&mut tx, id).await?,
        }
        tx.commit().await?;
        Ok(())
    }

    /// Gives an open seat its token, once; false if it already had one.
    pub async fn claim(
        &self,
        id: &str,
        seat: usize,
        hash: &[u8; 32],
        account: Option<&str>,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE seats SET token_hash = $1, account_id = $4 WHERE game_id = $2 AND seat = $3 AND token_hash IS NULL",
        )
        .bind(hex(hash))
        .bind(id)
        .bind(seat as i64)
        .bind(account)
        .execute(self.write())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Gives a seat a new token (rotation): the old one stops working.
    pub async fn set_token(
        &self,
        id: &str,
        seat: usize,
        hash: &[u8; 32],
    ) -> Result<(), StoreError> {
        let mut tx = self.write().begin().await?;
        sqlx::query("UPDATE seats SET token_hash = $1 WHERE game_id = $2 AND seat = $3")
            .bind(hex(hash))
            .bind(id)
            .bind(seat as i64)
            .execute(&mut *tx)
            .await?;
        self.notify(&mut tx, id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The newest heartbeat any process stored (None: none yet).
    pub async fn last_alive(&self) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT alive_at FROM heartbeat WHERE id = 1")
            .fetch_optional(self.read())
            .await?;
        Ok(match row {
            Some(r) => Some(r.try_get(0)?),
            None => None,
        })
    }

    /// Records that a process is alive at `now` (never moves the heartbeat back).
    pub async fn heartbeat(&self, now: i64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO heartbeat (id, alive_at) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at \
             WHERE heartbeat.alive_at < excluded.alive_at",
        )
        .bind(now)
        .execute(self.write())
        .await?;
        Ok(())
    }

    /// How far the database's clock is ahead of this machine's, in ms (0 for SQLite, which is
    /// on this machine).
    pub async fn clock_offset(&self) -> Result<i64, StoreError> {
        if !self.postgres {
            return Ok(0);
        }
        let before = time::local_ms();
        let row = sqlx::query(
            "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)",
        )
        .fetch_one(self.read())
        .await?;
        let after = time::local_ms();
        let db: i64 = row.try_get(0)?;
        Ok(db - (before + after) / 2)
    }

    /// Reads a whole game, or None if there is no such game.
    pub async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let Some(g) =
            sqlx::query("SELECT settings, created_at, rated, owner FROM games WHERE id = $1")
                .bind(id)
                .fetch_optional(self.read())
                .await?
        else {
            return Ok(None);
        };
        let settings: String = g.try_get(0)?;
        let settings: Settings = serde_json::from_str(&settings)
            .map_err(|e| StoreError::Db(format!("game {id}: bad settings: {e}")))?;
        let created_at: i64 = g.try_get(1)?;
        let rated: i64 = g.try_get(2)?;
        let owner: Option<String> = g.try_get(3)?;
        let kind = types::kind_of(&settings).unwrap_or("");
        let rows = sqlx::query(
            "SELECT s.spec, s.token_hash, s.joined, s.account_id, a.name, r.rating, r.deviation, r.games, a.bot \
             FROM seats s LEFT JOIN accounts a ON a.id = s.account_id \
             LEFT JOIN ratings r ON r.account_id = s.account_id AND r.kind = $2 \
             WHERE s.game_id = $1 ORDER BY s.seat",
        )
        .bind(id)
        .bind(kind)
        .fetch_all(self.read())
        .await?;
        let mut seats = Vec::new();
        let mut players = Vec::new();
        for r in rows {
            let spec: String = r.try_get(0)?;
            let hash: Option<String> = r.try_get(1)?;
            let joined: i64 = r.try_get(2)?;
            let spec: SeatSpec = serde_json::from_str(&spec)
                .map_err(|e| StoreError::Db(format!("game {id}: bad seat: {e}")))?;
            seats.push((spec, hash.as_deref().and_then(unhex), joined != 0));
            let account: Option<String> = r.try_get(3)?;
            let name: Option<String> = r.try_get(4)?;
            let rating: Option<f64> = r.try_get(5)?;
            let deviation: Option<f64> = r.try_get(6)?;
            let games: Option<i64> = r.try_get(7)?;
            let bot: Option<i64> = r.try_get(8)?;
            players.push(account.zip(name).map(|(id, name)| Player {
                id,
                name,
                bot: bot.unwrap_or(0) != 0,
                rating: Some(match (rating, deviation) {
                    (Some(r), Some(d)) => (r, d, games.unwrap_or(0)),
                    _ => (1500.0, 350.0, 0),
                }),
                away: Default::default(),
            }));
        }
        if types::is_correspondence(&settings) {
            self.fill_away(&mut players).await?;
        }
        let rating_changes = if rated != 0 {
            self.rating_changes(id, &players).await?
        } else {
            Vec::new()
        };
        let actions = self.actions_since(id, 0).await?;
        Ok(Some(StoredGame {
            settings,
            created_at,
            seats,
            actions,
            players,
            rated: rated != 0,
            rating_changes,
            owner,
        }))
    }

    /// The rating changes stored for a game's seats.
    async fn rating_changes(
        &self,
        id: &str,
        players: &[Option<Player>],
    ) -> Result<Vec<RatingChange>, StoreError> {
        let rows = sqlx::query(
            "SELECT account_id, kind, rating_before, deviation_before, rating, deviation \
             FROM rating_history WHERE game_id = $1",
        )
        .bind(id)
        .fetch_all(self.read())
        .await?;
        let mut out = Vec::new();
        for r in rows {
            let account: String = r.try_get(0)?;
            let Some(seat) = players
                .iter()
                .position(|p| p.as_ref().is_some_and(|p| p.id == account))
            else {
                continue;
            };
            let rating = |a: f64, d: f64| baduk_rating::Rating {
                rating: a,
                deviation: d,
                volatility: 0.06,
            };
            out.push(RatingChange {
                seat,
                kind: r.try_get(1)?,
                before: rating(r.try_get(2)?, r.try_get(3)?),
                after: rating(r.try_get(4)?, r.try_get(5)?),
            });
        }
        out.sort_by_key(|c| c.seat);
        Ok(out)
    }

    /// The actions after `seq`, in order.
    pub async fn actions_since(&self, id: &str, seq: i64) -> Result<Vec<ActionRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, seat, action, at, auto, clocks FROM actions \
             WHERE game_id = $1 AND seq > $2 ORDER BY seq",
        )
        .bind(id)
        .bind(seq)
        .fetch_all(self.read())
        .await?;
        rows.into_iter()
            .map(|r| {
                let clocks: String = r.try_get(5)?;
                let clocks: Clocks = serde_json::from_str(&clocks)
                    .map_err(|e| StoreError::Db(format!("game {id}: bad clocks: {e}")))?;
                Ok(ActionRow {
                    seq: r.try_get(0)?,
                    seat: r.try_get::<i64, _>(1)? as usize,
                    action: r.try_get(2)?,
                    at: r.try_get(3)?,
                    auto: r.try_get::<i64, _>(4)? != 0,
                    clocks,
                })
            })
            .collect()
    }

    /// The lobby: summaries of games with `status`, newest first (finished ones by when they
    /// ended), `limit` of them, older than the cursor `before` (`time:id`).
    pub async fn list(
        &self,
        status: &str,
        limit: i64,
        before: Option<(i64, String)>,
    ) -> Result<Vec<(String, i64, String)>, StoreError> {
        let (t, id) = before.unwrap_or((i64::MAX, String::new()));
        // Finished games by when they ended (their last action), the others by creation.
        let col = if status == "finished" {
            "updated_at"
        } else {
            "created_at"
        };
        let sql = format!(
            "SELECT id, {col}, summary FROM games WHERE status = $1 AND listed = 1 \
             AND ({col} < $2 OR ({col} = $3 AND id < $4)) \
             ORDER BY {col} DESC, id DESC LIMIT $5"
        );
        let rows = sqlx::query(&sql)
            .bind(status)
            .bind(t)
            .bind(t)
            .bind(if id.is_empty() { "~".to_string() } else { id })
            .bind(limit)
            .fetch_all(self.read())
            .await?;
        rows.into_iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
            .collect()
    }

    /// Keeps the hash (hex SHA-256) of an unlisted game's invite secret.
    pub async fn set_invite(&self, id: &str, invite_hash: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE games SET invite_hash = $1 WHERE id = $2")
            .bind(invite_hash)
            .bind(id)
            .execute(self.write())
            .await?;
        Ok(())
    }

    /// Whether a game is listed, and its invite hash (hex) if it keeps one; None: no such game.
    pub async fn invite_of(&self, id: &str) -> Result<Option<(bool, Option<String>)>, StoreError> {
        let row = sqlx::query("SELECT listed, invite_hash FROM games WHERE id = $1")
            .bind(id)
            .fetch_optional(self.read())
            .await?;
        match row {
            None => Ok(None),
            Some(r) => Ok(Some((r.try_get::<i64, _>(0)? != 0, r.try_get(1)?))),
        }
    }

    /// Ids of every game not yet finished (loaded at start so clocks and bots run on).
    pub async fn unfinished(&self) -> Result<Vec<String>, StoreError> {
        let rows =
            sqlx::query("SELECT id FROM games WHERE status NOT IN ('finished', 'cancelled')")
                .fetch_all(self.read())
                .await?;
        rows.into_iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    /// The stored versions of the games `ids` (those that exist), to catch up on missed
    /// events: one query per 500 games, never a scan of every game.
    pub async fn versions_of(&self, ids: &[String]) -> Result<Vec<(String, i64)>, StoreError> {
        self.games_by_ids("id, version", ids).await
    }

    /// `columns` (two) of the games `ids` (those that exist), one query per 500 games.
    pub(crate) async fn games_by_ids<A, B>(
        &self,
        columns: &str,
        ids: &[String],
    ) -> Result<Vec<(A, B)>, StoreError>
    where
        for<'r> A: sqlx::Decode<'r, sqlx::Any> + sqlx::Type<sqlx::Any>,
        for<'r> B: sqlx::Decode<'r, sqlx::Any> + sqlx::Type<sqlx::Any>,
    {
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT {columns} FROM games WHERE id IN ({})",
                marks.join(", ")
            );
            let mut q = sqlx::query(&sql);
            for id in chunk {
                q = q.bind(id);
            }
            for r in q.fetch_all(self.read()).await? {
                out.push((r.try_get(0)?, r.try_get(1)?));
            }
        }
        Ok(out)
    }

    /// Ids of finished games of `game` (`go` or `wallgo`), oldest first.
    pub async fn finished(&self, game: &str) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM games WHERE status = 'finished' AND game = $1 ORDER BY created_at, id",
        )
        .bind(game)
        .fetch_all(self.read())
        .await?;
        rows.into_iter().map(|r| Ok(r.try_get(0)?)).collect()
    }
}

/// The pools for modules that keep their own tables and SQL (reviews).
impl Store {
    /// The pool reads go through.
    pub(crate) fn read_pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The pool writes go through (one connection on SQLite).
    pub(crate) fn writer_pool(&self) -> &AnyPool {
        &self.writer
    }
}
