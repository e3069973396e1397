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
