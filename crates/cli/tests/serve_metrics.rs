//! `baduk serve`'s metrics flags as a process (issue 39, point 8f): by default `/metrics`
//! answers a loopback client that came direct and nobody through a proxy; `--metrics-addr`
//! serves it apart (the main address then refuses it); `--metrics-token` reads it anywhere.

mod common;
use common::{free_port, serve};

/// (status, body) of `GET url` with these headers.
async fn get(url: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut r = reqwest::Client::new().get(url);
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    let resp = r.send().await.expect("answered");
    (
        resp.status().as_u16(),
        resp.text().await.unwrap_or_default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_by_default_on_its_own_address_and_with_a_token() {
    let dir = tempfile::tempdir().unwrap();
    // The defaults: loopback, direct.
    let db = format!("sqlite:{}", dir.path().join("a.db").display());
    let p = serve(&db, &[], "metrics-test").await;
    let (st, text) = get(&format!("{}/metrics", p.base), &[]).await;
    assert_eq!(st, 200);
    assert!(text.contains("baduk_games_owned"), "{text}");
    let (st, text) = get(
        &format!("{}/metrics", p.base),
        &[("x-forwarded-for", "198.51.100.7")],
    )
    .await;
    assert_eq!(st, 403, "through a proxy: {text}");
    assert!(text.contains("metrics.private"), "{text}");
    drop(p);

    // --metrics-addr and --metrics-token.
    let apart = free_port();
    let db = format!("sqlite:{}", dir.path().join("b.db").display());
    let p = serve(
        &db,
        &[
            "--metrics-addr",
            &format!("127.0.0.1:{apart}"),
            "--metrics-token",
            "let-prometheus-in",
        ],
        "metrics-test",
    )
    .await;
    let (st, text) = get(&format!("http://127.0.0.1:{apart}/metrics"), &[]).await;
    assert_eq!(st, 200);
    assert!(text.contains("baduk_games_owned"), "{text}");
    let (st, _) = get(&format!("{}/metrics", p.base), &[]).await;
    assert_eq!(st, 403, "served apart: not on the main address");
    let (st, _) = get(
        &format!("{}/metrics", p.base),
        &[("authorization", "Bearer let-prometheus-in")],
    )
    .await;
    assert_eq!(st, 200, "with the token");
    let (st, _) = get(
        &format!("{}/metrics", p.base),
        &[("authorization", "Bearer let-me-in")],
    )
    .await;
    assert_eq!(st, 403, "a wrong token");
}
