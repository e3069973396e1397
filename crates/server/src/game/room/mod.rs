//! A game on the server, whichever game it is: settings, seats, clocks and the action log, over
//! the game's own room ([`GoRoom`] or [`WallRoom`]). The action log is the truth: replaying its
//! rows rebuilds the same room in any process. What a room shows is in `views`. The stored data
//! of a game (`Settings`, `SeatSpec`, `Player`, `ActionRow`) is defined in `store::types` and
//! re-exported here.

mod away;
mod views;

use crate::game::clock::{Charge, ClockKind, Clocks};
use crate::game::go_room::{self, GoRoom};
use crate::game::wall_room::{self, WallRoom};
use crate::store::types::RatingChange;
pub use crate::store::types::{ActionRow, Player, SeatSpec, Settings};
use baduk_go::{Color, Game, Rules, TimeControl};
use baduk_wallgo::Variant;
use serde_json::{json, Value};

/// Why an action or request was refused: an HTTP status, a sentence naming the problem (English,
/// for API clients) and a code with its arguments (for pages that say it in their own language).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActError {
    /// The HTTP status (4xx).
    pub status: u16,
    /// The reason, shown to the player.
    pub message: String,
    /// A stable code for the reason (`illegal.ko`, `undo.nothing`, …); by default the status's.
    pub code: &'static str,
    /// The code's arguments (`{"point": "D4"}`), or null.
    pub args: Value,
}

fn err(status: u16, code: &'static str, m: impl Into<String>) -> ActError {
    ActError {
        status,
        message: m.into(),
        code,
        args: Value::Null,
    }
}

impl ActError {
    /// An error with any status; its code is the status's (`too_many`, `bad_request`, …).
    pub fn new(status: u16, m: impl Into<String>) -> ActError {
        let code = match status {
            400 => "bad_request",
            401 => "unauthorized",
            403 => "forbidden",
            404 => "not_found",
            409 => "conflict",
            413 => "too_large",
            422 => "illegal",
            429 => "too_many",
            503 => "busy",
            _ => "internal",
        };
        err(status, code, m)
    }

    /// The same error with a precise code and its arguments.
    pub fn with_code(mut self, code: &'static str, args: Value) -> ActError {
        self.code = code;
        self.args = args;
        self
    }

    /// The error's JSON body: `{"error": message, "code": code, "args": args}`.
    pub fn to_json(&self) -> Value {
        json!({"error": self.message, "code": self.code, "args": self.args})
    }

    /// 400: the request or action is malformed.
    pub fn bad_request(m: impl Into<String>) -> ActError {
        err(400, "bad_request", m)
    }
    /// 409: not now (not your turn, game over, another action came first).
    pub fn conflict(m: impl Into<String>) -> ActError {
        err(409, "conflict", m)
    }
    /// 422: the rules forbid it (the library's message names the rule).
    pub fn illegal(m: impl Into<String>) -> ActError {
        err(422, "illegal", m)
    }
    /// 401: no token where one is needed.
    pub fn unauthorized(m: impl Into<String>) -> ActError {
        err(401, "unauthorized", m)
    }
    /// 403: this token may not act for that seat.
    pub fn forbidden(m: impl Into<String>) -> ActError {
        err(403, "forbidden", m)
    }
    /// 404: no such game.
    pub fn not_found(m: impl Into<String>) -> ActError {
        err(404, "not_found", m)
    }
    /// 429: over a limit (rates, caps); the message names it.
    pub fn too_many(m: impl Into<String>) -> ActError {
        err(429, "too_many", m)
    }
    /// 503: the server is busy (a bounded queue is full); nothing was changed.
    pub fn busy(m: impl Into<String>) -> ActError {
        err(503, "busy", m)
    }
    /// 500: the server failed (storage); nothing was changed.
    pub fn internal(m: impl Into<String>) -> ActError {
        err(500, "internal", m)
    }
    /// 503: not now (the game is moving between server processes); nothing was changed.
    pub fn unavailable(m: impl Into<String>) -> ActError {
        err(503, "unavailable", m)
    }
}

/// 401 `auth.required`: a guest (or nobody) where an account is needed (a rated seat, the
/// players' pages).
pub fn sign_in_first() -> ActError {
    ActError::unauthorized("sign in first (or play as a guest)")
        .with_code("auth.required", Value::Null)
}

impl std::fmt::Display for ActError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Player {
    /// The API's view: `{"name", "rating", "deviation", "rank", "bot"}`.
    pub fn to_json(&self, kind: Option<&str>) -> Value {
        let mut v = self.rating_json(kind);
        v["bot"] = json!(self.bot);
        v
    }

    /// `{"name", "rating", "deviation", "rank"}`.
    fn rating_json(&self, kind: Option<&str>) -> Value {
        match (self.rating, kind) {
            (Some((r, d, g)), Some(k)) => {
                let mut v = crate::game::ratings::rating_json(
                    k,
                    &baduk_rating::Rating {
                        rating: r,
                        deviation: d,
                        volatility: 0.06,
                    },
                    g,
                );
                v["name"] = json!(self.name);
                v
            }
            _ => json!({"name": self.name, "rating": null, "deviation": null, "rank": null}),
        }
    }
}

/// A seat: who sits there and the hash of its token.
#[derive(Clone, Debug)]
pub struct Seat {
    /// Who sits here.
    pub spec: SeatSpec,
    /// SHA-256 of the seat's token (humans), if one was issued.
    pub token_hash: Option<[u8; 32]>,
    /// Whether the seat's owner has shown up (acted or connected with the token).
    pub joined: bool,
    /// The account holding the seat, if any.
    pub player: Option<Player>,
}

impl Seat {
    /// A human seat already joined, without a token (tests and tools that build rooms).
    pub fn joined_human() -> Seat {
        Seat {
            spec: SeatSpec {
                kind: "human".into(),
                bot: None,
                options: None,
            },
            token_hash: None,
            joined: true,
            player: None,
        }
    }

    /// The seat's rating for `kind` as the API shows it (`rating_json`): its account's when
    /// the game began, or a rated bot's fixed one; None for anyone else or an unrated kind.
    pub fn rating_json(&self, kind: Option<&str>) -> Option<Value> {
        let kind = kind?;
        match (&self.player, &self.spec.bot) {
            (Some(p), _) => p.rating.map(|(r, d, g)| {
                crate::game::ratings::rating_json(
                    kind,
                    &baduk_rating::Rating {
                        rating: r,
                        deviation: d,
                        volatility: 0.06,
                    },
                    g,
                )
            }),
            (None, Some(b)) if self.spec.is_bot() => {
                crate::game::ratings::bot_rating(kind, b, self.spec.options.as_deref())
                    .map(|r| crate::game::ratings::rating_json(kind, &r, 0))
            }
            _ => None,
        }
    }
}

/// One row of the state's action log (`actions`), as clients see it.
fn action_json(names: [&str; 2], a: &ActionRow) -> Value {
    json!({"seq": a.seq, "seat": names[a.seat], "action": a.action, "at": a.at, "auto": a.auto})
}

/// The game's own state.
#[derive(Clone, Debug)]
pub enum Core {
    /// Go.
    Go(Box<GoRoom>),
    /// Wall Go.
    Wall(Box<WallRoom>),
}

/// When the server ends a game nobody finishes (all in milliseconds): the operator's policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ends {
    /// An untimed game with no action for this long: the side to move loses by abandonment.
    pub abandon_ms: i64,
    /// A game whose human seat nobody joined for this long: cancelled (no result, unlisted).
    pub unstarted_ms: i64,
    /// The dead-stone phase's clock: when it runs out the marks as they stand are counted.
    pub marking_ms: i64,
}

impl Default for Ends {
    fn default() -> Ends {
        Ends {
            abandon_ms: 7 * 24 * 3_600_000,
            unstarted_ms: 24 * 3_600_000,
            marking_ms: 120_000,
        }
    }
}

/// Actions only the server's clock stores (a client that sends one is refused).
pub const SERVER_ACTIONS: &[&str] = &["timeout", "abandon", "cancel", "marks-timeout", "forfeit"];

/// Illegal moves in a row after which a bot account's seat forfeits a Go game (`forfeit`).
pub const ILLEGAL_IN_ROW: u32 = 3;

/// Undo requests a seat may make in one turn.
pub const UNDO_PER_TURN: usize = 2;
/// Undo requests a seat may make in one game.
pub const UNDO_PER_GAME: usize = 50;
/// Actions (marks, restore, accept) a seat may make in one dead-stone phase.
pub const MARKS_PER_PHASE: usize = 200;
/// The actions of review mode (offer or accept, decline, resume): unrated Go between people.
const REVIEW_ACTIONS: [&str; 3] = ["review", "review-decline", "resume"];
/// Actions one game's log may hold; past it only `resign` is accepted (memory stays bounded).
pub const MAX_ACTIONS: usize = 5_000;

/// A game on the server.
#[derive(Clone, Debug)]
pub struct Room {
    /// The game's id.
    pub id: String,
    /// Its settings.
    pub settings: Settings,
    /// Seat 0 (Black / A) and seat 1 (White / B).
    pub seats: [Seat; 2],
    /// The game itself.
    pub core: Core,
    /// The clocks as they stood after the last action.
    pub clocks: Clocks,
    /// The action log.
    pub actions: Vec<ActionRow>,
    /// When the game was created (ms since 1970).
    pub created_at: i64,
    /// When the side to move's turn started, as this process counts it (ms since 1970).
    pub turn_start: i64,
    /// Index in the action log of the first action of the current turn.
    pub turn_log_start: usize,
    /// When the server ends games nobody finishes.
    pub ends: Ends,
    /// Whether the result moves the players' ratings.
    pub rated: bool,
    /// The ratings the result moved (a rated game that ended).
    pub rating_changes: Vec<RatingChange>,
    /// Illegal moves each seat sent in a row on its turn (a bot account's forfeits at
    /// [`ILLEGAL_IN_ROW`]). In memory only: a restart or a reload of the room starts it again.
    pub illegal_in_row: [u32; 2],
    /// Each seat's private plan of replies (conditional moves), if it made one.
    pub plans: [Option<crate::game::conditional::Plan>; 2],
    /// When the game was paused for a review, while it is (no clock runs then).
    pub review_paused_at: Option<i64>,
}

/// Builds the game's core from its settings.
pub fn core_of(settings: &Settings) -> Result<(Core, ClockKind), ActError> {
    match settings {
        Settings::Go { rules, handicap } => {
            let r = Rules::parse(rules).map_err(|e| ActError::bad_request(e.to_string()))?;
            let room = GoRoom::new(r, *handicap).map_err(ActError::bad_request)?;
            Ok((Core::Go(Box::new(room)), ClockKind::Go(r.time)))
        }
        Settings::Wallgo { variant, turn_ms } => {
            let v: Variant = variant
                .parse()
                .map_err(|e: baduk_wallgo::VariantError| ActError::bad_request(e.to_string()))?;
            Ok((
                Core::Wall(Box::new(WallRoom::new(v))),
                ClockKind::Turn(*turn_ms),
            ))
        }
    }
}

impl Room {
    /// A new room from stored parts (no actions yet).
    pub fn new(
        id: String,
        settings: Settings,
        seats: [Seat; 2],
        created_at: i64,
    ) -> Result<Room, ActError> {
        let (core, kind) = core_of(&settings)?;
        Ok(Room {
            id,
            settings,
            seats,
            core,
            clocks: Clocks::new(kind),
            actions: Vec::new(),
            created_at,
            turn_start: created_at,
            turn_log_start: 0,
            ends: Ends::default(),
            rated: false,
            rating_changes: Vec::new(),
            illegal_in_row: [0, 0],
            review_paused_at: None,
            plans: [None, None],
        })
    }

    /// The room a stored game's rows rebuild (seats, settings, every action replayed).
    pub fn from_stored(id: &str, g: crate::store::StoredGame) -> Result<Room, ActError> {
        let seats: Vec<Seat> = g
            .seats
            .into_iter()
            .zip(g.players)
            .map(|((spec, token_hash, joined), player)| Seat {
                spec,
                token_hash,
                joined,
                player,
            })
            .collect();
        let seats: [Seat; 2] = seats
            .try_into()
            .map_err(|_| ActError::internal(format!("game {id}: not two seats")))?;
        let mut room = Room::new(id.to_string(), g.settings, seats, g.created_at)?;
        room.rated = g.rated;
        room.rating_changes = g.rating_changes;
        for row in &g.actions {
            room.replay(row)?;
        }
        Ok(room)
    }

    /// `go` or `wallgo`.
    pub fn game_word(&self) -> &'static str {
        match self.core {
            Core::Go(_) => "go",
            Core::Wall(_) => "wallgo",
        }
    }

    /// Moves each seat has played (Go: stones and passes; Wall Go: actions, the server's
    /// played-for-them ones included).
    pub fn moves_by_seat(&self) -> [usize; 2] {
        let mut n = [0, 0];
        match &self.core {
            Core::Go(g) => {
                for m in g.game.history() {
                    n[usize::from(m.color == Color::White)] += 1;
                }
            }
            Core::Wall(w) => {
                let mut pos = baduk_wallgo::Position::new(w.game.variant());
                for &a in w.game.actions() {
                    n[usize::from(pos.to_move() != baduk_wallgo::Player::A)] += 1;
                    if pos.apply(a).is_err() {
                        break;
                    }
                }
            }
        }
        n
    }

    /// Whether this is a rated game that ended before each player made
    /// [`MIN_RATED_MOVES`](crate::game::ratings::MIN_RATED_MOVES) moves: aborted, not rated.
    pub fn rated_aborted(&self) -> bool {
        self.rated
            && self.is_over()
            && self
                .moves_by_seat()
                .iter()
                .any(|&n| n < crate::game::ratings::MIN_RATED_MOVES)
    }

    /// The seat names of this game.
    pub fn seat_names(&self) -> [&'static str; 2] {
        match self.core {
            Core::Go(_) => go_room::SEATS,
            Core::Wall(_) => wall_room::SEATS,
        }
    }

    /// The index of a seat name.
    pub fn seat_index(&self, name: &str) -> Option<usize> {
        self.seat_names()
            .iter()
            .position(|s| s.eq_ignore_ascii_case(name))
    }

    /// Number of stored actions.
    pub fn version(&self) -> i64 {
        self.actions.len() as i64
    }

    /// The seat to act now, if any.
    pub fn to_move(&self) -> Option<usize> {
        match &self.core {
            Core::Go(g) => g.to_move(),
            Core::Wall(w) => w.to_move(),
        }
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        match &self.core {
            Core::Go(g) => g.is_over(),
            Core::Wall(w) => w.is_over(),
        }
    }

    /// Whether the server cancelled the game (nobody joined in time): it is no longer listed.
    pub fn cancelled(&self) -> bool {
        match &self.core {
            Core::Go(g) => g.result.as_ref().is_some_and(|r| r.reason == "cancelled"),
            Core::Wall(w) => matches!(w.server_end, Some((_, "cancel"))),
        }
    }

    /// `open` (a human seat not yet joined), `live`, `finished` or `cancelled` (unlisted).
    pub fn status(&self) -> &'static str {
        if self.cancelled() {
            "cancelled"
        } else if self.is_over() {
            "finished"
        } else if self.seats.iter().any(|s| !s.spec.is_bot() && !s.joined) {
            "open"
        } else {
            "live"
        }
    }

    fn move_count(&self) -> usize {
        match &self.core {
            Core::Go(g) => g.move_count(),
            Core::Wall(w) => w.move_count(),
        }
    }

    /// When the side to move runs out of time (ms since 1970), if a clock runs.
    pub fn deadline(&self) -> Option<i64> {
        if self.is_over() || self.review_paused() {
            return None;
        }
        let side = self.to_move()?;
        self.clocks
            .flag_after(side)
            .map(|ms| self.counted_until(side, self.turn_start, ms))
    }

    /// When the dead-stone phase's clock runs out, while it runs.
    pub fn marking_deadline(&self) -> Option<i64> {
        match &self.core {
            Core::Go(g) if g.phase == go_room::Phase::Marking => {
                Some(self.turn_start.saturating_add(self.ends.marking_ms))
            }
            _ => None,
        }
    }

    /// When the server ends this game if nothing happens (abandonment, cancellation, the
    /// dead-stone clock), with the seat and the action it stores then.
    pub fn policy_end(&self) -> Option<(i64, usize, &'static str)> {
        if self.is_over() {
            return None;
        }
        if self.status() == "open" {
            return Some((
                self.created_at.saturating_add(self.ends.unstarted_ms),
                0,
                "cancel",
            ));
        }
        if let Some(d) = self.marking_deadline() {
            return Some((d, 0, "marks-timeout"));
        }
        let side = self.to_move()?;
        if self.deadline().is_some() {
            return None; // the game's own clock ends it
        }
        let last = self.actions.last().map_or(self.created_at, |a| a.at);
        Some((last.saturating_add(self.ends.abandon_ms), side, "abandon"))
    }

    /// The earliest time [`Room::timeout_action`] may have an action: the clock's deadline
    /// or the server's policy end, whichever comes first; None when neither runs.
    pub fn next_end(&self) -> Option<i64> {
        let policy = self.policy_end().map(|(at, _, _)| at);
        match (policy, self.deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The action the server stores when the side to move has run out of time at `now`, or
    /// when the server's policy ends the game ([`Room::policy_end`]).
    pub fn timeout_action(&self, now: i64) -> Option<(usize, String)> {
        if let Some((at, seat, action)) = self.policy_end() {
            if at <= now && (action != "cancel" || self.deadline().is_none_or(|d| d > now)) {
                return Some((seat, action.to_string()));
            }
        }
        let side = self.to_move()?;
        if self.deadline()? > now {
            return None;
        }
        match &self.core {
            Core::Go(_) => Some((side, "timeout".to_string())),
            Core::Wall(w) => {
                // Seed 003: "시간이 지나면 가능한 행동이 자동 처리된다" — the easy bot's choice.
                let seed = seed_of(&self.id) ^ self.version() as u64;
                let pos = *w.game.position();
                let a = baduk_search::wall::choose_action("easy", &pos, seed).ok()??;
                Some((side, w.notation(a)))
            }
        }
    }

    /// Checks and applies one action of `seat` at `now`; returns the row to store. On an error
    /// nothing has changed.
    pub fn apply(
        &mut self,
        seat: usize,
        action: &str,
        now: i64,
        auto: bool,
    ) -> Result<ActionRow, ActError> {
        self.apply_checked(seat, action, now, auto, true)
    }

    /// Applies the action [`Room::timeout_action`] gave, after the deadline it settles.
    pub fn apply_timeout(
        &mut self,
        seat: usize,
        action: &str,
        now: i64,
    ) -> Result<ActionRow, ActError> {
        self.apply_checked(seat, action, now, true, false)
    }

    fn apply_checked(
        &mut self,
        seat: usize,
        action: &str,
        now: i64,
        auto: bool,
        check_deadline: bool,
    ) -> Result<ActionRow, ActError> {
        let before = self.to_move();
        let moves_before = self.move_count();
        let verb = action
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if SERVER_ACTIONS.contains(&verb.as_str()) && !auto {
            return Err(ActError::bad_request(format!(
                "`{verb}` is stored by the server's clock, not sent"
            ))
            .with_code("action.server_only", json!({"action": verb})));
        }
        if check_deadline && !auto {
            self.check_caps(seat, &verb)?;
        }
        let server_end = auto && SERVER_ACTIONS[1..].contains(&verb.as_str());
        let is_timeout = action == "timeout";
        // Wall Go's expiry is an ordinary action the server plays for the player (seed 003);
        // it comes after the deadline by design, so neither the deadline nor a flag applies
        // (a flag would leave the side's turn clock at 0 during its next turn).
        let wall_expiry = auto && matches!(self.core, Core::Wall(_));
        if check_deadline && !is_timeout && !wall_expiry && before == Some(seat) {
            if let Some(d) = self.deadline() {
                if now > d {
                    return Err(ActError::conflict("your time has run out"));
                }
            }
        }
        if REVIEW_ACTIONS.contains(&verb.as_str()) {
            self.may_review()?;
        }
        let ing = self.clocks.ing_extensions();
        match &mut self.core {
            Core::Go(g) => {
                let ing = if is_timeout {
                    let mut c = self.clocks;
                    c.flag(seat);
                    c.ing_extensions()
                } else {
                    ing
                };
                g.act(seat, action, ing)?
            }
            Core::Wall(w) => {
                if is_timeout {
                    return Err(ActError::bad_request("timeout is the server's action"));
                }
                if server_end {
                    w.end_by_server(seat, &verb)?
                } else {
                    w.act(seat, action, auto)?
                }
            }
        }
        if is_timeout {
            self.clocks.flag(seat);
        } else if before == Some(seat)
            && self.move_count() == moves_before
            && self.is_over()
            && !wall_expiry
        {
            // A resignation on one's own turn: the time since the last move is spent too
            // (up to a review's pause, if it came during one).
            let until = self.review_paused_at.unwrap_or(now);
            self.clocks
                .stop(seat, self.counted(seat, self.turn_start, until));
        } else if before == Some(seat)
            && self.move_count() != moves_before
            && self.clocks.charge(
                seat,
                if wall_expiry {
                    0
                } else {
                    self.counted(seat, self.turn_start, now)
                },
            ) == Charge::Flagged
        {
            // Cannot happen after the deadline check above; keep the clock honest anyway.
            self.clocks.flag(seat);
        }
        match (self.review_paused_at, self.review_paused()) {
            (None, true) => self.review_paused_at = Some(now),
            // The pause is not the side to move's time: its turn goes on where it stood.
            (Some(at), false) => {
                self.review_paused_at = None;
                self.turn_start = self.turn_start.saturating_add(now.saturating_sub(at));
            }
            _ => {}
        }
        if self.to_move() != before || self.move_count() != moves_before {
            self.turn_start = now;
            self.turn_log_start = self.actions.len() + 1;
        }
        let row = ActionRow {
            seq: self.version() + 1,
            seat,
            action: action.trim().to_string(),
            at: now,
            auto,
            clocks: self.clocks,
        };
        self.actions.push(row.clone());
        Ok(row)
    }

    /// Whether the game is paused for a review (review mode).
    pub fn review_paused(&self) -> bool {
        matches!(&self.core, Core::Go(g) if g.review_paused && !g.is_over())
    }

    /// Review mode is for unrated Go games between two people: 409 otherwise.
    fn may_review(&self) -> Result<(), ActError> {
        if !matches!(self.core, Core::Go(_)) {
            return Err(ActError::conflict("review mode is for Go games")
                .with_code("review_mode.go_only", Value::Null));
        }
        if self.rated {
            return Err(ActError::conflict(
                "review mode is for unrated games: a rated game is played out",
            )
            .with_code("review_mode.rated", Value::Null));
        }
        if self.seats.iter().any(|s| s.spec.is_bot()) {
            return Err(
                ActError::conflict("review mode needs two people at the board")
                    .with_code("review_mode.bots", Value::Null),
            );
        }
        Ok(())
    }

    /// The caps on what a seat may repeat (undo requests, dead-stone marks, the log's length).
    fn check_caps(&self, seat: usize, verb: &str) -> Result<(), ActError> {
        if self.actions.len() >= MAX_ACTIONS && verb != "resign" {
            return Err(ActError::conflict(format!(
                "this game's log is full ({MAX_ACTIONS} actions): only resign is accepted"
            ))
            .with_code("log.full", json!({"cap": MAX_ACTIONS})));
        }
        let mine = |rows: &[ActionRow], words: &[&str]| {
            rows.iter()
                .filter(|r| {
                    r.seat == seat
                        && !r.auto
                        && r.action
                            .split_whitespace()
                            .next()
                            .is_some_and(|w| words.iter().any(|x| w.eq_ignore_ascii_case(x)))
                })
                .count()
        };
        let turn = &self.actions[self.turn_log_start.min(self.actions.len())..];
        match (&self.core, verb) {
            (Core::Go(_), "undo") => {
                if mine(turn, &["undo"]) >= UNDO_PER_TURN {
                    return Err(ActError::conflict(format!(
                        "undo: at most {UNDO_PER_TURN} requests a turn"
                    ))
                    .with_code("undo.cap_turn", json!({"cap": UNDO_PER_TURN})));
                }
                if mine(&self.actions, &["undo"]) >= UNDO_PER_GAME {
                    return Err(ActError::conflict(format!(
                        "undo: at most {UNDO_PER_GAME} requests a game"
                    ))
                    .with_code("undo.cap_game", json!({"cap": UNDO_PER_GAME})));
                }
            }
            // Every action of the dead-stone phase counts (marks, restore, accept), so no
            // sequence of them grows the log without bound.
            (Core::Go(g), _)
                if g.phase == go_room::Phase::Marking
                    && turn.iter().filter(|r| r.seat == seat && !r.auto).count()
                        >= MARKS_PER_PHASE =>
            {
                return Err(ActError::conflict(format!(
                    "dead-stone phase: at most {MARKS_PER_PHASE} actions a seat in one dead-stone phase"
                ))
                .with_code("marks.cap", json!({"cap": MARKS_PER_PHASE})));
            }
            _ => {}
        }
        Ok(())
    }

    /// Replays a stored row (its clocks are taken as stored).
    pub fn replay(&mut self, row: &ActionRow) -> Result<(), ActError> {
        self.apply_checked(row.seat, &row.action, row.at, row.auto, false)
            .map_err(|e| {
                ActError::internal(format!("stored action {} does not replay: {e}", row.seq))
            })?;
        self.clocks = row.clocks;
        if let Some(last) = self.actions.last_mut() {
            *last = row.clone();
        }
        Ok(())
    }

    /// The colour of a Go seat (for bots).
    pub fn go_color(seat: usize) -> Color {
        if seat == 0 {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// A stable 64-bit seed from a game id (FNV-1a).
pub fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
