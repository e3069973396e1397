//! Hostile clients, round 2 (issue 39): a review upload that would freeze the server, the "play
//! now" flood, and rating farming. Each test is a stranger's reproduction over real HTTP
//! against the server's default limits where the point is a limit.

mod common;

use common::accounts::{call, send, session_of, signup, uniq, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use std::time::Duration;

/// `POST /api/auth/guest` with a JSON body, as the page sends it: (status, cookie, body).
async fn guest_request(s: &Server) -> (u16, Option<String>, Value) {
    send(
        s,
        "POST",
        "/api/auth/guest",
        &Session::default(),
        None,
        Some(json!({})),
    )
    .await
}

/// A guest session.
async fn guest(s: &Server) -> Session {
    let (st, set, v) = guest_request(s).await;
    assert!(st == 200 || st == 201, "guest: {st} {v}");
    session_of(set, &v)
}

/// POSTs an SGF text as a review; returns (status, body).
async fn upload(s: &Server, sgf: &str) -> (u16, Value) {
    let resp = s
        .http
        .post(format!("{}/api/reviews", s.base))
        .header("content-type", "application/x-go-sgf")
        .body(sgf.to_string())
        .send()
        .await
        .expect("answered");
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Issue 39, point 1: `(;SZ[25]` and 4,000 nodes of `AB[aa:yy]AE[aa:yy]` (76 KB, under every
/// size cap) took 11 s to upload and froze the server on each read. It is refused at once,
/// naming the set-up cap and the line; a record at the cap is stored, and reading it (many
/// times at once) leaves `/healthz` answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_set_up_bomb_is_refused_naming_the_cap_and_reads_never_stall_the_server() {
    let s = Server::start("sqlite").await;
    for nodes in [4_000, 19_000] {
        let bomb = format!("(;SZ[25]{})", ";AB[aa:yy]AE[aa:yy]".repeat(nodes));
        let (st, v) = upload(&s, &bomb).await;
        assert_eq!((st, v["code"].as_str()), (422, Some("review.sgf")), "{v}");
        let msg = v["error"].as_str().unwrap();
        assert!(
            msg.contains("too much set-up") && msg.contains("31250"),
            "{msg}"
        );
        assert_eq!(v["args"]["line"], 1, "{v}");
    }
    assert_eq!(baduk_server::review::count(&s.hub.store).await.unwrap(), 0);

    // At the cap (50 × 361 = 18,050 points on 19×19): stored, and its reads cost no replay.
    let heavy = format!("(;SZ[19]{};B[dd];W[pp])", ";AB[aa:ss]AE[aa:ss]".repeat(12));
    let (st, v) = upload(&s, &heavy).await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let mut reads = Vec::new();
    for i in 0..24 {
        let (http, base, id) = (s.http.clone(), s.base.clone(), id.clone());
        let path = match i % 3 {
            0 => format!("/api/reviews/{id}"),
            1 => format!("/api/reviews/{id}/analysis"),
            _ => format!("/api/reviews/{id}/record?analysis=1"),
        };
        reads.push(tokio::spawn(async move {
            http.get(format!("{base}{path}"))
                .send()
                .await
                .map(|r| r.status().as_u16())
        }));
    }
    let health = tokio::time::timeout(Duration::from_secs(10), s.get("/healthz"))
        .await
        .expect("/healthz answers while the review is read");
    assert_eq!(health.0, 200);
    for r in reads {
        assert_eq!(r.await.unwrap().unwrap(), 200);
    }
    let (st, r) = s.get(&format!("/api/reviews/{id}")).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["moves"].as_array().unwrap().len(), 2);
    assert_eq!(r["analysis"]["total"], 3, "{r}");
    assert_eq!(r["setup"]["black"].as_array().unwrap().len(), 0);
}

/// Issue 39, point 2: two guests of one address alternating `POST /api/seeks` made 456 games
/// in 20 s. Each seek now costs a game creation and a paired game counts against the
/// open-games cap of its seekers' address; guests have their own budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_flood_stops_at_the_creation_budget_and_the_open_games_cap() {
    for db in databases() {
        let s = Server::start_config(&db, |c| c.limits = baduk_server::Limits::default()).await;
        let (a, b) = (guest(&s).await, guest(&s).await);
        let seek = json!({"game": "go", "size": 9});
        let mut games = std::collections::HashSet::new();
        let mut refused = Vec::new();
        for i in 0..40 {
            let who = if i % 2 == 0 { &a } else { &b };
            let (st, v) = call(&s, "POST", "/api/seeks", who, Some(seek.clone())).await;
            match st {
                201 => {
                    if let Some(g) = v["game"]["id"].as_str() {
                        games.insert(g.to_string());
                    }
                }
                429 => refused.push(v["code"].as_str().unwrap_or("").to_string()),
                _ => panic!("seek {i}: {st} {v}"),
            }
        }
        let cap = baduk_server::Limits::default().open_games_per_client;
        assert!(games.len() <= cap, "{} games from one address", games.len());
        assert!(!refused.is_empty(), "the flood was never refused");
        assert!(
            refused
                .iter()
                .all(|c| c == "limit.rate" || c == "limit.open_games"),
            "{refused:?}"
        );
        // Guests: three a minute from one address (two were made above).
        guest(&s).await;
        let (st, _, v) = guest_request(&s).await;
        assert_eq!((st, v["code"].as_str()), (429, Some("limit.rate")), "{v}");
        assert!(v["error"].as_str().unwrap().contains("guest"), "{v}");
    }
}

/// Pairs two accounts' rated 9×9 seeks; returns (black, white, game id).
async fn rated_pair<'a>(
    s: &Server,
    x: &'a Session,
    y: &'a Session,
) -> (&'a Session, &'a Session, String) {
    let seek = json!({"game": "go", "size": 9, "rated": true, "clock": "absolute:600", "range": [0, 3000]});
    let (st, v) = call(s, "POST", "/api/seeks", x, Some(seek.clone())).await;
    assert_eq!(st, 201, "{v}");
    let (st, v) = call(s, "POST", "/api/seeks", y, Some(seek)).await;
    assert_eq!(st, 201, "{v}");
    let game = &v["game"];
    let id = game["id"].as_str().expect("paired").to_string();
    if game["seat"] == "white" {
        (x, y, id)
    } else {
        (y, x, id)
    }
}

async fn act(s: &Server, id: &str, who: &Session, action: &str) {
    let (st, v) = call(
        s,
        "POST",
        &format!("/api/games/{id}/actions"),
        who,
        Some(json!({ "action": action })),
    )
    .await;
    assert_eq!(st, 200, "{action}: {v}");
}

async fn rated_games(s: &Server, name: &str) -> i64 {
    let (_, p) = s.get(&format!("/api/players/{name}")).await;
    p["ratings"]["go-small"]["games"].as_i64().unwrap_or(0)
}

async fn name_of(s: &Server, who: &Session) -> String {
    let r = s
        .http
        .get(format!("{}/api/me", s.base))
        .header(
            "cookie",
            format!("baduk_session={}", who.cookie.as_deref().unwrap_or("")),
        )
        .send()
        .await
        .unwrap();
    let v: Value = r.json().await.unwrap();
    v["name"]
        .as_str()
        .or(v["account"]["name"].as_str())
        .expect("a name")
        .to_string()
}

/// Issue 39, point 6: a rated 9×9 game resigned after one move moved the winner 1500 → 1662,
/// and fresh guests made willing victims. Now a game with fewer than two moves each moves no
/// rating, guests play unrated only, and the same two accounts count at most
/// `RATED_PAIR_PER_DAY` rated games a day.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratings_cannot_be_farmed_by_quick_resignations_guests_or_one_opponent() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (x, y) = (
            signup(&s, &uniq("farm")).await,
            signup(&s, &uniq("prey")).await,
        );
        let (xn, yn) = (name_of(&s, &x).await, name_of(&s, &y).await);

        // Resigned after one move: the game ends, no rating moves.
        let (black, white, id) = rated_pair(&s, &x, &y).await;
        act(&s, &id, black, "E5").await;
        act(&s, &id, white, "resign").await;
        let st = s.state(&id).await;
        assert_eq!(st["status"], "finished", "{st}");
        assert!(st["rating_changes"].is_null(), "{st}");
        assert_eq!(
            (rated_games(&s, &xn).await, rated_games(&s, &yn).await),
            (0, 0)
        );

        // Two moves each: rated, up to the cap a day for this pair.
        let cap = baduk_server::game::ratings::RATED_PAIR_PER_DAY;
        for k in 0..cap + 1 {
            let (black, white, id) = rated_pair(&s, &x, &y).await;
            for (who, mv) in [(black, "C3"), (white, "G7"), (black, "C7"), (white, "G3")] {
                act(&s, &id, who, mv).await;
            }
            act(&s, &id, black, "resign").await;
            let st = s.state(&id).await;
            assert_eq!(st["status"], "finished", "{st}");
            assert_eq!(st["rating_changes"].is_null(), k >= cap, "game {k}: {st}");
        }
        assert_eq!(rated_games(&s, &xn).await, cap);
        assert_eq!(rated_games(&s, &yn).await, cap);

        // A guest may not seek or create a rated game.
        let g = guest(&s).await;
        let (st, v) = call(
            &s,
            "POST",
            "/api/seeks",
            &g,
            Some(json!({"game": "go", "size": 9, "rated": true})),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (403, Some("rated.guest")), "{v}");
        let (st, v) = call(
            &s,
            "POST",
            "/api/games",
            &g,
            Some(json!({"game": "go", "size": 9, "rated": true, "seats": {"white": {"kind": "open"}}})),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (403, Some("rated.guest")), "{v}");
    }
}

/// Issue 39, point 8: the engine's queue had no cap per client or overall. A client gets at
/// most `--reviews-per-client` reviews queued or running; the next is a 429 naming the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_queues_at_most_its_share_of_engine_reviews() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.reviews_per_client = 2;
        c.limits.bots.threads = 1;
    })
    .await;
    let game = "(;SZ[9];B[ee];W[cc];B[gg];W[cg];B[gc])";
    let mut codes = Vec::new();
    for _ in 0..3 {
        let (st, v) = upload(&s, game).await;
        assert_eq!(st, 201, "{v}");
        let id = v["id"].as_str().unwrap();
        let (st, a) = s
            .post(&format!("/api/reviews/{id}/analysis"), None, "")
            .await;
        codes.push((st, a["code"].as_str().map(str::to_string)));
    }
    assert_eq!(codes[0].0, 200, "{codes:?}");
    assert_eq!(codes[1].0, 200, "{codes:?}");
    assert_eq!(
        codes[2],
        (429, Some("review.per_client".to_string())),
        "{codes:?}"
    );
}

/// Issue 56's escaped set-up bomb: 19,990 nodes of `AB[\aa:ZZ]` in a variation (220 KB). The
/// old pre-scan skipped the escaped letter, so the value counted nothing, and the reader then
/// expanded every 52×52 rectangle: 201 after 6–8 s and 300 MB, then every mark, export and
/// engine position read it again.
fn escaped_bomb() -> String {
    format!(
        "(;GM[1]SZ[19];B[pd];W[dp](;B[pp])({}))",
        ";AB[\\aa:ZZ]".repeat(19_990)
    )
}

/// Issue 56's collection bomb: 900 games of 11 `AB[aa:ZZ]` (100 KB), each game under the old
/// per-game set-up cap: 3.6 s of CPU and 592 MB before the 422.
fn collection_bomb() -> String {
    format!("(;GM[1]{})", "AB[aa:ZZ]".repeat(11)).repeat(900)
}

/// The escaped bomb is refused at the set-up cap, its escapes read as what they stand for, and
/// the collection bomb at the reader's limit on points across the whole file; nothing is
/// stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escaped_and_collection_set_up_bombs_are_refused_naming_the_limit() {
    let s = Server::start("sqlite").await;
    let (st, v) = upload(&s, &escaped_bomb()).await;
    assert_eq!((st, v["code"].as_str()), (422, Some("review.sgf")), "{v}");
    let msg = v["error"].as_str().unwrap();
    assert!(
        msg.contains("too much set-up") && msg.contains("31250"),
        "{msg}"
    );
    assert!(
        v["args"]["property"]
            .as_str()
            .is_some_and(|p| p.starts_with("AB[aa:ZZ]")),
        "{v}"
    );

    let (st, v) = upload(&s, &collection_bomb()).await;
    assert_eq!(
        (st, v["code"].as_str()),
        (413, Some("review.points")),
        "{v}"
    );
    assert_eq!(v["args"]["max"], 100_000, "{v}");
    assert_eq!(v["args"]["limit"], "max_points", "{v}");
    assert!(v["error"].as_str().unwrap().contains("100000"), "{v}");
    assert_eq!(baduk_server::review::count(&s.hub.store).await.unwrap(), 0);
}

/// A live 9×9 bot game's replies stay prompt while three clients upload the bombs over and
/// over and another asks for marks and the annotated export of a stored review: the bombs
/// cost the reader a bounded count of work each, and marks and exports start from the game
/// stored at upload. (The bound is generous — a debug build on a shared machine — where the
/// old code gave 7–8 s replies in a release build; a normal reply takes milliseconds.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_game_stays_prompt_beside_bomb_uploads_and_review_reads() {
    let s = Server::start("sqlite").await;
    let game = "(;GM[1]SZ[19];B[pd];W[dp];B[pp];W[dd];B[fq];W[cn];B[jp];W[qf])";
    let (st, v) = upload(&s, game).await;
    assert_eq!(st, 201, "{v}");
    let review = v["id"].as_str().unwrap().to_string();
    let (id, seats) = s
        .create(json!({"game": "go", "size": 9, "rules": "chinese",
            "seats": {"white": {"kind": "bot", "bot": "baduk", "options": "playouts=50"}}}))
        .await;
    let black = common::token(&seats, "black");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut load = Vec::new();
    for k in 0..4 {
        let (http, base, stop, review) =
            (s.http.clone(), s.base.clone(), stop.clone(), review.clone());
        load.push(tokio::spawn(async move {
            let bomb = if k % 2 == 0 {
                escaped_bomb()
            } else {
                collection_bomb()
            };
            let mut answered = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let r = if k < 3 {
                    http.post(format!("{base}/api/reviews"))
                        .body(bomb.clone())
                        .send()
                        .await
                } else if answered % 2 == 0 {
                    http.post(format!("{base}/api/reviews/{review}/marks"))
                        .body("{\"toggle\": \"Q16\"}")
                        .send()
                        .await
                } else {
                    http.get(format!("{base}/api/reviews/{review}/record?analysis=1"))
                        .send()
                        .await
                };
                let status = r.map(|r| r.status().as_u16()).unwrap_or(0);
                if k < 3 {
                    assert!(status == 413 || status == 422, "bomb {k}: {status}");
                } else {
                    assert_eq!(status, 200, "marks and export");
                }
                answered += 1;
            }
            answered
        }));
    }
    let mut slowest = Duration::ZERO;
    let mut points = ["E5", "C3", "G7", "C7", "G3", "E3", "E7"].into_iter();
    for n in 1..=3 {
        let asked = std::time::Instant::now();
        // The first free point of the list (the bot may have taken one).
        loop {
            let mv = points.next().expect("a free point");
            if s.act(&id, &black, mv).await.0 == 200 {
                break;
            }
        }
        s.wait_for(&id, 60, |x| x["moves"].as_array().unwrap().len() >= 2 * n)
            .await;
        slowest = slowest.max(asked.elapsed());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for l in load {
        assert!(l.await.unwrap() > 0);
    }
    assert!(
        slowest < Duration::from_secs(5),
        "a bot reply took {slowest:?} beside the bombs"
    );
    assert_eq!(baduk_server::review::count(&s.hub.store).await.unwrap(), 1);
}
