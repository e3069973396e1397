//! Perft counts (the number of action sequences of a given length) for set positions, each
//! checked by hand as the comments show. They pin the generator: any change to movement, walls,
//! stuck pieces or passes moves one of these numbers.

use baduk_wallgo::*;

fn cells(s: &str) -> CellSet {
    s.split_whitespace()
        .map(|c| c.parse::<Cell>().expect("cell"))
        .collect()
}

fn walls(s: &str) -> EdgeSet {
    s.split_whitespace()
        .map(|w| w.parse::<Edge>().expect("wall"))
        .collect()
}

fn pos(a: &str, b: &str, w: &str) -> Position {
    Position::setup(Variant::default(), cells(a), cells(b), walls(w), Player::A).expect("setup")
}

/// perft(2) below each action, for the hand-checked branches.
fn divide(p: &Position, action: &str) -> u64 {
    let a: Action = action.parse().expect("action");
    let mut q = *p;
    q.apply(a).expect("legal");
    perft(&q, 1)
}

#[test]
fn perft_start_position_is_the_placements() {
    // 45 empty cells, then one fewer for each placement: 45, 45·44, 45·44·43, 45·44·43·42.
    let p = Position::new(Variant::default());
    assert_eq!(perft(&p, 1), 45);
    assert_eq!(perft(&p, 2), 45 * 44);
    assert_eq!(perft(&p, 3), 45 * 44 * 43);
    assert_eq!(perft(&p, 4), 45 * 44 * 43 * 42);
}

#[test]
fn perft_two_corner_pieces_open_board() {
    // A on A1, B on G7, no walls. A1 reaches B1 and A2 in one step; from B1: C1, B2, back to
    // A1; from A2: A3, B2, back to A1. Destinations {A1 B1 A2 C1 B2 A3} with free inner edges
    // 2 + 3 + 3 + 3 + 4 + 3 = 18. G7 is the mirror image (18), and nothing A does near A1
    // touches the cells or edges G7 uses (all within two steps of opposite corners), and no
    // single wall separates the pieces: perft(2) = 18 · 18.
    let p = pos("A1", "G7", "");
    assert_eq!(perft(&p, 1), 18);
    assert_eq!(perft(&p, 2), 324);
}

#[test]
fn perft_centre_piece_against_a_corner_piece() {
    // A on D4: the 13 cells within two steps, all with 4 free edges: 52. B on A1 answers with
    // 18 (as above) after each: A's destinations (at most B4, C3, D2 towards A1) and their
    // edges never touch A1's cells {A1 B1 A2 C1 B2 A3} or the edges between them.
    let p = pos("D4", "A1", "");
    assert_eq!(perft(&p, 1), 52);
    assert_eq!(perft(&p, 2), 52 * 18);
}

#[test]
fn perft_stuck_piece_then_two_replying_pieces() {
    // A on A1 between B's pieces on B1 and A2: stuck, so it walls where it stands: A1-A1/E or
    // A1-A1/S (perft 1 = 2).
    //
    // After A1-A1/E, B to move:
    //  - B1 steps to C1 or B2 (A1 is walled and taken); then D1, C2, back to B1 from C1, and
    //    C2, B3, back to B1 from B2 (A2 holds B's own piece). Destinations C1 B2 D1 C2 B3 B1
    //    with free edges 3 + 4 + 3 + 4 + 4 + 2 (B1's west edge now holds a wall) = 20.
    //  - A2 steps to B2 or A3 (A1 is taken); then C2, B3, back from B2 (B1 is taken) and A4,
    //    B3, back from A3. Destinations B2 A3 C2 B3 A4 A2 with 4 + 3 + 4 + 4 + 3 + 3 = 21.
    //  So 41. After A1-A1/S the board is the mirror image across the A1–G7 diagonal: 41.
    let p = pos("A1", "B1 A2", "");
    assert_eq!(perft(&p, 1), 2);
    assert_eq!(divide(&p, "A1-A1/E"), 41);
    assert_eq!(divide(&p, "A1-A1/S"), 41);
    assert_eq!(perft(&p, 2), 82);
}

#[test]
fn perft_pass_position() {
    // A1 and G7 are each walled into a one-cell room (A1/E A1/S, G7/N G7/W); A on D4 faces B on
    // D5.
    // A: A1 can neither step nor wall: 1 pass. D4 steps to D3, C4, E4 (D5 is taken); then D2,
    // C3, E3 from D3; C3, B4, C5 from C4; E3, F4, E5 from E4; and back to D4: 11 distinct
    // destinations, all with 4 free edges: 44. perft(1) = 45.
    // After A's pass, B: G7 passes (1); D5 steps to C5, E5, D6; then C4, B5, C6 / E4, F5, E6 /
    // C6, E6, D7 and back: 11 destinations, D7 on the bottom edge has 3 free edges, the other
    // ten 4: 43. So 44 below the pass; B's pass there ends the game (two passes in a row).
    let p = pos("A1 D4", "G7 D5", "A1/E A1/S G7/N G7/W");
    assert_eq!(perft(&p, 1), 45);
    assert_eq!(divide(&p, "A1 pass"), 44);
    let mut q = p;
    q.apply("A1 pass".parse().expect("action")).expect("legal");
    q.apply("G7 pass".parse().expect("action")).expect("legal");
    assert_eq!(q.phase(), Phase::Over(EndReason::TwoPasses));
    assert_eq!(perft(&q, 1), 0);
}

#[test]
fn perft_counts_agree_with_listing() {
    // perft(1) counts without listing; it must equal the list length everywhere.
    let p = pos("A1 D4", "G7 D5", "A1/E A1/S G7/N G7/W");
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    let mut sum = 0;
    for &a in l.iter() {
        let mut q = p;
        q.apply_unchecked(a);
        let mut m = ActionList::new();
        q.legal_actions(&mut m);
        sum += m.len() as u64;
    }
    assert_eq!(perft(&p, 2), sum);
}
