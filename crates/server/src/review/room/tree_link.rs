//! The room's link to the review's editable tree (`review::tree`): reading it whole, applying
//! an op, making a review from a record and writing the current tree as SGF. The room calls
//! these under its own lock, so one room's ops are applied one after another.

use crate::game::room::ActError;
use crate::review::tree;
use crate::state::AppState;
use serde_json::Value;

pub use crate::review::tree::Applied;

/// The review's tree as pages read it (with its `version`).
pub async fn tree_json(st: &AppState, id: &str) -> Result<Value, ActError> {
    tree::tree_json(st, id).await
}

/// Applies `op` to review `id` for `account` (when `version` is given it must be the current
/// one) and stores it.
pub async fn apply(
    st: &AppState,
    id: &str,
    account: Option<&str>,
    op: &Value,
    version: Option<i64>,
) -> Result<Applied, ActError> {
    tree::apply_op(st, id, account, op, version).await
}

/// Makes a review of SGF `text` owned by `owner`, from game `source` (at a version); its id.
pub async fn create(
    st: &AppState,
    text: &str,
    owner: Option<&str>,
    source: Option<(&str, Option<i64>)>,
    title: Option<&str>,
) -> Result<String, ActError> {
    tree::create_review_with(st, text, owner, source, title).await
}

/// The current tree of review `id`, whole, as SGF.
pub async fn export(st: &AppState, id: &str) -> Result<String, ActError> {
    let (_, _, doc) = tree::current(st, id).await?;
    crate::game::work::heavy().run(move || doc.to_sgf()).await
}
