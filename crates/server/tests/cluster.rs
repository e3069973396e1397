//! The cluster (docs/scaling.md): one owner per live game, forwarding to it, the lease check
//! on commits, the internal endpoint's secret, and a property test of the lease protocol over
//! random join/renew/pause/kill/scan/commit sequences with a fake clock on the real queries.
//! The multi-process tests run on PostgreSQL (`scripts/with-postgres`); the rest on SQLite too.
//! The SIGKILL failover test needs the `baduk` binary: `crates/cli/tests/cluster_process.rs`.

mod common;

use baduk_server::cluster::LEASE_MS;
use baduk_server::game::hub::{Hub, HubOptions};
use baduk_server::game::room::{SeatSpec, Settings};
use baduk_server::store::{Store, StoreError};
use common::accounts::ask;
use common::{databases, token, Server};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The PostgreSQL URL of the test script, if any.
fn postgres() -> Option<String> {
    databases().into_iter().find(|d| d != "sqlite")
}

/// One counter of `/metrics` (the sum over its labels).
async fn metric(s: &Server, name: &str) -> u64 {
    let (st, v) = s.get("/metrics").await;
    assert_eq!(st, 200);
    let text = v.as_str().expect("text").to_string();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.split([' ', '{']).next() == Some(name))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Whether server `s` owns game `id` now.
fn owns(s: &Server, id: &str) -> bool {
    s.hub.loaded_handle(id).is_some_and(|h| h.owned())
}

/// Two servers of one cluster (the second on the first's database), both with a lease.
async fn pair(pg: &str) -> (Server, Server) {
    let a = Server::start(pg).await;
    let b = Server::start(a.hub.store.url()).await;
    (a, b)
}

/// Two servers of one cluster on the test script's PostgreSQL and a 9×9 game created through
/// the first: its id and seats; None (said on stderr) without PostgreSQL.
async fn go_game_on_two() -> Option<(Server, Server, String, Value)> {
    game_on_two(json!({"game": "go", "size": 9, "rules": "chinese"})).await
}

/// Two servers of one cluster and the game `settings` create through the first.
async fn game_on_two(settings: Value) -> Option<(Server, Server, String, Value)> {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return None;
    };
    let (a, b) = pair(&pg).await;
    let (id, seats) = a.create(settings).await;
    Some((a, b, id, seats))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_games_spread_over_the_nodes_and_only_the_owner_runs_bots_and_clocks() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let (a, b) = pair(&pg).await;
    // Bot against bot, both created through A: the first stays on A (a tie goes to the node
    // that creates), the second goes to B, the less loaded.
    let bots = json!({"game": "wallgo", "turn_seconds": 0,
        "seats": {"A": {"kind": "bot", "bot": "random"}, "B": {"kind": "bot", "bot": "random"}}});
    let (g1, _) = a.create(bots.clone()).await;
    let (g2, _) = a.create(bots.clone()).await;
    assert!(owns(&a, &g1), "the first game stays on A");
    assert!(
        common::eventually(5, || owns(&b, &g2)).await,
        "the second game goes to B"
    );
    assert!(!owns(&a, &g2) && !owns(&b, &g1));
    // Both games finish; each bot move is searched and stored by its owner only.
    for (s, id) in [(&a, &g1), (&b, &g2)] {
        s.wait_for(id, 60, |st| st["status"] == "finished").await;
    }
    // Every stored action of a game (the bots' moves, and Wall Go's automatic ones, which the
    // server makes for a seat), and the bots' own moves.
    let count = |st: &Value, bots_only: bool| {
        st["actions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| !bots_only || x["auto"] != true)
            .count() as u64
    };
    // Each read from its owner (the other copy may still be catching up from events).
    let (s1, s2) = (a.state(&g1).await, b.state(&g2).await);
    let (m1, m2) = (count(&s1, true), count(&s2, true));
    assert_eq!(
        metric(&a, "baduk_actions_total").await,
        count(&s1, false),
        "A stored g1's"
    );
    assert_eq!(
        metric(&b, "baduk_actions_total").await,
        count(&s2, false),
        "B stored g2's"
    );
    // A search may be cancelled by a newer position, never run twice on two nodes: each
    // node searched at most once per move of its own game, and at least once per move.
    let (sa, sb) = (
        metric(&a, "baduk_bot_searches_total").await,
        metric(&b, "baduk_bot_searches_total").await,
    );
    assert!(
        sa >= m1 && sa <= m1 + 2,
        "A searched {sa} times for {m1} moves"
    );
    assert!(
        sb >= m2 && sb <= m2 + 2,
        "B searched {sb} times for {m2} moves"
    );
    // A clock that runs out fires once, on the owner (a game on B).
    let (c, seats) = a
        .create(json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:1"}))
        .await;
    let owner = if owns(&a, &c) { &a } else { &b };
    let other = if owns(&a, &c) { &b } else { &a };
    let clock_before = metric(other, "baduk_actions_total").await;
    a.ok(&c, &token(&seats, "black"), "E5").await;
    let st = b.wait_for(&c, 15, |st| st["status"] == "finished").await;
    let timeouts = st["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["action"] == "timeout")
        .count();
    assert_eq!(timeouts, 1, "{st}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(a.state(&c).await["actions"].as_array().unwrap().len(), 2);
    assert_eq!(
        metric(other, "baduk_actions_total").await,
        clock_before,
        "the node that does not own the game stored nothing for it"
    );
    assert!(metric(owner, "baduk_games_owned").await <= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_sent_to_a_process_that_does_not_own_the_game_is_forwarded_with_its_credentials()
{
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let (a, b) = pair(&pg).await;
    let body = json!({"game": "go", "size": 9, "rules": "chinese"});
    // Make a game B owns (A keeps the first; ties go to the creator).
    let mut game = None;
    for _ in 0..4 {
        let (id, seats) = a.create(body.clone()).await;
        if common::eventually(3, || owns(&b, &id)).await {
            game = Some((id, seats));
            break;
        }
    }
    let (id, seats) = game.expect("a game placed on B");
    let (bt, wt) = (token(&seats, "black"), token(&seats, "white"));
    // Over HTTP through A.
    let st = a.ok(&id, &bt, "E5").await;
    assert_eq!(st["version"], 1, "{st}");
    assert!(metric(&a, "baduk_forwarded_total").await >= 1);
    assert_eq!(metric(&b, "baduk_actions_total").await, 1);
    assert_eq!(metric(&a, "baduk_actions_total").await, 0);
    // The owner checks the token itself: a wrong one is refused through A too.
    let (code, v) = a.act(&id, "not-a-token", "D4").await;
    assert_eq!(code, 403, "{v}");
    // Black's token cannot play White's turn through A either.
    let (code, v) = a.act(&id, &bt, "D4").await;
    assert_eq!(code, 409, "{v}");
    // Over a socket on A: the action goes to B, the watcher on A sees it by the bus.
    let mut w = a.watch(&id).await;
    w.next_of("state").await;
    w.send(json!({"id": 7, "token": wt, "action": "D4"})).await;
    let ack = w.next_of("ack").await;
    assert_eq!(ack["version"], 2, "{ack}");
    w.state_where(|s| s["version"] == 2).await;
    w.send(json!({"id": 8, "token": "nope", "action": "C3"}))
        .await;
    let e = w.next_of("error").await;
    assert_eq!(e["status"], 403, "{e}");
    // The log is the same everywhere.
    let sa = a.wait_for(&id, 5, |s| s["version"] == 2).await;
    assert_eq!(sa["moves"], json!(["E5", "D4"]));
    assert_eq!(b.state(&id).await["moves"], json!(["E5", "D4"]));
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A guest account made on `s`: its session cookie (`name=value`) and CSRF value.
async fn guest(s: &Server) -> (String, String) {
    let resp = s
        .http
        .post(format!("{}/api/auth/guest", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let cookie = resp
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_string();
    let who: Value = resp.json().await.unwrap();
    let csrf = who["csrf"].as_str().expect("a CSRF value").to_string();
    (cookie, csrf)
}

/// A socket on game `id` of server `s`, signed in by the session `cookie`.
async fn signed_in_socket(s: &Server, id: &str, cookie: &str) -> Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("{}/ws/games/{id}", s.ws)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("cookie", cookie.parse().unwrap());
    req.headers_mut()
        .insert("origin", format!("http://{}", s.addr).parse().unwrap());
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_players_actions_are_forwarded_with_the_session_cookie_and_csrf() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let (a, b) = pair(&pg).await;
    // A guest account on A (a session cookie and its CSRF value).
    let (cookie, csrf) = guest(&a).await;
    let post = |path: String, body: Value, csrf: Option<&str>| {
        let mut r = a
            .http
            .post(format!("{}{path}", a.base))
            .header("cookie", &cookie)
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(c) = csrf {
            r = r.header("x-csrf-token", c);
        }
        r.send()
    };
    // Games the guest plays Black in, made through A until one is placed on B.
    let mut id = None;
    for _ in 0..4 {
        let r = post(
            "/api/games".into(),
            json!({"game": "go", "size": 9, "rules": "chinese"}),
            Some(&csrf),
        )
        .await
        .unwrap();
        assert_eq!(r.status(), 201);
        let v: Value = r.json().await.unwrap();
        let g = v["id"].as_str().unwrap().to_string();
        if common::eventually(3, || owns(&b, &g)).await {
            id = Some((g, token(&v["seats"], "white")));
            break;
        }
    }
    let (id, white) = id.expect("a game placed on B");
    let path = format!("/api/games/{id}/actions");
    // Without the CSRF value the owner refuses the cookie; with it, the move is played on B.
    let r = post(path.clone(), json!({"action": "E5"}), None)
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = post(path.clone(), json!({"action": "E5"}), Some(&csrf))
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    assert_eq!(metric(&b, "baduk_actions_total").await, 1);
    // A socket on A signed in by the cookie: its action (no token) goes to B with the cookie.
    let mut w = signed_in_socket(&a, &id, &cookie).await;
    // Out of turn: the owner knows the account's seat (Black) and refuses it as such.
    let r = ask(&mut w, json!({"id": 1, "action": "pass"})).await;
    assert_eq!(r["status"], 409, "{r}");
    // White plays by its token through A; then Black's move over the socket is stored on B.
    a.ok(&id, &white, "D4").await;
    let r = ask(&mut w, json!({"id": 2, "action": "C3"})).await;
    assert_eq!(r["type"], "ack", "{r}");
    assert_eq!(r["version"], 3, "{r}");
    assert_eq!(b.state(&id).await["moves"], json!(["E5", "D4", "C3"]));
    assert_eq!(
        metric(&a, "baduk_actions_total").await,
        0,
        "A stored nothing"
    );
    // Each acknowledgement is timed once, where the client sent it (two posts, one socket
    // action; the refusals are not acknowledgements).
    assert_eq!(metric(&a, "baduk_ack_seconds_count").await, 3);
    assert_eq!(metric(&b, "baduk_ack_seconds_count").await, 0);
    let (_, text) = a.get("/metrics").await;
    let text = text.as_str().unwrap().to_string();
    assert!(
        text.contains("# TYPE baduk_ack_seconds histogram")
            && text.contains("baduk_ack_seconds_bucket{le=\"+Inf\"} 3"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_joins_receives_a_share_of_the_games() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let a = Server::start(&pg).await;
    let mut ids = Vec::new();
    for _ in 0..8 {
        let (id, _) = a
            .create(json!({"game": "go", "size": 9, "rules": "chinese"}))
            .await;
        ids.push(id);
    }
    assert!(ids.iter().all(|id| owns(&a, id)), "alone, A owns them all");
    let b = Server::start(a.hub.store.url()).await;
    let shared = common::eventually(10, || {
        let on_b = ids.iter().filter(|id| owns(&b, id)).count();
        (3..=5).contains(&on_b)
    })
    .await;
    let on_b = ids.iter().filter(|id| owns(&b, id)).count();
    assert!(shared, "B owns {on_b} of 8");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    for id in &ids {
        assert!(
            owns(&a, id) != owns(&b, id),
            "{id}: exactly one owner (A {}, B {})",
            owns(&a, id),
            owns(&b, id)
        );
    }
    assert!(metric(&a, "baduk_handoffs_total").await >= 3);
    // A handed-over game plays on through either process.
    let moved = ids.iter().find(|id| owns(&b, id)).unwrap();
    let (code, v) = a.act(moved, "nobody", "E5").await;
    assert_eq!(code, 403, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_internal_endpoint_refuses_calls_without_the_clusters_secret() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese"}))
            .await;
        let path = format!("/internal/forward/api/games/{id}/actions");
        let body = json!({"action": "E5"}).to_string();
        for secret in [None, Some("wrong"), Some("test-cluster-secreT"), Some("")] {
            let mut r = s
                .http
                .post(format!("{}{path}", s.base))
                .bearer_auth(token(&seats, "black"))
                .header("content-type", "application/json")
                .body(body.clone());
            if let Some(x) = secret {
                r = r.header("x-baduk-cluster-secret", x);
            }
            let resp = r.send().await.unwrap();
            assert_eq!(resp.status(), 403, "{secret:?}");
            let v: Value = resp.json().await.unwrap();
            assert_eq!(v["code"], "cluster.secret", "{v}");
        }
        assert_eq!(s.state(&id).await["version"], 0, "nothing was played");
        // With the secret, the same call is answered (and still needs the seat's token).
        let call = |tok: String| {
            s.http
                .post(format!("{}{path}", s.base))
                .bearer_auth(tok)
                .header("x-baduk-cluster-secret", common::CLUSTER_SECRET)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
        };
        assert_eq!(call("bad".into()).await.unwrap().status(), 403);
        assert_eq!(call(token(&seats, "black")).await.unwrap().status(), 200);
        // Only game requests pass through it.
        let resp = s
            .http
            .post(format!("{}/internal/forward/api/accounts", s.base))
            .header("x-baduk-cluster-secret", common::CLUSTER_SECRET)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 404);
        // A server with no secret refuses every internal call.
        let lone = Server::start_config(&db, |c| c.cluster_secret = None).await;
        let resp = lone
            .http
            .post(format!(
                "{}/internal/forward/api/games/{id}/actions",
                lone.base
            ))
            .header("x-baduk-cluster-secret", "")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 403);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_owners_late_commit_is_refused_and_changes_nothing() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese"}))
            .await;
        s.ok(&id, &token(&seats, "black"), "E5").await;
        assert!(owns(&s, &id));
        // Another node takes the game (as after this one's lease ran out); this process has
        // not noticed yet and still plays it.
        let me = s.hub.cluster.node.clone();
        assert!(s
            .hub
            .store
            .hand_over(&id, &me, "someone-else")
            .await
            .unwrap());
        let (code, v) = s.act(&id, &token(&seats, "white"), "D4").await;
        assert_eq!(code, 503, "{v}");
        assert!(
            v["code"] == "cluster.moved" || v["code"] == "cluster.moving",
            "{v}"
        );
        // Straight at the store: the late commit is refused by the lease check.
        let rows = s.hub.store.actions_since(&id, 0).await.unwrap();
        let mut late = rows[0].clone();
        late.seq = 2;
        late.seat = 1;
        late.action = "D4".into();
        let r = s.hub.store.append(&id, &late, "live", "{}", &me).await;
        assert!(matches!(r, Err(StoreError::Fenced)), "{r:?}");
        // Nothing changed.
        let stored = s.hub.store.load(&id).await.unwrap().unwrap();
        assert_eq!(stored.actions.len(), 1);
        assert_eq!(stored.owner.as_deref(), Some("someone-else"));
        assert!(
            common::eventually(3, || !owns(&s, &id)).await,
            "it stops playing it"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The lease protocol as a property: the real queries on a SQLite file, a fake clock.

/// One step of a random run.
#[derive(Clone, Debug)]
enum Step {
    /// A new node starts (renews its lease).
    Join,
    /// Node i renews its lease and reconciles (what its renewal loop does).
    Renew(usize),
    /// Node i stalls (stops renewing, keeps its beliefs: a paused process).
    Pause(usize),
    /// Node i is killed.
    Kill(usize),
    /// Time passes.
    Advance(i64),
    /// Node i scans for orphans and takes them over.
    Scan(usize),
    /// Node i commits an action to game g (if it believes it owns it).
    Commit(usize, usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => Just(Step::Join),
        4 => (0..5usize).prop_map(Step::Renew),
        1 => (0..5usize).prop_map(Step::Pause),
        1 => (0..5usize).prop_map(Step::Kill),
        3 => (0..2_500i64).prop_map(Step::Advance),
        3 => (0..5usize).prop_map(Step::Scan),
        5 => (0..5usize, 0..3usize).prop_map(|(n, g)| Step::Commit(n, g)),
    ]
}

/// A node of the model.
struct Node {
    id: String,
    killed: bool,
    paused: bool,
    /// Until when this node believes its lease holds.
    lease_until: i64,
    /// The games it believes it owns.
    mine: BTreeSet<String>,
}

/// Runs one sequence; Err names the broken rule.
async fn run_steps(steps: Vec<Step>) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("lease.db").display());
    let store = Store::open(&url).await.unwrap();
    // Three games made by the first node, and a row to copy for commits.
    let hub = Hub::new(store.clone(), HubOptions::default(), None);
    let first = hub.cluster.node.clone();
    let mut games = Vec::new();
    let seats = || {
        [0, 1].map(|_| SeatSpec {
            kind: "human".into(),
            bot: None,
            options: None,
        })
    };
    let settings = Settings::Go {
        rules: "chinese".into(),
        handicap: 0,
    };
    let mut template = None;
    for _ in 0..3 {
        let (id, tokens) = hub.create(settings.clone(), seats(), None).await.unwrap();
        if template.is_none() {
            hub.act(&id, &tokens[0].1, "pass").await.unwrap();
            template = Some(store.actions_since(&id, 0).await.unwrap()[0].clone());
        }
        games.push(id);
    }
    let template = template.unwrap();
    let mut now: i64 = 10_000_000_000_000;
    let mut nodes = vec![Node {
        id: first.clone(),
        killed: false,
        paused: false,
        lease_until: now + LEASE_MS,
        mine: games.iter().cloned().collect(),
    }];
    store.renew_node(&first, "x", now, 3).await.unwrap();
    // Each game's log as the model expects it (version) and who stored each action.
    let mut version: BTreeMap<String, i64> = games
        .iter()
        .map(|g| (g.clone(), if *g == games[0] { 1 } else { 0 }))
        .collect();
    // When each node's lease holds until, as stored (the truth the others judge by).
    let mut stored_until: BTreeMap<String, i64> = BTreeMap::new();
    stored_until.insert(first.clone(), now + LEASE_MS);
    for s in steps {
        match s {
            Step::Join => {
                if nodes.len() < 5 {
                    let id = format!("n{}", nodes.len());
                    store.renew_node(&id, "x", now, 0).await.unwrap();
                    stored_until.insert(id.clone(), now + LEASE_MS);
                    nodes.push(Node {
                        id,
                        killed: false,
                        paused: false,
                        lease_until: now + LEASE_MS,
                        mine: BTreeSet::new(),
                    });
                }
            }
            Step::Renew(i) => {
                let Some(n) = nodes.get_mut(i) else { continue };
                if n.killed {
                    continue;
                }
                n.paused = false;
                store.renew_node(&n.id, "x", now, 0).await.unwrap();
                n.lease_until = now + LEASE_MS;
                stored_until.insert(n.id.clone(), now + LEASE_MS);
                // Reconcile: believe what the database says.
                n.mine = store
                    .owned_games(&n.id)
                    .await
                    .unwrap()
                    .into_iter()
                    .collect();
            }
            Step::Pause(i) => {
                if let Some(n) = nodes.get_mut(i) {
                    n.paused = true;
                }
            }
            Step::Kill(i) => {
                if let Some(n) = nodes.get_mut(i) {
                    n.killed = true;
                }
            }
            Step::Advance(ms) => now += ms,
            Step::Scan(i) => {
                let Some(n) = nodes.get_mut(i) else { continue };
                if n.killed || n.paused || n.lease_until <= now {
                    continue;
                }
                for (g, from) in store.orphans(now).await.unwrap() {
                    let taken = store.take_over(&g, &from, &n.id, now).await.unwrap();
                    if taken {
                        // Never from a node whose lease still held.
                        if let Some(until) = stored_until.get(&from) {
                            if *until > now {
                                return Err(format!(
                                    "{} took {g} from {from} whose lease held until {until} (now {now})",
                                    n.id
                                ));
                            }
                        }
                        n.mine.insert(g);
                    }
                }
            }
            Step::Commit(i, gi) => {
                let Some(n) = nodes.get_mut(i) else { continue };
                let g = &games[gi];
                // A killed node does nothing; a paused one may wake and commit late.
                if n.killed || !n.mine.contains(g) {
                    continue;
                }
                let v = version[g];
                let mut row = template.clone();
                row.seq = v + 1;
                row.at = now;
                let owner = store.load(g).await.unwrap().unwrap().owner;
                match store.append(g, &row, "live", "{}", &n.id).await {
                    Ok(()) => {
                        if owner.as_deref() != Some(n.id.as_str()) {
                            return Err(format!("{} stored to {g} owned by {owner:?}", n.id));
                        }
                        version.insert(g.clone(), v + 1);
                    }
                    Err(StoreError::Fenced) => {
                        if owner.as_deref() == Some(n.id.as_str()) {
                            return Err(format!("{}: refused its own game {g}", n.id));
                        }
                        n.mine.remove(g);
                    }
                    Err(e) => return Err(format!("{}: {e}", n.id)),
                }
            }
        }
        // After every step: the log has no gap, and at most one running node whose lease holds
        // believes it owns each game.
        for g in &games {
            let stored = store.load(g).await.unwrap().unwrap();
            let seqs: Vec<i64> = stored.actions.iter().map(|a| a.seq).collect();
            let want: Vec<i64> = (1..=version[g]).collect();
            if seqs != want {
                return Err(format!("{g}: log {seqs:?}, expected {want:?}"));
            }
            let live_owners: Vec<&str> = nodes
                .iter()
                .filter(|n| !n.killed && !n.paused && n.lease_until > now && n.mine.contains(g))
                .map(|n| n.id.as_str())
                .collect();
            // (A paused node may still believe it owns a game it lost: it learns at its next
            // renewal or commit, and until then its commits are refused, checked above.)
            if live_owners.len() > 1 {
                return Err(format!("{g}: owned by {live_owners:?} at once"));
            }
        }
    }
    // Liveness: once the live nodes renew and scan past every dead lease, every game has a
    // live owner.
    if let Some(i) = nodes.iter().position(|n| !n.killed) {
        nodes[i].paused = false;
        now += LEASE_MS + 1;
        store.renew_node(&nodes[i].id, "x", now, 0).await.unwrap();
        nodes[i].lease_until = now + LEASE_MS;
        for (g, from) in store.orphans(now).await.unwrap() {
            store.take_over(&g, &from, &nodes[i].id, now).await.unwrap();
        }
        let live: Vec<String> = store
            .live_nodes(now)
            .await
            .unwrap()
            .into_iter()
            .map(|n| n.id)
            .collect();
        for g in &games {
            let owner = store.load(g).await.unwrap().unwrap().owner;
            if !owner.as_ref().is_some_and(|o| live.contains(o)) {
                return Err(format!("{g}: owner {owner:?} is not live ({live:?})"));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn two_nodes_never_both_store_for_one_game(steps in proptest::collection::vec(step(), 1..40)) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let r = rt.block_on(run_steps(steps));
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

/// The database work one action costs across two processes: a game owned by one, watched on
/// both, played through its owner; prints SELECTs per action (the figures of docs/scaling.md)
/// and checks that the watching process applies the actions from their events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_reaches_the_other_process_as_an_event_without_reading_the_game() {
    let Some((a, b, id, seats)) = go_game_on_two().await else {
        return;
    };
    let (owner, other) = if owns(&a, &id) { (&a, &b) } else { (&b, &a) };
    assert!(common::eventually(5, || owns(owner, &id)).await);
    let mut w_other = other.watch(&id).await;
    w_other.next_of("state").await;
    let mut w_owner = owner.watch(&id).await;
    w_owner.next_of("state").await;
    let tokens = [token(&seats, "black"), token(&seats, "white")];
    // The seats join first (a join is not an action: it is read again).
    owner.ok(&id, &tokens[0], "E5").await;
    owner.ok(&id, &tokens[1], "D4").await;
    w_other.state_where(|s| s["version"] == 2).await;
    let select_count = |s: &Server| {
        s.hub
            .store
            .queries
            .select
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    let (o0, t0) = (select_count(owner), select_count(other));
    let r0 = metric(other, "baduk_event_reloads_total").await;
    let e0 = metric(other, "baduk_events_applied_total").await;
    let started = std::time::Instant::now();
    let n = 60;
    let mut st = owner.state(&id).await;
    for i in 0..n {
        let legal = st["legal"].as_array().unwrap();
        let mv = legal
            .iter()
            .filter_map(|m| m.as_str())
            .find(|m| *m != "pass")
            .unwrap_or("pass")
            .to_string();
        st = owner.ok(&id, &tokens[i % 2], &mv).await;
    }
    let deltas0 = w_other.deltas;
    let v = st["version"].as_i64().unwrap();
    w_other.state_where(|s| s["version"] == v).await;
    let busy = started.elapsed();
    let (o1, t1) = (select_count(owner), select_count(other));
    // The background's own queries (leases, scans, resync) over as long, idle.
    tokio::time::sleep(busy).await;
    let (o2, t2) = (select_count(owner), select_count(other));
    let per = |x: u64| x as f64 / n as f64;
    let idle = (o2 - o1) + (t2 - t1);
    eprintln!(
        "{n} actions in {busy:?}: SELECTs owner {} ({:.2}/action), other {} ({:.2}/action); \
         idle for as long: {idle}; net {:.2} SELECTs/action",
        o1 - o0,
        per(o1 - o0),
        t1 - t0,
        per(t1 - t0),
        per(((o1 - o0) + (t1 - t0)).saturating_sub(idle))
    );
    let reloads = metric(other, "baduk_event_reloads_total").await - r0;
    let applied = metric(other, "baduk_events_applied_total").await - e0;
    eprintln!("other process: {applied} events applied, {reloads} reloads");
    assert_eq!(applied, n as u64, "every action applied from its event");
    assert_eq!(reloads, 0);
    assert_eq!(
        other.state(&id).await["moves"],
        owner.state(&id).await["moves"]
    );
    // The other process's watcher got each event as a delta (never the whole history), and
    // what it rebuilt from them is the game.
    let deltas = w_other.deltas - deltas0;
    eprintln!(
        "the other process's watcher: {deltas} deltas, {} syncs",
        w_other.syncs
    );
    assert!(deltas > 0, "deltas reach the other process's watchers");
    assert_eq!(w_other.syncs, 0, "no delta came on a wrong base");
    common::assert_same_state(
        w_other.held.as_ref().unwrap(),
        &owner.state(&id).await,
        "the other process's watcher",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_line_posted_on_one_process_reaches_the_watchers_on_another() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let Some((a, b, id, _)) = go_game_on_two().await else {
        return;
    };
    // A guest (who may chat) watching on A; a watcher and a spectator on B.
    let (cookie, _) = guest(&a).await;
    let mut guest = signed_in_socket(&a, &id, &cookie).await;
    let mut on_b = b.watch(&id).await;
    on_b.next_of("state").await;
    guest
        .send(Message::Text(
            json!({"type": "chat", "id": 1, "channel": "spectators", "text": "hello from A"})
                .to_string()
                .into(),
        ))
        .await
        .unwrap();
    let got = on_b.next_of("chat").await;
    assert_eq!(got["message"]["text"], "hello from A", "{got}");
    assert_eq!(got["message"]["channel"], "spectators");
    // Posted once: the history has one line, and B's watcher hears it once.
    let (_, hist) = b.get(&format!("/api/games/{id}/chat")).await;
    assert_eq!(hist["messages"].as_array().unwrap().len(), 1, "{hist}");
    let again = tokio::time::timeout(Duration::from_millis(700), on_b.next_of("chat")).await;
    assert!(again.is_err(), "a chat line delivered twice: {again:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_that_meets_a_game_just_moved_away_is_played_by_the_new_owner() {
    let Some((a, b, id, seats)) = go_game_on_two().await else {
        return;
    };
    let (owner, other) = if owns(&a, &id) { (&a, &b) } else { (&b, &a) };
    owner.ok(&id, &token(&seats, "black"), "E5").await;
    // The game moves to the other process (a handoff) while the owner still believes it
    // plays it: its commit is fenced, nothing is stored, and the action goes on to the new
    // owner instead of coming back to the client as a 503.
    let (from, to) = (
        owner.hub.cluster.node.clone(),
        other.hub.cluster.node.clone(),
    );
    assert!(owner.hub.store.hand_over(&id, &from, &to).await.unwrap());
    let v = owner.ok(&id, &token(&seats, "white"), "D4").await;
    assert_eq!(v["version"], 2, "{v}");
    assert_eq!(metric(owner, "baduk_fenced_total").await, 1);
    // Over a socket too.
    assert!(other.hub.store.hand_over(&id, &to, &from).await.unwrap());
    let mut w = other.watch(&id).await;
    w.next_of("state").await;
    w.send(json!({"id": 1, "token": token(&seats, "black"), "action": "C3"}))
        .await;
    let r = w.next_of("ack").await;
    assert_eq!(r["version"], 3, "{r}");
    let stored = a.hub.store.load(&id).await.unwrap().unwrap();
    assert_eq!(stored.actions.len(), 3);
}

/// A seat joined on one process (a socket's `hello`, or an open seat claimed there) reaches the
/// owner and the other watchers as an event that carries the change: no process reads the
/// game again, and the owner takes the claimed seat's token at once (issue 43: joins were
/// most of the reloads under load).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_on_another_process_is_applied_from_its_event_without_reading_the_game() {
    let settings = json!({"game": "go", "size": 9, "rules": "chinese",
        "seats": {"black": {"kind": "human"}, "white": {"kind": "open"}}});
    let Some((a, b, id, seats)) = game_on_two(settings).await else {
        return;
    };
    assert!(common::eventually(5, || owns(&a, &id) || owns(&b, &id)).await);
    let (owner, other) = if owns(&a, &id) { (&a, &b) } else { (&b, &a) };
    let mut w_owner = owner.watch(&id).await;
    w_owner.next_of("state").await;
    let mut w_other = other.watch(&id).await;
    w_other.next_of("state").await;
    let (r_owner, r_other) = (
        metric(owner, "baduk_event_reloads_total").await,
        metric(other, "baduk_event_reloads_total").await,
    );
    let j0 = metric(owner, "baduk_joins_applied_total").await;
    // Black says hello over a socket on the process that does not own the game.
    let mut player = other.watch(&id).await;
    player.next_of("state").await;
    player
        .send(json!({"type": "hello", "id": 1, "token": token(&seats, "black")}))
        .await;
    let got = player.next_of("hello").await;
    assert_eq!(got["seat"], "black", "{got}");
    w_owner
        .state_where(|s| s["seats"]["black"]["joined"] == true)
        .await;
    // White's open seat is claimed on the other process too; its token plays at the owner.
    let (s, v) = other
        .post(
            &format!("/api/games/{id}/join"),
            None,
            &json!({"seat": "white"}).to_string(),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let white = v["token"].as_str().expect("a token").to_string();
    w_owner
        .state_where(|s| s["seats"]["white"]["joined"] == true)
        .await;
    owner.ok(&id, &token(&seats, "black"), "E5").await;
    owner.ok(&id, &white, "D4").await;
    w_other.state_where(|s| s["version"] == 2).await;
    assert!(metric(owner, "baduk_joins_applied_total").await - j0 >= 2);
    assert_eq!(
        metric(owner, "baduk_event_reloads_total").await - r_owner,
        0,
        "the owner read the game again"
    );
    assert_eq!(
        metric(other, "baduk_event_reloads_total").await - r_other,
        0,
        "the other process read the game again"
    );
}

/// The cap on a client's unstarted games holds across the cluster (issue 43): games opened on
/// one process count on the other, so spreading creations over processes gives no more; a game
/// that starts frees its slot on every process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_open_games_cap_counts_a_clients_games_on_every_process() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let cap = |c: &mut baduk_server::Config| c.limits.open_games_per_client = 3;
    let a = Server::start_config(&pg, cap).await;
    let b = Server::start_config(a.hub.store.url(), cap).await;
    let body = json!({"game": "go", "size": 9}).to_string();
    // Two on A, one on B: the client's three; the fourth is refused on either process.
    let mut made = Vec::new();
    for s in [&a, &a, &b] {
        made.push(s.create(json!({"game": "go", "size": 9})).await);
    }
    for s in [&a, &b] {
        let (code, v) = s.post("/api/games", None, &body).await;
        assert_eq!(code, 429, "{v}");
        assert_eq!(v["code"], "limit.open_games", "{v}");
    }
    // The game made on A starts (both seats play): a slot comes free on B too.
    let (id, seats) = &made[0];
    a.ok(id, &token(seats, "black"), "E5").await;
    a.ok(id, &token(seats, "white"), "D4").await;
    let (code, v) = b.post("/api/games", None, &body).await;
    assert_eq!(code, 201, "{v}");
}

/// The status of a WebSocket handshake to `s` for game `id` (101 when it opened).
async fn socket_status(s: &Server, id: &str) -> u16 {
    match tokio_tungstenite::connect_async(format!("{}/ws/games/{id}", s.ws)).await {
        Ok(_) => 101,
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
        Err(e) => panic!("the handshake failed otherwise: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_rate_budget_holds_over_every_process() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    // Games created: 4 a minute per address, 2 at once.
    let lim = |c: &mut baduk_server::Config| c.limits.creates_per_minute = 4.0;
    let a = Server::start_config(&pg, lim).await;
    let b = Server::start_config(a.hub.store.url(), lim).await;
    let body = json!({"game": "go", "size": 9}).to_string();
    for _ in 0..2 {
        let (code, v) = a.post("/api/games", None, &body).await;
        assert_eq!(code, 201, "{v}");
    }
    let (code, v) = a.post("/api/games", None, &body).await;
    assert_eq!(code, 429, "A's own bucket: {v}");
    // B learns of A's two within a report (a second) and charges them: the client spread
    // over two processes gets the budget once, not twice.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let (code, v) = b.post("/api/games", None, &body).await;
    assert_eq!(code, 429, "B charged what the client used on A: {v}");
    assert_eq!(v["code"], "limit.rate", "{v}");
    assert_eq!(v["args"]["budget"], "games created", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_place_games_here_a_game_is_owned_where_it_was_created() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let here = |c: &mut baduk_server::Config| c.place_here = true;
    let a = Server::start_config(&pg, here).await;
    let b = Server::start_config(a.hub.store.url(), here).await;
    // Without the option the second and third would go to B, the less loaded.
    for _ in 0..3 {
        let (id, _) = a.create(json!({"game": "go", "size": 9})).await;
        a.hub.get(&id).await.unwrap();
        assert!(owns(&a, &id), "game {id} created on A is A's");
        assert!(!b.hub.loaded_handle(&id).is_some_and(|h| h.owned()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accounts_chat_budget_holds_over_every_process() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    // Chat: an account 5 lines at once, refilled one a hundred seconds (the address's
    // budget, four times that, is not what stops it here).
    let lim = |c: &mut baduk_server::Config| c.limits.chat_per_second = 0.01;
    let a = Server::start_config(&pg, lim).await;
    let b = Server::start_config(a.hub.store.url(), lim).await;
    let (id, _) = a.create(json!({"game": "go", "size": 9})).await;
    let (cookie, _) = guest(&a).await;
    let line = |n: u64| json!({"type": "chat", "id": n, "channel": "spectators", "text": "hi"});
    let mut on_a = signed_in_socket(&a, &id, &cookie).await;
    for n in 1..=5 {
        let v = ask(&mut on_a, line(n)).await;
        assert_eq!(v["type"], "chat_ack", "line {n} on A: {v}");
    }
    let v = ask(&mut on_a, line(6)).await;
    assert_eq!(v["type"], "error", "A's own bucket: {v}");
    // The same account on B, once A has reported: the budget was spent on A.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let mut on_b = signed_in_socket(&b, &id, &cookie).await;
    let v = ask(&mut on_b, line(7)).await;
    assert_eq!(
        v["type"], "error",
        "B charged the account's lines on A: {v}"
    );
    assert_eq!(v["code"], "limit.rate", "{v}");
    assert_eq!(v["args"]["budget"], "chat messages", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_socket_cap_holds_over_every_process() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let lim = |c: &mut baduk_server::Config| c.limits.sockets_per_client = 2;
    let a = Server::start_config(&pg, lim).await;
    let b = Server::start_config(a.hub.store.url(), lim).await;
    let (id, _) = a.create(json!({"game": "go", "size": 9})).await;
    let held = vec![a.watch(&id).await, a.watch(&id).await];
    // B counts the client's two sockets on A once A has reported them.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let code = socket_status(&b, &id).await;
    assert_eq!(
        code, 429,
        "a third socket of the client, on the other process"
    );
    // Closed on A: within a report or two B lets the client open one.
    drop(held);
    let mut opened = false;
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        if socket_status(&b, &id).await == 101 {
            opened = true;
            break;
        }
    }
    assert!(opened, "B let the client open a socket once A's closed");
}

/// A cluster secret of this test's own. Every test's servers share one PostgreSQL database and
/// so one NOTIFY channel: under the common secret, the use another test's servers report of
/// this machine's address (one client to all of them) would be charged here too.
fn own_secret() -> String {
    format!("burst-{}", baduk_server::game::hub::new_id())
}

/// `n` POSTs of `body` to `path` at once, alternately to `a` and `b`, as one client without a
/// session: each answer's status and body.
async fn burst_over_two(
    a: &Server,
    b: &Server,
    path: &str,
    bodies: Vec<Value>,
) -> Vec<(u16, Value)> {
    let sends = bodies.into_iter().enumerate().map(|(i, body)| {
        let s = if i % 2 == 0 { a } else { b };
        let url = format!("{}{path}", s.base);
        async move {
            let resp = s
                .http
                .post(url)
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await
                .expect("answered");
            let status = resp.status().as_u16();
            (status, resp.json::<Value>().await.unwrap_or(Value::Null))
        }
    });
    futures_util::future::join_all(sends).await
}

/// Of `answers`, how many were not refused for the rate; each refusal names `budget` and its
/// burst `burst`.
fn granted(answers: &[(u16, Value)], budget: &str, burst: u64) -> usize {
    for (code, v) in answers.iter().filter(|(c, _)| *c == 429) {
        assert_eq!(*code, 429);
        assert_eq!(v["code"], "limit.rate", "{v}");
        assert_eq!(v["args"]["budget"], budget, "{v}");
        assert_eq!(v["args"]["burst"], burst, "{v}");
    }
    answers.iter().filter(|(c, _)| *c != 429).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_sign_ins_guests_and_sign_ups_over_two_processes_gets_one_burst() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    // Sign-in attempts 10 at once per address, guests 3, accounts created 2 (4 a minute): the
    // bursts arrive at both processes together, inside one report's second, so only the
    // shared bucket in the database can hold them (each process alone granted its own burst:
    // 20 of 10, 6 of 3, 4 of 2). None refills within the test (one per 6 s, 20 s, 15 s).
    let secret = own_secret();
    let lim = |c: &mut baduk_server::Config| {
        c.limits.logins_per_minute = 10.0;
        c.limits.guests_per_minute = 3.0;
        c.limits.creates_per_minute = 4.0;
        c.cluster_secret = Some(secret.clone());
    };
    let a = Server::start_config(&pg, lim).await;
    let b = Server::start_config(a.hub.store.url(), lim).await;
    // Names too long to be anyone's: refused without a password hash, after the budget.
    let tries: Vec<Value> = (0..20)
        .map(|i| json!({"username": format!("{i}{}", "x".repeat(120)), "password": "whatever-it-is"}))
        .collect();
    let answers = burst_over_two(&a, &b, "/api/auth/login", tries).await;
    assert_eq!(granted(&answers, "sign-in attempts", 10), 10, "{answers:?}");
    assert!(
        answers.iter().all(|(c, _)| *c == 401 || *c == 429),
        "{answers:?}"
    );
    let answers = burst_over_two(&a, &b, "/api/auth/guest", vec![json!({}); 6]).await;
    assert_eq!(granted(&answers, "guest sessions", 3), 3, "{answers:?}");
    let signups: Vec<Value> = (0..4)
        .map(|i| json!({"username": format!("burst{i}{}", &baduk_server::game::hub::new_id()[..6]), "password": "tengen-hoshi-komoku"}))
        .collect();
    let answers = burst_over_two(&a, &b, "/api/auth/signup", signups).await;
    assert_eq!(granted(&answers, "accounts created", 2), 2, "{answers:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_guesses_at_one_name_over_two_processes_gets_one_burst() {
    let Some(pg) = postgres() else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    // One address and one name: 5 at once (each process alone granted 9 or 10 of 5).
    let secret = own_secret();
    let lim = |c: &mut baduk_server::Config| {
        c.limits.logins_per_name_minute = 5.0;
        c.cluster_secret = Some(secret.clone());
    };
    let a = Server::start_config(&pg, lim).await;
    let b = Server::start_config(a.hub.store.url(), lim).await;
    let guess = json!({"username": format!("victim{}", &baduk_server::game::hub::new_id()[..6]), "password": "a-wrong-guess"});
    let answers = burst_over_two(&a, &b, "/api/auth/login", vec![guess; 10]).await;
    let name_budget = "sign-in attempts for this account from your address";
    assert_eq!(granted(&answers, name_budget, 5), 5, "{answers:?}");
    assert!(
        answers.iter().all(|(c, _)| *c == 401 || *c == 429),
        "{answers:?}"
    );
}
