//! The evaluation features on hand-built positions from the seed's descriptions
//! (`shared/seeds/003_007389cee8eb5356.txt`), and as properties of random positions.

use baduk_rng::Rng;
use baduk_search::wall::eval::{hand, terminal, Evaluator};
use baduk_search::wall::features::{is_small_confined, piece_reach, territory, Features};
use baduk_search::wall::make_player;
use baduk_wallgo::{Action, ActionList, Cell, CellSet, Edge, EdgeSet, Player, Position, Variant};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn c(s: &str) -> Cell {
    s.parse().unwrap()
}

fn cells(s: &str) -> CellSet {
    s.split_whitespace().map(c).collect()
}

fn walls(s: &str) -> EdgeSet {
    s.split_whitespace()
        .map(|w| w.parse::<Edge>().unwrap())
        .collect()
}

fn pos(a: &str, b: &str, w: &str, to_move: Player) -> Position {
    Position::setup(Variant::default(), cells(a), cells(b), walls(w), to_move).unwrap()
}

fn after(p: &Position, action: &str) -> Position {
    let mut q = *p;
    q.apply(action.parse::<Action>().unwrap()).unwrap();
    q
}

/// Walls right of column B on every row but row 4: a 14-cell west room with a one-edge door.
const WEST_ROOM: &str = "B1/E B2/E B3/E B5/E B6/E B7/E";

#[test]
fn seed_003_reach_counts_overlap_once_includes_own_pieces_and_excludes_enemy_pieces() {
    // Two A pieces on an open board reach the same cells: counted once (48, not 96); their own
    // cells are in, the one B cell is out.
    let p = pos("A1 B1", "G7", "", Player::A);
    let f = Features::of(&p);
    assert_eq!(f.side[0].reach, 48);
    assert_eq!(f.side[1].reach, 47);
    // A piece behind an enemy piece in a corridor: the enemy's cell is not entered, so the
    // cells beyond it are out of reach.
    let corridor = pos("A1", "A2 G7", "A1/E B1/E B2/E A3/S", Player::A);
    // A1's only open edge leads to A2 (B's piece): A reaches just A1.
    assert_eq!(Features::of(&corridor).side[0].reach, 1);
    assert_eq!(piece_reach(&corridor, c("A1")), 1);
}

#[test]
fn seed_003_mobility_is_the_sum_of_each_pieces_legal_destinations() {
    // A1 on an open board: A2, B1 (one step), A3, B2, C1 (two steps) and A1 (out and back).
    let p = pos("A1", "G7", "", Player::A);
    assert_eq!(Features::of(&p).side[0].mobility, 6);
    // With a second piece the sum adds both; B2 is no longer a destination of A1.
    let p = pos("A1 B2", "G7", "", Player::A);
    let mut l = ActionList::new();
    let mut total = 0;
    for piece in ["A1", "B2"] {
        p.piece_actions(c(piece), &mut l);
        let dest: BTreeSet<Cell> = l
            .iter()
            .filter_map(|a| match *a {
                Action::Turn { to, .. } => Some(to),
                _ => None,
            })
            .collect();
        total += dest.len() as u32;
    }
    assert_eq!(Features::of(&p).side[0].mobility, total);
}

#[test]
fn seed_003_a_piece_shut_into_one_cell_is_small_confined_and_self_enclosed() {
    // B on A1 with the wall A1/E; A steps B2-A2 and walls A2/N (= A1/S): B's piece is alone in
    // a one-cell room while the rest of the board stays mixed.
    let p = pos("B2 D4", "A1 F6", "A1/E", Player::A);
    let before = Features::of(&p);
    assert_eq!(before.side[1].small_confined, 0);
    let q = after(&p, "B2-A2/N");
    assert!(!q.is_over());
    let f = Features::of(&q);
    assert_eq!(f.side[1].pure, 1);
    assert_eq!(f.side[1].small_confined, 1);
    assert_eq!(f.side[1].self_enclosed, 1);
    assert_eq!(f.side[0].small_confined, 0);
    assert!(is_small_confined(&q, c("A1")));
    assert_eq!(f.mixed, 48);
    // The enclosure is good for A, bad for B.
    assert!(hand(&f, Player::A) > hand(&before, Player::A));
}

#[test]
fn seed_003_a_door_an_enemy_piece_stands_in_is_not_a_small_enclosure() {
    // B on A1 with A1/E walled and A's piece on A2 in the open door: B's piece reaches one cell,
    // but with A's pieces lifted it reaches the whole board, so it is not confined.
    let p = pos("A2 D4", "A1 F6", "A1/E", Player::B);
    assert_eq!(piece_reach(&p, c("A1")), 1);
    assert!(!is_small_confined(&p, c("A1")));
    assert_eq!(Features::of(&p).side[1].small_confined, 0);
}

#[test]
fn seed_003_easy_takes_the_small_enclosure_first() {
    let p = pos("B2 D4", "A1 F6", "A1/E", Player::A);
    for seed in 0..4 {
        let mut bot = make_player("easy", seed).unwrap();
        let a = bot.choose(&p).unwrap();
        let q = after(&p, &a.to_string());
        assert_eq!(Features::of(&q).side[1].small_confined, 1, "easy chose {a}");
    }
}

#[test]
fn seed_003_a_wall_that_cuts_the_opponent_but_leaves_it_the_larger_room_is_a_loss() {
    // A holds the 14-cell west room, B the 35-cell east; A can shut the door B4/E.
    let p = pos("A3 B5", "F2 G6", WEST_ROOM, Player::A);
    let cut = after(&p, "B5-B4/E");
    assert!(cut.is_over());
    let f = Features::of(&cut);
    // The cut keeps B out of A's room (B's reach falls from 47 to 35)…
    assert_eq!(Features::of(&p).side[1].reach, 47);
    assert_eq!((f.side[0].pure, f.side[1].pure), (14, 35));
    assert_eq!((f.side[0].reach, f.side[1].reach), (14, 35));
    // …but leaves B the larger room: the game is lost, and the features say so too.
    assert!(terminal(&cut, Player::A) < 0);
    assert!(hand(&f, Player::A) < 0);
    // Neither easy nor medium shuts that door.
    for spec in ["easy", "medium"] {
        let a = make_player(spec, 1).unwrap().choose(&p).unwrap();
        let q = after(&p, &a.to_string());
        assert!(!q.is_over(), "{spec} shut the door with {a}");
    }
}

#[test]
fn seed_003_a_door_closed_while_both_sides_are_in_the_room_leaves_it_mixed() {
    // Both rooms hold pieces of both sides: shutting B4/E creates no pure region.
    let p = pos("A3 F4", "B6 G2", WEST_ROOM, Player::A);
    let q = after(&p, "A3-B4/E");
    assert!(!q.is_over());
    let f = Features::of(&q);
    assert_eq!((f.side[0].pure, f.side[1].pure), (0, 0));
    assert_eq!(f.mixed, 49);
    assert_eq!(f.side[0].self_enclosed + f.side[1].self_enclosed, 0);
    assert_eq!(f.side[0].small_confined + f.side[1].small_confined, 0);
    // Both rooms are still contested; territory splits the cells by distance, not by the wall.
    let t = territory(&q);
    assert!(t[0] > 0 && t[1] > 0);
}

#[test]
fn seed_003_self_enclosure_penalises_our_own_small_pure_room() {
    // A walls its own piece into the 2-cell room A1-A2 (A1/E, A2/E, A2/S).
    let p = pos("A1 D4", "F6 G7", "A1/E A2/E", Player::A);
    let q = after(&p, "A1-A2/S");
    assert!(!q.is_over());
    let f = Features::of(&q);
    assert_eq!(f.side[0].self_enclosed, 1);
    assert_eq!(f.side[0].pure, 2);
    assert!(!baduk_search::wall::search::is_safe(
        &p,
        "A1-A2/S".parse().unwrap()
    ));
    assert!(baduk_search::wall::search::is_safe(
        &p,
        "D4-D5/S".parse().unwrap()
    ));
}

/// A position from a random game of `turns` turns after a seeded random opening.
fn random_position(seed: u64, turns: u16) -> Position {
    let mut rng = Rng::new(seed);
    let mut p = Position::new(Variant::default());
    let mut l = ActionList::new();
    while !p.is_over() && (p.turns_played() < turns || p.phase() != baduk_wallgo::Phase::Turns) {
        p.legal_actions(&mut l);
        let a = l[rng.below(l.len())];
        let mut q = p;
        q.apply_unchecked(a);
        if q.is_over() {
            break;
        }
        p = q;
    }
    p
}

/// Reference reach: breadth-first search over cells, one at a time.
fn reach_reference(p: &Position, side: Player) -> u32 {
    let enemy = p.pieces(side.other());
    let mut seen: BTreeSet<Cell> = p.pieces(side).iter().collect();
    let mut stack: Vec<Cell> = seen.iter().copied().collect();
    while let Some(x) = stack.pop() {
        for s in baduk_wallgo::Side::ALL {
            if let (Some(y), Some(e)) = (x.neighbour(s), Edge::of(x, s)) {
                if !p.walls().contains(e) && !enemy.contains(y) && seen.insert(y) {
                    stack.push(y);
                }
            }
        }
    }
    seen.len() as u32
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn features_agree_with_their_literal_definitions(seed in any::<u64>(), turns in 0u16..40) {
        let p = random_position(seed, turns);
        let f = Features::of(&p);
        let mut l = ActionList::new();
        for side in [Player::A, Player::B] {
            let sf = f.side[side.index()];
            prop_assert_eq!(sf.reach, reach_reference(&p, side));
            let confined = p.pieces(side).iter().filter(|&x| is_small_confined(&p, x)).count();
            prop_assert_eq!(sf.small_confined as usize, confined);
            // Mobility: distinct destinations per piece, from the rules' own generator.
            let mut q = p;
            if q.to_move() != side {
                q = Position::setup(p.variant(), p.pieces(Player::A), p.pieces(Player::B),
                                    p.walls(), side).unwrap();
            }
            let mut m = 0;
            for x in q.pieces(side) {
                q.piece_actions(x, &mut l);
                let stepped = q.can_step(x);
                let d: BTreeSet<Cell> = l.iter().filter_map(|a| match *a {
                    Action::Turn { to, .. } if stepped => Some(to),
                    _ => None,
                }).collect();
                m += d.len();
            }
            prop_assert_eq!(sf.mobility as usize, m);
        }
        let s = p.score();
        prop_assert_eq!((f.side[0].pure, f.side[1].pure), (s.a as u32, s.b as u32));
        prop_assert_eq!(f.mixed, s.mixed as u32);
        // The evaluation is antisymmetric.
        prop_assert_eq!(Evaluator::Hand.value(&p, Player::A), -Evaluator::Hand.value(&p, Player::B));
    }
}
