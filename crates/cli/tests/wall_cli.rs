//! End-to-end checks of `baduk wall …` and `baduk bench wall`: output shape and exit codes.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn baduk(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_baduk"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run baduk");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

/// Writes a temporary file named for this process and `name`; the test removes it when done.
fn temp(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("baduk-wall-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, text).expect("write temp file");
    p
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const OPENING: &str = "wallgo 1\nvariant placement=ABAB stay=out-and-back tiebreak=none\n\
                       A B2 F6\nB F2 B6\nplace A D4\nplace B C3\nplace A E5\nplace B D2\n";

/// The seed-003 ending (A 20, B 28, neutral 1) is a set position, not a game from the start, so
/// here a full random game saved by `wall play` is replayed instead.
#[test]
fn wall_play_random_saves_a_record_that_replay_accepts() {
    let rec = std::env::temp_dir().join(format!("baduk-wall-play-{}.txt", std::process::id()));
    let out = baduk(
        &[
            "wall",
            "play",
            "--a",
            "random",
            "--b",
            "random",
            "--seed",
            "9",
            "--save",
            rec.to_str().expect("utf-8 path"),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let played = text(&out.stdout);
    let last = played.lines().last().expect("a score line").to_string();
    assert!(
        last.starts_with("A ") && last.contains(" neutral "),
        "{last}"
    );
    let again = baduk(
        &[
            "wall", "play", "--a", "random", "--b", "random", "--seed", "9",
        ],
        "",
    );
    assert_eq!(text(&again.stdout), played, "same seed, same game");
    let replay = baduk(&["wall", "replay", rec.to_str().expect("utf-8 path")], "");
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    assert_eq!(text(&replay.stdout).lines().last(), Some(last.as_str()));
    std::fs::remove_file(&rec).ok();
}

#[test]
fn wall_legal_lists_count_then_record_lines() {
    let f = temp("opening.txt", OPENING);
    let out = baduk(&["wall", "legal", f.to_str().expect("utf-8 path")], "");
    assert!(out.status.success());
    let s = text(&out.stdout);
    let mut lines = s.lines();
    let n: usize = lines.next().expect("count").parse().expect("a number");
    let rest: Vec<&str> = lines.collect();
    assert_eq!(rest.len(), n);
    assert!(rest.iter().all(|l| l.starts_with("turn B ")));
    assert!(rest.contains(&"turn B F2-F4/W"));
    let perft = baduk(
        &[
            "wall",
            "perft",
            f.to_str().expect("utf-8 path"),
            "--depth",
            "1",
        ],
        "",
    );
    assert_eq!(text(&perft.stdout).trim(), n.to_string());
    std::fs::remove_file(&f).ok();
}

#[test]
fn wall_replay_exit_codes_illegal_1_malformed_2() {
    let illegal = temp(
        "illegal.txt",
        &format!("{OPENING}turn B D2-D2/S\nturn A D4-D4/W\nturn B D2-D3/N\n"),
    );
    let out = baduk(
        &["wall", "replay", illegal.to_str().expect("utf-8 path")],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("line 11: turn 3 B D2-D3/N: path crosses the wall D2/S"),
        "{}",
        text(&out.stderr)
    );
    let malformed = temp("malformed.txt", "wallgo 1\nplace A D4\nturn B C3-C4\n");
    let out = baduk(
        &["wall", "replay", malformed.to_str().expect("utf-8 path")],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("line 3:"));
    std::fs::remove_file(&illegal).ok();
    std::fs::remove_file(&malformed).ok();
}

#[test]
fn wall_play_human_reprompts_on_bad_input_and_lists_legal_options() {
    let out = baduk(
        &[
            "wall", "play", "--a", "human", "--b", "random", "--seed", "2",
        ],
        "Z9\n?\nD4\nquit\n",
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "quitting is not a finished game"
    );
    let s = text(&out.stdout);
    assert!(s.contains("cannot read 'Z9'"), "{s}");
    assert!(s.contains("45 legal: A1"), "{s}");
    assert!(s.contains("place A D4"), "{s}");
}

#[test]
fn wall_play_says_how_to_quit_and_saves_when_stopped() {
    let rec = std::env::temp_dir().join(format!("baduk-wall-quit-{}.wallgo", std::process::id()));
    let r = rec.to_str().expect("utf-8 path");
    for stop in ["q\n", "quit\n", ""] {
        let input = format!("D4\nC3\nD4-D5\n{stop}");
        let args = [
            "wall", "play", "--a", "human", "--b", "random", "--seed", "2", "--save", r,
        ];
        let out = baduk(&args, &input);
        assert_eq!(
            out.status.code(),
            Some(2),
            "quitting is not a finished game"
        );
        let s = text(&out.stdout);
        assert!(s.contains("To stop: quit, q or Ctrl-D"), "{s}");
        assert!(s.contains("(? actions, q quits)> "), "{s}");
        assert!(
            s.contains("a turn ends with a wall: D4-D5/N, /E, /S or /W"),
            "{s}"
        );
        assert!(
            text(&out.stderr).contains("record so far saved"),
            "{}",
            text(&out.stderr)
        );
        // The saved record replays: the four placements and B's first turn.
        let replay = baduk(&["wall", "replay", r], "");
        assert!(replay.status.success(), "{}", text(&replay.stderr));
        assert!(
            text(&replay.stdout).contains("turn 2: A to move"),
            "{}",
            text(&replay.stdout)
        );
    }
    std::fs::remove_file(&rec).ok();
}

#[test]
fn wall_legal_on_the_finished_example_says_the_game_is_over() {
    let ex = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game.wallgo");
    let out = baduk(&["wall", "legal", ex], "");
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert_eq!(s.lines().count(), 1, "{s}");
    assert!(s.starts_with("no legal actions: game over ("), "{s}");
    let replay = baduk(&["wall", "replay", ex], "");
    assert!(replay.status.success(), "{}", text(&replay.stderr));
}

#[test]
fn bench_wall_prints_a_deterministic_signature() {
    let a = baduk(&["bench", "wall", "--games", "50", "--seed", "4"], "");
    let b = baduk(&["bench", "wall", "--games", "50", "--seed", "4"], "");
    assert!(a.status.success());
    let sig = |o: &Output| text(&o.stdout).lines().next().unwrap_or("").to_string();
    assert!(sig(&a).starts_with("signature: games 50 "));
    assert_eq!(sig(&a), sig(&b));
    // The shape of every bench: the signature, then one rate line each.
    let lines: Vec<String> = text(&a.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[1].starts_with("random games per second: "));
    assert!(lines[2].starts_with("actions generated per second: "));
}
