//! Accounts over HTTP and WebSocket for the tests: a browser-like session (its cookie and CSRF
//! token), sign-up, calls with the cookie, and the game socket opened with it.

use super::Server;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// A unique name for this run (tests share one PostgreSQL database).
pub fn uniq(base: &str) -> String {
    format!("{base}{}", &baduk_server::game::hub::new_id()[..6])
}

/// A browser-like client: its session cookie and CSRF token.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub cookie: Option<String>,
    pub csrf: Option<String>,
}

/// A request's answer: status, the `Set-Cookie` header, the body as JSON.
pub async fn send(
    s: &Server,
    method: &str,
    path: &str,
    who: &Session,
    csrf: Option<&str>,
    body: Option<Value>,
) -> (u16, Option<String>, Value) {
    let url = format!("{}{path}", s.base);
    let mut r = match method {
        "GET" => s.http.get(url),
        "DELETE" => s.http.delete(url),
        "PUT" => s.http.put(url),
        _ => s.http.post(url),
    };
    if let Some(c) = &who.cookie {
        r = r.header("cookie", format!("baduk_session={c}"));
    }
    if let Some(t) = csrf {
        r = r.header("x-csrf-token", t);
    }
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let resp = r.send().await.expect("answered");
    let status = resp.status().as_u16();
    let set = resp
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        set,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The session a sign-up, sign-in or guest answer gives.
pub fn session_of(set: Option<String>, body: &Value) -> Session {
    let set = set.expect("a Set-Cookie header");
    let token = set
        .split(';')
        .next()
        .and_then(|kv| kv.strip_prefix("baduk_session="))
        .expect("the session cookie")
        .to_string();
    Session {
        cookie: Some(token),
        csrf: body["csrf"].as_str().map(str::to_string),
    }
}

/// A request made with an API token (or none) alone: its status and body as JSON (or a string).
pub async fn with_token(
    s: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
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

/// A new guest: its session and the answer's body.
pub async fn guest(s: &Server) -> (Session, Value) {
    let (st, set, v) = send(
        s,
        "POST",
        "/api/auth/guest",
        &Session::default(),
        None,
        None,
    )
    .await;
    assert_eq!(st, 201, "{v}");
    (session_of(set, &v), v)
}

pub async fn signup(s: &Server, name: &str) -> Session {
    let (st, set, v) = send(
        s,
        "POST",
        "/api/auth/signup",
        &Session::default(),
        None,
        Some(json!({"username": name, "password": "tengen-hoshi-komoku"})),
    )
    .await;
    assert_eq!(st, 201, "signup {name}: {v}");
    session_of(set, &v)
}

/// A POST/DELETE with the session's cookie and its CSRF token.
pub async fn call(
    s: &Server,
    method: &str,
    path: &str,
    who: &Session,
    body: Option<Value>,
) -> (u16, Value) {
    let (st, _, v) = send(s, method, path, who, who.csrf.as_deref(), body).await;
    (st, v)
}

pub async fn get(s: &Server, path: &str, who: &Session) -> (u16, Value) {
    let (st, _, v) = send(s, "GET", path, who, None, None).await;
    (st, v)
}

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The upgrade request of a WebSocket to `path` with the session's cookie (and the server's
/// own origin).
pub fn ws_request(
    s: &Server,
    path: &str,
    who: &Session,
) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    let mut req = format!("{}{path}", s.ws).into_client_request().unwrap();
    if let Some(c) = &who.cookie {
        req.headers_mut()
            .insert("cookie", format!("baduk_session={c}").parse().unwrap());
        req.headers_mut()
            .insert("origin", format!("http://{}", s.addr).parse().unwrap());
    }
    req
}

/// A WebSocket opened with the session's cookie (and the server's own origin).
pub async fn ws(s: &Server, path: &str, who: &Session) -> Ws {
    tokio_tungstenite::connect_async(ws_request(s, path, who))
        .await
        .expect("the socket opens")
        .0
}

pub async fn next_of(w: &mut Ws, kind: &str, secs: u64) -> Value {
    let end = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let m = tokio::time::timeout_at(end, w.next())
            .await
            .unwrap_or_else(|_| panic!("no `{kind}` message within {secs} s"))
            .expect("open")
            .expect("readable");
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] == kind {
                return v;
            }
        }
    }
}

/// Sends a socket message; the answer to it (`ack`, `chat_ack` or `error`).
pub async fn ask(w: &mut Ws, msg: Value) -> Value {
    w.send(Message::Text(msg.to_string().into())).await.unwrap();
    let end = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let m = tokio::time::timeout_at(end, w.next())
            .await
            .expect("an answer")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] == "ack" || v["type"] == "chat_ack" || v["type"] == "error" {
                return v;
            }
        }
    }
}

pub async fn wsend(w: &mut Ws, v: Value) {
    w.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// A guest that makes a 9×9 game as Black against the Go bot with `options`, resigns it, then
/// signs up as `name` keeping it: (the game's id, the guest's session, the account's session).
pub async fn guest_resigns_to_the_bot_then_signs_up(
    s: &Server,
    options: &str,
    name: &str,
) -> (String, Session, Session) {
    let (guest, v) = guest(s).await;
    assert_eq!(v["account"]["guest"], true);
    let (st, g) = call(
        s,
        "POST",
        "/api/games",
        &guest,
        Some(serde_json::json!({"game": "go", "size": 9,
        "seats": {"white": {"kind": "bot", "bot": "baduk", "options": options}}})),
    )
    .await;
    assert_eq!(st, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    // The guest acts with its cookie alone.
    let (st, v) = call(
        s,
        "POST",
        &format!("/api/games/{id}/actions"),
        &guest,
        Some(serde_json::json!({"action": "resign"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let (st, set, v) = send(
        s,
        "POST",
        "/api/auth/signup",
        &guest,
        guest.csrf.as_deref(),
        Some(serde_json::json!({"username": name, "password": "tengen-hoshi-komoku"})),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["account"]["guest"], false);
    let account = session_of(set, &v);
    (id, guest, account)
}

/// Plays `action` in game `id` as the session's seat, which must take it.
pub async fn play(s: &Server, id: &str, who: &Session, action: &str) {
    let path = format!("/api/games/{id}/actions");
    let (st, v) = call(s, "POST", &path, who, Some(json!({ "action": action }))).await;
    assert_eq!(st, 200, "{action}: {v}");
}

/// A game between two accounts made with `body` (its seats replaced): `black` creates it,
/// `white` joins. Returns (id, black's seat token, white's seat token).
pub async fn game_between(
    s: &Server,
    black: &Session,
    white: &Session,
    body: Value,
) -> (String, String, String) {
    let mut body = body;
    body["seats"] = json!({"white": {"kind": "open"}});
    let (st, v) = call(s, "POST", "/api/games", black, Some(body)).await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let bt = v["seats"]["black"]["token"].as_str().unwrap().to_string();
    let (st, j) = call(
        s,
        "POST",
        &format!("/api/games/{id}/join"),
        white,
        Some(json!({"seat": "white"})),
    )
    .await;
    assert_eq!(st, 200, "{j}");
    (id, bt, j["token"].as_str().unwrap().to_string())
}
