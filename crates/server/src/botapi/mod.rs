//! Owns: the Bot API — accounts that became bots and what they accept (`accounts`), the list of
//! bots, and the NDJSON stream of a game (`stream`). What a bot token may do is checked where
//! every token is (`players::tokens`); how the server answers for a bot account in the
//! dead-stone phase and forfeits its illegal moves is the hub's (`game::hub`). (The server's own
//! engines in seats are `game::bots`.) docs/api.md, "Bot API".
//!
//! May use: `challenges`, `players`, `state`, `config`, `game`, `store`, `net` (below it).
//! Never `http` (`tests/layout.rs` keeps it so).

pub mod accounts;
pub mod stream;

use crate::state::AppState;
use axum::routing::{get, post, put};
use axum::Router;

/// The Bot API's routes (`/api/account/bot`, `/api/bots`, `/api/stream/games/…`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/account/bot", post(accounts::post_become_bot))
        .route("/api/account/bot/accepts", put(accounts::put_accepts))
        .route("/api/bots", get(accounts::list_bots))
        .route("/api/stream/games/{id}", get(stream::game_stream))
}
