//! Running `baduk serve` in production (docs/operating.md): JSON logs with a line for every
//! request and no query string in them, `baduk backup` of a live SQLite database, and SIGTERM
//! stopping the server cleanly with exit 0.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{free_port, wait_up, BIN};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_a_live_backup_and_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("live.db").display());
    let port = free_port();
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--database",
            &db,
        ])
        .args(["--log-format", "json", "--log", "info,baduk::http=debug"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("baduk serve starts");
    let base = format!("http://127.0.0.1:{port}");
    wait_up(&base).await;
    let http = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let r = http
            .post(format!("{base}/api/games"))
            .json(
                &serde_json::json!({"game": "go", "size": 9, "rules": "chinese",
                "seats": {"black": {"kind": "human"}, "white": {"kind": "human"}}}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let v: serde_json::Value = r.json().await.unwrap();
        ids.push(v["id"].as_str().unwrap().to_string());
    }
    let r = http
        .get(format!("{base}/api/games/{}", ids[0]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // Refused (an unknown query), but logged without its query string.
    let r = http
        .get(format!("{base}/api/games/{}?token=do-not-log-me", ids[0]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    // A backup while the server runs: a whole database with the three games.
    let copy = dir.path().join("copy.db");
    let out = Command::new(BIN)
        .args(["backup", "--database", &db, "--out"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("bytes"));
    let copy_url = format!("sqlite:{}", copy.display());
    let store = baduk_server::store::Store::open(&copy_url).await.unwrap();
    for id in &ids {
        assert!(
            store.load(id).await.unwrap().is_some(),
            "game {id} in the copy"
        );
    }
    // Never over an existing file; PostgreSQL is pg_dump's job.
    for (database, words) in [
        (db.as_str(), "exists; a backup never overwrites"),
        ("postgres://u@localhost/baduk", "pg_dump"),
        ("sqlite:/no/such/dir/x.db", "no such file"),
    ] {
        let out = Command::new(BIN)
            .args(["backup", "--database", database, "--out"])
            .arg(if database == db {
                copy.clone()
            } else {
                dir.path().join("other.db")
            })
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{database}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{database}: {err}");
    }

    // SIGTERM: the server stops accepting, finishes and exits 0.
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let end = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < end, "the server did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));

    // Every log line is one JSON object; each request has its route pattern and status, and
    // the query string (which may carry a token) is never written.
    let lines: Vec<String> = BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .collect();
    let mut routes = Vec::new();
    for l in &lines {
        assert!(!l.contains("do-not-log-me"), "{l}");
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        assert!(v["level"].is_string() && v["timestamp"].is_string(), "{l}");
        if v["target"] == "baduk::http" {
            routes.push((
                v["fields"]["route"].as_str().unwrap().to_string(),
                v["fields"]["status"].as_u64().unwrap(),
            ));
        }
    }
    assert!(
        routes.contains(&("/api/games".to_string(), 201)),
        "{routes:?}"
    );
    assert!(
        routes.contains(&("/api/games/{id}".to_string(), 200)),
        "{routes:?}"
    );
}

#[test]
fn a_bad_log_directive_or_format_is_refused_at_start() {
    for (args, words) in [
        (["--log-format", "xml"], "expected text or json"),
        (["--log", "info,=bad=="], "--log"),
    ] {
        let out = Command::new(BIN)
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--database",
                "sqlite:/tmp/never-made.db",
            ])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{args:?}: {err}");
    }
}
