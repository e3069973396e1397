//! Bots: tree search over the rules libraries. Every bot is a named, seeded player, deterministic
//! for a seed at a node budget. It is not an adapter: no I/O, no protocols.

pub mod go;
pub mod wall;
