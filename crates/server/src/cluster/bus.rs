//! The event bus between processes: PostgreSQL's LISTEN/NOTIFY on one channel. A committed
//! action is announced as itself, `act:{"id":GAME,"row":{seq,seat,action,at,auto,clocks}}`: a
//! process that has the game loaded applies it without reading the database (docs/scaling.md,
//! "Events"). A seat joined or claimed announces `join:{"id","seat","token_hash","player"}`,
//! applied the same way, in order with the game's actions. Any other change (a rotated token, a
//! rated game's end) announces the game's id alone, and the processes that have it loaded read it
//! again. A change of owner announces `own:NODE:GAME` (that node starts playing the game at once
//! instead of at its next reconciliation). A chat message announces `chat:{"id":GAME,
//! "node":NODE,"players":BOOL,"event":MESSAGE}`: every other process with watchers of the game
//! passes it on to them. Once a second each process reports its clients' use of the rate
//! budgets, `use:{"node","budget","use":[[CLIENT,N],…]}`, and the sockets they hold open,
//! `sockets:{"node","open":[[CLIENT,N],…]}` (clients by keyed hash; `cluster::usage`). A review
//! room's change announces `room:{…}` (`review::room::relay` reads it): the processes with
//! watchers of that room pass it on to them.

use crate::game::hub::{Hub, Reload};
use crate::game::room::{ActionRow, Player};
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

pub use crate::store::payload::{
    action_payload, chat_payload, join_payload, sockets_payloads, use_payloads, MAX_PAYLOAD,
};

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
    /// A chat message of game `id` posted on process `node`.
    Chat {
        /// The game.
        id: String,
        /// The process it was posted on (which told its own watchers already).
        node: String,
        /// Only the players' channel.
        players: bool,
        /// The message as watchers receive it.
        event: String,
    },
    /// Seat `seat` of game `id` was joined, by the holder of `token_hash` (`player` if an
    /// account).
    Joined {
        /// The game.
        id: String,
        /// The seat.
        seat: usize,
        /// Its token's hash, if it has one.
        token_hash: Option<[u8; 32]>,
        /// The account holding it, if one does.
        player: Option<Player>,
    },
    /// Process `node`'s clients used this much of rate budget `budget` there.
    Used {
        /// The process.
        node: String,
        /// The budget's name.
        budget: String,
        /// (client's keyed hash, amount).
        used: Vec<(u64, u32)>,
    },
    /// Process `node`'s clients hold this many sockets open there.
    Sockets {
        /// The process.
        node: String,
        /// (client's keyed hash, sockets open).
        open: Vec<(u64, u32)>,
    },
    /// A report this process cannot read (dropped: the next one comes in a second).
    BadReport,
    /// An event this process cannot read: every loaded game is checked by its version.
    Unreadable,
    /// A review room's event (its JSON text), for `review::room` to read.
    Room(&'a str),
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
    if let Some(json) = payload.strip_prefix("join:") {
        #[derive(serde::Deserialize)]
        struct Join {
            id: String,
            seat: usize,
            token_hash: Option<String>,
            player: Option<Player>,
        }
        return match serde_json::from_str::<Join>(json) {
            Ok(j) => match j.token_hash.as_deref().map(crate::store::unhex) {
                Some(None) => Event::Unreadable,
                hash => Event::Joined {
                    id: j.id,
                    seat: j.seat,
                    token_hash: hash.flatten(),
                    player: j.player,
                },
            },
            Err(_) => Event::Unreadable,
        };
    }
    if let Some(json) = payload.strip_prefix("chat:") {
        #[derive(serde::Deserialize)]
        struct Chat {
            id: String,
            node: String,
            players: bool,
            event: String,
        }
        return match serde_json::from_str::<Chat>(json) {
            Ok(c) => Event::Chat {
                id: c.id,
                node: c.node,
                players: c.players,
                event: c.event,
            },
            // A chat line this version cannot read is dropped (the history has it).
            Err(_) => Event::Unreadable,
        };
    }
    if let Some(json) = payload.strip_prefix("room:") {
        return Event::Room(json);
    }
    if let Some(json) = payload.strip_prefix("use:") {
        #[derive(serde::Deserialize)]
        struct Used {
            node: String,
            budget: String,
            #[serde(rename = "use")]
            used: Vec<(u64, u32)>,
        }
        return match serde_json::from_str::<Used>(json) {
            Ok(u) => Event::Used {
                node: u.node,
                budget: u.budget,
                used: u.used,
            },
            Err(_) => Event::BadReport,
        };
    }
    if let Some(json) = payload.strip_prefix("sockets:") {
        #[derive(serde::Deserialize)]
        struct Open {
            node: String,
            open: Vec<(u64, u32)>,
        }
        return match serde_json::from_str::<Open>(json) {
            Ok(o) => Event::Sockets {
                node: o.node,
                open: o.open,
            },
            Err(_) => Event::BadReport,
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

/// Queues that apply actions in the order they were committed: a game's events always go to
/// the same queue, so one game's are applied one after another, and different games' in
/// parallel.
const APPLY_QUEUES: usize = 8;
/// Events a queue holds before the listener waits for it (the database keeps the rest).
const APPLY_BACKLOG: usize = 4_096;

/// A game's event that is applied in commit order with its others.
enum Ordered {
    /// An action, and when its event arrived here.
    Action(ActionRow, std::time::Instant),
    /// A seat joined: (seat, token hash, player).
    Joined(usize, Option<[u8; 32]>, Option<Player>),
}

/// Starts the apply queues; returns their senders.
fn apply_queues(hub: &Arc<Hub>) -> Vec<tokio::sync::mpsc::Sender<(String, Ordered)>> {
    (0..APPLY_QUEUES)
        .map(|_| {
            let (tx, mut rx) = tokio::sync::mpsc::channel::<(String, Ordered)>(APPLY_BACKLOG);
            let hub = hub.clone();
            tokio::spawn(async move {
                while let Some((id, ev)) = rx.recv().await {
                    match ev {
                        Ordered::Action(row, arrived) => {
                            hub.apply_event(&id, row).await;
                            hub.metrics.event_queue.observe(arrived.elapsed());
                        }
                        Ordered::Joined(seat, hash, player) => {
                            hub.apply_join(&id, seat, hash, player).await
                        }
                    }
                }
            });
            tx
        })
        .collect()
}

/// The queue of game `id`'s events.
fn queue_of(id: &str) -> usize {
    let h = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    (h % APPLY_QUEUES as u64) as usize
}

/// Follows other processes' commits and handoffs, reconnecting when the link drops.
pub async fn follow(hub: Arc<Hub>, url: String, first: sqlx::postgres::PgListener) {
    let queues = apply_queues(&hub);
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
                    let payload = n.payload().to_string();
                    // In commit order, one game after another.
                    match parse(&payload) {
                        Event::Action { id, row } => {
                            let late = crate::game::hub::now_ms().saturating_sub(row.at);
                            hub.metrics
                                .event_delivery
                                .observe(Duration::from_millis(late.max(0) as u64));
                            let arrived = std::time::Instant::now();
                            let _ = queues[queue_of(&id)]
                                .send((id, Ordered::Action(row, arrived)))
                                .await;
                            continue;
                        }
                        Event::Joined {
                            id,
                            seat,
                            token_hash,
                            player,
                        } => {
                            let q = queue_of(&id);
                            let _ = queues[q]
                                .send((id, Ordered::Joined(seat, token_hash, player)))
                                .await;
                            continue;
                        }
                        // Reports of the other processes' use of the limits: noted at once.
                        Event::Used { node, budget, used } => {
                            if node != hub.cluster.node {
                                let now = crate::game::hub::now_ms();
                                for (client, n) in used {
                                    hub.cluster.remote_use.owe(&budget, client, n, now);
                                }
                            }
                            continue;
                        }
                        Event::Sockets { node, open } => {
                            if node != hub.cluster.node {
                                let now = crate::game::hub::now_ms();
                                for (client, n) in open {
                                    hub.cluster.remote_use.set_sockets(&node, client, n, now);
                                }
                            }
                            continue;
                        }
                        Event::BadReport => continue,
                        // A review room's event: in order, to the rooms' follower.
                        Event::Room(json) => {
                            let _ = hub.cluster.room_events.send(json.into());
                            continue;
                        }
                        _ => {}
                    }
                    let hub = hub.clone();
                    tokio::spawn(async move {
                        match parse(&payload) {
                            Event::Changed(id) => hub.reload_event(id, Reload::Change).await,
                            Event::Action { .. }
                            | Event::Joined { .. }
                            | Event::Used { .. }
                            | Event::Sockets { .. }
                            | Event::Room(_)
                            | Event::BadReport => {}
                            Event::Owned { node, id }
                                if node == hub.cluster.node
                                    && !hub.loaded_handle(id).is_some_and(|h| h.owned()) =>
                            {
                                hub.adopt(id).await
                            }
                            Event::Owned { .. } => {}
                            Event::Chat {
                                id,
                                node,
                                players,
                                event,
                            } if node != hub.cluster.node => {
                                if let Some(h) = hub.loaded_handle(&id) {
                                    let _ = h.chat.send((players, event.into()));
                                }
                            }
                            Event::Chat { .. } => {}
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
            clocks: crate::game::clock::Clocks::new(crate::game::clock::ClockKind::None),
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
        let c = chat_payload("g1", "n2", true, r#"{"type":"chat"}"#).unwrap();
        assert_eq!(
            parse(&c),
            Event::Chat {
                id: "g1".into(),
                node: "n2".into(),
                players: true,
                event: r#"{"type":"chat"}"#.into()
            }
        );
        assert_eq!(parse("abc"), Event::Changed("abc"));
        let player = Player {
            id: "a1".into(),
            name: "Kim".into(),
            rating: Some((1500.0, 350.0, 0)),
            bot: false,
            away: Default::default(),
        };
        let j = join_payload("g1", 1, Some(&"ab".repeat(32)), Some(&player)).unwrap();
        assert_eq!(
            parse(&j),
            Event::Joined {
                id: "g1".into(),
                seat: 1,
                token_hash: Some([0xab; 32]),
                player: Some(player)
            }
        );
        let hello = join_payload("g1", 0, None, None).unwrap();
        assert!(matches!(
            parse(&hello),
            Event::Joined {
                seat: 0,
                token_hash: None,
                player: None,
                ..
            }
        ));
        assert_eq!(
            parse(r#"join:{"id":"g1","seat":0,"token_hash":"zz","player":null}"#),
            Event::Unreadable
        );
        assert_eq!(
            parse("own:n1:g2"),
            Event::Owned {
                node: "n1",
                id: "g2"
            }
        );
    }

    #[test]
    fn use_reports_read_back_and_a_bad_one_is_dropped() {
        let p = use_payloads("n1", "actions", &[(u64::MAX, 3), (7, 1)]);
        assert_eq!(p.len(), 1);
        assert_eq!(
            parse(&p[0]),
            Event::Used {
                node: "n1".into(),
                budget: "actions".into(),
                used: vec![(u64::MAX, 3), (7, 1)]
            }
        );
        let many: Vec<(u64, u32)> = (0..450).map(|i| (u64::MAX - i, 1)).collect();
        let p = use_payloads("n1", "requests", &many);
        assert_eq!(p.len(), 3);
        assert!(p.iter().all(|x| x.len() <= MAX_PAYLOAD));
        let s = sockets_payloads("n2", &[(5, 0)]);
        assert_eq!(
            parse(&s[0]),
            Event::Sockets {
                node: "n2".into(),
                open: vec![(5, 0)]
            }
        );
        assert_eq!(
            parse(r#"use:{"node":"n1","budget":"x","use":[[-1,2]]}"#),
            Event::BadReport
        );
        assert_eq!(parse("sockets:{"), Event::BadReport);
    }
}
