//! `baduk go score` and `baduk go life`: the side-by-side table, JSON, unfinished games, marks.

use std::path::PathBuf;
use std::process::{Command, Output};

fn baduk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baduk"))
        .args(args)
        .output()
        .expect("run baduk")
}

fn sgf(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("go_score_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn example() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game-9x9.sgf").to_string()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn score_all_prints_one_row_per_preset() {
    let o = baduk(&["go", "score", &example(), "--rules", "all"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = out(&o);
    for p in [
        "korean",
        "japanese",
        "chinese",
        "aga",
        "ing",
        "nz",
        "tromp-taylor",
        "jk",
        "kang",
    ] {
        assert!(s.lines().any(|l| l.starts_with(p)), "{p} missing:\n{s}");
    }
    // NZ komi 7 reproduces GNU Go's own W+4 for this game.
    assert!(
        s.lines()
            .any(|l| l.starts_with("nz ") && l.contains("W+4 ")),
        "{s}"
    );
    assert!(s.contains("the estimator decided"), "{s}");
}

#[test]
fn score_json_has_the_documented_fields() {
    let o = baduk(&[
        "go",
        "score",
        &example(),
        "--rules",
        "chinese,komi=7,ing",
        "--json",
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let arr = v.as_array().expect("array");
    assert_eq!(arr.len(), 2);
    for row in arr {
        for k in [
            "rules", "black", "white", "result", "winner", "dead", "seki", "notes",
        ] {
            assert!(row.get(k).is_some(), "{k} missing in {row}");
        }
    }
    assert_eq!(arr[0]["result"], "W+4");
    assert_eq!(arr[0]["winner"], "W");
    assert_eq!(arr[0]["rules"], "chinese,size=9,komi=7");
}

#[test]
fn unfinished_game_is_scored_only_with_now() {
    let f = sgf("unfinished.sgf", "(;GM[1]SZ[5];B[cc];W[dd];B[bb])");
    let o = baduk(&["go", "score", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not finished"));
    let o = baduk(&[
        "go",
        "score",
        f.to_str().unwrap(),
        "--now",
        "--rules",
        "chinese",
    ]);
    assert!(o.status.success());
    assert!(out(&o).contains("NOT finished"));
}

#[test]
fn contradictory_marks_are_reported_not_fixed() {
    // A black stone marked dead (MA) inside Black's own marked territory.
    let f = sgf(
        "marks.sgf",
        "(;GM[1]SZ[5]AB[bb][ba][ab]AW[dd];B[];W[]MA[bb]TB[aa][bb])",
    );
    let o = baduk(&["go", "score", f.to_str().unwrap(), "--rules", "japanese"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = out(&o);
    assert!(s.contains("from the file's marks"), "{s}");
    assert!(s.contains("contradictory mark: B4"), "{s}");
}

#[test]
fn bad_rules_and_bad_files_are_input_errors() {
    let o = baduk(&["go", "score", &example(), "--rules", "martian"]);
    assert_eq!(o.status.code(), Some(2));
    let o = baduk(&["go", "score", "/nonexistent.sgf"]);
    assert_eq!(o.status.code(), Some(2));
    let f = sgf("bad.sgf", "(;GM[1]SZ[5];B[cc];W[cc])");
    // A move onto a stone is an illegal move (exit 1), as `go replay` says of the same file.
    let o = baduk(&["go", "score", f.to_str().unwrap(), "--now"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1, property W[cc]: move 2"));
}

#[test]
fn life_prints_gnugo_words_for_every_point() {
    let f = sgf(
        "alive.sgf",
        "(;GM[1]SZ[5]AB[ba][bb][ab][bc][ac][cc][cb][ca][cd][ce][ad][bd]AW[dd][de][ed][dc][db][da])",
    );
    let o = baduk(&["go", "life", f.to_str().unwrap(), "--points"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = out(&o);
    assert_eq!(s.lines().count(), 25);
    for l in s.lines() {
        let w = l.split_whitespace().nth(1).unwrap();
        assert!(
            [
                "alive",
                "dead",
                "black_territory",
                "white_territory",
                "undecided"
            ]
            .contains(&w),
            "{l}"
        );
    }
    assert!(s.contains("A5 black_territory"), "{s}");
    assert!(s.contains("B5 alive"), "{s}");
    let o = baduk(&["go", "life", &example(), "--move", "999"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn life_names_unconditionally_dead_stones_like_gnugo() {
    // A white stone inside a black ring it cannot live in: GNU Go 3.8's unconditional_status
    // says C5 dead and D4 black_territory, though D4 touches no black stone (plain Benson
    // would leave both undecided).
    let f = sgf(
        "dead.sgf",
        "(;GM[1]SZ[7]AB[ba][fa][ab][bb][cb][db][eb][fb][gb][ac][bc][fc][gc][ad][bd][fd][gd][ae][be][fe][ge][af][bf][cf][df][ef][ff][gf][bg][fg]AW[cc])",
    );
    let o = baduk(&["go", "life", f.to_str().unwrap(), "--points"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = out(&o);
    assert!(s.contains("C5 dead"), "{s}");
    assert!(s.contains("D4 black_territory"), "{s}");
    assert!(!s.contains("undecided"), "{s}");
}

#[test]
fn ing_time_extensions_cost_points_and_a_fourth_loses() {
    let o = baduk(&[
        "go",
        "score",
        &example(),
        "--rules",
        "ing",
        "--komi",
        "preset",
        "--ing-extensions",
        "0,1",
    ]);
    assert!(o.status.success());
    assert!(out(&o).contains("W+3 "), "{}", out(&o));
    let o = baduk(&[
        "go",
        "score",
        &example(),
        "--rules",
        "ing",
        "--ing-extensions",
        "0,4",
    ]);
    assert!(out(&o).contains("B+T"), "{}", out(&o));
}

#[test]
fn seki_example_gives_ing_a_fraction_and_japanese_no_seki_territory() {
    let f = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/seki-9x9.sgf");
    // Each rule set with its own komi (Ing 8, Japanese 6.5), as the book compares them.
    let o = baduk(&[
        "go",
        "score",
        f,
        "--rules",
        "ing,japanese",
        "--komi",
        "preset",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["result"], "B+1/3");
    assert_eq!(v[0]["black"], "134/3");
    assert_eq!(v[0]["seki"], serde_json::json!(["A1", "D1", "G1"]));
    assert_eq!(v[0]["dead"], serde_json::json!(["G6"]));
    assert_eq!(v[1]["result"], "B+0.5");
    assert!(v[1]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("3 seki points not territory")));
}

#[test]
fn jk_art_4_3_a_game_ended_by_ee_has_no_dead_stones() {
    // White's lone stone at A3 sits in Black's area; the game ends with two passes after a
    // normal move, which under JK are two ending passes (`EE`).
    let f = sgf(
        "jk-ee.sgf",
        "(;GM[1]SZ[5];B[ca];W[da];B[cb];W[db];B[cc];W[dc];B[cd];W[dd];B[ce];W[de];B[bb];W[ac];B[];W[])",
    );
    let o = baduk(&[
        "go",
        "score",
        f.to_str().unwrap(),
        "--rules",
        "jk,japanese",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v[0]["dead"], serde_json::json!([]), "{v}");
    assert_eq!(v[0]["dead_from"], "jk_ending");
    let notes = v[0]["notes"].to_string();
    assert!(notes.contains("JK art. 4.3: ended by EE"), "{notes}");
    // Under rules without art. 4.3 the estimator still removes the stone.
    assert_eq!(v[1]["dead"], serde_json::json!(["A3"]), "{v}");
    assert_eq!(v[1]["dead_from"], "estimator");
    // The text header lists the estimator's dead stones and says which rows use none.
    let o = baduk(&["go", "score", f.to_str().unwrap(), "--rules", "jk,japanese"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("dead: A3"), "{text}");
    assert!(
        text.contains("(not under jk: a game ended by a JK art. 4.3 sequence has no dead stones)"),
        "{text}"
    );
}

#[test]
fn jk_art_4_3_ecce_finishes_the_game_without_two_passes() {
    // Two kos: after Black's normal move White passes (an ending pass, `E`), Black takes one
    // ko (`C`), White the other (`C`), Black passes (`E`): `ECCE` ends the game under JK.
    let f = sgf(
        "jk-ecce.sgf",
        "(;GM[1]SZ[7]AW[ac][bb][bd][cc][ee][eg][df]AB[cb][cd][dc][ef][fe][fg][gf];B[aa];W[];B[bc];W[ff];B[])",
    );
    let o = baduk(&[
        "go",
        "score",
        f.to_str().unwrap(),
        "--rules",
        "jk,japanese",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v[0]["dead"], serde_json::json!([]), "{v}");
    assert!(v[0]["notes"].to_string().contains("ended by ECCE"), "{v}");
    assert!(
        v[1]["notes"]
            .to_string()
            .contains("not finished under these rules"),
        "{v}"
    );
    // Without rules that end by JK sequences, the game is not finished.
    let o = baduk(&["go", "score", f.to_str().unwrap(), "--rules", "japanese"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Every `RU` the server writes (each preset, with and without overrides, with a clock) is read by
/// every `baduk go` command: no "not a rule set this program knows", no error.
#[test]
fn every_ru_the_server_writes_is_read_by_every_go_command() {
    use baduk_server::game::room::{Room, Seat, Settings};
    let human = Seat::joined_human();
    for preset in baduk_go::Rules::presets() {
        for extra in ["", ",ko=situational,komi=0"] {
            let rules = format!(
                "{},size=9,time=byo-yomi:180:3:10{extra}",
                preset.preset.word()
            );
            let settings = Settings::Go {
                rules: rules.clone(),
                handicap: 0,
            };
            let mut room =
                Room::new("ru".into(), settings, [human.clone(), human.clone()], 0).unwrap();
            for (i, m) in ["E5", "C3", "G7"].iter().enumerate() {
                room.apply(i % 2, m, 1_000 * i as i64, false).unwrap();
            }
            let file = sgf(
                &format!("ru-{}{}.sgf", preset.preset.word(), extra.len()),
                &room.record(),
            );
            for cmd in [
                vec!["go", "score", "--now"],
                vec!["go", "replay"],
                vec!["go", "legal"],
                vec!["go", "life"],
            ] {
                let mut args = cmd.clone();
                let f = file.to_str().unwrap();
                args.push(f);
                let o = baduk(&args);
                let all = format!("{}{}", out(&o), String::from_utf8_lossy(&o.stderr));
                assert!(o.status.success(), "{rules}: {cmd:?}: {all}");
                assert!(!all.contains("not a rule set"), "{rules}: {cmd:?}: {all}");
            }
        }
    }
}
