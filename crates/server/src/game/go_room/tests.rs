use super::*;

fn room(rules: &str) -> GoRoom {
    GoRoom::new(Rules::parse(rules).unwrap(), 0).unwrap()
}

#[test]
fn two_passes_open_the_dead_stone_phase_and_both_accepts_end_it() {
    let mut r = room("japanese,size=5");
    r.act(0, "C3", [0; 2]).unwrap();
    r.act(1, "pass", [0; 2]).unwrap();
    r.act(0, "pass", [0; 2]).unwrap();
    assert_eq!(r.phase, Phase::Marking);
    r.act(0, "accept", [0; 2]).unwrap();
    assert_eq!(r.phase, Phase::Marking);
    r.act(1, "accept", [0; 2]).unwrap();
    assert_eq!(r.phase, Phase::Finished);
    let res = r.result.unwrap();
    assert_eq!(res.reason, "score");
    assert_eq!(res.rows.len(), Rules::presets().count());
}

#[test]
fn tromp_taylor_has_no_dead_stone_phase() {
    let mut r = room("tromp-taylor,size=5");
    r.act(0, "C3", [0; 2]).unwrap();
    r.act(1, "pass", [0; 2]).unwrap();
    r.act(0, "pass", [0; 2]).unwrap();
    assert_eq!(r.phase, Phase::Finished);
}

#[test]
fn an_illegal_move_names_the_rule_and_changes_nothing() {
    let mut r = room("chinese,size=5");
    r.act(0, "C3", [0; 2]).unwrap();
    let e = r.act(1, "C3", [0; 2]).unwrap_err();
    assert_eq!(e.status, 422);
    assert!(e.message.contains("occupied"), "{}", e.message);
    assert_eq!(r.game.move_count(), 1);
    assert_eq!(r.act(0, "D4", [0; 2]).unwrap_err().status, 409);
}

#[test]
fn undo_needs_the_opponents_consent() {
    let mut r = room("chinese,size=5");
    r.act(0, "C3", [0; 2]).unwrap();
    assert_eq!(r.act(1, "undo", [0; 2]).unwrap_err().status, 409);
    r.act(0, "undo", [0; 2]).unwrap();
    assert_eq!(r.act(0, "undo-accept", [0; 2]).unwrap_err().status, 409);
    r.act(1, "undo-accept", [0; 2]).unwrap();
    assert_eq!(r.game.move_count(), 0);
    assert_eq!(r.to_move(), Some(0));
}

#[test]
fn a_dispute_under_area_rules_resumes_play() {
    let mut r = room("chinese,size=5");
    r.act(0, "pass", [0; 2]).unwrap();
    r.act(1, "pass", [0; 2]).unwrap();
    r.act(1, "dispute", [0; 2]).unwrap();
    assert_eq!(r.phase, Phase::Play);
    r.act(0, "C3", [0; 2]).unwrap();
}

#[test]
fn a_japanese_dispute_needs_a_chain_in_dispute_and_an_undecided_one_is_no_result() {
    let mut r = room("japanese,size=5");
    r.act(0, "C3", [0; 2]).unwrap();
    r.act(1, "pass", [0; 2]).unwrap();
    r.act(0, "pass", [0; 2]).unwrap();
    let e = r.act(1, "dispute", [0; 2]).unwrap_err();
    assert_eq!((e.status, e.code), (409, "dispute.nothing"));
    assert_eq!(r.phase, Phase::Marking);
    r.act(1, "dead C3", [0; 2]).unwrap();
    assert_eq!(r.act(1, "dispute verify", [0; 2]).unwrap_err().status, 400);
    r.act(1, "dispute confirm", [0; 2]).unwrap();
    let res = r.result.clone().unwrap();
    eprintln!("{res:?} {:?}", r.verification);
    assert_eq!(r.checks[0]["chain"], "C3");
    assert!(r.verification[0].contains("C3"), "{:?}", r.verification);
    if res.winner.is_none() {
        assert_eq!((res.text.as_str(), res.reason), ("Void", "disputed"));
        assert!(res.detail.contains("C3"), "{}", res.detail);
    }
}

#[test]
fn japanese_art_9_resumption_lets_the_opponent_move_first() {
    for (asker, first) in [(0, 1), (1, 0)] {
        let mut r = room("japanese,size=5");
        r.act(0, "C3", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(0, "pass", [0; 2]).unwrap();
        r.act(asker, "dispute resume", [0; 2]).unwrap();
        assert_eq!(r.phase, Phase::Play);
        assert_eq!(r.to_move(), Some(first), "asker {asker}");
    }
}

#[test]
fn a_bot_restores_changed_marks_and_then_accepts_never_disputes() {
    let mut r = room("japanese,size=5");
    r.act(0, "C3", [0; 2]).unwrap();
    r.act(1, "pass", [0; 2]).unwrap();
    r.act(0, "pass", [0; 2]).unwrap();
    assert_eq!(r.bot_marking_answer(), "accept");
    r.act(0, "dead C3", [0; 2]).unwrap();
    assert_eq!(r.bot_marking_answer(), "restore");
    r.act(1, "restore", [0; 2]).unwrap();
    let m = r.marking.as_ref().unwrap();
    assert_eq!(m.dead, m.proposed);
    assert_eq!(
        m.restored.as_ref().unwrap().1,
        vec![Point::from_gtp("C3", r.rules.size).unwrap()]
    );
    assert_eq!(r.bot_marking_answer(), "accept");
}

#[test]
fn marks_out_of_phase_and_on_empty_points_are_refused_with_codes() {
    let mut r = room("japanese,size=5");
    for a in ["dead C3", "accept", "dispute", "restore"] {
        let e = r.act(0, a, [0; 2]).unwrap_err();
        assert_eq!((e.status, e.code), (400, "marking.not_now"), "{a}");
    }
    r.act(0, "C3", [0; 2]).unwrap();
    r.act(1, "pass", [0; 2]).unwrap();
    r.act(0, "pass", [0; 2]).unwrap();
    let e = r.act(0, "dead D4", [0; 2]).unwrap_err();
    assert_eq!((e.status, e.code), (422, "marking.empty"));
    let e = r.act(0, "restore", [0; 2]).unwrap_err();
    assert_eq!((e.status, e.code), (409, "marking.nothing_to_restore"));
    let e = r.act(0, "undo", [0; 2]).unwrap_err();
    assert_eq!((e.status, e.code), (409, "undo.not_now"));
    assert!(r.marking.as_ref().unwrap().dead.is_empty());
}

#[test]
fn undo_on_ones_turn_takes_back_ones_move_and_the_reply() {
    let mut r = room("chinese,size=5");
    let e = r.act(0, "undo", [0; 2]).unwrap_err();
    assert_eq!((e.status, e.code), (409, "undo.nothing"));
    r.act(0, "C3", [0; 2]).unwrap();
    r.act(1, "D4", [0; 2]).unwrap();
    r.act(0, "undo", [0; 2]).unwrap();
    assert_eq!(r.undo_moves, 2);
    r.act(1, "undo-accept", [0; 2]).unwrap();
    assert_eq!(r.game.move_count(), 0);
    assert_eq!(r.to_move(), Some(0));
}

#[test]
fn an_illegal_ko_names_the_rules_without_the_clock() {
    let mut r = room("japanese,size=5,time=fischer:300:5");
    for m in ["B3", "C3", "A2", "D2", "B1", "C1", "C2", "B2"] {
        let seat = r.to_move().unwrap();
        r.act(seat, m, [0; 2]).unwrap();
    }
    let e = r.act(0, "C2", [0; 2]).unwrap_err();
    assert_eq!(e.code, "illegal.ko", "{e:?}");
    assert!(!e.message.contains("time="), "{}", e.message);
    assert_eq!(e.args["point"], "C2");
}

#[test]
fn fixed_handicap_stones_stand_on_star_points_and_white_moves_first() {
    let r = GoRoom::new(Rules::parse("japanese,size=9").unwrap(), 2).unwrap();
    assert_eq!(r.to_move(), Some(1));
    assert_eq!(r.game.board().stone_count(Color::Black), 2);
    assert!(GoRoom::new(Rules::parse("japanese,size=5").unwrap(), 2).is_err());
}

#[test]
fn free_handicap_black_places_then_white_moves() {
    let mut r = GoRoom::new(Rules::parse("chinese,size=9,handicap=free").unwrap(), 2).unwrap();
    assert_eq!(r.to_move(), Some(0));
    r.act(0, "A1", [0; 2]).unwrap();
    assert_eq!(r.act(0, "A1", [0; 2]).unwrap_err().status, 422);
    r.act(0, "J9", [0; 2]).unwrap();
    assert_eq!(r.to_move(), Some(1));
    assert_eq!(r.game.handicap(), 2);
}
