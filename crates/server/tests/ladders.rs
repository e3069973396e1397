//! Ladders over HTTP on SQLite and PostgreSQL: bad challenges refused with a code and nothing
//! stored changed; a challenge up the ladder played out and the places swapped; the cooldown
//! between the same two refused, then allowed once the test clock moved; the inactivity drop; a
//! challenge that no longer holds when its game ends moves nobody; leaving with an open ladder
//! game is refused until it ends; the lobby socket's `ladder` message as the order changes.
//! The test clock is process-wide: the tests here run one at a time.

mod common;

use baduk_server::store::time::advance_test_clock;
use common::accounts::{call, guest, next_of, signup, uniq, ws, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use std::time::Duration;

/// One test at a time: they move the process's clock.
static CLOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const DAY: i64 = 24 * 3_600_000;

/// Asserts a refusal's status and code.
fn refused((st, v): (u16, Value), status: u16, code: &str, what: &str) {
    assert_eq!(
        (st, v["code"].as_str()),
        (status, Some(code)),
        "{what}: {v}"
    );
}

/// `POST /api/ladders/{kind}/{what}` as `who`.
async fn act(s: &Server, who: &Session, kind: &str, what: &str, body: Value) -> (u16, Value) {
    let path = format!("/api/ladders/{kind}/{what}");
    call(s, "POST", &path, who, Some(body)).await
}

/// `who` challenges `name` on the 9×9 ladder.
async fn challenge(s: &Server, who: &Session, name: &str) -> (u16, Value) {
    act(s, who, "go9", "challenge", json!({"opponent": name})).await
}

/// The 9×9 ladder as anyone reads it.
async fn ladder(s: &Server) -> Value {
    let (st, v) = s.get("/api/ladders/go9").await;
    assert_eq!(st, 200, "{v}");
    v
}

/// The names on the 9×9 ladder, top first.
async fn order(s: &Server) -> Vec<String> {
    ladder(s).await["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

/// `n` new accounts named from `prefix`, joined to the 9×9 ladder in turn.
async fn joined(s: &Server, prefix: &str, n: usize) -> Vec<(String, Session)> {
    let mut out = Vec::new();
    for i in 0..n {
        let name = uniq(&format!("{prefix}{i}"));
        let who = signup(s, &name).await;
        let (st, v) = act(s, &who, "go9", "join", json!({})).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["players"].as_array().unwrap().len(), i + 1, "{v}");
        out.push((name, who));
    }
    out
}

/// Resigns the account's game `game`.
async fn resign(s: &Server, who: &Session, game: &str) {
    let path = format!("/api/games/{game}/actions");
    let (st, v) = call(s, "POST", &path, who, Some(json!({"action": "resign"}))).await;
    assert_eq!(st, 200, "resign {game}: {v}");
}

/// Polls the 9×9 ladder until `pred` holds (at most 20 seconds).
async fn wait_ladder(s: &Server, pred: impl Fn(&Value) -> bool) -> Value {
    let end = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let v = ladder(s).await;
        if pred(&v) {
            return v;
        }
        assert!(std::time::Instant::now() < end, "not reached: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn bad_ladder_requests_are_refused_with_a_code_and_nothing_changes() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let (g, _) = guest(&s).await;
        refused(
            act(&s, &g, "go9", "join", json!({})).await,
            403,
            "tournament.ladder_guest",
            "a guest joins",
        );
        let p = joined(&s, "lad", 5).await;
        let outsider = uniq("outside");
        let out = signup(&s, &outsider).await;
        refused(
            act(&s, &p[0].1, "chess", "join", json!({})).await,
            404,
            "tournament.ladder_kind",
            "an unknown kind",
        );
        refused(
            challenge(&s, &g, &p[0].0).await,
            403,
            "tournament.ladder_guest",
            "a guest challenges",
        );
        refused(
            challenge(&s, &p[4].1, &p[0].0).await,
            409,
            "tournament.ladder_reach",
            "four places above",
        );
        refused(
            challenge(&s, &p[1].1, &p[1].0).await,
            409,
            "tournament.ladder_self",
            "oneself",
        );
        refused(
            challenge(&s, &p[0].1, &p[1].0).await,
            409,
            "tournament.ladder_not_above",
            "someone below",
        );
        refused(
            challenge(&s, &p[1].1, &outsider).await,
            409,
            "tournament.ladder_not_on",
            "someone not on the ladder",
        );
        refused(
            challenge(&s, &out, &p[1].0).await,
            409,
            "tournament.ladder_not_on",
            "a challenger not on the ladder",
        );
        refused(
            challenge(&s, &p[1].1, "nobody-by-this-name").await,
            404,
            "tournament.ladder_opponent",
            "an unknown name",
        );
        refused(
            act(&s, &p[1].1, "go9", "challenge", json!({})).await,
            404,
            "tournament.ladder_opponent",
            "no opponent",
        );
        refused(
            act(&s, &out, "go9", "leave", json!({})).await,
            409,
            "tournament.ladder_not_on",
            "leaving a ladder one is not on",
        );
        let names: Vec<String> = p.iter().map(|x| x.0.clone()).collect();
        assert_eq!(order(&s).await, names);
        assert_eq!(ladder(&s).await["challenges"], json!([]));
        // One open game each: the second challenge of either of its players is refused.
        let (st, v) = challenge(&s, &p[3].1, &p[2].0).await;
        assert_eq!(st, 201, "{v}");
        let game = v["game"].as_str().unwrap().to_string();
        refused(
            challenge(&s, &p[4].1, &p[3].0).await,
            409,
            "tournament.ladder_busy",
            "the challenger's opponent is playing",
        );
        refused(
            challenge(&s, &p[2].1, &p[1].0).await,
            409,
            "tournament.ladder_busy",
            "the challenged player is playing",
        );
        let v = ladder(&s).await;
        assert_eq!(
            v["challenges"],
            json!([{"game": game, "challenger": p[3].0, "opponent": p[2].0}])
        );
        assert_eq!(order(&s).await, names);
        let (st, v) = s.get("/api/ladders").await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["ladders"][0]["kind"], "go9", "{v}");
        assert_eq!(v["ladders"][0]["players"], 5, "{v}");
        assert_eq!(v["ladders"].as_array().unwrap().len(), 4, "{v}");
        // Leaving: those below move up.
        let (st, v) = act(&s, &p[0].1, "go9", "leave", json!({})).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(order(&s).await, names[1..].to_vec());
    }
}

#[tokio::test]
async fn a_won_challenge_swaps_places_then_cooldown_and_inactivity_apply() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let p = joined(&s, "step", 4).await;
        let n = |i: usize| p[i].0.clone();
        // The fourth challenges the second and wins: they take the second place.
        let (st, v) = challenge(&s, &p[3].1, &n(1)).await;
        assert_eq!(st, 201, "{v}");
        let game = v["game"].as_str().unwrap().to_string();
        let g = s.state(&game).await;
        assert_eq!(
            g["seats"]["black"]["player"]["name"],
            n(3),
            "the challenger is Black: {g}"
        );
        resign(&s, &p[1].1, &game).await;
        let v = wait_ladder(&s, |v| v["challenges"] == json!([])).await;
        assert_eq!(order(&s).await, [n(0), n(3), n(1), n(2)], "{v}");
        // The same two again: refused until a day passed.
        refused(
            challenge(&s, &p[1].1, &n(3)).await,
            409,
            "tournament.ladder_cooldown",
            "the same two within a day",
        );
        advance_test_clock(DAY + 1000);
        let (st, v) = challenge(&s, &p[1].1, &n(3)).await;
        assert_eq!(st, 201, "{v}");
        let game = v["game"].as_str().unwrap().to_string();
        // The challenger loses: nothing moves.
        resign(&s, &p[1].1, &game).await;
        wait_ladder(&s, |v| v["challenges"] == json!([])).await;
        assert_eq!(order(&s).await, [n(0), n(3), n(1), n(2)]);
        // Twelve more days: nobody has been idle for fourteen.
        advance_test_clock(12 * DAY);
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(order(&s).await, [n(0), n(3), n(1), n(2)]);
        // One more: the top player, idle since joining, drops a place; those who played a
        // day later do not.
        advance_test_clock(DAY);
        let names = [n(3), n(0), n(1), n(2)];
        wait_ladder(&s, |v| v["players"][0]["name"] == names[0].as_str()).await;
        assert_eq!(order(&s).await, names);
    }
}

#[tokio::test]
async fn joins_at_once_through_two_processes_all_land() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let a = Server::start(&db).await;
        // PostgreSQL: a second process on the same database; SQLite: the one process.
        let b = match db.starts_with("postgres") {
            true => Some(Server::start(a.hub.store.url()).await),
            false => None,
        };
        let mut people = Vec::new();
        for i in 0..8 {
            let name = uniq(&format!("rush{i}"));
            people.push((name.clone(), signup(&a, &name).await));
        }
        let tasks = people.iter().enumerate().map(|(i, (_, who))| {
            let s = match (&b, i % 2) {
                (Some(b), 1) => b,
                _ => &a,
            };
            act(s, who, "go9", "join", json!({}))
        });
        for (st, v) in futures_util::future::join_all(tasks).await {
            assert_eq!(st, 200, "{v}");
        }
        let mut got = order(&a).await;
        got.sort();
        let mut want: Vec<String> = people.iter().map(|p| p.0.clone()).collect();
        want.sort();
        assert_eq!(got, want);
    }
}

#[tokio::test]
async fn a_challenge_that_no_longer_holds_when_its_game_ends_moves_nobody() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let p = joined(&s, "hold", 6).await;
        let n = |i: usize| p[i].0.clone();
        // The fifth challenges the second (three places up), the sixth the third.
        let (st, v) = challenge(&s, &p[4].1, &n(1)).await;
        assert_eq!(st, 201, "{v}");
        let far = v["game"].as_str().unwrap().to_string();
        let (st, v) = challenge(&s, &p[5].1, &n(2)).await;
        assert_eq!(st, 201, "{v}");
        let near = v["game"].as_str().unwrap().to_string();
        // The sixth wins first: it jumps between the fifth and the second, who are now four
        // places apart.
        resign(&s, &p[2].1, &near).await;
        wait_ladder(&s, |v| v["challenges"].as_array().unwrap().len() == 1).await;
        let after = [n(0), n(1), n(5), n(2), n(3), n(4)];
        assert_eq!(order(&s).await, after);
        // The fifth wins its game, but its challenge is out of reach now: nobody moves.
        resign(&s, &p[1].1, &far).await;
        let v = wait_ladder(&s, |v| v["challenges"] == json!([])).await;
        assert_eq!(order(&s).await, after, "{v}");
        // The game is closed all the same: the fifth is free to challenge within reach.
        let (st, v) = challenge(&s, &p[4].1, &n(3)).await;
        assert_eq!(st, 201, "within reach: {v}");
    }
}

#[tokio::test]
async fn leaving_with_an_open_ladder_game_is_refused_and_the_lobby_hears_the_order() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let watcher = signup(&s, &uniq("watch")).await;
        let mut lobby = ws(&s, "/ws/lobby", &watcher).await;
        let p = joined(&s, "stay", 2).await;
        let n = |i: usize| p[i].0.clone();
        // The lobby hears the new order (a message of another ladder or an older one may come
        // first).
        let end = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let m = next_of(&mut lobby, "ladder", 20).await;
            if m["kind"] == "go9" && m["top"] == json!([n(0), n(1)]) {
                assert_eq!(m["players"], 2, "{m}");
                break;
            }
            assert!(tokio::time::Instant::now() < end, "no ladder message: {m}");
        }
        let (st, v) = challenge(&s, &p[1].1, &n(0)).await;
        assert_eq!(st, 201, "{v}");
        let game = v["game"].as_str().unwrap().to_string();
        // Either player's leave is refused while the game is open, and names it.
        for who in [&p[0].1, &p[1].1] {
            let (st, v) = act(&s, who, "go9", "leave", json!({})).await;
            refused(
                (st, v.clone()),
                409,
                "tournament.ladder_busy",
                "leave while playing",
            );
            assert_eq!(v["args"]["game"], game.as_str(), "{v}");
        }
        assert_eq!(order(&s).await, [n(0), n(1)]);
        // The signed-in reader sees its place and its game; everyone each player's game.
        let (st, v) = call(&s, "GET", "/api/ladders/go9", &p[1].1, None).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["you"]["place"], 2, "{v}");
        assert_eq!(v["you"]["playing"], game.as_str(), "{v}");
        assert_eq!(v["players"][0]["playing"], game.as_str(), "{v}");
        assert_eq!(v["players"][0]["rating"], 1500.0, "{v}");
        assert_eq!(v["players"][0]["last_game"], Value::Null, "{v}");
        // The challenger wins: the lobby hears the swap.
        resign(&s, &p[0].1, &game).await;
        loop {
            let m = next_of(&mut lobby, "ladder", 20).await;
            if m["kind"] == "go9" && m["top"] == json!([n(1), n(0)]) {
                break;
            }
            assert!(tokio::time::Instant::now() < end, "no swap heard: {m}");
        }
        let (st, v) = call(&s, "GET", "/api/ladders/go9", &p[0].1, None).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["you"]["playing"], Value::Null, "{v}");
        assert!(v["you"]["cooldowns"][n(1)].as_i64().is_some(), "{v}");
        let last = &v["players"][1]["last_game"];
        assert_eq!(
            (&last["game"], &last["opponent"]),
            (&json!(game), &json!(n(1))),
            "{v}"
        );
        // Played out: now either may leave.
        let (st, v) = act(&s, &p[0].1, "go9", "leave", json!({})).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(order(&s).await, [n(1)]);
    }
}
