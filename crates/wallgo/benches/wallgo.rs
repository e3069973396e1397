//! Criterion benchmarks of the Wall Go core: legal-action generation, random games and perft.

use baduk_rng::Rng;
use baduk_wallgo::{perft, play_random, ActionList, Position, Variant};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

/// Positions after 12 turns of 64 seeded random games (a typical mid-game spread).
fn sample_positions() -> Vec<Position> {
    let mut l = ActionList::new();
    (0..64)
        .map(|s| {
            let mut rng = Rng::new(s);
            let mut p = Position::new(Variant::default());
            while !p.is_over() && p.turns_played() < 12 {
                p.legal_actions(&mut l);
                p.apply_unchecked(l[rng.below(l.len())]);
            }
            p
        })
        .collect()
}

fn generation(c: &mut Criterion) {
    let positions = sample_positions();
    let mut l = ActionList::new();
    let per_pass: u64 = positions
        .iter()
        .map(|p| {
            p.legal_actions(&mut l);
            l.len() as u64
        })
        .sum();
    let mut g = c.benchmark_group("legal_actions");
    g.throughput(Throughput::Elements(per_pass));
    g.bench_function("64 mid-game positions", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &positions {
                black_box(p).legal_actions(&mut l);
                n += l.len();
            }
            black_box(n)
        })
    });
    g.finish();
}

fn random_games(c: &mut Criterion) {
    let mut g = c.benchmark_group("random_game");
    g.throughput(Throughput::Elements(1));
    let mut seed = 0;
    let mut l = ActionList::new();
    g.bench_function("start to end", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = Rng::new(seed);
            let mut p = Position::new(Variant::default());
            black_box(play_random(&mut p, &mut rng, &mut l))
        })
    });
    g.finish();
}

fn perft3(c: &mut Criterion) {
    let p = sample_positions()[0];
    c.bench_function("perft 3 mid-game", |b| b.iter(|| perft(black_box(&p), 3)));
}

criterion_group!(benches, generation, random_games, perft3);
criterion_main!(benches);
