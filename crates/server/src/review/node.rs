//! The upload and the tree over HTTP — `POST /api/reviews`, `GET /api/reviews/{id}/tree`,
//! `POST /api/reviews/{id}/ops` — and the
//! engine on any node: the position after a node of the tree searched once, under the same
//! budget, caps and fair queue as the main line's positions (the engine's queue holds it as
//! `review@node`), its result stored per (review, position) in `review_positions`, so the same
//! position on two branches, or a node asked for twice, is searched once.

use super::engine::{go_config, search_go, Engine, Place};
use super::tree;
use super::{read_upload, storage, BODY_LIMIT};
use crate::game::room::ActError;
use crate::players::Auth;
use crate::state::limit::ClientKey;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use baduk_go::sgf::doc::SgfDoc;
use baduk_go::Rules;
use baduk_search::go::review::Reviewer;
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::Row;
use std::sync::Arc;

/// `GET /api/reviews/{id}/tree`: the whole tree with the review's version.
pub(super) async fn get_tree(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    Ok(Json(tree::tree_json(&st, &id).await?))
}

/// `POST /api/reviews/{id}/ops` `{"op": {…}, "version": V?}` by the controller: the new
/// version and, for a move, its node.
pub(super) async fn post_op(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    auth: Option<Extension<Auth>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let bad = |m: String| ActError::bad_request(m).with_code("review.op", Value::Null);
    let v: Value = serde_json::from_slice(&body).map_err(|e| bad(format!("bad JSON body: {e}")))?;
    let Some(o) = v.as_object() else {
        return Err(bad("the body is {\"op\": {…}, \"version\": V}".into()));
    };
    if let Some(k) = o.keys().find(|k| *k != "op" && *k != "version") {
        return Err(bad(format!(
            "the body has no field `{}`: it is {{\"op\": {{…}}, \"version\": V}}",
            k.chars().take(20).collect::<String>()
        )));
    }
    let op = o
        .get("op")
        .ok_or_else(|| bad("the body needs `op`".into()))?;
    let version = match o.get("version") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .ok_or_else(|| bad("`version` is a whole number".into()))?,
        ),
    };
    if let Err(r) = st.budgets.actions.check(&client) {
        return Err(r.to_error());
    }
    // Through the review's room: applied once where the room is held, sent to every watcher.
    let who = auth.as_ref().and_then(|Extension(a)| a.who.as_ref());
    let change = super::room::Change::Op {
        op: op.clone(),
        version,
    };
    Ok(Json(
        super::room::change(&st, &id, who, &client, change).await?,
    ))
}

/// The position key of node `node` of `doc` under `rules`: its board, ko point and side to
/// move (what a search depends on).
fn position_key(doc: &SgfDoc, node: u32, rules: &Rules) -> Result<String, ActError> {
    let game = doc.position(node, rules).map_err(tree::op_refused)?;
    let b = game.board();
    Ok(format!(
        "{:016x}{}{}",
        b.hash(),
        game.to_move().letter(),
        b.ko_point().map(|p| p.to_string()).unwrap_or_default()
    ))
}

/// Review `id`'s node named in a path, and its position's key (404 `review.no_node`, 422
/// when its line cannot be replayed).
async fn node_of(st: &AppState, id: &str, node: &str) -> Result<(u32, String), ActError> {
    let (_, rules, doc) = tree::current(st, id).await?;
    let no_node = || {
        ActError::not_found("the tree has no such node").with_code(
            "review.no_node",
            json!({"node": node.chars().take(12).collect::<String>()}),
        )
    };
    let n: u32 = node.parse().map_err(|_| no_node())?;
    if doc.node(n).is_none() {
        return Err(no_node());
    }
    let key = crate::game::work::heavy()
        .run(move || position_key(&doc, n, &rules))
        .await??;
    Ok((n, key))
}

/// The engine's opinion of node `n` of review `id` (`key` its position): the stored result
/// with `"status": "done"`, or where its search stands (`queued`, `running`, `none`).
async fn node_status(
    st: &AppState,
    engine: &Arc<Engine>,
    id: &str,
    n: u32,
    key: &str,
) -> Result<Value, ActError> {
    let row =
        sqlx::query("SELECT result FROM review_positions WHERE review_id = $1 AND position = $2")
            .bind(id)
            .bind(key)
            .fetch_optional(st.hub.store.read_pool())
            .await
            .map_err(storage)?;
    if let Some(r) = row {
        let text: String = r.try_get("result").map_err(storage)?;
        let mut v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        v["status"] = json!("done");
        v["node"] = json!(n);
        return Ok(v);
    }
    let job = format!("{id}@{n}");
    engine.watched(&job);
    Ok(match engine.place(&job) {
        Place::Running => json!({"status": "running", "node": n}),
        Place::Queued(i) => json!({"status": "queued", "queue_position": i, "node": n}),
        Place::Idle => json!({"status": "none", "node": n}),
    })
}

/// `GET /api/reviews/{id}/nodes/{node}/analysis`.
pub(super) async fn get_node_analysis(
    State(st): State<AppState>,
    Extension(engine): Extension<Arc<Engine>>,
    Path((id, node)): Path<(String, String)>,
) -> Result<Json<Value>, ActError> {
    let (n, key) = node_of(&st, &id, &node).await?;
    Ok(Json(node_status(&st, &engine, &id, n, &key).await?))
}

/// `POST /api/reviews/{id}/nodes/{node}/analysis`: queues the node's search (once, charged to
/// the client's creations and its share of the queue, as a review is).
pub(super) async fn start_node_analysis(
    State(st): State<AppState>,
    Extension(engine): Extension<Arc<Engine>>,
    Extension(client): Extension<ClientKey>,
    Path((id, node)): Path<(String, String)>,
) -> Result<Json<Value>, ActError> {
    let (n, key) = node_of(&st, &id, &node).await?;
    let now = node_status(&st, &engine, &id, n, &key).await?;
    if now["status"] == "none" {
        if let Err(r) = st.budgets.creates.check(&client) {
            return Err(r.to_error());
        }
        engine.enqueue(&st, &format!("{id}@{n}"), client)?;
    }
    Ok(Json(node_status(&st, &engine, &id, n, &key).await?))
}

/// Searches the position after node `node` of review `id` once and stores it (nothing when
/// it is stored already or the node is gone); never more to do after it.
pub(super) async fn step(
    st: &AppState,
    engine: &super::engine::Engine,
    id: &str,
    node: &str,
) -> Result<bool, String> {
    let (n, key) = match node_of(st, id, node).await {
        Ok(k) => k,
        Err(e) if e.status == 404 => return Ok(false),
        Err(e) => return Err(e.message),
    };
    let store = &st.hub.store;
    let done = sqlx::query("SELECT 1 FROM review_positions WHERE review_id = $1 AND position = $2")
        .bind(id)
        .bind(&key)
        .fetch_optional(store.read_pool())
        .await
        .map_err(|e| e.to_string())?;
    if done.is_some() {
        return Ok(false);
    }
    let summary: String = sqlx::query("SELECT summary FROM reviews WHERE id = $1")
        .bind(id)
        .fetch_one(store.read_pool())
        .await
        .and_then(|r| r.try_get("summary"))
        .map_err(|e| e.to_string())?;
    let (_, rules, doc) = tree::current(st, id).await.map_err(|e| e.message)?;
    // The operator's external engine (KataGo) judges the node when there is one and it has
    // not failed this review; else, or when it fails now, our own engine does.
    let mut result = None;
    if let Some(ext) = engine
        .external(st)
        .filter(|_| engine.fell_back(id).is_none())
    {
        // Reading the line (up to the reader's node cap) is the heavy pool's work.
        let d = doc.clone();
        let g = crate::game::work::heavy()
            .run(move || d.line_game(n))
            .await
            .map_err(|e| e.message)?
            .map_err(|e| e.to_string())?;
        match super::katago::review_end(&ext, &st.limits, &g, &rules).await {
            Ok(v) => result = Some(v),
            Err(why) => engine.fall_back(id, why),
        }
    }
    let result = match result {
        Some(v) => v,
        None => {
            let config = go_config(st, id);
            let permit = st.hub.bots.review_thread().await?;
            let v = tokio::task::spawn_blocking(move || {
                let g = doc.line_game(n).map_err(|e| e.to_string())?;
                let summary: Value = serde_json::from_str(&summary).map_err(|e| e.to_string())?;
                let mut r = Reviewer::new(config(g.size));
                search_go(&g, &summary, g.moves.len(), &mut r)
            })
            .await
            .map_err(|e| format!("the search failed: {e}"))??;
            drop(permit);
            v
        }
    };
    sqlx::query(
        "INSERT INTO review_positions (review_id, position, result) VALUES ($1, $2, $3) \
         ON CONFLICT (review_id, position) DO NOTHING",
    )
    .bind(id)
    .bind(&key)
    .bind(result.to_string())
    .execute(store.writer_pool())
    .await
    .map_err(|e| e.to_string())?;
    Ok(false)
}

/// `?game=N`: which game of a collection (1-based).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateQuery {
    #[serde(default)]
    game: Option<usize>,
}

/// `POST /api/reviews`: an uploaded record stored as a review owned by the uploader (when the
/// request carries a session or a bearer token).
pub(super) async fn create(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    auth: Option<Extension<Auth>>,
    q: Result<Query<CreateQuery>, axum::extract::rejection::QueryRejection>,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(format!("query: {e}")))?;
    let auth = auth.map(|Extension(a)| a);
    let body = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ActError::new(
                413,
                format!("the record is too large: a review takes at most {BODY_LIMIT} bytes"),
            )
            .with_code("review.too_large", json!({"max": BODY_LIMIT}))
        } else {
            ActError::bad_request(format!("the record could not be read: {e}"))
        }
    })?;
    if let Err(r) = st.budgets.creates.check(&client) {
        return Err(r.to_error());
    }
    let up = crate::game::work::heavy()
        .run(move || read_upload(&body, q.game))
        .await??;
    let owner = auth
        .as_ref()
        .and_then(|a| a.account_id().map(str::to_string));
    let kind = up.kind;
    let id = tree::store_upload(&st, up, owner.as_deref(), None, None, None).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": id, "url": format!("/r/{id}"), "game": kind.word()})),
    )
        .into_response())
}
