//! Repetition cases of the book's ch. 10: ko (period 2), send two return one (PSK and SSK
//! disagree), triple ko (no result under Japanese rules), and the period-5 cycle (ch. 10.6).

mod common;

use baduk_go::{Color, GameEnd, IllegalReason, Move};
use common::*;

#[test]
fn ch10_2_ko_period_2_immediate_recapture_forbidden_under_simple_positional_situational() {
    for rules in [
        "japanese",
        "korean",
        "kang",
        "chinese",
        "aga",
        "nz",
        "tromp-taylor",
        "ing",
    ] {
        let mut g = game(rules, &KO, Color::Black);
        play(&mut g, "C3").unwrap();
        let e = play(&mut g, "B3").unwrap_err();
        match e.reason {
            IllegalReason::Ko { .. }
            | IllegalReason::PositionalSuperko { after_move: 0 }
            | IllegalReason::SituationalSuperko { after_move: 0 } => {}
            other => panic!("{rules}: {other}"),
        }
        assert!(!g.legal_moves().contains(&Move::Play(
            baduk_go::Point::from_gtp("B3", g.board().size()).unwrap()
        )));
    }
}

#[test]
fn ch10_2_ko_may_be_retaken_after_a_move_elsewhere_under_simple_ko() {
    let mut g = game("japanese", &KO, Color::Black);
    play_all(&mut g, &["C3", "A1", "D1", "B3"]);
    assert_eq!(g.history()[3].captured, 1);
}

#[test]
fn ch10_send_two_return_one_psk_forbids_what_ssk_allows() {
    // Black sends two at C1, White takes both at A1, Black takes one back at B1: the board is
    // the starting one again, but with White (not Black) to move.
    let mut psk = game("chinese", &SEND_TWO, Color::Black);
    play_all(&mut psk, &["C1", "A1"]);
    let e = play(&mut psk, "B1").unwrap_err();
    assert_eq!(
        e.to_string(),
        "move 3 B B1: positional superko (recreates the starting position)"
    );

    let mut ssk = game("aga", &SEND_TWO, Color::Black);
    play_all(&mut ssk, &["C1", "A1", "B1"]);
    assert_eq!(ssk.history()[2].captured, 1);
    assert_eq!(ssk.board(), ssk.start_board());

    // Under simple ko it is an ordinary capture, and not yet a cycle.
    let mut simple = game("japanese", &SEND_TWO, Color::Black);
    assert_eq!(play_all(&mut simple, &["C1", "A1", "B1"]), None);
}

#[test]
fn ch10_triple_ko_is_no_result_under_japanese_rules() {
    let mut g = game("japanese", &TRIPLE_KO, Color::Black);
    let end = play_all(&mut g, &TRIPLE_KO_CYCLE);
    assert_eq!(end, Some(GameEnd::NoResult { from: 0, to: 6 }));
    assert_eq!(
        end.unwrap().to_string(),
        "no result: moves 1 to 6 form a cycle (the starting position recurs with the same player to move)"
    );
    // Korean and kang rules say the same; play-on continues.
    for rules in ["korean", "kang"] {
        let mut g = game(rules, &TRIPLE_KO, Color::Black);
        assert!(matches!(
            play_all(&mut g, &TRIPLE_KO_CYCLE),
            Some(GameEnd::NoResult { .. })
        ));
    }
    let mut g = game("japanese,cycles=play-on", &TRIPLE_KO, Color::Black);
    assert_eq!(play_all(&mut g, &TRIPLE_KO_CYCLE), None);
    play_all(&mut g, &TRIPLE_KO_CYCLE);
}

#[test]
fn ch10_triple_ko_superko_forbids_closing_the_cycle() {
    let mut g = game("chinese", &TRIPLE_KO, Color::Black);
    // Two moves elsewhere first, so the cycle starts after move 2.
    play_all(&mut g, &["E1", "K1"]);
    play_all(&mut g, &TRIPLE_KO_CYCLE[..5]);
    let e = play(&mut g, TRIPLE_KO_CYCLE[5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "move 8 W G2: positional superko (recreates the position after move 2)"
    );
    let mut g = game("aga", &TRIPLE_KO, Color::Black);
    play_all(&mut g, &TRIPLE_KO_CYCLE[..5]);
    assert_eq!(
        play(&mut g, "G2").unwrap_err().reason,
        IllegalReason::SituationalSuperko { after_move: 0 }
    );
}

#[test]
fn ch10_6_period_five_cycle_is_no_result_under_japanese_rules() {
    let mut g = game("japanese", &PERIOD_FIVE, Color::Black);
    let end = play_all(&mut g, &PERIOD_FIVE_CYCLE);
    // Five board plays and one pass: the position after move 1 recurs at move 7.
    assert_eq!(end, Some(GameEnd::NoResult { from: 1, to: 7 }));
    // White may not retake at A1 at once after Black's ko capture at B1 (move 5).
    let mut g = game("japanese", &PERIOD_FIVE, Color::Black);
    play_all(&mut g, &PERIOD_FIVE_CYCLE[..5]);
    assert!(matches!(
        play(&mut g, "A1").unwrap_err().reason,
        IllegalReason::Ko { .. }
    ));
}

#[test]
fn ch10_6_period_five_psk_forbids_black_6_ssk_allows_it() {
    // Black's capture at B1 (the book's black 6) recreates the position White's move made
    // (here: the start, with Black to move then and White to move now).
    let mut psk = game("chinese", &PERIOD_FIVE, Color::Black);
    play_all(&mut psk, &PERIOD_FIVE_CYCLE[..4]);
    assert_eq!(
        play(&mut psk, "B1").unwrap_err().reason,
        IllegalReason::PositionalSuperko { after_move: 0 }
    );
    let mut ssk = game("aga", &PERIOD_FIVE, Color::Black);
    play_all(&mut ssk, &PERIOD_FIVE_CYCLE[..5]);
    // SSK still forbids White's retake at A1 (it recreates the position after move 4) …
    assert_eq!(
        play(&mut ssk, "A1").unwrap_err().reason,
        IllegalReason::SituationalSuperko { after_move: 4 }
    );
    // … and after White's pass, Black's connection would recreate the position after move 1.
    ssk.play(Move::Pass).unwrap();
    assert_eq!(
        play(&mut ssk, "A1").unwrap_err().reason,
        IllegalReason::SituationalSuperko { after_move: 1 }
    );
}

#[test]
fn ch13_a_legal_repetition_is_never_refused_where_the_rules_allow_it() {
    // Zen's bug: refusing a move because it repeats an earlier position. Under simple ko the
    // send-two-return-one capture and every triple-ko capture but the cycle's close are plain
    // legal moves, and are listed as such.
    let mut g = game("japanese", &SEND_TWO, Color::Black);
    play_all(&mut g, &["C1", "A1"]);
    let b1 = Move::Play(baduk_go::Point::from_gtp("B1", g.board().size()).unwrap());
    assert!(g.legal_moves().contains(&b1));
    let mut g = game("japanese", &TRIPLE_KO, Color::Black);
    for m in &TRIPLE_KO_CYCLE {
        let mv = Move::from_gtp(m, g.board().size()).unwrap();
        assert!(g.legal_moves().contains(&mv), "{m}");
        g.play(mv).unwrap();
    }
}
