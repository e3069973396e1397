//! Failover between `baduk serve` processes on one PostgreSQL database (docs/scaling.md):
//! the process that owns a game is killed with SIGKILL in the middle of a stream of moves sent
//! through another process; a survivor takes the game over within the bound (5 s), no
//! acknowledged move is lost, the log has no gap, the clocks charge the failover like any wait
//! (no time given back), and the game finishes. `BADUK_FAILOVER_TRIALS=20` repeats it and
//! prints the times (the figures of docs/scaling.md).

use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

const SECRET: &str = "cluster-process-test-secret";

mod common;
use common::{fresh_schema, post, state, Proc};

/// `baduk serve` on `db` as these tests run it.
async fn serve(db: &str) -> Proc {
    common::serve(db, &["--no-limits"], SECRET).await
}

/// A gauge or counter of a process's `/metrics` (summed over labels); None if it is down.
async fn metric(base: &str, name: &str) -> Option<u64> {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    Some(
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .filter(|l| l.split([' ', '{']).next() == Some(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum(),
    )
}

/// One failover: returns the time from the kill to the first move sent and acknowledged after it.
async fn one_trial(procs: &mut [Option<Proc>], db: &str) -> Duration {
    for p in procs.iter_mut() {
        if p.is_none() {
            *p = Some(serve(db).await);
        }
    }
    let bases: Vec<String> = procs
        .iter()
        .map(|p| p.as_ref().unwrap().base.clone())
        .collect();
    // Let the restarted process's lease be seen by the others.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let (s, v) = post(
        &bases[0],
        "/api/games",
        None,
        json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:600"}),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let tokens = [
        v["seats"]["black"]["token"].as_str().unwrap().to_string(),
        v["seats"]["white"]["token"].as_str().unwrap().to_string(),
    ];
    // Which process owns it (the only live game of this schema).
    let mut owner = None;
    let end = Instant::now() + Duration::from_secs(10);
    while owner.is_none() {
        for (i, b) in bases.iter().enumerate() {
            if metric(b, "baduk_games_owned").await == Some(1) {
                owner = Some(i);
            }
        }
        assert!(Instant::now() < end, "no process owns the game");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let owner = owner.unwrap();
    let via = (owner + 1) % bases.len();
    // Stream moves through a process that does not own the game; note every 200 and when.
    let base = bases[via].clone();
    let id2 = id.clone();
    let toks = tokens.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let streamer = tokio::spawn(async move {
        // (version, move, when it was sent, when it was acknowledged)
        let mut acked: Vec<(i64, String, Instant, Instant)> = Vec::new();
        let mut st = state(&base, &id2).await;
        let mut refused = 0;
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
            let side = usize::from(st["to_move"] != "black");
            let mv = st["legal"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .filter_map(|m| m.as_str())
                .find(|m| *m != "pass")
                .unwrap_or("pass")
                .to_string();
            let sent = Instant::now();
            let (code, v) = post(
                &base,
                &format!("/api/games/{id2}/actions"),
                Some(&toks[side]),
                json!({"action": mv}),
            )
            .await;
            if code == 200 {
                acked.push((v["version"].as_i64().unwrap(), mv, sent, Instant::now()));
                st = v;
            } else {
                // Not acknowledged (the owner died while answering, or the game is moving):
                // read the game again and go on.
                refused += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
                st = state(&base, &id2).await;
            }
        }
        (acked, refused)
    });
    tokio::time::sleep(Duration::from_millis(800)).await;
    let v_kill = state(&bases[via], &id).await["version"].as_i64().unwrap();
    let killed = Instant::now();
    {
        let p = procs[owner].as_mut().unwrap();
        p.child.kill().unwrap(); // SIGKILL
        p.child.wait().unwrap();
    }
    procs[owner] = None;
    // Wait until a survivor owns the game and five more moves were played.
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let st = state(&bases[via], &id).await;
        let mut owned = 0;
        for (i, b) in bases.iter().enumerate() {
            if i != owner {
                owned += metric(b, "baduk_games_owned").await.unwrap_or(0);
            }
        }
        if owned == 1 && st["version"].as_i64().unwrap() >= v_kill + 5 {
            break;
        }
        assert!(Instant::now() < end, "no survivor took the game over: {st}");
    }
    tokio::time::sleep(Duration::from_millis(1000)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (acked, refused) = streamer.await.unwrap();
    // The failover time: from the kill to the acknowledgement of the first move sent after it
    // (a move the old owner stored just before dying may be acknowledged just after).
    let first_after = acked
        .iter()
        .find(|(_, _, sent, _)| *sent > killed)
        .map(|(_, _, _, at)| *at - killed)
        .expect("a move acknowledged after the kill");
    // Every acknowledged move is stored in its place; the log has no gap.
    let survivor = &bases[via];
    // The process read may be a copy one event behind the last acknowledgement (the owner
    // answers before the event reaches the others): wait for it.
    let last = acked.iter().map(|a| a.0).max().unwrap_or(0);
    let end = Instant::now() + Duration::from_secs(5);
    let mut st = state(survivor, &id).await;
    while st["version"].as_i64().unwrap_or(0) < last && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(50)).await;
        st = state(survivor, &id).await;
    }
    let acts = st["actions"].as_array().unwrap();
    for (i, a) in acts.iter().enumerate() {
        assert_eq!(a["seq"].as_i64(), Some(i as i64 + 1), "gap-free log: {st}");
    }
    for (v, mv, _, _) in &acked {
        assert_eq!(acts[*v as usize - 1]["action"], mv.as_str(), "action {v}");
    }
    // The clocks charged the whole time, the failover included, and gave nothing back.
    let spent: i64 = ["black", "white"]
        .iter()
        .map(|s| 600_000 - st["clocks"][s]["main_ms"].as_i64().unwrap())
        .sum();
    let now = st["now"].as_i64().unwrap();
    let since_created = now - st["created_at"].as_i64().unwrap();
    let since_first = now - acts[0]["at"].as_i64().unwrap();
    assert!(
        spent <= since_created + 1_500 && spent >= since_first - 1_500,
        "clocks charged {spent} ms; the game is {since_created} ms old, {since_first} ms since its first move"
    );
    // The game finishes on the new owner.
    let side = usize::from(st["to_move"] != "black");
    let (code, v) = post(
        survivor,
        &format!("/api/games/{id}/actions"),
        Some(&tokens[side]),
        json!({"action": "resign"}),
    )
    .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "finished");
    eprintln!(
        "failover: first move acknowledged {} ms after the kill; {} moves acknowledged, {refused} not",
        first_after.as_millis(),
        acked.len()
    );
    first_after
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_owner_of_a_game_moves_it_to_a_survivor_within_five_seconds() {
    let Some(pg) = std::env::var("BADUK_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
    else {
        eprintln!(
            "BADUK_TEST_POSTGRES not set: the failover test runs under scripts/with-postgres"
        );
        return;
    };
    let trials: usize = std::env::var("BADUK_FAILOVER_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let db = fresh_schema(&pg).await;
    let mut procs: Vec<Option<Proc>> = vec![None, None, None];
    let mut times = Vec::new();
    for _ in 0..trials {
        times.push(one_trial(&mut procs, &db).await);
    }
    times.sort();
    let ms: Vec<u128> = times.iter().map(|t| t.as_millis()).collect();
    eprintln!(
        "failover over {trials} trials: median {} ms, max {} ms ({ms:?})",
        ms[ms.len() / 2],
        ms[ms.len() - 1]
    );
    assert!(
        *times.last().unwrap() <= Duration::from_secs(5),
        "failover took {ms:?} ms"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_stopped_by_sigterm_hands_its_games_over_at_once() {
    let Some(pg) = std::env::var("BADUK_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
    else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let db = fresh_schema(&pg).await;
    let mut procs = vec![serve(&db).await, serve(&db).await];
    let (s, v) = post(
        &procs[0].base,
        "/api/games",
        None,
        json!({"game": "go", "size": 9, "rules": "chinese"}),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let black = v["seats"]["black"]["token"].as_str().unwrap().to_string();
    // The first game stays on the process that made it (a tie goes to the creator).
    let end = Instant::now() + Duration::from_secs(5);
    while metric(&procs[0].base, "baduk_games_owned").await != Some(1) {
        assert!(Instant::now() < end, "A does not own its game");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid = procs[0].child.id().to_string();
    let stopped = Instant::now();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let status = procs[0].child.wait().unwrap();
    assert!(status.success(), "a clean exit: {status:?}");
    // The survivor takes it well before a lease (3 s) could have run out (a game taken over
    // stays in the database until it is due or asked for: the takeover is what is counted).
    let survivor = procs.pop().unwrap();
    loop {
        if metric(&survivor.base, "baduk_takeovers_total")
            .await
            .is_some_and(|n| n >= 1)
        {
            break;
        }
        assert!(
            stopped.elapsed() < Duration::from_millis(2_500),
            "not handed over in time"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "handover after SIGTERM: {} ms",
        stopped.elapsed().as_millis()
    );
    let (code, v) = post(
        &survivor.base,
        &format!("/api/games/{id}/actions"),
        Some(&black),
        json!({"action": "E5"}),
    )
    .await;
    assert_eq!(code, 200, "{v}");
}
