//! The live games of one server process: each loaded game behind its own lock, the path every
//! action takes (check with the library → store → broadcast), bots, clocks and, on PostgreSQL,
//! the events of other processes.

use crate::room::{seed_of, ActError, ActionRow, Core, Room, Seat, SeatSpec, Settings};
use crate::store::{Store, StoreError};
use baduk_go::Point;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::sync::broadcast;

/// Milliseconds since 1970.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
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
    pub room: tokio::sync::Mutex<Room>,
    /// Committed events (JSON messages) for WebSocket watchers.
    pub tx: broadcast::Sender<Arc<str>>,
}

/// Options of the hub.
#[derive(Clone, Debug, Default)]
pub struct HubOptions {
    /// Accept the test-only bot `panic` (a bot that panics, to test isolation).
    pub test_bots: bool,
}

/// The live games of this process.
pub struct Hub {
    /// The database.
    pub store: Store,
    rooms: Mutex<HashMap<String, Arc<Handle>>>,
    /// When this process started: time while no server ran is not charged to any clock.
    started_at: i64,
    opts: HubOptions,
}

fn storage(e: StoreError) -> ActError {
    match e {
        StoreError::Conflict => {
            ActError::conflict("another action was stored for this turn first; reload the game")
        }
        StoreError::Db(m) => {
            ActError::internal(format!("storage failed, nothing was changed: {m}"))
        }
    }
}

/// A state message for watchers.
fn state_message(room: &Room) -> Arc<str> {
    json!({"type": "state", "state": room.state(now_ms(), None, None)})
        .to_string()
        .into()
}

impl Hub {
    /// A hub over `store`.
    pub fn new(store: Store, opts: HubOptions) -> Arc<Hub> {
        Arc::new(Hub {
            store,
            rooms: Mutex::new(HashMap::new()),
            started_at: now_ms(),
            opts,
        })
    }

    /// Checks a seat request of the create call.
    fn check_seat(&self, game: &str, spec: &SeatSpec) -> Result<(), ActError> {
        match spec.kind.as_str() {
            "human" | "open" => {
                if spec.bot.is_some() || spec.options.is_some() {
                    return Err(ActError::bad_request(format!(
                        "a {} seat takes no bot or options",
                        spec.kind
                    )));
                }
                Ok(())
            }
            "bot" => {
                let name = spec
                    .bot
                    .as_deref()
                    .ok_or_else(|| ActError::bad_request("a bot seat needs \"bot\": its name"))?;
                let opts = spec.options.as_deref().unwrap_or("");
                if opts.len() > 200 {
                    return Err(ActError::bad_request("bot options: too long"));
                }
                if name == "panic" && self.opts.test_bots {
                    return Ok(());
                }
                match game {
                    "go" => {
                        if name != "baduk" {
                            return Err(ActError::bad_request(format!(
                                "unknown Go bot `{name}` (the Go bot is `baduk`)"
                            )));
                        }
                        // The server reads no file a client names: built-in priors or none.
                        if opts.split(',').any(|kv| {
                            kv.split_once('=').is_some_and(|(k, v)| {
                                k.trim() == "priors" && !matches!(v.trim(), "none" | "builtin")
                            })
                        }) {
                            return Err(ActError::bad_request(
                                "bot options: priors is `builtin` or `none` on the server",
                            ));
                        }
                        let mut cfg = baduk_search::go::BotConfig::default();
                        cfg.apply_options(opts).map_err(ActError::bad_request)?;
                        if cfg.threads > 4 {
                            return Err(ActError::bad_request("bot options: threads at most 4"));
                        }
                        if cfg.move_time.is_some_and(|t| t > Duration::from_secs(60)) {
                            return Err(ActError::bad_request(
                                "bot options: time at most 60 seconds a move",
                            ));
                        }
                        Ok(())
                    }
                    _ => {
                        let spec = wall_spec(name, opts);
                        baduk_search::wall::make_player(&spec, 1)
                            .map(|_| ())
                            .map_err(|e| ActError::bad_request(e.0))
                    }
                }
            }
            k => Err(ActError::bad_request(format!(
                "seat kind `{k}`: expected human, open or bot"
            ))),
        }
    }

    /// Creates a game; returns its id and the tokens of its human seats.
    pub async fn create(
        self: &Arc<Self>,
        settings: Settings,
        seats: [SeatSpec; 2],
    ) -> Result<(String, Vec<(usize, String)>), ActError> {
        let game = match settings {
            Settings::Go { .. } => "go",
            Settings::Wallgo { .. } => "wallgo",
        };
        for s in &seats {
            self.check_seat(game, s)?;
        }
        let id = new_id();
        let now = now_ms();
        let mut tokens = Vec::new();
        let mut stored: [(SeatSpec, Option<[u8; 32]>); 2] = Default::default();
        let mut room_seats: Vec<Seat> = Vec::new();
        for (i, spec) in seats.into_iter().enumerate() {
            let hash = if spec.kind == "human" {
                let t = new_token();
                let h = hash_token(&t);
                tokens.push((i, t));
                Some(h)
            } else {
                None
            };
            room_seats.push(Seat {
                spec: spec.clone(),
                token_hash: hash,
                joined: false,
            });
            stored[i] = (spec, hash);
        }
        let seats: [Seat; 2] = room_seats
            .try_into()
            .map_err(|_| ActError::internal("two seats"))?;
        let room = Room::new(id.clone(), settings.clone(), seats, now)?;
        let summary = room.summary().to_string();
        self.store
            .create_game(&id, &settings, &stored, room.status(), &summary, now)
            .await
            .map_err(storage)?;
        let handle = self.insert(room);
        let room = handle.room.lock().await;
        self.after_commit(&handle, &room);
        Ok((id, tokens))
    }

    fn insert(&self, room: Room) -> Arc<Handle> {
        let id = room.id.clone();
        let (tx, _) = broadcast::channel(64);
        let h = Arc::new(Handle {
            room: tokio::sync::Mutex::new(room),
            tx,
        });
        let mut rooms = self.rooms.lock().expect("rooms lock");
        rooms.entry(id).or_insert(h).clone()
    }

    /// Builds a room from the database (None: no such game).
    async fn build(&self, id: &str) -> Result<Option<Room>, ActError> {
        let Some(g) = self.store.load(id).await.map_err(storage)? else {
            return Ok(None);
        };
        let mut room = Room::from_stored(id, g)?;
        // The clock of the side to move runs again from now: time while no server ran is not
        // charged.
        room.turn_start = room.turn_start.max(self.started_at);
        Ok(Some(room))
    }

    /// The loaded game `id`, loading it from the database if needed.
    pub async fn get(self: &Arc<Self>, id: &str) -> Result<Arc<Handle>, ActError> {
        if id.is_empty() || id.len() > 40 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ActError::not_found(format!("no game `{id}`")));
        }
        if let Some(h) = self.rooms.lock().expect("rooms lock").get(id) {
            return Ok(h.clone());
        }
        let room = self
            .build(id)
            .await?
            .ok_or_else(|| ActError::not_found(format!("no game `{id}`")))?;
        let h = self.insert(room);
        {
            let room = h.room.lock().await;
            self.after_commit(&h, &room);
        }
        Ok(h)
    }

    /// The seat whose token this is, compared in constant time; 403 for any other token.
    pub fn seat_of_token(room: &Room, token: &str) -> Result<usize, ActError> {
        let h = hash_token(token);
        let mut found = None;
        for (i, s) in room.seats.iter().enumerate() {
            if let Some(th) = &s.token_hash {
                if bool::from(th.ct_eq(&h)) {
                    found = Some(i);
                }
            }
        }
        found.ok_or_else(|| ActError::forbidden("this token holds no seat in this game"))
    }

    /// Marks the seat as joined the first time its token is used.
    async fn mark_joined(&self, h: &Handle, room: &mut Room, seat: usize) {
        if room.seats[seat].joined {
            return;
        }
        room.seats[seat].joined = true;
        let summary = room.summary().to_string();
        if let Err(e) = self
            .store
            .join(&room.id, seat, room.status(), &summary)
            .await
        {
            tracing::warn!("game {}: could not store the join: {e}", room.id);
        }
        let _ = h.tx.send(state_message(room));
    }

    /// A token holder shows up (page load, socket hello): returns the seat.
    pub async fn hello(self: &Arc<Self>, id: &str, token: &str) -> Result<usize, ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = Self::seat_of_token(&room, token)?;
        self.mark_joined(&h, &mut room, seat).await;
        Ok(seat)
    }

    /// Claims an open seat: a fresh token for it.
    pub async fn join(
        self: &Arc<Self>,
        id: &str,
        seat_name: &str,
    ) -> Result<(usize, String), ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = room
            .seat_index(seat_name)
            .ok_or_else(|| ActError::bad_request(format!("no seat `{seat_name}` in this game")))?;
        if room.seats[seat].spec.kind != "open" || room.seats[seat].token_hash.is_some() {
            return Err(ActError::conflict(format!(
                "seat {seat_name} is not open to join"
            )));
        }
        let token = new_token();
        let hash = hash_token(&token);
        if !self.store.claim(id, seat, &hash).await.map_err(storage)? {
            return Err(ActError::conflict(format!(
                "seat {seat_name} was just taken"
            )));
        }
        room.seats[seat].token_hash = Some(hash);
        self.mark_joined(&h, &mut room, seat).await;
        Ok((seat, token))
    }

    /// One action from a token holder; returns the new state.
    pub async fn act(
        self: &Arc<Self>,
        id: &str,
        token: &str,
        action: &str,
    ) -> Result<Value, ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = Self::seat_of_token(&room, token)?;
        if action.trim() == "timeout" {
            return Err(ActError::bad_request(
                "`timeout` is stored by the server's clock, not sent",
            ));
        }
        self.mark_joined(&h, &mut room, seat).await;
        let now = now_ms();
        // A clock that ran out while nobody looked is settled first.
        if let Some((s, a)) = room.timeout_action(now) {
            self.commit(&h, &mut room, s, &a, now, Origin::Clock)
                .await?;
        }
        self.commit(&h, &mut room, seat, action, now, Origin::Player)
            .await?;
        Ok(room.state(now, None, Some(seat)))
    }

    /// Checks, stores, then broadcasts one action.
    async fn commit(
        self: &Arc<Self>,
        h: &Arc<Handle>,
        room: &mut Room,
        seat: usize,
        action: &str,
        now: i64,
        origin: Origin,
    ) -> Result<ActionRow, ActError> {
        if action.len() > 64 {
            return Err(ActError::bad_request("action: too long (64 bytes at most)"));
        }
        // The library checks the action; a panic in there (a bug) must not leave the room
        // changed but unstored, so the room is rebuilt from the database when one happens.
        let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            match origin {
                Origin::Player => room.apply(seat, action, now, false),
                Origin::Bot => room.apply(seat, action, now, false),
                Origin::Clock => room.apply_timeout(seat, action, now),
            }
            .map(|row| {
                (
                    row,
                    room.status(),
                    room.summary().to_string(),
                    state_message(room),
                )
            })
        }));
        let (row, status, summary, message) = match applied {
            Ok(r) => r?,
            Err(_) => {
                match self.build(&room.id).await {
                    Ok(Some(fresh)) => *room = fresh,
                    _ => {
                        self.rooms.lock().expect("rooms lock").remove(&room.id);
                    }
                }
                return Err(ActError::internal(
                    "the server failed while checking this action; nothing was stored",
                ));
            }
        };
        if let Err(e) = self.store.append(&room.id, &row, status, &summary).await {
            // Nothing was stored: rebuild the game as the database has it.
            match self.build(&room.id).await {
                Ok(Some(fresh)) => *room = fresh,
                // The database cannot be read either: forget the game here; the next request
                // loads it afresh.
                _ => {
                    self.rooms.lock().expect("rooms lock").remove(&room.id);
                }
            }
            let _ = h.tx.send(state_message(room));
            return Err(storage(e));
        }
        let _ = h.tx.send(message);
        self.after_commit(h, room);
        Ok(row)
    }

    /// After a change: a bot to move starts thinking.
    fn after_commit(self: &Arc<Self>, h: &Arc<Handle>, room: &Room) {
        if room.is_over() {
            return;
        }
        let Some((seat, spec)) = bot_to_act(room) else {
            return;
        };
        let version = room.version();
        let snapshot = room.clone();
        let hub = self.clone();
        let h = h.clone();
        let deadline = room.deadline();
        let test_bots = self.opts.test_bots;
        tokio::spawn(async move {
            let now = now_ms();
            let budget = deadline.map(|d| (d - now).max(0));
            let result = tokio::task::spawn_blocking(move || {
                bot_action(&snapshot, seat, &spec, budget, test_bots)
            })
            .await;
            let action = match result {
                Ok(Ok(a)) => a,
                Ok(Err(e)) => {
                    tracing::warn!("bot failed: {e}");
                    return;
                }
                Err(e) => {
                    tracing::error!("a bot panicked; its game waits: {e}");
                    return;
                }
            };
            let mut room = h.room.lock().await;
            if room.version() != version {
                return; // the game moved on while the bot thought
            }
            let now = now_ms();
            if let Err(e) = hub
                .commit(&h, &mut room, seat, &action, now, Origin::Bot)
                .await
            {
                tracing::warn!("game {}: bot action `{action}` refused: {e}", room.id);
            }
        });
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

    /// Applies every clock that has run out (any process may; the database lets one win).
    pub async fn sweep_clocks(self: &Arc<Self>) {
        let now = now_ms();
        for h in self.handles() {
            let Ok(mut room) = h.room.try_lock() else {
                continue; // busy: the next sweep looks again
            };
            if let Some((seat, action)) = room.timeout_action(now) {
                if let Err(e) = self
                    .commit(&h, &mut room, seat, &action, now, Origin::Clock)
                    .await
                {
                    tracing::debug!("game {}: timeout not stored here: {e}", room.id);
                }
            }
        }
    }

    /// Sends every watched game with a running clock its clocks (once a second).
    pub async fn tick_clocks(&self) {
        let now = now_ms();
        for h in self.handles() {
            if h.tx.receiver_count() == 0 {
                continue;
            }
            let Ok(room) = h.room.try_lock() else {
                continue;
            };
            if room.deadline().is_none() {
                continue;
            }
            let st = room.state(now, None, None);
            let msg = json!({"type": "clock", "clocks": st["clocks"], "to_move": st["to_move"], "now": now});
            let _ = h.tx.send(msg.to_string().into());
        }
    }

    /// Loads every unfinished game (clocks and bots go on after a restart).
    pub async fn load_unfinished(self: &Arc<Self>) -> Result<usize, String> {
        let ids = self.store.unfinished().await.map_err(|e| e.to_string())?;
        let n = ids.len();
        for id in ids {
            if let Err(e) = self.get(&id).await {
                tracing::error!("game {id} could not be loaded: {e}");
            }
        }
        Ok(n)
    }

    /// Another process stored something for `id`: catch up and tell this process's watchers.
    pub async fn catch_up(self: &Arc<Self>, id: &str) {
        let loaded = self.rooms.lock().expect("rooms lock").get(id).cloned();
        let Some(h) = loaded else {
            // A game new to this process: load it so its clock and bots run here too.
            let _ = self.get(id).await;
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
        // Joins and claims are not actions: refresh the seats too.
        if let Ok(Some(fresh)) = self.store.load(id).await {
            for (i, (_, hash, joined)) in fresh.seats.iter().enumerate() {
                if i < 2 && (room.seats[i].joined != *joined || room.seats[i].token_hash != *hash) {
                    room.seats[i].joined = *joined;
                    room.seats[i].token_hash = *hash;
                    changed = true;
                }
            }
        }
        if changed {
            let _ = h.tx.send(state_message(&room));
            self.after_commit(&h, &room);
        }
    }

    /// Catches up every game whose stored version is ahead of this process (events missed while
    /// a LISTEN connection was down); loads games new to this process.
    pub async fn resync(self: &Arc<Self>) {
        let Ok(versions) = self.store.versions().await else {
            return;
        };
        for (id, v) in versions {
            let loaded = self.rooms.lock().expect("rooms lock").get(&id).cloned();
            let behind = match loaded {
                None => true,
                Some(h) => match h.room.try_lock() {
                    Ok(room) => room.version() < v,
                    Err(_) => false,
                },
            };
            if behind {
                self.catch_up(&id).await;
            }
        }
    }

    /// Number of games loaded in this process.
    pub fn loaded(&self) -> usize {
        self.rooms.lock().expect("rooms lock").len()
    }

    /// Drops finished games nobody watches from memory (they stay in the database).
    pub async fn evict_finished(&self) {
        let handles: Vec<(String, Arc<Handle>)> = self
            .rooms
            .lock()
            .expect("rooms lock")
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut gone = Vec::new();
        for (id, h) in handles {
            if h.tx.receiver_count() > 0 {
                continue;
            }
            if let Ok(room) = h.room.try_lock() {
                if room.is_over() && now_ms() - room.turn_start > 60_000 {
                    gone.push(id);
                }
            }
        }
        let mut rooms = self.rooms.lock().expect("rooms lock");
        for id in gone {
            rooms.remove(&id);
        }
    }
}

/// The Wall Go bot spec `NAME[:options]`.
fn wall_spec(name: &str, opts: &str) -> String {
    if opts.is_empty() {
        name.to_string()
    } else {
        format!("{name}:{opts}")
    }
}

/// A bot seat that should act now, with its spec.
fn bot_to_act(room: &Room) -> Option<(usize, SeatSpec)> {
    let bot = |i: usize| {
        room.seats[i]
            .spec
            .is_bot()
            .then(|| room.seats[i].spec.clone())
    };
    if let Core::Go(g) = &room.core {
        // A bot answers an undo request first; in the dead-stone phase it accepts or disputes.
        if let Some(asker) = g.undo_request {
            return bot(1 - asker).map(|s| (1 - asker, s));
        }
        if let Some(m) = &g.marking {
            if g.phase == crate::go_room::Phase::Marking {
                return (0..2)
                    .find_map(|i| (!m.accepted[i]).then(|| bot(i).map(|s| (i, s))).flatten());
            }
        }
    }
    let seat = room.to_move()?;
    bot(seat).map(|s| (seat, s))
}

/// What a bot does now (run on the blocking pool). `budget`: ms until its clock runs out.
fn bot_action(
    room: &Room,
    seat: usize,
    spec: &SeatSpec,
    budget: Option<i64>,
    test_bots: bool,
) -> Result<String, String> {
    let name = spec.bot.as_deref().unwrap_or("");
    let opts = spec.options.as_deref().unwrap_or("");
    if name == "panic" && test_bots {
        panic!("the test bot `panic` panics, as asked");
    }
    let seed = seed_of(&room.id) ^ (room.version() as u64).wrapping_mul(0x9E37_79B9);
    match &room.core {
        Core::Go(g) => {
            if let Some(asker) = g.undo_request {
                if asker != seat {
                    return Ok("undo-accept".into());
                }
            }
            match g.phase {
                crate::go_room::Phase::Marking => return Ok(g.bot_marking_answer().into()),
                crate::go_room::Phase::Handicap(_) => {
                    let size = g.rules.size;
                    let stars = crate::go_room::fixed_handicap_points(size.cols(), size.rows(), 9)
                        .unwrap_or_default();
                    let legal = g.legal();
                    let pick = stars
                        .iter()
                        .map(Point::to_string)
                        .find(|p| legal.contains(p))
                        .or_else(|| legal.first().cloned())
                        .ok_or("no point for a handicap stone")?;
                    return Ok(pick);
                }
                _ => {}
            }
            let mut cfg = baduk_search::go::BotConfig {
                seed,
                ..Default::default()
            };
            cfg.apply_options(opts)?;
            // The game's clock caps the thinking time: a twentieth of what is left.
            let mut time = cfg.move_time.unwrap_or(Duration::from_secs(1));
            if let Some(b) = budget {
                let cap = Duration::from_millis((b / 20).max(20) as u64);
                time = time.min(cap);
            }
            let playouts = cfg.playouts;
            let mut bot = baduk_search::go::Bot::new(cfg);
            let req = baduk_search::go::SearchRequest {
                time: Some(time),
                playouts,
                ..Default::default()
            };
            let (mv, _) = baduk_search::go::lib_game::genmove(&mut bot, &g.game, req);
            Ok(match mv {
                None => "resign".into(),
                Some(baduk_go::Move::Pass) => "pass".into(),
                Some(baduk_go::Move::Play(p)) => p.to_string(),
            })
        }
        Core::Wall(w) => {
            let mut opts = opts.to_string();
            if matches!(name, "expert" | "sedol")
                && !opts.contains("ms=")
                && !opts.contains("nodes=")
            {
                let ms = budget.map_or(1000, |b| (b / 4).clamp(20, 1000));
                opts = if opts.is_empty() {
                    format!("ms={ms}")
                } else {
                    format!("{opts},ms={ms}")
                };
            }
            let pos = *w.game.position();
            let a = baduk_search::wall::choose_action(&wall_spec(name, &opts), &pos, seed)
                .map_err(|e| e.0)?
                .ok_or("no legal action")?;
            Ok(w.notation(a))
        }
    }
}
