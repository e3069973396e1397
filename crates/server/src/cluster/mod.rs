//! Owns: the processes of one cluster on PostgreSQL: nodes, leases, takeover and handoff (this
//! file), forwarding of actions and the internal endpoint (`forward`), the event bus over
//! LISTEN/NOTIFY (`bus`), the limits shared over the cluster (`usage`). May use: `game`, `store`, and the web side's shared state (`state`) for
//! the internal endpoint. Never `crate::http`, `crate::players` or `crate::review`. This node's own state
//! (`Cluster`, re-exported here) and the placing of a new game live in `game::hub`, which holds
//! them.
//!
//! The cluster: the server processes (nodes) sharing one database, and which one owns each
//! live game (docs/scaling.md). A node holds a lease (`nodes.alive_until`) that it renews every
//! [`RENEW_MS`]; a game's owner (`games.owner`) alone runs its clock and bots and commits its
//! actions, and every commit checks the owner in its own UPDATE (the fence). When a node's
//! lease runs out, the survivors take its games over; a node that joins receives new games
//! first and some of the others' games by handoff. On SQLite there is one node: the same code.

pub mod bus;
pub mod forward;
pub mod usage;

pub use crate::game::hub::Cluster;

use crate::game::hub::{now_ms, Hub};
use crate::store::{Store, StoreError};
use sqlx::Row;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// How long a lease lasts after its renewal (ms).
pub const LEASE_MS: i64 = 3_000;
/// How often a node renews its lease and reconciles the games it owns (ms).
pub const RENEW_MS: u64 = 1_000;
/// How often a node looks for games whose owner's lease ran out (ms).
pub const SCAN_MS: u64 = 500;
/// The most games a node hands to another in one renewal (the rest wait for the next).
const HANDOFF_BATCH: usize = 20;
/// A dead node's row is removed once it owns nothing and has been dead this long (ms).
const FORGET_DEAD_MS: i64 = 10 * 60_000;

/// Statuses of games that are still played (open or live).
const UNFINISHED: &str = "status NOT IN ('finished', 'cancelled')";

/// The most games whose owner a node remembers.
pub use crate::game::hub::OWNER_CACHE;

/// A node as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its id.
    pub id: String,
    /// Its base URL for internal calls.
    pub addr: String,
    /// Until when its lease holds (ms).
    pub alive_until: i64,
    /// The games it owned at its last renewal (plus those placed on it since).
    pub load: i64,
}

/// Where a game is played now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Here (or no such game: answered here).
    Here,
    /// On another live node, at this base URL.
    There(String),
    /// Nowhere right now: its owner's lease ran out and nobody has taken it over yet.
    Moving,
}

/// A holder's row joined with its node: (holder, its address, until when its lease holds).
fn holder_row(r: &sqlx::any::AnyRow) -> Result<(Option<String>, String, i64), StoreError> {
    let owner: Option<String> = r.try_get(0)?;
    let addr: Option<String> = r.try_get(1)?;
    let until: Option<i64> = r.try_get(2)?;
    Ok((owner, addr.unwrap_or_default(), until.unwrap_or(0)))
}

/// The lease and ownership queries (docs/scaling.md).
impl Store {
    /// Stores a node's lease (a new row, or a renewal of its own); true if a row was written.
    pub async fn renew_node(
        &self,
        id: &str,
        addr: &str,
        now: i64,
        load: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE nodes SET addr = $1, beat_at = $2, alive_until = $3, load = $4 WHERE id = $5",
        )
        .bind(addr)
        .bind(now)
        .bind(now + LEASE_MS)
        .bind(load)
        .bind(id)
        .execute(self.write())
        .await?;
        if done.rows_affected() == 1 {
            return Ok(true);
        }
        let done = sqlx::query(
            "INSERT INTO nodes (id, addr, started_at, beat_at, alive_until, load) \
             VALUES ($1, $2, $3, $3, $4, $5)",
        )
        .bind(id)
        .bind(addr)
        .bind(now)
        .bind(now + LEASE_MS)
        .bind(load)
        .execute(self.write())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The nodes whose lease holds at `now`, by id.
    pub async fn live_nodes(&self, now: i64) -> Result<Vec<Node>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, addr, alive_until, load FROM nodes WHERE alive_until > $1 ORDER BY id",
        )
        .bind(now)
        .fetch_all(self.read())
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(Node {
                    id: r.try_get(0)?,
                    addr: r.try_get(1)?,
                    alive_until: r.try_get(2)?,
                    load: r.try_get(3)?,
                })
            })
            .collect()
    }

    /// Ids of the unfinished games `node` owns.
    pub async fn owned_games(&self, node: &str) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT id FROM games WHERE owner = $1 AND {UNFINISHED}"
        ))
        .bind(node)
        .fetch_all(self.read())
        .await?;
        rows.into_iter().map(|r| Ok(r.try_get(0)?)).collect()
    }

    /// Unfinished games whose owner is nobody or a node whose lease ran out by `now`: (id,
    /// owner as stored, "" for nobody).
    pub async fn orphans(&self, now: i64) -> Result<Vec<(String, String)>, StoreError> {
        let dead = sqlx::query("SELECT id FROM nodes WHERE alive_until <= $1")
            .bind(now)
            .fetch_all(self.read())
            .await?;
        let mut out = Vec::new();
        let nobody = sqlx::query(&format!(
            "SELECT id FROM games WHERE owner IS NULL AND {UNFINISHED} LIMIT 10000"
        ))
        .fetch_all(self.read())
        .await?;
        for r in nobody {
            out.push((r.try_get(0)?, String::new()));
        }
        for d in dead {
            let node: String = d.try_get(0)?;
            let games = sqlx::query(&format!(
                "SELECT id FROM games WHERE owner = $1 AND {UNFINISHED} LIMIT 10000"
            ))
            .bind(&node)
            .fetch_all(self.read())
            .await?;
            for g in games {
                out.push((g.try_get(0)?, node.clone()));
            }
        }
        Ok(out)
    }

    /// Takes for `node` every unfinished game whose owner is nobody or a node whose lease ran
    /// out by `now`, in one statement, loading none of them (a node joining the cluster: the
    /// clock sweep loads each when its `wake_at` comes, a request when it asks); the number
    /// taken.
    pub async fn take_over_all(&self, node: &str, now: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(&format!(
            "UPDATE games SET owner = $1 WHERE {UNFINISHED} AND NOT EXISTS \
             (SELECT 1 FROM nodes WHERE nodes.id = games.owner AND nodes.alive_until > $2)"
        ))
        .bind(node)
        .bind(now)
        .execute(self.write())
        .await?;
        Ok(done.rows_affected())
    }

    /// The owners of the games `ids` (those that exist; "" for nobody), 500 a query.
    pub async fn owners_of(&self, ids: &[String]) -> Result<Vec<(String, String)>, StoreError> {
        self.games_by_ids("id, COALESCE(owner, '')", ids).await
    }

    /// Takes game `id` for `node` if its owner is still `from` ("" for nobody) and that owner's
    /// lease has run out by `now`; true if taken. One statement: two nodes cannot both win.
    pub async fn take_over(
        &self,
        id: &str,
        from: &str,
        node: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write().begin().await?;
        let done = sqlx::query(&format!(
            "UPDATE games SET owner = $1 WHERE id = $2 AND COALESCE(owner, '') = $3 AND {UNFINISHED} \
             AND NOT EXISTS (SELECT 1 FROM nodes WHERE nodes.id = games.owner AND nodes.alive_until > $4)"
        ))
        .bind(node)
        .bind(id)
        .bind(from)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        // No event: the taker itself decides what to load (see `Scan::run`).
        let taken = done.rows_affected() == 1;
        tx.commit().await?;
        Ok(taken)
    }

    /// Hands game `id` from `from` to `to` (the caller owns it and holds its room's lock, so
    /// no commit of its own is under way); true if handed.
    pub async fn hand_over(&self, id: &str, from: &str, to: &str) -> Result<bool, StoreError> {
        let mut tx = self.write().begin().await?;
        let done = sqlx::query("UPDATE games SET owner = $1 WHERE id = $2 AND owner = $3")
            .bind(to)
            .bind(id)
            .bind(from)
            .execute(&mut *tx)
            .await?;
        let handed = done.rows_affected() == 1;
        if handed {
            self.notify_owner(&mut tx, id, to).await?;
        }
        tx.commit().await?;
        Ok(handed)
    }

    /// Tells `node` it owns game `id` now (PostgreSQL; on SQLite there is one node).
    pub(crate) async fn notify_owner(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        id: &str,
        node: &str,
    ) -> Result<(), StoreError> {
        if self.postgres {
            self.queries
                .notify
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sqlx::query("SELECT pg_notify('baduk_games', $1)")
                .bind(format!("own:{node}:{id}"))
                .execute(&mut **tx)
                .await?;
        }
        Ok(())
    }

    /// The least loaded live node at `now` (ties: `me` first, then by id), counted one game
    /// busier; None when no lease holds (then the caller keeps the game).
    pub async fn place(&self, me: &str, now: i64) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "SELECT id FROM nodes WHERE alive_until > $1 \
             ORDER BY load, CASE WHEN id = $2 THEN 0 ELSE 1 END, id LIMIT 1",
        )
        .bind(now)
        .bind(me)
        .fetch_optional(self.read())
        .await?;
        let Some(row) = row else { return Ok(None) };
        let id: String = row.try_get(0)?;
        sqlx::query("UPDATE nodes SET load = load + 1 WHERE id = $1")
            .bind(&id)
            .execute(self.write())
            .await?;
        Ok(Some(id))
    }

    /// Where game `id` is played: its owner's id and address, and until when its lease holds
    /// (None: no such game).
    pub async fn owner_of(
        &self,
        id: &str,
    ) -> Result<Option<(Option<String>, String, i64)>, StoreError> {
        let row = sqlx::query(
            "SELECT g.owner, n.addr, n.alive_until FROM games g LEFT JOIN nodes n ON n.id = g.owner \
             WHERE g.id = $1",
        )
        .bind(id)
        .fetch_optional(self.read())
        .await?;
        row.as_ref().map(holder_row).transpose()
    }

    /// Where review room `id` is held: its node's id and address, and until when its lease
    /// holds (None: no room stored).
    pub async fn room_owner_of(
        &self,
        id: &str,
    ) -> Result<Option<(Option<String>, String, i64)>, StoreError> {
        let row = sqlx::query(
            "SELECT r.node, n.addr, n.alive_until FROM review_rooms r \
             LEFT JOIN nodes n ON n.id = r.node WHERE r.review_id = $1",
        )
        .bind(id)
        .fetch_optional(self.read())
        .await?;
        row.as_ref().map(holder_row).transpose()
    }

    /// A node leaves (graceful shutdown): its games belong to nobody (the others take them at
    /// once) and its row goes.
    pub async fn leave(&self, node: &str) -> Result<(), StoreError> {
        let mut tx = self.write().begin().await?;
        sqlx::query("UPDATE games SET owner = NULL WHERE owner = $1")
            .bind(node)
            .execute(&mut *tx)
            .await?;
        // Its review rooms too: the next request for one takes it wherever it arrives.
        sqlx::query("UPDATE review_rooms SET node = NULL WHERE node = $1")
            .bind(node)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM nodes WHERE id = $1")
            .bind(node)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Ends the leases of every other node (SQLite: one process per file, so any other node
    /// is a process that died).
    pub async fn expire_others(&self, node: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE nodes SET alive_until = 0 WHERE id <> $1")
            .bind(node)
            .execute(self.write())
            .await?;
        Ok(())
    }

    /// Removes the rows of nodes dead for a long time that own nothing.
    pub async fn forget_dead_nodes(&self, now: i64) -> Result<(), StoreError> {
        sqlx::query(&format!(
            "DELETE FROM nodes WHERE alive_until < $1 AND NOT EXISTS \
             (SELECT 1 FROM games WHERE games.owner = nodes.id AND {UNFINISHED})"
        ))
        .bind(now - FORGET_DEAD_MS)
        .execute(self.write())
        .await?;
        Ok(())
    }
}

/// Where game `id` is played now (see [`Owner`]). Another node's game is looked up in the
/// database once, then remembered while its owner's lease holds as last read (every renewal
/// reads the leases again, [`note_leases`]); a forward the owner refuses as moved, or that
/// cannot reach it, forgets it ([`forget_owner`]) — the commit's fence keeps that safe.
pub async fn owner(hub: &Hub, id: &str) -> Owner {
    if hub.loaded_handle(id).is_some_and(|h| h.owned()) {
        return Owner::Here;
    }
    let now = now_ms();
    let cached = hub
        .cluster
        .owners
        .lock()
        .expect("owners lock")
        .get(id)
        .cloned();
    if let Some(node) = cached {
        let addr = hub
            .cluster
            .leases
            .lock()
            .expect("leases lock")
            .get(&node)
            .filter(|(_, until)| *until > now)
            .map(|(addr, _)| addr.clone());
        if let Some(addr) = addr {
            return Owner::There(addr);
        }
    }
    match hub.store.owner_of(id).await {
        Ok(None) => Owner::Here,
        Ok(Some((Some(o), _, _))) if o == hub.cluster.node => Owner::Here,
        Ok(Some((Some(o), addr, until))) if until > now && !addr.is_empty() => {
            {
                let mut leases = hub.cluster.leases.lock().expect("leases lock");
                let l = leases.entry(o.clone()).or_insert((addr.clone(), until));
                if l.1 <= until {
                    *l = (addr.clone(), until);
                }
            }
            hub.cluster.remember_owner(id, &o);
            Owner::There(addr)
        }
        Ok(Some(_)) => Owner::Moving,
        // The database cannot say: answer here (the commit's own check decides).
        Err(_) => Owner::Here,
    }
}

/// What a request forwarded to its owner is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Held {
    /// A game (its id).
    Game(String),
    /// A review room (its review's id).
    Room(String),
}

/// Where `held` is answered now (see [`owner`] and [`room_owner`]).
pub async fn owner_of_held(hub: &Hub, held: &Held) -> Owner {
    match held {
        Held::Game(id) => owner(hub, id).await,
        Held::Room(id) => room_owner(hub, id).await,
    }
}

/// Forgets where `held` was answered (a game's owner is remembered; a room's is read each
/// time).
pub fn forget_held(hub: &Hub, held: &Held) {
    if let Held::Game(id) = held {
        forget_owner(hub, id);
    }
}

/// Where review room `id` is held: on another live node, or here (held here, by nobody, by a
/// node whose lease ran out, or no such room: this process takes it when it answers, as
/// `review::room` does with the lease check in its claim).
pub async fn room_owner(hub: &Hub, id: &str) -> Owner {
    let now = now_ms();
    match hub.store.room_owner_of(id).await {
        Ok(Some((Some(o), addr, until)))
            if o != hub.cluster.node && until > now && !addr.is_empty() =>
        {
            Owner::There(addr)
        }
        Ok(_) => Owner::Here,
        // The database cannot say: answer here (the room's own claim decides).
        Err(_) => Owner::Here,
    }
}

/// Notes the live nodes' leases as read from the database (a node missing from them has
/// none: the games remembered on it are looked up again).
fn note_leases(hub: &Hub, nodes: &[Node]) {
    let mut leases = hub.cluster.leases.lock().expect("leases lock");
    leases.clear();
    for n in nodes {
        leases.insert(n.id.clone(), (n.addr.clone(), n.alive_until));
    }
}

/// Forgets where game `id` was played (its owner could not be reached, or no longer had it).
pub fn forget_owner(hub: &Hub, id: &str) {
    hub.cluster.owners.lock().expect("owners lock").remove(id);
}

/// Joins the cluster: stores this node's lease, takes the games nobody plays, and starts the
/// renewal and takeover loops. On SQLite every other node is a dead process.
pub async fn join(hub: &Arc<Hub>) -> Result<usize, StoreError> {
    let c = &hub.cluster;
    if !hub.store.is_postgres() {
        hub.store.expire_others(&c.node).await?;
    }
    renew(hub).await?;
    let mut scan = Scan::default();
    scan.run(hub, true).await?;
    reconcile(hub).await?;
    Ok(hub.owned_ids().len())
}

/// Renews this node's lease (its load is the games it owns).
async fn renew(hub: &Hub) -> Result<(), StoreError> {
    let c = &hub.cluster;
    if c.left.load(Ordering::Relaxed) {
        return Ok(());
    }
    let now = now_ms();
    let load = hub.owned_ids().len() as i64;
    hub.store.renew_node(&c.node, &c.addr(), now, load).await?;
    c.lease_until.store(now + LEASE_MS, Ordering::Relaxed);
    hub.metrics.lease_renewals.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// Makes the loaded games this process plays the ones the database says it owns (one query
/// by the loaded ids; a game it owns but has not loaded stays in the database until its
/// `wake_at` or a request loads it).
async fn reconcile(hub: &Arc<Hub>) -> Result<(), StoreError> {
    let me = &hub.cluster.node;
    let owners = hub.store.owners_of(&hub.loaded_ids()).await?;
    let mine: HashSet<&String> = owners
        .iter()
        .filter(|(_, o)| o == me)
        .map(|(id, _)| id)
        .collect();
    let playing: HashSet<String> = hub.owned_ids().into_iter().collect();
    for id in playing.iter().filter(|id| !mine.contains(id)) {
        hub.disown(id);
    }
    for id in mine.into_iter().filter(|id| !playing.contains(*id)) {
        hub.adopt(id).await;
    }
    Ok(())
}

/// Hands games to the least loaded node while this one owns clearly more than its share.
async fn rebalance(hub: &Arc<Hub>) -> Result<(), StoreError> {
    let now = now_ms();
    let nodes = hub.store.live_nodes(now).await?;
    if nodes.len() < 2 {
        return Ok(());
    }
    let me = &hub.cluster.node;
    let mine = hub.owned_ids();
    let total: i64 = nodes
        .iter()
        .map(|n| {
            if &n.id == me {
                mine.len() as i64
            } else {
                n.load
            }
        })
        .sum();
    let fair = (total + nodes.len() as i64 - 1) / nodes.len() as i64;
    let Some(target) = nodes.iter().filter(|n| &n.id != me).min_by_key(|n| n.load) else {
        return Ok(());
    };
    // A margin of one game keeps two nodes from handing the same game back and forth.
    let excess = (mine.len() as i64 - fair).min(fair - target.load);
    if mine.len() as i64 <= fair + 1 || excess <= 0 {
        return Ok(());
    }
    for id in mine.into_iter().take((excess as usize).min(HANDOFF_BATCH)) {
        let Some(h) = hub.loaded_handle(&id) else {
            continue;
        };
        let _room = h.room.lock().await;
        if !h.owned() {
            continue;
        }
        if hub.store.hand_over(&id, me, &target.id).await? {
            hub.disown(&id);
            hub.metrics.handoffs.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// The takeover scan's memory: how many scans each orphan has been seen in.
#[derive(Default)]
struct Scan {
    seen: HashMap<String, u32>,
}

impl Scan {
    /// Takes over the orphans that fall to this node: those whose hash picks it among the
    /// live nodes, and any seen orphaned in an earlier scan (`all`: every one at once).
    async fn run(&mut self, hub: &Arc<Hub>, all: bool) -> Result<(), StoreError> {
        let me = &hub.cluster.node;
        let now = now_ms();
        if !hub.cluster.lease_holds(now) {
            return Ok(()); // a node without a lease takes nothing
        }
        if all {
            // Joining: every orphan at once, none loaded.
            let n = hub.store.take_over_all(me, now).await?;
            hub.metrics.takeovers.fetch_add(n, Ordering::Relaxed);
            self.seen.clear();
            return Ok(());
        }
        let orphans = hub.store.orphans(now).await?;
        if orphans.is_empty() {
            self.seen.clear();
            return Ok(());
        }
        let live = hub.store.live_nodes(now).await?;
        let rank = live.iter().position(|n| &n.id == me);
        let mut seen = HashMap::new();
        for (id, from) in orphans {
            let n = self.seen.get(&id).copied().unwrap_or(0);
            let mine = match rank {
                Some(r) => spread(&id, live.len()) == r,
                None => false,
            };
            if all || mine || n >= 1 {
                if hub.store.take_over(&id, &from, me, now).await? {
                    hub.metrics.takeovers.fetch_add(1, Ordering::Relaxed);
                    tracing::info!("game {id}: taken over from node {from:?}");
                    // A copy loaded here plays on at once; any other loads when its
                    // `wake_at` comes (its clock, a bot to move) or a request asks for it.
                    if hub.loaded_handle(&id).is_some() {
                        hub.adopt(&id).await;
                    }
                }
            } else {
                seen.insert(id, n + 1);
            }
        }
        self.seen = seen;
        Ok(())
    }
}

/// Which of `n` live nodes (by rank) takes orphan `id` first.
fn spread(id: &str, n: usize) -> usize {
    let h = crate::game::hub::hash_token(id);
    (u64::from_le_bytes(h[..8].try_into().expect("8 bytes")) % n.max(1) as u64) as usize
}

/// Starts the renewal (with reconciliation and rebalancing) and takeover loops.
pub fn spawn(hub: &Arc<Hub>) {
    let h = hub.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(RENEW_MS));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut n = 0u64;
        loop {
            every.tick().await;
            n += 1;
            if let Err(e) = renew(&h).await {
                tracing::warn!("lease not renewed: {e}");
                if !h.cluster.lease_holds(now_ms()) {
                    // Without a lease, others may take the games: stop playing them here.
                    for id in h.owned_ids() {
                        h.disown(&id);
                    }
                }
                continue;
            }
            if let Err(e) = reconcile(&h).await {
                tracing::warn!("ownership not reconciled: {e}");
            }
            if h.store.is_postgres() {
                match h.store.live_nodes(now_ms()).await {
                    Ok(nodes) => note_leases(&h, &nodes),
                    Err(e) => tracing::warn!("leases not read: {e}"),
                }
            }
            if n.is_multiple_of(2) {
                if let Err(e) = rebalance(&h).await {
                    tracing::warn!("rebalancing failed: {e}");
                }
            }
            if n.is_multiple_of(60) {
                let _ = h.store.forget_dead_nodes(now_ms()).await;
            }
        }
    });
    let h = hub.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(SCAN_MS));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut scan = Scan::default();
        loop {
            every.tick().await;
            if let Err(e) = scan.run(&h, false).await {
                tracing::warn!("takeover scan failed: {e}");
            }
        }
    });
}

/// Leaves the cluster (graceful shutdown): this node's games go to the others at once.
pub async fn leave(hub: &Hub) {
    hub.cluster.left.store(true, Ordering::Relaxed);
    for id in hub.owned_ids() {
        hub.disown(&id);
    }
    if let Err(e) = hub.store.leave(&hub.cluster.node).await {
        tracing::warn!("leaving the cluster failed (the lease will run out): {e}");
    }
}
