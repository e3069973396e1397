//! Time and memory of the Go bot (issue 24, item 6): early stop when the best move cannot be
//! caught, longer thought when the best two are close (under a clock only), the tree-node cap,
//! and resignation on by default for server seats only.

use baduk_go::{Board, Color, Game, Move, Point, Rules};
use baduk_search::go::lib_game::{genmove, mirror};
use baduk_search::go::mcts::{Tree, NODE_BYTES};
use baduk_search::go::{
    bench_search, Bot, BotConfig, SearchRequest, SearchResult, StopReason, SEAT_DEFAULTS,
};
use std::time::Duration;

fn pt(s: &str, g: &Game) -> Point {
    Point::from_gtp(s, g.board().size()).unwrap()
}

fn config(opts: &str) -> BotConfig {
    let mut c = BotConfig {
        playouts: None,
        move_time: None,
        ..BotConfig::default()
    };
    c.apply_options(opts).unwrap_or_else(|e| panic!("{e}"));
    c
}

/// The capturing race of `go_bot.rs`: D1 wins it for Black, every other move loses it.
fn race() -> Game {
    let board = Board::from_rows(&[
        ".X.XXO.O.",
        "XXXXXOOOO",
        "X.XXXOO.O",
        "XXXXXOOOO",
        "XXXXXOOOO",
        "XXXXXOOOO",
        "XXXXXOOOO",
        "XXOOOXXXO",
        ".XX.XO.O.",
    ])
    .unwrap();
    Game::from_position(
        Rules::parse("chinese,komi=7.5").unwrap(),
        board,
        Color::Black,
    )
}

fn timed(
    opts: &str,
    g: &Game,
    time: Duration,
    max_time: Option<Duration>,
) -> (Option<Move>, SearchResult) {
    let mut bot = Bot::new(config(opts));
    genmove(
        &mut bot,
        g,
        SearchRequest {
            time: Some(time),
            max_time,
            ..SearchRequest::default()
        },
    )
}

// These tests assert why a search stopped and how many playouts it ran, never a wall-clock time.

#[test]
fn an_obvious_best_move_stops_early_under_a_time_budget() {
    let g = race();
    let d1 = Move::Play(pt("D1", &g));
    let budget = Duration::from_secs(2);
    let (mv, early) = timed("seed=3", &g, budget, None);
    assert_eq!(mv, Some(d1));
    let (mv, full) = timed("seed=3,early-stop=false", &g, budget, None);
    assert_eq!(mv, Some(d1));
    eprintln!(
        "early stop: {} playouts ({:?}); without it {} ({:?})",
        early.playouts, early.stopped, full.playouts, full.stopped
    );
    assert_eq!(early.stopped, StopReason::Early);
    assert_eq!(full.stopped, StopReason::Budget);
}

/// Two mirror-image moves on the empty board are the only ones allowed: they stay close.
fn close_call(max_time: Option<Duration>, playouts: Option<u64>) -> SearchResult {
    let g = mirror(&Game::new(
        Rules::parse("chinese,komi=7.5")
            .unwrap()
            .with_size(baduk_go::Size::square(9).unwrap()),
    ));
    let b = g.board();
    let (c3, g7) = (b.idx(2, 6), b.idx(6, 2));
    let mut bot = Bot::new(config(
        "seed=2,extend=1,extend-margin=0.6,explore=2,early-stop=false",
    ));
    bot.genmove(
        &g,
        &SearchRequest {
            root_moves: Some(vec![c3, g7]),
            time: playouts.is_none().then_some(Duration::from_millis(300)),
            playouts,
            max_time,
            ..SearchRequest::default()
        },
    )
}

#[test]
fn a_close_call_thinks_longer_under_a_clock_only() {
    // Under a clock that can spare 2 s: past the 0.3 s budget while the two stay close.
    let long = close_call(Some(Duration::from_secs(2)), None);
    // A fixed time per move (no clock): never past it.
    let fixed = close_call(None, None);
    eprintln!(
        "close call: {} playouts ({:?}) under a clock, {} ({:?}) at a fixed time",
        long.playouts, long.stopped, fixed.playouts, fixed.stopped
    );
    assert_eq!(long.stopped, StopReason::Extended);
    assert_eq!(fixed.stopped, StopReason::Budget);
    // A playout budget fixes the work: exactly those playouts, clock or not.
    let exact = close_call(Some(Duration::from_secs(2)), Some(700));
    assert_eq!((exact.playouts, exact.stopped), (700, StopReason::Budget));
}

#[test]
fn fixed_playout_searches_are_not_cut_short() {
    // Early stop needs a deadline: the same signature with it on and off.
    let a = bench_search(9, 2000, 1, "").unwrap();
    let b = bench_search(9, 2000, 1, "early-stop=false").unwrap();
    assert_eq!(a.playouts, 2000);
    assert_eq!(a.signature, b.signature);
}

#[test]
fn the_node_cap_is_never_exceeded() {
    eprintln!("bytes a node: {NODE_BYTES}");
    assert_eq!(NODE_BYTES, 40, "docs/bot.md states 40 bytes a node");
    // One thread, then four sharing the tree (racing for the last room under the cap).
    for (size, cap, threads) in [
        (9usize, 3000usize, 1u64),
        (19, 5000, 1),
        (9, 3000, 4),
        (19, 5000, 4),
    ] {
        let g = mirror(&Game::new(
            Rules::parse("chinese")
                .unwrap()
                .with_size(baduk_go::Size::square(size as u32).unwrap()),
        ));
        let mut t = Tree::new(
            g.board().clone(),
            g.rules,
            Default::default(),
            g.forbidden_set(),
            None,
            7,
        )
        .with_max_nodes(cap)
        .with_more_threads(8..7 + threads);
        if threads == 1 {
            t.run(4000);
        } else {
            t.search_parallel(|s| {
                for _ in 0..4000 / threads / 50 {
                    s.run(50);
                }
                ((), 4000 / threads)
            });
        }
        assert!(t.size() <= cap, "{size}x{size}: {} nodes", t.size());
        assert!(
            t.capacity() <= cap,
            "{size}x{size}: capacity {}",
            t.capacity()
        );
        assert!(
            t.size() > cap / 2,
            "the tree grew towards the cap: {}",
            t.size()
        );
        assert_eq!(t.playouts, 4000, "the search goes on when the tree is full");
        assert_eq!(
            t.audit(),
            (0, 0, t.size()),
            "no virtual loss left, no update lost"
        );
    }
    // Through the bot's options, over four threads (sharing the one tree).
    let g = mirror(&Game::new(
        Rules::parse("chinese")
            .unwrap()
            .with_size(baduk_go::Size::square(9).unwrap()),
    ));
    let mut bot = Bot::new(config("max-nodes=4000,threads=4,playouts=6000"));
    bot.search(&g, &SearchRequest::default());
    assert!(bot.tree_nodes() <= 4000, "{} nodes", bot.tree_nodes());
    assert!(bot.tree_nodes() > 2000, "{} nodes", bot.tree_nodes());
    assert_eq!(
        bot.playouts(),
        6000,
        "the search goes on when the tree is full"
    );
    assert!(BotConfig::default()
        .apply_options("max-nodes=10")
        .unwrap_err()
        .contains("max-nodes"));
}

/// Black to move on 9×9 against nine White stones on the 3-5-7 points: hopeless.
fn hopeless() -> Game {
    let board = Board::from_rows(&[
        ".........",
        ".........",
        "..O.O.O..",
        ".........",
        "..O.O.O..",
        ".........",
        "..O.O.O..",
        ".........",
        ".........",
    ])
    .unwrap();
    Game::from_position(
        Rules::parse("chinese,komi=7.5").unwrap(),
        board,
        Color::Black,
    )
}

#[test]
fn a_hopeless_position_resigns_with_the_server_defaults_only() {
    let g = hopeless();
    // A server seat: the defaults before the seat's own options, a fresh bot every move.
    let mut seat = BotConfig::default();
    seat.apply_options(&format!("{SEAT_DEFAULTS},seed=1,playouts=4000"))
        .unwrap();
    let (mv, r) = genmove(&mut Bot::new(seat.clone()), &g, SearchRequest::default());
    assert_eq!(mv, None, "resigns; win rate {}", r.winrate);
    // The arena's (and GTP's) defaults: the same bot for three moves in a row never resigns.
    let mut arena = BotConfig::default();
    arena.apply_options("seed=1,playouts=4000").unwrap();
    let mut bot = Bot::new(arena);
    let mut g2 = g.clone();
    for _ in 0..3 {
        let (mv, r) = genmove(&mut bot, &g2, SearchRequest::default());
        assert!(r.winrate < 0.05, "hopeless: win rate {}", r.winrate);
        let mv = mv.expect("no resignation unless asked");
        g2.play(mv).unwrap();
        // White strengthens (not passing, which would end the game after a Black pass).
        let w = ["D4", "F6", "D6", "F4", "E4", "E6"]
            .iter()
            .map(|s| Move::Play(pt(s, &g2)))
            .find(|&m| g2.is_legal(m))
            .unwrap();
        g2.play(w).unwrap();
    }
    // An even game does not resign with the server defaults.
    let even = Game::new(
        Rules::parse("chinese,komi=7.5")
            .unwrap()
            .with_size(baduk_go::Size::square(9).unwrap()),
    );
    let (mv, _) = genmove(&mut Bot::new(seat), &even, SearchRequest::default());
    assert!(mv.is_some());
}

#[test]
fn bench_signatures_are_mains() {
    // `baduk bench go --size N --playouts 10000 --search` (seed 1, default options): the
    // time and memory rules change nothing in a search fixed by playouts. The numbers are
    // those of the built-in model fitted on Pachi self-play (a new model changes them).
    assert_eq!(
        bench_search(9, 10_000, 1, "").unwrap().signature,
        5580490815243230934
    );
    // 19×19 with the patterns alone: the default until the policy network became it.
    assert_eq!(
        bench_search(19, 10_000, 1, "priors=builtin")
            .unwrap()
            .signature,
        11763942765079923464
    );
    // 19×19 with the network two plies deep: the default until 2026-12-05's round at three.
    assert_eq!(
        bench_search(19, 10_000, 1, "net-depth=2")
            .unwrap()
            .signature,
        14824717840579352574
    );
    // 19×19 by default: the built-in policy network three plies deep (a new network changes
    // it; a faster forward pass does not: its sums are the same).
    assert_eq!(
        bench_search(19, 10_000, 1, "").unwrap().signature,
        18305446291242343977
    );
}
