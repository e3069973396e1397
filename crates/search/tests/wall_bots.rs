//! The bots: always a legal action, the registry's errors, determinism for a seed, `medium` as
//! exact three-ply minimax over the complete legal set, and the time budget.

use baduk_rng::Rng;
use baduk_search::wall::eval::{Evaluator, INF};
use baduk_search::wall::search::{Clock, SearchConfig, Searcher, CLOCK_MARGIN_MS};
use baduk_search::wall::{make_player, BOT_NAMES};
use baduk_wallgo::{Action, ActionList, Cell, CellSet, Edge, EdgeSet, Player, Position, Variant};

fn cells(s: &str) -> CellSet {
    s.split_whitespace()
        .map(|x| x.parse::<Cell>().unwrap())
        .collect()
}

fn walls(s: &str) -> EdgeSet {
    s.split_whitespace()
        .map(|w| w.parse::<Edge>().unwrap())
        .collect()
}

/// Every bot spec, with small budgets so the tests stay fast.
const SPECS: &[&str] = &[
    "random",
    "easy",
    "medium",
    "expert:nodes=3000",
    "sedol:nodes=3000",
];

fn play_out(a: &str, b: &str, seed: u64, variant: Variant) -> Vec<Action> {
    let mut bots = [
        make_player(a, seed).unwrap(),
        make_player(b, seed + 1).unwrap(),
    ];
    let mut p = Position::new(variant);
    let mut out = Vec::new();
    while !p.is_over() {
        let a = bots[p.to_move().index()].choose(&p).expect("an action");
        assert_eq!(
            p.check(a),
            Ok(()),
            "{} chose the illegal {a}",
            bots[p.to_move().index()].name()
        );
        p.apply(a).unwrap();
        out.push(a);
        assert!(out.len() < 400, "the game did not end");
    }
    out
}

#[test]
fn every_bot_plays_only_legal_actions_through_whole_games() {
    let variants = [
        Variant::default(),
        "placement=ABBA stay=free".parse().unwrap(),
        "stay=stuck-only tiebreak=largest-region".parse().unwrap(),
    ];
    for (i, spec) in SPECS.iter().enumerate() {
        let v = variants[i % variants.len()];
        play_out(spec, SPECS[(i + 1) % SPECS.len()], i as u64, v);
    }
}

#[test]
fn bots_return_a_legal_action_when_a_pass_is_offered_and_one_wall_ends_the_game() {
    // A1 is walled in on both inner edges: its only action is a pass. G7 cannot step (B on F7,
    // a wall north) and has one free edge: walling it ends the game.
    let p = Position::setup(
        Variant::default(),
        cells("A1 G7"),
        cells("F7 C3"),
        walls("A1/E A1/S G6/S"),
        Player::A,
    )
    .unwrap();
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    let list: Vec<String> = l.iter().map(|a| a.to_string()).collect();
    assert_eq!(list, ["A1 pass", "G7-G7/W"]);
    for spec in SPECS {
        for seed in 0..3 {
            let a = make_player(spec, seed).unwrap().choose(&p).unwrap();
            assert!(l.contains(&a), "{spec} chose {a}");
        }
    }
    // After A's pass, B is to move with one pass on the board: the bots still answer legally.
    let mut q = p;
    q.apply("A1 pass".parse().unwrap()).unwrap();
    for spec in SPECS {
        let a = make_player(spec, 5).unwrap().choose(&q).unwrap();
        assert_eq!(q.check(a), Ok(()), "{spec} chose {a}");
    }
    // A finished game has no action.
    let mut over = p;
    over.apply("G7-G7/W".parse().unwrap()).unwrap();
    assert!(over.is_over());
    for spec in SPECS {
        assert_eq!(make_player(spec, 1).unwrap().choose(&over), None);
    }
}

#[test]
fn bots_are_deterministic_for_a_seed() {
    for spec in SPECS {
        let x = play_out(spec, "random", 11, Variant::default());
        let y = play_out(spec, "random", 11, Variant::default());
        assert_eq!(x, y, "{spec}");
    }
    // Different seeds give the random bot different games.
    assert_ne!(
        play_out("random", "random", 1, Variant::default()),
        play_out("random", "random", 2, Variant::default())
    );
}

#[test]
fn the_registry_names_the_known_bots_and_keys() {
    let e = make_player("grandmaster", 1).err().unwrap().to_string();
    for n in BOT_NAMES {
        assert!(e.contains(n), "{e}");
    }
    let e = make_player("expert:speed=9", 1).err().unwrap().to_string();
    assert!(
        e.contains("speed") && e.contains("nodes") && e.contains("ms"),
        "{e}"
    );
    let e = make_player("easy:nodes=9", 1).err().unwrap().to_string();
    assert!(e.contains("none"), "{e}");
    assert!(make_player("expert:nodes=ten", 1).is_err());
    assert!(make_player("expert:nodes", 1).is_err());
    assert!(make_player("sedol:model=/nonexistent/model.txt", 1).is_err());
    for spec in [
        "expert:nodes=100,depth=3,tt=10,prune=0",
        "medium:depth=2",
        "sedol:ms=5",
    ] {
        assert_eq!(make_player(spec, 1).unwrap().name(), spec);
    }
}

/// Plain minimax to `depth` plies over every legal action, from the side to move.
fn minimax(p: &Position, depth: u8) -> i32 {
    let me = p.to_move();
    if p.is_over() || depth == 0 {
        return Evaluator::Hand.value(p, me);
    }
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    let mut best = -INF;
    for &a in l.iter() {
        let mut c = *p;
        c.apply_unchecked(a);
        best = best.max(-minimax(&c, depth - 1));
    }
    best
}

#[test]
fn medium_is_exact_three_ply_minimax_over_the_complete_legal_set() {
    // Late positions (few actions) from seeded random games.
    let mut tested = 0;
    for seed in 0..40u64 {
        let mut rng = Rng::new(seed);
        let mut p = Position::new(Variant::default());
        let mut l = ActionList::new();
        while !p.is_over() {
            p.legal_actions(&mut l);
            if p.turns_played() > 20 && l.len() <= 14 {
                break;
            }
            p.apply_unchecked(l[rng.below(l.len())]);
        }
        if p.is_over() {
            continue;
        }
        let cfg = SearchConfig {
            max_depth: 3,
            nodes: None,
            ms: None,
            tt_bits: 16,
            safe_pruning: false,
            late_move_reductions: false,
        };
        let (a, info) = Searcher::new(cfg, Evaluator::Hand).search(&p);
        assert_eq!(info.depth, 3);
        assert_eq!(info.score, minimax(&p, 3), "seed {seed}");
        let mut c = p;
        c.apply(a.unwrap()).unwrap();
        tested += 1;
        if tested == 4 {
            break;
        }
    }
    assert!(tested > 0);
}

/// A fake clock: every look at it advances it by one millisecond.
struct Ticking(u64);

impl Clock for Ticking {
    fn elapsed_us(&mut self) -> u64 {
        self.0 += 1000;
        self.0
    }
}

#[test]
fn a_time_budgeted_search_stops_within_its_budget_plus_one_clock_interval() {
    let p = baduk_search::wall::search::bench_positions()[0];
    let cfg = SearchConfig {
        max_depth: 60,
        nodes: None,
        ms: Some(40),
        tt_bits: 12,
        safe_pruning: true,
        late_move_reductions: false,
    };
    let mut s = Searcher::new(cfg, Evaluator::Hand);
    let (a, info) = s.search_with_clock(&p, Box::new(Ticking(0)));
    assert_eq!(p.check(a.unwrap()), Ok(()));
    assert_eq!(info.budget_us, Some(40_000));
    assert!(info.stopped);
    assert!(info.depth >= 1);
    // The search looks at the clock every few hundred nodes; with each look costing 1 ms it
    // must notice the budget within one more look (and one for the final reading).
    assert!(info.elapsed_us <= 40_000 + 2_000, "{info:?}");
}

#[test]
fn a_time_budget_never_exceeds_the_turn_clock() {
    let p = baduk_search::wall::search::bench_positions()[0];
    let cfg = SearchConfig {
        max_depth: 1,
        nodes: None,
        ms: Some(10 * 60 * 1000),
        tt_bits: 0,
        safe_pruning: false,
        late_move_reductions: false,
    };
    let (_, info) = Searcher::new(cfg, Evaluator::Hand).search_with_clock(&p, Box::new(Ticking(0)));
    let turn_us = (p.variant().seconds_per_turn as u64 * 1000 - CLOCK_MARGIN_MS) * 1000;
    assert_eq!(info.budget_us, Some(turn_us));
}

#[test]
fn a_node_budget_is_deterministic_and_respected_within_one_node() {
    let p = baduk_search::wall::search::bench_positions()[3];
    let cfg = SearchConfig {
        max_depth: 60,
        nodes: Some(5_000),
        ms: None,
        tt_bits: 14,
        safe_pruning: true,
        late_move_reductions: false,
    };
    let (a1, i1) = Searcher::new(cfg, Evaluator::Hand).search(&p);
    let (a2, i2) = Searcher::new(cfg, Evaluator::Hand).search(&p);
    assert_eq!((a1, i1.nodes, i1.depth), (a2, i2.nodes, i2.depth));
    assert!(i1.stopped);
    assert!(i1.nodes <= 5_000 + 1);
}

#[test]
fn expert_never_walls_in_its_own_piece_cheaply_when_a_safe_move_exists() {
    // A1 sits in the nook A1-A2 (walls A1/E, A2/E): A1-A2/S would shut it into two cells.
    let p = Position::setup(
        Variant::default(),
        cells("A1 D4"),
        cells("F6 G7"),
        walls("A1/E A2/E"),
        Player::A,
    )
    .unwrap();
    assert!(!baduk_search::wall::search::is_safe(
        &p,
        "A1-A2/S".parse().unwrap()
    ));
    for spec in ["expert:nodes=4000", "sedol:nodes=4000"] {
        let a = make_player(spec, 1).unwrap().choose(&p).unwrap();
        assert!(
            baduk_search::wall::search::is_safe(&p, a),
            "{spec} chose {a}"
        );
    }
}
