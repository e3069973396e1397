//! The JK rule (book ch. 12.2), one test per clause: art. 2.3–2.7, 3.2, 3.3, 4.3, 4.4.

mod common;

use baduk_go::{Color, GameEnd, IllegalReason, LossRule, Move, MoveClass, PassKind, Point};
use common::*;

#[test]
fn jk_art_2_3_board_play_only_on_empty_points_and_captures_become_prisoners() {
    let mut g = game("jk", &KO, Color::Black);
    let e = play(&mut g, "B3").unwrap_err();
    assert_eq!(e.reason, IllegalReason::Occupied);
    play(&mut g, "C3").unwrap();
    assert_eq!(g.captures(Color::Black), 1);
    assert_eq!(
        g.board()
            .get(Point::from_gtp("B3", g.board().size()).unwrap()),
        None
    );
}

#[test]
fn jk_art_2_4_suicide_loses_the_game() {
    let mut g = game("jk", &[".O.", "O..", "..."], Color::Black);
    let end = play(&mut g, "A3").unwrap();
    assert_eq!(
        end,
        Some(GameEnd::Loss {
            loser: Color::Black,
            rule: LossRule::Suicide,
            at: 1
        })
    );
    assert!(end.unwrap().to_string().contains("JK art. 2.4"));
}

#[test]
fn jk_art_2_5_ko_capture_is_a_lone_stone_without_liberties_taking_one_lone_stone() {
    let mut g = game("jk", &KO, Color::Black);
    play(&mut g, "C3").unwrap();
    assert_eq!(g.history()[0].class, MoveClass::KoCapture);
    // Capturing two stones, or with a liberty left, is a normal move.
    let mut g = game("jk", &["OO..", "XX..", "....", "...."], Color::Black);
    play(&mut g, "C4").unwrap();
    assert_eq!(g.history()[0].class, MoveClass::Normal);
    assert_eq!(g.history()[0].captured, 2);
}

#[test]
fn jk_art_2_6_a_pass_hands_the_opponent_a_pass_stone_that_is_not_a_captured_prisoner() {
    let mut g = game("jk", &KO, Color::Black);
    play(&mut g, "C3").unwrap();
    g.play(Move::Pass).unwrap();
    assert_eq!(g.history()[1].class, MoveClass::NormalPass);
    assert_eq!(g.pass_stones(Color::Black), 1);
    assert_eq!(g.pass_stones(Color::White), 0);
    assert_eq!(g.captures(Color::Black), 1);
    assert_eq!(g.captures(Color::White), 0);
}

#[test]
fn jk_art_2_7_1_no_pass_just_after_dp() {
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    // C C C C: White's fourth capture removes the stone Black placed at the first: D.
    play_all(&mut g, &TRIPLE_KO_CYCLE[..4]);
    pass(&mut g, PassKind::Normal).unwrap();
    for kind in [PassKind::Normal, PassKind::Ending] {
        let e = pass(&mut g, kind).unwrap_err();
        assert_eq!(e.reason, IllegalReason::JkNoPass);
        assert!(e.to_string().contains("JK art. 2.7.1"), "{e}");
    }
    assert!(!g.legal_moves().contains(&Move::Pass));
}

#[test]
fn jk_art_2_7_1_no_pass_just_after_dpcc() {
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play_all(&mut g, &TRIPLE_KO_CYCLE[..4]);
    pass(&mut g, PassKind::Normal).unwrap();
    // White takes ko 2, Black takes ko 3: D P C C.
    play_all(&mut g, &["G2", "N2"]);
    assert_eq!(
        pass(&mut g, PassKind::Ending).unwrap_err().reason,
        IllegalReason::JkNoPass
    );
}

#[test]
fn jk_art_2_7_2_no_normal_pass_just_after_n_p_or_e() {
    // After N.
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play(&mut g, "E2").unwrap();
    let e = pass(&mut g, PassKind::Normal).unwrap_err();
    assert_eq!(e.reason, IllegalReason::JkNoNormalPass);
    assert!(e.to_string().contains("JK art. 2.7.2"), "{e}");
    pass(&mut g, PassKind::Ending).unwrap();
    // After E.
    assert_eq!(
        pass(&mut g, PassKind::Normal).unwrap_err().reason,
        IllegalReason::JkNoNormalPass
    );
    // After P (a normal pass is allowed after a ko capture, but not after that pass).
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play(&mut g, "C2").unwrap();
    pass(&mut g, PassKind::Normal).unwrap();
    assert_eq!(
        pass(&mut g, PassKind::Normal).unwrap_err().reason,
        IllegalReason::JkNoNormalPass
    );
}

#[test]
fn jk_art_2_7_2_no_normal_pass_after_ecc_but_allowed_after_ed() {
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play(&mut g, "E2").unwrap();
    pass(&mut g, PassKind::Ending).unwrap();
    play_all(&mut g, &["C2", "M2"]);
    assert_eq!(
        pass(&mut g, PassKind::Normal).unwrap_err().reason,
        IllegalReason::JkNoNormalPass
    );
    // E C C C C where the four captures form a D: the normal pass is allowed again.
    play_all(&mut g, &["H2", "B2"]);
    pass(&mut g, PassKind::Normal).unwrap();
    assert_eq!(g.history().last().unwrap().class, MoveClass::NormalPass);
}

#[test]
fn jk_art_3_2_immediate_ko_recapture_loses() {
    // Art. 3.2 compares with the position after the (n-2)th move, so a move comes first.
    let mut g = game("jk", &KO, Color::White);
    play_all(&mut g, &["A1", "C3"]);
    let end = play(&mut g, "B3").unwrap();
    assert_eq!(
        end,
        Some(GameEnd::Loss {
            loser: Color::White,
            rule: LossRule::ImmediateRepetition,
            at: 3
        })
    );
    assert!(play(&mut g, "A1").is_err(), "the game is over");
}

#[test]
fn jk_art_3_3_third_occurrence_with_equal_captures_is_a_draw() {
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play_all(&mut g, &TRIPLE_KO_CYCLE);
    play_all(&mut g, &TRIPLE_KO_CYCLE);
    assert!(
        !g.is_over(),
        "two occurrences by board plays do not end the game"
    );
    // The position after move 1 occurs again after moves 7 and 13.
    let end = play_all(&mut g, &TRIPLE_KO_CYCLE[..1]);
    assert_eq!(
        end,
        Some(GameEnd::JkRepetition {
            winner: None,
            first: 1,
            second: 7,
            third: 13,
            captured: [6, 6]
        })
    );
}

#[test]
fn jk_art_3_3_third_occurrence_won_by_more_captured_prisoners() {
    // The period-5 cycle: per cycle Black captures 1 + 1 stones, White 3 (and Black passes none).
    let mut g = game("jk", &PERIOD_FIVE, Color::Black);
    play_all(&mut g, &PERIOD_FIVE_CYCLE);
    play_all(&mut g, &PERIOD_FIVE_CYCLE[1..]);
    let end = g.end().unwrap();
    assert_eq!(
        end,
        GameEnd::JkRepetition {
            winner: Some(Color::White),
            first: 1,
            second: 7,
            third: 13,
            captured: [4, 6]
        }
    );
    // Pass stones are prisoners but not captured prisoners: White's two passes do not count.
    assert_eq!(g.pass_stones(Color::Black), 2);
}

#[test]
fn jk_art_4_3_ee_ends_the_game() {
    let mut g = game("jk", &TRIPLE_KO, Color::White);
    play(&mut g, "E2").unwrap();
    g.play(Move::Pass).unwrap();
    let end = g.play(Move::Pass).unwrap();
    assert_eq!(end, Some(GameEnd::JkSequence { sequence: "EE" }));
}

#[test]
fn jk_art_4_3_ecce_and_ecccce_end_the_game() {
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play(&mut g, "E2").unwrap();
    pass(&mut g, PassKind::Ending).unwrap();
    play_all(&mut g, &["C2", "M2"]);
    let end = pass(&mut g, PassKind::Ending).unwrap();
    assert_eq!(end, Some(GameEnd::JkSequence { sequence: "ECCE" }));

    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play(&mut g, "E2").unwrap();
    pass(&mut g, PassKind::Ending).unwrap();
    play_all(&mut g, &["C2", "M2", "H2", "B2"]);
    let end = pass(&mut g, PassKind::Ending).unwrap();
    assert_eq!(end, Some(GameEnd::JkSequence { sequence: "ECCCCE" }));
}

#[test]
fn jk_art_4_3_other_pass_sequences_do_not_end_the_game() {
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play(&mut g, "C2").unwrap();
    pass(&mut g, PassKind::Normal).unwrap();
    pass(&mut g, PassKind::Ending).unwrap();
    assert!(!g.is_over(), "PE does not end the game");
}

#[test]
fn jk_art_4_4_black_moving_last_receives_one_more_pass_stone() {
    // Black makes the last move (the second E).
    let mut g = game("jk", &TRIPLE_KO, Color::Black);
    play(&mut g, "E2").unwrap();
    g.play(Move::Pass).unwrap();
    g.play(Move::Pass).unwrap();
    assert_eq!(g.last_mover(), Some(Color::Black));
    assert_eq!(g.pass_stones(Color::Black), 2);
    assert_eq!(g.pass_stones(Color::White), 1);
    // Undo takes the extra stone back with the pass.
    g.undo();
    assert_eq!(g.pass_stones(Color::Black), 1);
    assert_eq!(g.pass_stones(Color::White), 0);
    // White makes the last move: nothing extra.
    let mut g = game("jk", &TRIPLE_KO, Color::White);
    play(&mut g, "E2").unwrap();
    g.play(Move::Pass).unwrap();
    g.play(Move::Pass).unwrap();
    assert_eq!(g.pass_stones(Color::Black), 1);
    assert_eq!(g.pass_stones(Color::White), 1);
}
