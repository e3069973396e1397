//! Load generators: client code that drives a running `baduk serve` over HTTP and WebSocket, as
//! `baduk bench serve` and `baduk bench abuse` (and `scripts/bench-serve`, `scripts/abuse-serve`)
//! run it. Kept apart from the server library (issue 40): the server holds no client code.
//!
//! - [`bench`]: many concurrent human-versus-human games, the latencies a player waits for.
//! - [`bench_players`]: accounts, seeks and rated games of many signed-in players.
//! - [`abuse`]: hostile clients beside honest games, and what the honest ones still get.
//! - [`bench_bots`]: many games at once against bots brought by `baduk bot connect`.
//! - [`bench_review`]: review rooms, their owners' changes and the watchers following them.
//! - [`bench_arena`]: a tournament arena of bot levels, its pairings, their latency and CPU.

pub mod abuse;
pub mod bench;
pub mod bench_arena;
pub mod bench_bots;
pub mod bench_million;
pub mod bench_players;
pub mod bench_review;
