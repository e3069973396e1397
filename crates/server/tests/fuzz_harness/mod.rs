//! The fuzz harness of the server's parsers, shared by the cargo-fuzz target
//! (`fuzz-server/fuzz_targets/server_input.rs`, which includes this file) and the seeded test
//! `tests/fuzz_server.rs` (which runs it in CI).
//!
//! [`room_actions`]: arbitrary bytes as Go and Wall Go actions, applied to rooms in every phase
//! (play, free handicap, dead-stone marking, an undo request, finished; Wall Go placement, play,
//! finished). A refusal must be a 4xx, and whatever was accepted must replay from the action
//! log into the same state (the log is the truth, `room.rs`).
//!
//! [`Api::request`]: arbitrary bytes as request bodies (game creation, actions, join, the
//! lobby's query) through the real router on a SQLite store in memory (a file under
//! `/dev/shm`). Nothing may answer 5xx (a panic answers 500), a body that is not JSON must be a
//! 400, and every error is `{"error": "…"}`.
//!
//! [`bot_options`]: arbitrary bytes as a bot seat's game, name and options, read by the
//! server's allow-list: a refusal is a 400 that names "bot options" or the bot, an acceptance
//! is a normal form that reads again as itself, stays in every range, names no file, and that
//! the bots' own parsers take.
//!
//! [`Api::player_request`]: arbitrary bytes as the players' request bodies (sign-up, sign-in,
//! seeks, API tokens, chat reports) through the real router, signed in with an API token where
//! the route needs an account: nothing answers 5xx, a body that is not JSON is a 400, every
//! error is `{"error": "…"}`, and a refused sign-in says nothing but "wrong username or password".
//!
//! [`Api::socket_messages`]: arbitrary bytes as a sequence of WebSocket messages (hello, ping,
//! actions with the seats' tokens or made-up ones) through the server's socket handler: every
//! reply is one of its message types, an error is a 4xx, and the stored game always rebuilds
//! into the state the server holds.

#![allow(dead_code)]

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use baduk_server::game::hub::{Hub, HubOptions};
use baduk_server::game::room::{Core, Room, Seat, Settings};
use baduk_server::http::router;
use baduk_server::state::AppState;
use baduk_server::store::Store;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::OnceLock;
use tower::ServiceExt;

/// The longest action sequence one input plays.
const MAX_ACTIONS: usize = 8;

fn new_room(settings: Settings) -> Room {
    Room::new(
        "fuzz".into(),
        settings,
        [Seat::joined_human(), Seat::joined_human()],
        1_000,
    )
    .expect("a valid room")
}

fn go(rules: &str, handicap: u32) -> Room {
    new_room(Settings::Go {
        rules: rules.into(),
        handicap,
    })
}

fn wall() -> Room {
    new_room(Settings::Wallgo {
        variant: String::new(),
        turn_ms: 0,
    })
}

fn legal(room: &Room) -> Vec<String> {
    match &room.core {
        Core::Go(g) => g.legal(),
        Core::Wall(w) => w.legal(),
    }
}

/// Plays `actions` in turn, each by the side to move (`!` before it: by the other seat).
fn played(mut room: Room, actions: &[&str]) -> Room {
    for (i, a) in actions.iter().enumerate() {
        let to_move = room.to_move().unwrap_or(i % 2);
        let (seat, a) = match a.strip_prefix('!') {
            Some(a) => (1 - to_move, a),
            None => (to_move, *a),
        };
        room.apply(seat, a, 2_000 + i as i64, false)
            .unwrap_or_else(|e| panic!("setup action {a}: {e}"));
    }
    room
}

/// Plays `n` legal actions picked by a fixed rule (never pass or resign).
fn advanced(mut room: Room, n: usize) -> Room {
    for k in 0..n {
        let l: Vec<String> = legal(&room)
            .into_iter()
            .filter(|a| a != "pass" && a != "resign" && !a.ends_with(" pass"))
            .collect();
        if l.is_empty() {
            break;
        }
        let a = l[(k * 7 + 3) % l.len()].clone();
        let seat = room.to_move().expect("someone is to move");
        room.apply(seat, &a, 2_000 + k as i64, false)
            .unwrap_or_else(|e| panic!("setup action {a}: {e}"));
    }
    room
}

/// Rooms in every phase an action can meet.
pub fn rooms() -> &'static [Room] {
    static ROOMS: OnceLock<Vec<Room>> = OnceLock::new();
    ROOMS.get_or_init(|| {
        vec![
            go("japanese,size=9", 0),
            advanced(go("chinese,size=9", 0), 12),
            go("chinese,size=9,handicap=free", 3),
            go("japanese,size=9", 4),
            played(go("japanese,size=5", 0), &["C3", "pass", "pass"]),
            played(go("korean,size=5", 0), &["C3", "D4", "pass", "pass"]),
            played(go("chinese,size=5", 0), &["C3", "!undo"]),
            played(go("chinese,size=5", 0), &["C3", "resign"]),
            go("chinese,size=13x9,time=byo-yomi:60:1:10", 0),
            advanced(go("tromp-taylor,size=4,komi=0.5", 0), 6),
            wall(),
            advanced(wall(), 8),
            advanced(wall(), 30),
            played(wall(), &["resign"]),
        ]
    })
}

/// The state with a fixed `now` (the only field that moves with the clock).
fn state(room: &Room) -> Value {
    room.state(1_000_000, None, None)
}

/// Bytes as action text: split on newlines, at most [`MAX_ACTIONS`] actions, lossy UTF-8 (the
/// server only ever gets strings from JSON).
fn actions_of(data: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(data)
        .split('\n')
        .take(MAX_ACTIONS)
        .map(str::to_string)
        .collect()
}

/// Byte 0 picks the room, byte 1 who acts (bit i set: action i comes from the seat not to
/// move), the rest is the actions.
pub fn room_actions(data: &[u8]) {
    let all = rooms();
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (&who, rest) = rest.split_first().unwrap_or((&0, &[]));
    let start = &all[pick as usize % all.len()];
    let mut room = start.clone();
    for (i, a) in actions_of(rest).iter().enumerate() {
        let to_move = room.to_move().unwrap_or(i % 2);
        let seat = if who >> (i % 8) & 1 == 1 {
            1 - to_move
        } else {
            to_move
        };
        let before = state(&room);
        match room.apply(seat, a, 3_000 + i as i64, false) {
            Ok(row) => {
                assert_eq!(row.seat, seat);
                assert_eq!(row.seq, room.version());
            }
            Err(e) => {
                assert!(
                    matches!(e.status, 400 | 403 | 409 | 422),
                    "action {a:?} by seat {seat}: status {} ({})",
                    e.status,
                    e.message
                );
                assert!(!e.message.is_empty(), "action {a:?}: an error says why");
                assert_eq!(
                    state(&room),
                    before,
                    "a refused action {a:?} changed the room"
                );
            }
        }
    }
    // Whatever was accepted replays from the log into the same room, as another process or a
    // restart would rebuild it.
    let mut again = Room::new(
        start.id.clone(),
        start.settings.clone(),
        start.seats.clone(),
        start.created_at,
    )
    .expect("the room's settings still make a room");
    for row in &room.actions {
        again
            .replay(row)
            .unwrap_or_else(|e| panic!("the log does not replay: {e}"));
    }
    assert_eq!(state(&again), state(&room), "the replayed room differs");
    let _ = room.record();
    let _ = room.summary();
    let _ = room.timeout_action(i64::MAX / 2);
}

/// The real router on a SQLite store, with one Go and one Wall Go game to act in.
pub struct Api {
    rt: tokio::runtime::Runtime,
    app: axum::Router,
    state: AppState,
    go: (String, [String; 2]),
    wall: (String, [String; 2]),
    /// An API token of an account (`bdk_…`), for the routes that need a player.
    player: String,
}

/// A fresh SQLite URL in memory where the system has `/dev/shm`, else in the temp folder.
pub fn scratch_database(name: &str) -> String {
    let dir = std::path::Path::new("/dev/shm");
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("baduk-fuzz-{name}-{}.db", std::process::id()));
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
    format!("sqlite:{}", path.display())
}

/// A 4xx or 5xx answer must carry `{"error": "…"}`.
fn check_error_body(status: StatusCode, body: &[u8], what: &str) {
    if status.is_client_error() || status.is_server_error() {
        let v: Value = serde_json::from_slice(body)
            .unwrap_or_else(|e| panic!("{what}: {status} without a JSON body: {e}"));
        assert!(v["error"].is_string(), "{what}: {status}: {v}");
    }
}

/// Percent-encodes everything but unreserved characters (a query string from bytes).
fn encode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b"-_.~=&".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Whether a create body would seat a real bot (which would think for seconds on every input).
fn seats_a_bot(body: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    v["seats"].as_object().is_some_and(|s| {
        s.values().any(|seat| {
            seat["kind"] == "bot"
                && matches!(
                    seat["bot"].as_str(),
                    Some("baduk" | "random" | "easy" | "medium" | "expert" | "sedol")
                )
        })
    })
}

impl Api {
    /// The router over a fresh store at `database` (`sqlite:PATH`; the store does not take
    /// `sqlite::memory:`, so a file under `/dev/shm` is the in-memory one).
    pub fn new(database: &str) -> Api {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let state = rt.block_on(async {
            let store = Store::open(database).await.expect("the store opens");
            let hub = Hub::new(store, HubOptions::default(), None);
            let cfg = baduk_server::Config {
                rate_limit: 0.0,
                limits: baduk_server::Limits::unlimited(),
                ..Default::default()
            };
            AppState::new(hub, &cfg)
        });
        let player = rt.block_on(async {
            let store = &state.hub.store;
            let a = store
                .create_account("fuzzer", "fuzzer", None, false)
                .await
                .expect("an account");
            store
                .create_api_token(
                    &a.id,
                    "fuzz",
                    &baduk_server::players::accounts::DEFAULT_SCOPES,
                )
                .await
                .expect("a token")
                .expect("room for a token")
                .1
        });
        let app = router(state.clone());
        let mut api = Api {
            rt,
            app,
            state,
            go: (String::new(), Default::default()),
            wall: (String::new(), Default::default()),
            player,
        };
        api.go = api.create(r#"{"game": "go", "size": 9, "rules": "chinese"}"#);
        api.wall = api.create(r#"{"game": "wallgo", "turn_seconds": 0}"#);
        api
    }

    fn send(&self, req: Request<Body>) -> (StatusCode, Vec<u8>) {
        let mut req = req;
        req.extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 4000))));
        self.rt.block_on(async {
            let res = self
                .app
                .clone()
                .oneshot(req)
                .await
                .expect("the router always answers");
            let status = res.status();
            let body = axum::body::to_bytes(res.into_body(), 1 << 20)
                .await
                .expect("a readable body");
            (status, body.to_vec())
        })
    }

    fn post(&self, path: &str, token: Option<&str>, body: Vec<u8>) -> (StatusCode, Vec<u8>) {
        let mut b = Request::post(path).header("content-type", "application/json");
        if let Some(t) = token {
            b = b.header("authorization", format!("Bearer {t}"));
        }
        self.send(b.body(Body::from(body)).expect("a request"))
    }

    fn create(&self, body: &str) -> (String, [String; 2]) {
        let (status, out) = self.post("/api/games", None, body.as_bytes().to_vec());
        assert_eq!(
            status,
            StatusCode::CREATED,
            "{}",
            String::from_utf8_lossy(&out)
        );
        let v: Value = serde_json::from_slice(&out).expect("JSON");
        let seats: Vec<String> = v["seats"]
            .as_object()
            .expect("seats")
            .values()
            .map(|s| s["token"].as_str().expect("a token").to_string())
            .collect();
        (
            v["id"].as_str().expect("an id").to_string(),
            [seats[0].clone(), seats[1].clone()],
        )
    }

    /// Replaces the finished Go (or Wall Go) game, so later inputs meet a live one.
    fn fresh_game(&mut self, go: bool) {
        if go {
            self.go = self.create(r#"{"game": "go", "size": 9, "rules": "chinese"}"#);
        } else {
            self.wall = self.create(r#"{"game": "wallgo", "turn_seconds": 0}"#);
        }
    }

    /// Byte 0 picks the request; byte 1 the seat; the rest is the body (or the fields of one).
    pub fn request(&mut self, data: &[u8]) {
        let Some((&kind, rest)) = data.split_first() else {
            return;
        };
        let (&seat, rest) = rest.split_first().unwrap_or((&0, &[]));
        let seat = (seat & 1) as usize;
        let text = String::from_utf8_lossy(rest).into_owned();
        let raw_is_json = serde_json::from_slice::<Value>(rest).is_ok();
        let (what, status, body, must_400) = match kind % 7 {
            0 => {
                if seats_a_bot(rest) {
                    return;
                }
                let (s, b) = self.post("/api/games", None, rest.to_vec());
                ("create (raw body)", s, b, !raw_is_json)
            }
            1 => {
                // A well-formed body whose fields come from the input.
                let f: Vec<&str> = text.split('\n').collect();
                let field = |i: usize| f.get(i).map(|s| s.to_string());
                let game = if f.len().is_multiple_of(3) {
                    "wallgo"
                } else {
                    "go"
                };
                let mut body = json!({"game": game});
                let keys = [
                    "rules",
                    "clock",
                    "variant",
                    "size",
                    "komi",
                    "handicap",
                    "turn_seconds",
                ];
                for (i, k) in keys.iter().enumerate() {
                    if let Some(v) = field(i) {
                        if v.is_empty() {
                            continue;
                        }
                        // Numbers stay numbers when they read as JSON.
                        let val = serde_json::from_str::<Value>(&v).unwrap_or(Value::String(v));
                        body[*k] = val;
                    }
                }
                if let Some(s) = field(7) {
                    body["seats"] = json!({"black": {"kind": s}, "A": {"kind": "open"}});
                }
                let bytes = body.to_string().into_bytes();
                if seats_a_bot(&bytes) {
                    return;
                }
                let (s, b) = self.post("/api/games", None, bytes);
                ("create (fields)", s, b, false)
            }
            2 | 3 => {
                let (id, tokens) = if kind % 7 == 2 { &self.go } else { &self.wall };
                let path = format!("/api/games/{id}/actions");
                let (s, b) = self.post(&path, Some(&tokens[seat]), rest.to_vec());
                ("action (raw body)", s, b, !raw_is_json)
            }
            4 | 5 => {
                let go = kind % 7 == 4;
                let (id, tokens) = if go { &self.go } else { &self.wall };
                let path = format!("/api/games/{id}/actions");
                let body = json!({"action": text}).to_string().into_bytes();
                let (s, b) = self.post(&path, Some(&tokens[seat]), body);
                if s == StatusCode::OK {
                    let v: Value = serde_json::from_slice(&b).expect("a state");
                    if v["status"] == "finished" {
                        self.fresh_game(go);
                    }
                }
                ("action (text)", s, b, false)
            }
            _ => {
                let (id, _) = &self.go;
                if seat == 0 {
                    let (s, b) = self.post(&format!("/api/games/{id}/join"), None, rest.to_vec());
                    ("join (raw body)", s, b, !raw_is_json)
                } else {
                    let req = Request::get(format!("/api/games?{}", encode(rest)))
                        .body(Body::empty())
                        .expect("a request");
                    let (s, b) = self.send(req);
                    ("lobby query", s, b, false)
                }
            }
        };
        assert!(
            !status.is_server_error(),
            "{what} {text:?}: {status} {}",
            String::from_utf8_lossy(&body)
        );
        if must_400 {
            assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{what} {text:?}: not JSON, yet {status}"
            );
        }
        check_error_body(status, &body, what);
    }
}

impl Api {
    /// Byte 0 picks the players' route; the rest is its body.
    pub fn player_request(&mut self, data: &[u8]) {
        let Some((&kind, rest)) = data.split_first() else {
            return;
        };
        let raw_is_json = serde_json::from_slice::<Value>(rest).is_ok();
        let me = self.player.clone();
        let go = self.go.0.clone();
        let (what, path, token) = match kind % 6 {
            0 => ("signup", "/api/auth/signup".to_string(), None),
            1 => ("login", "/api/auth/login".to_string(), None),
            2 => ("seek", "/api/seeks".to_string(), Some(me.as_str())),
            3 => ("token", "/api/tokens".to_string(), Some(me.as_str())),
            4 => (
                "report",
                format!("/api/games/{go}/chat/1/report"),
                Some(me.as_str()),
            ),
            _ => (
                "create as a player",
                "/api/games".to_string(),
                Some(me.as_str()),
            ),
        };
        if kind % 6 == 5 && seats_a_bot(rest) {
            return;
        }
        let (status, body) = self.post(&path, token, rest.to_vec());
        let text = String::from_utf8_lossy(rest);
        assert!(
            !status.is_server_error(),
            "{what} {text:?}: {status} {}",
            String::from_utf8_lossy(&body)
        );
        // Bodies are read after the route's own checks (who is asking, the game): a report on
        // a message that does not exist is a 404 whatever its body, and an API token minting a
        // token is refused before its body is read (`403` `auth.session_only`).
        if what == "token" {
            assert_eq!(status, StatusCode::FORBIDDEN, "{what} {text:?}");
        } else if !raw_is_json && !rest.is_empty() && kind % 6 != 4 {
            assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{what} {text:?}: not JSON, yet {status}"
            );
        }
        if what == "login" && status == StatusCode::UNAUTHORIZED {
            let v: Value = serde_json::from_slice(&body).expect("JSON");
            assert_eq!(v["code"], "auth.wrong", "{text:?}: {v}");
        }
        check_error_body(status, &body, what);
    }
}

/// Bytes as a bot seat: byte 0 picks the game, the rest is `NAME:OPTIONS` (or just options for
/// a name chosen by byte 1).
pub fn bot_options(data: &[u8]) {
    let Some((&g, rest)) = data.split_first() else {
        return;
    };
    let game = if g & 1 == 0 { "go" } else { "wallgo" };
    let text = String::from_utf8_lossy(rest);
    let names = ["baduk", "random", "easy", "medium", "expert", "sedol"];
    let (name, opts) = match text.split_once(':') {
        Some((n, o)) => (n.to_string(), o.to_string()),
        None => (
            names[(g as usize >> 1) % names.len()].to_string(),
            text.to_string(),
        ),
    };
    let limits = baduk_server::game::bots::BotLimits {
        max_time: std::time::Duration::from_secs(3),
        threads: 2,
        allow_bot_games: false,
    };
    match baduk_server::game::bots::normalise_options(game, &name, &opts, &limits) {
        Err(e) => {
            assert_eq!(e.status, 400, "{name}:{opts}: {e}");
            assert!(
                e.message.starts_with("bot options") || e.message.contains("bot `"),
                "{name}:{opts}: {e}"
            );
        }
        Ok(norm) => {
            assert!(!norm.contains("model"), "{name}:{opts} → {norm}");
            assert!(!norm.contains('/'), "{name}:{opts} → {norm}");
            let again = baduk_server::game::bots::normalise_options(game, &name, &norm, &limits)
                .unwrap_or_else(|e| panic!("{name}:{opts} → {norm} no longer reads: {e}"));
            assert_eq!(again, norm, "the normal form is stable");
            for kv in norm.split(',').filter(|s| !s.is_empty()) {
                let (k, v) = kv.split_once('=').expect("key=value");
                if let Ok(x) = v.parse::<f64>() {
                    let hi = match k {
                        "nodes" => baduk_server::game::bots::MAX_WALL_NODES as f64,
                        "playouts" => baduk_server::game::bots::MAX_GO_PLAYOUTS as f64,
                        "ms" => 3000.0,
                        "time" => 3.0,
                        "threads" => 2.0,
                        "tt" => baduk_server::game::bots::MAX_WALL_TT as f64,
                        "depth" if name == "medium" => {
                            baduk_server::game::bots::MAX_MEDIUM_DEPTH as f64
                        }
                        "depth" => 60.0,
                        "level" => 10.0,
                        _ => 1.0,
                    };
                    assert!(x <= hi, "{name}:{opts} → {norm}: {k} over {hi}");
                }
            }
            // The bots' own parsers take what the server stored.
            if game == "go" {
                let mut cfg = baduk_search::go::BotConfig::default();
                cfg.apply_options(&norm)
                    .unwrap_or_else(|e| panic!("{name}:{opts} → {norm}: the Go bot refuses: {e}"));
            } else {
                let spec = if norm.is_empty() {
                    name.clone()
                } else {
                    format!("{name}:{norm}")
                };
                baduk_search::wall::make_player(&spec, 1)
                    .unwrap_or_else(|e| panic!("{spec}: the Wall Go bots refuse: {e}"));
            }
        }
    }
}

impl Api {
    /// Bytes as WebSocket messages, one a line: byte 0 picks the game; in each line `$0`/`$1`
    /// become the seats' tokens.
    pub fn socket_messages(&mut self, data: &[u8]) {
        let Some((&g, rest)) = data.split_first() else {
            return;
        };
        let go = g & 1 == 0;
        let text = String::from_utf8_lossy(rest).into_owned();
        for line in text.split('\n').take(MAX_ACTIONS) {
            let (id, tokens) = if go { &self.go } else { &self.wall };
            let msg = line.replace("$0", &tokens[0]).replace("$1", &tokens[1]);
            let client = baduk_server::state::limit::ClientKey::of([127, 0, 0, 1].into());
            let reply = self.rt.block_on(baduk_server::http::sockets::ws_reply(
                &self.state,
                id,
                &msg,
                &client,
            ));
            let kind = reply["type"].as_str().unwrap_or_default();
            assert!(
                ["pong", "hello", "ack", "error", "state"].contains(&kind),
                "{msg:?}: {reply}"
            );
            if kind == "error" {
                let status = reply["status"].as_u64().unwrap_or(0);
                assert!((400..500).contains(&status), "{msg:?}: {reply}");
                assert!(reply["error"].is_string(), "{msg:?}: {reply}");
            }
        }
        // The stored game rebuilds into the state the server holds.
        let (id, _) = if go { &self.go } else { &self.wall };
        let hub = self.state.hub.clone();
        let (held, stored) = self.rt.block_on(async {
            let h = hub.get(id).await.expect("the game is there");
            let held = h.room.lock().await.state(0, None, None);
            let g = hub.store.load(id).await.expect("readable").expect("stored");
            let stored = Room::from_stored(id, g)
                .expect("the stored game replays")
                .state(0, None, None);
            (held, stored)
        });
        for k in [
            "version", "board", "pieces", "walls", "actions", "phase", "result",
        ] {
            assert_eq!(held[k], stored[k], "{k} after {text:?}");
        }
        if held["status"] == "finished" {
            self.fresh_game(go);
        }
    }
}

/// An SGF text from bytes, set-up heavy on purpose: byte 0 the board size (1 to 26, past the
/// largest board too), then per pair of bytes an operation — a new node, `AB`/`AW`/`AE` of a
/// point or a rectangle (up to the whole board), `B`/`W` of a point — with coordinates that may
/// fall off the board.
pub fn setup_sgf(data: &[u8]) -> String {
    let letter = |b: u8| (b'a' + b % 26) as char;
    let Some((&size, rest)) = data.split_first() else {
        return String::new();
    };
    let mut out = format!("(;SZ[{}]", 1 + size % 26);
    for c in rest.chunks(3) {
        let (op, a, b) = (c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0));
        let pt = format!("{}{}", letter(a), letter(b));
        match op % 9 {
            0 => out.push(';'),
            1 => out.push_str(&format!("AB[{pt}]")),
            2 => out.push_str(&format!("AW[{pt}]")),
            3 => out.push_str(&format!("AE[{pt}]")),
            4 => out.push_str(&format!("AB[aa:{pt}]")),
            5 => out.push_str(&format!("AE[aa:{pt}]")),
            6 => out.push_str(&format!("AW[{pt}:yy]")),
            7 => out.push_str(&format!(";B[{pt}]")),
            _ => out.push_str(&format!(";W[{pt}]")),
        }
        // A long run of whole-board rectangles, as the review bomb had; escaped rectangles
        // past the largest board; a collection of games each under the set-up cap.
        match op {
            255 => out.push_str(&";AB[aa:yy]AE[aa:yy]".repeat(a as usize * 64)),
            254 => out.push_str(&";AB[\\aa:ZZ]".repeat(a as usize * 64)),
            253 => out.push_str(&format!(")(;{}", "AB[aa:ZZ]".repeat(11)).repeat(a as usize * 4)),
            _ => {}
        }
    }
    out.push(')');
    out
}

/// The SGF reader's counted work on `body` under the server's limits is at most
/// [`baduk_go::sgf::WORK_PER_BYTE`] a byte of its text: the per-input bound on cost, which
/// catches a bomb on any machine (a wall-clock bound caught the old one only past 30 s).
pub fn sgf_cost_is_linear(body: &[u8], what: &str) {
    let Ok(text) = baduk_go::sgf::decode(body) else {
        return;
    };
    let limits = baduk_server::review::stored::SGF_LIMITS;
    let (_, work) = baduk_go::SgfGame::parse_counted(&text, 0, &limits);
    let bound = baduk_go::sgf::WORK_PER_BYTE * text.len().max(1);
    assert!(
        work.cost() <= bound,
        "{what}: the reader did {} units of work for {} bytes ({work:?})",
        work.cost(),
        text.len()
    );
}

impl Api {
    /// Bytes as a review upload (byte 0 even: a set-up heavy SGF made by [`setup_sgf`]; odd: the
    /// raw bytes): a 201 or a 4xx with a reason, never a 5xx; a stored review reads back (`GET`,
    /// the analysis, the record, the rules lab's table) without a 5xx.
    pub fn review_upload(&mut self, data: &[u8]) {
        let Some((&kind, rest)) = data.split_first() else {
            return;
        };
        let body = if kind % 2 == 0 {
            setup_sgf(rest).into_bytes()
        } else {
            rest.to_vec()
        };
        let req = Request::post("/api/reviews")
            .header("content-type", "application/x-go-sgf")
            .body(Body::from(body.clone()))
            .expect("a request");
        let text = String::from_utf8_lossy(&body);
        let what = format!("review {:?}", text.chars().take(200).collect::<String>());
        sgf_cost_is_linear(&body, &what);
        let (status, out) = self.send(req);
        assert!(
            !status.is_server_error(),
            "{what}: {status} {}",
            String::from_utf8_lossy(&out)
        );
        check_error_body(status, &out, &what);
        if status != StatusCode::CREATED {
            return;
        }
        let v: Value = serde_json::from_slice(&out).expect("JSON");
        let id = v["id"].as_str().expect("an id").to_string();
        for path in [
            format!("/api/reviews/{id}"),
            format!("/api/reviews/{id}/analysis"),
            format!("/api/reviews/{id}/record?analysis=1"),
        ] {
            let (status, out) = self.send(
                Request::get(path.as_str())
                    .body(Body::empty())
                    .expect("a request"),
            );
            assert_eq!(
                status,
                StatusCode::OK,
                "{what}: {path}: {}",
                String::from_utf8_lossy(&out)
            );
        }
        if v["game"] == "go" {
            let (status, out) = self.post(&format!("/api/reviews/{id}/marks"), None, Vec::new());
            assert!(
                !status.is_server_error(),
                "{what}: marks: {status} {}",
                String::from_utf8_lossy(&out)
            );
            check_error_body(status, &out, &what);
        }
    }
}
