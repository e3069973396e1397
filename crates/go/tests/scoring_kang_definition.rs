//! Kang's "definition of baduk" (seed 001), one test per rule, under the `kang` preset. Rules 6–7
//! (verification) are in `life_verify.rs`; rule 8's counting is also in `scoring_rules.rs`.

use baduk_go::game::IllegalReason;
use baduk_go::scoring::{score, Frac, GameFacts, Settled};
use baduk_go::{Board, Color, Game, Move, Point, Preset, Rules};

fn kang_game(rows: &[&str], to_move: Color) -> Game {
    let b = Board::from_rows(rows).unwrap();
    Game::from_position(Rules::preset(Preset::Kang), b, to_move)
}

fn mv(g: &Game, s: &str) -> Move {
    Move::Play(Point::from_gtp(s, g.board().size()).unwrap())
}

#[test]
fn seed001_rule_1_black_moves_first_then_turns_alternate() {
    let mut g =
        Game::new(Rules::preset(Preset::Kang).with_size(baduk_go::Size::square(5).unwrap()));
    assert_eq!(g.to_move(), Color::Black);
    g.play(mv(&g, "C3")).unwrap();
    assert_eq!(g.to_move(), Color::White);
    g.play(Move::Pass).unwrap();
    assert_eq!(g.to_move(), Color::Black);
}

#[test]
fn seed001_rule_2_no_stone_on_an_occupied_point() {
    let mut g = kang_game(&["X . .", ". . .", ". . ."], Color::White);
    let e = g.play(mv(&g, "A3")).unwrap_err();
    assert_eq!(e.reason, IllegalReason::Occupied);
}

#[test]
fn seed001_rule_3_no_play_that_leaves_only_the_own_stones_blocked() {
    let mut g = kang_game(&[". X .", "X . .", ". . ."], Color::White);
    let e = g.play(mv(&g, "A3")).unwrap_err();
    assert!(
        matches!(e.reason, IllegalReason::Suicide { .. }),
        "{:?}",
        e.reason
    );
}

#[test]
fn seed001_rule_4_blocked_opponent_stones_are_removed_before_the_turn_passes() {
    let mut g = kang_game(&["O X .", ". . .", ". . ."], Color::Black);
    g.play(mv(&g, "A2")).unwrap();
    assert_eq!(
        g.board()
            .get(Point::from_gtp("A3", g.board().size()).unwrap()),
        None
    );
    assert_eq!(g.captures(Color::Black), 1);
}

#[test]
fn seed001_rule_5_no_immediate_single_stone_recapture() {
    // Black takes the ko at C2; White may not retake at B2 at once.
    let mut g = kang_game(&[". X O .", "X O . O", ". X O .", ". . . ."], Color::Black);
    g.play(mv(&g, "C3")).unwrap();
    let e = g.play(mv(&g, "B3")).unwrap_err();
    assert!(
        matches!(e.reason, IllegalReason::Ko { .. }),
        "{:?}",
        e.reason
    );
}

#[test]
fn seed001_rule_8_more_counted_territory_wins_with_komi_to_white() {
    // Black 2 points of territory, White 2: komi decides (0 by default → draw; 0.5 → White).
    let b = Board::from_rows(&[". X O .", ". X O .", "X X O O"]).unwrap();
    let mut r = Rules::preset(Preset::Kang).with_size(b.size());
    let s = score(&b, &GameFacts::default(), &Settled::default(), &r);
    assert_eq!((s.black, s.white), (Frac::int(2), Frac::int(2)));
    assert_eq!(s.outcome.to_string(), "0");
    r.komi = baduk_go::Komi::from_halves(1);
    let s = score(&b, &GameFacts::default(), &Settled::default(), &r);
    assert_eq!(s.outcome.to_string(), "W+0.5");
}
