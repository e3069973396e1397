//! The engine's review (issue 41): a move's loss read inside one search, the played move
//! visited, the tree kept from one position to the next, the same review for the same seed.

use baduk_go::{Move, Rules, SgfGame};
use baduk_search::go::review::{ReviewConfig, Reviewer};

/// A short 9×9 game (moves of a real 9×9 opening, then a blunder into atari).
const GAME: &str = "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese];B[ee];W[gc];B[dg];W[cc];B[gg];W[ce];B[ec];W[eb];B[db];W[dc];B[fb];W[ed];B[fc];W[da])";

fn reviewer(playouts: u64, seed: u64) -> Reviewer {
    Reviewer::new(ReviewConfig {
        playouts,
        seed,
        ..ReviewConfig::default()
    })
}

fn game() -> (SgfGame, Rules) {
    let g = SgfGame::parse(GAME).expect("the record reads");
    let mut rules = Rules::parse("chinese")
        .expect("a rule set")
        .with_size(g.size);
    rules.komi = g.komi.expect("KM");
    (g, rules)
}

#[test]
fn a_loss_is_read_in_one_tree_and_never_charged_to_the_engines_own_choice() {
    let (g, rules) = game();
    let mut r = reviewer(400, 7);
    for k in 0..g.moves.len() {
        let game = g.replay(rules, Some(k)).expect("legal");
        let played = Some(g.moves[k].mv);
        let v = r.review(&game, k, played);
        assert!(
            (0.0..=1.0).contains(&v.winrate),
            "position {k}: win rate {}",
            v.winrate
        );
        assert!(v.loss >= 0.0 && v.points_lost >= 0.0, "position {k}: {v:?}");
        if v.played == Some(v.best) {
            assert_eq!(
                (v.loss, v.points_lost),
                (0.0, 0.0),
                "position {k}: the engine's own choice is no loss"
            );
        }
        // The played move got its forced share of the playouts (a tenth: 40).
        assert!(
            v.played_visits >= 40,
            "position {k}: the played move had {} visits",
            v.played_visits
        );
        let pw = v.played_winrate.expect("the played move's value");
        if v.loss > 0.0 {
            assert!(
                (v.best_winrate - pw - v.loss).abs() < 1e-5,
                "position {k}: loss from the same tree"
            );
        }
    }
}

#[test]
fn the_tree_goes_on_to_the_next_position_and_only_then() {
    let (g, rules) = game();
    let mut r = reviewer(300, 3);
    let first = r.review(&g.replay(rules, Some(0)).unwrap(), 0, Some(g.moves[0].mv));
    assert_eq!(
        first.kept_visits, 0,
        "the first position is searched afresh"
    );
    let next = r.review(&g.replay(rules, Some(1)).unwrap(), 1, Some(g.moves[1].mv));
    assert!(
        next.kept_visits >= 30,
        "the played move's subtree goes on: {} visits kept",
        next.kept_visits
    );
    assert_eq!(r.at(), Some(1));
    // Jumping ahead is searched too (afresh, or from what the tree holds of it).
    r.review(&g.replay(rules, Some(6)).unwrap(), 6, Some(g.moves[6].mv));
    assert_eq!(r.at(), Some(6));
}

#[test]
fn the_same_seed_gives_the_same_review() {
    let (g, rules) = game();
    let run = |seed| {
        let mut r = reviewer(200, seed);
        (0..5)
            .map(|k| r.review(&g.replay(rules, Some(k)).unwrap(), k, Some(g.moves[k].mv)))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(11), run(11));
}

#[test]
fn the_end_of_the_record_has_no_played_move_and_no_loss() {
    let (g, rules) = game();
    let n = g.moves.len();
    let v = reviewer(200, 1).review(&g.replay(rules, Some(n)).unwrap(), n, None);
    assert_eq!((v.played, v.loss, v.played_visits), (None, 0.0, 0));
    assert!(v.best != Move::Pass || v.loss == 0.0);
}

#[test]
fn hand_written_priors_and_a_time_cap_review_a_territory_game() {
    let walled =
        "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese];B[cc];W[ee];B[cd];W[hh];B[ce];W[hg];B[cf];W[hf])";
    let g = SgfGame::parse(walled).expect("the record reads");
    let mut rules = Rules::parse("japanese")
        .expect("a rule set")
        .with_size(g.size);
    rules.komi = g.komi.expect("KM");
    let mut r = Reviewer::new(ReviewConfig {
        playouts: 100,
        time: Some(std::time::Duration::from_secs(3)),
        model: None,
        ..ReviewConfig::default()
    });
    for k in 0..g.moves.len() {
        let v = r.review(&g.replay(rules, Some(k)).unwrap(), k, Some(g.moves[k].mv));
        assert!(v.played_visits >= 10, "position {k}: {v:?}");
    }
}

/// A 19×19 opening (the first moves of a public game between two programs).
const OPENING_19: &str = "(;GM[1]FF[4]SZ[19]KM[7.5]RU[Chinese];B[pd];W[dp];B[pp];W[dd];B[fq];W[cn];B[jp];W[qf];B[nc];W[rd];B[qc];W[qi];B[cf];W[fc];B[db];W[cc];B[dj];W[qn];B[nq];W[pk])";

#[test]
fn a_kept_trees_root_has_the_networks_priors_as_a_fresh_one_does() {
    let g = SgfGame::parse(OPENING_19).expect("the record reads");
    let mut rules = Rules::parse("chinese")
        .expect("a rule set")
        .with_size(g.size);
    rules.komi = g.komi.expect("KM");
    let net = Some(baduk_search::go::policy_net::PolicyNet::builtin());
    let config = |playouts| ReviewConfig {
        playouts,
        seed: 3,
        net: net.clone(),
        ..ReviewConfig::default()
    };
    let mut kept = Reviewer::new(config(400));
    let mut differ = Vec::new();
    for k in 0..g.moves.len() {
        let game = g.replay(rules, Some(k)).expect("legal");
        let played = Some(g.moves[k].mv);
        let a = kept.review(&game, k, played);
        let b = Reviewer::new(config(1)).review(&game, k, played);
        if a.first_choice != b.first_choice {
            differ.push((k, a.first_choice, b.first_choice));
        }
    }
    assert!(differ.is_empty(), "kept against fresh: {differ:?}");
}
