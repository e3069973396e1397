//! Round robin by Berger tables: everyone meets everyone exactly once, colours within one, the
//! tables as FIDE prints them, and the dummy's opponent has the bye.

use baduk_pairing::robin::berger_round;
use baduk_pairing::{PlayerId, RoundRobin};
use proptest::prelude::*;
use std::collections::HashMap;

#[test]
fn six_players_follow_the_printed_berger_table() {
    // FIDE's Berger table for 5–6 players, first-named white.
    let table = [
        vec![(1, 6), (2, 5), (3, 4)],
        vec![(6, 4), (5, 3), (1, 2)],
        vec![(2, 6), (3, 1), (4, 5)],
        vec![(6, 5), (1, 4), (2, 3)],
        vec![(3, 6), (4, 2), (5, 1)],
    ];
    for (r, expected) in table.iter().enumerate() {
        let mut got = berger_round(6, r + 1);
        let mut want = expected.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want, "round {}", r + 1);
    }
}

#[test]
fn odd_field_gives_the_dummys_opponent_the_bye() {
    let rr = RoundRobin::new(vec![10, 20, 30]);
    assert_eq!(rr.rounds(), 3);
    let byes: Vec<Option<PlayerId>> = (1..=3).map(|r| rr.round(r).unwrap().bye).collect();
    assert_eq!(byes, vec![Some(10), Some(30), Some(20)]);
    assert!(rr.round(4).is_none());
    assert!(rr.round(0).is_none());
    assert_eq!(RoundRobin::new(vec![1]).rounds(), 0);
}

#[test]
fn a_drawn_order_depends_only_on_the_seed() {
    let ids: Vec<PlayerId> = (1..=9).collect();
    assert_eq!(RoundRobin::drawn(&ids, 7), RoundRobin::drawn(&ids, 7));
    let mut sorted = RoundRobin::drawn(&ids, 7).order;
    sorted.sort();
    assert_eq!(sorted, ids);
}

proptest! {
    #[test]
    fn everyone_meets_everyone_once_with_colours_within_one(n in 2usize..=40, seed in any::<u64>()) {
        let ids: Vec<PlayerId> = (0..n as PlayerId).map(|i| i * 3 + 1).collect();
        let rr = RoundRobin::drawn(&ids, seed);
        let mut met: HashMap<(PlayerId, PlayerId), usize> = HashMap::new();
        let mut whites: HashMap<PlayerId, i32> = HashMap::new();
        let mut byes: HashMap<PlayerId, usize> = HashMap::new();
        for r in 1..=rr.rounds() {
            let round = rr.round(r).unwrap();
            let mut seen: Vec<PlayerId> = round.bye.into_iter().collect();
            for p in &round.pairings {
                *met.entry((p.black.min(p.white), p.black.max(p.white))).or_default() += 1;
                *whites.entry(p.white).or_default() += 1;
                *whites.entry(p.black).or_default() -= 1;
                seen.push(p.black);
                seen.push(p.white);
            }
            if let Some(b) = round.bye {
                *byes.entry(b).or_default() += 1;
            }
            seen.sort();
            let mut all = ids.clone();
            all.sort();
            prop_assert_eq!(seen, all);
        }
        prop_assert_eq!(met.len(), n * (n - 1) / 2);
        prop_assert!(met.values().all(|&c| c == 1));
        prop_assert!(whites.values().all(|w| w.abs() <= 1));
        if n % 2 == 1 {
            prop_assert_eq!(byes.len(), n);
            prop_assert!(byes.values().all(|&b| b == 1));
        } else {
            prop_assert!(byes.is_empty());
        }
    }
}

#[test]
fn standings_order_by_points_then_sodos() {
    use baduk_pairing::{History, Outcome, Player};
    let players: Vec<Player> = (1..=4)
        .map(|id| Player {
            id,
            rating: 1500.0,
            rank: "1d".parse().unwrap(),
        })
        .collect();
    let rr = RoundRobin::new(vec![1, 2, 3, 4]);
    let mut history = History::default();
    // 1 beats 2 and 3, loses to 4; 2 beats 3 and 4; 3 beats 4: 1 and 2 on 2 points,
    // 3 on 1, 4 on 1. SODOS: 1 beat 2 (2) and 3 (1) = 3; 2 beat 3 (1) and 4 (1) = 2.
    let beats = |a: PlayerId, b: PlayerId| (a, b);
    let wins = [
        beats(1, 2),
        beats(1, 3),
        beats(4, 1),
        beats(2, 3),
        beats(2, 4),
        beats(3, 4),
    ];
    for r in 1..=rr.rounds() {
        let round = rr.round(r).unwrap().finish(|p| {
            if wins.contains(&(p.black, p.white)) {
                Outcome::BlackWins
            } else {
                Outcome::WhiteWins
            }
        });
        history.rounds.push(round);
    }
    let st = rr.standings(&players, &history);
    let table: Vec<(PlayerId, f64, f64)> = st
        .rows
        .iter()
        .map(|r| (r.player.id, r.score, r.sodos))
        .collect();
    // 3 and 4 on 1 point: 3 beat 4 (1 point) = 1, 4 beat 1 (2 points) = 2.
    assert_eq!(
        table,
        vec![(1, 2.0, 3.0), (2, 2.0, 2.0), (4, 1.0, 2.0), (3, 1.0, 1.0)]
    );
}
