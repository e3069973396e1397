//! `baduk go replay`, `baduk go legal` and `baduk bench go`: output and exit codes (0 ok,
//! 1 illegal move, 2 unreadable input).

use std::path::PathBuf;
use std::process::{Command, Output};

fn baduk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baduk"))
        .args(args)
        .output()
        .expect("run baduk")
}

/// Writes `text` to a fresh file in the target directory and returns its path.
fn sgf(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("go_rules_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn replay_prints_the_final_position_and_exits_0() {
    let f = sgf("ok.sgf", "(;SZ[5]RU[Japanese];B[cc];W[dd];B[];W[])");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).contains("3 . . X . . 3"), "{}", out(&o));
    assert!(out(&o).contains("game over"), "{}", out(&o));
}

#[test]
fn replay_names_the_first_illegal_move_and_exits_1() {
    let f = sgf("occupied.sgf", "(;SZ[5];B[cc];W[cc])");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(
        e.trim()
            .ends_with("SGF line 1, property W[cc]: move 2 W C3: point is occupied"),
        "{e}"
    );
    // One reader: the scorer and `go life` give the same verdict and the same words.
    for cmd in ["score", "life"] {
        let o = baduk(&["go", cmd, f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "go {cmd}");
        assert_eq!(err(&o), e, "go {cmd}");
    }
    // Send two, return one: Black's return is positional superko under Chinese rules.
    let f = sgf(
        "psk.sgf",
        "(;SZ[5]AB[ad][be]AW[bd][cd][de];B[ce];W[ae];B[be])",
    );
    let o = baduk(&["go", "replay", f.to_str().unwrap(), "--rules", "chinese"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o)
            .trim()
            .ends_with("move 3 B B1: positional superko (recreates the starting position)"),
        "{}",
        err(&o)
    );
    let o = baduk(&["go", "replay", f.to_str().unwrap(), "--rules", "aga"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

#[test]
fn unreadable_input_exits_2_naming_line_or_property() {
    let f = sgf("trunc.sgf", "(;SZ[9]\n;B[cc]\n;W[dd");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("line 3"), "{}", err(&o));
    let f = sgf("off.sgf", "(;SZ[9]\n;B[zz])");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("B[zz]"), "{}", err(&o));
    let f = sgf("size.sgf", "(;SZ[26])");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("SZ"), "{}", err(&o));
    let o = baduk(&["go", "replay", "/nonexistent/file.sgf"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn unknown_ru_without_rules_lists_the_accepted_names() {
    let f = sgf("ru.sgf", "(;SZ[9]RU[Martian];B[cc])");
    let o = baduk(&["go", "replay", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("New Zealand") && err(&o).contains("Tromp-Taylor"),
        "{}",
        err(&o)
    );
    let o = baduk(&["go", "replay", f.to_str().unwrap(), "--rules", "nz"]);
    assert_eq!(o.status.code(), Some(0));
    let o = baduk(&[
        "go",
        "replay",
        f.to_str().unwrap(),
        "--rules",
        "nz,ko=super",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("simple|positional|situational|jk"),
        "{}",
        err(&o)
    );
}

#[test]
fn legal_lists_gtp_points_by_column_then_row_then_pass() {
    let f = sgf("legal.sgf", "(;SZ[3]RU[Japanese];B[bb];W[ab])");
    let o = baduk(&["go", "legal", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(out(&o).trim(), "A1 A3 B1 B3 C1 C2 C3 pass");
    let o = baduk(&["go", "legal", f.to_str().unwrap(), "--move", "0"]);
    assert_eq!(out(&o).trim(), "A1 A2 A3 B1 B2 B3 C1 C2 C3 pass");
    let o = baduk(&["go", "legal", f.to_str().unwrap(), "--move", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("only 2 moves"), "{}", err(&o));
}

#[test]
fn legal_omits_pass_where_jk_art_2_7_forbids_it() {
    // Three kos: four ko captures where the last removes the first's stone (D), then a normal
    // pass (P). After D P no pass at all is allowed.
    let f = sgf(
        "jk.sgf",
        "(;SZ[14:3]RU[JK]AB[ba][ga][la][ab][fb][kb][mb][bc][gc][lc]AW[ca][ha][ma][bb][db][gb][ib][nb][cc][hc][mc];B[cb];W[lb];B[hb];W[bb];B[])",
    );
    let o = baduk(&["go", "legal", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!out(&o).contains("pass"), "{}", out(&o));
}

#[test]
fn bench_prints_a_deterministic_move_total_and_a_rate() {
    let a = baduk(&[
        "bench",
        "go",
        "--size",
        "9",
        "--playouts",
        "50",
        "--seed",
        "3",
    ]);
    let b = baduk(&[
        "bench",
        "go",
        "--size",
        "9",
        "--playouts",
        "50",
        "--seed",
        "3",
    ]);
    assert_eq!(a.status.code(), Some(0));
    let first = |o: &Output| out(o).lines().next().unwrap_or("").to_string();
    // The shape of every bench: the signature, then one rate line.
    assert!(
        first(&a).starts_with("signature: size 9 playouts 50 seed 3 moves "),
        "{}",
        out(&a)
    );
    assert_eq!(first(&a), first(&b));
    assert_eq!(out(&a).lines().count(), 2, "{}", out(&a));
    assert!(out(&a)
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("playouts per second: "));
    let o = baduk(&["bench", "go", "--size", "30"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bench_net_prints_the_networks_signature_and_rate() {
    let run = || baduk(&["bench", "go", "--net", "--playouts", "20", "--seed", "7"]);
    let (a, b) = (run(), run());
    assert_eq!(a.status.code(), Some(0), "{}", err(&a));
    let first = |o: &Output| out(o).lines().next().unwrap_or("").to_string();
    // The shape of every bench: the signature (the network's preferred points over the
    // positions, the same whichever kernel the CPU takes), then one rate line.
    assert!(
        first(&a).starts_with("signature: size 19x19 positions 20 network "),
        "{}",
        out(&a)
    );
    assert_eq!(first(&a), first(&b));
    assert!(out(&a)
        .lines()
        .nth(1)
        .unwrap_or("")
        .starts_with("network evaluations per second: "));
    // `--net` measures the network alone, not the search: the search's options are refused
    // with it rather than ignored.
    for extra in [
        &["--search"][..],
        &["--size", "9"],
        &["--bot", "priors=none"],
    ] {
        let o = baduk(&[&["bench", "go", "--net"][..], extra].concat());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", out(&o));
    }
}
