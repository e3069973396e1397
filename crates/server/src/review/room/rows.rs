//! The rooms' rows: `review_rooms` (cursor, listing, the change counter, the holding process),
//! `review_chat` (the last lines), `review_sources` (the room of a game at a version), and
//! the review's own columns the room reads and sets (owner, controller, title).

use crate::store::{Store, StoreError};
use serde_json::{json, Value};
use sqlx::Row;

/// An account as a room names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Who {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// A room as stored.
#[derive(Clone, Debug)]
pub struct RoomRow {
    /// Who made the review (None: an anonymous upload, nobody edits it).
    pub owner: Option<Who>,
    /// Who may change the shared board.
    pub controller: Option<Who>,
    /// Its title.
    pub title: String,
    /// The game it was made from.
    pub source_game: Option<String>,
    /// The tree's version.
    pub version: i64,
    /// The shared node.
    pub cursor: i64,
    /// Listed in the lobby.
    pub public: bool,
    /// The room's change counter (cursor, control, title, chat).
    pub rev: i64,
}

/// The most chat lines a room keeps.
pub const CHAT_KEPT: i64 = 200;

fn who(id: Option<String>, name: Option<String>) -> Option<Who> {
    match (id, name) {
        (Some(id), Some(name)) => Some(Who { id, name }),
        _ => None,
    }
}

/// Whether review `id` exists.
pub async fn exists(store: &Store, id: &str) -> Result<bool, StoreError> {
    Ok(sqlx::query("SELECT 1 FROM reviews WHERE id = $1")
        .bind(id)
        .fetch_optional(store.read_pool())
        .await?
        .is_some())
}

/// Whether room `id` is listed (false for a room never opened).
pub async fn is_public(store: &Store, id: &str) -> Result<bool, StoreError> {
    let row = sqlx::query("SELECT public FROM review_rooms WHERE review_id = $1")
        .bind(id)
        .fetch_optional(store.read_pool())
        .await?;
    Ok(match row {
        Some(r) => r.try_get::<i64, _>(0)? != 0,
        None => false,
    })
}

/// Takes room `id` for node `me` if nobody holds it, `me` does, or its holder's lease ran out
/// by `now` (a missing row is made first); true if `me` holds it now. One statement decides:
/// two processes cannot both win.
pub async fn claim(store: &Store, id: &str, me: &str, now: i64) -> Result<bool, StoreError> {
    sqlx::query(
        "INSERT INTO review_rooms (review_id, node, updated_at) VALUES ($1, NULL, $2) \
         ON CONFLICT (review_id) DO NOTHING",
    )
    .bind(id)
    .bind(now)
    .execute(store.writer_pool())
    .await?;
    let done = sqlx::query(
        "UPDATE review_rooms SET node = $1 WHERE review_id = $2 AND (node IS NULL OR node = $1 \
         OR NOT EXISTS (SELECT 1 FROM nodes WHERE nodes.id = review_rooms.node \
         AND nodes.alive_until > $3))",
    )
    .bind(me)
    .bind(id)
    .bind(now)
    .execute(store.writer_pool())
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Room `id` as stored (None: no such review).
pub async fn load(store: &Store, id: &str) -> Result<Option<RoomRow>, StoreError> {
    let row = sqlx::query(
        "SELECT v.owner, ao.name, v.controller, ac.name, COALESCE(v.title, ''), v.source_game, \
         v.version, COALESCE(r.cursor, 0), COALESCE(r.public, 0), COALESCE(r.rev, 0) \
         FROM reviews v LEFT JOIN review_rooms r ON r.review_id = v.id \
         LEFT JOIN accounts ao ON ao.id = v.owner LEFT JOIN accounts ac ON ac.id = v.controller \
         WHERE v.id = $1",
    )
    .bind(id)
    .fetch_optional(store.read_pool())
    .await?;
    let Some(r) = row else { return Ok(None) };
    let owner = who(r.try_get(0)?, r.try_get(1)?);
    let controller = who(r.try_get(2)?, r.try_get(3)?);
    Ok(Some(RoomRow {
        owner,
        controller,
        title: r.try_get(4)?,
        source_game: r.try_get(5)?,
        version: r.try_get(6)?,
        cursor: r.try_get(7)?,
        public: r.try_get::<i64, _>(8)? != 0,
        rev: r.try_get(9)?,
    }))
}

/// The last `n` chat lines of room `id`, oldest first.
pub async fn chat_lines(store: &Store, id: &str, n: i64) -> Result<Vec<Value>, StoreError> {
    let rows = sqlx::query(
        "SELECT name, text, at FROM review_chat WHERE review_id = $1 ORDER BY seq DESC LIMIT $2",
    )
    .bind(id)
    .bind(n)
    .fetch_all(store.read_pool())
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows.iter().rev() {
        out.push(
            json!({"name": r.try_get::<String, _>(0)?, "text": r.try_get::<String, _>(1)?,
            "at": r.try_get::<i64, _>(2)?}),
        );
    }
    Ok(out)
}

/// Begins a change of room `id` by its holder `me`: the counter set to `rev`, checked to be
/// held by `me` (None, nothing stored, when another process holds it now). The caller adds
/// its statements and commits.
pub async fn fence(
    store: &Store,
    id: &str,
    me: &str,
    rev: i64,
    now: i64,
) -> Result<Option<sqlx::Transaction<'static, sqlx::Any>>, StoreError> {
    let mut tx = store.writer_pool().begin().await?;
    let done = sqlx::query(
        "UPDATE review_rooms SET rev = $1, updated_at = $2 WHERE review_id = $3 AND node = $4",
    )
    .bind(rev)
    .bind(now)
    .bind(id)
    .bind(me)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(None);
    }
    Ok(Some(tx))
}

/// Stores a chat line of room `id` as number `seq` in `tx`, and forgets the lines older than
/// the last [`CHAT_KEPT`].
pub async fn add_chat(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    id: &str,
    seq: i64,
    who: &Who,
    text: &str,
    at: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO review_chat (review_id, seq, account_id, name, text, at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(id)
    .bind(seq)
    .bind(&who.id)
    .bind(&who.name)
    .bind(text)
    .bind(at)
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM review_chat WHERE review_id = $1 AND seq <= $2")
        .bind(id)
        .bind(seq - CHAT_KEPT)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Records how many watch room `id` (for the listing), whoever holds it.
pub async fn set_watchers(store: &Store, id: &str, n: usize) -> Result<(), StoreError> {
    sqlx::query("UPDATE review_rooms SET watchers = $1 WHERE review_id = $2")
        .bind(n as i64)
        .bind(id)
        .execute(store.writer_pool())
        .await?;
    Ok(())
}

/// Drops node `me`'s hold on room `id` (it leaves memory here; the next request takes it
/// wherever it arrives).
pub async fn release(store: &Store, id: &str, me: &str) -> Result<(), StoreError> {
    sqlx::query("UPDATE review_rooms SET node = NULL WHERE review_id = $1 AND node = $2")
        .bind(id)
        .bind(me)
        .execute(store.writer_pool())
        .await?;
    Ok(())
}

/// Which of the rooms `ids` node `me` holds as stored.
pub async fn held_by(store: &Store, ids: &[String], me: &str) -> Result<Vec<String>, StoreError> {
    let mut out = Vec::new();
    for chunk in ids.chunks(500) {
        let marks: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT review_id FROM review_rooms WHERE node = $1 AND review_id IN ({})",
            marks.join(", ")
        );
        let mut q = sqlx::query(&sql).bind(me);
        for id in chunk {
            q = q.bind(id);
        }
        for r in q.fetch_all(store.read_pool()).await? {
            out.push(r.try_get(0)?);
        }
    }
    Ok(out)
}

/// The public rooms watched now (by a live process's count) or changed since `since`, the
/// most watched first: `{"id","title","owner","watchers","updated_at","source_game"}`.
pub async fn listed(
    store: &Store,
    since: i64,
    now: i64,
    limit: i64,
) -> Result<Vec<Value>, StoreError> {
    let rows = sqlx::query(
        "SELECT r.review_id, COALESCE(v.title, ''), a.name, r.watchers, r.updated_at, \
         v.source_game FROM review_rooms r JOIN reviews v ON v.id = r.review_id \
         LEFT JOIN accounts a ON a.id = v.owner \
         WHERE r.public = 1 AND (r.updated_at > $1 OR (r.watchers > 0 AND EXISTS \
         (SELECT 1 FROM nodes n WHERE n.id = r.node AND n.alive_until > $2))) \
         ORDER BY r.watchers DESC, r.updated_at DESC, r.review_id LIMIT $3",
    )
    .bind(since)
    .bind(now)
    .bind(limit)
    .fetch_all(store.read_pool())
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        out.push(json!({
            "id": r.try_get::<String, _>(0)?,
            "title": r.try_get::<String, _>(1)?,
            "owner": r.try_get::<Option<String>, _>(2)?,
            "watchers": r.try_get::<i64, _>(3)?,
            "updated_at": r.try_get::<i64, _>(4)?,
            "source_game": r.try_get::<Option<String>, _>(5)?,
        }));
    }
    Ok(out)
}

/// The room made from game `game` at `version`, if any.
pub async fn source(store: &Store, game: &str, version: i64) -> Result<Option<String>, StoreError> {
    let row = sqlx::query(
        "SELECT review_id FROM review_sources WHERE source_game = $1 AND source_version = $2",
    )
    .bind(game)
    .bind(version)
    .fetch_optional(store.read_pool())
    .await?;
    Ok(match row {
        Some(r) => Some(r.try_get(0)?),
        None => None,
    })
}

/// Records review `id` as the room of game `game` at `version`, listed; false (nothing
/// stored) when another was recorded first.
pub async fn add_source(
    store: &Store,
    game: &str,
    version: i64,
    id: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let mut tx = store.writer_pool().begin().await?;
    let done = sqlx::query(
        "INSERT INTO review_sources (source_game, source_version, review_id) VALUES ($1, $2, $3) \
         ON CONFLICT (source_game, source_version) DO NOTHING",
    )
    .bind(game)
    .bind(version)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO review_rooms (review_id, node, public, updated_at) VALUES ($1, NULL, 1, $2) \
         ON CONFLICT (review_id) DO UPDATE SET public = 1",
    )
    .bind(id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}
