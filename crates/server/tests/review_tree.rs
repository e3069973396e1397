//! A review's editable tree over HTTP (docs/api.md, "Review trees"): an SGF with three levels
//! of variations, comments and every markup kind uploaded by a signed-in owner, edited by ops
//! (a new branch, markup, a comment, a delete, a promote), exported whole and read back by
//! sgfmill and by `@sabaki/sgf` as the same tree; a server started afresh on the same database
//! rebuilds it; every bad op is a 4xx with its code and changes nothing; a branch's engine
//! analysis and rules table. On SQLite, and on PostgreSQL when the test script gives one.

mod common;

use common::accounts::{call, guest, signup, uniq, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

/// Three levels of variations, comments (one with `]` and `\`), every markup kind, set-up, a
/// compressed point list and a property nobody knows.
const TREE: &str = "(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]PB[Black]PW[White]XZ[unknown kept]\
C[A game \\] with \\\\ escapes]AB[pd]\
;W[dp]C[first move]TR[dd][pp]SQ[dj]CR[jd]MA[jj]LB[qq:A][cc:B]AR[aa:cc]LN[ss:qq]\
(;B[pq]C[main line](;W[qk];B[oq]C[deep main])(;W[oq]C[third level](;B[qk])(;B[ok]N[fourth])))\
(;B[dd]C[second branch]SQ[aa:bb])\
(;B[jj]))";

/// Uploads `sgf` as `who` (a session's cookie and CSRF token, or nobody); the answer.
async fn upload(s: &Server, who: &Session, sgf: &str) -> (u16, Value) {
    let mut r = s
        .http
        .post(format!("{}/api/reviews", s.base))
        .header("content-type", "application/x-go-sgf")
        .body(sgf.to_string());
    if let (Some(c), Some(t)) = (&who.cookie, &who.csrf) {
        r = r
            .header("cookie", format!("baduk_session={c}"))
            .header("x-csrf-token", t);
    }
    let resp = r.send().await.expect("answered");
    let st = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    (
        st,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn op(s: &Server, who: &Session, id: &str, body: Value) -> (u16, Value) {
    call(
        s,
        "POST",
        &format!("/api/reviews/{id}/ops"),
        who,
        Some(body),
    )
    .await
}

/// Applies `o` as `who`, which must succeed; the answer.
async fn ok_op(s: &Server, who: &Session, id: &str, o: Value) -> Value {
    let (st, v) = op(s, who, id, json!({"op": o})).await;
    assert_eq!(st, 200, "{o}: {v}");
    v
}

async fn tree(s: &Server, id: &str) -> Value {
    let (st, t) = s.get(&format!("/api/reviews/{id}/tree")).await;
    assert_eq!(st, 200, "{t}");
    t
}

async fn record(s: &Server, id: &str) -> String {
    let resp = s
        .http
        .get(format!("{}/api/reviews/{id}/record", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.text().await.unwrap()
}

/// The node of the tree JSON with `id`.
fn node(t: &Value, id: u64) -> &Value {
    t["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("no node {id}"))
}

/// The server's tree in the readers' canonical form (`tests/sgf/*_tree.*`): per node its
/// move, comment, name, set-up and markup (lists sorted), then its children.
fn canonical(t: &Value, id: u64) -> Value {
    let n = node(t, id);
    let sorted = |v: &Value| -> Value {
        let mut l: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        l.sort();
        json!(l)
    };
    let pairs = |v: &Value, sep: &str| -> Value {
        let mut l: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|p| format!("{}{sep}{}", p[0].as_str().unwrap(), p[1].as_str().unwrap()))
            .collect();
        l.sort();
        json!(l)
    };
    let m = &n["markup"];
    let mv = match &n["move"] {
        Value::Null => Value::Null,
        v => json!(format!(
            "{} {}",
            v["color"].as_str().unwrap(),
            v["point"].as_str().unwrap()
        )),
    };
    json!({
        "move": mv,
        "C": n["comment"], "N": n["name"],
        "AB": sorted(&n["setup"]["AB"]), "AW": sorted(&n["setup"]["AW"]),
        "AE": sorted(&n["setup"]["AE"]),
        "TR": sorted(&m["TR"]), "SQ": sorted(&m["SQ"]), "CR": sorted(&m["CR"]),
        "MA": sorted(&m["MA"]),
        "LB": pairs(&m["LB"], ":"), "AR": pairs(&m["AR"], "-"), "LN": pairs(&m["LN"], "-"),
        "children": n["children"].as_array().unwrap().iter()
            .map(|c| canonical(t, c.as_u64().unwrap())).collect::<Vec<_>>(),
    })
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What a reader script prints for an SGF text (None, with a message, when the reader is not
/// installed here).
fn read_with(program: &str, script: &str, sgf: &str) -> Option<Value> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tree.sgf");
    std::fs::write(&file, sgf).unwrap();
    let out = Command::new(program)
        .arg(repo().join("tests/sgf").join(script))
        .arg(&file)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{script}: {}\n{sgf}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn sgfmill(sgf: &str) -> Option<Value> {
    let have = Command::new("python3")
        .args(["-c", "import sgfmill"])
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        eprintln!("SKIPPED: sgfmill is not installed (scripts/test installs it with pip)");
        return None;
    }
    read_with("python3", "sgfmill_tree.py", sgf)
}

fn sabaki(sgf: &str) -> Option<Value> {
    if !repo().join("tests/e2e/node_modules/@sabaki/sgf").exists() {
        eprintln!("SKIPPED: tests/e2e/node_modules lacks @sabaki/sgf (run npm ci in tests/e2e)");
        return None;
    }
    read_with("node", "sabaki_tree.mjs", sgf)
}

/// Both readers read `sgf` as `want` (each when installed).
fn readers_agree(sgf: &str, want: &Value, what: &str) {
    if let Some(v) = sgfmill(sgf) {
        assert_eq!(&v, want, "sgfmill, {what}:\n{sgf}");
    }
    if let Some(v) = sabaki(sgf) {
        assert_eq!(&v, want, "@sabaki/sgf, {what}:\n{sgf}");
    }
}

#[tokio::test]
async fn an_edited_tree_exports_whole_and_strict_readers_read_the_same_tree() {
    for db in databases() {
        let s = Server::start(&db).await;
        let name = uniq("owner");
        let owner = signup(&s, &name).await;
        let (st, v) = upload(&s, &owner, TREE).await;
        assert_eq!(st, 201, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let (st, r) = s.get(&format!("/api/reviews/{id}")).await;
        assert_eq!(st, 200, "{r}");
        assert_eq!(
            (r["owner"].as_str(), r["controller"].as_str()),
            (Some(name.as_str()), Some(name.as_str()))
        );
        assert_eq!(r["version"], 0);
        assert_eq!(
            r["moves"].as_array().unwrap().len(),
            4,
            "the main line as before"
        );

        let t0 = tree(&s, &id).await;
        assert_eq!(t0["version"], 0);
        assert_eq!(t0["nodes"].as_array().unwrap().len(), 10);
        assert_eq!(t0["next_id"], 10);
        let first = node(&t0, 1);
        assert_eq!(first["markup"]["LB"], json!([["R3", "A"], ["C17", "B"]]));
        assert_eq!(node(&t0, 0)["comment"], "A game ] with \\ escapes");
        // The original, as both readers read the uploaded file.
        readers_agree(TREE, &canonical(&t0, 0), "the upload");

        // Edits: a new branch (two moves) with markup, a comment, a name, a delete, a promote.
        let a = ok_op(
            &s,
            &owner,
            &id,
            json!({"op": "move", "parent": 2, "color": "W", "point": "C3"}),
        )
        .await;
        assert_eq!(
            (a["version"].clone(), a["node"].clone()),
            (json!(1), json!(10))
        );
        let b = ok_op(
            &s,
            &owner,
            &id,
            json!({"op": "move", "parent": 10, "color": "B", "point": "D3"}),
        )
        .await;
        assert_eq!(b["node"], 11);
        // The same move again is the same node, and nothing is stored.
        let again = ok_op(
            &s,
            &owner,
            &id,
            json!({"op": "move", "parent": 10, "color": "B", "point": "D3"}),
        )
        .await;
        assert_eq!(
            (again["node"].clone(), again["version"].clone()),
            (json!(11), json!(2))
        );
        for o in [
            json!({"op": "mark", "node": 11, "kind": "TR", "point": "Q16", "on": true}),
            json!({"op": "mark", "node": 11, "kind": "SQ", "point": "D4", "on": true}),
            json!({"op": "mark", "node": 11, "kind": "CR", "point": "K10", "on": true}),
            json!({"op": "mark", "node": 11, "kind": "MA", "point": "A1", "on": true}),
            json!({"op": "label", "node": 11, "point": "T19", "text": "x]y"}),
            json!({"op": "line", "node": 11, "kind": "AR", "from": "A1", "to": "T19", "on": true}),
            json!({"op": "line", "node": 11, "kind": "LN", "from": "B2", "to": "C3", "on": true}),
            json!({"op": "comment", "node": 11, "text": "new line: \\ and ] kept\nsecond"}),
            json!({"op": "name", "node": 10, "text": "a try"}),
            json!({"op": "mark", "node": 1, "kind": "TR", "point": "D16", "on": false}),
            json!({"op": "label", "node": 1, "point": "C17", "text": ""}),
            json!({"op": "delete", "node": 9}),
            json!({"op": "promote", "node": 5}),
        ] {
            ok_op(&s, &owner, &id, o).await;
        }
        let t1 = tree(&s, &id).await;
        assert_eq!(t1["version"], 15);
        assert_eq!(node(&t1, 2)["children"], json!([5, 3, 10]));
        assert_eq!(node(&t1, 1)["children"], json!([2, 8]));
        assert_eq!(node(&t1, 11)["number"], 4);
        assert_eq!(node(&t1, 11)["markup"]["LB"], json!([["T19", "x]y"]]));
        assert_eq!(node(&t1, 1)["markup"]["TR"], json!(["Q4"]));
        assert!(t1["nodes"].as_array().unwrap().iter().all(|n| n["id"] != 9));
        let (_, r) = s.get(&format!("/api/reviews/{id}")).await;
        assert_eq!(r["version"], 15);

        // The export is the current tree, whole: both readers read the original plus the edits.
        let text = record(&s, &id).await;
        assert!(text.contains("XZ[unknown kept]"), "{text}");
        assert!(text.contains("C[A game \\] with \\\\ escapes]"), "{text}");
        readers_agree(&text, &canonical(&t1, 0), "the export");

        // Ops sent at once apply one after the other: none lost, none refused.
        let mut sent = Vec::new();
        for x in ["A", "B", "C", "D", "E", "F", "G", "H", "J", "K"] {
            let (s, owner, id) = (s.base.clone(), owner.clone(), id.clone());
            sent.push(tokio::spawn(async move {
                let http = reqwest::Client::new();
                let r = http
                    .post(format!("{s}/api/reviews/{id}/ops"))
                    .header("cookie", format!("baduk_session={}", owner.cookie.unwrap()))
                    .header("x-csrf-token", owner.csrf.unwrap())
                    .header("content-type", "application/json")
                    .body(json!({"op": {"op": "mark", "node": 4, "kind": "MA", "point": format!("{x}10"), "on": true}}).to_string())
                    .send()
                    .await
                    .unwrap();
                r.status().as_u16()
            }));
        }
        for h in sent {
            assert_eq!(h.await.unwrap(), 200);
        }
        let t1 = tree(&s, &id).await;
        assert_eq!(t1["version"], 25);
        assert_eq!(node(&t1, 4)["markup"]["MA"].as_array().unwrap().len(), 10);

        // A server started afresh on the same database rebuilds the same tree.
        let url = s.hub.store.url().to_string();
        let again = Server::start(&url).await;
        assert_eq!(tree(&again, &id).await, t1);
        // Past a snapshot (every 100 ops) too.
        for k in 0..100 {
            let on = k % 2 == 0;
            ok_op(
                &again,
                &owner,
                &id,
                json!({"op": "mark", "node": 0, "kind": "CR", "point": "J10", "on": on}),
            )
            .await;
        }
        let t2 = tree(&again, &id).await;
        assert_eq!(t2["version"], 125);
        // The first server, whose tree is 100 ops behind, catches up.
        assert_eq!(tree(&s, &id).await, t2);
        let third = Server::start(&url).await;
        assert_eq!(tree(&third, &id).await, t2);
        readers_agree(
            &record(&third, &id).await,
            &canonical(&t2, 0),
            "after a snapshot",
        );
    }
}

#[tokio::test]
async fn bad_ops_are_refused_with_their_code_and_change_nothing() {
    for db in databases() {
        let s = Server::start(&db).await;
        let owner = signup(&s, &uniq("owner")).await;
        let (_, v) = upload(&s, &owner, TREE).await;
        let id = v["id"].as_str().unwrap().to_string();
        ok_op(
            &s,
            &owner,
            &id,
            json!({"op": "comment", "node": 3, "text": "before"}),
        )
        .await;
        let before = tree(&s, &id).await;
        let (stranger, _) = guest(&s).await;
        let nobody = Session::default();
        let long = "c".repeat(4_001);
        let cases = [
            (
                &owner,
                json!({"op": {"op": "mark", "node": 1, "kind": "TR", "point": "U20", "on": true}}),
                422,
                "review.off_board",
            ),
            (
                &owner,
                json!({"op": {"op": "label", "node": 1, "point": "Z99", "text": "A"}}),
                422,
                "review.off_board",
            ),
            (
                &owner,
                json!({"op": {"op": "comment", "node": 1, "text": long}}),
                422,
                "review.comment_too_long",
            ),
            (
                &owner,
                json!({"op": {"op": "comment", "node": 1, "text": "bell \u{7}"}}),
                422,
                "review.text",
            ),
            (
                &owner,
                json!({"op": {"op": "label", "node": 1, "point": "A1", "text": "too long a label"}}),
                422,
                "review.label",
            ),
            (
                &owner,
                json!({"op": {"op": "move", "parent": 1, "color": "B", "point": "D4"}}),
                422,
                "review.illegal",
            ),
            (
                &owner,
                json!({"op": {"op": "move", "parent": 99, "color": "B", "point": "A1"}}),
                404,
                "review.no_node",
            ),
            (
                &owner,
                json!({"op": {"op": "delete", "node": 0}}),
                422,
                "review.root",
            ),
            (
                &owner,
                json!({"op": {"op": "teleport", "node": 1}}),
                400,
                "review.op",
            ),
            (
                &owner,
                json!({"op": {"op": "delete", "node": 1, "also": 2}}),
                400,
                "review.op",
            ),
            (
                &owner,
                json!({"op": {"op": "delete", "node": 1}, "extra": true}),
                400,
                "review.op",
            ),
            (&owner, json!({"op": "delete"}), 400, "review.op"),
            (
                &owner,
                json!({"op": {"op": "delete", "node": 1}, "version": 0}),
                409,
                "review.version",
            ),
            (
                &stranger,
                json!({"op": {"op": "delete", "node": 1}}),
                403,
                "review.no_control",
            ),
            (
                &nobody,
                json!({"op": {"op": "delete", "node": 1}}),
                403,
                "review.no_control",
            ),
        ];
        for (who, body, status, code) in cases {
            let (st, v) = op(&s, who, &id, body.clone()).await;
            assert_eq!(
                (st, v["code"].as_str()),
                (status, Some(code)),
                "{body}: {v}"
            );
            assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
        }
        let (st, v) = call(&s, "POST", &format!("/api/reviews/{id}/ops"), &owner, None).await;
        assert_eq!((st, v["code"].as_str()), (400, Some("review.op")), "{v}");
        assert_eq!(tree(&s, &id).await, before, "nothing changed");
        // The refusal names who has control.
        let (_, v) = op(
            &s,
            &stranger,
            &id,
            json!({"op": {"op": "delete", "node": 1}}),
        )
        .await;
        assert!(v["error"].as_str().unwrap().contains("has control"), "{v}");

        // An anonymous upload has no owner: nobody may edit it.
        let (st, v) = upload(&s, &nobody, TREE).await;
        assert_eq!(st, 201, "{v}");
        let anon = v["id"].as_str().unwrap().to_string();
        let (_, r) = s.get(&format!("/api/reviews/{anon}")).await;
        assert_eq!(
            (r["owner"].clone(), r["controller"].clone()),
            (Value::Null, Value::Null)
        );
        let (st, v) = op(
            &s,
            &owner,
            &anon,
            json!({"op": {"op": "delete", "node": 1}}),
        )
        .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("review.no_control")),
            "{v}"
        );

        // An upload with an API token is its account's, which edits with the token.
        let (st, t) = call(
            &s,
            "POST",
            "/api/tokens",
            &owner,
            Some(json!({"label": "reviews", "scopes": ["play"]})),
        )
        .await;
        assert_eq!(st, 201, "{t}");
        let token = t["token"].as_str().unwrap().to_string();
        let resp = s
            .http
            .post(format!("{}/api/reviews", s.base))
            .bearer_auth(&token)
            .body(TREE)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 201);
        let mine = resp.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let (st, v) = common::accounts::with_token(
            &s,
            "POST",
            &format!("/api/reviews/{mine}/ops"),
            Some(&token),
            Some(json!({"op": {"op": "delete", "node": 9}})),
        )
        .await;
        assert_eq!((st, v["version"].clone()), (200, json!(1)), "{v}");
        let (st, v) = op(
            &s,
            &owner,
            &mine,
            json!({"op": {"op": "promote", "node": 8}}),
        )
        .await;
        assert_eq!(st, 200, "the same account with its session: {v}");

        // A tree past the reader's limits is refused at upload, naming the limit.
        let count = baduk_server::review::count(&s.hub.store).await.unwrap();
        let big = format!("(;SZ[9]{})", ";B[];W[]".repeat(10_001));
        let (st, v) = upload(&s, &owner, &big).await;
        assert_eq!((st, v["code"].as_str()), (413, Some("review.nodes")), "{v}");
        assert_eq!(
            baduk_server::review::count(&s.hub.store).await.unwrap(),
            count
        );
        // Unknown reviews and nodes; a Wall Go review has no tree.
        let (st, v) = s.get("/api/reviews/nope/tree").await;
        assert_eq!(st, 404, "{v}");
        let (st, v) = s.get(&format!("/api/reviews/{id}/nodes/99/analysis")).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (404, Some("review.no_node")),
            "{v}"
        );
        let (st, v) = s.get(&format!("/api/reviews/{id}/nodes/x/analysis")).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (404, Some("review.no_node")),
            "{v}"
        );
        let (st, v) = s
            .post(
                &format!("/api/reviews/{id}/marks"),
                None,
                &json!({"node": 99}).to_string(),
            )
            .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (404, Some("review.no_node")),
            "{v}"
        );
        assert_eq!(tree(&s, &id).await, before, "nothing changed");
    }
}

#[tokio::test]
async fn a_branch_gets_its_engine_analysis_and_its_rules_table() {
    let s = Server::start_config("sqlite", |c| c.limits.review_playouts = 64).await;
    let owner = signup(&s, &uniq("owner")).await;
    let (_, v) = upload(&s, &owner, "(;GM[1]SZ[9]KM[7];B[ee];W[cc](;B[gg])(;B[cg]))").await;
    let id = v["id"].as_str().unwrap().to_string();
    // A branch of the owner's own on the second variation.
    let n = ok_op(
        &s,
        &owner,
        &id,
        json!({"op": "move", "parent": 4, "color": "W", "point": "G3"}),
    )
    .await;
    let n = n["node"].as_u64().unwrap();
    let path = format!("/api/reviews/{id}/nodes/{n}/analysis");
    let (st, a) = s.get(&path).await;
    assert_eq!((st, a["status"].as_str()), (200, Some("none")), "{a}");
    let (st, a) = s.post(&path, None, "").await;
    assert_eq!(st, 200, "{a}");
    let end = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let a = loop {
        let (st, a) = s.get(&path).await;
        assert_eq!(st, 200, "{a}");
        if a["status"] == "done" {
            break a;
        }
        assert!(std::time::Instant::now() < end, "analysis stuck: {a}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(a["position"], 4, "{a}");
    assert_eq!(a["to_move"], "B", "{a}");
    assert!(a["winrate"].is_number() && a["score"].is_number(), "{a}");
    assert!(a["best"].is_string() && a["pv"].is_array(), "{a}");
    // Asked again: the stored result, nothing queued.
    let (_, again) = s.post(&path, None, "").await;
    assert_eq!(again, a);

    // The rules table of the branch's position.
    let (st, t) = s
        .post(
            &format!("/api/reviews/{id}/marks"),
            None,
            &json!({"node": n}).to_string(),
        )
        .await;
    assert_eq!(st, 200, "{t}");
    assert_eq!(t["move"], 4, "{t}");
    assert!(!t["rows"].as_array().unwrap().is_empty(), "{t}");
    let (st, t) = s
        .post(
            &format!("/api/reviews/{id}/marks"),
            None,
            &json!({"node": n, "move": 2}).to_string(),
        )
        .await;
    assert_eq!(st, 400, "{t}");
}
