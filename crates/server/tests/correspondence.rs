//! Correspondence games over HTTP, on the server's test clock (days pass without a sleep): a
//! flag that falls with nobody online, weekends paused in each player's time zone, vacations
//! that stop all of an account's clocks, a restart that keeps all of it, and bad input refused.
//! The test clock is process-wide: the tests here run one at a time.

mod common;

use baduk_server::store::time::{advance_test_clock, now_ms};
use common::accounts::{call, game_between, get, signup, uniq, Session};
use common::{databases, Server};
use serde_json::{json, Value};

/// One test at a time: they move the process's clock.
static CLOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const H: i64 = 3_600_000;
const DAY: i64 = 24 * H;

/// `PUT path` with `who`'s session: (status, body).
async fn put(s: &Server, who: &Session, path: &str, body: Value) -> (u16, Value) {
    call(s, "PUT", path, who, Some(body)).await
}

/// Asserts a refusal's status and code.
fn refused((st, v): (u16, Value), status: u16, code: &str, what: &str) {
    assert_eq!(
        (st, v["code"].as_str()),
        (status, Some(code)),
        "{what}: {v}"
    );
}

/// Moves the test clock forward to the next `weekday` (Monday 0) at `hour` UTC, at least a
/// day ahead.
fn advance_to(weekday: i64, hour: i64) {
    let now = now_ms() + DAY;
    let day = now.div_euclid(DAY);
    let monday = day - (day + 3).rem_euclid(7);
    let mut at = (monday + weekday) * DAY + hour * H;
    if at < now {
        at += 7 * DAY;
    }
    advance_test_clock(at - now_ms());
}

fn is_timeout(st: &Value) -> bool {
    st["status"] == "finished"
        && st["actions"]
            .as_array()
            .and_then(|a| a.last())
            .is_some_and(|a| a["action"] == "timeout")
}

#[tokio::test]
async fn a_correspondence_flag_falls_with_nobody_online_and_moves_the_correspondence_pool() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let (a, b) = (uniq("corra"), uniq("corrb"));
        let (ka, kb) = (signup(&s, &a).await, signup(&s, &b).await);
        let (id, bt, wt) = game_between(
            &s,
            &ka,
            &kb,
            json!({"game": "go", "size": 9, "rated": true, "clock": "correspondence:1:2"}),
        )
        .await;
        let st = s.state(&id).await;
        assert_eq!(st["rating_kind"], "go-corr", "{st}");
        assert_eq!(st["clocks"]["black"]["kind"], "correspondence");
        let main = st["clocks"]["black"]["main_ms"].as_i64().unwrap();
        assert!((DAY - 60_000..=DAY).contains(&main), "{st}");
        // Moves: each adds a day to the mover's bank, up to two days.
        for (t, mv) in [(&bt, "E5"), (&wt, "C3"), (&bt, "G7"), (&wt, "C7")] {
            s.ok(&id, t, mv).await;
        }
        let st = s.state(&id).await;
        let white = st["clocks"]["white"]["main_ms"].as_i64().unwrap();
        assert!(white > DAY && white <= 2 * DAY, "{st}");
        let deadline = st["deadline"].as_i64().unwrap();
        // Black, to move, has two days less the moments the moves took.
        assert!(deadline > now_ms() + 2 * DAY - 60_000, "{st}");
        // A day and a half later nothing has happened; past the deadline the flag falls.
        advance_test_clock(DAY + DAY / 2);
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(s.state(&id).await["status"], "live");
        advance_test_clock(deadline - now_ms() + 1_000);
        let st = s.wait_for(&id, 10, is_timeout).await;
        assert_eq!(st["result"]["winner"], "white", "{st}");
        let (_, p) = get(&s, &format!("/api/players/{a}"), &Session::default()).await;
        assert_eq!(p["ratings"]["go-corr"]["games"], 1, "{p}");
        assert!(
            p["ratings"].get("go-small").is_none_or(|r| r["games"] == 0),
            "{p}"
        );
    }
}

#[tokio::test]
async fn weekends_paused_in_each_players_time_zone_move_the_deadline_past_them() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let (a, b) = (uniq("wka"), uniq("wkb"));
        let (ka, kb) = (signup(&s, &a).await, signup(&s, &b).await);
        // White lives in Seoul (UTC+9): its Saturday begins Friday 15:00 UTC.
        let (st, v) = put(&s, &ka, "/api/me/timezone", json!({"tz": 540})).await;
        assert_eq!((st, &v["tz"]), (200, &json!(540)), "{v}");
        advance_to(4, 3); // Friday 03:00 UTC: noon in Seoul.
        let (id, bt, _) = game_between(
            &s,
            &kb,
            &ka,
            json!({"game": "go", "size": 9, "clock": "correspondence:1:1", "pause_weekends": true}),
        )
        .await;
        s.ok(&id, &bt, "E5").await;
        let st = s.state(&id).await;
        let start = st["actions"][0]["at"].as_i64().unwrap();
        // Twelve hours to Saturday in Seoul, the weekend, then twelve hours of Monday there:
        // Monday 03:00 UTC, three days after the start.
        assert_eq!(st["deadline"].as_i64(), Some(start + 3 * DAY), "{st}");
        // Saturday noon UTC: the clock stands still with 12 hours left.
        advance_test_clock(start + DAY + 9 * H - now_ms());
        let st = s.state(&id).await;
        assert_eq!(st["clocks"]["white"]["paused"], true, "{st}");
        let left = st["clocks"]["white"]["main_ms"].as_i64().unwrap();
        assert!((12 * H..=12 * H + 60_000).contains(&left), "{st}");
        // Sunday 23:00 UTC is Monday 08:00 in Seoul: running again, not flagged yet.
        advance_test_clock(start + 3 * DAY - H - now_ms());
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let st = s.state(&id).await;
        assert_eq!(st["status"], "live", "{st}");
        assert!(st["clocks"]["white"].get("paused").is_none(), "{st}");
        advance_test_clock(2 * H);
        let st = s.wait_for(&id, 10, is_timeout).await;
        assert_eq!(st["result"]["winner"], "black", "{st}");
    }
}

#[tokio::test]
async fn a_vacation_stops_all_the_accounts_games_the_opponent_sees_it_and_a_restart_keeps_it() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let (a, b) = (uniq("vaca"), uniq("vacb"));
        let (ka, kb) = (signup(&s, &a).await, signup(&s, &b).await);
        // A new account has no vacation yet: refused, nothing stored.
        let r = put(&s, &ka, "/api/me/vacation", json!({"on": true})).await;
        refused(r, 422, "vacation.empty", "a new account");
        let (_, v) = get(&s, "/api/me/vacation", &ka).await;
        assert_eq!(
            (v["on"].as_bool(), v["bank_ms"].as_i64()),
            (Some(false), Some(0))
        );
        // Two weeks and a bit: two days in the bank.
        advance_test_clock(14 * DAY + H);
        let (_, v) = get(&s, "/api/me/vacation", &ka).await;
        assert_eq!(v["bank_ms"], 2 * DAY, "{v}");
        // Two games: A is to move in both (white in one, black in the other).
        let corr = json!({"game": "go", "size": 9, "clock": "correspondence:3:5"});
        let (g1, b1, _) = game_between(&s, &kb, &ka, corr.clone()).await;
        s.ok(&g1, &b1, "E5").await;
        let (g2, b2, w2) = game_between(&s, &ka, &kb, corr.clone()).await;
        s.ok(&g2, &b2, "E5").await;
        s.ok(&g2, &w2, "C3").await;
        let mut d0 = [0i64; 2];
        for (i, g) in [&g1, &g2].iter().enumerate() {
            d0[i] = s.state(g).await["deadline"].as_i64().unwrap();
        }
        let (st, v) = put(&s, &ka, "/api/me/vacation", json!({"on": true})).await;
        assert_eq!((st, v["on"].as_bool()), (200, Some(true)), "{v}");
        let until = v["until"].as_i64().unwrap();
        let since = v["since"].as_i64().unwrap();
        assert_eq!(until - since, 2 * DAY);
        for (i, (g, seat)) in [(&g1, "white"), (&g2, "black")].iter().enumerate() {
            // What the opponent reads.
            let (_, st) = get(&s, &format!("/api/games/{g}"), &kb).await;
            assert_eq!(st["seats"][seat]["player"]["vacation"], true, "{st}");
            assert_eq!(st["clocks"][seat]["paused"], true, "{st}");
            assert_eq!(st["deadline"].as_i64(), Some(d0[i] + 2 * DAY), "{st}");
        }
        let (_, p) = get(&s, &format!("/api/players/{a}"), &Session::default()).await;
        assert_eq!(p["vacation"], true, "{p}");
        // A restart (a new server on the same database) keeps the vacation and the deadlines.
        // (The old server was alive until now: its heartbeat says so, else days moved by the
        // test clock would read as an outage, whose time is charged to nobody.)
        s.hub.store.heartbeat(now_ms()).await.unwrap();
        baduk_server::cluster::leave(&s.hub).await;
        let r = Server::start(s.hub.store.url()).await;
        let (_, v) = get(&r, "/api/me/vacation", &ka).await;
        assert_eq!(
            (v["on"].as_bool(), v["until"].as_i64()),
            (Some(true), Some(until))
        );
        let st = r.state(&g1).await;
        assert_eq!(st["seats"]["white"]["player"]["vacation"], true, "{st}");
        assert_eq!(st["deadline"].as_i64(), Some(d0[0] + 2 * DAY), "{st}");
        // Back after a day: a day of the bank is spent, the clocks run again.
        advance_test_clock(DAY);
        let (st, v) = put(&r, &ka, "/api/me/vacation", json!({"on": false})).await;
        assert_eq!((st, v["on"].as_bool()), (200, Some(false)), "{v}");
        let back = now_ms();
        let left = v["bank_ms"].as_i64().unwrap();
        assert!((DAY - 60_000..=DAY).contains(&left), "{v}");
        let st = r.state(&g1).await;
        assert!(
            st["seats"]["white"]["player"].get("vacation").is_none(),
            "{st}"
        );
        let d1 = st["deadline"].as_i64().unwrap();
        assert!((d1 - (d0[0] + (back - since))).abs() < 1_000, "{st}");
        // The flag falls once the time left is spent, after the restart too.
        advance_test_clock(d1 - now_ms() + 1_000);
        let st = r.wait_for(&g1, 15, is_timeout).await;
        assert_eq!(st["result"]["winner"], "black", "{st}");
    }
}

#[tokio::test]
async fn bad_clocks_time_zones_and_vacations_are_refused_with_codes_and_store_nothing() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let ka = signup(&s, &uniq("bada")).await;
        for (body, code) in [
            (
                json!({"game": "go", "clock": "correspondence:0:5"}),
                "settings.clock",
            ),
            (
                json!({"game": "go", "clock": "correspondence:31:40"}),
                "settings.clock",
            ),
            (
                json!({"game": "go", "clock": "correspondence:5:4"}),
                "settings.clock",
            ),
            (
                json!({"game": "go", "clock": "correspondence:5:61"}),
                "settings.clock",
            ),
            (
                json!({"game": "go", "clock": "correspondence:3:7:weekends"}),
                "settings.clock",
            ),
            (
                json!({"game": "go", "clock": "fischer:600:5", "pause_weekends": true}),
                "settings.pause_weekends",
            ),
            (
                json!({"game": "wallgo", "pause_weekends": true}),
                "bad_request",
            ),
        ] {
            let r = call(&s, "POST", "/api/games", &ka, Some(body.clone())).await;
            refused(r, 400, code, &body.to_string());
        }
        let (_, list) = s.get("/api/games?status=open").await;
        assert!(
            list["games"].as_array().is_none_or(|g| g.is_empty()),
            "nothing stored: {list}"
        );
        for tz in [
            json!(841),
            json!(-721),
            json!("Asia/Seoul"),
            json!(1.5),
            json!(null),
        ] {
            let r = put(&s, &ka, "/api/me/timezone", json!({ "tz": tz })).await;
            refused(r, 400, "tz.range", &tz.to_string());
        }
        let (st, v) = put(&s, &ka, "/api/me/timezone", json!({"zone": 1})).await;
        assert_eq!(st, 400, "{v}");
        let (_, v) = get(&s, "/api/me/vacation", &ka).await;
        assert_eq!(v["tz"], 0, "{v}");
        let (st, v) = put(&s, &ka, "/api/me/vacation", json!({"on": "yes"})).await;
        assert_eq!(st, 400, "{v}");
        let r = put(&s, &ka, "/api/me/vacation", json!({"on": true})).await;
        assert_eq!(r.1["args"]["bank_ms"], 0, "{}", r.1);
        refused(r, 422, "vacation.empty", "an empty bank");
        let (_, v) = get(&s, "/api/me/vacation", &ka).await;
        assert_eq!(v["on"], false, "{v}");
        // Nobody signed in: 401; a session without its CSRF token: 403.
        let (st, _) = put(
            &s,
            &Session::default(),
            "/api/me/vacation",
            json!({"on": false}),
        )
        .await;
        assert_eq!(st, 401);
        let no_csrf = Session {
            cookie: ka.cookie.clone(),
            csrf: None,
        };
        let (st, _) = put(&s, &no_csrf, "/api/me/vacation", json!({"on": false})).await;
        assert_eq!(st, 403);
    }
}

#[tokio::test]
async fn a_vacation_turned_on_through_another_process_stops_the_clock_of_the_owner() {
    let _one = CLOCK.lock().await;
    for db in databases()
        .into_iter()
        .filter(|d| d.starts_with("postgres"))
    {
        let a = Server::start(&db).await;
        let b = Server::start(a.hub.store.url()).await;
        let (ka, kb) = (
            signup(&a, &uniq("clua")).await,
            signup(&a, &uniq("club")).await,
        );
        advance_test_clock(7 * DAY + H);
        let corr = json!({"game": "go", "size": 9, "clock": "correspondence:1:1"});
        let (id, bt, _) = game_between(&a, &kb, &ka, corr).await;
        a.ok(&id, &bt, "E5").await;
        let d0 = a.state(&id).await["deadline"].as_i64().unwrap();
        // Made where the game is not played: the owner learns it from the database.
        let (owner, other) = if a.hub.owned_ids().contains(&id) {
            (&a, &b)
        } else {
            (&b, &a)
        };
        let (st, v) = put(other, &ka, "/api/me/vacation", json!({"on": true})).await;
        assert_eq!((st, v["on"].as_bool()), (200, Some(true)), "{v}");
        let st = owner
            .wait_for(&id, 10, |st| st["deadline"].as_i64() == Some(d0 + DAY))
            .await;
        assert_eq!(st["seats"]["white"]["player"]["vacation"], true, "{st}");
        advance_test_clock(d0 - now_ms() + H);
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert_eq!(owner.state(&id).await["status"], "live");
    }
}
