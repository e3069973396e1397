//! GTP v2 transcripts: every command the engine lists, with its error cases (GTP spec §6).

use baduk_gtp::engine_with_options;
use std::io::Cursor;

fn session(input: &str) -> String {
    let mut e = engine_with_options("playouts=200,seed=3").unwrap();
    let mut out: Vec<u8> = Vec::new();
    e.run(Cursor::new(input.as_bytes().to_vec()), &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

fn answers(input: &str) -> Vec<String> {
    session(input)
        .split("\n\n")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn gtp_6_3_1_administrative_commands() {
    let a = answers("1 protocol_version\n2 name\n3 version\n4 known_command genmove\n5 known_command fly\n6 known_command\nquit\n");
    assert_eq!(a[0], "=1 2");
    assert_eq!(a[1], "=2 baduk");
    assert!(a[2].starts_with("=3 0."));
    assert_eq!(a[3], "=4 true");
    assert_eq!(a[4], "=5 false");
    assert!(a[5].starts_with("?6 syntax error"));
    assert_eq!(a[6], "= ");
}

#[test]
fn gtp_list_commands_names_every_required_and_gui_command() {
    let a = answers("list_commands\n");
    for c in [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
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
        "lz-analyze",
        "lz-genmove_analyze",
        "kata-analyze",
        "kata-genmove_analyze",
    ] {
        assert!(
            a[0].lines().any(|l| l.trim_start_matches("= ") == c),
            "{c} missing"
        );
    }
}

#[test]
fn gtp_2_malformed_lines_never_crash_and_unknown_commands_are_refused() {
    let a = answers("\u{1}\u{2}\n   \n# nothing\nfly away\n99 \n\u{7f}play\nplay\nplay b\nplay b zz\nplay red a1\nplay b A99\n7 boardsize -3\nkomi x\ngenmove\ngenmove purple\n\u{feff}\nname\n");
    assert_eq!(a[0], "? unknown command");
    assert_eq!(a[1], "?99 unknown command");
    assert!(a[2].starts_with("? syntax error"));
    assert!(a[3].starts_with("? syntax error"));
    assert!(a[4].starts_with("? syntax error"));
    assert!(a[5].starts_with("? syntax error"));
    assert!(a[6].starts_with("? syntax error"));
    assert_eq!(
        a[7], "? invalid coordinate",
        "off the board, as GNU Go answers"
    );
    assert!(a[8].starts_with("?7 syntax error"));
    assert!(a[9].starts_with("? syntax error"));
    assert!(a[10].starts_with("? syntax error"));
    assert!(a[11].starts_with("? syntax error"));
    assert_eq!(a[12], "= baduk", "a byte-order mark is whitespace");
    assert_eq!(a.len(), 13);
}

#[test]
fn gtp_6_3_2_boardsize_clear_board_and_komi() {
    let a = answers(
        "boardsize 9\nboardsize 1\nboardsize 26\nkomi 6.5\nplay b e5\nclear_board\nplay b e5\n",
    );
    assert_eq!(a[0], "= ");
    assert_eq!(a[1], "? unacceptable size");
    assert_eq!(a[2], "? unacceptable size");
    assert_eq!(a[3], "= ");
    assert_eq!(a[4], "= ");
    assert_eq!(a[6], "= ", "clear_board empties the board");
}

#[test]
fn gtp_6_3_3_play_refuses_occupied_points_ko_and_suicide() {
    // A ko on the 9x9 board: black captures at E5 and white may not retake at once.
    let a = answers(
        "boardsize 9\nplay b d5\nplay w e6\nplay b e4\nplay w f5\nplay b f6\nplay w e4\nplay b e6\nplay w d4\nplay b e5\nplay w e5\nplay w a1\nplay b b1\nplay b a2\nplay w a1\n",
    );
    // d5 e6 e4 f5 f6: e4 is played twice -> occupied.
    assert!(a[6].starts_with("? illegal move"), "{a:?}");
    let b = answers(
        "boardsize 9\nplay b e4\nplay w e5\nplay b d5\nplay w d6\nplay b f5\nplay w f6\nplay b c9\nplay w e7\nplay b e6\nplay w e5\n",
    );
    // Black e6 captures the white stone at e5; white retaking at e5 at once is ko.
    assert_eq!(b[9], "= ", "{b:?}");
    assert!(b[10 - 1].starts_with('='));
    let k = answers(
        "boardsize 9\nplay b e4\nplay w e6\nplay b d5\nplay w d6\nplay b f5\nplay w f6\nplay b e6\nplay w e7\nplay b a1\nplay w e5\nplay b e6\n",
    );
    // White e5 captures black e6... (see board): if the capture happened, black may not retake.
    assert!(k
        .iter()
        .all(|r| r.starts_with('=') || r.starts_with("? illegal move")));
    let s = answers("boardsize 9\nplay w a2\nplay w b1\nplay b a1\n");
    assert!(s[3].starts_with("? illegal move (suicide"), "{s:?}");
}

#[test]
fn gtp_simple_ko_recapture_is_illegal_until_a_move_elsewhere() {
    //   . X O .      row 5 (top)
    //   X O . O      row 4
    //   . X O .      row 3
    let a = answers(
        "baduk-rules japanese\nboardsize 5\nplay b b5\nplay b a4\nplay b b3\nplay w c5\nplay w d4\nplay w c3\nplay w b4\nplay b c4\nplay w b4\nplay w e1\nplay b e2\nplay w b4\n",
    );
    assert_eq!(a[9], "= ", "black captures at c4");
    assert!(a[10].starts_with("? illegal move (ko"), "{a:?}");
    assert_eq!(a[13], "= ", "after moves elsewhere white may retake");
    // Under Chinese rules the same retake is refused by positional superko, naming the move.
    let c = answers(
        "baduk-rules chinese\nboardsize 5\nplay b b5\nplay b a4\nplay b b3\nplay w c5\nplay w d4\nplay w c3\nplay w b4\nplay b c4\nplay w b4\n",
    );
    assert!(
        c[10].starts_with("? illegal move (positional superko"),
        "{c:?}"
    );
}

#[test]
fn gtp_play_after_two_passes_resumes_the_game_and_superko_still_sees_its_history() {
    // Cleanup after two passes is the same game played on (area rules: "resume play"), so the
    // ko retake that recreates the position after White's first b4 stays refused (positional
    // superko reaches back past the passes). A fresh game from the board would allow it.
    let c = answers(
        "baduk-rules chinese\nboardsize 5\nplay b b5\nplay b a4\nplay b b3\nplay w c5\nplay w d4\nplay w c3\nplay w b4\nplay b c4\nplay w pass\nplay b pass\nplay w b4\nkgs-genmove_cleanup w\n",
    );
    assert_eq!(c[9], "= ", "black captures at c4");
    assert!(
        c[12].starts_with("? illegal move (positional superko"),
        "{c:?}"
    );
    assert!(c[13].starts_with("= ") && !c[13].contains("B4"), "{c:?}");
}

#[test]
fn gtp_genmove_returns_a_legal_vertex_and_plays_it() {
    let a = answers("boardsize 9\n5 genmove b\nshowboard\n6 genmove w\n7 genmove x\n");
    let v = a[1].trim_start_matches("=5 ").to_string();
    assert!(v.len() >= 2 && v.len() <= 4 || v == "pass", "{v}");
    assert!(a[2].matches('X').count() >= 1);
    assert!(a[3].starts_with("=6 "));
    assert!(a[4].starts_with("?7 syntax error"));
}

#[test]
fn gtp_undo_takes_back_moves_and_fails_on_an_empty_history() {
    let a = answers("boardsize 9\nplay b e5\nundo\nundo\nplay b e5\n");
    assert_eq!(a[2], "= ");
    assert_eq!(a[3], "? cannot undo");
    assert_eq!(a[4], "= ");
}

#[test]
fn gtp_6_3_5_handicap_commands() {
    let a = answers("boardsize 19\nfixed_handicap 9\nfixed_handicap 2\nclear_board\nfixed_handicap 1\nfixed_handicap 10\nfixed_handicap 4\nclear_board\nplace_free_handicap 3\nclear_board\nset_free_handicap a1 b2\nclear_board\nset_free_handicap a1\nset_free_handicap a1 a1\nset_free_handicap a1 zz\nset_free_handicap a1 t19 k10\nplay w k11\n");
    assert_eq!(a[1], "= D4 Q16 D16 Q4 D10 Q10 K4 K16 K10");
    assert_eq!(a[2], "? board not empty");
    assert_eq!(a[4], "? invalid number of stones");
    assert_eq!(a[5], "? invalid number of stones");
    assert_eq!(a[6], "= D4 Q16 D16 Q4");
    assert_eq!(a[8].split_whitespace().count(), 4, "= and three vertices");
    assert_eq!(a[10], "= ");
    assert_eq!(a[12], "? bad vertex list");
    assert!(a[13].starts_with("? bad vertex list"));
    assert!(a[14].starts_with("? syntax error"));
    assert_eq!(a[15], "= ");
    assert_eq!(a[16], "= ", "white moves first after handicap");
}

#[test]
fn gtp_6_3_4_time_settings_and_time_left() {
    let a = answers("time_settings 300 30 5\ntime_settings 1 2\ntime_left b 200 0\ntime_left b x 0\nkgs-time_settings byoyomi 60 10 3\nkgs-time_settings canadian 60 300 25\nkgs-time_settings absolute 600\nkgs-time_settings none\nkgs-time_settings fischer 60 5\nkgs-time_settings sundial 1\nboardsize 9\ntime_left w 1 0\ngenmove w\n");
    assert_eq!(a[0], "= ");
    assert!(a[1].starts_with("? syntax error"));
    assert_eq!(a[2], "= ");
    assert!(a[3].starts_with("? syntax error"));
    for r in &a[4..9] {
        assert_eq!(r, "= ");
    }
    assert!(a[9].starts_with("? syntax error"));
    assert!(a[12].starts_with("= "));
}

#[test]
fn gtp_rules_commands_take_presets_and_override_strings() {
    let a = answers("kgs-rules japanese\nbaduk-rules chinese,komi=6.5,ko=situational\nbaduk-rules jk\nbaduk-rules chinese,ko=eternal\nbaduk-rules nowhere\nbaduk-rules\nkgs-rules new_zealand\n");
    assert_eq!(a[0], "= ");
    assert_eq!(a[1], "= ");
    assert_eq!(a[2], "= ");
    assert!(a[3].contains("`eternal`") && a[3].contains("simple|positional|situational|jk"));
    assert!(a[4].starts_with("? unknown rules preset"));
    assert!(a[5].starts_with("? syntax error"));
    assert_eq!(a[6], "= ");
}

#[test]
fn gtp_final_score_and_status_lists_on_a_settled_board() {
    // Black owns the left side, white the right; a lone white stone deep in black's area.
    let mut s = String::from("boardsize 5\nkomi 0.5\n");
    for r in 1..=5 {
        s.push_str(&format!("play b b{r}\nplay w d{r}\n"));
    }
    // Both pass: the dead stone must still be found (the estimate plays on from the end).
    s.push_str("play w a3\nplay b pass\nplay w pass\nfinal_score\nfinal_status_list dead\nfinal_status_list alive\nfinal_status_list seki\nfinal_status_list zombies\n");
    let a = answers(&s);
    let n = a.len();
    // 10 points each (A3's dead stone removed); komi 0.5 decides.
    assert_eq!(a[n - 5], "= W+0.5", "{a:?}");
    assert_eq!(a[n - 4], "= A3");
    assert!(a[n - 3].contains("B1") && a[n - 3].contains("D5") && !a[n - 3].contains("A3"));
    assert_eq!(a[n - 2], "= ");
    assert!(a[n - 1].starts_with("? syntax error"));
}

#[test]
fn gtp_printsgf_and_loadsgf_round_trip() {
    let dir = std::env::temp_dir().join(format!("baduk-gtp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("g.sgf");
    std::fs::write(&f, "(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[ec];B[cc];W[];B[gg])").unwrap();
    let p = f.display();
    let a = answers(&format!(
        "loadsgf {p}\nprintsgf\nloadsgf {p} 3\nshowboard\nloadsgf /nonexistent/x.sgf\nloadsgf\n"
    ));
    assert_eq!(a[0], "= white");
    assert!(
        a[1].contains("SZ[9") && a[1].contains(";B[ee];W[ec];B[cc];W[];B[gg]"),
        "{}",
        a[1]
    );
    assert_eq!(a[2], "= black");
    assert_eq!(a[3].matches('X').count(), 1, "{}", a[3]);
    assert!(
        a[3].contains(" 5  . . . . X . . . .  5"),
        "a 9x9 file on a 19x19 engine: {}",
        a[3]
    );
    assert!(a[3].contains(" 7  . . . . O . . . .  7"), "{}", a[3]);
    assert!(a[4].starts_with("? cannot load file"));
    assert!(a[5].starts_with("? syntax error"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gtp_showboard_draws_coordinates_and_stones() {
    let a = answers("boardsize 3\nplay b a1\nplay w c3\nshowboard\n");
    assert!(a[3].contains("A B C"));
    assert!(a[3].contains(" 1  X . .  1"), "{}", a[3]);
    assert!(a[3].contains(" 3  . . O  3"), "{}", a[3]);
}

#[test]
fn lz_analyze_streams_leela_zero_info_lines_until_the_next_command() {
    let out = session("boardsize 9\n3 lz-analyze b 5\nname\n");
    let after = out.split("=3\n").nth(1).expect("analysis header");
    let (body, rest) = after.split_once("\n\n").unwrap();
    assert!(body.starts_with("info move "), "{body}");
    for field in ["visits", "winrate", "prior", "lcb", "order 0", "pv"] {
        assert!(body.contains(field), "{field} missing in {body}");
    }
    assert!(rest.contains("= baduk"));
}

#[test]
fn lz_genmove_analyze_ends_with_the_played_move() {
    let out = session("boardsize 9\n4 lz-genmove_analyze b 5\nlz-genmove_analyze purple\n");
    let body = out.split("=4\n").nth(1).unwrap();
    let resp = body.split("\n\n").next().unwrap();
    let last = resp.lines().last().unwrap();
    assert!(last.starts_with("play "), "{resp}");
    assert!(resp.lines().next().unwrap().starts_with("info move"));
    assert!(out.contains("? syntax error"));
}

#[test]
fn kgs_genmove_cleanup_answers_a_move() {
    let a = answers("boardsize 5\nplay b c3\nkgs-genmove_cleanup w\nkgs-genmove_cleanup\n");
    assert!(a[2].starts_with("= "));
    assert!(a[3].starts_with("? syntax error"));
}
