//! Conditional moves over real HTTP (docs/api.md, "Conditional moves"): hostile plans refused
//! with their code and nothing stored, a plan private to its player, a tree played out by the
//! server in the commit of the opponent's move, a deviation dropping it, a restart keeping it;
//! and the account's games, most urgent first (`GET /api/me/games`).

mod common;

use common::accounts::{call, get, signup, uniq, with_token, Session};
use common::{databases, Server};
use serde_json::{json, Value};

/// A PUT with the session's cookie and its CSRF token.
async fn put(s: &Server, path: &str, who: &Session, body: Value) -> (u16, Value) {
    let mut r = s
        .http
        .put(format!("{}{path}", s.base))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(c) = &who.cookie {
        r = r.header("cookie", format!("baduk_session={c}"));
    }
    if let Some(t) = &who.csrf {
        r = r.header("x-csrf-token", t);
    }
    let resp = r.send().await.expect("answered");
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A 9×9 game between two new accounts, `clock` on both sides (or none): (id, Black, White).
async fn game_of_two(s: &Server, clock: Option<&str>) -> (String, Session, Session) {
    let black = signup(s, &uniq("kuro")).await;
    let white = signup(s, &uniq("shiro")).await;
    let mut body = json!({"game": "go", "size": 9, "rules": "chinese",
        "seats": {"white": {"kind": "open"}}});
    if let Some(c) = clock {
        body["clock"] = json!(c);
    }
    let (st, g) = call(s, "POST", "/api/games", &black, Some(body)).await;
    assert_eq!(st, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let (st, j) = call(
        s,
        "POST",
        &format!("/api/games/{id}/join"),
        &white,
        Some(json!({"seat": "white"})),
    )
    .await;
    assert_eq!(st, 200, "{j}");
    (id, black, white)
}

/// One move by a signed-in player, which must be accepted.
async fn play(s: &Server, id: &str, who: &Session, action: &str) -> Value {
    let (st, v) = call(
        s,
        "POST",
        &format!("/api/games/{id}/actions"),
        who,
        Some(json!({ "action": action })),
    )
    .await;
    assert_eq!(st, 200, "{action}: {v}");
    v
}

/// Saves a plan that must be accepted; the answer.
async fn save(s: &Server, id: &str, who: &Session, moves: Value) -> Value {
    let (st, v) = put(
        s,
        &format!("/api/games/{id}/conditional"),
        who,
        json!({ "moves": moves }),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    v
}

/// The plan the asker sees.
async fn plan(s: &Server, id: &str, who: &Session) -> Value {
    let (st, v) = get(s, &format!("/api/games/{id}/conditional"), who).await;
    assert_eq!(st, 200, "{v}");
    v
}

/// A chain of `depth` levels (at most 18): the opponent's moves up column A then B, the
/// replies up column J then H.
fn chain(depth: usize) -> Value {
    let at = |cols: [char; 2], i: usize| {
        if i <= 9 {
            format!("{}{i}", cols[0])
        } else {
            format!("{}{}", cols[1], i - 9)
        }
    };
    let mut t = json!({});
    for i in (1..=depth).rev() {
        t = json!({ at(['A', 'B'], i): {"reply": at(['J', 'H'], i), "then": t} });
    }
    t
}

#[tokio::test]
async fn hostile_plans_are_refused_with_a_code_and_nothing_is_stored() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, black, white) = game_of_two(&s, None).await;
        let path = format!("/api/games/{id}/conditional");
        play(&s, &id, &black, "E5").await;
        play(&s, &id, &white, "C3").await;
        // Black to move: White plans.
        let mut wide = serde_json::Map::new();
        for c in ["A", "B", "C", "D", "F", "G", "H"] {
            for r in 1..=9 {
                let p = format!("{c}{r}");
                if p != "C3" {
                    wide.insert(p, json!({"reply": "J9", "then": chain(3)}));
                }
            }
        }
        let cases: Vec<(Value, u16, &str)> = vec![
            (json!({"moves": chain(11)}), 422, "conditional.too_deep"),
            (json!({"moves": wide}), 422, "conditional.too_many"),
            (
                json!({"moves": {"Z99": {"reply": "C4"}}}),
                422,
                "conditional.point",
            ),
            (
                json!({"moves": {"D4": {"reply": "E5"}}}),
                422,
                "conditional.illegal",
            ),
            (
                json!({"moves": {"C3": {"reply": "D4"}}}),
                422,
                "conditional.illegal",
            ),
            (
                json!({"moves": {"D4": {"reply": "D5", "then": {"D5": {"reply": "F5"}}}}}),
                422,
                "conditional.illegal",
            ),
            (
                json!({"moves": {"D4": {"reply": "D5", "x": 1}}}),
                400,
                "conditional.shape",
            ),
            (json!({"moves": {"D4": "D5"}}), 400, "conditional.shape"),
            (json!({"moves": ["D4", "D5"]}), 400, "conditional.shape"),
            (
                json!({"moves": {"d4": {"reply": "D5"}, "D4": {"reply": "D6"}}}),
                400,
                "conditional.twice",
            ),
        ];
        for (body, status, code) in &cases {
            let (st, v) = put(&s, &path, &white, body.clone()).await;
            assert_eq!(
                (st, v["code"].as_str()),
                (*status, Some(*code)),
                "{body}: {v}"
            );
            assert_eq!(plan(&s, &id, &white).await["moves"], json!({}), "{body}");
        }
        // The side to move plans nothing: it plays.
        let (st, v) = put(&s, &path, &black, json!({"moves": {"D4": {"reply": "D5"}}})).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (409, Some("conditional.your_turn")),
            "{v}"
        );
        // Nobody else plans in this game, signed in or not.
        let stranger = signup(&s, &uniq("kibitz")).await;
        let (st, v) = put(
            &s,
            &path,
            &stranger,
            json!({"moves": {"D4": {"reply": "D5"}}}),
        )
        .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("conditional.not_seated")),
            "{v}"
        );
        let (st, v) = get(&s, &path, &stranger).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("conditional.not_seated")),
            "{v}"
        );
        let (st, _) = put(&s, &path, &Session::default(), json!({"moves": {}})).await;
        assert_eq!(st, 401);
        // Nor does the seat token of another game.
        let (_, seats) = s.create(json!({"game": "go", "size": 9})).await;
        let other = common::token(&seats, "white");
        let body = json!({"moves": {"D4": {"reply": "D5"}}});
        let (st, v) = with_token(&s, "PUT", &path, Some(&other), Some(body)).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("conditional.not_seated")),
            "{v}"
        );
        // A valid plan is accepted; the game over, a new one is refused.
        let (st, v) = put(&s, &path, &white, json!({"moves": chain(10)})).await;
        assert_eq!(st, 200, "{v}");
        play(&s, &id, &black, "resign").await;
        let (st, v) = put(&s, &path, &white, json!({"moves": {"D4": {"reply": "D5"}}})).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (409, Some("conditional.game_over")),
            "{v}"
        );
        assert_eq!(plan(&s, &id, &white).await["moves"], json!({}));
        // No game, no plan.
        let (st, _) = get(&s, "/api/games/nosuchgame/conditional", &white).await;
        assert_eq!(st, 404);
    }
}

#[tokio::test]
async fn a_plan_is_never_shown_to_the_opponent_or_a_watcher() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, black, white) = game_of_two(&s, None).await;
        let mut watcher = s.watch(&id).await;
        watcher.next_of("state").await;
        let v = save(&s, &id, &white, json!({"E5": {"reply": "C3"}})).await;
        assert_eq!(v["moves"]["E5"]["reply"], "C3");
        // The opponent asking sees their own (none); the game's state says nothing of it.
        let theirs = plan(&s, &id, &black).await;
        assert_eq!(theirs["moves"], json!({}), "{theirs}");
        assert_eq!(theirs["seat"], "black");
        for who in [&black, &white] {
            let (_, state) = get(&s, &format!("/api/games/{id}"), who).await;
            let text = state.to_string();
            assert!(
                !text.contains("reply") && !text.contains("conditional"),
                "{text}"
            );
        }
        let anon = s.state(&id).await.to_string();
        assert!(!anon.contains("reply") && !anon.contains("conditional"));
        // A move the plan does not answer reaches the watcher alone, with nothing of the plan.
        play(&s, &id, &black, "D4").await;
        let msg = watcher.next().await.to_string();
        assert!(
            !msg.contains("reply") && !msg.contains("conditional"),
            "{msg}"
        );
    }
}

#[tokio::test]
async fn a_conditional_tree_is_played_out_two_levels_deep_each_reply_in_the_commit_of_the_move() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, black, white) = game_of_two(&s, Some("fischer:600:10")).await;
        let tree = json!({"E5": {"reply": "C3", "then": {"G7": {"reply": "C7"}}},
                          "D4": {"reply": "F6"}});
        let v = save(&s, &id, &white, tree.clone()).await;
        assert_eq!(v["version"], 0);
        assert_eq!(v["moves"], tree);
        let mut watcher = s.watch(&id).await;
        watcher.next_of("state").await;
        // Black's move comes back with White's planned reply already played.
        let reply = play(&s, &id, &black, "e5").await;
        assert_eq!(reply["version"], 2, "{reply}");
        let state = s.state(&id).await;
        let actions = state["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 2, "{state}");
        assert_eq!(
            (actions[1]["seat"].as_str(), actions[1]["action"].as_str()),
            (Some("white"), Some("C3"))
        );
        assert_eq!(actions[0]["at"], actions[1]["at"], "the reply took no time");
        assert_eq!(state["to_move"], "black");
        // White's clock lost nothing and gained its increment.
        assert_eq!(state["clocks"]["white"]["main_ms"], 610_000, "{state}");
        // The watcher got both actions in one change.
        let delta = watcher.next_of("delta").await;
        assert_eq!(delta["delta"]["version"], 2, "{delta}");
        assert_eq!(
            delta["delta"]["log"].as_array().unwrap().len(),
            2,
            "{delta}"
        );
        // The game's schedule was stored with the pair: it is Black's move again.
        let (_, mine) = get(&s, "/api/me/games", &black).await;
        assert_eq!(mine["games"][0]["your_turn"], true, "{mine}");
        let (_, theirs) = get(&s, "/api/me/games", &white).await;
        assert_eq!(theirs["games"][0]["your_turn"], false, "{theirs}");
        // The plan moved on to its next level.
        let now = plan(&s, &id, &white).await;
        assert_eq!(now["version"], 2, "{now}");
        assert_eq!(now["moves"], json!({"G7": {"reply": "C7"}}), "{now}");
        // The second level.
        let reply = play(&s, &id, &black, "G7").await;
        assert_eq!(reply["version"], 4, "{reply}");
        let state = s.state(&id).await;
        let actions = state["actions"].as_array().unwrap();
        assert_eq!(actions[3]["action"], "C7", "{state}");
        assert_eq!(actions[2]["at"], actions[3]["at"]);
        assert_eq!(plan(&s, &id, &white).await["moves"], json!({}));
        // Stored as played: a second server reading the database sees the same four actions.
        let other = Server::start_config(s.hub.store.url(), |c| c.cluster_secret = None).await;
        let stored = other.state(&id).await;
        assert_eq!(stored["version"], 4, "{stored}");
        assert_eq!(stored["actions"][3]["action"], "C7");
    }
}

#[tokio::test]
async fn a_move_off_the_plan_drops_it_and_plays_nothing() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, black, white) = game_of_two(&s, None).await;
        save(&s, &id, &white, json!({"E5": {"reply": "C3"}})).await;
        let reply = play(&s, &id, &black, "D4").await;
        assert_eq!(reply["version"], 1, "{reply}");
        assert_eq!(s.state(&id).await["to_move"], "white");
        assert_eq!(plan(&s, &id, &white).await["moves"], json!({}));
        // White plays on by hand; Black's E5 now is just a move.
        play(&s, &id, &white, "F6").await;
        let reply = play(&s, &id, &black, "E5").await;
        assert_eq!(reply["version"], 3, "{reply}");
        // Nor does the plan come back from the database.
        baduk_server::cluster::leave(&s.hub).await;
        let other = Server::start(s.hub.store.url()).await;
        assert_eq!(plan(&other, &id, &white).await["moves"], json!({}));
    }
}

#[tokio::test]
async fn a_saved_plan_survives_a_restart_and_is_played_by_the_next_process() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, black, white) = game_of_two(&s, None).await;
        play(&s, &id, &black, "E5").await;
        // Black premoves while White thinks.
        let tree = json!({"C3": {"reply": "G7", "then": {"C7": {"reply": "G3"}}}});
        save(&s, &id, &black, tree.clone()).await;
        // The server stops (leaving its games) and a new process on the same database takes
        // the game with its plan.
        baduk_server::cluster::leave(&s.hub).await;
        let again = Server::start(s.hub.store.url()).await;
        let seen = plan(&again, &id, &black).await;
        assert_eq!(
            (seen["version"].clone(), seen["moves"].clone()),
            (json!(1), tree)
        );
        assert_eq!(plan(&again, &id, &white).await["moves"], json!({}));
        let reply = play(&again, &id, &white, "C3").await;
        assert_eq!(reply["version"], 3, "{reply}");
        assert_eq!(again.state(&id).await["last_move"], "G7");
        let seen = plan(&again, &id, &black).await;
        assert_eq!(seen["moves"], json!({"C7": {"reply": "G3"}}), "{seen}");
        // Cleared, it is gone from the database too.
        let (st, v) = call(
            &again,
            "DELETE",
            &format!("/api/games/{id}/conditional"),
            &black,
            None,
        )
        .await;
        assert_eq!((st, v["moves"].clone()), (200, json!({})), "{v}");
        baduk_server::cluster::leave(&again.hub).await;
        let third = Server::start(s.hub.store.url()).await;
        assert_eq!(plan(&third, &id, &black).await["moves"], json!({}));
    }
}

#[tokio::test]
async fn your_games_list_the_games_where_it_is_your_move_first_then_by_deadline() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (st, v) = get(&s, "/api/me/games", &Session::default()).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (401, Some("auth.required")),
            "{v}"
        );
        let me = signup(&s, &uniq("hon")).await;
        let (a, b) = (
            signup(&s, &uniq("aite")).await,
            signup(&s, &uniq("teki")).await,
        );
        // A game made by `me` (Black) against `who` (White), with `clock`.
        let game = |who: Session, clock: Option<&'static str>| {
            let (s, me) = (&s, me.clone());
            async move {
                let mut body =
                    json!({"game": "go", "size": 9, "seats": {"white": {"kind": "open"}}});
                if let Some(c) = clock {
                    body["clock"] = json!(c);
                }
                let (st, g) = call(s, "POST", "/api/games", &me, Some(body)).await;
                assert_eq!(st, 201, "{g}");
                let id = g["id"].as_str().unwrap().to_string();
                let path = format!("/api/games/{id}/join");
                let (st, j) = call(s, "POST", &path, &who, Some(json!({"seat": "white"}))).await;
                assert_eq!(st, 200, "{j}");
                id
            }
        };
        let slow = game(a.clone(), Some("fischer:86400:86400")).await;
        let fast = game(b.clone(), Some("absolute:600")).await;
        let waiting_untimed = game(a.clone(), None).await;
        play(&s, &waiting_untimed, &me, "E5").await;
        let waiting_timed = game(b.clone(), Some("absolute:3600")).await;
        play(&s, &waiting_timed, &me, "E5").await;
        let over = game(a.clone(), None).await;
        play(&s, &over, &me, "resign").await;
        let (st, v) = get(&s, "/api/me/games", &me).await;
        assert_eq!(st, 200, "{v}");
        let games = v["games"].as_array().unwrap();
        let ids: Vec<&str> = games.iter().map(|g| g["id"].as_str().unwrap()).collect();
        assert_eq!(ids, [&fast, &slow, &waiting_timed, &waiting_untimed], "{v}");
        let turns: Vec<bool> = games
            .iter()
            .map(|g| g["your_turn"].as_bool().unwrap())
            .collect();
        assert_eq!(turns, [true, true, false, false]);
        let first = &games[0];
        assert_eq!(first["url"], format!("/g/{fast}"));
        assert_eq!(
            (first["game"].as_str(), first["seat"].as_str()),
            (Some("go"), Some("black"))
        );
        // Its creator has not shown up in it yet (no action, no socket): still `open`.
        assert_eq!(
            (first["status"].as_str(), games[2]["status"].as_str()),
            (Some("open"), Some("live"))
        );
        assert_eq!(first["clock"], "absolute:600");
        let (d_fast, d_slow) = (
            first["deadline"].as_i64().unwrap(),
            games[1]["deadline"].as_i64().unwrap(),
        );
        assert!(d_fast < d_slow, "{v}");
        assert!(first["turn_since"].as_i64().unwrap() <= d_fast);
        assert_eq!(games[3]["deadline"], Value::Null);
        assert_eq!(games[3]["moves"], 1);
        // An API token that reads gets the same list.
        let (st, tk) = call(
            &s,
            "POST",
            "/api/tokens",
            &me,
            Some(json!({"label": "turns", "scopes": ["read"]})),
        )
        .await;
        assert_eq!(st, 201, "{tk}");
        let (st, by_token) =
            with_token(&s, "GET", "/api/me/games", tk["token"].as_str(), None).await;
        assert_eq!((st, &by_token), (200, &v));
        // The opponent's own list: its move first.
        let (_, theirs) = get(&s, "/api/me/games", &a).await;
        let ids: Vec<&str> = theirs["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [&waiting_untimed, &slow], "{theirs}");
        assert_eq!(theirs["games"][0]["seat"], "white");
        assert_eq!(theirs["games"][0]["your_turn"], true);
        assert!(
            theirs["games"][1]["opponent"]
                .as_str()
                .unwrap()
                .starts_with("hon"),
            "{theirs}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_sent_to_a_process_that_does_not_own_the_game_is_kept_and_played_by_the_owner() {
    let Some(pg) = databases().into_iter().find(|d| d != "sqlite") else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let a = Server::start(&pg).await;
    let b = Server::start(a.hub.store.url()).await;
    let (id, black, white) = game_of_two(&a, None).await;
    let a_owns = a.hub.loaded_handle(&id).is_some_and(|h| h.owned());
    let (owner, other) = if a_owns { (&a, &b) } else { (&b, &a) };
    // Saved, read and cleared through the process that does not own the game: forwarded.
    let tree = json!({"E5": {"reply": "C3"}});
    assert_eq!(save(other, &id, &white, tree.clone()).await["moves"], tree);
    assert_eq!(plan(other, &id, &white).await["moves"], tree);
    assert_eq!(plan(owner, &id, &white).await["moves"], tree);
    // The move, sent anywhere, is answered by the owner with the reply.
    let reply = play(other, &id, &black, "E5").await;
    assert_eq!(reply["version"], 2, "{reply}");
    let stored = a.hub.store.load(&id).await.unwrap().unwrap();
    let rows: Vec<&str> = stored.actions.iter().map(|r| r.action.as_str()).collect();
    assert_eq!(rows, ["E5", "C3"]);
    assert_eq!(stored.actions[0].at, stored.actions[1].at);
    // Both processes' watchers see it.
    let seen = other.wait_for(&id, 10, |st| st["version"] == 2).await;
    assert_eq!(seen["last_move"], "C3");
}

#[tokio::test]
async fn a_game_that_left_memory_keeps_its_plan_and_plays_it_when_it_loads_again() {
    for db in databases() {
        let s = Server::start_config(&db, |c| {
            // Idle games leave memory after 200 ms, looked at every second.
            c.limits.idle_game = std::time::Duration::from_millis(200);
            c.limits.finished_grace = std::time::Duration::from_millis(200);
        })
        .await;
        let (id, black, white) = game_of_two(&s, Some("fischer:600:10")).await;
        save(&s, &id, &white, json!({"E5": {"reply": "C3"}})).await;
        assert!(
            common::eventually(10, || s.hub.loaded_handle(&id).is_none()).await,
            "the idle game left memory"
        );
        let reply = play(&s, &id, &black, "E5").await;
        assert_eq!(reply["version"], 2, "{reply}");
        assert_eq!(s.state(&id).await["last_move"], "C3");
    }
}
