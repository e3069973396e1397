//! `baduk bench serve` against an in-process server: every planned move is stored, acknowledged
//! and seen by the other seat, and the same seed plays the same moves. Counts only, never times.

use baduk_loadgen::bench::{run, BenchOptions};
use baduk_server::{start, Config};

/// A server on a fresh SQLite file in `dir`, with no limits (the bench is one client).
async fn unlimited_server(dir: &tempfile::TempDir) -> baduk_server::Running {
    start(Config {
        addr: "127.0.0.1:0".into(),
        database: format!("sqlite:{}", dir.path().join("bench.db").display()),
        rate_limit: 0.0,
        test_bots: false,
        limits: baduk_server::Limits::unlimited(),
        ..Default::default()
    })
    .await
    .expect("the server starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_games_of_six_moves_are_all_stored_and_broadcast() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = unlimited_server(&dir).await;
    let opts = BenchOptions {
        addr: server.addr.to_string(),
        games: 3,
        moves: 6,
        seed: 7,
        server_pids: vec![std::process::id()],
        ..BenchOptions::default()
    };
    let r = run(&opts).await.expect("the bench runs");
    assert_eq!(r.errors, 0, "{:?}", r.error_samples);
    assert_eq!(r.games_ready, 3);
    assert_eq!(r.actions, 18);
    assert_eq!(r.ack.count(), 18);
    assert_eq!(r.broadcast.count(), 18);
    assert!(
        r.rss_live_kib.is_some(),
        "this process's memory is readable"
    );
    let lines = r.lines();
    assert!(
        lines[0].starts_with("signature: games 3 moves 6 seed 7 actions 18 moves-hash "),
        "{}",
        lines[0]
    );

    // Every game holds its six moves, as the server stored them.
    let client = reqwest::Client::new();
    let list: serde_json::Value = client
        .get(format!("http://{}/api/games?status=live", server.addr))
        .send()
        .await
        .expect("the lobby answers")
        .json()
        .await
        .expect("the lobby is JSON");
    let games = list["games"].as_array().expect("a list of games");
    assert_eq!(games.len(), 3);
    for g in games {
        assert_eq!(g["moves"], 6, "{g}");
    }

    // The same seed plays the same moves (a second run on fresh games).
    let again = run(&opts).await.expect("the bench runs again");
    assert_eq!(again.moves_hash, r.moves_hash);
    let other = run(&BenchOptions {
        seed: 8,
        ..opts.clone()
    })
    .await
    .expect("runs");
    assert_ne!(other.moves_hash, r.moves_hash);

    // One socket a game (both seats' actions with their tokens): the same moves, each acked
    // and its state seen on that socket.
    let one = run(&BenchOptions {
        one_socket: true,
        ..opts
    })
    .await
    .expect("the bench runs with one socket a game");
    assert_eq!(one.errors, 0, "{:?}", one.error_samples);
    assert_eq!((one.actions, one.broadcast.count()), (18, 18));
    assert_eq!(one.moves_hash, r.moves_hash);
    assert!(
        one.lines()[1].contains("3 games and 3 sockets"),
        "{}",
        one.lines()[1]
    );
}

/// The accounts mode with 20 players (the size at which it once stalled: a state the socket had
/// queued during a player's own move was played from): every player is paired once, every game
/// is played out and resigned, and nothing errs. Counts only, never times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_signed_in_players_are_paired_and_play_their_games_out() {
    use baduk_loadgen::bench_players::{run as run_players, PlayersOptions};
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = unlimited_server(&dir).await;
    let r = run_players(&PlayersOptions {
        addr: server.addr.to_string(),
        players: 20,
        moves: 8,
        seed: 3,
        parallel: 8,
        server_pid: None,
        timeout: std::time::Duration::from_secs(60),
    })
    .await
    .expect("the bench runs");
    assert_eq!(r.errors, 0, "{:?}", r.error_samples);
    assert_eq!((r.signed_up, r.games, r.finished), (20, 10, 10));
    assert_eq!(r.seek_to_game.count(), 20);
    // Each game: moves until version 8, then White passes if it is to move, and Black resigns.
    assert!(r.actions >= 10 * 9, "{}", r.actions);
    assert_eq!(r.ack.count() as u64, r.actions);
    assert!(r.lines()[0]
        .starts_with("signature: players 20 signed-up 20 games 10 finished 10 actions "));
}
