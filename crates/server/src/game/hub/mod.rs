//! The live games of one server process (the registry): each loaded game behind its own lock,
//! whether this process owns it (docs/scaling.md), creating, loading, adopting and dropping games,
//! and catching up with what other processes stored (this file). The path of an action is in
//! `actor.rs`; the heartbeat and the clock sweep in `clocks.rs` (with the database's clock from
//! `store::time`); this process as a node of the cluster (`Cluster`) and where a new game is placed
//! in `node.rs`; the watchers' deltas made lean (arrays as patches) in `patch.rs`. Uses the rest
//! of `game`, `store` and `net`; the cluster's work on the hub's games (leases, takeover, handoff,
//! forwarding) and the events between processes (`cluster::bus`) are above, in `crate::cluster`,
//! which calls the hub.

mod actor;
mod away;
mod bot_accounts;
mod clocks;
mod evict;
mod node;
pub mod patch;
mod plans;

pub use clocks::{local_ms, now_ms, set_clock_offset, HEARTBEAT_MS, OUTAGE_MS};
pub use node::{Cluster, OWNER_CACHE};

use crate::game::bots::{bot_to_act, BotLimits, Bots, Job, Models};
use crate::game::room::{ActError, ActionRow, Ends, Player, Room, Seat, SeatSpec, Settings};
use crate::net::ClientKey;
use crate::store::{GameFlags, Store, StoreError};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use subtle::ConstantTimeEq;
use tokio::sync::broadcast;

/// A client as the database names it: a hash of its address, never the address.
pub fn client_hash(c: &ClientKey) -> String {
    Sha256::digest(format!("baduk-client:{c}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Why a loaded copy is read again from the database (`/metrics` counts each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reload {
    /// An event that does not carry its change (a rotated token, a rated game's end).
    Change,
    /// An event that is not the next one (events were missed) or does not apply.
    Gap,
    /// A resync found the copy behind the stored version.
    Resync,
}

/// SHA-256 of a token.
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A fresh random token (256 bits, hex).
pub fn new_token() -> String {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the operating system gives random bytes");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A fresh game id (10 letters and digits, about 51 bits).
pub fn new_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut b = [0u8; 10];
    getrandom::fill(&mut b).expect("the operating system gives random bytes");
    b.iter()
        .map(|x| ALPHABET[(*x as usize) % ALPHABET.len()] as char)
        .collect()
}

/// How a client proves it holds a seat.
#[derive(Clone, Copy, Debug)]
pub enum Cred<'a> {
    /// The seat's token.
    Token(&'a str),
    /// A signed-in account (cookie or API token), by id.
    Account(&'a str),
}

/// A game to create (docs/api.md, "Create a game" and "Seats of accounts").
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Its settings.
    pub settings: Settings,
    /// Who sits in each seat.
    pub seats: [SeatSpec; 2],
    /// The client making it (for the cap on open games).
    pub client: Option<ClientKey>,
    /// The accounts holding the seats (the creator's in the first human seat).
    pub players: [Option<Player>; 2],
    /// Rated and listed.
    pub flags: GameFlags,
    /// The id to give it (a matched seek names it beforehand); None: a fresh one.
    pub id: Option<String>,
}

/// Who an action comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// A seat's token holder.
    Player,
    /// A bot in its seat.
    Bot,
    /// The server's clock (a timeout, or Wall Go's automatic turn).
    Clock,
}

/// One loaded game: its room behind a lock and the channel its watchers listen on.
pub struct Handle {
    /// The game.
    pub room: RoomCell,
    /// Committed events (JSON messages) for WebSocket watchers.
    pub tx: broadcast::Sender<Arc<str>>,
    /// The stop flag of the bot search running or queued for this game, if any.
    bot_stop: Mutex<Option<Arc<AtomicBool>>>,
    /// Sockets watching this game now.
    pub sockets: AtomicUsize,
    /// When a request or action last used it (ms): an idle game leaves memory.
    used_at: std::sync::atomic::AtomicI64,
    /// Sent `true` when the game leaves this process's memory: its sockets close.
    pub gone: tokio::sync::watch::Sender<bool>,
    /// Chat messages for watchers: (players' channel only, the JSON message).
    pub chat: broadcast::Sender<(bool, Arc<str>)>,
    /// This process owns the game (docs/scaling.md): it alone runs its clock and bots. A
    /// game that is not owned here is a read-only copy kept for watchers.
    owned: AtomicBool,
    /// The arrays (board, legal moves…) of the last delta sent to the watchers: the next
    /// delta sends patches of them.
    sent: Mutex<Option<patch::Arrays>>,
}

/// A game's room behind its lock, with the time the clock sweep must look at it next.
pub struct RoomCell {
    inner: tokio::sync::Mutex<Room>,
    /// The earliest time (ms) the game's clock or the server's policy can end it, as the clock
    /// sweep last computed it; `i64::MIN` once anybody else has held the lock since (the room
    /// may have changed: the sweep looks again). Games nobody touched are not looked at.
    due: std::sync::atomic::AtomicI64,
}

impl RoomCell {
    /// A room not yet looked at by the clock sweep.
    pub fn new(room: Room) -> RoomCell {
        RoomCell {
            inner: tokio::sync::Mutex::new(room),
            due: std::sync::atomic::AtomicI64::new(i64::MIN),
        }
    }

    /// Locks the room (the clock sweep looks at it again after).
    pub async fn lock(&self) -> tokio::sync::MutexGuard<'_, Room> {
        let guard = self.inner.lock().await;
        self.due.store(i64::MIN, Ordering::Release);
        guard
    }

    /// The room to read, if it is free now: a read changes nothing the sweep computed (every
    /// lock that may change the room is [`RoomCell::lock`]).
    pub fn try_read(&self) -> Option<RoomRead<'_>> {
        self.inner.try_lock().ok().map(RoomRead)
    }

    /// The clock sweep's lock: the room if it may be due at `now` and is free, without
    /// marking it changed.
    fn lock_if_due(&self, now: i64) -> Option<tokio::sync::MutexGuard<'_, Room>> {
        if self.due.load(Ordering::Acquire) > now {
            return None;
        }
        self.inner.try_lock().ok()
    }

    /// Records, while the sweep holds `room`'s lock, when it must look at it next.
    fn set_due(&self, room: &Room) {
        self.due
            .store(room.next_end().unwrap_or(i64::MAX), Ordering::Release);
    }
}

/// A room locked for reading only ([`RoomCell::try_read`]).
pub struct RoomRead<'a>(tokio::sync::MutexGuard<'a, Room>);

impl std::ops::Deref for RoomRead<'_> {
    type Target = Room;
    fn deref(&self) -> &Room {
        &self.0
    }
}

impl Handle {
    /// Whether this process owns the game now (runs its clock and bots).
    pub fn owned(&self) -> bool {
        self.owned.load(Ordering::Relaxed)
    }

    /// Whether a bot's search for this game is queued or running.
    fn bot_thinking(&self) -> bool {
        self.bot_stop
            .lock()
            .expect("bot stop lock")
            .as_ref()
            .is_some_and(|s| !s.load(Ordering::Relaxed))
    }
}

/// Messages a watcher may fall behind by before it is sent a fresh state instead.
pub const WATCH_BACKLOG: usize = 16;

/// Options of the hub.
#[derive(Clone, Debug, Default)]
pub struct HubOptions {
    /// Accept the test-only bot `panic` (a bot that panics, to test isolation).
    pub test_bots: bool,
    /// The bots' budget.
    pub bots: BotLimits,
    /// The operator's models.
    pub models: Models,
    /// When games nobody finishes end.
    pub ends: Ends,
    /// Open (unstarted) games one client may have at once (0: no cap).
    pub open_games_per_client: usize,
    /// How long a finished game stays in memory for its watchers (ms).
    pub finished_grace_ms: i64,
    /// How long an unfinished game nobody moves or watches stays in memory (ms; 0: forever).
    pub idle_game_ms: i64,
    /// The secret every process of the cluster shares (internal calls carry it); None: this
    /// process forwards nothing and refuses every internal call.
    pub cluster_secret: Option<String>,
    /// New games are owned by this process, not the least loaded live one.
    pub place_here: bool,
}

/// The live games of this process.
pub struct Hub {
    /// The database.
    pub store: Store,
    rooms: Mutex<HashMap<String, Arc<Handle>>>,
    /// When this process started.
    started_at: i64,
    /// The last heartbeat before this process started, if it came before an outage: a turn
    /// that spans the outage is not charged for it.
    outage: Option<(i64, i64)>,
    opts: HubOptions,
    /// The bots and their queue.
    pub bots: Arc<Bots>,
    /// This process as a node of the cluster: its id, address and lease.
    pub cluster: Cluster,
    /// Counters for `/metrics`.
    pub metrics: crate::game::metrics::Metrics,
    /// The stored versions the last periodic resync found ahead of a copy here.
    behind: Mutex<HashMap<String, i64>>,
    /// Events addressed to accounts (challenges, games starting and finishing).
    pub events: crate::game::events::AccountEvents,
}

/// The code of a refusal because another process owns the game now (nothing was stored).
pub const MOVED_CODE: &str = "cluster.moved";

fn storage(e: StoreError) -> ActError {
    match e {
        StoreError::Conflict => {
            ActError::conflict("another action was stored for this turn first; reload the game")
        }
        StoreError::Fenced => ActError::unavailable(
            "the game moved to another server process; nothing was stored, try again",
        )
        .with_code(MOVED_CODE, Value::Null),
        StoreError::Db(m) => {
            // The database's words stay in the log: they may name files or hosts.
            tracing::error!("storage failed: {m}");
            ActError::internal("storage failed, nothing was changed; try again")
        }
    }
}

/// Refuses a rated game the ratings cannot count: a size or variant without a rating, a bot
/// with options beyond its level, a seat that is neither an account, an open seat (joined by an
/// account) nor a rated bot.
fn check_rated(
    settings: &Settings,
    seats: &[SeatSpec; 2],
    players: &[Option<Player>; 2],
) -> Result<(), ActError> {
    let Some(kind) = crate::game::ratings::kind_of(settings) else {
        return Err(crate::game::settings::unrated_kind());
    };
    if let Settings::Go { handicap, .. } = settings {
        if *handicap > 9 {
            return Err(ActError::bad_request("rated: at most 9 handicap stones"));
        }
    }
    for spec in seats.iter().filter(|s| s.is_bot()) {
        if let Some(k) = crate::game::ratings::unrated_option(spec.options.as_deref()) {
            return Err(ActError::bad_request(format!(
                "rated: a bot in a rated game plays its level's own settings; `{k}` changes its strength or when it resigns (leave it out, or play unrated)"
            ))
            .with_code("rated.bot_options", json!({"option": k})));
        }
    }
    for (spec, player) in seats.iter().zip(players) {
        let ok = match spec.kind.as_str() {
            "human" => player.is_some(),
            "open" => true,
            "bot" => spec.bot.as_deref().is_some_and(|b| {
                crate::game::ratings::bot_rating(kind, b, spec.options.as_deref()).is_some()
            }),
            _ => false,
        };
        if !ok {
            return Err(ActError::bad_request(
                "rated: every seat is an account (sign in; the other player joins with theirs) or a rated bot",
            )
            .with_code("rated.seats", Value::Null));
        }
    }
    if seats.iter().all(SeatSpec::is_bot) {
        return Err(ActError::bad_request(
            "rated: a person plays in a rated game",
        ));
    }
    Ok(())
}

/// A state message for watchers: the full state (on events that are not actions: joins,
/// reloads, a refused commit).
fn state_message(room: &Room) -> Arc<str> {
    json!({"type": "state", "state": room.state(now_ms(), None, None)})
        .to_string()
        .into()
}

/// A delta message for watchers: the one action just stored (version `base` + 1) and what it
/// changed, with the history arrays as a splice from `keep` (see [`Room::change`]) and the
/// other arrays as patches of the last delta's (`patch.rs`). Its size does not grow with the
/// game.
fn delta_message(h: &Handle, room: &Room, base: i64, keep: usize) -> Arc<str> {
    let mut change = room.change(base, keep, now_ms(), None);
    let mut sent = h.sent.lock().expect("sent lock");
    *sent = Some(patch::lean(
        &mut change,
        base,
        room.version(),
        sent.as_ref(),
    ));
    json!({"type": "delta", "delta": change}).to_string().into()
}

impl Hub {
    /// A hub over `store`; `last_alive` is the newest heartbeat stored before this process
    /// started (None: a new database).
    pub fn new(store: Store, opts: HubOptions, last_alive: Option<i64>) -> Arc<Hub> {
        let started_at = now_ms();
        let outage = last_alive
            .filter(|&a| started_at - a > OUTAGE_MS)
            .map(|a| (a, started_at));
        Arc::new(Hub {
            store,
            rooms: Mutex::new(HashMap::new()),
            started_at,
            outage,
            bots: Arc::new(Bots::new(
                opts.bots.clone(),
                opts.models.clone(),
                opts.test_bots,
            )),
            cluster: Cluster::new(opts.cluster_secret.clone()),
            metrics: crate::game::metrics::Metrics::default(),
            behind: Mutex::new(HashMap::new()),
            events: Default::default(),
            opts,
        })
    }

    /// When this process started (ms, the database's clock).
    pub fn started_at(&self) -> i64 {
        self.started_at
    }

    /// A guest became a named account: the loaded games show its new name.
    pub async fn renamed(&self, account_id: &str, name: &str) {
        for h in self.handles() {
            let mut room = h.room.lock().await;
            for seat in room.seats.iter_mut() {
                if let Some(p) = seat.player.as_mut().filter(|p| p.id == account_id) {
                    p.name = name.to_string();
                }
            }
        }
    }

    /// Sockets open now over every loaded game.
    pub fn sockets(&self) -> usize {
        self.handles()
            .iter()
            .map(|h| h.sockets.load(Ordering::Relaxed))
            .sum()
    }

    /// Checks a seat request of the create call; a bot's options come back in normal form.
    fn check_seat(&self, game: &str, spec: &SeatSpec) -> Result<SeatSpec, ActError> {
        match spec.kind.as_str() {
            "human" | "open" => {
                if spec.bot.is_some() || spec.options.is_some() {
                    return Err(ActError::bad_request(format!(
                        "a {} seat takes no bot or options",
                        spec.kind
                    )));
                }
                Ok(spec.clone())
            }
            "bot" => {
                let opts = self.bots.check_seat(game, spec)?;
                Ok(SeatSpec {
                    kind: "bot".into(),
                    bot: spec.bot.clone(),
                    options: (!opts.is_empty()).then_some(opts),
                })
            }
            k => Err(ActError::bad_request(format!(
                "seat kind `{k}`: expected human, open or bot"
            ))),
        }
    }

    /// Refuses a new game when `client` already has the most open games allowed, counted in
    /// the database over every process of the cluster (a burst on several processes at once
    /// may pass it by the creations in flight).
    pub async fn check_open_cap(&self, client: Option<ClientKey>) -> Result<(), ActError> {
        let (Some(c), cap) = (client, self.opts.open_games_per_client) else {
            return Ok(());
        };
        if cap == 0 {
            return Ok(());
        }
        let mine = self
            .store
            .open_games_of(&client_hash(&c))
            .await
            .map_err(storage)?;
        if mine >= cap as i64 {
            return Err(ActError::too_many(format!(
                "open games: at most {cap} unstarted games a client; wait until one is joined or cancelled"
            ))
            .with_code("limit.open_games", json!({"cap": cap})));
        }
        Ok(())
    }

    /// Remembers that `client` opened game `id` (for the cap on open games).
    pub async fn note_opened(&self, client: Option<ClientKey>, id: &str) {
        if let Some(c) = client.filter(|_| self.opts.open_games_per_client > 0) {
            if let Err(e) = self.store.note_opened(id, &client_hash(&c)).await {
                tracing::warn!("game {id}: its opener was not noted: {e}");
            }
        }
    }

    /// Creates a game; returns its id and the tokens of its human seats.
    pub async fn create(
        self: &Arc<Self>,
        settings: Settings,
        seats: [SeatSpec; 2],
        client: Option<ClientKey>,
    ) -> Result<(String, Vec<(usize, String)>), ActError> {
        self.create_game(NewGame {
            settings,
            seats,
            client,
            players: [None, None],
            flags: GameFlags::default(),
            id: None,
        })
        .await
    }

    /// Creates a game with accounts in its seats; returns its id and the tokens of its human
    /// seats.
    pub async fn create_game(
        self: &Arc<Self>,
        new: NewGame,
    ) -> Result<(String, Vec<(usize, String)>), ActError> {
        self.create_with(new, false).await
    }

    /// Creates a game whose accounts' seats are joined at once (both agreed to it: an accepted
    /// challenge), so it is live from the start; returns as [`Hub::create_game`] does.
    pub async fn create_joined(
        self: &Arc<Self>,
        new: NewGame,
    ) -> Result<(String, Vec<(usize, String)>), ActError> {
        self.create_with(new, true).await
    }

    async fn create_with(
        self: &Arc<Self>,
        new: NewGame,
        joined: bool,
    ) -> Result<(String, Vec<(usize, String)>), ActError> {
        let NewGame {
            settings,
            seats,
            client,
            players,
            flags,
            id: given_id,
        } = new;
        let game = match settings {
            Settings::Go { .. } => "go",
            Settings::Wallgo { .. } => "wallgo",
        };
        let seats = [
            self.check_seat(game, &seats[0])?,
            self.check_seat(game, &seats[1])?,
        ];
        if seats.iter().all(SeatSpec::is_bot) && !self.opts.bots.allow_bot_games {
            return Err(ActError::bad_request(
                "bot against bot: not on this server (its operator can allow it with --allow-bot-games)",
            ));
        }
        if flags.rated {
            check_rated(&settings, &seats, &players)?;
        }
        self.check_open_cap(client).await?;
        let id = given_id.unwrap_or_else(new_id);
        let now = now_ms();
        let mut tokens = Vec::new();
        let mut stored: [crate::store::NewSeat; 2] = Default::default();
        let mut room_seats: Vec<Seat> = Vec::new();
        for ((i, spec), player) in seats.into_iter().enumerate().zip(players) {
            let hash = if spec.kind == "human" {
                let t = new_token();
                let h = hash_token(&t);
                tokens.push((i, t));
                Some(h)
            } else {
                None
            };
            let account = player.as_ref().map(|p| p.id.clone());
            room_seats.push(Seat {
                spec: spec.clone(),
                token_hash: hash,
                joined: false,
                player,
            });
            stored[i] = (spec, hash, account);
        }
        let seats: [Seat; 2] = room_seats
            .try_into()
            .map_err(|_| ActError::internal("two seats"))?;
        let mut room = Room::new(id.clone(), settings.clone(), seats, now)?;
        room.ends = self.opts.ends;
        room.rated = flags.rated;
        let summary = room.summary().to_string();
        let owner = node::place(self).await;
        self.store
            .create_game(
                &id,
                &settings,
                &stored,
                &crate::store::FirstRow {
                    status: room.status(),
                    summary: &summary,
                    now,
                    flags,
                    owner: &owner,
                    schedule: &room.schedule(),
                },
            )
            .await
            .map_err(storage)?;
        let open = room.status() == "open";
        let handle = self.insert(room, owner == self.cluster.node);
        if open {
            self.note_opened(client, &id).await;
        }
        let mut room = handle.room.lock().await;
        if joined {
            for i in 0..2 {
                if room.seats[i].player.is_some() {
                    self.mark_joined(&handle, &mut room, i).await;
                }
            }
        }
        self.after_commit(&handle, &room);
        // Every seat taken (both accounts seated, a paired seek, a server bot): it starts.
        if crate::game::events::all_seated(&room) {
            self.events.announce(&room, "gameStart");
        }
        Ok((id, tokens))
    }

    fn insert(&self, room: Room, owned: bool) -> Arc<Handle> {
        let id = room.id.clone();
        let (tx, _) = broadcast::channel(WATCH_BACKLOG);
        let h = Arc::new(Handle {
            room: RoomCell::new(room),
            tx,
            bot_stop: Mutex::new(None),
            sockets: AtomicUsize::new(0),
            used_at: std::sync::atomic::AtomicI64::new(now_ms()),
            gone: tokio::sync::watch::channel(false).0,
            chat: broadcast::channel(WATCH_BACKLOG).0,
            owned: AtomicBool::new(owned),
            sent: Mutex::new(None),
        });
        let mut rooms = self.rooms.lock().expect("rooms lock");
        rooms.entry(id).or_insert(h).clone()
    }

    /// Builds a room from the database (None: no such game), and whether this process owns it.
    async fn build(&self, id: &str) -> Result<Option<(Room, bool)>, ActError> {
        let Some(g) = self.store.load(id).await.map_err(storage)? else {
            return Ok(None);
        };
        let owned = g.owner.as_deref() == Some(self.cluster.node.as_str());
        if let Some(o) = g.owner.as_deref() {
            self.cluster.remember_owner(id, o);
        }
        let mut room = Room::from_stored(id, g)?;
        room.ends = self.opts.ends;
        self.load_plans(&mut room).await?;
        // Time is charged from the stored start of the turn, by the database's clock, so a
        // process that loads a game gives nobody time back; only an outage (no process alive,
        // see [`OUTAGE_MS`]) within the turn is charged to nobody.
        if let Some((last_alive, started)) = self.outage {
            if room.turn_start < last_alive {
                room.turn_start += started - last_alive;
            } else if room.turn_start < started {
                room.turn_start = started;
            }
        }
        Ok(Some((room, owned)))
    }

    /// The loaded game `id`, loading it from the database if needed.
    pub async fn get(self: &Arc<Self>, id: &str) -> Result<Arc<Handle>, ActError> {
        if id.is_empty() || id.len() > 40 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ActError::not_found(format!("no game `{id}`")));
        }
        if let Some(h) = self.rooms.lock().expect("rooms lock").get(id) {
            h.used_at.store(now_ms(), Ordering::Relaxed);
            return Ok(h.clone());
        }
        let (room, owned) = self
            .build(id)
            .await?
            .ok_or_else(|| ActError::not_found(format!("no game `{id}`")))?;
        let h = self.insert(room, owned);
        {
            let room = h.room.lock().await;
            self.after_commit(&h, &room);
        }
        Ok(h)
    }

    /// The games loaded now (a snapshot; the lock is not held afterwards).
    fn handles(&self) -> Vec<Arc<Handle>> {
        self.rooms
            .lock()
            .expect("rooms lock")
            .values()
            .cloned()
            .collect()
    }

    /// This process now owns game `id` (a new game placed here, a takeover, a handoff):
    /// rebuilt from the database (so nothing another owner stored is missed, and the outage
    /// rule applies), then its clock and bots run here.
    pub async fn adopt(self: &Arc<Self>, id: &str) {
        let loaded = self.rooms.lock().expect("rooms lock").get(id).cloned();
        let Some(h) = loaded else {
            if let Err(e) = self.get(id).await {
                tracing::error!("game {id} could not be loaded: {e}");
            }
            return;
        };
        let mut room = h.room.lock().await;
        match self.build(id).await {
            Ok(Some((fresh, owned))) => {
                *room = fresh;
                h.owned.store(owned, Ordering::Relaxed);
                let _ = h.tx.send(state_message(&room));
                self.after_commit(&h, &room);
            }
            Ok(None) => {}
            Err(e) => tracing::error!("game {id} could not be loaded: {e}"),
        }
    }

    /// This process no longer owns game `id`: its bot stops and its clock is left to the owner.
    pub fn disown(&self, id: &str) {
        let loaded = self.rooms.lock().expect("rooms lock").get(id).cloned();
        if let Some(h) = loaded {
            h.owned.store(false, Ordering::Relaxed);
            if let Some(stop) = h.bot_stop.lock().expect("bot stop lock").take() {
                stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Whether new games are owned by this process whatever the others' load.
    pub fn place_here(&self) -> bool {
        self.opts.place_here
    }

    /// Ids of the games loaded here.
    pub fn loaded_ids(&self) -> Vec<String> {
        self.rooms
            .lock()
            .expect("rooms lock")
            .keys()
            .cloned()
            .collect()
    }

    /// Ids of the loaded games this process owns.
    pub fn owned_ids(&self) -> Vec<String> {
        self.rooms
            .lock()
            .expect("rooms lock")
            .iter()
            .filter(|(_, h)| h.owned())
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// How many unfinished games this process owns now (a game busy this instant counts).
    pub fn owned_live(&self) -> usize {
        self.handles()
            .iter()
            .filter(|h| h.owned() && h.room.try_read().is_none_or(|r| !r.is_over()))
            .count()
    }

    /// The loaded game `id`, if it is loaded.
    pub fn loaded_handle(&self, id: &str) -> Option<Arc<Handle>> {
        self.rooms.lock().expect("rooms lock").get(id).cloned()
    }

    /// Another process stored something for `id`: catch up and tell this process's watchers.
    /// A game not loaded here is left alone (nobody watches it here; the owner plays it).
    pub async fn catch_up(self: &Arc<Self>, id: &str) {
        let loaded = self.rooms.lock().expect("rooms lock").get(id).cloned();
        let Some(h) = loaded else {
            return;
        };
        let mut room = h.room.lock().await;
        let rows = match self.store.actions_since(id, room.version()).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!("game {id}: catch-up failed: {e}");
                return;
            }
        };
        let mut changed = false;
        for row in rows {
            if row.seq != room.version() + 1 {
                break;
            }
            if let Err(e) = room.replay(&row) {
                tracing::error!("game {id}: {e}");
                break;
            }
            changed = true;
        }
        // Joins, claims and rotations are not actions: refresh the seats too.
        if let Ok(Some(fresh)) = self.store.load(id).await {
            for (i, (_, hash, joined)) in fresh.seats.iter().enumerate() {
                if i < 2 && (room.seats[i].joined != *joined || room.seats[i].token_hash != *hash) {
                    room.seats[i].joined = *joined;
                    room.seats[i].token_hash = *hash;
                    changed = true;
                }
                if i < 2 {
                    let player = fresh.players.get(i).cloned().flatten();
                    if player.is_some() && room.seats[i].player.is_none() {
                        room.seats[i].player = player;
                        changed = true;
                    }
                }
            }
        }
        if changed {
            let _ = h.tx.send(state_message(&room));
            self.after_commit(&h, &room);
        }
    }

    /// Another process committed action `row` of game `id` (its event on the bus): applied to
    /// the loaded copy without reading the database, and sent to this process's watchers. An
    /// action this copy already has (this process's own commit, or one a reload brought) is
    /// ignored. Events come in commit order (bus.rs applies one game's one after another), so
    /// one that is not the next means events were missed: the game is read again.
    pub async fn apply_event(self: &Arc<Self>, id: &str, row: ActionRow) {
        let Some(h) = self.loaded_handle(id) else {
            return; // nobody watches it here; its owner plays it
        };
        // The owner stored it itself (only the owner's commits pass the fence): nothing to
        // apply. Its room is not locked for this — it may be held across the next commit,
        // and the events queued behind this one (other games') would wait for that commit.
        if h.owned() {
            return;
        }
        {
            let mut room = h.room.lock().await;
            let version = room.version();
            if row.seq <= version {
                return;
            }
            if row.seq == version + 1 {
                let keep = room.history_len();
                match room.replay(&row) {
                    Ok(()) => {
                        self.metrics.events_applied.fetch_add(1, Ordering::Relaxed);
                        if h.tx.receiver_count() > 0 {
                            let _ = h.tx.send(delta_message(&h, &room, version, keep));
                        }
                        self.after_commit(&h, &room);
                        return;
                    }
                    Err(e) => {
                        tracing::warn!("game {id}: event does not apply ({e}); reading it again");
                    }
                }
            }
        }
        self.reload_event(id, Reload::Gap).await;
    }

    /// Another process marked seat `seat` of game `id` joined (a `hello`, or a claim with its
    /// token hash and player): applied to the loaded copy without reading the database.
    pub async fn apply_join(
        self: &Arc<Self>,
        id: &str,
        seat: usize,
        token_hash: Option<[u8; 32]>,
        player: Option<Player>,
    ) {
        let Some(h) = self.loaded_handle(id) else {
            return;
        };
        let mut room = h.room.lock().await;
        let Some(s) = room.seats.get_mut(seat) else {
            return;
        };
        let mut changed = !s.joined;
        s.joined = true;
        if token_hash.is_some() && s.token_hash != token_hash {
            s.token_hash = token_hash;
            changed = true;
        }
        if s.player.is_none() && player.is_some() {
            s.player = player;
            changed = true;
        }
        self.metrics.joins_applied.fetch_add(1, Ordering::Relaxed);
        if changed {
            let _ = h.tx.send(state_message(&room));
            self.after_commit(&h, &room);
        }
    }

    /// A loaded copy read again from the database to catch up, for `why`.
    pub async fn reload_event(self: &Arc<Self>, id: &str, why: Reload) {
        if self.loaded_handle(id).is_none() {
            return;
        }
        self.metrics.event_reloads.fetch_add(1, Ordering::Relaxed);
        let by = match why {
            Reload::Change => &self.metrics.reloads_change,
            Reload::Gap => &self.metrics.reloads_gap,
            Reload::Resync => &self.metrics.reloads_resync,
        };
        by.fetch_add(1, Ordering::Relaxed);
        self.catch_up(id).await;
    }

    /// Catches up every loaded game (not owned here: this process stores those itself) whose
    /// stored version is ahead of this copy — events missed while a LISTEN connection was down.
    /// One query by the loaded ids, never a scan of every unfinished game.
    pub async fn resync(self: &Arc<Self>) {
        for (id, _) in self.versions_ahead().await {
            self.reload_event(&id, Reload::Resync).await;
        }
    }

    /// The periodic safety net: like [`Hub::resync`], but a copy is read again only when it is
    /// still behind what was stored at the previous check — one merely behind by events still
    /// on their way catches up from them (reading it then would make them arrive for nothing).
    pub async fn resync_settled(self: &Arc<Self>) {
        let ahead = self.versions_ahead().await;
        let before = std::mem::take(&mut *self.behind.lock().expect("behind lock"));
        let mut now = HashMap::new();
        for (id, (copy, stored)) in ahead {
            if before.get(&id).is_some_and(|&was| copy < was) {
                self.reload_event(&id, Reload::Resync).await;
            } else {
                now.insert(id, stored);
            }
        }
        *self.behind.lock().expect("behind lock") = now;
    }

    /// The loaded copies (of games another process owns) whose stored version is ahead:
    /// id → (this copy's version, the stored one).
    async fn versions_ahead(self: &Arc<Self>) -> Vec<(String, (i64, i64))> {
        let mut known = HashMap::new();
        for (id, h) in self
            .rooms
            .lock()
            .expect("rooms lock")
            .iter()
            .filter(|(_, h)| !h.owned())
        {
            if let Some(room) = h.room.try_read() {
                if !room.is_over() {
                    known.insert(id.clone(), room.version());
                }
            }
        }
        if known.is_empty() {
            return Vec::new();
        }
        let ids: Vec<String> = known.keys().cloned().collect();
        let Ok(versions) = self.store.versions_of(&ids).await else {
            return Vec::new();
        };
        versions
            .into_iter()
            .filter_map(|(id, v)| {
                let k = *known.get(&id)?;
                (k < v).then_some((id, (k, v)))
            })
            .collect()
    }

    /// Number of games loaded in this process.
    pub fn loaded(&self) -> usize {
        self.rooms.lock().expect("rooms lock").len()
    }
}
