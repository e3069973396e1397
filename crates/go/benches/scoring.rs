//! Scoring a finished 19×19 position under all nine presets (Benson and seki included), GNU Go's
//! unconditional status of it, and the dead-stone estimator on a finished GNU Go game.

use baduk_go::life::{benson, estimate, find_seki, unconditional, EstimateConfig};
use baduk_go::scoring::record::Record;
use baduk_go::scoring::{score, GameFacts, PointSet, Settled};
use baduk_go::{Board, Color, Point, Rules, Size};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

/// A 19×19 game played to the end by seeded random moves that never fill their own eyes.
fn finished_random_game() -> (Board, GameFacts) {
    let mut rng = baduk_rng::Rng::new(19);
    let mut b = Board::new(Size::nineteen());
    let mut color = Color::Black;
    let mut facts = GameFacts::default();
    let mut passes = 0;
    while passes < 2 {
        let cands: Vec<Point> = b
            .empty_points()
            .filter(|&p| b.is_simple_legal(p, color) && !b.is_eye(p, color))
            .collect();
        if cands.is_empty() {
            passes += 1;
            facts.passes[color.index()] += 1;
        } else {
            passes = 0;
            b.play_unrecorded(cands[rng.below(cands.len())], color)
                .expect("empty point");
        }
        facts.last_mover = Some(color);
        color = color.opponent();
    }
    facts.captures = [b.captures(Color::Black), b.captures(Color::White)];
    (b, facts)
}

fn bench(c: &mut Criterion) {
    let (board, facts) = finished_random_game();
    let presets: Vec<Rules> = Rules::presets().collect();
    c.bench_function("score 19x19 finished, 9 presets + benson + seki", |bch| {
        bch.iter(|| {
            let v = benson(black_box(&board));
            let mut dead = PointSet::new();
            for p in board.points() {
                if v.is_dead(&board, p) {
                    dead.insert(p);
                }
            }
            let seki = find_seki(&board, &dead, &v);
            let settled = Settled {
                dead,
                seki: seki.points,
            };
            for r in &presets {
                black_box(score(&board, &facts, &settled, r));
            }
        })
    });
    c.bench_function(
        "unconditional status 19x19 finished (GNU Go's, both colours)",
        |bch| bch.iter(|| black_box(unconditional(black_box(&board)))),
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/testdata/gnugo/scoring/score3.sgf"
    );
    let (game, name) = match std::fs::read_to_string(path)
        .ok()
        .and_then(|t| Record::from_sgf(&t, None).ok())
    {
        Some(rec) => (
            rec.board,
            "estimator 19x19 GNU Go score3.sgf (200 playouts)",
        ),
        None => (
            board.clone(),
            "estimator 19x19 random finished game (200 playouts)",
        ),
    };
    let mut g = c.benchmark_group("estimator");
    g.sample_size(10);
    g.bench_function(name, |bch| {
        bch.iter(|| black_box(estimate(black_box(&game), &EstimateConfig::default())))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
