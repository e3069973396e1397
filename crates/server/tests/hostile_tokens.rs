//! Issue 56, point 5, tried as a thief holding an API token, over real HTTP and WebSocket: a
//! token does only what the scopes chosen when it was made say (`403` `auth.scope` naming the
//! missing one), and no account-level action whatever its scopes — it cannot sign its owner
//! out everywhere, nor list, make or revoke tokens (`403` `auth.session_only`).

use common::accounts::{ask, call, signup, uniq, with_token, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

mod common;

/// A request made with the API token `token` only: its status and body.
async fn by_token(
    s: &Server,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    with_token(s, method, path, Some(token), body).await
}

/// A token of `me` holding `scopes`: (id, token).
async fn token_with(s: &Server, me: &Session, scopes: Value) -> (String, String) {
    let (st, v) = call(
        s,
        "POST",
        "/api/tokens",
        me,
        Some(json!({"label": "bot", "scopes": scopes})),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    (
        v["id"].as_str().unwrap().to_string(),
        v["token"].as_str().unwrap().to_string(),
    )
}

/// The game socket of `id`, opened with the API token; None when the handshake is refused
/// (its status then).
async fn socket(s: &Server, id: &str, token: &str) -> Result<common::accounts::Ws, u16> {
    let mut req = format!("{}/ws/games/{id}", s.ws)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    match tokio_tungstenite::connect_async(req).await {
        Ok((w, _)) => Ok(w),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("the handshake failed otherwise: {e}"),
    }
}

/// A 403 `auth.scope` naming `scope`.
fn lacks(st: u16, v: &Value, scope: &str, what: &str) {
    assert_eq!(st, 403, "{what}: {v}");
    assert_eq!(v["code"], "auth.scope", "{what}: {v}");
    assert_eq!(v["args"]["scope"], scope, "{what}: {v}");
    assert!(v["error"].as_str().unwrap().contains(scope), "{what}: {v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_token_does_only_what_its_scopes_say_and_no_account_level_action() {
    for db in databases() {
        let s = Server::start(&db).await;
        let me = signup(&s, &uniq("scopes")).await;
        // Scopes that are none of the four, or none at all: 400 naming the allowed ones.
        for bad in [json!([]), json!(["admin"]), json!(["read", "write"])] {
            let (st, v) = call(
                &s,
                "POST",
                "/api/tokens",
                &me,
                Some(json!({"label": "x", "scopes": bad})),
            )
            .await;
            assert_eq!(st, 400, "{bad}: {v}");
            assert_eq!(v["code"], "auth.scopes", "{v}");
            assert_eq!(
                v["args"]["allowed"],
                json!(["read", "play", "challenge", "bot"])
            );
        }
        let (_, reader) = token_with(&s, &me, json!(["read"])).await;
        let (_, player) = token_with(&s, &me, json!(["play"])).await;
        // (`bot` is a bot account's scope: a person asking for it is refused, tests/bot_api.rs.)
        let (all_id, all) = token_with(&s, &me, json!(["challenge", "play", "read", "read"])).await;
        // Each token's scopes are listed (in one order, without repeats).
        let (_, list) = call(&s, "GET", "/api/tokens", &me, None).await;
        let scopes: Vec<Value> = list["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["scopes"].clone())
            .collect();
        assert_eq!(
            scopes,
            vec![
                json!(["read"]),
                json!(["play"]),
                json!(["read", "play", "challenge"])
            ],
            "{list}"
        );
        // `read` reads; it neither creates a game nor acts.
        let (st, v) = by_token(&s, "GET", "/api/me", &reader, None).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["scopes"], json!(["read"]), "{v}");
        let game = json!({"game": "go", "size": 9});
        let (st, v) = by_token(&s, "POST", "/api/games", &reader, Some(game.clone())).await;
        lacks(st, &v, "play", "a read-only token creates a game");
        // `play` plays; it does not read one's profile.
        let (st, v) = by_token(&s, "GET", "/api/me", &player, None).await;
        lacks(st, &v, "read", "a play-only token reads /api/me");
        let (st, v) = by_token(&s, "POST", "/api/games", &player, Some(game.clone())).await;
        assert_eq!(st, 201, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let (st, v) = by_token(
            &s,
            "POST",
            &format!("/api/games/{id}/actions"),
            &reader,
            Some(json!({"action": "E5"})),
        )
        .await;
        lacks(
            st,
            &v,
            "play",
            "a read-only token acts for the account's seat",
        );
        // Over the game's socket: a read-only token watches, but neither acts nor chats for
        // the account; a play-only one does not open it.
        let mut w = socket(&s, &id, &reader)
            .await
            .expect("a read-only token watches");
        let v = ask(&mut w, json!({"id": 1, "action": "E5"})).await;
        assert_eq!(v["status"], 403, "{v}");
        assert_eq!(v["code"], "auth.scope", "{v}");
        assert_eq!(v["args"]["scope"], "play", "{v}");
        let v = ask(
            &mut w,
            json!({"type": "chat", "id": 2, "channel": "spectators", "text": "hi"}),
        )
        .await;
        assert_eq!(v["code"], "auth.scope", "{v}");
        let v = ask(&mut w, json!({"type": "hello", "id": 3})).await;
        assert_eq!(v["code"], "auth.scope", "{v}");
        assert_eq!(socket(&s, &id, &player).await.err(), Some(403));
        let mut w = socket(&s, &id, &all).await.expect("a full token watches");
        let v = ask(&mut w, json!({"id": 4, "action": "E5"})).await;
        assert_eq!(v["type"], "ack", "a token with `play` acts: {v}");
        // No account-level action, whatever the scopes: 403, and nothing changes.
        for (method, path, body) in [
            ("POST", "/api/auth/logout-all".to_string(), None),
            ("GET", "/api/tokens".to_string(), None),
            (
                "POST",
                "/api/tokens".to_string(),
                Some(json!({"label": "more"})),
            ),
            ("DELETE", format!("/api/tokens/{all_id}"), None),
        ] {
            let (st, v) = by_token(&s, method, &path, &all, body).await;
            assert_eq!(st, 403, "{method} {path}: {v}");
            assert_eq!(v["code"], "auth.session_only", "{method} {path}: {v}");
        }
        let (st, _) = call(&s, "GET", "/api/me", &me, None).await;
        assert_eq!(st, 200, "the session outlived the token's logout-all");
        let (st, v) = by_token(&s, "GET", "/api/me", &all, None).await;
        assert_eq!(st, 200, "the token was not revoked: {v}");
        let (_, list) = call(&s, "GET", "/api/tokens", &me, None).await;
        assert_eq!(list["tokens"].as_array().unwrap().len(), 3, "{list}");
    }
}
