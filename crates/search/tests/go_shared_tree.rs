//! Threads sharing one search tree (issue 24, point 5): no update is lost, every virtual loss
//! is taken back, and the tree is the one-thread tree when there is one thread (the node cap
//! with several threads: `go_time_memory.rs`; the tactics with two: `tactics.rs`). Searches with several threads vary from run to run, so these tests assert only
//! what holds for every interleaving (never a time).

use baduk_go::{Game, Rules, Size};
use baduk_search::go::lib_game::mirror;
use baduk_search::go::mcts::Tree;
use baduk_search::go::patterns::Model;
use baduk_search::go::{Bot, BotConfig, SearchRequest};

fn empty(size: u32) -> Game {
    Game::new(
        Rules::parse("chinese,komi=7.5")
            .unwrap()
            .with_size(Size::square(size).unwrap()),
    )
}

/// A tree at the empty `size` board with learned priors, searched by `threads` threads.
fn tree(size: u32, threads: usize, max_nodes: usize) -> Tree {
    let g = mirror(&empty(size));
    Tree::new(
        g.board().clone(),
        g.rules,
        Default::default(),
        g.forbidden_set(),
        None,
        11,
    )
    .with_model(Some(Model::builtin()))
    .with_max_nodes(max_nodes)
    .with_more_threads((1..threads as u64).map(|k| 11 + k))
}

/// Runs `per_thread` playouts on each thread of `t`, all at once, in small slices.
fn search(t: &mut Tree, per_thread: u64) {
    t.search_parallel(|s| {
        for _ in 0..per_thread / 50 {
            s.run(50);
        }
        s.run(per_thread % 50);
        ((), per_thread)
    });
}

#[test]
fn a_shared_tree_counts_every_playout_once_and_takes_every_virtual_loss_back() {
    for threads in [2usize, 4] {
        for size in [9u32, 13] {
            let mut t = tree(size, threads, usize::MAX);
            assert_eq!(t.threads(), threads);
            let per_thread = 700;
            search(&mut t, per_thread);
            let total = per_thread * threads as u64;
            assert_eq!(t.playouts, total);
            // The root is visited by every playout of every thread: the most contended counter.
            assert_eq!(
                t.root_visits(),
                total as f32,
                "{threads} threads, {size}x{size}"
            );
            let by_move: u32 = t.root_stats().iter().map(|s| s.visits).sum();
            assert_eq!(by_move as u64, total, "{threads} threads, {size}x{size}");
            let (vloss, short, found) = t.audit();
            assert_eq!(vloss, 0, "virtual loss left in the tree");
            assert_eq!(short, 0, "nodes with fewer visits than their children");
            assert_eq!(found, t.size(), "the nodes held are the nodes counted");
            assert!(t.size() > 100, "the tree grew: {} nodes", t.size());
        }
    }
}

#[test]
fn the_bot_with_several_threads_runs_exactly_its_budget_in_one_tree() {
    let g = mirror(&empty(9));
    for threads in [2usize, 4] {
        let mut config = BotConfig::default();
        config
            .apply_options(&format!("threads={threads},playouts=3000,seed=5"))
            .unwrap();
        let mut bot = Bot::new(config);
        let stats = bot.search(&g, &SearchRequest::default());
        assert_eq!(bot.playouts(), 3000);
        assert_eq!(stats.iter().map(|s| s.visits as u64).sum::<u64>(), 3000);
        let t = bot.tree().expect("a tree");
        assert_eq!(t.threads(), threads);
        assert_eq!(t.audit(), (0, 0, t.size()));
    }
}

#[test]
fn one_thread_through_search_parallel_is_the_plain_search() {
    let mut a = tree(9, 1, usize::MAX);
    let mut b = tree(9, 1, usize::MAX);
    a.run(1500);
    search(&mut b, 1500);
    assert_eq!(a.root_stats(), b.root_stats());
    assert_eq!(a.size(), b.size());
}

#[test]
fn a_kept_subtree_carries_its_counts_and_frees_the_rest() {
    let game = empty(9);
    let mut config = BotConfig::default();
    config
        .apply_options("threads=2,playouts=3000,seed=3")
        .unwrap();
    let mut bot = Bot::new(config);
    let g0 = mirror(&game);
    let stats = bot.search(&g0, &SearchRequest::default());
    // Play the best move and the reply the tree likes best: the tree is kept below them.
    let line: Vec<u16> = stats[0].pv.iter().take(2).copied().collect();
    assert_eq!(line.len(), 2, "a principal variation of two moves");
    let reply_visits = stats[0].pv_visits[1];
    assert!(reply_visits > 0);
    let mut g2 = game.clone();
    for &i in &line {
        let mv = baduk_search::go::lib_game::move_of(g0.board(), i);
        g2.play(mv).unwrap();
    }
    let g2m = mirror(&g2);
    bot.search(&g2m, &SearchRequest::default());
    let t = bot.tree().expect("a tree");
    assert_eq!(bot.playouts(), 3000);
    assert!(
        t.root_visits() >= (3000 + reply_visits) as f32,
        "the kept subtree's visits came along: {}",
        t.root_visits()
    );
    // Only the kept subtree and what the new search added are held.
    assert_eq!(t.audit(), (0, 0, t.size()));
}
