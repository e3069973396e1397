//! The external analysis engine (`--analysis-engine`, KataGo's JSON analysis protocol): a fake
//! engine (a python3 script written here) that answers well, replays a transcript recorded from
//! the real KataGo, crashes, hangs, answers garbage, a wrong id, an error or an endless line;
//! the review says why, our own engine takes over, and nothing stored is lost. With `KATAGO`
//! and `KATAGO_MODEL` (and optionally `KATAGO_CONFIG`) set, a short 9×9 review by the real one.

mod common;

use baduk_server::review::katago::ExternalEngine;
use common::Server;
use serde_json::Value;
use std::time::Duration;

/// The fake engine: `fake.py MODE [FILE]`. Modes: `synth` (made-up figures, Black's view:
/// Black's win rate 0.5 + turn/100, best move the played one on even turns), `replay FILE`
/// (the transcript's answers, by turn), `crash`, `hang`, `garbage`, `wrongid`, `error`,
/// `long`, `synth-then-crash` (answers one query, then exits 3), `crash-once FILE` (exits at
/// its first start, `synth` after).
const FAKE: &str = r##"
import json, sys, time
mode = sys.argv[1]
book = {}
if mode == "replay":
    for line in open(sys.argv[2]):
        if line.startswith("#") or not line.strip():
            continue
        v = json.loads(line)
        book.setdefault(v["turnNumber"], v)
queries = 0
if mode == "crash-once":
    import os
    if not os.path.exists(sys.argv[2]):
        open(sys.argv[2], "w").close()
        sys.stderr.write("first start fails\n"); sys.exit(2)
    mode = "synth"
for line in sys.stdin:
    q = json.loads(line)
    queries += 1
    if mode == "crash" or (mode == "synth-then-crash" and queries > 1):
        sys.stderr.write("Segmentation fault (pretend)\n"); sys.stderr.flush()
        sys.exit(3 if mode != "crash" else 1)
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbage":
        print("KataGo says hello", flush=True); continue
    if mode == "long":
        sys.stdout.write("x" * (3 << 20)); sys.stdout.flush(); time.sleep(3600)
    if mode == "error":
        print(json.dumps({"error": "Illegal move", "field": "moves", "id": q["id"]}), flush=True); continue
    for t in q["analyzeTurns"]:
        if mode == "replay":
            v = dict(book[t]); v["id"] = q["id"]
        else:
            moves = q["moves"]
            player = moves[t][0] if t < len(moves) else ("W" if moves and moves[-1][0] == "B" else "B")
            played = moves[t][1] if t < len(moves) else "pass"
            best = played if t % 2 == 0 else "A1"
            wr = 0.5 + t / 100.0
            lead = t / 2.0
            infos = [{"move": best, "order": 0, "visits": 10, "winrate": wr, "scoreLead": lead,
                      "pv": [best, "B2"]}]
            v = {"id": "wrong" if mode == "wrongid" else q["id"], "isDuringSearch": False,
                 "turnNumber": t, "moveInfos": infos,
                 "rootInfo": {"currentPlayer": player, "winrate": wr, "scoreLead": lead,
                              "scoreStdev": 10.0, "visits": 12},
                 "ownership": [0.9] * 40 + [-0.9] * 40 + [0.0]}
        print(json.dumps(v), flush=True)
"##;

/// A temporary folder holding the fake engine; the command line that runs it in `mode`.
fn fake(mode: &str, extra: &[&str]) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fake.py");
    std::fs::write(&path, FAKE).unwrap();
    let mut argv = vec![
        "python3".to_string(),
        path.display().to_string(),
        mode.to_string(),
    ];
    argv.extend(extra.iter().map(|s| s.to_string()));
    (dir, argv)
}

async fn server(argv: Vec<String>) -> Server {
    Server::start_config("sqlite", |c| {
        c.limits.review_playouts = 40;
        // A short per-position time: a hung engine's deadline is some seconds.
        c.limits.bots.max_time = Duration::from_millis(50);
        c.limits.analysis_engine = Some(ExternalEngine {
            argv,
            visits: Some(8),
        });
    })
    .await
}

fn example(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Uploads game-9x9.sgf, starts its review and waits until it is done.
async fn reviewed(s: &Server, secs: u64) -> Value {
    let resp = s
        .http
        .post(format!("{}/api/reviews", s.base))
        .body(example("game-9x9.sgf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let v: Value = resp.json().await.unwrap();
    let id = v["id"].as_str().unwrap().to_string();
    let (st, a) = s
        .post(&format!("/api/reviews/{id}/analysis"), None, "")
        .await;
    assert_eq!(st, 200, "{a}");
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let (st, a) = s.get(&format!("/api/reviews/{id}/analysis")).await;
        assert_eq!(st, 200, "{a}");
        if a["status"] == "done" {
            assert_eq!(a["positions"].as_array().unwrap().len(), 36, "{a}");
            return a;
        }
        assert!(std::time::Instant::now() < end, "analysis stuck: {a}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn engines(a: &Value) -> Vec<String> {
    a["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["engine"].as_str().unwrap_or("baduk").to_string())
        .collect()
}

#[tokio::test]
async fn a_good_engine_reviews_every_position_in_blacks_view() {
    let (_dir, argv) = fake("synth", &[]);
    let s = server(argv).await;
    let a = reviewed(&s, 60).await;
    assert_eq!(a["budget"]["engine"], "katago", "{a}");
    assert_eq!(a["budget"]["visits"], 8);
    assert!(a["engine_error"].is_null(), "{a}");
    for (k, p) in a["positions"].as_array().unwrap().iter().enumerate() {
        assert_eq!(p["engine"], "katago", "{p}");
        assert_eq!(p["position"], k);
        let close = |x: &Value, y: f64| (x.as_f64().unwrap() - y).abs() < 1e-3;
        assert!(close(&p["winrate"], 0.5 + k as f64 / 100.0), "{p}");
        assert!(close(&p["score"], k as f64 / 2.0), "{p}");
        assert_eq!(p["owned_score"].as_f64().unwrap(), -7.0, "{p}");
        // The mover's view: White's win rate is 1 − Black's.
        let mover = p["best_winrate"].as_f64().unwrap();
        let black = if p["to_move"] == "B" {
            mover
        } else {
            1.0 - mover
        };
        assert!((black - (0.5 + k as f64 / 100.0)).abs() < 1e-3, "{p}");
        if k % 2 == 0 {
            // KataGo's first choice is the played move: never a loss.
            assert_eq!(p["best"], p["played"], "{p}");
            assert_eq!(
                (p["loss"].as_f64(), p["loss_from"].as_str()),
                (Some(0.0), Some("best"))
            );
        } else {
            // Not among the answer's moves: the root here against the root after it.
            assert_eq!(p["loss_from"], "next", "{p}");
            let lost = p["loss"].as_f64().unwrap();
            // Black's win rate rises a point a turn: White (odd turns… the mover) loses it.
            if p["to_move"] == "W" {
                assert!((lost - 0.01).abs() < 1e-3, "{p}");
            } else {
                assert_eq!(lost, 0.0, "{p}");
            }
        }
    }
}

/// Runs a review with the fake in `mode`: our own engine takes over, the status says why.
async fn falls_back(mode: &str, why: &str) -> Value {
    let (_dir, argv) = fake(mode, &[]);
    let s = server(argv).await;
    let a = reviewed(&s, 120).await;
    let err = a["engine_error"].as_str().unwrap_or_default();
    assert!(
        err.starts_with("analysis engine: ") && err.contains(why),
        "{mode}: {a}"
    );
    assert_eq!(a["budget"]["engine"], "baduk", "{a}");
    a
}

#[tokio::test]
async fn a_crashing_engine_hands_the_review_to_our_own() {
    let a = falls_back("crash", "exited with status 1").await;
    assert!(a["engine_error"]
        .as_str()
        .unwrap()
        .contains("Segmentation fault (pretend)"));
    assert!(engines(&a).iter().all(|e| e == "baduk"));
}

#[tokio::test]
async fn a_crash_midway_keeps_what_was_stored() {
    let a = falls_back("synth-then-crash", "exited with status 3").await;
    let e = engines(&a);
    // The first batch (8 positions) came from the external engine and stays.
    assert!(e[..8].iter().all(|e| e == "katago"), "{e:?}");
    assert!(e[8..].iter().all(|e| e == "baduk"), "{e:?}");
}

#[tokio::test]
async fn a_hanging_engine_runs_out_of_time() {
    falls_back("hang", "did not answer within").await;
}

#[tokio::test]
async fn garbage_is_named() {
    falls_back("garbage", "not JSON: \"KataGo says hello\"").await;
}

#[tokio::test]
async fn a_wrong_id_is_refused() {
    falls_back("wrongid", "answered id \"wrong\"").await;
}

#[tokio::test]
async fn an_engine_error_is_reported() {
    falls_back("error", "error: Illegal move (moves)").await;
}

#[tokio::test]
async fn an_endless_line_is_cut() {
    falls_back("long", "longer than 1048576 bytes").await;
}

#[tokio::test]
async fn the_engine_is_started_again_after_its_backoff() {
    let marker = tempfile::tempdir().unwrap();
    let flag = marker.path().join("started").display().to_string();
    let (_dir, argv) = fake("crash-once", &[&flag]);
    let s = server(argv).await;
    let a = reviewed(&s, 120).await;
    assert!(
        a["engine_error"]
            .as_str()
            .unwrap()
            .contains("exited with status 2"),
        "{a}"
    );
    // A later review gets the engine again once the backoff (1 s) has passed; one started
    // within it is told so and reviewed by our own engine.
    for _ in 0..20 {
        let b = reviewed(&s, 120).await;
        if b["engine_error"].is_null() {
            assert!(engines(&b).iter().all(|e| e == "katago"), "{b}");
            return;
        }
        assert!(
            b["engine_error"]
                .as_str()
                .unwrap()
                .contains("started again in"),
            "{b}"
        );
    }
    panic!("the engine was never started again");
}

#[tokio::test]
async fn a_missing_engine_is_said_so() {
    let s = server(vec!["/nonexistent/katago".into(), "analysis".into()]).await;
    let a = reviewed(&s, 120).await;
    let err = a["engine_error"].as_str().unwrap();
    assert!(err.contains("could not start `/nonexistent/katago`"), "{a}");
}

/// The real KataGo when `KATAGO` (the binary) and `KATAGO_MODEL` (a network) name one, with
/// `KATAGO_CONFIG` or a small one-thread config written here (its `reportAnalysisWinratesAs`
/// the side to move: the query's override must give Black's view anyway). Skipped otherwise.
#[tokio::test]
async fn the_real_katago_reviews_a_short_game() {
    let (Ok(bin), Ok(model)) = (std::env::var("KATAGO"), std::env::var("KATAGO_MODEL")) else {
        eprintln!("skipped: KATAGO and KATAGO_MODEL are not set");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = std::env::var("KATAGO_CONFIG").unwrap_or_else(|_| {
        let path = dir.path().join("analysis.cfg");
        std::fs::write(
            &path,
            "logToStderr = false\nlogDir = ".to_string()
                + &dir.path().join("logs").display().to_string()
                + "\nnumAnalysisThreads = 1\nnumSearchThreadsPerAnalysisThread = 1\n\
                   nnMaxBatchSize = 8\nnnCacheSizePowerOfTwo = 16\n\
                   reportAnalysisWinratesAs = SIDETOMOVE\n",
        )
        .unwrap();
        path.display().to_string()
    });
    let argv = vec![
        bin,
        "analysis".into(),
        "-model".into(),
        model,
        "-config".into(),
        config,
    ];
    let s = Server::start_config("sqlite", |c| {
        c.limits.analysis_engine = Some(ExternalEngine {
            argv,
            visits: Some(8),
        });
    })
    .await;
    let a = reviewed(&s, 600).await;
    assert!(a["engine_error"].is_null(), "{a}");
    assert!(engines(&a).iter().all(|e| e == "katago"), "{a}");
    for p in a["positions"].as_array().unwrap() {
        let wr = p["winrate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&wr), "{p}");
        assert!(
            p["best"].is_string() && p["visits"].as_u64().unwrap() >= 1,
            "{p}"
        );
        if p["best"] == p["played"] {
            assert_eq!(p["loss"], 0.0, "{p}");
        }
    }
    // White won this game by 4 (counted): Black's view of the last position says so.
    let last = a["positions"].as_array().unwrap().last().unwrap().clone();
    assert!(last["score"].as_f64().unwrap() < 0.0, "{last}");
}

/// The transcript recorded from the real KataGo (tests/data/katago-9x9.jsonl: its header
/// names the version, network and command) replayed by the fake: every position stored with
/// KataGo's figures, Black's view, the loss rule kept.
#[tokio::test]
async fn a_recorded_katago_transcript_is_stored_as_its_figures() {
    let path = format!("{}/tests/data/katago-9x9.jsonl", env!("CARGO_MANIFEST_DIR"));
    let mut book = std::collections::HashMap::new();
    for line in std::fs::read_to_string(&path).unwrap().lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).unwrap();
        book.entry(v["turnNumber"].as_u64().unwrap()).or_insert(v);
    }
    let (_dir, argv) = fake("replay", &[&path]);
    let s = server(argv).await;
    let a = reviewed(&s, 60).await;
    assert!(a["engine_error"].is_null(), "{a}");
    for (k, p) in a["positions"].as_array().unwrap().iter().enumerate() {
        let r = &book[&(k as u64)];
        assert_eq!(p["engine"], "katago", "{p}");
        let wr = r["rootInfo"]["winrate"].as_f64().unwrap();
        assert!(
            (p["winrate"].as_f64().unwrap() - wr).abs() < 1e-3,
            "{p} {r}"
        );
        assert_eq!(p["to_move"], r["rootInfo"]["currentPlayer"], "{p}");
        let best = r["moveInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["order"] == 0)
            .unwrap();
        assert_eq!(p["best"], best["move"], "{p}");
        assert_eq!(p["visits"], r["rootInfo"]["visits"], "{p}");
        assert!(p["loss"].as_f64().unwrap() >= 0.0, "{p}");
        if p["best"] == p["played"] {
            assert_eq!(
                (p["loss"].as_f64(), p["loss_from"].as_str()),
                (Some(0.0), Some("best"))
            );
        }
    }
}

#[tokio::test]
async fn the_operators_engine_judges_a_branch_with_its_score_lead() {
    let (_dir, argv) = fake("synth", &[]);
    let s = server(argv).await;
    let sgf = "(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc](;B[gg])(;B[cg]))";
    let (st, v) = s.post("/api/reviews", None, sgf).await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap();
    // Node 4 is the second variation's B C3: three moves from the root.
    let path = format!("/api/reviews/{id}/nodes/4/analysis");
    let (st, a) = s.post(&path, None, "").await;
    assert_eq!(st, 200, "{a}");
    let end = std::time::Instant::now() + Duration::from_secs(60);
    let a = loop {
        let (_, a) = s.get(&path).await;
        if a["status"] == "done" {
            break a;
        }
        assert!(std::time::Instant::now() < end, "analysis stuck: {a}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(a["engine"], "katago", "{a}");
    assert_eq!(a["position"], 3, "{a}");
    // The fake's figures for turn 3, in Black's view: its win rate and its score lead.
    assert!((a["winrate"].as_f64().unwrap() - 0.53).abs() < 1e-3, "{a}");
    assert!((a["score"].as_f64().unwrap() - 1.5).abs() < 1e-3, "{a}");
}
