//! The event bus between processes: PostgreSQL's LISTEN/NOTIFY on one channel. A commit
//! announces its game's id (the other processes' watchers catch up); a change of owner
//! announces `own:NODE:GAME` (that node starts playing the game at once instead of at its next
//! reconciliation, docs/scaling.md).

use crate::hub::Hub;
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

/// What one notification asks of this process.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// Game `id` changed: catch up if it is loaded here.
    Changed(&'a str),
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
                            Event::Changed(id) => hub.catch_up(id).await,
                            Event::Owned { node, id }
                                if node == hub.cluster.node
                                    && !hub.loaded_handle(id).is_some_and(|h| h.owned()) =>
                            {
                                hub.adopt(id).await
                            }
                            Event::Owned { .. } => {}
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
    fn payloads_read_as_changes_or_owners() {
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
