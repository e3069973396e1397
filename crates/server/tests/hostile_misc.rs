//! Issue 39, points 3 and 8, tried as a stranger over real HTTP and WebSocket: an unlisted
//! game is on nobody's profile or list and its open seat takes only its invite secret; every
//! response carries the security headers (and the pages have nothing inline for them to
//! break); each chat channel has its own cap; an API token mints no tokens and dies with
//! "sign out everywhere"; look-alike names are refused; bidirectional controls leave chat;
//! `/metrics` is not for strangers.

use common::accounts::{call, send, signup, uniq, ws, Session, Ws};
use common::{databases, Server};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

mod common;

/// A request with no session and these headers (a bearer token, a proxy's header): its
/// status, headers and body (JSON, or the text as a string).
async fn plain(
    s: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let url = format!("{}{path}", s.base);
    let mut r = if method == "GET" {
        s.http.get(url)
    } else {
        s.http.post(url)
    };
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let resp = r.send().await.expect("answered");
    let (status, h) = (resp.status().as_u16(), resp.headers().clone());
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        h,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A sign-up's refusal (status, body); panics if the name is accepted.
async fn refused_signup(s: &Server, name: &str) -> (u16, Value) {
    let body = json!({"username": name, "password": "tengen-hoshi-komoku"});
    let (st, _, v) = send(
        s,
        "POST",
        "/api/auth/signup",
        &Session::default(),
        None,
        Some(body),
    )
    .await;
    assert_ne!(st, 201, "{name} was accepted");
    (st, v)
}

/// A game socket with the session's cookie.
async fn socket(s: &Server, id: &str, who: &Session) -> Ws {
    ws(s, &format!("/ws/games/{id}"), who).await
}

/// Sends one socket message and waits for the answer with its id.
async fn ask(w: &mut Ws, msg: Value) -> Value {
    let id = msg["id"].clone();
    w.send(Message::Text(msg.to_string().into())).await.unwrap();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), w.next())
            .await
            .expect("an answer within 10 s")
            .expect("open")
            .expect("readable");
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["id"] == id && v["type"] != "state" {
                return v;
            }
        }
    }
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|g| g["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unlisted_game_is_on_no_list_and_its_open_seat_needs_the_invite_secret() {
    for db in databases() {
        let s = Server::start(&db).await;
        let name = uniq("alice");
        let alice = signup(&s, &name).await;
        let open_white = json!({"game": "go", "size": 9, "rules": "chinese",
            "seats": {"black": {"kind": "human"}, "white": {"kind": "open"}}});
        let mut unlisted = open_white.clone();
        unlisted["listed"] = json!(false);
        let (st, made) = call(&s, "POST", "/api/games", &alice, Some(unlisted)).await;
        assert_eq!(st, 201, "{made}");
        let id = made["id"].as_str().unwrap().to_string();
        let invite = made["invite"].as_str().expect("an invite link").to_string();
        let secret = invite
            .strip_prefix(&format!("/g/{id}#invite="))
            .expect("the link is the game's page with the secret in its fragment")
            .to_string();
        assert_eq!(made["invite_secret"], json!(secret), "{made}");
        assert!(!secret.contains(&id) && secret.len() >= 32, "{secret}");
        let (st, listed_made) = call(&s, "POST", "/api/games", &alice, Some(open_white)).await;
        assert_eq!(st, 201);
        assert!(listed_made.get("invite").is_none(), "{listed_made}");
        let listed = listed_made["id"].as_str().unwrap().to_string();

        // Nowhere for a stranger: the profile (page API, SGF collection), the lobby's lists.
        let stranger = Session::default();
        let (st, prof) = call(&s, "GET", &format!("/api/players/{name}"), &stranger, None).await;
        assert_eq!(st, 200, "{prof}");
        let shown = ids(&prof["games"]);
        assert!(
            !shown.contains(&id),
            "unlisted game on the public profile: {prof}"
        );
        assert!(shown.contains(&listed), "the listed game is shown: {prof}");
        assert!(
            !prof.to_string().contains(&id),
            "the id nowhere in the profile: {prof}"
        );
        for status in ["open", "live", "finished"] {
            let (_, l) = call(
                &s,
                "GET",
                &format!("/api/games?status={status}&limit=200"),
                &stranger,
                None,
            )
            .await;
            assert!(
                !ids(&l["games"]).contains(&id),
                "unlisted in the lobby ({status}): {l}"
            );
        }
        let (_, l) = call(
            &s,
            "GET",
            "/api/games?status=open&limit=200",
            &stranger,
            None,
        )
        .await;
        assert!(ids(&l["games"]).contains(&listed), "{l}");
        // A signed-in stranger does not see it either; alice herself does.
        let mallory = signup(&s, &uniq("mallory")).await;
        let (_, prof) = call(&s, "GET", &format!("/api/players/{name}"), &mallory, None).await;
        assert!(!prof.to_string().contains(&id), "{prof}");
        let (_, prof) = call(&s, "GET", &format!("/api/players/{name}"), &alice, None).await;
        assert!(
            ids(&prof["games"]).contains(&id),
            "the player sees her own unlisted game: {prof}"
        );

        // The id alone, or a wrong secret, takes no seat: 403 naming the rule.
        let join = format!("/api/games/{id}/join");
        for body in [
            json!({"seat": "white"}),
            json!({"seat": "white", "invite": ""}),
            json!({"seat": "white", "invite": "0".repeat(64)}),
            // The secret with its last character changed (never the same one: a secret ending
            // in 0 made "…0" the right secret once in 16 runs).
            json!({"seat": "white", "invite": format!("{}{}", &secret[..63], if secret.ends_with('0') { '1' } else { '0' })}),
            json!({"seat": "white", "invite": "x".repeat(5000)}),
        ] {
            for who in [&stranger, &mallory] {
                let (st, v) = call(&s, "POST", &join, who, Some(body.clone())).await;
                assert_eq!(st, 403, "join with {body}: {v}");
                assert_eq!(v["code"], "join.invite", "{v}");
                assert!(v["error"].as_str().unwrap().contains("invite"), "{v}");
            }
        }
        let st_now = s.state(&id).await;
        assert_eq!(st_now["seats"]["white"]["joined"], json!(false), "{st_now}");
        // The secret from the link takes it.
        let (st, v) = call(
            &s,
            "POST",
            &join,
            &mallory,
            Some(json!({"seat": "white", "invite": secret})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        assert!(v["token"].as_str().is_some(), "{v}");
        // A listed game's open seat: the id is enough, as before.
        let (st, v) = call(
            &s,
            "POST",
            &format!("/api/games/{listed}/join"),
            &stranger,
            Some(json!({"seat": "white"})),
        )
        .await;
        assert_eq!(st, 200, "{v}");
    }
}

/// The headers every answer carries.
fn assert_security_headers(what: &str, h: &reqwest::header::HeaderMap) {
    let csp = h
        .get("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy"))
        .to_str()
        .unwrap();
    for part in [
        "script-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ] {
        assert!(csp.contains(part), "{what}: CSP without {part}: {csp}");
    }
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
        "{csp}"
    );
    assert_eq!(h["x-frame-options"], "DENY", "{what}");
    assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(h["referrer-policy"], "same-origin", "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_and_api_answer_carries_the_security_headers() {
    let s = Server::start("sqlite").await;
    let (id, _) = s
        .create(json!({"game": "go", "size": 9, "rules": "chinese"}))
        .await;

    for (method, path, body) in [
        ("GET", "/".to_string(), None),
        ("GET", format!("/g/{id}"), None),
        ("GET", "/login".into(), None),
        ("GET", "/me".into(), None),
        ("GET", "/@/somebody".into(), None),
        ("GET", "/static/js/game.js".into(), None),
        ("GET", "/static/style.css".into(), None),
        ("GET", "/no/such/page".into(), None),
        ("GET", "/healthz".into(), None),
        ("GET", "/metrics".into(), None),
        ("GET", format!("/api/games/{id}"), None),
        ("GET", "/api/games?status=bogus".into(), None),
        ("GET", "/api/no-such-route".into(), None),
        ("POST", "/api/games".into(), Some(json!({"game": "chess"}))),
        (
            "POST",
            format!("/api/games/{id}/actions"),
            Some(json!({"action": "pass"})),
        ),
    ] {
        let (st, h, _) = plain(&s, method, &path, &[], body).await;
        assert!(st < 500, "{method} {path}: {st}");
        assert_security_headers(&format!("{method} {path} ({st})"), &h);
    }
}

/// What the policy `script-src 'self'; style-src 'self'` would break: inline scripts, styles,
/// handlers and `javascript:` links in the pages, style attributes set from the scripts.
#[test]
fn the_pages_have_nothing_inline_that_the_policy_refuses() {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let mut seen = 0;
    let mut stack = vec![web];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            let lower = text.to_lowercase();
            if ext == "html" {
                seen += 1;
                for (i, part) in lower.split("<script").enumerate().skip(1) {
                    let tag = part.split('>').next().unwrap_or("");
                    assert!(tag.contains("src="), "{}: inline script #{i}", p.display());
                }
                assert!(
                    !lower.contains("<style"),
                    "{}: a <style> element",
                    p.display()
                );
                assert!(
                    !lower.contains(" style="),
                    "{}: a style attribute",
                    p.display()
                );
                assert!(
                    !lower.contains("javascript:"),
                    "{}: a javascript: URL",
                    p.display()
                );
                let handler = regex_like_handler(&lower);
                assert!(
                    handler.is_none(),
                    "{}: an inline handler {handler:?}",
                    p.display()
                );
            }
            if ext == "js" {
                for bad in [
                    "style=\"",
                    "style='",
                    "setattribute('style'",
                    "eval(",
                    "new function(",
                ] {
                    assert!(!lower.contains(bad), "{}: `{bad}`", p.display());
                }
            }
        }
    }
    assert!(seen >= 5, "the pages were read ({seen})");
}

/// The first ` on…=` attribute in an HTML text, if any.
fn regex_like_handler(html: &str) -> Option<String> {
    let b = html.as_bytes();
    for i in 0..b.len().saturating_sub(3) {
        if b[i].is_ascii_whitespace() && b[i + 1] == b'o' && b[i + 2] == b'n' {
            let rest = &html[i + 3..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            if !word.is_empty() && rest[word.len()..].trim_start().starts_with('=') {
                return Some(format!("on{word}"));
            }
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_filling_their_channel_leave_the_players_channel_open() {
    let cap = baduk_server::players::chat::MAX_MESSAGES;
    let s = Server::start("sqlite").await;
    let black = signup(&s, &uniq("black")).await;
    let watcher = signup(&s, &uniq("watcher")).await;
    let (st, made) = call(
        &s,
        "POST",
        "/api/games",
        &black,
        Some(json!({"game": "go", "size": 9, "rules": "chinese"})),
    )
    .await;
    assert_eq!(st, 201, "{made}");
    let id = made["id"].as_str().unwrap().to_string();
    let mut w = socket(&s, &id, &watcher).await;
    for i in 0..cap {
        let v = ask(
            &mut w,
            json!({"type": "chat", "id": i, "channel": "spectators", "text": format!("spam {i}")}),
        )
        .await;
        assert_eq!(v["type"], "chat_ack", "message {i}: {v}");
    }
    let v = ask(
        &mut w,
        json!({"type": "chat", "id": "over", "channel": "spectators", "text": "one more"}),
    )
    .await;
    assert_eq!(v["status"], 429, "{v}");
    assert_eq!(v["code"], "chat.full", "{v}");
    assert_eq!(v["args"]["max"], json!(cap), "{v}");
    assert_eq!(v["args"]["channel"], "spectators", "{v}");
    // The players' channel is still open to the player.
    let mut p = socket(&s, &id, &black).await;
    let v = ask(
        &mut p,
        json!({"type": "chat", "id": "gg", "channel": "players", "text": "still here"}),
    )
    .await;
    assert_eq!(v["type"], "chat_ack", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bidi_controls_and_invisible_characters_leave_chat() {
    let s = Server::start("sqlite").await;
    let who = signup(&s, &uniq("writer")).await;
    let (id, _) = s
        .create(json!({"game": "go", "size": 9, "rules": "chinese"}))
        .await;
    let mut w = socket(&s, &id, &who).await;
    let v = ask(
        &mut w,
        json!({"type": "chat", "id": 1, "channel": "spectators",
        "text": "gg \u{202E}exe.txt\u{202C} \u{2066}x\u{2069}\u{200B}\u{FEFF}!"}),
    )
    .await;
    assert_eq!(v["type"], "chat_ack", "{v}");
    let v = ask(
        &mut w,
        json!({"type": "chat", "id": 2, "channel": "spectators", "text": "\u{202E}\u{200B}"}),
    )
    .await;
    assert_eq!(v["code"], "chat.empty", "only invisible characters: {v}");
    let (_, hist) = call(&s, "GET", &format!("/api/games/{id}/chat"), &who, None).await;
    let msgs = hist["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 1, "{hist}");
    assert_eq!(msgs[0]["text"], "gg exe.txt x!", "{hist}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_token_mints_no_tokens_and_sign_out_everywhere_revokes_it() {
    for db in databases() {
        let s = Server::start(&db).await;
        let me = signup(&s, &uniq("tokens")).await;
        let label = Some(json!({"label": "bot"}));
        let (st, v) = call(&s, "POST", "/api/tokens", &me, label.clone()).await;
        assert_eq!(st, 201, "{v}");
        let bearer = format!("Bearer {}", v["token"].as_str().unwrap());
        let by_token = [("authorization", bearer.as_str())];
        let (st, _, _) = plain(&s, "GET", "/api/me", &by_token, None).await;
        assert_eq!(st, 200);
        // A stolen token breeds no more.
        let (st, _, v) = plain(&s, "POST", "/api/tokens", &by_token, label).await;
        assert_eq!(st, 403, "{v}");
        assert_eq!(v["code"], "auth.session_only", "{v}");
        let (_, list) = call(&s, "GET", "/api/tokens", &me, None).await;
        assert_eq!(list["tokens"].as_array().unwrap().len(), 1, "{list}");
        // Sign out everywhere: the sessions and the API tokens.
        let (st, v) = call(&s, "POST", "/api/auth/logout-all", &me, None).await;
        assert_eq!(st, 200, "{v}");
        let (st, _, v) = plain(&s, "GET", "/api/me", &by_token, None).await;
        assert_eq!(st, 401, "the token outlived logout-all: {v}");
        let (st, _) = call(&s, "GET", "/api/me", &me, None).await;
        assert_eq!(st, 401);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_that_looks_like_an_existing_one_is_refused() {
    for db in databases() {
        let s = Server::start(&db).await;
        let tail = &baduk_server::game::hub::new_id()[..4];
        signup(&s, &format!("alice{tail}")).await;
        for look_alike in [
            format!("aIice{tail}"),
            format!("a1ice{tail}"),
            format!("AIice{tail}"),
        ] {
            let (st, v) = refused_signup(&s, &look_alike).await;
            assert_eq!(st, 409, "{look_alike}: {v}");
            assert_eq!(v["code"], "auth.lookalike", "{look_alike}: {v}");
            assert!(v["error"].as_str().unwrap().contains("looks like"), "{v}");
        }
        // The same name in another case is taken (the rule before), Cyrillic letters and
        // invisible characters are no name at all.
        let (st, v) = refused_signup(&s, &format!("ALICE{tail}")).await;
        assert_eq!((st, v["code"].clone()), (409, json!("auth.taken")), "{v}");
        for bad in [
            format!("\u{430}lice{tail}"),
            format!("ali\u{202E}ce{tail}"),
            format!("al\u{200B}ice{tail}"),
        ] {
            let (st, v) = refused_signup(&s, &bad).await;
            assert_eq!(
                (st, v["code"].clone()),
                (400, json!("auth.name")),
                "{bad:?}: {v}"
            );
        }
        // A name that only looks like itself is fine, and so is a different one.
        signup(&s, &format!("bob{tail}")).await;
        signup(&s, &format!("rnodern{tail}")).await;
        let (st, v) = refused_signup(&s, &format!("modern{tail}")).await;
        assert_eq!(
            (st, v["code"].clone()),
            (409, json!("auth.lookalike")),
            "rn and m: {v}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_for_the_operator_not_for_strangers() {
    // The default: a loopback client that came direct reads them; through a proxy, no.
    let s = Server::start("sqlite").await;
    let (st, _, v) = plain(&s, "GET", "/metrics", &[], None).await;
    assert_eq!(st, 200);
    assert!(v.as_str().unwrap().contains("baduk_games_owned"), "{v}");
    let proxied = [("x-forwarded-for", "203.0.113.9")];
    let (st, _, v) = plain(&s, "GET", "/metrics", &proxied, None).await;
    assert_eq!(st, 403);
    assert_eq!(v["code"], "metrics.private", "{v}");
    let stranger: std::net::SocketAddr = "203.0.113.9:4000".parse().unwrap();
    let limits = baduk_server::Limits::default();
    let none = reqwest::header::HeaderMap::new();
    assert!(!baduk_server::http::metrics::may_read(
        &limits, stranger, &none
    ));
    assert!(baduk_server::http::metrics::may_read(
        &limits,
        "127.0.0.1:4000".parse().unwrap(),
        &none
    ));

    // With a token: anyone who holds it, nobody else (not even loopback, when they are
    // served apart).
    let s = Server::start_config("sqlite", |c| {
        c.limits.metrics_token = Some("scrape-me".into());
        c.limits.metrics_addr = Some("127.0.0.1:0".into());
    })
    .await;
    let (st, _, v) = plain(&s, "GET", "/metrics", &[], None).await;
    assert_eq!(st, 403, "{v}");
    let wrong = [("authorization", "Bearer scrape-you")];
    let (st, _, _) = plain(&s, "GET", "/metrics", &wrong, None).await;
    assert_eq!(st, 403);
    let right = [("authorization", "Bearer scrape-me")];
    let (st, _, v) = plain(&s, "GET", "/metrics", &right, None).await;
    assert_eq!(st, 200, "{v}");
    let with_token = baduk_server::Limits {
        metrics_token: Some("scrape-me".into()),
        ..baduk_server::Limits::default()
    };
    let mut h = reqwest::header::HeaderMap::new();
    h.insert("authorization", "Bearer scrape-me".parse().unwrap());
    assert!(baduk_server::http::metrics::may_read(
        &with_token,
        stranger,
        &h
    ));

    // --metrics-addr: served apart.
    let dir = tempfile::tempdir().unwrap();
    let running = baduk_server::start(baduk_server::Config {
        addr: "127.0.0.1:0".into(),
        database: format!("sqlite:{}", dir.path().join("m.db").display()),
        limits: baduk_server::Limits {
            metrics_addr: Some("127.0.0.1:0".into()),
            ..baduk_server::Limits::default()
        },
        ..Default::default()
    })
    .await
    .unwrap();
    let apart = running.metrics_addr.expect("a metrics address");
    let status_text = |url: String| async move {
        let r = reqwest::get(url).await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    };
    let (st, text) = status_text(format!("http://{apart}/metrics")).await;
    assert_eq!(st, 200);
    assert!(text.contains("baduk_games_owned"), "{text}");
    let (st, _) = status_text(format!("http://{}/metrics", running.addr)).await;
    assert_eq!(st, 403, "not on the main address any more");
    let (st, _) = status_text(format!("http://{apart}/api/games")).await;
    assert_eq!(st, 404, "the metrics address serves nothing else");
}
