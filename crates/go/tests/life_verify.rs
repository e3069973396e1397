//! Verification play (seed 001 rules 6–7) and the Japanese 1989 art. 7 confirmation on the
//! textbook cases.

use baduk_go::life::verify::Outcome;
use baduk_go::life::{verify, Bound, Mode, Status};
use baduk_go::{Board, Point};

fn at(b: &Board, s: &str) -> Point {
    Point::from_gtp(s, b.size()).unwrap()
}

fn check(rows: &[&str], stone: &str, mode: Mode) -> baduk_go::life::Verification {
    let b = Board::from_rows(rows).unwrap();
    let before = b.clone();
    let v = verify(&b, at(&b, stone), mode, Bound::default());
    // Rule 7: the board (and so the captures) is exactly as before.
    assert_eq!(b, before);
    assert_eq!(
        b.captures(baduk_go::Color::Black),
        before.captures(baduk_go::Color::Black)
    );
    v
}

#[test]
fn seed001_rule_6_two_eyes_are_alive() {
    let v = check(
        &[". X . X O .", "X X X X O .", "O O O O O .", ". . . . . ."],
        "B4",
        Mode::Verify,
    );
    assert_eq!(v.status, Status::Alive, "{v:?}");
    assert_eq!(v.opponent_first.outcome, Outcome::Survived);
}

#[test]
fn seed001_rule_6_one_eye_is_dead_with_the_capturing_sequence() {
    let v = check(
        &[". X X X O .", "X X X X O .", "O O O O O .", ". . . . . ."],
        "B4",
        Mode::Verify,
    );
    assert_eq!(v.status, Status::Dead, "{v:?}");
    assert_eq!(v.opponent_first.outcome, Outcome::Captured);
    assert_eq!(v.owner_first.outcome, Outcome::Captured);
    assert!(
        v.opponent_first.text().contains("WA4"),
        "{}",
        v.opponent_first.text()
    );
}

#[test]
fn seed001_rule_6_seki_is_neither_captured_nor_capturing() {
    // Black A2-A1 and White C2-C1 share the liberties B2 and B1: whoever fills one is captured.
    let v = check(&["X . O", "X . O"], "A2", Mode::Verify);
    assert_eq!(v.status, Status::Seki, "{v:?}");
    let w = check(&["X . O", "X . O"], "C1", Mode::Verify);
    assert_eq!(w.status, Status::Seki);
}

#[test]
fn seed001_rule_6_unsettled_group_is_undecided_with_the_reason() {
    // A three-point straight eye space: alive if Black plays the middle first, dead if White does.
    let v = check(
        &[". . . X O .", "X X X X O .", "O O O O O .", ". . . . . ."],
        "D4",
        Mode::Verify,
    );
    match &v.status {
        Status::Undecided(why) => assert!(why.contains("immature"), "{why}"),
        s => panic!("expected undecided, got {s}"),
    }
    assert_eq!(v.opponent_first.outcome, Outcome::Captured);
    assert_eq!(v.owner_first.outcome, Outcome::Survived);
}

#[test]
fn japanese_art_7_unsettled_group_is_disputed_not_guessed() {
    let v = check(
        &[". . . X O .", "X X X X O .", "O O O O O .", ". . . . . ."],
        "D4",
        Mode::Japanese,
    );
    match &v.status {
        Status::Disputed(why) => assert!(why.contains("1989 Japanese"), "{why}"),
        s => panic!("expected disputed, got {s}"),
    }
}

#[test]
fn seed001_rule_6_search_bound_gives_undecided_with_the_reason() {
    let b = Board::from_rows(&[
        ". . . . X O . .",
        ". . . . X O . .",
        "X X X X X O . .",
        "O O O O O O . .",
        ". . . . . . . .",
    ])
    .unwrap();
    let v = verify(
        &b,
        at(&b, "E5"),
        Mode::Verify,
        Bound {
            depth: 2,
            nodes: 50,
        },
    );
    match &v.status {
        Status::Undecided(why) => assert!(why.contains("bound"), "{why}"),
        s => panic!("expected undecided, got {s}"),
    }
}

/// White's corner group whose eye space A5 C5 A4 holds a black stone on the 2-1 point (B5):
/// bent four in the corner.
const BENT_FOUR: [&str; 5] = [
    ". X . O X . .",
    ". O O O X . .",
    "O O X X X . .",
    "X X X . . . .",
    ". . . . . . .",
];

#[test]
fn seed001_rule_6_bent_four_in_the_corner_depends_on_ko_threats_elsewhere() {
    let v = check(&BENT_FOUR, "D5", Mode::Verify);
    match &v.status {
        Status::Undecided(why) => assert!(why.contains("ko threats elsewhere"), "{why}"),
        s => panic!("expected undecided (ko), got {s}"),
    }
    // Without threats elsewhere both verifications end in capture.
    assert_eq!(v.opponent_first.outcome, Outcome::Captured);
    assert_eq!(v.owner_first.outcome, Outcome::Captured);
}

#[test]
fn japanese_art_7_bent_four_in_the_corner_is_dead() {
    // Art. 7.2: a ko retaken in the confirmation needs a pass first, so the ko settles it.
    let v = check(&BENT_FOUR, "D5", Mode::Japanese);
    assert_eq!(v.status, Status::Dead, "{v:?}");
}
