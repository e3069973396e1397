//! The payloads the store notifies other processes with on PostgreSQL's LISTEN/NOTIFY (the
//! stored form of an action or a chat message, as `cluster::bus` reads them back): built here,
//! below the bus, because the store sends them in the transaction that commits the action.

use crate::store::types::{ActionRow, Player};

/// NOTIFY refuses payloads of 8000 bytes or more; a larger event is sent as the id alone.
pub const MAX_PAYLOAD: usize = 7_900;

/// The payload announcing action `row` of game `id` (None when too large for NOTIFY: the id
/// alone is sent then, and the others read the game).
pub fn action_payload(id: &str, row: &ActionRow) -> Option<String> {
    let p = format!("act:{}", serde_json::json!({"id": id, "row": row}));
    (p.len() <= MAX_PAYLOAD).then_some(p)
}

/// The payload announcing that seat `seat` of game `id` was joined, with its holder's token hash
/// (hex) and player (None when too large for NOTIFY: the id alone is sent then).
pub fn join_payload(
    id: &str,
    seat: usize,
    token_hash: Option<&str>,
    player: Option<&Player>,
) -> Option<String> {
    let p = format!(
        "join:{}",
        serde_json::json!({"id": id, "seat": seat, "token_hash": token_hash, "player": player})
    );
    (p.len() <= MAX_PAYLOAD).then_some(p)
}

/// The payload announcing a chat message (`event`, as watchers receive it) of game `id`, posted
/// on process `node`; None when too large for NOTIFY (never: a message is at most 500
/// characters).
pub fn chat_payload(id: &str, node: &str, players: bool, event: &str) -> Option<String> {
    let p = format!(
        "chat:{}",
        serde_json::json!({"id": id, "node": node, "players": players, "event": event})
    );
    (p.len() <= MAX_PAYLOAD).then_some(p)
}

/// Clients a usage payload lists at most (a hash and a count each: well under
/// [`MAX_PAYLOAD`] with the node's id and the budget's name).
pub const USE_PER_PAYLOAD: usize = 200;

/// The payloads reporting what clients (by keyed hash) used of rate budget `budget` on process
/// `node` since its last report, [`USE_PER_PAYLOAD`] clients each.
pub fn use_payloads(node: &str, budget: &str, used: &[(u64, u32)]) -> Vec<String> {
    used.chunks(USE_PER_PAYLOAD)
        .map(|c| {
            format!(
                "use:{}",
                serde_json::json!({"node": node, "budget": budget, "use": c})
            )
        })
        .collect()
}

/// The payloads reporting the sockets each client (by keyed hash) holds open on process
/// `node` now, [`USE_PER_PAYLOAD`] clients each.
pub fn sockets_payloads(node: &str, open: &[(u64, u32)]) -> Vec<String> {
    open.chunks(USE_PER_PAYLOAD)
        .map(|c| format!("sockets:{}", serde_json::json!({"node": node, "open": c})))
        .collect()
}
