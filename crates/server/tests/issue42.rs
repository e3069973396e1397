//! What a player still trips over (issue 42), over real HTTP and WebSocket on SQLite and
//! PostgreSQL: the lobby's socket pushes the open seeks as they change; a bot's seat shows its
//! fixed rating.

mod common;

use common::accounts::{call, next_of, signup, uniq, ws, wsend, Session};
use common::{databases, Server};
use serde_json::{json, Value};

/// The next `seeks` message of the lobby's socket whose list satisfies `pred`.
async fn seeks_where(lobby: &mut common::accounts::Ws, pred: impl Fn(&[Value]) -> bool) -> Value {
    // Pushed at once; the list is read again every 5 s anyway, so 3 s proves the push.
    loop {
        let m = next_of(lobby, "seeks", 3).await;
        if pred(m["seeks"].as_array().expect("a list")) {
            return m;
        }
    }
}

/// Makes a seek for a `size`×`size` Go game as `who`: the answer (its id, a game if paired).
async fn seek(s: &Server, who: &Session, size: u32) -> Value {
    let (st, made) = call(
        s,
        "POST",
        "/api/seeks",
        who,
        Some(json!({"game": "go", "size": size})),
    )
    .await;
    assert_eq!(st, 201, "{made}");
    made
}

fn has(list: &[Value], id: &str) -> bool {
    list.iter().any(|x| x["id"] == json!(id))
}

#[tokio::test]
async fn the_lobby_socket_pushes_seeks_made_and_cancelled_either_way() {
    for db in databases() {
        let s = Server::start(&db).await;
        let mut lobby = ws(&s, "/ws/lobby", &Session::default()).await;
        let now = next_of(&mut lobby, "seeks", 5).await;
        assert!(now["seeks"].is_array(), "{now}");
        wsend(&mut lobby, json!({"type": "ping"})).await;
        next_of(&mut lobby, "pong", 5).await;
        let sam = signup(&s, &uniq("sam")).await;
        let made = seek(&s, &sam, 13).await;
        let id = made["id"].as_str().unwrap().to_string();
        let listed = seeks_where(&mut lobby, |l| has(l, &id)).await;
        let mine = listed["seeks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == json!(id))
            .unwrap()
            .clone();
        assert_eq!(mine["size"], 13, "{mine}");
        assert_eq!(mine["rating"], 1500.0, "{mine}");
        // Its socket closed: the seek is dropped and the lobby told.
        let mut watch = ws(&s, &format!("/ws/seeks/{id}"), &sam).await;
        watch.close(None).await.unwrap();
        seeks_where(&mut lobby, |l| !has(l, &id)).await;
        // A seek cancelled with DELETE: the same.
        let made = seek(&s, &sam, 13).await;
        let id = made["id"].as_str().unwrap().to_string();
        seeks_where(&mut lobby, |l| has(l, &id)).await;
        let (st, v) = call(&s, "DELETE", &format!("/api/seeks/{id}"), &sam, None).await;
        assert_eq!(st, 200, "{v}");
        seeks_where(&mut lobby, |l| !has(l, &id)).await;
        // Two seeks paired: both leave the list.
        let one = seek(&s, &sam, 9).await;
        let one = one["id"].as_str().unwrap().to_string();
        seeks_where(&mut lobby, |l| has(l, &one)).await;
        let tom = signup(&s, &uniq("tom")).await;
        let two = seek(&s, &tom, 9).await;
        assert!(two["game"]["id"].is_string(), "{two}");
        seeks_where(&mut lobby, |l| !has(l, &one)).await;
        // Anything but a ping is refused, and the socket stays.
        wsend(&mut lobby, json!({"type": "accept_bot"})).await;
        let e = next_of(&mut lobby, "error", 5).await;
        assert_eq!(e["status"], 400, "{e}");
    }
}

#[tokio::test]
async fn a_bot_seat_shows_its_fixed_rating() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (st, g) = s
            .post(
                "/api/games",
                None,
                &json!({"game": "go", "size": 9,
                "seats": {"black": {"kind": "human"}, "white": {"kind": "bot", "bot": "baduk", "options": "level=3"}}})
                .to_string(),
            )
            .await;
        assert_eq!(st, 201, "{g}");
        let state = s.state(g["id"].as_str().unwrap()).await;
        let white = &state["seats"]["white"];
        assert_eq!(white["rating"]["rating"], 640.0, "{white}");
        assert_eq!(
            white["rating"]["rank"],
            json!(baduk_rating::go_rank(640.0)),
            "{white}"
        );
        assert!(state["seats"]["black"].get("rating").is_none(), "{state}");
    }
}
