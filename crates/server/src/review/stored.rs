//! A Go review's game as read once, at upload, under the server's [`SGF_LIMITS`]: stored as
//! the library's compact JSON of the main line ([`baduk_go::sgf::stored::StoredGame`]: size,
//! set-up, moves with their lines, game information, marks, comments) beside the uploaded text,
//! so marks, the annotated export and the engine rebuild the game from it and never read the
//! SGF again. A review stored before this column is read once more, on first use, and its game
//! (or why it cannot be read) stored.

use crate::game::room::ActError;
use crate::state::AppState;
use baduk_go::sgf::doc::SgfDoc;
use baduk_go::sgf::{SgfLimits, SgfTree};
use baduk_go::{SgfError, SgfGame};
use serde_json::{json, Value};

/// The most a review's SGF may make the reader do, across the whole file (every game and
/// variation): what one upload may cost, however its bytes are arranged.
pub const SGF_LIMITS: SgfLimits = SgfLimits {
    max_nodes: 20_000,
    max_variations: 1_000,
    max_games: 1_000,
    max_properties: 100_000,
    max_points: 100_000,
    max_value_bytes: 1 << 20,
};

/// A 422 carrying the SGF reader's error (line and property), in `args` too; a limit of the
/// reader crossed is a 413 `review.<limit>` naming it and its value.
pub fn sgf_error(e: &SgfError) -> ActError {
    if let Some((name, max)) = e.limit {
        let code = match name {
            "nodes" => "review.nodes",
            "variations" => "review.variations",
            "games" => "review.games",
            "properties" => "review.properties",
            "points" => "review.points",
            _ => "review.value_bytes",
        };
        return ActError::new(413, e.to_string()).with_code(
            code,
            json!({"max": max, "limit": format!("max_{name}"), "line": e.line,
                   "property": e.property, "message": e.message}),
        );
    }
    ActError::new(422, e.to_string()).with_code(
        "review.sgf",
        json!({"line": e.line, "property": e.property, "message": e.message}),
    )
}

/// Reads game `index` of an uploaded SGF text under the server's limits.
pub fn read(text: &str, index: usize) -> Result<SgfGame, ActError> {
    SgfGame::parse_with(text, index, &SGF_LIMITS).map_err(|e| sgf_error(&e))
}

/// Reads game `index` of an uploaded SGF text under the server's limits, once: its main line
/// and its whole tree (the tree's snapshot, [`baduk_go::sgf::doc::SgfDoc::snapshot`]).
pub fn read_with_tree(text: &str, index: usize) -> Result<(SgfGame, String), ActError> {
    let (tree, mut work) = SgfTree::parse_counted(text, &SGF_LIMITS);
    let tree = tree.map_err(|e| sgf_error(&e))?;
    let g = SgfGame::from_tree(&tree, index, &mut work).map_err(|e| sgf_error(&e))?;
    let doc = SgfDoc::from_tree(&tree, index).map_err(|e| sgf_error(&e))?;
    Ok((g, doc.snapshot()))
}

/// The stored form of a game read.
pub fn to_json(g: &SgfGame) -> String {
    serde_json::to_string(g).expect("a game serialises")
}

/// The game of a stored form (what [`to_json`] wrote, or why the record cannot be read).
pub fn from_json(stored: &str) -> Result<SgfGame, ActError> {
    if let Ok(v) = serde_json::from_str::<Value>(stored) {
        if let Some(why) = v.get("unreadable") {
            return Err(ActError::new(422, why.as_str().unwrap_or("unreadable"))
                .with_code("review.sgf", json!({"message": why})));
        }
    }
    serde_json::from_str(stored).map_err(|e| {
        tracing::error!("reviews: a stored game is unreadable: {e}");
        ActError::internal("a stored review is unreadable")
    })
}

/// The stored game of Go review `id` (None for Wall Go), or (a review stored before games
/// were) the record read once on the heavy pool under [`SGF_LIMITS`] and its game stored.
pub async fn game(
    st: &AppState,
    id: &str,
    stored: Option<String>,
    kind: &str,
    record: &str,
    index: usize,
) -> Result<Option<String>, ActError> {
    if kind != "go" {
        return Ok(None);
    }
    if let Some(s) = stored {
        return Ok(Some(s));
    }
    let record = record.to_string();
    let text = crate::game::work::heavy()
        .run(move || match read(&record, index) {
            Ok(g) => to_json(&g),
            Err(e) => json!({"unreadable": e.message}).to_string(),
        })
        .await?;
    if let Err(e) = sqlx::query("UPDATE reviews SET game = $1 WHERE id = $2")
        .bind(&text)
        .bind(id)
        .execute(st.hub.store.writer_pool())
        .await
    {
        tracing::warn!("review {id}: game not stored: {e}");
    }
    Ok(Some(text))
}
