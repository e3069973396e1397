//! Nobody where they don't belong, and bad input gets a 4xx naming the problem: tokens,
//! malformed and absurd requests, floods, and a bot that panics.

mod common;

use common::{databases, token, Server};
use serde_json::json;

#[tokio::test]
async fn only_a_seats_token_acts_for_that_seat() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
        let (other, other_seats) = s.create(json!({"game": "go", "size": 9})).await;
        let b = token(&seats, "black");
        let w = token(&seats, "white");
        // No token: 401. A made-up token: 403.
        let (code, v) = s
            .post(
                &format!("/api/games/{id}/actions"),
                None,
                r#"{"action":"E5"}"#,
            )
            .await;
        assert_eq!(code, 401, "{v}");
        assert_eq!(s.act(&id, &"0".repeat(64), "E5").await.0, 403);
        // Another game's token, replayed here: 403.
        assert_eq!(s.act(&id, &token(&other_seats, "black"), "E5").await.0, 403);
        // White's token cannot play Black's move (not White's turn).
        assert_eq!(s.act(&id, &w, "E5").await.0, 409);
        assert_eq!(s.state(&id).await["version"], 0);
        s.ok(&id, &b, "E5").await;
        // Tokens never appear in any later state, record or list.
        let st = s.state(&id).await.to_string();
        let (_, rec) = s.get(&format!("/api/games/{id}/record")).await;
        let (_, list) = s.get("/api/games?status=live&limit=200").await;
        for t in [&b, &w] {
            assert!(!st.contains(t.as_str()));
            assert!(!rec.to_string().contains(t.as_str()));
            assert!(!list.to_string().contains(t.as_str()));
        }
        assert_eq!(s.state(&other).await["version"], 0);
    }
}

#[tokio::test]
async fn malformed_and_absurd_requests_get_a_4xx_with_a_reason() {
    let s = Server::start("sqlite").await;
    let cases: &[(&str, u16, &str)] = &[
        ("", 400, "no JSON body"),
        ("{", 400, "bad JSON"),
        (r#"{"game":"chess"}"#, 400, "expected go or wallgo"),
        (r#"{"game":"go","colour":"red"}"#, 400, "unknown field"),
        (r#"{"game":"go","size":"big"}"#, 400, "size"),
        (r#"{"game":"go","size":0}"#, 400, "2 to 25"),
        (r#"{"game":"go","size":26}"#, 400, "2 to 25"),
        (r#"{"game":"go","komi":"NaN"}"#, 400, "bad JSON"),
        (r#"{"game":"go","komi":1e999}"#, 400, "bad JSON"),
        (r#"{"game":"go","komi":100000}"#, 400, "komi"),
        (
            r#"{"game":"go","komi":1000}"#,
            400,
            "komi 1000: a game's komi is from -150 to 150",
        ),
        (
            r#"{"game":"go","komi":-150.5}"#,
            400,
            "komi -150.5: a game's komi is from -150 to 150",
        ),
        (
            r#"{"game":"go","rules":"japanese,komi=1000"}"#,
            400,
            "komi 1000: a game's komi is from -150 to 150",
        ),
        (
            r#"{"game":"go","clock":"absolute:1000000000"}"#,
            400,
            "clock",
        ),
        (r#"{"game":"go","clock":"byo-yomi:10:0:30"}"#, 400, "clock"),
        (r#"{"game":"go","rules":"chess"}"#, 400, "rules"),
        (r#"{"game":"go","handicap":30}"#, 400, "handicap"),
        (r#"{"game":"go","size":5,"handicap":2}"#, 400, "handicap"),
        (
            r#"{"game":"go","variant":"placement=ABBA"}"#,
            400,
            "Wall Go settings",
        ),
        (r#"{"game":"wallgo","komi":6.5}"#, 400, "Go settings"),
        (
            r#"{"game":"wallgo","turn_seconds":-1}"#,
            400,
            "turn_seconds",
        ),
        (
            r#"{"game":"wallgo","turn_seconds":1e9}"#,
            400,
            "turn_seconds",
        ),
        (
            r#"{"game":"wallgo","variant":"placement=XYZ"}"#,
            400,
            "variant",
        ),
        (
            r#"{"game":"go","seats":{"red":{"kind":"human"}}}"#,
            400,
            "seats are black and white",
        ),
        (
            r#"{"game":"go","seats":{"white":{"kind":"bot","bot":"gnugo"}}}"#,
            400,
            "unknown Go bot",
        ),
        (
            r#"{"game":"go","seats":{"white":{"kind":"bot","bot":"baduk","options":"threads=64"}}}"#,
            400,
            "threads",
        ),
        (
            r#"{"game":"go","seats":{"white":{"kind":"bot","bot":"baduk","options":"priors=/etc/passwd"}}}"#,
            400,
            "priors is `builtin`, `net` or `none` on the server",
        ),
        (
            r#"{"game":"go","seats":{"white":{"kind":"bot","bot":"baduk","options":"level=11"}}}"#,
            400,
            "level at most 10",
        ),
        (
            r#"{"game":"go","seats":{"white":{"kind":"bot","bot":"baduk","options":"time=inf"}}}"#,
            400,
            "time=inf is not a number",
        ),
        (
            r#"{"game":"wallgo","seats":{"B":{"kind":"bot","bot":"grandmaster"}}}"#,
            400,
            "unknown bot",
        ),
        (
            r#"{"game":"go","seats":{"white":{"kind":"robot"}}}"#,
            400,
            "seat kind",
        ),
        (r#"[1,2,3]"#, 400, "bad JSON"),
    ];
    for (body, code, words) in cases {
        let (c, v) = s.post("/api/games", None, body).await;
        assert_eq!(c, *code, "{body}: {v}");
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.contains(words), "{body}: `{e}` should say `{words}`");
    }
    // A setting out of its range names the field and the range in `code` and `args` too, for
    // the page to say in its own language.
    for (body, code, min, max) in [
        (r#"{"game":"go","komi":1000}"#, "settings.komi", -150, 150),
        (r#"{"game":"go","size":[26,9]}"#, "settings.size", 2, 25),
        (r#"{"game":"go","handicap":30}"#, "settings.handicap", 0, 9),
        (
            r#"{"game":"wallgo","turn_seconds":5000}"#,
            "settings.turn_seconds",
            1,
            3600,
        ),
    ] {
        let (c, v) = s.post("/api/games", None, body).await;
        assert_eq!((c, v["code"].as_str()), (400, Some(code)), "{body}: {v}");
        assert_eq!(
            (&v["args"]["min"], &v["args"]["max"]),
            (&json!(min), &json!(max)),
            "{v}"
        );
        assert!(v["args"]["field"].is_string(), "{v}");
    }
    // Too large a body.
    let big = format!(r#"{{"game":"go","rules":"{}"}}"#, "x".repeat(100_000));
    assert_eq!(s.post("/api/games", None, &big).await.0, 413);
    // Action bodies.
    let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
    let b = token(&seats, "black");
    let path = format!("/api/games/{id}/actions");
    for (body, code) in [
        ("", 400),
        ("nonsense", 400),
        (r#"{"action":5}"#, 400),
        (r#"{"action":"E5","extra":1}"#, 400),
        (r#"{"action":""}"#, 400),
        (r#"{"action":"timeout"}"#, 400),
        (r#"{"action":"dead E5"}"#, 400),
    ] {
        let (c, v) = s.post(&path, Some(&b), body).await;
        assert_eq!(c, code, "{body}: {v}");
        assert!(v["error"].is_string(), "{body}: {v}");
    }
    assert_eq!(s.state(&id).await["version"], 0, "nothing stored");
    // Unknown games and routes.
    assert_eq!(s.get("/api/games/nosuchgame").await.0, 404);
    assert_eq!(s.get("/api/games/../etc").await.0, 404);
    assert_eq!(s.act("nosuchgame", &b, "E5").await.0, 404);
    assert_eq!(s.get("/api/nothing").await.0, 404);
    assert_eq!(s.get(&format!("/api/games/{id}?move=abc")).await.0, 400);
}

#[tokio::test]
async fn a_flooding_client_is_rate_limited() {
    let s = Server::start_with("sqlite", 5.0, false).await;
    let mut codes = Vec::new();
    for _ in 0..60 {
        codes.push(s.get("/api/games?status=live").await.0);
    }
    assert!(codes.contains(&429), "{codes:?}");
    assert_eq!(codes[0], 200);
}

#[tokio::test]
async fn a_panicking_bot_never_takes_the_server_down() {
    for db in databases() {
        let s = Server::start(&db).await;
        // A places first, so the panicking bot is asked at once.
        let (bad, _) = s
            .create(json!({"game": "wallgo", "turn_seconds": 0,
                "seats": {"A": {"kind": "bot", "bot": "panic"}}}))
            .await;
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(s.get("/healthz").await.0, 200);
        assert_eq!(s.state(&bad).await["version"], 0);
        // Other games go on.
        let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
        s.ok(&id, &token(&seats, "black"), "E5").await;
    }
}

// ---- A stranger on the open internet (issue: a server that can face the public) ----

/// POSTs a create body; returns (status, body text, Retry-After).
async fn create_raw(
    s: &common::Server,
    body: &str,
    headers: &[(&str, String)],
) -> (u16, String, Option<String>) {
    let mut r = s
        .http
        .post(format!("{}/api/games", s.base))
        .header("content-type", "application/json")
        .body(body.to_string());
    for (k, v) in headers {
        r = r.header(*k, v);
    }
    let resp = r.send().await.expect("answered");
    let code = resp.status().as_u16();
    let retry = resp
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap_or("").to_string());
    (code, resp.text().await.unwrap_or_default(), retry)
}

fn wall_bot(bot: &str, options: &str) -> String {
    json!({"game": "wallgo", "seats": {"B": {"kind": "bot", "bot": bot, "options": options}}})
        .to_string()
}

#[tokio::test]
async fn no_request_makes_the_server_read_a_file() {
    let s = Server::start("sqlite").await;
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("model-link");
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    let link = link.display().to_string();
    let paths = [
        "/etc/passwd",
        "/proc/self/cmdline",
        "/proc/self/environ",
        "/dev/zero",
        "models/sedol.txt",
        "../../../../etc/passwd",
        link.as_str(),
    ];
    for p in paths {
        for (game, bot, key) in [
            ("wallgo", "sedol", "model"),
            ("wallgo", "expert", "model"),
            ("go", "baduk", "priors"),
        ] {
            let body = if game == "go" {
                json!({"game": "go", "seats": {"white": {"kind": "bot", "bot": bot, "options": format!("{key}={p}")}}}).to_string()
            } else {
                wall_bot(bot, &format!("{key}={p}"))
            };
            let (code, text, _) = create_raw(&s, &body, &[]).await;
            assert_eq!(code, 400, "{body}: {text}");
            for leak in [
                "root:",
                "/bin/",
                "passwd",
                "cmdline",
                "environ",
                "zero",
                "model-link",
                "sqlite",
                "/tmp",
            ] {
                assert!(
                    !text.contains(leak),
                    "{body}: the answer `{text}` shows `{leak}`"
                );
            }
            assert!(text.contains("bot options"), "{text}");
        }
    }
    let (_, lobby) = s.get("/api/games?status=open").await;
    assert_eq!(
        lobby["games"].as_array().unwrap().len(),
        0,
        "nothing stored"
    );
}

#[tokio::test]
async fn absurd_bot_budgets_are_refused_naming_the_limit() {
    let s = Server::start("sqlite").await;
    let go = |o: &str| {
        json!({"game": "go", "seats": {"white": {"kind": "bot", "bot": "baduk", "options": o}}})
            .to_string()
    };
    let cases = [
        (
            wall_bot("expert", "nodes=1000000000"),
            "bot options: nodes at most 200000",
        ),
        (
            wall_bot("sedol", "nodes=18446744073709551615"),
            "nodes at most 200000",
        ),
        (wall_bot("expert", "ms=10000000"), "ms at most 3000"),
        (wall_bot("expert", "tt=30"), "tt at most 20"),
        (wall_bot("medium", "depth=1000"), "depth at most 3"),
        (wall_bot("easy", "nodes=1"), "not a server option"),
        (go("time=3600"), "time at most 3 seconds"),
        (go("playouts=99999999999"), "playouts at most 200000"),
        (go("threads=1000"), "threads at most"),
        (go("explore=0.1"), "not a server option"),
    ];
    for (body, words) in cases {
        let (code, text, _) = create_raw(&s, &body, &[]).await;
        assert_eq!(code, 400, "{body}: {text}");
        assert!(
            text.contains(words),
            "{body}: `{text}` should say `{words}`"
        );
    }
    // A seat's options are stored as the server read them.
    let (id, _) = s
        .create(json!({"game": "wallgo", "seats": {"A": {"kind": "human"}, "B": {"kind": "bot", "bot": "expert", "options": " nodes = 500 "}}}))
        .await;
    assert_eq!(s.state(&id).await["seats"]["B"]["options"], "nodes=500");
}

#[tokio::test]
async fn bot_against_bot_only_where_the_operator_allows_it() {
    let both = json!({"game": "wallgo", "turn_seconds": 0, "seats": {"A": {"kind": "bot", "bot": "random"}, "B": {"kind": "bot", "bot": "random"}}}).to_string();
    let s = Server::start_config("sqlite", |c| c.limits.bots.allow_bot_games = false).await;
    let (code, text, _) = create_raw(&s, &both, &[]).await;
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("--allow-bot-games"), "{text}");
    let s = Server::start_config("sqlite", |c| c.limits.bots.allow_bot_games = true).await;
    assert_eq!(create_raw(&s, &both, &[]).await.0, 201);
}

#[tokio::test]
async fn a_random_bearer_or_a_forged_forwarded_for_is_no_fresh_bucket() {
    let s = Server::start_with("sqlite", 5.0, false).await;
    let mut codes = Vec::new();
    let mut retry = None;
    for i in 0..60 {
        let resp = s
            .http
            .get(format!("{}/api/games?status=live", s.base))
            .bearer_auth(format!("{i:064x}"))
            .header("x-forwarded-for", format!("203.0.113.{i}"))
            .send()
            .await
            .unwrap();
        codes.push(resp.status().as_u16());
        if resp.status() == 429 {
            retry = resp.headers().get("retry-after").cloned();
            let v: serde_json::Value = resp.json().await.unwrap();
            assert!(
                v["error"].as_str().unwrap().contains("too many requests"),
                "{v}"
            );
        }
    }
    assert!(codes.contains(&429), "{codes:?}");
    assert!(
        codes.iter().filter(|&&c| c == 200).count() <= 25,
        "{codes:?}"
    );
    let secs: u64 = retry
        .expect("Retry-After")
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(secs >= 1);
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_bucket() {
    let s = Server::start_config("sqlite", |c| {
        c.rate_limit = 5.0;
        c.limits.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    for i in 0..60 {
        let resp = s
            .http
            .get(format!("{}/api/games?status=live", s.base))
            .header("x-forwarded-for", format!("203.0.113.{i}"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "client {i} is new");
    }
    // One forwarded client flooding is still limited.
    let mut codes = Vec::new();
    for _ in 0..60 {
        let resp = s
            .http
            .get(format!("{}/api/games?status=live", s.base))
            .header("x-forwarded-for", "198.51.100.1")
            .send()
            .await
            .unwrap();
        codes.push(resp.status().as_u16());
    }
    assert!(codes.contains(&429), "{codes:?}");
}

#[tokio::test]
async fn a_creation_flood_stops_at_the_rate_and_at_the_open_games_cap() {
    let body = json!({"game": "go", "size": 9}).to_string();
    // The rate: 6 a minute, bursts of 3.
    let s = Server::start_config("sqlite", |c| c.limits.creates_per_minute = 6.0).await;
    let mut codes = Vec::new();
    let mut retry = None;
    for _ in 0..20 {
        let (code, text, r) = create_raw(&s, &body, &[]).await;
        if code == 429 {
            assert!(text.contains("too many games created"), "{text}");
            retry = r;
        }
        codes.push(code);
    }
    assert_eq!(codes.iter().filter(|&&c| c == 201).count(), 3, "{codes:?}");
    assert!(retry.expect("Retry-After").parse::<u64>().unwrap() >= 1);
    // The cap: 3 open games a client; a joined game no longer counts.
    let s = Server::start_config("sqlite", |c| c.limits.open_games_per_client = 3).await;
    let mut made = Vec::new();
    for _ in 0..3 {
        made.push(s.create(json!({"game": "go", "size": 9})).await);
    }
    let (code, text, _) = create_raw(&s, &body, &[]).await;
    assert_eq!(code, 429, "{text}");
    assert!(text.contains("at most 3 unstarted games"), "{text}");
    let (_, lobby) = s.get("/api/games?status=open").await;
    assert_eq!(lobby["games"].as_array().unwrap().len(), 3);
    let (id, seats) = &made[0];
    s.ok(id, &token(seats, "black"), "E5").await;
    s.get(&format!("/api/games/{id}")).await;
    let _ = s
        .http
        .get(format!("{}/api/games/{id}", s.base))
        .bearer_auth(token(seats, "white"))
        .send()
        .await
        .unwrap();
    assert_eq!(s.state(id).await["status"], "live");
    assert_eq!(
        create_raw(&s, &body, &[]).await.0,
        201,
        "one slot came free"
    );
}

#[tokio::test]
async fn an_idle_socket_is_closed_and_a_non_reading_one_is_dropped() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.socket_idle = std::time::Duration::from_secs(1);
        c.limits.socket_send_timeout = std::time::Duration::from_secs(2);
    })
    .await;
    let (id, seats) = s
        .create(json!({"game": "go", "size": 19, "rules": "chinese"}))
        .await;
    // Idle: never answers the server's pings.
    let mut idle = common::raw_socket(s.addr, &id, 64 * 1024).await;
    assert!(common::eventually(5, || s.hub.sockets() == 1).await);
    assert!(
        common::closes_within(&mut idle, 10).await,
        "an idle socket is closed"
    );
    assert!(common::eventually(5, || s.hub.sockets() == 0).await);
    // Non-reading: a tiny receive window and no reads while the game floods it with states.
    let _stuck = common::raw_socket(s.addr, &id, 2048).await;
    // A watcher that does read, all along.
    let mut reader = s.watch(&id).await;
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(0));
    let seen2 = seen.clone();
    let reading = tokio::spawn(async move {
        loop {
            reader.next().await;
            if let Some(n) = reader.held.as_ref().and_then(|st| st["version"].as_i64()) {
                seen2.store(n, std::sync::atomic::Ordering::Relaxed);
            }
        }
    });
    assert!(common::eventually(5, || s.hub.sockets() == 2).await);
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    let mut st = s.state(&id).await;
    let mut n = 0;
    while s.hub.sockets() == 2 && n < 300 {
        let mv = st["legal"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m.as_str())
            .find(|m| *m != "pass")
            .unwrap()
            .to_string();
        st = s.ok(&id, if n % 2 == 0 { &b } else { &w }, &mv).await;
        n += 1;
    }
    assert!(
        common::eventually(10, || s.hub.sockets() == 1).await,
        "the non-reading socket is dropped ({n} moves)"
    );
    // The reading watcher still follows the game.
    let v = st["version"].as_i64().unwrap();
    assert!(
        common::eventually(10, || seen.load(std::sync::atomic::Ordering::Relaxed) == v).await,
        "the reading watcher saw version {v}"
    );
    assert!(
        !reading.is_finished(),
        "the reading watcher was not dropped"
    );
    reading.abort();
}

#[tokio::test]
async fn sockets_are_capped_per_client_and_per_game() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.sockets_per_client = 3;
        c.limits.sockets_per_game = 100;
    })
    .await;
    let (id, _) = s.create(json!({"game": "go", "size": 9})).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(s.watch(&id).await);
    }
    let r = tokio_tungstenite::connect_async(format!("{}/ws/games/{id}", s.ws)).await;
    match r {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status().as_u16(), 429)
        }
        other => panic!("a fourth socket of one client: {:?}", other.map(|_| ())),
    }
    drop(held.pop());
    assert!(common::eventually(5, || s.hub.sockets() == 2).await);
    held.push(s.watch(&id).await);
    let s = Server::start_config("sqlite", |c| c.limits.sockets_per_game = 2).await;
    let (id, _) = s.create(json!({"game": "go", "size": 9})).await;
    let _a = s.watch(&id).await;
    let _b = s.watch(&id).await;
    assert!(
        tokio_tungstenite::connect_async(format!("{}/ws/games/{id}", s.ws))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_finished_game_closes_its_sockets_and_leaves_memory() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.finished_grace = std::time::Duration::from_millis(500);
    })
    .await;
    let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
    let mut w = s.watch(&id).await;
    w.next_of("state").await;
    s.ok(&id, &token(&seats, "black"), "resign").await;
    assert!(
        common::eventually(10, || s.hub.sockets() == 0 && s.hub.loaded() == 0).await,
        "sockets {} loaded {}",
        s.hub.sockets(),
        s.hub.loaded()
    );
    // Still there on the next visit.
    assert_eq!(s.state(&id).await["result"]["text"], "W+R");
}

#[tokio::test]
async fn ten_thousand_undo_requests_are_refused_after_the_cap() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    s.ok(&id, &b, "E5").await;
    let mut accepted = 0;
    for _ in 0..10_000 {
        if s.act(&id, &b, "undo").await.0 == 200 {
            accepted += 1;
            s.ok(&id, &w, "undo-decline").await;
        }
    }
    assert_eq!(accepted, baduk_server::game::room::UNDO_PER_TURN);
    let (code, v) = s.act(&id, &b, "undo").await;
    assert_eq!(code, 409);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("at most 2 requests a turn"),
        "{v}"
    );
    let st = s.state(&id).await;
    assert_eq!(
        st["version"],
        1 + 2 * baduk_server::game::room::UNDO_PER_TURN as i64
    );
    // Undo accepted and the move replayed, again and again: the game's cap holds.
    let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    let mut cycles = 0;
    for _ in 0..200 {
        s.ok(&id, &b, "E5").await;
        if s.act(&id, &b, "undo").await.0 != 200 {
            break;
        }
        s.ok(&id, &w, "undo-accept").await;
        cycles += 1;
    }
    assert_eq!(cycles, baduk_server::game::room::UNDO_PER_GAME);
    let (code, v) = s.act(&id, &b, "undo").await;
    assert_eq!(code, 409);
    assert!(
        v["error"].as_str().unwrap().contains("requests a game"),
        "{v}"
    );
}

#[tokio::test]
async fn dead_stone_toggles_are_capped_in_a_phase() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s
        .create(json!({"game": "go", "size": 9, "rules": "japanese"}))
        .await;
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    s.ok(&id, &b, "E5").await;
    s.ok(&id, &w, "pass").await;
    s.ok(&id, &b, "pass").await;
    assert_eq!(s.state(&id).await["phase"], "marking");
    let mut ok = 0;
    for i in 0..1000 {
        let a = if i % 2 == 0 { "dead E5" } else { "alive E5" };
        if s.act(&id, &w, a).await.0 == 200 {
            ok += 1;
        }
    }
    assert_eq!(ok, baduk_server::game::room::MARKS_PER_PHASE);
    let (code, v) = s.act(&id, &w, "dead E5").await;
    assert_eq!(code, 409, "{v}");
    // Every action of the phase counts: accept and restore too.
    assert_eq!(s.act(&id, &w, "accept").await.0, 409);
    assert_eq!(s.act(&id, &w, "restore").await.0, 409);
    // The other seat may still mark, and accept.
    s.ok(&id, &b, "alive E5").await;
}

#[tokio::test]
async fn games_nobody_finishes_end_as_documented() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.ends = baduk_server::game::room::Ends {
            abandon_ms: 1_500,
            unstarted_ms: 1_500,
            marking_ms: 1_500,
        };
    })
    .await;
    // Untimed, both seats joined, White to move and silent: White loses by abandonment.
    let (a, seats) = s.create(json!({"game": "go", "size": 9})).await;
    s.ok(&a, &token(&seats, "black"), "E5").await;
    let _ = s
        .http
        .get(format!("{}/api/games/{a}", s.base))
        .bearer_auth(token(&seats, "white"))
        .send()
        .await
        .unwrap();
    // Nobody joins: cancelled and unlisted.
    let (c, _) = s.create(json!({"game": "wallgo", "turn_seconds": 0})).await;
    // The dead-stone phase runs out: the marks as they stand are counted.
    let (m, seats) = s
        .create(json!({"game": "go", "size": 9, "rules": "japanese"}))
        .await;
    let (b, w) = (token(&seats, "black"), token(&seats, "white"));
    s.ok(&m, &b, "E5").await;
    s.ok(&m, &w, "pass").await;
    s.ok(&m, &b, "pass").await;
    s.ok(&m, &w, "dead E5").await;
    // A client cannot send the server's endings.
    for word in ["abandon", "cancel", "marks-timeout", "TIMEOUT", "Cancel"] {
        let (code, v) = s.act(&m, &b, word).await;
        assert_eq!(code, 400, "{word}: {v}");
    }
    let st = s.wait_for(&a, 10, |st| st["status"] == "finished").await;
    assert_eq!(st["result"]["text"], "B+F");
    assert_eq!(st["result"]["reason"], "abandonment");
    let (_, rec) = s.get(&format!("/api/games/{a}/record")).await;
    assert!(rec.as_str().unwrap().contains("RE[B+F]"), "{rec}");
    let st = s.wait_for(&c, 10, |st| st["status"] == "cancelled").await;
    assert_eq!(st["result"]["text"], "Void");
    for status in ["open", "live", "finished"] {
        let (_, l) = s.get(&format!("/api/games?status={status}")).await;
        assert!(
            !l.to_string().contains(&c),
            "the cancelled game is listed as {status}"
        );
    }
    let st = s.wait_for(&m, 10, |st| st["status"] == "finished").await;
    let detail = st["result"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("dead-stone phase ran out of time"),
        "{detail}"
    );
    // E5 was marked dead by White and counted so: White wins the board.
    assert!(
        st["result"]["text"].as_str().unwrap().starts_with("W+"),
        "{st}"
    );
    // The log says who ended it.
    let last = st["actions"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["action"], "marks-timeout");
    assert_eq!(last["auto"], true);
}

#[tokio::test]
async fn a_seat_rotates_its_token_and_the_old_one_stops_at_once() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
        let old = token(&seats, "black");
        let path = format!("/api/games/{id}/seats/black/rotate");
        assert_eq!(s.post(&path, None, "").await.0, 401);
        assert_eq!(
            s.post(&path, Some(&token(&seats, "white")), "").await.0,
            403
        );
        assert_eq!(
            s.post(&format!("/api/games/{id}/seats/red/rotate"), Some(&old), "")
                .await
                .0,
            404
        );
        let (code, v) = s.post(&path, Some(&old), "").await;
        assert_eq!(code, 200, "{v}");
        let fresh = v["token"].as_str().unwrap().to_string();
        assert_ne!(fresh, old);
        assert_eq!(s.act(&id, &old, "E5").await.0, 403);
        s.ok(&id, &fresh, "E5").await;
        assert!(!s.state(&id).await.to_string().contains(&fresh));
    }
}

#[tokio::test]
async fn searches_share_the_bot_threads_and_stop_when_their_game_ends() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.bots.threads = 1;
        c.limits.bots.max_time = std::time::Duration::from_secs(3);
    })
    .await;
    // Three Go games whose bot (Black) thinks 3 s a move: one search at a time.
    let mut games = Vec::new();
    for _ in 0..3 {
        games.push(
            s.create(json!({"game": "go", "size": 9, "rules": "chinese",
                "seats": {"black": {"kind": "bot", "bot": "baduk", "options": "time=3"}}}))
                .await,
        );
    }
    assert!(common::eventually(5, || s.hub.bots.running() == 1 && s.hub.bots.waiting() == 2).await);
    let mut most = 0;
    for _ in 0..20 {
        most = most.max(s.hub.bots.running());
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(most, 1, "never more searches than bot threads");
    // White resigns in each game: the running search stops early and the queued ones never run.
    for (id, seats) in &games {
        s.ok(id, &token(seats, "white"), "resign").await;
    }
    assert!(
        common::eventually(2, || s.hub.bots.running() == 0 && s.hub.bots.waiting() == 0).await,
        "cancelled searches free the pool at once"
    );
    for (id, _) in &games {
        assert_eq!(s.state(id).await["version"], 1, "no bot move after the end");
    }
}

#[tokio::test]
async fn a_second_process_loading_a_game_gives_the_side_to_move_no_time_back() {
    for db in databases() {
        let a = Server::start(&db).await;
        let (id, seats) = a
            .create(json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:600"}))
            .await;
        a.ok(&id, &token(&seats, "black"), "E5").await;
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        // Another process on the same database loads the game now: White has been thinking
        // 1.5 s, and that is what its clock says there too.
        let b = Server::start(a.hub.store.url()).await;
        let st = b.state(&id).await;
        let shown = st["clocks"]["white"]["main_ms"].as_i64().unwrap();
        let at = st["actions"][0]["at"].as_i64().unwrap();
        let now = st["now"].as_i64().unwrap();
        assert_eq!(shown, 600_000 - (now - at), "{st}");
        assert!(
            shown <= 600_000 - 1_400,
            "White got time back: {shown} ms left"
        );
    }
}

#[tokio::test]
async fn malformed_socket_messages_get_a_400_and_change_nothing() {
    let s = Server::start("sqlite").await;
    let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
    let b = token(&seats, "black");
    s.ok(&id, &b, "E5").await;
    let before = s.state(&id).await;
    let mut w = s.watch(&id).await;
    w.next_of("state").await;
    for msg in [
        "nonsense".to_string(),
        "{".to_string(),
        r#"{"type":"sync","extra":1}"#.to_string(),
        r#"{"type":"sync","token":5}"#.to_string(),
        format!(r#"{{"type":"sync","token":"{b}","action":"D4"}}"#),
        r#"{"type":"delta","delta":{"version":99}}"#.to_string(),
        r#"{"type":"state","state":{}}"#.to_string(),
        r#"{"type":"SYNC"}"#.to_string(),
        r#"[{"type":"sync"}]"#.to_string(),
    ] {
        w.send_text(&msg).await;
        let v = w.next_of("error").await;
        assert_eq!(v["status"], 400, "{msg}: {v}");
        assert!(v["error"].is_string(), "{msg}: {v}");
    }
    // Nothing changed, and the socket still answers.
    common::assert_same_state(&s.state(&id).await, &before, "after the bad messages");
    w.send(json!({"type": "ping", "id": 1})).await;
    assert_eq!(w.next_of("pong").await["id"], 1);
    w.send(json!({"type": "sync"})).await;
    assert_eq!(w.next_of("state").await["state"]["version"], 1);
}
