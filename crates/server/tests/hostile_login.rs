//! Sign-in as a stranger would attack it, over real HTTP (issue 39, points 4 and 5): a forged
//! cross-site sign-in (login CSRF) is refused while plain clients still sign in, and wrong
//! guesses for a name from one address throttle that address without locking the owner out
//! from another (a second loopback address is a second client).

mod common;

use common::{databases, Server};
use serde_json::{json, Value};
use std::net::IpAddr;

/// A unique name for this run (tests share one PostgreSQL database).
fn uniq(base: &str) -> String {
    format!("{base}{}", &baduk_server::game::hub::new_id()[..6])
}

const PASSWORD: &str = "correct horse battery";

/// An HTTP client whose connections come from `ip` (a loopback address: 127.0.0.2 is another
/// client than 127.0.0.1 to the server).
fn client_from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

/// POSTs `body` to `path` with `headers`; returns (status, whether a cookie was set, body).
async fn post(
    s: &Server,
    http: &reqwest::Client,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, bool, Value) {
    let mut r = http.post(format!("{}{path}", s.base));
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    if let Some(b) = body {
        r = r.body(b.to_string());
    }
    let resp = r.send().await.expect("answered");
    let status = resp.status().as_u16();
    let cookie = resp.headers().get("set-cookie").is_some();
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        cookie,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn credentials(name: &str, password: &str) -> String {
    json!({"username": name, "password": password}).to_string()
}

const JSON: (&str, &str) = ("content-type", "application/json");

/// Request headers, as (name, value).
type Headers<'a> = &'a [(&'a str, &'a str)];

async fn signup(s: &Server, name: &str) {
    let (st, v) = s
        .post("/api/auth/signup", None, &credentials(name, PASSWORD))
        .await;
    assert_eq!(st, 201, "signup {name}: {v}");
}

#[tokio::test]
async fn a_forged_cross_site_sign_in_is_refused_and_plain_clients_still_sign_in() {
    for db in databases() {
        let s = Server::start(&db).await;
        let http = reqwest::Client::new();
        let name = uniq("mallory");
        signup(&s, &name).await;
        let good = credentials(&name, PASSWORD);
        let own = format!("http://{}", s.addr);
        // What a cross-site `<form enctype=text/plain>` sends: text/plain, the other site's
        // Origin, Sec-Fetch-Site: cross-site. Each of the three is refused on its own.
        let refused: &[(Headers, u16, &str)] = &[
            (
                &[
                    ("content-type", "text/plain"),
                    ("origin", "http://evil.example"),
                    ("sec-fetch-site", "cross-site"),
                ],
                403,
                "auth.origin",
            ),
            (&[("content-type", "text/plain")], 415, "auth.content_type"),
            (
                &[("content-type", "application/x-www-form-urlencoded")],
                415,
                "auth.content_type",
            ),
            (
                &[("content-type", "application/jsonp")],
                415,
                "auth.content_type",
            ),
            (&[], 415, "auth.content_type"),
            (
                &[JSON, ("origin", "http://evil.example")],
                403,
                "auth.origin",
            ),
            (&[JSON, ("origin", "null")], 403, "auth.origin"),
            (
                &[JSON, ("sec-fetch-site", "cross-site")],
                403,
                "auth.origin",
            ),
            (&[JSON, ("sec-fetch-site", "same-site")], 403, "auth.origin"),
        ];
        for path in ["/api/auth/login", "/api/auth/signup"] {
            for (headers, code, rule) in refused {
                let body = if path.ends_with("signup") {
                    credentials(&uniq("eve"), PASSWORD)
                } else {
                    good.clone()
                };
                let (st, cookie, v) = post(&s, &http, path, headers, Some(&body)).await;
                assert_eq!(
                    (st, v["code"].as_str()),
                    (*code, Some(*rule)),
                    "{path} {headers:?}: {v}"
                );
                assert!(!cookie, "{path} {headers:?}: no session is made");
                assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()));
            }
        }
        // The server's own page: same Origin, same-origin fetch, JSON (with a charset).
        for headers in [
            &[
                JSON,
                ("origin", own.as_str()),
                ("sec-fetch-site", "same-origin"),
            ][..],
            &[("content-type", "application/json; charset=utf-8")][..],
            &[("content-type", "Application/JSON")][..],
            // A client with neither header (the CLI, bots, scripts) is no browser.
            &[JSON][..],
        ] {
            let (st, cookie, v) = post(&s, &http, "/api/auth/login", headers, Some(&good)).await;
            assert_eq!(st, 200, "{headers:?}: {v}");
            assert!(cookie);
        }
        // Guest: a body-less cross-site POST would replace the victim's session.
        for headers in [
            &[("origin", "http://evil.example")][..],
            &[("sec-fetch-site", "cross-site")][..],
            &[
                ("content-type", "text/plain"),
                ("origin", "http://evil.example"),
            ][..],
        ] {
            let (st, cookie, v) = post(&s, &http, "/api/auth/guest", headers, None).await;
            assert_eq!((st, v["code"].as_str()), (403, Some("auth.origin")), "{v}");
            assert!(!cookie);
        }
        let (st, _, v) = post(
            &s,
            &http,
            "/api/auth/guest",
            &[("content-type", "text/plain")],
            Some("x"),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (415, Some("auth.content_type")));
        for headers in [
            &[][..],
            &[("origin", own.as_str()), ("sec-fetch-site", "same-origin")][..],
            &[JSON][..],
        ] {
            let (st, cookie, v) = post(&s, &http, "/api/auth/guest", headers, None).await;
            assert_eq!(st, 201, "{headers:?}: {v}");
            assert!(cookie);
        }
    }
}

/// `name` with its ASCII letters and digits in their full-width forms (NFKC folds them back).
fn full_width(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap()
            } else {
                c
            }
        })
        .collect()
}

#[tokio::test]
async fn wrong_guesses_from_one_address_do_not_lock_the_owner_out_from_another() {
    for db in databases() {
        let d = baduk_server::Limits::default();
        let s = Server::start_config(&db, |c| {
            c.limits.logins_per_minute = d.logins_per_minute;
            c.limits.logins_per_name_minute = d.logins_per_name_minute;
            c.limits.logins_per_account_minute = d.logins_per_account_minute;
        })
        .await;
        let name = uniq("alice");
        signup(&s, &name).await;
        let (a, b) = (client_from("127.0.0.1"), client_from("127.0.0.2"));
        let forms = [name.clone(), name.to_uppercase(), full_width(&name)];
        // Five wrong guesses from A, the name in any of its forms: one budget.
        for i in 0..5 {
            let user = &forms[i % forms.len()];
            let (st, _, v) = post(
                &s,
                &a,
                "/api/auth/login",
                &[JSON],
                Some(&credentials(user, "wrong password 1")),
            )
            .await;
            assert_eq!(st, 401, "guess {i} as {user}: {v}");
        }
        let (st, _, v) = post(
            &s,
            &a,
            "/api/auth/login",
            &[JSON],
            Some(&credentials(&forms[2], "wrong password 1")),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (429, Some("limit.rate")), "{v}");
        assert!(
            v["error"].as_str().unwrap().contains("your address"),
            "names its rule: {v}"
        );
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("5 a minute, 5 at once"),
            "names its number: {v}"
        );
        assert_eq!(v["args"]["rate_per_minute"], 5.0, "{v}");
        // The owner, from B, with the right password, in another form of the name: in.
        let (st, cookie, v) = post(
            &s,
            &b,
            "/api/auth/login",
            &[JSON],
            Some(&credentials(&full_width(&name), PASSWORD)),
        )
        .await;
        assert_eq!(st, 200, "the owner is not locked out: {v}");
        assert!(cookie);
        // A is still held back, even with the right password.
        let (st, _, v) = post(
            &s,
            &a,
            "/api/auth/login",
            &[JSON],
            Some(&credentials(&name, PASSWORD)),
        )
        .await;
        assert_eq!(st, 429, "{v}");
    }
}

#[tokio::test]
async fn guesses_from_many_addresses_hold_back_new_addresses_but_not_the_owners() {
    for db in databases() {
        let s = Server::start_config(&db, |c| {
            c.limits.logins_per_minute = 10.0;
            c.limits.logins_per_name_minute = 5.0;
            c.limits.logins_per_account_minute = 3.0;
        })
        .await;
        let name = uniq("alice");
        signup(&s, &name).await;
        let login = |ip: &'static str, password: &'static str| {
            let s = &s;
            let name = name.clone();
            async move {
                post(
                    s,
                    &client_from(ip),
                    "/api/auth/login",
                    &[JSON],
                    Some(&credentials(&name, password)),
                )
                .await
            }
        };
        // The owner signs in from B: B is known to the account from now on.
        assert_eq!(login("127.0.0.2", PASSWORD).await.0, 200);
        // Guessers from C and D spend what the account takes from new addresses (3 a minute).
        assert_eq!(login("127.0.0.3", "wrong password 1").await.0, 401);
        assert_eq!(login("127.0.0.4", "wrong password 1").await.0, 401);
        let (st, _, v) = login("127.0.0.5", "wrong password 1").await;
        assert_eq!((st, v["code"].as_str()), (429, Some("limit.rate")), "{v}");
        assert!(
            v["error"].as_str().unwrap().contains("new addresses"),
            "{v}"
        );
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("3 a minute, 3 at once"),
            "names its number: {v}"
        );
        // The owner's address still gets in.
        assert_eq!(login("127.0.0.2", PASSWORD).await.0, 200);
    }
}
