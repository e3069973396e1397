//! The event bus between processes: PostgreSQL's LISTEN/NOTIFY on one channel. A committed
//! action is announced as itself, `act:{"id":GAME,"row":{seq,seat,action,at,auto,clocks}}`: a
//! process that has the game loaded applies it without reading the database (docs/scaling.md,
//! "Events"). Any other change (a join, a claimed seat, a new token, a rated game's end) announces
//! the game's id alone, and the processes that have it loaded read it again. A change of owner
//! announces `own:NODE:GAME` (that node starts playing the game at once instead of at its next
//! reconciliation).

use crate::hub::Hub;
use crate::room::ActionRow;
use std::sync::Arc;
use std::time::Duration;

/// The PostgreSQL channel every process announces its commits on.
pub const CHANNEL: &str = "baduk_games";

/// A LISTEN connection on [`CHANNEL`].
pub async fn listen(url: &str) -> Result<sqlx::postgres::PgListener, sqlx::Error> {
    let mut l = sqlx::postgres::PgListener::connect(url).await?;
    l.listen(CHANNEL).await?;
    Ok(l)
}

/// NOTIFY refuses payloads of 8000 bytes or more; a larger event is sent as the id alone.
pub const MAX_PAYLOAD: usize = 7_900;

/// The payload announcing action `row` of game `id` (None when too large for NOTIFY: the id
/// alone is sent then, and the others read the game).
pub fn action_payload(id: &str, row: &ActionRow) -> Option<String> {
    let p = format!("act:{}", serde_json::json!({"id": id, "row": row}));
    (p.len() <= MAX_PAYLOAD).then_some(p)
}

/// What one notification asks of this process.
#[derive(Debug, PartialEq)]
pub enum Event<'a> {
    /// Game `id` changed: catch up if it is loaded here.
    Changed(&'a str),
    /// Action `row` of game `id` was committed.
    Action {
        /// The game.
        id: String,
        /// The action as stored.
        row: ActionRow,
    },
    /// An event this process cannot read: every loaded game is checked by its version.
    Unreadable,
    /// Node `node` owns game `id` now.
    Owned {
        /// The new owner.
        node: &'a str,
        /// The game.
        id: &'a str,
    },
}

/// Reads a notification's payload.
pub fn parse(payload: &str) -> Event<'_> {
    if let Some(json) = payload.strip_prefix("act:") {
        #[derive(serde::Deserialize)]
        struct Act {
            id: String,
            row: ActionRow,
        }
        return match serde_json::from_str::<Act>(json) {
            Ok(a) => Event::Action {
                id: a.id,
                row: a.row,
            },
            // Unreadable (a newer process's format?): catch up by versions instead.
            Err(_) => Event::Unreadable,
        };
    }
    match payload
        .strip_prefix("own:")
        .and_then(|rest| rest.split_once(':'))
    {
        Some((node, id)) => Event::Owned { node, id },
        None => Event::Changed(payload),
    }
}

/// Follows other processes' commits and handoffs, reconnecting when the link drops.
pub async fn follow(hub: Arc<Hub>, url: String, first: sqlx::postgres::PgListener) {
    let mut listener = Some(first);
    loop {
        let mut l = match listener.take() {
            Some(l) => l,
            None => match listen(&url).await {
                Ok(l) => {
                    hub.resync().await;
                    l
                }
                Err(e) => {
                    tracing::warn!("cannot LISTEN on PostgreSQL: {e}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            },
        };
        loop {
            match l.recv().await {
                Ok(n) => {
                    let hub = hub.clone();
                    let payload = n.payload().to_string();
                    tokio::spawn(async move {
                        match parse(&payload) {
                            Event::Changed(id) => hub.reload_event(id).await,
                            Event::Action { id, row } => hub.apply_event(&id, row).await,
                            Event::Owned { node, id }
                                if node == hub.cluster.node
                                    && !hub.loaded_handle(id).is_some_and(|h| h.owned()) =>
                            {
                                hub.adopt(id).await
                            }
                            Event::Owned { .. } => {}
                            Event::Unreadable => hub.resync().await,
                        }
                    });
                }
                Err(e) => {
                    tracing::warn!("LISTEN connection lost: {e}");
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_read_as_actions_changes_or_owners() {
        let row = ActionRow {
            seq: 7,
            seat: 1,
            action: "D4".into(),
            at: 123,
            auto: false,
            clocks: crate::clock::Clocks::new(crate::clock::ClockKind::None),
        };
        let p = action_payload("g1", &row).unwrap();
        assert_eq!(
            parse(&p),
            Event::Action {
                id: "g1".into(),
                row
            }
        );
        assert_eq!(parse("act:{nonsense"), Event::Unreadable);
        assert_eq!(parse("abc"), Event::Changed("abc"));
        assert_eq!(
            parse("own:n1:g2"),
            Event::Owned {
                node: "n1",
                id: "g2"
            }
        );
    }
}
