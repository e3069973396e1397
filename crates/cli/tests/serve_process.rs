//! `baduk serve` as a process: SIGKILL loses no acknowledged action, two processes share one
//! PostgreSQL database (moves reach the other's watchers, a clock fires once, one action wins a
//! turn), start-up failures exit 2 with the reason (a second process on one SQLite file too),
//! and `wall export` writes replayable records.

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::{post, state, Proc, BIN};

/// `baduk serve` on `db` as these tests run it.
async fn serve(db: &str) -> Proc {
    common::serve(
        db,
        &["--no-limits", "--allow-bot-games"],
        "serve-process-test-secret",
    )
    .await
}

async fn create(base: &str, body: Value) -> (String, String, String) {
    let (s, v) = post(base, "/api/games", None, body).await;
    assert_eq!(s, 201, "{v}");
    (
        v["id"].as_str().unwrap().into(),
        v["seats"]["black"]["token"].as_str().unwrap_or("").into(),
        v["seats"]["white"]["token"].as_str().unwrap_or("").into(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_during_a_stream_of_moves_loses_no_acknowledged_action() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("kill.db").display());
    let p = serve(&db).await;
    let (id, b, w) = create(
        &p.base,
        json!({"game": "go", "size": 19, "rules": "chinese", "clock": "absolute:600"}),
    )
    .await;
    let base = p.base.clone();
    let id2 = id.clone();
    let (b2, w2) = (b.clone(), w.clone());
    // Stream moves; remember every one the server answered 200.
    let streamer = tokio::spawn(async move {
        let mut acked: Vec<(i64, String)> = Vec::new();
        let mut st = state(&base, &id2).await;
        for i in 0.. {
            let legal = st["legal"].as_array().cloned().unwrap_or_default();
            let mv = legal
                .iter()
                .filter_map(|m| m.as_str())
                .find(|m| *m != "pass")
                .unwrap_or("pass")
                .to_string();
            let token = if i % 2 == 0 { &b } else { &w };
            let (code, v) = post(
                &base,
                &format!("/api/games/{id2}/actions"),
                Some(token),
                json!({"action": mv}),
            )
            .await;
            if code != 200 {
                break;
            }
            acked.push((v["version"].as_i64().unwrap(), mv));
            st = v;
        }
        acked
    });
    tokio::time::sleep(Duration::from_millis(700)).await;
    let pid = p.child.id();
    Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    let acked = streamer.await.unwrap();
    drop(p);
    // The server stays down a while, longer than an outage's threshold (5 s without a
    // heartbeat): that time is charged to nobody.
    let down = Duration::from_millis(6000);
    tokio::time::sleep(down).await;
    assert!(
        acked.len() > 3,
        "the stream got going ({} moves)",
        acked.len()
    );
    // Restart on the same file: every acknowledged action is there, in order.
    let p = serve(&db).await;
    let st = state(&p.base, &id).await;
    let stored: Vec<String> = st["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap().to_string())
        .collect();
    assert!(
        stored.len() >= acked.len(),
        "{} stored, {} acked",
        stored.len(),
        acked.len()
    );
    for (v, mv) in &acked {
        assert_eq!(&stored[*v as usize - 1], mv, "action {v}");
    }
    // Every clock resumes from the time left at the last stored action.
    let side = st["to_move"].as_str().unwrap();
    let left = st["clocks"][side]["main_ms"]
        .as_i64()
        .unwrap_or_else(|| panic!("no clock for {side}: {}", st));
    let spent: i64 = {
        let acts = st["actions"].as_array().unwrap();
        let start = st["created_at"].as_i64().unwrap();
        let last = acts.last().map_or(start, |a| a["at"].as_i64().unwrap());
        last - start
    };
    assert!(
        left > 600_000 - spent - 1_000,
        "{side} has {left} ms left after {spent} ms of play and {down:?} down"
    );
    // And the game goes on from there.
    let token = if st["to_move"] == "black" { &b2 } else { &w2 };
    let mv = st["legal"][0].as_str().unwrap().to_string();
    let (code, v) = post(
        &p.base,
        &format!("/api/games/{id}/actions"),
        Some(token),
        json!({"action": mv}),
    )
    .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["version"].as_i64().unwrap(), stored.len() as i64 + 1);
}

#[test]
fn a_database_that_cannot_be_opened_stops_the_server_with_exit_2() {
    for (db, words) in [
        (
            "sqlite:/nonexistent-dir/x/baduk.db",
            "/nonexistent-dir/x/baduk.db",
        ),
        (
            "mysql://localhost/db",
            "expected sqlite:PATH or postgres://",
        ),
    ] {
        let out = Command::new(BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--database", db])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{db}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{db}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_one_sqlite_file_refuses_to_start_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("one.db").display());
    let first = serve(&db).await;
    let out = Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0", "--database", &db])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("process {}", first.child.id())) && err.contains("one.db"),
        "{err}"
    );
    // The first still serves; once it is gone the file is free for the next one.
    common::wait_up(&first.base).await;
    drop(first);
    let next = serve(&db).await;
    common::wait_up(&next.base).await;
}

#[test]
fn a_port_in_use_stops_the_server_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let out = Command::new(BIN)
        .args(["serve", "--addr", &addr, "--database"])
        .arg(format!("sqlite:{}", dir.path().join("p.db").display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot listen on") && err.contains(&addr),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_wall_go_games_export_as_records_that_replay() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("w.db").display());
    let p = serve(&db).await;
    let bots = json!({"A": {"kind": "bot", "bot": "easy"}, "B": {"kind": "bot", "bot": "random"}});
    let (s, v) = post(
        &p.base,
        "/api/games",
        None,
        json!({"game": "wallgo", "turn_seconds": 0, "seats": bots}),
    )
    .await;
    assert_eq!(s, 201);
    let id = v["id"].as_str().unwrap().to_string();
    let end = Instant::now() + Duration::from_secs(60);
    while state(&p.base, &id).await["status"] != "finished" {
        assert!(Instant::now() < end, "bot game did not finish");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out_dir = dir.path().join("records");
    let out = Command::new(BIN)
        .args(["wall", "export", "--database", &db, "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = out_dir.join(format!("{id}.wall"));
    let replay = Command::new(BIN)
        .args(["wall", "replay"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

/// The PostgreSQL URL the test script started, if any.
fn postgres() -> Option<String> {
    std::env::var("BADUK_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_on_one_postgres_share_moves_watchers_clocks_and_turns() {
    let Some(db) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: the two-process test runs under scripts/test");
        return;
    };
    let a = serve(&db).await;
    let b = serve(&db).await;
    let (id, tb, tw) = create(
        &a.base,
        json!({"game": "go", "size": 9, "rules": "chinese"}),
    )
    .await;
    // A watcher on process B sees a move made through process A.
    let (mut ws, _) =
        tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{}/ws/games/{id}", b.port))
            .await
            .unwrap();
    let (code, _) = post(
        &a.base,
        &format!("/api/games/{id}/actions"),
        Some(&tb),
        json!({"action": "E5"}),
    )
    .await;
    assert_eq!(code, 200);
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Ok(v) = serde_json::from_str::<Value>(m.to_text().unwrap_or("")) {
            // The move comes as a delta (its history adds E5 to none kept), or in a full state.
            let delta = &v["delta"];
            if (v["type"] == "delta" && delta["history"] == json!({"keep": 0, "moves": ["E5"]}))
                || (v["type"] == "state" && v["state"]["moves"] == json!(["E5"]))
            {
                break;
            }
        }
        assert!(Instant::now() < end, "B's watcher never saw A's move");
    }
    // Both processes race for White's turn: exactly one action is stored.
    let path = format!("/api/games/{id}/actions");
    let (r1, r2) = tokio::join!(
        post(&a.base, &path, Some(&tw), json!({"action": "D4"})),
        post(&b.base, &path, Some(&tw), json!({"action": "C3"})),
    );
    let mut codes = [r1.0, r2.0];
    codes.sort();
    assert_eq!(codes, [200, 409], "{r1:?} {r2:?}");
    let sa = state(&a.base, &id).await;
    assert_eq!(sa["version"], 2);
    let end = Instant::now() + Duration::from_secs(10);
    while state(&b.base, &id).await["version"] != 2 {
        assert!(Instant::now() < end, "B never caught up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A clock that runs out with both processes up fires once.
    let (cid, cb, _) = create(
        &b.base,
        json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:1"}),
    )
    .await;
    let (code, _) = post(
        &b.base,
        &format!("/api/games/{cid}/actions"),
        Some(&cb),
        json!({"action": "E5"}),
    )
    .await;
    assert_eq!(code, 200);
    let end = Instant::now() + Duration::from_secs(15);
    loop {
        let st = state(&a.base, &cid).await;
        if st["status"] == "finished" {
            let acts = st["actions"].as_array().unwrap();
            let timeouts = acts.iter().filter(|x| x["action"] == "timeout").count();
            assert_eq!(timeouts, 1, "{st}");
            assert_eq!(st["result"]["text"], "B+T");
            break;
        }
        assert!(Instant::now() < end, "the clock never fired");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let st = state(&b.base, &cid).await;
    assert_eq!(
        st["actions"].as_array().unwrap().len(),
        2,
        "still one timeout: {st}"
    );
}

#[test]
fn the_operators_model_files_and_proxies_are_checked_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad-model.txt");
    std::fs::write(&bad, "not a model\n").unwrap();
    let db = format!("sqlite:{}", dir.path().join("m.db").display());
    let bad = bad.display().to_string();
    // A network cut short: the built-in one's first half.
    let cut = dir.path().join("cut.bin");
    let net = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/go-policy.bin"
    ))
    .unwrap();
    std::fs::write(&cut, &net[..net.len() / 2]).unwrap();
    let cut = cut.display().to_string();
    for (flags, words) in [
        (
            vec!["--go-net", "/nonexistent/net.bin"],
            "--go-net /nonexistent/net.bin: cannot read the network file",
        ),
        (vec!["--go-net", bad.as_str()], "bad-model.txt: "),
        (vec!["--go-net", cut.as_str()], "cut.bin: "),
        (
            vec!["--wall-model", "/nonexistent/sedol.txt"],
            "--wall-model /nonexistent/sedol.txt: cannot read",
        ),
        (
            vec!["--go-model", "/nonexistent/go.txt"],
            "--go-model /nonexistent/go.txt",
        ),
        (vec!["--wall-model", bad.as_str()], "line 1"),
        (vec!["--go-model", bad.as_str()], "bad-model.txt:1"),
        (vec!["--trusted-proxy", "10.0.0.0/99"], "--trusted-proxy"),
        (vec!["--bot-max-time", "0"], "--bot-max-time"),
    ] {
        let out = Command::new(BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--database", &db])
            .args(&flags)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{flags:?}: {err}");
    }
}
