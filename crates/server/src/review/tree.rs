//! A Go review's editable tree ([`SgfDoc`]): made at upload ([`create_review`]), edited by the
//! controller's ops ([`apply_op`]), each op stored append-only in `review_ops` with the version
//! it made, the tree snapshotted every [`SNAPSHOT_EVERY`] ops; a restart (or another process)
//! rebuilds it from the snapshot and the ops after it. The trees of recent reviews are kept in
//! memory by version, so an op reads the database's row and nothing more.
//!
//! Who may edit: the review's controller (the owner at first: the uploader when the upload
//! carried a session or bearer token; an anonymous upload has nobody, and stays read-only).

use super::engine::Plan;
use super::stored::{sgf_error, SGF_LIMITS};
use super::{storage, valid_id};
use crate::game::hub::now_ms;
use crate::game::room::ActError;
use crate::state::AppState;
use baduk_go::sgf::doc::{Op, OpError, SgfDoc};
use baduk_go::Rules;
use serde_json::{json, Value};
use sqlx::Row;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Ops between two snapshots of a tree.
pub const SNAPSHOT_EVERY: i64 = 100;
/// Trees kept in memory (the most recently used).
pub const TREES_KEPT: usize = 64;
/// Tries of an op that lost a race with another writer before it answers 409.
const TRIES: usize = 4;

/// What an applied op did: the version it made (the current one when it changed nothing),
/// the delta every copy of the tree applies (the op, with `node` for a move), the node a move
/// made or found, and whether the tree changed (an op that changed nothing stores nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The review's version after the op.
    pub version: i64,
    /// The op as every copy applies it.
    pub delta: Value,
    /// A move's node.
    pub node: Option<u32>,
    /// Whether the tree changed (and the version with it).
    pub changed: bool,
}

/// An op's refusal as the API answers it.
pub fn op_refused(e: OpError) -> ActError {
    ActError::new(e.status, e.message).with_code(e.code, e.args)
}

/// A review's row as the tree needs it.
pub(super) struct TreeRow {
    pub kind: String,
    pub version: i64,
    tree_version: i64,
    tree: Option<String>,
    pub owner: Option<String>,
    pub controller: Option<String>,
    plan: Option<String>,
    record: String,
    index: usize,
    pub source_game: Option<String>,
    pub title: Option<String>,
}

fn no_review() -> ActError {
    ActError::not_found("no such review")
}

/// Review `id`'s row (404 when there is none).
pub(super) async fn row(st: &AppState, id: &str) -> Result<TreeRow, ActError> {
    if !valid_id(id) {
        return Err(no_review());
    }
    let r = sqlx::query(
        "SELECT kind, version, tree_version, tree, owner, controller, plan, record, game_index, \
         source_game, title FROM reviews WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(st.hub.store.read_pool())
    .await
    .map_err(storage)?
    .ok_or_else(no_review)?;
    Ok(TreeRow {
        kind: r.try_get("kind").map_err(storage)?,
        version: r.try_get("version").map_err(storage)?,
        tree_version: r.try_get("tree_version").map_err(storage)?,
        tree: r.try_get("tree").map_err(storage)?,
        owner: r.try_get("owner").map_err(storage)?,
        controller: r.try_get("controller").map_err(storage)?,
        plan: r.try_get("plan").map_err(storage)?,
        record: r.try_get("record").map_err(storage)?,
        index: r.try_get::<i64, _>("game_index").map_err(storage)? as usize,
        source_game: r.try_get("source_game").map_err(storage)?,
        title: r.try_get("title").map_err(storage)?,
    })
}

/// A Wall Go review has no tree.
fn not_go() -> ActError {
    ActError::bad_request("a Wall Go review has no game tree: only Go records do")
        .with_code("review.not_go", Value::Null)
}

/// The rules a review's moves are checked under: its engine plan's (the record's own when
/// they accept it).
pub(super) async fn rules_of(st: &AppState, id: &str, row: &TreeRow) -> Result<Rules, ActError> {
    let plan = match row
        .plan
        .as_deref()
        .and_then(|t| serde_json::from_str::<Plan>(t).ok())
    {
        Some(p) => p,
        None => super::load(st, id).await?.plan,
    };
    Ok(plan
        .rules
        .as_deref()
        .and_then(|r| Rules::parse(r).ok())
        .unwrap_or_default())
}

/// The trees kept in memory: (server, review, version, tree), the most recently used last (a
/// server is its hub's address: two servers in one process, as tests run them, keep their
/// own).
type Kept = Mutex<VecDeque<(usize, String, i64, Arc<SgfDoc>)>>;

fn kept() -> &'static Kept {
    static KEPT: std::sync::OnceLock<Kept> = std::sync::OnceLock::new();
    KEPT.get_or_init(Default::default)
}

fn server(st: &AppState) -> usize {
    Arc::as_ptr(&st.hub) as usize
}

/// Review `id`'s tree as kept, at a version up to `version` (another process may have
/// applied the ops after it), taken out of memory when `take` or when it is behind.
fn kept_doc(st: &AppState, id: &str, version: i64, take: bool) -> Option<(i64, Arc<SgfDoc>)> {
    let me = server(st);
    let mut k = kept().lock().expect("kept trees");
    let i = k.iter().position(|(s, r, _, _)| *s == me && r == id)?;
    let (s, r, v, d) = k.remove(i)?;
    if v > version {
        return None;
    }
    if !take && v == version {
        k.push_back((s, r, v, d.clone()));
    }
    Some((v, d))
}

fn keep_doc(st: &AppState, id: &str, version: i64, doc: Arc<SgfDoc>) {
    let me = server(st);
    let mut k = kept().lock().expect("kept trees");
    k.retain(|(s, r, _, _)| *s != me || r != id);
    k.push_back((me, id.to_string(), version, doc));
    while k.len() > TREES_KEPT {
        k.pop_front();
    }
}

/// Review `id`'s tree at the row's version: kept in memory, or its snapshot and the ops
/// after it (a review stored before trees were: its record read once and snapshotted).
pub(super) async fn doc(
    st: &AppState,
    id: &str,
    row: &TreeRow,
    rules: &Rules,
    take: bool,
) -> Result<Arc<SgfDoc>, ActError> {
    if row.kind != "go" {
        return Err(not_go());
    }
    // The kept tree as it is, or with the ops made since (by another process); else the
    // snapshot and the ops after it.
    let kept = kept_doc(st, id, row.version, take);
    if let Some((v, d)) = &kept {
        if *v == row.version {
            return Ok(d.clone());
        }
    }
    let from = kept.as_ref().map_or(row.tree_version, |(v, _)| *v);
    let ops: Vec<String> = sqlx::query(
        "SELECT op FROM review_ops WHERE review_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq",
    )
    .bind(id)
    .bind(from)
    .bind(row.version)
    .fetch_all(st.hub.store.read_pool())
    .await
    .map_err(storage)?
    .iter()
    .filter_map(|r| r.try_get::<String, _>("op").ok())
    .collect();
    let (snapshot, record, index, rules) =
        (row.tree.clone(), row.record.clone(), row.index, *rules);
    let fresh = snapshot.is_none() && kept.is_none();
    let review = id.to_string();
    let built = crate::game::work::heavy()
        .run(move || -> Result<(SgfDoc, Option<String>), ActError> {
            let mut d = match (kept, &snapshot) {
                (Some((_, d)), _) => Arc::unwrap_or_clone(d),
                (None, Some(t)) => SgfDoc::from_snapshot(t).map_err(|e| {
                    tracing::error!("review {review}: the tree's snapshot is unreadable: {e}");
                    ActError::internal("a stored review is unreadable")
                })?,
                (None, None) => {
                    SgfDoc::parse(&record, index, &SGF_LIMITS).map_err(|e| sgf_error(&e))?
                }
            };
            for text in &ops {
                let done = serde_json::from_str::<Value>(text)
                    .ok()
                    .and_then(|v| Op::parse(&v, d.size()).ok())
                    .map(|op| d.apply(&op, &rules, &SGF_LIMITS));
                if !matches!(done, Some(Ok(_))) {
                    tracing::error!("review {review}: a stored op no longer applies: {text}");
                }
            }
            let snap = fresh.then(|| d.snapshot());
            Ok((d, snap))
        })
        .await??;
    let (d, snap) = built;
    if let Some(s) = snap {
        // Stored once, so later reads start from it; a failure only costs a re-read.
        if let Err(e) = sqlx::query(
            "UPDATE reviews SET tree = $1, tree_version = $2 WHERE id = $3 AND tree IS NULL",
        )
        .bind(&s)
        .bind(row.version)
        .bind(id)
        .execute(st.hub.store.writer_pool())
        .await
        {
            tracing::warn!("review {id}: tree not stored: {e}");
        }
    }
    let d = Arc::new(d);
    if !take {
        keep_doc(st, id, row.version, d.clone());
    }
    Ok(d)
}

/// Reads an uploaded record and stores it as a new review: its summary, plan, game and tree,
/// owned and controlled by `owner_account_id` (none: nobody may edit it), made from
/// `source_game` (at `source_version`) with `title`. Answers the review's id; a refused record
/// stores nothing (a 4xx naming why).
pub async fn create_review(
    st: &AppState,
    text: &str,
    owner_account_id: Option<&str>,
    source_game: Option<&str>,
    title: Option<&str>,
) -> Result<String, ActError> {
    let source = source_game.map(|g| (g, None));
    create_review_with(st, text, owner_account_id, source, title).await
}

/// [`create_review`] with the version of the source game the record was taken at (what
/// makes one room per game and version).
pub async fn create_review_with(
    st: &AppState,
    text: &str,
    owner_account_id: Option<&str>,
    source: Option<(&str, Option<i64>)>,
    title: Option<&str>,
) -> Result<String, ActError> {
    let bytes = text.as_bytes().to_vec();
    let up = crate::game::work::heavy()
        .run(move || super::read_upload(&bytes, None))
        .await??;
    let (game, version) = source.unzip();
    store_upload(st, up, owner_account_id, game, version.flatten(), title).await
}

/// Stores an upload read as a new review (see [`create_review`]); its id.
pub(super) async fn store_upload(
    st: &AppState,
    up: super::Upload,
    owner: Option<&str>,
    source_game: Option<&str>,
    source_version: Option<i64>,
    title: Option<&str>,
) -> Result<String, ActError> {
    let id = crate::game::hub::new_id();
    sqlx::query(
        "INSERT INTO reviews (id, kind, record, game_index, summary, created_at, plan, game, \
         tree, tree_version, version, owner, controller, source_game, source_version, title) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, 0, $10, $10, $11, $12, $13)",
    )
    .bind(&id)
    .bind(up.kind.word())
    .bind(&up.text)
    .bind(up.index as i64)
    .bind(up.summary.to_string())
    .bind(now_ms())
    .bind(serde_json::to_string(&up.plan).expect("a plan serialises"))
    .bind(&up.game)
    .bind(&up.tree)
    .bind(owner)
    .bind(source_game)
    .bind(source_version)
    .bind(title)
    .execute(st.hub.store.writer_pool())
    .await
    .map_err(storage)?;
    Ok(id)
}

/// An account's name (None when there is no such account).
pub(super) async fn name_of(
    st: &AppState,
    account: Option<&str>,
) -> Result<Option<String>, ActError> {
    let Some(a) = account else {
        return Ok(None);
    };
    let acc = st.hub.store.account_by_id(a).await.map_err(|e| {
        tracing::error!("reviews: database: {e}");
        ActError::internal("the review could not be read; nothing was changed")
    })?;
    Ok(acc.map(|a| a.name))
}

/// 403 `review.no_control` unless `account` controls the review.
async fn check_control(
    st: &AppState,
    row: &TreeRow,
    account: Option<&str>,
) -> Result<(), ActError> {
    if account.is_some() && row.controller.as_deref() == account {
        return Ok(());
    }
    let name = name_of(st, row.controller.as_deref()).await?;
    let message = match &name {
        Some(n) => format!("only {n}, who has control, may change the shared board"),
        None => "nobody has control of this review (it was uploaded without an account): \
                 review it together to edit a copy of your own"
            .to_string(),
    };
    Err(ActError::forbidden(message).with_code("review.no_control", json!({"name": name})))
}

/// The lock of review `id`'s edits in this process: its ops apply one at a time (other
/// processes' ops are ordered by the stored version).
async fn edit_lock(st: &AppState, id: &str) -> tokio::sync::OwnedMutexGuard<()> {
    type Locks = Mutex<HashMap<(usize, String), Arc<tokio::sync::Mutex<()>>>>;
    static LOCKS: std::sync::OnceLock<Locks> = std::sync::OnceLock::new();
    let lock = {
        let mut l = LOCKS
            .get_or_init(Default::default)
            .lock()
            .expect("edit locks");
        l.retain(|_, m| Arc::strong_count(m) > 1);
        l.entry((server(st), id.to_string())).or_default().clone()
    };
    lock.lock_owned().await
}

fn stale(current: i64) -> ActError {
    ActError::conflict(format!(
        "the review is at version {current}: reload the tree and try again"
    ))
    .with_code("review.version", json!({"version": current}))
}

/// Applies `op` (its JSON, as the API takes it) to review `id`'s tree for `account_id`, who
/// must control it; `version`, when given, must be the review's current one (409
/// `review.version`). The op is checked, applied, stored (a new version) and answered; a
/// refused op stores nothing.
pub async fn apply_op(
    st: &AppState,
    id: &str,
    account_id: Option<&str>,
    op: &Value,
    version: Option<i64>,
) -> Result<Applied, ActError> {
    let _one_at_a_time = edit_lock(st, id).await;
    for _ in 0..TRIES {
        let row = row(st, id).await?;
        if row.kind != "go" {
            return Err(not_go());
        }
        check_control(st, &row, account_id).await?;
        if version.is_some_and(|v| v != row.version) {
            return Err(stale(row.version));
        }
        let rules = rules_of(st, id, &row).await?;
        let d = doc(st, id, &row, &rules, true).await?;
        let due = row.version + 1 - row.tree_version >= SNAPSHOT_EVERY;
        let op = op.clone();
        let done = crate::game::work::heavy()
            .run(move || {
                let mut d = Arc::unwrap_or_clone(d);
                let parsed = Op::parse(&op, d.size());
                let r = parsed.and_then(|p| {
                    let a = d.apply(&p, &rules, &SGF_LIMITS)?;
                    let snap = (a.changed && due).then(|| d.snapshot());
                    Ok((p.to_json(a.node), a, snap))
                });
                (d, r)
            })
            .await?;
        let (d, result) = done;
        let d = Arc::new(d);
        let (delta, a, snap) = match result {
            Ok(r) => r,
            Err(e) => {
                keep_doc(st, id, row.version, d);
                return Err(op_refused(e));
            }
        };
        if !a.changed {
            keep_doc(st, id, row.version, d);
            return Ok(Applied {
                version: row.version,
                delta,
                node: a.node,
                changed: false,
            });
        }
        let next = row.version + 1;
        if write(st, id, row.version, &delta, account_id, snap).await? {
            keep_doc(st, id, next, d);
            return Ok(Applied {
                version: next,
                delta,
                node: a.node,
                changed: true,
            });
        }
        // Another writer went first: with a version given the asker must reload.
        if version.is_some() {
            return Err(stale(next));
        }
    }
    Err(
        ActError::conflict("the review is being edited by others at the same time: try again")
            .with_code("review.version", Value::Null),
    )
}

/// Stores an applied op as version `from + 1` (with the tree's snapshot when one is due);
/// false when the review is no longer at `from`.
async fn write(
    st: &AppState,
    id: &str,
    from: i64,
    delta: &Value,
    account: Option<&str>,
    snap: Option<String>,
) -> Result<bool, ActError> {
    let next = from + 1;
    let mut tx = st.hub.store.writer_pool().begin().await.map_err(storage)?;
    let done = match &snap {
        Some(s) => sqlx::query(
            "UPDATE reviews SET version = $1, tree = $2, tree_version = $1 \
             WHERE id = $3 AND version = $4",
        )
        .bind(next)
        .bind(s)
        .bind(id)
        .bind(from),
        None => sqlx::query("UPDATE reviews SET version = $1 WHERE id = $2 AND version = $3")
            .bind(next)
            .bind(id)
            .bind(from),
    }
    .execute(&mut *tx)
    .await
    .map_err(storage)?;
    if done.rows_affected() != 1 {
        tx.rollback().await.map_err(storage)?;
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO review_ops (review_id, seq, op, account_id, at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(next)
    .bind(delta.to_string())
    .bind(account)
    .bind(now_ms())
    .execute(&mut *tx)
    .await
    .map_err(storage)?;
    tx.commit().await.map_err(storage)?;
    Ok(true)
}

/// The tree as pages read it, with the review's version.
pub async fn tree_json(st: &AppState, id: &str) -> Result<Value, ActError> {
    let row = row(st, id).await?;
    if row.kind != "go" {
        return Err(not_go());
    }
    let rules = rules_of(st, id, &row).await?;
    let d = doc(st, id, &row, &rules, false).await?;
    let version = row.version;
    crate::game::work::heavy()
        .run(move || {
            let mut j = d.to_json();
            j["version"] = json!(version);
            j
        })
        .await
}

/// The current tree of review `id` (with its row and rules), for the export, the engine
/// and the rules table on any node.
pub(super) async fn current(
    st: &AppState,
    id: &str,
) -> Result<(TreeRow, Rules, Arc<SgfDoc>), ActError> {
    let row = row(st, id).await?;
    let rules = rules_of(st, id, &row).await?;
    let d = doc(st, id, &row, &rules, false).await?;
    Ok((row, rules, d))
}

/// Who owns and controls review `id` (names), its version, title and source game: what
/// `GET /api/reviews/{id}` adds to the summary.
pub async fn meta(st: &AppState, id: &str) -> Result<Value, ActError> {
    let row = row(st, id).await?;
    Ok(json!({
        "owner": name_of(st, row.owner.as_deref()).await?,
        "controller": name_of(st, row.controller.as_deref()).await?,
        "version": row.version,
        "title": row.title,
        "source_game": row.source_game,
    }))
}
