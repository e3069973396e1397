//! The policy network in the bot (issue 44): `priors=net` gives the nodes nearest the root the
//! network's priors, a kept tree's new root gets them too, and a bad weights file is refused when
//! the option is read, naming the file.

use baduk_go::{Game, Move, Rules};
use baduk_search::go::lib_game::{self, genmove};
use baduk_search::go::{Bot, BotConfig, SearchRequest};

fn bot(opts: &str, playouts: u64) -> Bot {
    let mut c = BotConfig {
        playouts: Some(playouts),
        move_time: None,
        seed: 7,
        ..BotConfig::default()
    };
    c.apply_options(opts).unwrap();
    Bot::new(c)
}

fn evals(b: &Bot) -> u64 {
    b.tree().map_or(0, |t| t.net_evals())
}

#[test]
fn the_network_gives_the_root_its_priors_and_only_down_to_its_depth() {
    let g = Game::new(Rules::parse("chinese").unwrap());
    // Depth 0: the root alone is evaluated.
    let mut b = bot("priors=net,net-depth=0", 200);
    let (mv, _) = genmove(&mut b, &g, SearchRequest::default());
    assert!(matches!(mv, Some(Move::Play(_))), "{mv:?}");
    assert_eq!(evals(&b), 1);
    // Depth 1: the root and the children that were expanded.
    let mut b = bot("priors=net,net-depth=1", 200);
    genmove(&mut b, &g, SearchRequest::default());
    assert!(evals(&b) > 1, "{}", evals(&b));
    // Patterns only: none.
    let mut b = bot("priors=patterns", 200);
    genmove(&mut b, &g, SearchRequest::default());
    assert_eq!(evals(&b), 0);
}

#[test]
fn past_its_depth_the_network_goes_where_the_search_spends_its_playouts() {
    let g = Game::new(Rules::parse("chinese").unwrap());
    // The root alone at depth 0; with net-visits, also the nodes under a parent visited 30
    // times (the root from its 30th playout, then its busiest children).
    let mut alone = bot("priors=net,net-depth=0", 300);
    genmove(&mut alone, &g, SearchRequest::default());
    assert_eq!(evals(&alone), 1);
    let mut busy = bot("priors=net,net-depth=0,net-visits=30", 300);
    genmove(&mut busy, &g, SearchRequest::default());
    let n = evals(&busy);
    assert!(n > 1, "{n}");
    // A threshold no parent reaches is the depth alone.
    let mut never = bot("priors=net,net-depth=0,net-visits=100000", 300);
    genmove(&mut never, &g, SearchRequest::default());
    assert_eq!(evals(&never), 1);
    // Reproducible.
    let mut again = bot("priors=net,net-depth=0,net-visits=30", 300);
    genmove(&mut again, &g, SearchRequest::default());
    assert_eq!(evals(&again), n);
}

#[test]
fn a_search_with_the_network_is_reproducible_by_its_seed() {
    let g = Game::new(Rules::parse("chinese").unwrap());
    let a = genmove(&mut bot("priors=net", 300), &g, SearchRequest::default()).0;
    let b = genmove(&mut bot("priors=net", 300), &g, SearchRequest::default()).0;
    assert_eq!(a, b);
}

#[test]
fn a_kept_tree_gets_the_network_at_its_new_root() {
    let mut g = Game::new(Rules::parse("chinese").unwrap());
    let mut b = bot("priors=net,net-depth=0,reuse=true", 400);
    let (mv, _) = genmove(&mut b, &g, SearchRequest::default());
    // The opponent answers with the reply the tree searched most (so the tree is kept).
    let (pv, board) = {
        let t = b.tree().unwrap();
        (t.pv_values(1.0), t.root_board().clone())
    };
    assert_eq!(
        pv[0].0,
        lib_game::idx_of(&board, mv.unwrap().point().unwrap())
    );
    g.play(mv.unwrap()).unwrap();
    let mut after = board.clone();
    after.play(pv[0].0, after.to_move());
    g.play(lib_game::move_of(&after, pv[1].0)).unwrap();
    let (before, visits) = (evals(&b), b.tree().unwrap().root_visits());
    genmove(&mut b, &g, SearchRequest::default());
    let t = b.tree().unwrap();
    assert!(
        t.root_visits() > 400.0,
        "kept: {} root visits after {visits}",
        t.root_visits()
    );
    assert_eq!(
        t.net_evals(),
        before + 1,
        "one evaluation for the kept root"
    );
}

#[test]
fn a_bad_weights_file_is_refused_naming_it() {
    let mut c = BotConfig::default();
    let e = c.apply_options("net=/nonexistent/net.bin").unwrap_err();
    assert!(e.starts_with("/nonexistent/net.bin: cannot read"), "{e}");
    let dir = std::env::temp_dir().join(format!("baduk-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut refused = |name: &str, bytes: &[u8]| {
        let f = dir.join(name);
        std::fs::write(&f, bytes).unwrap();
        c.apply_options(&format!("net={}", f.display()))
            .unwrap_err()
    };
    let e = refused("foreign.bin", b"GGUF not ours\n");
    assert!(
        e.contains("foreign.bin") && e.contains("not a `baduk-go-policy 1` file"),
        "{e}"
    );
    let full = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/go-policy.bin"
    ))
    .unwrap();
    let e = refused("truncated.bin", &full[..full.len() / 2]);
    assert!(
        e.contains("truncated.bin") && e.contains("truncated"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
    // Nothing is taken from a refused file: the network stays the default, the built-in one.
    let builtin = baduk_search::go::policy_net::PolicyNet::builtin();
    assert!(
        c.net
            .as_ref()
            .is_some_and(|n| std::sync::Arc::ptr_eq(n, &builtin)),
        "nothing taken from a refused file"
    );
}

/// The review's agreement with strong play (issue 44): with `GO_AGREEMENT_SGF` naming SGF files
/// (separated by `:`), each position of each game is searched as the review engine does (1,000
/// playouts, the built-in patterns, with and without the network: `GO_AGREEMENT_NET` gives its
/// options, `GO_AGREEMENT_PLAYOUTS` the budget) and the preferred move compared with the move
/// played. Prints the counts; run it with `--release -- --ignored --nocapture`.
#[test]
#[ignore]
fn agreement_with_the_moves_played() {
    let Ok(files) = std::env::var("GO_AGREEMENT_SGF") else {
        return;
    };
    let playouts: u64 = std::env::var("GO_AGREEMENT_PLAYOUTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    // The network's search options (GO_AGREEMENT_NET: `priors=net` and any others).
    let net_opts = std::env::var("GO_AGREEMENT_NET").unwrap_or_else(|_| "priors=net".into());
    let mut agree = [0usize; 3];
    let mut total = 0usize;
    for f in files.split(':').filter(|f| !f.is_empty()) {
        let text = std::fs::read_to_string(f).unwrap();
        let g = baduk_go::SgfGame::parse_game(&text, 0).unwrap();
        let rules = g.rules(Some(Rules::parse("chinese").unwrap())).unwrap();
        let n = g.moves.len();
        let mut game_agree = [0usize; 3];
        for k in 0..n {
            let played = g.moves[k].mv;
            let game = g.replay(rules, Some(k)).unwrap();
            // The network alone (its most likely legal point), then the two searches.
            let m = lib_game::mirror(&game);
            let fb = m.board().clone();
            let net = baduk_search::go::policy_net::PolicyNet::builtin();
            let recent = {
                let mut r = [baduk_search::go::board::PASS; 4];
                for (slot, mv) in r.iter_mut().zip(m.moves().iter().rev()) {
                    *slot = mv.1;
                }
                r
            };
            let roots = lib_game::root_moves(&game, &fb);
            let raw = baduk_search::go::policy_net::planes_of(&fb, &recent, m.rules.komi)
                .map(|p| net.forward(&p))
                .and_then(|l| {
                    roots.iter().copied().max_by(|&a, &b| {
                        let at = |i| {
                            let (x, y) = fb.xy(i);
                            l[y * 19 + x]
                        };
                        at(a).total_cmp(&at(b))
                    })
                })
                .map(|i| lib_game::move_of(&fb, i));
            let mut picks = vec![raw];
            for opts in ["priors=patterns", net_opts.as_str()] {
                let mut c = BotConfig {
                    playouts: Some(playouts),
                    move_time: None,
                    seed: 1 + k as u64,
                    ..BotConfig::default()
                };
                c.apply_options(opts).unwrap();
                let mut bot = Bot::new(c);
                picks.push(genmove(&mut bot, &game, SearchRequest::default()).0);
            }
            for (a, p) in game_agree.iter_mut().zip(&picks) {
                *a += usize::from(*p == Some(played));
            }
        }
        eprintln!(
            "{f}: {n} positions; agree: network alone {}, patterns {}, network {}",
            game_agree[0], game_agree[1], game_agree[2]
        );
        for (a, g) in agree.iter_mut().zip(game_agree) {
            *a += g;
        }
        total += n;
    }
    let pct = |a: usize| 100.0 * a as f64 / total.max(1) as f64;
    eprintln!(
        "all: {total} positions at {playouts} playouts; agree: network alone {:.1}%, patterns {:.1}%, network {:.1}%",
        pct(agree[0]),
        pct(agree[1]),
        pct(agree[2])
    );
}

#[test]
fn the_default_bot_takes_the_network_at_level_10_only() {
    // The network is the default priors (it beat the patterns in every comparison); levels below 10
    // keep the patterns' priors their ladder was measured with, and `priors=builtin` asks for
    // the patterns alone.
    let g = Game::new(Rules::parse("chinese").unwrap());
    for (opts, uses_net) in [
        ("", true),
        ("level=10", true),
        ("level=9", false),
        ("level=1", false),
        ("priors=builtin", false),
    ] {
        let mut b = bot(opts, 200);
        let (mv, _) = genmove(&mut b, &g, SearchRequest::default());
        assert!(matches!(mv, Some(Move::Play(_))), "{opts}: {mv:?}");
        assert_eq!(
            evals(&b) > 0,
            uses_net,
            "`{opts}`: {} evaluations",
            evals(&b)
        );
    }
    assert_eq!(
        BotConfig::default().params.net_depth,
        baduk_search::go::DEFAULT_NET_DEPTH
    );
}

/// The value head (`value-net`, `value=W`): weighed 0 it changes nothing; weighed, the nodes
/// the network expands start with its verdict and the search goes elsewhere, reproducibly.
#[test]
fn a_value_head_weighs_the_nodes_the_network_expands() {
    let g = Game::new(Rules::parse("chinese").unwrap());
    let visits = |opts: &str| {
        let mut b = bot(opts, 400);
        genmove(&mut b, &g, SearchRequest::default());
        let mut v: Vec<_> = b
            .tree()
            .unwrap()
            .root_stats()
            .iter()
            .map(|s| (s.mv, s.visits))
            .collect();
        v.sort();
        v
    };
    let off = visits("priors=net");
    assert_eq!(off, visits("priors=net,value-net=builtin,value=0"));
    let on = visits("priors=net,value-net=builtin,value=200");
    assert_ne!(on, off);
    assert_eq!(on, visits("priors=net,value-net=builtin,value=200"));
}

#[test]
fn a_value_head_that_is_missing_or_not_the_networks_is_refused_naming_it() {
    let err = |opts: &str| {
        let mut c = BotConfig::default();
        c.apply_options(opts).unwrap_err()
    };
    assert!(err("priors=net,value=50").contains("no value head"));
    assert!(err("priors=none,value-net=builtin").contains("needs the policy network"));
    let e = err("priors=net,value-net=/nonexistent/v.bin");
    assert!(e.starts_with("/nonexistent/v.bin: cannot read"), "{e}");
    // The test head was trained on the test network, not the built-in one.
    let other = format!(
        "{}/tests/data/go-value-test.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    let e = err(&format!("priors=net,value-net={other}"));
    assert!(e.contains("trained on the network with SHA-256"), "{e}");
    let mut c = BotConfig::default();
    c.apply_options("priors=net,value-net=builtin,value=40")
        .unwrap();
}
