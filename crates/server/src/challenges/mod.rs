//! Owns: challenges between players — to a named account or open by link — from asking to the
//! game both are seated in (create, accept, decline with a reason, cancel; limits and the
//! cooldown after a decline) and the rematch at a game's end.
//!
//! May use: `players`, `state`, `config`, `game`, `store`, `net` (below it). Never `http` or
//! `botapi` (`tests/layout.rs` keeps it so).

use crate::state::AppState;
use axum::Router;
use serde_json::Value;

/// The challenges' routes (`/api/challenges…`).
pub fn routes() -> Router<AppState> {
    Router::new()
}

/// The challenges still open to `account` (each as the `challenge` event of the event stream
/// shows it), oldest first: what a stream (re)connecting reads before the live events.
pub async fn open_to(_st: &AppState, _account: &str) -> Result<Vec<Value>, String> {
    Ok(Vec::new())
}
