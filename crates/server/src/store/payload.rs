//! The payloads the store notifies other processes with on PostgreSQL's LISTEN/NOTIFY (the
//! stored form of an action or a chat message, as `cluster::bus` reads them back): built here,
//! below the bus, because the store sends them in the transaction that commits the action.

use crate::store::types::ActionRow;

/// NOTIFY refuses payloads of 8000 bytes or more; a larger event is sent as the id alone.
pub const MAX_PAYLOAD: usize = 7_900;

/// The payload announcing action `row` of game `id` (None when too large for NOTIFY: the id
/// alone is sent then, and the others read the game).
pub fn action_payload(id: &str, row: &ActionRow) -> Option<String> {
    let p = format!("act:{}", serde_json::json!({"id": id, "row": row}));
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
