//! Review rooms: every review is a room (docs/api.md, "Review rooms"; docs/scaling.md,
//! "Review rooms"). The room's live state (its tree's version, the shared cursor, who controls
//! it, whether it is listed, its title, its chat) is held by ONE process of the cluster, as a
//! game is: the process that first answers for it takes it (`rows::claim`: nobody holds it, or
//! its holder's lease ran out), and every change is made there, under the room's lock, and
//! checked in its own UPDATE to be made by the holder (the fence). Other processes forward
//! changes to the holder (`cluster::forward`) and pass its events on to their own watchers
//! (`relay`, over the bus). Everything is stored as it changes, so a restart or a takeover
//! loads the room again as it was.
//!
//! This file: the registry of this process's rooms, holding a room, the changes and the
//! room's first message; `api` the HTTP routes, `socket` the room's WebSocket, `relay` the
//! events between processes and the watchers' count, `rows` the storage, `tree_link` the
//! review's tree.

pub mod api;
mod relay;
pub mod rows;
mod socket;
pub mod tree_link;

use crate::game::hub::{now_ms, MOVED_CODE};
use crate::game::room::ActError;
use crate::players::accounts::{self, Identity};
use crate::state::limit::ClientKey;
use crate::state::AppState;
use crate::store::StoreError;
use rows::{RoomRow, Who};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use tokio::sync::broadcast;

/// Chat lines the room's first message carries.
pub const CHAT_SHOWN: usize = 50;
/// The longest title, in characters.
pub const TITLE_MAX: usize = 100;
/// Events a room's watchers on this process may fall behind before they get the room whole.
const EVENTS_BACKLOG: usize = 256;

/// What orders a room's event against the room's first message: a tree op by the tree's
/// version, the room's other changes by its counter `rev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seq {
    /// A tree op: the tree's version after it.
    Tree(i64),
    /// A change of cursor, control, title or chat: the room's counter after it.
    Room(i64),
    /// Always sent (the watchers' count).
    Always,
    /// Not a message: the watchers get the room whole again.
    Resync,
}

/// One event for a room's watchers on this process.
#[derive(Clone, Debug)]
pub struct Ev {
    /// Where it falls.
    pub seq: Seq,
    /// The message as sent.
    pub text: Arc<str>,
}

/// A room as this process knows it: the channel its watchers here listen on, how many watch it
/// here and on the other processes, and its live state when this process holds it.
pub struct Local {
    /// The review's id.
    pub id: String,
    tx: broadcast::Sender<Ev>,
    /// Sockets watching it on this process.
    sockets: AtomicUsize,
    /// Sockets watching it on the other processes, as they announced them (node → count).
    others: Mutex<HashMap<String, usize>>,
    /// The watchers' count last sent to the watchers here.
    sent: AtomicUsize,
    /// When it last changed or was watched here (ms).
    used_at: AtomicI64,
    /// Its state, when this process holds it.
    live: tokio::sync::Mutex<Option<Live>>,
}

/// A room held by this process.
struct Live {
    row: RoomRow,
    chat: VecDeque<Value>,
    /// The tree as pages read it, at `row.version` (None: read it when needed).
    tree: Option<Arc<Value>>,
}

/// The rooms this process knows (watched here, or held here).
pub struct Rooms {
    map: Mutex<HashMap<String, Arc<Local>>>,
    /// The public rooms as the lobby lists them, read again every few seconds.
    pub listing: tokio::sync::watch::Sender<Arc<Value>>,
}

/// Every server's rooms, by its node id (a process runs one server; tests run several).
static REGISTRY: LazyLock<Mutex<HashMap<String, Arc<Rooms>>>> = LazyLock::new(Default::default);

/// This server's rooms (made, with the tasks that follow the other processes and the leases,
/// on first use).
pub fn rooms(st: &AppState) -> Arc<Rooms> {
    let node = &st.hub.cluster.node;
    let mut reg = REGISTRY.lock().expect("rooms registry");
    if let Some(r) = reg.get(node) {
        return r.clone();
    }
    let r = Arc::new(Rooms {
        map: Mutex::new(HashMap::new()),
        listing: tokio::sync::watch::channel(Arc::new(json!([]))).0,
    });
    reg.insert(node.clone(), r.clone());
    relay::spawn(st.clone(), r.clone());
    r
}

impl Rooms {
    /// Room `id` as this process knows it, made if new.
    fn local(&self, id: &str) -> Arc<Local> {
        let mut map = self.map.lock().expect("rooms lock");
        map.entry(id.to_string())
            .or_insert_with(|| {
                Arc::new(Local {
                    id: id.to_string(),
                    tx: broadcast::channel(EVENTS_BACKLOG).0,
                    sockets: AtomicUsize::new(0),
                    others: Mutex::new(HashMap::new()),
                    sent: AtomicUsize::new(0),
                    used_at: AtomicI64::new(now_ms()),
                    live: tokio::sync::Mutex::new(None),
                })
            })
            .clone()
    }

    /// Room `id` if this process knows it.
    fn find(&self, id: &str) -> Option<Arc<Local>> {
        self.map.lock().expect("rooms lock").get(id).cloned()
    }

    /// Every room this process knows.
    fn all(&self) -> Vec<Arc<Local>> {
        self.map
            .lock()
            .expect("rooms lock")
            .values()
            .cloned()
            .collect()
    }

    /// Forgets room `id` if nobody watches it here and this process does not hold it.
    fn forget_if_idle(&self, id: &str) {
        let mut map = self.map.lock().expect("rooms lock");
        let idle = map.get(id).is_some_and(|l| {
            l.sockets.load(Ordering::Relaxed) == 0 && l.live.try_lock().is_ok_and(|g| g.is_none())
        });
        if idle {
            map.remove(id);
        }
    }
}

impl Local {
    /// Everyone watching the room: here, and on the other processes as they announced it.
    fn watchers(&self) -> usize {
        self.sockets.load(Ordering::Relaxed)
            + self
                .others
                .lock()
                .expect("others lock")
                .values()
                .sum::<usize>()
    }

    /// Sends an event to the watchers here.
    fn send(&self, seq: Seq, text: Arc<str>) {
        let _ = self.tx.send(Ev { seq, text });
    }
}

/// A review id as reviews are made (anything else is not one: 404 without a query).
pub fn valid_id(id: &str) -> bool {
    (1..=32).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn no_room() -> ActError {
    ActError::not_found("no such review")
}

fn storage(e: StoreError) -> ActError {
    accounts::storage(e)
}

/// 503 `cluster.moved`: another process holds the room now; nothing was stored.
fn moved() -> ActError {
    ActError::unavailable(
        "this review room moved to another server process; nothing was stored, try again",
    )
    .with_code(MOVED_CODE, Value::Null)
}

/// The room's state, taken by this process if nobody (alive) holds it; `moved` when another
/// process holds it, 404 for no such review.
async fn hold<'a>(
    st: &AppState,
    local: &'a Local,
) -> Result<tokio::sync::MutexGuard<'a, Option<Live>>, ActError> {
    let mut g = local.live.lock().await;
    let now = now_ms();
    local.used_at.store(now, Ordering::Relaxed);
    if !st.hub.cluster.lease_holds(now) {
        // Without a lease, others may take it: nothing is changed here.
        *g = None;
        return Err(moved());
    }
    if g.is_some() {
        return Ok(g);
    }
    let store = &st.hub.store;
    if !rows::exists(store, &local.id).await.map_err(storage)? {
        return Err(no_room());
    }
    if !rows::claim(store, &local.id, &st.hub.cluster.node, now)
        .await
        .map_err(storage)?
    {
        return Err(moved());
    }
    let row = rows::load(store, &local.id)
        .await
        .map_err(storage)?
        .ok_or_else(no_room)?;
    let chat = rows::chat_lines(store, &local.id, CHAT_SHOWN as i64)
        .await
        .map_err(storage)?;
    *g = Some(Live {
        row,
        chat: chat.into(),
        tree: None,
    });
    Ok(g)
}

/// The tree of a held room, read once per version.
async fn tree_of(st: &AppState, id: &str, live: &mut Live) -> Result<Arc<Value>, ActError> {
    if let Some(t) = &live.tree {
        return Ok(t.clone());
    }
    let t = Arc::new(tree_link::tree_json(st, id).await?);
    if let Some(v) = t.get("version").and_then(Value::as_i64) {
        live.row.version = v;
    }
    live.tree = Some(t.clone());
    Ok(t)
}

/// The room's first message for a watcher (`you`: its account's name).
async fn room_message(
    st: &AppState,
    local: &Local,
    live: &mut Live,
    you: Option<&str>,
) -> Result<Value, ActError> {
    let tree = tree_of(st, &local.id, live).await?;
    let r = &live.row;
    Ok(json!({
        "type": "room",
        "version": r.version,
        "rev": r.rev,
        "tree": &*tree,
        "cursor": r.cursor,
        "owner": r.owner.as_ref().map(|w| &w.name),
        "controller": r.controller.as_ref().map(|w| &w.name),
        "you": you,
        "watchers": local.watchers(),
        "public": r.public,
        "title": r.title,
        "source_game": r.source_game,
        "chat": live.chat,
    }))
}

/// The room's first message as its holder (this process) makes it.
pub async fn first_message(st: &AppState, id: &str, you: Option<&str>) -> Result<Value, ActError> {
    if !valid_id(id) {
        return Err(no_room());
    }
    let local = rooms(st).local(id);
    let mut g = hold(st, &local).await?;
    let live = g.as_mut().expect("held");
    room_message(st, &local, live, you).await
}

/// A change a client asks of a room.
#[derive(Clone, Debug)]
pub enum Change {
    /// A tree op (`review::tree`), at `version` if given.
    Op {
        /// The op.
        op: Value,
        /// The version it was made on.
        version: Option<i64>,
    },
    /// The shared cursor moves to a node.
    Cursor(i64),
    /// The owner gives control to an account (by name; the owner's own takes it back).
    Control(String),
    /// A chat line.
    Chat(String),
    /// The owner lists the room or not, or renames it.
    Meta {
        /// Listed in the lobby.
        public: Option<bool>,
        /// Its title.
        title: Option<String>,
    },
}

fn no_control(controller: Option<&Who>) -> ActError {
    match controller {
        Some(c) => ActError::forbidden(format!(
            "only {}, who has control, may change the shared board",
            c.name
        ))
        .with_code("review.no_control", json!({"name": c.name})),
        None => ActError::forbidden(
            "nobody may change the shared board of an anonymous upload: make your own copy (fork)",
        )
        .with_code("review.no_control", json!({"name": null})),
    }
}

fn not_owner() -> ActError {
    ActError::forbidden("only the review's owner may do this")
        .with_code("review.not_owner", Value::Null)
}

/// A title as stored: control characters and invisible format characters removed, trimmed,
/// at most [`TITLE_MAX`] characters.
fn clean_title(t: &str) -> Result<String, ActError> {
    let t: String = t
        .chars()
        .filter(|c| !c.is_control() && !crate::players::chat::is_invisible_format(*c))
        .collect::<String>()
        .trim()
        .to_string();
    if t.chars().count() > TITLE_MAX {
        return Err(
            ActError::bad_request(format!("title: at most {TITLE_MAX} characters"))
                .with_code("review.title", json!({"max": TITLE_MAX})),
        );
    }
    Ok(t)
}

/// Makes change `c` of room `id` for `who` here, where the room is held (taken if nobody
/// holds it): checked, stored, then sent to every watcher. The answer: what an `ack` carries.
pub async fn change(
    st: &AppState,
    id: &str,
    who: Option<&Identity>,
    client: &ClientKey,
    c: Change,
) -> Result<Value, ActError> {
    if !valid_id(id) {
        return Err(no_room());
    }
    let me = who.map(|w| Who {
        id: w.account.id.clone(),
        name: w.account.name.clone(),
    });
    // An op without an account is refused as the tree refuses it (nobody controls for it).
    if me.is_none() && !matches!(c, Change::Op { .. }) {
        return Err(crate::game::room::sign_in_first());
    }
    let local = rooms(st).local(id);
    let mut g = hold(st, &local).await?;
    let live = g.as_mut().expect("held");
    let now = now_ms();
    let is_owner = me.is_some() && live.row.owner == me;
    let has_control = me.is_some() && live.row.controller == me;
    let me = me.unwrap_or(Who {
        id: String::new(),
        name: String::new(),
    });
    let rev = live.row.rev + 1;
    let (seq, event, answer) = match c {
        Change::Op { op, version } => {
            if !has_control {
                return Err(no_control(live.row.controller.as_ref()));
            }
            // The holder's check first (nothing stored when another process holds it now).
            let tx = fenced(st, id, live.row.rev, now).await?;
            tx.commit().await.map_err(|e| storage(e.into()))?;
            let before = if op["op"] == "delete" {
                Some(tree_of(st, id, live).await?)
            } else {
                None
            };
            let a = tree_link::apply(st, id, Some(&me.id), &op, version).await?;
            let answer = json!({"version": a.version, "node": a.node, "changed": a.changed});
            if !a.changed {
                return Ok(answer);
            }
            live.row.version = a.version;
            live.tree = None;
            let event = json!({"type": "op", "v": a.version, "op": a.delta});
            emit(st, &local, Seq::Tree(a.version), event).await;
            // A deleted branch under the cursor takes the cursor to the branch's parent.
            if let Some(to) = cursor_after_delete(before.as_deref(), &op, live.row.cursor) {
                move_cursor(st, &local, live, to).await?;
            }
            return Ok(answer);
        }
        Change::Cursor(n) => {
            if !has_control {
                return Err(no_control(live.row.controller.as_ref()));
            }
            let tree = tree_of(st, id, live).await?;
            if !has_node(&tree, n) {
                return Err(ActError::not_found(format!("no node {n} in this review"))
                    .with_code("review.no_node", json!({"node": n})));
            }
            if n == live.row.cursor {
                return Ok(json!({"v": live.row.rev, "node": n}));
            }
            move_cursor(st, &local, live, n).await?;
            return Ok(json!({"v": live.row.rev, "node": n}));
        }
        Change::Control(to) => {
            if !is_owner {
                return Err(not_owner());
            }
            let target = account_named(st, &to).await?;
            let mut tx = fenced(st, id, rev, now).await?;
            sqlx::query("UPDATE reviews SET controller = $1 WHERE id = $2")
                .bind(&target.id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| storage(e.into()))?;
            tx.commit().await.map_err(|e| storage(e.into()))?;
            let event = json!({"type": "control", "v": rev, "controller": target.name});
            let answer = json!({"v": rev, "controller": target.name});
            live.row.controller = Some(target);
            (Seq::Room(rev), event, answer)
        }
        Change::Chat(text) => {
            if let Some(w) = who {
                w.may_play()?;
            }
            let text = crate::players::chat::clean(&text)?;
            for r in [
                st.chat_accounts.check(&me.id),
                st.chat_clients.check(client),
            ] {
                r.map_err(|r| r.to_error())?;
            }
            let mut tx = fenced(st, id, rev, now).await?;
            rows::add_chat(&mut tx, id, rev, &me, &text, now)
                .await
                .map_err(storage)?;
            tx.commit().await.map_err(|e| storage(e.into()))?;
            let line = json!({"name": me.name, "text": text, "at": now});
            live.chat.push_back(line.clone());
            while live.chat.len() > CHAT_SHOWN {
                live.chat.pop_front();
            }
            let event = json!({"type": "chat", "v": rev, "line": line});
            (Seq::Room(rev), event, json!({"v": rev, "line": line}))
        }
        Change::Meta { public, title } => {
            if !is_owner {
                return Err(not_owner());
            }
            let title = match title {
                Some(t) => clean_title(&t)?,
                None => live.row.title.clone(),
            };
            let public = public.unwrap_or(live.row.public);
            let mut tx = fenced(st, id, rev, now).await?;
            sqlx::query("UPDATE review_rooms SET public = $1 WHERE review_id = $2")
                .bind(public as i64)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| storage(e.into()))?;
            sqlx::query("UPDATE reviews SET title = $1 WHERE id = $2")
                .bind(&title)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| storage(e.into()))?;
            tx.commit().await.map_err(|e| storage(e.into()))?;
            live.row.public = public;
            live.row.title = title.clone();
            let event = json!({"type": "meta", "v": rev, "public": public, "title": title});
            (
                Seq::Room(rev),
                event,
                json!({"v": rev, "public": public, "title": title}),
            )
        }
    };
    live.row.rev = rev;
    emit(st, &local, seq, event).await;
    Ok(answer)
}

/// Begins a change of held room `id` with its counter at `rev` (see [`rows::fence`]); `moved`
/// when another process holds it now.
async fn fenced(
    st: &AppState,
    id: &str,
    rev: i64,
    now: i64,
) -> Result<sqlx::Transaction<'static, sqlx::Any>, ActError> {
    rows::fence(&st.hub.store, id, &st.hub.cluster.node, rev, now)
        .await
        .map_err(storage)?
        .ok_or_else(moved)
}

/// Moves the held room's cursor to `n` (stored, then sent).
async fn move_cursor(
    st: &AppState,
    local: &Local,
    live: &mut Live,
    n: i64,
) -> Result<(), ActError> {
    let rev = live.row.rev + 1;
    let mut tx = fenced(st, &local.id, rev, now_ms()).await?;
    sqlx::query("UPDATE review_rooms SET cursor = $1 WHERE review_id = $2")
        .bind(n)
        .bind(&local.id)
        .execute(&mut *tx)
        .await
        .map_err(|e| storage(e.into()))?;
    tx.commit().await.map_err(|e| storage(e.into()))?;
    live.row.rev = rev;
    live.row.cursor = n;
    let event = json!({"type": "cursor", "v": rev, "node": n});
    emit(st, local, Seq::Room(rev), event).await;
    Ok(())
}

/// Whether the tree (as pages read it) has node `n`.
fn has_node(tree: &Value, n: i64) -> bool {
    tree["nodes"]
        .as_array()
        .is_some_and(|ns| ns.iter().any(|x| x["id"].as_i64() == Some(n)))
}

/// Where the cursor goes when `op` deletes the branch it is on (None: it stays), read from the
/// tree before the op.
fn cursor_after_delete(before: Option<&Value>, op: &Value, cursor: i64) -> Option<i64> {
    if op["op"] != "delete" {
        return None;
    }
    let gone = op["node"].as_i64()?;
    let nodes = before?["nodes"].as_array()?;
    let parent: HashMap<i64, i64> = nodes
        .iter()
        .filter_map(|x| Some((x["id"].as_i64()?, x["parent"].as_i64()?)))
        .collect();
    let mut at = cursor;
    loop {
        if at == gone {
            return parent.get(&gone).copied();
        }
        at = *parent.get(&at)?;
    }
}

/// The account named `name` (404 `review.no_account`).
async fn account_named(st: &AppState, name: &str) -> Result<Who, ActError> {
    let none = || {
        ActError::not_found(format!(
            "no account named {}",
            name.chars().take(40).collect::<String>()
        ))
        .with_code("review.no_account", Value::Null)
    };
    let key = match accounts::normalise_name(name) {
        Ok((_, key)) => key,
        // A guest's name is its key (the server makes it; sign-up refuses names of `guest…`).
        Err(_) if name.trim().to_lowercase().starts_with("guest-") => name.trim().to_lowercase(),
        Err(_) => return Err(none()),
    };
    match st.hub.store.account_by_key(&key).await.map_err(storage)? {
        Some((a, _)) => Ok(Who {
            id: a.id,
            name: a.name,
        }),
        None => Err(none()),
    }
}

/// Sends an event to the room's watchers here and on the other processes.
async fn emit(st: &AppState, local: &Local, seq: Seq, event: Value) {
    let text: Arc<str> = event.to_string().into();
    local.used_at.store(now_ms(), Ordering::Relaxed);
    local.send(seq, text.clone());
    relay::announce(st, &local.id, &text).await;
}

/// Whether review `id`'s room is listed in the lobby.
pub async fn is_public(st: &AppState, id: &str) -> Result<bool, ActError> {
    rows::is_public(&st.hub.store, id).await.map_err(storage)
}

/// The public rooms the lobby lists: `{"rooms": [...]}`.
pub async fn list_json(st: &AppState) -> Result<Value, ActError> {
    let now = now_ms();
    let rooms = rows::listed(&st.hub.store, now - LISTED_FOR_MS, now, LISTED_MAX)
        .await
        .map_err(storage)?;
    Ok(json!({ "rooms": rooms }))
}

/// A public room nobody watches stays listed this long after its last change (ms).
pub const LISTED_FOR_MS: i64 = 60 * 60_000;
/// The most rooms listed.
pub const LISTED_MAX: i64 = 50;

/// Leaves the cluster (graceful shutdown): the rooms held here are let go at once.
pub async fn leave(st: &AppState) {
    let r = rooms(st);
    for l in r.all() {
        let mut g = l.live.lock().await;
        if g.take().is_some() {
            let _ = rows::release(&st.hub.store, &l.id, &st.hub.cluster.node).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deleted_branch_under_the_cursor_moves_it_to_the_branch_parent() {
        let tree = json!({"nodes": [
            {"id": 0, "parent": null}, {"id": 1, "parent": 0}, {"id": 2, "parent": 1},
            {"id": 3, "parent": 0}]});
        let del = |n: i64| json!({"op": "delete", "node": n});
        assert_eq!(cursor_after_delete(Some(&tree), &del(1), 2), Some(0));
        assert_eq!(cursor_after_delete(Some(&tree), &del(1), 1), Some(0));
        assert_eq!(cursor_after_delete(Some(&tree), &del(1), 3), None);
        assert_eq!(
            cursor_after_delete(Some(&tree), &json!({"op": "promote", "node": 1}), 2),
            None
        );
        assert_eq!(cursor_after_delete(None, &del(1), 2), None);
    }

    #[test]
    fn titles_lose_control_characters_and_are_capped() {
        assert_eq!(clean_title(" a\u{7}b\u{202E} ").unwrap(), "ab");
        assert_eq!(
            clean_title(&"가".repeat(101)).unwrap_err().code,
            "review.title"
        );
    }
}
