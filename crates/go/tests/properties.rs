//! Property tests: `legal_moves` agrees with `play`; `play` + `undo` restore everything; random
//! games (legal or not) never panic, under every preset and overridden dimension.

use baduk_go::{Color, Game, Move, Point, Preset, Rules, Size};
use baduk_rng::Rng;
use proptest::prelude::*;

fn rules_for(preset: usize, variant: usize, cols: u32, rows: u32) -> Rules {
    let mut r = Rules::preset(Preset::ALL[preset % Preset::ALL.len()])
        .with_size(Size::new(cols, rows).unwrap());
    // Mix in overrides so every repetition and suicide value meets every pass rule.
    let ko = ["simple", "positional", "situational", "jk"];
    let suicide = ["forbidden", "multi", "allowed", "loses"];
    if variant & 1 == 1 {
        r.set("ko", ko[(variant >> 1) % 4]).unwrap();
        r.set("suicide", suicide[(variant >> 3) % 4]).unwrap();
    }
    r
}

/// Plays `n` random legal moves (passes rarely), stopping if the game ends.
fn random_game(rules: Rules, seed: u64, n: usize) -> Game {
    let mut g = Game::new(rules);
    let mut rng = Rng::new(seed);
    for _ in 0..n {
        if g.is_over() {
            break;
        }
        let moves = g.legal_moves();
        if moves.is_empty() {
            break;
        }
        let boards: Vec<Move> = moves.iter().copied().filter(|m| *m != Move::Pass).collect();
        let m = if boards.is_empty() || rng.below(20) == 0 {
            moves[rng.below(moves.len())]
        } else {
            boards[rng.below(boards.len())]
        };
        g.play(m).unwrap();
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_listed_move_is_accepted_and_every_other_empty_point_rejected(
        seed in any::<u64>(), preset in 0usize..9, variant in 0usize..32,
        cols in 2u32..7, rows in 2u32..7, n in 0usize..40,
    ) {
        let g = random_game(rules_for(preset, variant, cols, rows), seed, n);
        let legal = g.legal_moves();
        for p in g.board().points() {
            let mv = Move::Play(p);
            let mut t = g.clone();
            let accepted = t.play(mv).is_ok();
            prop_assert_eq!(accepted, legal.contains(&mv), "{} at {} in\n{}", g.rules(), p, g.board());
        }
        let mut t = g.clone();
        prop_assert_eq!(t.play(Move::Pass).is_ok(), legal.contains(&Move::Pass));
    }

    #[test]
    fn play_then_undo_restores_hash_captures_and_history(
        seed in any::<u64>(), preset in 0usize..9, variant in 0usize..32,
        cols in 2u32..8, rows in 2u32..8, n in 1usize..60,
    ) {
        let rules = rules_for(preset, variant, cols, rows);
        let mut g = Game::new(rules);
        let mut rng = Rng::new(seed);
        let mut snaps = vec![];
        for _ in 0..n {
            let moves = g.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            snaps.push((g.board().clone(), g.board().hash(), g.captures(Color::Black),
                g.captures(Color::White), g.pass_stones(Color::Black), g.pass_stones(Color::White),
                g.to_move(), g.legal_moves()));
            g.play(m).unwrap();
            g.board().check_consistency().map_err(TestCaseError::fail)?;
        }
        while let Some((b, h, cb, cw, pb, pw, tm, legal)) = snaps.pop() {
            g.undo().unwrap();
            prop_assert_eq!(g.board(), &b);
            prop_assert_eq!(g.board().hash(), h);
            prop_assert_eq!((g.captures(Color::Black), g.captures(Color::White)), (cb, cw));
            prop_assert_eq!((g.pass_stones(Color::Black), g.pass_stones(Color::White)), (pb, pw));
            prop_assert_eq!(g.to_move(), tm);
            prop_assert_eq!(g.legal_moves(), legal);
            g.board().check_consistency().map_err(TestCaseError::fail)?;
        }
        prop_assert!(g.undo().is_none());
    }

    #[test]
    fn random_games_never_panic(
        seed in any::<u64>(), preset in 0usize..9, variant in 0usize..32,
        cols in 2u32..26, rows in 2u32..26,
    ) {
        let rules = rules_for(preset, variant, cols, rows);
        let mut g = Game::new(rules);
        let mut rng = Rng::new(seed);
        for _ in 0..200 {
            // Any point of the 25×25 layout, on this board or not, or a pass.
            let m = if rng.below(15) == 0 {
                Move::Pass
            } else {
                Move::Play(Point::new(rng.below(25) as u32, rng.below(25) as u32))
            };
            let _ = g.play(m);
            if rng.below(30) == 0 {
                g.undo();
            }
            if rng.below(100) == 0 {
                g.resign(g.to_move());
                g.undo();
            }
        }
        let _ = g.legal_moves();
        let _ = baduk_go::sgf::write(&g);
    }

    /// SGF set-up (`AB`/`AW`/`AE` rectangles) applied a property at a time gives the board
    /// that setting its points one by one gives: the same stones, hash, chains and liberties.
    #[test]
    fn set_up_of_a_whole_property_equals_its_points_set_one_by_one(
        seed in any::<u64>(), cols in 2u32..26, rows in 2u32..26, props in 1usize..12,
    ) {
        let size = Size::new(cols, rows).unwrap();
        let mut rng = Rng::new(seed);
        let mut whole = baduk_go::Board::new(size);
        let mut single = baduk_go::Board::new(size);
        for _ in 0..props {
            let stone = [None, Some(Color::Black), Some(Color::White)][rng.below(3)];
            // A rectangle, or scattered points.
            let pts: Vec<Point> = if rng.below(2) == 0 {
                let (x1, x2) = (rng.below(cols as usize) as u32, rng.below(cols as usize) as u32);
                let (y1, y2) = (rng.below(rows as usize) as u32, rng.below(rows as usize) as u32);
                (x1.min(x2)..=x1.max(x2))
                    .flat_map(|x| (y1.min(y2)..=y1.max(y2)).map(move |y| Point::new(x, y)))
                    .collect()
            } else {
                (0..rng.below(20)).map(|_| {
                    Point::new(rng.below(cols as usize) as u32, rng.below(rows as usize) as u32)
                }).collect()
            };
            whole.set_many(&pts, stone).unwrap();
            for &p in &pts {
                single.set(p, stone).unwrap();
            }
            whole.check_consistency().map_err(TestCaseError::fail)?;
            prop_assert_eq!(whole.hash(), single.hash());
            for p in whole.points() {
                prop_assert_eq!(whole.get(p), single.get(p));
                if whole.get(p).is_some() {
                    prop_assert_eq!(whole.liberty_count(p), single.liberty_count(p));
                    prop_assert_eq!(whole.chain_len(p), single.chain_len(p));
                }
            }
        }
        // A point off the board (where the layout has one) changes nothing.
        if cols < 25 {
            let before = whole.clone();
            let off = Point::new(cols, 0);
            prop_assert!(whole.set_many(&[Point::new(0, 0), off], Some(Color::Black)).is_err());
            prop_assert_eq!(whole.hash(), before.hash());
        }
    }
}
