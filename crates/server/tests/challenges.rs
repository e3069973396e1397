//! Challenges over real HTTP, on SQLite and on PostgreSQL: a named challenge accepted is a game
//! both are seated in with the colours and settings asked; decline with a reason and the
//! cooldown after it; cancel; the open challenge by link; the rematch with colours swapped; the
//! caps; every refusal by its code (a missing account, oneself, a guest, an offline bot, a bot
//! whose accepts refuse the settings, a token without the scope); the account's NDJSON event
//! stream (what is open first, then live events) and the lobby socket's challenges.

mod common;

use common::accounts::{call, get, next_of, send, session_of, signup, uniq, ws, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use std::time::Duration;

/// A named account: its session and its name.
async fn player(s: &Server, base: &str) -> (Session, String) {
    let name = uniq(base);
    (signup(s, &name).await, name)
}

/// `POST /api/challenges` with the session.
async fn challenge(s: &Server, who: &Session, body: Value) -> (u16, Value) {
    call(s, "POST", "/api/challenges", who, Some(body)).await
}

/// A challenge that must be made; its id.
async fn made(s: &Server, who: &Session, body: Value) -> String {
    let (st, v) = challenge(s, who, body.clone()).await;
    assert_eq!(st, 201, "{body}: {v}");
    assert_eq!(v["challenge"]["status"], "open", "{v}");
    assert_eq!(v["id"], v["challenge"]["id"]);
    v["id"].as_str().unwrap().to_string()
}

async fn answer(
    s: &Server,
    who: &Session,
    id: &str,
    what: &str,
    body: Option<Value>,
) -> (u16, Value) {
    call(
        s,
        "POST",
        &format!("/api/challenges/{id}/{what}"),
        who,
        body,
    )
    .await
}

fn code(v: &Value) -> &str {
    v["code"].as_str().unwrap_or("")
}

/// SQL on the test server's database (what only the database can set: a bot account, a
/// challenge's lapse).
async fn sql(s: &Server, q: &str, binds: &[&str]) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(s.hub.store.url())
        .await
        .expect("the database opens");
    let mut query = sqlx::query(q);
    for b in binds {
        query = query.bind(b.to_string());
    }
    query.execute(&pool).await.expect("the statement runs");
    pool.close().await;
}

/// Makes `name` a bot account that accepts `accepts` (None: it said nothing).
async fn make_bot(s: &Server, name: &str, accepts: Option<&str>) {
    match accepts {
        Some(a) => {
            sql(
                s,
                "UPDATE accounts SET bot = 1, bot_accepts = $1 WHERE name = $2",
                &[a, name],
            )
            .await
        }
        None => sql(s, "UPDATE accounts SET bot = 1 WHERE name = $1", &[name]).await,
    }
}

/// An open `GET /api/stream/events`, read line by line.
struct Stream {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Stream {
    async fn open(s: &Server, who: &Session) -> Result<Stream, (u16, Value)> {
        let mut r = s.http.get(format!("{}/api/stream/events", s.base));
        if let Some(c) = &who.cookie {
            r = r.header("cookie", format!("baduk_session={c}"));
        }
        let resp = r.send().await.expect("answered");
        if resp.status() != 200 {
            let st = resp.status().as_u16();
            let v = resp.json().await.unwrap_or(Value::Null);
            return Err((st, v));
        }
        assert_eq!(
            resp.headers()["content-type"].to_str().unwrap(),
            "application/x-ndjson"
        );
        Ok(Stream {
            resp,
            buf: Vec::new(),
        })
    }

    /// The next JSON line (empty keep-alive lines skipped), within 10 s.
    async fn next(&mut self) -> Value {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = String::from_utf8(line).unwrap();
                if text.trim().is_empty() {
                    continue;
                }
                return serde_json::from_str(&text).expect("a JSON line");
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.resp.chunk())
                .await
                .expect("a line within 10 s")
                .expect("readable")
                .expect("still open");
            self.buf.extend_from_slice(&chunk);
        }
    }
}

#[tokio::test]
async fn a_named_challenge_accepted_is_a_game_both_are_seated_in_as_asked() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, alice_name) = player(&s, "alice").await;
        let (bob, bob_name) = player(&s, "bob").await;
        let (carol, _) = player(&s, "carol").await;
        let id = made(
            &s,
            &alice,
            json!({"to": bob_name, "game": "go", "size": 9, "komi": 0.5, "rules": "chinese",
                "clock": "byo-yomi:600:5:30", "colour": "white", "rated": false}),
        )
        .await;
        let (_, v) = get(&s, &format!("/api/challenges/{id}"), &Session::default()).await;
        let c = &v["challenge"];
        assert_eq!(c["url"], format!("/c/{id}"));
        assert_eq!(c["challenger"]["name"], alice_name.as_str());
        assert_eq!(c["to"]["name"], bob_name.as_str());
        assert_eq!(c["to"]["bot"], false);
        assert_eq!(c["colour"], "white");
        assert_eq!(
            c["settings"],
            json!({"game": "go", "size": 9, "rules": "chinese", "komi": 0.5, "handicap": 0,
                "clock": "byo-yomi:600:5:30", "rated": false})
        );
        let (_, mine) = get(&s, "/api/challenges", &bob).await;
        assert_eq!(mine["incoming"][0]["id"], id.as_str(), "{mine}");
        assert_eq!(mine["outgoing"], json!([]));
        let (_, theirs) = get(&s, "/api/challenges", &alice).await;
        assert_eq!(theirs["outgoing"][0]["id"], id.as_str());

        // Nobody but the one challenged accepts.
        let (st, v) = answer(&s, &carol, &id, "accept", None).await;
        assert_eq!((st, code(&v)), (403, "challenge.not_yours"), "{v}");
        let (st, v) = answer(&s, &alice, &id, "accept", None).await;
        assert_eq!((st, code(&v)), (403, "challenge.not_yours"), "{v}");
        let (st, v) = answer(&s, &Session::default(), &id, "accept", None).await;
        assert_eq!(st, 401, "{v}");
        let (st, v) = answer(&s, &bob, "nosuchchallenge", "accept", None).await;
        assert_eq!((st, code(&v)), (404, "challenge.not_found"), "{v}");

        let (st, v) = answer(&s, &bob, &id, "accept", None).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["seat"], "black");
        assert_eq!(v["challenge"]["status"], "accepted");
        let game = v["game"].as_str().unwrap().to_string();
        assert_eq!(v["challenge"]["game"], game.as_str());
        let g = s.state(&game).await;
        assert_eq!(g["status"], "live", "{g}");
        assert_eq!(g["seats"]["black"]["player"]["name"], bob_name.as_str());
        assert_eq!(g["seats"]["white"]["player"]["name"], alice_name.as_str());
        assert_eq!(g["seats"]["black"]["joined"], true);
        assert_eq!(g["seats"]["white"]["joined"], true);
        assert_eq!(
            (g["size"]["cols"].as_u64(), g["komi"].as_f64()),
            (Some(9), Some(0.5)),
            "{g}"
        );
        let rules = g["rules"].as_str().unwrap();
        assert!(
            rules.starts_with("chinese") && rules.contains("byo-yomi:600:5:30"),
            "{g}"
        );
        // Each plays with its cookie: Black (Bob) first.
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{game}/actions"),
            &alice,
            Some(json!({"action": "E5"})),
        )
        .await;
        assert_ne!(st, 200, "not White's turn: {v}");
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{game}/actions"),
            &bob,
            Some(json!({"action": "E5"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");

        // Answered once: a second accept, a decline or a cancel finds it closed.
        let (st, v) = answer(&s, &bob, &id, "accept", None).await;
        assert_eq!((st, code(&v)), (409, "challenge.not_open"), "{v}");
        let (st, v) = answer(&s, &alice, &id, "cancel", None).await;
        assert_eq!((st, code(&v)), (409, "challenge.not_open"), "{v}");
        let (_, v) = get(&s, "/api/challenges", &bob).await;
        assert_eq!(v["incoming"], json!([]));
    }
}

#[tokio::test]
async fn a_decline_gives_its_reason_and_holds_the_challenger_off_that_player() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, alice_name) = player(&s, "alice").await;
        let (bob, bob_name) = player(&s, "bob").await;
        let (_carol, carol_name) = player(&s, "carol").await;
        let id = made(&s, &alice, json!({"to": bob_name, "size": 19})).await;
        // Only the one challenged declines, with a known reason and a short text.
        let (st, v) = answer(&s, &alice, &id, "decline", None).await;
        assert_eq!((st, code(&v)), (403, "challenge.not_yours"), "{v}");
        let (st, v) = answer(&s, &bob, &id, "decline", Some(json!({"reason": "because"}))).await;
        assert_eq!((st, code(&v)), (400, "challenge.reason"), "{v}");
        let long = "x".repeat(201);
        let (st, v) = answer(
            &s,
            &bob,
            &id,
            "decline",
            Some(json!({"reason": "later", "text": long})),
        )
        .await;
        assert_eq!((st, code(&v)), (400, "challenge.reason"), "{v}");
        let (st, v) = answer(
            &s,
            &bob,
            &id,
            "decline",
            Some(json!({"reason": "too_slow", "text": "a faster clock?"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["challenge"]["status"], "declined");
        assert_eq!(
            v["challenge"]["reason"],
            json!({"code": "too_slow", "text": "a faster clock?"})
        );
        let (_, v) = get(&s, &format!("/api/challenges/{id}"), &alice).await;
        assert_eq!(v["challenge"]["reason"]["code"], "too_slow");
        let created = v["challenge"]["created_at"].as_i64().unwrap();

        // Alice may not ask Bob again for a while; others, and Bob her, yes.
        let (st, v) = challenge(&s, &alice, json!({"to": bob_name})).await;
        assert_eq!((st, code(&v)), (429, "challenge.cooldown"), "{v}");
        assert!(v["args"]["until"].as_i64().unwrap() > created, "{v}");
        made(&s, &alice, json!({"to": carol_name})).await;
        made(&s, &bob, json!({"to": alice_name})).await;
        // A decline with no body says `generic`.
        let id = made(&s, &alice, json!({"to": carol_name, "size": 9})).await;
        let carol_session = {
            let (st, set, v) = send(
                &s,
                "POST",
                "/api/auth/login",
                &Session::default(),
                None,
                Some(json!({"username": carol_name, "password": "tengen-hoshi-komoku"})),
            )
            .await;
            assert_eq!(st, 200, "{v}");
            session_of(set, &v)
        };
        let (st, v) = answer(&s, &carol_session, &id, "decline", None).await;
        assert_eq!(
            (st, v["challenge"]["reason"]["code"].as_str()),
            (200, Some("generic")),
            "{v}"
        );
    }
}

#[tokio::test]
async fn only_the_challenger_cancels_and_a_cancelled_challenge_cannot_be_accepted() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, _) = player(&s, "alice").await;
        let (bob, bob_name) = player(&s, "bob").await;
        let id = made(&s, &alice, json!({"to": bob_name})).await;
        let (st, v) = answer(&s, &bob, &id, "cancel", None).await;
        assert_eq!((st, code(&v)), (403, "challenge.not_yours"), "{v}");
        let (st, v) = answer(&s, &alice, &id, "cancel", None).await;
        assert_eq!(
            (st, v["challenge"]["status"].as_str()),
            (200, Some("canceled")),
            "{v}"
        );
        let (st, v) = answer(&s, &bob, &id, "accept", None).await;
        assert_eq!((st, code(&v)), (409, "challenge.not_open"), "{v}");
        assert_eq!(v["args"]["status"], "canceled");
        let (_, v) = get(&s, "/api/challenges", &bob).await;
        assert_eq!(v["incoming"], json!([]));
    }
}

#[tokio::test]
async fn an_open_challenge_by_link_is_taken_by_anyone_signed_in_but_its_maker() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, alice_name) = player(&s, "alice").await;
        let (dave, dave_name) = player(&s, "dave").await;
        let (carol, _) = player(&s, "carol").await;
        let id = made(
            &s,
            &alice,
            json!({"to": null, "size": 13, "colour": "random"}),
        )
        .await;
        let (_, v) = get(&s, &format!("/api/challenges/{id}"), &Session::default()).await;
        assert_eq!(v["challenge"]["to"], Value::Null, "{v}");
        let (st, v) = answer(&s, &alice, &id, "accept", None).await;
        assert_eq!((st, code(&v)), (422, "challenge.self"), "{v}");
        let (st, v) = answer(&s, &Session::default(), &id, "accept", None).await;
        assert_eq!(st, 401, "{v}");
        let (st, set, g) = send(
            &s,
            "POST",
            "/api/auth/guest",
            &Session::default(),
            None,
            None,
        )
        .await;
        assert_eq!(st, 201, "{g}");
        let guest = session_of(set, &g);
        let (st, v) = answer(&s, &guest, &id, "accept", None).await;
        assert_eq!((st, code(&v)), (403, "challenge.guest"), "{v}");
        // Nobody declines an open challenge (its maker cancels it).
        let (st, v) = answer(&s, &dave, &id, "decline", None).await;
        assert_eq!((st, code(&v)), (403, "challenge.not_yours"), "{v}");

        let (st, v) = answer(&s, &dave, &id, "accept", None).await;
        assert_eq!(st, 200, "{v}");
        let game = v["game"].as_str().unwrap();
        let dave_seat = v["seat"].as_str().unwrap().to_string();
        let alice_seat = if dave_seat == "black" {
            "white"
        } else {
            "black"
        };
        assert_eq!(v["challenge"]["to"]["name"], dave_name.as_str());
        let g = s.state(game).await;
        assert_eq!(g["seats"][&dave_seat]["player"]["name"], dave_name.as_str());
        assert_eq!(
            g["seats"][alice_seat]["player"]["name"],
            alice_name.as_str()
        );
        assert_eq!(g["status"], "live");
        assert_eq!(g["size"]["cols"], 13);
        let (st, v) = answer(&s, &carol, &id, "accept", None).await;
        assert_eq!((st, code(&v)), (409, "challenge.not_open"), "{v}");
    }
}

#[tokio::test]
async fn a_rematch_swaps_colours_and_keeps_the_settings() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, alice_name) = player(&s, "alice").await;
        let (bob, bob_name) = player(&s, "bob").await;
        let (carol, _) = player(&s, "carol").await;
        let id = made(
            &s,
            &alice,
            json!({"to": bob_name, "size": 9, "komi": 5.5, "clock": "fischer:300:10", "colour": "black", "rated": true}),
        )
        .await;
        let (_, v) = answer(&s, &bob, &id, "accept", None).await;
        let game = v["game"].as_str().unwrap().to_string();
        // Not over yet: no rematch.
        let (st, v) = challenge(&s, &bob, json!({"rematch_of": game})).await;
        assert_eq!((st, code(&v)), (422, "challenge.rematch"), "{v}");
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{game}/actions"),
            &alice,
            Some(json!({"action": "resign"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        // Only its players ask, and only each other.
        let (st, v) = challenge(&s, &carol, json!({"rematch_of": game})).await;
        assert_eq!((st, code(&v)), (422, "challenge.rematch"), "{v}");
        let (st, v) = challenge(&s, &bob, json!({"rematch_of": game, "to": bob_name})).await;
        assert_eq!((st, code(&v)), (422, "challenge.rematch"), "{v}");
        let (st, v) = challenge(&s, &bob, json!({"rematch_of": "nosuchgame"})).await;
        assert_eq!((st, code(&v)), (422, "challenge.rematch"), "{v}");

        let (st, v) = challenge(&s, &bob, json!({"rematch_of": game})).await;
        assert_eq!(st, 201, "{v}");
        let c = &v["challenge"];
        assert_eq!(c["to"]["name"], alice_name.as_str());
        assert_eq!(c["rematch_of"], game.as_str());
        // Bob had White: now Black.
        assert_eq!(c["colour"], "black");
        assert_eq!(
            c["settings"],
            json!({"game": "go", "size": 9, "rules": "japanese", "komi": 5.5, "handicap": 0,
                "clock": "fischer:300:10", "rated": true})
        );
        let (st, v) = answer(&s, &alice, c["id"].as_str().unwrap(), "accept", None).await;
        assert_eq!((st, v["seat"].as_str()), (200, Some("white")), "{v}");
        let g = s.state(v["game"].as_str().unwrap()).await;
        assert_eq!(g["seats"]["black"]["player"]["name"], bob_name.as_str());
        assert_eq!(g["rated"], true, "{g}");
    }
}

#[tokio::test]
async fn refusals_name_why_a_challenge_cannot_be_made() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, alice_name) = player(&s, "alice").await;
        let (_bob, bob_name) = player(&s, "bob").await;
        for (body, status, want) in [
            (
                json!({"to": "nobody-here-at-all"}),
                404,
                "challenge.no_account",
            ),
            (json!({"to": "x".repeat(500)}), 404, "challenge.no_account"),
            (json!({"to": alice_name}), 422, "challenge.self"),
            (json!({"to": bob_name, "komi": 1000}), 400, "settings.komi"),
            (json!({"to": bob_name, "size": 40}), 400, "settings.size"),
            (
                json!({"to": bob_name, "handicap": 12}),
                400,
                "settings.handicap",
            ),
            (
                json!({"to": bob_name, "size": 7, "rated": true}),
                400,
                "rated.kind",
            ),
            (
                json!({"to": bob_name, "colour": "green"}),
                400,
                "challenge.colour",
            ),
        ] {
            let (st, v) = challenge(&s, &alice, body.clone()).await;
            assert_eq!((st, code(&v)), (status, want), "{body}: {v}");
        }
        for body in [
            json!({"to": bob_name, "seats": {}}),
            json!({"to": bob_name, "clock": "soon"}),
            json!([1]),
        ] {
            let (st, v) = challenge(&s, &alice, body.clone()).await;
            assert_eq!(st, 400, "{body}: {v}");
        }
        let (st, v) = challenge(&s, &Session::default(), json!({"to": bob_name})).await;
        assert_eq!(st, 401, "{v}");
        // Guests neither challenge nor are challenged.
        let (st, set, g) = send(
            &s,
            "POST",
            "/api/auth/guest",
            &Session::default(),
            None,
            None,
        )
        .await;
        assert_eq!(st, 201, "{g}");
        let guest = session_of(set, &g);
        let guest_name = g["account"]["name"].as_str().unwrap();
        let (st, v) = challenge(&s, &alice, json!({"to": guest_name})).await;
        assert_eq!((st, code(&v)), (403, "challenge.guest"), "{v}");
        let (st, v) = challenge(&s, &guest, json!({"to": bob_name})).await;
        assert_eq!((st, code(&v)), (403, "challenge.guest"), "{v}");

        // A bot: offline, then online with accepts that refuse some settings.
        let (robo, robo_name) = player(&s, "robo").await;
        make_bot(
            &s,
            &robo_name,
            Some(r#"{"games":["go"],"sizes":[9,19],"clocks":["none","byo-yomi"],"rated":"unrated","bots":false,"max_games":1}"#),
        )
        .await;
        let (st, v) = challenge(&s, &alice, json!({"to": robo_name, "size": 9})).await;
        assert_eq!((st, code(&v)), (409, "challenge.bot_offline"), "{v}");
        let mut online = Stream::open(&s, &robo)
            .await
            .expect("the bot's stream opens");
        for (body, what) in [
            (json!({"to": robo_name, "size": 13}), "size"),
            (json!({"to": robo_name, "size": [9, 19]}), "size"),
            (
                json!({"to": robo_name, "size": 9, "clock": "fischer:60:5"}),
                "clock",
            ),
            (json!({"to": robo_name, "size": 9, "rated": true}), "rated"),
            (json!({"to": robo_name, "game": "wallgo"}), "game"),
        ] {
            let (st, v) = challenge(&s, &alice, body.clone()).await;
            assert_eq!(
                (st, code(&v)),
                (422, "challenge.not_accepted"),
                "{body}: {v}"
            );
            assert_eq!(v["args"]["what"], what, "{body}: {v}");
        }
        // Another bot is refused: robo does not play bots.
        let (robo2, robo2_name) = player(&s, "robotwo").await;
        make_bot(&s, &robo2_name, Some(r#"{"bots":true,"sizes":[9]}"#)).await;
        let (st, v) = challenge(&s, &robo2, json!({"to": robo_name, "size": 9})).await;
        assert_eq!((st, v["args"]["what"].as_str()), (422, Some("bots")), "{v}");
        // What it accepts passes; it sees the challenge on its stream.
        let id = made(
            &s,
            &alice,
            json!({"to": robo_name, "size": 9, "clock": "byo-yomi:60:3:10"}),
        )
        .await;
        let ev = online.next().await;
        assert_eq!(
            (ev["type"].as_str(), ev["challenge"]["id"].as_str()),
            (Some("challenge"), Some(id.as_str())),
            "{ev}"
        );
        assert_eq!(ev["challenge"]["to"]["bot"], true);
        // Busy: one game at most, and it plays one now.
        let (st, v) = answer(&s, &robo, &id, "accept", None).await;
        assert_eq!(st, 200, "{v}");
        let (st, v) = challenge(&s, &alice, json!({"to": robo_name, "size": 9})).await;
        assert_eq!((st, v["args"]["what"].as_str()), (422, Some("busy")), "{v}");
        // A bot that said nothing accepts nothing.
        let (quiet, quiet_name) = player(&s, "quietbot").await;
        make_bot(&s, &quiet_name, None).await;
        let _stream = Stream::open(&s, &quiet).await.expect("opens");
        let (st, v) = challenge(&s, &alice, json!({"to": quiet_name, "size": 9})).await;
        assert_eq!((st, code(&v)), (422, "challenge.not_accepted"), "{v}");
    }
}

#[tokio::test]
async fn a_token_needs_the_challenge_or_bot_scope() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, _) = player(&s, "alice").await;
        let (_bob, bob_name) = player(&s, "bob").await;
        let token = |scopes: Value| {
            let (s, alice) = (&s, &alice);
            async move {
                let (st, v) = call(
                    s,
                    "POST",
                    "/api/tokens",
                    alice,
                    Some(json!({"label": "t", "scopes": scopes})),
                )
                .await;
                assert_eq!(st, 201, "{v}");
                v["token"].as_str().unwrap().to_string()
            }
        };
        let by = |t: String, method: &'static str, path: &'static str, body: Option<Value>| {
            let s = &s;
            async move {
                let url = format!("{}{path}", s.base);
                let mut r = if method == "GET" {
                    s.http.get(url)
                } else {
                    s.http.post(url)
                };
                r = r.bearer_auth(t);
                if let Some(b) = body {
                    r = r
                        .header("content-type", "application/json")
                        .body(b.to_string());
                }
                let resp = r.send().await.unwrap();
                let st = resp.status().as_u16();
                (st, resp.json::<Value>().await.unwrap_or(Value::Null))
            }
        };
        let play = token(json!(["read", "play"])).await;
        let (st, v) = by(
            play.clone(),
            "POST",
            "/api/challenges",
            Some(json!({"to": bob_name})),
        )
        .await;
        assert_eq!((st, code(&v)), (403, "auth.scope"), "{v}");
        let only_play = token(json!(["play"])).await;
        let (st, v) = by(only_play, "GET", "/api/challenges", None).await;
        assert_eq!((st, code(&v)), (403, "auth.scope"), "{v}");
        let (st, v) = by(play, "GET", "/api/challenges", None).await;
        assert_eq!(st, 200, "reading needs `read`: {v}");
        // (A `bot` token is a bot account's: tests/bot_api.rs.)
        for scope in ["challenge"] {
            let t = token(json!([scope])).await;
            let (st, v) = by(
                t.clone(),
                "POST",
                "/api/challenges",
                Some(json!({"to": bob_name})),
            )
            .await;
            assert_eq!(st, 201, "{scope}: {v}");
            let (st, v) = by(t, "GET", "/api/challenges", None).await;
            assert_eq!(st, 200, "{scope}: {v}");
        }
    }
}

#[tokio::test]
async fn open_challenges_are_capped_per_account_and_per_address_and_lapse() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, _) = player(&s, "alice").await;
        let (bob, _) = player(&s, "bob").await;
        let (carol, _) = player(&s, "carol").await;
        let mut first = String::new();
        for i in 0..10 {
            let id = made(&s, &alice, json!({"to": null})).await;
            if i == 0 {
                first = id;
            }
        }
        let (st, v) = challenge(&s, &alice, json!({"to": null})).await;
        assert_eq!((st, code(&v)), (429, "challenge.too_many"), "{v}");
        assert_eq!(v["args"], json!({"cap": 10, "per": "account"}));
        for _ in 0..10 {
            made(&s, &bob, json!({"to": null})).await;
        }
        // Twenty from this address: Carol, from the same one, waits too.
        let (st, v) = challenge(&s, &carol, json!({"to": null})).await;
        assert_eq!(
            (st, v["args"]["per"].as_str()),
            (429, Some("address")),
            "{v}"
        );
        let (st, _) = answer(&s, &alice, &first, "cancel", None).await;
        assert_eq!(st, 200);
        made(&s, &carol, json!({"to": null})).await;

        // A challenge past its time is closed: nobody accepts it, it no longer counts.
        let second = {
            let (_, v) = get(&s, "/api/challenges", &alice).await;
            v["outgoing"][0]["id"].as_str().unwrap().to_string()
        };
        sql(
            &s,
            "UPDATE challenges SET expires_at = 1 WHERE id = $1",
            &[&second],
        )
        .await;
        let (_, v) = get(&s, &format!("/api/challenges/{second}"), &alice).await;
        assert_eq!(v["challenge"]["status"], "canceled", "{v}");
        let (st, v) = answer(&s, &carol, &second, "accept", None).await;
        assert_eq!((st, code(&v)), (409, "challenge.not_open"), "{v}");
        made(&s, &alice, json!({"to": null})).await;
        baduk_server::challenges::sweep(&s.hub.store).await;
        let (_, v) = get(&s, &format!("/api/challenges/{second}"), &alice).await;
        assert_eq!(v["challenge"]["status"], "canceled", "{v}");
    }
}

#[tokio::test]
async fn the_event_stream_sends_what_is_open_then_live_events() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, alice_name) = player(&s, "alice").await;
        let (bob, bob_name) = player(&s, "bob").await;
        let (carol, _) = player(&s, "carol").await;
        let (st, _) = Stream::open(&s, &Session::default())
            .await
            .err()
            .expect("refused");
        assert_eq!(st, 401);
        let first = made(&s, &alice, json!({"to": bob_name, "size": 9})).await;

        // Bob's lobby socket: his challenges on connect, then live.
        let mut lobby = ws(&s, "/ws/lobby", &bob).await;
        let v = next_of(&mut lobby, "challenges", 10).await;
        assert_eq!(v["incoming"][0]["id"], first.as_str(), "{v}");

        let mut events = Stream::open(&s, &bob).await.expect("opens");
        let v = events.next().await;
        assert_eq!(
            (v["type"].as_str(), v["challenge"]["id"].as_str()),
            (Some("challenge"), Some(first.as_str())),
            "{v}"
        );
        let second = made(&s, &carol, json!({"to": bob_name, "size": 13})).await;
        let v = events.next().await;
        assert_eq!(
            (v["type"].as_str(), v["challenge"]["id"].as_str()),
            (Some("challenge"), Some(second.as_str())),
            "{v}"
        );
        let v = next_of(&mut lobby, "challenge", 10).await;
        assert_eq!(v["challenge"]["id"], second.as_str());

        // Carol cancels: Bob hears it.
        answer(&s, &carol, &second, "cancel", None).await;
        let v = events.next().await;
        assert_eq!(
            (v["type"].as_str(), v["challenge"]["status"].as_str()),
            (Some("challengeCanceled"), Some("canceled")),
            "{v}"
        );

        // Bob accepts Alice's: the game starts for him (and the challenge says accepted).
        let mut alices = Stream::open(&s, &alice).await.expect("opens");
        let (st, v) = answer(&s, &bob, &first, "accept", None).await;
        assert_eq!(st, 200, "{v}");
        let game = v["game"].as_str().unwrap().to_string();
        let v = events.next().await;
        assert_eq!(v["type"], "gameStart", "{v}");
        assert_eq!(v["game"]["id"], game.as_str());
        assert_eq!(v["game"]["url"], format!("/g/{game}"));
        assert_eq!(v["game"]["opponent"]["name"], alice_name.as_str());
        assert_eq!(v["game"]["settings"]["size"], 9);
        assert_eq!(v["game"]["result"], Value::Null);
        assert_eq!(
            v["game"]["status"], "live",
            "both joined from the start: {v}"
        );
        let v = events.next().await;
        assert_eq!(v["type"], "challengeAccepted", "{v}");
        let v = alices.next().await;
        assert_eq!(v["type"], "gameStart", "{v}");
        assert_eq!(v["game"]["opponent"]["name"], bob_name.as_str());

        // A new stream starts with the game under way; a resignation finishes it for both.
        let mut again = Stream::open(&s, &bob).await.expect("opens");
        let v = again.next().await;
        assert_eq!(
            (v["type"].as_str(), v["game"]["id"].as_str()),
            (Some("gameStart"), Some(game.as_str())),
            "{v}"
        );
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{game}/actions"),
            &alice,
            Some(json!({"action": "resign"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let v = again.next().await;
        assert_eq!(
            (v["type"].as_str(), v["game"]["status"].as_str()),
            (Some("gameFinish"), Some("finished")),
            "{v}"
        );
        assert!(v["game"]["result"].as_str().unwrap().contains("+R"), "{v}");

        // Four streams an account at most.
        let _third = Stream::open(&s, &bob).await.expect("opens");
        let _fourth = Stream::open(&s, &bob).await.expect("opens");
        let (st, v) = Stream::open(&s, &bob)
            .await
            .err()
            .expect("a fifth is refused");
        assert_eq!((st, code(&v)), (429, "stream.too_many"), "{v}");
    }
}

#[tokio::test]
async fn a_seat_joined_by_an_account_starts_the_game_for_both_accounts() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, _) = player(&s, "alice").await;
        let (bob, bob_name) = player(&s, "bob").await;
        let mut events = Stream::open(&s, &alice).await.expect("opens");
        let (st, g) = call(
            &s,
            "POST",
            "/api/games",
            &alice,
            Some(json!({"game": "go", "size": 9, "seats": {"white": {"kind": "open"}}})),
        )
        .await;
        assert_eq!(st, 201, "{g}");
        let id = g["id"].as_str().unwrap().to_string();
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{id}/join"),
            &bob,
            Some(json!({"seat": "white"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let v = events.next().await;
        assert_eq!(
            (v["type"].as_str(), v["game"]["id"].as_str()),
            (Some("gameStart"), Some(id.as_str())),
            "{v}"
        );
        assert_eq!(
            (
                v["game"]["seat"].as_str(),
                v["game"]["opponent"]["name"].as_str()
            ),
            (Some("black"), Some(bob_name.as_str()))
        );
    }
}

/// A challenge a stopped process left half accepted (taken, its game being made) is settled by
/// the sweep a minute later: accepted when its game exists, canceled when it does not; until
/// then it reads as open, with no game.
#[tokio::test]
async fn a_challenge_left_half_accepted_is_settled_by_the_sweep() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (alice, _) = player(&s, "alice").await;
        let (_bob, bob_name) = player(&s, "bob").await;
        let with_game = made(&s, &alice, json!({"to": bob_name})).await;
        let without = made(&s, &alice, json!({"to": null})).await;
        let (gid, _) = s.create(json!({"game": "go", "size": 9})).await;
        // Taken two minutes ago.
        let at = baduk_server::game::hub::now_ms() - 120_000;
        sql(
            &s,
            &format!("UPDATE challenges SET status = 'accepting', game_id = $1, closed_at = {at} WHERE id = $2"),
            &[&gid, &with_game],
        )
        .await;
        sql(
            &s,
            &format!("UPDATE challenges SET status = 'accepting', game_id = 'nosuchgame', closed_at = {at} WHERE id = $1"),
            &[&without],
        )
        .await;
        let (_, v) = get(&s, &format!("/api/challenges/{without}"), &alice).await;
        assert_eq!(v["challenge"]["status"], "open", "{v}");
        assert_eq!(v["challenge"]["game"], Value::Null, "{v}");
        baduk_server::challenges::sweep(&s.hub.store).await;
        let (_, v) = get(&s, &format!("/api/challenges/{with_game}"), &alice).await;
        assert_eq!(
            (
                v["challenge"]["status"].as_str(),
                v["challenge"]["game"].as_str()
            ),
            (Some("accepted"), Some(gid.as_str())),
            "{v}"
        );
        let (_, v) = get(&s, &format!("/api/challenges/{without}"), &alice).await;
        assert_eq!(v["challenge"]["status"], "canceled", "{v}");
    }
}
