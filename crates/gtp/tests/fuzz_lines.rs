//! GTP §2: malformed input never crashes the engine. Thousands of random lines built from real
//! command names, hostile numbers, vertices and junk bytes; every one gets `=` or `?`.

use baduk_gtp::{engine_with_options, format_response, parse_line};
use baduk_rng::Rng;

const WORDS: &[&str] = &[
    "play",
    "genmove",
    "boardsize",
    "komi",
    "undo",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "time_settings",
    "time_left",
    "kgs-time_settings",
    "kgs-genmove_cleanup",
    "final_score",
    "final_status_list",
    "loadsgf",
    "printsgf",
    "showboard",
    "kgs-rules",
    "baduk-rules",
    "lz-genmove_analyze",
    "clear_board",
    "known_command",
    "name",
    "b",
    "w",
    "black",
    "white",
    "pass",
    "A1",
    "T19",
    "j9",
    "Z99",
    "I5",
    "a0",
    "-1",
    "0",
    "1",
    "2",
    "7",
    "19",
    "25",
    "26",
    "inf",
    "-inf",
    "nan",
    "1e308",
    "18446744073709551616",
    "6.25",
    "byoyomi",
    "canadian",
    "absolute",
    "fischer",
    "none",
    "dead",
    "alive",
    "seki",
    "chinese",
    "japanese",
    "jk",
    "ko=situational",
    "chinese,komi=x",
    "#",
    "\t",
    "\u{0}",
    "\u{7f}",
    "ä",
    "\u{feff}",
    "=",
    "?",
    "12",
];

#[test]
fn gtp_2_random_malformed_lines_never_crash_the_engine() {
    let mut e = engine_with_options("playouts=4,seed=1").unwrap();
    let mut rng = Rng::new(2024);
    let mut lines = 0;
    for _ in 0..1500 {
        let n = 1 + rng.below(5);
        let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        let line = words.join(" ");
        // lz-analyze streams only inside `run`; `handle` answers it with one snapshot.
        if let Some(cmd) = parse_line(&line) {
            if cmd.name == "quit" {
                continue;
            }
            let r = e.handle(&cmd);
            let text = format_response(cmd.id, &r);
            assert!(
                text.starts_with('=') || text.starts_with('?'),
                "{line:?} -> {text:?}"
            );
            assert!(text.ends_with("\n\n") && !text[..text.len() - 2].contains("\n\n"));
            lines += 1;
        }
    }
    assert!(lines > 1200);
}

/// Words analysis arguments are built from: keys, colours, numbers good and bad, vertex lists
/// on and off the board.
const ANALYSIS_WORDS: &[&str] = &[
    "b",
    "w",
    "black",
    "purple",
    "interval",
    "minmoves",
    "maxmoves",
    "avoid",
    "allow",
    "ownership",
    "pvVisits",
    "true",
    "false",
    "0",
    "1",
    "10",
    "50",
    "-1",
    "1.5",
    "nan",
    "inf",
    "1e999",
    "18446744073709551616",
    "D4",
    "D4,E5",
    "pass",
    "A1,T19",
    "Z99",
    "K10",
    ",",
    "D4,,E5",
    "I5",
    "fly",
    "=",
];

#[test]
fn analysis_arguments_in_any_order_are_answered_and_errors_change_nothing() {
    use baduk_gtp::analysis::{parse_analyze_args, Dialect};
    let mut rng = Rng::new(14);
    let mut ok = 0;
    for _ in 0..20_000 {
        let n = rng.below(9);
        let words: Vec<String> = (0..n)
            .map(|_| ANALYSIS_WORDS[rng.below(ANALYSIS_WORDS.len())].to_string())
            .collect();
        for dialect in [Dialect::Leela, Dialect::Kata] {
            match parse_analyze_args(&words, 9, dialect) {
                Ok(a) => {
                    ok += 1;
                    assert!(a.interval.as_millis() >= 10 && a.interval.as_secs() <= 10);
                }
                Err(e) => assert!(e.starts_with("syntax error: "), "{words:?}: {e}"),
            }
        }
    }
    assert!(ok > 100, "{ok} accepted");
    // Through the engine: a refused line leaves the game as it was.
    let mut e = engine_with_options("playouts=8,seed=1").unwrap();
    for l in ["boardsize 9", "play b e5"] {
        e.handle(&parse_line(l).unwrap()).unwrap();
    }
    let board = e.showboard();
    for _ in 0..300 {
        let n = rng.below(7);
        let words: Vec<&str> = (0..n)
            .map(|_| ANALYSIS_WORDS[rng.below(ANALYSIS_WORDS.len())])
            .collect();
        let cmd = ["lz-analyze", "kata-analyze", "lz-genmove_analyze", "komi"][rng.below(4)];
        let line = format!("{cmd} {}", words.join(" "));
        let c = parse_line(&line).unwrap();
        if let Err(err) = e.handle(&c) {
            assert!(err.starts_with("syntax error"), "{line}: {err}");
            assert_eq!(e.showboard(), board, "{line} changed the game");
        } else if cmd == "lz-genmove_analyze" {
            // A move was played: take it back so that the game stays the same.
            e.handle(&parse_line("undo").unwrap()).unwrap();
        }
        assert_eq!(e.showboard(), board, "{line}");
    }
}
