//! Review mode in a live game, over HTTP on the server's test clock: two people in an unrated
//! game agree to pause it for a review (one offers, the other accepts), no clock runs and no
//! move is taken while it is paused, `resume` goes on from where it stood, a restart keeps the
//! pause; rated games and games with a bot refuse it. The test clock is process-wide: the
//! tests here run one at a time.

mod common;

use baduk_server::store::time::advance_test_clock;
use common::accounts::{game_between, signup, uniq};
use common::{databases, Server};
use serde_json::{json, Value};

/// One test at a time: they move the process's clock.
static CLOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const MIN: i64 = 60_000;

/// Asserts a refused action's status and code.
fn refused((st, v): (u16, Value), code: &str, what: &str) {
    assert_eq!((st, v["code"].as_str()), (409, Some(code)), "{what}: {v}");
}

/// White's clock as the state shows it: (main time left in ms, whether it is shown paused).
fn white_clock(st: &Value) -> (i64, bool) {
    let c = &st["clocks"]["white"];
    (c["main_ms"].as_i64().unwrap(), c["paused"] == true)
}

#[tokio::test]
async fn both_players_pause_a_game_for_a_review_and_resume_it_where_it_stood() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let (b, w) = (
            signup(&s, &uniq("rmb")).await,
            signup(&s, &uniq("rmw")).await,
        );
        let (id, bt, wt) = game_between(
            &s,
            &b,
            &w,
            json!({"game": "go", "size": 9, "rated": false, "clock": "absolute:600"}),
        )
        .await;
        s.ok(&id, &bt, "E5").await;
        advance_test_clock(2 * MIN);
        // White offers; the offer waits for Black; a second offer is refused.
        let st = s.ok(&id, &wt, "review").await;
        assert_eq!(st["review_mode"]["offered_by"], "white", "{st}");
        refused(
            s.act(&id, &wt, "review").await,
            "review_mode.waiting",
            "offered twice",
        );
        refused(
            s.act(&id, &wt, "resume").await,
            "review_mode.not_paused",
            "nothing to resume",
        );
        // Black accepts: the game pauses, with White's clock where it stood.
        let st = s.ok(&id, &bt, "review").await;
        assert_eq!(st["review_mode"]["paused"], true, "{st}");
        let (left, paused) = white_clock(&s.state(&id).await);
        assert!(paused, "the clock is shown paused");
        assert!(
            (475_000..=480_000).contains(&left),
            "two minutes spent: {left}"
        );
        // Half an hour of review: no flag falls, no move is taken.
        advance_test_clock(30 * MIN);
        let st = s.state(&id).await;
        assert_eq!(st["status"], "live", "{st}");
        assert_eq!(white_clock(&st).0, left, "no time runs while paused");
        refused(
            s.act(&id, &wt, "C3").await,
            "review_mode.paused",
            "a move while paused",
        );
        refused(
            s.act(&id, &bt, "undo").await,
            "review_mode.paused",
            "undo while paused",
        );
        // A restart keeps the pause.
        let s2 = Server::start(s.hub.store.url()).await;
        let st = s2.state(&id).await;
        assert_eq!(st["review_mode"]["paused"], true, "{st}");
        // Resumed (by either player), White's turn goes on with the time it had.
        s2.ok(&id, &bt, "resume").await;
        let st = s2.state(&id).await;
        assert_eq!(st["review_mode"]["paused"], false, "{st}");
        let (now_left, paused) = white_clock(&st);
        assert!(!paused);
        assert!(left - now_left < 5_000, "{left} then {now_left}");
        s2.ok(&id, &wt, "C3").await;
        // An offer can be declined, and a move clears a waiting one.
        s2.ok(&id, &bt, "review").await;
        s2.ok(&id, &wt, "review-decline").await;
        refused(
            s2.act(&id, &bt, "review-decline").await,
            "review_mode.none",
            "no offer",
        );
        s2.ok(&id, &wt, "review").await;
        let st = s2.ok(&id, &bt, "G7").await;
        assert_eq!(st["review_mode"]["offered_by"], Value::Null, "{st}");
    }
}

#[tokio::test]
async fn rated_games_and_games_with_a_bot_refuse_review_mode() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let (b, w) = (
            signup(&s, &uniq("rrb")).await,
            signup(&s, &uniq("rrw")).await,
        );
        let (id, bt, _) = game_between(
            &s,
            &b,
            &w,
            json!({"game": "go", "size": 9, "rated": true, "clock": "absolute:600"}),
        )
        .await;
        refused(
            s.act(&id, &bt, "review").await,
            "review_mode.rated",
            "rated",
        );
        let (bot_game, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese",
                "seats": {"white": {"kind": "bot", "bot": "baduk", "options": "playouts=50"}}}))
            .await;
        let black = common::token(&seats, "black");
        refused(
            s.act(&bot_game, &black, "review").await,
            "review_mode.bots",
            "bot",
        );
        let st = s.state(&bot_game).await;
        assert_eq!(st["actions"].as_array().unwrap().len(), 0, "nothing stored");
    }
}
