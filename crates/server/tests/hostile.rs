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
            "priors is `builtin` or `none` on the server",
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
