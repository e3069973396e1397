//! Reviews over HTTP (docs/api.md, "Reviews"): records in every charset, collections, Wall Go,
//! the legality verdict per rule set, the table and its dead-stone toggles, every refusal (a
//! 4xx naming why, nothing stored), and a review read back by a server started afresh on the
//! same database. On SQLite, and on PostgreSQL when the test script gives one.

mod common;

use common::{databases, Server};
use serde_json::{json, Value};

/// POSTs raw bytes as a record; returns (status, body).
async fn upload(s: &Server, query: &str, body: Vec<u8>) -> (u16, Value) {
    let resp = s
        .http
        .post(format!("{}/api/reviews{query}", s.base))
        .header("content-type", "application/x-go-sgf")
        .body(body)
        .send()
        .await
        .expect("the request is answered");
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Uploads a record that must be accepted; returns the review as `GET` serves it.
async fn review(s: &Server, query: &str, body: Vec<u8>) -> Value {
    let (st, v) = upload(s, query, body).await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap();
    assert_eq!(v["url"], format!("/r/{id}"));
    let (st, r) = s.get(&format!("/api/reviews/{id}")).await;
    assert_eq!(st, 200, "{r}");
    r
}

async fn count(s: &Server) -> i64 {
    baduk_server::review::count(&s.hub.store).await.unwrap()
}

fn example(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

const NAMES: &str =
    "(;GM[1]FF[4]CA[{CA}]SZ[9]PB[{B}]PW[{W}]KM[6.5]C[{C}];B[ee];W[gc]C[{C}];B[];W[])";

fn named(ca: &str, b: &str, w: &str, c: &str) -> String {
    NAMES
        .replace("{CA}", ca)
        .replace("{B}", b)
        .replace("{W}", w)
        .replace("{C}", c)
}

#[tokio::test]
async fn records_in_every_charset_read_as_the_cli_reads_them() {
    for db in databases() {
        let s = Server::start(&db).await;
        let utf8 = named("UTF-8", "이세돌", "曺薰鉉", "좋은 수");
        let r = review(&s, "", utf8.into_bytes()).await;
        assert_eq!(r["game"], "go");
        assert_eq!(r["info"]["black"], "이세돌");
        assert_eq!(r["info"]["white"], "曺薰鉉");
        assert_eq!(r["comment"], "좋은 수");
        assert_eq!(r["moves"][1]["comment"], "좋은 수");
        assert_eq!(r["moves"].as_array().unwrap().len(), 4);
        let text = named("EUC-KR", "이창호", "조훈현", "패");
        let (euc, _, bad) = encoding_rs::EUC_KR.encode(&text);
        assert!(!bad);
        let r = review(&s, "", euc.into_owned()).await;
        assert_eq!(r["info"]["black"], "이창호");
        // The record comes back as UTF-8, and says so.
        let text = s
            .http
            .get(format!(
                "{}/api/reviews/{}/record",
                s.base,
                r["id"].as_str().unwrap()
            ))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            text.contains("CA[UTF-8]") && text.contains("PB[이창호]"),
            "{text}"
        );
        assert_eq!(r["moves"][1]["comment"], "패");
        let text = named("Shift_JIS", "本因坊秀策", "井上幻庵", "碁");
        let (sj, _, bad) = encoding_rs::SHIFT_JIS.encode(&text);
        assert!(!bad);
        let r = review(&s, "", sj.into_owned()).await;
        assert_eq!(r["info"]["black"], "本因坊秀策");
        assert_eq!(r["info"]["white"], "井上幻庵");
        // A byte the charset does not have: the reader's error, nothing stored.
        let before = count(&s).await;
        let mut bad = named("EUC-KR", "x", "y", "z").into_bytes();
        bad.splice(30..30, [0xFF, 0xFF]);
        let (st, v) = upload(&s, "", bad).await;
        assert_eq!(st, 422, "{v}");
        assert!(v["error"].as_str().unwrap().contains("EUC-KR"), "{v}");
        assert_eq!(count(&s).await, before);
    }
}

#[tokio::test]
async fn a_collection_takes_game_n() {
    for db in databases() {
        let s = Server::start(&db).await;
        let two = b"(;GM[1]SZ[9]PB[first];B[ee])\n(;GM[1]SZ[13]PB[second];B[gg];W[dd])".to_vec();
        let r = review(&s, "", two.clone()).await;
        assert_eq!(r["info"]["black"], "first");
        assert_eq!(
            (r["info"]["games"].as_u64(), r["info"]["game"].as_u64()),
            (Some(2), Some(1))
        );
        let r = review(&s, "?game=2", two.clone()).await;
        assert_eq!(r["info"]["black"], "second");
        assert_eq!(r["size"], json!({"cols": 13, "rows": 13}));
        assert_eq!(r["moves"][1]["move"], "D10");
        let before = count(&s).await;
        let (st, v) = upload(&s, "?game=3", two.clone()).await;
        assert_eq!(st, 422, "{v}");
        assert!(
            v["error"].as_str().unwrap().contains("holds 2 games"),
            "{v}"
        );
        let (st, _) = upload(&s, "?game=0", two.clone()).await;
        assert_eq!(st, 400);
        let (st, _) = upload(&s, "?game=x", two).await;
        assert_eq!(st, 400);
        assert_eq!(count(&s).await, before);
    }
}

#[tokio::test]
async fn bad_records_get_the_readers_error_and_nothing_is_stored() {
    for db in databases() {
        let s = Server::start(&db).await;
        let before = count(&s).await;
        let cases: Vec<(Vec<u8>, u16, &str)> = vec![
            // Line and property, as the CLI names them.
            (
                b"(;GM[1]FF[4]SZ[9]\n;B[ee]\n;W[zz])".to_vec(),
                422,
                "SGF line 3, property W[zz]: the move is off the 9x9 board",
            ),
            (b"(;GM[1]SZ[30];B[aa])".to_vec(), 422, "property SZ[30"),
            (b"(;GM[2]SZ[8];B[aa])".to_vec(), 422, "game type"),
            (
                b"hello, this is not a record".to_vec(),
                400,
                "neither an SGF file",
            ),
            (b"".to_vec(), 400, "no record"),
            (b"(;GM[1]SZ[9];B[ee]".to_vec(), 422, "SGF"),
            (b"wallgo 1\nplace A Z9\n".to_vec(), 400, "line 2"),
        ];
        for (body, status, says) in cases {
            let shown = String::from_utf8_lossy(&body).into_owned();
            let (st, v) = upload(&s, "", body).await;
            assert_eq!(st, status, "{shown}: {v}");
            let e = v["error"].as_str().unwrap_or_default();
            assert!(e.contains(says), "{shown}: {e}");
            assert!(v["code"].is_string(), "{v}");
        }
        // Thousands of variations, too many nodes, and a body over the cap.
        let mut many = String::from("(;GM[1]SZ[9]");
        for _ in 0..3000 {
            many.push_str("(;B[aa])");
        }
        many.push(')');
        let (st, v) = upload(&s, "", many.into_bytes()).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (413, Some("review.variations")),
            "{v}"
        );
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("more than 1000 variations"),
            "{v}"
        );
        assert_eq!(v["args"]["max"], 1000, "{v}");
        let mut long = String::from("(;GM[1]SZ[9]");
        for _ in 0..25_000 {
            long.push_str(";B[]");
        }
        long.push(')');
        let (st, v) = upload(&s, "", long.into_bytes()).await;
        assert_eq!((st, v["code"].as_str()), (413, Some("review.nodes")), "{v}");
        assert!(v["error"].as_str().unwrap().contains("20000 nodes"), "{v}");
        let huge = format!(
            "(;GM[1]SZ[9]C[{}])",
            "x".repeat(baduk_server::review::BODY_LIMIT)
        );
        let (st, v) = upload(&s, "", huge.into_bytes()).await;
        assert_eq!(st, 413, "{v}");
        assert!(v["error"].as_str().unwrap().contains("at most"), "{v}");
        assert_eq!(count(&s).await, before);
        // Unknown reviews and made-up ids.
        for id in ["nosuchreview", "..%2F..%2Fetc", "a;b"] {
            let (st, _) = s.get(&format!("/api/reviews/{id}")).await;
            assert_eq!(st, 404, "{id}");
        }
    }
}

#[tokio::test]
async fn an_illegal_record_is_judged_per_rule_set() {
    for db in databases() {
        let s = Server::start(&db).await;
        // Black takes the ko at F5; White takes back at once.
        let ko =
            b"(;GM[1]FF[4]SZ[9]AB[ed][de][ef]AW[fd][ge][ff][ee]PL[B]\n;B[fe]\n;W[ee])".to_vec();
        let r = review(&s, "", ko).await;
        let verdicts = r["legality"].as_array().unwrap();
        assert_eq!(verdicts.len(), 9);
        // JK has no ko rule of its own (its cycles end the game): every other rule set refuses.
        let refusing: Vec<&Value> = verdicts.iter().filter(|v| v["accepts"] == false).collect();
        assert_eq!(refusing.len(), 8, "{verdicts:?}");
        for v in refusing {
            assert_ne!(v["rules"], "jk", "{v}");
            let ill = &v["illegal"];
            assert_eq!(ill["number"], 2, "{v}");
            assert_eq!(ill["move"], "E5", "{v}");
            assert_eq!(ill["line"], 3, "{v}");
            assert!(ill["code"].as_str().unwrap().starts_with("illegal."), "{v}");
            assert!(
                ill["message"].as_str().unwrap().starts_with("move 2 W E5:"),
                "{v}"
            );
        }
        // A legal record: every rule set accepts it.
        let r = review(&s, "", example("game-9x9.sgf")).await;
        assert!(r["legality"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["accepts"] == true));
        assert_eq!(r["info"]["rules"], "chinese");
        // How each replay ended: the English sentence and the same as a key for the page.
        for v in r["legality"].as_array().unwrap() {
            assert_eq!(v["end"].is_null(), v["end_code"].is_null(), "{v}");
            if v["end"] == "ended by passes" {
                assert_eq!(
                    (&v["end_code"], &v["end_args"]),
                    (&json!("passes"), &json!({}))
                );
            }
        }
    }
}

#[tokio::test]
async fn the_table_changes_with_the_dead_chains() {
    for db in databases() {
        let s = Server::start(&db).await;
        let r = review(&s, "", example("game-9x9.sgf")).await;
        let id = r["id"].as_str().unwrap();
        let t = &r["table"];
        assert_eq!(t["rows"].as_array().unwrap().len(), 9);
        assert_eq!(t["finished"], true);
        assert_eq!(t["move"], 36);
        let base: Vec<Value> = t["rows"].as_array().unwrap().clone();
        // Why two rule sets differ: the English line and the same as keys with both values.
        let keys = [
            "counting",
            "komi",
            "seki",
            "passes",
            "handicap",
            "life",
            "settlement",
        ];
        for w in t["why"].as_array().unwrap() {
            let reasons = w["reasons"].as_array().unwrap();
            assert!(!reasons.is_empty(), "{w}");
            for k in reasons {
                assert!(keys.contains(&k["key"].as_str().unwrap()), "{w}");
            }
        }
        // Toggle a living chain dead (White's at D4): White loses it, the table changes.
        let (st, v) = s
            .post(
                &format!("/api/reviews/{id}/marks"),
                None,
                &json!({"toggle": "D4"}).to_string(),
            )
            .await;
        assert_eq!(st, 200, "{v}");
        assert!(v["dead"].as_array().unwrap().contains(&json!("D4")), "{v}");
        assert_eq!(v["dead_from"], "marks");
        assert_ne!(v["rows"], json!(base));
        // Toggling it back with the marks given gives the proposal's dead stones again.
        let dead = v["dead"].clone();
        let (st, back) = s
            .post(
                &format!("/api/reviews/{id}/marks"),
                None,
                &json!({"dead": dead, "toggle": "D4"}).to_string(),
            )
            .await;
        assert_eq!(st, 200, "{back}");
        assert_eq!(back["dead"], t["proposed"]);
        // Any position: after 10 moves.
        let (st, mid) = s
            .post(
                &format!("/api/reviews/{id}/marks"),
                None,
                &json!({"move": 10}).to_string(),
            )
            .await;
        assert_eq!(st, 200, "{mid}");
        assert_eq!(
            (mid["move"].as_u64(), &mid["finished"]),
            (Some(10), &json!(false))
        );
        // Refusals.
        for (body, status) in [
            (json!({"toggle": "A1"}), 422),
            (json!({"toggle": "Z99"}), 400),
            (json!({"move": 99}), 400),
            (json!({"colour": "red"}), 400),
        ] {
            let (st, v) = s
                .post(&format!("/api/reviews/{id}/marks"), None, &body.to_string())
                .await;
            assert_eq!(st, status, "{body}: {v}");
        }
    }
}

#[tokio::test]
async fn a_wall_go_record_is_replayed_position_by_position() {
    for db in databases() {
        let s = Server::start(&db).await;
        let r = review(&s, "", example("game.wallgo")).await;
        assert_eq!(r["game"], "wallgo");
        let moves = r["moves"].as_array().unwrap().len();
        assert!(moves > 8);
        assert_eq!(r["positions"].as_array().unwrap().len(), moves + 1);
        assert_eq!(r["positions"][0]["pieces"]["A"], json!(["B2", "F6"]));
        let id = r["id"].as_str().unwrap();
        let (st, v) = s
            .post(&format!("/api/reviews/{id}/marks"), None, "{}")
            .await;
        assert_eq!(st, 400, "{v}");
    }
}

#[tokio::test]
async fn a_review_outlives_its_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut dbs = vec![format!("sqlite:{}", dir.path().join("r.db").display())];
    dbs.extend(databases().into_iter().filter(|d| d != "sqlite"));
    for db in dbs {
        let (id, first, db) = {
            let s = Server::start(&db).await;
            let r = review(&s, "", example("game-9x9.sgf")).await;
            // (A test's PostgreSQL server has a schema of its own: its URL names it.)
            (
                r["id"].as_str().unwrap().to_string(),
                r,
                s.hub.store.url().to_string(),
            )
        };
        // A second server on the same database serves it the same.
        let s = Server::start(&db).await;
        let (st, again) = s.get(&format!("/api/reviews/{id}")).await;
        assert_eq!(st, 200, "{again}");
        assert_eq!(again, first);
        let resp = s
            .http
            .get(format!("{}/api/reviews/{id}/record", s.base))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let text = resp.text().await.unwrap();
        assert!(text.starts_with("(;GM[1]"), "{text}");
    }
}

/// Polls the analysis until `pred` holds (at most `secs`).
async fn analysis_until(s: &Server, id: &str, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let (st, a) = s.get(&format!("/api/reviews/{id}/analysis")).await;
        assert_eq!(st, 200, "{a}");
        if pred(&a) {
            return a;
        }
        assert!(std::time::Instant::now() < end, "analysis stuck: {a}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_record_naming_no_rules_is_searched_under_the_default_the_page_shows() {
    let s = Server::start("sqlite").await;
    // No RU: every rule set accepts it; the page's picker shows Japanese 1989, and so must the
    // engine's plan (it took the first rule set that accepted, Korean).
    let r = review(
        &s,
        "",
        b"(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[cc];B[gg])".to_vec(),
    )
    .await;
    assert_eq!(r["info"]["rules"], Value::Null, "{}", r["info"]);
    let plan = r["analysis"]["rules"].as_str().unwrap_or_default();
    assert_eq!(
        plan.split(',').next(),
        Some("japanese"),
        "{}",
        r["analysis"]
    );
}

#[tokio::test]
async fn the_engine_reviews_every_position_and_the_export_carries_it() {
    for db in databases() {
        let s = Server::start_config(&db, |c| c.limits.review_playouts = 40).await;
        let r = review(&s, "", example("game-9x9.sgf")).await;
        let id = r["id"].as_str().unwrap();
        assert_eq!(r["analysis"]["status"], "none");
        let (st, a) = s
            .post(&format!("/api/reviews/{id}/analysis"), None, "")
            .await;
        assert_eq!(st, 200, "{a}");
        assert!(
            ["queued", "running"].contains(&a["status"].as_str().unwrap()),
            "{a}"
        );
        // The record ends in two passes: the position after them is over, not searched.
        assert_eq!(a["total"], 36);
        assert_eq!(a["rules"], "chinese,komi=7");
        let a = analysis_until(&s, id, 120, |a| a["status"] == "done").await;
        let ps = a["positions"].as_array().unwrap();
        assert_eq!(ps.len(), 36);
        for (k, p) in ps.iter().enumerate() {
            assert_eq!(p["position"], k);
            let wr = p["winrate"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&wr), "{p}");
            assert!(p["best"].is_string() && p["pv"].is_array(), "{p}");
            // 9×9: the learned patterns (the network reads 19×19 only).
            assert_eq!(p["priors"], "patterns", "{p}");
        }
        // Asking again changes nothing.
        let (st, again) = s
            .post(&format!("/api/reviews/{id}/analysis"), None, "")
            .await;
        assert_eq!((st, &again["status"]), (200, &json!("done")));
        // The export: the engine's comments in C[], readable by the one SGF reader.
        let text = s
            .http
            .get(format!("{}/api/reviews/{id}/record?analysis=1", s.base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(text.contains("Engine: Black"), "{text}");
        assert!(
            text.contains("Engine review (baduk): 36 of 36 positions"),
            "{text}"
        );
        let g = baduk_go::SgfGame::parse(&text).expect("the export reads back");
        assert_eq!(g.moves.len(), 36);
        assert!(g.comments.len() >= 30);
        // Wall Go: expert's evaluation per position.
        let w = review(&s, "", example("game.wallgo")).await;
        let wid = w["id"].as_str().unwrap();
        let (st, _) = s
            .post(&format!("/api/reviews/{wid}/analysis"), None, "")
            .await;
        assert_eq!(st, 200);
        let a = analysis_until(&s, wid, 120, |a| a["status"] == "done").await;
        let ps = a["positions"].as_array().unwrap();
        assert_eq!(ps.len(), w["positions"].as_array().unwrap().len());
        assert!(
            ps[0]["best"].is_string() && ps[0]["value"].is_i64(),
            "{}",
            ps[0]
        );
    }
}

#[tokio::test]
async fn reviews_share_a_one_thread_pool_round_robin() {
    // One search thread and a small budget: three reviews of the same 36-position game started
    // at once must advance together, one position each in turn, none waiting for another to
    // finish. (A position takes some milliseconds, longer than the three progress reads below
    // take together; with 8 playouts a position several went by between two reads under load.)
    let s = Server::start_config("sqlite", |c| {
        c.limits.review_playouts = 400;
        c.limits.bots.threads = 1;
    })
    .await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let r = review(&s, "", example("game-9x9.sgf")).await;
        ids.push(r["id"].as_str().unwrap().to_string());
    }
    assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
    let mut started = Vec::new();
    for id in &ids {
        let (st, a) = s
            .post(&format!("/api/reviews/{id}/analysis"), None, "")
            .await;
        assert_eq!(st, 200, "{a}");
        assert_eq!(a["total"], 36);
        started.push(a);
    }
    // The first may already run; the last has at least one review before it and at most two.
    let first = &started[0];
    assert!(
        first["status"] == "running"
            || (first["status"] == "queued" && first["queue_position"] == 0),
        "{first}"
    );
    let last = &started[2];
    assert_eq!(last["status"], "queued", "{last}");
    let before = last["queue_position"].as_u64().unwrap();
    assert!((1..=2).contains(&before), "{last}");

    let end = std::time::Instant::now() + std::time::Duration::from_secs(180);
    loop {
        let mut done = Vec::new();
        for id in &ids {
            let (st, a) = s.get(&format!("/api/reviews/{id}/analysis")).await;
            assert_eq!(st, 200, "{a}");
            match a["status"].as_str().unwrap() {
                "running" => assert!(a["queue_position"].is_null(), "{a}"),
                // With one thread, at most the other two wait before it.
                "queued" => assert!(a["queue_position"].as_u64().unwrap() <= 2, "{a}"),
                other => panic!("review {id} is {other} while the others run: {a}"),
            }
            done.push(a["done"].as_u64().unwrap());
        }
        // Round robin: the counts stay within a position or two of each other (the three reads
        // are not one instant), so none runs ahead while the others wait.
        let (lo, hi) = (*done.iter().min().unwrap(), *done.iter().max().unwrap());
        assert!(hi - lo <= 2, "unfair sharing: {done:?}");
        if hi >= 12 {
            assert!(lo >= 10, "{done:?}");
            break;
        }
        assert!(std::time::Instant::now() < end, "too slow: {done:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Issue 41: the operator's budgets reach the review (`--review-seconds`, `--review-threads`),
/// and each move's loss is read in the search of the position before it: the played move has its
/// share of the playouts, and the engine's own choice is never a loss.
#[tokio::test]
async fn the_operators_review_budget_holds_and_a_move_is_judged_in_one_search() {
    for db in databases() {
        let s = Server::start_config(&db, |c| {
            c.limits.review_playouts = 60;
            c.limits.review_time = Some(std::time::Duration::from_millis(2500));
            c.limits.review_threads = 1;
        })
        .await;
        let r = review(&s, "", example("game-9x9.sgf")).await;
        let id = r["id"].as_str().unwrap();
        let (st, a) = s
            .post(&format!("/api/reviews/{id}/analysis"), None, "")
            .await;
        assert_eq!(st, 200, "{a}");
        assert_eq!(a["budget"]["max_ms"], 2500, "{a}");
        assert_eq!(a["budget"]["playouts"], 60, "{a}");
        let a = analysis_until(&s, id, 120, |a| a["status"] == "done").await;
        for p in a["positions"].as_array().unwrap() {
            let loss = p["loss"].as_f64().expect("a loss");
            assert!(
                loss >= 0.0 && p["points_lost"].as_f64().unwrap() >= 0.0,
                "{p}"
            );
            if p["played"] == p["best"] {
                assert_eq!(loss, 0.0, "the engine's own choice: {p}");
            }
            if p["played"].is_string() {
                assert!(p["played_visits"].as_u64().unwrap() >= 6, "{p}");
            }
            assert!(p["score_band"].as_f64().unwrap() >= 0.0, "{p}");
        }
    }
}

#[tokio::test]
async fn a_19x19_review_searches_with_the_policy_network() {
    // Until 2026-12-05 a server without `--go-model` reviewed with the hand-written priors and
    // no network (the CLI's `go review`, which the review's figures were measured with, had both).
    let s = Server::start_config("sqlite", |c| c.limits.review_playouts = 40).await;
    let record = "(;GM[1]FF[4]SZ[19]KM[7.5]RU[Chinese];B[pd];W[dp];B[pp];W[dd];B[fq];W[cn])";
    let r = review(&s, "", record.as_bytes().to_vec()).await;
    let id = r["id"].as_str().unwrap();
    let (st, a) = s
        .post(&format!("/api/reviews/{id}/analysis"), None, "")
        .await;
    assert_eq!(st, 200, "{a}");
    let a = analysis_until(&s, id, 120, |a| a["status"] == "done").await;
    let ps = a["positions"].as_array().unwrap();
    assert_eq!(ps.len(), 7, "{a}");
    for p in ps {
        assert_eq!(p["priors"], "net", "{p}");
    }
}

/// A review stored before the server kept the game it read (the `game` column NULL, as an older
/// server's database has it) is read once, on first use, and its game stored; one stored then
/// that the reader now refuses (an old set-up bomb) answers a 422 from its stored reason, and
/// neither is changed otherwise.
#[tokio::test]
async fn a_review_stored_by_an_older_server_is_read_once_and_its_game_kept() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("old.db").display());
    let s = Server::start(&url).await;
    let r = review(&s, "", example("game-9x9.sgf")).await;
    let id = r["id"].as_str().unwrap().to_string();
    let bomb = format!(
        "(;GM[1]SZ[19];B[pd];W[dp](;B[pp])({}))",
        ";AB[\\aa:ZZ]".repeat(2_000)
    );
    let db = sqlx::SqlitePool::connect(&url).await.unwrap();
    sqlx::query("UPDATE reviews SET game = NULL, plan = NULL WHERE id = $1")
        .bind(&id)
        .execute(&db)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO reviews (id, kind, record, game_index, summary, created_at) \
         SELECT 'oldbomb', kind, $1, 0, summary, created_at FROM reviews WHERE id = $2",
    )
    .bind(&bomb)
    .bind(&id)
    .execute(&db)
    .await
    .unwrap();
    let game_of = |id: &str| {
        let (db, id) = (db.clone(), id.to_string());
        async move {
            sqlx::query_scalar::<_, Option<String>>("SELECT game FROM reviews WHERE id = $1")
                .bind(id)
                .fetch_one(&db)
                .await
                .unwrap()
        }
    };
    assert_eq!(game_of(&id).await, None);
    let toggle = json!({"toggle": "D4"}).to_string();
    let (st, v) = s
        .post(&format!("/api/reviews/{id}/marks"), None, &toggle)
        .await;
    assert_eq!(st, 200, "{v}");
    let stored = game_of(&id).await.expect("the game is stored on first use");
    assert!(stored.contains("\"moves\""), "{stored}");
    let (st, again) = s.get(&format!("/api/reviews/{id}")).await;
    assert_eq!(st, 200, "{again}");
    assert_eq!(
        again["analysis"]["total"], r["analysis"]["total"],
        "{again}"
    );
    let export = s
        .http
        .get(format!("{}/api/reviews/{id}/record?analysis=1", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(export.status(), 200);

    for _ in 0..2 {
        let (st, v) = s.post("/api/reviews/oldbomb/marks", None, &toggle).await;
        assert_eq!((st, v["code"].as_str()), (422, Some("review.sgf")), "{v}");
        assert!(
            v["error"].as_str().unwrap().contains("too much set-up"),
            "{v}"
        );
    }
    let reason = game_of("oldbomb").await.expect("the reason is stored");
    assert!(reason.contains("unreadable"), "{reason}");
    let (st, _) = s.get("/api/reviews/oldbomb/record").await;
    assert_eq!(st, 200);
}
