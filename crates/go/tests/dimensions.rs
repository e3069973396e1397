//! One test per value of each rules dimension the game history applies (spec "The dimensions"):
//! repetition, cycles, suicide, passes, end and move limit. Scoring-side dimensions (life,
//! scoring, seki, komi, ties, handicap) are pinned by the scoring tests and the rules-string
//! round trips.

mod common;

use baduk_go::{Color, Game, GameEnd, IllegalReason, LossRule, Move, MoveLimit, Rules, Size};
use common::*;

/// A 3×3 corner where Black at A3 is single-stone suicide.
const SINGLE_SUICIDE: [&str; 3] = [".O.", "O..", "..."];
/// A 4×4 corner where Black at A4 joins B4 in a two-stone suicide (White A3, B3, C4 around).
const MULTI_SUICIDE: [&str; 4] = [".XO.", "OO..", "....", "...."];

#[test]
fn spec_ko_simple_forbids_only_the_immediate_single_stone_retake() {
    let mut g = game("japanese", &KO, Color::Black);
    play(&mut g, "C3").unwrap();
    assert!(matches!(
        play(&mut g, "B3").unwrap_err().reason,
        IllegalReason::Ko { .. }
    ));
}

#[test]
fn spec_ko_positional_forbids_any_earlier_position() {
    let mut g = game("japanese,ko=positional", &SEND_TWO, Color::Black);
    play_all(&mut g, &["C1", "A1"]);
    assert!(matches!(
        play(&mut g, "B1").unwrap_err().reason,
        IllegalReason::PositionalSuperko { after_move: 0 }
    ));
}

#[test]
fn spec_ko_situational_allows_a_position_with_the_other_player_to_move() {
    let mut g = game("japanese,ko=situational", &SEND_TWO, Color::Black);
    play_all(&mut g, &["C1", "A1", "B1"]);
}

#[test]
fn spec_ko_jk_makes_repetition_lose_not_illegal() {
    let mut g = game("chinese,ko=jk", &KO, Color::White);
    play_all(&mut g, &["A1", "C3"]);
    assert!(matches!(
        play(&mut g, "B3").unwrap(),
        Some(GameEnd::Loss {
            rule: LossRule::ImmediateRepetition,
            ..
        })
    ));
}

#[test]
fn spec_cycles_no_result_and_play_on() {
    let mut g = game(
        "chinese,ko=simple,cycles=no-result",
        &TRIPLE_KO,
        Color::Black,
    );
    assert!(matches!(
        play_all(&mut g, &TRIPLE_KO_CYCLE),
        Some(GameEnd::NoResult { .. })
    ));
    let mut g = game("japanese,cycles=play-on", &TRIPLE_KO, Color::Black);
    assert_eq!(play_all(&mut g, &TRIPLE_KO_CYCLE), None);
}

#[test]
fn spec_suicide_forbidden_names_the_rule_set() {
    let mut g = game("japanese", &SINGLE_SUICIDE, Color::Black);
    assert_eq!(
        play(&mut g, "A3").unwrap_err().to_string(),
        "move 1 B A3: suicide is forbidden under japanese"
    );
    let mut g = game("japanese", &MULTI_SUICIDE, Color::Black);
    assert!(matches!(
        play(&mut g, "A4").unwrap_err().reason,
        IllegalReason::Suicide { .. }
    ));
}

#[test]
fn spec_suicide_multi_allows_multi_stone_but_not_single_stone() {
    let mut g = game("nz", &SINGLE_SUICIDE, Color::Black);
    assert_eq!(
        play(&mut g, "A3").unwrap_err().to_string(),
        "move 1 B A3: single-stone suicide is forbidden under nz"
    );
    let mut g = game("nz", &MULTI_SUICIDE, Color::Black);
    play(&mut g, "A4").unwrap();
    assert_eq!(g.board().stone_count(Color::Black), 0);
    assert_eq!(g.captures(Color::White), 2);
}

#[test]
fn spec_suicide_allowed_removes_even_a_single_stone() {
    let mut g = game("japanese,suicide=allowed", &SINGLE_SUICIDE, Color::Black);
    assert_eq!(play(&mut g, "A3").unwrap(), None);
    assert_eq!(g.board(), g.start_board());
    assert_eq!(g.captures(Color::White), 1);
    // Tromp-Taylor's positional superko then forbids it: the position does not change.
    let mut g = game(
        "tromp-taylor,suicide=allowed",
        &SINGLE_SUICIDE,
        Color::Black,
    );
    assert!(matches!(
        play(&mut g, "A3").unwrap_err().reason,
        IllegalReason::PositionalSuperko { .. }
    ));
}

#[test]
fn spec_suicide_loses() {
    let mut g = game("chinese,suicide=loses", &MULTI_SUICIDE, Color::Black);
    assert!(matches!(
        play(&mut g, "A4").unwrap(),
        Some(GameEnd::Loss {
            loser: Color::Black,
            rule: LossRule::Suicide,
            ..
        })
    ));
}

#[test]
fn spec_passes_plain_cost_nothing() {
    let mut g = Game::new(Rules::parse("chinese,size=5").unwrap());
    g.play(Move::Pass).unwrap();
    assert_eq!(g.pass_stones(Color::White), 0);
    assert_eq!(g.play(Move::Pass).unwrap(), Some(GameEnd::Passes));
}

#[test]
fn spec_passes_stones_hand_the_opponent_a_prisoner() {
    let mut g = Game::new(Rules::parse("chinese,size=5,passes=stones").unwrap());
    g.play(Move::Pass).unwrap();
    assert_eq!(g.pass_stones(Color::White), 1);
    assert_eq!(g.play(Move::Pass).unwrap(), Some(GameEnd::Passes));
    assert_eq!(g.pass_stones(Color::Black), 1);
}

#[test]
fn spec_passes_aga_white_passes_last() {
    // White passes first, Black answers: not over until White passes again.
    let mut g = Game::new(Rules::parse("aga,size=5").unwrap());
    play(&mut g, "C3").unwrap();
    g.play(Move::Pass).unwrap();
    assert_eq!(g.play(Move::Pass).unwrap(), None);
    assert_eq!(g.play(Move::Pass).unwrap(), Some(GameEnd::Passes));
    assert_eq!(
        (g.pass_stones(Color::Black), g.pass_stones(Color::White)),
        (2, 1)
    );
    // Black passes first, White answers: over.
    let mut g = Game::new(Rules::parse("aga,size=5").unwrap());
    g.play(Move::Pass).unwrap();
    assert_eq!(g.play(Move::Pass).unwrap(), Some(GameEnd::Passes));
}

#[test]
fn spec_passes_jk_and_end_jk() {
    let mut g = Game::new(Rules::parse("jk,size=5").unwrap());
    play(&mut g, "C3").unwrap();
    g.play(Move::Pass).unwrap();
    assert_eq!(g.history()[1].class, baduk_go::MoveClass::EndingPass);
    assert_eq!(
        g.play(Move::Pass).unwrap(),
        Some(GameEnd::JkSequence { sequence: "EE" })
    );
}

#[test]
fn spec_end_two_passes_with_jk_passes_other_values() {
    // passes=jk with end=two-passes: passes carry stones, two in a row end the game.
    let mut g = Game::new(Rules::parse("jk,size=5,end=two-passes").unwrap());
    play(&mut g, "C3").unwrap();
    g.play(Move::Pass).unwrap();
    assert_eq!(g.play(Move::Pass).unwrap(), Some(GameEnd::Passes));
}

#[test]
fn spec_move_limit_ends_the_game() {
    for (s, limit) in [
        ("void:3", MoveLimit::Void(3)),
        ("draw:3", MoveLimit::Draw(3)),
        ("komi:3", MoveLimit::Komi(3)),
    ] {
        let mut g = Game::new(Rules::parse(&format!("kang,size=5,move-limit={s}")).unwrap());
        play_all(&mut g, &["A1", "B1"]);
        assert_eq!(
            play(&mut g, "C1").unwrap(),
            Some(GameEnd::MoveLimit { limit })
        );
    }
}

#[test]
fn spec_board_sizes_2_to_25_rectangular() {
    for (c, r) in [(2, 2), (25, 25), (9, 13), (25, 2)] {
        let size = Size::new(c, r).unwrap();
        let mut g = Game::new(Rules::default().with_size(size));
        assert_eq!(g.legal_moves().len(), c as usize * r as usize + 1);
        g.play(Move::Play(baduk_go::Point::new(c - 1, r - 1)))
            .unwrap();
    }
}

#[test]
fn spec_end_time_loss_and_undo() {
    let mut g = Game::new(Rules::parse("ing,size=5,time=ing:3600").unwrap());
    play(&mut g, "C3").unwrap();
    g.lose_on_time(Color::White);
    assert_eq!(
        g.end(),
        Some(GameEnd::Loss {
            loser: Color::White,
            rule: LossRule::Time,
            at: 1
        })
    );
    assert_eq!(g.end().unwrap().to_string(), "W loses on time after move 1");
    assert!(play(&mut g, "D4").is_err());
    g.undo();
    assert!(!g.is_over());
    assert_eq!(g.move_count(), 1);
}

#[test]
fn resignation_and_agreement_end_and_undo() {
    let mut g = Game::new(Rules::parse("jk,size=5").unwrap());
    play(&mut g, "C3").unwrap();
    g.resign(Color::White);
    assert_eq!(
        g.end(),
        Some(GameEnd::Resignation {
            loser: Color::White
        })
    );
    assert!(g.legal_moves().is_empty());
    g.undo();
    assert!(!g.is_over());
    assert_eq!(g.move_count(), 1);
    // Agreement after Black's move: JK art. 4.4 hands Black a pass stone.
    g.agree_end();
    assert_eq!(g.pass_stones(Color::Black), 1);
    g.undo();
    assert_eq!(g.pass_stones(Color::Black), 0);
}
