//! Unit tests of the rules, each citing the spec (`shared/spec/wallgo.md`) or its seed.

use super::*;
use crate::variant::Placement;
use std::collections::BTreeSet;

pub(crate) fn c(s: &str) -> Cell {
    s.parse().unwrap()
}

pub(crate) fn cells(s: &str) -> CellSet {
    s.split_whitespace().map(c).collect()
}

pub(crate) fn walls(s: &str) -> EdgeSet {
    s.split_whitespace()
        .map(|w| w.parse::<Edge>().unwrap())
        .collect()
}

/// A set position with A to move (unless `to_move` says otherwise).
pub(crate) fn pos(a: &str, b: &str, w: &str, to_move: Player) -> Position {
    Position::setup(Variant::default(), cells(a), cells(b), walls(w), to_move).unwrap()
}

fn act(s: &str) -> Action {
    s.parse().unwrap()
}

fn piece_list(p: &Position, piece: &str) -> Vec<String> {
    let mut l = ActionList::new();
    p.piece_actions(c(piece), &mut l);
    l.iter().map(|a| a.to_string()).collect()
}

fn destinations(p: &Position, piece: &str) -> BTreeSet<String> {
    let mut l = ActionList::new();
    p.piece_actions(c(piece), &mut l);
    l.iter()
        .filter_map(|a| match a {
            Action::Turn { to, .. } => Some(to.to_string()),
            _ => None,
        })
        .collect()
}

fn set(xs: &[&str]) -> BTreeSet<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

#[test]
fn wallgo_spec_setup_fixed_pieces_then_abab_placement_and_b_moves_first() {
    let mut p = Position::new(Variant::default());
    assert_eq!(p.pieces(Player::A), cells("B2 F6"));
    assert_eq!(p.pieces(Player::B), cells("F2 B6"));
    assert_eq!(p.phase(), Phase::Placement);
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    assert_eq!(l.len(), 45, "every empty cell can take a placement");
    for (who, at) in [
        (Player::A, "D4"),
        (Player::B, "C3"),
        (Player::A, "E5"),
        (Player::B, "D2"),
    ] {
        assert_eq!(p.to_move(), who);
        p.apply(Action::Place(c(at))).unwrap();
    }
    assert_eq!(p.phase(), Phase::Turns);
    assert_eq!(
        p.to_move(),
        Player::B,
        "the player who placed last moves first"
    );
    assert_eq!(p.pieces(Player::A), cells("B2 F6 D4 E5"));
}

#[test]
fn wallgo_spec_abba_placement_is_snake_and_a_moves_first() {
    let v = Variant {
        placement: Placement::Abba,
        ..Variant::default()
    };
    let mut p = Position::new(v);
    for (who, at) in [
        (Player::A, "D4"),
        (Player::B, "C3"),
        (Player::B, "E5"),
        (Player::A, "D2"),
    ] {
        assert_eq!(p.to_move(), who);
        p.apply(Action::Place(c(at))).unwrap();
    }
    assert_eq!(p.to_move(), Player::A);
    assert_eq!(p.phase(), Phase::Turns);
}

#[test]
fn wallgo_spec_placement_needs_an_empty_cell_and_the_placement_phase() {
    let mut p = Position::new(Variant::default());
    let e = p.apply(Action::Place(c("B2"))).unwrap_err();
    assert_eq!(e.rule, Rule::CellTaken(c("B2")));
    assert_eq!(e.to_string(), "place 1 A B2: the cell B2 is taken");
    assert_eq!(
        p.check(act("B2-B3/S")),
        Err(Rule::PlacementPhase),
        "no turn before the placements are done"
    );
    let q = pos("D4", "E4", "", Player::A);
    assert_eq!(
        q.check(Action::Place(c("A1"))),
        Err(Rule::NotPlacementPhase)
    );
}

#[test]
fn wallgo_spec_one_or_two_steps_with_corners_and_out_and_back_in_the_open() {
    // A lone piece in the middle reaches the 13 cells within two steps (itself by out-and-back),
    // each with its 4 free inner edges: 52 actions.
    let p = pos("D4", "A1", "", Player::A);
    let d = destinations(&p, "D4");
    assert_eq!(d.len(), 13);
    for cell in ["D4", "D3", "D2", "E3", "C5", "F4", "D6"] {
        assert!(d.contains(cell), "{cell}");
    }
    assert!(
        !d.contains("E2") && !d.contains("D7"),
        "no three-step reach"
    );
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    assert_eq!(l.len(), 52);
    assert_eq!(p.count_legal_actions(), 52);
}

#[test]
fn wallgo_spec_corner_turn_goes_around_a_wall_by_the_other_path() {
    // Wall right of C3: D3 and E3 are out of reach, but D2 and D4 are reached by turning a
    // corner through C2 and C4.
    let p = pos("C3", "G7", "C3/E", Player::A);
    let d = destinations(&p, "C3");
    assert_eq!(
        d,
        set(&["A3", "B2", "B3", "B4", "C1", "C2", "C3", "C4", "C5", "D2", "D4"])
    );
    assert!(p.check(act("C3-D4/S")).is_ok());
    // With the wall below C3 too, both corner paths to D4 are cut.
    let q = pos("C3", "G7", "C3/E C3/S", Player::A);
    assert_eq!(
        q.check(act("C3-D4/S")),
        Err(Rule::CornerBlocked(
            Block::Wall("C3/E".parse().unwrap()),
            Block::Wall("C3/S".parse().unwrap())
        ))
    );
    assert_eq!(
        Rule::CornerBlocked(Block::Wall("C3/E".parse().unwrap()), Block::Piece(c("C4")))
            .to_string(),
        "both corner paths are blocked: the wall C3/E; the piece on C4"
    );
}

#[test]
fn wallgo_spec_no_diagonal_jump_and_at_most_two_steps() {
    let p = pos("C3", "G7", "", Player::A);
    assert_eq!(p.check(act("C3-C6/N")), Err(Rule::TooFar(c("C3"), c("C6"))));
    assert_eq!(p.check(act("C3-E4/N")), Err(Rule::TooFar(c("C3"), c("E4"))));
}

#[test]
fn wallgo_spec_blocked_by_wall_names_the_wall_crossed() {
    let p = pos("C3", "G7", "C3/S", Player::A);
    assert_eq!(
        p.check(act("C3-C4/S")),
        Err(Rule::PathBlocked(Block::Wall("C3/S".parse().unwrap())))
    );
    let e = p.clone().apply(act("C3-C5/N")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "turn 1 A C3-C5/N: path crosses the wall C3/S"
    );
    let d = destinations(&p, "C3");
    assert!(!d.contains("C4") && !d.contains("C5"));
}

#[test]
fn wallgo_spec_blocked_by_piece_no_passing_through_or_landing_on_a_piece() {
    // B's piece on C4 and A's own piece on D3 both block.
    let p = pos("C3 D3", "C4 G7", "", Player::A);
    assert_eq!(
        p.check(act("C3-C5/N")),
        Err(Rule::PathBlocked(Block::Piece(c("C4"))))
    );
    assert_eq!(
        p.check(act("C3-C5/N")).unwrap_err().to_string(),
        "path runs into the piece on C4"
    );
    assert_eq!(
        p.check(act("C3-C4/N")),
        Err(Rule::DestinationTaken(c("C4")))
    );
    assert_eq!(
        p.check(act("C3-E3/N")),
        Err(Rule::PathBlocked(Block::Piece(c("D3"))))
    );
    // D4 by a corner: through D3 (own piece) and through C4 (B's piece): both blocked.
    assert_eq!(
        p.check(act("C3-D4/N")),
        Err(Rule::CornerBlocked(
            Block::Piece(c("D3")),
            Block::Piece(c("C4"))
        ))
    );
    let d = destinations(&p, "C3");
    for gone in ["C4", "C5", "D3", "E3", "D4"] {
        assert!(!d.contains(gone), "{gone}");
    }
}

#[test]
fn wallgo_spec_out_and_back_returns_through_an_open_empty_neighbour() {
    // A1 can step only to A2 (B1 is taken): it may go out to A2 and come back.
    let p = pos("A1", "B1 G7", "", Player::A);
    let d = destinations(&p, "A1");
    assert_eq!(d, set(&["A1", "A2", "A3", "B2"]));
    assert!(p.check(act("A1-A1/E")).is_ok());
    // Under the stuck-only variant, the same stay is refused because A1 can step.
    let v = Variant {
        stay: Stay::StuckOnly,
        ..Variant::default()
    };
    let q = Position::setup(v, cells("A1"), cells("B1 G7"), EdgeSet::EMPTY, Player::A).unwrap();
    assert_eq!(q.check(act("A1-A1/E")), Err(Rule::StayNotAllowed(c("A1"))));
    assert!(!destinations(&q, "A1").contains("A1"));
}

#[test]
fn wallgo_spec_out_and_back_needs_open_empty_neighbour() {
    // A1's neighbours: B1 holds a piece, A2 is behind a wall. No out-and-back exists; the
    // piece is stuck, so its only actions are walls where it stands on its free edges.
    let p = pos("A1 D4", "B1 E4", "A1/S", Player::A);
    assert_eq!(piece_list(&p, "A1"), vec!["A1-A1/E"]);
    assert!(!p.can_step(c("A1")));
    assert_eq!(
        p.check(act("A1-A2/N")),
        Err(Rule::PathBlocked(Block::Wall("A1/S".parse().unwrap())))
    );
}

#[test]
fn wallgo_spec_free_stay_allows_exactly_what_out_and_back_allows() {
    // Any piece that can step can step out and back, so the two stay rules agree.
    let free = Variant {
        stay: Stay::Free,
        ..Variant::default()
    };
    let mut rng = baduk_rng::Rng::new(11);
    let mut l1 = ActionList::new();
    let mut l2 = ActionList::new();
    for _ in 0..20 {
        let mut p = Position::new(Variant::default());
        while !p.is_over() {
            let mut q = p;
            q.variant = free;
            p.legal_actions(&mut l1);
            q.legal_actions(&mut l2);
            assert_eq!(l1.as_slice(), l2.as_slice());
            p.apply_unchecked(l1[rng.below(l1.len())]);
        }
    }
}

#[test]
fn wallgo_spec_stuck_piece_walls_where_it_stands() {
    // A1 is hemmed in by pieces on B1 and A2 (edges open): it stays and walls either edge.
    let p = pos("A1 D4", "B1 A2", "", Player::A);
    assert_eq!(piece_list(&p, "A1"), vec!["A1-A1/E", "A1-A1/S"]);
    assert!(p.check(act("A1-A1/S")).is_ok());
    assert_eq!(
        p.check(act("A1 pass")),
        Err(Rule::PassWithFreeEdge(c("A1"), "A1/E".parse().unwrap()))
    );
}

#[test]
fn wallgo_spec_pass_only_when_the_chosen_piece_can_neither_step_nor_wall() {
    // A1: B1 and A2 hold pieces, and both of A1's inner edges hold walls. D4 can move freely,
    // yet A1 alone decides: choosing A1 is a pass.
    let p = pos("A1 D4", "B1 A2 E4", "A1/E A1/S", Player::A);
    assert_eq!(piece_list(&p, "A1"), vec!["A1 pass"]);
    assert!(p.check(act("A1 pass")).is_ok());
    assert_eq!(p.check(act("D4 pass")), Err(Rule::PassWithStep(c("D4"))));
    assert_eq!(
        p.check(act("E4 pass")),
        Err(Rule::NotYourPiece(c("E4"), Player::A))
    );
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    assert!(l.contains(&act("A1 pass")));
    assert!(l.len() > 1);
}

#[test]
fn wallgo_spec_wall_goes_on_a_free_inner_edge_of_the_destination() {
    let p = pos("A1 D4", "G7", "A2/S", Player::A);
    // A2 has inner edges N, E, S; S holds a wall already.
    let to_a2: BTreeSet<String> = piece_list(&p, "A1")
        .into_iter()
        .filter(|s| s.starts_with("A1-A2/"))
        .collect();
    assert_eq!(to_a2, set(&["A1-A2/E", "A1-A2/N"]));
    assert_eq!(
        p.check(act("A1-A2/S")),
        Err(Rule::WallExists("A2/S".parse().unwrap()))
    );
    let far = Action::Turn {
        from: c("A1"),
        to: c("A2"),
        wall: "D4/E".parse().unwrap(),
    };
    assert_eq!(
        p.check(far),
        Err(Rule::WallNotAtDestination("D4/E".parse().unwrap(), c("A2")))
    );
}

#[test]
fn wallgo_spec_duplicate_paths_give_one_action() {
    // D5 from D4... every destination reached by two paths (E5 via D5 or E4) appears once.
    let p = pos("D4", "A1", "", Player::A);
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    let uniq: std::collections::HashSet<_> = l.iter().collect();
    assert_eq!(uniq.len(), l.len());
}

#[test]
fn wallgo_spec_only_the_player_to_move_acts() {
    let p = pos("C3", "E5", "", Player::B);
    assert_eq!(
        p.check(act("C3-C4/S")),
        Err(Rule::NotYourPiece(c("C3"), Player::B))
    );
    assert!(p.check(act("E5-E6/S")).is_ok());
}

#[test]
fn wallgo_spec_mixed_region_keeps_the_game_going() {
    // The column wall between C and D has one gap at C7/E: one region holds both sides.
    let w = "A1/E A1/S C1/E C2/E C3/E C4/E C5/E C6/E";
    let p = pos("B2 B4 A6 C5", "F2 F6 E4 E6", w, Player::B);
    assert_eq!(p.phase(), Phase::Turns);
    assert!(p.has_mixed_region());
    let kinds: Vec<RegionKind> = p.regions().iter().map(|r| r.kind).collect();
    assert_eq!(kinds, vec![RegionKind::Neutral, RegionKind::Mixed]);
    assert_eq!(p.result(), None);
}

#[test]
fn seed_003_example_b_closes_the_last_passage_a20_b28_neutral1() {
    // Seed 003, "마지막 통로를 닫은 오른쪽은 A 20칸, B 28칸, 중립 1칸으로 B가 이긴다": rebuilt
    // as a position. A wall runs down between columns C and D with its last gap at C7/E; A1 is
    // walled off and empty. B's piece E6 goes to D7 (a corner) and closes the gap.
    let w = "A1/E A1/S C1/E C2/E C3/E C4/E C5/E C6/E";
    let mut p = pos("B2 B4 A6 C5", "F2 F6 E4 E6", w, Player::B);
    p.apply(act("E6-D7/W")).unwrap();
    assert_eq!(p.phase(), Phase::Over(EndReason::Separated));
    let s = p.score();
    assert_eq!((s.a, s.b, s.neutral, s.mixed), (20, 28, 1, 0));
    assert_eq!(s.to_string(), "A 20 B 28 neutral 1");
    assert_eq!(p.result(), Some(Outcome::Win(Player::B)));
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    assert!(l.is_empty());
    assert_eq!(p.check(act("B2-B3/S")), Err(Rule::GameOver));
}

#[test]
fn wallgo_spec_neutral_regions_score_for_nobody_and_pieces_cells_count() {
    // A's piece alone in the top-left 2×2 room, B's in the rest but an empty 1×2 strip G1–G2.
    let w = "B1/E B2/E A2/S B2/S F1/E F2/E G2/S";
    let p = pos("A1", "D4", w, Player::A);
    assert!(p.is_over());
    let s = p.score();
    assert_eq!((s.a, s.b, s.neutral), (4, 43, 2));
    assert_eq!(s.a + s.b + s.neutral, 49);
}

#[test]
fn wallgo_spec_two_passes_in_a_row_end_the_game_and_mixed_scores_for_nobody() {
    // A1 and G7 are each walled into a one-cell room; D4 and D5 share the big region.
    let w = "A1/E A1/S G7/N G7/W";
    let mut p = pos("A1 D4", "G7 D5", w, Player::A);
    p.apply(act("A1 pass")).unwrap();
    assert!(!p.is_over());
    assert_eq!(p.passes_in_row(), 1);
    p.apply(act("G7 pass")).unwrap();
    assert_eq!(p.phase(), Phase::Over(EndReason::TwoPasses));
    let s = p.score();
    assert_eq!((s.a, s.b, s.neutral, s.mixed), (1, 1, 0, 47));
    assert_eq!(p.result(), Some(Outcome::Draw));
    // A turn in between resets the count.
    let mut q = pos("A1 D4", "G7 D5", w, Player::A);
    q.apply(act("A1 pass")).unwrap();
    q.apply(act("D5-D6/S")).unwrap();
    q.apply(act("A1 pass")).unwrap();
    assert!(!q.is_over());
}

#[test]
fn wallgo_spec_equal_scores_draw_unless_the_tiebreak_is_largest_region() {
    let s = Score {
        a: 20,
        b: 20,
        neutral: 9,
        mixed: 0,
        largest_a: 12,
        largest_b: 20,
    };
    assert_eq!(s.outcome(TieBreak::None), Outcome::Draw);
    assert_eq!(s.outcome(TieBreak::LargestRegion), Outcome::Win(Player::B));
    let t = Score { b: 19, ..s };
    assert_eq!(t.outcome(TieBreak::LargestRegion), Outcome::Win(Player::A));
}

#[test]
fn illegal_apply_leaves_the_position_unchanged() {
    let mut p = pos("C3", "G7", "C3/S", Player::A);
    let before = p;
    assert!(p.apply(act("C3-C5/N")).is_err());
    assert_eq!(p, before);
}

#[test]
fn incremental_hash_matches_full_hash_through_random_games() {
    let mut rng = baduk_rng::Rng::new(3);
    let mut l = ActionList::new();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..30 {
        let mut p = Position::new(Variant::default());
        while !p.is_over() {
            assert_eq!(p.hash(), p.full_hash());
            seen.insert(p.hash());
            p.legal_actions(&mut l);
            p.apply_unchecked(l[rng.below(l.len())]);
        }
        assert_eq!(p.hash(), p.full_hash());
    }
    assert!(seen.len() > 1000);
}

#[test]
fn position_is_small_and_copy() {
    assert!(std::mem::size_of::<Position>() <= 64);
}

#[test]
fn diagram_shows_pieces_walls_and_shading() {
    let w = "A1/E A1/S C1/E C2/E C3/E C4/E C5/E C6/E";
    let mut p = pos("B2 B4 A6 C5", "F2 F6 E4 E6", w, Player::B);
    p.apply(act("E6-D7/W")).unwrap();
    let d = p.diagram(true);
    assert!(d.contains("1 | - | a   a | b "), "{d}");
    assert_eq!(d.lines().count(), 16);
}

#[test]
fn seed_003_reach_joins_own_pieces_and_stops_at_the_opponent() {
    // Seed 003 § 1: reach space unites a side's pieces, includes their own cells, never enters
    // a cell under an opponent's piece. A1 is shut in by B's B1 and a wall under A1.
    let p = pos("A1 D4", "B1 G7", "A1/S", Player::A);
    let r = p.reachable(Player::A);
    assert!(r.contains(c("A1")) && r.contains(c("D4")));
    assert!(!r.contains(c("B1")) && !r.contains(c("G7")));
    assert_eq!(r.len(), 49 - 2);
    let rb = p.reachable(Player::B);
    assert!(!rb.contains(c("A1")) && rb.contains(c("C1")));
    assert_eq!(p.destinations(c("A1")), cells("A1"));
    assert_eq!(p.destinations(c("D4")).len(), 13);
    assert_eq!(p.destinations(c("C3")), CellSet::EMPTY);
}

#[test]
fn display_shows_board_and_turn() {
    let p = pos("A1", "G7", "", Player::A);
    assert!(p.to_string().ends_with("A to move"));
}
