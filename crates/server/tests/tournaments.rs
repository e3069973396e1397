//! Tournaments over HTTP on SQLite and PostgreSQL: bad input refused with a code and nothing
//! stored changed, a whole 9×9 Swiss of twelve players (accounts, bot levels and bot accounts
//! played over the Bot API) on a fast clock, some games lost on time on the test clock, with
//! its standings and exports, a round robin, a McMahon's start scores, an arena of ten minutes
//! on the test clock and its late entries, an event that starts by itself at its time, a
//! no-show, check-in, overlap by time windows, bot accounts as players, and an event whose
//! starter stopped at round 0 paired by the sweep.
//! The test clock is process-wide: the tests here run one at a time.

mod common;

use baduk_server::store::time::advance_test_clock;
use common::accounts::{call, get, guest, next_of, signup, uniq, with_token, ws, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// One test at a time: they move the process's clock.
static CLOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Asserts a refusal's status and code.
fn refused((st, v): (u16, Value), status: u16, code: &str, what: &str) {
    assert_eq!(
        (st, v["code"].as_str()),
        (status, Some(code)),
        "{what}: {v}"
    );
}

/// A quick Wall Go event's body with `extra` fields over it.
fn event(extra: Value) -> Value {
    let mut v = json!({"name": "Club Swiss", "format": "swiss", "rounds": 4,
        "game": "wallgo", "turn_seconds": 0});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

/// Creates an event as `who`; returns its id.
async fn create(s: &Server, who: &Session, body: Value) -> String {
    let (st, v) = call(s, "POST", "/api/tournaments", who, Some(body)).await;
    assert_eq!(st, 201, "{v}");
    v["id"].as_str().unwrap().to_string()
}

/// `POST /api/tournaments/{id}/{what}` as `who`.
async fn act(s: &Server, who: &Session, id: &str, what: &str, body: Value) -> (u16, Value) {
    call(
        s,
        "POST",
        &format!("/api/tournaments/{id}/{what}"),
        who,
        Some(body),
    )
    .await
}

/// `n` new accounts named from `prefix`, each registered in event `id`, by name.
async fn register(s: &Server, id: &str, prefix: &str, n: usize) -> HashMap<String, Session> {
    let mut out = HashMap::new();
    for i in 0..n {
        let name = uniq(&format!("{prefix}{i}"));
        let who = signup(s, &name).await;
        let (st, v) = act(s, &who, id, "join", json!({})).await;
        assert_eq!(st, 200, "{v}");
        out.insert(name, who);
    }
    out
}

/// Asserts that `who`'s `POST …/{what}` (no body) is refused with `status` and `code`.
async fn refuses(s: &Server, who: &Session, id: &str, what: &str, status: u16, code: &str) {
    refused(act(s, who, id, what, json!({})).await, status, code, what);
}

/// `who` sets the result of board 1 of `round`.
async fn adjudge(s: &Server, who: &Session, id: &str, round: i64, result: &str) -> (u16, Value) {
    let body = json!({"round": round, "board": 1, "result": result});
    act(s, who, id, "result", body).await
}

/// The event as anyone reads it.
async fn read(s: &Server, id: &str) -> Value {
    let (st, v) = s.get(&format!("/api/tournaments/{id}")).await;
    assert_eq!(st, 200, "{v}");
    v
}

/// Polls the event until `pred` holds (at most `secs` seconds).
async fn wait_event(s: &Server, id: &str, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let v = read(s, id).await;
        if pred(&v) {
            return v;
        }
        assert!(
            std::time::Instant::now() < end,
            "not reached in {secs} s: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_bad_event_is_refused_with_a_code_and_nothing_is_stored() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let post = |body: Value| {
            let org = org.clone();
            let s = &s;
            async move { call(s, "POST", "/api/tournaments", &org, Some(body)).await }
        };
        refused(
            post(event(json!({"name": ""}))).await,
            400,
            "tournament.name",
            "no name",
        );
        refused(
            post(event(json!({"name": "x".repeat(81)}))).await,
            400,
            "tournament.name",
            "long name",
        );
        refused(
            post(event(json!({"format": "knockout"}))).await,
            400,
            "tournament.format",
            "format",
        );
        refused(
            post(event(json!({"rounds": 0}))).await,
            400,
            "tournament.rounds",
            "no rounds",
        );
        refused(
            post(event(json!({"rounds": 99}))).await,
            400,
            "tournament.rounds",
            "99 rounds",
        );
        refused(
            post(event(json!({"rounds": "4"}))).await,
            400,
            "tournament.rounds",
            "a string",
        );
        refused(
            post(event(json!({"game": "chess"}))).await,
            400,
            "tournament.settings",
            "game",
        );
        refused(
            post(event(json!({"game": "go", "size": 4}))).await,
            400,
            "tournament.settings",
            "size",
        );
        refused(
            post(event(json!({"seats": {}}))).await,
            400,
            "tournament.settings",
            "seats",
        );
        refused(
            post(event(json!({"starts_at": 1}))).await,
            400,
            "tournament.starts_at",
            "past",
        );
        refused(
            post(event(json!({"starts_at": i64::MAX}))).await,
            400,
            "tournament.starts_at",
            "far",
        );
        refused(
            post(event(json!({"rank_min": "50k"}))).await,
            400,
            "tournament.rank",
            "rank",
        );
        refused(
            post(event(json!({"rank_min": "1d", "rank_max": "5k"}))).await,
            400,
            "tournament.rank",
            "limits upside down",
        );
        refused(
            post(event(json!({"max_players": 1}))).await,
            400,
            "tournament.max_players",
            "one player",
        );
        refused(
            post(event(json!({"no_show_minutes": 0}))).await,
            400,
            "tournament.no_show",
            "no wait",
        );
        refused(
            post(event(
                json!({"fill_bot": {"bot": "sedol", "options": "nodes=9"}}),
            ))
            .await,
            400,
            "tournament.bot",
            "level",
        );
        refused(
            post(event(json!({"format": "arena"}))).await,
            400,
            "tournament.minutes",
            "arena without minutes",
        );
        // Not an object, an unknown field: refused with a code too.
        let (st, v) = call(&s, "POST", "/api/tournaments", &org, Some(json!([1, 2]))).await;
        assert!(st == 400 && v["code"].is_string(), "{v}");
        refused(
            post(event(json!({"colour": "black"}))).await,
            400,
            "tournament.settings",
            "unknown field",
        );
        // Guests and strangers make none.
        let (g, _) = guest(&s).await;
        refused(
            call(&s, "POST", "/api/tournaments", &g, Some(event(json!({})))).await,
            403,
            "tournament.guest",
            "guest",
        );
        let (st, _) = call(
            &s,
            "POST",
            "/api/tournaments",
            &Session::default(),
            Some(event(json!({}))),
        )
        .await;
        assert_eq!(st, 401);
        let (st, v) = s.get("/api/tournaments").await;
        assert_eq!(st, 200);
        for k in ["upcoming", "running", "finished"] {
            assert_eq!(v[k], json!([]), "nothing stored: {v}");
        }
        refused(
            s.get("/api/tournaments/nope").await,
            404,
            "tournament.not_found",
            "no such event",
        );
    }
}

#[tokio::test]
async fn registration_limits_the_organisers_hand_and_a_paired_round_stay_as_they_are() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let (a, b, c) = (
            signup(&s, &uniq("pa")).await,
            signup(&s, &uniq("pb")).await,
            signup(&s, &uniq("pc")).await,
        );
        // A new account's rating (1500) is 6k: outside an event for 20k and weaker.
        let weak = create(
            &s,
            &org,
            event(json!({"name": "Kyu cup", "rank_max": "20k"})),
        )
        .await;
        refuses(&s, &a, &weak, "join", 422, "tournament.rank_limit").await;
        assert_eq!(read(&s, &weak).await["players"], json!([]));
        let id = create(&s, &org, event(json!({"max_players": 2}))).await;
        assert_eq!(act(&s, &a, &id, "join", json!({})).await.0, 200);
        refuses(&s, &a, &id, "join", 409, "tournament.already").await;
        // One event at a time: a second would seat `a` twice at once.
        let other = create(&s, &org, event(json!({"name": "Other"}))).await;
        refuses(&s, &a, &other, "join", 409, "tournament.overlap").await;
        assert_eq!(read(&s, &other).await["players"], json!([]));
        assert_eq!(act(&s, &b, &id, "join", json!({})).await.0, 200);
        refuses(&s, &c, &id, "join", 409, "tournament.full").await;
        refuses(&s, &c, &id, "withdraw", 409, "tournament.not_in").await;
        // Join and withdraw in a loop: three entries, then no more (nothing stored).
        let again = create(&s, &org, event(json!({"name": "Again"}))).await;
        for _ in 0..3 {
            assert_eq!(act(&s, &c, &again, "join", json!({})).await.0, 200);
            assert_eq!(act(&s, &c, &again, "withdraw", json!({})).await.0, 200);
        }
        refuses(&s, &c, &again, "join", 409, "tournament.reentries").await;
        assert_eq!(
            read(&s, &again).await["players"].as_array().unwrap().len(),
            3
        );
        // Only the organiser starts it, sets results, adds players or ends it.
        refuses(&s, &a, &id, "start", 403, "tournament.not_organiser").await;
        refused(
            act(&s, &a, &id, "bots", json!({"bot": "random"})).await,
            403,
            "tournament.not_organiser",
            "bots",
        );
        refused(
            act(&s, &org, &id, "bots", json!({"bot": "nobody"})).await,
            400,
            "tournament.bot",
            "no such level",
        );
        let started = act(&s, &org, &id, "start", json!({})).await;
        assert_eq!(started.0, 200, "{}", started.1);
        let before = read(&s, &id).await;
        assert_eq!(before["status"], "running");
        assert_eq!(before["rounds"].as_array().unwrap().len(), 1, "{before}");
        refuses(&s, &org, &id, "start", 409, "tournament.started").await;
        refuses(&s, &c, &id, "join", 409, "tournament.started").await;
        refused(
            adjudge(&s, &a, &id, 1, "black").await,
            403,
            "tournament.not_organiser",
            "a player's own result",
        );
        refused(
            adjudge(&s, &org, &id, 1, "black+R").await,
            400,
            "tournament.result",
            "a bad result",
        );
        refused(
            adjudge(&s, &org, &id, 7, "black").await,
            404,
            "tournament.no_board",
            "no such board",
        );
        refuses(&s, &b, &id, "end", 403, "tournament.not_organiser").await;
        let after = read(&s, &id).await;
        assert_eq!(
            after["rounds"], before["rounds"],
            "the paired round is as it was"
        );
        assert_eq!(after["players"], before["players"]);
        // The organiser's adjudication is stored with who set it.
        let (st, v) = adjudge(&s, &org, &id, 1, "white").await;
        assert_eq!(st, 200, "{v}");
        let p = &v["tournament"]["rounds"][0]["pairings"][0];
        assert_eq!(p["result"], "white");
        assert!(
            p["set_by"].as_str().is_some_and(|n| n.starts_with("org")),
            "{p}"
        );
        let done = wait_event(&s, &id, 20, |v| v["status"] == "running" && v["round"] == 2).await;
        assert_eq!(done["rounds"][0]["pairings"][0]["result"], "white");
        assert_eq!(act(&s, &org, &id, "end", json!({})).await.0, 200);
        refuses(&s, &org, &id, "end", 409, "tournament.finished").await;
        refuses(&s, &a, &id, "withdraw", 409, "tournament.finished").await;
    }
}

/// Resigns the account's game `game` (its seat is the session's).
async fn resign(s: &Server, who: &Session, game: &str) {
    let path = format!("/api/games/{game}/actions");
    let (st, v) = call(s, "POST", &path, who, Some(json!({"action": "resign"}))).await;
    assert_eq!(st, 200, "resign {game}: {v}");
}

/// A bot account (the Bot API's): its name and a `bot` token.
async fn bot_account(s: &Server) -> (String, String) {
    let name = uniq("tb");
    let me = signup(s, &name).await;
    let (st, v) = call(s, "POST", "/api/account/bot", &me, None).await;
    assert_eq!(st, 200, "{v}");
    let body = json!({"label": "bridge", "scopes": ["bot"]});
    let (st, v) = call(s, "POST", "/api/tokens", &me, Some(body)).await;
    assert_eq!(st, 201, "{v}");
    (name, v["token"].as_str().unwrap().to_string())
}

/// An NDJSON stream read with an API token, line by line.
struct Lines {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Lines {
    async fn open(http: &reqwest::Client, url: String, token: &str) -> Lines {
        let resp = http
            .get(&url)
            .bearer_auth(token)
            .send()
            .await
            .expect("answered");
        assert_eq!(resp.status(), 200, "{url}");
        Lines {
            resp,
            buf: Vec::new(),
        }
    }

    /// The next JSON line (keep-alive lines skipped), or None once the stream ended.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = String::from_utf8(line).unwrap();
                if !text.trim().is_empty() {
                    return Some(serde_json::from_str(&text).expect("a JSON line"));
                }
                continue;
            }
            let chunk = self.resp.chunk().await.ok()??;
            self.buf.extend_from_slice(&chunk);
        }
    }
}

/// The moves made so far in a game's state.
fn moves_of(st: &Value) -> usize {
    match &st["moves"] {
        Value::Array(a) => a.len(),
        v => v.as_u64().unwrap_or(0) as usize,
    }
}

/// A legal point to play in a game's state (not a pass).
fn a_point(st: &Value) -> Option<String> {
    let legal: Vec<&str> = st["legal"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| *m != "pass")
        .collect();
    ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "C5", "G5"]
        .iter()
        .find(|p| legal.contains(p))
        .map(|p| p.to_string())
        .or_else(|| legal.first().map(|p| p.to_string()))
}

/// A test bot behind bot account `me`, over the Bot API as a bridge would do it: it reads
/// `/api/stream/events`, and for each `gameStart` follows the game's stream, playing a point
/// on its turn; after two moves of its own it resigns to a server bot and to a bot account of a
/// higher name (against an account it plays on until the game ends). The ids of the games it
/// was told of go to `seen`.
fn test_bot(
    s: &Server,
    me: String,
    token: String,
    accounts: HashSet<String>,
    seen: tokio::sync::mpsc::UnboundedSender<(String, String)>,
) -> tokio::task::JoinHandle<()> {
    let (http, base) = (s.http.clone(), s.base.clone());
    tokio::spawn(async move {
        let mut events = Lines::open(&http, format!("{base}/api/stream/events"), &token).await;
        let mut playing = HashSet::new();
        while let Some(ev) = events.next().await {
            if ev["type"] != "gameStart" {
                continue;
            }
            let game = ev["game"]["id"].as_str().unwrap().to_string();
            if !playing.insert(game.clone()) {
                continue;
            }
            let _ = seen.send((me.clone(), game.clone()));
            let seat = ev["game"]["seat"].as_str().unwrap().to_string();
            let them = ev["game"]["opponent"]["name"]
                .as_str()
                .unwrap_or("")
                .to_string();
            let gives_up = !accounts.contains(&them) && (!them.starts_with("tb") || me < them);
            let (http, base, token) = (http.clone(), base.clone(), token.clone());
            tokio::spawn(async move {
                let url = format!("{base}/api/stream/games/{game}");
                let mut lines = Lines::open(&http, url, &token).await;
                let mine = |st: &Value| st["to_move"] == json!(seat);
                let mut mine_played = 0;
                while let Some(v) = lines.next().await {
                    let st = &v["state"];
                    if st.is_null() {
                        continue;
                    }
                    if st["status"] == "finished" {
                        break;
                    }
                    if !mine(st) || st["phase"] != "play" {
                        continue;
                    }
                    let action = match a_point(st) {
                        Some(p) if !(gives_up && mine_played >= 2) => p,
                        _ => "resign".to_string(),
                    };
                    let r = http
                        .post(format!("{base}/api/games/{game}/actions"))
                        .bearer_auth(&token)
                        .json(&json!({ "action": action }))
                        .send()
                        .await
                        .expect("answered");
                    if r.status() == 200 {
                        mine_played += 1;
                    }
                }
            });
        }
    })
}

/// How an account's board of the fast Swiss ends.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plan {
    /// Two moves each, two passes, both accept the count.
    Count,
    /// The account of the lower name (or the account against a bot) resigns.
    Resign,
    /// Black (or the account against a bot) lets its clock run out.
    Time,
}

/// An action by an account in its game; its answer.
async fn act_in(s: &Server, who: &Session, game: &str, action: &str) -> (u16, Value) {
    let path = format!("/api/games/{game}/actions");
    call(s, "POST", &path, who, Some(json!({ "action": action }))).await
}

/// Plays a board by `plan` up to where only the clock or the bots can end it. `black` and
/// `white` are the accounts' sessions (None: a bot sits there).
async fn play_board(
    s: &Server,
    game: &str,
    plan: Plan,
    black: Option<&Session>,
    white: Option<&Session>,
    lower_black: bool,
) {
    let seats = [("black", black), ("white", white)];
    match plan {
        Plan::Resign => {
            let loser = match (black, white) {
                (Some(b), Some(w)) => {
                    if lower_black {
                        b
                    } else {
                        w
                    }
                }
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => return,
            };
            let (st, v) = act_in(s, loser, game, "resign").await;
            assert_eq!(st, 200, "resign {game}: {v}");
        }
        Plan::Count => {
            let (b, w) = (black.unwrap(), white.unwrap());
            for (who, action) in [(b, "E5"), (w, "C3"), (b, "pass"), (w, "pass")] {
                let (st, v) = act_in(s, who, game, action).await;
                assert_eq!(st, 200, "{action} in {game}: {v}");
            }
            let st = s.wait_for(game, 10, |g| g["phase"] == "marking").await;
            assert_eq!(st["status"], "live", "{st}");
            for who in [b, w] {
                let (st, v) = act_in(s, who, game, "accept").await;
                assert_eq!(st, 200, "accept in {game}: {v}");
            }
        }
        Plan::Time => {
            // The loser: Black between accounts, else the account; two moves at least (a
            // game with fewer is a no-show's), then the loser's clock runs.
            let loser = if black.is_some() { "black" } else { "white" };
            loop {
                let st = s.state(game).await;
                assert_ne!(st["status"], "finished", "{st}");
                let to_move = st["to_move"].as_str().unwrap_or("").to_string();
                if to_move == loser && moves_of(&st) >= 2 {
                    return;
                }
                let who = seats.iter().find(|(n, _)| *n == to_move).and_then(|x| x.1);
                match who {
                    Some(who) => {
                        let p = a_point(&st).unwrap();
                        let (code, v) = act_in(s, who, game, &p).await;
                        assert_eq!(code, 200, "{p} in {game}: {v}");
                    }
                    None => tokio::time::sleep(Duration::from_millis(50)).await,
                }
            }
        }
    }
}

/// Whether a game's state ended by its clock.
fn lost_on_time(st: &Value) -> bool {
    st["actions"]
        .as_array()
        .and_then(|a| a.last())
        .is_some_and(|a| a["action"] == "timeout")
}

#[tokio::test]
async fn a_fast_swiss_of_accounts_bot_levels_and_bot_accounts_plays_to_its_table_and_exports() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let main_ms = 120_000;
        let id = create(
            &s,
            &org,
            json!({"name": "Twelve", "format": "swiss", "rounds": 4, "game": "go", "size": 9,
                "clock": "fischer:120:1", "no_show_minutes": 60}),
        )
        .await;
        // Eight accounts register; two server bot levels; a bot account joins with its token
        // and the organiser enters another by name.
        let by_name = register(&s, &id, "p", 8).await;
        for level in ["level=1", "level=2"] {
            let body = json!({"bot": "baduk", "options": level});
            let (st, v) = act(&s, &org, &id, "bots", body).await;
            assert_eq!(st, 200, "{v}");
        }
        let (bot_a, token_a) = bot_account(&s).await;
        let (bot_b, token_b) = bot_account(&s).await;
        let path = format!("/api/tournaments/{id}/join");
        let (st, v) = with_token(&s, "POST", &path, Some(&token_a), None).await;
        assert_eq!(st, 200, "a bot account joins with its bot token: {v}");
        let (st, v) = act(&s, &org, &id, "players", json!({"name": bot_b})).await;
        assert_eq!(st, 200, "{v}");
        let accounts: HashSet<String> = by_name.keys().cloned().collect();
        let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
        let bots = [(&bot_a, &token_a), (&bot_b, &token_b)]
            .map(|(n, t)| test_bot(&s, n.clone(), t.clone(), accounts.clone(), seen_tx.clone()));
        let v = read(&s, &id).await;
        let players = v["players"].as_array().unwrap();
        assert_eq!(players.len(), 12, "{v}");
        for p in players {
            let name = p["name"].as_str().unwrap();
            let account_bot = name == bot_a || name == bot_b;
            assert_eq!(p["account_bot"], account_bot, "{p}");
            assert_eq!(p["bot"], !accounts.contains(name), "{p}");
        }
        let lobby_watcher = by_name.values().next().unwrap().clone();
        let mut lobby = ws(&s, "/ws/lobby", &lobby_watcher).await;
        let (st, v) = act(&s, &org, &id, "start", json!({})).await;
        assert_eq!(st, 200, "{v}");
        let mut met: HashSet<(i64, i64)> = HashSet::new();
        let mut plans: HashMap<String, Plan> = HashMap::new();
        let mut turn = 0usize;
        for round in 1..=4i64 {
            let v = wait_event(&s, &id, 60, |v| v["round"] == round).await;
            let r = &v["rounds"][(round - 1) as usize];
            assert_eq!(r["bye"], Value::Null, "twelve players: no bye");
            let pairings = r["pairings"].as_array().unwrap().clone();
            assert_eq!(pairings.len(), 6, "{r}");
            let mut on_time = Vec::new();
            for p in &pairings {
                let (b, w) = (
                    p["black_id"].as_i64().unwrap(),
                    p["white_id"].as_i64().unwrap(),
                );
                assert!(
                    met.insert((b.min(w), b.max(w))),
                    "no rematch in four rounds: {r}"
                );
                let game = p["game"].as_str().unwrap().to_string();
                let (bn, wn) = (p["black"].as_str().unwrap(), p["white"].as_str().unwrap());
                let (black, white) = (by_name.get(bn), by_name.get(wn));
                // Accounts' boards take the plans in turn: the count, a resignation, the clock.
                let plan = match (black, white) {
                    (Some(_), Some(_)) => [Plan::Count, Plan::Resign, Plan::Time][turn % 3],
                    (None, None) => {
                        continue;
                    }
                    _ => [Plan::Resign, Plan::Time][turn % 2],
                };
                turn += 1;
                play_board(&s, &game, plan, black, white, bn < wn).await;
                plans.insert(game.clone(), plan);
                if plan == Plan::Time {
                    on_time.push(game);
                }
            }
            // Every other board ends (the bots play theirs out); then the clock of those left
            // runs out on the test clock, without a sleep.
            for p in &pairings {
                let game = p["game"].as_str().unwrap();
                if !on_time.iter().any(|g| g == game) {
                    s.wait_for(game, 120, |g| g["status"] == "finished").await;
                }
            }
            if !on_time.is_empty() {
                advance_test_clock(main_ms + 5_000);
                for game in &on_time {
                    let st = s.wait_for(game, 20, |g| g["status"] == "finished").await;
                    assert!(lost_on_time(&st), "{st}");
                }
            }
        }
        let v = wait_event(&s, &id, 60, |v| v["status"] == "finished").await;
        // Each plan was played somewhere, and every board has the result its game gave.
        for plan in [Plan::Count, Plan::Resign, Plan::Time] {
            assert!(plans.values().any(|p| *p == plan), "{plan:?}: {plans:?}");
        }
        let mut score: HashMap<i64, f64> = HashMap::new();
        let mut opponents: HashMap<i64, Vec<i64>> = HashMap::new();
        for r in v["rounds"].as_array().unwrap() {
            for p in r["pairings"].as_array().unwrap() {
                let (b, w) = (
                    p["black_id"].as_i64().unwrap(),
                    p["white_id"].as_i64().unwrap(),
                );
                let game = p["game"].as_str().unwrap();
                let st = s.state(game).await;
                assert_eq!(p["result"], st["result"]["winner"], "{p} {st}");
                assert_eq!(p["set_by"], Value::Null, "{p}");
                let (pb, pw) = match p["result"].as_str().unwrap() {
                    "black" => (1.0, 0.0),
                    "white" => (0.0, 1.0),
                    x => panic!("a played board's result: {x} in {v}"),
                };
                *score.entry(b).or_default() += pb;
                *score.entry(w).or_default() += pw;
                opponents.entry(b).or_default().push(w);
                opponents.entry(w).or_default().push(b);
                let (bn, wn) = (p["black"].as_str().unwrap(), p["white"].as_str().unwrap());
                let lower = if bn < wn { "white" } else { "black" };
                let account_lost = if by_name.contains_key(bn) {
                    "white"
                } else {
                    "black"
                };
                match plans.get(game) {
                    Some(Plan::Resign) if accounts.contains(bn) && accounts.contains(wn) => {
                        assert_eq!(p["result"], lower, "{p}")
                    }
                    Some(Plan::Time) if accounts.contains(bn) => {
                        assert_eq!(p["result"], "white", "{p}")
                    }
                    Some(Plan::Resign | Plan::Time) => assert_eq!(p["result"], account_lost, "{p}"),
                    Some(Plan::Count) => assert_eq!(st["result"]["reason"], "score", "{st}"),
                    None => {}
                }
            }
        }
        let table = v["standings"].as_array().unwrap();
        assert_eq!(table.len(), 12);
        let total: f64 = table.iter().map(|r| r["score"].as_f64().unwrap()).sum();
        assert_eq!(total, 24.0, "24 games, a point each: {v}");
        let (st, csv) = get(&s, &format!("/api/tournaments/{id}/export.csv"), &org).await;
        assert_eq!(st, 200);
        let csv = csv.as_str().unwrap().to_string();
        assert!(
            csv.starts_with(
                "place,name,rank,score,sos,sosos,sodos,round 1,round 2,round 3,round 4\n"
            ),
            "{csv}"
        );
        assert_eq!(csv.lines().count(), 13, "{csv}");
        let (st, egf) = get(&s, &format!("/api/tournaments/{id}/export.egf"), &org).await;
        assert_eq!(st, 200);
        let egf = egf.as_str().unwrap().to_string();
        assert!(egf.starts_with("; CL[D]\n; EV[Twelve]\n"), "{egf}");
        let mut last = f64::INFINITY;
        for (i, row) in table.iter().enumerate() {
            assert_eq!(row["place"], i + 1);
            let me = row["player"].as_i64().unwrap();
            let mine = row["score"].as_f64().unwrap();
            assert!(mine <= last, "ordered by score: {v}");
            last = mine;
            assert_eq!(mine, score[&me], "{row}");
            let sos: f64 = opponents[&me].iter().map(|o| score[o]).sum();
            assert_eq!(row["sos"].as_f64().unwrap(), sos, "SOS by hand: {row}");
            // The exports: the row's place, name, score, SOS and crosstable, on one line.
            let cells: Vec<&str> = row["crosstable"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            assert_eq!(cells.len(), 4);
            let name = row["name"].as_str().unwrap();
            let line = csv
                .lines()
                .find(|l| l.starts_with(&format!("{},{name},", i + 1)))
                .unwrap_or_else(|| panic!("{name} in {csv}"));
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f[3].parse::<f64>().unwrap(), mine, "{line}");
            assert_eq!(f[4].parse::<f64>().unwrap(), sos, "{line}");
            assert_eq!(&f[7..], &cells[..], "{line}");
            let place = (i + 1).to_string();
            let line = egf
                .lines()
                .find(|l| l.split_whitespace().next() == Some(place.as_str()) && l.contains(name))
                .unwrap_or_else(|| panic!("{name} in {egf}"));
            let t: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(t[0], (i + 1).to_string(), "{line}");
            assert_eq!(&t[t.len() - 4..], &cells[..], "{line}");
        }
        // The bot accounts were told of each of their games on their event stream.
        let mut told: HashMap<String, HashSet<String>> = HashMap::new();
        while let Ok((who, game)) = seen.try_recv() {
            told.entry(who).or_default().insert(game);
        }
        for bot in [&bot_a, &bot_b] {
            let games: HashSet<String> = v["rounds"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|r| r["pairings"].as_array().unwrap().clone())
                .filter(|p| p["black"] == json!(bot) || p["white"] == json!(bot))
                .map(|p| p["game"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(games.len(), 4, "{bot} played each round");
            assert_eq!(
                told.get(bot.as_str()),
                Some(&games),
                "{bot}'s gameStart lines"
            );
        }
        for b in bots {
            b.abort();
        }
        // The lobby's socket heard the standings, the last of them final.
        loop {
            let m = next_of(&mut lobby, "tournament", 30).await;
            if m["id"] == json!(id) && m["status"] == "finished" {
                assert_eq!(m["standings"], v["standings"]);
                break;
            }
        }
    }
}

#[tokio::test]
async fn an_event_starts_by_itself_at_its_time_and_a_no_show_loses() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let now = baduk_server::store::time::now_ms();
        let id = create(
            &s,
            &org,
            json!({"name": "Nine", "format": "swiss", "rounds": 1, "game": "go", "size": 9,
                "clock": "fischer:3600:10", "starts_at": now + 3_600_000, "no_show_minutes": 5}),
        )
        .await;
        let (a, b) = (signup(&s, &uniq("na")).await, signup(&s, &uniq("nb")).await);
        for who in [&a, &b] {
            assert_eq!(act(&s, who, &id, "join", json!({})).await.0, 200);
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(read(&s, &id).await["status"], "upcoming");
        advance_test_clock(3_600_000 + 1000);
        // Running shows before round 1 is stored and shown: wait for the round.
        let v = wait_event(&s, &id, 20, |v| v["status"] == "running" && v["round"] == 1).await;
        let p = &v["rounds"][0]["pairings"][0];
        assert!(p["game"].is_string() && p["result"].is_null(), "{p}");
        // Nobody moves: after the wait Black (who never moved) loses.
        advance_test_clock(5 * 60_000 + 1000);
        let v = wait_event(&s, &id, 20, |v| v["status"] == "finished").await;
        let p = &v["rounds"][0]["pairings"][0];
        assert_eq!(p["result"], "white", "{v}");
        assert_eq!(p["set_by"], "no-show", "{v}");
    }
}

/// Plays the current round of event `id`: the account of the lower name resigns to another
/// account, an account resigns to a bot; then waits for the next round (or the end).
async fn play_round(s: &Server, id: &str, players: &HashMap<String, Session>, round: i64) {
    let v = wait_event(s, id, 60, |v| v["round"] == round).await;
    let r = &v["rounds"][(round - 1) as usize];
    for p in r["pairings"].as_array().unwrap() {
        let game = p["game"].as_str().unwrap();
        let black = players.get(p["black"].as_str().unwrap());
        let white = players.get(p["white"].as_str().unwrap());
        match (black, white) {
            (Some(b), Some(w)) => {
                let loser = if p["black"].as_str() < p["white"].as_str() {
                    b
                } else {
                    w
                };
                resign(s, loser, game).await;
            }
            (Some(x), None) | (None, Some(x)) => resign(s, x, game).await,
            (None, None) => {}
        }
        s.wait_for(game, 120, |g| g["status"] == "finished").await;
    }
}

#[tokio::test]
async fn a_round_robin_meets_everyone_once_with_one_bye_each() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let id = create(
            &s,
            &org,
            event(json!({"name": "Robin", "format": "round-robin"})),
        )
        .await;
        let players = register(&s, &id, "r", 3).await;
        let (st, v) = act(&s, &org, &id, "start", json!({})).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["tournament"]["total_rounds"], 3, "{v}");
        // A round robin takes nobody once started.
        refused(
            act(&s, &org, &id, "bots", json!({"bot": "random"})).await,
            409,
            "tournament.started",
            "late bot",
        );
        for round in 1..=3 {
            play_round(&s, &id, &players, round).await;
        }
        let v = wait_event(&s, &id, 60, |v| v["status"] == "finished").await;
        let mut met = HashSet::new();
        let mut byes = Vec::new();
        for r in v["rounds"].as_array().unwrap() {
            let p = &r["pairings"][0];
            assert_eq!(r["pairings"].as_array().unwrap().len(), 1);
            let (b, w) = (
                p["black_id"].as_i64().unwrap(),
                p["white_id"].as_i64().unwrap(),
            );
            assert!(met.insert((b.min(w), b.max(w))), "{v}");
            byes.push(r["bye"].as_str().unwrap().to_string());
        }
        byes.sort();
        byes.dedup();
        assert_eq!(
            (met.len(), byes.len()),
            (3, 3),
            "everyone met once, one bye each: {v}"
        );
        // A bye scores nothing in a round robin; the highest name won both its games.
        let top = players.keys().max().unwrap();
        assert_eq!(v["standings"][0]["name"], json!(top), "{v}");
        assert_eq!(v["standings"][0]["score"], 2.0, "{v}");
    }
}

#[tokio::test]
async fn a_mcmahon_starts_each_player_from_their_rank_between_floor_and_bar() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let id = create(
            &s,
            &org,
            event(json!({"name": "MM", "format": "mcmahon", "rounds": 1, "bar": "10k", "floor": "20k"})),
        )
        .await;
        let players = register(&s, &id, "m", 2).await;
        // Wall Go's random bot (rated 630: 15k) and sedol (2325: 3d).
        for bot in ["random", "sedol"] {
            assert_eq!(act(&s, &org, &id, "bots", json!({"bot": bot})).await.0, 200);
        }
        let v = read(&s, &id).await;
        let ranks: Vec<&str> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["rank"].as_str().unwrap())
            .collect();
        assert_eq!(ranks, ["6k", "6k", "15k", "3d"], "{v}");
        assert_eq!(act(&s, &org, &id, "start", json!({})).await.0, 200);
        // Before any result: 6k and 3d start at the bar (10k = 20), 15k at its own 15.
        let v = read(&s, &id).await;
        let start: HashMap<String, f64> = v["standings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["rank"].as_str().unwrap().to_string(),
                    r["score"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            (start["6k"], start["3d"], start["15k"]),
            (20.0, 20.0, 15.0),
            "{v}"
        );
        play_round(&s, &id, &players, 1).await;
        let v = wait_event(&s, &id, 60, |v| v["status"] == "finished").await;
        for row in v["standings"].as_array().unwrap() {
            let base = if row["rank"] == "15k" { 15.0 } else { 20.0 };
            let won = v["rounds"][0]["pairings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| {
                    (p["result"] == "black" && p["black_id"] == row["player"])
                        || (p["result"] == "white" && p["white_id"] == row["player"])
                });
            assert_eq!(
                row["score"].as_f64().unwrap(),
                base + won as i64 as f64,
                "{row}"
            );
        }
    }
}

/// Resigns every open game of event `id` that an account of `players` sits in; the event.
async fn resign_open(s: &Server, id: &str, players: &HashMap<String, Session>) -> Value {
    let v = read(s, id).await;
    for r in v["rounds"].as_array().unwrap() {
        for p in r["pairings"].as_array().unwrap() {
            if !p["result"].is_null() {
                continue;
            }
            let Some(game) = p["game"].as_str() else {
                continue;
            };
            for side in ["black", "white"] {
                if let Some(who) = players.get(p[side].as_str().unwrap()) {
                    let path = format!("/api/games/{game}/actions");
                    // A game that ended meanwhile refuses: its result comes anyway.
                    let _ = call(s, "POST", &path, who, Some(json!({"action": "resign"}))).await;
                }
            }
        }
    }
    v
}

#[tokio::test]
async fn an_arena_of_ten_minutes_pairs_players_again_as_their_games_end() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let id = create(
            &s,
            &org,
            event(
                json!({"name": "Arena", "format": "arena", "minutes": 10, "no_show_minutes": 60}),
            ),
        )
        .await;
        let players = register(&s, &id, "a", 2).await;
        for _ in 0..4 {
            assert_eq!(
                act(&s, &org, &id, "bots", json!({"bot": "random"})).await.0,
                200
            );
        }
        let (st, v) = act(&s, &org, &id, "start", json!({})).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(
            v["tournament"]["rounds"][0]["pairings"]
                .as_array()
                .unwrap()
                .len(),
            3,
            "{v}"
        );
        // Games end (accounts resign, bots play out) and their players are paired again.
        let end = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            let v = resign_open(&s, &id, &players).await;
            let known = v["rounds"][0]["pairings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| !p["result"].is_null())
                .count();
            if known >= 12 {
                break;
            }
            assert!(
                std::time::Instant::now() < end,
                "twelve results in 120 s: {v}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        // Ten minutes pass: no pairing after the end; the games in play finish it.
        advance_test_clock(10 * 60_000 + 1000);
        let end = std::time::Instant::now() + Duration::from_secs(120);
        let v = loop {
            let v = resign_open(&s, &id, &players).await;
            if v["status"] == "finished" {
                break v;
            }
            assert!(std::time::Instant::now() < end, "the arena ends: {v}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let boards = v["rounds"][0]["pairings"].as_array().unwrap().clone();
        assert!(boards.iter().all(|p| !p["result"].is_null()), "{v}");
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let again = read(&s, &id).await;
        assert_eq!(
            again["rounds"][0]["pairings"].as_array().unwrap().len(),
            boards.len()
        );
        // The table: 2 a win, 1 a jigo, 4 a win after two wins in a row; accounts always lost.
        let table = v["standings"].as_array().unwrap();
        assert_eq!(table.len(), 6);
        let games: u64 = table.iter().map(|r| r["games"].as_u64().unwrap()).sum();
        assert_eq!(games as usize, 2 * boards.len(), "{v}");
        for row in table {
            let results: Vec<u64> = row["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(
                row["score"].as_u64().unwrap(),
                results.iter().sum::<u64>(),
                "{row}"
            );
            for (i, &r) in results.iter().enumerate() {
                let fire = i >= 2 && results[i - 2] >= 2 && results[i - 1] >= 2;
                let want: &[u64] = if fire { &[0, 1, 4] } else { &[0, 1, 2] };
                assert!(want.contains(&r), "streaks double: {row}");
            }
        }
        // An account resigned every game against a bot.
        for p in &boards {
            let acc = |side: &str| players.contains_key(p[side].as_str().unwrap());
            if acc("black") != acc("white") {
                let bot = if acc("black") { "white" } else { "black" };
                assert_eq!(p["result"], bot, "{p}");
            }
        }
        let (st, csv) = get(&s, &format!("/api/tournaments/{id}/export.csv"), &org).await;
        assert_eq!(st, 200);
        assert_eq!(csv.as_str().unwrap().lines().count(), 7, "{csv}");
        // The EGF table: a player's games in the order played are its rounds.
        let (st, egf) = get(&s, &format!("/api/tournaments/{id}/export.egf"), &org).await;
        assert_eq!(st, 200);
        let lines = egf
            .as_str()
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with(';'));
        assert_eq!(lines.count(), 6, "{egf}");
    }
}

#[tokio::test]
async fn check_in_opens_before_the_start_and_who_did_not_check_in_is_absent() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        for bad in [json!(121), json!(-1), json!("30")] {
            refused(
                call(
                    &s,
                    "POST",
                    "/api/tournaments",
                    &org,
                    Some(event(json!({ "checkin_minutes": bad }))),
                )
                .await,
                400,
                "tournament.checkin",
                "checkin_minutes",
            );
        }
        let plain = create(&s, &org, event(json!({"name": "No check-in"}))).await;
        let now = baduk_server::store::time::now_ms();
        let starts = now + 3_600_000;
        let id = create(
            &s,
            &org,
            event(json!({"name": "Checked", "rounds": 1, "starts_at": starts,
                "checkin_minutes": 30})),
        )
        .await;
        let players = register(&s, &id, "c", 3).await;
        let mut names: Vec<&String> = players.keys().collect();
        names.sort();
        let (a, b, c) = (&players[names[0]], &players[names[1]], &players[names[2]]);
        let (st, v) = act(&s, &org, &id, "bots", json!({"bot": "random"})).await;
        assert_eq!(st, 200, "{v}");
        refuses(&s, a, &plain, "checkin", 409, "tournament.no_checkin").await;
        // Too early: the window's bounds come with the refusal.
        let (st, v) = act(&s, a, &id, "checkin", json!({})).await;
        refused((st, v.clone()), 409, "tournament.checkin_closed", "early");
        assert_eq!(v["args"]["opens_at"], starts - 30 * 60_000, "{v}");
        assert_eq!(v["args"]["closes_at"], starts, "{v}");
        let before = read(&s, &id).await;
        assert!(before["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["checked_in"] == (p["bot"] == true)));
        assert_eq!(before["options"]["checkin_minutes"], 30);
        // In the window: two check in (twice is fine), a stranger is not in.
        advance_test_clock(31 * 60_000);
        for who in [a, b, a] {
            let (st, v) = act(&s, who, &id, "checkin", json!({})).await;
            assert_eq!(st, 200, "{v}");
        }
        let stranger = signup(&s, &uniq("cs")).await;
        refuses(&s, &stranger, &id, "checkin", 409, "tournament.not_in").await;
        let (g, _) = guest(&s).await;
        refuses(&s, &g, &id, "checkin", 403, "tournament.guest").await;
        let v = read(&s, &id).await;
        let checked: HashMap<&str, bool> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["name"].as_str().unwrap(), p["checked_in"] == true))
            .collect();
        assert_eq!(
            (
                checked[names[0].as_str()],
                checked[names[1].as_str()],
                checked[names[2].as_str()],
                checked["random"]
            ),
            (true, true, false, true),
            "{v}"
        );
        // The start comes: `c` is absent, neither paired nor in the table; check-in is over.
        advance_test_clock(30 * 60_000);
        let v = wait_event(&s, &id, 20, |v| v["round"] == 1).await;
        let status: HashMap<&str, &str> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["name"].as_str().unwrap(), p["status"].as_str().unwrap()))
            .collect();
        assert_eq!(status[names[2].as_str()], "absent", "{v}");
        assert_eq!(status[names[0].as_str()], "in", "{v}");
        let r = &v["rounds"][0];
        assert_eq!(r["pairings"].as_array().unwrap().len(), 1, "{r}");
        assert!(r["bye"].is_string(), "three present: a bye: {r}");
        let shown = r.to_string();
        assert!(!shown.contains(names[2].as_str()), "{r}");
        let table = v["standings"].as_array().unwrap();
        assert_eq!(table.len(), 3, "{v}");
        assert!(table.iter().all(|row| row["name"] != json!(names[2])));
        refuses(&s, c, &id, "checkin", 409, "tournament.checkin_closed").await;
        refuses(&s, c, &id, "withdraw", 409, "tournament.not_in").await;
        let (_, list) = s.get("/api/tournaments").await;
        let mine = list["running"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == json!(id))
            .cloned()
            .unwrap();
        assert_eq!(mine["players"], 3, "{mine}");
    }
}

#[tokio::test]
async fn events_overlap_by_their_time_windows_and_a_running_one_holds_its_players() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let now = baduk_server::store::time::now_ms();
        let h = 3_600_000;
        // 9×9 at fischer:20:1: a round is 40 s + 40 moves × 1 s + 5 min = 380 s; two rounds.
        let nine = |name: &str, at: i64| {
            json!({"name": name, "format": "swiss", "rounds": 2, "game": "go", "size": 9,
                "clock": "fischer:20:1", "starts_at": at})
        };
        let first = create(&s, &org, nine("First", now + h)).await;
        let v = read(&s, &first).await;
        assert_eq!(v["expected_end"], now + h + 2 * 380_000, "{v}");
        let after = create(&s, &org, nine("After", now + h + 760_000)).await;
        let during = create(&s, &org, nine("During", now + h + 700_000)).await;
        let arena = create(
            &s,
            &org,
            json!({"name": "Arena", "format": "arena", "minutes": 30, "game": "wallgo",
                "turn_seconds": 0, "starts_at": now + h - 1_800_000}),
        )
        .await;
        let p = signup(&s, &uniq("ov")).await;
        for id in [&first, &after] {
            let (st, v) = act(&s, &p, id, "join", json!({})).await;
            assert_eq!(st, 200, "windows apart: {v}");
        }
        let (st, v) = act(&s, &p, &during, "join", json!({})).await;
        refused((st, v.clone()), 409, "tournament.overlap", "overlapping");
        let clashing = v["args"]["tournaments"].as_array().unwrap();
        assert!(
            clashing.contains(&json!(first)) && clashing.contains(&json!(after)),
            "{v}"
        );
        assert_eq!(read(&s, &during).await["players"], json!([]));
        // An arena ending as the first begins: apart too.
        assert_eq!(act(&s, &p, &arena, "join", json!({})).await.0, 200);
        // A running event holds its players whatever its window: a far event refuses them.
        let q = signup(&s, &uniq("ow")).await;
        assert_eq!(act(&s, &q, &first, "join", json!({})).await.0, 200);
        assert_eq!(act(&s, &org, &first, "start", json!({})).await.0, 200);
        let far = create(&s, &org, nine("Far", now + 30 * 24 * h)).await;
        refuses(&s, &p, &far, "join", 409, "tournament.overlap").await;
        let pname = read(&s, &first).await["players"][0]["name"].clone();
        refused(
            act(&s, &org, &far, "players", json!({"name": pname})).await,
            409,
            "tournament.overlap",
            "the organiser adds a player held elsewhere",
        );
        // Out of the running one, the far one takes them.
        assert_eq!(act(&s, &org, &first, "end", json!({})).await.0, 200);
        assert_eq!(act(&s, &p, &far, "join", json!({})).await.0, 200);
    }
}

#[tokio::test]
async fn a_started_event_left_at_round_zero_is_paired_by_the_sweep() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let id = create(
            &s,
            &org,
            event(
                json!({"name": "Stopped", "rounds": 2, "fill_bot": {"bot": "random"},
                "checkin_minutes": 60,
                "starts_at": baduk_server::store::time::now_ms() + 3_600_000}),
            ),
        )
        .await;
        let players = register(&s, &id, "z", 4).await;
        let mut names: Vec<&String> = players.keys().collect();
        names.sort();
        advance_test_clock(30 * 60_000);
        for n in &names[..3] {
            assert_eq!(
                act(&s, &players[*n], &id, "checkin", json!({})).await.0,
                200
            );
        }
        // A process claimed the start and stopped there: no absent set, no bot, no boards.
        let now = baduk_server::store::time::now_ms();
        assert!(
            baduk_server::tournaments::rows::claim_start(&s.hub.store, &id, now)
                .await
                .unwrap()
        );
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let v = read(&s, &id).await;
        assert_eq!(
            (v["status"].as_str(), v["round"].as_i64()),
            (Some("running"), Some(0)),
            "{v}"
        );
        assert_eq!(v["players"].as_array().unwrap().len(), 4, "{v}");
        // A few seconds on, the sweep readies and pairs round 1: one absent, the bot fills.
        advance_test_clock(6_000);
        let v = wait_event(&s, &id, 20, |v| v["round"] == 1).await;
        let r = &v["rounds"][0];
        assert_eq!(r["pairings"].as_array().unwrap().len(), 2, "{v}");
        assert_eq!(r["bye"], Value::Null, "{v}");
        let players_now = v["players"].as_array().unwrap();
        assert_eq!(players_now.len(), 5, "{v}");
        assert_eq!(
            players_now
                .iter()
                .filter(|p| p["status"] == "absent")
                .count(),
            1,
            "{v}"
        );
        assert_eq!(v["total_rounds"], 2, "{v}");
        // Later sweeps add nothing more.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let again = read(&s, &id).await;
        assert_eq!(again["players"], v["players"]);
        assert_eq!(again["rounds"], v["rounds"]);
    }
}

#[tokio::test]
async fn bot_accounts_enter_by_name_or_token_fill_an_odd_field_and_are_told_of_their_games() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let person = uniq("bp");
        let me = signup(&s, &person).await;
        let (joiner, joiner_token) = bot_account(&s).await;
        let (added, _) = bot_account(&s).await;
        let (filler, filler_token) = bot_account(&s).await;
        let go = |extra: Value| {
            let mut v = json!({"name": "Bots", "format": "swiss", "rounds": 1, "game": "go",
                "size": 9, "clock": "fischer:600:5"});
            for (k, x) in extra.as_object().unwrap() {
                v[k] = x.clone();
            }
            v
        };
        // The filling bot account must be one.
        for (fill, what) in [
            (json!({"account": person}), "a person"),
            (json!({"account": "nobody-here"}), "nobody"),
            (json!({"account": 7}), "not a name"),
            (json!({"account": filler, "bot": "baduk"}), "both"),
        ] {
            refused(
                call(
                    &s,
                    "POST",
                    "/api/tournaments",
                    &org,
                    Some(go(json!({"fill_bot": fill}))),
                )
                .await,
                400,
                "tournament.bot",
                what,
            );
        }
        let id = create(&s, &org, go(json!({"fill_bot": {"account": filler}}))).await;
        let v = read(&s, &id).await;
        assert_eq!(v["options"]["fill_bot"], json!({"account": filler}), "{v}");
        // A bot token enters its own account, never another's seat; other tokens keep their rule.
        let path = format!("/api/tournaments/{id}/join");
        let (st, v) = with_token(&s, "POST", &path, Some(&joiner_token), None).await;
        assert_eq!(st, 200, "{v}");
        let (st, v) = with_token(&s, "POST", &path, Some(&joiner_token), None).await;
        refused((st, v), 409, "tournament.already", "twice");
        let (st, v) = with_token(
            &s,
            "POST",
            &format!("/api/tournaments/{id}/start"),
            Some(&joiner_token),
            None,
        )
        .await;
        refused((st, v), 403, "auth.scope", "a bot token starts nothing");
        let (st, v) = act(&s, &org, &id, "players", json!({"name": added})).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(act(&s, &me, &id, "join", json!({})).await.0, 200);
        let v = read(&s, &id).await;
        let names: Vec<&Value> = v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| &p["name"])
            .collect();
        assert_eq!(
            names,
            [&json!(joiner), &json!(added), &json!(person)],
            "{v}"
        );
        for p in v["players"].as_array().unwrap() {
            let bot = p["name"] != json!(person);
            assert_eq!(
                (p["bot"] == bot, p["account_bot"] == bot),
                (true, true),
                "{p}"
            );
            assert_eq!(p["checked_in"], true, "{p}");
        }
        // Three: the filling bot account makes four; each bot account hears of its game.
        let mut told = Lines::open(
            &s.http,
            format!("{}/api/stream/events", s.base),
            &filler_token,
        )
        .await;
        let (st, v) = act(&s, &org, &id, "start", json!({})).await;
        assert_eq!(st, 200, "{v}");
        let v = &v["tournament"];
        assert_eq!(v["players"].as_array().unwrap().len(), 4, "{v}");
        let r = &v["rounds"][0];
        assert_eq!(
            (r["pairings"].as_array().unwrap().len(), &r["bye"]),
            (2, &Value::Null),
            "{v}"
        );
        let game = r["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["black"] == json!(filler) || p["white"] == json!(filler))
            .map(|p| p["game"].as_str().unwrap().to_string())
            .expect("the filling bot account plays");
        let start = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let ev = told.next().await.expect("the stream stays open");
                if ev["type"] == "gameStart" {
                    return ev;
                }
            }
        })
        .await
        .expect("a gameStart within 10 s");
        assert_eq!(start["game"]["id"], json!(game), "{start}");
        // It plays through its token like any bot game.
        let st = s.state(&game).await;
        let seat = start["game"]["seat"].as_str().unwrap();
        if st["to_move"] == json!(seat) {
            let (code, v) = with_token(
                &s,
                "POST",
                &format!("/api/games/{game}/actions"),
                Some(&filler_token),
                Some(json!({"action": "E5"})),
            )
            .await;
            assert_eq!(code, 200, "{v}");
        }
        let (code, v) = with_token(
            &s,
            "POST",
            &format!("/api/games/{game}/actions"),
            Some(&filler_token),
            Some(json!({"action": "resign"})),
        )
        .await;
        assert_eq!(code, 200, "{v}");
    }
}

#[tokio::test]
async fn an_arena_takes_late_players_while_it_runs_and_none_after_its_end() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let id = create(
            &s,
            &org,
            event(
                json!({"name": "Late arena", "format": "arena", "minutes": 10,
                "no_show_minutes": 60}),
            ),
        )
        .await;
        register(&s, &id, "l", 2).await;
        assert_eq!(act(&s, &org, &id, "start", json!({})).await.0, 200);
        // Running: a player joins by itself, the organiser adds one and a bot level.
        let late = signup(&s, &uniq("ll")).await;
        let (st, v) = act(&s, &late, &id, "join", json!({})).await;
        assert_eq!(st, 200, "{v}");
        let other = uniq("lm");
        signup(&s, &other).await;
        assert_eq!(
            act(&s, &org, &id, "players", json!({"name": other}))
                .await
                .0,
            200
        );
        assert_eq!(
            act(&s, &org, &id, "bots", json!({"bot": "random"})).await.0,
            200
        );
        let v = read(&s, &id).await;
        assert_eq!(v["players"].as_array().unwrap().len(), 5, "{v}");
        assert!(v["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["checked_in"] == true));
        // After its end: nobody.
        advance_test_clock(10 * 60_000 + 1000);
        let again = signup(&s, &uniq("ln")).await;
        refuses(&s, &again, &id, "join", 409, "tournament.started").await;
        refused(
            act(&s, &org, &id, "bots", json!({"bot": "random"})).await,
            409,
            "tournament.started",
            "a bot after the end",
        );
    }
}
