//! Games that live in the database rather than in memory: an idle game leaves memory and loads
//! again on demand, its clock still falls (the sweep finds it by its stored `wake_at`), and a
//! process that starts loads no game until one is asked for or due. On SQLite and, under scripts/with-postgres, on PostgreSQL.

mod common;

use common::{databases, token, Server};
use serde_json::json;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// A server that drops games idle for 200 ms (looked at every second).
async fn forgetful(db: &str) -> Server {
    Server::start_config(db, |c| {
        c.limits.idle_game = Duration::from_millis(200);
        c.limits.finished_grace = Duration::from_millis(200);
    })
    .await
}

#[tokio::test]
async fn an_idle_game_leaves_memory_and_its_clock_still_falls_from_the_database() {
    for db in databases() {
        let s = forgetful(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:4"}))
            .await;
        s.ok(&id, &token(&seats, "black"), "E5").await;
        assert!(
            common::eventually(10, || s.hub.loaded_handle(&id).is_none()).await,
            "the idle game left memory"
        );
        // Nobody asks for it: the sweep reads its wake_at from the database and ends it.
        let mut finished = false;
        for _ in 0..150 {
            let sched = s.hub.store.schedule_of(&id).await.unwrap().unwrap();
            if sched.wake_at.is_none() {
                finished = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(finished, "White's flag fell with the game out of memory");
        assert!(s.hub.metrics.woken.load(Ordering::Relaxed) >= 1);
        assert!(s.hub.metrics.evicted.load(Ordering::Relaxed) >= 1);
        let st = s.state(&id).await;
        assert_eq!(st["result"]["text"], "B+T");
        assert_eq!(st["actions"].as_array().unwrap().len(), 2, "one timeout");
    }
}

#[tokio::test]
async fn an_evicted_game_plays_on_where_it_stopped() {
    for db in databases() {
        let s = forgetful(&db).await;
        let (id, seats) = s
            .create(json!({"game": "go", "size": 9, "rules": "chinese", "clock": "fischer:600:10"}))
            .await;
        let (b, w) = (token(&seats, "black"), token(&seats, "white"));
        s.ok(&id, &b, "E5").await;
        s.ok(&id, &w, "C3").await;
        assert!(common::eventually(10, || s.hub.loaded_handle(&id).is_none()).await);
        // The next move loads it again, rebuilt from its actions with its clocks.
        s.ok(&id, &b, "G7").await;
        let st = s.state(&id).await;
        assert_eq!(st["actions"].as_array().unwrap().len(), 3);
        let (code, v) = s.act(&id, &b, "D4").await;
        assert_eq!(code, 409, "still White's turn after the reload: {v}");
    }
}

#[tokio::test]
async fn a_starting_process_loads_no_game_until_one_is_asked_for_or_due() {
    for db in databases() {
        let a = Server::start(&db).await;
        let mut ids = Vec::new();
        for _ in 0..3 {
            let (id, seats) = a
                .create(
                    json!({"game": "go", "size": 9, "rules": "chinese", "clock": "absolute:600"}),
                )
                .await;
            a.ok(&id, &token(&seats, "black"), "E5").await;
            ids.push(id);
        }
        // A game against a bot, which must answer wherever the game is played.
        let (bot_game, seats) = a
            .create(json!({"game": "go", "size": 9, "rules": "chinese",
                "seats": {"white": {"kind": "bot", "bot": "baduk", "options": "playouts=50"}}}))
            .await;
        let before = a.state(&bot_game).await["actions"]
            .as_array()
            .unwrap()
            .len();
        // The first process leaves (a restart, or a SIGTERM on the cluster: were it still
        // there, it could hand its loaded games on by rebalancing); a second process on the
        // same database takes every game over and loads none of the quiet ones.
        baduk_server::cluster::leave(&a.hub).await;
        let b = Server::start(a.hub.store.url()).await;
        assert!(ids.iter().all(|id| b.hub.loaded_handle(id).is_none()));
        b.ok(&bot_game, &token(&seats, "black"), "E5").await;
        b.wait_for(&bot_game, 20, |x| {
            x["actions"].as_array().unwrap().len() == before + 2
        })
        .await;
        // Asked for, a quiet game loads.
        assert_eq!(
            b.state(&ids[0]).await["actions"].as_array().unwrap().len(),
            1
        );
        assert!(b.hub.loaded_handle(&ids[0]).is_some());
        assert!(ids[1..].iter().all(|id| b.hub.loaded_handle(id).is_none()));
    }
}
