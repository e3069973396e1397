//! Tournaments over HTTP on SQLite and PostgreSQL: bad input refused with a code and nothing
//! stored changed, a whole Swiss of twelve players (accounts and bot levels) with its
//! standings and exports, a round robin, a McMahon's start scores, an arena of ten minutes on
//! the test clock, an event that starts by itself at its time, and a no-show.
//! The test clock is process-wide: the tests here run one at a time.

mod common;

use baduk_server::store::time::advance_test_clock;
use common::accounts::{call, get, guest, next_of, signup, uniq, ws, Session};
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

#[tokio::test]
async fn a_swiss_of_twelve_accounts_and_bots_plays_four_rounds_to_its_table_and_exports() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let org = signup(&s, &uniq("org")).await;
        let id = create(&s, &org, event(json!({"name": "Twelve", "rounds": 4}))).await;
        // Eight accounts register; the organiser enters four bot levels.
        let by_name = register(&s, &id, "p", 8).await;
        for bot in ["random", "random", "easy", "easy"] {
            let (st, v) = act(&s, &org, &id, "bots", json!({"bot": bot})).await;
            assert_eq!(st, 200, "{v}");
        }
        let lobby_watcher = by_name.values().next().unwrap().clone();
        let mut lobby = ws(&s, "/ws/lobby", &lobby_watcher).await;
        assert_eq!(read(&s, &id).await["players"].as_array().unwrap().len(), 12);
        let (st, v) = act(&s, &org, &id, "start", json!({})).await;
        assert_eq!(st, 200, "{v}");
        let mut met: HashSet<(i64, i64)> = HashSet::new();
        for round in 1..=4i64 {
            let v = wait_event(&s, &id, 60, |v| v["round"] == round).await;
            let r = &v["rounds"][(round - 1) as usize];
            assert_eq!(r["bye"], Value::Null, "twelve players: no bye");
            let pairings = r["pairings"].as_array().unwrap().clone();
            assert_eq!(pairings.len(), 6, "{r}");
            for p in &pairings {
                let (b, w) = (
                    p["black_id"].as_i64().unwrap(),
                    p["white_id"].as_i64().unwrap(),
                );
                assert!(
                    met.insert((b.min(w), b.max(w))),
                    "no rematch in four rounds: {r}"
                );
            }
            // Between two accounts the lower name resigns; an account resigns to a bot; two
            // bots play it out.
            play_round(&s, &id, &by_name, round).await;
        }
        let v = wait_event(&s, &id, 60, |v| v["status"] == "finished").await;
        // Every board has its result; the table is the sum of them, with SOS by hand.
        let mut score: HashMap<i64, f64> = HashMap::new();
        let mut opponents: HashMap<i64, Vec<i64>> = HashMap::new();
        for r in v["rounds"].as_array().unwrap() {
            for p in r["pairings"].as_array().unwrap() {
                let (b, w) = (
                    p["black_id"].as_i64().unwrap(),
                    p["white_id"].as_i64().unwrap(),
                );
                let (pb, pw) = match p["result"].as_str().unwrap() {
                    "black" => (1.0, 0.0),
                    "white" => (0.0, 1.0),
                    "jigo" => (0.5, 0.5),
                    x => panic!("a played board's result: {x} in {v}"),
                };
                *score.entry(b).or_default() += pb;
                *score.entry(w).or_default() += pw;
                opponents.entry(b).or_default().push(w);
                opponents.entry(w).or_default().push(b);
                let (bn, wn) = (p["black"].as_str().unwrap(), p["white"].as_str().unwrap());
                if by_name.contains_key(bn) && by_name.contains_key(wn) {
                    let winner = if bn < wn { wn } else { bn };
                    assert_eq!(
                        p["result"],
                        if winner == bn { "black" } else { "white" },
                        "{p}"
                    );
                }
            }
        }
        let table = v["standings"].as_array().unwrap();
        assert_eq!(table.len(), 12);
        let total: f64 = table.iter().map(|r| r["score"].as_f64().unwrap()).sum();
        assert_eq!(total, 24.0, "24 games, a point each: {v}");
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
            assert_eq!(row["crosstable"].as_array().unwrap().len(), 4);
        }
        // The exports: one CSV line a player, and the EGF file names everyone.
        let (st, csv) = get(&s, &format!("/api/tournaments/{id}/export.csv"), &org).await;
        assert_eq!(st, 200);
        let csv = csv.as_str().unwrap().to_string();
        assert!(
            csv.starts_with("place,name,rank,score,sos,sosos,sodos,round 1"),
            "{csv}"
        );
        assert_eq!(csv.lines().count(), 13, "{csv}");
        let (st, egf) = get(&s, &format!("/api/tournaments/{id}/export.egf"), &org).await;
        assert_eq!(st, 200);
        let egf = egf.as_str().unwrap().to_string();
        assert!(egf.contains("Twelve"), "{egf}");
        for name in by_name.keys() {
            assert!(
                egf.contains(name.as_str()) && csv.contains(name.as_str()),
                "{name}: {egf}"
            );
        }
        // The lobby's socket heard the standings, the last of them final.
        loop {
            let m = next_of(&mut lobby, "tournament", 30).await;
            if m["id"] == json!(id) && m["status"] == "finished" {
                assert_eq!(m["standings"], v["standings"]);
                break;
            }
        }
        let (_, list) = s.get("/api/tournaments").await;
        assert!(list["finished"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == json!(id)));
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
        let v = wait_event(&s, &id, 20, |v| v["status"] == "running").await;
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
