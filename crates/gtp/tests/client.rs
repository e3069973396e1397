//! The GTP client drives a child engine (GNU Go when installed) and reports its failures.

use baduk_gtp::{ClientError, GtpClient};

const GNUGO: &str = "/usr/games/gnugo";

#[test]
fn client_reports_a_program_that_cannot_start() {
    match GtpClient::spawn("/nonexistent/engine --gtp") {
        Err(ClientError::Spawn(m)) => assert!(m.contains("/nonexistent/engine")),
        other => panic!("expected a spawn error, got {:?}", other.map(|_| ())),
    }
    assert!(matches!(
        GtpClient::spawn("   "),
        Err(ClientError::Spawn(_))
    ));
}

#[test]
fn client_drives_gnugo_and_passes_its_errors_on() {
    if !std::path::Path::new(GNUGO).exists() {
        eprintln!("skipped: {GNUGO} is not installed");
        return;
    }
    let mut g = GtpClient::spawn(&format!("{GNUGO} --mode gtp --level 0")).unwrap();
    assert_eq!(g.send("protocol_version").unwrap(), "2");
    g.send("boardsize 9").unwrap();
    g.send("play black E5").unwrap();
    match g.send("play white E5") {
        Err(ClientError::Failure { message, .. }) => assert!(message.contains("illegal move")),
        other => panic!("expected a failure, got {other:?}"),
    }
    let mv = g.send("genmove white").unwrap();
    assert!(!mv.is_empty());
    let board = g.send("showboard").unwrap();
    assert!(
        board.lines().count() > 9,
        "multi-line answers are kept whole"
    );
    g.quit();
}
