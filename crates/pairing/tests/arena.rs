//! The arena: points and streaks, the waiting pool, pairing at once by points then rating, no
//! immediate rematch while someone else waits, nothing paired after the end.

use baduk_pairing::{Arena, Outcome, Pairing, Player, PlayerId};

fn player(id: PlayerId, rating: f64) -> Player {
    Player {
        id,
        rating,
        rank: "1d".parse().unwrap(),
    }
}

fn win(p: &Pairing, winner: PlayerId) -> baduk_pairing::Game {
    p.finish(if winner == p.black {
        Outcome::BlackWins
    } else {
        Outcome::WhiteWins
    })
}

#[test]
fn joining_players_are_paired_at_once_and_wait_when_alone() {
    let mut a = Arena::new(60_000, 6.5, 1);
    assert!(a.join(player(1, 1500.0), 0).is_empty());
    assert!(a.waiting(1));
    let made = a.join(player(2, 1600.0), 0);
    assert_eq!(made.len(), 1);
    assert!(made[0].has(1) && made[0].has(2));
    assert!(!a.waiting(1) && !a.waiting(2));
    assert_eq!(a.game_of(1), Some(&made[0]));
    // Joining twice changes nothing.
    assert!(a.join(player(1, 1500.0), 0).is_empty());
}

#[test]
fn wins_score_two_and_double_after_two_in_a_row_until_a_non_win() {
    let mut a = Arena::new(u64::MAX, 6.5, 1);
    a.join(player(1, 2000.0), 0);
    let mut game = a.join(player(2, 1000.0), 0)[0];
    // 1 wins four in a row (2, 2, 4, 4), then a jigo (1), then a win (2).
    let results = [Some(1), Some(1), Some(1), Some(1), None, Some(1)];
    for (t, r) in results.iter().enumerate() {
        let g = match r {
            Some(w) => win(&game, *w),
            None => game.finish(Outcome::Jigo),
        };
        let next = a.finish(g, t as u64);
        // The two are alone, so they meet again.
        assert_eq!(next.len(), 1);
        game = next[0];
    }
    let row = a.row(1).unwrap();
    assert_eq!(row.results, vec![2, 2, 4, 4, 1, 2]);
    assert_eq!(row.points, 15);
    assert_eq!(row.streak, 1);
    assert_eq!(a.row(2).unwrap().points, 1);
    assert_eq!(a.standings()[0].player.id, 1);
}

#[test]
fn a_finisher_meets_the_nearest_waiting_player_but_not_the_last_opponent() {
    let mut a = Arena::new(u64::MAX, 6.5, 3);
    a.join(player(1, 1500.0), 0);
    let g12 = a.join(player(2, 1510.0), 0)[0];
    a.join(player(3, 1900.0), 0);
    let g34 = a.join(player(4, 1000.0), 0)[0];
    assert!(g34.has(3) && g34.has(4));
    // 3 beats 4: they are each other's last opponent and 1–2 still plays, so both wait.
    assert!(a.finish(win(&g34, 3), 1).is_empty());
    assert!(a.waiting(3) && a.waiting(4));
    // 1 beats 2: 1 (2 points) meets 3 (2 points), 2 (0) meets 4 (0).
    let made = a.finish(win(&g12, 1), 2);
    assert_eq!(made.len(), 2);
    assert!(made.iter().any(|p| p.has(1) && p.has(3)));
    assert!(made.iter().any(|p| p.has(2) && p.has(4)));
}

#[test]
fn the_last_opponent_is_skipped_while_another_waits() {
    let mut a = Arena::new(u64::MAX, 6.5, 5);
    a.join(player(1, 1500.0), 0);
    let g = a.join(player(2, 1500.0), 0)[0];
    a.join(player(3, 800.0), 0);
    // 1 and 2 finish; 3 waits. The first of them takes 3, the other waits rather than
    // meeting its last opponent again.
    let made = a.finish(g.finish(Outcome::Jigo), 1);
    assert_eq!(made.len(), 1);
    assert!(made[0].has(3));
    assert!(a.waiting(1) != a.waiting(2));
}

#[test]
fn nothing_is_paired_at_or_after_the_end_but_late_games_count() {
    let mut a = Arena::new(1_000, 6.5, 1);
    a.join(player(1, 1500.0), 0);
    let g = a.join(player(2, 1500.0), 0)[0];
    assert!(a.finish(win(&g, 2), 1_000).is_empty());
    assert_eq!(a.row(2).unwrap().points, 2);
    assert!(a.join(player(3, 1500.0), 2_000).is_empty());
    // A game the arena did not pair is ignored.
    assert!(a.finish(g.finish(Outcome::BlackWins), 2_000).is_empty());
    assert_eq!(a.row(1).unwrap().games, 1);
}

#[test]
fn colours_go_to_the_player_with_fewer_blacks() {
    let mut a = Arena::new(u64::MAX, 6.5, 9);
    a.join(player(1, 1500.0), 0);
    let mut g = a.join(player(2, 1500.0), 0)[0];
    for t in 1..6 {
        let black = g.black;
        g = a.finish(g.finish(Outcome::Jigo), t)[0];
        assert_ne!(g.black, black, "colours alternate between the two");
    }
}

#[test]
fn leaving_takes_a_player_out_of_the_pool() {
    let mut a = Arena::new(u64::MAX, 6.5, 1);
    a.join(player(1, 1500.0), 0);
    a.leave(1);
    assert!(!a.waiting(1));
    assert!(a.join(player(2, 1500.0), 0).is_empty());
}

#[test]
fn a_player_who_left_mid_game_is_not_pooled_when_it_ends() {
    let mut a = Arena::new(u64::MAX, 6.5, 1);
    a.join(player(1, 1500.0), 0);
    let g = a.join(player(2, 1500.0), 0)[0];
    a.join(player(3, 1500.0), 0);
    a.leave(1);
    let made = a.finish(win(&g, 1), 1);
    assert_eq!(a.row(1).unwrap().points, 2);
    assert!(!a.waiting(1));
    assert_eq!(made.len(), 1);
    assert!(made[0].has(2) && made[0].has(3));
    // Back again: paired with whoever waits, or waits.
    assert!(a.join(player(1, 1500.0), 2).is_empty());
    assert!(a.waiting(1));
}

proptest::proptest! {
    /// Random arenas: a player is never in two games nor waiting while playing, an immediate
    /// rematch only when nobody else waited or played, and points are the sum of the results.
    #[test]
    fn random_arenas_keep_their_invariants(n in 2u32..=40, games in 1usize..300, seed in proptest::prelude::any::<u64>()) {
        let mut rng = baduk_rng::Rng::new(seed);
        let mut a = Arena::new(u64::MAX, 6.5, seed);
        let mut playing: Vec<Pairing> = Vec::new();
        let mut last: std::collections::HashMap<PlayerId, PlayerId> = Default::default();
        for id in 0..n {
            playing.extend(a.join(player(id, rng.below(2000) as f64), 0));
        }
        for t in 0..games {
            if playing.is_empty() {
                break;
            }
            let g = playing.swap_remove(rng.below(playing.len()));
            let outcome = [Outcome::BlackWins, Outcome::WhiteWins, Outcome::Jigo][rng.below(3)];
            last.insert(g.black, g.white);
            last.insert(g.white, g.black);
            let waiting_before: Vec<PlayerId> = (0..n).filter(|&p| a.waiting(p)).collect();
            let others_playing = !playing.is_empty();
            let made = a.finish(g.finish(outcome), t as u64);
            for p in &made {
                if last.get(&p.black) == Some(&p.white) {
                    let someone_else =
                        waiting_before.iter().any(|&w| !p.has(w)) || others_playing;
                    proptest::prop_assert!(!someone_else, "immediate rematch {:?}", p);
                }
            }
            playing.extend(made);
            let mut busy = std::collections::HashSet::new();
            for p in &playing {
                proptest::prop_assert!(busy.insert(p.black) && busy.insert(p.white));
                proptest::prop_assert!(!a.waiting(p.black) && !a.waiting(p.white));
            }
        }
        for id in 0..n {
            let row = a.row(id).unwrap();
            proptest::prop_assert_eq!(row.points, row.results.iter().sum::<u32>());
            proptest::prop_assert_eq!(row.games as usize, row.results.len());
        }
    }
}

#[test]
fn a_replay_of_stored_games_reaches_the_live_arenas_state_and_pairs_who_waits() {
    /// What a store keeps: a pairing made, a game ended, in the order they happened.
    enum Event {
        Seat(Pairing),
        End(baduk_pairing::Game),
    }
    let mut live = Arena::new(u64::MAX, 6.5, 7);
    let mut log: Vec<Event> = Vec::new();
    let mut playing: Vec<Pairing> = Vec::new();
    for id in 1..=7 {
        playing.extend(live.join(player(id, 1400.0 + 50.0 * id as f64), 0));
    }
    log.extend(playing.iter().map(|p| Event::Seat(*p)));
    for t in 1..=20u64 {
        let g = playing.remove(0);
        let done = win(&g, if t % 3 == 0 { g.white } else { g.black });
        let made = live.finish(done, t);
        log.push(Event::End(done));
        log.extend(made.iter().map(|p| Event::Seat(*p)));
        playing.extend(made);
    }
    let mut again = Arena::new(u64::MAX, 6.5, 7);
    for id in 1..=7 {
        assert!(again.enter(player(id, 1400.0 + 50.0 * id as f64)));
    }
    for e in &log {
        match e {
            Event::Seat(p) => assert!(again.seat(*p)),
            Event::End(g) => assert!(again.end(*g)),
        }
    }
    for id in 1..=7 {
        assert_eq!(again.row(id), live.row(id));
        assert_eq!(again.game_of(id), live.game_of(id));
        assert_eq!(again.waiting(id), live.waiting(id));
    }
    // The odd one out waits in both, with nobody to meet: nothing new is paired.
    assert_eq!((1..=7).filter(|&p| again.waiting(p)).count(), 1);
    assert!(again.pair_waiting(21).is_empty());
}

#[test]
fn pair_waiting_pairs_the_pool_and_never_one_who_left() {
    let mut a = Arena::new(100, 6.5, 1);
    for id in 1..=5 {
        a.enter(player(id, 1500.0 + id as f64));
    }
    a.leave(3);
    let made = a.pair_waiting(10);
    assert_eq!(made.len(), 2, "{made:?}");
    assert!(made.iter().all(|p| !p.has(3)));
    assert!(!a.waiting(3) && a.game_of(3).is_none());
    // One left over waits; after the end nothing is paired.
    assert_eq!((1..=5).filter(|&p| a.waiting(p)).count(), 0);
    let g = made[0];
    assert!(a.end(win(&g, g.black)));
    assert!(a.pair_waiting(100).is_empty());
    assert!(a.waiting(g.black) && a.waiting(g.white));
    // Ending a game it is not playing changes nothing.
    assert!(!a.end(win(&g, g.black)));
}
