//! The game core: live rooms of Go and Wall Go and everything that runs inside a game.
//!
//! Owns: a room's state and rules (`room`; `go_room` and `wall_room` for each game), clocks
//! (`clock`, `hub::clocks`), the bots in seats (`bots`) and their thread budget (`work`), the
//! rated end of a game (`ratings`), and the hub of live games with each game's actor (`hub`).
//!
//! May use: `store` (below it). Issue 40's known exceptions, still to move down: the hub holds
//! the cluster's state (`crate::cluster`), counts in `crate::http::metrics`, keys clients by
//! `crate::state::limit::ClientKey`, and refuses a guest with `crate::players::accounts`.
//! Never `crate::review`.

pub mod bots;
pub mod clock;
pub mod go_room;
pub mod hub;
pub mod metrics;
pub mod ratings;
pub mod room;
pub mod settings;
pub mod wall_room;
pub mod work;
