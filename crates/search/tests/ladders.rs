//! The ladder reader on working and broken ladders, ladder breakers of both colours, edge
//! ladders, counter-captures, and the board left exactly as it was after every read.

use baduk_rng::Rng;
use baduk_search::go::board::{Colour, FastBoard, Idx, SuicidePolicy, PASS};
use baduk_search::go::ladder::{
    is_futile_escape, is_ladder_captured, is_working_ladder_atari, ladder_atari, LADDER_BUDGET,
};

/// A board from rows (top row first): `X` black, `O` white, `.` empty.
fn board(rows: &[&str]) -> FastBoard {
    FastBoard::from_rows(rows)
}

/// The 9×9 ladder: White's stone at (3,6) has X on its left and below, and X at (4,7).
const LADDER: [&str; 9] = [
    ".........",
    ".........",
    ".........",
    ".........",
    ".........",
    ".........",
    "..XO.....",
    "...XX....",
    ".........",
];

/// The index of (x, y) on a 9×9 board.
fn at9(x: usize, y: usize) -> Idx {
    FastBoard::new(9, 9).idx(x, y)
}

fn with(rows: &[&str], extra: &[(usize, usize, char)]) -> FastBoard {
    let mut b = board(rows);
    for &(x, y, c) in extra {
        let col = if c == 'X' {
            Colour::Black
        } else {
            Colour::White
        };
        b.setup(b.idx(x, y), col);
    }
    b
}

fn snapshot(b: &FastBoard) -> (u64, String, Idx, Vec<u16>) {
    let libs = b.points().map(|p| b.pseudo_liberties(p)).collect();
    (b.hash(), b.render(), b.ko(), libs)
}

#[test]
fn the_atari_from_the_right_side_captures_and_the_other_does_not() {
    let mut b = board(&LADDER);
    let o = b.idx(3, 6);
    let before = snapshot(&b);
    assert_eq!(ladder_atari(&mut b, o, LADDER_BUDGET), b.idx(3, 5));
    assert!(is_working_ladder_atari(
        &mut b,
        at9(3, 5),
        Colour::Black,
        LADDER_BUDGET
    ));
    assert!(!is_working_ladder_atari(
        &mut b,
        at9(4, 6),
        Colour::Black,
        LADDER_BUDGET
    ));
    assert_eq!(snapshot(&b), before);
}

#[test]
fn a_stone_in_atari_with_a_working_ladder_is_captured() {
    let mut b = with(&LADDER, &[(3, 5, 'X')]);
    let o = b.idx(3, 6);
    assert!(b.in_atari(o));
    let before = snapshot(&b);
    assert!(is_ladder_captured(&mut b, o));
    assert!(is_futile_escape(
        &mut b,
        at9(4, 6),
        Colour::White,
        LADDER_BUDGET
    ));
    assert_eq!(snapshot(&b), before);
}

#[test]
fn a_defender_stone_on_the_ladder_path_breaks_it() {
    for breaker in [(6, 3), (7, 2), (5, 3)] {
        let mut b = with(&LADDER, &[(3, 5, 'X'), (breaker.0, breaker.1, 'O')]);
        let o = b.idx(3, 6);
        assert!(!is_ladder_captured(&mut b, o), "breaker at {breaker:?}");
        assert!(!is_futile_escape(
            &mut b,
            at9(4, 6),
            Colour::White,
            LADDER_BUDGET
        ));
        let mut b2 = with(&LADDER, &[(breaker.0, breaker.1, 'O')]);
        assert_eq!(ladder_atari(&mut b2, o, LADDER_BUDGET), PASS, "{breaker:?}");
    }
}

#[test]
fn stones_off_the_path_or_of_the_attacker_do_not_break_it() {
    // (8,1) lies past the end of the ladder (GNU Go's ladder_attack agrees).
    for (x, y, c) in [
        (0, 0, 'O'),
        (0, 8, 'O'),
        (8, 8, 'O'),
        (6, 3, 'X'),
        (1, 3, 'O'),
        (8, 1, 'O'),
    ] {
        let mut b = with(&LADDER, &[(3, 5, 'X'), (x, y, c)]);
        assert!(is_ladder_captured(&mut b, at9(3, 6)), "{c} at ({x},{y})");
    }
}

#[test]
fn capturing_a_chasing_stone_in_atari_escapes() {
    // The left stone X (2,6) is itself in atari (O at (1,6) and (2,7)): White captures it.
    let mut b = with(&LADDER, &[(3, 5, 'X'), (1, 6, 'O'), (2, 7, 'O')]);
    let x = b.idx(2, 6);
    assert!(b.in_atari(x));
    assert!(!is_ladder_captured(&mut b, at9(3, 6)));
}

#[test]
fn a_first_line_stone_in_atari_runs_into_the_corner() {
    let mut b = board(&[
        ".........",
        ".........",
        ".........",
        ".........",
        "OX.......",
        "X........",
        ".........",
        ".........",
        ".........",
    ]);
    let o = b.idx(0, 4);
    assert!(b.in_atari(o));
    assert!(is_ladder_captured(&mut b, o));
}

#[test]
fn a_second_line_stone_escapes_to_three_liberties() {
    // O at (1,4) with X at (0,4) and (2,4): extending upward or downward gets three.
    let mut b = board(&[
        ".........",
        ".........",
        ".........",
        ".........",
        "XOX......",
        ".X.......",
        ".........",
        ".........",
        ".........",
    ]);
    let o = b.idx(1, 4);
    assert!(b.in_atari(o));
    assert!(!is_ladder_captured(&mut b, o));
}

#[test]
fn a_long_ladder_across_the_19x19_board_and_its_far_breaker() {
    let mut rows = vec!["..................."; 19];
    rows[16] = "..XO...............";
    rows[17] = "...XX..............";
    let mut b = with(&rows, &[(3, 15, 'X')]);
    let o = b.idx(3, 16);
    assert!(is_ladder_captured(&mut b, o));
    // A white stone near the far corner on the diagonal breaks it.
    let mut far = with(&rows, &[(3, 15, 'X'), (15, 4, 'O')]);
    assert!(!is_ladder_captured(&mut far, o));
    // A black one there does not.
    let mut helped = with(&rows, &[(3, 15, 'X'), (15, 4, 'X')]);
    assert!(is_ladder_captured(&mut helped, o));
}

#[test]
fn a_chain_with_three_liberties_or_none_in_atari_is_not_read() {
    let mut b = board(&LADDER);
    assert!(!is_ladder_captured(&mut b, at9(3, 6)));
    assert!(!is_ladder_captured(&mut b, at9(0, 0)));
    assert_eq!(ladder_atari(&mut b, at9(3, 7), LADDER_BUDGET), PASS);
}

#[test]
fn reads_leave_the_board_exactly_as_it_was_in_random_positions() {
    let mut rng = Rng::new(7);
    let mut reads = 0;
    for size in [9usize, 13, 19] {
        for _game in 0..4 {
            let mut b = FastBoard::new(size, size);
            for _ in 0..size * size {
                let c = b.to_move();
                let legal: Vec<Idx> = b
                    .points()
                    .filter(|&i| b.is_legal(i, c, SuicidePolicy::Forbidden) && !b.is_eye(i, c))
                    .collect();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                b.play(m, c);
                let before = snapshot(&b);
                let stones: Vec<Idx> = b.points().filter(|&p| b.stone(p).is_some()).collect();
                for s in stones {
                    match b.pseudo_liberties(s) {
                        1 => {
                            is_ladder_captured(&mut b, s);
                            reads += 1;
                        }
                        2 => {
                            ladder_atari(&mut b, s, LADDER_BUDGET);
                            reads += 1;
                        }
                        _ => {}
                    }
                }
                assert_eq!(snapshot(&b), before);
            }
        }
    }
    assert!(reads > 1000, "{reads}");
}
