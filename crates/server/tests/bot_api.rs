//! The Bot API tried as a stranger, over real HTTP: becoming a bot (one way, refused to guests and
//! to accounts rated against people), the `bot` scope (bot accounts only; a bot plays only
//! through it, never seeks, reaches no seat but its own), what a bot accepts, `GET /api/bots`,
//! the NDJSON game stream, a bot's chat and its rate, three illegal moves in a row forfeiting,
//! and the server's answer for a bot in the dead-stone phase.

use common::accounts::{call, get, send, signup, uniq, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use std::time::Duration;

mod common;

/// A request with an API token (or none): status and body.
async fn with_token(
    s: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut r = s.http.request(method, format!("{}{path}", s.base));
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let resp = r.send().await.expect("answered");
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A token of `me` holding `scopes`: the answer's status and body.
async fn make_token(s: &Server, me: &Session, scopes: Value) -> (u16, Value) {
    call(
        s,
        "POST",
        "/api/tokens",
        me,
        Some(json!({"label": "bridge", "scopes": scopes})),
    )
    .await
}

/// A new bot account: its name, its session and a `bot` token.
async fn new_bot(s: &Server) -> (String, Session, String) {
    let name = uniq("bot");
    let me = signup(s, &name).await;
    let (st, v) = call(s, "POST", "/api/account/bot", &me, None).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["account"]["bot"], true, "{v}");
    let (st, v) = make_token(s, &me, json!(["bot"])).await;
    assert_eq!(st, 201, "{v}");
    (name, me, v["token"].as_str().unwrap().to_string())
}

/// The id of account `name` (as the hub knows it).
async fn account_id(s: &Server, name: &str) -> String {
    let key = baduk_server::players::accounts::normalise_name(name)
        .unwrap()
        .1;
    let (a, _) = s.hub.store.account_by_key(&key).await.unwrap().unwrap();
    a.id
}

/// A 9×9 game `person` made as Black, with the account `bot` seated as White (as an accepted
/// challenge seats it).
async fn game_against(s: &Server, person: &Session, bot: &str, extra: Value) -> String {
    let mut body = json!({"game": "go", "size": 9, "seats": {"white": {"kind": "open"}}});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (st, v) = call(s, "POST", "/api/games", person, Some(body)).await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let key = baduk_server::players::accounts::normalise_name(bot)
        .unwrap()
        .1;
    let (a, _) = s.hub.store.account_by_key(&key).await.unwrap().unwrap();
    let p = baduk_server::players::player_of(&s.hub.store, &a, Some("go-small"))
        .await
        .unwrap();
    s.hub.join_as(&id, "white", Some(p)).await.unwrap();
    id
}

/// An action by the session's account.
async fn play(s: &Server, who: &Session, id: &str, action: &str) -> (u16, Value) {
    call(
        s,
        "POST",
        &format!("/api/games/{id}/actions"),
        who,
        Some(json!({ "action": action })),
    )
    .await
}

/// An action with an API token.
async fn play_token(s: &Server, token: &str, id: &str, action: &str) -> (u16, Value) {
    with_token(
        s,
        "POST",
        &format!("/api/games/{id}/actions"),
        Some(token),
        Some(json!({ "action": action })),
    )
    .await
}

/// An NDJSON stream being read: its lines as JSON (empty keep-alive lines left out).
struct Lines {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Lines {
    async fn open(s: &Server, path: &str, token: Option<&str>) -> Result<Lines, (u16, Value)> {
        let mut r = s.http.get(format!("{}{path}", s.base));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        let resp = r.send().await.expect("answered");
        if resp.status() != 200 {
            let st = resp.status().as_u16();
            let v = resp.json().await.unwrap_or(Value::Null);
            return Err((st, v));
        }
        assert_eq!(
            resp.headers()["content-type"],
            "application/x-ndjson",
            "the stream's type"
        );
        Ok(Lines {
            resp,
            buf: Vec::new(),
        })
    }

    /// The next line with content, or None when the stream ended.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = String::from_utf8(line).unwrap();
                if text.trim().is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&text).expect("one JSON object a line"));
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.resp.chunk())
                .await
                .expect("a line within 20 s")
                .expect("readable")?;
            self.buf.extend_from_slice(&chunk);
        }
    }

    /// The next line of `kind`.
    async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await.expect("the stream is open");
            if v["type"] == kind {
                return v;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn becoming_a_bot_is_one_way_and_refused_to_guests_tokens_and_rated_players() {
    for db in databases() {
        let s = Server::start(&db).await;
        // A guest.
        let (st, set, v) = send(
            &s,
            "POST",
            "/api/auth/guest",
            &Session::default(),
            None,
            None,
        )
        .await;
        assert_eq!(st, 201, "{v}");
        let guest = common::accounts::session_of(set, &v);
        let (st, v) = call(&s, "POST", "/api/account/bot", &guest, None).await;
        assert_eq!((st, v["code"].as_str()), (403, Some("bot.guest")), "{v}");
        // An API token, whatever its scopes, is not the session.
        let name = uniq("human");
        let me = signup(&s, &name).await;
        let (_, t) = make_token(&s, &me, json!(["read", "play", "challenge"])).await;
        let token = t["token"].as_str().unwrap();
        let (st, v) = with_token(&s, "POST", "/api/account/bot", Some(token), None).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("auth.session_only")),
            "{v}"
        );
        // Without the CSRF token.
        let (st, _, v) = send(&s, "POST", "/api/account/bot", &me, None, None).await;
        assert_eq!((st, v["code"].as_str()), (403, Some("auth.csrf")), "{v}");
        // An account with a rated game against a person stays a person.
        let other = signup(&s, &uniq("rival")).await;
        let (st, v) = call(
            &s,
            "POST",
            "/api/games",
            &me,
            Some(json!({"game": "go", "size": 9, "rated": true,
                "seats": {"white": {"kind": "open"}}})),
        )
        .await;
        assert_eq!(st, 201, "{v}");
        let id = v["id"].as_str().unwrap();
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{id}/join"),
            &other,
            Some(json!({"seat": "white"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        for who in [&me, &other] {
            let (st, v) = call(&s, "POST", "/api/account/bot", who, None).await;
            assert_eq!(
                (st, v["code"].as_str()),
                (409, Some("bot.has_games")),
                "{v}"
            );
        }
        let (_, v) = get(&s, "/api/me", &me).await;
        assert_eq!(v["account"]["bot"], false, "{v}");
        // A fresh account becomes a bot, once and for good; everybody sees it.
        let (bot, bot_session, _) = new_bot(&s).await;
        let (st, v) = call(&s, "POST", "/api/account/bot", &bot_session, None).await;
        assert_eq!((st, &v["account"]["bot"]), (200, &json!(true)), "{v}");
        let (_, v) = get(&s, "/api/me", &bot_session).await;
        assert_eq!(v["account"]["bot"], true, "{v}");
        let (st, v) = s.get(&format!("/api/players/{bot}")).await;
        assert_eq!((st, &v["bot"]), (200, &json!(true)), "{v}");
        let (_, v) = s.get(&format!("/api/players/{name}")).await;
        assert_eq!(v["bot"], false, "{v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_scope_is_a_bots_and_a_bot_plays_only_through_it_in_its_own_games() {
    for db in databases() {
        let s = Server::start(&db).await;
        let person = signup(&s, &uniq("human")).await;
        let (st, v) = make_token(&s, &person, json!(["bot"])).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("auth.bot_scope")),
            "{v}"
        );
        let (st, v) = make_token(&s, &person, json!(["read", "bot"])).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("auth.bot_scope")),
            "{v}"
        );
        let (bot, bot_session, token) = new_bot(&s).await;
        let (_, v) = make_token(&s, &bot_session, json!(["read", "play"])).await;
        let play_token_of_bot = v["token"].as_str().unwrap().to_string();
        let id = game_against(&s, &person, &bot, json!({})).await;
        assert_eq!(play(&s, &person, &id, "D4").await.0, 200);
        // The bot's session and its other tokens read but do not play.
        let (st, v) = play(&s, &bot_session, &id, "E5").await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("bot.token_only")),
            "{v}"
        );
        let (st, v) = play_token(&s, &play_token_of_bot, &id, "E5").await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("bot.token_only")),
            "{v}"
        );
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{id}/chat"),
            &bot_session,
            Some(json!({"text": "hi", "channel": "players"})),
        )
        .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("bot.token_only")),
            "{v}"
        );
        let (st, v) = call(
            &s,
            "POST",
            "/api/games",
            &bot_session,
            Some(json!({"game": "go", "size": 9})),
        )
        .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("bot.token_only")),
            "{v}"
        );
        let (st, _) = with_token(
            &s,
            "GET",
            &format!("/api/games/{id}"),
            Some(&play_token_of_bot),
            None,
        )
        .await;
        assert_eq!(st, 200, "a bot's read token reads");
        // Bots never seek, whatever the credential.
        let seek = json!({"game": "go", "size": 9});
        let (st, v) = with_token(&s, "POST", "/api/seeks", Some(&token), Some(seek.clone())).await;
        assert_eq!((st, v["code"].as_str()), (403, Some("seek.bot")), "{v}");
        let (st, v) = call(&s, "POST", "/api/seeks", &bot_session, Some(seek)).await;
        assert_eq!((st, v["code"].as_str()), (403, Some("seek.bot")), "{v}");
        // The bot token: no game made, no seat joined, no account-level action.
        let other = {
            let (st, v) = call(
                &s,
                "POST",
                "/api/games",
                &person,
                Some(json!({"game": "go", "size": 9, "seats": {"white": {"kind": "open"}}})),
            )
            .await;
            assert_eq!(st, 201, "{v}");
            v["id"].as_str().unwrap().to_string()
        };
        for (method, path, body) in [
            (
                "POST",
                "/api/games".to_string(),
                json!({"game": "go", "size": 9}),
            ),
            (
                "POST",
                format!("/api/games/{other}/join"),
                json!({"seat": "white"}),
            ),
            ("POST", "/api/reviews".to_string(), json!({})),
        ] {
            let (st, v) = with_token(&s, method, &path, Some(&token), Some(body)).await;
            assert_eq!(
                (st, v["code"].as_str()),
                (403, Some("auth.scope")),
                "{path}: {v}"
            );
        }
        for path in ["/api/tokens", "/api/auth/logout-all"] {
            let (st, v) = with_token(&s, "POST", path, Some(&token), Some(json!({}))).await;
            assert_eq!(
                (st, v["code"].as_str()),
                (403, Some("auth.session_only")),
                "{path}: {v}"
            );
        }
        let (st, v) = with_token(&s, "POST", "/api/account/bot", Some(&token), None).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("auth.session_only")),
            "{v}"
        );
        // A seat of another game: refused, and the game is as it was.
        let before = s.state(&other).await;
        assert_eq!(play(&s, &person, &other, "C3").await.0, 200);
        let before_white = s.state(&other).await;
        for action in ["D4", "pass", "resign"] {
            let (st, v) = play_token(&s, &token, &other, action).await;
            assert_eq!(st, 403, "{action}: {v}");
        }
        let after = s.state(&other).await;
        assert_eq!(after["version"], before_white["version"]);
        assert_eq!(after["seats"]["white"]["player"], Value::Null, "{before}");
        // Its own game: it plays, reads its seat, and reaches the challenge routes (another
        // branch serves them: here, anything but a scope refusal).
        let (st, v) = play_token(&s, &token, &id, "E5").await;
        assert_eq!(st, 200, "{v}");
        let (_, v) = with_token(&s, "GET", &format!("/api/games/{id}"), Some(&token), None).await;
        assert_eq!(v["you"], "white", "{v}");
        let (st, v) = with_token(
            &s,
            "POST",
            "/api/challenges",
            Some(&token),
            Some(json!({"to": null})),
        )
        .await;
        assert_ne!(st, 403, "{v}");
        // A person's play token is what it was.
        let (_, t) = make_token(&s, &person, json!(["read", "play"])).await;
        let (st, v) = play_token(&s, t["token"].as_str().unwrap(), &id, "F6").await;
        assert_eq!(st, 200, "{v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_bot_accepts_is_checked_and_the_bots_are_listed_online_first() {
    for db in databases() {
        let s = Server::start(&db).await;
        let person = signup(&s, &uniq("human")).await;
        let (bot, bot_session, token) = new_bot(&s).await;
        let (_, v) = make_token(&s, &bot_session, json!(["read"])).await;
        let read = v["token"].as_str().unwrap().to_string();
        let path = "/api/account/bot/accepts";
        let (st, v) = with_token(&s, "PUT", path, Some(&read), Some(json!({}))).await;
        assert_eq!((st, v["code"].as_str()), (403, Some("auth.scope")), "{v}");
        for (bad, field) in [
            (json!({"sizes": [1, 9]}), "sizes"),
            (json!({"sizes": [26]}), "sizes"),
            (json!({"sizes": []}), "sizes"),
            (json!({"games": ["chess"]}), "games"),
            (json!({"clocks": ["hourglass"]}), "clocks"),
            (json!({"rated": "sometimes"}), "rated"),
            (json!({"max_games": 0}), "max_games"),
            (json!({"max_games": 33}), "max_games"),
            (json!({"bots": "yes"}), "body"),
            (json!({"colour": "black"}), "body"),
            (json!([1, 2]), "body"),
        ] {
            let (st, v) = with_token(&s, "PUT", path, Some(&token), Some(bad.clone())).await;
            assert_eq!(
                (st, v["code"].as_str()),
                (400, Some("bot.accepts")),
                "{bad}: {v}"
            );
            assert_eq!(v["args"]["field"], field, "{bad}: {v}");
        }
        let (st, v) = with_token(&s, "PUT", path, Some(&token), None).await;
        assert_eq!(st, 400, "no body: {v}");
        let accepts = json!({"games": ["go"], "sizes": [19, 9, 13, 9],
            "clocks": ["byo-yomi", "none"], "rated": "unrated", "bots": true, "max_games": 2});
        let (st, v) = with_token(&s, "PUT", path, Some(&token), Some(accepts)).await;
        assert_eq!(st, 200, "{v}");
        let want = json!({"games": ["go"], "sizes": [9, 13, 19], "clocks": ["none", "byo-yomi"],
            "rated": "unrated", "bots": true, "max_games": 2});
        assert_eq!(v["accepts"], want);
        // A person has nothing to accept.
        let (_, t) = make_token(&s, &person, json!(["read", "play"])).await;
        let (st, v) = with_token(&s, "PUT", path, t["token"].as_str(), Some(json!({}))).await;
        assert_eq!((st, v["code"].as_str()), (403, Some("bot.not_bot")), "{v}");
        // The list: every bot, with what it accepts and its games; online while it holds an
        // event stream here.
        let (quiet, _, _) = new_bot(&s).await;
        let _game = game_against(&s, &person, &bot, json!({})).await;
        let listed = |v: &Value, name: &str| {
            v["bots"]
                .as_array()
                .unwrap()
                .iter()
                .position(|b| b["name"] == name)
                .unwrap_or_else(|| panic!("{name} listed: {v}"))
        };
        let (st, v) = s.get("/api/bots").await;
        assert_eq!(st, 200, "{v}");
        let b = &v["bots"][listed(&v, &bot)];
        assert_eq!(
            (&b["bot"], &b["online"], &b["playing"]),
            (&json!(true), &json!(false), &json!(1)),
            "{b}"
        );
        assert_eq!(b["accepts"], want);
        assert!(b["ratings"].is_object(), "{b}");
        assert_eq!(v["bots"][listed(&v, &quiet)]["accepts"], Value::Null);
        assert!(
            v["go19"].is_array(),
            "the server's own bots still listed: {v}"
        );
        let _online = s.hub.events.subscribe(&account_id(&s, &bot).await);
        let (_, v) = s.get("/api/bots").await;
        assert_eq!(v["bots"][0]["name"], bot, "online first: {v}");
        assert_eq!(v["bots"][0]["online"], true, "{v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_stream_starts_with_the_full_state_and_follows_each_change_to_the_end() {
    for db in databases() {
        let s = Server::start_config(&db, |c| c.limits.sockets_per_client = 3).await;
        let person = signup(&s, &uniq("human")).await;
        let (bot, _, token) = new_bot(&s).await;
        let id = game_against(&s, &person, &bot, json!({})).await;
        let path = format!("/api/stream/games/{id}");
        let (st, v) = Lines::open(&s, "/api/stream/games/nosuchgame", Some(&token))
            .await
            .err()
            .expect("refused");
        assert_eq!(st, 404, "{v}");
        let mut bot_stream = Lines::open(&s, &path, Some(&token)).await.unwrap();
        let first = bot_stream.next().await.unwrap();
        assert_eq!(first["type"], "gameFull", "{first}");
        assert_eq!(first["state"]["you"], "white", "{first}");
        assert_eq!(first["state"]["to_move"], "black", "{first}");
        let mut watcher = Lines::open(&s, &path, None).await.unwrap();
        assert_eq!(watcher.next().await.unwrap()["type"], "gameFull");
        // The cap on sockets and streams per client (3 here): a fourth is refused.
        let third = Lines::open(&s, &path, None).await.unwrap();
        let (st, v) = Lines::open(&s, &path, None)
            .await
            .err()
            .expect("over the cap");
        assert_eq!(
            (st, v["code"].as_str()),
            (429, Some("limit.sockets")),
            "{v}"
        );
        drop(third);
        // A move: the full state again, with the bot's legal moves.
        assert_eq!(play(&s, &person, &id, "D4").await.0, 200);
        let v = bot_stream.next_of("gameState").await;
        assert_eq!(v["state"]["moves"], json!(["D4"]), "{v}");
        assert_eq!(v["state"]["to_move"], "white");
        assert!(v["state"]["clocks"].is_object() || v["state"]["clocks"].is_null());
        assert!(v["state"]["legal"]
            .as_array()
            .unwrap()
            .contains(&json!("E5")));
        // Chat: the players' channel reaches the seats only.
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{id}/chat"),
            &person,
            Some(json!({"text": "have a good game", "channel": "players"})),
        )
        .await;
        assert_eq!(st, 201, "{v}");
        let (st, v) = with_token(
            &s,
            "POST",
            &format!("/api/games/{id}/chat"),
            Some(&token),
            Some(json!({"text": "MALKOVICH: D4 is fine", "channel": "spectators"})),
        )
        .await;
        assert_eq!(st, 201, "{v}");
        let c = bot_stream.next_of("chat").await;
        assert_eq!(
            c,
            json!({"type": "chat", "channel": "players", "name": s_name(&s, &person).await, "text": "have a good game"})
        );
        let c = watcher.next_of("chat").await;
        assert_eq!(
            (&c["channel"], &c["name"]),
            (&json!("spectators"), &json!(bot)),
            "{c}"
        );
        // A reconnect starts with the full state again.
        let mut again = Lines::open(&s, &path, Some(&token)).await.unwrap();
        let v = again.next().await.unwrap();
        assert_eq!(
            (&v["type"], &v["state"]["moves"]),
            (&json!("gameFull"), &json!(["D4"]))
        );
        drop(again);
        // The end: the final state, then the stream closes.
        assert_eq!(play(&s, &person, &id, "resign").await.0, 200);
        let mut last = Value::Null;
        while let Some(v) = bot_stream.next().await {
            last = v;
        }
        assert_eq!(last["type"], "gameState", "{last}");
        assert_eq!(last["state"]["status"], "finished", "{last}");
        assert_eq!(last["state"]["result"]["text"], "W+R", "{last}");
        // A finished game: its full state, and the end.
        let mut done = Lines::open(&s, &path, Some(&token)).await.unwrap();
        assert_eq!(done.next().await.unwrap()["type"], "gameFull");
        assert!(
            done.next().await.is_none(),
            "ends after a finished game's state"
        );
    }
}

/// The name of the session's account.
async fn s_name(s: &Server, who: &Session) -> Value {
    get(s, "/api/me", who).await.1["account"]["name"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_chats_over_http_as_plain_text_at_chats_rate() {
    for db in databases() {
        let s = Server::start_config(&db, |c| c.limits.chat_per_second = 1.0).await;
        let person = signup(&s, &uniq("human")).await;
        let (bot, _, token) = new_bot(&s).await;
        let (spectator_bot, _, spectator_token) = new_bot(&s).await;
        let _ = spectator_bot;
        let id = game_against(&s, &person, &bot, json!({})).await;
        let chat = format!("/api/games/{id}/chat");
        let say = |text: Value, channel: &str| json!({"text": text, "channel": channel});
        let (st, v) = with_token(
            &s,
            "POST",
            &chat,
            Some(&token),
            Some(say(json!("<b>gg</b>"), "players")),
        )
        .await;
        assert_eq!(st, 201, "{v}");
        assert_eq!(
            v["message"]["text"], "<b>gg</b>",
            "stored as the text it is"
        );
        for (body, code) in [
            (say(json!("x".repeat(501)), "players"), "chat.long"),
            (say(json!(" \u{202e} "), "players"), "chat.empty"),
            (say(json!("hi"), "lobby"), "chat.channel"),
        ] {
            let (st, v) = with_token(&s, "POST", &chat, Some(&token), Some(body)).await;
            assert_eq!((st, v["code"].as_str()), (400, Some(code)), "{v}");
        }
        let (st, v) = with_token(&s, "POST", &chat, Some(&token), Some(json!({"text": 5}))).await;
        assert_eq!(st, 400, "{v}");
        // A bot that holds no seat here: the spectators' channel only.
        let (st, v) = with_token(
            &s,
            "POST",
            &chat,
            Some(&spectator_token),
            Some(say(json!("hi"), "players")),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (403, Some("chat.channel")), "{v}");
        // The rate: a burst of 5 an account, then 429.
        let mut refused = None;
        for i in 0..10 {
            let (st, v) = with_token(
                &s,
                "POST",
                &chat,
                Some(&token),
                Some(say(json!(format!("line {i}")), "spectators")),
            )
            .await;
            if st != 201 {
                refused = Some((st, v));
                break;
            }
        }
        let (st, v) = refused.expect("the burst ends");
        assert_eq!((st, v["code"].as_str()), (429, Some("limit.rate")), "{v}");
        let (_, v) = get(&s, &chat, &person).await;
        assert_eq!(v["messages"][0]["text"], "<b>gg</b>", "{v}");
        assert_eq!(v["messages"][0]["name"], json!(bot), "{v}");
        // Nobody reads the players' channel but the seats.
        let (_, v) = s.get(&chat).await;
        assert!(
            v["messages"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["channel"] == "spectators"),
            "{v}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_illegal_moves_in_a_row_forfeit_a_bots_game_and_a_legal_one_starts_again() {
    for db in databases() {
        let s = Server::start(&db).await;
        let person = signup(&s, &uniq("human")).await;
        let (bot, _, token) = new_bot(&s).await;
        let id = game_against(&s, &person, &bot, json!({"clock": "byo-yomi:600:3:30"})).await;
        assert_eq!(play(&s, &person, &id, "D4").await.0, 200);
        let refused = |st: u16, v: &Value, n: u32, forfeited: bool| {
            assert_eq!(st, 422, "{v}");
            assert_eq!(v["code"], "illegal.occupied", "the rule is named: {v}");
            assert_eq!(v["args"]["illegal_in_row"], n, "{v}");
            assert_eq!(v["args"]["forfeited"], forfeited, "{v}");
        };
        let before = s.state(&id).await;
        for n in 1..=2 {
            let (st, v) = play_token(&s, &token, &id, "D4").await;
            refused(st, &v, n, false);
        }
        let after = s.state(&id).await;
        assert_eq!(after["version"], before["version"], "nothing stored");
        assert_eq!(after["to_move"], "white", "the bot keeps its turn");
        assert_eq!(
            after["clocks"]["white"]["running"], true,
            "its clock runs: {after}"
        );
        // A legal move starts the count again.
        assert_eq!(play_token(&s, &token, &id, "E5").await.0, 200);
        assert_eq!(play(&s, &person, &id, "C3").await.0, 200);
        for n in 1..=2 {
            let (st, v) = play_token(&s, &token, &id, "C3").await;
            refused(st, &v, n, false);
        }
        // A move that does not read counts too.
        let (st, v) = play_token(&s, &token, &id, "Z99").await;
        assert_eq!(st, 400, "{v}");
        assert_eq!(
            (&v["args"]["illegal_in_row"], &v["args"]["forfeited"]),
            (&json!(3), &json!(true)),
            "{v}"
        );
        let end = s.state(&id).await;
        assert_eq!(end["status"], "finished", "{end}");
        assert_eq!(end["result"]["text"], "B+F", "{end}");
        assert_eq!(end["result"]["reason"], "forfeit", "{end}");
        assert_eq!(end["result"]["code"], "result.forfeit", "{end}");
        assert_eq!(end["result"]["args"]["seat"], "white", "{end}");
        // The stored game replays to the same end (the record is written from a replay).
        let (st, _) = s.get(&format!("/api/games/{id}/record")).await;
        assert_eq!(st, 200);
        let fresh = baduk_server::game::room::Room::from_stored(
            &id,
            s.hub.store.load(&id).await.unwrap().unwrap(),
        )
        .unwrap();
        assert_eq!(fresh.state(0, None, None)["result"]["text"], "B+F");
        // A person's illegal moves are refused as always, and never forfeit.
        let id = game_against(&s, &person, &bot, json!({})).await;
        assert_eq!(play(&s, &person, &id, "D4").await.0, 200);
        assert_eq!(play_token(&s, &token, &id, "E5").await.0, 200);
        for _ in 0..4 {
            let (st, v) = play(&s, &person, &id, "E5").await;
            assert_eq!((st, v["args"].get("illegal_in_row")), (422, None), "{v}");
        }
        let (st, v) = play_token(&s, &token, &id, "D4").await;
        assert_eq!(st, 409, "out of turn: {v}");
        assert_eq!(v["args"].get("illegal_in_row"), None, "{v}");
        assert_eq!(s.state(&id).await["status"], "live");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_cannot_get_a_bots_live_group_counted_dead() {
    for db in databases() {
        let s = Server::start(&db).await;
        let person = signup(&s, &uniq("human")).await;
        let (bot, _, token) = new_bot(&s).await;
        let id = game_against(&s, &person, &bot, json!({"rules": "japanese"})).await;
        // White lives in the lower left with two eyes (A1-A2 and C1-C2); Black takes the top.
        let white = ["A3", "B3", "C3", "D3", "D2", "D1", "B2", "B1"];
        let black = ["F9", "F8", "F7", "G7", "H7", "J7", "E9", "E8"];
        for (b, w) in black.iter().zip(white) {
            assert_eq!(play(&s, &person, &id, b).await.0, 200, "{b}");
            let (st, v) = play_token(&s, &token, &id, w).await;
            assert_eq!(st, 200, "{w}: {v}");
        }
        assert_eq!(play(&s, &person, &id, "pass").await.0, 200);
        assert_eq!(play_token(&s, &token, &id, "pass").await.0, 200);
        // The server answers for the bot: it accepts the estimate.
        let v = s
            .wait_for(&id, 20, |v| v["marking"]["accepted"]["white"] == true)
            .await;
        assert_eq!(v["phase"], "marking", "{v}");
        let proposed = v["marking"]["proposed"].clone();
        assert!(!proposed.as_array().unwrap().contains(&json!("B2")), "{v}");
        // Black marks White's group dead and accepts: the bot's seat restores it.
        let (st, v) = play(&s, &person, &id, "dead B2").await;
        assert_eq!(st, 200, "{v}");
        let v = s
            .wait_for(&id, 20, |v| {
                v["marking"]["accepted"]["white"] == true
                    && !v["marking"]["dead"]
                        .as_array()
                        .unwrap()
                        .contains(&json!("B2"))
            })
            .await;
        assert_eq!(v["marking"]["restored"]["seat"], "white", "{v}");
        // Marking it again and accepting at once gets no further: the group is restored
        // whichever comes first; accepting the estimate ends the game with the group alive.
        assert_eq!(play(&s, &person, &id, "dead B2").await.0, 200);
        let _ = play(&s, &person, &id, "accept").await;
        let v = s
            .wait_for(&id, 20, |v| {
                v["marking"]["accepted"]["white"] == true
                    && !v["marking"]["dead"]
                        .as_array()
                        .unwrap()
                        .contains(&json!("B2"))
            })
            .await;
        if v["status"] != "finished" {
            let (st, v) = play(&s, &person, &id, "accept").await;
            assert_eq!(st, 200, "{v}");
        }
        let v = s.wait_for(&id, 20, |v| v["status"] == "finished").await;
        assert!(
            !v["marking"]["dead"]
                .as_array()
                .unwrap()
                .contains(&json!("B2")),
            "{v}"
        );
        assert_eq!(v["result"]["reason"], "score", "{v}");
    }
}
