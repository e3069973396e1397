//! The bridge's engine driver against real programs: GNU Go answers GTP; a program that dies,
//! one that answers garbage and one that never answers each give an error naming what went
//! wrong (and the engine's last words), never a hang.

use baduk_bridge::engine::{Chat, Engine};
use baduk_gtp::ClientError;
use std::time::Duration;
use tokio::sync::mpsc;

const GNUGO: &str = "/usr/games/gnugo";

fn sh(script: &str) -> (String, Vec<String>) {
    ("sh".into(), vec!["-c".into(), script.into()])
}

#[tokio::test]
async fn gnu_go_plays_through_the_driver() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let args = ["--mode", "gtp", "--level", "1"].map(String::from);
    let mut e = Engine::start(GNUGO, &args, tx)
        .await
        .expect("GNU Go starts");
    assert!(e.knows("genmove") && e.knows("time_left"));
    let t = Duration::from_secs(60);
    e.send("boardsize 9", t).await.unwrap();
    e.send("clear_board", t).await.unwrap();
    e.send("play B E5", t).await.unwrap();
    let mv = e.send("genmove W", t).await.unwrap();
    assert!(mv.len() >= 2, "a vertex, not `{mv}`");
    let err = e.send("play B E5", t).await.unwrap_err();
    assert!(matches!(err, ClientError::Failure { .. }), "{err:?}");
    e.quit().await;
}

#[tokio::test]
async fn an_engine_that_dies_leaves_its_last_words() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    // Answers list_commands, says a word for the spectators, then dies on the next command.
    let (p, a) = sh(
        "read x; printf '= genmove\\n\\n'; echo 'MALKOVICH: I feel odd' >&2; \
                     echo 'segfault at 0x0' >&2; read y; exit 3",
    );
    let mut e = Engine::start(&p, &a, tx).await.expect("it starts");
    let err = e
        .send("genmove B", Duration::from_secs(10))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Io(_)), "{err:?}");
    assert_eq!(rx.recv().await, Some(Chat::Spectators("I feel odd".into())));
    // The reader of stderr may lag the exit by a moment.
    for _ in 0..100 {
        if e.stderr_tail().iter().any(|l| l.contains("segfault")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(e.stderr_tail().iter().any(|l| l.contains("segfault")));
}

#[tokio::test]
async fn garbage_and_silence_are_errors_not_hangs() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let (p, a) = sh("read x; printf '= genmove\\n\\n'; read y; echo 'hello there'; echo; sleep 30");
    let mut e = Engine::start(&p, &a, tx.clone()).await.unwrap();
    let err = e
        .send("genmove B", Duration::from_secs(10))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Protocol(_)), "{err:?}");
    let (p, a) = sh("read x; printf '= genmove\\n\\n'; sleep 30");
    let mut e = Engine::start(&p, &a, tx).await.unwrap();
    let err = e
        .send("genmove B", Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no answer"), "{err}");
}

#[tokio::test]
async fn a_program_that_is_not_there_cannot_start() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let err = Engine::start("/nonexistent/engine", &[], tx)
        .await
        .err()
        .unwrap();
    assert!(matches!(err, ClientError::Spawn(_)), "{err:?}");
}
