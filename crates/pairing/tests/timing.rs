//! Prints how long pairing 500 players takes (Swiss, McMahon, arena); asserts only that the
//! pairings are whole, never a time. Run with `--nocapture` to see the figures.

use baduk_pairing::{
    Arena, HandicapRule, History, McMahon, Outcome, Player, PlayerId, Rank, RoundPairings, Swiss,
};
use baduk_rng::Rng;
use std::time::Instant;

fn field(n: usize, seed: u64) -> Vec<Player> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| Player {
            id: i as PlayerId,
            rating: 800.0 + rng.below(1800) as f64,
            rank: Rank::from_value(rng.below(39) as i32).unwrap(),
        })
        .collect()
}

fn outcome(rng: &mut Rng) -> Outcome {
    if rng.below(2) == 0 {
        Outcome::BlackWins
    } else {
        Outcome::WhiteWins
    }
}

/// Pairs six rounds with `pair`, random results between them, printing each round's time.
fn time_rounds(name: &str, pair: impl Fn(&History) -> RoundPairings, rng: &mut Rng) {
    let mut history = History::default();
    for round in 1..=6 {
        let t = Instant::now();
        let paired = pair(&history);
        let took = t.elapsed();
        assert_eq!(paired.pairings.len(), 250);
        println!("{name} 500 players, round {round}: {took:?}");
        history.rounds.push(paired.finish(|_| outcome(rng)));
    }
}

#[test]
fn pairing_500_players_prints_its_time() {
    let players = field(500, 1);
    let mut rng = Rng::new(2);
    let swiss = Swiss::default();
    time_rounds("swiss", |h| swiss.pair(&players, h), &mut rng);
    let mut mm = McMahon::new("3d".parse().unwrap(), "20k".parse().unwrap());
    mm.handicap = Some(HandicapRule {
        reduction: 1,
        max: 9,
    });
    time_rounds("mcmahon", |h| mm.pair(&players, h), &mut rng);
}

#[test]
fn arena_of_500_players_prints_its_pairing_time() {
    let players = field(500, 3);
    let mut rng = Rng::new(4);
    let mut arena = Arena::new(u64::MAX, 6.5, 5);
    let mut playing = Vec::new();
    let t = Instant::now();
    for p in &players {
        playing.extend(arena.join(*p, 0));
    }
    println!("arena 500 joins: {:?}", t.elapsed());
    assert_eq!(playing.len(), 250);
    let mut worst = std::time::Duration::ZERO;
    let games = 20_000;
    let t = Instant::now();
    for i in 0..games {
        let at = rng.below(playing.len());
        let game = playing.swap_remove(at);
        let one = Instant::now();
        let made = arena.finish(game.finish(outcome(&mut rng)), i as u64);
        worst = worst.max(one.elapsed());
        playing.extend(made);
    }
    let total = t.elapsed();
    println!(
        "arena 500 players, {games} games: {:?} a finished game on average, worst {worst:?}",
        total / games as u32
    );
    assert!(!playing.is_empty());
}
