//! Players over real HTTP and WebSocket, on SQLite and on PostgreSQL (issue 21): accounts,
//! sessions and CSRF, guests upgraded keeping their games, API tokens, seeks paired once (two
//! processes racing on PostgreSQL), the bot offered after the wait, a rated game moving both
//! ratings as Glicko-2 says, and chat escaped, private and limited.

mod common;

use common::accounts::{
    call, get, next_of, send, session_of, signup, uniq, ws, wsend, Session, Ws,
};
use common::{databases, Server};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn sign_up_in_and_out_and_a_stolen_cookie_is_refused_after_sign_out() {
    for db in databases() {
        let s = Server::start(&db).await;
        let name = uniq("alice");
        let (st, set, v) = send(
            &s,
            "POST",
            "/api/auth/signup",
            &Session::default(),
            None,
            Some(json!({"username": name, "password": "tengen-hoshi-komoku"})),
        )
        .await;
        assert_eq!(st, 201, "{v}");
        let cookie = set.clone().unwrap();
        assert!(
            cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
            "{cookie}"
        );
        assert!(!cookie.contains("Secure"), "no TLS here: {cookie}");
        let alice = session_of(set, &v);
        let (st, me) = get(&s, "/api/me", &alice).await;
        assert_eq!(
            (st, me["account"]["name"].as_str()),
            (200, Some(name.as_str()))
        );
        assert_eq!(me["csrf"], v["csrf"]);

        // The same name in another case or in full-width letters is taken.
        for other in [
            name.to_uppercase(),
            name.chars()
                .map(|c| {
                    if c.is_ascii_lowercase() {
                        char::from_u32(c as u32 - 0x61 + 0xFF41).unwrap()
                    } else {
                        c
                    }
                })
                .collect(),
        ] {
            let (st, _, v) = send(
                &s,
                "POST",
                "/api/auth/signup",
                &Session::default(),
                None,
                Some(json!({"username": other, "password": "tengen-hoshi-komoku"})),
            )
            .await;
            assert_eq!(
                (st, v["code"].as_str()),
                (409, Some("auth.taken")),
                "{other}: {v}"
            );
        }
        // Bad names and passwords name the rule.
        for (u, p, code) in [
            ("ab", "tengen-hoshi-komoku", "auth.name"),
            ("x y z", "tengen-hoshi-komoku", "auth.name"),
            ("bobbybob", "short", "auth.password_short"),
            ("bobbybob", "password", "auth.password_common"),
            ("bobbybob", "12345678", "auth.password_common"),
        ] {
            let (st, _, v) = send(
                &s,
                "POST",
                "/api/auth/signup",
                &Session::default(),
                None,
                Some(json!({"username": u, "password": p})),
            )
            .await;
            assert_eq!((st, v["code"].as_str()), (400, Some(code)), "{u}/{p}: {v}");
        }

        // A wrong password and an unknown name get the same answer.
        let (st1, _, wrong) = send(
            &s,
            "POST",
            "/api/auth/login",
            &Session::default(),
            None,
            Some(json!({"username": name, "password": "tengen-hoshi-komokU"})),
        )
        .await;
        let (st2, _, unknown) = send(
            &s,
            "POST",
            "/api/auth/login",
            &Session::default(),
            None,
            Some(json!({"username": uniq("nobody"), "password": "tengen-hoshi-komoku"})),
        )
        .await;
        assert_eq!((st1, st2), (401, 401));
        assert_eq!(wrong, unknown);
        assert_eq!(wrong["code"], "auth.wrong");

        // A second device signs in; signing out the first ends only the first.
        let (st, set, v) = send(
            &s,
            "POST",
            "/api/auth/login",
            &Session::default(),
            None,
            Some(json!({"username": name.to_uppercase(), "password": "tengen-hoshi-komoku"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        let phone = session_of(set, &v);
        let (st, _) = call(&s, "POST", "/api/auth/logout", &alice, None).await;
        assert_eq!(st, 200);
        let (st, v) = get(&s, "/api/me", &alice).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (401, Some("auth.ended")),
            "stolen cookie: {v}"
        );
        let (st, v) = call(
            &s,
            "POST",
            "/api/games",
            &alice,
            Some(json!({"game": "go", "size": 9})),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (401, Some("auth.ended")), "{v}");
        assert_eq!(get(&s, "/api/me", &phone).await.0, 200);
        // Sign out everywhere.
        assert_eq!(
            call(&s, "POST", "/api/auth/logout-all", &phone, None)
                .await
                .0,
            200
        );
        assert_eq!(get(&s, "/api/me", &phone).await.0, 401);
    }
}

#[tokio::test]
async fn a_state_change_with_the_cookie_needs_its_csrf_token_and_changes_nothing_without() {
    for db in databases() {
        let s = Server::start(&db).await;
        let name = uniq("csrf");
        let who = signup(&s, &name).await;
        let before = s.get("/api/games?status=open&limit=200").await.1["games"]
            .as_array()
            .unwrap()
            .len();
        let body = Some(json!({"game": "go", "size": 9}));
        let (st, _, v) = send(&s, "POST", "/api/games", &who, None, body.clone()).await;
        assert_eq!((st, v["code"].as_str()), (403, Some("auth.csrf")), "{v}");
        let (st, _, v) = send(
            &s,
            "POST",
            "/api/games",
            &who,
            Some("0".repeat(64).as_str()),
            body.clone(),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (403, Some("auth.csrf")), "{v}");
        let after = s.get("/api/games?status=open&limit=200").await.1["games"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(before, after, "nothing was created");
        // A token from an earlier sign-in is not accepted again.
        let old = who.csrf.clone().unwrap();
        let (_, set, v) = send(
            &s,
            "POST",
            "/api/auth/login",
            &who,
            Some(&old),
            Some(json!({"username": name, "password": "tengen-hoshi-komoku"})),
        )
        .await;
        let fresh = session_of(set, &v);
        assert_ne!(fresh.csrf.as_deref(), Some(old.as_str()));
        let (st, _, v) = send(&s, "POST", "/api/games", &fresh, Some(&old), body.clone()).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("auth.csrf")),
            "replayed: {v}"
        );
        // With its own token it works, and the creator holds the first human seat.
        let (st, v) = call(
            &s,
            "POST",
            "/api/games",
            &fresh,
            Some(json!({"game": "go", "size": 9, "seats": {"white": {"kind": "open"}}})),
        )
        .await;
        assert_eq!(st, 201, "{v}");
        let id = v["id"].as_str().unwrap();
        let (_, state) = get(&s, &format!("/api/games/{id}"), &fresh).await;
        assert_eq!(state["you"], "black");
        assert_eq!(state["seats"]["black"]["player"]["name"], json!(name));
        // A seat token needs no CSRF token (it is no cookie).
        let (st, v) = s
            .act(id, v["seats"]["black"]["token"].as_str().unwrap(), "E5")
            .await;
        assert_eq!(st, 200, "a seat token acts without the CSRF token: {v}");
    }
}

#[tokio::test]
async fn a_guest_who_signs_up_keeps_its_games_and_api_tokens_work_until_revoked() {
    for db in databases() {
        let s = Server::start(&db).await;
        let name = uniq("carol");
        let (id, _, carol) =
            common::accounts::guest_resigns_to_the_bot_then_signs_up(&s, "level=1", &name).await;
        let (st, p) = get(&s, &format!("/api/players/{name}"), &Session::default()).await;
        assert_eq!(st, 200, "{p}");
        assert!(
            p["games"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g["id"] == json!(id)),
            "{p}"
        );
        assert_eq!(p["opponents"][0]["losses"], 1, "{p}");
        let (st, sgf) = get(
            &s,
            &format!("/api/players/{name}/games.sgf"),
            &Session::default(),
        )
        .await;
        assert_eq!(st, 200);
        let sgf = sgf.as_str().unwrap().to_string();
        assert!(
            sgf.starts_with("(;") && sgf.contains(&format!("PB[{name}]")),
            "{sgf}"
        );
        // API tokens.
        let (st, t) = call(
            &s,
            "POST",
            "/api/tokens",
            &carol,
            Some(json!({"label": "my bot"})),
        )
        .await;
        assert_eq!(st, 201, "{t}");
        let token = t["token"].as_str().unwrap().to_string();
        assert!(token.starts_with("bdk_"));
        let me = s
            .http
            .get(format!("{}/api/me", s.base))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(me.status().as_u16(), 200);
        let (st, _) = call(
            &s,
            "DELETE",
            &format!("/api/tokens/{}", t["id"].as_str().unwrap()),
            &carol,
            None,
        )
        .await;
        assert_eq!(st, 200);
        let me = s
            .http
            .get(format!("{}/api/me", s.base))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(me.status().as_u16(), 401);
        // Guests have no profile page.
        let (_, v) = common::accounts::guest(&s).await;
        let gname = v["account"]["name"].as_str().unwrap();
        assert_eq!(
            get(&s, &format!("/api/players/{gname}"), &Session::default())
                .await
                .0,
            404
        );
    }
}

/// Seeks 9×9 rated for two fresh players; returns their sessions, names and the game.
async fn matched_pair(s: &Server, clock: &str) -> (Session, Session, String, String, Value) {
    let (a, b) = (uniq("ann"), uniq("ben"));
    let (sa, sb) = (signup(s, &a).await, signup(s, &b).await);
    let seek = json!({"game": "go", "size": 9, "clock": clock, "rated": true});
    let (st, first) = call(s, "POST", "/api/seeks", &sa, Some(seek.clone())).await;
    assert_eq!(st, 201, "{first}");
    assert!(first["game"].is_null(), "nobody to pair with yet: {first}");
    let mut wa = ws(
        s,
        &format!("/ws/seeks/{}", first["id"].as_str().unwrap()),
        &sa,
    )
    .await;
    let (st, second) = call(s, "POST", "/api/seeks", &sb, Some(seek)).await;
    assert_eq!(st, 201, "{second}");
    let game = second["game"].clone();
    assert!(game["id"].is_string(), "paired at once: {second}");
    let told = next_of(&mut wa, "matched", 10).await;
    assert_eq!(told["game"]["id"], game["id"]);
    assert_ne!(told["game"]["seat"], game["seat"]);
    (sa, sb, a, b, game)
}

#[tokio::test]
async fn two_seeks_pair_once_and_a_rated_game_moves_both_ratings_as_glicko2_says() {
    for db in databases() {
        let s = Server::start(&db).await;
        let clock = format!("byo-yomi:{}:3:30", 300 + (rand_seed() % 1000));
        let (sa, sb, a, b, game) = matched_pair(&s, &clock).await;
        let id = game["id"].as_str().unwrap();
        let state = s.state(id).await;
        assert_eq!(state["rated"], true);
        let names: Vec<&str> = ["black", "white"]
            .iter()
            .map(|c| state["seats"][c]["player"]["name"].as_str().unwrap())
            .collect();
        assert!(
            names.contains(&a.as_str()) && names.contains(&b.as_str()),
            "{state}"
        );
        // The open seeks are gone.
        let (_, seeks) = get(&s, "/api/seeks", &Session::default()).await;
        assert!(!seeks["seeks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["player"] == json!(a) || x["player"] == json!(b)));
        // Two moves each (fewer leave a rated game unrated), then Black resigns: White wins.
        let black = if names[0] == a { &sa } else { &sb };
        let white = if names[0] == a { &sb } else { &sa };
        for (who, mv) in [(black, "C3"), (white, "G7"), (black, "C7"), (white, "G3")] {
            play(&s, id, who, mv).await;
        }
        play(&s, id, black, "resign").await;
        let new = baduk_rating::Rating::default();
        let cfg = baduk_rating::Config::default();
        let win = new.update(
            &[baduk_rating::Game {
                opponent: new,
                score: 1.0,
            }],
            &cfg,
        );
        let loss = new.update(
            &[baduk_rating::Game {
                opponent: new,
                score: 0.0,
            }],
            &cfg,
        );
        for (name, want) in [(names[0], loss), (names[1], win)] {
            let (_, p) = get(&s, &format!("/api/players/{name}"), &Session::default()).await;
            let r = &p["ratings"]["go-small"];
            assert_eq!(r["rating"], json!(want.rating.round()), "{name}: {p}");
            assert_eq!(r["deviation"], json!(want.deviation.round()), "{name}: {p}");
            assert_eq!(r["games"], 1);
            assert_eq!(p["history"]["go-small"][0]["game"], json!(id));
        }
        let after = s.state(id).await;
        assert_eq!(
            after["rating_changes"]["white"]["after"],
            json!(win.rating.round()),
            "{after}"
        );
        assert_eq!(after["rating_changes"]["black"]["before"], json!(1500.0));
        assert_eq!(after["aborted"], false, "two moves each: it counts");
    }
}

#[tokio::test]
async fn a_rated_game_resigned_before_two_moves_each_says_it_is_aborted() {
    for db in databases() {
        let s = Server::start(&db).await;
        let clock = format!("byo-yomi:{}:3:30", 300 + (rand_seed() % 1000));
        let (sa, sb, a, _, game) = matched_pair(&s, &clock).await;
        let id = game["id"].as_str().unwrap();
        let state = s.state(id).await;
        assert_eq!(
            (&state["rated"], &state["aborted"]),
            (&json!(true), &json!(false))
        );
        let black = if state["seats"]["black"]["player"]["name"] == json!(a) {
            &sa
        } else {
            &sb
        };
        play(&s, id, black, "resign").await;
        // Over before two moves each: rated as created, but aborted, and no rating moved.
        let after = s.state(id).await;
        assert_eq!(
            (&after["rated"], &after["aborted"]),
            (&json!(true), &json!(true)),
            "{after}"
        );
        let (_, list) = get(
            &s,
            "/api/games?status=finished&limit=50",
            &Session::default(),
        )
        .await;
        let row = list["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == json!(id))
            .cloned();
        assert_eq!(
            row.as_ref().map(|g| &g["aborted"]),
            Some(&json!(true)),
            "{list}"
        );
        let (_, p) = get(&s, &format!("/api/players/{a}"), &Session::default()).await;
        let games = p["ratings"]["go-small"]["games"].as_i64().unwrap_or(0);
        assert_eq!(games, 0, "no rated game counted: {p}");
    }
}

/// Plays `action` in game `id` as the session's seat, which must take it.
async fn play(s: &Server, id: &str, who: &Session, action: &str) {
    let path = format!("/api/games/{id}/actions");
    let (st, v) = call(s, "POST", &path, who, Some(json!({ "action": action }))).await;
    assert_eq!(st, 200, "{action}: {v}");
}

fn rand_seed() -> u64 {
    baduk_server::game::room::seed_of(&baduk_server::game::hub::new_id())
}

#[tokio::test]
async fn a_seek_nobody_takes_is_offered_the_closest_bot_and_vanishes_with_its_socket() {
    for db in databases() {
        let s = Server::start_config(&db, |c| {
            c.limits.seek_bot_after = Duration::from_millis(1500);
        })
        .await;
        let name = uniq("dora");
        let me = signup(&s, &name).await;
        let seek = json!({"game": "go", "size": 9, "clock": format!("absolute:{}", 700 + rand_seed() % 1000), "rated": true});
        let (st, v) = call(&s, "POST", "/api/seeks", &me, Some(seek.clone())).await;
        assert_eq!(st, 201, "{v}");
        let mut w = ws(&s, &format!("/ws/seeks/{}", v["id"].as_str().unwrap()), &me).await;
        let offer = next_of(&mut w, "bot_offer", 10).await;
        assert_eq!(offer["bot"], "baduk");
        assert!(offer["level"].is_u64(), "{offer}");
        wsend(&mut w, json!({"type": "accept_bot"})).await;
        let m = next_of(&mut w, "matched", 10).await;
        let state = s.state(m["game"]["id"].as_str().unwrap()).await;
        assert_eq!(state["rated"], true);
        let seat = m["game"]["seat"].as_str().unwrap();
        assert_eq!(state["seats"][seat]["player"]["name"], json!(name));
        let other = if seat == "black" { "white" } else { "black" };
        assert_eq!(state["seats"][other]["bot"], "baduk");

        // A second seek whose socket closes is dropped.
        let (_, v) = call(&s, "POST", "/api/seeks", &me, Some(seek)).await;
        let sid = v["id"].as_str().unwrap().to_string();
        let mut w = ws(&s, &format!("/ws/seeks/{sid}"), &me).await;
        let (_, list) = get(&s, "/api/seeks", &Session::default()).await;
        assert!(list["seeks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["id"] == json!(sid)));
        w.close(None).await.unwrap();
        let end = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let (_, list) = get(&s, "/api/seeks", &Session::default()).await;
            if !list["seeks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["id"] == json!(sid))
            {
                break;
            }
            assert!(
                std::time::Instant::now() < end,
                "the seek outlived its socket"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Malformed seeks name the problem.
        for (body, code) in [
            (json!({"game": "go", "size": 10}), "seek.size"),
            (
                json!({"game": "go", "size": 9, "range": [1800, 1200]}),
                "seek.range",
            ),
        ] {
            let (st, v) = call(&s, "POST", "/api/seeks", &me, Some(body)).await;
            assert_eq!((st, v["code"].as_str()), (400, Some(code)), "{v}");
        }
        let (st, _, v) = send(
            &s,
            "POST",
            "/api/seeks",
            &Session::default(),
            None,
            Some(json!({"game": "go"})),
        )
        .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (401, Some("auth.required")),
            "{v}"
        );
    }
}

#[tokio::test]
async fn chat_is_plain_text_private_to_the_players_and_limited() {
    for db in databases() {
        let s = Server::start_config(&db, |c| c.limits.chat_per_second = 1.0).await;
        let (sa, sb, a, _b, game) =
            matched_pair(&s, &format!("absolute:{}", 2000 + rand_seed() % 1000)).await;
        let id = game["id"].as_str().unwrap();
        let spectator = signup(&s, &uniq("eve")).await;
        let mut pa = ws(&s, &format!("/ws/games/{id}"), &sa).await;
        let mut pb = ws(&s, &format!("/ws/games/{id}"), &sb).await;
        let mut sp = ws(&s, &format!("/ws/games/{id}"), &spectator).await;
        for w in [&mut pa, &mut pb, &mut sp] {
            next_of(w, "state", 5).await;
        }
        wsend(&mut pa, json!({"type": "chat", "channel": "players", "text": "<b>x</b><script>alert(1)</script>"})).await;
        let got = next_of(&mut pb, "chat", 5).await;
        assert_eq!(
            got["message"]["text"], "<b>x</b><script>alert(1)</script>",
            "stored and sent as plain text"
        );
        assert_eq!(got["message"]["name"], json!(a));
        wsend(
            &mut sp,
            json!({"type": "chat", "channel": "players", "text": "let me in"}),
        )
        .await;
        let refused = next_of(&mut sp, "error", 5).await;
        assert_eq!(refused["code"], "chat.channel");
        wsend(
            &mut sp,
            json!({"type": "chat", "channel": "spectators", "text": "nice move"}),
        )
        .await;
        // The players read both channels (their own message first).
        let own = next_of(&mut pa, "chat", 5).await;
        assert_eq!(own["message"]["channel"], "players");
        let seen = next_of(&mut pa, "chat", 5).await;
        assert_eq!(seen["message"]["channel"], "spectators");
        // The spectator never got the players' message: its next chat is its own.
        let own = next_of(&mut sp, "chat", 5).await;
        assert_eq!(own["message"]["text"], "nice move");
        let (_, hist) = get(&s, &format!("/api/games/{id}/chat"), &spectator).await;
        assert_eq!(hist["messages"].as_array().unwrap().len(), 1, "{hist}");
        let (_, hist) = get(&s, &format!("/api/games/{id}/chat"), &sa).await;
        assert_eq!(hist["messages"].as_array().unwrap().len(), 2, "{hist}");
        // Too long, empty, and too fast.
        wsend(
            &mut pb,
            json!({"type": "chat", "channel": "players", "text": "가".repeat(501)}),
        )
        .await;
        assert_eq!(next_of(&mut pb, "error", 5).await["code"], "chat.long");
        wsend(
            &mut pb,
            json!({"type": "chat", "channel": "players", "text": "  "}),
        )
        .await;
        assert_eq!(next_of(&mut pb, "error", 5).await["code"], "chat.empty");
        let mut limited = false;
        for i in 0..8 {
            wsend(
                &mut pb,
                json!({"type": "chat", "id": i, "channel": "spectators", "text": format!("m{i}")}),
            )
            .await;
            loop {
                let m = next_of_any(&mut pb).await;
                if m["id"] == json!(i) {
                    if m["type"] == "error" {
                        assert_eq!(m["status"], 429);
                        limited = true;
                    }
                    break;
                }
            }
        }
        assert!(limited, "the chat rate limit applies");
        // A report is stored; an anonymous watcher cannot write.
        let (st, _) = call(
            &s,
            "POST",
            &format!("/api/games/{id}/chat/1/report"),
            &spectator,
            Some(json!({"reason": "spam"})),
        )
        .await;
        assert_eq!(st, 201);
        let mut anon = ws(&s, &format!("/ws/games/{id}"), &Session::default()).await;
        next_of(&mut anon, "state", 5).await;
        wsend(
            &mut anon,
            json!({"type": "chat", "channel": "spectators", "text": "hi"}),
        )
        .await;
        assert_eq!(
            next_of(&mut anon, "error", 5).await["code"],
            "auth.required"
        );
    }
}

async fn next_of_any(w: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(5), w.next())
            .await
            .expect("a message")
            .expect("open")
            .expect("readable");
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

#[tokio::test]
async fn two_processes_racing_to_pair_the_same_seeks_make_each_pair_once() {
    let Some(pg) = databases().into_iter().find(|d| d != "sqlite") else {
        return; // PostgreSQL only: one SQLite file has one process
    };
    let one = Server::start(&pg).await;
    // The second process on the first one's database (a test's server has a schema of its own).
    let two = Server::start(one.hub.store.url()).await;
    let clock = format!("absolute:{}", 3000 + rand_seed() % 1000);
    let seek = json!({"game": "go", "size": 13, "clock": clock, "rated": false});
    let mut players = Vec::new();
    for _ in 0..16 {
        let name = uniq("race");
        players.push((name.clone(), signup(&one, &name).await));
    }
    // Every player seeks at once, half through each process.
    let mut tasks = Vec::new();
    for (i, (_, who)) in players.iter().enumerate() {
        let srv = if i % 2 == 0 { &one } else { &two };
        tasks.push(call(srv, "POST", "/api/seeks", who, Some(seek.clone())));
    }
    let answers = futures_util::future::join_all(tasks).await;
    let mut games = std::collections::BTreeSet::new();
    for (st, v) in &answers {
        assert_eq!(*st, 201, "{v}");
        if let Some(g) = v["game"]["id"].as_str() {
            games.insert(g.to_string());
        }
    }
    assert!(!games.is_empty(), "some pairs were made at once");
    // Every game has two distinct players, and nobody sits in two games.
    let mut seated = std::collections::BTreeMap::new();
    for g in &games {
        let st = one.state(g).await;
        let b = st["seats"]["black"]["player"]["name"]
            .as_str()
            .unwrap()
            .to_string();
        let w = st["seats"]["white"]["player"]["name"]
            .as_str()
            .unwrap()
            .to_string();
        assert_ne!(b, w);
        for p in [b, w] {
            assert!(
                seated.insert(p.clone(), g.clone()).is_none(),
                "{p} was matched twice"
            );
        }
    }
}

#[tokio::test]
async fn sign_in_attempts_are_limited_per_account_and_per_address() {
    for db in databases() {
        let s = Server::start_config(&db, |c| {
            c.limits.logins_per_minute = 8.0;
            c.limits.logins_per_account_minute = 3.0;
        })
        .await;
        let name = uniq("mallory");
        signup(&s, &name).await;
        let attempt = |user: String| {
            let s = &s;
            async move {
                send(
                    s,
                    "POST",
                    "/api/auth/login",
                    &Session::default(),
                    None,
                    Some(json!({"username": user, "password": "wrong-password-1"})),
                )
                .await
            }
        };
        // The account's budget: 3, then 429 whatever the password.
        for _ in 0..3 {
            assert_eq!(attempt(name.clone()).await.0, 401);
        }
        let (st, _, v) = attempt(name.clone()).await;
        assert_eq!((st, v["code"].as_str()), (429, Some("limit.rate")), "{v}");
        // The address's budget: 8 in all, whatever the names.
        let mut codes = Vec::new();
        for i in 0..6 {
            codes.push(attempt(format!("{name}{i}")).await.0);
        }
        assert!(codes.contains(&429), "{codes:?}");
    }
}

#[tokio::test]
async fn an_invite_only_game_is_not_listed_and_a_player_can_mute_the_spectators() {
    for db in databases() {
        let s = Server::start(&db).await;
        let host = signup(&s, &uniq("host")).await;
        let (st, g) = call(
            &s,
            "POST",
            "/api/games",
            &host,
            Some(json!({"game": "go", "size": 9,
            "listed": false, "seats": {"white": {"kind": "open"}}})),
        )
        .await;
        assert_eq!(st, 201, "{g}");
        let id = g["id"].as_str().unwrap().to_string();
        let open = s.get("/api/games?status=open&limit=200").await.1;
        assert!(
            !open["games"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["id"] == json!(id)),
            "{open}"
        );
        // The invited player joins as themselves, with the invite link's secret.
        let guest = signup(&s, &uniq("friend")).await;
        let (st, j) = call(
            &s,
            "POST",
            &format!("/api/games/{id}/join"),
            &guest,
            Some(json!({"seat": "white", "invite": g["invite_secret"]})),
        )
        .await;
        assert_eq!(st, 200, "{j}");
        let (_, state) = get(&s, &format!("/api/games/{id}"), &guest).await;
        assert_eq!(state["you"], "white");
        // The host mutes the spectators; a spectator's message then reaches the guest only.
        let mut hw = ws(&s, &format!("/ws/games/{id}"), &host).await;
        let mut gw = ws(&s, &format!("/ws/games/{id}"), &guest).await;
        let watcher = signup(&s, &uniq("kibitz")).await;
        let mut sw = ws(&s, &format!("/ws/games/{id}"), &watcher).await;
        for w in [&mut hw, &mut gw, &mut sw] {
            next_of(w, "state", 5).await;
        }
        wsend(
            &mut hw,
            json!({"type": "mute", "channel": "spectators", "on": true}),
        )
        .await;
        assert_eq!(next_of(&mut hw, "muted", 5).await["on"], true);
        wsend(
            &mut sw,
            json!({"type": "chat", "channel": "spectators", "text": "play tengen"}),
        )
        .await;
        assert_eq!(
            next_of(&mut gw, "chat", 5).await["message"]["text"],
            "play tengen"
        );
        wsend(
            &mut gw,
            json!({"type": "chat", "channel": "players", "text": "hello"}),
        )
        .await;
        let first = next_of(&mut hw, "chat", 5).await;
        assert_eq!(
            first["message"]["text"], "hello",
            "the muted spectators' message never came: {first}"
        );
        // Rated games need accounts: an anonymous join of a rated game's open seat is refused.
        let (st, r) = call(
            &s,
            "POST",
            "/api/games",
            &host,
            Some(json!({"game": "go", "size": 9, "rated": true,
            "seats": {"white": {"kind": "open"}}})),
        )
        .await;
        assert_eq!(st, 201, "{r}");
        let (st, v) = s
            .post(
                &format!("/api/games/{}/join", r["id"].as_str().unwrap()),
                None,
                &json!({"seat": "white"}).to_string(),
            )
            .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (401, Some("auth.required")),
            "{v}"
        );
        let (st, v) = call(
            &s,
            "POST",
            "/api/games",
            &host,
            Some(json!({"game": "go", "size": 7, "rated": true})),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (400, Some("rated.kind")), "{v}");
    }
}
