//! The Go bot against the rules library: legal under every preset, rules-faithful on repetition
//! (book ch. 13), tactically sound in capturing races, deterministic for a seed.

use baduk_go::{Board, Color, Game, Move, Point, Rules};
use baduk_rng::Rng;
use baduk_search::go::lib_game::genmove;
use baduk_search::go::{Bot, BotConfig, SearchRequest};

fn bot(playouts: u64, seed: u64) -> Bot {
    Bot::new(BotConfig {
        playouts: Some(playouts),
        move_time: None,
        seed,
        ..BotConfig::default()
    })
}

fn req() -> SearchRequest {
    SearchRequest::default()
}

fn pt(s: &str, g: &Game) -> Point {
    Point::from_gtp(s, g.board().size()).unwrap()
}

fn play(g: &mut Game, s: &str) {
    let mv = Move::from_gtp(s, g.board().size()).unwrap();
    g.play(mv).unwrap();
}

#[test]
fn bot_never_plays_an_illegal_move_under_every_preset_in_random_games() {
    for rules in Rules::presets() {
        let size = baduk_go::Size::square(7).unwrap();
        let rules = rules.with_size(size);
        let mut rng = Rng::new(11);
        for game_no in 0..2u64 {
            let mut g = Game::new(rules);
            let mut b = bot(24, game_no);
            for _ in 0..90 {
                if g.is_over() {
                    break;
                }
                let mv = if rng.below(2) == 0 {
                    let legal = g.legal_moves();
                    legal[rng.below(legal.len())]
                } else {
                    match genmove(&mut b, &g, req()).0 {
                        Some(m) => m,
                        None => break,
                    }
                };
                if let Err(e) = g.check_move(mv) {
                    panic!("{rules}: the bot chose an illegal move: {e}");
                }
                g.play(mv).unwrap();
            }
        }
    }
}

/// Book ch. 13, figs. 13.1–13.3: after White's last move the game is over in substance; Black
/// captures one stone (B8, here C1), White passes (W9), Black throws in (B10, here D1) so that
/// White's four stones are in atari. White's capture at X (here B1) takes two stones and recreates
/// the position after W7 (the start): a repetition move that Japanese rules allow and Zen refused.
fn zen_position(rules: &str) -> Game {
    let board = Board::from_rows(&[
        "XXXXXXXO.",
        "X.XX.XXOO",
        "XXXXXXXO.",
        "XXXXXXXOO",
        "X.XX.XXO.",
        "XXXXXXXOO",
        "XXXXXXXO.",
        "XXOOOXXOO",
        "XO..O.XO.",
    ])
    .unwrap();
    let rules = Rules::parse(rules).unwrap();
    let mut g = Game::from_position(rules, board, Color::Black);
    play(&mut g, "C1");
    play(&mut g, "pass");
    play(&mut g, "D1");
    g
}

#[test]
fn book_ch13_bot_plays_the_legal_repetition_capture_zen_refused_under_japanese() {
    for rules in ["japanese", "korean", "kang"] {
        let g = zen_position(rules);
        let x = Move::Play(pt("B1", &g));
        assert!(g.is_legal(x), "{rules}: the repetition capture is legal");
        let mut b = bot(1500, 5);
        let (mv, r) = genmove(&mut b, &g, req());
        assert_eq!(
            mv,
            Some(x),
            "{rules}: stats {:?}",
            &r.stats[..r.stats.len().min(3)]
        );
    }
}

#[test]
fn book_ch13_under_superko_rules_the_bot_does_not_play_the_repetition() {
    for rules in ["chinese", "aga", "tromp-taylor", "nz"] {
        let g = zen_position(rules);
        let x = Move::Play(pt("B1", &g));
        assert!(!g.is_legal(x), "{rules}: superko forbids it");
        let mut b = bot(300, 5);
        let (mv, _) = genmove(&mut b, &g, req());
        let mv = mv.expect("no resignation by default");
        assert_ne!(mv, x);
        assert!(g.is_legal(mv));
    }
}

/// A capturing race on the bottom edge: Black's C2–E2 chain (under Black's wall) against White's
/// F2–H2 (under White's wall).
fn race(rows1: &str, to_move: Color, rules: &str) -> Game {
    let board = Board::from_rows(&[
        ".X.XXO.O.",
        "XXXXXOOOO",
        "X.XXXOO.O",
        "XXXXXOOOO",
        "XXXXXOOOO",
        "XXXXXOOOO",
        "XXXXXOOOO",
        "XXOOOXXXO",
        rows1,
    ])
    .unwrap();
    Game::from_position(Rules::parse(rules).unwrap(), board, to_move)
}

#[test]
fn semeai_black_captures_the_chain_that_wins_the_race_not_the_decoy() {
    // White C2–E2 has one liberty (D1); Black F2–H2 has one (G1). Capturing F1 at G1 is a
    // decoy: White then captures four stones at F1.
    let g = race(".XX.XO.O.", Color::Black, "chinese,komi=7.5");
    assert_eq!(g.board().liberty_count(pt("D2", &g)), 1);
    assert_eq!(g.board().liberty_count(pt("G2", &g)), 1);
    let mut b = bot(2000, 3);
    let (mv, _) = genmove(&mut b, &g, req());
    assert_eq!(mv, Some(Move::Play(pt("D1", &g))));
}

#[test]
fn semeai_the_winning_capture_is_found_under_territory_rules_too() {
    let g = race(".XX.XO.O.", Color::Black, "japanese");
    let mut b = bot(2000, 8);
    let (mv, _) = genmove(&mut b, &g, req());
    assert_eq!(mv, Some(Move::Play(pt("D1", &g))));
}

#[test]
fn semeai_white_to_move_captures_first_and_wins() {
    let g = race(".XX.XO.O.", Color::White, "chinese,komi=7.5");
    let mut b = bot(2000, 4);
    let (mv, _) = genmove(&mut b, &g, req());
    assert_eq!(mv, Some(Move::Play(pt("G1", &g))));
}

#[test]
fn bot_is_deterministic_for_a_seed_at_a_node_budget_with_one_thread() {
    let mut g = Game::new(Rules::parse("chinese,size=9").unwrap());
    for m in ["E5", "C3", "G7"] {
        play(&mut g, m);
    }
    let run = |seed| {
        let mut b = bot(400, seed);
        let (mv, r) = genmove(&mut b, &g, req());
        (
            mv,
            r.stats.iter().map(|s| (s.mv, s.visits)).collect::<Vec<_>>(),
        )
    };
    assert_eq!(run(7), run(7));
    let threaded = |seed| {
        let mut b = Bot::new(BotConfig {
            playouts: Some(400),
            move_time: None,
            seed,
            threads: 2,
            ..BotConfig::default()
        });
        let (mv, r) = genmove(&mut b, &g, req());
        (
            mv,
            r.playouts,
            r.stats.iter().map(|s| (s.mv, s.visits)).collect::<Vec<_>>(),
        )
    };
    // Two threads share one tree: which reaches a node first varies, so the search may too,
    // but it runs exactly its budget, every playout counted once.
    let a = threaded(7);
    assert_eq!(a.1, 400);
    assert_eq!(a.2.iter().map(|s| s.1).sum::<u32>(), 400);
}

#[test]
fn bot_reuses_its_tree_after_the_opponents_reply() {
    let mut g = Game::new(Rules::parse("chinese,size=9").unwrap());
    let mut b = bot(600, 1);
    let (mv, r) = genmove(&mut b, &g, req());
    g.play(mv.unwrap()).unwrap();
    // The opponent answers with the reply the bot expected (its principal variation).
    let reply = r.stats[0].pv[1];
    let m = baduk_search::go::lib_game::mirror(&g);
    g.play(baduk_search::go::lib_game::move_of(m.board(), reply))
        .unwrap();
    // The second search starts from the kept subtree: the root already has visits.
    let m = baduk_search::go::lib_game::mirror(&g);
    let stats = b.search(
        &m,
        &SearchRequest {
            playouts: Some(1),
            ..req()
        },
    );
    let total: u32 = stats.iter().map(|s| s.visits).sum();
    assert!(
        total > 1,
        "subtree kept: {total} visits after one new playout"
    );
}

/// A 7×7 board Black owns, with one dead White stone inside.
fn dead_stone_game(rules: &str) -> Game {
    let board = Board::from_rows(&[
        ".X.X.X.", "XXXXXXX", "X.X.X.X", "XXXXXXX", ".X..O.X", "XXXXXXX", ".X.X.X.",
    ])
    .unwrap();
    let mut g = Game::from_position(Rules::parse(rules).unwrap(), board, Color::White);
    play(&mut g, "pass");
    g
}

#[test]
fn area_rules_bot_removes_dead_stones_before_passing_kgs_genmove_cleanup() {
    let g = dead_stone_game("chinese,size=7");
    let mut b = bot(500, 2);
    let (mv, _) = genmove(
        &mut b,
        &g,
        SearchRequest {
            cleanup: true,
            ..req()
        },
    );
    assert_ne!(
        mv,
        Some(Move::Pass),
        "White's dead stone is still on the board"
    );
}

#[test]
fn bot_resigns_below_its_threshold_but_never_under_jk() {
    let g = {
        let mut g = dead_stone_game("chinese,size=7,komi=0");
        play(&mut g, "C3");
        g
    };
    let cfg = BotConfig {
        playouts: Some(200),
        move_time: None,
        resign_threshold: 0.2,
        resign_moves: 1,
        ..BotConfig::default()
    };
    let mut b = Bot::new(cfg.clone());
    assert_eq!(genmove(&mut b, &g, req()).0, None, "White is lost: resign");
    let jk = {
        let board = g.board().clone();
        Game::from_position(Rules::parse("jk,size=7").unwrap(), board, Color::White)
    };
    let mut b = Bot::new(cfg);
    for _ in 0..3 {
        assert!(genmove(&mut b, &jk, req()).0.is_some(), "JK: never resign");
    }
}

/// Book ch. 13: DeepZenGo played with 7.5 komi built in while the game had 6.5. Our bot counts
/// with the game's own komi: on this settled 5×5 board Black is one point ahead by area.
#[test]
fn book_ch13_bot_counts_with_the_games_komi_not_a_built_in_one() {
    let board = Board::from_rows(&[".XOO.", ".XOO.", ".XXO.", ".XXO.", ".XXO."]).unwrap();
    let winrate = |komi: &str| {
        let rules = Rules::parse(&format!("chinese,size=5,komi={komi}")).unwrap();
        let g = Game::from_position(rules, board.clone(), Color::Black);
        let mut b = bot(800, 1);
        let (_, r) = genmove(&mut b, &g, req());
        r.winrate
    };
    assert!(winrate("0.5") > 0.8, "13 - 12 - 0.5: Black wins");
    assert!(winrate("1.5") < 0.2, "13 - 12 - 1.5: Black loses");
}

#[test]
fn bot_does_not_pass_first_while_losing_passing_is_not_resigning() {
    let board = Board::from_rows(&[
        ".X.X.X.", "XXXXXXX", "X.X.X.X", "XXXXXXX", ".X..O.X", "XXXXXXX", ".X.X.X.",
    ])
    .unwrap();
    for rules in ["japanese,size=7", "chinese,size=7"] {
        let g = Game::from_position(Rules::parse(rules).unwrap(), board.clone(), Color::White);
        let mut b = bot(300, 6);
        let (mv, r) = genmove(&mut b, &g, req());
        assert!(r.winrate < 0.2, "{rules}: White is lost");
        assert_ne!(mv, Some(Move::Pass), "{rules}: White plays on");
    }
}

/// Root visits after a search: the playouts the tree at this root has seen.
fn root_visits(b: &mut Bot, m: &baduk_search::go::state::GameState) -> u32 {
    let stats = b.search(
        m,
        &SearchRequest {
            playouts: Some(100),
            ..req()
        },
    );
    stats.iter().map(|s| s.visits).sum()
}

#[test]
fn a_tree_is_reused_only_for_the_same_position_and_colour_to_move() {
    use baduk_search::go::board::Colour;
    // Issue 14: a GUI asks for White's analysis, then Black's, at the same position; Black's
    // search must not go on in White's tree (nor the other way round, nor after set-up).
    let setup = Game::from_position(
        Rules::parse("chinese,size=9").unwrap(),
        Board::from_rows(&[
            ".........",
            ".........",
            "..X......",
            ".........",
            ".........",
            ".........",
            "......O..",
            ".........",
            ".........",
        ])
        .unwrap(),
        Color::Black,
    );
    let mut played = Game::new(Rules::parse("chinese,size=9").unwrap());
    play(&mut played, "E5");
    for g in [
        Game::new(Rules::parse("chinese,size=9").unwrap()),
        played,
        setup,
    ] {
        for first in [Colour::Black, Colour::White] {
            let mut b = bot(100, 1);
            let mut m = baduk_search::go::lib_game::mirror(&g);
            m.set_to_move(first);
            let n1 = root_visits(&mut b, &m);
            // The same colour again: the tree goes on.
            assert!(
                root_visits(&mut b, &m) > n1,
                "same colour: the tree is kept"
            );
            m.set_to_move(first.opp());
            let n2 = root_visits(&mut b, &m);
            assert!(
                n2 <= 100,
                "{first:?} then the other colour: a fresh tree ({n2} visits)"
            );
            m.set_to_move(first);
            assert!(root_visits(&mut b, &m) <= 100, "and back: fresh again");
        }
    }
}

#[test]
fn avoid_and_allow_hold_for_the_plies_they_are_given_for() {
    use baduk_search::go::board::{Colour, PASS};
    use baduk_search::go::lib_game::{idx_of, mirror};
    use baduk_search::go::mcts::MoveRestriction;
    let g = Game::new(Rules::parse("chinese,size=9").unwrap());
    let m = mirror(&g);
    let pts = |names: &[&str]| -> Vec<u16> {
        names.iter().map(|n| idx_of(m.board(), pt(n, &g))).collect()
    };
    // White may not answer in the centre on the first reply; Black plays only the 3-3 points
    // for its first two moves (plies 0 and 2).
    let centre = pts(&["E5", "D5", "E4", "F5", "E6", "D4", "F4", "D6", "F6"]);
    let corners = pts(&["C3", "G7", "C7", "G3"]);
    let limited = SearchRequest {
        playouts: Some(3000),
        restrictions: vec![
            MoveRestriction {
                colour: Colour::White,
                allow: false,
                points: centre.clone(),
                until_depth: 2,
            },
            MoveRestriction {
                colour: Colour::Black,
                allow: true,
                points: corners.clone(),
                until_depth: 3,
            },
        ],
        ..req()
    };
    let mut b = bot(3000, 1);
    let stats = b.search(&m, &limited);
    let mut seen_reply = false;
    for s in stats.iter().filter(|s| s.visits > 0) {
        assert!(s.mv == PASS || corners.contains(&s.mv), "root {:?}", s.mv);
        if let Some(&r) = s.pv.get(1) {
            seen_reply = true;
            assert!(!centre.contains(&r), "White's reply {r} in the centre");
        }
        if let Some(&third) = s.pv.get(2) {
            assert!(
                third == PASS || corners.contains(&third),
                "Black's second {third}"
            );
        }
    }
    assert!(seen_reply, "the search went deeper than the root");
    // Without restrictions the same position gets a fresh, unrestricted tree.
    let free = b.search(
        &m,
        &SearchRequest {
            playouts: Some(300),
            ..req()
        },
    );
    assert!(free
        .iter()
        .any(|s| s.visits > 0 && !corners.contains(&s.mv) && s.mv != PASS));
}

#[test]
fn levels_cap_the_playouts_and_out_of_range_levels_are_refused() {
    let mut cfg = BotConfig::default();
    cfg.apply_options("level=1,time=5").unwrap();
    let mut b = Bot::new(cfg);
    let g = empty_chinese_9x9();
    let (_, r) = genmove(&mut b, &g, req());
    assert_eq!(r.playouts, baduk_search::go::LEVEL_PLAYOUTS[0]);
    for bad in ["level=0", "level=11", "level=x"] {
        let e = BotConfig::default().apply_options(bad).unwrap_err();
        assert!(e.contains("level"), "{bad}: {e}");
    }
    for bad in [
        "prior-weight=-1",
        "prior-weight=nan",
        "widen=0.5",
        "score-band=0.7",
        "score=2",
        "time=inf",
        "time=1e30s",
        "time=-1",
        "resign=nan",
        "rave=-5",
        "explore=nan",
        "expand=inf",
        "ladder-prior=-1",
        "ladder-prior=nan",
        "playout-ladders=yes",
        "score-centre=yes",
        "playout-replies=1",
    ] {
        let e = BotConfig::default().apply_options(bad).unwrap_err();
        assert!(e.contains(bad), "{bad}: {e}");
    }
}

#[test]
fn a_bad_model_file_is_refused_naming_the_file_and_priors_none_falls_back() {
    let dir = std::env::temp_dir().join(format!("baduk-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let truncated = dir.join("truncated.txt");
    std::fs::write(&truncated, "baduk go-patterns 2\ncapture 1 4.0\n").unwrap();
    let other = dir.join("v1.txt");
    std::fs::write(&other, "# an earlier format\nbaduk go-patterns 1\nend 0\n").unwrap();
    let bad_spatial = dir.join("spatial.txt");
    std::fs::write(
        &bad_spatial,
        "baduk go-patterns 2\ncapture 1 4.0\nspatial 4:..X 2.0\nend 2\n",
    )
    .unwrap();
    let cases = [
        (dir.join("missing.txt"), "cannot read the model file"),
        (truncated, "truncated"),
        (other, ":2: not a model this build reads"),
        (
            bad_spatial,
            ":3: bad spatial pattern `4:..X`: level 4 has 12 cells, not 3",
        ),
    ];
    for (path, want) in cases {
        let e = BotConfig::default()
            .apply_options(&format!("priors={}", path.display()))
            .unwrap_err();
        assert!(
            e.contains(&path.display().to_string()) && e.contains(want),
            "{e}"
        );
    }
    let mut cfg = BotConfig::default();
    cfg.apply_options("priors=none,playouts=200").unwrap();
    assert!(cfg.model.is_none());
    let mut b = Bot::new(cfg);
    let g = empty_chinese_9x9();
    let (mv, _) = genmove(&mut b, &g, req());
    assert!(mv.is_some());
    std::fs::remove_dir_all(&dir).ok();
}

/// An empty 9×9 game under `chinese`.
#[test]
fn the_lowest_levels_play_some_random_sensible_moves_and_level_five_none() {
    // A level and a plain playout cap of the same size search alike (same seed, no tree
    // reuse), so the moves differ only where the level blunders.
    let differences = |level: u32, playouts: u64| {
        let make = |opts: String| {
            let mut cfg = BotConfig::default();
            cfg.apply_options(&opts).unwrap();
            Bot::new(cfg)
        };
        let mut leveled = make(format!("level={level},reuse=false,seed=7"));
        let mut capped = make(format!("playouts={playouts},reuse=false,seed=7"));
        let mut g = empty_chinese_9x9();
        let mut differ = 0;
        for _ in 0..40 {
            let (a, _) = genmove(&mut leveled, &g, req());
            let (b, _) = genmove(&mut capped, &g, req());
            let a = a.expect("a level-capped bot without a resign threshold never resigns");
            differ += usize::from(Some(a) != b);
            if g.play(a).is_err() {
                panic!("level {level} chose an illegal move {a:?}");
            }
            if g.is_over() {
                break;
            }
        }
        differ
    };
    let low = differences(1, baduk_search::go::LEVEL_PLAYOUTS[0]);
    assert!(
        low >= 8,
        "level 1 should blunder about half its moves, differed {low} times"
    );
    assert_eq!(differences(5, baduk_search::go::LEVEL_PLAYOUTS[4]), 0);
}

fn empty_chinese_9x9() -> Game {
    Game::new(
        Rules::parse("chinese")
            .unwrap()
            .with_size(baduk_go::Size::square(9).unwrap()),
    )
}
