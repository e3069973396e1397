//! The room's link to the review's editable tree (`review::tree`): reading it whole, applying
//! an op, making a review from a record and writing the current tree as SGF. The room calls
//! these under its own lock, so one room's ops are applied one after another.

use crate::game::room::ActError;
use crate::state::AppState;
use serde_json::Value;

/// An op applied: the review's new version, the delta watchers apply (the op, with `node`
/// filled in for a move) and the node it made or found.
pub struct Applied {
    /// The review's version after the op.
    pub version: i64,
    /// What watchers apply.
    pub delta: Value,
    /// The node of a move.
    pub node: Option<u32>,
}

fn missing() -> ActError {
    ActError::unavailable("the review's tree is not available on this server yet")
        .with_code("review.tree", Value::Null)
}

/// The review's tree as pages read it (with its `version`).
pub async fn tree_json(_st: &AppState, _id: &str) -> Result<Value, ActError> {
    Err(missing())
}

/// Applies `op` to review `id` for `account` (when `version` is given it must be the current
/// one) and stores it.
pub async fn apply(
    _st: &AppState,
    _id: &str,
    _account: &str,
    _op: &Value,
    _version: Option<i64>,
) -> Result<Applied, ActError> {
    Err(missing())
}

/// Makes a review of SGF `text` owned by `owner`; its id.
pub async fn create(
    _st: &AppState,
    _text: &str,
    _owner: Option<&str>,
    _source_game: Option<&str>,
    _title: Option<&str>,
) -> Result<String, ActError> {
    Err(missing())
}

/// The current tree of review `id`, whole, as SGF.
pub async fn export(_st: &AppState, _id: &str) -> Result<String, ActError> {
    Err(missing())
}
