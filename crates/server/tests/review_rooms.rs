//! Review rooms (docs/api.md, "Review rooms"): an owner and three watchers on two processes of
//! one cluster (PostgreSQL) follow every change live (the latency of each delta is printed),
//! control is given and taken back, an edit without control is refused and changes nothing, a
//! restart keeps the tree, cursor, control and chat; hostile requests (unknown room, no control,
//! chat flood, oversize messages) get a 4xx with a code and change nothing; a finished game
//! opens one room for both players.

mod common;

use common::accounts::{ask, call, get, next_of, signup, uniq, ws, Session, Ws};
use common::{databases, Server};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// A record with a variation and a comment.
const SGF: &str = "(;GM[1]FF[4]SZ[9]KM[7]C[start];B[cc];W[gg](;B[cg]C[main])(;B[gc]))";

/// The PostgreSQL URL of the test script, if any.
fn postgres() -> Option<String> {
    databases().into_iter().find(|d| d != "sqlite")
}

/// Uploads `SGF` as `who` (its owner): the review's id.
async fn upload(s: &Server, who: &Session) -> String {
    let mut r = s
        .http
        .post(format!("{}/api/reviews", s.base))
        .header("content-type", "application/x-go-sgf")
        .body(SGF);
    if let Some(c) = &who.cookie {
        r = r.header("cookie", format!("baduk_session={c}"));
    }
    if let Some(t) = &who.csrf {
        r = r.header("x-csrf-token", t);
    }
    let resp = r.send().await.expect("answered");
    let st = resp.status().as_u16();
    let v: Value = resp.json().await.expect("json");
    assert_eq!(st, 201, "{v}");
    v["id"].as_str().expect("an id").to_string()
}

/// A PATCH with the session's cookie and CSRF token.
async fn patch(s: &Server, path: &str, who: &Session, body: Value) -> (u16, Value) {
    let resp = s
        .http
        .patch(format!("{}{path}", s.base))
        .header(
            "cookie",
            format!("baduk_session={}", who.cookie.as_deref().unwrap_or("")),
        )
        .header("x-csrf-token", who.csrf.as_deref().unwrap_or(""))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("answered");
    let st = resp.status().as_u16();
    (st, resp.json().await.unwrap_or(Value::Null))
}

/// The room as its holder has it now.
async fn room_now(s: &Server, id: &str, who: &Session) -> Value {
    let (st, v) = get(s, &format!("/api/reviews/{id}/room"), who).await;
    assert_eq!(st, 200, "{v}");
    v
}

/// The node after `moves` moves along the main line.
fn main_line_node(tree: &Value, moves: i64) -> i64 {
    let nodes = tree["nodes"].as_array().expect("nodes");
    let mut at = tree["root"].as_i64().unwrap_or(0);
    for _ in 0..moves {
        let n = nodes.iter().find(|n| n["id"] == at).expect("a node");
        at = n["children"][0].as_i64().expect("a child");
    }
    at
}

/// Reads a watcher's socket until `want` deltas (`op` and `cursor`) came, noting when each
/// arrived: (type, v) → instant.
async fn collect(mut w: Ws, want: usize) -> (Ws, Vec<(String, i64, Instant)>) {
    let mut got = Vec::new();
    let end = tokio::time::Instant::now() + Duration::from_secs(30);
    while got.len() < want {
        let Ok(Some(Ok(m))) = tokio::time::timeout_at(end, w.next()).await else {
            break;
        };
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            let kind = v["type"].as_str().unwrap_or("").to_string();
            if kind == "op" || kind == "cursor" {
                got.push((kind, v["v"].as_i64().unwrap_or(-1), Instant::now()));
            }
        }
    }
    (w, got)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_owner_and_three_watchers_on_two_processes_follow_control_and_a_restart() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let a = Server::start(&pg).await;
    let b = Server::start(a.hub.store.url()).await;
    let names: Vec<String> = ["own", "wa", "wb", "wc"].iter().map(|n| uniq(n)).collect();
    let owner = signup(&a, &names[0]).await;
    let w1 = signup(&a, &names[1]).await;
    let w2 = signup(&a, &names[2]).await;
    let w3 = signup(&a, &names[3]).await;
    let id = upload(&a, &owner).await;
    let path = format!("/ws/reviews/{id}");
    let mut os = ws(&a, &path, &owner).await;
    let first = next_of(&mut os, "room", 10).await;
    assert_eq!(first["owner"], names[0].as_str(), "{first}");
    assert_eq!(first["controller"], names[0].as_str());
    assert_eq!(first["you"], names[0].as_str());
    let parent = main_line_node(&first["tree"], 2);
    // One watcher on the holder's process, two on the other.
    let mut watchers = Vec::new();
    for (s, who) in [(&a, &w1), (&b, &w2), (&b, &w3)] {
        let mut w = ws(s, &path, who).await;
        let r = next_of(&mut w, "room", 10).await;
        assert_eq!(r["version"], first["version"], "{r}");
        watchers.push(w);
    }
    // Everyone counts everyone, on both processes.
    loop {
        let w = next_of(&mut os, "watchers", 10).await;
        if w["n"] == 4 {
            break;
        }
    }
    // The owner's changes: a new branch from move 2, then the cursor on it, 12 times.
    let points = [
        "A1", "B1", "C1", "D1", "E1", "F1", "H1", "J1", "A2", "B2", "D2", "E2",
    ];
    let want = points.len() * 2;
    let tasks: Vec<_> = watchers
        .into_iter()
        .map(|w| tokio::spawn(collect(w, want)))
        .collect();
    let mut sent = Vec::new();
    for (k, p) in points.iter().enumerate() {
        let t0 = Instant::now();
        let ack = ask(
            &mut os,
            json!({"id": k * 2, "op": {"op": "move", "parent": parent, "color": "B", "point": p}}),
        )
        .await;
        assert_eq!(ack["type"], "ack", "{ack}");
        sent.push(("op".to_string(), ack["version"].as_i64().unwrap(), t0));
        let node = ack["node"].as_i64().expect("the new node");
        let t1 = Instant::now();
        let ack = ask(&mut os, json!({"id": k * 2 + 1, "cursor": node})).await;
        assert_eq!(ack["type"], "ack", "{ack}");
        sent.push(("cursor".to_string(), ack["v"].as_i64().unwrap(), t1));
    }
    let mut latencies = Vec::new();
    let mut watchers = Vec::new();
    for t in tasks {
        let (w, got) = t.await.unwrap();
        assert_eq!(got.len(), want, "every watcher sees every change: {got:?}");
        for (kind, v, at) in got {
            let (_, _, t0) = sent
                .iter()
                .find(|(k, sv, _)| *k == kind && *sv == v)
                .unwrap_or_else(|| panic!("a delta nobody sent: {kind} {v}"));
            latencies.push(at.duration_since(*t0));
        }
        watchers.push(w);
    }
    latencies.sort();
    let p99 = latencies[(latencies.len() * 99).div_ceil(100) - 1];
    let under = latencies
        .iter()
        .filter(|d| **d < Duration::from_millis(100))
        .count();
    println!(
        "review room: {} deltas to 3 watchers on 2 processes, p50 {:?}, p99 {:?}, {under} under 100 ms",
        latencies.len(),
        latencies[latencies.len() / 2],
        p99
    );
    assert_eq!(latencies.len(), want * 3);

    // Control given to a watcher on the other process (asked there: forwarded to the holder).
    let (st, v) = call(
        &b,
        "POST",
        &format!("/api/reviews/{id}/control"),
        &owner,
        Some(json!({"to": names[2]})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    for w in watchers.iter_mut() {
        let c = next_of(w, "control", 10).await;
        assert_eq!(c["controller"], names[2].as_str());
    }
    let ack = ask(&mut watchers[1], json!({"id": 1, "cursor": parent})).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    // The owner's socket still holds its own earlier deltas: the newest cursor is the one.
    let v = ack["v"].as_i64().unwrap();
    loop {
        let c = next_of(&mut os, "cursor", 10).await;
        if c["v"] == v {
            assert_eq!(c["node"], parent);
            break;
        }
    }
    // A watcher without control: refused, nothing changes, the room goes on.
    let before = room_now(&a, &id, &w1).await;
    let e = ask(
        &mut watchers[0],
        json!({"id": 9, "op": {"op": "move", "parent": 0, "color": "B", "point": "E5"}}),
    )
    .await;
    assert_eq!(e["type"], "error", "{e}");
    assert_eq!(e["code"], "review.no_control");
    assert_eq!(e["id"], 9);
    let (st, v) = call(
        &b,
        "POST",
        &format!("/api/reviews/{id}/cursor"),
        &w3,
        Some(json!({"node": 0})),
    )
    .await;
    assert_eq!((st, v["code"].as_str()), (403, Some("review.no_control")));
    let after = room_now(&b, &id, &w1).await;
    assert_eq!(before["version"], after["version"]);
    assert_eq!(before["cursor"], after["cursor"]);
    assert_eq!(before["tree"], after["tree"]);
    // The owner takes control back; a chat line from the other process.
    let (st, v) = call(
        &a,
        "POST",
        &format!("/api/reviews/{id}/control"),
        &owner,
        Some(json!({"to": names[0]})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let c = next_of(&mut watchers[2], "control", 10).await;
    assert_eq!(c["controller"], names[0].as_str());
    let ack = ask(&mut watchers[2], json!({"id": 3, "chat": "look at B1"})).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    let line = next_of(&mut os, "chat", 10).await;
    assert_eq!(line["line"]["text"], "look at B1");
    assert_eq!(line["line"]["name"], names[3].as_str());
    let ack = ask(&mut os, json!({"id": 100, "cursor": parent})).await;
    assert_eq!(ack["type"], "ack", "the room goes on: {ack}");
    let kept = room_now(&b, &id, &owner).await;

    // A restart: the holder leaves, a new process takes the room from the database.
    baduk_server::cluster::leave(&a.hub).await;
    let c = Server::start(a.hub.store.url()).await;
    let back = room_now(&c, &id, &owner).await;
    for k in [
        "version",
        "cursor",
        "controller",
        "owner",
        "tree",
        "title",
        "public",
    ] {
        assert_eq!(back[k], kept[k], "{k} after a restart");
    }
    assert_eq!(back["chat"][0]["text"], "look at B1");
    // The room goes on where it is held now, asked through the other process.
    let (st, v) = call(
        &b,
        "POST",
        &format!("/api/reviews/{id}/cursor"),
        &owner,
        Some(json!({"node": 0})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_room_requests_get_a_code_and_change_nothing() {
    for db in databases() {
        let s = Server::start_config(&db, |c| c.limits.chat_per_second = 1.0).await;
        let owner_name = uniq("own");
        let owner = signup(&s, &owner_name).await;
        let other = signup(&s, &uniq("oth")).await;
        let id = upload(&s, &owner).await;
        let before = room_now(&s, &id, &owner).await;
        // No such room.
        for path in ["/api/reviews/zzzzzz/room", "/api/reviews/no%20such/room"] {
            let (st, _) = get(&s, path, &owner).await;
            assert_eq!(st, 404, "{path}");
        }
        let (st, _) = call(
            &s,
            "POST",
            "/api/reviews/zzzzzz/cursor",
            &owner,
            Some(json!({"node": 0})),
        )
        .await;
        assert_eq!(st, 404);
        let r = tokio_tungstenite::connect_async(common::accounts::ws_request(
            &s,
            "/ws/reviews/zzzzzz",
            &owner,
        ))
        .await;
        assert!(r.is_err(), "no socket for an unknown room");
        // No control, not the owner, nobody by that name, no such node, bad bodies.
        let rp = |p: &str| format!("/api/reviews/{id}/{p}");
        let cases: Vec<(&Session, &str, Value, u16, &str)> = vec![
            (
                &other,
                "cursor",
                json!({"node": 1}),
                403,
                "review.no_control",
            ),
            (
                &other,
                "control",
                json!({"to": owner_name}),
                403,
                "review.not_owner",
            ),
            (
                &owner,
                "control",
                json!({"to": "nobody-by-this-name"}),
                404,
                "review.no_account",
            ),
            (
                &owner,
                "cursor",
                json!({"node": 99999}),
                404,
                "review.no_node",
            ),
            (&owner, "cursor", json!({"node": "x"}), 400, "bad_request"),
            (
                &owner,
                "cursor",
                json!({"node": 1, "more": 1}),
                400,
                "bad_request",
            ),
            (
                &owner,
                "chat",
                json!({"text": "가".repeat(501)}),
                400,
                "chat.long",
            ),
            (
                &owner,
                "chat",
                json!({"text": " \u{202E} "}),
                400,
                "chat.empty",
            ),
        ];
        for (who, p, body, status, code) in cases {
            let (st, v) = call(&s, "POST", &rp(p), who, Some(body.clone())).await;
            assert_eq!(
                (st, v["code"].as_str()),
                (status, Some(code)),
                "{p} {body}: {v}"
            );
        }
        let (st, _) = call(
            &s,
            "POST",
            &rp("cursor"),
            &Session::default(),
            Some(json!({"node": 0})),
        )
        .await;
        assert_eq!(st, 401, "a stranger without a session");
        let (st, v) = patch(
            &s,
            &format!("/api/reviews/{id}"),
            &other,
            json!({"public": true}),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (403, Some("review.not_owner")));
        let (st, v) = patch(
            &s,
            &format!("/api/reviews/{id}"),
            &owner,
            json!({"title": "t".repeat(101)}),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (400, Some("review.title")));
        // Chat flood: a burst passes, then 429 with the budget's code.
        let mut refused = None;
        for k in 0..20 {
            let (st, v) = call(
                &s,
                "POST",
                &rp("chat"),
                &other,
                Some(json!({"text": format!("hi {k}")})),
            )
            .await;
            if st != 201 {
                refused = Some((st, v));
                break;
            }
        }
        let (st, v) = refused.expect("the chat's rate limit holds");
        assert_eq!(st, 429, "{v}");
        assert!(
            v["code"].as_str().is_some_and(|c| c.starts_with("limit")),
            "{v}"
        );
        // Over the socket: oversize and malformed messages get an error; the socket stays.
        let mut w = ws(&s, &format!("/ws/reviews/{id}"), &other).await;
        next_of(&mut w, "room", 10).await;
        let big = json!({"id": 1, "chat": "x".repeat(40 * 1024)});
        let e = ask(&mut w, big).await;
        assert_eq!(e["code"], "review.message_size", "{e}");
        let e = ask(&mut w, json!({"id": 2, "nonsense": true})).await;
        assert_eq!(e["code"], "review.message", "{e}");
        let e = ask(&mut w, json!({"id": 3, "cursor": 1, "chat": "both"})).await;
        assert_eq!(e["code"], "review.message", "{e}");
        let e = ask(
            &mut w,
            json!({"id": 4, "op": {"op": "move", "parent": 0, "color": "B", "point": "E5"}}),
        )
        .await;
        assert_eq!(
            (e["code"].as_str(), e["id"].as_i64()),
            (Some("review.no_control"), Some(4))
        );
        w.send(Message::Text(json!({"type": "ping"}).to_string().into()))
            .await
            .unwrap();
        next_of(&mut w, "pong", 5).await;
        // A frame past the socket's limit closes that socket only.
        let _ = w.send(Message::Text("x".repeat(100 * 1024).into())).await;
        let after = room_now(&s, &id, &owner).await;
        for k in ["version", "cursor", "controller", "title", "public", "tree"] {
            assert_eq!(after[k], before[k], "{k} changed on {db}");
        }
        let chat = after["chat"].as_array().unwrap();
        assert!(chat
            .iter()
            .all(|l| l["text"].as_str().unwrap().starts_with("hi ")));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_opens_one_public_room_that_its_watchers_are_offered() {
    let s = Server::start("sqlite").await;
    let (game, _, player) =
        common::accounts::guest_resigns_to_the_bot_then_signs_up(&s, "level=1", &uniq("pl")).await;
    let mut watcher = s.watch(&game).await;
    let other = signup(&s, &uniq("ob")).await;
    let (st, v) = call(
        &s,
        "POST",
        &format!("/api/games/{game}/review"),
        &player,
        None,
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let offer = watcher.next_of("review").await;
    assert_eq!(offer["id"], id.as_str());
    // Anyone else asking for the same game at the same version lands in the same room.
    let (st, v) = call(
        &s,
        "POST",
        &format!("/api/games/{game}/review"),
        &other,
        None,
    )
    .await;
    assert_eq!((st, v["id"].as_str()), (200, Some(id.as_str())), "{v}");
    let room = room_now(&s, &id, &other).await;
    assert_eq!(room["public"], true);
    assert_eq!(room["source_game"], game.as_str());
    let (st, list) = get(&s, "/api/review-rooms", &other).await;
    assert_eq!(st, 200);
    assert!(list["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == id.as_str()));
    // A game still played: 409.
    let (st, g) = call(
        &s,
        "POST",
        "/api/games",
        &other,
        Some(json!({"game": "go", "size": 9,
            "seats": {"white": {"kind": "bot", "bot": "baduk", "options": "level=1"}}})),
    )
    .await;
    assert_eq!(st, 201, "{g}");
    let running = g["id"].as_str().unwrap();
    let (st, v) = call(
        &s,
        "POST",
        &format!("/api/games/{running}/review"),
        &other,
        None,
    )
    .await;
    assert_eq!((st, v["code"].as_str()), (409, Some("review.game_running")));
    // Someone else's copy of the room: a new review they own.
    let (st, v) = call(&s, "POST", &format!("/api/reviews/{id}/fork"), &other, None).await;
    assert_eq!(st, 201, "{v}");
    let copy = v["id"].as_str().unwrap();
    let mine = room_now(&s, copy, &other).await;
    assert_eq!(mine["tree"]["nodes"], room["tree"]["nodes"]);
    assert_ne!(mine["owner"], room["owner"]);
}
