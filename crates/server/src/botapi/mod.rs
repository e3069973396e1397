//! Owns: the Bot API — accounts that became bots, the list of bots online, the NDJSON event
//! stream of an account and the NDJSON stream of a game, and what a bot token may do. (The
//! server's own engines in seats are `game::bots`.)
//!
//! May use: `challenges`, `players`, `state`, `config`, `game`, `store`, `net` (below it).
//! Never `http` (`tests/layout.rs` keeps it so).

use crate::state::AppState;
use axum::Router;

/// The Bot API's routes (`/api/account/bot`, `/api/bots`, `/api/stream/…`).
pub fn routes() -> Router<AppState> {
    Router::new()
}
