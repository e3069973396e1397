//! Scoring rules pinned to their sources: the book's ch. 4 tables 4.1/4.2, seed 002 (Ing fill
//! counting and proportional seki dame), JK art. 4.4 and 5, and seed 001 (Kang's definition).

use baduk_go::scoring::{score, Frac, GameFacts, PointSet, Settled};
use baduk_go::{Board, Color, Komi, Point, Preset, Rules, Size};
use proptest::prelude::*;

fn pt(s: &str, b: &Board) -> Point {
    Point::from_gtp(s, b.size()).unwrap()
}

fn rules(p: Preset, b: &Board) -> Rules {
    let mut r = Rules::preset(p).with_size(b.size());
    r.komi = Komi::from_halves(0);
    r
}

/// A random game without passes: uniformly random legal, non-eye-filling board plays.
fn random_game(n: u32, seed: u64, len: usize) -> (Board, GameFacts) {
    let mut rng = baduk_rng::Rng::new(seed);
    let mut b = Board::new(Size::square(n).unwrap());
    let mut color = Color::Black;
    let mut facts = GameFacts::default();
    for _ in 0..len {
        let cands: Vec<Point> = b
            .empty_points()
            .filter(|&p| b.is_simple_legal(p, color) && !b.is_eye(p, color))
            .collect();
        if cands.is_empty() {
            break;
        }
        b.play(cands[rng.below(cands.len())], color).unwrap();
        facts.last_mover = Some(color);
        color = color.opponent();
    }
    facts.captures = [b.captures(Color::Black), b.captures(Color::White)];
    (b, facts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Book ch. 4.3, tables 4.1/4.2: with no passes, area margin = territory margin when White
    /// moved last, and one point better for Black when Black moved last.
    #[test]
    fn ch4_tables_area_margin_is_territory_margin_plus_one_if_black_moved_last(
        seed in any::<u64>(), n in prop::sample::select(vec![5u32, 7, 9]), len in 10usize..120
    ) {
        let (b, facts) = random_game(n, seed, len);
        let none = Settled::default();
        let area = score(&b, &facts, &none, &rules(Preset::Chinese, &b)).margin();
        let terr = score(&b, &facts, &none, &rules(Preset::Japanese, &b)).margin();
        let want = if facts.last_mover == Some(Color::Black) { 1 } else { 0 };
        prop_assert_eq!(area - terr, Frac::int(want));
    }

    /// Book ch. 4.2 and tables 4.1/4.2: the area margin has the parity of the number of owned
    /// points, so an odd number of ownerless points on an odd board flips it (and Ing fill
    /// counting on 361 points without seki gives odd margins, seed 002 §2).
    #[test]
    fn ch4_area_margin_parity_flips_with_odd_ownerless_points(
        seed in any::<u64>(), n in prop::sample::select(vec![5u32, 7, 9]), len in 10usize..120
    ) {
        let (b, facts) = random_game(n, seed, len);
        let s = score(&b, &facts, &Settled::default(), &rules(Preset::Ing, &b));
        // Every stone is alive and there is no seki: only dame are ownerless.
        let owned = (n * n) as i64 - s.breakdown.dame as i64;
        let m = s.margin();
        prop_assert_eq!(m.den(), 1);
        prop_assert_eq!((m.num() - owned).rem_euclid(2), 0, "margin {} owned {}", m, owned);
    }
}

#[test]
fn seed002_ing_full_board_without_seki_gives_odd_margin() {
    // 19×19 split down the middle: 9 columns Black, 10 White, one wall each; 361 points owned.
    let rows: Vec<String> = (0..19)
        .map(|_| format!("{}X{}O{}", ".".repeat(8), "", ".".repeat(9)))
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let b = Board::from_rows(&rows).unwrap();
    let s = score(
        &b,
        &GameFacts::default(),
        &Settled::default(),
        &Rules::preset(Preset::Ing),
    );
    assert_eq!(s.black + s.white - Frac::int(8), Frac::int(361));
    assert_eq!(
        (s.margin() + Frac::int(8)).num().rem_euclid(2),
        1,
        "{}",
        s.margin()
    );
}

/// A position with one seki dame point at E5 whose neighbours are `black` black and `white`
/// white stones (the rest of the board is irrelevant to the share).
fn seki_share(rows: &[&str], at: &str) -> [Frac; 2] {
    let b = Board::from_rows(rows).unwrap();
    let mut seki = PointSet::new();
    seki.insert(pt(at, &b));
    let settled = Settled {
        dead: PointSet::new(),
        seki,
    };
    score(&b, &GameFacts::default(), &settled, &rules(Preset::Ing, &b))
        .breakdown
        .seki_share
}

#[test]
fn seed002_seki_dame_three_black_one_white_neighbours_gives_black_one_half() {
    let share = seki_share(&["X X X", "X . X", "X O X"], "B2");
    assert_eq!(share, [Frac::new(3, 4), Frac::new(1, 4)]);
    assert_eq!(share[0] - share[1], Frac::new(1, 2));
}

#[test]
fn seed002_seki_dame_two_black_one_white_neighbours_gives_black_one_third() {
    let share = seki_share(&["X . X", "O O O"], "B2");
    assert_eq!(share, [Frac::new(2, 3), Frac::new(1, 3)]);
    assert_eq!(share[0] - share[1], Frac::new(1, 3));
}

#[test]
fn seed002_real_game_black_wins_by_one_and_five_sixths() {
    // Two seki dame points: D4 touches 3 black + 1 white stone, G5 touches 2 black + 1 white.
    let rows = [
        "X X X X X X . X O",
        "X X X . X X O O O",
        "X X X O X X O O O",
        "O O O O O O O O O",
        "O O O O O O O O O",
    ];
    let b = Board::from_rows(&rows).unwrap();
    let mut seki = PointSet::new();
    seki.insert(pt("D4", &b));
    seki.insert(pt("G5", &b));
    let settled = Settled {
        dead: PointSet::new(),
        seki,
    };
    let mut r = Rules::preset(Preset::Ing).with_size(b.size());
    let plain = score(&b, &GameFacts::default(), &Settled::default(), &r);
    // The board part without the seki points, as in the seed: Black 9 ahead before komi 8.
    let board_part = plain.margin() + Frac::int(8);
    let shift = board_part - Frac::int(9);
    r.komi = Komi::from_halves(2 * (8 + shift.num()) as i32);
    let s = score(&b, &GameFacts::default(), &settled, &r);
    assert_eq!(
        s.breakdown.seki_share[0] - s.breakdown.seki_share[1],
        Frac::new(5, 6)
    );
    assert_eq!(s.outcome.to_string(), "B+1 5/6");
}

#[test]
fn chinese_seki_dame_is_split_half_and_half() {
    let share = {
        let b = Board::from_rows(&["X X X", "X . X", "X O X"]).unwrap();
        let mut seki = PointSet::new();
        seki.insert(pt("B2", &b));
        let settled = Settled {
            dead: PointSet::new(),
            seki,
        };
        score(
            &b,
            &GameFacts::default(),
            &settled,
            &rules(Preset::Chinese, &b),
        )
        .breakdown
        .seki_share
    };
    assert_eq!(share, [Frac::new(1, 2), Frac::new(1, 2)]);
}

#[test]
fn japanese_korean_seki_points_are_not_territory() {
    // Black's one-point eye B2 belongs to a seki group: no territory under Japanese rules,
    // one point under Kang's counting (seki=counted).
    let b = Board::from_rows(&["X X X O", "X . X O", "X X X O"]).unwrap();
    let mut seki = PointSet::new();
    seki.insert(pt("B2", &b));
    let settled = Settled {
        dead: PointSet::new(),
        seki,
    };
    let facts = GameFacts::default();
    let jp = score(&b, &facts, &settled, &rules(Preset::Japanese, &b));
    assert_eq!(jp.breakdown.territory, [0, 0]);
    assert_eq!(jp.seki, vec![pt("B2", &b)]);
    let kr = score(&b, &facts, &settled, &rules(Preset::Korean, &b));
    assert_eq!(kr.breakdown.territory, [0, 0]);
    let kang = score(&b, &facts, &settled, &rules(Preset::Kang, &b));
    assert_eq!(kang.breakdown.territory, [1, 0]);
}

#[test]
fn jk_art_4_4_black_moving_last_gets_one_more_pass_stone() {
    let b = Board::from_rows(&["X X O O", "X X O O"]).unwrap();
    let r = rules(Preset::Jk, &b);
    let mut facts = GameFacts {
        passes: [1, 1],
        last_mover: Some(Color::White),
        ..GameFacts::default()
    };
    let white_last = score(&b, &facts, &Settled::default(), &r);
    facts.last_mover = Some(Color::Black);
    let black_last = score(&b, &facts, &Settled::default(), &r);
    assert_eq!(black_last.black - white_last.black, Frac::int(1));
    assert_eq!(black_last.white, white_last.white);
    assert_eq!(black_last.breakdown.pass_stones, [2, 1]);
}

#[test]
fn jk_art_5_score_is_territory_plus_captured_prisoners_plus_pass_stones() {
    // Black: 3 territory, 3 captured, 1 dead white stone removed, 2 pass stones from White.
    let b = Board::from_rows(&[". X O .", ". X O O", "X X O O", "O X O O"]).unwrap();
    let mut dead = PointSet::new();
    dead.insert(pt("A1", &b));
    let facts = GameFacts {
        captures: [3, 0],
        passes: [0, 2],
        last_mover: Some(Color::White),
        ..GameFacts::default()
    };
    let s = score(
        &b,
        &facts,
        &Settled {
            dead,
            seki: PointSet::new(),
        },
        &rules(Preset::Jk, &b),
    );
    // Black territory: A4, A3 and A1 (flooded from black stones once A1 is removed).
    assert_eq!(s.breakdown.territory[0], 3);
    assert_eq!(s.black, Frac::int(3 + 3 + 1 + 2));
}

#[test]
fn aga_pass_stones_make_territory_margin_equal_area_margin() {
    // White passes last (AGA): area margin = territory margin + pass stones.
    let b = Board::from_rows(&[". X O .", ". X O .", ". X O .", ". X O ."]).unwrap();
    let facts = GameFacts {
        passes: [1, 1],
        last_mover: Some(Color::White),
        ..GameFacts::default()
    };
    let s = score(&b, &facts, &Settled::default(), &rules(Preset::Aga, &b));
    assert!(
        s.notes
            .iter()
            .any(|n| n.contains("territory + pass stones margin B+0")),
        "{:?}",
        s.notes
    );
    assert_eq!(s.margin(), Frac::int(0));
}

#[test]
fn handicap_compensation_is_zero_n_or_n_minus_one() {
    let b = Board::from_rows(&["X O", "X O"]).unwrap();
    let facts = GameFacts {
        handicap: 4,
        ..GameFacts::default()
    };
    let w = |p: Preset| {
        score(&b, &facts, &Settled::default(), &rules(p, &b))
            .breakdown
            .handicap_bonus
    };
    assert_eq!(w(Preset::Japanese), 0);
    assert_eq!(w(Preset::Chinese), 4);
    assert_eq!(w(Preset::Aga), 3);
}

#[test]
fn ing_time_extensions_cost_two_points_each_and_a_fourth_loses() {
    let b = Board::from_rows(&["X O", "X O"]).unwrap();
    let r = rules(Preset::Ing, &b);
    let mut facts = GameFacts {
        time_extensions: [2, 0],
        ..GameFacts::default()
    };
    let s = score(&b, &facts, &Settled::default(), &r);
    assert_eq!(s.margin(), Frac::int(-4));
    facts.time_extensions = [0, 4];
    let s = score(&b, &facts, &Settled::default(), &r);
    assert_eq!(s.outcome.to_string(), "B+T");
}

#[test]
fn ing_black_wins_ties_and_komi_is_eight() {
    let b = Board::from_rows(&["X X X X X", "X X X X X", "O O O O O"]).unwrap();
    let r = Rules::preset(Preset::Ing).with_size(b.size());
    let s = score(&b, &GameFacts::default(), &Settled::default(), &r);
    // Black 10 points, White 5 + 8 komi: W+3.
    assert_eq!(s.outcome.to_string(), "W+3");
    let b = Board::from_rows(&["X X X X X", "X X X X X", "X X O O O", "O O O O O"]).unwrap();
    let mut r = Rules::preset(Preset::Ing).with_size(b.size());
    r.komi = Komi::from_halves(18); // 12 + 9 = 21 vs 8 + 9 ... tie made exactly below
    let s = score(&b, &GameFacts::default(), &Settled::default(), &r);
    let tie_komi = s.black - (s.white - Frac::int(9));
    r.komi = Komi::from_halves(2 * tie_komi.num() as i32);
    let s = score(&b, &GameFacts::default(), &Settled::default(), &r);
    assert_eq!(s.outcome.to_string(), "B+0");
    let mut draw = r;
    draw.ties = baduk_go::Ties::Draw;
    assert_eq!(
        score(&b, &GameFacts::default(), &Settled::default(), &draw)
            .outcome
            .to_string(),
        "0"
    );
}

#[test]
fn seed001_rule_8_kang_counts_territory_minus_own_removed_stones_minus_dame() {
    // Black territory A4 A3 (and dame C4, reached by both), one black stone captured earlier;
    // White territory E4 E3 D1.
    let b = Board::from_rows(&[". X . O .", ". X X O .", "X X O O O", "X O O . O"]).unwrap();
    let mut dead = PointSet::new();
    dead.insert(pt("D1", &b)); // an empty point: ignored
    let facts = GameFacts {
        captures: [0, 1],
        ..GameFacts::default()
    };
    let s = score(
        &b,
        &facts,
        &Settled {
            dead,
            seki: PointSet::new(),
        },
        &rules(Preset::Kang, &b),
    );
    // 흑집 (flood from black): A4 A3 plus the dame C4; 백집: E4 E3 D1 plus C4.
    assert_eq!(s.breakdown.dame, 1);
    assert_eq!(s.breakdown.territory, [2, 3]);
    // 계가흑집 = (2 + 1) − 1 removed − 1 dame = 1; 계가백집 = (3 + 1) − 0 − 1 + komi 0 = 3.
    assert_eq!((s.black, s.white), (Frac::int(1), Frac::int(3)));
    assert_eq!(s.outcome.to_string(), "W+2");
}

#[test]
fn tromp_taylor_counts_every_stone_as_alive() {
    let b = Board::from_rows(&["X X .", "X O X", "X X X"]).unwrap();
    let mut dead = PointSet::new();
    dead.insert(pt("B2", &b));
    let settled = Settled {
        dead,
        seki: PointSet::new(),
    };
    let tt = score(
        &b,
        &GameFacts::default(),
        &settled,
        &rules(Preset::TrompTaylor, &b),
    );
    assert!(tt.dead.is_empty());
    let cn = score(
        &b,
        &GameFacts::default(),
        &settled,
        &rules(Preset::Chinese, &b),
    );
    assert_eq!(cn.dead, vec![pt("B2", &b)]);
}

#[test]
fn seed001_appendix_4_move_limit_voids_draws_or_decides_by_komi() {
    let b = Board::from_rows(&["X X O", "X X O"]).unwrap();
    let facts = GameFacts {
        moves: 300,
        ..GameFacts::default()
    };
    let mut r = rules(Preset::Chinese, &b);
    let res = |r: &Rules| {
        score(&b, &facts, &Settled::default(), r)
            .outcome
            .to_string()
    };
    assert_eq!(res(&r), "B+2");
    r.move_limit = baduk_go::MoveLimit::Void(300);
    assert_eq!(res(&r), "Void");
    r.move_limit = baduk_go::MoveLimit::Draw(250);
    assert_eq!(res(&r), "0");
    r.move_limit = baduk_go::MoveLimit::Komi(250);
    r.komi = Komi::from_halves(13);
    assert_eq!(res(&r), "W+6.5");
    r.move_limit = baduk_go::MoveLimit::Void(301);
    assert_eq!(res(&r), "W+4.5");
}
