//! What every Go command reads from an SGF file, through the one reader: the game's komi and
//! handicap, charsets (`CA`), collections, and the same error for the same bad file.

use std::path::PathBuf;
use std::process::{Command, Output};

fn baduk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baduk"))
        .args(args)
        .output()
        .expect("run baduk")
}

fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sgf_input_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn example() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game-9x9.sgf").to_string()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `go score examples/game-9x9.sgf` with `args`.
fn score_example(args: &[&str]) -> Output {
    let ex = example();
    let mut all = vec!["go", "score", ex.as_str()];
    all.extend_from_slice(args);
    baduk(&all)
}

/// The table row of `rules` (its first word), split into cells.
fn row(table: &str, rules: &str) -> Vec<String> {
    table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(rules))
        .unwrap_or_else(|| panic!("no {rules} row in\n{table}"))
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn score_uses_the_komi_the_game_was_played_with() {
    // examples/game-9x9.sgf says KM[7] and RE[W+4.0].
    let o = score_example(&["--rules", "chinese"]);
    assert!(o.status.success(), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("komi 7 from the record"), "{s}");
    assert_eq!(row(&s, "chinese")[1..5], ["7", "42", "46", "W+4"], "{s}");
    // The book's tables compare each rule set with its own komi.
    let o = score_example(&["--rules", "chinese", "--komi", "preset"]);
    assert_eq!(
        row(&out(&o), "chinese")[1..5],
        ["7.5", "42", "46.5", "W+4.5"]
    );
    let o = score_example(&["--rules", "all", "--komi", "6.5"]);
    let s = out(&o);
    assert!(s.contains("komi 6.5 for every rule set"), "{s}");
    assert_eq!(row(&s, "japanese")[1], "6.5");
    // A komi= in the rules string is kept as given.
    let o = score_example(&["--rules", "nz, komi=4"]);
    let s = out(&o);
    assert_eq!(row(&s, "nz")[1..5], ["4", "42", "43", "W+1"], "{s}");
    let o = score_example(&["--rules", "chinese", "--komi", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    // JSON says where each row's komi came from.
    let o = score_example(&["--rules", "chinese, aga, komi=5", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v[0]["komi"], 7.0);
    assert_eq!(v[0]["komi_from"], "record");
    assert_eq!(v[1]["komi"], 5.0);
    assert_eq!(v[1]["komi_from"], "rules");
}

#[test]
fn replay_keeps_the_games_komi_under_given_rules() {
    let ex = example();
    let o = baduk(&["go", "replay", &ex, "--rules", "japanese"]);
    assert!(
        out(&o).contains("rules: japanese,size=9,komi=7"),
        "{}",
        out(&o)
    );
    let o = baduk(&["go", "replay", &ex, "--rules", "japanese,komi=0.5"]);
    assert!(
        out(&o).contains("rules: japanese,size=9,komi=0.5"),
        "{}",
        out(&o)
    );
    let o = baduk(&["go", "replay", &ex]);
    assert!(
        out(&o).contains("rules: chinese,size=9,komi=7"),
        "{}",
        out(&o)
    );
}

#[test]
fn a_draw_prints_as_draw() {
    // Area 42 against 39 with komi 3: a tie, SGF RE[0].
    let o = score_example(&["--rules", "chinese", "--komi", "3"]);
    assert_eq!(row(&out(&o), "chinese")[4], "Draw", "{}", out(&o));
    let o = score_example(&["--rules", "chinese", "--komi", "3", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v[0]["result"], "0");
}

#[test]
fn handicap_games_keep_their_komi_and_get_each_rule_sets_compensation() {
    // Two handicap stones, White's komi 0.5 as servers record it; Black owns the whole board.
    let f = file(
        "handicap.sgf",
        b"(;GM[1]FF[4]SZ[5]HA[2]KM[0.5]RU[Japanese]AB[bb][dd]PL[W];W[];B[])",
    );
    let o = baduk(&[
        "go",
        "score",
        f.to_str().unwrap(),
        "--rules",
        "japanese,chinese,aga",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let s = out(&o);
    assert!(s.contains("handicap 2 (HA)"), "{s}");
    assert!(s.contains("komi 0.5 from the record"), "{s}");
    let j = row(&s, "japanese");
    assert_eq!(j[1], "0.5", "{s}");
    assert!(j[5].contains("handicap 2: no compensation"), "{s}");
    // Chinese: White gets N = 2 points for the stones (book ch. 4); AGA N - 1 = 1 (ch. 9).
    let c = row(&s, "chinese");
    assert_eq!(c[1..5], ["0.5", "25", "2.5", "B+22.5"], "{s}");
    assert!(c[5].contains("handicap +2 to W"), "{s}");
    assert_eq!(row(&s, "aga")[3], "1.5", "{s}");
}

#[test]
fn every_command_gives_the_same_error_for_the_same_bad_file() {
    let cases: [(&str, &[u8], &str); 5] = [
        ("km.sgf", b"(;SZ[9]KM[abc];B[cc];W[];B[])", "KM[abc]"),
        ("trunc.sgf", b"(;SZ[9]\n;B[cc]\n;W[dd", "line 3"),
        (
            "off.sgf",
            b"(;SZ[9]\n;B[cc]\n;W[jj];B[];W[])",
            "line 3, property W[jj]",
        ),
        (
            "mark.sgf",
            b"(;SZ[9];B[cc];W[]\n;B[]TB[zz])",
            "line 2, property TB[zz]: a marked point is off the 9x9 board",
        ),
        ("ha.sgf", b"(;SZ[9]HA[x];B[cc];W[];B[])", "HA[x]"),
    ];
    for (name, text, needle) in cases {
        let f = file(name, text);
        let mut first: Option<String> = None;
        for cmd in ["replay", "legal", "score", "life"] {
            let o = baduk(&["go", cmd, f.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(2), "go {cmd} {name}: {}", err(&o));
            let e = err(&o);
            assert!(e.contains(needle), "go {cmd} {name}: {e}");
            assert!(!e.contains("panicked"), "{e}");
            match &first {
                None => first = Some(e),
                Some(f) => assert_eq!(&e, f, "go {cmd} {name}"),
            }
        }
    }
}

/// A 9x9 game whose root holds `PB` in `charset`, encoded with `enc`.
fn encoded(charset: &str, name: &str, enc: &'static encoding_rs::Encoding) -> Vec<u8> {
    let text = format!("(;GM[1]FF[4]CA[{charset}]SZ[9]KM[7]PB[{name}]PW[White]\n;B[ee];W[];B[])");
    let (bytes, _, unmappable) = enc.encode(&text);
    assert!(!unmappable, "{name} in {charset}");
    bytes.into_owned()
}

#[test]
fn records_are_decoded_by_their_ca_charset() {
    for (charset, name, enc) in [
        ("EUC-KR", "이세돌", encoding_rs::EUC_KR),
        ("Shift_JIS", "本因坊秀策", encoding_rs::SHIFT_JIS),
        ("ISO-8859-1", "Müller", encoding_rs::WINDOWS_1252),
        ("GB2312", "古力", encoding_rs::GBK),
        ("UTF-8", "柯洁", encoding_rs::UTF_8),
    ] {
        let bytes = encoded(charset, name, enc);
        if charset != "UTF-8" {
            assert!(
                std::str::from_utf8(&bytes).is_err(),
                "{charset} bytes are not UTF-8"
            );
        }
        let f = file(&format!("ca-{charset}.sgf"), &bytes);
        let o = baduk(&["go", "score", f.to_str().unwrap(), "--rules", "chinese"]);
        assert!(o.status.success(), "{charset}: {}", err(&o));
        assert!(
            out(&o).contains(&format!("Black {name}")),
            "{charset}: {}",
            out(&o)
        );
        let o = baduk(&["go", "replay", f.to_str().unwrap()]);
        assert!(o.status.success(), "{charset}: {}", err(&o));
    }
}

#[test]
fn a_record_without_ca_is_utf8_or_else_latin1() {
    let latin1 = b"(;GM[1]SZ[9]PB[M\xfcller]\n;B[ee];W[];B[])";
    let f = file("no-ca-latin1.sgf", latin1);
    let o = baduk(&["go", "score", f.to_str().unwrap(), "--rules", "chinese"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("Black Müller"), "{}", out(&o));
    // A BOM is not part of the game.
    let f = file("bom.sgf", b"\xef\xbb\xbf(;GM[1]SZ[9]PB[A]\n;B[ee];W[];B[])");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
}

#[test]
fn a_record_not_in_its_declared_charset_names_the_charset_and_line() {
    // EUC-KR bytes in a file that says UTF-8.
    let mut bytes = b"(;GM[1]CA[UTF-8]SZ[9]\nPB[".to_vec();
    bytes.extend_from_slice(&encoding_rs::EUC_KR.encode("이세돌").0);
    bytes.extend_from_slice(b"];B[ee])");
    let f = file("bad-utf8.sgf", &bytes);
    for cmd in ["score", "replay"] {
        let o = baduk(&["go", cmd, f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        let e = err(&o);
        assert!(e.contains("line 2") && e.contains("CA[UTF-8]"), "{e}");
        assert!(e.contains("not valid UTF-8"), "{e}");
    }
    let f = file("unknown-ca.sgf", b"(;GM[1]CA[Klingon]SZ[9];B[ee])");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("CA[Klingon]: unknown charset"),
        "{}",
        err(&o)
    );
}

#[test]
fn collections_say_how_many_games_and_take_game_n() {
    let f = file(
        "two.sgf",
        b"(;GM[1]SZ[9]KM[7];B[ee];W[];B[])\n(;GM[1]SZ[9]KM[0.5]\n;B[ee]\n;W[]\n;B[cc]\n;W[zz])",
    );
    let o = baduk(&["go", "score", f.to_str().unwrap(), "--rules", "chinese"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("holds 2 games; using game 1"),
        "{}",
        err(&o)
    );
    assert_eq!(row(&out(&o), "chinese")[1], "7");
    // The second game's errors carry its own lines.
    let o = baduk(&["go", "replay", f.to_str().unwrap(), "--game", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("line 6, property W[zz]"), "{}", err(&o));
    let o = baduk(&["go", "score", f.to_str().unwrap(), "--game", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("holds 2 games"), "{}", err(&o));
}

#[test]
fn legal_on_a_finished_game_says_it_is_over() {
    let o = baduk(&["go", "legal", &example()]);
    assert_eq!(o.status.code(), Some(0));
    let s = out(&o);
    assert_eq!(s.lines().count(), 1, "{s}");
    assert!(s.contains("the game is over (ended by passes)"), "{s}");
}

#[test]
fn life_leads_with_a_marked_board_and_a_summary() {
    let f = file(
        "alive.sgf",
        b"(;GM[1]SZ[5]AB[ba][bb][ab][bc][ac][cc][cb][ca][cd][ce][ad][bd]AW[dd][de][ed][dc][db][da])",
    );
    let o = baduk(&["go", "life", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", err(&o));
    let s = out(&o);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines[0].trim(), "A B C D E");
    // Row 5: A5 is Black's eye, B5 and C5 alive Black stones.
    assert!(lines[1].starts_with(" 5 + X X"), "{s}");
    let summary = lines.last().unwrap();
    assert!(summary.starts_with("alive B: 12 stones"), "{s}");
    assert!(
        !s.contains("B5 alive"),
        "per-point lines only with --points: {s}"
    );
    let o = baduk(&["go", "life", f.to_str().unwrap(), "--points"]);
    assert!(out(&o).contains("B5 alive"), "{}", out(&o));
}
