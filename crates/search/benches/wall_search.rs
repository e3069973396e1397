//! Criterion bench of the Wall Go `expert` search: the fixed position set of `baduk bench
//! search` to depth 3, and the hand evaluation alone.

use baduk_search::wall::eval::Evaluator;
use baduk_search::wall::search::{bench_positions, SearchConfig, Searcher};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn search(c: &mut Criterion) {
    let positions = bench_positions();
    let cfg = SearchConfig {
        max_depth: 3,
        nodes: None,
        ms: None,
        tt_bits: 18,
        safe_pruning: true,
        late_move_reductions: true,
    };
    let mut s = Searcher::new(cfg, Evaluator::HandTerritory);
    c.bench_function("expert depth 3 over the bench positions", |b| {
        b.iter(|| {
            let mut nodes = 0;
            for p in &positions {
                nodes += s.search(black_box(p)).1.nodes;
            }
            nodes
        })
    });
    c.bench_function("expert evaluation over the bench positions", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| Evaluator::HandTerritory.value(black_box(p), p.to_move()) as i64)
                .sum::<i64>()
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = search
}
criterion_main!(benches);
