//! Doors a stranger could still open, each reproduced over real HTTP and WebSockets: a rated
//! game against a bot weakened by its options (a rating farm), watchers' sockets that lock a
//! seated player out of its own game, and a half-done engine review resumed by a read that
//! nobody was charged for.

mod common;

use common::accounts::{call, signup, uniq, Session, Ws};
use common::{token, Server};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// A rated game against `baduk` (or a Wall Go bot) whose options change its strength or when
/// it resigns was accepted, and the bot's rating came from its level alone: a new account went
/// 1500 → 2008 when the bot resigned after 4 moves. Such options are refused for a rated game,
/// naming the option; the level alone is rated, and the options stay open to unrated games.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_bot_plays_its_levels_own_settings_and_weakening_options_are_refused() {
    let s = Server::start("sqlite").await;
    let me = signup(&s, &uniq("farmer")).await;
    let go = |options: &str, rated: bool| {
        json!({"game": "go", "size": 9, "rules": "chinese", "rated": rated,
            "seats": {"white": {"kind": "bot", "bot": "baduk", "options": options}}})
    };
    for (options, named) in [
        ("resign=0.7", "resign"),
        ("level=10,resign=0.7", "resign"),
        ("playouts=10,priors=none", "playouts"),
        ("level=9,time=0.05", "time"),
        ("threads=1", "threads"),
    ] {
        let (st, v) = call(&s, "POST", "/api/games", &me, Some(go(options, true))).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (400, Some("rated.bot_options")),
            "{options}: {v}"
        );
        assert_eq!(v["args"]["option"], named, "{options}: {v}");
        assert!(v["error"].as_str().unwrap().contains(named), "{v}");
        // Unrated, the same options are the player's to choose.
        let (st, v) = call(&s, "POST", "/api/games", &me, Some(go(options, false))).await;
        assert_eq!(st, 201, "{options} unrated: {v}");
    }
    let wall = json!({"game": "wallgo", "rated": true,
        "seats": {"B": {"kind": "bot", "bot": "sedol", "options": "nodes=1"}}});
    let (st, v) = call(&s, "POST", "/api/games", &me, Some(wall)).await;
    assert_eq!(
        (st, v["code"].as_str()),
        (400, Some("rated.bot_options")),
        "{v}"
    );
    assert_eq!(v["args"]["option"], "nodes", "{v}");
    // The level alone is a rated bot: its fixed rating holds for it.
    let (st, v) = call(&s, "POST", "/api/games", &me, Some(go("level=3", true))).await;
    assert_eq!(st, 201, "{v}");
    let state = s.state(v["id"].as_str().unwrap()).await;
    assert_eq!(state["rated"], true);
    assert_eq!(state["seats"]["white"]["options"], "level=3", "{state}");
    // No rating moved: the account has played no rated game.
    let (_, me_now) = common::accounts::get(&s, "/api/me", &me).await;
    let ratings = me_now["account"]["ratings"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert!(
        ratings
            .values()
            .all(|r| r["games"].as_i64().unwrap_or(0) == 0),
        "{me_now}"
    );
}

/// "Play now": the bot a rated seek is offered (and the game it makes) carries its level and
/// nothing else, so the offer path plays the level's own settings too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_a_rated_seek_is_offered_plays_its_level_alone() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.seek_bot_after = Duration::from_millis(1000);
    })
    .await;
    let me = signup(&s, &uniq("seeker")).await;
    let seek = json!({"game": "go", "size": 9, "clock": "absolute:900", "rated": true});
    let (st, v) = call(&s, "POST", "/api/seeks", &me, Some(seek)).await;
    assert_eq!(st, 201, "{v}");
    let path = format!("/ws/seeks/{}", v["id"].as_str().unwrap());
    let mut w = common::accounts::ws(&s, &path, &me).await;
    let offer = common::accounts::next_of(&mut w, "bot_offer", 10).await;
    let options = offer["options"].as_str().unwrap();
    assert!(
        options.starts_with("level=") && !options.contains(','),
        "{offer}"
    );
    common::accounts::wsend(&mut w, json!({"type": "accept_bot"})).await;
    let m = common::accounts::next_of(&mut w, "matched", 10).await;
    let state = s.state(m["game"]["id"].as_str().unwrap()).await;
    assert_eq!(state["rated"], true);
    let seat = m["game"]["seat"].as_str().unwrap();
    let other = if seat == "black" { "white" } else { "black" };
    assert_eq!(state["seats"][other]["options"], json!(options), "{state}");
}

/// A WebSocket to `path` from the loopback address `from` (another client than 127.0.0.1),
/// with `who`'s cookie: the socket, or the status that refused the upgrade.
async fn ws_from(s: &Server, from: &str, path: &str, who: &Session) -> Result<Ws, u16> {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let stream = sock.connect(s.addr).await.expect("connects");
    let req = common::accounts::ws_request(s, path, who);
    let plain = tokio_tungstenite::MaybeTlsStream::Plain(stream);
    match tokio_tungstenite::client_async(req, plain).await {
        Ok((w, _)) => Ok(w),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().as_u16()),
        Err(e) => panic!("the upgrade failed: {e}"),
    }
}

/// The next text message of `w` within `secs` as JSON; None if it closed (or nothing came).
async fn next_json(w: &mut Ws, secs: u64) -> Option<Value> {
    let end = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match tokio::time::timeout_at(end, w.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).ok(),
            Ok(Some(Ok(_))) => {}
            _ => return None,
        }
    }
}

/// Sends `msg` on `w` and returns the answer carrying its `id`.
async fn ask(w: &mut Ws, msg: Value) -> Value {
    let id = msg["id"].clone();
    w.send(Message::Text(msg.to_string().into())).await.unwrap();
    loop {
        let m = next_json(w, 10).await.expect("an answer");
        if m["id"] == id {
            return m;
        }
    }
}

/// 10 addresses × 10 sockets on `/ws/games/{id}` (default caps: 20 a client, 100 a game) left
/// the seated player's own socket a `429 limit.sockets`. Seats get their own room: the
/// account holding a seat connects, and a seat token's holder that asks for a seat's room
/// (`?seat`) proves it with `hello`; the watchers share the game's room, each address up to a
/// tenth of it, and one that asked for a seat's room and proved none is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_sockets_never_lock_the_seated_players_out_of_their_game() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.sockets_per_client = 20;
        c.limits.sockets_per_game = 100;
    })
    .await;
    let me = signup(&s, &uniq("seated")).await;
    // Signed in, the creator holds Black; White is a seat token's.
    let (st, v) = call(
        &s,
        "POST",
        "/api/games",
        &me,
        Some(json!({"game": "go", "size": 9, "rules": "chinese"})),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let white = token(&v["seats"], "white");
    let path = format!("/ws/games/{id}");
    let nobody = Session::default();
    let mut squat = Vec::new();
    for a in 10..20 {
        for _ in 0..10 {
            let w = ws_from(&s, &format!("127.0.0.{a}"), &path, &nobody).await;
            squat.push(w.expect("a watcher's socket, within the address's share"));
        }
    }
    // The watchers' room is full: another address, or another socket of a squatter, waits.
    assert_eq!(
        ws_from(&s, "127.0.0.30", &path, &nobody).await.err(),
        Some(429)
    );
    assert_eq!(
        ws_from(&s, "127.0.0.10", &path, &nobody).await.err(),
        Some(429)
    );
    // The seated account's own socket opens, and its hello names its seat.
    let mut mine = ws_from(&s, "127.0.0.1", &path, &me)
        .await
        .expect("the seated player's socket opens");
    assert_eq!(next_json(&mut mine, 10).await.unwrap()["type"], "state");
    let hello = ask(&mut mine, json!({"type": "hello", "id": "h"})).await;
    assert_eq!(hello["seat"], "black", "{hello}");
    // The token's holder asks for a seat's room and proves it.
    let seat_path = format!("{path}?seat");
    let mut theirs = ws_from(&s, "127.0.0.2", &seat_path, &nobody)
        .await
        .expect("a seat's socket opens");
    let hello = ask(
        &mut theirs,
        json!({"type": "hello", "id": "h", "token": white}),
    )
    .await;
    assert_eq!(hello["seat"], "white", "{hello}");
    let acted = ask(&mut mine, json!({"id": "m", "token": null, "action": "E5"})).await;
    assert_eq!(acted["type"], "ack", "{acted}");
    // A stranger who asks for a seat's room but proves none is closed (the watchers are full),
    // naming the cap.
    let mut liar = ws_from(&s, "127.0.0.31", &seat_path, &nobody)
        .await
        .expect("a seat's room is asked for");
    let end = tokio::time::Instant::now() + Duration::from_secs(20);
    let reason = loop {
        match tokio::time::timeout_at(end, liar.next()).await {
            Ok(Some(Ok(Message::Close(Some(f))))) => break f.reason.as_str().to_string(),
            Ok(Some(Ok(_))) => {}
            other => panic!("no close frame: {other:?}"),
        }
    };
    assert!(reason.contains("limit.sockets"), "{reason}");
    drop(squat);
}

/// SGF of a 9×9 game of `moves` moves (a checkerboard filled row by row), named `n`.
fn long_record(n: usize, moves: usize) -> String {
    let mut sgf = format!("(;SZ[9]KM[7]RU[Chinese]GN[door {n}]");
    for i in 0..moves {
        let (c, r) = (i % 9, i / 9);
        let colour = if i % 2 == 0 { 'B' } else { 'W' };
        let at = |x: usize| (b'a' + x as u8) as char;
        sgf.push_str(&format!(";{colour}[{}{}]", at(c), at(r)));
    }
    sgf.push(')');
    sgf
}

/// A half-done review that is not running was queued again with no owner by anyone's read,
/// so it counted toward nobody's cap: one address had 4 running or queued against a cap of 2.
/// A read that resumes a review is charged to the reader, every time: past the cap the review
/// stays `partial` and says why; another reader's read resumes it on that reader's share.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_review_is_charged_to_whoever_resumes_it() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.reviews_per_client = 2;
        c.limits.bots.threads = 1;
    })
    .await;
    // Four reviews each left with one position done and not running (as a restart or the
    // unwatched pause leaves them).
    let url = s.hub.store.url().to_string();
    let file = url.strip_prefix("sqlite:").unwrap();
    let db = sqlx::sqlite::SqlitePool::connect(&format!("sqlite://{file}"))
        .await
        .unwrap();
    let mut ids = Vec::new();
    for n in 0..4 {
        let resp = s
            .http
            .post(format!("{}/api/reviews", s.base))
            .header("content-type", "application/x-go-sgf")
            .body(long_record(n, 40))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 201);
        let v: Value = resp.json().await.unwrap();
        let id = v["id"].as_str().unwrap().to_string();
        sqlx::query("INSERT INTO review_analysis (review_id, position, result) VALUES ($1, 0, $2)")
            .bind(&id)
            .bind(json!({"position": 0}).to_string())
            .execute(&db)
            .await
            .unwrap();
        ids.push(id);
    }
    let read = |http: reqwest::Client, id: String| {
        let base = s.base.clone();
        async move {
            let r = http
                .get(format!("{base}/api/reviews/{id}/analysis"))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
            r.json::<Value>().await.unwrap()
        }
    };
    let mut states = Vec::new();
    for id in &ids {
        states.push(read(s.http.clone(), id.clone()).await);
    }
    let going = |v: &Value| matches!(v["status"].as_str(), Some("queued" | "running"));
    let resumed = states.iter().filter(|v| going(v)).count();
    assert_eq!(resumed, 2, "{states:?}");
    for v in states.iter().filter(|v| !going(v)) {
        assert_eq!(v["status"], "partial", "{v}");
        assert_eq!(v["paused"]["code"], "review.per_client", "{v}");
    }
    // Another address's read resumes one of the others, on that address's share.
    let other = reqwest::Client::builder()
        .local_address("127.0.0.3".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let waiting = ids
        .iter()
        .zip(&states)
        .find(|(_, v)| !going(v))
        .map(|(id, _)| id.clone())
        .unwrap();
    let v = read(other, waiting).await;
    assert!(going(&v), "{v}");
}
