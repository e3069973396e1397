//! The game core: live rooms of Go and Wall Go and everything that runs inside a game.
//!
//! Owns: a room's state and rules (`room`, its views apart; `go_room` with its dead-stone phase
//! apart, and `wall_room`), a create request's settings (`settings`), a seat's private plan of
//! replies (`conditional`), clocks (`clock`,
//! `hub::clocks`), the bots in seats (`bots`) and their thread budget (`work`), the rated end of
//! a game (`ratings`, whose update the store runs in the transaction of the game's last action
//! through `store::RatingUpdate`), the process's counters (`metrics`), the hub of live games
//! with each game's actor (`hub`), and finished Wall Go games as record files (`export`). The
//! plain data of a game that the store keeps (settings, seats, the action log, clocks, rating
//! changes) is defined in `store::types`; events addressed to accounts (`events`) go out from
//! the hub to their streams; `room`, `clock` and `ratings` re-export it and add
//! what the game does with it.
//!
//! May use: `store` and `net` (below it). Never `http`, `review`, `players`, `cluster`, `state`
//! or `config` (`tests/layout.rs` keeps it so; `config` gathers the game's own limit types):
//! the hub holds this process's node of the cluster (`hub::Cluster`) and places new games
//! itself; the cluster's work on them is above.

pub mod bots;
pub mod calendar;
pub mod clock;
pub mod conditional;
pub mod events;
pub mod export;
pub mod go_room;
pub mod hub;
pub mod metrics;
pub mod ratings;
pub mod room;
pub mod settings;
pub mod wall_room;
pub mod work;
