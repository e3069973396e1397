//! Both games end to end over real HTTP and WebSocket on loopback, on every database the test
//! run has: Go to the count through the dead-stone phase (and each rule set's ending), Wall Go to
//! separation, bots in seats, clocks that run out with no client connected.

mod common;

use common::{databases, token, Server};
use serde_json::{json, Value};

fn go(rules: &str, size: u32) -> Value {
    json!({"game": "go", "size": size, "rules": rules})
}

/// Plays `moves` alternately from Black.
async fn play(s: &Server, id: &str, b: &str, w: &str, moves: &[&str]) -> Value {
    let mut last = Value::Null;
    for (i, m) in moves.iter().enumerate() {
        last = s.ok(id, if i % 2 == 0 { b } else { w }, m).await;
    }
    last
}

/// A 7×7 game where Black walls off the left (column C) and White the right (column E), Black
/// fills the dame D4 and White invades at B4 (dead); Black to move.
const WALLS: &[&str] = &[
    "C1", "E1", "C2", "E2", "C3", "E3", "C4", "E4", "C5", "E5", "C6", "E6", "C7", "E7", "D4", "B4",
];

#[tokio::test]
async fn go_game_ends_through_the_dead_stone_phase_with_every_rule_set_side_by_side() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(go("japanese", 7)).await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        assert_eq!(s.state(&id).await["status"], "open");
        play(&s, &id, &b, &w, WALLS).await;
        s.ok(&id, &b, "pass").await;
        let st = s.ok(&id, &w, "pass").await;
        assert_eq!(st["phase"], "marking", "{st}");
        assert_eq!(st["marking"]["dispute"], "disputed");
        assert_eq!(st["marking"]["proposed"], json!(["B4"]), "{st}");
        // Toggling resets both acceptances; the marks end as proposed.
        s.ok(&id, &w, "accept").await;
        let st = s.ok(&id, &w, "alive B4").await;
        assert_eq!(st["marking"]["dead"], json!([]));
        assert_eq!(st["marking"]["accepted"]["white"], false);
        let st = s.ok(&id, &b, "dead B4").await;
        assert_eq!(st["marking"]["dead"], json!(["B4"]));
        assert!(st["marking"]["territory"]["black"]
            .as_array()
            .unwrap()
            .contains(&json!("B4")));
        s.ok(&id, &w, "accept").await;
        let st = s.ok(&id, &b, "accept").await;
        assert_eq!(st["phase"], "finished");
        let r = &st["result"];
        assert_eq!(r["reason"], "score");
        // Japanese counting: Black 14 territory + 1 dead stone = 15; White 14 + 6.5.
        assert_eq!(r["text"], "W+5.5");
        let rows = r["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 9, "{r}");
        let japanese = rows
            .iter()
            .find(|x| x["rules"].as_str().unwrap().starts_with("japanese"))
            .unwrap();
        assert_eq!(japanese["result"], r["text"]);
        assert_eq!(japanese["dead"], json!(["B4"]));
        assert_eq!(st["status"], "finished");
        // The record carries rules, komi, the moves and the result.
        let (code, sgf) = s.get(&format!("/api/games/{id}/record")).await;
        assert_eq!(code, 200);
        let sgf = sgf.as_str().unwrap().to_string();
        assert!(
            sgf.contains(&format!("RE[{}]", r["text"].as_str().unwrap())),
            "{sgf}"
        );
        let g = baduk_go::SgfGame::parse(&sgf).expect("our SGF reads back");
        assert_eq!(g.moves.len(), WALLS.len() + 2);
        // Nothing acts once it is over.
        assert_eq!(s.act(&id, &b, "C3").await.0, 409);
    }
}

#[tokio::test]
async fn area_rules_dispute_resumes_play() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(go("chinese", 5)).await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        play(&s, &id, &b, &w, &["C3", "pass", "pass"]).await;
        assert_eq!(s.state(&id).await["phase"], "marking");
        let st = s.ok(&id, &w, "dispute").await;
        assert_eq!(st["phase"], "play");
        assert_eq!(st["to_move"], "white");
        s.ok(&id, &w, "D4").await;
    }
}

#[tokio::test]
async fn korean_dispute_runs_verification_play_and_counts_its_verdict() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(go("korean", 7)).await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        play(&s, &id, &b, &w, WALLS).await;
        s.ok(&id, &b, "pass").await;
        s.ok(&id, &w, "pass").await;
        // White claims Black's living wall is dead; verification play (or, where it cannot
        // decide within its bound, the estimate) keeps it alive.
        s.ok(&id, &w, "dead C3").await;
        let st = s.ok(&id, &b, "dispute").await;
        assert_eq!(st["phase"], "finished", "{st}");
        let lines = st["verification"].as_array().unwrap();
        assert!(
            lines
                .iter()
                .any(|l| l.as_str().unwrap().starts_with("verification play C")),
            "{lines:?}"
        );
        assert!(!st["marking"]["dead"]
            .as_array()
            .unwrap()
            .contains(&json!("C3")));
    }
}

/// A 9×9 semeai the art. 7 confirmation cannot settle within its bound: Black's six stones
/// D3–D6, C3, C6 against White's E3–E6, F3, F6.
const SEMEAI: &[&str] = &[
    "D5", "E5", "D4", "E4", "C6", "F6", "C3", "F3", "D6", "E6", "D3", "E3", "pass", "pass",
];

#[tokio::test]
async fn japanese_dispute_is_no_result_when_the_art_7_confirmation_does_not_settle_it() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(go("japanese", 9)).await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        play(&s, &id, &b, &w, SEMEAI).await;
        // Nothing marked differently: nothing to confirm, and nothing stored changes.
        let v = s.state(&id).await["version"].clone();
        let (status, e) = s.act(&id, &b, "dispute confirm").await;
        assert_eq!(
            (status, e["code"].as_str()),
            (409, Some("dispute.nothing")),
            "{e}"
        );
        assert_eq!(s.state(&id).await["version"], v);
        s.ok(&id, &w, "dead D5").await;
        let st = s.ok(&id, &w, "dispute confirm").await;
        let r = &st["result"];
        assert_eq!(r["text"], "Void", "{r}");
        assert_eq!(r["reason"], "disputed");
        assert_eq!(r["code"], "result.disputed");
        assert_eq!(r["args"]["chains"], json!(["D5"]));
        assert!(r["detail"].as_str().unwrap().contains("D5"), "{r}");
        assert_eq!(st["checks"][0]["chain"], "D5");
        assert!(!st["checks"][0]["opponent_first"]["moves"]
            .as_array()
            .unwrap()
            .is_empty());
        let (_, sgf) = s.get(&format!("/api/games/{id}/record")).await;
        let sgf = sgf.as_str().unwrap();
        assert!(sgf.contains("RE[Void]"), "{sgf}");
        assert!(sgf.contains("C[no result (disputed)"), "{sgf}");
    }
}

#[tokio::test]
async fn jk_and_tromp_taylor_games_have_no_dead_stone_phase() {
    for db in databases() {
        let s = Server::start(&db).await;
        for rules in ["jk", "tromp-taylor"] {
            let (id, seats) = s.create(go(rules, 5)).await;
            let (b, w) = (token(&seats, "black"), token(&seats, "white"));
            let st = play(&s, &id, &b, &w, &["C3", "pass", "pass"]).await;
            assert_eq!(st["phase"], "finished", "{rules}: {st}");
            assert!(st["marking"].is_null(), "{rules}");
            assert_eq!(st["dead_stone_phase"], false);
            assert_eq!(st["result"]["reason"], "score");
        }
    }
}

#[tokio::test]
async fn illegal_moves_name_the_rule_and_change_nothing() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(go("chinese", 5)).await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        // A ko: Black takes, White may not retake at once.
        play(
            &s,
            &id,
            &b,
            &w,
            &["B3", "C3", "A2", "D2", "B1", "C1", "C2", "B2"],
        )
        .await;
        let (code, v) = s.act(&id, &b, "C2").await;
        assert_eq!(code, 422, "{v}");
        assert!(v["error"].as_str().unwrap().contains("ko"), "{v}");
        let (code, v) = s.act(&id, &b, "B3").await;
        assert_eq!(code, 422);
        assert!(v["error"].as_str().unwrap().contains("occupied"), "{v}");
        let (code, v) = s.act(&id, &w, "E5").await;
        assert_eq!((code, v["error"].clone()), (409, json!("not your turn")));
        let (code, v) = s.act(&id, &b, "Z9").await;
        assert_eq!(code, 400, "{v}");
        assert_eq!(s.state(&id).await["version"], 8);
    }
}

#[tokio::test]
async fn undo_request_accepted_takes_back_the_move() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(go("chinese", 9)).await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        s.ok(&id, &b, "E5").await;
        let st = s.ok(&id, &b, "undo").await;
        assert_eq!(st["undo_request"], "black");
        let st = s.ok(&id, &w, "undo-accept").await;
        // The reply's history: keep none of the moves, add none.
        assert_eq!(st["history"], json!({"keep": 0, "moves": []}), "{st}");
        assert_eq!(s.state(&id).await["moves"], json!([]));
        assert_eq!(st["to_move"], "black");
        s.ok(&id, &b, "D4").await;
        s.ok(&id, &b, "undo").await;
        let st = s.ok(&id, &w, "undo-decline").await;
        assert_eq!(st["history"], json!({"keep": 1, "moves": []}), "{st}");
        assert_eq!(s.state(&id).await["moves"], json!(["D4"]));
    }
}

#[tokio::test]
async fn wall_go_against_easy_is_played_to_separation_and_the_record_replays() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s
            .create(json!({"game": "wallgo", "turn_seconds": 0,
                "seats": {"A": {"kind": "human"}, "B": {"kind": "bot", "bot": "easy"}}}))
            .await;
        let a = token(&seats, "A");
        assert!(seats.get("B").is_none(), "bots get no token");
        let mut st = s.state(&id).await;
        for _ in 0..200 {
            if st["phase"] == "finished" {
                break;
            }
            if st["to_move"] == "A" {
                let mv = st["legal"][0].as_str().unwrap().to_string();
                st = s.ok(&id, &a, &mv).await;
            } else {
                let v = st["version"].as_i64().unwrap();
                st = s
                    .wait_for(&id, 20, |x| x["version"].as_i64().unwrap() > v)
                    .await;
            }
        }
        assert_eq!(st["phase"], "finished", "{st}");
        assert!(["separation", "passes"].contains(&st["result"]["reason"].as_str().unwrap()));
        let (_, rec) = s.get(&format!("/api/games/{id}/record")).await;
        let g = baduk_wallgo::Game::from_record(rec.as_str().unwrap()).expect("record replays");
        assert!(g.position().is_over());
    }
}

#[tokio::test]
async fn a_go_bot_seat_answers_by_itself() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese",
                "seats": {"white": {"kind": "bot", "bot": "baduk", "options": "playouts=200"}}}))
            .await;
        let b = token(&seats, "black");
        s.ok(&id, &b, "E5").await;
        let st = s
            .wait_for(&id, 30, |x| x["moves"].as_array().unwrap().len() == 2)
            .await;
        assert_eq!(st["to_move"], "black");
        assert_eq!(st["actions"][1]["seat"], "white");
        assert_eq!(
            st["actions"][1]["auto"], false,
            "a bot's move is no timeout"
        );
    }
}

#[tokio::test]
async fn go_clock_runs_out_with_no_client_connected() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:1"}))
            .await;
        let b = token(&seats, "black");
        s.ok(&id, &b, "E5").await;
        // White never moves and nobody is connected: the server's clock ends it.
        let st = s.wait_for(&id, 10, |x| x["phase"] == "finished").await;
        assert_eq!(st["result"]["text"], "B+T");
        assert_eq!(st["result"]["reason"], "time");
        let last = st["actions"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(
            (last["action"].clone(), last["auto"].clone()),
            (json!("timeout"), json!(true))
        );
        assert_eq!(
            st["actions"].as_array().unwrap().len(),
            2,
            "one timeout, once"
        );
    }
}

#[tokio::test]
async fn each_action_stores_when_the_game_must_be_looked_at_next() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:600"}))
            .await;
        let b = token(&seats, "black");
        s.ok(&id, &b, "E5").await;
        let st = s.state(&id).await;
        let sched = s.hub.store.schedule_of(&id).await.unwrap().unwrap();
        let since = st["actions"][0]["at"].as_i64().unwrap();
        // Token seats hold no account; White's ten minutes run from Black's move.
        assert_eq!(sched.to_move, None);
        assert_eq!(sched.turn_since, Some(since));
        assert_eq!(sched.deadline, Some(since + 600_000));
        assert_eq!(sched.wake_at, sched.deadline);
        s.ok(&id, &token(&seats, "white"), "resign").await;
        let sched = s.hub.store.schedule_of(&id).await.unwrap().unwrap();
        assert_eq!(
            sched,
            Default::default(),
            "a finished game is never looked at again"
        );
    }
}

#[tokio::test]
async fn wall_go_turn_clock_plays_a_legal_action_and_the_record_marks_it() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, _) = s.create(json!({"game": "wallgo", "turn_seconds": 1})).await;
        let st = s
            .wait_for(&id, 10, |x| x["version"].as_i64().unwrap() >= 1)
            .await;
        assert!(st["actions"][0]["auto"].as_bool().unwrap());
        assert!(st["actions"][0]["action"]
            .as_str()
            .unwrap()
            .starts_with("place "));
        let (_, rec) = s.get(&format!("/api/games/{id}/record")).await;
        assert!(rec.as_str().unwrap().contains("# timeout"), "{rec}");
    }
}

#[tokio::test]
async fn websocket_watchers_see_every_action_and_seats_may_act_over_the_socket() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(go("chinese", 9)).await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        let mut spectator = s.watch(&id).await;
        let snap = spectator.next_of("state").await;
        assert_eq!(snap["state"]["version"], 0);
        assert!(!snap.to_string().contains(&b), "no tokens in any state");
        s.ok(&id, &b, "E5").await;
        let ev = spectator.state_where(|st| st["version"] == 1).await;
        assert_eq!(ev["moves"], json!(["E5"]));
        // White acts over its own socket.
        let mut white = s.watch(&id).await;
        white.send(json!({"type": "hello", "token": w})).await;
        assert_eq!(white.next_of("hello").await["seat"], "white");
        white
            .send(json!({"id": 7, "token": w, "action": "D4"}))
            .await;
        let ack = white.next_of("ack").await;
        assert_eq!(
            (ack["id"].clone(), ack["version"].clone()),
            (json!(7), json!(2))
        );
        let ev = spectator.state_where(|st| st["version"] == 2).await;
        assert_eq!(ev["moves"], json!(["E5", "D4"]));
        // A spectator's socket cannot act.
        spectator.send(json!({"id": 1, "action": "C3"})).await;
        assert_eq!(spectator.next_of("error").await["status"], 401);
        spectator
            .send(json!({"id": 2, "token": w, "action": "C3"}))
            .await;
        assert_eq!(spectator.next_of("error").await["status"], 409);
    }
}

#[tokio::test]
async fn lobby_lists_open_live_and_finished_games_in_pages() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (open, _) = s.create(go("chinese", 9)).await;
        let (live, seats) = s.create(go("chinese", 9)).await;
        s.ok(&live, &token(&seats, "black"), "E5").await;
        s.ok(&live, &token(&seats, "white"), "D5").await;
        let (done, seats) = s.create(go("chinese", 9)).await;
        s.ok(&done, &token(&seats, "black"), "resign").await;
        let has =
            |v: &Value, id: &str| v["games"].as_array().unwrap().iter().any(|g| g["id"] == id);
        let (_, v) = s.get("/api/games?status=open&limit=200").await;
        assert!(has(&v, &open) && !has(&v, &live));
        let (_, v) = s.get("/api/games?status=live&limit=200").await;
        assert!(has(&v, &live) && !has(&v, &open));
        let (_, v) = s.get("/api/games?status=finished&limit=200").await;
        assert!(has(&v, &done));
        // Pages of one: the cursor walks back through them.
        let (_, p1) = s.get("/api/games?status=open&limit=1").await;
        let next = p1["next"].as_str().unwrap().to_string();
        let (code, p2) = s
            .get(&format!("/api/games?status=open&limit=1&before={next}"))
            .await;
        assert_eq!(code, 200);
        assert_ne!(p1["games"][0]["id"], p2["games"][0]["id"]);
        assert_eq!(s.get("/api/games?status=nope").await.0, 400);
        // Finished games come newest-ended first: one made earlier but ended later is first.
        let (early, es) = s.create(go("chinese", 9)).await;
        let (late, ls) = s.create(go("chinese", 9)).await;
        s.ok(&late, &token(&ls, "black"), "resign").await;
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        s.ok(&early, &token(&es, "black"), "resign").await;
        let (_, v) = s.get("/api/games?status=finished&limit=200").await;
        let ids: Vec<&str> = v["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|g| g["id"].as_str())
            .collect();
        let (e, l) = (
            ids.iter().position(|x| *x == early).unwrap(),
            ids.iter().position(|x| *x == late).unwrap(),
        );
        assert!(e < l, "the game that ended last comes first: {ids:?}");
        // Its cursor pages by the end time too.
        let (_, p1) = s.get("/api/games?status=finished&limit=1").await;
        let next = p1["next"].as_str().unwrap().to_string();
        let (code, p2) = s
            .get(&format!("/api/games?status=finished&limit=1&before={next}"))
            .await;
        assert_eq!(code, 200);
        assert_ne!(p1["games"][0]["id"], p2["games"][0]["id"]);
    }
}

#[tokio::test]
async fn replay_gives_the_position_after_n_moves() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s.create(go("chinese", 9)).await;
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    play(&s, &id, &b, &w, &["E5", "D4", "C3"]).await;
    let (_, v) = s.get(&format!("/api/games/{id}?move=1")).await;
    assert_eq!(v["replay_move"], 1);
    assert_eq!(v["last_move"], "E5");
    assert_eq!(v["board"][4], "....B....");
    assert_eq!(v["board"][5], ".........");
}

#[tokio::test]
async fn an_open_seat_is_claimed_once() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s
        .create(json!({"game": "go", "size": 9, "seats": {"white": {"kind": "open"}}}))
        .await;
    assert!(seats.get("white").is_none());
    let (code, v) = s
        .post(
            &format!("/api/games/{id}/join"),
            None,
            r#"{"seat":"white"}"#,
        )
        .await;
    assert_eq!(code, 200, "{v}");
    let w = v["token"].as_str().unwrap().to_string();
    let (code, _) = s
        .post(
            &format!("/api/games/{id}/join"),
            None,
            r#"{"seat":"white"}"#,
        )
        .await;
    assert_eq!(code, 409);
    s.ok(&id, &token(&seats, "black"), "E5").await;
    s.ok(&id, &w, "D4").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thinking_bot_never_holds_up_other_games() {
    let s = Server::start("sqlite").await;
    // A bot that thinks for 3 seconds a move.
    let (slow, seats) = s
        .create(json!({"game": "go", "size": 9, "rules": "chinese",
            "seats": {"white": {"kind": "bot", "bot": "baduk", "options": "time=3"}}}))
        .await;
    s.ok(&slow, &token(&seats, "black"), "E5").await;
    // Meanwhile a whole exchange of moves goes through in another game.
    let (id, seats) = s.create(go("chinese", 9)).await;
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    play(&s, &id, &b, &w, &["C3", "G7", "C7", "G3", "E3", "E7"]).await;
    assert_eq!(
        s.state(&slow).await["version"],
        1,
        "the other game's six moves were stored while the bot still thought"
    );
    s.wait_for(&slow, 30, |x| x["version"] == 2).await;
}

/// SQLite's group commit: actions of many games that arrive together are stored in one
/// transaction, each answered on its own — a refused one (a stale version) changes nothing and
/// does not fail the others.
///
/// "Together" is made certain, not left to timing: every row is prepared first, then the 20
/// appends are spawned with no await between them on this test's one thread, so each has queued
/// its action before the group commit's task (woken by the first, behind them in the run queue)
/// takes a batch. (Reading each game's row between the spawns let the first appends commit alone
/// while the others were still being read: under load, 20 commits.)
#[tokio::test(flavor = "current_thread")]
async fn actions_of_many_games_at_once_share_a_commit_and_keep_their_own_answers() {
    use baduk_server::store::StoreError;
    use std::sync::atomic::Ordering::Relaxed;
    let s = Server::start("sqlite").await;
    let mut games = Vec::new();
    for _ in 0..20 {
        let (id, seats) = s.create(go("chinese", 9)).await;
        s.ok(&id, &token(&seats, "black"), "E5").await;
        games.push(id);
    }
    let node = s.hub.cluster.node.clone();
    let mut rows = Vec::new();
    for (i, id) in games.iter().enumerate() {
        let mut row = s.hub.store.actions_since(id, 0).await.unwrap()[0].clone();
        // Game 7's action claims a version already stored: refused.
        row.seq = if i == 7 { 1 } else { 2 };
        row.seat = 1;
        row.action = "D4".into();
        rows.push(row);
    }
    let queries = &s.hub.store.queries;
    let (commits_before, actions_before) = (
        queries.group_commits.load(Relaxed),
        queries.group_commit_actions.load(Relaxed),
    );
    let tasks: Vec<_> = games
        .iter()
        .zip(rows)
        .map(|(id, row)| {
            let (store, id, node) = (s.hub.store.clone(), id.clone(), node.clone());
            tokio::spawn(async move { store.append(&id, &row, "live", "{}", &node).await })
        })
        .collect();
    for (i, t) in tasks.into_iter().enumerate() {
        let r = t.await.unwrap();
        if i == 7 {
            assert!(matches!(r, Err(StoreError::Conflict)), "{r:?}");
        } else {
            assert!(r.is_ok(), "{r:?}");
        }
    }
    let commits = queries.group_commits.load(Relaxed) - commits_before;
    let actions = queries.group_commit_actions.load(Relaxed) - actions_before;
    assert_eq!(
        (commits, actions),
        (1, 20),
        "20 actions at once: one commit of all 20"
    );
    for (i, id) in games.iter().enumerate() {
        let stored = s.hub.store.actions_since(id, 0).await.unwrap();
        assert_eq!(stored.len(), if i == 7 { 1 } else { 2 }, "game {i}");
    }
}

// ---- Watchers get deltas (docs/api.md, "Changes") ----------------------------------------------

/// The first legal move of `st` other than `pass`.
fn first_move(st: &Value) -> String {
    st["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.as_str())
        .find(|m| *m != "pass")
        .expect("a move on the board")
        .to_string()
}

#[tokio::test]
async fn watchers_get_deltas_whose_size_does_not_grow_with_the_game() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s.create(go("chinese", 19)).await;
    let tokens = [token(&seats, "black"), token(&seats, "white")];
    let mut w = s.watch(&id).await;
    w.next_of("state").await;
    let mut st = s.state(&id).await;
    // (move, bytes of the delta, of the reply, of the full state)
    let mut sizes = Vec::new();
    for i in 0..150usize {
        let mv = first_move(&st);
        st = s.ok(&id, &tokens[i % 2], &mv).await;
        let msg = w.next_of("delta").await;
        let d = &msg["delta"];
        assert_eq!(d["version"], i as i64 + 1, "{msg}");
        assert_eq!(d["base"], i as i64, "{msg}");
        for k in ["actions", "moves", "auto"] {
            assert!(d.get(k).is_none(), "no `{k}` in a delta: {msg}");
        }
        assert_eq!(d["log"].as_array().unwrap().len(), 1, "{msg}");
        assert_eq!(d["log"][0]["action"], mv.as_str());
        assert_eq!(d["history"], json!({"keep": i, "moves": [mv]}), "{msg}");
        // After the first, a delta sends the board and the legal moves as patches of the ones
        // before (issue 43): the move's row and the moves it took or freed, not every point.
        if i > 0 {
            assert!(
                d.get("board").is_none() && d.get("legal").is_none(),
                "{msg}"
            );
            let rows = d["patch"]["board"]["set"].as_array().map_or(0, Vec::len);
            assert!(
                (1..=19).contains(&rows),
                "the move's rows (and its captures'): {msg}"
            );
            assert!(d["patch"]["legal"].is_object(), "{msg}");
        }
        if [2, 10, 60, 150].contains(&(i + 1)) {
            let full = s.state(&id).await.to_string().len();
            sizes.push((i + 1, msg.to_string().len(), st.to_string().len(), full));
        }
    }
    eprintln!("19x19, bytes (move, delta message, action reply, full state): {sizes:?}");
    let (d2, r2) = (sizes[0].1, sizes[0].2);
    for &(n, d, r, full) in &sizes {
        assert!(
            d <= d2 + 64,
            "the delta after move {n} is {d} bytes, after move 2 {d2}"
        );
        assert!(
            r <= r2 + 64,
            "the reply after move {n} is {r} bytes, after move 2 {r2}"
        );
        assert!(n < 10 || d < full, "move {n}: delta {d}, full state {full}");
    }
    assert!(
        sizes[3].3 > sizes[3].1 * 2,
        "the full state grows: {sizes:?}"
    );
    // Lean: a 19×19 delta was 3,378 bytes after move 10 while it carried the board and the
    // legal list whole.
    assert!(sizes.iter().all(|s| s.1 < 1_000), "{sizes:?}");
    // Nothing was missed: the watcher's state is the server's.
    common::assert_same_state(w.held.as_ref().unwrap(), &s.state(&id).await, "watcher");
    assert_eq!(w.syncs, 0);
}

#[tokio::test]
async fn deltas_and_replies_applied_to_the_first_state_give_the_full_state() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:600"}))
            .await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        let mut watcher = s.watch(&id).await;
        watcher.next_of("state").await;
        // A client that keeps the state it read and applies each reply to its own actions.
        let mut mine = s.state(&id).await;
        // Moves, an undo of two (Black asks on its own turn), a pass each: the dead-stone
        // phase, a chain marked, both accept: the end.
        let script: &[(&str, &str)] = &[
            ("b", "E5"),
            ("w", "D4"),
            ("b", "C3"),
            ("w", "G7"),
            ("b", "undo"),
            ("w", "undo-accept"),
            ("b", "C7"),
            ("w", "pass"),
            ("b", "pass"),
            ("w", "dead C7"),
            ("b", "accept"),
            ("w", "accept"),
        ];
        for (i, (seat, action)) in script.iter().enumerate() {
            let t = if *seat == "b" { &b } else { &w };
            let reply = s.ok(&id, t, action).await;
            assert_eq!(reply["base"], mine["version"], "{action}: {reply}");
            mine = common::merge(&mine, &reply);
            let full = s.state(&id).await;
            let what = format!("after {action} (action {})", i + 1);
            common::assert_same_state(&mine, &full, &format!("replies {what}"));
            let v = full["version"].clone();
            let held = watcher.state_where(|st| st["version"] == v).await;
            common::assert_same_state(&held, &full, &format!("watcher {what}"));
            if *action == "undo-accept" {
                assert_eq!(full["moves"], json!(["E5", "D4"]), "{full}");
                assert_eq!(reply["history"]["keep"], 2, "{reply}");
            }
        }
        assert_eq!(mine["status"], "finished", "{mine}");
        assert_eq!(watcher.syncs, 0);
        assert!(
            watcher.deltas >= script.len() - 2,
            "{} deltas",
            watcher.deltas
        );
    }
}

#[tokio::test]
async fn the_full_state_on_request_and_wall_go_deltas() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s.create(go("chinese", 9)).await;
    let b = token(&seats, "black");
    // A wrong flag is refused, and nothing is stored; `?full=1` answers the full state.
    let mut v = Value::Null;
    for (flag, code) in [("maybe", 400), ("1", 200)] {
        let (c, reply) = s
            .post(
                &format!("/api/games/{id}/actions?full={flag}"),
                Some(&b),
                r#"{"action":"E5"}"#,
            )
            .await;
        assert_eq!(c, code, "{reply}");
        v = reply;
    }
    assert_eq!(v["moves"], json!(["E5"]));
    assert_eq!(v["actions"].as_array().unwrap().len(), 1);
    assert_eq!(v["you"], "black");
    // `?ack=1`: the new version alone (a forwarded socket action asks for it); not with full.
    let w = token(&seats, "white");
    let url = format!("/api/games/{id}/actions");
    let (c, reply) = s
        .post(
            &format!("{url}?ack=1&full=1"),
            Some(&w),
            r#"{"action":"D4"}"#,
        )
        .await;
    assert_eq!(c, 400, "{reply}");
    let (c, reply) = s
        .post(&format!("{url}?ack=1"), Some(&w), r#"{"action":"D4"}"#)
        .await;
    assert_eq!((c, reply), (200, json!({"version": 2})));
    // Wall Go's history has two arrays (`moves`, `auto`): both are spliced.
    let (id, seats) = s.create(json!({"game": "wallgo", "turn_seconds": 0})).await;
    let tokens = [token(&seats, "A"), token(&seats, "B")];
    let mut watcher = s.watch(&id).await;
    watcher.next_of("state").await;
    let mut mine = s.state(&id).await;
    for _ in 0..16 {
        if mine["status"] == "finished" {
            break;
        }
        let seat = usize::from(mine["to_move"] != "A");
        let mv = mine["legal"][0].as_str().unwrap().to_string();
        let reply = s.ok(&id, &tokens[seat], &mv).await;
        assert!(reply["history"]["auto"].is_array(), "{reply}");
        mine = common::merge(&mine, &reply);
        let full = s.state(&id).await;
        common::assert_same_state(&mine, &full, &format!("replies after {mv}"));
        let v = full["version"].clone();
        let held = watcher.state_where(|st| st["version"] == v).await;
        common::assert_same_state(&held, &full, &format!("watcher after {mv}"));
    }
    assert!(mine["version"].as_i64().unwrap() >= 8, "{mine}");
}

#[tokio::test]
async fn a_watcher_that_misses_a_delta_asks_for_the_full_state() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s.create(go("chinese", 9)).await;
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    // Both seats joined first: what follows are deltas only.
    s.ok(&id, &b, "E5").await;
    s.ok(&id, &w, "D4").await;
    let mut watcher = s.watch(&id).await;
    let first = watcher.next_of("state").await;
    assert_eq!(first["state"]["version"], 2);
    s.ok(&id, &b, "C3").await;
    s.ok(&id, &w, "G7").await;
    // The delta of version 3 is lost on the way (read without being applied).
    let lost = watcher.next_raw().await;
    assert_eq!(lost["type"], "delta", "{lost}");
    assert_eq!(lost["delta"]["version"], 3);
    // Version 4's base is 3, not the 2 held: the watcher asks (`sync`) and gets the state.
    let held = watcher.state_where(|st| st["version"] == 4).await;
    assert_eq!(watcher.syncs, 1);
    assert_eq!(watcher.deltas, 0, "no delta applied on the wrong base");
    common::assert_same_state(&held, &s.state(&id).await, "after the sync");
    // An explicit sync is answered with the full state and the request's id.
    watcher.send(json!({"type": "sync", "id": "s1"})).await;
    let v = watcher.next_of("state").await;
    assert_eq!(v["id"], "s1", "{v}");
    assert_eq!(v["state"]["moves"], json!(["E5", "D4", "C3", "G7"]));
    common::assert_same_state(&v["state"], &s.state(&id).await, "sync");
}
