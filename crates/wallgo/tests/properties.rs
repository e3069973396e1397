//! Property tests over random games: the generator agrees with a naive step-by-step reference
//! and with `check`, every legal action applies, games end within 84 non-pass turns, and the
//! final scores add up to 49.

use baduk_rng::Rng;
use baduk_wallgo::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The rules of spec § "A turn" written the slow, obvious way: walk each step.
fn reference_actions(p: &Position) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if p.is_over() {
        return out;
    }
    let occ = p.occupied();
    if p.phase() == Phase::Placement {
        for c in Cell::all().filter(|c| !occ.contains(*c)) {
            out.insert(Action::Place(c).to_string());
        }
        return out;
    }
    let w = p.walls();
    let step = |a: Cell, s: Side, from: Cell| -> Option<Cell> {
        let b = a.neighbour(s)?;
        let e = Edge::of(a, s)?;
        if w.contains(e) || (occ.contains(b) && b != from) {
            return None;
        }
        Some(b)
    };
    for from in p.pieces(p.to_move()) {
        let mut dests = BTreeSet::new();
        for s1 in Side::ALL {
            // The first step can never land on `from` itself.
            if let Some(m) = step(from, s1, from).filter(|&m| m != from) {
                dests.insert(m);
                for s2 in Side::ALL {
                    if let Some(t) = step(m, s2, from) {
                        dests.insert(t);
                    }
                }
            }
        }
        let stuck = dests.is_empty();
        if stuck {
            dests.insert(from);
        } else if p.variant().stay == Stay::StuckOnly {
            dests.remove(&from);
        }
        let mut any = false;
        for &to in &dests {
            for s in Side::ALL {
                if let Some(e) = Edge::of(to, s) {
                    if !w.contains(e) {
                        any = true;
                        out.insert(Action::Turn { from, to, wall: e }.to_string());
                    }
                }
            }
        }
        if stuck && !any {
            out.insert(Action::Pass(from).to_string());
        }
    }
    out
}

/// Every action shape that could be legal for the player to move (for checking `check`).
fn candidates(p: &Position) -> Vec<Action> {
    let mut v: Vec<Action> = Cell::all().map(Action::Place).collect();
    for from in p.pieces(p.to_move()) {
        v.push(Action::Pass(from));
        for to in Cell::all().filter(|t| t.distance(from) <= 3) {
            for e in Edge::all() {
                if e.side_from(to).is_some() || e.index() % 17 == 0 {
                    v.push(Action::Turn { from, to, wall: e });
                }
            }
        }
    }
    v
}

fn variant_from(k: u8) -> Variant {
    Variant {
        placement: if k & 1 == 0 {
            Placement::Abab
        } else {
            Placement::Abba
        },
        stay: match k / 2 % 3 {
            0 => Stay::OutAndBack,
            1 => Stay::Free,
            _ => Stay::StuckOnly,
        },
        ..Variant::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generator_matches_reference_and_check_and_every_action_applies(seed in any::<u64>(), k in 0u8..6) {
        let mut rng = Rng::new(seed);
        let mut p = Position::new(variant_from(k));
        let mut l = ActionList::new();
        let mut step = 0;
        while !p.is_over() {
            p.legal_actions(&mut l);
            let got: BTreeSet<String> = l.iter().map(|a| a.to_string()).collect();
            prop_assert_eq!(got.len(), l.len(), "duplicates in {:?}", l);
            prop_assert_eq!(&got, &reference_actions(&p));
            prop_assert_eq!(p.count_legal_actions(), l.len());
            for &a in l.iter() {
                let mut q = p;
                prop_assert!(q.apply(a).is_ok(), "{} rejected", a);
            }
            if p.phase() == Phase::Turns {
                let mut pl = ActionList::new();
                for piece in p.pieces(p.to_move()) {
                    p.piece_actions(piece, &mut pl);
                    let tos: CellSet = pl
                        .iter()
                        .filter_map(|a| match a {
                            Action::Turn { to, .. } => Some(*to),
                            _ => None,
                        })
                        .collect();
                    if pl.as_slice() != [Action::Pass(piece)] {
                        prop_assert_eq!(tos, p.destinations(piece));
                    }
                }
            }
            // Sample positions for the (slower) full check sweep.
            if step % 7 == 0 {
                for a in candidates(&p) {
                    prop_assert_eq!(p.check(a).is_ok(), l.contains(&a), "{}", a);
                }
            }
            step += 1;
            p.apply_unchecked(l[rng.below(l.len())]);
        }
    }

    #[test]
    fn random_games_end_within_84_non_pass_turns_and_scores_add_to_49(seed in any::<u64>(), k in 0u8..6) {
        let mut rng = Rng::new(seed);
        let mut p = Position::new(variant_from(k));
        let mut l = ActionList::new();
        let mut non_pass = 0;
        while !p.is_over() {
            p.legal_actions(&mut l);
            let a = l[rng.below(l.len())];
            if matches!(a, Action::Turn { .. }) {
                non_pass += 1;
            }
            p.apply_unchecked(a);
            prop_assert!(non_pass <= 84);
        }
        prop_assert_eq!(p.walls().len(), non_pass);
        let s = p.score();
        prop_assert_eq!(s.a as u32 + s.b as u32 + s.neutral as u32 + s.mixed as u32, 49);
        match p.phase() {
            Phase::Over(EndReason::Separated) => {
                prop_assert_eq!(s.mixed, 0);
                prop_assert_eq!(s.a + s.b + s.neutral, 49);
            }
            Phase::Over(EndReason::TwoPasses) => {}
            other => prop_assert!(false, "not over: {:?}", other),
        }
        prop_assert!(p.result().is_some());
    }
}
