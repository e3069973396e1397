//! An arena of ten minutes over HTTP on SQLite and PostgreSQL, on the test clock: accounts and
//! bot levels, a late entry paired once it is in, a withdrawal mid-game (that game counts, no
//! pairing after it), nothing paired after the end, the standings, the CSV, the EGF table (each
//! player's games in the order played) and the tournament metrics.
//! The test clock is process-wide: the tests here run one at a time.

mod common;

use baduk_server::game::hub::now_ms;
use baduk_server::store::time::advance_test_clock;
use baduk_server::tournaments::rows;
use common::accounts::{call, get, signup, uniq, Session};
use common::{databases, Server};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One test at a time: they move the process's clock.
static CLOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `POST /api/tournaments/{id}/{what}` as `who`.
async fn act(s: &Server, who: &Session, id: &str, what: &str, body: Value) -> (u16, Value) {
    let path = format!("/api/tournaments/{id}/{what}");
    call(s, "POST", &path, who, Some(body)).await
}

/// The event as anyone reads it.
async fn read(s: &Server, id: &str) -> Value {
    let (st, v) = s.get(&format!("/api/tournaments/{id}")).await;
    assert_eq!(st, 200, "{v}");
    v
}

/// The arena's boards with a result.
fn known(v: &Value) -> usize {
    let pairings = v["rounds"][0]["pairings"].as_array();
    pairings
        .into_iter()
        .flatten()
        .filter(|p| !p["result"].is_null())
        .count()
}

/// Resigns every open game of event `id` that an account of `players` sits in; the event.
async fn resign_open(s: &Server, id: &str, players: &HashMap<String, Session>) -> Value {
    let v = read(s, id).await;
    for p in v["rounds"][0]["pairings"].as_array().into_iter().flatten() {
        let (None, Some(game)) = (p["result"].as_str(), p["game"].as_str()) else {
            continue;
        };
        for side in ["black", "white"] {
            if let Some(who) = players.get(p[side].as_str().unwrap_or("")) {
                let path = format!("/api/games/{game}/actions");
                // A game that ended meanwhile refuses: its result comes anyway.
                let _ = call(s, "POST", &path, who, Some(json!({"action": "resign"}))).await;
            }
        }
    }
    v
}

/// Plays on (accounts resign, bots play) until `pred` holds of the event, within `secs`.
async fn play_until(
    s: &Server,
    id: &str,
    players: &HashMap<String, Session>,
    secs: u64,
    what: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = resign_open(s, id, players).await;
        if pred(&v) {
            return v;
        }
        assert!(Instant::now() < end, "{what} within {secs} s: {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The value of one unlabelled sample in `/metrics`.
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} in /metrics:\n{text}"))
}

#[tokio::test]
async fn an_arena_of_ten_minutes_takes_a_late_entry_drops_a_withdrawn_player_and_exports() {
    let _one = CLOCK.lock().await;
    for db in databases() {
        let s = Server::start(&db).await;
        let store = &s.hub.store;
        let org = signup(&s, &uniq("org")).await;
        let body = json!({"name": "Evening arena", "format": "arena", "minutes": 10,
            "no_show_minutes": 60, "game": "wallgo", "turn_seconds": 0});
        let (st, v) = call(&s, "POST", "/api/tournaments", &org, Some(body)).await;
        assert_eq!(st, 201, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let mut players = HashMap::new();
        for i in 0..4 {
            let name = uniq(&format!("ar{i}"));
            let who = signup(&s, &name).await;
            assert_eq!(act(&s, &who, &id, "join", json!({})).await.0, 200);
            players.insert(name, who);
        }
        for _ in 0..3 {
            let (st, v) = act(&s, &org, &id, "bots", json!({"bot": "random"})).await;
            assert_eq!(st, 200, "{v}");
        }
        // The same level three times: three players, told apart by number.
        let names: Vec<String> = read(&s, &id).await["players"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["bot"] == true)
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, ["random", "random #2", "random #3"]);
        let (st, v) = act(&s, &org, &id, "start", json!({})).await;
        assert_eq!(st, 200, "{v}");
        let t = rows::load(store, &id).await.unwrap().unwrap();
        let ends_at = t.starts_at + 10 * 60_000;
        // Seven players: three games, one waits.
        assert_eq!(
            v["tournament"]["rounds"][0]["pairings"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        play_until(&s, &id, &players, 120, "six results", |v| known(v) >= 6).await;

        // Three minutes in, a late player enters and is paired once a game ends.
        advance_test_clock(3 * 60_000);
        let late = uniq("late");
        let late_who = signup(&s, &late).await;
        let (st, v) = act(&s, &late_who, &id, "join", json!({})).await;
        if st != 200 {
            // Until the API takes late entries into a running arena, the entry is stored as
            // the API would store it.
            assert_eq!(v["code"], "tournament.started", "{v}");
            let key = baduk_server::players::accounts::normalise_name(&late)
                .unwrap()
                .1;
            let (a, _) = store.account_by_key(&key).await.unwrap().unwrap();
            let en = rows::Entrant {
                seq: 0,
                account_id: Some(a.id),
                bot: None,
                name: late.clone(),
                rank: 10,
                rating: 1500,
                status: "in".into(),
                joined_at: 0,
                checked_in_at: None,
                left_at: None,
            };
            assert!(rows::add_entrant(store, &id, "running", 64, &en, now_ms())
                .await
                .unwrap());
        }
        players.insert(late.clone(), late_who);
        let late_seq = rows::entrants(store, &id)
            .await
            .unwrap()
            .iter()
            .find(|e| e.name == late)
            .map(|e| (e.seq, e.joined_at))
            .unwrap();
        let has = |v: &Value, name: &str| {
            v["rounds"][0]["pairings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["black"] == name || p["white"] == name)
        };
        let v = play_until(&s, &id, &players, 120, "the late player paired", |v| {
            has(v, &late)
        })
        .await;
        let before = known(&v);

        // A player withdraws during a game: that game is played out and counts; no new one.
        advance_test_clock(60_000);
        let (gone, gone_seq) = loop {
            let v = read(&s, &id).await;
            let open = v["rounds"][0]["pairings"]
                .as_array()
                .unwrap()
                .iter()
                .find_map(|p| {
                    let acc = ["black", "white"]
                        .into_iter()
                        .find(|side| players.contains_key(p[side].as_str().unwrap()))?;
                    p["result"].is_null().then(|| {
                        (
                            p[acc].as_str().unwrap().to_string(),
                            p[format!("{acc}_id")].as_i64().unwrap(),
                        )
                    })
                });
            if let Some(found) = open {
                break found;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let (st, v) = act(&s, &players[&gone], &id, "withdraw", json!({})).await;
        assert_eq!(st, 200, "{v}");
        let left_at = rows::entrants(store, &id)
            .await
            .unwrap()
            .iter()
            .find(|e| e.seq == gone_seq)
            .and_then(|e| e.left_at)
            .expect("a withdrawal stores when");
        play_until(&s, &id, &players, 120, "ten more results", |v| {
            known(v) >= before + 10
        })
        .await;

        // The end: nothing is paired after it; the games in play finish the arena.
        advance_test_clock(7 * 60_000);
        let v = play_until(&s, &id, &players, 120, "the end", |v| {
            v["status"] == "finished"
        })
        .await;
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert_eq!(read(&s, &id).await["rounds"], v["rounds"]);

        let boards = rows::boards(store, &id).await.unwrap();
        assert!(boards.iter().all(|b| b.result.is_some()), "{v}");
        assert!(boards.iter().all(|b| b.created_at < ends_at));
        let with = |b: &rows::Board, seq: i64| b.black == seq || b.white == Some(seq);
        // The withdrawn player: one game at most after leaving (the one in play), counted.
        let theirs: Vec<&rows::Board> = boards.iter().filter(|b| with(b, gone_seq)).collect();
        assert!(
            theirs.iter().all(|b| b.created_at <= left_at),
            "paired after withdrawing"
        );
        assert!(theirs.last().unwrap().result.is_some());
        // The late player: nothing before entering, games after.
        let (late_seq, joined) = late_seq;
        let late_boards: Vec<&rows::Board> = boards.iter().filter(|b| with(b, late_seq)).collect();
        assert!(!late_boards.is_empty());
        assert!(late_boards.iter().all(|b| b.created_at >= joined));

        // The table: every player who played, points the sum of their results.
        let table = v["standings"].as_array().unwrap();
        assert_eq!(table.len(), 8, "{v}");
        let games: u64 = table.iter().map(|r| r["games"].as_u64().unwrap()).sum();
        assert_eq!(games as usize, 2 * boards.len());
        for row in table {
            let results = row["results"].as_array().unwrap();
            let sum: u64 = results.iter().map(|x| x.as_u64().unwrap()).sum();
            assert_eq!(row["score"].as_u64().unwrap(), sum, "{row}");
        }
        let gone_row = table.iter().find(|r| r["name"] == gone.as_str()).unwrap();
        assert_eq!(gone_row["games"].as_u64().unwrap() as usize, theirs.len());

        // The CSV: a header and a line a player, in the table's order.
        let (st, csv) = get(&s, &format!("/api/tournaments/{id}/export.csv"), &org).await;
        assert_eq!(st, 200);
        let csv = csv.as_str().unwrap().to_string();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "place,name,rank,score,games,results");
        assert_eq!(lines.len(), 9, "{csv}");
        for (line, row) in lines[1..].iter().zip(table) {
            let want = format!("{},{},", row["place"], row["name"].as_str().unwrap());
            assert!(line.starts_with(&want), "{line} / {row}");
        }

        // The EGF table: the k-th column is the player's k-th game (opponent's place, result,
        // colour), `0-` past their last; the points as the score.
        let (st, egf) = get(&s, &format!("/api/tournaments/{id}/export.egf"), &org).await;
        assert_eq!(st, 200);
        let egf = egf.as_str().unwrap().to_string();
        assert!(egf.contains("; EV[Evening arena]"), "{egf}");
        let place: HashMap<i64, u64> = table
            .iter()
            .map(|r| (r["player"].as_i64().unwrap(), r["place"].as_u64().unwrap()))
            .collect();
        let most = table
            .iter()
            .map(|r| r["games"].as_u64().unwrap())
            .max()
            .unwrap() as usize;
        let body: Vec<&str> = egf.lines().filter(|l| !l.starts_with(';')).collect();
        assert_eq!(body.len(), 8, "{egf}");
        for (line, row) in body.iter().zip(table) {
            let seq = row["player"].as_i64().unwrap();
            let mut want: Vec<String> = boards
                .iter()
                .filter(|b| with(b, seq))
                .map(|b| {
                    let black = b.black == seq;
                    let opp = if black { b.white.unwrap() } else { b.black };
                    let sign = match (b.result.as_deref().unwrap(), black) {
                        ("unplayed", _) => return "0-".to_string(),
                        ("jigo", _) => '=',
                        ("black", true) | ("white", false) => '+',
                        _ => '-',
                    };
                    format!("{}{sign}/{}", place[&opp], if black { 'b' } else { 'w' })
                })
                .collect();
            want.resize(most, "0-".into());
            let words: Vec<&str> = line.split_whitespace().collect();
            let (head, cells) = words.split_at(words.len() - most);
            assert_eq!(cells, want, "{line}");
            assert_eq!(head[0], row["place"].to_string(), "{line}");
            assert_eq!(*head.last().unwrap(), row["score"].to_string(), "{line}");
        }

        // The metrics: every board paired here, a latency for every game that was followed by
        // another of the same player, and time in the sweep.
        let (st, m) = s.get("/metrics").await;
        assert_eq!(st, 200);
        let m = m.as_str().unwrap().to_string();
        assert_eq!(
            metric(&m, "baduk_tournament_pairings_total") as usize,
            boards.len()
        );
        let played: std::collections::HashSet<i64> = boards
            .iter()
            .flat_map(|b| [Some(b.black), b.white])
            .flatten()
            .collect();
        assert_eq!(
            metric(&m, "baduk_tournament_pairing_latency_seconds_count") as usize,
            2 * boards.len() - played.len()
        );
        assert!(metric(&m, "baduk_tournament_sweep_seconds_total") > 0.0);
    }
}
